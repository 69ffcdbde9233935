"""The strings the docs extensions write into pages, translated with gettext like the pages.

The English text is the message id: an extension writes ``_("Verified on")`` (``_`` from this
module, Sphinx's :func:`sphinx.locale.get_translation` for the catalogue ``site``), and the Chinese
build finds ``验证于`` in ``docs/locales/zh_CN/LC_MESSAGES/site.po``.

Extraction runs with the page catalogues: the gettext build (``nox -s translations``) writes
``site.pot`` beside the pages' ``.pot`` files, extracted from the extensions in :data:`SOURCES`
with Babel (the same as ``pybabel extract -k _ docs/_ext/semantics_table.py
docs/_ext/benchmark_table.py``); ``sphinx-intl update`` then adds new messages to ``site.po``
and marks changed ones fuzzy, and ``nox -s docs`` fails while any is untranslated or fuzzy.

The build compiles ``site.po`` to ``site.mo`` (ignored by git) when the ``.po`` is newer, as Sphinx
does for the pages' catalogues.
"""

from __future__ import annotations

import datetime
import os
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_file
from babel.messages.pofile import write_po
from sphinx.application import Sphinx
from sphinx.locale import get_translation
from sphinx.util.i18n import CatalogInfo
from sphinx.util.typing import ExtensionMetadata

CATALOGUE = "site"
EXT = Path(__file__).resolve().parent
LOCALES = EXT.parent / "locales"
SOURCES = (
    EXT / "semantics_table.py",
    EXT / "semantics_releases.py",
    EXT / "benchmark_table.py",
    EXT / "citation.py",
)

_ = get_translation(CATALOGUE)


def load_catalogue(app: Sphinx, catalogue: str = CATALOGUE) -> None:
    """Compile the build language's ``<catalogue>.po`` if it changed, and register it.

    ``site`` by default; docs/_ext/review_rules.py loads its ``review/registry`` the same way.
    """
    language = app.config.language
    folder = LOCALES / str(language) / "LC_MESSAGES"
    if (folder / f"{catalogue}.po").is_file():
        info = CatalogInfo(str(folder), catalogue, "utf-8")
        if info.is_outdated():
            info.write_mo(str(language))
    app.add_message_catalog(catalogue, str(LOCALES))


def extract() -> Catalog:
    """Every ``_("…")`` message of :data:`SOURCES`, in the order they appear."""
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "0"))
    catalogue = Catalog(
        project="attention",
        creation_date=datetime.datetime.fromtimestamp(epoch, datetime.UTC),
        fuzzy=False,
    )
    for source in SOURCES:
        for _line, message, comments, context in extract_from_file(
            "python", str(source), keywords={"_": None}, comment_tags=("Translators:",)
        ):
            catalogue.add(message, auto_comments=comments, context=context)
    return catalogue


def _write_pot(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.name != "gettext":
        return
    with open(Path(app.outdir) / f"{CATALOGUE}.pot", "wb") as file:
        write_po(file, extract(), no_location=True, omit_header=False, width=100)


def setup(app: Sphinx) -> ExtensionMetadata:
    load_catalogue(app)
    app.connect("build-finished", _write_pot)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
