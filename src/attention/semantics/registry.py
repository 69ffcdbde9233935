"""Which probe checks which claim: a decorator that files each probe under its claim id.

A probe is a function without arguments that calls the real framework API on a tiny input and
returns the word it observed (see :mod:`attention.semantics.observe`).  Probes live in the
package :mod:`attention.semantics.probes`, one module per API; :data:`FRAMEWORK_MODULES` says
which modules hold each framework's probes, so another framework's rows are added by writing its
module and its claims, without touching the runner.

Only the torch probes import their framework at the top of the module.  The other probe modules
import nothing heavy: each probe fetches its framework when it runs (:func:`framework_module`), so
listing or fingerprinting those probes works on a machine without JAX or Transformers, and a run
without ``--all`` never imports them.  Whether a framework is installed is asked of the import
system without importing it (:func:`missing_framework`).

>>> probes = probes_for("torch")
>>> probes["sdpa.attn_mask.bool"]()
'allowed'
>>> missing_framework("torch") is None
True
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import os
import sys
from collections.abc import Callable, Mapping
from types import ModuleType

__all__ = [
    "DISTRIBUTIONS",
    "FRAMEWORK_MODULES",
    "NEEDS",
    "REPOSITORIES",
    "SHARED_MODULES",
    "VERIFIED_WITH",
    "Probe",
    "framework_module",
    "installed_versions",
    "issue_url",
    "keras_backend",
    "missing_framework",
    "probe",
    "probes_for",
]

Probe = Callable[[], str]
"""A probe: no arguments, returns the observed vocabulary word (or an "unrecognised ..." text)."""

_PACKAGE = "attention.semantics.probes"

FRAMEWORK_MODULES: Mapping[str, tuple[str, ...]] = {
    "torch": tuple(
        f"{_PACKAGE}.{name}"
        # kernels and releases hold no probes: listed for the records' digest of the probes
        for name in (
            *("kernels", "releases", "sdpa", "softmax", "mha", "transformer", "bias", "nested"),
            "flex",
        )
    ),
    # windows holds no probe: the reading of a sliding window, shared by four frameworks
    "jax": (f"{_PACKAGE}.jax_nn", f"{_PACKAGE}.windows"),
    "flax": (f"{_PACKAGE}.flax_linen",),
    "keras": (f"{_PACKAGE}.keras_mha",),
    "transformers": (
        f"{_PACKAGE}.transformers_bert",
        f"{_PACKAGE}.transformers_llama",
        f"{_PACKAGE}.windows",
    ),
    "flash_attn": (f"{_PACKAGE}.flash_attn_func", f"{_PACKAGE}.windows"),
    "xformers": (f"{_PACKAGE}.xformers_bias", f"{_PACKAGE}.windows"),
    "onnx": (f"{_PACKAGE}.onnx_attention",),
    "onnxruntime": (f"{_PACKAGE}.onnx_attention",),
    "mlx": (f"{_PACKAGE}.mlx_fast",),
}
"""The modules holding each framework's probes (one per API), imported only when its rows run."""

SHARED_MODULES = (f"{_PACKAGE}.inputs", "attention.semantics.observe")
"""The modules every probe builds its inputs and reads its results with."""

NEEDS: Mapping[str, tuple[str, ...]] = {
    "torch": ("torch",),
    "jax": ("jax",),
    "flax": ("flax", "jax"),
    # the keras rows are claims about its JAX backend
    "keras": ("keras", "jax"),
    "transformers": ("transformers",),
    "flash_attn": ("flash_attn",),
    "xformers": ("xformers",),
    # the onnxruntime rows build their graph with onnx
    "onnx": ("onnx",),
    "onnxruntime": ("onnxruntime", "onnx"),
    "mlx": ("mlx",),
}
"""The importable packages each framework's probes need."""

DISTRIBUTIONS: Mapping[str, str] = {
    "torch": "torch",
    "jax": "jax",
    "jaxlib": "jaxlib",
    "flax": "flax",
    "keras": "keras",
    "transformers": "transformers",
    "flash_attn": "flash-attn",
    "xformers": "xformers",
    "onnx": "onnx",
    "onnxruntime": "onnxruntime",
    "mlx": "mlx",
}
"""The distribution (PyPI) name of each package whose version a record states."""

REPOSITORIES: Mapping[str, str] = {
    "torch": "pytorch/pytorch",
    "jax": "jax-ml/jax",
    "flax": "google/flax",
    "keras": "keras-team/keras",
    "transformers": "huggingface/transformers",
    "flash_attn": "Dao-AILab/flash-attention",
    "xformers": "facebookresearch/xformers",
    "onnx": "onnx/onnx",
    "onnxruntime": "microsoft/onnxruntime",
    "mlx": "ml-explore/mlx",
}
"""Each framework's GitHub repository, where a claim's ``issues`` numbers point."""

VERIFIED_WITH: Mapping[str, tuple[str, ...]] = {
    "torch": ("torch",),
    "jax": ("jax", "jaxlib"),
    "flax": ("flax", "jax"),
    "keras": ("keras", "jax"),
    "transformers": ("transformers", "torch"),
    "flash_attn": ("flash_attn", "torch"),
    "xformers": ("xformers", "torch"),
    "onnx": ("onnx",),
    "onnxruntime": ("onnxruntime", "onnx"),
    "mlx": ("mlx",),
}
"""The packages whose versions say what a framework's row was verified on, in the order shown."""

KERAS_BACKEND = "jax"
"""The Keras backend the keras rows are about."""

_PROBES: dict[str, dict[str, Probe]] = {}


def probe(claim_id: str, *, framework: str = "torch") -> Callable[[Probe], Probe]:
    """Register the decorated function as the probe of ``claim_id``.

    >>> @probe("example.only.row", framework="doc-example")
    ... def observe() -> str:
    ...     return "ok"
    >>> _PROBES["doc-example"]["example.only.row"]()
    'ok'
    """

    def register(function: Probe) -> Probe:
        table = _PROBES.setdefault(framework, {})
        if claim_id in table:
            raise ValueError(f"two probes for claim {claim_id!r}")
        table[claim_id] = function
        return function

    return register


def probes_for(framework: str) -> Mapping[str, Probe]:
    """Import ``framework``'s probe modules and return its probes by claim id."""
    if framework not in FRAMEWORK_MODULES:
        raise KeyError(f"no probes for framework {framework!r}; known: {sorted(FRAMEWORK_MODULES)}")
    for module in FRAMEWORK_MODULES[framework]:
        importlib.import_module(module)
    return dict(_PROBES.get(framework, {}))


def _importable(name: str) -> bool:
    if name in sys.modules:
        return sys.modules[name] is not None
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def missing_framework(framework: str) -> str | None:
    """Why ``framework``'s rows cannot run here (a package is not installed), or None.

    Nothing is imported: the import system is only asked whether the packages could be.

    >>> missing_framework("xformers")  # this machine has no xformers
    'xformers is not installed'
    """
    if framework not in NEEDS:
        raise KeyError(f"unknown framework {framework!r}; known: {sorted(NEEDS)}")
    for name in NEEDS[framework]:
        if not _importable(name):
            return f"{name} is not installed"
    if framework == "keras":
        backend = os.environ.get("KERAS_BACKEND", KERAS_BACKEND)
        if backend != KERAS_BACKEND:
            return (
                f"the keras rows are about its {KERAS_BACKEND} backend; KERAS_BACKEND is "
                f"{backend!r} (unset it or set KERAS_BACKEND={KERAS_BACKEND})"
            )
    return None


def framework_module(name: str) -> ModuleType:
    """Import and return ``name`` (``"jax"``, ``"flax.linen"``, ...) when a probe runs.

    Probes call this instead of importing at the top of their module, so the module can be
    listed without the framework, and a test can put a stand-in into ``sys.modules``.
    """
    if name.split(".")[0] == "keras":
        os.environ.setdefault("KERAS_BACKEND", KERAS_BACKEND)
    return importlib.import_module(name)


def keras_backend() -> str | None:
    """The backend of an already imported Keras, else None (Keras is never imported here)."""
    keras = sys.modules.get("keras")
    if keras is None:
        return None
    return str(keras.backend.backend())


def issue_url(framework: str, number: int) -> str:
    """The link to issue (or pull request: GitHub redirects) ``number`` of ``framework``.

    >>> issue_url("torch", 115913)
    'https://github.com/pytorch/pytorch/issues/115913'
    """
    return f"https://github.com/{REPOSITORIES[framework]}/issues/{number}"


def installed_versions(names: tuple[str, ...] = tuple(DISTRIBUTIONS)) -> dict[str, str | None]:
    """The installed version of each package in ``names`` (None where it is not installed).

    >>> installed_versions(("xformers",))
    {'xformers': None}
    """
    versions: dict[str, str | None] = {}
    for name in names:
        try:
            versions[name] = importlib.metadata.version(DISTRIBUTIONS.get(name, name))
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions
