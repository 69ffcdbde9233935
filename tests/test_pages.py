"""Structural promises of the site's pages, checked on the MyST sources."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted(
    path
    for path in DOCS.rglob("*.md")
    if not any(part.startswith("_") for part in path.relative_to(DOCS).parts)
    and "locales" not in path.parts
    and path.name != "README.md"
)
HEADING = re.compile(r"(?m)^#{1,6} ")
DISPLAY_MATH = re.compile(r"(?m)^\$\$|^```\{math\}")
DOCTEST = re.compile(r"(?ms)^```\{doctest\}\n(.*?)^```")


def _sections(page: Path) -> list[tuple[str, str]]:
    parts = HEADING.split(page.read_text(encoding="utf-8"))
    return [(part.splitlines()[0], part) for part in parts[1:]]


FORMULA_SECTIONS = [
    (page, title, body)
    for page in PAGES
    for title, body in _sections(page)
    if DISPLAY_MATH.search(body)
]


def test_there_are_pages_and_formula_sections() -> None:
    assert len(PAGES) >= 15
    assert len(FORMULA_SECTIONS) >= 8


@pytest.mark.parametrize(
    ("page", "title", "body"),
    FORMULA_SECTIONS,
    ids=[f"{p.relative_to(DOCS)}: {t}" for p, t, _ in FORMULA_SECTIONS],
)
def test_every_section_with_a_display_formula_holds_a_doctest(
    page: Path, title: str, body: str
) -> None:
    assert DOCTEST.search(body), f"{page.relative_to(DOCS)} § {title}: formula without a doctest"


def _doctest_text(page: Path) -> str:
    return "\n".join(DOCTEST.findall(page.read_text(encoding="utf-8")))


@pytest.mark.parametrize(
    ("page", "numbers"),
    [
        ("concepts/worked-example.md", ["0.25", "0.75", "17.5", "10.0", "15.0"]),
        ("lesson/05-single-head.md", ["2.0", "3.0", "4.6667"]),
    ],
)
def test_worked_numbers_are_printed_by_doctests(page: str, numbers: list[str]) -> None:
    text = _doctest_text(DOCS / page)
    for number in numbers:
        assert re.search(rf"(?<![\d.]){re.escape(number)}(?!\d)", text), f"{page}: {number}"


def test_the_worked_by_hand_page_draws_no_random_numbers() -> None:
    """The page works its numbers by hand: every input of its doctests is written out."""
    page = DOCS / "concepts" / "worked-example.md"
    blocks = DOCTEST.findall(page.read_text(encoding="utf-8"))
    assert blocks, f"no doctest on {page}"
    random = [line for block in blocks for line in block.splitlines() if "randn" in line]
    assert not random, f"random inputs on the worked-by-hand page: {random}"


LESSON_PAGES = [page for page in PAGES if page.parent.name in ("lesson", "concepts")]
DOLLAR_BLOCK = re.compile(r"(?ms)^\$\$\n(.*?)^\$\$([^\n]*)$")
MATH_DIRECTIVE = re.compile(r"(?ms)^```\{math\}\n(.*?)^```")


@pytest.mark.parametrize("page", LESSON_PAGES, ids=lambda page: page.stem)
def test_every_display_formula_of_a_lesson_has_a_number(page: Path) -> None:
    """A label gives a display formula its number and its anchor (the same in both languages)."""
    text = page.read_text(encoding="utf-8")
    unlabelled = [body for body, label in DOLLAR_BLOCK.findall(text) if not label.strip()]
    unlabelled += [body for body in MATH_DIRECTIVE.findall(text) if ":label:" not in body]
    assert not unlabelled, f"display formulas without a label: {unlabelled}"
