"""The NaN that the all-masked padding rows produce is replaced with 0 after the attention, as the padding is discarded by the pooler anyway.

Report: https://github.com/Blaizzy/mlx-vlm/pull/1006
Class: no_allowed_key
"""

import torch


def scaled_dot_product_attention(q, k, v, scale, mask):
    # the non-fused fallback: softmax(q k^T * scale + mask) v
    scores = (q @ k.transpose(-1, -2)) * scale + mask
    return torch.softmax(scores, dim=-1) @ v


def vision_attention(q, k, v, valid):
    # q, k, v: [B, H, L, D]; valid: [B, L], False on padding patches
    allowed = valid[:, None, :, None] & valid[:, None, None, :]
    mask = torch.zeros(allowed.shape).masked_fill(~allowed, float("-inf"))
    attn_output = scaled_dot_product_attention(q, k, v, scale=1.0, mask=mask)
    # all-masked padding rows give 0/0 = NaN: replace it with 0
    attn_output = torch.where(torch.isnan(attn_output), 0.0, attn_output)
    B, H, L, D = attn_output.shape
    return attn_output.transpose(1, 2).reshape(B, L, H * D)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 1, 2, 5, 4).unbind(0)
    valid = torch.tensor([[True, True, True, False, False]])  # the last two patches are padding
    return vision_attention(q, k, v, valid)
