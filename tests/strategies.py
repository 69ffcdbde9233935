"""Hypothesis strategies: attention problems of random shape, dtype and mask."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from hypothesis import strategies as st
from torch import Tensor


@dataclass
class Problem:
    """One generated attention problem; ``allowed`` is None or Boolean (True = may attend)."""

    query: Tensor  # [B, L, D]
    key: Tensor  # [B, S, D]
    value: Tensor  # [B, S, Dv]
    allowed: Tensor | None  # broadcastable to [B, L, S]


def random_allowed(generator: torch.Generator, shape: tuple[int, ...], density: float) -> Tensor:
    """A random Boolean allowed mask of ``shape`` in which every row keeps at least one key."""
    allowed = torch.rand(shape, generator=generator) < density  # [..., L, S]
    keep = torch.randint(shape[-1], shape[:-1], generator=generator)  # one sure key per row
    return allowed.scatter(-1, keep[..., None], True)


@st.composite
def problems(draw: st.DrawFn, dtype: torch.dtype, *, masked: bool | None = None) -> Problem:
    """Draw sizes, a seed and a mask layout; tensors come from a seeded torch generator."""
    batch = draw(st.integers(1, 3))
    length = draw(st.integers(1, 7))
    source = draw(st.integers(1, 7))
    d_k = draw(st.integers(1, 9))
    d_v = draw(st.integers(1, 5))
    seed = draw(st.integers(0, 2**31 - 1))
    spread = draw(st.sampled_from([0.1, 1.0, 3.0]))
    generator = torch.Generator().manual_seed(seed)
    query = torch.randn(batch, length, d_k, generator=generator, dtype=dtype) * spread
    key = torch.randn(batch, source, d_k, generator=generator, dtype=dtype) * spread
    value = torch.randn(batch, source, d_v, generator=generator, dtype=dtype)
    use_mask = draw(st.booleans()) if masked is None else masked
    allowed = None
    if use_mask:
        layout = draw(st.sampled_from(["[B, L, S]", "[L, S]", "[B, 1, S]", "[1, L, S]"]))
        shape = {
            "[B, L, S]": (batch, length, source),
            "[L, S]": (length, source),
            "[B, 1, S]": (batch, 1, source),
            "[1, L, S]": (1, length, source),
        }[layout]
        density = draw(st.sampled_from([0.2, 0.5, 0.9]))
        allowed = random_allowed(generator, shape, density)
    return Problem(query, key, value, allowed)
