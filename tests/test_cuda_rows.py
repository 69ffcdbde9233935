"""conf/cuda_rows.py, the prepared GPU check: what of it runs without a GPU.

On a machine without CUDA it must refuse, before running anything, with a message that says what
torch sees; the rows it covers are exactly the claims that need CUDA; and its measurements read
the weights as the rows' probes do (checked here on the CPU, where SDPA's answers are known).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import torch

from attention.semantics.claims import load_claims, load_ecosystem_claims

SCRIPT = Path(__file__).resolve().parents[1] / "conf" / "cuda_rows.py"


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("cuda_rows", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


cuda_rows = load()


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a CUDA device")
def test_without_cuda_it_refuses_clearly_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "cuda.json"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(out)], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert "needs a CUDA device" in done.stderr
    assert f"torch {torch.__version__} sees none" in done.stderr
    assert not out.exists()


def test_the_refusal_names_the_torch_it_saw() -> None:
    with pytest.raises(cuda_rows.NoCudaError, match=r"torch 9\.9\.9 sees none"):
        cuda_rows.require_cuda(lambda: False, "9.9.9")
    cuda_rows.require_cuda(lambda: True, "9.9.9")  # a device: nothing raised


def test_it_covers_every_row_that_needs_cuda() -> None:
    every = [*load_claims(), *load_ecosystem_claims()]
    needing = {claim.id for claim in every if claim.requires == "cuda"}
    assert {claim.id for claim in cuda_rows.cuda_claims()} == needing
    assert "flash_attn.flash_attn_func.window_size" in needing
    assert "sdpa.attn_mask.bool.cuda" in needing
    assert "transformers.llama.attention_mask.4d.flash_attention_2" in needing


def test_its_mask_measurement_reads_the_cpu_answer() -> None:
    """On the CPU SDPA follows a Boolean mask and zeros an empty row (row sdpa.fully_masked_row)."""
    weights = cuda_rows.masked_weights(None, device="cpu", dtype=torch.float32)
    assert cuda_rows.read_masked(weights) == {"mask": "allowed", "fully_masked_row": "zeros"}


def test_a_kernel_that_cannot_take_the_mask_is_recorded_not_raised() -> None:
    found = cuda_rows.kernels_with_mask(device="cpu")
    assert set(found) == {"default", *cuda_rows.KERNELS}
    assert found["math"]["mask"] == "allowed"
    assert found["efficient_attention"]["mask"] == "error"  # no such kernel on the CPU
    assert found["efficient_attention"]["reason"]


def test_a_wrong_reading_is_not_taken_for_the_mask() -> None:
    """The check can fail: weights that ignore the mask are not read as 'allowed'."""
    uniform = torch.full((3, 3), 1 / 3, dtype=torch.float64)
    reading = cuda_rows.read_masked(uniform)
    assert reading["mask"].startswith("unrecognised")
    assert reading["fully_masked_row"] == "uniform"
