"""The halo mask is unfolded from ones, so it is True on real pixels and 0 on the padding; masked_fill_ then fills the real pixels.

Report: https://github.com/lucidrains/halonet-pytorch/issues/4
Class: polarity
"""

import torch
import torch.nn.functional as F


def halo_attention_weights(sim, b, h, w, block, halo, heads):
    # sim: (b * blocks * heads, block * block, (block + 2 * halo) ** 2)
    # mask out padding (in the paper, they claim to not need masks, but what about padding?)
    mask = torch.ones(1, 1, h, w)
    mask = F.unfold(mask, kernel_size=block + (halo * 2), stride=block, padding=halo)  # (1, j, i)
    j, i = mask.shape[1:]
    mask = mask[0].t()[None, :, None, :].expand(b, i, heads, j).reshape(b * i * heads, 1, j)
    mask = mask.bool()  # bug
    max_neg_value = -torch.finfo(sim.dtype).max
    sim.masked_fill_(mask, max_neg_value)  # bug
    return sim.softmax(dim=-1)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    b, h, w, block, halo, heads = 1, 4, 4, 2, 1, 2
    blocks = (h // block) * (w // block)
    sim = torch.randn(b * blocks * heads, block * block, (block + 2 * halo) ** 2)
    return halo_attention_weights(sim, b, h, w, block, halo, heads)
