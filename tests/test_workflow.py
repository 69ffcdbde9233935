"""The CI workflow for the repository's public home, held to the lists it repeats.

It cannot run here; ``nox -s lint`` checks it with actionlint, and these tests hold its
matrices to pyproject.toml's supported Pythons and conf/torch-releases.toml's releases.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from attention.semantics import paths

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "check.yml"
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def release(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def matrix_pythons() -> list[str]:
    match = re.search(r"(?m)^\s+python: \[(.*)\]$", WORKFLOW.read_text())
    assert match, "the check job has no python matrix"
    return [item.strip().strip('"') for item in match[1].split(",")]


def matrix_torches() -> list[dict[str, Any]]:
    rows = re.findall(r'(?m)^\s+- \{torch: "([\d.]+)", session: (\w+)\}$', WORKFLOW.read_text())
    return [{"torch": torch, "session": session} for torch, session in rows]


def test_the_check_job_runs_on_every_supported_python() -> None:
    classifiers = [
        c.rsplit(" ", 1)[1]
        for c in PROJECT["classifiers"]
        if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
    ]
    assert matrix_pythons() == classifiers
    assert "run: ./dev check" in WORKFLOW.read_text()


def test_one_semantics_job_per_recorded_torch_release() -> None:
    assert [row["torch"] for row in matrix_torches()] == [r.torch for r in paths.torch_releases()]


@pytest.mark.parametrize("row", matrix_torches(), ids=lambda row: row["torch"])
def test_a_release_below_the_packages_floor_is_probed_without_its_dependencies(
    row: dict[str, Any],
) -> None:
    floor = next(
        release(found[1])
        for found in (
            re.fullmatch(r"torch>=([\d.]+)", d) for d in PROJECT["optional-dependencies"]["torch"]
        )
        if found
    )
    below = release(row["torch"]) < floor
    assert row["session"] == ("semantics_matrix" if below else "semantics")
