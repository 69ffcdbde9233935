"""Under sdpa ``create_causal_mask`` skips the plain causal mask (None, leaving causality to ``is_causal``), but Doge always passes its dense dynamic-mask bias, so ``is_causal`` is off and the future is attended.

Report: https://github.com/huggingface/transformers/pull/48821
Class: is_causal_misuse
"""

import torch


def create_causal_mask(attention_mask, seq_len, allow_is_causal_skip=True):
    # sdpa: a plain causal mask (no padding) is skipped and left to is_causal=True
    if allow_is_causal_skip and bool(attention_mask.all()):
        return None
    causal = torch.ones(seq_len, seq_len, dtype=torch.bool).tril()
    return causal[None, None] & attention_mask[:, None, None, :].bool()


def prepare_dynamic_mask(hidden_states, dt_states, attention_mask=None):
    min_dtype = torch.finfo(hidden_states.dtype).min
    seq_len = hidden_states.shape[1]
    attn_mask = dt_states[:, :, None, :].expand(-1, -1, seq_len, -1)  # (B, H, L, S) bias
    if attention_mask is not None:
        attn_mask = attn_mask.masked_fill(~attention_mask, min_dtype)
    return attn_mask


def sdpa_attention_forward(query, key, value, attention_mask):
    is_causal = query.shape[2] > 1 and attention_mask is None
    return torch.nn.functional.scaled_dot_product_attention(
        query,
        key,
        value,
        attn_mask=attention_mask,
        is_causal=is_causal,  # bug
    )


def run() -> torch.Tensor:
    torch.manual_seed(0)
    B, H, L, D = 1, 2, 4, 8
    hidden_states = torch.randn(B, L, H * D)
    query, key, value = torch.randn(3, B, H, L, D).unbind(0)
    dt_states = torch.randn(B, H, L)
    causal_mask = create_causal_mask(torch.ones(B, L, dtype=torch.long), L)  # bug
    attn_mask = prepare_dynamic_mask(hidden_states, dt_states, causal_mask)
    return sdpa_attention_forward(query, key, value, attn_mask)
