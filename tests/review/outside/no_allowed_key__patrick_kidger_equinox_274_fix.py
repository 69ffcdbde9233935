"""The query is scaled before the product and the masked logits are filled with the smallest float of the dtype instead of -inf, so a fully masked row gives uniform weights instead of NaN.

Report: https://github.com/patrick-kidger/equinox/pull/274
Class: no_allowed_key
"""

import math

import torch


def dot_product_attention_weights(query, key, mask=None):
    query = query / math.sqrt(query.shape[-1])
    logits = torch.einsum("sd,Sd->sS", query, key)
    if mask is not None:
        logits = torch.where(mask, logits, torch.finfo(logits.dtype).min)
    return torch.softmax(logits, dim=-1)


def dot_product_attention(query, key_, value, mask=None):
    weights = dot_product_attention_weights(query, key_, mask)
    return torch.einsum("sS,Sd->sd", weights, value)


def run() -> torch.Tensor:
    query = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]) / 10
    attn_mask = torch.tensor([[1, 1, 0], [1, 1, 0], [0, 0, 0]]).bool()
    return dot_product_attention(query, query, query, mask=attn_mask)
