r"""The golden record: every field of every finding, so a restructuring can prove it changed none.

``python -m attention.review.golden`` runs the checker and the watch on fixed inputs and compares
what they report with ``tests/review/golden/<set>.jsonl``, field by field; ``--write`` rewrites
the record.  ``nox -s golden`` runs it.  The sets:

* ``corpus``: the checker's corpus (``tests/review/corpus``);
* ``bugs``: the bug corpus, both parts (``tests/review/bugs``);
* ``rules``: every rule's wrong and right example (:data:`~attention.review.rules.RULES`);
* ``cli``: the command line's ``json`` (English and Chinese) and ``sarif`` output on the corpus,
  and on a notebook and a file it cannot decode, built here, one line per finding;
* ``realcode``: every ``*.py`` of the 25 releases of ``conf/realcode-pins.txt``, each checked as
  ``nox -s realcode`` checks it (the release is the tree), as unpacked in ``build/realcode``;
* ``transformers-models``: transformers' ``models/`` folder as its own tree, as the benchmark
  times it;
* ``watch-demos``: the watch on its rules' demonstrations (``docs/_ext/review_watch_demos.py``)
  and on the static rules' demonstrations (:data:`~attention.review.demos.DEMOS`);
* ``watch-cases``: the watch on its recall cases (``tests/review/watch_cases``), wrong and right.

A line is one JSON object: a header (what was checked, how many files) or one finding with every
field the checker gives it (position, span, code, subject, inferred, expects, fix) and its
headline.  Paths are relative (to the repository, a release's root or the command line's folder)
and nothing depends on the machine, the time or the order of processes, so the record is the same
byte for byte on every run.

>>> first_difference(['{"path": "a.py", "line": 3, "code": "AM101", "subject": "m"}'],
...                  ['{"path": "a.py", "line": 3, "code": "AM101", "subject": "mask"}'])
"line 1: a.py:3 AM101: subject: 'm' -> 'mask'"
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import doctest
import importlib.util
import io
import json
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from attention.review.check import Finding, check_source
from attention.review.project import Project
from attention.review.rules import RULES, by_code

__all__ = [
    "FAST_SETS",
    "GOLDEN",
    "SETS",
    "Options",
    "first_difference",
    "lines",
    "main",
    "record",
]

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = ROOT / "tests" / "review" / "golden"
REALCODE = ROOT / "build" / "realcode"
CORPUS = ROOT / "tests" / "review" / "corpus"
BUGS = ROOT / "tests" / "review" / "bugs"
WATCH_CASES = ROOT / "tests" / "review" / "watch_cases"
WATCH_DEMOS = ROOT / "docs" / "_ext" / "review_watch_demos.py"

Record = dict[str, Any]


@dataclass(frozen=True)
class Options:
    """How a set is made.

    ``jobs``: processes for released code; ``pip``: the Python whose pip downloads a release
    missing from ``build/realcode``.
    """

    jobs: int = 1
    pip: str = sys.executable


# -- one finding, one line ------------------------------------------------------------------------


def finding_record(finding: Finding, path: str | None = None) -> Record:
    """Every field of a checker's finding (``path`` replaced when given), and its headline."""
    return {
        "path": finding.path if path is None else path,
        "line": finding.line,
        "column": finding.column,
        "end_line": finding.end_line,
        "end_column": finding.end_column,
        "span": list(finding.span) if finding.span is not None else None,
        "cell": finding.cell,
        "file_line": finding.file_line,
        "code": finding.code,
        "subject": finding.subject,
        "message": by_code(finding.code).message.format(subject=finding.subject),
        "inferred": list(finding.inferred),
        "expects": finding.expects,
        "fix_code": finding.fix_code,
        "rows": list(finding.rows or by_code(finding.code).rows),
    }


def _sources(root: Path) -> list[Path]:
    return [path for path in sorted(root.rglob("*.py")) if path.is_file()]


def _checked(paths: Sequence[Path], base: Path) -> Iterator[Record]:
    """Each file checked alone (no tree), its findings named by the path relative to ``base``."""
    for path in paths:
        name = path.relative_to(base).as_posix()
        for finding in check_source(path.read_text(encoding="utf-8"), name):
            yield finding_record(finding)


def corpus(_: Options) -> Iterator[Record]:
    """The checker's corpus, each file alone."""
    files = _sources(CORPUS)
    yield {"set": "corpus", "files": len(files)}
    yield from _checked(files, ROOT)


def bugs(_: Options) -> Iterator[Record]:
    """The bug corpus (development and held out), each file alone."""
    files = _sources(BUGS)
    yield {"set": "bugs", "files": len(files)}
    yield from _checked(files, ROOT)


def rules(_: Options) -> Iterator[Record]:
    """Every rule's wrong and right example, named ``AM101/wrong.py``."""
    yield {"set": "rules", "rules": len(RULES)}
    for rule in RULES:
        for which, source in (("wrong", rule.wrong), ("right", rule.right)):
            yield from map(finding_record, check_source(source, f"{rule.code}/{which}.py"))


# -- the command line -----------------------------------------------------------------------------

_NOTEBOOK_CELLS = (
    ("markdown", "# Three rules' wrong examples, as cells\n"),
    ("code", "%matplotlib inline\n" + by_code("AM101").wrong),
    ("markdown", "The next cell uses the first cell's import.\n"),
    ("code", by_code("AM202").wrong),
    ("code", by_code("AM102").wrong),
)


def _notebook() -> str:
    cells: list[dict[str, Any]] = [
        {"cell_type": kind, "metadata": {}, "source": text.splitlines(keepends=True)}
        | ({"outputs": [], "execution_count": None} if kind == "code" else {})
        for kind, text in _NOTEBOOK_CELLS
    ]
    document = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}
    return json.dumps(document, indent=1) + "\n"


def _run_cli(arguments: Sequence[str], folder: Path) -> str:
    """What ``python -m attention.review ARGUMENTS`` writes, run in ``folder``."""
    from attention.review.__main__ import main as cli

    out = io.StringIO()
    quiet = io.StringIO()
    with (
        contextlib.chdir(folder),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(quiet),
    ):
        cli(["--jobs", "1", "--exit-zero", *arguments])
    return out.getvalue()


def _cli_records(run: str, output: str, folder: Path) -> Iterator[Record]:
    """One line per finding of a json or sarif document, one for the rest of it."""
    document = json.loads(output)
    if "findings" in document:  # json
        found = document.pop("findings")
        document["tool_version"] = "<version>"
    else:  # sarif
        (log,) = document["runs"]
        found = log.pop("results")
        log["tool"]["driver"]["version"] = "<version>"
        base = log["originalUriBaseIds"]["%SRCROOT%"]
        if base["uri"] != folder.resolve().as_uri().rstrip("/") + "/":
            raise AssertionError(f"the SARIF base {base['uri']} is not the folder it ran in")
        base["uri"] = "file:///<folder>/"
    yield {"run": run, "document": document}
    for finding in found:
        yield {"run": run, **finding}


def cli(_: Options) -> Iterator[Record]:
    """The command line's json and sarif output, on the corpus and on a notebook.

    Every run reads an empty configuration (``--config``), so a table added to the project's
    ``pyproject.toml`` does not change what is recorded.
    """
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        config = folder / "attention-review.toml"
        config.write_text("", encoding="utf-8")
        corpus = ["--config", str(config), "tests/review/corpus"]
        runs = (
            ("json en corpus", ["--format", "json", "--language", "en", *corpus]),
            ("json zh_CN corpus", ["--format", "json", "--language", "zh_CN", *corpus]),
            ("sarif en corpus", ["--format", "sarif", "--language", "en", *corpus]),
        )
        for run, arguments in runs:
            yield from _cli_records(run, _run_cli(arguments, ROOT), ROOT)
        (folder / "cells.ipynb").write_text(_notebook(), encoding="utf-8")
        (folder / "latin1.py").write_bytes(b"import torch\n\nname = 'caf\xe9'\n")
        inputs = ["--config", config.name, "cells.ipynb", "latin1.py"]
        for form in ("json", "sarif"):
            output = _run_cli(["--format", form, "--language", "en", *inputs], folder)
            yield from _cli_records(f"{form} en notebook", output, folder)


# -- released code --------------------------------------------------------------------------------


def _check_in_tree(job: tuple[str, str, str]) -> list[Record]:
    """One file of a tree, checked as ``nox -s realcode`` checks it; ``name`` names it."""
    name, absolute, root = job
    try:
        source = Path(absolute).read_text(encoding="utf-8")
        project = _PROJECTS.setdefault(root, Project(Path(root)))
        found = check_source(source, absolute, project)
    except Exception as error:  # counted, as realcode counts it
        return [{"path": name, "error": f"{type(error).__name__}: {str(error)[:120]}"}]
    return [finding_record(finding, name) for finding in found]


_PROJECTS: dict[str, Project] = {}


def _trees(jobs: int, trees: Sequence[tuple[Record, str, Path]]) -> Iterator[Record]:
    """Each tree's header, then its files' findings, in order (``jobs`` processes)."""
    work = [
        (f"{prefix}{path.relative_to(root).as_posix()}", str(path), str(root))
        for _, prefix, root in trees
        for path in _sources(root)
    ]
    if jobs == 1:
        results = list(map(_check_in_tree, work))
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            results = list(pool.map(_check_in_tree, work, chunksize=16))
    done = {name: records for (name, _, _), records in zip(work, results, strict=True)}
    for header, prefix, root in trees:
        names = [f"{prefix}{path.relative_to(root).as_posix()}" for path in _sources(root)]
        found = [item for name in names for item in done[name]]
        errors = sum(1 for item in found if "error" in item)
        yield {**header, "files": len(names), "findings": len(found) - errors, "errors": errors}
        yield from found


def _release(package: str, version: str, pip: str) -> Path:
    """A release's root as ``nox -s realcode`` unpacks it, downloaded first if it is not there."""
    from attention.review.realcode import _archive, _unpack

    archive = _archive(REALCODE, package, version, pip)
    return _unpack(archive, REALCODE / "src" / f"{package}-{version}")


def realcode(options: Options) -> Iterator[Record]:
    """The pinned releases, each its own tree; paths are ``package/path-in-the-release``."""
    from attention.review.realcode import load_pins

    trees = [
        (
            {"package": package, "version": version},
            f"{package}/",
            _release(package, version, options.pip),
        )
        for package, version in load_pins().items()
    ]
    yield from _trees(options.jobs, trees)


def transformers_models(options: Options) -> Iterator[Record]:
    """The ``models/`` folder of transformers as one tree (as the benchmark checks it)."""
    from attention.review.realcode import load_pins

    version = load_pins()["transformers"]
    models = _release("transformers", version, options.pip) / "transformers" / "models"
    header = {"tree": "transformers/models", "version": version}
    yield from _trees(options.jobs, [(header, "", models)])


# -- the watch ------------------------------------------------------------------------------------


def _watch_record(finding: Any, places: dict[str, str]) -> Record:
    location: str | None = finding.location
    if location is not None:
        path, _, line = location.rpartition(":")
        location = f"{places.get(path, path)}:{line}"
    return {
        "code": finding.code,
        "api": finding.api,
        "seen": finding.seen,
        "rows": list(finding.rows),
        "urls": list(finding.urls),
        "returns": finding.returns,
        "location": location,
        "text": str(finding),
    }


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run_doctest(text: str, filename: str, namespace: dict[str, Any]) -> list[str]:
    """Run a doctest text's examples as ``filename`` (their output is not compared).

    Returns the exceptions the examples raised (their type: a demonstration may show one), and
    runs the examples after them all the same, as doctest does.
    """
    raised = []
    with contextlib.redirect_stdout(io.StringIO()):
        for example in doctest.DocTestParser().get_examples(text):
            code = compile(example.source, filename, "single")
            try:
                exec(code, namespace)
            except Exception as error:
                raised.append(f"line {example.lineno + 1}: {type(error).__name__}")
    return raised


def watch_demos(_: Options) -> Iterator[Record]:
    """The watch on its rules' demonstrations and on the static rules' demonstrations."""
    import torch

    from attention.review.demos import DEMOS
    from attention.review.watch import Watch, watch

    demos: dict[str, str] = _load(WATCH_DEMOS, "golden_watch_demos").WATCH_DEMOS
    yield {"set": "watch-demos", "watch": len(demos), "static": len(DEMOS)}
    for code, text in sorted(demos.items()):
        name = f"<watch demo {code}>"
        namespace: dict[str, Any] = {}
        torch.manual_seed(0)
        raised = _run_doctest(text, name, namespace)
        yield {"demo": name, "raised": raised}
        for value in namespace.values():
            if isinstance(value, Watch):
                yield from (_watch_record(finding, {}) for finding in value.findings)
    for code, pair in sorted(DEMOS.items()):
        for which, text in zip(("wrong", "right"), pair, strict=True):
            name = f"<demo {code} {which}>"
            torch.manual_seed(0)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with watch(warn=False) as seen:
                    raised = _run_doctest(text, name, {})
            yield {"demo": name, "raised": raised, "errors": seen.errors}
            yield from (_watch_record(finding, {}) for finding in seen.findings)


def watch_cases(_: Options) -> Iterator[Record]:
    """The watch on each recall case's ``wrong()`` and ``right()``, each seeded with 0."""
    import torch

    from attention.review.watch import watch

    for split in ("development", "heldout"):
        for path in sorted((WATCH_CASES / split).glob("c*.py")):
            name = path.relative_to(ROOT).as_posix()
            module = _load(path, f"golden_watch_case_{path.stem}")
            for which in ("wrong", "right"):
                torch.manual_seed(0)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    with watch(warn=False) as seen:
                        getattr(module, which)()
                yield {"case": name, "call": which, "errors": seen.errors}
                places = {str(path): name}
                yield from (_watch_record(finding, places) for finding in seen.findings)


# -- the record -----------------------------------------------------------------------------------

SETS: dict[str, Callable[[Options], Iterator[Record]]] = {
    "corpus": corpus,
    "bugs": bugs,
    "rules": rules,
    "cli": cli,
    "realcode": realcode,
    "transformers-models": transformers_models,
    "watch-demos": watch_demos,
    "watch-cases": watch_cases,
}
"""Each set of the record, by the name of its file (``<name>.jsonl``)."""

FAST_SETS = ("corpus", "bugs", "rules", "cli")
"""The sets the default test run holds byte for byte (a few seconds, no download, no torch)."""

_PRIVATE = (str(ROOT), tempfile.gettempdir())


def lines(name: str, options: Options | None = None) -> list[str]:
    """One set's record, one JSON text per line.

    Raises ValueError when a line names a folder of this machine: the record must not.
    """
    out = []
    for item in SETS[name](options or Options()):
        text = json.dumps(item, ensure_ascii=False)
        leaked = [folder for folder in _PRIVATE if folder in text]
        if leaked:
            raise ValueError(f"{name}: a line names {leaked[0]}: {text[:300]}")
        out.append(text)
    return out


def record(name: str, options: Options | None = None) -> str:
    """One set's record as the committed file holds it."""
    return "".join(line + "\n" for line in lines(name, options))


def _where(item: Record) -> str:
    if "code" in item and "line" in item:
        return f"{item.get('path')}:{item['line']} {item['code']}"
    if "code" in item:  # a watch finding
        return f"{item['code']} at {item.get('location')}"
    return ", ".join(f"{key} {value}" for key, value in item.items() if isinstance(value, str))


def _fields(old: str, new: str) -> str:
    before, after = json.loads(old), json.loads(new)
    fields = [
        f"{key}: {before.get(key, '<absent>')!r} -> {after.get(key, '<absent>')!r}"
        for key in dict.fromkeys([*before, *after])
        if before.get(key, "<absent>") != after.get(key, "<absent>")
    ]
    return f"{_where(before)}: " + "; ".join(fields or ["the key order"])


def first_difference(expected: Sequence[str], actual: Sequence[str]) -> str | None:
    """The first line where ``actual`` differs from ``expected``, field by field; None if none.

    The two are aligned first, so a finding gained or lost is named as such, not as a change
    to every line after it.
    """
    matcher = difflib.SequenceMatcher(None, expected, actual, autojunk=False)
    for tag, old, old_end, new, new_end in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag == "insert":
            return f"line {new + 1}: gained: {actual[new]}"
        if tag == "delete":
            return f"line {old + 1}: lost: {expected[old]}"
        if old_end - old != new_end - new:
            more = "gained" if new_end - new > old_end - old else "lost"
            count = abs((new_end - new) - (old_end - old))
            return (
                f"line {old + 1}: {_fields(expected[old], actual[new])} "
                f"({count} line{'s' if count > 1 else ''} {more} around it)"
            )
        return f"line {old + 1}: {_fields(expected[old], actual[new])}"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Compare (or with ``--write`` rewrite) the record; 0 when every set matches."""
    parser = argparse.ArgumentParser(prog="python -m attention.review.golden")
    parser.add_argument("--write", action="store_true", help="rewrite the committed record")
    parser.add_argument("--only", help="only these sets (comma-separated): " + ", ".join(SETS))
    parser.add_argument("--jobs", type=int, default=1, help="processes for the released code")
    parser.add_argument(
        "--pip", default=sys.executable, help="the Python whose pip downloads a missing release"
    )
    parser.add_argument("--golden", type=Path, default=GOLDEN, help="the record's folder")
    args = parser.parse_args(argv)
    chosen = args.only.split(",") if args.only else list(SETS)
    unknown = sorted(set(chosen) - set(SETS))
    if unknown:
        parser.error(f"unknown sets {unknown}; known: {', '.join(SETS)}")
    failed = False
    for name in chosen:
        start = time.perf_counter()
        actual = lines(name, Options(args.jobs, args.pip))
        seconds = time.perf_counter() - start
        file = args.golden / f"{name}.jsonl"
        if args.write:
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_text("".join(line + "\n" for line in actual), encoding="utf-8")
            print(f"{name:<20} {len(actual):>6} lines written  {seconds:6.1f} s")
            continue
        expected = file.read_text(encoding="utf-8").splitlines() if file.is_file() else []
        difference = first_difference(expected, actual)
        status = "same" if difference is None else f"DIFFERS at {difference}"
        print(f"{name:<20} {len(actual):>6} lines  {seconds:6.1f} s  {status}")
        failed = failed or difference is not None
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
