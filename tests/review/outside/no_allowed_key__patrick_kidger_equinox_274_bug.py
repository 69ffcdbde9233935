"""dot_product_attention_weights fills the masked logits with -inf; a query row whose mask is all zeros (the third row of the report's example) becomes all -inf, and the softmax gives NaN.

Report: https://github.com/patrick-kidger/equinox/pull/274
Class: no_allowed_key
Decidable: values

Equinox is written in JAX; this is the smallest faithful reproduction in PyTorch, with the
report's names and its example mask.
"""

import math

import torch


def dot_product_attention_weights(query, key, mask=None):
    logits = torch.einsum("sd,Sd->sS", query, key)
    logits = logits / math.sqrt(query.shape[-1])
    if mask is not None:
        logits = torch.where(mask, logits, -math.inf)  # bug
    return torch.softmax(logits, dim=-1)  # bug


def dot_product_attention(query, key_, value, mask=None):
    weights = dot_product_attention_weights(query, key_, mask)
    return torch.einsum("sS,Sd->sd", weights, value)


def run() -> torch.Tensor:
    query = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]) / 10
    attn_mask = torch.tensor([[1, 1, 0], [1, 1, 0], [0, 0, 0]]).bool()
    return dot_product_attention(query, query, query, mask=attn_mask)
