"""Live probes: one function per claim, each calling the real API on a tiny input.

One module per API: :mod:`~attention.semantics.probes.sdpa`,
:mod:`~attention.semantics.probes.mha`, :mod:`~attention.semantics.probes.transformer`,
:mod:`~attention.semantics.probes.bias`, :mod:`~attention.semantics.probes.nested`,
:mod:`~attention.semantics.probes.flex` and
:mod:`~attention.semantics.probes.softmax` for torch; :mod:`~attention.semantics.probes.jax_nn`,
:mod:`~attention.semantics.probes.flax_linen`, :mod:`~attention.semantics.probes.keras_mha`,
:mod:`~attention.semantics.probes.transformers_bert`,
:mod:`~attention.semantics.probes.flash_attn_func` and
:mod:`~attention.semantics.probes.xformers_bias` for the other frameworks.  Every one of them
builds its inputs with :mod:`~attention.semantics.probes.inputs` (zero queries and keys, one-hot
values: the output *is* the weight matrix) and reads the result with
:mod:`attention.semantics.observe`.

Importing this package registers the torch probes (:data:`TORCH_MODULES`); the other frameworks'
modules are imported only when their rows run (:data:`attention.semantics.registry.
FRAMEWORK_MODULES`), and import none of those frameworks at the top.

>>> from attention.semantics.registry import probes_for
>>> probes_for("torch")["mha.attn_mask.bool"]()
'forbidden'
"""

from __future__ import annotations

from attention.semantics.probes import bias, flex, mha, nested, sdpa, softmax, transformer

__all__ = ["TORCH_MODULES"]

TORCH_MODULES = (sdpa, softmax, mha, transformer, bias, nested, flex)
"""The modules holding the torch probes, in the order of the claims file."""
