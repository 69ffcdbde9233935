"""Sphinx configuration: one English MyST source, built in English and in Chinese (zh_CN).

Build one language by hand (``nox -s docs`` builds both and checks them)::

    sphinx-build -W -n -b html docs docs/_build/html/en
    sphinx-build -W -n -b html -D language=zh_CN docs docs/_build/html/zh_CN

The Chinese text comes from the gettext catalogues in ``docs/locales/zh_CN/LC_MESSAGES``; code,
doctests and code cells are never translated, so both languages run the same examples.
"""

from __future__ import annotations

import doctest
import os
import sys
import warnings
from pathlib import Path

from sphinx.deprecation import RemovedInSphinx10Warning

import attention

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))

# Figures drawn by code cells read this matplotlibrc (the kernel inherits the environment): it
# fixes the SVG hash salt and the resolution.  PNG output from Agg carries no date, and nox sets
# SOURCE_DATE_EPOCH, which matplotlib writes instead of the clock into SVG/PDF metadata; so two
# builds of one commit write the same bytes (`nox -s reproducible` checks it).
os.environ["MATPLOTLIBRC"] = str(DOCS / "matplotlibrc")

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
    "zh_CN": "注意力：先把 Mask 语义写对",
}

extensions = [
    "myst_nb",  # loads myst_parser; executes `file_format: mystnb` text notebooks
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",  # the package's docstrings use Google style (Args:, Returns:, Raises:)
    "sphinx_autodoc_typehints",  # after autodoc and napoleon
    "sphinx.ext.intersphinx",
    "sphinx.ext.doctest",
    "sphinx.ext.mathjax",
    "sphinx_togglebutton",
    "site_support",  # docs/_ext/site_support.py: languages, language switch, API names
    "semantics_table",  # docs/_ext/semantics_table.py: the verified mask-semantics table
    "benchmark_table",  # docs/_ext/benchmark_table.py: the committed benchmark record
    "localized_figure",  # docs/_ext/localized_figure.py: figures in the page's language
]

exclude_patterns = [
    "_build",
    "jupyter_execute",
    "_ext",
    "_intersphinx",
    "_static",
    "_templates",
    "_tools",
    "_vendor",
    "locales",
    "tests",
    "**/.ipynb_checkpoints",
    "**/README.md",
]
templates_path = ["_templates"]
nitpicky = True
numfig = True  # "Fig. 1" / "图 1": every named figure (each {localized-figure}) gets a number
suppress_warnings: list[str] = []

# -- MyST and MyST-NB ---------------------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
# Heading anchors are slugs of the English heading text; the Chinese build keeps them (the
# translated title does not change the section's ids), so `.../en/x.html#a` and
# `.../zh_CN/x.html#a` cite the same claim.  The browser check verifies this.
myst_heading_anchors = 4

# Execute each text notebook once and cache the outputs in a jupyter-cache shared by both
# languages: code is not translated, so the zh_CN build finds every notebook in the cache.
nb_execution_mode = "cache"
nb_execution_cache_path = str(DOCS / "_build" / ".jupyter_cache")
nb_execution_raise_on_error = True  # a broken figure breaks the build
nb_execution_show_tb = True
nb_execution_timeout = 300
nb_merge_streams = True

# -- Autodoc ------------------------------------------------------------------------------------
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_typehints = "description"
typehints_defaults = "comma"
always_document_param_types = False
typehints_use_rtype = True
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False  # sphinx-autodoc-typehints writes the return type

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
html_css_files = ["site.css"]
html_favicon = "_static/favicon.svg"  # also spares browsers a request for /favicon.ico
html_last_updated_fmt: str | None = None  # no build timestamps: builds are reproducible
html_copy_source = False
html_show_sourcelink = False
html_theme_options = {"top_of_page_buttons": []}

# MathJax 4 from docs/_static/vendor (docs/_vendor/README.md), never from a CDN.  Only the
# loader, TeX input, CommonHTML output and hidden MathML for screen readers are loaded: the
# combined tex-chtml.js would also start a speech worker that fetches rule files.
mathjax_path = "vendor/mathjax/startup.js"
mathjax4_config = {
    "loader": {
        "load": ["input/tex", "output/chtml", "a11y/assistive-mml"],
        # Fonts load from the local copy beside mathjax/, not from MathJax's default CDN path.
        "paths": {"fonts": "[mathjax]/.."},
    },
}

# -- gettext (sphinx-intl) ----------------------------------------------------------------------
locale_dirs = ["locales/"]
gettext_compact = False  # one catalogue per page
gettext_additional_targets: list[str] = []  # code blocks and doctests are never translated
gettext_uuid = False  # stable .pot files: no random ids ...
gettext_location = False  # ... and no line numbers that change with every edit
gettext_last_translator = "attention contributors"
gettext_language_team = "attention zh_CN"
