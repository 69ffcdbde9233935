"""The distribution: its name, one version, the licence, pinned environments, the two commands."""

from __future__ import annotations

import importlib.metadata
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import attention

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "conf"))
import check_pins  # noqa: E402  (conf/ is not a package)

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
CONSTRAINTS = ROOT / "conf" / "constraints.txt"
# The pins this environment was installed with: the nox sessions generate them for the torch
# build pip got (conf/torch_pins.py) and say where; an environment of one's own uses the base.
ENVIRONMENT_PINS = Path(os.environ.get("ATTENTION_PINS") or CONSTRAINTS)


def test_the_distribution_name_is_not_the_keras_layers() -> None:
    assert PYPROJECT["project"]["name"] == "attention-textbook"
    assert (ROOT / "src" / "attention" / "__init__.py").is_file()  # import name stays attention


def test_the_version_is_written_once_and_read_by_the_installed_distribution() -> None:
    project = PYPROJECT["project"]
    assert "version" not in project
    assert project["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["hatch"]["version"]["path"] == "src/attention/__init__.py"
    assert importlib.metadata.version("attention-textbook") == attention.__version__


def test_the_licence_file_is_declared_for_the_wheel() -> None:
    assert PYPROJECT["project"]["license"] == "MIT"
    assert PYPROJECT["project"]["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")


def test_the_citation_file_carries_no_second_version() -> None:
    text = (ROOT / "CITATION.cff").read_text()
    assert re.search(r"(?m)^cff-version: 1\.2\.0$", text)
    assert not re.search(r"(?m)^version:", text)


def test_pre_commit_runs_the_pinned_ruff_with_the_lint_sessions_checks() -> None:
    pinned = re.search(r"(?m)^ruff==([^\s;#]+)", CONSTRAINTS.read_text())
    assert pinned
    config = (ROOT / ".pre-commit-config.yaml").read_text()
    assert re.findall(r'"ruff==([^"]+)"', config) == [pinned[1], pinned[1]]
    assert "entry: ruff check --force-exclude" in config
    assert "entry: ruff format --check --force-exclude" in config


def test_every_pip_install_of_read_the_docs_is_constrained_and_checked() -> None:
    config = (ROOT / ".readthedocs.yaml").read_text()
    installs = re.findall(r"(?m)^\s*- (python -m pip install .*)$", config)
    assert len(installs) == 3
    assert all("-c conf/constraints.txt" in line for line in installs)
    assert "- python conf/check_pins.py conf/constraints.txt" in config


def test_every_constraint_is_an_exact_pin() -> None:
    pins = check_pins.read_pins([CONSTRAINTS])
    assert pins["torch"] == "2.13.0"
    assert {"pip", "setuptools", "hatchling", "editables", "numpy"} <= set(pins)


def test_a_range_in_a_constraints_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "constraints.txt"
    path.write_text("# pins\nnumpy>=2\n")
    with pytest.raises(SystemExit, match=r"constraints.txt:2: not an exact pin"):
        check_pins.read_pins([path])


def test_check_pins_names_an_unpinned_and_a_mispinned_package() -> None:
    pins = check_pins.read_pins([ENVIRONMENT_PINS])
    assert check_pins.unpinned(pins) == []  # this environment: every package pinned
    del pins["numpy"]
    pins["pytest"] = "0.0.1"
    problems = check_pins.unpinned(pins)
    assert any(
        p.startswith("numpy ") and p.endswith("is installed but not pinned") for p in problems
    )
    assert any(p.startswith("pytest ") and p.endswith("but pinned at 0.0.1") for p in problems)


def test_check_pins_ignores_the_copies_that_setuptools_vendors() -> None:
    import setuptools  # puts setuptools/_vendor, with its packages' metadata, on sys.path

    assert setuptools.__version__ == check_pins.read_pins([ENVIRONMENT_PINS])["setuptools"]
    names = {check_pins.normalise(dist.metadata["Name"]) for dist in check_pins.installed()}
    assert "attention-textbook" in names
    assert "autocommand" not in names


def test_check_pins_as_a_command(tmp_path: Path) -> None:
    script = str(ROOT / "conf" / "check_pins.py")
    ok = subprocess.run(
        [sys.executable, script, str(ENVIRONMENT_PINS)], capture_output=True, text=True
    )
    assert ok.returncode == 0, ok.stderr
    short = tmp_path / "constraints.txt"
    short.write_text(
        "\n".join(
            line
            for line in ENVIRONMENT_PINS.read_text().splitlines()
            if not line.startswith("numpy==")
        )
    )
    bad = subprocess.run([sys.executable, script, str(short)], capture_output=True, text=True)
    assert bad.returncode == 1
    assert "numpy" in bad.stderr
    assert "not pinned" in bad.stderr
    missing = subprocess.run(
        [sys.executable, script, str(tmp_path / "nope.txt")], capture_output=True, text=True
    )
    assert missing.returncode == 2
    assert "no constraints file" in missing.stderr


def test_dev_without_a_command_prints_its_usage_and_installs_nothing(tmp_path: Path) -> None:
    result = subprocess.run([str(ROOT / "dev")], capture_output=True, text=True)
    assert result.returncode == 2
    assert "./dev docs" in result.stderr
    assert "./dev check" in result.stderr


def fake_python(tmp_path: Path, release: str) -> str:
    """A stand-in interpreter that says it is Python ``release`` and makes nothing."""
    script = tmp_path / f"python{release}"
    script.write_text(f"#!/bin/sh\necho '{release} /opt/python{release}/bin/python'\n")
    script.chmod(0o755)
    return str(script)


@pytest.mark.parametrize("release", ["3.10", "3.15"])
def test_dev_refuses_a_python_outside_the_supported_range_in_one_line(
    tmp_path: Path, release: str
) -> None:
    result = subprocess.run(
        [str(ROOT / "dev"), "docs"],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "PYTHON": fake_python(tmp_path, release)},
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert f"is Python {release}; the project needs Python 3.11 to 3.14" in result.stderr
    assert "PYTHON=" in result.stderr


def test_dev_refuses_a_program_that_is_no_python() -> None:
    result = subprocess.run(
        [str(ROOT / "dev"), "docs"],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "PYTHON": "/bin/false"},
    )
    assert result.returncode == 2
    assert "does not run as Python; the project needs Python 3.11 to 3.14" in result.stderr


def _pdf_packages() -> list[str]:
    """The Debian packages `nox -s pdf` names (noxfile.py's TEX_PACKAGES)."""
    noxfile = (ROOT / "noxfile.py").read_text()
    found = re.search(r"^TEX_PACKAGES = \(\n((?:\s+\"[^\"]*\"\n)+)\)", noxfile, re.MULTILINE)
    assert found, "noxfile.py: no TEX_PACKAGES"
    return "".join(re.findall(r'"([^"]*)"', found[1])).split()


def test_the_pdf_session_stays_out_of_the_default_run_and_names_its_debian_packages() -> None:
    noxfile = (ROOT / "noxfile.py").read_text()
    assert re.search(r"@nox\.session\([^)]*default=False[^)]*\)\ndef pdf\(", noxfile)
    defaults = re.search(r"^nox\.options\.sessions = \[(.*)\]$", noxfile, re.MULTILINE)
    assert defaults
    assert '"pdf"' not in defaults[1]
    packages = _pdf_packages()
    assert {"texlive-xetex", "texlive-lang-chinese", "latexmk", "fonts-noto-cjk"} <= set(packages)
    assert "poppler-utils" in packages  # pdftotext, for the book's text checks
    # the CI run installs no TeX: the book stays out of it
    assert "texlive" not in (ROOT / ".ci" / "run").read_text()


@pytest.mark.parametrize("document", ["README.md", "CONTRIBUTING.md"])
def test_the_documents_name_the_pdf_books_debian_packages(document: str) -> None:
    text = (ROOT / document).read_text()
    assert f"apt-get install -y --no-install-recommends {' '.join(_pdf_packages())}" in text


def test_read_the_docs_builds_the_book_as_a_pdf() -> None:
    config = (ROOT / ".readthedocs.yaml").read_text()
    assert re.search(r"(?m)^formats:\n  - pdf$", config)
