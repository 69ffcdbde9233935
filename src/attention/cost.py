"""Cost model of one attention layer plus its FFN: FLOPs and bytes as functions of B, T, d, H.

Counting convention (the one ``torch.utils.flop_counter.FlopCounterMode`` uses): a matrix product
of ``[m, k] @ [k, n]`` costs ``2·m·k·n`` FLOPs; biases, softmax and activations are not counted.

=====================  ==============================  =========================================
term                   FLOPs                           bytes (``bytes_per_element`` each)
=====================  ==============================  =========================================
scores ``QKᵀ``         ``2·B·T²·d``                    score matrix ``B·H·T²``
mixing ``AV``          ``2·B·T²·d``                    --
Q/K/V/O projections    ``4 · 2·B·T·d²``                weights ``4·d²``
FFN (width ``f``)      ``2 · 2·B·T·d·f``               weights ``2·d·f``, hidden ``B·T·f``
=====================  ==============================  =========================================

The score terms grow with ``T²`` and the projection/FFN terms with ``T·d²``: with the usual
``f = 4d`` the attention matrix overtakes the projections when ``T > 2d`` and the FFN when
``T > 4d``.  The head count ``H`` changes the size of the stored score matrix, not the FLOPs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from attention._validate import require_int
from attention.errors import ArgumentValueError

__all__ = ["AttentionCost", "Term", "attention_cost"]

Term = Literal["attention_matrix", "projections", "ffn"]
"""The three terms that :meth:`AttentionCost.dominant` compares."""


@dataclass(frozen=True)
class AttentionCost:
    """FLOP and byte counts of one self-attention layer and its FFN (see module docstring).

    >>> cost = attention_cost(batch=1, seq_len=1024, d_model=512, num_heads=8)
    >>> cost.attention_matrix_flops, cost.projection_flops, cost.ffn_flops
    (2147483648, 2147483648, 4294967296)
    >>> cost.dominant()
    'ffn'
    """

    batch: int
    seq_len: int
    d_model: int
    num_heads: int
    ffn_dim: int
    bytes_per_element: int

    @property
    def score_flops(self) -> int:
        """``QKᵀ`` over all heads: ``2·B·T²·d``."""
        return 2 * self.batch * self.seq_len**2 * self.d_model

    @property
    def mix_flops(self) -> int:
        """``A V`` over all heads: ``2·B·T²·d``."""
        return 2 * self.batch * self.seq_len**2 * self.d_model

    @property
    def attention_matrix_flops(self) -> int:
        """Everything that grows with ``T²``: scores plus mixing."""
        return self.score_flops + self.mix_flops

    @property
    def projection_flops(self) -> int:
        """The four ``d × d`` projections W_Q, W_K, W_V, W_O: ``8·B·T·d²``."""
        return 4 * 2 * self.batch * self.seq_len * self.d_model**2

    @property
    def ffn_flops(self) -> int:
        """Two linear layers ``d → f → d``: ``4·B·T·d·f``."""
        return 2 * 2 * self.batch * self.seq_len * self.d_model * self.ffn_dim

    @property
    def total_flops(self) -> int:
        """Sum of the three terms."""
        return self.attention_matrix_flops + self.projection_flops + self.ffn_flops

    @property
    def score_elements(self) -> int:
        """Entries of the materialised score matrix ``[B, H, T, T]``."""
        return self.batch * self.num_heads * self.seq_len**2

    @property
    def score_bytes(self) -> int:
        """Bytes of the score matrix ``[B, H, T, T]`` (one copy; the softmax output is another)."""
        return self.score_elements * self.bytes_per_element

    @property
    def projection_weight_bytes(self) -> int:
        """Bytes of W_Q, W_K, W_V, W_O (``4·d²`` elements, biases ignored)."""
        return 4 * self.d_model**2 * self.bytes_per_element

    @property
    def ffn_weight_bytes(self) -> int:
        """Bytes of the two FFN weight matrices (``2·d·f`` elements)."""
        return 2 * self.d_model * self.ffn_dim * self.bytes_per_element

    @property
    def ffn_hidden_bytes(self) -> int:
        """Bytes of the FFN's hidden activation ``[B, T, f]``."""
        return self.batch * self.seq_len * self.ffn_dim * self.bytes_per_element

    def flops_by_term(self) -> dict[Term, int]:
        """The three FLOP terms by name."""
        return {
            "attention_matrix": self.attention_matrix_flops,
            "projections": self.projection_flops,
            "ffn": self.ffn_flops,
        }

    def dominant(self) -> Term:
        """The term with the most FLOPs (ties go to the earlier name in :meth:`flops_by_term`).

        >>> attention_cost(batch=1, seq_len=8192, d_model=512, num_heads=8).dominant()
        'attention_matrix'
        >>> attention_cost(batch=1, seq_len=128, d_model=4096, num_heads=32).dominant()
        'ffn'
        """
        terms = self.flops_by_term()
        return max(terms, key=lambda name: terms[name])


def attention_cost(
    *,
    batch: int,
    seq_len: int,
    d_model: int,
    num_heads: int,
    ffn_dim: int | None = None,
    bytes_per_element: int = 4,
) -> AttentionCost:
    """Build an :class:`AttentionCost`; ``ffn_dim`` defaults to ``4 · d_model``.

    Every size is a positive ``int`` (a ``bool`` or a float such as ``2.5`` is refused: the counts
    are whole numbers of tensor entries and bytes).

    Raises:
        ArgumentTypeError: a size is not an int.
        ArgumentValueError: a size is below 1, or ``d_model`` is not a multiple of ``num_heads``.

    >>> cost = attention_cost(batch=2, seq_len=4096, d_model=1024, num_heads=16)
    >>> cost.score_bytes / 2**30
    2.0
    >>> attention_cost(batch=1, seq_len=8, d_model=8, num_heads=2, bytes_per_element=2.5)
    Traceback (most recent call last):
    attention.errors.ArgumentTypeError: bytes_per_element must be an int, got float 2.5; ...
    """
    sizes = {"batch": batch, "seq_len": seq_len, "d_model": d_model, "num_heads": num_heads}
    if ffn_dim is not None:
        sizes["ffn_dim"] = ffn_dim
    sizes["bytes_per_element"] = bytes_per_element
    for name, value in sizes.items():
        require_int(name, value, minimum=1)
    if d_model % num_heads:
        raise ArgumentValueError(
            f"d_model={d_model} must be a multiple of num_heads={num_heads} (each head gets "
            "d_model / num_heads features)"
        )
    width = 4 * d_model if ffn_dim is None else ffn_dim
    return AttentionCost(batch, seq_len, d_model, num_heads, width, bytes_per_element)
