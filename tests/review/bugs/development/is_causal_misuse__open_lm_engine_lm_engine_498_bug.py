"""``is_causal=self.causal`` whenever no mask is given, also when one new query runs against cached keys: SDPA's top-left causal mask leaves it only the first key.

Report: https://github.com/open-lm-engine/lm-engine/pull/498
Class: is_causal_misuse
"""

import torch
import torch.nn.functional as F
from torch import nn


class Attention(nn.Module):
    def __init__(self, causal=True):
        super().__init__()
        self.causal = causal
        self.softmax_dropout_p = 0.0

    def forward(self, q, k, v, attention_mask=None):
        # q, k, v: (batch, seq, heads, head_dim)
        return F.scaled_dot_product_attention(
            query=q.transpose(1, 2),
            key=k.transpose(1, 2),
            value=v.transpose(1, 2),
            attn_mask=attention_mask,
            dropout_p=self.softmax_dropout_p if self.training else 0,
            is_causal=self.causal if attention_mask is None else False,  # bug
        )


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q = torch.randn(2, 1, 2, 4)  # one decoding step
    k = torch.randn(2, 6, 2, 4)  # cached prefix + the step
    v = torch.randn(2, 6, 2, 4)
    return Attention()(q, k, v)
