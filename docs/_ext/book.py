"""The PDF book (``nox -s pdf``): the site's lesson, concept pages and reference, set by LaTeX.

The LaTeX builder reads the same pages, the same catalogues and the same executed code cells as
the HTML build; this extension only makes the printed book cite like the site:

* ``config-inited``: the book's file and title follow ``language`` (``-D language=zh_CN`` is
  applied after conf.py runs).  Text is set in FreeFont (Sphinx's default for XeLaTeX), code in
  DejaVu Sans Mono, and Chinese, in either book, in Noto Serif CJK SC (and Noto Sans CJK SC,
  Noto Sans Mono CJK SC) from Debian's ``fonts-noto-cjk``, with xeCJK.
* ``builder-inited``: the book's root, ``docs/book.md``, is the LaTeX builder's alone (conf.py
  leaves it out, so the site has no page for it), and its figures and formulas are numbered by
  chapter.
* Numbering (:func:`_number_like_the_site`): the book's root, ``docs/book.md``, makes the lesson,
  the concept pages and the reference its three parts (``latex_toplevel_sectioning = "part"``),
  so each page of the lesson is a chapter.  The site numbers the lesson's eleven parts and
  nothing below them (``:numbered: 1``), and their display formulas by part, (2.1), (2.2), ...;
  a page outside those eleven has no number and numbers its own formulas (1), (2), ...  The
  book does the same: before the first lesson page LaTeX numbers chapters only, before the
  first page after the eleven parts (the misconceptions) no heading at all, and every such
  page starts its formulas, figures and tables from 1, with no chapter prefix.
* ``{book-pdf}`text```: a link to the book in the page's language.  On Read the Docs, which
  builds it (``formats: [pdf]`` in .readthedocs.yaml), its download address for the project of
  that language (``/_/downloads/<language>/<version>/pdf/``, from
  ``READTHEDOCS_CANONICAL_URL``); elsewhere ``pdf/attention-<language>.pdf`` beside the
  language folders of the site, where ``nox -s pdf`` writes it.
* The benchmark's tables (:class:`_FitColumns`): LaTeX gives each of their nine columns a ninth
  of the width, and cut "causal" in the narrow mask column; on paper each column is as wide as
  its longest word asks.
* Table rows as targets (:class:`_RowTargets`): a row of the mask-semantics tables is a link
  target on the site (``mask-semantics.html#sdpa.attn_mask.bool``); LaTeX gives a table row no
  label, so the row's first cell carries it, and every link to a row lands on it.
"""

from __future__ import annotations

import os
import re
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.builders.latex.constants import XELATEX_DEFAULT_FONTPKG
from sphinx.config import Config
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.docutils import SphinxRole
from sphinx.util.typing import ExtensionMetadata

ROOT = "book"
"""The book's root document, docs/book.md."""

FONTS = r"""
% DejaVu Sans Mono draws what the code and its output print (ᵀ, ≈, ─), where FreeMono has gaps;
% ℓ and ∤, which it lacks, come from FreeMono where code shows them
\setmonofont{DejaVu Sans Mono}[Scale=MatchLowercase]
\usepackage{newunicodechar}
\newfontfamily\bookmonofallback{FreeMono}[Extension=.otf, Scale=0.9]
\makeatletter
\newcommand\bookchar[1]{\begingroup\edef\book@tt{\ttdefault}%
  \ifx\f@family\book@tt\bookmonofallback\fi\symbol{#1}\endgroup}
\makeatother
\newunicodechar{ℓ}{\bookchar{"2113}}
\newunicodechar{∤}{\bookchar{"2224}}
\usepackage{xeCJK}
\setCJKmainfont{Noto Serif CJK SC}[BoldFont={Noto Serif CJK SC Bold}]
\setCJKsansfont{Noto Sans CJK SC}[BoldFont={Noto Sans CJK SC Bold}]
\setCJKmonofont{Noto Sans Mono CJK SC}
"""

PREAMBLE = r"""
% a long name in a table cell or a code line breaks rather than runs off the page
\sphinxsetup{verbatimwrapslines=true, verbatimforcewraps=true, verbatimmaxoverfull=1}
% a figure and its caption fit one page
\makeatletter\AtBeginDocument{\spx@image@maxheight=.8\textheight}\makeatother
% hyperref names each formula's target by its number; a page outside the lesson's parts starts
% again at (1), so the target also carries the page's position in the book
\newcounter{bookpage}
\renewcommand{\theHequation}{\arabic{bookpage}.\arabic{equation}}
\renewcommand{\theHfigure}{\arabic{bookpage}.\arabic{figure}}
\renewcommand{\theHtable}{\arabic{bookpage}.\arabic{table}}
"""

ZH_CAPTIONS = r"""
\AtBeginDocument{\renewcommand{\chaptername}{}\renewcommand{\partname}{}}
"""


def _configure(app: Sphinx, config: Config) -> None:
    """The book's file name, title and fonts for the language being built."""
    language = config.language or "en"
    title = config.site_titles[language]
    config.latex_documents = [
        (ROOT, f"attention-{language}.tex", title, config.author, "manual", False)
    ]
    elements: dict[str, str] = {
        "papersize": "a4paper",
        "pointsize": "10pt",
        "preamble": PREAMBLE,
        "printindex": "",  # no index: the book is read by its contents and its numbers
        "makeindex": "",
    }
    # Chinese in both books: the Chinese one throughout, the English one where a code cell's
    # output shows a Chinese label
    elements["fontpkg"] = XELATEX_DEFAULT_FONTPKG + FONTS
    if language == "zh_CN":
        # babel has no Chinese captions here: the chapter's number alone, "3. 掩码……", as the
        # site's headings, rather than "Chapter 3." in the page footers
        elements["preamble"] = PREAMBLE + ZH_CAPTIONS
    else:
        # xeCJK sets curly quotes, dashes, the ellipsis and the middle dot as Chinese
        # punctuation, with a Chinese punctuation's spacing ("key’ s", "mask —The"); in English
        # text they are the text font's
        elements["fontpkg"] += (
            "\\xeCJKDeclareCharClass{Default}"
            '{"00B7, "2013, "2014, "2018, "2019, "201C, "201D, "2026}\n'
        )
    config.latex_elements = {**config.latex_elements, **elements}


def _book_only(app: Sphinx) -> None:
    """The book's root for the LaTeX builder (conf.py leaves it out); number by chapter there."""
    if app.builder.name != "latex":
        return
    # the site's own builds keep conf.py's settings untouched, so their incremental builds
    # see no configuration change
    app.config.exclude_patterns = [p for p in app.config.exclude_patterns if p != f"{ROOT}.md"]
    # Parts are the book's top level: numbering by chapter (a lesson part, as on the site) is
    # one level further down than the site's setting
    app.config.numfig_secnum_depth = 2
    # no build date on the title page: the release names the book, and builds stay the same
    app.builder.context["date"] = ""  # type: ignore[attr-defined]  # the LaTeX builder's


def _raw(tex: str) -> nodes.raw:
    return nodes.raw("", tex, format="latex")


def _number_like_the_site(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Before each page of the book, the LaTeX that numbers it as the site numbers it."""
    if app.builder.name != "latex" or docname != ROOT:
        return
    pages = list(doctree.findall(addnodes.start_of_file))
    # the lesson's numbered parts (docs/lesson/index.md), and the pages inside one of them (part
    # 10's measured benchmark goes on from its first page); inlined pages nest in the book
    numbered = {name for name, numbers in app.env.toc_secnumbers.items() if numbers}
    in_part = {
        inner["docname"]
        for page in pages
        if page["docname"] in numbered
        for inner in page.findall(addnodes.start_of_file)
    }
    first = True
    outside = False
    for page in pages:
        name = page["docname"]
        tex = r"\stepcounter{bookpage}"
        if name in in_part:
            if first:
                tex += r"\setcounter{secnumdepth}{0}"  # chapters only, as the site's parts
                first = False
        elif not first and not name.endswith("index") and name.count("/") == 1:
            if not outside:
                # no number on any heading from here on; chapter 0 drops the prefix
                tex += r"\setcounter{secnumdepth}{-2}\setcounter{chapter}{0}"
                outside = True
            tex += r"\setcounter{equation}{0}\setcounter{figure}{0}\setcounter{table}{0}"
        page.parent.insert(page.parent.index(page), _raw(tex + "\n"))


class _RowTargets(SphinxPostTransform):
    """Each table row with an id gets that id as a LaTeX label, in its first cell."""

    default_priority = 900
    builders = ("latex",)

    def run(self, **kwargs: Any) -> None:
        """Put ``\\label{<page>:<id>}`` first in the first cell of every row with ids."""
        # the page a row is on: the innermost page around it (a page's subpages are inside it);
        # found from the top down, since the inlined pages' nodes keep their old parents
        pages: dict[int, tuple[nodes.row, str]] = {}
        for page in self.document.findall(addnodes.start_of_file):
            for row in page.findall(nodes.row):
                if row["ids"]:
                    pages[id(row)] = (row, page["docname"])
        for row, docname in pages.values():
            entries = [child for child in row.children if isinstance(child, nodes.entry)]
            if entries:
                labels = "".join(
                    rf"\phantomsection\label{{\detokenize{{{docname}:{row_id}}}}}"
                    for row_id in row["ids"]
                )
                entries[0].insert(0, _raw(labels))


def book_address(language: str, depth: int, canonical: str = "") -> str:
    """Where a page ``depth`` folders below its language's root finds the book of ``language``.

    >>> book_address("zh_CN", 0)
    '../pdf/attention-zh_CN.pdf'
    >>> book_address("en", 1, "https://attention.readthedocs.io/en/latest/")
    'https://attention.readthedocs.io/_/downloads/en/latest/pdf/'
    """
    if canonical:  # https://HOST/LANGUAGE/VERSION/
        host, language_slug, version = canonical.rstrip("/").rsplit("/", 2)
        return f"{host}/_/downloads/{language_slug}/{version}/pdf/"
    return "../" * (depth + 1) + f"pdf/attention-{language}.pdf"


class BookLink(SphinxRole):
    """``{book-pdf}`text```: ``text`` linked to the book in the page's language."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        """One external reference to the book."""
        address = book_address(
            self.config.language or "en",
            self.env.docname.count("/"),
            os.environ.get("READTHEDOCS_CANONICAL_URL", ""),
        )
        link = nodes.reference(self.rawtext, self.text, refuri=address, classes=["book-pdf"])
        return [link], []


# a line breaks at a space or between two Chinese characters, each as wide as two letters
_CJK = "\u2e80-\u9fff\uff00-\uffef"
_CJK_CHARACTER = re.compile(f"[{_CJK}]")
_WORD = re.compile(f"[{_CJK}]|[^\\s{_CJK}]+")


def _width(word: str) -> int:
    """A word's width in letters: a Chinese character (or full-width sign) is two."""
    return 2 if _CJK_CHARACTER.fullmatch(word) else len(word)


class _FitColumns(SphinxPostTransform):
    """The benchmark's tables: each column's width in proportion to its longest word."""

    default_priority = 900
    builders = ("latex",)

    def run(self, **kwargs: Any) -> None:
        """Give the columns widths (Sphinx's ``colwidths-given``: LaTeX ``p`` columns)."""
        for table in self.document.findall(nodes.table):
            if "benchmark-table" not in table["classes"]:
                continue
            group = next(iter(table.findall(nodes.tgroup)))
            columns = list(group.findall(nodes.colspec))
            longest = [3] * len(columns)
            for row in group.findall(nodes.row):
                for column, entry in enumerate(row.findall(nodes.entry)):
                    widths = [_width(word) for word in _WORD.findall(entry.astext())]
                    longest[column] = max(longest[column], *widths)
            for colspec, width in zip(columns, longest, strict=True):
                colspec["colwidth"] = width + 2  # and the space between two columns
            table["classes"].append("colwidths-given")


def setup(app: Sphinx) -> ExtensionMetadata:
    """Register the language settings and the numbering."""
    app.connect("config-inited", _configure, priority=450)  # after site_support's 400
    app.connect("builder-inited", _book_only)
    app.connect("doctree-resolved", _number_like_the_site)
    app.add_post_transform(_RowTargets)
    app.add_post_transform(_FitColumns)
    app.add_role("book-pdf", BookLink())
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
