"""conf/constraints.txt: one universal lock for every supported Python, written by ``nox -s lock``.

Nothing here asks a package index: the resolutions run in ``nox -s lock``; these tests hold the
committed lock to its inputs and to what the environments and ``./dev`` read from it.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "conf"))
import check_pins  # noqa: E402  (conf/ is not a package)
import lock_inputs  # noqa: E402

LOCK = ROOT / "conf" / "constraints.txt"
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
PIN = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;#]+)")


def lock_lines() -> list[str]:
    return [line for line in LOCK.read_text().splitlines() if line and not line.startswith("#")]


def supported() -> list[str]:
    found = (
        re.fullmatch(r"Programming Language :: Python :: (3\.\d+)", line)
        for line in PROJECT["classifiers"]
    )
    return [match[1] for match in found if match]


def test_the_lock_is_resolved_from_todays_inputs() -> None:
    assert lock_inputs.recorded(LOCK) == lock_inputs.digest(), (
        "conf/constraints.in or pyproject.toml's extras, requires-python or Python classifiers "
        "changed since conf/constraints.txt was written: run `nox -s lock` and commit both"
    )


def test_an_edit_to_an_input_is_seen(tmp_path: Path) -> None:
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "constraints.in").write_bytes(
        (ROOT / "conf" / "constraints.in").read_bytes()
    )
    pyproject = (ROOT / "pyproject.toml").read_text()
    (tmp_path / "pyproject.toml").write_text(pyproject)
    assert lock_inputs.digest(tmp_path) == lock_inputs.digest()
    (tmp_path / "pyproject.toml").write_text(pyproject.replace('"ruff"', '"ruff", "black"'))
    assert lock_inputs.digest(tmp_path) != lock_inputs.digest()


def test_the_supported_pythons_are_3_11_to_3_14_and_requires_python_agrees() -> None:
    assert supported() == ["3.11", "3.12", "3.13", "3.14"]
    assert PROJECT["requires-python"] == f">={supported()[0]}"


def test_every_line_is_one_exact_pin_and_one_release_serves_every_python() -> None:
    """No package is pinned twice (per Python or platform): the site is the same whoever builds it."""
    names = []
    for line in lock_lines():
        match = PIN.match(line)
        assert match, f"not an exact pin: {line!r}"
        names.append(check_pins.normalise(match[1]))
        assert "python_version" not in line, f"pinned for some Pythons only: {line!r}"
    duplicated = sorted({name for name in names if names.count(name) > 1})
    assert not duplicated, f"pinned at more than one release: {duplicated}"


def test_the_lock_pins_the_documentation_toolchain_the_design_names() -> None:
    pins = check_pins.read_pins([LOCK])
    for name in ("sphinx", "myst-nb", "furo", "sphinx-autodoc-typehints", "torch", "nox", "uv"):
        assert name in pins, name
    assert pins["torch"] == "2.13.0"


def test_a_marker_that_fails_here_pins_nothing_here(tmp_path: Path) -> None:
    lock = tmp_path / "constraints.txt"
    lock.write_text(
        "torch==2.13.0  # via -r conf/constraints.in\n"
        "appnope==1.0.0 ; sys_platform == 'nowhere'  # via ipykernel\n"
        "numpy==2.4.6 ; python_full_version >= '3.11'\n"
    )
    assert check_pins.read_pins([lock]) == {"torch": "2.13.0", "numpy": "2.4.6"}
    assert check_pins.unpinned(check_pins.read_pins([lock]), [("appnope", "1.0.0")]) == [
        "appnope 1.0.0 is installed but not pinned"
    ]


def test_a_resolution_for_one_python_must_stay_inside_the_lock(tmp_path: Path) -> None:
    resolved = tmp_path / "3.14.txt"
    resolved.write_text("torch==2.13.0\nnumpy==2.4.6\n")
    lock = tmp_path / "constraints.txt"
    lock.write_text("torch==2.13.0\nnumpy==2.4.6 ; sys_platform == 'linux'\n")
    assert check_pins.outside(lock, resolved) == []
    resolved.write_text("torch==2.13.0\nnumpy==2.5.0\nfilelock==4.3.1\n")
    assert check_pins.outside(lock, resolved) == [
        f"filelock 4.3.1 is resolved but not pinned in {lock}",
        f"numpy 2.5.0 is resolved but not pinned in {lock}",
    ]
