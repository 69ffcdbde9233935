"""Every page's downloadable notebook runs as a reader would run it: all cells, a fresh kernel.

The notebooks come from docs/_ext/notebooks.py (the converter the site build uses).  Each one is
executed with nbclient in a new kernel of this environment, with the package as installed; any
error fails, except in a cell tagged ``raises-exception`` (a doctest that shows an exception),
which must raise.  Run by ``nox -s doctest``, whose environment has the docs extras (nbclient,
ipykernel, matplotlib).
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

DOCS = Path(__file__).resolve().parents[1] / "docs"
sys.path.insert(0, str(DOCS / "_ext"))

import notebooks  # noqa: E402  (docs/_ext is not a package)


def _pages() -> list[str]:
    names = sorted(
        str(path.relative_to(DOCS).with_suffix(""))
        for path in DOCS.rglob("*.md")
        if "_build" not in path.parts
    )
    return [name for name in names if notebooks.wanted(name, notebooks.DEFAULT_PAGES)]


PAGES = _pages()


def _page_code_lines(page: str) -> list[str]:
    """The code lines of the page's doctests, prompts removed, in page order."""
    text = (DOCS / f"{page}.md").read_text(encoding="utf-8")
    return [
        line[4:].rstrip()
        for line in text.splitlines()
        if line.startswith((">>> ", "... ")) and line[4:].strip()
    ]


@pytest.mark.parametrize("page", PAGES)
def test_notebook_keeps_every_line_of_the_pages_code(page: str) -> None:
    """Each doctest line, comments included, is in a code cell, in the page's order."""
    notebook = notebooks.page_notebook(DOCS / f"{page}.md")
    cells = [
        line.rstrip()
        for c in notebook.cells
        if c.cell_type == "code"
        for line in c.source.splitlines()
    ]
    position = 0
    for line in _page_code_lines(page):
        try:
            position = cells.index(line, position) + 1
        except ValueError:
            pytest.fail(f"{page}: the notebook lost the line {line!r}")


@pytest.mark.parametrize("page", PAGES)
def test_notebook_runs(page: str, tmp_path: Path) -> None:
    notebook = notebooks.page_notebook(DOCS / f"{page}.md")
    if not notebooks.has_code(notebook):
        assert not any("```{doctest}" in c.source for c in notebook.cells)
        return  # no code on the page: the site offers no notebook for it
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert ">>>" not in cell.source, f"a prompt left in a code cell:\n{cell.source}"
    nbformat.validate(notebook)
    # An empty folder outside the checkout, as for a reader who downloaded the notebook: it may
    # rely on the installed package only.
    client = NotebookClient(
        notebook,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()
    for cell in notebook.cells:
        if "raises-exception" in cell.metadata.get("tags", []):
            errors = [o for o in cell.outputs if o.output_type == "error"]
            assert errors, f"this cell should raise, as the page shows:\n{cell.source}"
