"""An SDPA attention that passes is_causal=True only when the query has more than one token and no mask is given, and no mask at all for a one-token decode step against the KV cache.

Correct: with the cache empty the prefill is square (L == S), where the top-left causal triangle is
the right one; a single new query sits at the last position and may see every cached key, which is
what attention without a mask gives.
"""

import torch
import torch.nn.functional as F


def sdpa_attention_forward(query, key, value, attention_mask=None, scaling=None):
    is_causal = query.shape[2] > 1 and attention_mask is None
    return F.scaled_dot_product_attention(
        query, key, value, attn_mask=attention_mask, is_causal=is_causal, scale=scaling
    )


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 1, 2, 4, 8).unbind(0)
    prefill = sdpa_attention_forward(q, k, v)  # L == S == 4
    q_new, k_new, v_new = torch.randn(3, 1, 2, 1, 8).unbind(0)
    keys = torch.cat([k, k_new], dim=2)
    values = torch.cat([v, v_new], dim=2)
    decode = sdpa_attention_forward(q_new, keys, values)  # L == 1, S == 5
    return torch.cat([prefill, decode], dim=2)
