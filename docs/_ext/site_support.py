"""Site-wide build support: per-language settings, the language switch, API names.

* ``config-inited``: the page title and the search language follow ``language`` (``-D
  language=zh_CN`` is applied after conf.py runs, so conf.py cannot branch on it itself).
* ``builder-inited``: MyST-NB writes its notebook outputs next to the HTML output folder by
  default, which would put a ``jupyter_execute/`` folder inside the published site; it goes
  into the build's doctree folder instead.
* Chinese search: Sphinx 9.0's ``zh`` search writes ``window.Stemmer = ChineseStemmer`` but ships
  the English stemmer (sphinx-doc/sphinx#14229, fixed after 9.0), so search fails in the browser
  with "ChineseStemmer is not defined".  ``_ChineseSearch`` names the stemmer class that exists.
* API text: the docstrings in ``src/attention`` stay the single English source; the gettext
  build extracts their prose into ``reference/api/<page>.pot`` like any page's, and the Chinese
  build applies ``docs/locales/zh_CN/LC_MESSAGES/reference/api/<page>.po`` (code and examples
  untranslated).
* ``html-page-context``: every page gets ``language_switch``, the relative link to the same page
  in the other language (rendered by ``_templates/page.html``), and ``<link rel="alternate">``.
  ``_static/site.js`` keeps the reader's anchor on that link (``…/en/x.html#a`` switches to
  ``…/zh_CN/x.html#a``), adds a button that copies the link to each heading and table row, and
  keeps the language switch and the TeX source of formulas out of search result snippets.
* the theme's strings: the gettext build extracts the messages of furo's templates too (Sphinx
  extracts only those of ``templates_path``), so ``sphinx.pot`` lists every string a page shows
  and ``docs/locales/zh_CN/LC_MESSAGES/sphinx.po`` translates them.
* Names that break only where they should: in prose, a heading or a table cell, an inline literal
  that is one dotted or underscored name (``sdpa.attn_mask.bool``, ``scaled_dot_product_attention``)
  gets a ``<wbr>`` after each dot and underscore (:class:`_BreakableNames`), and the CSS lets it
  break there and nowhere else, so a narrow column never cuts it mid-word (``scaled_dot_product_att
  / ention``) and never has to scroll sideways for it.
* API names: the reference documents each public name once, under the package (``attention.X``,
  the way readers import it).  A docstring inside ``attention.masks`` that says
  ``:func:`causal_allowed``` looks for ``attention.masks.causal_allowed``; ``missing-reference``
  sends it to ``attention.causal_allowed``.  A public name the reference forgets is a warning, so
  the ``-W`` build fails.
"""

from __future__ import annotations

import importlib
import json
import logging as stdlib_logging
import os
import re
import tomllib
from pathlib import Path
from typing import Any

import sphinx.search
from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.builders.gettext import MessageCatalogBuilder
from sphinx.config import Config
from sphinx.environment import BuildEnvironment
from sphinx.search.zh import SearchChinese
from sphinx.transforms.post_transforms import SphinxPostTransform
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


def _utf8_search_index(self: Any, data: Any) -> str:
    """Sphinx's ``searchindex.js`` as UTF-8 text instead of ``\\uXXXX`` escapes.

    Sphinx writes the file as UTF-8 but escapes every non-ASCII character: each Chinese
    character then takes six bytes instead of three, and the Chinese index, which every search
    downloads whole, weighed more than a page may (docs/tests/test_browser_weight.py).  The
    search page declares UTF-8, so the browser reads the script the same either way.
    """
    text = json.dumps(data, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    return f"{self.PREFIX}{text}{self.SUFFIX}"


def _utf8_page_json(app: Sphinx) -> None:
    """Jinja's ``tojson`` (the page's site strings) as UTF-8 text instead of ``\\uXXXX`` escapes.

    The strings and citations each page carries for site.js are Chinese on the Chinese pages:
    escaped, each character takes six bytes instead of three.  ``tojson`` still escapes ``<``,
    ``>``, ``&`` and ``'``, so the JSON cannot close its ``<script>`` element.
    """
    templates = getattr(app.builder, "templates", None)
    environment = getattr(templates, "environment", None)
    if environment is not None:
        environment.policies["json.dumps_kwargs"] = {"sort_keys": True, "ensure_ascii": False}


GLOSSARY = Path(__file__).resolve().parents[1] / "glossary.toml"


def glossary_words(path: Path = GLOSSARY) -> list[str]:
    """Every Chinese term of the glossary, as a word for jieba ("分块 / 分块注意力" is two)."""
    with open(path, "rb") as file:
        entries = tomllib.load(file).get("term", [])
    return sorted({part.strip() for entry in entries for part in entry["zh"].split("/")} - {""})


class _ChineseSearch(SearchChinese):
    """jieba word splitting as in Sphinx, with the glossary's terms as words of its dictionary.

    jieba cuts a term it does not know into pieces (因果掩码 into 因果 and 掩码), and the
    search, which looks the reader's query up as one word, then finds no page that uses it.
    The JS stemmer is the English one Sphinx ships.
    """

    # IndexBuilder.get_js_stemmer_code emits `window.Stemmer = <language_name>Stemmer;` and
    # js_stemmer_rawcode is english-stemmer.js, which defines EnglishStemmer.
    language_name = "English"

    def __init__(self, options: dict[str, str]) -> None:
        super().__init__(options)
        import jieba  # only the Chinese build needs it

        self.glossary = frozenset(glossary_words())
        for word in self.glossary:
            jieba.add_word(word)  # with the frequency that keeps it whole

    def split(self, input: str) -> list[str]:
        """jieba's words, and every glossary term the text holds that jieba did not cut out.

        In search mode jieba gives a long word's two- and three-character pieces, not a
        four-character term inside it (填充掩码 in 键填充掩码), and it may cut a term across
        (旧版 + 本): the term is a word of the page all the same.
        """
        words = super().split(input)
        found = set(words)
        words += [
            term for term in self.glossary if len(term) > 1 and term not in found and term in input
        ]
        return words

    def word_filter(self, stemmed_word: str) -> bool:
        """Sphinx's: words of two characters or more; and the glossary's one-character terms.

        键, 值, 头 are words of the lesson (key, value, head): left out, a search for them finds
        nothing.
        """
        return super().word_filter(stemmed_word) or stemmed_word in self.glossary


def _extract_theme_templates(app: Sphinx) -> None:
    """Make the gettext builder read the theme's templates as well as the project's."""
    if not isinstance(app.builder, MessageCatalogBuilder):
        return
    import furo  # the theme (config html_theme); the gettext builder has no theme object

    theme_folder = Path(furo.__file__).resolve().parent / "theme" / "furo"
    builder = app.builder
    project_templates = builder._collect_templates

    def collect_templates() -> set[str]:
        theme = {path.as_posix() for path in theme_folder.rglob("*.html")}
        return project_templates() | theme

    builder._collect_templates = collect_templates  # type: ignore[method-assign]


def _move_notebook_outputs(app: Sphinx) -> None:
    config = getattr(app.env, "mystnb_config", None)
    if config is None:
        return
    # Beside the doctrees of this build: one folder per build and language, none in the site.
    folder = Path(app.doctreedir) / "jupyter_execute"
    app.env.mystnb_config = config.copy(output_folder=str(folder))


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


# a name (letters, digits, dots, underscores), perhaps called with one bare argument, `f(T)`: no
# space, hyphen or other mark where a browser would break the line
_NAME = re.compile(r"[A-Za-z0-9_.]+(?:\([A-Za-z0-9_]*\))?")
# after a dot or an underscore that follows a letter or digit and precedes a letter or underscore,
# and between the words of a CamelCase name (LowerTriangular|From|BottomRight…)
_NAME_BREAK = re.compile(r"(?<=[A-Za-z0-9][._])(?=[A-Za-z_])|(?<=[a-z])(?=[A-Z][a-z])")
_SHORTEST_PIECE = 3  # "d_k" and "F.softmax" keep their short part on the line of its neighbour
# a kebab-case name (a review rule's, "padding-mask-on-the-query-axis"): it breaks after a hyphen
_KEBAB = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)+")
_KEBAB_BREAK = re.compile(r"(?<=[a-z0-9]-)(?=[a-z0-9])")


def name_pieces(name: str) -> list[str]:
    """``name`` cut after each dot and underscore where a line may break; one piece if nowhere.

    >>> name_pieces("sdpa.attn_mask.bool")
    ['sdpa.', 'attn_', 'mask.', 'bool']
    >>> name_pieces("d_k"), name_pieces("2.14"), name_pieces("torch 2.13.0")
    (['d_k'], ['2.14'], ['torch 2.13.0'])
    >>> name_pieces("mask-after-softmax"), name_pieces("1e-9")
    (['mask-', 'after-', 'softmax'], ['1e-9'])
    >>> name_pieces("LocalAttentionFromBottomRightMask(W)")
    ['Local', 'Attention', 'From', 'Bottom', 'Right', 'Mask(W)']
    """
    if _KEBAB.fullmatch(name):
        split = _KEBAB_BREAK.split(name)
    elif _NAME.fullmatch(name):
        split = _NAME_BREAK.split(name)
    else:
        return [name]  # a shape, a call or a phrase, not a name: it keeps its line
    pieces: list[str] = []
    for piece in split:
        if pieces and (len(piece) < _SHORTEST_PIECE or len(pieces[-1]) < _SHORTEST_PIECE):
            pieces[-1] += piece
        else:
            pieces.append(piece)
    return pieces


class wbr_literal(nodes.literal):  # noqa: N801 (docutils names node classes in lower case)
    """An inline literal that is one name, written with a ``<wbr>`` between its pieces."""


def _visit_wbr_literal(translator: Any, node: wbr_literal) -> None:
    # No span.pre: a name holds no space, and a hyphen only where a <wbr> follows it, so the
    # <wbr> are its only breaks.
    pieces = [translator.encode(piece) for piece in name_pieces(node.astext())]
    # no "docutils" class: no style reads it, and a page has a hundred names
    code = translator.starttag(node, "code", "", CLASS="literal notranslate")
    translator.body.append(code + "<wbr>".join(pieces) + "</code>")
    raise nodes.SkipNode


class _BreakableNames(SphinxPostTransform):
    """Write each inline name of a page as a :class:`wbr_literal`: in prose, headings and tables.

    A phone's column is about 40 characters of code wide: ``torch.nn.functional.scaled_dot_
    product_attention()`` must break somewhere, and furo's ``overflow-wrap`` would cut it inside
    a word; after a dot or an underscore it still reads as the name.
    """

    default_priority = 900  # after the references are resolved (their literals included)
    formats = ("html",)

    def run(self, **kwargs: Any) -> None:
        for literal in list(self.document.findall(nodes.literal)):
            if type(literal) is not nodes.literal or "kbd" in literal["classes"]:
                continue
            if literal.get("language") or len(literal.children) != 1:
                continue
            if not isinstance(literal[0], nodes.Text) or len(name_pieces(literal.astext())) < 2:
                continue
            name = wbr_literal(literal.rawsource, literal.astext(), **literal.attributes)
            name["classes"].append("wbr-name")
            literal.replace_self(name)


class _CodeOutOfSearch(SphinxPostTransform):
    """Keep code blocks out of the search index (Sphinx skips nodes of class ``no-search``).

    Every lesson's doctests would otherwise put ``import``, ``tensor`` and every number they
    print into the index, which the search page downloads whole: the Chinese index weighed more
    than the budget of a page.  Names in prose (inline code) stay searchable.
    """

    default_priority = 900
    formats = ("html",)

    def run(self, **kwargs: Any) -> None:
        for block in self.document.findall(nodes.literal_block):
            block["classes"].append("no-search")


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
                "add it to a page of docs/reference/api/",
                PACKAGE,
                name,
                PACKAGE,
            )


def setup(app: Sphinx) -> ExtensionMetadata:
    app.add_config_value("site_titles", {}, "html", types=frozenset({dict}))
    app.add_search_language(_ChineseSearch)
    # the pinned Sphinx (9.0) writes the index through this one method
    sphinx.search._JavaScriptIndex.dumps = _utf8_search_index  # type: ignore[method-assign]
    # priority 400: before sphinx-togglebutton turns its hint settings into page scripts
    app.connect("config-inited", _configure_language, priority=400)
    app.connect("builder-inited", _move_notebook_outputs, priority=600)  # after myst-nb's
    app.connect("builder-inited", _extract_theme_templates)
    app.connect("builder-inited", _utf8_page_json)
    app.add_js_file("site.js")  # docs/_static/site.js
    app.add_node(wbr_literal, html=(_visit_wbr_literal, None))
    app.add_post_transform(_BreakableNames)
    app.add_post_transform(_CodeOutOfSearch)
    app.connect("html-page-context", _add_language_switch)
    app.connect("missing-reference", _resolve_submodule_alias)
    app.connect("env-check-consistency", _check_public_names_documented)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
