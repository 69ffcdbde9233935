"""The last query is attended over every key with the all-ones mask the report uses instead of is_causal=True (the newest token may see the whole prefix).

Report: https://github.com/pytorch/pytorch/issues/115111
Class: causal_alignment

The all-ones float mask adds the same constant to every score of the row, so it leaves the softmax
unchanged: the query attends to all S keys.
"""

import torch
import torch.nn.functional as F


def run() -> torch.Tensor:
    torch.manual_seed(0)
    B, S, Eh = 1, 5, 8
    query = torch.randn((B, S, Eh))
    key = torch.randn((B, S, Eh))
    value = torch.randn((B, S, Eh))
    return F.scaled_dot_product_attention(query[:, -1:, :], key, value, attn_mask=torch.ones((1, S)))
