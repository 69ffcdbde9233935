"""SpatialSelfAttention builds its nn.MultiheadAttention with batch_first=True, matching the (B*T, H*W, C) layout it is given, so each frame attends over its H*W positions.

Report: https://github.com/kyegomez/movie-gen/issues/8
Class: batch_first
"""

import torch
import torch.nn as nn


class SpatialSelfAttention(nn.Module):
    """Spatial Self-Attention Block."""

    def __init__(self, in_channels: int):
        super(SpatialSelfAttention, self).__init__()
        self.in_channels = in_channels
        num_heads = self.get_num_heads(in_channels)
        self.attention = nn.MultiheadAttention(
            embed_dim=in_channels, num_heads=num_heads, batch_first=True
        )

    def get_num_heads(self, in_channels: int) -> int:
        num_heads = min(in_channels, 8)
        while in_channels % num_heads != 0 and num_heads > 1:
            num_heads -= 1
        if in_channels % num_heads != 0:
            num_heads = 1  # Fallback to 1 if no divisor is found
        return num_heads

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, C, T, H, W = x.shape
        x_reshaped = x.permute(0, 2, 3, 4, 1).reshape(B * T, H * W, C)  # (B*T, H*W, C)
        attn_output, _ = self.attention(x_reshaped, x_reshaped, x_reshaped)
        attn_output = attn_output.view(B, T, H, W, C).permute(0, 4, 1, 2, 3)
        return x + attn_output  # Residual connection


def run() -> torch.Tensor:
    torch.manual_seed(0)
    block = SpatialSelfAttention(8).eval()
    x = torch.randn(2, 8, 3, 2, 2)  # (B, C, T, H, W)
    with torch.no_grad():
        return block(x)
