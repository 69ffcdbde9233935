"""Verify on a CUDA device every mask row that a CPU machine reports "not verified on this machine".

    python conf/cuda_rows.py [--out PATH]        # default PATH: conf/records/cuda.json

Run it in an environment with the package and a CUDA build of torch (``nox -s semantics_cuda``
makes one); flash-attn and xFormers rows run where those packages are installed, and are
reported as skipped otherwise.  It does three things, in about a minute on one GPU:

1. every row of ``conf/semantics.toml`` and ``conf/semantics-ecosystem.toml`` that has
   ``requires = "cuda"`` (SDPA on CUDA, flash-attn's ``causal``, fully masked row and
   ``window_size``, xFormers' causal masks, a custom 4-D mask given to transformers'
   ``flash_attention_2``), through the same probes as every other row;
2. SDPA with an explicit Boolean ``attn_mask`` on each CUDA kernel forced in turn (math,
   memory-efficient, flash, cuDNN): whether the kernel takes the mask, whether its weights
   follow it, and what a query row with no allowed key gives there (the CPU answer is zeros,
   row ``sdpa.fully_masked_row``; NaN has been reported on CUDA);
3. the transformers rows about a fully masked left-padding row, on CUDA, where transformers is
   installed.

It writes one JSON record (the date, torch and CUDA versions, the device, each row's and each
measurement's outcome) and exits 0 when every row it ran matched its claim, 1 when one did not,
and 2 -- before doing anything -- on a machine without a CUDA device, naming what torch sees.
The record is evidence to read and commit; the site does not show it until the rows it
verifies are given their CUDA values in the claims files.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "conf" / "records" / "cuda.json"
KERNELS = ("math", "efficient_attention", "flash_attention", "cudnn_attention")
"""The SDPA kernels forced in turn (names of ``torch.nn.attention.SDPBackend``, lower case)."""


class NoCudaError(RuntimeError):
    """The machine has no CUDA device torch can use; nothing was run."""


def require_cuda(
    is_available: Callable[[], bool] | None = None, version: str | None = None
) -> None:
    """Raise :class:`NoCudaError`, saying what torch sees, unless a CUDA device is usable.

    >>> require_cuda(lambda: False, "2.13.0+cpu")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    NoCudaError: conf/cuda_rows.py needs a CUDA device, and torch 2.13.0+cpu sees none ...
    """
    import torch

    available = (is_available or torch.cuda.is_available)()
    if not available:
        seen = version if version is not None else torch.__version__
        raise NoCudaError(
            f"conf/cuda_rows.py needs a CUDA device, and torch {seen} sees none "
            "(torch.cuda.is_available() is False; a CPU build of torch never does): run it on a "
            "machine with an NVIDIA GPU and a CUDA build of torch"
        )


def cuda_claims() -> list[Any]:
    """Every claim, of either claims file, that needs a CUDA device to be verified."""
    from attention.semantics.claims import load_claims, load_ecosystem_claims

    return [claim for claim in (*load_claims(), *load_ecosystem_claims()) if claim.requires]


def masked_weights(kernel: str | None, *, device: str, dtype: Any) -> Any:
    """SDPA's weights [L=3, S=3] (float64) for a Boolean mask whose last row allows no key.

    ``kernel`` forces one SDPA kernel (None: the default choice).  Zero queries and keys, one-hot
    values: the output is the weight matrix, as in every row's probe.
    """
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    query = torch.zeros(1, 1, 3, 8, device=device, dtype=dtype)
    key = torch.zeros(1, 1, 3, 8, device=device, dtype=dtype)
    value = torch.eye(3, 8, device=device, dtype=dtype)[None, None]
    allowed = torch.tensor(
        [[True, False, True], [True, True, False], [False, False, False]], device=device
    )[None, None]
    call = lambda: F.scaled_dot_product_attention(query, key, value, attn_mask=allowed)  # noqa: E731
    if kernel is None:
        output = call()
    else:
        with sdpa_kernel(getattr(SDPBackend, kernel.upper())):
            output = call()
    return output[0, 0, :, :3].to(torch.float64).cpu()


def read_masked(weights: Any) -> dict[str, str]:
    """What ``masked_weights`` shows: whether rows 0 and 1 follow the mask, and row 2's outcome.

    >>> import torch
    >>> read_masked(torch.tensor([[0.5, 0, 0.5], [0.5, 0.5, 0], [0, 0, 0]], dtype=torch.float64))
    {'mask': 'allowed', 'fully_masked_row': 'zeros'}
    """
    import torch

    from attention.semantics.observe import empty_row_outcome

    expected = torch.tensor([[0.5, 0.0, 0.5], [0.5, 0.5, 0.0]], dtype=torch.float64)
    follows = torch.allclose(weights[:2], expected, atol=1e-3)
    return {
        "mask": "allowed" if follows else f"unrecognised: {weights[:2].tolist()}",
        "fully_masked_row": empty_row_outcome(weights[2]),
    }


def kernels_with_mask(device: str = "cuda") -> dict[str, dict[str, str]]:
    """For each kernel of :data:`KERNELS` (and the default choice): what it did with the mask."""
    import torch

    found: dict[str, dict[str, str]] = {}
    for kernel in (None, *KERNELS):
        name = kernel or "default"
        try:
            found[name] = read_masked(masked_weights(kernel, device=device, dtype=torch.float16))
        except RuntimeError as error:  # "No available kernel": this kernel takes no such mask
            found[name] = {"mask": "error", "reason": str(error).strip().splitlines()[0]}
    return found


def transformers_rows(device: str = "cuda") -> dict[str, str]:
    """The transformers fully masked (left padding) row, per implementation, on ``device``."""
    try:
        from attention.semantics.probes import transformers_llama as llama
    except ImportError as error:  # pragma: no cover - the probes import only torch
        return {"skipped": str(error)}
    from attention.semantics.registry import missing_framework

    missing = missing_framework("transformers")
    if missing is not None:
        return {"skipped": missing}
    import torch

    from attention.semantics.observe import empty_row_outcome

    seen: dict[str, str] = {}
    for implementation in ("eager", "sdpa"):
        model = llama.tiny_llama(implementation).to(device)
        with torch.device(device):
            try:
                weights = llama.llama_weights(
                    implementation, 3, model=model, attention_mask=torch.tensor([[0, 1, 1]])
                )
                seen[implementation] = empty_row_outcome(weights[0].cpu())
            except Exception as error:  # recorded, not hidden
                seen[implementation] = f"error: {type(error).__name__}: {error}"
    return seen


def rows(claims: Sequence[Any]) -> dict[str, dict[str, Any]]:
    """Each CUDA row's outcome through the package's own runner (its probes, its comparison)."""
    from attention.semantics.report import run

    return {
        result.claim.id: {
            "status": result.status,
            "expected": result.expected,
            "observed": result.observed,
            "reason": result.reason,
        }
        for result in run(list(claims))
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CUDA rows and measurements, write the record; the exit status of the module."""
    parser = argparse.ArgumentParser(prog="python conf/cuda_rows.py", description=__doc__)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where the record goes")
    args = parser.parse_args(argv)
    try:
        require_cuda()
    except NoCudaError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    import torch

    outcomes = rows(cuda_claims())
    record = {
        "date": datetime.datetime.now(datetime.UTC).date().isoformat(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "device": torch.cuda.get_device_name(0),
        "rows": outcomes,
        "sdpa_kernels_with_mask": kernels_with_mask(),
        "transformers_fully_masked_row": transformers_rows(),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(record, indent=2, ensure_ascii=False))
    failed = [
        name for name, row in outcomes.items() if row["status"] in ("mismatch", "probe_error")
    ]
    if failed:
        print(f"rows that did not match their claims: {', '.join(failed)}", file=sys.stderr)
        return 1
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
