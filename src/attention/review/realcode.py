"""The checker on released code no one here wrote, against a committed ledger of verdicts.

``python -m attention.review.realcode --cache DIR`` downloads (``pip download --no-deps``, once:
the archives stay in ``DIR``) the pinned releases of ``conf/realcode-pins.txt``, unpacks them,
runs the checker on every ``*.py`` of each and compares the findings with
``tests/review/realcode/ledger.toml``: one entry per finding, with the verdict (``true``,
``false`` or ``unclear``) and a one-line reason written after reading the code in its context.

It fails on a finding the ledger lacks (someone has to read it first) and on a ``true`` entry
that is no longer found (a lost catch); a ``false`` or ``unclear`` entry no longer found is only
reported as stale.  It prints, per package and in total: files, findings, true, false, unclear
and false findings per 1,000 files.

>>> key = Entry("fairseq", "0.12.2", "fairseq/a.py", 3, "AM202", "true", "-1e8 in float16").key
>>> key
('fairseq', 'fairseq/a.py', 3, 'AM202')
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from attention.review.check import check_source
from attention.review.project import Project

__all__ = ["VERDICTS", "Entry", "LedgerError", "load_ledger", "load_pins", "main"]

ROOT = Path(__file__).resolve().parents[3]
PINS = ROOT / "conf" / "realcode-pins.txt"
LEDGER = ROOT / "tests" / "review" / "realcode" / "ledger.toml"
VERDICTS = ("true", "false", "unclear")
FIELDS = ("package", "version", "path", "line", "code", "verdict", "reason")
_PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[A-Za-z0-9.+!-]+)$")


class LedgerError(ValueError):
    """The pins or the ledger file is malformed (a missing field, an unknown verdict, …)."""


@dataclass(frozen=True)
class Entry:
    """One finding of the ledger and what a reader of the code concluded about it."""

    package: str
    version: str
    path: str
    line: int
    code: str
    verdict: str
    reason: str

    @property
    def key(self) -> tuple[str, str, int, str]:
        """What identifies the finding: package, path inside the release, line, rule."""
        return (self.package, self.path, self.line, self.code)


def load_pins(path: Path = PINS) -> dict[str, str]:
    """``{package: version}`` from lines ``name==version`` (``#`` comments allowed)."""
    pins: dict[str, str] = {}
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        match = _PIN.match(line)
        if match is None:
            raise LedgerError(f"{path}:{number}: not `name==version`: {raw!r}")
        pins[match["name"]] = match["version"]
    return pins


def load_ledger(path: Path = LEDGER) -> list[Entry]:
    """The ledger's entries, each checked for its fields and their types."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    entries = []
    for index, raw in enumerate(data.get("finding", [])):
        where = f"{path.name}: finding {index + 1}"
        if set(raw) != set(FIELDS):
            raise LedgerError(f"{where}: fields {sorted(raw)}, expected {sorted(FIELDS)}")
        if not isinstance(raw["line"], int) or raw["line"] < 1:
            raise LedgerError(f"{where}: line must be a positive integer")
        for field in FIELDS:
            if field != "line" and not (isinstance(raw[field], str) and raw[field].strip()):
                raise LedgerError(f"{where}: {field} must be a non-empty string")
        if raw["verdict"] not in VERDICTS:
            raise LedgerError(f"{where}: verdict {raw['verdict']!r} is not one of {VERDICTS}")
        entries.append(Entry(**{field: raw[field] for field in FIELDS}))
    return entries


def _archive(cache: Path, package: str, version: str, pip: str) -> Path:
    """The downloaded archive of ``package==version`` in ``cache``, downloading it if absent.

    ``pip`` is the Python whose pip downloads: an sdist's metadata is built with that
    environment's setuptools, wheel and Cython (``--no-build-isolation``: nothing else is
    fetched).
    """
    folder = cache / "dist" / f"{package}-{version}"
    found = sorted(folder.glob("*")) if folder.is_dir() else []
    if not found:
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                *(pip, "-m", "pip", "download", "--no-deps", "--no-build-isolation"),
                *("--disable-pip-version-check", "-q", "-d", str(folder), f"{package}=={version}"),
            ],
            check=True,
        )
        found = sorted(folder.glob("*"))
    if len(found) != 1:
        raise LedgerError(f"{folder}: expected one archive, found {[p.name for p in found]}")
    return found[0]


def _unpack(archive: Path, into: Path) -> Path:
    """The release's files under ``into`` (unpacked once), its top folder stripped for sdists."""
    done = into / ".unpacked"
    if not done.is_file():
        into.mkdir(parents=True, exist_ok=True)
        if archive.suffix == ".whl" or archive.suffix == ".zip":
            with zipfile.ZipFile(archive) as opened:
                opened.extractall(into)
        else:
            with tarfile.open(archive) as opened:
                opened.extractall(into, filter="data")
        done.write_text(archive.name, encoding="utf-8")
    tops = [child for child in into.iterdir() if child.name != ".unpacked"]
    if archive.suffix != ".whl" and len(tops) == 1 and tops[0].is_dir():
        return tops[0]
    return into


def _sources(root: Path) -> Iterator[Path]:
    for path in sorted(root.rglob("*.py")):
        if path.is_file():
            yield path


def _check(job: tuple[str, str, str]) -> tuple[str, list[tuple[int, str]], str | None]:
    relative, absolute, root = job
    try:
        source = Path(absolute).read_text(encoding="utf-8")
        project = _PROJECTS.setdefault(root, Project(Path(root)))
        found = check_source(source, absolute, project)
        return relative, [(f.line, f.code) for f in found], None
    except Exception as error:  # a file the checker cannot read is counted, not fatal
        return relative, [], f"{type(error).__name__}: {str(error)[:120]}"


_PROJECTS: dict[str, Project] = {}
"""Each release's tree, so its helpers are read once per worker process."""


@dataclass
class _Tally:
    files: int = 0
    findings: int = 0
    true: int = 0
    false: int = 0
    unclear: int = 0
    new: int = 0

    def row(self, name: str) -> str:
        rate = 1000 * self.false / self.files if self.files else 0.0
        return (
            f"{name:<24}{self.files:>7}{self.findings:>9}{self.true:>6}{self.false:>7}"
            f"{self.unclear:>9}{self.new:>5}{rate:>12.2f}"
        )


def main(argv: Sequence[str] | None = None) -> int:
    """Download, check, compare; 0 when the findings match the ledger, 1 otherwise."""
    parser = argparse.ArgumentParser(prog="python -m attention.review.realcode")
    parser.add_argument("--cache", type=Path, default=ROOT / "build" / "realcode")
    parser.add_argument("--pins", type=Path, default=PINS)
    parser.add_argument("--ledger", type=Path, default=LEDGER)
    parser.add_argument("--pip", default=sys.executable, help="the Python whose pip downloads")
    parser.add_argument("--jobs", type=int, default=None, help="processes (default: all cores)")
    parser.add_argument("--only", help="only these packages (comma-separated)")
    parser.add_argument(
        "--list", action="store_true", help="print every finding the ledger lacks as a draft"
    )
    args = parser.parse_args(argv)
    pins = load_pins(args.pins)
    ledger = {entry.key: entry for entry in load_ledger(args.ledger)}
    chosen = args.only.split(",") if args.only else list(pins)
    jobs: list[tuple[str, str, str]] = []
    files: Counter[str] = Counter()
    for package in chosen:
        version = pins[package]
        root = _unpack(
            _archive(args.cache, package, version, args.pip),
            args.cache / "src" / f"{package}-{version}",
        )
        for source in _sources(root):
            relative = f"{package}:{source.relative_to(root).as_posix()}"
            jobs.append((relative, str(source), str(root)))
            files[package] += 1
    found: set[tuple[str, str, int, str]] = set()
    errors = []
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for relative, hits, error in pool.map(_check, jobs, chunksize=16):
            package, inside = relative.split(":", 1)
            if error is not None:
                errors.append(f"{relative}: {error}")
            for line, code in hits:
                found.add((package, inside, line, code))
    tallies = {package: _Tally(files=files[package]) for package in chosen}
    missing = []
    for key in sorted(found):
        tally = tallies[key[0]]
        tally.findings += 1
        entry = ledger.get(key)
        if entry is None:
            tally.new += 1
            missing.append(key)
        else:
            setattr(tally, entry.verdict, getattr(tally, entry.verdict) + 1)
    lost = [e for e in ledger.values() if e.package in chosen and e.key not in found]
    print(
        f"{'package':<24}{'files':>7}{'findings':>9}{'true':>6}{'false':>7}{'unclear':>9}"
        f"{'new':>5}{'false/1000':>12}"
    )
    total = _Tally()
    for package in chosen:
        tally = tallies[package]
        print(tally.row(f"{package} {pins[package]}"))
        for field in ("files", "findings", "true", "false", "unclear", "new"):
            setattr(total, field, getattr(total, field) + getattr(tally, field))
    print(total.row("total"))
    print(f"files the checker could not read: {len(errors)}")
    for error in errors:
        print(f"  {error}")
    for package, inside, line, code in missing:
        if args.list:
            print(
                f'[[finding]]\npackage = "{package}"\nversion = "{pins[package]}"\n'
                f'path = "{inside}"\nline = {line}\ncode = "{code}"\nverdict = ""\nreason = ""\n'
            )
        else:
            print(f"not in the ledger: {package} {inside}:{line} {code}")
    failed = bool(missing) or bool(errors)
    for entry in sorted(lost, key=lambda e: e.key):
        if entry.verdict == "true":
            print(f"a true finding is no longer found: {entry.package} {entry.path}:{entry.line}")
            failed = True
        else:
            print(
                f"stale ({entry.verdict}), no longer found: {entry.package} {entry.path}:"
                f"{entry.line} {entry.code}"
            )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
