"""``is_causal`` is derived from the mask alone (``causal_mask is None``), so a one-token decoding step with a cache gets ``is_causal=True`` and sees only the first key.

Report: https://github.com/huggingface/transformers/issues/37807
Class: is_causal_misuse
"""

import torch


def sdpa_attention_forward(query, key, value, attention_mask, scaling=None, is_causal=None):
    causal_mask = attention_mask
    if attention_mask is not None:
        causal_mask = causal_mask[:, :, :, : key.shape[-2]]
    if is_causal is None:
        is_causal = causal_mask is None  # bug
    attn_output = torch.nn.functional.scaled_dot_product_attention(
        query, key, value, attn_mask=causal_mask, scale=scaling, is_causal=is_causal
    )
    return attn_output.transpose(1, 2).contiguous()


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query = torch.randn(1, 2, 1, 4)  # (batch, heads, 1 new token, head_dim)
    key = torch.randn(1, 2, 5, 4)  # (batch, heads, cached + new, head_dim)
    value = torch.randn(1, 2, 5, 4)
    return sdpa_attention_forward(query, key, value, attention_mask=None)
