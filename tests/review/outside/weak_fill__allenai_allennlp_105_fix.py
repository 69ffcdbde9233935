"""masked_log_softmax adds log(mask) to the logits, so the masked positions are very negative (-inf) before the log-softmax and get no probability.

Report: https://github.com/allenai/allennlp/pull/105
Class: weak_fill
"""

import torch


def masked_log_softmax(vector, mask):
    if mask is not None:
        vector = vector + mask.log()
    return torch.nn.functional.log_softmax(vector, dim=-1)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    span_start_logits = torch.randn(2, 5) - 2.0
    passage_mask = torch.tensor([[1.0, 1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 0.0]])
    return masked_log_softmax(span_start_logits, passage_mask).exp()
