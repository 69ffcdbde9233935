"""The Chroma pipeline keeps the T5 tokenizer mask as floats (1.0 = token, 0.0 = padding) and hands it to the transformer, where SDPA adds it: padding gets 0, not -inf.

Report: https://github.com/huggingface/diffusers/issues/12116
Class: bool_to_float
"""

import torch
import torch.nn.functional as F


def _get_t5_prompt_embeds(text_input_ids, tokenizer_attention_mask, dtype):
    prompt_embeds = torch.nn.functional.one_hot(text_input_ids, 8).to(dtype)  # stands in for T5
    attention_mask = tokenizer_attention_mask.to(dtype)  # bug
    return prompt_embeds, attention_mask


def joint_attention(query, key, value, attention_mask):
    # text and image tokens attend jointly; the mask covers the text keys, the image keys are kept
    image_len = key.shape[-2] - attention_mask.shape[-1]
    attention_mask = torch.cat([attention_mask, attention_mask.new_ones(1, image_len)], dim=-1)
    attn_mask = attention_mask[:, None, None, :]
    return F.scaled_dot_product_attention(query, key, value, attn_mask=attn_mask)  # bug


def run() -> torch.Tensor:
    torch.manual_seed(0)
    text_input_ids = torch.tensor([[3, 5, 0, 0, 0]])  # "man" then padding
    tokenizer_attention_mask = torch.tensor([[1, 1, 0, 0, 0]])
    prompt_embeds, attention_mask = _get_t5_prompt_embeds(
        text_input_ids, tokenizer_attention_mask, torch.float32
    )
    image_tokens = torch.randn(1, 3, 8)
    tokens = torch.cat([prompt_embeds, image_tokens], dim=1)[:, None]  # (B, heads, L, D)
    return joint_attention(tokens, tokens, tokens, attention_mask)
