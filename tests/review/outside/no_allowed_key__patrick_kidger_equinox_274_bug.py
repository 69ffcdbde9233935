"""equinox's dot_product_attention_weights masks the logits with jnp.where(mask, logits, -inf); a caller's mask with an all-zero row leaves that query no key, and its softmax is NaN.

Report: https://github.com/patrick-kidger/equinox/pull/274
Class: no_allowed_key
Decidable: values

equinox is JAX; this is the smallest faithful reproduction in PyTorch of the pull request's
example: the same names, the same jnp.where masking (torch.where here), and the same 3x3 mask
whose last row is all zero.
"""

import math

import torch


def dot_product_attention_weights(query, key, mask=None):
    query = query / math.sqrt(query.shape[-1])
    logits = torch.einsum("sd,Sd->sS", query, key)
    if mask is not None:
        if mask.shape != logits.shape:
            raise ValueError("mask must have the shape of the logits")
        logits = torch.where(mask, logits, float("-inf"))  # bug
    return torch.softmax(logits, dim=-1)  # bug


def dot_product_attention(query, key_, value, mask=None):
    weights = dot_product_attention_weights(query, key_, mask)
    return torch.einsum("sS,Sd->sd", weights, value)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query = torch.tensor([[1.0, 2, 3], [4, 5, 6], [7, 8, 9]])
    attn_mask = torch.tensor([[1, 1, 0], [1, 1, 0], [0, 0, 0]]).bool()
    return dot_product_attention(query, query, query, mask=attn_mask)
