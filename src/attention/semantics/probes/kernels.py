"""SDPA's CPU kernels on every torch release: which exist, forcing one, and which one runs.

torch 2.3 added ``torch.nn.attention.sdpa_kernel``; older releases force kernels with
``torch.backends.cuda.sdp_kernel``'s flags, which the CPU dispatcher also reads.  A CPU build has
the math kernel, and from the release that added the fused CPU flash-attention kernel on, that
one too: the probes ask the release (:func:`cpu_kernels`) instead of assuming it.

:func:`chosen_backend` asks the dispatcher which kernel it picks for a call
(``torch._fused_sdp_choice``, the function SDPA itself calls); a release whose CPU dispatcher
has no such choice always runs the math kernel.  Every SDPA call the probes make with the
default choice is noted (:func:`noting_backends`), so each row's record says which kernel its
default call ran on.

>>> cpu_kernels()
('math', 'flash_attention')
>>> import torch
>>> q = torch.zeros(1, 1, 3, 8)
>>> chosen_backend(q, q, q), chosen_backend(q[0], q[0], q[0])
('flash_attention', 'math')
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from typing import Any

import torch

from attention.semantics.observe import ProbePathError

__all__ = [
    "BACKEND_NAMES",
    "KernelUnavailableError",
    "chosen_backend",
    "cpu_kernels",
    "force",
    "forced",
    "note_backend",
    "noting_backends",
]

BACKEND_NAMES = (
    "math",
    "flash_attention",
    "efficient_attention",
    "cudnn_attention",
    "overrideable",
)
"""``SDPBackend`` by its index, as ``torch._fused_sdp_choice`` returns it (the same on every
release; later releases only append)."""


class KernelUnavailableError(ProbePathError):
    """The forced kernel does not take these inputs on this release: it observed nothing.

    torch 2.1 and 2.2 have a CPU flash-attention kernel that takes no ``attn_mask``; forcing it
    on a masked call raises "No available kernel" before anything about masks is seen.
    """


_FORCED: list[str] = []
_NOTED: list[list[str]] = []


def chosen_backend(
    query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, **kwargs: Any
) -> str:
    """The kernel SDPA's dispatcher picks for this call on the installed release.

    With a kernel forced (:func:`force`) that is the forced one.  4-D CPU inputs go to the
    dispatcher's choice; a release without a CPU choice (``_fused_sdp_choice`` has no CPU
    kernel) and any 3-D call run the math kernel.
    """
    if _FORCED:
        return _FORCED[-1]
    if query.dim() != 4:
        return "math"  # the fused kernels take [B, H, L, D] only
    arguments = {name: given for name, given in kwargs.items() if given is not None}
    if not arguments.get("enable_gqa"):
        arguments.pop("enable_gqa", None)  # an argument older releases do not take
    try:
        index = int(torch._fused_sdp_choice(query, key, value, **arguments))
    except NotImplementedError:
        return "math"  # this release's CPU dispatcher has no choice: SDPA runs the math kernel
    except RuntimeError:
        return "rejected"  # the dispatcher refuses the arguments: no kernel runs
    if index < 0:
        return "none"  # the dispatcher finds no kernel: the call raises "No available kernel"
    return BACKEND_NAMES[index] if index < len(BACKEND_NAMES) else f"index {index}"


@functools.cache
def cpu_kernels() -> tuple[str, ...]:
    """The SDPA kernels this CPU build has: ``math``, and ``flash_attention`` where it exists."""
    query = torch.zeros(1, 1, 3, 8)
    return (
        ("math", "flash_attention")
        if chosen_backend(query, query, query) == ("flash_attention")
        else ("math",)
    )


@contextlib.contextmanager
def force(kernel: str) -> Iterator[None]:
    """Run the block with only SDPA's ``kernel`` (``math`` or ``flash_attention``) enabled."""
    if kernel not in BACKEND_NAMES[:2]:
        raise ValueError(f"a CPU kernel is 'math' or 'flash_attention', got {kernel!r}")
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError:  # torch < 2.3: the flags of torch.backends.cuda, read on CPU too
        context: contextlib.AbstractContextManager[Any] = torch.backends.cuda.sdp_kernel(
            enable_math=kernel == "math",
            enable_flash=kernel == "flash_attention",
            enable_mem_efficient=False,
        )
    else:
        backend = SDPBackend.MATH if kernel == "math" else SDPBackend.FLASH_ATTENTION
        context = sdpa_kernel(backend)
    _FORCED.append(kernel)
    try:
        with context:
            yield
    finally:
        _FORCED.pop()


def forced() -> str | None:
    """The kernel :func:`force` holds, or None under the default choice."""
    return _FORCED[-1] if _FORCED else None


def note_backend(
    query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, **kwargs: Any
) -> None:
    """Before an SDPA call: note its kernel, or check that the forced kernel takes it.

    Under the default choice the dispatcher's kernel is noted where :func:`noting_backends`
    listens.  Under a forced kernel, a dispatcher that finds no kernel for the inputs raises
    :class:`KernelUnavailableError` (the call would fail with "No available kernel", which says
    nothing about the row).
    """
    mask = kwargs.get("attn_mask")
    if mask is not None and type(mask) is not torch.Tensor:
        return  # a bias object (torch.nn.attention.bias) dispatches the call itself
    if _FORCED and query.dim() == 4:
        arguments = {name: given for name, given in kwargs.items() if given is not None}
        if not arguments.get("enable_gqa"):
            arguments.pop("enable_gqa", None)
        try:
            index = int(torch._fused_sdp_choice(query, key, value, **arguments))
        except RuntimeError as error:
            if "No available kernel" not in str(error):
                return  # the dispatcher refuses the call itself: the call shows how
            index = -1  # torch 2.1, 2.2: the choice raises where later releases answer "none"
        except (NotImplementedError, TypeError):
            return  # no dispatcher choice to ask: the call itself shows what happens
        if index < 0:
            raise KernelUnavailableError(
                f"the {_FORCED[-1]} kernel takes no such inputs on torch {torch.__version__}"
            )
        return
    if _NOTED:
        name = chosen_backend(query, key, value, **kwargs)
        if name not in _NOTED[-1]:
            _NOTED[-1].append(name)


@contextlib.contextmanager
def noting_backends() -> Iterator[list[str]]:
    """Collect, in order of first use, the kernels the default-choice SDPA calls ran on."""
    noted: list[str] = []
    _NOTED.append(noted)
    try:
        yield noted
    finally:
        _NOTED.pop()
