"""Figures as a reader sees them: numbered, captioned, described, and in the page's language.

Every image in a page's article must sit in a figure whose caption starts with its number
("Fig. 3" / "图 3") and says something after it; its alt text must describe the figure, not
name a file; and the Chinese page must show the Chinese variant of each figure: a different
image from the English page's (the labels are drawn in the page's language) and the
``figure-lang-zh_CN`` mark that the ``{localized-figure}`` directive writes.

Each page is read once for all the browser checks (``page_view.py``).  Run with
``nox -s browser`` (builds the site first), with the other browser checks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from test_browser import (
    LANGUAGES,
    PAGES,
    Browser,
    browser,  # noqa: F401  (the shared fixture)
)

# "Fig. 6.1" in a part of the lesson (numbered per part, as its equations), "Fig. 1" elsewhere
NUMBER = {"en": re.compile(r"^Fig\. \d+(\.\d+)?$"), "zh_CN": re.compile(r"^图 \d+(\.\d+)?$")}
CJK = re.compile(r"[\u4e00-\u9fff]")
FILE_NAME = re.compile(r"(^|/)[^\s/]+\.(png|jpe?g|svg|gif|webp)$", re.IGNORECASE)


@dataclass(frozen=True)
class Shown:
    """One image of a page as the browser shows it."""

    src: str  # the image file, relative to the site
    alt: str
    number: str  # the caption's number ("Fig. 1"), "" without one
    caption: str  # the caption text after the number, "" without a caption
    classes: str  # the enclosing figure's classes, "" outside a figure


def _shown(browser: Browser, url: str) -> list[Shown]:  # noqa: F811
    """The images of the article at ``url`` (page_view.FIGURES reads them)."""
    return [Shown(**row) for row in browser.view(url).figures]


def figure_problems(language: str, shown: list[Shown]) -> list[str]:
    """What is wrong with the images of one page in ``language`` (empty when nothing is)."""
    problems = []
    for index, image in enumerate(shown, start=1):
        where = f"image {index} ({image.src})"
        if not NUMBER[language].match(image.number):
            problems.append(f"{where}: no figure number, got {image.number!r}")
        if not image.caption:
            problems.append(f"{where}: no caption")
        alt = image.alt.strip()
        if not alt:
            problems.append(f"{where}: empty alt text")
        elif FILE_NAME.search(alt) or alt in image.src:
            problems.append(f"{where}: alt text is a file name: {alt!r}")
        if language != "en" and not CJK.search(alt + image.caption):
            problems.append(f"{where}: caption and alt text are not in Chinese")
    return problems


def language_problems(english: list[Shown], chinese: list[Shown]) -> list[str]:
    """Where the Chinese page shows the English variant of a figure (or other figures)."""
    if len(english) != len(chinese):
        return [f"{len(english)} images on the English page, {len(chinese)} on the Chinese"]
    problems = []
    for index, (en, zh) in enumerate(zip(english, chinese, strict=True), start=1):
        if "figure-lang-zh_CN" not in zh.classes.split():
            problems.append(f"image {index} ({zh.src}): not marked as the zh_CN variant")
        if en.src == zh.src:
            problems.append(f"image {index}: the Chinese page shows the English image {en.src}")
    return problems


@pytest.mark.parametrize("path", PAGES)
def test_figures_are_numbered_captioned_described_and_localized(
    browser: Browser,  # noqa: F811
    path: str,
) -> None:
    shown = {language: _shown(browser, f"{language}/{path}") for language in LANGUAGES}
    problems = [
        f"{language}/{path}: {problem}"
        for language in LANGUAGES
        for problem in figure_problems(language, shown[language])
    ]
    problems += [f"zh_CN/{path}: {p}" for p in language_problems(shown["en"], shown["zh_CN"])]
    assert not problems, "\n".join(problems)
