"""No false finding on correct code: the package's own source and torch's own torch/nn.

Any finding there is judged here, one line each: false ones were fixed in the rules; true ones
would be listed in EXPECTED with the judgement (none so far).
"""

from __future__ import annotations

import os
from pathlib import Path

import torch

from attention.review.check import check_source

SRC = Path(__file__).parents[2] / "src" / "attention"
TORCH_NN = Path(os.path.dirname(torch.__file__)) / "nn"

EXPECTED: dict[str, str] = {}
"""``path:line CODE`` → judgement, for findings on correct code that are true."""


def findings_under(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        for finding in check_source(path.read_text(encoding="utf-8"), str(path)):
            relative = path.relative_to(root.parent)
            found.append(f"{relative}:{finding.line} {finding.code}")
    return found


def test_the_package_has_no_finding() -> None:
    assert findings_under(SRC) == []


def test_torch_nn_has_no_unjudged_finding() -> None:
    assert sorted(set(findings_under(TORCH_NN)) - set(EXPECTED)) == []
