"""Form and behaviour of the outside set (tests/review/outside): fast, CPU only, no checker."""

from __future__ import annotations

import ast
import json
import re
import runpy
from pathlib import Path

import pytest
import torch

OUTSIDE = Path(__file__).parent / "outside"
ALLOWED_IMPORTS = {"torch", "math", "functools", "typing"}
CLASSES = {
    "polarity",
    "overflow_constant",
    "additive_sum_overflow",
    "bool_to_float",
    "weak_fill",
    "mask_after_softmax",
    "softmax_axis",
    "scale",
    "is_causal_misuse",
    "causal_diagonal",
    "causal_alignment",
    "no_allowed_key",
    "padding_axis",
    "invert_non_bool",
    "mha_3d_layout",
    "batch_first",
    "mask_dtype_inversion",
    "scale_feature",
}
REPORT = re.compile(r"^Report: https://github\.com/[\w.-]+/[\w.-]+/(issues|pull)/\d+$", re.M)
BUG_MARK = re.compile(r"#\s*bug\b")

BUGS = sorted(OUTSIDE.glob("*_bug.py"))
LOOKALIKES = sorted(OUTSIDE.glob("*_lookalike.py"))
ALL = sorted(OUTSIDE.glob("*.py"))


def _case_id(path: Path) -> str:
    return path.name.rsplit("_", 1)[0]


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _run(path: Path) -> torch.Tensor:
    torch.manual_seed(0)
    result = runpy.run_path(str(path))["run"]()
    assert isinstance(result, torch.Tensor), path.name
    return result.detach().float()


def test_the_set_is_not_empty() -> None:
    assert len(BUGS) >= 10
    assert len(LOOKALIKES) >= 5
    names = {p.name for p in ALL}
    for path in ALL:
        assert path.name.endswith(("_bug.py", "_fix.py", "_lookalike.py")), path.name
        if path.name.endswith("_fix.py"):
            assert path.name.replace("_fix.py", "_bug.py") in names, path.name


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_form(path: Path) -> None:
    tree = _tree(path)
    doc = ast.get_docstring(tree)
    assert doc, f"{path.name}: no docstring"
    case_class = _case_id(path).split("__", 1)[0]
    assert case_class in CLASSES, path.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots = {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            roots = {(node.module or "").split(".")[0]}
        else:
            continue
        assert roots <= ALLOWED_IMPORTS, f"{path.name}: imports {roots}"
    assert any(isinstance(n, ast.FunctionDef) and n.name == "run" for n in tree.body), path.name
    marked = [
        line for line in path.read_text(encoding="utf-8").splitlines() if BUG_MARK.search(line)
    ]
    if path.name.endswith("_bug.py"):
        assert REPORT.search(doc), f"{path.name}: no Report line"
        assert re.search(rf"^Class: {case_class}$", doc, re.M), f"{path.name}: Class line"
        assert re.search(r"^Decidable: (code|values)$", doc, re.M), f"{path.name}: Decidable line"
        assert marked, f"{path.name}: no '# bug' marker"
    else:
        assert not marked, f"{path.name}: '# bug' marker in a correct file"
    if path.name.endswith("_fix.py"):
        assert REPORT.search(doc), f"{path.name}: no Report line"
        assert re.search(rf"^Class: {case_class}$", doc, re.M), f"{path.name}: Class line"


@pytest.mark.parametrize("bug", BUGS, ids=lambda p: p.name)
def test_bug_differs_from_fix(bug: Path) -> None:
    fix = bug.with_name(bug.name.replace("_bug.py", "_fix.py"))
    assert fix.exists(), fix.name
    fixed = _run(fix)
    assert torch.isfinite(fixed).all(), f"{fix.name}: fix result not finite"
    broken = _run(bug)
    if torch.isfinite(broken).all() and broken.shape == fixed.shape:
        assert not torch.allclose(broken, fixed, atol=1e-5), f"{bug.name}: same result as the fix"


@pytest.mark.parametrize("path", LOOKALIKES, ids=lambda p: p.name)
def test_lookalike_is_finite(path: Path) -> None:
    assert torch.isfinite(_run(path)).all(), path.name


def test_the_measured_record_covers_the_set_as_it_is() -> None:
    """The figures in the README rest on measured.json: one measurement of exactly these files.

    A case added or removed without measuring again fails here, so no figure outlives its set.
    """
    record = json.loads((OUTSIDE / "measured.json").read_text(encoding="utf-8"))
    classes = record["classes"]
    assert sum(row.get("bugs", 0) for row in classes.values()) == len(BUGS)
    fixes = list(OUTSIDE.glob("*_fix.py"))
    correct = sum(row.get("correct", 0) for row in classes.values())
    assert correct == len(fixes) + len(LOOKALIKES)
    named = {miss["case"] for miss in record["misses"]}
    assert named <= {bug.stem for bug in BUGS}, sorted(named - {bug.stem for bug in BUGS})
