"""The masking helper is called with ``mask_diagonal=True`` (its default), so ``triu_indices`` uses offset 0 and the first row has no allowed key: NaN.

Report: https://github.com/pbloem/former/issues/10
Class: causal_diagonal
"""

import torch
import torch.nn.functional as F


def mask_(matrices, maskval=0.0, mask_diagonal=True):
    h, w = matrices.size(-2), matrices.size(-1)
    indices = torch.triu_indices(h, w, offset=0 if mask_diagonal else 1)
    matrices[..., indices[0], indices[1]] = maskval


def attend(queries, keys, values):
    k = queries.size(-1)
    queries = queries / (k ** (1 / 4))
    keys = keys / (k ** (1 / 4))
    dot = torch.bmm(queries, keys.transpose(1, 2))  # (b, t, t)
    mask_(dot, maskval=float("-inf"), mask_diagonal=True)  # bug
    dot = F.softmax(dot, dim=2)
    return torch.bmm(dot, values)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    x = torch.randn(2, 4, 8)
    return attend(x, x, x)
