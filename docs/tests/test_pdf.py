"""The book as a PDF (``nox -s pdf``): its text says the checked numbers, and LaTeX set all of it.

Reads each language's PDF as text (``pdftotext``, Debian's poppler-utils) and the LaTeX log kept
beside it, in ``ATTENTION_BOOK`` (default ``docs/_build/html/pdf``, where ``nox -s pdf`` writes
them).  Where a book or pdftotext is absent, its tests are skipped: the default run builds no
PDF, and these tests take a second or two where one exists.

* The worked numbers: the concept page's (0.25 and 0.75, the weights; 17.5, the output; 10 with
  the second key masked; 15 with both scores zero) and the causal example's (2, 3, 14/3), as the
  doctests print them.  The code is not translated, so both books print the same lines.
* The same numbers as the site, where the site is built too (``ATTENTION_SITE``, default
  ``docs/_build/html``): every display formula's and every figure's number of the lesson and the
  concept pages, and every row id of the mask-semantics tables, so a citation means the same.
* No ``??``: every reference LaTeX set found its target.
* No missing glyph: XeLaTeX logs "Missing character" for a character no font of the book draws
  (it then leaves it out); the Chinese book's title is in its text, so its Chinese is not lost.
* No line that runs off the page by more than :data:`OVERFULL_PT`, as LaTeX reports it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest

SITE = Path(os.environ.get("ATTENTION_SITE", Path(__file__).resolve().parents[1] / "_build/html"))
BOOK = Path(os.environ.get("ATTENTION_BOOK", SITE / "pdf"))
LANGUAGES = ("en", "zh_CN")
TITLES = {"en": "Attention: get the mask semantics right", "zh_CN": "注意力：先把掩码语义写对"}

WORKED_EXAMPLE = (
    "([0.25, 0.75], [0.25, 0.75])",  # the weights, from the package and by hand
    "[2.5, 15.0]",  # the weighted values 0.25 · 10 and 0.75 · 20
    "(17.5, 17.5)",  # the output, from the package and by hand
    "([1.0, 0.0], 10.0)",  # the second key masked: all weight on the first value, 10
    "([0.5, 0.5], 15.0)",  # both scores zero: the mean of 10 and 20
    "([0.25, 0.75], 17.5)",  # d_k = 4: the same weights and output, scaled
)
"""The concept page's doctest outputs that carry 0.25, 0.75, 17.5, 10 and 15."""

CAUSAL_EXAMPLE = (
    "[2.0, 3.0, 4.6667]",  # the causal outputs: 2, 3 and 14/3
    "14/3",
)
"""The lesson's causal example (docs/lesson/05-single-head.md)."""

OVERFULL_PT = 10.0
"""The most a line or a table may stick out past the text's edge, in points (1 pt ≈ 0.35 mm).

A word a little wider than its table column (``forbidden`` in the Chinese book's table of
mask converters, where Chinese text takes the width) sticks out by 9 pt into the space between
two columns; anything wider is a line that runs off the page."""

SITE_EQUATION = re.compile(r'<span class="eqno" lang="[a-zA-Z-]+">\(([\d.]+)\)')
SITE_FIGURE = re.compile(r'<span class="caption-number">(?:Fig\.|图) ?([\d.]+)')
SITE_ROW = re.compile(r'<tr class="[^"]*semantics-claim[^"]*" id="([^"]+)"')
BOOK_EQUATION = re.compile(r"^\((\d+(?:\.\d+)?)\)$", re.MULTILINE)
BOOK_FIGURE = re.compile(r"^(?:Fig\.|图) ?(\d+(?:\.\d+)?)[:：]?\s", re.MULTILINE)
MISSING = re.compile(r"Missing character: There is no (.+?) in font")
OVERFULL = re.compile(r"^Overfull \\hbox \(([\d.]+)pt too wide\) (.*)$", re.MULTILINE)


def _book(language: str) -> Path:
    pdf = BOOK / f"attention-{language}.pdf"
    if not pdf.is_file():
        pytest.skip(f"no {pdf}: nox -s pdf builds it")
    return pdf


@cache
def _lines(language: str) -> str:
    """The book's text as pdftotext writes it, line by line."""
    pdf = _book(language)
    if shutil.which("pdftotext") is None:
        pytest.skip("no pdftotext: apt-get install -y poppler-utils")
    return subprocess.run(
        ["pdftotext", "-enc", "UTF-8", str(pdf), "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def _text(language: str) -> str:
    """The book's text, its lines joined: a code line pdftotext broke reads as one."""
    return " ".join(_lines(language).split())


def _site(language: str, pattern: re.Pattern[str], *folders: str) -> set[str]:
    pages = [page for folder in folders for page in (SITE / language / folder).glob("*.html")]
    if not pages:
        pytest.skip(f"no site in {SITE / language}: nox -s docs builds it")
    return {found for page in pages for found in pattern.findall(page.read_text("utf-8"))}


def _log(language: str) -> str:
    log = _book(language).with_suffix(".log")
    if not log.is_file():
        pytest.skip(f"no {log}: nox -s pdf keeps LaTeX's log beside the PDF")
    return log.read_text(encoding="utf-8", errors="replace")


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("printed", WORKED_EXAMPLE)
def test_the_book_prints_the_worked_examples_numbers(language: str, printed: str) -> None:
    assert printed in _text(language), f"{language}: the concept page's {printed!r} is missing"


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("printed", CAUSAL_EXAMPLE)
def test_the_book_prints_the_causal_examples_numbers(language: str, printed: str) -> None:
    assert printed in _text(language), f"{language}: the causal example's {printed!r} is missing"


@pytest.mark.parametrize("language", LANGUAGES)
def test_formulas_and_figures_have_the_sites_numbers(language: str) -> None:
    equations = _site(language, SITE_EQUATION, "lesson", "concepts")
    figures = _site(language, SITE_FIGURE, "lesson", "concepts")
    assert {"2.1", "10.5", "1"} <= equations, equations  # (10.5) is on part 10's second page
    assert {"5.1", "1"} <= figures, figures
    assert set(BOOK_EQUATION.findall(_lines(language))) == equations
    assert set(BOOK_FIGURE.findall(_lines(language))) == figures


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_mask_table_row_id_of_the_site_is_in_the_book(language: str) -> None:
    rows = _site(language, SITE_ROW, "reference")
    assert len(rows) > 20, rows
    text = re.sub(r"\s*([._])\s*", r"\1", _text(language))  # an id broken at a dot or underscore
    missing = sorted(row for row in rows if row not in text)
    assert not missing, f"{language}: the book lacks the rows {missing}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_reference_is_resolved(language: str) -> None:
    text = _text(language)
    where = text.find("??")
    context = text[max(0, where - 60) : where + 20]
    assert where < 0, f"{language}: an unresolved reference: …{context}…"
    assert "There were undefined references" not in _log(language)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_character_has_a_glyph(language: str) -> None:
    missing = sorted(set(MISSING.findall(_log(language))))
    assert not missing, f"{language}: no font of the book draws {', '.join(missing)}"
    assert "\N{REPLACEMENT CHARACTER}" not in _text(language)
    assert TITLES[language] in _text(language), f"{language}: the title page lost its title"


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_line_runs_off_the_page(language: str) -> None:
    widest = [(float(points), where) for points, where in OVERFULL.findall(_log(language))]
    over = [(points, where) for points, where in widest if points > OVERFULL_PT]
    assert not over, f"{language}: {len(over)} lines stick out past {OVERFULL_PT} pt: {over[:5]}"
