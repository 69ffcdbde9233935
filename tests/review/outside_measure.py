"""Measure the checker and the runtime watch on the outside set, once: recall per class.

    PYTHONPATH=src python tests/review/outside_measure.py [--json tests/review/outside/measured.json]

The outside set (tests/review/outside/, its README says how it was written) is never used to
tune a rule, so this is a script a person runs and reads, not a test: nothing asserts the
figures, and they are recorded where they are reported (the set's README).

* static: the checker's findings on the bug file read alone (``check_source``, as
  ``python -m attention.review FILE`` reads a file with no other module of its tree: the cases
  share one folder, and another case naming float16 must not decide this one's dtype); a
  catch is a finding on a line marked ``# bug``; counted over the bugs whose mistake the source
  shows (``Decidable: code``);
* watch: the bug file's ``run()`` under ``attention.review.watch()``; a catch is any finding;
  counted over the bugs only values show (``Decidable: values``);
* either: a catch by either, over every bug;
* flagged: correct files (each bug's fix, every look-alike) with any static finding, or any
  watch finding.
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import json
import re
import sys
import tokenize
import warnings
from collections import Counter
from pathlib import Path
from types import ModuleType

from attention.review import watch
from attention.review.check import check_source

OUTSIDE = Path(__file__).parent / "outside"
MARKER = re.compile(r"(^|\s)# bug$")


def bug_lines(source: str) -> set[int]:
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return {t.start[0] for t in tokens if t.type == tokenize.COMMENT and MARKER.search(t.string)}


def load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"outside_{path.stem}", path)
    assert spec is not None, path
    assert spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def watched(path: Path) -> list[str]:
    """The watch's finding codes while the file's ``run()`` runs (an error counts as none)."""
    with warnings.catch_warnings(record=True), watch() as seen:
        try:
            load(path).run()
        except Exception:  # a case that raises under the watch shows no finding
            return []
    return [finding.code for finding in seen.findings]


def static(path: Path) -> list[tuple[str, int]]:
    source = path.read_text(encoding="utf-8")
    return [(finding.code, finding.line) for finding in check_source(source, str(path))]


def measure() -> dict[str, object]:
    rows: dict[str, Counter[str]] = {}
    misses: list[dict[str, object]] = []
    flagged: list[dict[str, object]] = []
    for bug in sorted(OUTSIDE.glob("*_bug.py")):
        source = bug.read_text(encoding="utf-8")
        cls = bug.name.split("__")[0]
        decidable = re.search(r"Decidable:\s*(\w+)", source)
        kind = decidable.group(1) if decidable else "unknown"
        found = static(bug)
        caught_static = any(line in bug_lines(source) for _, line in found)
        codes = watched(bug)
        row = rows.setdefault(cls, Counter())
        row["bugs"] += 1
        row[kind] += 1
        row[f"{kind}_static"] += caught_static
        row[f"{kind}_watch"] += bool(codes)
        row["either"] += caught_static or bool(codes)
        if not (caught_static or codes):
            misses.append({"case": bug.stem, "decidable": kind, "static": found, "watch": codes})
    correct = [*sorted(OUTSIDE.glob("*_fix.py")), *sorted(OUTSIDE.glob("*_lookalike.py"))]
    for path in correct:
        found, codes = static(path), watched(path)
        cls = path.name.split("__")[0]
        row = rows.setdefault(cls, Counter())
        row["correct"] += 1
        row["flagged_static"] += bool(found)
        row["flagged_watch"] += bool(codes)
        if found or codes:
            flagged.append({"file": path.stem, "static": found, "watch": codes})
    return {
        "classes": {cls: dict(row) for cls, row in sorted(rows.items())},
        "misses": misses,
        "flagged": flagged,
    }


def table(result: dict[str, object]) -> str:
    classes = result["classes"]
    assert isinstance(classes, dict)
    head = (
        "| class | bugs | static, code (caught / bugs) | watch, values | either | "
        "correct files flagged (static / watch) |\n|---|---|---|---|---|---|"
    )
    lines = [head]
    total: Counter[str] = Counter()
    for cls, row in [*classes.items(), ("all", None)]:
        r = total if row is None else Counter(row)
        if row is not None:
            total.update(r)
        lines.append(
            f"| {'**all**' if row is None else f'`{cls}`'} | {r['bugs']} | "
            f"{r['code_static']} / {r['code']} | {r['values_watch']} / {r['values']} | "
            f"{r['either']} / {r['bugs']} | {r['flagged_static']} / {r['flagged_watch']} "
            f"of {r['correct']} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write the figures and every miss here")
    args = parser.parse_args(argv)
    result = measure()
    print(table(result))
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
