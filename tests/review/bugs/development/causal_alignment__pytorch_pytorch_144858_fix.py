"""The causal mask for ``h`` queries against ``w`` cached keys is the last ``h`` rows of a ``w x w`` ``tril``, as the report proposes: aligned bottom-right.

Report: https://github.com/pytorch/pytorch/issues/144858
Class: causal_alignment
"""

import torch
import torch.nn.functional as F


def attend(q, k, v):
    h, w = q.size(-2), k.size(-2)
    mask = torch.tril(torch.ones(w, w, dtype=torch.bool))[-h:, :]
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask[None, None])


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q = torch.randn(1, 2, 3, 4)  # h = 3 queries
    k = torch.randn(1, 2, 7, 4)  # w = 7 keys in the cache
    v = torch.randn(1, 2, 7, 4)
    return attend(q, k, v)
