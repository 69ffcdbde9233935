"""Math typeset when the site is built: every formula's TeX becomes MathML Core in the HTML.

Registered as Sphinx's HTML math renderer ``mathml`` (``html_math_renderer = "mathml"`` in
conf.py), in place of ``sphinx.ext.mathjax``: a page carries no math script, and a reader sees
the formula the moment the HTML arrives, with no network and no JavaScript.  The converter is
docutils' own (:func:`docutils.utils.math.latex2mathml.tex2mathml`).

* Each formula is converted when its page is read (``doctree-read``, after the Chinese
  translation replaced the paragraph that holds it).  TeX the converter cannot render is an
  error naming the page, the line and the TeX, and the build exits with status 1 (with or
  without ``-W``) while any page holds one; the page shows a MathML error mark, never the TeX.
* A few TeX commands the converter lacks are rewritten first into the ones it has
  (:data:`TEX_ALIASES`, ``\tfrac12``, :func:`_group_declarations`, :func:`_primes`); the rest
  must be written in the subset docutils documents ("LaTeX syntax for mathematics").
* The converter's MathML is then given TeX's layout (:mod:`tex_layout`): the spaces between
  atoms, italic corrections and kerns, script positions, delimiter and root sizes, arrays, where
  a browser's MathML Core rules read otherwise.
* Display math: ``<div class="math notranslate" lang="zxx" id="equation-LABEL"><span
  class="eqno" lang="PAGE">(N) <a class="headerlink">``…``</span><math display="block">…
  </math></div>``, numbered like ``sphinx.ext.mathjax`` numbers it; inline math: ``<span
  class="math notranslate" lang="zxx"><math>…</math></span>``.  ``docs/_static/math.css`` lays
  them out.  A formula is set in no natural language (``zxx``), as TeX sets it whatever the text
  around it: under ``lang="zh-CN"`` Chromium gives each token the line metrics of the Chinese
  text (with a CJK font installed, a script letter's box grows by 15 %), so MathML Core's rule
  for a tall subscript lowered ``d_k``'s k to 0.213 em instead of TeX's 0.15 em on every
  Chinese page.  Chromium reads ``lang`` from the HTML element around the ``<math>``, not from
  the ``<math>`` itself.
* The math font: browsers need an OpenType MATH font for stretchy fences, radicals and fraction
  rules.  At the end of each HTML build, :func:`_write_font` subsets Latin Modern Math
  (``docs/_fonts/latin-modern-math``, GUST Font License) to the characters the site's MathML uses,
  with the size variants and glyph assemblies the font's MATH table gives them, and writes it as
  ``_static/attention-math.woff2`` under the family name ``Attention Math`` (the licence asks
  derived fonts to change their names), with TeX's script constants and the script glyphs and
  kerns reachable by the browser (:func:`tex_layout.adapt_font`); ``math.css`` declares it.  A
  character the font lacks is a build warning.
"""

from __future__ import annotations

import html
import io
import re
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import tex_layout
from docutils import nodes
from docutils.utils.math import MathError, latex2mathml, mathalphabet2unichar
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.locale import _
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging
from sphinx.util.math import get_node_equation_number
from sphinx.writers.html5 import HTML5Translator

LOGGER = logging.getLogger(__name__)

FONT_SOURCE = Path(__file__).resolve().parent.parent / "_fonts" / "latin-modern-math"
FONT_FILE = "attention-math.woff2"  # in _static/, next to math.css, which names it
FONT_FAMILY = "Attention Math"

# TeX the converter does not know, rewritten into TeX it does (same meaning, as amsmath defines it).
TEX_ALIASES = {
    r"\dots": r"\ldots",  # amsmath chooses by context; the site writes it between commas
    r"\iff": r"\;\Longleftrightarrow\;",
    r"\begin{gathered}": r"\begin{matrix}",  # one centred column of display formulas
    r"\end{gathered}": r"\end{matrix}",
}
_ALIAS = re.compile(
    "|".join(re.escape(tex) + (r"(?![A-Za-z])" if tex[-1].isalpha() else "") for tex in TEX_ALIASES)
)
# A style declaration applies to the rest of its group; the converter accepts it only first in one.
_DECLARATION = re.compile(r"\\(?:display|text|script|scriptscript)style(?![A-Za-z])")
_PRIME = re.compile(r"(?<!\\)'+")
# An undelimited macro argument is one token: \tfrac12 is \tfrac{1}{2} (the converter reads "12").
_DIGIT_FRACTION = re.compile(r"(\\[dt]?frac)\s*(\d)\s*(\d)")
# MathML whitespace between elements means nothing; docutils indents its output with it.
_INDENT = re.compile(r">\n\s*<")
_TEXT = re.compile(r">([^<]+)<")
_RADICAL = re.compile(r"<msqrt[^>]*>")
# one letter, no mathvariant: shown italic (the build's attributes, a padding, may stand in it)
_ITALIC_IDENTIFIER = re.compile(r"<mi((?:(?! mathvariant=)[^>])*)>([^<])</mi>")
_ITALIC = {
    **mathalphabet2unichar.mathit,
    "h": "\u210e",  # the italic h lives in Letterlike Symbols (PLANCK CONSTANT)
    "\u0131": "\U0001d6a4",
    "\u0237": "\U0001d6a5",
}


# What a reader sees of a formula that could not be converted (the build fails on it anyway).
UNRENDERED = "<math><merror><mtext>?</mtext></merror></math>"


def _group_declarations(tex: str) -> str:
    """Open a group at each style declaration not first in one; close it where its group ends."""
    out = []
    position = 0
    for match in _DECLARATION.finditer(tex):
        start = match.start()
        before = tex[:start].rstrip()
        if start < position or not before or before.endswith("{"):
            continue  # inside a group opened here already, or first in its group
        index, depth, end = match.end(), 0, len(tex)
        while index < len(tex):
            char = tex[index]
            if char == "\\":  # a command or an escaped brace: not a group
                index += 2
                continue
            if char == "{":
                depth += 1
            elif char == "}":
                if depth == 0:
                    end = index
                    break
                depth -= 1
            index += 1
        out.append(tex[position:start] + "{" + tex[start:end] + "}")
        position = end
    return "".join(out) + tex[position:]


def _primes(tex: str) -> str:
    r"""``m'`` is ``m^{\prime}`` in TeX; the converter would show a straight apostrophe.

    The prime goes on the baseline: the font's U+2032 is drawn raised already, and browsers do not
    pick its script-size variant, so as a superscript it would shrink to a speck.
    """
    return _PRIME.sub(lambda match: r"\prime " * len(match.group()), tex)


def normalise(tex: str) -> str:
    """The TeX of a formula, in the subset the converter renders, meaning the same."""
    tex = _ALIAS.sub(lambda match: TEX_ALIASES[match.group()], tex)
    tex = _DIGIT_FRACTION.sub(r"\1{\2}{\3}", tex)
    return _primes(_group_declarations(tex))


def tex_to_mathml(tex: str, *, block: bool) -> str:
    """MathML Core for one formula; raises :class:`docutils.utils.math.MathError`."""
    if block:
        # Formulas separated by a blank line are one aligned display (as sphinx.ext.mathjax does).
        tex = r" \\ ".join(part for part in tex.split("\n\n") if part.strip())
    xml = latex2mathml.tex2mathml(normalise(tex), as_block=block)
    xml = xml.replace(' xmlns="http://www.w3.org/1998/Math/MathML"', "", 1)
    return _layout_as_tex(_INDENT.sub("><", xml))


# -- TeX's layout -------------------------------------------------------------------------------

_ENTITY = re.compile(r"&([A-Za-z]+);")
_XML_ENTITIES = {"lt", "gt", "amp", "quot", "apos"}


def _layout_as_tex(mathml: str) -> str:
    """The formula with TeX's spacing, italic corrections, scripts and delimiters.

    :mod:`tex_layout` says which of TeX's rules a browser leaves out and how the MathML asks
    for them; docutils writes named entities (``&ApplyFunction;``) that XML does not know.
    """
    text = _ENTITY.sub(
        lambda m: m[0] if m[1] in _XML_ENTITIES else html.unescape(m[0]),
        mathml,
    )
    root = ElementTree.fromstring(text)
    tex_layout.apply(root)
    return ElementTree.tostring(root, encoding="unicode", short_empty_elements=False)


def characters(mathml: str) -> set[str]:
    """The characters a browser draws for this MathML, with single-letter identifiers in italic."""
    mathml = _ITALIC_IDENTIFIER.sub(lambda m: f"<mi{m[1]}>{_ITALIC.get(m[2], m[2])}</mi>", mathml)
    chars = {char for text in _TEXT.findall(mathml) for char in html.unescape(text)}
    if "<msqrt" in mathml or "<mroot" in mathml:
        chars.add("\u221a")  # the radical sign is drawn from the font, stretched from its variants
    return {char for char in chars if not char.isspace() and not "\u2061" <= char <= "\u2064"}


def plain_text(mathml: str) -> str:
    """The formula as a reader sees it, in Unicode: ``−∞`` for ``-\\infty``."""
    text = "".join(_TEXT.findall(_RADICAL.sub(lambda m: m[0] + "\u221a", mathml)))
    return html.unescape(text).translate({0x2061: None, 0x2062: None, 0x2063: None})


# -- reading: convert every formula, fail on the ones that cannot be ----------------------------


def _convert_document(app: Sphinx, doctree: nodes.document) -> None:
    """Store each formula's MathML on its node, and the page's characters in the environment."""
    env = app.env
    used: set[str] = set()
    failed = 0
    for node in doctree.findall(lambda n: isinstance(n, (nodes.math, nodes.math_block))):
        block = isinstance(node, nodes.math_block)
        try:
            node["mathml"] = tex_to_mathml(node.astext(), block=block)
        except MathError as error:
            _report(node, error)
            node["mathml"] = UNRENDERED
            failed += 1
            continue
        used |= characters(node["mathml"])
    _chars(env)[env.docname] = used
    _failures(env)[env.docname] = failed


def _report(node: nodes.Node, error: MathError) -> None:
    LOGGER.error(
        "TeX the MathML converter cannot render (%s): %s",
        error,
        node.astext(),
        location=node,
        type="mathml",
    )


def _chars(env: BuildEnvironment) -> dict[str, set[str]]:
    if not hasattr(env, "mathml_characters"):
        env.mathml_characters = {}  # type: ignore[attr-defined]
    chars: dict[str, set[str]] = env.mathml_characters  # type: ignore[attr-defined]
    return chars


def _failures(env: BuildEnvironment) -> dict[str, int]:
    if not hasattr(env, "mathml_failures"):
        env.mathml_failures = {}  # type: ignore[attr-defined]
    failures: dict[str, int] = env.mathml_failures  # type: ignore[attr-defined]
    return failures


def _purge(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    _chars(env).pop(docname, None)
    _failures(env).pop(docname, None)


def _merge(app: Sphinx, env: BuildEnvironment, docnames: set[str], other: BuildEnvironment) -> None:
    for docname in docnames:
        if docname in _chars(other):
            _chars(env)[docname] = _chars(other)[docname]
        if docname in _failures(other):
            _failures(env)[docname] = _failures(other)[docname]


def _fail_on_unrendered(app: Sphinx, exception: Exception | None) -> None:
    """Fail the build (exit status 1, with or without -W) while any page has such a formula."""
    pages = sorted(docname for docname, count in _failures(app.env).items() if count)
    if exception is None and pages:
        LOGGER.error("formulas left unrendered on %s", ", ".join(pages), type="mathml")
        app.statuscode = 1


# -- writing HTML -------------------------------------------------------------------------------


class OneIdPerEquation(SphinxPostTransform):
    """Leave ``equation-LABEL`` on the formula's ``div.math`` only.

    furo wraps each display formula in a ``div.math-wrapper`` and copies the formula's ids onto the
    wrapper, so every numbered equation's id would stand twice in the page.
    """

    formats = ("html",)
    default_priority = 510  # after furo's WrapTableAndMathInAContainerTransform (500)

    def run(self, **kwargs: Any) -> None:
        """Drop the ids a math wrapper shares with the formula inside it."""
        for wrapper in self.document.findall(nodes.container):
            if "math-wrapper" in wrapper["classes"] and len(wrapper) == 1:
                inner = wrapper[0]
                if isinstance(inner, nodes.math_block):
                    wrapper["ids"] = [i for i in wrapper["ids"] if i not in inner["ids"]]


def _text_for_search(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Give each formula its Unicode text, so the search index and its titles hold no TeX.

    Sphinx indexes a page's words and section titles from the text of its nodes; a formula's
    text is its TeX (``An additive -\\infty gives exact zeros``).  The HTML is written from the
    MathML stored on the node, so only what the index reads changes.
    """
    if app.builder.format != "html":
        return
    for node in doctree.findall(lambda n: isinstance(n, (nodes.math, nodes.math_block))):
        if "mathml" in node:
            node[:] = [nodes.Text(plain_text(str(node["mathml"])))]


def _mathml(self: HTML5Translator, node: nodes.Element, *, block: bool) -> str:
    if "mathml" in node:
        return str(node["mathml"])
    try:  # a node made after the page was read
        return tex_to_mathml(node.astext(), block=block)
    except MathError as error:
        _report(node, error)
        _failures(self.builder.env)[self.builder.current_docname] = 1
        return UNRENDERED


FORMULA_LANGUAGE = "zxx"
"""BCP 47's "no linguistic content": a formula is laid out as in no language's text."""


def visit_math(self: HTML5Translator, node: nodes.math) -> None:
    """Inline formula: ``<span class="math notranslate" lang="zxx"><math>…</math></span>``."""
    self.body.append(
        self.starttag(node, "span", "", CLASS="math notranslate", lang=FORMULA_LANGUAGE)
    )
    self.body.append(_mathml(self, node, block=False) + "</span>")
    raise nodes.SkipNode


def visit_displaymath(self: HTML5Translator, node: nodes.math_block) -> None:
    """Display formula in a ``div.math``, with its number (and link) first when it has a label."""
    self.body.append(self.starttag(node, "div", CLASS="math notranslate", lang=FORMULA_LANGUAGE))
    if node["number"]:
        number = get_node_equation_number(self, node)
        page = (self.config.language or "en").replace("_", "-")  # the link's words: the page's
        self.body.append(f'<span class="eqno" lang="{page}">({number})')
        self.add_permalink_ref(node, _("Link to this equation"))
        self.body.append("</span>")
    self.body.append(_mathml(self, node, block=True) + "</div>\n")
    raise nodes.SkipNode


# -- the math font ------------------------------------------------------------------------------


def _write_font(app: Sphinx, exception: Exception | None) -> None:
    """Subset the math font to the characters of every page of this build, into ``_static``."""
    if exception is not None or app.builder.format != "html":
        return
    from fontTools import subset
    from fontTools.ttLib import TTFont

    used = set().union(*_chars(app.env).values())
    font = TTFont(FONT_SOURCE / "latinmodern-math.otf", recalcTimestamp=False)
    cmap = font.getBestCmap()
    missing = sorted(char for char in used if ord(char) not in cmap)
    if missing:
        LOGGER.warning(
            "the math font has no glyph for %s: the browser draws them from another font",
            ", ".join(f"U+{ord(char):04X} {char}" for char in missing),
            type="mathml",
        )
    options = subset.Options()
    options.layout_features = ["ssty"]  # the script-size glyphs browsers pick for sub/superscripts
    options.hinting = False  # browsers do not use CFF hints at reading sizes: 10 % smaller
    options.drop_tables += ["FFTM"]  # FontForge's timestamps
    options.flavor = "woff2"  # brotli: about a tenth smaller than WOFF's zlib
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]  # copyright, names, version, licence
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(ord(char) for char in used if ord(char) in cmap))
    subsetter.subset(font)
    _rename(font)
    tex_layout.adapt_font(font)
    font.flavor = "woff2"
    buffer = io.BytesIO()
    font.save(buffer, reorderTables=True)
    target = Path(app.outdir) / "_static" / FONT_FILE
    if not target.is_file() or target.read_bytes() != buffer.getvalue():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(buffer.getvalue())


def _rename(font: Any) -> None:
    """Give the subset its own names, as clause 1 of the GUST Font License asks of derived fonts."""
    postscript = FONT_FAMILY.replace(" ", "") + "-Regular"
    table = font["name"]
    for record in list(table.names):
        if record.nameID in (1, 4, 16):
            table.setName(
                FONT_FAMILY, record.nameID, record.platformID, record.platEncID, record.langID
            )
        elif record.nameID == 3:
            table.setName(
                f"{FONT_FAMILY}: a subset of Latin Modern Math",
                3,
                record.platformID,
                record.platEncID,
                record.langID,
            )
        elif record.nameID == 6:
            table.setName(postscript, 6, record.platformID, record.platEncID, record.langID)
    if "CFF " in font:
        cff = font["CFF "].cff
        cff.fontNames = [postscript]
        top = cff.topDictIndex[0]
        top.FullName = top.FamilyName = FONT_FAMILY


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the renderer, the reading-time conversion and the font."""
    app.add_html_math_renderer(
        "mathml",
        inline_renderers=(visit_math, None),
        block_renderers=(visit_displaymath, None),
    )
    app.add_post_transform(OneIdPerEquation)
    app.connect("doctree-read", _convert_document)
    app.connect("doctree-resolved", _text_for_search)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("build-finished", _write_font)
    app.connect("build-finished", _fail_on_unrendered)
    return {
        "version": "1",
        "env_version": 1,
        "parallel_read_safe": True,
        "parallel_write_safe": True,
    }
