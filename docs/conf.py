"""Sphinx configuration: one English MyST source, built in English and in Chinese (zh_CN).

Build one language by hand (``nox -s docs`` builds both and checks them)::

    sphinx-build -W -n -b html docs docs/_build/html/en
    sphinx-build -W -n -b html -D language=zh_CN docs docs/_build/html/zh_CN

The Chinese text comes from the gettext catalogues in ``docs/locales/zh_CN/LC_MESSAGES``; code,
doctests and code cells are never translated, so both languages run the same examples.
"""

from __future__ import annotations

import doctest
import hashlib
import logging
import os
import pathlib
import shutil
import sys
import warnings
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.deprecation import RemovedInSphinx10Warning
from sphinx.environment import BuildEnvironment
from sphinx.pycode import ModuleAnalyzer

import attention

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))
# The pages' hidden cells import docs/_ext/figure_glue.py (the kernel inherits the environment).
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(DOCS / "_ext"), *filter(None, [os.environ.get("PYTHONPATH")])]
)

# Figures drawn by code cells read this matplotlibrc (the kernel inherits the environment): it
# fixes the SVG hash salt and the resolution.  PNG output from Agg carries no date, and nox sets
# SOURCE_DATE_EPOCH, which matplotlib writes instead of the clock into SVG/PDF metadata; so two
# builds of one commit write the same bytes (`nox -s reproducible` checks it).
os.environ["MATPLOTLIBRC"] = str(DOCS / "matplotlibrc")

# accessible-pygments (furo's code styles) calls logging.basicConfig(level=INFO) when it is
# imported, which would print every library's INFO records (nbclient's "Executing notebook with
# kernel", as "INFO traitlets") into the build output.  Import it now and undo exactly that.
_root_logger = logging.getLogger()
_root_state = (list(_root_logger.handlers), _root_logger.level)
import a11y_pygments  # noqa: E402,F401  (imported for its side effect, undone below)

for _handler in [h for h in _root_logger.handlers if h not in _root_state[0]]:
    _root_logger.removeHandler(_handler)
_root_logger.setLevel(_root_state[1])

# Code cells run in the kernel described by docs/_tools/kernels/python3/kernel.json (first on
# JUPYTER_PATH, inherited by the kernel's launcher): ipykernel with its log level at ERROR.  The
# notebook client of myst-nb/jupyter-cache offers no way to choose the IPC transport or CurveZMQ
# keys, so without it every kernel would log that it "is running over TCP without encryption";
# the kernel listens on 127.0.0.1 only and lives for one page's execution.
os.environ["JUPYTER_PATH"] = os.pathsep.join(
    [str(DOCS / "_tools"), *filter(None, [os.environ.get("JUPYTER_PATH")])]
)

# sphinx-autodoc-typehints 3.6.1 (the pinned release) calls an API that Sphinx 9 deprecates, once
# per docstring; the notice says nothing about this site.
warnings.filterwarnings(
    "ignore", category=RemovedInSphinx10Warning, module="sphinx_autodoc_typehints"
)

# -- Project ----------------------------------------------------------------------------------
project = "attention"
author = "attention contributors"
copyright = "attention contributors"  # no year: a build date would make builds differ
version = release = attention.__version__
language = "en"  # the Chinese build passes -D language=zh_CN

# Per-language strings that live in the configuration, not in a page (docs/_ext/site_support.py).
site_titles = {
    "en": "Attention: get the mask semantics right",
    "zh_CN": "注意力：先把掩码语义写对",
}

extensions = [
    "myst_nb",  # loads myst_parser; executes `file_format: mystnb` text notebooks
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",  # the package's docstrings use Google style (Args:, Returns:, Raises:)
    "sphinx_autodoc_typehints",  # after autodoc and napoleon
    "sphinx.ext.intersphinx",
    "sphinx.ext.doctest",
    "mathml",  # docs/_ext/mathml.py: math typeset at build time, as MathML (no math script)
    "sphinx_togglebutton",
    "sphinx_copybutton",
    "notebooks",  # docs/_ext/notebooks.py: each lesson page as a Jupyter notebook
    "site_support",  # docs/_ext/site_support.py: languages, language switch, API names
    "semantics_table",  # docs/_ext/semantics_table.py: the verified mask-semantics table
    "semantics_releases",  # docs/_ext/semantics_releases.py: the rows release by release
    "review_rules",  # docs/_ext/review_rules.py: the checker's rules, from its registry
    "benchmark_table",  # docs/_ext/benchmark_table.py: the committed benchmark record
    "localized_figure",  # docs/_ext/localized_figure.py: figures in the page's language
    "citation",  # docs/_ext/citation.py: the Cite page's examples, from this build
    "asset_bundle",  # docs/_ext/asset_bundle.py: one style sheet and one script per page
    "book",  # docs/_ext/book.py: the PDF book, numbered as the site
]

exclude_patterns = [
    "_build",
    "jupyter_execute",
    "_ext",
    "_fonts",
    "_intersphinx",
    "_static",
    "_templates",
    "_tools",
    "locales",
    "tests",
    "**/.ipynb_checkpoints",
    "**/README.md",
    "book.md",  # the PDF book's root: docs/_ext/book.py lets the LaTeX builder alone read it
]
templates_path = ["_templates"]
nitpicky = True
numfig = True  # "Fig. 2.1" / "图 2.1": every named figure (each {localized-figure}) gets a number
# Equations and figures are numbered per part of the lesson: the lesson's toctree is numbered
# (docs/lesson/index.md: part 2 is "2. Scaled dot-product attention"), so the first numbered
# equation of part 2 is (2.1), the next (2.2), whichever page of the part holds it (the
# measured benchmark is part 10's second page); on a page outside the lesson they run (1), (2),
# ...  Their anchors are their labels, the same in both languages
# (docs/tests/test_equation_numbers.py).
math_numfig = True
numfig_secnum_depth = 1
suppress_warnings: list[str] = []

# -- MyST and MyST-NB ---------------------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
# Heading anchors are slugs of the English heading text; the Chinese build keeps them (the
# translated title does not change the section's ids), so `.../en/x.html#a` and
# `.../zh_CN/x.html#a` cite the same claim.  The browser check verifies this.
myst_heading_anchors = 4


def _cell_inputs_key() -> str:
    """A digest of what the code cells read besides their code: the package, the figure settings.

    jupyter-cache keys an output on the cell code alone, so a cached figure would outlive a
    change to ``attention.plots``.
    """
    files = [
        *sorted((DOCS.parent / "src" / "attention").rglob("*.py")),
        DOCS / "_ext" / "figure_glue.py",
        DOCS / "matplotlibrc",
    ]
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(DOCS.parent).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


# Execute each text notebook once and cache the outputs in a jupyter-cache shared by both
# languages: code is not translated, so the zh_CN build finds every notebook in the cache.  The
# cache lives in a folder named for the cells' other inputs: when the package changes, the path
# (a configuration value) changes, Sphinx rereads every page and the notebooks run again.
nb_execution_mode = "cache"
_CACHES = DOCS / "_build" / ".jupyter_cache"
nb_execution_cache_path = str(_CACHES / _cell_inputs_key())
for _stale in _CACHES.glob("*") if _CACHES.is_dir() else ():
    if _stale.name != Path(nb_execution_cache_path).name:
        shutil.rmtree(_stale, ignore_errors=True)  # the outputs of an earlier package
nb_execution_raise_on_error = True  # a broken figure breaks the build
nb_execution_show_tb = True
nb_execution_timeout = 300
nb_merge_streams = True

# -- Copy buttons (sphinx-copybutton) --------------------------------------------------------
# A doctest block copies as code: the `>>> ` / `... ` prompts are stripped and the lines without
# a prompt (the expected output) are left out.  Blocks with no prompt at all copy unchanged.  The
# button's tooltips follow <html lang>: sphinx-copybutton ships them in English and zh-CN.
copybutton_prompt_text = r">>> |\.\.\. "
copybutton_prompt_is_regexp = True
copybutton_only_copy_prompt_lines = True
copybutton_remove_prompts = True

# -- Autodoc ------------------------------------------------------------------------------------
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_typehints = "description"
# Defaults stand in the signature, as in PyTorch's reference; a "default:" label in the parameter
# list would be the one English word sphinx-autodoc-typehints writes that no catalogue can reach.
typehints_defaults = None
always_document_param_types = False
typehints_use_rtype = True
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False  # sphinx-autodoc-typehints writes the return type


# Python 3.13 and later define pathlib.Path in pathlib._local, a name no inventory holds: the API
# pages would name it (an unresolved reference under -n) and differ between interpreters.  In this
# process only (code cells and doctests run in their own), the class says the module Python
# documents it in.  (A config function, typehints_fixup_module_name, cannot be cached by Sphinx.)
pathlib.Path.__module__ = "pathlib"


# -- Intersphinx: committed inventories, no network at build time -------------------------------
# docs/_intersphinx/make_inventories.py writes these files; add an object there when a page
# refers to a new one.
intersphinx_mapping = {
    "torch": ("https://docs.pytorch.org/docs/stable/", "_intersphinx/torch-objects.inv"),
    "python": ("https://docs.python.org/3/", "_intersphinx/python-objects.inv"),
}
intersphinx_timeout = 1

# -- Doctest ------------------------------------------------------------------------------------
# The same flags as the Sybil run in docs/conftest.py, so both runners agree on every example.
doctest_default_flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
doctest_test_doctest_blocks = ""  # `>>>` in docstrings run under pytest --doctest-modules

# -- HTML ---------------------------------------------------------------------------------------
html_theme = "furo"
html_title = site_titles["en"]
html_static_path = ["_static"]
html_css_files = ["site.css", "math.css"]
html_favicon = "_static/favicon.svg"  # also spares browsers a request for /favicon.ico
html_last_updated_fmt: str | None = None  # no build timestamps: builds are reproducible
html_copy_source = False
html_show_sourcelink = False
html_theme_options = {"top_of_page_buttons": []}
# Read the Docs gives each build its canonical address (…/en/latest/, …/zh-cn/latest/): every page
# then names its canonical URL, and the Cite page's examples start there.  Local builds have none.
html_baseurl = os.environ.get("READTHEDOCS_CANONICAL_URL", "")

# Formulas become MathML Core when the site is built (docs/_ext/mathml.py): no math script on
# any page; math.css lays them out and declares the subset math font the build writes.
html_math_renderer = "mathml"

# -- LaTeX: the book as a PDF in each language (nox -s pdf) -----------------------------------
# The same pages, catalogues and executed code cells as the site; docs/_ext/book.py sets the
# file, the title and the CJK fonts per language and numbers the book as the site.  XeLaTeX
# sets the Chinese text with xeCJK and Debian's fonts-noto-cjk; nothing is downloaded.
latex_engine = "xelatex"
latex_toplevel_sectioning = "part"  # lesson, concepts, reference; each lesson page a chapter
latex_show_urls = "no"
latex_show_pagerefs = False
latex_domain_indices = False
latex_elements: dict[str, str] = {}

# -- gettext (sphinx-intl) ----------------------------------------------------------------------
locale_dirs = ["locales/"]
gettext_compact = False  # one catalogue per page
gettext_additional_targets: list[str] = []  # code blocks and doctests are never translated
gettext_uuid = False  # stable .pot files: no random ids ...
gettext_location = False  # ... and no line numbers that change with every edit
gettext_last_translator = "attention contributors"
gettext_language_team = "attention zh_CN"


# -- The attention.semantics API: one name per object, as readers import it ----------------------
# The reference documents attention.semantics.<name> (the names in its __all__), while type hints
# and docstrings inside its submodules name attention.semantics.<submodule>.<name> or a bare name.


def _resolve_semantics_name(
    app: Sphinx, env: BuildEnvironment, node: addnodes.pending_xref, contnode: nodes.Element
) -> nodes.Element | None:
    """Resolve a reference from or to ``attention.semantics.*`` to the one object documented."""
    package = "attention.semantics"
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "")
    module = node.get("py:module") or ""
    if not (target.startswith(f"{package}.") or module.startswith(package)):
        return None
    last = target.rsplit(".", 1)[-1]
    objects = env.domains["py"].objects
    candidates = [
        name
        for name in (f"{package}.{last}", *objects)
        if name in objects and name.startswith(f"{package}.") and name.rsplit(".", 1)[-1] == last
    ]
    if len(set(candidates)) != 1:  # unknown or ambiguous: leave it to the nitpicky warning
        return None
    return env.domains["py"].resolve_xref(
        env, node["refdoc"], app.builder, node["reftype"], candidates[0], node, contnode
    )


def _reexported_attribute_doc(
    app: Sphinx, what: str, name: str, obj: object, options: object, lines: list[str]
) -> None:
    """A constant re-exported by a package keeps the docstring of the module that defines it.

    ``VOCABULARY = {...}`` followed by a string literal is documented where it is assigned
    (attention.semantics.claims); under attention.semantics autodoc finds only dict's docstring.
    """
    if what != "data" or not name.startswith("attention."):
        return
    attribute = name.rsplit(".", 1)[-1]
    for module_name, module in sorted(sys.modules.items()):
        if not module_name.startswith("attention.") or getattr(module, attribute, None) is not obj:
            continue
        docs = ModuleAnalyzer.for_module(module_name).find_attr_docs()
        if ("", attribute) in docs:
            lines[:] = list(docs["", attribute])
            return


def setup(app: Sphinx) -> None:
    app.connect("missing-reference", _resolve_semantics_name)
    app.connect("autodoc-process-docstring", _reexported_attribute_doc)
