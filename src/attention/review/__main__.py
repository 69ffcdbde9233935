"""``python -m attention.review PATH...``: check Python sources and notebooks for mask mistakes.

Exit status: 0 no finding, 1 findings, 2 something that could not be checked (a path, a file's
bytes or syntax, a configuration: each named on standard error in one line, after every other
file was checked) or a usage error.  Never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import os
import re
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

from attention.review.check import Finding, check_source
from attention.review.config import Config, ConfigError, Configs, codes
from attention.review.fix import diff, fixed_source
from attention.review.i18n import LANGUAGES, language_of
from attention.review.inputs import (
    STDIN,
    NotCheckedError,
    Problem,
    decode,
    files,
    read,
    shown,
)
from attention.review.notebook import Notebook, NotebookError, read_notebook
from attention.review.project import Project
from attention.review.report import FORMATS, MACHINE_FORMATS, Site, render
from attention.review.syntax import NestingError

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"attention.review: {message}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m attention.review",
        description="Check Python sources and Jupyter notebooks for attention-mask mistakes; each "
        "finding cites the mask-semantics row it rests on. Exit status: 0 no finding, 1 "
        "findings, 2 something could not be checked (named on standard error).",
    )
    parser.add_argument(
        "paths",
        nargs="*",
        help="files, folders (every *.py, *.pyi and *.ipynb below) or - for stdin",
    )
    parser.add_argument("--format", choices=FORMATS, default="text")
    parser.add_argument("--select", help="only these codes or prefixes (AM1,AM202)")
    parser.add_argument("--ignore", help="not these codes or prefixes")
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="this configuration for every file (an attention-review.toml or a pyproject.toml), "
        "instead of the nearest one above each file",
    )
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 even with findings")
    parser.add_argument("--fix", action="store_true", help="apply the safe rewrites in place")
    parser.add_argument(
        "--diff", action="store_true", help="print the safe rewrites as a diff (text format only)"
    )
    parser.add_argument(
        "--base-url",
        help="the site's address: a build of it (file:///…/docs/_build/html/, "
        "http://127.0.0.1:8000/), or with --site-version a copy laid out as Read the Docs lays "
        "it out (default: the project's)",
    )
    parser.add_argument(
        "--site-version", help="the site version the links cite (0.1.0, latest, stable)"
    )
    parser.add_argument(
        "--language",
        choices=LANGUAGES,
        default=None,
        help="the language of the messages, fixes and links (default: from LANGUAGE, LC_ALL, "
        "LC_MESSAGES or LANG: zh_CN where it starts with zh, else en)",
    )
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


@dataclass(frozen=True)
class _Outcome:
    """One file's findings (in its module's lines), or the problem that stopped it."""

    findings: tuple[Finding, ...] = ()
    problem: Problem | None = None
    source: str = ""
    """The module's text, where a finding needs its lines (and for --fix / --diff)."""
    encoding: str = "utf-8"
    notebook: Notebook | None = None


_PROJECT: list[Project] = []
"""The checked tree, set before files are checked (in each worker process too)."""


def _use_project(root: str | None) -> None:
    _PROJECT[:] = [Project(Path(root))] if root is not None else []


def _check_file(name: str) -> _Outcome:
    """One file's findings, or the problem that says why it was not checked: never raises."""
    where = shown(name)
    notebook: Notebook | None = None
    try:
        data = read(name)
        project = _PROJECT[0] if _PROJECT and name != STDIN else None
        if name.endswith(".ipynb"):
            try:
                text = data.decode("utf-8-sig")
            except UnicodeDecodeError as error:
                raise NotebookError(f"not UTF-8 ({error.reason} at byte {error.start})") from None
            notebook = read_notebook(text)
            if notebook is None:  # a notebook of another language
                return _Outcome()
            found = check_source(notebook.module, where, project, notebook.line_name)
            return _Outcome(tuple(found), None, notebook.module, "utf-8", notebook)
        decoded = decode(data, name)
        found = check_source(decoded.text, where, project)
        return _Outcome(tuple(found), None, decoded.text, decoded.encoding)
    except NotCheckedError as error:
        return _Outcome(problem=error.problem)
    except SyntaxError as error:
        line, cell = error.lineno, None
        if notebook is not None and line is not None:
            cell, line = notebook.place(line)
        message = f"syntax error, not checked: {error.msg}"
        return _Outcome(problem=Problem(where, message, line or 1, error.offset or 1, cell))
    except NestingError as error:
        return _Outcome(problem=Problem(where, f"{error}, not checked"))
    except NotebookError as error:
        return _Outcome(problem=Problem(where, f"not a Jupyter notebook, not checked: {error}"))
    except Exception as error:  # a bug of the checker: this file is named, the others go on
        message = f"internal error, not checked: {type(error).__name__}: {error}"
        return _Outcome(problem=Problem(where, message))


def _check_in_worker(name: str) -> _Outcome:
    """As :func:`_check_file`; the source travels back only where a finding needs its lines."""
    outcome = _check_file(name)
    if outcome.findings or outcome.problem is not None:
        return outcome
    return _Outcome(notebook=outcome.notebook)


def _outcomes(
    names: list[str], jobs: int, root: str | None, *, in_process: bool
) -> Iterator[_Outcome]:
    """Each file's outcome, in order: in worker processes when there are enough files."""
    _use_project(root)
    if in_process or jobs == 1 or len(names) < 2 * jobs or STDIN in names:
        yield from map(_check_file, names)
        return
    done = 0
    try:
        with ProcessPoolExecutor(
            max_workers=jobs, initializer=_use_project, initargs=(root,)
        ) as pool:
            chunks = max(1, len(names) // (jobs * 8))
            for outcome in pool.map(_check_in_worker, names, chunksize=chunks):
                done += 1
                yield outcome
    except BrokenProcessPool:
        # a worker died (killed, out of memory): the files it held are named, not lost
        for name in names[done:]:
            problem = Problem(shown(name), "a worker process died, not checked")
            yield _Outcome(problem=problem)


def _root(paths: Sequence[str]) -> str | None:
    """The folder whose modules a checked file may import helpers from.

    The paths' common folder: a folder given is its own, a file's is the one it is in.
    """
    folders = [
        os.path.realpath(raw) if os.path.isdir(raw) else os.path.dirname(os.path.realpath(raw))
        for raw in paths
        if raw != STDIN
    ]
    try:
        return os.path.commonpath(folders) if folders else None
    except ValueError:  # paths on different drives
        return None


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _lines(source: str) -> list[str]:
    """The module's lines, split where CPython's tokenizer splits them (as findings count)."""
    return _LINE_BREAK.split(source)


def _in_cells(finding: Finding, notebook: Notebook) -> Finding:
    """A finding of a notebook's module, placed by cell."""
    cell, line = notebook.place(finding.line)
    end_cell, end_line = notebook.place(finding.end_line)
    return dataclasses.replace(
        finding,
        line=line,
        end_line=end_line if end_cell == cell else line,
        cell=cell,
        file_line=notebook.file_line(finding.line),
        fix_code=None,
    )


def _write(name: str, text: str, encoding: str) -> None:
    """Write a fixed file back in the encoding it was read in, its line endings as they were."""
    with open(name, "w", encoding=encoding, newline="") as file:
        file.write(text)


def _configs(args: argparse.Namespace) -> Configs:
    return Configs(
        args.config,
        select=codes("--select", args.select) if args.select else None,
        ignore=codes("--ignore", args.ignore) if args.ignore else (),
        base_url=args.base_url,
        version=args.site_version,
    )


def _usage(message: str) -> int:
    print(f"attention.review: {message}", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    """Run the checker; returns the exit status."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("attention.review: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # whoever read the output stopped reading (`| head`): nothing more can be said there
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 2


def _main(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    if args.diff and args.format in MACHINE_FORMATS:
        return _usage(
            f"--diff writes a diff, which --format {args.format} cannot hold: use --diff alone, "
            f"or --fix with --format {args.format}"
        )
    try:
        configs = _configs(args)
    except ConfigError as error:
        return _usage(str(error))
    run_config = configs.for_run(args.paths)
    problems: list[Problem] = []
    names: list[str] = []
    per_file: dict[str, Config] = {}
    broken: dict[str, list[str]] = {}
    for entry in files(args.paths):
        if isinstance(entry, Problem):
            problems.append(entry)
            continue
        try:
            per_file[entry] = configs.for_path(entry)
        except ConfigError as error:
            broken.setdefault(str(error), []).append(entry)
            continue
        names.append(entry)
    if args.fix and STDIN in names:
        return _usage("--fix rewrites files; use --diff for stdin")
    for entry in problems:
        print(entry, file=sys.stderr)
    for reason, governed in broken.items():
        count = f"{len(governed)} file{'s' if len(governed) != 1 else ''}"
        print(
            f"attention.review: {reason}; not checked: the {count} it applies to", file=sys.stderr
        )
        problems.extend(
            Problem(shown(name), f"configuration not read, not checked: {reason}")
            for name in governed
        )
    findings: list[Finding] = []
    rewrite = args.fix or args.diff
    outcomes = _outcomes(names, args.jobs, _root(args.paths), in_process=rewrite)
    for name, outcome in zip(names, outcomes, strict=True):
        if outcome.problem is not None:
            print(outcome.problem, file=sys.stderr)
            problems.append(outcome.problem)
            continue
        config = per_file[name]
        lines = _lines(outcome.source) if outcome.findings else []  # for their ignore comments
        kept = [finding for finding in outcome.findings if config.keeps(finding, lines)]
        if outcome.notebook is not None:  # a notebook is reported by cell, and never rewritten
            findings.extend(_in_cells(finding, outcome.notebook) for finding in kept)
            continue
        if rewrite and kept:
            after = fixed_source(
                outcome.source, shown(name), functools.partial(config.keeps, lines=lines)
            )
            if after != outcome.source:
                if args.diff:
                    sys.stdout.write(diff(shown(name), outcome.source, after))
                if args.fix:
                    _write(name, after, outcome.encoding)
                    kept = [finding for finding in kept if finding.fix_code is None]
        findings.extend(kept)
    if not (args.diff and not args.fix):
        site = Site(run_config.base_url, run_config.version, args.language or language_of())
        sys.stdout.write(render(findings, args.format, site, problems))
    if problems:
        return 2
    return 1 if findings and not args.exit_zero else 0


if __name__ == "__main__":
    sys.exit(main())
