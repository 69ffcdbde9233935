"""Every check of the project, as nox sessions.

Every session installs with the pins in ``conf/constraints.txt``; torch is always pinned, so no
environment ever resolves an unpinned (multi-GB CUDA) torch.  Set ``ATTENTION_TORCH`` to a pip
requirement such as ``torch==2.5.1`` to test another torch on your own machine.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import nox

ROOT = Path(__file__).parent
CONSTRAINTS = ROOT / "conf" / "constraints.txt"
REPORTS = ROOT / "build" / "reports"

nox.needs_version = ">=2024.3.2"
nox.options.default_venv_backend = "venv"  # pip, never uv: torch comes from the pinned wheel
nox.options.reuse_venv = "yes"
nox.options.error_on_missing_interpreters = True
nox.options.sessions = ["lint", "typecheck", "tests"]


def _constraints(session: nox.Session) -> str:
    """The constraints file, with the torch pin replaced when ATTENTION_TORCH is set."""
    override = os.environ.get("ATTENTION_TORCH", "").strip()
    if not override:
        return str(CONSTRAINTS)
    if not re.match(r"^torch\s*(==|===)", override):
        session.error(f"ATTENTION_TORCH must pin an exact torch (torch==X.Y.Z), got {override!r}")
    text = re.sub(r"(?m)^torch==.*$", override, CONSTRAINTS.read_text())
    path = Path(session.create_tmp()) / "constraints.txt"
    path.write_text(text)
    session.log(f"torch pin overridden by ATTENTION_TORCH: {override}")
    return str(path)


def _install(session: nox.Session, extras: str) -> None:
    """Install the package (editable) with ``extras``, every version from the constraints."""
    session.install("-c", _constraints(session), "-e", f".[{extras}]")


@nox.session(python="3.11")
def lint(session: nox.Session) -> None:
    """ruff check and ruff format --check over the whole tree."""
    session.install("-c", str(CONSTRAINTS), "ruff")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session(python="3.11")
def typecheck(session: nox.Session) -> None:
    """mypy --strict over src/."""
    _install(session, "typecheck")
    session.run("mypy", "--strict", "src/attention")


@nox.session(python="3.11")
def tests(session: nox.Session) -> None:
    """pytest + Hypothesis: the package against torch, every error path, every builder."""
    _install(session, "test")
    REPORTS.mkdir(parents=True, exist_ok=True)
    session.run(
        "pytest",
        f"--junitxml={REPORTS / 'tests.xml'}",
        *(session.posargs or ["tests"]),
    )


@nox.session(python="3.11", default=False)
def bench(session: nox.Session) -> None:
    """Dense vs tiled vs torch's kernels, T = 512 … 8192: writes docs/_data/benchmark.json.

    Each figure is a median over fresh processes; the run reports the goals as ratios and never
    fails on timing. Run it on an otherwise idle machine.
    """
    _install(session, "test")
    record = ROOT / "docs" / "_data" / "benchmark.json"
    session.run("python", "-m", "attention.benchmark", "--out", str(record), *session.posargs)
