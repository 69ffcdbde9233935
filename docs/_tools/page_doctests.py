"""Run the doctests of every page whose inputs changed since its doctests last passed.

Used by ``nox -s docs`` before the site is built (run from the repository root)::

    python docs/_tools/page_doctests.py docs/_build/.doctest_cache.json

so the docs build fails on a page whose worked number is wrong.  The examples run under pytest
with Sybil (docs/conftest.py), exactly as ``nox -s doctest`` runs them.  Like the executed code
cells, which myst-nb keeps in a jupyter-cache, a page that passed is not run again until one of
its inputs changes: the page itself, or anything every page shares, namely the package
(src/attention), docs/conftest.py, the data under conf/ and docs/_data, the Python version and
the versions of torch, numpy, pytest and Sybil.  A page's examples run in a namespace of their
own, so one page's result does not depend on another page.  Delete the cache file (or pass
``--all``) to run every page.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from importlib import metadata
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
# The same pages docs/conftest.py collects.
SKIP_PARTS = {"_build", "_vendor", "jupyter_execute", "tests", "locales"}
SHARED = [REPO / "src" / "attention", DOCS / "conftest.py", REPO / "conf", DOCS / "_data"]
DISTRIBUTIONS = ("torch", "numpy", "pytest", "sybil")
NO_TESTS_COLLECTED = 5  # pytest's exit status for a page without any doctest


def pages() -> list[Path]:
    """Every MyST page of the site (README.md files are notes, not pages)."""
    return sorted(
        path
        for path in DOCS.rglob("*.md")
        if path.name != "README.md" and not SKIP_PARTS & set(path.relative_to(DOCS).parts)
    )


def _files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def shared_digest() -> str:
    """A digest of everything every page's doctests depend on besides the page itself."""
    digest = hashlib.sha256()
    for path in (file for root in SHARED for file in _files(root)):
        digest.update(str(path.relative_to(REPO)).encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    digest.update(sys.version.encode())
    for name in DISTRIBUTIONS:
        digest.update(f"{name}=={metadata.version(name)}".encode())
    return digest.hexdigest()


def page_key(page: Path, shared: str) -> str:
    return hashlib.sha256(shared.encode() + page.read_bytes()).hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cache", type=Path, help="JSON file: page -> key of its last pass")
    parser.add_argument("--all", action="store_true", help="run every page, cached or not")
    args = parser.parse_args(argv)

    shared = shared_digest()
    keys = {str(page.relative_to(REPO)): page_key(page, shared) for page in pages()}
    passed: dict[str, str] = {}
    if args.cache.is_file() and not args.all:
        passed = json.loads(args.cache.read_text(encoding="utf-8"))
    stale = [page for page, key in keys.items() if passed.get(page) != key]
    if not stale:
        print(f"page doctests: all {len(keys)} pages unchanged since their doctests passed")
        return 0
    print(f"page doctests: {len(stale)} of {len(keys)} pages changed, running their doctests")
    status = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *stale],
        cwd=REPO,
        check=False,
    ).returncode
    if status not in (0, NO_TESTS_COLLECTED):
        return status
    # Only pages that still exist are kept, each with the key it passed with.
    args.cache.parent.mkdir(parents=True, exist_ok=True)
    args.cache.write_text(json.dumps(keys, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
