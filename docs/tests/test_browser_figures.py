"""Figures as a reader sees them: numbered, captioned, described, and in the page's language.

Every image in a page's article must sit in a figure whose caption starts with its number
("Fig. 3" / "图 3") and says something after it; its alt text must describe the figure, not
name a file; and the Chinese page must show the Chinese variant of each figure: a different
image from the English page's (the labels are drawn in the page's language) and the
``figure-lang-zh_CN`` mark that the ``{localized-figure}`` directive writes.

Run with ``nox -s browser`` (builds the site first), with the other browser checks.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from offline_site import open_offline
from test_browser import CHROMIUM, LANGUAGES, PAGES, SITE

NUMBER = {"en": re.compile(r"^Fig\. \d+$"), "zh_CN": re.compile(r"^图 \d+$")}
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


# Every image of the article with what a reader gets from it; the theme's own icons (the module
# index's toggles, under _static/) are not figures.
SHOWN = """els => els.filter(img => !img.getAttribute('src').includes('_static/')).map(img => {
    const figure = img.closest('figure');
    const caption = figure ? figure.querySelector('figcaption') : null;
    const number = caption ? caption.querySelector('.caption-number') : null;
    const text = caption ? caption.querySelector('.caption-text') : null;
    return {
        src: new URL(img.src).pathname.replace(/^.*\\/_images\\//, '_images/'),
        alt: img.getAttribute('alt') || '',
        number: number ? number.textContent.trim() : '',
        caption: text ? text.textContent.trim() : '',
        classes: figure ? figure.className : '',
    };
})"""


def _read_site() -> dict[tuple[str, str], list[Shown]]:
    """Open every page in both languages in headless Chromium, offline; what each one shows."""
    shown: dict[tuple[str, str], list[Shown]] = {}
    with open_offline(SITE, CHROMIUM) as offline:
        page = offline.context.new_page()
        for language in LANGUAGES:
            for path in PAGES:
                page.goto(f"{offline.base}/{language}/{path}", wait_until="load")
                rows = page.eval_on_selector_all("article img", SHOWN)
                shown[language, path] = [Shown(**row) for row in rows]
        external = list(offline.external)
    assert not external, f"requests to other hosts: {external}"
    return shown


@pytest.fixture(scope="module")
def site_figures() -> dict[tuple[str, str], list[Shown]]:
    if not (SITE / "index.html").is_file() or not PAGES:
        pytest.fail(f"no built site at {SITE}: run `nox -s docs` first")
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"no Chromium at {CHROMIUM}: apt-get install -y chromium")
    # Playwright's synchronous API allows one instance per thread, and test_browser.py holds
    # one in this thread for the whole session: this one runs in a thread of its own.
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(_read_site).result()


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
    site_figures: dict[tuple[str, str], list[Shown]], path: str
) -> None:
    shown = {language: site_figures[language, path] for language in LANGUAGES}
    problems = [
        f"{language}/{path}: {problem}"
        for language in LANGUAGES
        for problem in figure_problems(language, shown[language])
    ]
    problems += [f"zh_CN/{path}: {p}" for p in language_problems(shown["en"], shown["zh_CN"])]
    assert not problems, "\n".join(problems)
