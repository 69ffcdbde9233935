"""A value float16 cannot hold is a finding only where the code runs in float16 (AM202).

``masked_fill(m, -1e9)`` is right in float32 and raises in float16, so the finding is a claim
about the dtype, made only where the module or another module of the checked tree says it
(``torch.float16``, ``.half()``, an ``fp16`` option, autocast); bfloat16 holds -1e9, so it counts
only for a constant beyond its range too (``finfo(float32).min``).  A virtual environment inside
the tree is not the tree's code.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from attention.review.__main__ import main
from attention.review.check import check_source
from attention.review.project import Project

FILL = """import torch


def attend(q, k, v, forbidden):
    scores = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5
    scores = scores.masked_fill(forbidden, -1e9)
    return torch.softmax(scores, dim=-1) @ v
"""

CAST = """import torch


def extended(attention_mask, dtype):
    low = torch.tensor(torch.finfo(torch.float32).min, dtype=dtype)
    return (1.0 - attention_mask[:, None, None, :].to(dtype)) * low
"""


def codes(source: str) -> list[str]:
    return [finding.code for finding in check_source(source)]


def test_the_claim_on_torch() -> None:
    forbidden = torch.tensor([[False, True]])
    assert torch.zeros(1, 2).masked_fill(forbidden, -1e9)[0, 1] == -1e9  # float32: right
    with pytest.raises(RuntimeError, match="overflow"):
        torch.zeros(1, 2, dtype=torch.float16).masked_fill(forbidden, -1e9)
    assert torch.zeros(1, 2, dtype=torch.bfloat16).masked_fill(forbidden, -1e9).isfinite().all()
    low = torch.tensor(torch.finfo(torch.float32).min, dtype=torch.bfloat16)
    assert torch.isneginf(low)  # beyond bfloat16's range too


@pytest.mark.parametrize(
    "says",
    [
        "model = model.half()",
        "x = x.to(torch.float16)",
        "# trained with --fp16",
        'ctx = torch.autocast("cuda")',
        "scaler = torch.cuda.amp.GradScaler()",
    ],
)
def test_a_module_that_runs_in_float16_is_told(says: str) -> None:
    assert codes(FILL + says + "\n") == ["AM202"]


@pytest.mark.parametrize("says", ["", "x = x.to(torch.bfloat16)", "# bf16 training"])
def test_a_module_that_does_not_is_not(says: str) -> None:
    assert codes(FILL + says + "\n") == []


def test_bfloat16_counts_for_a_constant_beyond_its_range() -> None:
    assert codes(CAST) == []
    assert codes(CAST + "# the model runs in torch.bfloat16\n") == ["AM202"]


def _tree(root: Path, **files: str) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_another_module_of_the_tree_says_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    quiet = _tree(tmp_path / "quiet", **{"attn.py": FILL, "train.py": "model = build()\n"})
    assert main([str(quiet)]) == 0
    told = _tree(tmp_path / "told", **{"attn.py": FILL, "train.py": "model = build().half()\n"})
    assert main([str(told)]) == 1
    assert "attn.py:6:" in capsys.readouterr().out


def test_a_virtual_environment_in_the_tree_is_not_the_tree(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        **{
            "attn.py": FILL,
            ".venv/lib/torch/amp.py": "dtype = torch.float16\n",
            "node_modules/x.py": "half = x.half()\n",
            "lib/site-packages/y.py": "# fp16\n",
        },
    )
    assert not Project(root).runs_in("float16")
    (root / "pkg").mkdir()
    (root / "pkg" / "train.py").write_text("# --fp16\n")
    assert Project(root).runs_in("float16")
