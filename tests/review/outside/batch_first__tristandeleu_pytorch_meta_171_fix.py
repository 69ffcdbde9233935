"""For batch_first the [N, L, E] inputs are transposed to [L, N, E] before F.multi_head_attention_forward, and the output back.

Report: https://github.com/tristandeleu/pytorch-meta/pull/171
Class: batch_first
"""

import torch
from torch import nn
from torch.nn import functional as F


class MetaMultiheadAttention(nn.MultiheadAttention):
    def forward(
        self,
        query,
        key,
        value,
        key_padding_mask=None,
        need_weights=True,
        attn_mask=None,
        params=None,
    ):
        if params is None:
            params = dict(self.named_parameters())
        if self.batch_first:
            query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        attn_output, attn_output_weights = F.multi_head_attention_forward(
            query,
            key,
            value,
            self.embed_dim,
            self.num_heads,
            params["in_proj_weight"],
            params["in_proj_bias"],
            None,
            None,
            self.add_zero_attn,
            self.dropout,
            params["out_proj.weight"],
            params["out_proj.bias"],
            training=self.training,
            key_padding_mask=key_padding_mask,
            need_weights=need_weights,
            attn_mask=attn_mask,
        )
        if self.batch_first:
            return attn_output.transpose(1, 0), attn_output_weights
        return attn_output, attn_output_weights


def run() -> torch.Tensor:
    torch.manual_seed(0)
    mha = MetaMultiheadAttention(8, 2, batch_first=True).eval()
    x = torch.randn(3, 5, 8)  # [N, L, E]
    with torch.no_grad():
        return mha(x, x, x)[0]
