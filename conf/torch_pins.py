"""The pins for another torch release: the lock with that release's own requirements resolved.

    python conf/torch_pins.py generate torch==X.Y.Z --out FILE [--python PYTHON] [--base FILE]
    python conf/torch_pins.py check FILE [--python PYTHON] [--torch-index URL] -- PIP-ARGS ...
    python conf/torch_pins.py reachable URL

Which build of a torch release pip installs depends on where it looks: PyPI serves only the
CUDA build for Linux x86-64 (``torch-2.13.0``, 527 MB, with about 20 ``nvidia-*``, ``cuda-*``
and ``triton`` packages: 5.4 GB installed), PyTorch's CPU index the CPU build
(``torch-2.13.0+cpu``, 190 MB, nothing more).  ``--torch-index URL`` adds such an index to the
resolution (pip's ``--extra-index-url``); pip then prefers its ``+cpu`` build, a higher version
than PyPI's.  ``reachable`` says in one line, within a few seconds, whether such an index
answers (exit 0) or not (exit 1).

``conf/constraints.txt`` is a universal lock (``nox -s lock``): it pins every package of both builds
of the torch release it pins, on every supported Python and platform.  Another torch release is
another resolution: its CUDA build brings other versions of ``nvidia-*``, ``cuda-*`` and ``triton``,
and an older release other ranges of packages the lock pins (torch 2.5.1 requires ``sympy==1.13.1``;
the lock pins 1.14.0).  ``generate`` asks pip what torch==X.Y.Z needs (``pip install --dry-run
--ignore-installed --report``, no constraints: nothing is downloaded but metadata) and writes
``FILE``: the lines of ``--base`` (default: conf/constraints.txt) in their order, each pin of
torch's dependency closure kept where it meets every requirement of that closure and otherwise
replaced by the version pip resolved (with a comment saying which requirement moved it), the torch
line replaced by the resolved torch, then every package of the closure the base does not pin.  The
same base and the same resolution give the same file, byte for byte.

``check`` resolves an install with the pins in ``FILE`` without installing anything and fails,
in one line, when the pins cannot be met (naming what conflicts) or when a package would be
installed that ``FILE`` does not pin; ``noxfile.py`` runs it before the multi-GB download, and
``conf/check_pins.py`` holds the finished environment to the same file.

Both run pip as ``PYTHON -m pip`` (default: this interpreter), so the resolution is for that
Python and platform, with the user's own pip configuration (index, mirrors); either prints one
``torch_pins: error: ...`` line and exits 1 when pip cannot resolve.  The parsing uses
``packaging`` (nox depends on it; pip's vendored copy otherwise).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

try:
    from packaging.markers import Marker
    from packaging.requirements import Requirement
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version
except ImportError:  # pragma: no cover - an interpreter with pip but without packaging
    from pip._vendor.packaging.markers import Marker  # type: ignore[assignment]
    from pip._vendor.packaging.requirements import Requirement  # type: ignore[assignment]
    from pip._vendor.packaging.specifiers import SpecifierSet  # type: ignore[assignment]
    from pip._vendor.packaging.version import Version  # type: ignore[assignment]

BASE = Path(__file__).resolve().parent / "constraints.txt"
OWN = "attention-textbook"
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
"""PyTorch's index of CPU builds: where a machine can reach it, the default environment's torch."""
REACHABLE_TIMEOUT_S = 3.0
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s*===?\s*([^\s;]+)")


class PinsError(Exception):
    """pip could not resolve, or a resolution breaks the pins: one line for the terminal."""


def normalise(name: str) -> str:
    """The PEP 503 form of a distribution name: ``Jinja2`` and ``jinja2`` are one package.

    >>> normalise("typing_extensions"), normalise("Jinja2")
    ('typing-extensions', 'jinja2')
    """
    return re.sub(r"[-_.]+", "-", name).lower()


def condense(stderr: str) -> str:
    """Pip's explanation of a failed resolution, in one line.

    The ``The conflict is caused by:`` block when there is one (each requirement that takes
    part), else pip's ``ERROR:`` lines (a version that does not exist, no matching wheel).

    >>> condense('''ERROR: Cannot install torch==2.5.1 because these package versions have
    ... conflicting dependencies.
    ...
    ... The conflict is caused by:
    ...     The user requested (constraint) sympy==1.14.0
    ...     torch 2.5.1 depends on sympy==1.13.1; python_version >= "3.9"
    ...
    ... To fix this you could try to:''')
    'The user requested (constraint) sympy==1.14.0; torch 2.5.1 depends on sympy==1.13.1'
    """
    lines = stderr.splitlines()
    for index, line in enumerate(lines):
        if line.strip() == "The conflict is caused by:":
            causes = []
            for cause in lines[index + 1 :]:
                if not cause.strip():
                    break
                # the marker after ";" always held (pip evaluated it), so it explains nothing
                causes.append(cause.strip().split(";", 1)[0].strip())
            return "; ".join(causes)
    errors = [
        re.sub(r"\(from versions: [^)]*\)", "", line[len("ERROR: ") :]).strip()
        for line in lines
        if line.startswith("ERROR: ") and "ResolutionImpossible" not in line
    ]
    if errors:
        return "; ".join(dict.fromkeys(errors))
    tail = [line.strip() for line in lines if line.strip()]
    return tail[-1] if tail else "pip failed without a message"


def resolve(
    python: str,
    arguments: Sequence[str],
    *,
    constraints: Iterable[str] = (),
    torch_index: str | None = None,
    what: str,
) -> dict[str, Any]:
    """Pip's installation report for ``pip install ARGUMENTS``, installing nothing.

    ``--ignore-installed``: the report lists every package the install needs, not only those
    missing from ``python``'s environment.  ``torch_index``: an index pip also looks in.
    Raises PinsError with pip's reason in one line.
    """
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.json"
        command = [
            python,
            *("-m", "pip", "install", "--dry-run", "--ignore-installed", "--progress-bar=off"),
            *("--no-cache-dir", "--report", str(report)),
            *(option for path in constraints for option in ("-c", path)),
            *(("--extra-index-url", torch_index) if torch_index else ()),
            *arguments,
        ]
        # not --quiet: pip then leaves out which requirements conflict
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise PinsError(f"{what}: {condense(done.stdout + done.stderr)}")
        data: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
        return data


def _extras(
    install: Sequence[Mapping[str, Any]], environment: Mapping[str, str]
) -> dict[str, set[str]]:
    """For each package of the report, the extras the closure asks of it ("" for none)."""
    extras = {
        normalise(item["metadata"]["name"]): {"", *(item.get("requested_extras") or ())}
        for item in install
    }
    changed = True
    while changed:
        changed = False
        for item in install:
            name = normalise(item["metadata"]["name"])
            for text in item["metadata"].get("requires_dist", None) or ():
                requirement = Requirement(text)
                wanted = normalise(requirement.name)
                if wanted not in extras or not _applies(requirement, environment, extras[name]):
                    continue
                new = set(requirement.extras) - extras[wanted]
                if new:
                    extras[wanted] |= new
                    changed = True
    return extras


def _applies(requirement: Requirement, environment: Mapping[str, str], extras: set[str]) -> bool:
    """Whether ``requirement`` holds for a package installed with ``extras`` in ``environment``."""
    marker: Marker | None = requirement.marker
    if marker is None:
        return True
    return any(marker.evaluate({**environment, "extra": extra}) for extra in extras)


def closure(report: Mapping[str, Any]) -> dict[str, tuple[str, str, SpecifierSet]]:
    """``{normalised name: (name, resolved version, what the closure requires of it)}``."""
    install: list[Mapping[str, Any]] = report["install"]
    environment: Mapping[str, str] = report["environment"]
    extras = _extras(install, environment)
    found: dict[str, tuple[str, str, SpecifierSet]] = {}
    for item in install:
        name = item["metadata"]["name"]
        found[normalise(name)] = (name, item["metadata"]["version"], SpecifierSet())
    for item in install:
        for text in item["metadata"].get("requires_dist", None) or ():
            requirement = Requirement(text)
            key = normalise(requirement.name)
            owner = normalise(item["metadata"]["name"])
            if key in found and _applies(requirement, environment, extras[owner]):
                name, version, specifier = found[key]
                found[key] = (name, version, specifier & requirement.specifier)
    return found


def render(base: str, report: Mapping[str, Any], requirement: str, *, base_name: str) -> str:
    """The pins for ``requirement`` (``torch==X.Y.Z``): ``base`` with torch's closure resolved."""
    packages = closure(report)
    requested = [i for i in report["install"] if i.get("requested")]
    torch = next((i for i in requested if normalise(i["metadata"]["name"]) == "torch"), None)
    if torch is None:
        raise PinsError(f"{requirement}: pip's report holds no torch")
    release = torch["metadata"]["version"]
    lines = [
        f"# The pins for torch=={release}, written by conf/torch_pins.py from {base_name}: its",
        "# lines, with each pin of torch's requirements kept where it meets them and replaced by",
        "# the version pip resolved for torch where it does not; the packages the base does not",
        "# pin follow at the end.  Do not edit: it is regenerated with its environment.",
    ]
    seen: set[str] = set()
    for raw in base.splitlines():
        match = _PIN.match(raw.split("#", 1)[0].strip())
        key = normalise(match[1]) if match else None
        if match is None or key not in packages:
            lines.append(raw)
            continue
        seen.add(key)
        _, resolved, specifier = packages[key]
        pinned = match[2]
        if key == "torch":
            lines.append(f"{match[1]}=={resolved}")
        elif specifier.contains(Version(pinned), prereleases=True):
            lines.append(raw)
        else:
            lines.append(
                f"{match[1]}=={resolved}  # {base_name}: {pinned}; "
                f"torch {release} needs {specifier}"
            )
    added = sorted(key for key in packages if key not in seen and key != normalise(OWN))
    if added:
        lines += ["", f"# torch=={release} requires these, which {base_name} does not pin"]
        lines += [f"{packages[key][0]}=={packages[key][1]}" for key in added]
    return "\n".join(lines) + "\n"


def generate(
    requirement: str,
    out: Path,
    *,
    python: str,
    base: Path = BASE,
) -> str:
    """Resolve ``requirement`` with pip and write its pins to ``out``; returns the text."""
    report = resolve(
        python,
        [requirement],
        what=f"no pins for {requirement}: pip cannot resolve it",
    )
    text = render(base.read_text(encoding="utf-8"), report, requirement, base_name=base.name)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    return text


GPU_PACKAGE = re.compile(r"^(nvidia-|cuda-|triton$|pytorch-triton)")


def describe(text: str) -> str:
    r"""Which build the pins ``text`` (from render) hold, in one line for the terminal.

    >>> describe("torch==2.13.0+cpu\n")
    'torch 2.13.0+cpu: nothing beyond the base'
    >>> cuda = "torch==2.13.0\n# torch==2.13.0 requires these, which c.txt does not pin\n"
    >>> describe(cuda + "nvidia-nvtx==13.0.85\nsympy==1.14.0\n")
    'torch 2.13.0: 2 packages beyond the base, 1 of them GPU libraries (nvidia-*, cuda-*, triton)'
    """
    torch = ""
    added: list[str] = []
    in_added = False
    for raw in text.splitlines():
        if raw.startswith("# torch==") and "requires these" in raw:
            in_added = True
            continue
        match = _PIN.match(raw.split("#", 1)[0].strip())
        if match is None:
            continue
        if normalise(match[1]) == "torch":
            torch = match[2]
        elif in_added:
            added.append(normalise(match[1]))
    if not added:
        return f"torch {torch}: nothing beyond the base"
    gpu = sum(1 for name in added if GPU_PACKAGE.match(name))
    text_gpu = f", {gpu} of them GPU libraries (nvidia-*, cuda-*, triton)" if gpu else ""
    return f"torch {torch}: {len(added)} packages beyond the base{text_gpu}"


def read_pins(path: Path, environment: Mapping[str, str] | None = None) -> dict[str, str]:
    """``{normalised name: version}`` of every ``name==version`` line of ``path``.

    A line with an environment marker (``nvidia-nvtx==13.0.85 ; sys_platform == 'linux'``)
    counts where its marker holds in ``environment`` (pip's report's), or in any environment
    when none is given.
    """
    pins = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        match = _PIN.match(line)
        if match is None:
            continue
        _, _, marker = line.partition(";")
        if (
            environment is not None
            and marker.strip()
            and not Marker(marker.strip()).evaluate(dict(environment))
        ):
            continue
        pins[normalise(match[1])] = match[2]
    return pins


def check(
    pins: Path, arguments: Sequence[str], *, python: str, torch_index: str | None = None
) -> int:
    """Resolve ``pip install -c PINS ARGUMENTS`` and check every package it needs is pinned.

    Returns how many packages the install holds; raises PinsError naming a conflict or the
    packages that would arrive without a pin.
    """
    report = resolve(
        python,
        arguments,
        constraints=[str(pins)],
        torch_index=torch_index,
        what=f"the pins in {pins} cannot be met",
    )
    return check_report(pins, report)


def check_report(pins: Path, report: Mapping[str, Any]) -> int:
    """Check that ``pins`` holds every package of pip's ``report`` at its version.

    Returns how many packages the report installs; raises PinsError naming those that would
    arrive without a pin (a local label, ``+cpu``, need not be pinned: pip ignores it too).
    """
    pinned = read_pins(pins, report.get("environment"))
    loose = []
    for item in report["install"]:
        name, version = item["metadata"]["name"], item["metadata"]["version"]
        key = normalise(name)
        if key != OWN and pinned.get(key, "").split("+")[0] != version.split("+")[0]:
            loose.append(f"{name} {version}")
    if loose:
        raise PinsError(f"{pins} does not pin what the install needs: {', '.join(sorted(loose))}")
    return len(report["install"])


def reachable(url: str, timeout: float = REACHABLE_TIMEOUT_S) -> str | None:
    """None when the package index at ``url`` answers for torch, else why not, in a few words.

    One request for the index's page of torch (PEP 503: ``URL/torch/``), within ``timeout``
    seconds, so that a machine that cannot reach the index loses no more than that.  The
    request honours the ``https_proxy`` / ``no_proxy`` environment variables, not pip's own
    configuration.

    >>> reachable("ftp://example.invalid/simple")
    'not an http(s) address'
    """
    if not re.match(r"^https?://", url):
        return "not an http(s) address"
    request = urllib.request.Request(url.rstrip("/") + "/torch/", method="HEAD")
    try:
        with urllib.request.urlopen(request, timeout=timeout):  # http(s) only, checked above
            return None
    except urllib.error.HTTPError as error:
        return f"HTTP {error.code}"
    except urllib.error.URLError as error:
        return str(error.reason)
    except OSError as error:  # a timeout while reading, a reset connection
        return str(error) or type(error).__name__


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: ``generate`` or ``check``."""
    parser = argparse.ArgumentParser(prog="python conf/torch_pins.py", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("generate", help="write the pins for torch==X.Y.Z")
    make.add_argument("requirement", help="torch==X.Y.Z")
    make.add_argument("--out", required=True, type=Path)
    make.add_argument("--base", type=Path, default=BASE)
    make.add_argument("--python", default=sys.executable)
    test = commands.add_parser("check", help="resolve an install with the pins, install nothing")
    test.add_argument("pins", type=Path)
    test.add_argument("--python", default=sys.executable)
    test.add_argument("--torch-index", help="an index pip also looks in (--extra-index-url)")
    test.add_argument("arguments", nargs="+", help="pip install arguments (after --)")
    probe = commands.add_parser("reachable", help="whether a package index answers for torch")
    probe.add_argument("url")
    args = parser.parse_args(argv)
    try:
        if args.command == "generate":
            if not re.match(r"^torch\s*===?\s*\S+$", args.requirement):
                raise PinsError(f"not an exact torch pin (torch==X.Y.Z): {args.requirement!r}")
            text = generate(
                args.requirement,
                args.out,
                python=args.python,
                base=args.base,
            )
            count = len(read_pins(args.out))
            print(f"torch_pins: wrote {args.out}: {count} pins for {args.requirement}")
            print(f"torch_pins: {describe(text)}")
        elif args.command == "check":
            count = check(
                args.pins, args.arguments, python=args.python, torch_index=args.torch_index
            )
            print(f"torch_pins: the install resolves, {count} packages, each pinned in {args.pins}")
        else:
            why = reachable(args.url)
            print(
                f"torch_pins: {args.url} " + ("answers" if why is None else f"unreachable: {why}")
            )
            return 0 if why is None else 1
    except PinsError as error:
        print(f"torch_pins: error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
