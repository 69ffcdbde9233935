r"""Jupyter notebooks as the checker reads them: the code cells, in order, as one module.

Every line of a code cell is a line of the module, so a position in the module is a cell and a
line in it (:meth:`Notebook.place`), and a cell that imports ``torch`` serves the cells after it.
IPython's own syntax is not Python and is left out, a line for a line, so nothing else moves:

* a cell that starts with a cell magic (``%%bash``, ``%%time``) is left out whole;
* a line magic or shell line (``%matplotlib inline``, ``!pip install x``, ``files = !ls``) and a
  help line (``model?``, ``??model``) become ``pass`` at their indentation.

Cells are numbered as Jupyter shows them, from 1, every cell counted (markdown too), and each
line is also placed in the ``.ipynb`` file itself (:meth:`Notebook.file_line`), the line that
SARIF and GitHub annotations point at.

>>> import json
>>> document = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
...     {"cell_type": "markdown", "metadata": {}, "source": ["# Title"]},
...     {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
...      "source": ["%matplotlib inline\n", "import torch\n"]}]}
>>> notebook = read_notebook(json.dumps(document, indent=1))
>>> print(notebook.module, end="")
pass
import torch
>>> notebook.place(2)
(2, 2)
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

__all__ = ["Notebook", "NotebookError", "read_notebook"]


class NotebookError(ValueError):
    """The file is not a Jupyter notebook the checker can read (the message says why)."""


@dataclass(frozen=True)
class Notebook:
    """The code cells of a notebook as one module, and where each of its lines came from."""

    module: str
    """The code cells joined, IPython's syntax replaced (one line for each line)."""
    cells: tuple[tuple[int, int], ...]
    """For each line of :attr:`module` (from 0): its cell and its line in the cell."""
    file_lines: tuple[int | None, ...] = field(default=())
    """For each line of :attr:`module` (from 0): the line of the ``.ipynb`` file holding it."""

    def place(self, line: int) -> tuple[int, int]:
        """``(cell, line in the cell)`` of a line of the module (from 1)."""
        return self.cells[min(line, len(self.cells)) - 1] if self.cells else (1, line)

    def file_line(self, line: int) -> int | None:
        """The line of the ``.ipynb`` file that holds a line of the module, when known."""
        if 1 <= line <= len(self.file_lines):
            return self.file_lines[line - 1]
        return None

    def line_name(self, line: int, at: int) -> str:
        """How a finding on line ``at`` names ``line``: ``line 3`` in its cell, else by cell too."""
        cell, in_cell = self.place(line)
        return f"line {in_cell}" if cell == self.place(at)[0] else f"cell {cell}, line {in_cell}"


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|$)")
_CELL_MAGIC = re.compile(r"\s*%%")
_IPYTHON_LINE = re.compile(
    r"""(?P<indent>[ \t]*)(?:
        [%!]                                 # %magic, !shell
      | [\w.]+(?:\s*,\s*[\w.]+)*\s*=\s*[%!]  # files = !ls, t = %time f()
      | \?\??[\w.]                           # ?name, ??name
      | [\w.]+\?\??\s*$                      # name?, name??
    )""",
    re.VERBOSE,
)


def _lines(text: str) -> list[str]:
    """The lines of ``text`` with their endings, split where Python's tokenizer splits them."""
    return [line for line in _LINE.findall(text) if line]


def _python_lines(source: str) -> list[str]:
    """A code cell's lines, IPython's syntax replaced: the same number of lines."""
    lines = _lines(source)
    if _CELL_MAGIC.match(source):
        return ["\n"] * len(lines)
    kept: list[str] = []
    continued = False
    for line in lines:
        body = line.rstrip("\r\n")
        if continued:  # the next line of a magic that ends in a backslash
            kept.append("\n")
            continued = body.endswith("\\")
            continue
        match = _IPYTHON_LINE.match(body)
        if match is None:
            kept.append(body + "\n")
            continue
        kept.append(f"{match.group('indent')}pass\n")
        continued = body.endswith("\\")
    return kept


def _is_python(document: dict[str, object]) -> bool:
    metadata = document.get("metadata")
    if not isinstance(metadata, dict):
        return True
    for key, inner in (("language_info", "name"), ("kernelspec", "language")):
        table = metadata.get(key)
        if isinstance(table, dict) and isinstance(table.get(inner), str):
            return str(table[inner]).lower() == "python"
    return True


def read_notebook(text: str) -> Notebook | None:
    """The notebook in ``text``: None for another language's, NotebookError for no notebook."""
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise NotebookError(f"not JSON ({error})") from None
    if not isinstance(document, dict) or not isinstance(document.get("cells"), list):
        if isinstance(document, dict) and "worksheets" in document:
            raise NotebookError("nbformat 3 (open it in Jupyter once to save it as nbformat 4)")
        raise NotebookError("no list of cells")
    if not _is_python(document):
        return None
    cells: list[object] = document["cells"]
    sources: dict[int, list[int]] = _source_lines(text)
    module: list[str] = []
    places: list[tuple[int, int]] = []
    file_lines: list[int | None] = []
    for index, cell in enumerate(cells):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        parts = cell.get("source", "")
        if isinstance(parts, str):
            parts = [parts]
        if not isinstance(parts, list) or not all(isinstance(part, str) for part in parts):
            raise NotebookError(f"cell {index + 1}: its source is not text")
        lines = _python_lines("".join(parts))
        module.extend(lines)
        places.extend((index + 1, number) for number in range(1, len(lines) + 1))
        file_lines.extend(_cell_file_lines(parts, sources.get(index, []))[: len(lines)])
        file_lines.extend([None] * (len(places) - len(file_lines)))
    return Notebook("".join(module), tuple(places), tuple(file_lines))


def _cell_file_lines(parts: list[str], found: list[int]) -> list[int | None]:
    """For each line of a cell: the file line of the JSON string in which that line starts."""
    if len(parts) != len(found):
        return []
    lines: list[int | None] = []
    starts = True  # the next character begins a line of the cell
    for part, file_line in zip(parts, found, strict=True):
        for line in _lines(part):
            if starts:
                lines.append(file_line)
            starts = line.endswith(("\n", "\r"))
    return lines


_TOKEN = re.compile(r'\s*(?:"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+)', re.S)


def _source_lines(text: str) -> dict[int, list[int]]:
    """For each cell (by index): the file line of each JSON string of its ``source``.

    A linear scan of the JSON tokens with the path to each one, so that a deeply nested
    document costs no recursion (it has already been read by :func:`json.loads`).
    """
    found: dict[int, list[int]] = {}
    path: list[str | int] = []  # the key or index of each open container
    keyed: list[bool] = []  # for each open container: an object (keys before values)
    expect_key = False
    line, position = 1, 0
    for match in _TOKEN.finditer(text):
        token = match.group().lstrip()
        line += text.count("\n", position, match.end() - len(token))
        position = match.end()
        if token in ("{", "["):
            keyed.append(token == "{")
            path.append("" if token == "{" else 0)
            expect_key = token == "{"
        elif token in ("}", "]"):
            keyed.pop()
            path.pop()
            expect_key = False
        elif token == ":":
            expect_key = False
        elif token == ",":
            if keyed and keyed[-1]:
                expect_key = True
            elif path:
                path[-1] = int(path[-1]) + 1
        elif expect_key:
            path[-1] = json.loads(token) if token.startswith('"') else token
            expect_key = False
        elif (
            token.startswith('"')
            and len(path) in (3, 4)
            and path[0] == "cells"
            and isinstance(path[1], int)
            and path[2] == "source"
            and (len(path) == 3 or not keyed[3])
        ):
            found.setdefault(path[1], []).append(line)
    return found
