"""The temporal Attention fills `~mask`, the positions outside what a frame may attend to, as in the maintainer's fix.

Report: https://github.com/lucidrains/video-diffusion-pytorch/issues/6
Class: polarity

The einops rearranges are written with reshape / indexing; the rotary embedding is left out.
"""

import torch
from torch import einsum, nn


def exists(x):
    return x is not None


class Attention(nn.Module):
    def __init__(self, dim, heads=4, dim_head=32):
        super().__init__()
        self.scale = dim_head ** -0.5
        self.heads = heads
        hidden_dim = dim_head * heads
        self.to_qkv = nn.Linear(dim, hidden_dim * 3, bias=False)
        self.to_out = nn.Linear(hidden_dim, dim, bias=False)

    def forward(self, x, pos_bias=None, focus_present_mask=None):
        n, device = x.shape[-2], x.device
        qkv = self.to_qkv(x).chunk(3, dim=-1)

        if exists(focus_present_mask) and focus_present_mask.all():
            values = qkv[-1]
            return self.to_out(values)

        # '... n (h d) -> ... h n d'
        q, k, v = (t.reshape(*t.shape[:-1], self.heads, -1).transpose(-2, -3) for t in qkv)
        q = q * self.scale
        sim = einsum("... h i d, ... h j d -> ... h i j", q, k)

        if exists(pos_bias):
            sim = sim + pos_bias

        if exists(focus_present_mask) and not (~focus_present_mask).all():
            attend_all_mask = torch.ones((n, n), device=device, dtype=torch.bool)
            attend_self_mask = torch.eye(n, device=device, dtype=torch.bool)

            mask = torch.where(
                focus_present_mask[:, None, None, None, None],
                attend_self_mask[None, None, None],
                attend_all_mask[None, None, None],
            )

            sim = sim.masked_fill(~mask, -torch.finfo(sim.dtype).max)

        # numerical stability
        sim = sim - sim.amax(dim=-1, keepdim=True).detach()
        attn = sim.softmax(dim=-1)

        out = einsum("... h i j, ... h j d -> ... h i d", attn, v)
        out = out.transpose(-2, -3).reshape(*out.shape[:-3], n, -1)  # '... h n d -> ... n (h d)'
        return self.to_out(out)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention = Attention(dim=8, heads=2, dim_head=4)
    x = torch.randn(2, 3, 4, 8)  # batch, (height * width), frames, channels
    focus_present_mask = torch.tensor([True, False])
    return attention(x, focus_present_mask=focus_present_mask)
