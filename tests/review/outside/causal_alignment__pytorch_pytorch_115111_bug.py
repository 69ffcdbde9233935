"""Only the last (newly generated) query is passed to F.scaled_dot_product_attention with is_causal=True; the implied causal mask is aligned top-left, so that query attends to the first key alone instead of the whole prefix.

Report: https://github.com/pytorch/pytorch/issues/115111
Class: causal_alignment
Decidable: code
"""

import torch
import torch.nn.functional as F


def run() -> torch.Tensor:
    torch.manual_seed(0)
    B, S, Eh = 1, 5, 8
    query = torch.randn((B, S, Eh))
    key = torch.randn((B, S, Eh))
    value = torch.randn((B, S, Eh))
    return F.scaled_dot_product_attention(query[:, -1:, :], key, value, is_causal=True)  # bug
