r"""Multi-head attention from scratch, step for step comparable with ``nn.MultiheadAttention``.

.. math::

   \mathrm{head}_h = \mathrm{Attention}(X W_Q^{(h)}, X W_K^{(h)}, X W_V^{(h)}), \qquad
   \mathrm{MHA}(X) = \mathrm{Concat}(\mathrm{head}_1, \dots, \mathrm{head}_H)\, W_O

``d_model`` is split into ``H`` heads of ``d_h = d_model / H``; every head runs
:func:`attention.scaled_dot_product_attention` on its own slice.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from attention._validate import broadcast_to, require_bool, shape_str
from attention.errors import AttentionShapeError
from attention.scaled_dot_product import scaled_dot_product_attention

__all__ = ["MultiHeadAttention", "mha_parameter_count"]


def _require_divisible(embed_dim: int, num_heads: int) -> None:
    if num_heads < 1 or embed_dim < 1 or embed_dim % num_heads:
        raise ValueError(
            f"embed_dim={embed_dim} must be a positive multiple of num_heads={num_heads} "
            "(num_heads >= 1; each head gets embed_dim / num_heads features)"
        )


def mha_parameter_count(embed_dim: int, num_heads: int, *, bias: bool = True) -> int:
    """Parameters of one multi-head attention layer: ``4·d² (+ 4·d with bias)``.

    W_Q, W_K, W_V and W_O are each ``d × d`` whatever ``num_heads`` is: more heads split the same
    projections into narrower slices.  No mask is involved.

    >>> mha_parameter_count(512, 8), mha_parameter_count(512, 16)
    (1050624, 1050624)
    """
    _require_divisible(embed_dim, num_heads)
    return 4 * embed_dim * embed_dim + (4 * embed_dim if bias else 0)


class MultiHeadAttention(nn.Module):
    """Multi-head attention: Q/K/V projections, split into heads, attention per head, concat, W_O.

    Masks use the **allowed** convention (True = may attend), unlike ``nn.MultiheadAttention``
    (True = forbidden); convert with :mod:`attention.conventions`.

    Args:
        embed_dim: ``d_model``; must be a multiple of ``num_heads``.
        num_heads: ``H``.
        bias: add biases to the four projections (as ``nn.MultiheadAttention`` does by default).
        batch_first: inputs and outputs are ``[B, T, d]`` if True, else ``[T, B, d]`` (torch's
            default layout).

    >>> torch.manual_seed(0) and None
    >>> mha = MultiHeadAttention(embed_dim=8, num_heads=2, batch_first=True)
    >>> x = torch.randn(3, 5, 8)                                     # [B, T, d_model]
    >>> out, weights = mha(x, x, x)
    >>> tuple(out.shape), tuple(weights.shape)                       # [B, T, d], [B, L, S]
    ((3, 5, 8), (3, 5, 5))
    """

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        *,
        bias: bool = True,
        batch_first: bool = False,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        _require_divisible(embed_dim, num_heads)
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.batch_first = batch_first
        kwargs = {"bias": bias, "device": device, "dtype": dtype}
        self.q_proj = nn.Linear(embed_dim, embed_dim, **kwargs)  # type: ignore[arg-type]
        self.k_proj = nn.Linear(embed_dim, embed_dim, **kwargs)  # type: ignore[arg-type]
        self.v_proj = nn.Linear(embed_dim, embed_dim, **kwargs)  # type: ignore[arg-type]
        self.out_proj = nn.Linear(embed_dim, embed_dim, **kwargs)  # type: ignore[arg-type]

    @classmethod
    def from_torch(cls, module: nn.MultiheadAttention) -> MultiHeadAttention:
        """Copy the weights of a ``torch.nn.MultiheadAttention`` (same ``embed_dim`` for q, k, v).

        >>> torch.manual_seed(0) and None
        >>> reference = nn.MultiheadAttention(4, 2, batch_first=True).eval()
        >>> ours = MultiHeadAttention.from_torch(reference)
        >>> x = torch.randn(1, 3, 4)
        >>> torch.allclose(ours(x, x, x)[0], reference(x, x, x)[0], atol=1e-6)
        True
        """
        if not module._qkv_same_embed_dim or module.in_proj_weight is None:
            raise ValueError(
                "from_torch needs an nn.MultiheadAttention with kdim == vdim == embed_dim"
            )
        if module.bias_k is not None or module.add_zero_attn:
            raise ValueError("from_torch does not support add_bias_kv or add_zero_attn")
        has_bias = module.in_proj_bias is not None
        ours = cls(
            module.embed_dim,
            module.num_heads,
            bias=has_bias,
            batch_first=module.batch_first,
            device=module.in_proj_weight.device,
            dtype=module.in_proj_weight.dtype,
        )
        with torch.no_grad():
            w_q, w_k, w_v = module.in_proj_weight.chunk(3)  # each [d, d]
            for proj, weight in ((ours.q_proj, w_q), (ours.k_proj, w_k), (ours.v_proj, w_v)):
                proj.weight.copy_(weight)
            ours.out_proj.weight.copy_(module.out_proj.weight)
            if has_bias:
                b_q, b_k, b_v = module.in_proj_bias.chunk(3)
                for proj, b in ((ours.q_proj, b_q), (ours.k_proj, b_k), (ours.v_proj, b_v)):
                    proj.bias.copy_(b)
                ours.out_proj.bias.copy_(module.out_proj.bias)
        return ours

    def _split_heads(self, x: Tensor) -> Tensor:
        batch, length, _ = x.shape
        x = x.view(batch, length, self.num_heads, self.head_dim)  # [B, T, H, d_h]
        return x.transpose(1, 2).reshape(batch * self.num_heads, length, self.head_dim)

    def _heads_allowed(self, allowed: Tensor, batch: int, length: int, source: int) -> Tensor:
        require_bool("allowed", allowed)
        if allowed.ndim == 3:
            allowed = allowed[:, None]  # [B, 1, L, S]: one mask shared by the heads
        shape = (batch, self.num_heads, length, source)
        allowed = broadcast_to("allowed", allowed, shape, "[B, H, L, S]")
        return allowed.reshape(batch * self.num_heads, length, source)  # [B*H, L, S]

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        allowed: Tensor | None = None,
        *,
        need_weights: bool = True,
        average_attn_weights: bool = True,
    ) -> tuple[Tensor, Tensor | None]:
        """Attend from ``query`` to ``key``/``value``; returns ``(output, weights)``.

        ``allowed`` is **Boolean, True = may attend**, broadcastable to ``[B, H, L, S]``: pass
        ``[L, S]`` (causal), ``[B, 1, S]`` (key padding), ``[B, L, S]`` or ``[B, H, L, S]``.
        ``weights`` is ``[B, L, S]`` averaged over heads, ``[B, H, L, S]`` with
        ``average_attn_weights=False``, or ``None`` with ``need_weights=False``.
        """
        for name, tensor in (("query", query), ("key", key), ("value", value)):
            if tensor.ndim != 3 or tensor.shape[-1] != self.embed_dim:
                layout = "[B, T, d_model]" if self.batch_first else "[T, B, d_model]"
                raise AttentionShapeError(
                    f"{name} must be {layout} with d_model={self.embed_dim}, got shape "
                    f"{shape_str(tensor)}"
                )
        if not self.batch_first:
            query, key, value = (t.transpose(0, 1) for t in (query, key, value))
        batch, length, _ = query.shape  # [B, L, d]
        source = key.shape[1]  # key, value: [B, S, d]
        q = self._split_heads(self.q_proj(query))  # [B*H, L, d_h]
        k = self._split_heads(self.k_proj(key))  # [B*H, S, d_h]
        v = self._split_heads(self.v_proj(value))  # [B*H, S, d_h]
        heads_allowed = (
            None if allowed is None else self._heads_allowed(allowed, batch, length, source)
        )
        out, weights = scaled_dot_product_attention(q, k, v, heads_allowed)  # [B*H, L, d_h]
        out = out.view(batch, self.num_heads, length, self.head_dim)  # [B, H, L, d_h]
        out = out.transpose(1, 2).reshape(batch, length, self.embed_dim)  # concat: [B, L, d]
        out = self.out_proj(out)  # W_O: [B, L, d]
        if not self.batch_first:
            out = out.transpose(0, 1)  # [L, B, d]
        if not need_weights:
            return out, None
        per_head = weights.view(batch, self.num_heads, length, source)  # [B, H, L, S]
        return out, per_head.mean(dim=1) if average_attn_weights else per_head
