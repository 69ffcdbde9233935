"""Site-wide build support: per-language settings, the language switch, API names.

* ``config-inited``: the page title and the search language follow ``language`` (``-D
  language=zh_CN`` is applied after conf.py runs, so conf.py cannot branch on it itself).
* ``builder-inited``: MyST-NB writes its notebook outputs next to the HTML output folder by
  default, which would put a ``jupyter_execute/`` folder inside the published site; it goes
  into the build's doctree folder instead.
* Chinese search: Sphinx 9.0's ``zh`` search writes ``window.Stemmer = ChineseStemmer`` but ships
  the English stemmer (sphinx-doc/sphinx#14229, fixed after 9.0), so search fails in the browser
  with "ChineseStemmer is not defined".  ``_ChineseSearch`` names the stemmer class that exists.
* a transform marks text that comes from docstrings as untranslatable: the API reference is
  single-sourced from the package, in English, in both languages.
* ``html-page-context``: every page gets ``language_switch``, the relative link to the same page
  in the other language (rendered by ``_templates/page.html``), and ``<link rel="alternate">``.
* API names: the reference documents each public name once, under the package (``attention.X``,
  the way readers import it).  A docstring inside ``attention.masks`` that says
  ``:func:`causal_allowed``` looks for ``attention.masks.causal_allowed``; ``missing-reference``
  sends it to ``attention.causal_allowed``.  A public name the reference forgets is a warning, so
  the ``-W`` build fails.
"""

from __future__ import annotations

import importlib
import logging as stdlib_logging
import os
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.builders.gettext import MessageCatalogBuilder
from sphinx.config import Config
from sphinx.environment import BuildEnvironment
from sphinx.search.zh import SearchChinese
from sphinx.transforms import SphinxTransform
from sphinx.util import logging
from sphinx.util.typing import ExtensionMetadata

# language code -> (name of the language in itself, BCP 47 tag, Read the Docs language slug)
LANGUAGES: dict[str, tuple[str, str, str]] = {
    "en": ("English", "en", "en"),
    "zh_CN": ("简体中文", "zh-CN", "zh-cn"),
}


def _configure_language(app: Sphinx, config: Config) -> None:
    if config.language not in LANGUAGES:
        known = ", ".join(LANGUAGES)
        raise ValueError(f"language must be one of {known}, got {config.language!r}")
    config.html_title = config.site_titles[config.language]
    # Sphinx's Chinese search splits words with jieba (a docs dependency).
    config.html_search_language = "zh" if config.language == "zh_CN" else config.language
    if config.language == "zh_CN":
        # sphinx-togglebutton ships no Chinese catalogue for its fold hints
        config.togglebutton_hint = "点击展开"
        config.togglebutton_hint_hide = "点击收起"
        import jieba  # only the Chinese build needs it

        jieba.setLogLevel(stdlib_logging.WARNING)  # quiet its dictionary-loading chatter


class _ChineseSearch(SearchChinese):
    """jieba word splitting as in Sphinx; the JS stemmer is the English one Sphinx ships."""

    # IndexBuilder.get_js_stemmer_code emits `window.Stemmer = <language_name>Stemmer;` and
    # js_stemmer_rawcode is english-stemmer.js, which defines EnglishStemmer.
    language_name = "English"


def _move_notebook_outputs(app: Sphinx) -> None:
    config = getattr(app.env, "mystnb_config", None)
    if config is None:
        return
    # Beside the doctrees of this build: one folder per build and language, none in the site.
    folder = Path(app.doctreedir) / "jupyter_execute"
    app.env.mystnb_config = config.copy(output_folder=str(folder))


class KeepDocstringsUntranslated(SphinxTransform):
    """Mark docstring text (autodoc output) so gettext neither extracts nor replaces it."""

    default_priority = 10  # before sphinx.transforms.i18n.Locale (20)

    def apply(self, **kwargs: Any) -> None:
        # Outside the gettext build, Sphinx's RemoveTranslatableInline unwraps every inline that
        # carries "translatable" and appends its text to the parent; there only its own
        # placeholders (field bodies) may carry it, or signatures would read "=allowedNone" and
        # parameter types "query ()".  (The html builds replace only what gettext extracted.)
        extracting = issubclass(self.env._builder_cls, MessageCatalogBuilder)
        for node in self.document.findall(nodes.TextElement):
            if isinstance(node, nodes.inline) and "translatable" not in node and not extracting:
                continue
            source = node.source or ""
            in_object_description = any(
                isinstance(parent, addnodes.desc) for parent in _ancestors(node)
            )
            if ":docstring of " in source or in_object_description:
                node["translatable"] = False


def _ancestors(node: nodes.Node) -> list[nodes.Node]:
    parents = []
    parent = node.parent
    while parent is not None:
        parents.append(parent)
        parent = parent.parent
    return parents


def counterpart_url(pagename: str, language: str, target: str) -> str:
    """The relative URL of ``pagename`` in the ``target`` language, from the current page.

    Locally the languages are sibling folders (``html/en/…``, ``html/zh_CN/…``).  On Read the
    Docs each language is its own project under ``/<slug>/<version>/``, one level deeper.
    For example, ``lesson/01-projections`` in ``en`` links to
    ``../../zh_CN/lesson/01-projections.html`` (``sitetool.py site`` and the browser check
    follow every such link).
    """
    up = "../" * (pagename.count("/") + 1)
    version = os.environ.get("READTHEDOCS_VERSION")
    if os.environ.get("READTHEDOCS") == "True" and version:
        return f"{up}../{LANGUAGES[target][2]}/{version}/{pagename}.html"
    return f"{up}{target}/{pagename}.html"


def _add_language_switch(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    language = app.config.language
    links = []
    for target, (name, tag, _slug) in LANGUAGES.items():
        if target == language:
            continue
        href = counterpart_url(pagename, language, target)
        links.append({"href": href, "name": name, "hreflang": tag})
        context["metatags"] = (
            context.get("metatags", "")
            + f'\n    <link rel="alternate" hreflang="{tag}" href="{href}" />'
        )
    context["language_switch"] = links


logger = logging.getLogger(__name__)

PACKAGE = "attention"


def _public_names() -> list[str]:
    return list(importlib.import_module(PACKAGE).__all__)


def _resolve_submodule_alias(
    app: Sphinx, env: BuildEnvironment, node: addnodes.pending_xref, contnode: nodes.Element
) -> nodes.Element | None:
    """Resolve ``attention.<module>.<name>[.<attr>]`` to ``attention.<name>[.<attr>]``."""
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "")
    candidates = [target]
    module = node.get("py:module")
    if module and not target.startswith(f"{PACKAGE}."):
        candidates.append(f"{module}.{target}")
    public = set(_public_names())
    for candidate in candidates:
        parts = candidate.split(".")
        if len(parts) >= 3 and parts[0] == PACKAGE and parts[2] in public:
            alias = ".".join([PACKAGE, *parts[2:]])
            domain = env.domains["py"]
            return domain.resolve_xref(
                env, node["refdoc"], app.builder, node["reftype"], alias, node, contnode
            )
    return None


def _check_public_names_documented(app: Sphinx, env: BuildEnvironment) -> None:
    documented = env.domains["py"].objects
    for name in _public_names():
        if f"{PACKAGE}.{name}" not in documented:
            logger.warning(
                "%s.%s is public (in %s.__all__) but the API reference does not document it; "
                "add it to docs/reference/api.md",
                PACKAGE,
                name,
                PACKAGE,
            )


def setup(app: Sphinx) -> ExtensionMetadata:
    app.add_config_value("site_titles", {}, "html", types=frozenset({dict}))
    app.add_search_language(_ChineseSearch)
    # priority 400: before sphinx-togglebutton turns its hint settings into page scripts
    app.connect("config-inited", _configure_language, priority=400)
    app.connect("builder-inited", _move_notebook_outputs, priority=600)  # after myst-nb's
    app.add_transform(KeepDocstringsUntranslated)
    app.connect("html-page-context", _add_language_switch)
    app.connect("missing-reference", _resolve_submodule_alias)
    app.connect("env-check-consistency", _check_public_names_documented)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
