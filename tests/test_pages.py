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
