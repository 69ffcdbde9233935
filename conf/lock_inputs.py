"""The digest of what conf/constraints.txt is resolved from, written into it by ``nox -s lock``.

    python conf/lock_inputs.py            print the digest of today's inputs

The inputs are conf/constraints.in and the parts of pyproject.toml a resolution reads: the
dependencies, every extra, ``requires-python`` and the supported Pythons (the classifiers).  A
lock whose ``# inputs:`` line differs from the digest is older than its inputs
(tests/test_lock.py fails on it), whatever else the edit changed.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INPUT = ROOT / "conf" / "constraints.in"
LOCK = ROOT / "conf" / "constraints.txt"
PREFIX = "# inputs: sha256 "


def digest(root: Path = ROOT) -> str:
    """sha256 of conf/constraints.in and pyproject.toml's resolution inputs, in hex."""
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    read = {
        "dependencies": project.get("dependencies", []),
        "optional-dependencies": project.get("optional-dependencies", {}),
        "requires-python": project.get("requires-python", ""),
        "pythons": [c for c in project["classifiers"] if c.startswith("Programming Language")],
    }
    text = (root / "conf" / "constraints.in").read_bytes()
    return hashlib.sha256(text + json.dumps(read, sort_keys=True).encode()).hexdigest()


def recorded(lock: Path = LOCK) -> str | None:
    """The digest the lock was written from, or None if it records none."""
    for line in lock.read_text(encoding="utf-8").splitlines():
        if line.startswith(PREFIX):
            return line.removeprefix(PREFIX).strip()
    return None


def stamp(lock: Path = LOCK, root: Path = ROOT) -> None:
    """Write today's digest into ``lock``, after the resolver's own header."""
    lines = [
        line
        for line in lock.read_text(encoding="utf-8").splitlines()
        if not line.startswith(PREFIX)
    ]
    at = next((i for i, line in enumerate(lines) if not line.startswith("#")), len(lines))
    lines.insert(at, PREFIX + digest(root))
    lock.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:] == ["stamp"]:
        stamp()
    else:
        print(digest())
