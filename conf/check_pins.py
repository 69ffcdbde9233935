"""Fail when the running environment holds a package that the constraints files do not pin.

    python conf/check_pins.py conf/constraints.txt [more constraints files ...]
    python conf/check_pins.py --lock conf/constraints.txt RESOLVED

Every distribution installed in the environment of the interpreter that runs this script (pip,
setuptools and the build backend included) must be pinned with ``==`` in one of the files, at the
version installed; a local version label (``2.13.0+cpu``) satisfies a pin without one, as it does
for pip.  A pin with an environment marker (``appnope==1.0.0 ; sys_platform == 'darwin'``, as the
universal lock writes them) counts where its marker holds for this interpreter.  The project's own
editable install is not checked.  The nox environments run it after each install, and so does the
Read the Docs build, so a package that slips in unpinned breaks the build instead of making it
depend on the day it ran.

With ``--lock``, no environment is read: every pin of RESOLVED (a resolution for one Python and
platform, ``nox -s lock`` writes them) must be a pin of the lock, whatever the lock's markers.
"""

from __future__ import annotations

import importlib.metadata
import re
import sys
import sysconfig
from collections.abc import Iterable
from pathlib import Path

try:
    from packaging.markers import InvalidMarker, Marker
except ImportError:  # pragma: no cover - an environment with pip but without packaging
    from pip._vendor.packaging.markers import InvalidMarker, Marker  # type: ignore[assignment]

OWN = "attention-textbook"


def normalise(name: str) -> str:
    """The PEP 503 form of a distribution name: ``Jinja2`` and ``jinja2`` are one package."""
    return re.sub(r"[-_.]+", "-", name).lower()


def read_pins(paths: list[Path]) -> dict[str, str]:
    """``{normalised name: version}`` of every ``name==version`` line in the files.

    A line whose marker does not hold for this interpreter pins nothing here.
    """
    pins: dict[str, str] = {}
    for path in paths:
        for number, raw in enumerate(path.read_text().splitlines(), start=1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            requirement, _, marker = (part.strip() for part in line.partition(";"))
            match = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)\s*===?\s*(\S+)", requirement)
            if match is None:
                raise SystemExit(f"{path}:{number}: not an exact pin (name==version): {raw!r}")
            if marker:
                try:
                    holds = Marker(marker).evaluate()
                except InvalidMarker as error:
                    raise SystemExit(f"{path}:{number}: not a marker ({error}): {raw!r}") from None
                if not holds:
                    continue
            pins[normalise(match[1])] = match[2]
    return pins


def installed() -> list[importlib.metadata.Distribution]:
    """The distributions installed in this environment's site-packages.

    Not every folder on ``sys.path``: once setuptools is imported, its vendored copies (with
    their own metadata) are on the path too, and they are part of setuptools, not installs.
    """
    folders = sorted({sysconfig.get_path("purelib"), sysconfig.get_path("platlib")})
    return list(importlib.metadata.distributions(path=folders))


def unpinned(
    pins: dict[str, str], distributions: Iterable[tuple[str, str]] | None = None
) -> list[str]:
    """One line per distribution that no pin covers, or installed at another version.

    ``distributions``: ``(name, version)`` pairs, by default those of this environment.
    """
    if distributions is None:
        distributions = ((dist.metadata["Name"], dist.version) for dist in installed())
    problems = []
    for raw_name, version in distributions:
        name = normalise(raw_name)
        if name == OWN:
            continue
        pinned = pins.get(name)
        if pinned is None:
            problems.append(f"{name} {version} is installed but not pinned")
        elif version.split("+", 1)[0] != pinned.split("+", 1)[0]:
            problems.append(f"{name} {version} is installed but pinned at {pinned}")
    return sorted(set(problems))


def outside(lock: Path, resolved: Path) -> list[str]:
    """One line per pin of ``resolved`` that no line of ``lock`` pins, markers aside."""
    versions: dict[str, set[str]] = {}
    for raw in lock.read_text().splitlines():
        match = re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)\s*===?\s*([^\s;#]+)", raw.strip())
        if match:
            versions.setdefault(normalise(match[1]), set()).add(match[2])
    problems = []
    for name, version in read_pins([resolved]).items():
        if name != OWN and version not in versions.get(name, set()):
            problems.append(f"{name} {version} is resolved but not pinned in {lock}")
    return sorted(problems)


def main(argv: list[str]) -> int:
    """Check the environment against the constraints files named in ``argv``."""
    if argv[:1] == ["--lock"] and len(argv) == 3:
        problems = outside(Path(argv[1]), Path(argv[2]))
        for problem in problems:
            print(problem, file=sys.stderr)
        if not problems:
            print(f"check_pins: {argv[1]} pins every package of {argv[2]}")
        return 1 if problems else 0
    if not argv:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    paths = [Path(arg) for arg in argv]
    for path in paths:
        if not path.is_file():
            print(f"check_pins: no constraints file {path}", file=sys.stderr)
            return 2
    problems = unpinned(read_pins(paths))
    names = ", ".join(str(path) for path in paths)
    if problems:
        print(f"packages installed without a pin in {names}:", file=sys.stderr)
        for problem in problems:
            print(f"  {problem}", file=sys.stderr)
        print("pin each one there (name==version)", file=sys.stderr)
        return 1
    count = len(installed())
    print(f"check_pins: every package of this environment ({count}) is pinned in {names}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
