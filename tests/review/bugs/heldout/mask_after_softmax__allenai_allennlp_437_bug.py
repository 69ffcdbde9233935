"""masked_softmax takes the softmax over the whole vector and only then multiplies by the mask: a large masked element takes all the mass and the renormalised row is 0.

Report: https://github.com/allenai/allennlp/pull/437
Class: mask_after_softmax
"""

import torch


def masked_softmax(vector, mask):
    # vector, mask: (batch_size, vector_dim); mask is 1 for the elements to keep
    result = torch.nn.functional.softmax(vector, dim=-1)  # bug
    if mask is not None:
        result = result * mask  # bug
        result = result / (result.sum(dim=1, keepdim=True) + 1e-13)
    return result


def run() -> torch.Tensor:
    x1 = torch.tensor([[1.0, 1.0, 2.0], [1.0, 1.0, 100.0]])
    mask = torch.tensor([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0]])
    return masked_softmax(x1, mask)
