"""``python -m attention.review PATH...``: check Python sources for mask mistakes.

Exit status: 0 no finding, 1 findings, 2 a usage, configuration or parse error.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from attention.review.check import Finding, check_source
from attention.review.config import Config, ConfigError, codes, find_config, load_config, suppressed
from attention.review.fix import diff, fixed_source
from attention.review.project import Project
from attention.review.report import FORMATS, Site, render

__all__ = ["main"]

SKIP_FOLDERS = {
    ".git",
    ".hg",
    ".nox",
    ".tox",
    ".venv",
    "venv",
    "__pycache__",
    "node_modules",
    "build",
    "dist",
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"attention.review: {message}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m attention.review",
        description="Check Python sources for attention-mask mistakes; each finding cites the "
        "mask-semantics row it rests on.",
    )
    parser.add_argument("paths", nargs="*", help="files, folders (every *.py below) or - for stdin")
    parser.add_argument("--format", choices=FORMATS, default="text")
    parser.add_argument("--select", help="only these codes or prefixes (AM1,AM202)")
    parser.add_argument("--ignore", help="not these codes or prefixes")
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 even with findings")
    parser.add_argument("--fix", action="store_true", help="apply the safe rewrites in place")
    parser.add_argument("--diff", action="store_true", help="print the safe rewrites as a diff")
    parser.add_argument("--base-url", help="the site's address (default: the project's)")
    parser.add_argument("--site-version", help="the site version the links cite")
    parser.add_argument(
        "--jobs",
        type=_jobs,
        default=os.cpu_count() or 1,
        help="processes that check files in parallel (default: every core; 1 for one process)",
    )
    return parser


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--jobs takes a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"--jobs takes a number of at least 1, got {value}")
    return value


_Outcome = tuple[str, list[Finding] | None, str | None]


_PROJECT: list[Project] = []
"""The checked tree, set before files are checked (in each worker process too)."""


def _use_project(root: str | None) -> None:
    _PROJECT[:] = [Project(Path(root))] if root is not None else []


def _check_file(name: str) -> _Outcome:
    """One file's findings, or the message that says why it was not checked."""
    shown = "<stdin>" if name == "-" else name
    try:
        source = _read(name)
        project = _PROJECT[0] if _PROJECT and name != "-" else None
        return source, check_source(source, shown, project), None
    except ConfigError as error:
        return "", None, f"attention.review: {error}"
    except SyntaxError as error:
        return (
            "",
            None,
            f"{shown}:{error.lineno or 1}:{error.offset or 1}: syntax error, not checked: "
            f"{error.msg}",
        )
    except RecursionError:
        return "", None, f"{shown}: nested too deeply to check"


def _check_in_worker(name: str) -> _Outcome:
    """As :func:`_check_file`; the source travels back only where a finding needs its lines."""
    source, found, error = _check_file(name)
    if found is None:
        return "", None, error
    return (source if found else ""), found, error


def _outcomes(
    files: list[str], jobs: int, root: str | None, *, in_process: bool
) -> Iterator[_Outcome]:
    """Each file's outcome, in order: in worker processes when there are enough files."""
    _use_project(root)
    if in_process or jobs == 1 or len(files) < 2 * jobs or "-" in files:
        yield from map(_check_file, files)
        return
    with ProcessPoolExecutor(max_workers=jobs, initializer=_use_project, initargs=(root,)) as pool:
        yield from pool.map(_check_in_worker, files, chunksize=max(1, len(files) // (jobs * 8)))


def _files(paths: Sequence[str]) -> Iterator[str]:
    for raw in paths:
        if raw == "-":
            yield raw
            continue
        path = Path(raw)
        if path.is_dir():
            for found in sorted(path.rglob("*.py")):
                if not SKIP_FOLDERS.intersection(found.relative_to(path).parts[:-1]):
                    yield str(found)
        elif path.is_file():
            yield raw
        else:
            raise ConfigError(f"{raw}: no such file or folder")


def _root(paths: Sequence[str]) -> str | None:
    """The folder whose modules a checked file may import helpers from.

    The paths' common folder: a folder given is its own, a file's is the one it is in.
    """
    folders = [
        str(Path(raw).resolve() if Path(raw).is_dir() else Path(raw).resolve().parent)
        for raw in paths
        if raw != "-"
    ]
    return os.path.commonpath(folders) if folders else None


def _read(name: str) -> str:
    if name == "-":
        return sys.stdin.read()
    try:
        return Path(name).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{name}: not UTF-8 text") from None
    except OSError as error:
        raise ConfigError(f"{name}: {error.strerror}") from None


def _config(args: argparse.Namespace) -> Config:
    config = load_config(find_config(args.paths))
    select = codes("--select", args.select) if args.select else config.select
    ignore = config.ignore + (codes("--ignore", args.ignore) if args.ignore else ())
    return Config(
        select=select,
        ignore=ignore,
        per_file_ignores=config.per_file_ignores,
        base_url=args.base_url or config.base_url,
        version=args.site_version or config.version,
        root=config.root,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the checker; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        config = _config(args)
        files = list(dict.fromkeys(_files(args.paths)))  # a file named twice is read once
    except ConfigError as error:
        print(f"attention.review: {error}", file=sys.stderr)
        return 2
    if args.fix and "-" in files:
        print("attention.review: --fix rewrites files; use --diff for stdin", file=sys.stderr)
        return 2
    findings: list[Finding] = []
    failed = False
    outcomes = _outcomes(files, args.jobs, _root(args.paths), in_process=args.fix or args.diff)
    for name, (source, found, problem) in zip(files, outcomes, strict=True):
        shown = "<stdin>" if name == "-" else name
        if found is None:
            print(problem, file=sys.stderr)
            failed = True
            continue
        lines = source.splitlines()

        def keep(finding: Finding, lines: list[str] = lines, shown: str = shown) -> bool:
            if not config.enabled(finding.code, shown):
                return False
            spanned = lines[finding.line - 1 : finding.end_line]
            return not any(suppressed(line, finding.code) for line in spanned)

        kept = [finding for finding in found if keep(finding)]
        if args.fix or args.diff:
            after = fixed_source(source, shown, keep)
            if after != source:
                if args.diff:
                    sys.stdout.write(diff(shown, source, after))
                if args.fix:
                    Path(name).write_text(after, encoding="utf-8")
                    kept = [f for f in kept if f.fix_code is None]
        findings.extend(kept)
    if not (args.diff and not args.fix):
        sys.stdout.write(render(findings, args.format, Site(config.base_url, config.version)))
    if failed:
        return 2
    return 1 if findings and not args.exit_zero else 0


if __name__ == "__main__":
    sys.exit(main())
