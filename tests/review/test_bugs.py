"""The bug corpus (tests/review/bugs/): real mask and scale mistakes, each beside its fix.

Every case is a pair of files written from a public bug report: ``<case>_bug.py`` marks the
lines of the mistake with a trailing ``# bug`` comment, ``<case>_fix.py`` is the same code with
the report's fix (a correct look-alike).  Both define ``run() -> torch.Tensor`` on tiny fixed
inputs.  Here the corpus's form is checked, every case is run (the bug shows NaN / inf or other
numbers than the fix, the fix is finite), and the checker's recall is printed per class and per
part: development (the rules may be written against it) and held-out (never used to tune a
rule).  Format and split rule: tests/review/bugs/README.md.
"""

from __future__ import annotations

import ast
import importlib.util
import io
import re
import tokenize
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest
import torch

from attention.review.check import check_source

BUGS = Path(__file__).parent / "bugs"
PARTS = ("development", "heldout")
CLASSES = (
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
)
MIN_CASES = 165
"""Cases committed so far: the corpus may grow, never shrink unnoticed."""
MIN_PER_CLASS = 6
ALLOWED_IMPORTS = {"torch", "math", "functools", "typing"}
CASE_ID = re.compile(r"(?P<cls>[a-z0-9_]+?)__[a-z0-9_]+")
REPORT = re.compile(r"^Report: https://github\.com/[\w.-]+/[\w.-]+/(issues|pull)/\d+$", re.M)
MARKER = re.compile(r"(^|\s)# bug$")
CLASS_LINE = re.compile(r"^Class: (?P<cls>\S+)$", re.M)


@dataclass(frozen=True)
class Case:
    """One case: its id, its part and its two files."""

    case_id: str
    part: str
    bug: Path
    fix: Path

    @property
    def cls(self) -> str:
        match = CASE_ID.fullmatch(self.case_id)
        return match.group("cls") if match else ""


def collect() -> list[Case]:
    cases = []
    for part in PARTS:
        stems = {path.stem.rsplit("_", 1)[0] for path in (BUGS / part).glob("*_[bf][ui][gx].py")}
        for stem in sorted(stems):
            folder = BUGS / part
            cases.append(Case(stem, part, folder / f"{stem}_bug.py", folder / f"{stem}_fix.py"))
    return cases


CASES = collect()
IDS = [f"{case.part}/{case.case_id}" for case in CASES]


def bug_lines(source: str) -> set[int]:
    """Lines whose comment ends with ``# bug`` (also after a shape comment: ``# (B, T)  # bug``)."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return {
        tok.start[0] for tok in tokens if tok.type == tokenize.COMMENT and MARKER.search(tok.string)
    }


def load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"bugs_{path.parent.name}_{path.stem}", path)
    assert spec is not None, path
    assert spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_corpus_is_not_empty() -> None:
    assert len(CASES) >= MIN_CASES
    per_class = Counter(case.cls for case in CASES)
    short = {cls: per_class[cls] for cls in CLASSES if per_class[cls] < MIN_PER_CLASS}
    assert not short, f"classes with too few cases: {short}"


def test_every_class_keeps_the_split_rule() -> None:
    """Within a class, cases 3, 6, 9, ... go to heldout/: a third of them, rounded down."""
    total = Counter(case.cls for case in CASES)
    heldout = Counter(case.cls for case in CASES if case.part == "heldout")
    assert {cls: heldout[cls] for cls in total} == {cls: n // 3 for cls, n in total.items()}


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_case_form(case: Case) -> None:
    assert case.bug.exists(), f"{case.case_id}: the bug file is missing"
    assert case.fix.exists(), f"{case.case_id}: the fix file is missing"
    assert case.cls in CLASSES, f"{case.case_id}: no known class in its id"
    for path in (case.bug, case.fix):
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        doc = ast.get_docstring(tree) or ""
        assert REPORT.search(doc), f"{path.name}: its docstring cites no report"
        cls = CLASS_LINE.search(doc)
        assert cls, f"{path.name}: its docstring has no Class line"
        assert cls.group("cls") == case.cls, f"{path.name}: Class line is not {case.cls}"
        imported = {
            alias.name.split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.Import | ast.ImportFrom)
            for alias in (
                node.names if isinstance(node, ast.Import) else [ast.alias(node.module or "")]
            )
        }
        assert imported <= ALLOWED_IMPORTS, f"{path.name} imports {imported - ALLOWED_IMPORTS}"
        assert any(
            isinstance(node, ast.FunctionDef) and node.name == "run" for node in tree.body
        ), f"{path.name} has no top-level run()"
    assert bug_lines(case.bug.read_text(encoding="utf-8")), f"{case.bug.name} marks no line"
    assert not bug_lines(case.fix.read_text(encoding="utf-8")), f"{case.fix.name} marks a line"


@pytest.mark.filterwarnings("ignore:Implicit dimension choice for softmax")
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_case_reproduces(case: Case) -> None:
    bug = load(case.bug).run()
    fix = load(case.fix).run()
    assert isinstance(bug, torch.Tensor), f"{case.bug.name}: run() returns no tensor"
    assert isinstance(fix, torch.Tensor), f"{case.fix.name}: run() returns no tensor"
    assert torch.isfinite(fix).all(), f"{case.fix.name}: the fix's result is not finite"
    shows_the_bug = (
        not torch.isfinite(bug).all()
        or bug.shape != fix.shape
        or not torch.allclose(bug.double(), fix.double())
    )
    assert shows_the_bug, f"{case.bug.name}: same numbers as the fix"


def test_recall_per_class_and_part(capsys: pytest.CaptureFixture[str]) -> None:
    """Printed, not asserted (yet): caught = a finding on a ``# bug`` line of the bug file."""
    cases: Counter[tuple[str, str]] = Counter()
    caught: Counter[tuple[str, str]] = Counter()
    flagged: Counter[tuple[str, str]] = Counter()
    for case in CASES:
        key = (case.cls, case.part)
        source = case.bug.read_text(encoding="utf-8")
        found = {finding.line for finding in check_source(source, str(case.bug))}
        cases[key] += 1
        caught[key] += bool(found & bug_lines(source))
        fix = case.fix.read_text(encoding="utf-8")
        flagged[key] += bool(check_source(fix, str(case.fix)))
    lines = [
        f"{'class':22} {'part':11} {'cases':>5} {'caught':>6} {'recall':>6} {'look-alikes':>11}"
    ]
    for part in (*PARTS, "all"):
        for cls in (*CLASSES, "all"):
            keys = [
                key
                for key in cases
                if (cls == "all" or key[0] == cls) and (part == "all" or key[1] == part)
            ]
            n = sum(cases[key] for key in keys)
            if not n:
                continue
            hit = sum(caught[key] for key in keys)
            alike = sum(flagged[key] for key in keys)
            lines.append(f"{cls:22} {part:11} {n:5d} {hit:6d} {hit / n:6.2f} {f'{alike}/{n}':>11}")
    with capsys.disabled():
        print("\n" + "\n".join(lines))
    assert sum(cases.values()) == len(CASES)
