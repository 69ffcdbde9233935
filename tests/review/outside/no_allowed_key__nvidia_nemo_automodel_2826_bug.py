"""DFlash builds its block mask as (ctx_visible | noise_visible) & keep; a padding block of a shorter sample (keep False) gets query rows with every key masked, and the eager softmax returns NaN.

Report: https://github.com/NVIDIA-NeMo/Automodel/pull/2826
Class: no_allowed_key
Decidable: values

The smallest faithful reproduction of the pull request's description: each noise block may see the
context before its anchor (ctx_visible) and its own block (noise_visible); block_keep_mask is False
for the trailing anchors of a shorter sample in a mixed-length batch. The eager backend turns the
boolean mask into an additive -inf mask and takes a dense softmax.
"""

import math

import torch


def build_dflash_mask(anchors, block_keep_mask, ctx_len, block_size):
    batch, num_blocks = anchors.shape
    q_len = num_blocks * block_size
    block_of_query = torch.arange(q_len) // block_size  # [Q]
    ctx_pos = torch.arange(ctx_len)
    # context visible to a noise query: positions before its block's anchor
    ctx_visible = ctx_pos[None, None, :] < anchors[:, block_of_query][:, :, None]  # [B, Q, C]
    ctx_visible = torch.cat([ctx_visible, torch.zeros(batch, q_len, q_len, dtype=torch.bool)], dim=-1)
    # noise visible to a noise query: its own block
    same_block = block_of_query[:, None] == block_of_query[None, :]  # [Q, Q]
    noise_visible = torch.cat(
        [torch.zeros(q_len, ctx_len, dtype=torch.bool), same_block], dim=-1
    ).expand(batch, -1, -1)
    keep = block_keep_mask[:, block_of_query][:, :, None]  # [B, Q, 1]
    bool_mask = (ctx_visible | noise_visible) & keep  # bug
    return bool_mask


def eager_attention(q, k, v, bool_mask):
    attn_mask = torch.zeros(bool_mask.shape, dtype=q.dtype).masked_fill(~bool_mask, float("-inf"))
    scores = q @ k.transpose(-1, -2) / math.sqrt(q.size(-1)) + attn_mask[:, None]
    return scores.softmax(dim=-1) @ v  # bug


def run() -> torch.Tensor:
    torch.manual_seed(0)
    ctx_len, block_size = 6, 2
    anchors = torch.tensor([[2, 4], [2, 4]])
    block_keep_mask = torch.tensor([[True, True], [True, False]])  # sample 1 is shorter
    bool_mask = build_dflash_mask(anchors, block_keep_mask, ctx_len, block_size)
    q = torch.randn(2, 1, 4, 8)
    k, v = torch.randn(2, 2, 1, ctx_len + 4, 8).unbind(0)
    return eager_attention(q, k, v, bool_mask)
