"""The fix zeroes the masked elements of the vector before the softmax, so a large masked element cannot take the probability mass.

Report: https://github.com/allenai/allennlp/pull/437
Class: mask_after_softmax
"""

import torch


def masked_softmax(vector, mask):
    # vector, mask: (batch_size, vector_dim); mask is 1 for the elements to keep
    if mask is None:
        result = torch.nn.functional.softmax(vector, dim=-1)
    else:
        # To limit numerical errors from large vector elements outside mask, we zero these out
        result = torch.nn.functional.softmax(vector * mask, dim=-1)
        result = result * mask
        result = result / (result.sum(dim=1, keepdim=True) + 1e-13)
    return result


def run() -> torch.Tensor:
    x1 = torch.tensor([[1.0, 1.0, 2.0], [1.0, 1.0, 100.0]])
    mask = torch.tensor([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0]])
    return masked_softmax(x1, mask)
