"""Every check of the project, as nox sessions.

Every session installs with the pins in ``conf/constraints.txt``; torch is always pinned, so no
environment ever resolves an unpinned (multi-GB CUDA) torch.  Set ``ATTENTION_TORCH`` to a pip
requirement such as ``torch==2.5.1`` to test another torch on your own machine.

The sessions that need the package share one virtual environment, ``.nox/dev``: torch and the
documentation toolchain are installed once, and each session adds only the extras it needs the
first time it runs.  The environment is rebuilt from scratch when ``conf/constraints.txt`` or
``pyproject.toml`` changes, and after each install ``conf/check_pins.py`` fails on any package
that arrived without a pin.  ``lint`` (ruff only) and ``semantics_ecosystem`` (other frameworks)
keep environments of their own.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import re
import shutil
import sys
import tomllib
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

import nox

ROOT = Path(__file__).parent


def _load_paths() -> ModuleType:
    """attention.semantics.paths, from its file: it knows where every conf/ file lives."""
    spec = importlib.util.spec_from_file_location(
        "attention_paths", ROOT / "src" / "attention" / "semantics" / "paths.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up while being defined
    spec.loader.exec_module(module)
    return module


paths = _load_paths()
CONSTRAINTS = paths.CONSTRAINTS
REPORTS = ROOT / "build" / "reports"
# Executes the pages' notebooks: needs the docs extras, so `doctest` runs it, not `tests`.
NOTEBOOK_TESTS = "tests/test_notebooks.py"
# The claims checks: `semantics` runs them, not `tests`.
SEMANTICS_TESTS = (
    "tests/test_semantics.py",
    "tests/test_semantics_snippets.py",
    "tests/test_semantics_conventions.py",
    "tests/test_semantics_cli.py",
)

nox.needs_version = ">=2024.3.2"
nox.options.default_venv_backend = "venv"  # pip, never uv: torch comes from the pinned wheel
nox.options.reuse_venv = "yes"
nox.options.error_on_missing_interpreters = True
nox.options.sessions = ["lint", "typecheck", "tests", "semantics", "doctest", "docs", "browser"]

# nox looks for uv even when every environment uses pip, and logs "uv binary not found." when it
# is absent: noise, since uv is never used here (it would not take the pinned local torch build).
logging.getLogger("nox").addFilter(lambda record: record.getMessage() != "uv binary not found.")

# Sessions declared with venv_backend=SHARED get no environment from nox: each calls _use_env,
# which runs it in the shared environment DEV_ENV.
SHARED = "none"
DEV_ENV = ROOT / ".nox" / "dev"
_OUTER_PATH = os.environ.get("PATH", "")


TORCH_PINS = ROOT / "conf" / "torch_pins.py"


def _torch_override(session: nox.Session, torch: str | None = None) -> str:
    """``torch``, else ATTENTION_TORCH, else "" (the torch that conf/constraints.txt pins)."""
    override = (torch or os.environ.get("ATTENTION_TORCH", "")).strip()
    if override and not re.match(r"^torch\s*(==|===)", override):
        session.error(f"ATTENTION_TORCH must pin an exact torch (torch==X.Y.Z), got {override!r}")
    return override


def _constraints(
    session: nox.Session,
    torch: str | None = None,
    *,
    python: Path | None = None,
    out: Path | None = None,
) -> str:
    """The pins to install with: conf/constraints.txt, or the pins generated for another torch.

    For ``torch`` or ATTENTION_TORCH (an exact pin, torch==X.Y.Z), conf/torch_pins.py asks
    ``python``'s pip (default: the session's environment) what that release needs, metadata
    only, and writes conf/constraints.txt with torch's requirements resolved to ``out``.
    """
    override = _torch_override(session, torch)
    if not override:
        return str(CONSTRAINTS)
    if python is None:
        location = getattr(session.virtualenv, "location", None)
        python = Path(location, "bin", "python") if location else Path(sys.executable)
    if out is None:
        out = Path(session.create_tmp()) / f"constraints-{_slug(override)}.txt"
    session.log(f"torch pin overridden: {override}; resolving its requirements for {out}")
    # nox's own interpreter runs the script (it has packaging); the resolution is python's
    session.run(
        sys.executable,
        str(TORCH_PINS),
        *("generate", override, "--out", str(out), "--python", str(python)),
        external=True,
    )
    return str(out)


def _slug(override: str) -> str:
    """``torch==2.14.1`` as ``torch-2.14.1``: a folder name."""
    return re.sub(r"[^A-Za-z0-9.]+", "-", override)


def _python311(session: nox.Session) -> str:
    """A Python 3.11 interpreter for the shared environment (the project's Python)."""
    if sys.version_info[:2] == (3, 11):
        return sys.executable
    found = shutil.which("python3.11")
    if found is None:
        session.error("the sessions need Python 3.11: put python3.11 on PATH")
    return found


SHARED_EXTRAS = ("browser", "docs", "plots", "test", "typecheck")
"""The package's extras that the shared environment holds once it is created."""


def _use_env(
    session: nox.Session,
    extras: Iterable[str] = (),
    packages: Iterable[str] = (),
    *,
    torch: str | None = None,
    venv: Path | None = None,
    shared: Iterable[str] = SHARED_EXTRAS,
    package_deps: bool = True,
) -> None:
    """Run the rest of ``session`` in the shared environment, after adding what it lacks.

    With ``package_deps=False`` the package goes in editable without its dependencies, after
    ``packages``: for a torch older than the package requires, whose rows are still probed.

    ``extras`` of the package (installed editable, together with every one of ``shared``) and
    other ``packages`` are installed with the constraints, with pip's own output (the first
    install takes minutes), only when the environment does not hold them yet.  A torch override
    (``torch`` or ATTENTION_TORCH) gets an environment of its own (``venv``, default
    .nox/dev-torch-X.Y.Z), so switching back to the pinned torch reinstalls nothing, and the
    pins generated for it (conf/torch_pins.py) are kept there, in constraints.txt: before
    anything large is downloaded, the whole install is resolved against them and stops in one
    line naming a conflict.  Such an environment keeps no pip cache (a CUDA build is GBs).

    The environment is rebuilt only when conf/constraints.txt, pyproject.toml or the torch pin
    changed; an install that failed half-way is resumed, not started again.
    """
    override = _torch_override(session, torch)
    if venv is None:
        venv = DEV_ENV.with_name(f"dev-{_slug(override)}") if override else DEV_ENV
    python = venv / "bin" / "python"
    stamp = venv / "installed.json"
    pins = venv / "constraints.txt" if override else CONSTRAINTS
    # what the pins are made from: the same inputs give the same pins (and no rebuild)
    variant = f"\0{override}\0{','.join(sorted(shared))}" if venv != DEV_ENV else ""
    inputs = hashlib.sha256(
        CONSTRAINTS.read_bytes() + (ROOT / "pyproject.toml").read_bytes() + variant.encode()
    ).hexdigest()
    state = json.loads(stamp.read_text()) if stamp.is_file() else {}
    if state.get("inputs") != inputs or not python.is_file():
        if venv.exists():
            why = "the pins or pyproject.toml changed" if state else "it has no install record"
            session.log(f"{venv}: {why}, rebuilding it")
            shutil.rmtree(venv)
        state = {"inputs": inputs, "extras": [], "packages": []}
    missing_extras = sorted(set(extras) - set(state["extras"]))
    missing_packages = sorted(set(packages) - set(state["packages"]))
    cache = ("--no-cache-dir",) if override else ()
    if missing_extras or missing_packages:
        if not python.is_file():
            session.log(f"creating the shared environment {venv}")
            session.run(_python311(session), "-m", "venv", str(venv), external=True)
            # pip, setuptools (torch needs it) and the build backend (hatchling; editables for
            # an editable install) at their pinned versions: the package is then built without
            # build isolation, from pinned packages only.
            _pip(
                session,
                python,
                str(CONSTRAINTS),
                *cache,
                "pip",
                "setuptools",
                "hatchling",
                "editables",
            )
            # from here on a failed install is resumed by the next run, not rebuilt
            stamp.write_text(json.dumps(state, indent=1) + "\n")
        if override and not pins.is_file():
            _constraints(session, override, python=python, out=pins)
        # Every extra the default sessions use, in one pip run: later sessions install nothing
        # (each pip run costs 10-20 s of resolving even when it adds little).
        wanted = sorted({*state["extras"], *extras, *shared})
        editable = ("-e", f".[{','.join(wanted)}]") if missing_extras else ()
        install = ("--no-build-isolation", *editable, *missing_packages)
        if override:  # the pins hold for the whole install, or nothing is downloaded
            session.run(
                sys.executable,
                str(TORCH_PINS),
                *("check", str(pins), "--python", str(python), "--", *install),
                external=True,
            )
        session.log(f"installing into {venv}: {' '.join([*editable, *missing_packages])}")
        _pip(session, python, str(pins), *cache, *install)
        session.run(str(python), str(ROOT / "conf" / "check_pins.py"), str(pins), external=True)
        added = sorted({*state["packages"], *packages})
        state = {"inputs": inputs, "extras": wanted, "packages": added}
        stamp.write_text(json.dumps(state, indent=1) + "\n")
    if not package_deps and not state.get("package_without_deps"):
        # torch is older than the package's requirement: the probes need only torch
        session.log(f"installing the package into {venv} without its dependencies")
        _pip(session, python, str(pins), *cache, "--no-deps", "--no-build-isolation", "-e", ".")
        state = {**state, "package_without_deps": True}
        stamp.write_text(json.dumps(state, indent=1) + "\n")
    # nox finds a session's programs on the PATH of its own process
    os.environ["PATH"] = os.pathsep.join([str(venv / "bin"), _OUTER_PATH])
    os.environ["VIRTUAL_ENV"] = str(venv)


def _pip(session: nox.Session, python: Path, constraints: str, *args: str) -> None:
    """pip install into ``python``'s environment, every version from the constraints."""
    session.run(
        str(python),
        "-m",
        "pip",
        "install",
        "-c",
        constraints,
        *args,
        external=True,
    )


def _install(session: nox.Session, extras: str) -> None:
    """Install the package (editable) with ``extras`` into the shared environment and use it."""
    _use_env(session, extras=extras.split(","))


def _pytest(
    session: nox.Session, report: str, *args: str, env: dict[str, str] | None = None
) -> None:
    """Run pytest with a JUnit report in build/reports/<report>.xml, which .ci/run counts."""
    REPORTS.mkdir(parents=True, exist_ok=True)
    session.run("pytest", f"--junitxml={REPORTS / f'{report}.xml'}", *args, env=env)


@nox.session(python="3.11")
def lint(session: nox.Session) -> None:
    """ruff check and ruff format --check over the whole tree."""
    session.install("-c", str(CONSTRAINTS), "ruff")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session(venv_backend=SHARED)
def typecheck(session: nox.Session) -> None:
    """mypy --strict over src/."""
    _install(session, "typecheck,plots")
    session.run("mypy", "--strict", "src/attention")


@nox.session(venv_backend=SHARED)
def tests(session: nox.Session) -> None:
    """pytest + Hypothesis: the package against torch, every error path, every builder.

    The notebooks run in ``doctest`` and the claims tests in ``semantics``, not twice.
    """
    _install(session, "test,plots")
    ignore = [f"--ignore={path}" for path in (NOTEBOOK_TESTS, *SEMANTICS_TESTS)]
    _pytest(session, "tests", *(session.posargs or ["tests", *ignore]))


@nox.session(venv_backend=SHARED, default=False)
def bench(session: nox.Session) -> None:
    """Dense vs tiled vs torch's kernels, T = 512 … 8192: writes docs/_data/benchmark.json.

    Also the runtime watch's overhead (docs/_data/watch-benchmark.json) and the static checker's
    time on the installed torch's files (docs/_data/review-benchmark.json); set
    ATTENTION_BENCH_TORCHFIX=1 to time TorchFix on the same sample (about a minute more).

    Each figure is a median over fresh processes; the run reports the goals as ratios and never
    fails on timing. Run it on an otherwise idle machine.
    """
    _install(session, "test")
    record = ROOT / "docs" / "_data" / "benchmark.json"
    session.run("python", "-m", "attention.benchmark", "--out", str(record), *session.posargs)
    # the runtime watch's overhead on a small Transformer encoder's forward pass (goal: <= 1.10)
    watch_record = ROOT / "docs" / "_data" / "watch-benchmark.json"
    session.run("python", "-m", "attention.review.watch", "--out", str(watch_record))
    # the static checker on torch's own files; with ATTENTION_BENCH_TORCHFIX=1 beside TorchFix
    # 0.7.0 on the same fixed sample (goal: at most 1/10 of its time, both single-process)
    review = ["--out", str(ROOT / "docs" / "_data" / "review-benchmark.json")]
    if os.environ.get("ATTENTION_BENCH_TORCHFIX"):
        review += ["--torchfix", _torchfix_python(session)]
    session.run("python", "-m", "attention.review.benchmark", *review)


TORCHFIX_ENV = ROOT / ".nox" / "torchfix"


def _torchfix_python(session: nox.Session) -> str:
    """TorchFix in an environment of its own: it needs libcst < 1.6 (the checker pins 1.9)."""
    python = TORCHFIX_ENV / "bin" / "python"
    if not python.is_file():
        session.run(_python311(session), "-m", "venv", str(TORCHFIX_ENV), external=True)
        pins = ROOT / "conf" / "constraints-torchfix.txt"
        _pip(session, python, str(pins), "torchfix")
    return str(python)


REALCODE_PIP = ROOT / ".nox" / "realcode-pip"


@nox.session(venv_backend=SHARED, default=False)
def realcode(session: nox.Session) -> None:
    """The mask checker on released packages, against the committed ledger of verdicts.

    Downloads (``pip download --no-deps``, once, into ``build/realcode/``) the releases pinned
    in ``conf/realcode-pins.txt``, runs the checker on every ``*.py`` of each and compares with
    ``tests/review/realcode/ledger.toml``: fails on a finding the ledger lacks and on a true
    finding no longer found; prints files, findings, true, false, unclear and false per 1,000
    files per package.  ``-- --jobs N`` (default every core), ``-- --only transformers``.
    """
    _install(session, "test")
    pip = REALCODE_PIP / "bin" / "python"
    if not pip.is_file():
        # an sdist's metadata (fairseq, whisper, audiocraft) is built with these, nothing else
        session.run(_python311(session), "-m", "venv", str(REALCODE_PIP), external=True)
        _pip(session, pip, str(CONSTRAINTS), "setuptools", "wheel", "cython", "numpy")
    session.run(
        "python",
        "-m",
        "attention.review.realcode",
        *("--cache", str(ROOT / "build" / "realcode"), "--pip", str(pip)),
        *session.posargs,
    )


# -- documentation site -------------------------------------------------------------------------

DOCS = ROOT / "docs"
DOCS_BUILD = DOCS / "_build"
SITE = DOCS_BUILD / "html"
GETTEXT = DOCS_BUILD / "gettext"
CATALOGUES = DOCS / "locales" / "zh_CN" / "LC_MESSAGES"
LANGUAGES = ("en", "zh_CN")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def _sphinx(
    session: nox.Session,
    builder: str,
    out: Path,
    doctrees: Path,
    *options: str,
    fresh: bool = True,
) -> None:
    """A nitpicky, warnings-are-errors Sphinx build that reports every warning.

    ``fresh`` (-E) rereads every page; otherwise Sphinx rereads only the pages whose source, or a
    file they depend on (the package's modules for the API reference, a catalogue, a data
    file), changed since the last build into ``doctrees``.
    """
    session.run(
        "sphinx-build",
        *("-b", builder, *(("-E",) if fresh else ()), "-q", "-W", "-n", "--keep-going"),
        *("-d", str(doctrees)),
        *options,
        str(DOCS),
        str(out),
        env={"SOURCE_DATE_EPOCH": "0"},  # fixed POT-Creation-Date in the .pot headers
    )


@nox.session(venv_backend=SHARED)
def doctest(session: nox.Session) -> None:
    """Every doctest, one pytest item each: the pages (Sybil) and the docstrings in src/.

    Then each page's downloadable notebook (docs/_ext/notebooks.py) runs in a fresh kernel,
    unless it passed before with the same inputs (tests/test_notebooks.py keeps the run).
    """
    # docs: nbclient and ipykernel for the notebooks; plots: their figures
    _install(session, "test,docs,plots")
    _pytest(
        session,
        "doctest",
        "--doctest-modules",
        # No log capture: nothing here logs, and for each of the ~1,000 items' three phases
        # pytest would attach its handlers to every non-propagating logger torch creates.
        *("-p", "no:logging"),
        *(session.posargs or ["docs", "src/attention", NOTEBOOK_TESTS]),
        # No installed plugin is needed (Sybil comes from docs/conftest.py); autoloading them
        # also has pytest rewrite the asserts of every module of their distributions (Hypothesis).
        env={"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
    )


def _remove_stale_pages() -> None:
    """Delete built pages whose source page is gone (an incremental build leaves them)."""
    generated = {"genindex.html", "search.html", "py-modindex.html"}
    for language in LANGUAGES:
        root = SITE / language
        for page in root.rglob("*.html") if root.is_dir() else ():
            relative = page.relative_to(root)
            if "_static" in relative.parts or str(relative) in generated:
                continue
            if not any(
                (DOCS / relative).with_suffix(suffix).is_file() for suffix in (".md", ".ipynb")
            ):
                page.unlink()


@nox.session(venv_backend=SHARED)
def docs(session: nox.Session) -> None:
    """Run the pages' doctests, build the site in English and Chinese (-W -n), check it.

    Fails on a wrong doctest on any page (docs/_tools/page_doctests.py, which reruns only the
    pages whose inputs changed since they passed), a Sphinx warning, a garbled signature
    (docs/_tools/check_signatures.py), an unfinished translation, an asset from another host, a
    missing anchor, or Chinese prose that strays from docs/glossary.toml (docs/_tools/sitetool.py).
    Output: docs/_build/html/index.html (choose a language), html/en/ and html/zh_CN/.  Code
    cells run once: their outputs are cached in docs/_build/.jupyter_cache, shared by both
    languages.  Builds are incremental (``nox -s reproducible`` builds from scratch).
    """
    _install(session, "docs,test")
    session.run("python", "docs/_tools/page_doctests.py", str(DOCS_BUILD / ".doctest_cache.json"))
    _remove_stale_pages()
    # Sphinx notices changed pages, catalogues, templates, configuration and the files an
    # extension declares, but not a change to the extensions' own code (docs/_ext/mathml.py
    # converts the formulas when a page is read): then reread and rewrite everything.
    untracked = sorted((DOCS / "_ext").rglob("*.py"))
    extensions = hashlib.sha256(b"".join(path.read_bytes() for path in untracked)).hexdigest()
    stamp = DOCS_BUILD / "doctrees" / "extensions.sha256"
    fresh = not stamp.is_file() or stamp.read_text() != extensions
    for language in LANGUAGES:
        _sphinx(
            session,
            "html",
            SITE / language,
            DOCS_BUILD / "doctrees" / language,
            *("-D", f"language={language}"),
            fresh=fresh,
        )
    session.run("python", "docs/_tools/sitetool.py", "root-index", str(SITE))
    shutil.rmtree(GETTEXT, ignore_errors=True)  # no catalogue left over from a removed page
    _sphinx(session, "gettext", GETTEXT, DOCS_BUILD / "doctrees" / "gettext", fresh=fresh)
    stamp.write_text(extensions)
    session.run(
        "python", "docs/_tools/sitetool.py", "check", str(SITE), str(GETTEXT), str(CATALOGUES)
    )
    session.run("python", "docs/_tools/check_signatures.py", str(SITE))
    session.log(f"open {SITE / 'index.html'}")


@nox.session(venv_backend=SHARED, requires=["docs"])
def browser(session: nox.Session) -> None:
    """The built site in headless Chromium (Debian's, never a downloaded one), offline."""
    if not Path(CHROMIUM).is_file():
        session.error(f"no Chromium at {CHROMIUM}: apt-get install -y chromium (or set CHROMIUM)")
    _install(session, "browser")
    _pytest(
        session,
        "browser",
        "--confcutdir=docs/tests",  # not docs/conftest.py: that one collects the doctests
        *(session.posargs or ["docs/tests"]),
        env={"ATTENTION_SITE": str(SITE), "CHROMIUM": CHROMIUM},
    )


@nox.session(venv_backend=SHARED, default=False, requires=["docs"])
def screenshots(session: nox.Session) -> None:
    """Every page of both languages at 1280 px and 390 px wide: PNG in docs/_build/screenshots."""
    if not Path(CHROMIUM).is_file():
        session.error(f"no Chromium at {CHROMIUM}: apt-get install -y chromium (or set CHROMIUM)")
    _install(session, "browser")
    out = DOCS_BUILD / "screenshots"
    shutil.rmtree(out, ignore_errors=True)  # no screenshot left over from a removed page
    session.run(
        "python", "docs/_tools/screenshots.py", str(SITE), str(out), env={"CHROMIUM": CHROMIUM}
    )


@nox.session(venv_backend=SHARED, default=False)
def serve(session: nox.Session) -> None:
    """Live preview at http://127.0.0.1:8000, rebuilt on every save (sphinx-autobuild).

    English by default; ``nox -s serve -- -D language=zh_CN`` previews the Chinese pages.
    """
    _use_env(session, extras=["docs"], packages=["sphinx-autobuild"])
    session.run(
        "sphinx-autobuild",
        *("-n", "--keep-going", "-d", str(DOCS_BUILD / "doctrees" / "serve")),
        *("--host", "127.0.0.1", "--port", "8000"),
        *("--watch", "src/attention", "--ignore", str(DOCS_BUILD)),
        *session.posargs,
        str(DOCS),
        str(DOCS_BUILD / "serve"),
    )


@nox.session(venv_backend=SHARED, default=False)
def translations(session: nox.Session) -> None:
    """Refresh the zh_CN catalogues from the English pages, then show what is left to translate.

    New or changed English paragraphs appear in docs/locales/zh_CN/LC_MESSAGES/<page>.po with an
    empty (or fuzzy) msgstr; translate them, delete the ``#, fuzzy`` lines, and rerun ``nox -s
    docs``, which fails while any entry is untranslated or fuzzy.  The same run refreshes
    sphinx.po (the templates' and the theme's strings) and site.po (the strings the docs
    extensions write into pages, extracted from docs/_ext by docs/_ext/site_messages.py).
    """
    _install(session, "docs")
    shutil.rmtree(GETTEXT, ignore_errors=True)
    _sphinx(session, "gettext", GETTEXT, DOCS_BUILD / "doctrees" / "gettext")
    session.run(
        "sphinx-intl",
        *("update", "-p", str(GETTEXT), "-l", "zh_CN", "-d", str(DOCS / "locales")),
    )
    # stat exits 1 while anything is untranslated: that is the to-do list, not a failure here
    session.run(
        "sphinx-intl", "stat", "-l", "zh_CN", "-d", str(DOCS / "locales"), success_codes=[0, 1]
    )


@nox.session(venv_backend=SHARED, default=False)
def reproducible(session: nox.Session) -> None:
    """Build both languages twice from scratch, code cells re-executed, and compare every byte."""
    _install(session, "docs")
    tmp = Path(session.create_tmp())
    for run in ("first", "second"):
        shutil.rmtree(tmp / run, ignore_errors=True)
        for language in LANGUAGES:
            _sphinx(
                session,
                "html",
                tmp / run / "html" / language,
                tmp / run / "doctrees" / language,
                *("-D", f"language={language}"),
                *("-D", f"nb_execution_cache_path={tmp / run / 'jupyter_cache'}"),
            )
    session.run(
        "python",
        "docs/_tools/sitetool.py",
        "compare",
        str(tmp / "first" / "html"),
        str(tmp / "second" / "html"),
    )


@nox.session(venv_backend=SHARED, default=False)
def readthedocs(session: nox.Session) -> None:
    """Build the site as Read the Docs does, from .readthedocs.yaml alone, in a fresh clone.

    Clones the committed HEAD, installs with the configuration's own commands into a new
    environment, builds both languages with Read the Docs' environment variables and checks
    their canonical links (docs/_tools/readthedocs.py).  Where PyTorch's CPU index is out of
    reach, pass a replacement for that part of the install commands:
    ``nox -s readthedocs -- "--replace=--index-url https://download.pytorch.org/whl/cpu=..."``.
    """
    _install(session, "docs")
    work = Path(session.create_tmp()) / "readthedocs"
    shutil.rmtree(work, ignore_errors=True)
    session.run("git", "clone", "--quiet", str(ROOT), str(work / "checkout"), external=True)
    session.run(
        "python",
        "docs/_tools/readthedocs.py",
        str(work / "checkout"),
        str(work / "out"),
        *session.posargs,
    )


# -- mask semantics -------------------------------------------------------------------------------


@nox.session(venv_backend=SHARED)
def semantics(session: nox.Session) -> None:
    """Every claim in conf/semantics.toml against the pinned torch; fails naming each bad row.

    Prints the table (python -m attention.semantics), then runs the live rows, the reproduce
    snippets, the flipped-torch tests and the converter cross-checks under pytest, which writes
    build/reports/semantics.xml.  ``nox -s semantics -- --record`` also rewrites the record of the
    installed release, conf/records/torch-<release>.json (only after a run with no failure).
    """
    _install(session, "test")
    record = "--record" in session.posargs
    session.run("python", "-m", "attention.semantics", *(("--record",) if record else ()))
    _pytest(session, "semantics", *SEMANTICS_TESTS)


RELEASES = paths.torch_releases()
MATRIX_ENV = ROOT / ".nox" / "matrix"
"""Where ``semantics_matrix`` makes each release's environment, torch-X.Y.Z (dropped after)."""


def _release(version: str) -> tuple[int, ...]:
    """``"2.5.1"`` as ``(2, 5, 1)``."""
    return tuple(int(part) for part in version.split("+")[0].split("."))


def _torch_floor() -> tuple[int, ...]:
    """The oldest torch the package supports, from pyproject.toml's ``torch>=X.Y``."""
    with open(ROOT / "pyproject.toml", "rb") as file:
        dependencies = tomllib.load(file)["project"]["dependencies"]
    for dependency in dependencies:
        found = re.fullmatch(r"torch\s*>=\s*([\d.]+)", dependency.strip())
        if found:
            return _release(found.group(1))
    raise RuntimeError("pyproject.toml declares no torch>=X.Y dependency")


@nox.session(venv_backend=SHARED, default=False)
def semantics_matrix(session: nox.Session) -> None:
    """Every claims row and every page doctest on each torch release of conf/torch-releases.toml.

    ``nox -s semantics_matrix -- 2.14.1`` runs only the releases given.  A release older than
    the package requires (pyproject.toml's ``torch>=``) gets torch and the package without its
    dependencies: its rows are probed and its record says which of the package's functions run
    there, but the pages' doctests are not run.  One environment per
    release, .nox/matrix/torch-X.Y.Z, installed with the pins conf/torch_pins.py generates for
    it (as ``ATTENTION_TORCH`` does) and no pip cache; refuses to run on any other torch, runs
    every row and the pages' doctests, and only then writes conf/records/torch-<release>.json
    and deletes the environment (a failed run keeps it, and the next run resumes it).  Not in
    the default run: a CUDA build of torch is several GB.
    """
    listed = [release.torch for release in RELEASES]
    chosen = session.posargs or listed
    for torch in chosen:
        if not re.fullmatch(r"\d+\.\d+\.\d+", torch):
            session.error(f"semantics_matrix takes torch releases X.Y.Z, got {torch!r}")
        if torch not in listed:
            session.log(
                f"torch {torch} is not in conf/torch-releases.toml: list it to verify on it"
            )
    floor = _torch_floor()
    for torch in chosen:
        venv = MATRIX_ENV / f"torch-{torch}"
        supported = _release(torch) >= floor
        if supported:
            _use_env(
                session,
                extras=["test", "plots"],
                torch=f"torch=={torch}",
                venv=venv,
                shared=(),
            )
        else:  # older than the package requires: the rows are probed, the pages are not run
            session.log(f"torch {torch} is older than the package requires: probing the rows only")
            _use_env(
                session,
                packages=["torch", "numpy"],
                torch=f"torch=={torch}",
                venv=venv,
                shared=(),
                package_deps=False,
            )
        cli = ("python", "-m", "attention.semantics", "--require-torch", torch)
        session.run(*cli)  # every row, before anything else runs in this environment
        session.run("python", "-m", "attention.semantics.snippets")  # each row's snippet
        if supported:
            _pytest(session, f"semantics-matrix-{torch}", "docs", "-p", "no:cacheprovider")
        session.run(*cli, "--record")  # only once the rows and the pages' doctests passed
        session.log(f"dropping {venv}")
        shutil.rmtree(venv)


# -- the other frameworks' mask semantics (not in the default run: it installs JAX, Flax, Keras and
# Transformers, about 1 GB, and runs them) -------------------------------------------------------

ECOSYSTEM_CONSTRAINTS = paths.ECOSYSTEM_CONSTRAINTS
ECOSYSTEM_PACKAGES = ("jax", "jaxlib", "flax", "keras", "transformers")
ECOSYSTEM_TESTS = ("tests/test_semantics_ecosystem.py", "tests/test_semantics_ecosystem_live.py")


@nox.session(python="3.11", default=False)
def semantics_ecosystem(session: nox.Session) -> None:
    """Every cross-framework claim against pinned JAX, Flax, Keras (JAX backend) and Transformers.

    Installs them with conf/constraints.txt and conf/constraints-ecosystem.txt (torch stays
    pinned), runs every row of conf/semantics-ecosystem.toml -- failing on any mismatch or probe
    error -- and rewrites the verification record conf/records/ecosystem.json (package
    versions, date, each row's result) that the site shows.  Then the live rows, their reproduce
    snippets and the flipped-framework tests run under pytest (build/reports/
    semantics-ecosystem.xml).  Rows that need a CUDA device stay "not verified" on a CPU machine.
    """
    session.install(
        *("-c", _constraints(session), "-c", str(ECOSYSTEM_CONSTRAINTS)),
        *("-e", ".[test]"),
        *ECOSYSTEM_PACKAGES,
    )
    env = {"KERAS_BACKEND": "jax"}
    # the record first: the tests then check the fresh record against the claims and probes
    session.run(
        "python",
        "-m",
        "attention.semantics",
        *("--all", "--record"),
        env=env,
    )
    _pytest(session, "semantics-ecosystem", *(session.posargs or ECOSYSTEM_TESTS), env=env)
