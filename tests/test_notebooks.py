"""Every page's downloadable notebook runs as a reader would run it: all cells, a fresh kernel.

The notebooks come from docs/_ext/notebooks.py (the converter the site build uses).  Each one is
executed with nbclient in a new kernel of this environment, with the package as installed; any
error fails, except in a cell tagged ``raises-exception`` (a doctest that shows an exception),
which must raise.  The notebooks run side by side, as many at once as the machine has cores (up
to four), before the first check reads its result.  Run by ``nox -s doctest``, whose environment has the docs extras (nbclient,
ipykernel, matplotlib).
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbformat import NotebookNode

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


# Kernels start and run while this process waits, so two notebooks run at once on two cores (the
# machine CI uses); more at once only queue for the same cores.
AT_ONCE = max(1, min(4, os.cpu_count() or 1))


async def _execute(page: str, folder: Path, slots: asyncio.Semaphore) -> NotebookNode:
    """The page's notebook after every cell ran in a fresh kernel in ``folder``."""
    notebook = notebooks.page_notebook(DOCS / f"{page}.md")
    if not notebooks.has_code(notebook):
        return notebook
    # An empty folder outside the checkout, as for a reader who downloaded the notebook: it may
    # rely on the installed package only.
    client = NotebookClient(
        notebook,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(folder)}},
    )
    async with slots:
        await client.async_execute()
    return notebook


async def _execute_all(pages: list[str], folder: Path) -> dict[str, NotebookNode | BaseException]:
    slots = asyncio.Semaphore(AT_ONCE)
    runs = []
    for page in pages:
        (folder / page).mkdir(parents=True)
        runs.append(_execute(page, folder / page, slots))
    results = await asyncio.gather(*runs, return_exceptions=True)
    return dict(zip(pages, results, strict=True))


@pytest.fixture(scope="module")
def executed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, NotebookNode | BaseException]:
    """The selected pages' notebooks, run; or the error that stopped each (a failing cell's)."""
    pages = [
        item.callspec.params["page"]
        for item in request.session.items
        if isinstance(item, pytest.Function) and item.originalname == "test_notebook_runs"
    ]
    return asyncio.run(_execute_all(pages, tmp_path_factory.mktemp("notebooks")))


@pytest.mark.parametrize("page", PAGES)
def test_notebook_runs(page: str, executed: dict[str, NotebookNode | BaseException]) -> None:
    notebook = notebooks.page_notebook(DOCS / f"{page}.md")
    if not notebooks.has_code(notebook):
        assert not any("```{doctest}" in c.source for c in notebook.cells)
        return  # no code on the page: the site offers no notebook for it
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert ">>>" not in cell.source, f"a prompt left in a code cell:\n{cell.source}"
    nbformat.validate(notebook)
    result = executed[page]
    if isinstance(result, BaseException):
        raise result
    for cell in result.cells:
        if "raises-exception" in cell.metadata.get("tags", []):
            errors = [o for o in cell.outputs if o.output_type == "error"]
            assert errors, f"this cell should raise, as the page shows:\n{cell.source}"
