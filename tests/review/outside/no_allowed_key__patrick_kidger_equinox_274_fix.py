"""The pull request masks with the dtype's smallest finite value instead of -inf, so a query whose mask row is all zero gets finite (uniform) weights instead of NaN.

Report: https://github.com/patrick-kidger/equinox/pull/274
Class: no_allowed_key
"""

import math

import torch


def dot_product_attention_weights(query, key, mask=None):
    query = query / math.sqrt(query.shape[-1])
    logits = torch.einsum("sd,Sd->sS", query, key)
    if mask is not None:
        if mask.shape != logits.shape:
            raise ValueError("mask must have the shape of the logits")
        logits = torch.where(mask, logits, torch.finfo(logits.dtype).min)
    return torch.softmax(logits, dim=-1)


def dot_product_attention(query, key_, value, mask=None):
    weights = dot_product_attention_weights(query, key_, mask)
    return torch.einsum("sS,Sd->sd", weights, value)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query = torch.tensor([[1.0, 2, 3], [4, 5, 6], [7, 8, 9]])
    attn_mask = torch.tensor([[1, 1, 0], [1, 1, 0], [0, 0, 0]]).bool()
    return dot_product_attention(query, query, query, mask=attn_mask)
