r"""Multi-head attention from scratch, step for step comparable with ``nn.MultiheadAttention``.

.. math::

   \mathrm{head}_h &= \mathrm{Attention}(X W_Q^{(h)}, X W_K^{(h)}, X W_V^{(h)}), \\
   \mathrm{MHA}(X) &= \mathrm{Concat}(\mathrm{head}_1, \dots, \mathrm{head}_H)\, W_O

``d_model`` is split into ``H`` heads of ``d_h = d_model / H``; every head runs
:func:`attention.scaled_dot_product_attention` on its own slice.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from attention._validate import (
    BOOLEAN_MEANING,
    broadcast_to,
    describe,
    require_bool,
    require_data,
    require_device,
    require_dtype,
    require_finite,
    require_flag,
    require_int,
    require_same_device,
    require_tensor,
    shape_str,
)
from attention.errors import (
    ArgumentTypeError,
    ArgumentValueError,
    AttentionShapeError,
    DeviceError,
    InputDtypeError,
    NonFiniteError,
)
from attention.scaled_dot_product import attend, require_a_key_per_row

__all__ = ["MultiHeadAttention", "mha_parameter_count"]


def _require_divisible(embed_dim: object, num_heads: object) -> tuple[int, int]:
    embed = require_int("embed_dim", embed_dim)
    heads = require_int("num_heads", num_heads)
    if heads < 1 or embed < 1 or embed % heads:
        raise ArgumentValueError(
            f"embed_dim={embed} must be a positive multiple of num_heads={heads} "
            "(num_heads >= 1; each head gets embed_dim / num_heads features)"
        )
    return embed, heads


def mha_parameter_count(embed_dim: int, num_heads: int, *, bias: bool = True) -> int:
    """Parameters of one multi-head attention layer: ``4·d² (+ 4·d with bias)``.

    W_Q, W_K, W_V and W_O are each ``d × d`` whatever ``num_heads`` is: more heads split the same
    projections into narrower slices.  No mask is involved.

    Raises:
        ArgumentTypeError: ``embed_dim`` or ``num_heads`` is not an int (``8.0``, ``True``), or
            ``bias`` is not a bool.
        ArgumentValueError: ``embed_dim`` is not a positive multiple of ``num_heads >= 1``.

    >>> mha_parameter_count(512, 8), mha_parameter_count(512, 16)
    (1050624, 1050624)
    >>> mha_parameter_count(8.0, 2)
    Traceback (most recent call last):
    attention.errors.ArgumentTypeError: embed_dim must be an int, got float 8.0; ...
    """
    embed, _ = _require_divisible(embed_dim, num_heads)
    with_bias = require_flag("bias", bias)
    return 4 * embed * embed + (4 * embed if with_bias else 0)


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
        device: where the weights live (None: torch's default device).
        dtype: the weights' floating dtype (None: torch's default dtype).

    Raises:
        ArgumentTypeError: ``embed_dim``/``num_heads`` are not ints (``8.0``, ``True``), a flag is
            not a bool, ``device`` is not a device or ``dtype`` not a ``torch.dtype``.
        ArgumentValueError: ``embed_dim`` is not a positive multiple of ``num_heads >= 1``, or
            ``dtype`` is not floating point.
        DeviceError: ``device`` names a device torch cannot use here.

    >>> torch.manual_seed(0) and None
    >>> mha = MultiHeadAttention(embed_dim=8, num_heads=2, batch_first=True)
    >>> x = torch.randn(3, 5, 8)                        # [B, T, d_model]
    >>> out, weights = mha(x, x, x)
    >>> tuple(out.shape), tuple(weights.shape)          # [B, T, d], [B, L, S]
    ((3, 5, 8), (3, 5, 5))
    >>> MultiHeadAttention(8, 2.0)
    Traceback (most recent call last):
    attention.errors.ArgumentTypeError: num_heads must be an int, got float 2.0; ...
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
        embed, heads = _require_divisible(embed_dim, num_heads)
        with_bias = require_flag("bias", bias)
        self.batch_first = require_flag("batch_first", batch_first)
        where = require_device("device", device)
        if dtype is not None and not require_dtype("dtype", dtype).is_floating_point:
            raise ArgumentValueError(
                f"dtype must be a floating-point dtype for the weights, got {dtype}"
            )
        self.embed_dim = embed
        self.num_heads = heads
        self.head_dim = embed // heads
        self.q_proj = nn.Linear(embed, embed, bias=with_bias, device=where, dtype=dtype)
        self.k_proj = nn.Linear(embed, embed, bias=with_bias, device=where, dtype=dtype)
        self.v_proj = nn.Linear(embed, embed, bias=with_bias, device=where, dtype=dtype)
        self.out_proj = nn.Linear(embed, embed, bias=with_bias, device=where, dtype=dtype)

    @classmethod
    def from_torch(cls, module: nn.MultiheadAttention) -> MultiHeadAttention:
        """Copy the weights of a ``torch.nn.MultiheadAttention`` (same ``embed_dim`` for q, k, v).

        Raises:
            ArgumentTypeError: ``module`` is not an ``nn.MultiheadAttention``.
            ArgumentValueError: ``module`` has ``kdim``/``vdim`` other than ``embed_dim``, or uses
                ``add_bias_kv`` or ``add_zero_attn``, which this module does not implement.

        >>> torch.manual_seed(0) and None
        >>> reference = nn.MultiheadAttention(4, 2, batch_first=True).eval()
        >>> ours = MultiHeadAttention.from_torch(reference)
        >>> x = torch.randn(1, 3, 4)
        >>> torch.allclose(ours(x, x, x)[0], reference(x, x, x)[0], atol=1e-6)
        True
        >>> MultiHeadAttention.from_torch(nn.Linear(4, 4))
        Traceback (most recent call last):
        attention.errors.ArgumentTypeError: module must be a torch.nn.MultiheadAttention, ...
        """
        if not isinstance(module, nn.MultiheadAttention):
            raise ArgumentTypeError(
                f"module must be a torch.nn.MultiheadAttention, got {describe(module)}; "
                "build this module directly with MultiHeadAttention(embed_dim, num_heads)"
            )
        if not module._qkv_same_embed_dim or module.in_proj_weight is None:
            raise ArgumentValueError(
                "from_torch needs an nn.MultiheadAttention with kdim == vdim == embed_dim, got "
                f"module with embed_dim={module.embed_dim}, kdim={module.kdim}, vdim={module.vdim}"
            )
        if module.bias_k is not None or module.add_zero_attn:
            raise ArgumentValueError(
                "from_torch does not support add_bias_kv or add_zero_attn: module uses "
                f"add_bias_kv={module.bias_k is not None}, add_zero_attn={module.add_zero_attn}"
            )
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

    def _check_inputs(self, query: object, key: object, value: object) -> None:
        """Check query/key/value in the caller's layout and against the module's weights."""
        layout = "[B, T, d_model]" if self.batch_first else "[T, B, d_model]"
        weight = self.q_proj.weight
        tensors = []
        for name, tensor in (("query", query), ("key", key), ("value", value)):
            checked = require_tensor(name, tensor)
            if checked.ndim != 3 or checked.shape[-1] != self.embed_dim:
                raise AttentionShapeError(
                    f"{name} must be {layout} with d_model={self.embed_dim}, got shape "
                    f"{shape_str(checked)}"
                )
            if not checked.is_floating_point():
                raise InputDtypeError(
                    f"{name} must be a floating-point tensor, got {checked.dtype}"
                )
            if checked.dtype != weight.dtype:
                raise InputDtypeError(
                    f"{name} has dtype {checked.dtype} but the module's weights are "
                    f"{weight.dtype}; convert one of them, e.g. {name}.to({weight.dtype}) or "
                    f"module.to({checked.dtype})"
                )
            require_data("the module's weights", weight)
            if checked.device != weight.device:
                raise DeviceError(
                    f"{name} is on {checked.device} but the module's weights are on "
                    f"{weight.device}; move one of them, e.g. {name}.to({str(weight.device)!r})"
                )
            tensors.append(checked)
        batch_axis = 0 if self.batch_first else 1
        q, k, v = tensors
        sizes = [t.shape[batch_axis] for t in tensors]
        if len(set(sizes)) != 1:
            raise AttentionShapeError(
                f"query, key and value must share the batch size B (layout {layout}): query "
                f"{shape_str(q)} has B={sizes[0]}, key {shape_str(k)} has B={sizes[1]}, value "
                f"{shape_str(v)} has B={sizes[2]}"
            )
        source_axis = 1 - batch_axis
        if k.shape[source_axis] != v.shape[source_axis]:
            raise AttentionShapeError(
                f"key and value must share the source length S (layout {layout}): key "
                f"{shape_str(k)} has S={k.shape[source_axis]}, value {shape_str(v)} has "
                f"S={v.shape[source_axis]}"
            )
        if k.shape[source_axis] == 0:
            raise AttentionShapeError(
                f"source length S must be positive: key has shape {shape_str(k)} (layout "
                f"{layout}), so no query has anything to attend to"
            )
        for name, tensor in (("query", q), ("key", k), ("value", v)):
            require_finite(name, tensor)

    def _heads_allowed(self, allowed: Tensor, query: Tensor, shape: tuple[int, ...]) -> Tensor:
        """Check ``allowed`` (True = may attend) and broadcast it to ``[B, H, L, S]``.

        Every query row must keep a key; the error names the caller's batch element (and head,
        when the mask differs per head), not the internal ``B·H`` index.
        """
        if isinstance(allowed, Tensor):
            require_same_device("allowed", allowed, query)
        require_bool("allowed", allowed, BOOLEAN_MEANING["allowed"])
        per_head = allowed.ndim == 4 and allowed.shape[1] != 1
        if allowed.ndim == 3:
            allowed = allowed[:, None]  # [B, 1, L, S]: one mask shared by the heads
        expanded = broadcast_to("allowed", allowed, shape, "[B, H, L, S]")
        has_key = allowed.any(dim=-1).expand(shape[:-1])  # [B, H, L]
        require_a_key_per_row(has_key if per_head else has_key[:, 0], "allowed")  # [B, (H,) L]
        return expanded

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

        Every message speaks of the caller's tensors: their layout (``[T, B, d_model]`` unless
        ``batch_first``), their batch index and, for a per-head mask, the head.

        Raises:
            ArgumentTypeError: an input or ``allowed`` is not a tensor, or a flag is not a bool.
            AttentionShapeError: an input is not ``[B, T, d_model]`` / ``[T, B, d_model]`` with
                this module's ``d_model``, batch sizes or key/value lengths differ, ``S == 0``,
                or ``allowed`` does not broadcast to ``[B, H, L, S]``.
            InputDtypeError: an input is not floating point, or not the weights' dtype.
            DeviceError: an input is not on the weights' device, ``allowed`` is not on the
                query's, or a tensor is on the meta device.
            MaskDtypeError: ``allowed`` is not ``torch.bool``.
            NonFiniteError: an input holds NaN/±inf, or a projection or the scores overflow.
            NoAllowedKeyError: some query row has no allowed key.

        >>> torch.manual_seed(0) and None
        >>> mha = MultiHeadAttention(4, 2, batch_first=True)
        >>> x = torch.randn(2, 3, 4)                  # [B=2, T=3, d_model=4]
        >>> allowed = torch.ones(2, 3, 3, dtype=torch.bool)     # True = may attend
        >>> allowed[1, 2] = False                     # batch 1, query 2: none
        >>> mha(x, x, x, allowed)
        Traceback (most recent call last):
        attention.errors.NoAllowedKeyError: query row (batch 1, position 2) has no allowed key: ...
        """
        self._check_inputs(query, key, value)
        require_flag("need_weights", need_weights)
        require_flag("average_attn_weights", average_attn_weights)
        if not self.batch_first:
            query, key, value = (t.transpose(0, 1) for t in (query, key, value))
        batch, length, _ = query.shape  # [B, L, d]
        source = key.shape[1]  # key, value: [B, S, d]
        shape = (batch, self.num_heads, length, source)
        heads_allowed = None
        if allowed is not None:  # [B*H, L, S]
            expanded = self._heads_allowed(allowed, query, shape)  # [B, H, L, S]
            heads_allowed = expanded.reshape(batch * self.num_heads, length, source)
        q = self._split_heads(self._project("q_proj", "query", query))  # [B*H, L, d_h]
        k = self._split_heads(self._project("k_proj", "key", key))  # [B*H, S, d_h]
        v = self._split_heads(self._project("v_proj", "value", value))  # [B*H, S, d_h]
        factor = 1.0 / math.sqrt(self.head_dim)  # the default scale, as in torch
        out, weights = attend(q, k, v, heads_allowed, None, factor)  # [B*H, L, d_h]
        out = out.view(batch, self.num_heads, length, self.head_dim)  # [B, H, L, d_h]
        out = out.transpose(1, 2).reshape(batch, length, self.embed_dim)  # concat: [B, L, d]
        out = self._project("out_proj", "the concatenated heads", out)  # W_O: [B, L, d]
        if not self.batch_first:
            out = out.transpose(0, 1)  # [L, B, d]
        if not need_weights:
            return out, None
        per_head = weights.view(batch, self.num_heads, length, source)  # [B, H, L, S]
        return out, per_head.mean(dim=1) if average_attn_weights else per_head

    def _project(self, name: str, what: str, x: Tensor) -> Tensor:
        """Apply projection ``name`` to ``x`` and check that it stayed finite."""
        projected: Tensor = getattr(self, name)(x)
        if not bool(torch.isfinite(projected).all()):
            raise NonFiniteError(
                f"{name}({what}) holds NaN or ±inf although {what} is finite: the module's "
                f"weights hold NaN/inf or the product overflows {projected.dtype}"
            )
        return projected
