"""A float16 score tensor filled with torch.finfo(scores.dtype).min at the padded keys, softmax taken in float32.

Correct: finfo(float16).min is -65504, which float16 holds, so the fill does not overflow to -inf;
each row keeps at least one real key.
"""

import torch


def run() -> torch.Tensor:
    torch.manual_seed(0)
    scores = torch.randn(2, 4, 4).half()
    keep = torch.tensor([[True, True, True, False], [True, True, False, False]])[:, None, :]
    scores = scores.masked_fill(~keep, torch.finfo(scores.dtype).min)
    return scores.float().softmax(dim=-1)
