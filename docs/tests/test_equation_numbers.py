"""Equations are numbered per part of the lesson, and their anchors are the same in both languages.

The lesson's parts are numbered (``2. Scaled dot-product attention``), and so are its display
formulas, by part: (2.1), (2.2), … in the order they appear in the part, whichever of its pages
holds them (part 10's second page, the measured benchmark, goes on from its first).  Every
display formula of a lesson page has a number, and an anchor (``equation-<label>``) that is the
same on the English and the Chinese page, with the same number.  A page outside the lesson
numbers its own: (1), (2), …  The Cite page's example of an equation names the number the
equation's page shows.

Reads the built pages (no browser); runs with ``nox -s browser``.
"""

from __future__ import annotations

import re
from collections import defaultdict

import pytest
from test_browser import PAGES, SITE

EQUATION = re.compile(
    r'<div class="math[^"]*" id="(equation-[^"]+)" lang="zxx">\s*'
    r'<span class="eqno" lang="[a-zA-Z-]+">\(([\d.]+)\)'
)
DISPLAY = re.compile(r'<div class="math notranslate"')
PART = re.compile(r'<h1><span class="section-number">(\d+)\.\s*</span>')
LANGUAGES = ("en", "zh_CN")


def _html(language: str, path: str) -> str:
    page = SITE / language / path
    return page.read_text(encoding="utf-8") if page.is_file() else ""


def _equations(language: str, path: str) -> list[tuple[str, str]]:
    return EQUATION.findall(_html(language, path))


LESSON = [path for path in PAGES if path.startswith("lesson/")]
NUMBERED = [path for path in PAGES if _equations("en", path)]


def test_the_lesson_numbers_its_parts_and_their_equations() -> None:
    parts = {path: PART.search(_html("en", path)) for path in LESSON}
    numbered_parts = sorted(int(match[1]) for match in parts.values() if match)
    assert numbered_parts == list(range(1, 12)), numbered_parts
    assert len([path for path in NUMBERED if path in LESSON]) >= 10, NUMBERED


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("path", LESSON)
def test_every_display_formula_of_a_lesson_page_is_numbered(language: str, path: str) -> None:
    html = _html(language, path)
    displays, numbered = len(DISPLAY.findall(html)), len(EQUATION.findall(html))
    assert displays == numbered, f"{path}: {displays - numbered} display formulas without a number"


@pytest.mark.parametrize("language", LANGUAGES)
def test_equations_are_numbered_per_part_in_order(language: str) -> None:
    by_part: dict[str, list[int]] = defaultdict(list)
    for path in LESSON:
        part = PART.search(_html(language, path))
        numbers = [number for _, number in _equations(language, path)]
        for number in numbers:
            prefix, _, place = number.rpartition(".")
            assert prefix, f"{path}: ({number}) does not name its part"
            if part:
                assert prefix == part[1], f"{path} is part {part[1]} but numbers ({number})"
            by_part[prefix].append(int(place))
        places = [int(number.rpartition(".")[2]) for number in numbers]
        if places:
            consecutive = list(range(places[0], places[0] + len(places)))
            assert places == consecutive, f"{path}: {numbers} do not follow on"
    for prefix, places in by_part.items():
        assert sorted(places) == list(range(1, len(places) + 1)), f"part {prefix}: {places}"


@pytest.mark.parametrize("path", NUMBERED)
def test_an_equation_has_the_same_anchor_and_number_in_both_languages(path: str) -> None:
    assert _equations("zh_CN", path) == _equations("en", path)


@pytest.mark.parametrize("path", [path for path in NUMBERED if not path.startswith("lesson/")])
def test_a_page_outside_the_lesson_numbers_its_own(path: str) -> None:
    numbers = [number for _, number in _equations("en", path)]
    assert numbers == [str(n) for n in range(1, len(numbers) + 1)], f"{path}: {numbers}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_cite_pages_equation_names_the_number_its_page_shows(language: str) -> None:
    cite = re.sub(r"<[^>]+>", "", _html(language, "cite.html"))
    example = re.search(r"[(（](\d+\.\d+)[)）][：:]\s*\S+/(lesson/[^#\s]+)#(equation-[\w-]+)", cite)
    assert example, "the Cite page gives no equation with its number"
    number, page, anchor = example.groups()
    assert (anchor, number) in _equations(language, page), example[0]
