"""Equations are numbered per page, and their anchors are the same in both languages.

Each page's numbered display formulas read (1), (2), … in the order they appear: a formula
quoted on three pages is not (2), (5) and (18) as when the numbers ran on across the site.  The
anchor of each (``equation-<label>``) and its number are the same on the English and the Chinese
page, so a cited equation is found in either language.

Reads the built pages (no browser); runs with ``nox -s browser``.
"""

from __future__ import annotations

import re

import pytest
from test_browser import PAGES, SITE

EQUATION = re.compile(
    r'<div class="math[^"]*" id="(equation-[^"]+)">\s*<span class="eqno">\((\d+(?:\.\d+)?)\)'
)


def _equations(language: str, path: str) -> list[tuple[str, str]]:
    page = SITE / language / path
    return EQUATION.findall(page.read_text(encoding="utf-8")) if page.is_file() else []


NUMBERED = [path for path in PAGES if _equations("en", path)]


def test_some_pages_number_their_equations() -> None:
    assert len(NUMBERED) >= 8, NUMBERED


@pytest.mark.parametrize("path", NUMBERED)
def test_equations_are_numbered_per_page_in_both_languages(path: str) -> None:
    english = _equations("en", path)
    numbers = [number for _, number in english]
    assert numbers == [str(n) for n in range(1, len(numbers) + 1)], f"{path}: {numbers}"
    assert _equations("zh_CN", path) == english, f"{path}: the languages number it differently"
