"""masked_log_softmax zeroes the masked logits by multiplying with the mask before the log-softmax, so each masked position keeps logit 0 (weight exp(0)) and takes probability from the real positions.

Report: https://github.com/allenai/allennlp/pull/105
Class: weak_fill
Decidable: code

The pull request is titled "Masked values should be very negative in masked_log_softmax, not
zero"; the code before it is written from that description (the logits multiplied by the mask),
and the fix adds the log of the mask, the form allennlp's masked_log_softmax has kept since.
"""

import torch


def masked_log_softmax(vector, mask):
    if mask is not None:
        vector = vector * mask  # bug
    return torch.nn.functional.log_softmax(vector, dim=-1)  # bug


def run() -> torch.Tensor:
    torch.manual_seed(0)
    span_start_logits = torch.randn(2, 5) - 2.0
    passage_mask = torch.tensor([[1.0, 1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 0.0]])
    return masked_log_softmax(span_start_logits, passage_mask).exp()
