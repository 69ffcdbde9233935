"""With the kv cache on, a one-step query is still run with ``is_causal=True``: SDPA aligns the mask top-left and the new token sees only the first cached key.

Report: https://github.com/time-series-foundation-models/lag-llama/issues/81
Class: is_causal_misuse
"""

import torch
import torch.nn.functional as F
from torch import nn


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head):
        super().__init__()
        self.n_head = n_head
        self.q_attn = nn.Linear(n_embd, n_embd, bias=False)
        self.kv_attn = nn.Linear(n_embd, 2 * n_embd, bias=False)
        self.kv_cache = None

    def forward(self, x, use_kv_cache):
        b, t, c = x.size()
        q = self.q_attn(x).view(b, t, self.n_head, c // self.n_head).transpose(1, 2)
        k, v = self.kv_attn(x).split(c, dim=2)
        k = k.view(b, t, self.n_head, c // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        v = v.view(b, t, self.n_head, c // self.n_head).transpose(1, 2)
        if use_kv_cache and self.kv_cache is not None:
            cached_k, cached_v = self.kv_cache
            k = torch.cat([cached_k, k], dim=-2)  # (B, nh, S, hs)
            v = torch.cat([cached_v, v], dim=-2)
        if use_kv_cache:
            self.kv_cache = (k, v)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=None, is_causal=True)  # bug
        return y.transpose(1, 2).contiguous().view(b, t, c)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attn = CausalSelfAttention(8, 2)
    x = torch.randn(1, 5, 8)
    attn(x[:, :4], use_kv_cache=True)  # the context fills the cache
    return attn(x[:, 4:], use_kv_cache=True)  # one new step
