"""TemporalSelfAttention reshapes the video to (B*H*W, T, C), batch first, but its nn.MultiheadAttention is built with the default batch_first=False, so each frame attends across pixels and batch items instead of across time.

Report: https://github.com/kyegomez/movie-gen/issues/8
Class: batch_first
Decidable: code
"""

import torch
import torch.nn as nn


def get_num_heads(in_channels: int) -> int:
    num_heads = min(in_channels, 8)
    while in_channels % num_heads != 0 and num_heads > 1:
        num_heads -= 1
    if in_channels % num_heads != 0:
        num_heads = 1  # Fallback to 1 if no divisor is found
    return num_heads


class TemporalSelfAttention(nn.Module):
    """Temporal Self-Attention Block."""

    def __init__(self, in_channels: int):
        super(TemporalSelfAttention, self).__init__()
        self.in_channels = in_channels
        heads = get_num_heads(in_channels)
        self.attention = nn.MultiheadAttention(embed_dim=in_channels, num_heads=heads)  # bug

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, C, T, H, W = x.shape
        x_reshaped = x.permute(0, 3, 4, 2, 1).reshape(B * H * W, T, C)  # (B*H*W, T, C)
        attn_output, _ = self.attention(x_reshaped, x_reshaped, x_reshaped)  # bug
        attn_output = attn_output.view(B, H, W, T, C).permute(0, 4, 3, 1, 2)
        return x + attn_output  # Residual connection


def run() -> torch.Tensor:
    torch.manual_seed(0)
    block = TemporalSelfAttention(8).eval()
    x = torch.randn(2, 8, 3, 2, 2)  # (B, C, T, H, W)
    with torch.no_grad():
        return block(x)
