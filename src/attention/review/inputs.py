r"""What the checker is given: paths to files, and each file's bytes to text.

* A file named on the command line is read whatever its name (a script without ``.py``
  too, as pre-commit passes it); a ``.ipynb`` file is read as a notebook.
* A folder is walked for ``*.py``, ``*.pyi`` and ``*.ipynb`` files, leaving out the folders
  of :data:`SKIP_FOLDERS` and links to folders (so a link cannot lead the walk in a circle); a
  folder whose name ends in ``.py`` is walked like any other.
* A file named twice (``a.py ./a.py``, or through a link) is read once, under its first name.
* Bytes become text as CPython reads a module (:func:`decode`): a byte-order mark or a coding
  line (PEP 263) names the encoding, else it is UTF-8; line endings are kept as they are.

Whatever cannot be read becomes a :class:`Problem`: one line that names the path and what is
wrong, so the run goes on with the other paths.

>>> decode(b"# -*- coding: latin-1 -*-\nname = 'caf\xe9'\n", "m.py").text.splitlines()[1]
"name = 'café'"
>>> try:
...     decode(b"name = 'caf\xe9'\n", "m.py")
... except NotCheckedError as error:
...     print(error.problem.message)
not UTF-8, not checked: byte 0xe9 on line 1, and no coding line (PEP 263) names another encoding
"""

from __future__ import annotations

import errno
import io
import os
import stat
import sys
import tokenize
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "SKIP_FOLDERS",
    "STDIN",
    "SUFFIXES",
    "NotCheckedError",
    "Problem",
    "Text",
    "decode",
    "files",
    "read",
    "shown",
]

STDIN = "-"
"""The path that names standard input."""

SUFFIXES = (".py", ".pyi", ".ipynb")
"""The files a folder is searched for."""

SKIP_FOLDERS = frozenset(
    {
        ".bzr",
        ".direnv",
        ".eggs",
        ".git",
        ".git-rewrite",
        ".hg",
        ".ipynb_checkpoints",
        ".mypy_cache",
        ".nox",
        ".pants.d",
        ".pyenv",
        ".pytest_cache",
        ".pytype",
        ".ruff_cache",
        ".svn",
        ".tox",
        ".venv",
        ".vscode",
        "__pycache__",
        "__pypackages__",
        "_build",
        "buck-out",
        "build",
        "dist",
        "node_modules",
        "site-packages",
        "venv",
    }
)
"""Folders a walk leaves out: environments, caches, build output, notebook checkpoints (the
folders ruff leaves out by default, and ``__pycache__``)."""


@dataclass(frozen=True)
class Problem:
    """A path that could not be checked: where (as precisely as known) and why, in one line."""

    path: str
    message: str
    line: int | None = None
    column: int | None = None
    cell: int | None = None

    def __str__(self) -> str:
        where = [self.path]
        if self.cell is not None:
            where.append(f"cell {self.cell}")
        if self.line is not None:
            where.append(str(self.line))
            if self.column is not None:
                where.append(str(self.column))
        return f"{':'.join(where)}: {self.message}"


class NotCheckedError(Exception):
    """Raised with the :class:`Problem` that stops a file from being checked."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(str(problem))
        self.problem = problem


@dataclass(frozen=True)
class Text:
    """A file's text and the codec that writes it back byte for byte.

    ``utf-8-sig`` keeps a byte-order mark.
    """

    text: str
    encoding: str = "utf-8"


def shown(name: str) -> str:
    """How a path is named in the output (``<stdin>`` for standard input)."""
    return "<stdin>" if name == STDIN else name


def files(paths: Sequence[str]) -> Iterator[str | Problem]:
    """Every file the paths name, in order and once each, and a Problem for each bad path."""
    seen: set[str] = set()
    for raw in paths:
        for found in _expand(raw):
            if isinstance(found, Problem):
                key = "!" + os.path.abspath(found.path)
            else:
                key = found if found == STDIN else os.path.realpath(found)
            if key not in seen:
                seen.add(key)
                yield found


def _expand(raw: str) -> Iterator[str | Problem]:
    if raw == STDIN:
        yield raw
        return
    name = str(Path(raw))
    try:
        mode = os.stat(name).st_mode
    except OSError as error:
        yield _unreadable(name, error)
        return
    if stat.S_ISDIR(mode):
        yield from _walk(name)
    else:
        yield name


def _walk(folder: str) -> Iterator[str | Problem]:
    found: list[Path] = []
    problems: list[Problem] = []

    def unreadable(error: OSError) -> None:
        problems.append(_unreadable(str(error.filename), error, folder=True))

    for root, folders, names in os.walk(folder, onerror=unreadable):
        folders[:] = [name for name in folders if name not in SKIP_FOLDERS]
        found.extend(Path(root, name) for name in names if name.endswith(SUFFIXES))
    yield from problems
    yield from (str(path) for path in sorted(found))


def _unreadable(name: str, error: OSError, *, folder: bool = False) -> Problem:
    """The problem an OSError of ``name`` stands for, in the reader's terms."""
    if error.errno == errno.ELOOP:
        return Problem(name, "a symbolic link loop, not checked")
    if error.errno == errno.ENOENT and os.path.islink(name):
        return Problem(name, f"a symbolic link to a missing file, not checked: {os.readlink(name)}")
    if error.errno == errno.ENOENT:
        return Problem(name, "no such file or folder, not checked")
    what = "folder" if folder else "file"
    return Problem(name, f"the {what} cannot be read, not checked: {error.strerror}")


def read(name: str) -> bytes:
    """The bytes of a file (standard input for ``-``); NotCheckedError when they cannot be read."""
    if name == STDIN:
        stream = sys.stdin
        if stream is None:
            raise NotCheckedError(Problem(shown(name), "standard input is closed, not checked"))
        buffer = getattr(stream, "buffer", None)
        try:
            # a text stream without bytes beneath (a caller's io.StringIO) is already decoded
            return buffer.read() if buffer is not None else stream.read().encode("utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise NotCheckedError(Problem(shown(name), f"not read, not checked: {error}")) from None
    try:
        with open(name, "rb") as file:
            return file.read()
    except OSError as error:
        raise NotCheckedError(_unreadable(name, error)) from None


def decode(data: bytes, name: str) -> Text:
    """``data`` as text, decoded as CPython decodes a module; NotCheckedError when it cannot be."""
    where = shown(name)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        # an unknown encoding, a mark and a coding line that disagree, or a first line that is
        # not UTF-8 while no coding line names another encoding
        if "invalid or missing encoding" not in str(error):
            raise NotCheckedError(Problem(where, f"{error.msg}, not checked")) from None
        encoding = "utf-8"
    try:
        return Text(data.decode(encoding), encoding)
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        byte = f"byte 0x{data[error.start]:02x} on line {line}"
        if encoding in ("utf-8", "utf-8-sig"):
            raise NotCheckedError(
                Problem(
                    where,
                    f"not UTF-8, not checked: {byte}, and no coding line (PEP 263) names another "
                    "encoding",
                )
            ) from None
        raise NotCheckedError(
            Problem(where, f"not {encoding} as its coding line says, not checked: {byte}")
        ) from None
    except LookupError:
        raise NotCheckedError(Problem(where, f"unknown encoding {encoding}, not checked")) from None
