"""Every page's downloadable notebook runs as a reader would run it: all cells, a fresh kernel.

The notebooks come from docs/_ext/notebooks.py (the converter the site build uses).  Each one is
executed with nbclient in a new kernel of this environment, with the package as installed; any
error fails, except in a cell tagged ``raises-exception`` (a doctest that shows an exception),
which must raise.  The notebooks run side by side, as many at once as the machine has cores (up
to four), before the first check reads its result.  Run by ``nox -s doctest``, whose environment
has the docs extras (nbclient, ipykernel, matplotlib).

A notebook that passed is not run again while nothing its run reads has changed (as myst-nb's
jupyter-cache does for the site's code cells): its cells, the package's source, the data under
conf/ and docs/_data, docs/matplotlibrc, docs/_ext/figure_glue.py, this file, the environment
variables that steer Python, torch and matplotlib, the Python and every installed distribution's
version (torch, matplotlib, ipykernel, ...).  The passing run is kept in build/notebook-runs/,
one file per page, with the key of its inputs (``notebook_key``); a changed input gives another
key and the notebook runs again.  Delete that folder, or set ``ATTENTION_RERUN_NOTEBOOKS=1``, to
run every notebook.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import functools
import hashlib
import json
import os
import site
import sys
from importlib import metadata
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbformat import NotebookNode

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
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


@functools.cache
def _converted(page: str) -> NotebookNode:
    return notebooks.page_notebook(DOCS / f"{page}.md")


def _notebook(page: str) -> NotebookNode:
    """The page's notebook, converted once per run; a copy, since running it adds outputs."""
    return copy.deepcopy(_converted(page))


# -- reusing a passing run while its inputs are unchanged ---------------------------------------

RUNS = REPO / "build" / "notebook-runs"  # git ignores build/
# What a notebook's run reads besides its own cells: the package as installed (editable, so its
# source), the records and data the package and pages load, the figure settings, and this file
# (how the notebooks are run and checked).
INPUTS = (
    REPO / "src" / "attention",
    REPO / "conf",
    DOCS / "_data",
    DOCS / "matplotlibrc",
    DOCS / "_ext" / "figure_glue.py",
    Path(__file__).resolve(),
)
# The kernel inherits this process's environment: variables with these prefixes change what
# Python, torch, numpy, matplotlib or the package do.
ENVIRONMENT_PREFIXES = ("PYTHON", "TORCH", "OMP_", "MKL_", "CUDA", "MPL", "MATPLOTLIB", "ATTENTION")


def _files(root: Path) -> list[Path]:
    if not root.is_dir():
        return [root] if root.is_file() else []
    return sorted(
        path
        for path in root.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    )


def inputs_digest(inputs: tuple[Path, ...] = INPUTS, environ: dict[str, str] | None = None) -> str:
    """A digest of everything every notebook's run reads besides the notebook itself."""
    digest = hashlib.sha256()
    for path in (file for root in inputs for file in _files(root)):
        name = path.relative_to(REPO) if path.is_relative_to(REPO) else path
        digest.update(f"{name}\0".encode() + hashlib.sha256(path.read_bytes()).digest())
    variables = os.environ if environ is None else environ
    for name in sorted(variables):
        if name.startswith(ENVIRONMENT_PREFIXES) and name != "ATTENTION_RERUN_NOTEBOOKS":
            digest.update(f"{name}={variables[name]}\0".encode())
    digest.update(f"{sys.executable}\0{sys.version}\0".encode())
    installed = metadata.distributions(path=_kernel_path())
    for name in sorted(f"{d.metadata['Name']}=={d.version}" for d in installed):
        digest.update(name.encode() + b"\0")
    return digest.hexdigest()


def _kernel_path() -> list[str]:
    """Where a fresh kernel finds installed distributions: PYTHONPATH, then site-packages.

    Not this process's ``sys.path``, which grows with what ran before (importing setuptools adds
    its vendored packages), so that the key does not depend on which tests ran first.
    """
    path = [entry for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep) if entry]
    path += site.getsitepackages()
    if site.ENABLE_USER_SITE:
        path.append(site.getusersitepackages())
    return path


def notebook_key(notebook: NotebookNode, inputs: str) -> str:
    """The key of one notebook's run: its cells and metadata, and ``inputs_digest()``."""
    cells = json.dumps(notebook, sort_keys=True, ensure_ascii=False).encode()
    return hashlib.sha256(inputs.encode() + b"\0" + cells).hexdigest()


def _run_file(page: str) -> Path:
    return RUNS / f"{page}.json"


def _kept_run(page: str, key: str) -> NotebookNode | None:
    """The executed notebook kept from a passing run with this key, if there is one."""
    if os.environ.get("ATTENTION_RERUN_NOTEBOOKS"):
        return None
    try:
        kept = json.loads(_run_file(page).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if kept.get("key") != key:
        return None
    return nbformat.from_dict(kept["notebook"])


def _keep_run(page: str, key: str, notebook: NotebookNode) -> None:
    """Keep a passing run; written whole and then renamed, so a reader never sees half a file."""
    path = _run_file(page)
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(f"{path.name}.{os.getpid()}.part")
    part.write_text(json.dumps({"key": key, "notebook": notebook}), encoding="utf-8")
    os.replace(part, path)


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
    notebook = _notebook(page)
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


async def _execute(notebook: NotebookNode, folder: Path, slots: asyncio.Semaphore) -> NotebookNode:
    """``notebook`` after every cell ran in a fresh kernel in ``folder``."""
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


@dataclasses.dataclass
class Run:
    """A page's notebook run, or the error that stopped it (a failing cell's)."""

    key: str
    result: NotebookNode | BaseException
    kept: bool  # reused from an earlier passing run with the same key


async def _execute_all(notebooks_: dict[str, NotebookNode], folder: Path) -> dict[str, Run]:
    slots = asyncio.Semaphore(AT_ONCE)
    inputs = inputs_digest()
    runs: dict[str, Run] = {}
    pending = {}
    for page, notebook in notebooks_.items():
        key = notebook_key(notebook, inputs)
        kept = _kept_run(page, key)
        if kept is not None:
            runs[page] = Run(key, kept, kept=True)
            continue
        (folder / page).mkdir(parents=True)
        pending[page] = (key, _execute(notebook, folder / page, slots))
    results = await asyncio.gather(*(run for _, run in pending.values()), return_exceptions=True)
    for (page, (key, _)), result in zip(pending.items(), results, strict=True):
        runs[page] = Run(key, result, kept=False)
    return runs


@pytest.fixture(scope="module")
def executed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Run]:
    """The selected pages' notebooks that hold code, run (or kept from a passing run)."""
    pages = [
        item.callspec.params["page"]
        for item in request.session.items
        if isinstance(item, pytest.Function) and item.originalname == "test_notebook_runs"
    ]
    selected = {page: _notebook(page) for page in pages}
    with_code = {page: nb for page, nb in selected.items() if notebooks.has_code(nb)}
    return asyncio.run(_execute_all(with_code, tmp_path_factory.mktemp("notebooks")))


@pytest.mark.parametrize("page", PAGES)
def test_notebook_runs(page: str, executed: dict[str, Run]) -> None:
    notebook = _notebook(page)
    if not notebooks.has_code(notebook):
        assert not any("```{doctest}" in c.source for c in notebook.cells)
        return  # no code on the page: the site offers no notebook for it
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert ">>>" not in cell.source, f"a prompt left in a code cell:\n{cell.source}"
    nbformat.validate(notebook)
    run = executed[page]
    if isinstance(run.result, BaseException):
        raise run.result
    for cell in run.result.cells:
        if "raises-exception" in cell.metadata.get("tags", []):
            errors = [o for o in cell.outputs if o.output_type == "error"]
            assert errors, f"this cell should raise, as the page shows:\n{cell.source}"
    if not run.kept:
        _keep_run(page, run.key, run.result)  # passed: reused until an input changes


# -- the key of a kept run ------------------------------------------------------------------------


def test_the_package_its_records_and_the_figure_settings_are_inputs() -> None:
    hashed = {path for root in INPUTS for path in _files(root)}
    required = [
        *(REPO / "src" / "attention").rglob("*.py"),
        *(REPO / "conf").rglob("*.toml"),
        *(REPO / "conf" / "records").glob("*.json"),
        *(DOCS / "_data").iterdir(),
        DOCS / "matplotlibrc",
        DOCS / "_ext" / "figure_glue.py",
        Path(__file__).resolve(),
    ]
    missing = [str(path.relative_to(REPO)) for path in required if path not in hashed]
    assert not missing, f"not part of the notebooks' key: {missing}"


def test_a_changed_input_changes_the_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "src" / "package"
    (package / "sub").mkdir(parents=True)
    module = package / "sub" / "module.py"
    module.write_text("x = 1\n")
    rc = tmp_path / "matplotlibrc"
    rc.write_text("font.size: 10\n")
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")])
    versions = {"torch": "2.13.0", "matplotlib": "3.10.0"}

    class Distribution:
        def __init__(self, name: str) -> None:
            self.metadata = {"Name": name}
            self.version = versions[name]

    monkeypatch.setattr(
        metadata, "distributions", lambda **_: [Distribution(name) for name in versions]
    )

    def key(environ: dict[str, str] | None = None) -> str:
        return notebook_key(notebook, inputs_digest((package, rc), environ or {}))

    seen = [key()]
    assert key() == seen[0], "nothing changed: the kept run must be reused"

    def changed() -> None:
        now = key()
        assert now not in seen
        seen.append(now)

    module.write_text("x = 2\n")  # an edit to the package
    changed()
    (package / "new.py").write_text("")  # a new module
    changed()
    rc.write_text("font.size: 11\n")  # the figure settings
    changed()
    versions["torch"] = "2.14.0"  # another torch
    changed()
    notebook.cells[0].source = "1 + 2"  # the page's code
    changed()
    assert key({"TORCH_LOGS": "+dynamo"}) not in seen  # a variable the kernel inherits
    assert key({"HOME": "/elsewhere"}) == seen[-1]  # one that changes nothing the run reads


def test_a_kept_run_is_reused_only_under_its_own_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys.modules[__name__], "RUNS", tmp_path)
    monkeypatch.delenv("ATTENTION_RERUN_NOTEBOOKS", raising=False)
    ran = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")])
    ran.cells[0].outputs = [nbformat.v4.new_output("execute_result", {"text/plain": "2"})]
    assert _kept_run("lesson/page", "key-1") is None
    _keep_run("lesson/page", "key-1", ran)
    assert _kept_run("lesson/page", "key-1") == ran
    assert _kept_run("lesson/page", "key-2") is None  # an input changed: run it again
    monkeypatch.setenv("ATTENTION_RERUN_NOTEBOOKS", "1")
    assert _kept_run("lesson/page", "key-1") is None


def test_the_key_does_not_depend_on_what_this_process_imported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = inputs_digest()
    # as importing setuptools does: a folder of vendored distributions joins sys.path
    (tmp_path / "vendored-1.0.dist-info").mkdir()
    (tmp_path / "vendored-1.0.dist-info" / "METADATA").write_text("Name: vendored\nVersion: 1.0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert inputs_digest() == before
