"""``masked_log_softmax`` adds ``mask.log()``: a row whose mask is all 0 becomes all -inf and its log-softmax is NaN.

Report: https://github.com/allenai/allennlp/issues/890
Class: no_allowed_key
"""

import torch


def masked_log_softmax(vector, mask):
    if mask is not None:
        vector = vector + mask.log()  # bug
    return torch.nn.functional.log_softmax(vector, dim=1)


def run() -> torch.Tensor:
    vector = torch.tensor([[0.3725, 0.5344, 0.2128, 0.3324, 0.2745, 0.2454], [0.3423] * 6])
    mask = torch.tensor([[1.0] * 6, [0.0] * 6])
    return masked_log_softmax(vector, mask)
