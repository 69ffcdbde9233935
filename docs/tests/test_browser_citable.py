"""What a reviewer who cites the site needs, in headless Chromium, in both languages.

* Every table of every page fits its column at 1280 px (nothing to scroll sideways for), and the
  mask tables fit a 390 px phone as well; the rows × releases matrix, which scrolls in its own
  box, is checked in ``test_browser_releases.py``.
* Ids and API names in tables, headings and prose break only after a dot or an underscore
  (where the build put a ``<wbr>``), never inside a word; shapes and versions never break.
* A heading's copy-link button stays on the line of the heading's last word, and its ¶ shows
  only while the heading is hovered; no heading is wider than its box at 390 or 1280 px (a
  Chinese heading breaks between characters like the prose) and its button stays in view.
* A copy-link button copies a citation: the versioned address (``…/en/v<version>/…#anchor``),
  the site version and, for a mask-table row, what the row was verified on, in the page's
  language; the same for numbered display equations.

Uses the browser and server of ``test_browser.py``; run with ``nox -s browser``.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from playwright.sync_api import Page, Route
from test_browser import PAGES, REPO, Browser, _check_clean, browser
from test_browser_chrome import _version

from attention.semantics import paths
from attention.semantics.registry import VERIFIED_WITH

__all__ = ["browser"]  # the fixture, shared with test_browser.py

LANGUAGES = ("en", "zh_CN")
SLUG = {"en": "en", "zh_CN": "zh-cn"}  # Read the Docs' language slugs (docs/_ext/site_support.py)
MASK_PAGES = (
    "reference/mask-semantics.html",
    "reference/cross-framework-masks.html",
    "reference/decoder-masks.html",
)
PHONE, DESKTOP = 390, 1280

# One reading per page and width: every table's overflow, names broken where they must not be,
# and heading buttons on a line of their own.
READ = """() => {
  const article = document.querySelector('article');
  // furo wraps a page's tables in a scrolling .table-wrapper; the generated indices' tables sit
  // in their section, whose width also holds the section's heading
  const tables = [...article.querySelectorAll('table')].map(table => {
    const wrapper = table.closest('.table-wrapper');
    const section = table.closest('section[id]');
    return {section: section ? section.id : '', mask: table.matches('.semantics-table'),
            boxed: table.matches('.semantics-matrix'),
            scroll: (wrapper || table).scrollWidth,
            client: (wrapper || table.parentElement).clientWidth};
  });
  // A name may break only at its <wbr>: each piece between them is one box.  Code that may wrap
  // (white-space other than nowrap: a call with arguments in a phone's mask table) breaks only
  // at its spaces, between its words (span.pre).  Any other code is one box as a whole.
  const broken = [];
  // (in prose, only names: an address or a path there may break at its hyphens and slashes)
  for (const code of article.querySelectorAll(
      'table code.literal, :is(h1, h2, h3, h4, h5, h6) code.literal, :is(p, li) code.wbr-name')) {
    const pieces = code.matches('.wbr-name') ? [...code.childNodes]
      : getComputedStyle(code).whiteSpace !== 'nowrap' ? [...code.querySelectorAll('span.pre')]
      : [code];
    for (const piece of pieces) {
      const range = document.createRange();
      range.selectNodeContents(piece);
      const lines = new Set([...range.getClientRects()].filter(r => r.width > 0)
        .map(r => Math.round(r.top)));
      if (lines.size > 1) {
        const where = code.closest('table, h1, h2, h3, h4, h5, h6, p, li');
        broken.push(code.textContent + ' (in ' + where.tagName.toLowerCase() + ')');
        break;
      }
    }
  }
  // A heading's copy-link button is on the line of the heading's last character of text.
  const lonely = [];
  for (const heading of article.querySelectorAll('section[id] > :is(h1, h2, h3, h4, h5, h6)')) {
    const button = heading.querySelector('button.copy-link');
    if (!button) continue;
    const walker = document.createTreeWalker(heading, NodeFilter.SHOW_TEXT);
    let last = null;
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      // (the word joiner site.js puts before the button is no character of the heading)
      const text = node.textContent.replace(/\u2060/g, '').trim();
      if (text && !node.parentElement.closest('a.headerlink, button')) {
        last = node;
      }
    }
    if (!last) continue;
    const text = last.textContent.replace(/\\s+$/, '');
    const range = document.createRange();
    range.setStart(last, text.length - 1);
    range.setEnd(last, text.length);
    const word = range.getBoundingClientRect();
    const icon = button.getBoundingClientRect();
    if (icon.top >= word.bottom || icon.bottom <= word.top) {
      lonely.push(heading.textContent.trim());
    }
  }
  // A heading fits its box: none of its lines runs past the box's right edge (a Chinese
  // heading breaks between characters as the prose does), and its copy-link button is in view.
  const wide = [];
  const view = document.documentElement.clientWidth;
  for (const heading of article.querySelectorAll('section[id] > :is(h1, h2, h3, h4, h5, h6)')) {
    const box = heading.getBoundingClientRect();
    const range = document.createRange();
    range.selectNodeContents(heading);
    const right = Math.max(...[...range.getClientRects()].map(r => r.right));
    const button = heading.querySelector('button.copy-link');
    const icon = button ? button.getBoundingClientRect() : null;
    if (right > box.right + 1 || (icon && icon.right > Math.min(box.right, view) + 1)) {
      wide.push(heading.textContent.trim() + ' (' + Math.round(right - box.right) + ' px)');
    }
  }
  // Sphinx's ¶ after a heading shows only while the reader points at the heading
  const marks = [...article.querySelectorAll(':is(h1, h2, h3, h4, h5, h6) a.headerlink')]
    .filter(link => getComputedStyle(link).visibility === 'visible')
    .map(link => link.closest('h1, h2, h3, h4, h5, h6').textContent.trim());
  return {tables: tables, broken: broken, lonely: lonely, marks: marks, wide: wide};
}"""


@dataclass
class Layout:
    """What the pages of one language showed at one width: ``page -> READ's result``."""

    pages: dict[str, dict[str, Any]] = field(default_factory=dict)


_LAYOUTS: dict[tuple[str, int], Layout] = {}


def _layout(browser: Browser, language: str, width: int, paths: tuple[str, ...]) -> Layout:
    """Every page of ``paths`` read once at ``width`` (one browser tab for all of them)."""
    layout = _LAYOUTS.setdefault((language, width), Layout())
    missing = [path for path in paths if path not in layout.pages]
    if missing:
        page = browser.open(f"{language}/{missing[0]}")
        try:
            page.set_viewport_size({"width": width, "height": 900})
            for path in missing:
                page.goto(f"{browser.base}/{language}/{path}", wait_until="load")
                page.wait_for_function("() => document.querySelector('#copy-link-status')")
                layout.pages[path] = page.evaluate(READ)
        finally:
            page.close()
        _check_clean(browser)
    return layout


# -- tables fit their column ----------------------------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_table_fits_its_column_on_a_desktop(browser: Browser, language: str) -> None:
    layout = _layout(browser, language, DESKTOP, tuple(PAGES))
    wide = [
        f"{path}#{table['section']}: {table['scroll']} px in {table['client']} px"
        for path, seen in layout.pages.items()
        for table in seen["tables"]
        # the rows × releases matrix scrolls in its own box by design; the page around it does
        # not (test_browser_releases.py)
        if table["scroll"] > table["client"] and not table["boxed"]
    ]
    assert not wide, f"tables wider than their column at {DESKTOP} px:\n" + "\n".join(wide)


@pytest.mark.parametrize("language", LANGUAGES)
def test_mask_tables_fit_a_phone(browser: Browser, language: str) -> None:
    layout = _layout(browser, language, PHONE, MASK_PAGES)
    tables = [t for path in MASK_PAGES for t in layout.pages[path]["tables"] if t["mask"]]
    assert len(tables) >= 2, "no mask tables"
    wide = [
        f"{path}#{table['section']}: {table['scroll']} px in {table['client']} px"
        for path in MASK_PAGES
        for table in layout.pages[path]["tables"]
        if table["mask"] and table["scroll"] > table["client"]
    ]
    assert not wide, f"mask tables wider than the screen at {PHONE} px:\n" + "\n".join(wide)


# -- names break only after a dot or an underscore; buttons stay with their heading ------------


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
@pytest.mark.parametrize("language", LANGUAGES)
def test_names_break_only_after_a_dot_or_an_underscore(
    browser: Browser, language: str, width: int
) -> None:
    layout = _layout(browser, language, width, tuple(PAGES))
    broken = [f"{path}: {name}" for path, seen in layout.pages.items() for name in seen["broken"]]
    assert not broken, f"names broken inside a word at {width} px:\n" + "\n".join(broken)


@pytest.mark.parametrize("language", LANGUAGES)
def test_heading_buttons_stay_with_the_last_word(browser: Browser, language: str) -> None:
    layout = _layout(browser, language, PHONE, tuple(PAGES))
    lonely = [f"{path}: {text}" for path, seen in layout.pages.items() for text in seen["lonely"]]
    assert not lonely, f"copy-link icons alone on a line at {PHONE} px:\n" + "\n".join(lonely)


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
@pytest.mark.parametrize("language", LANGUAGES)
def test_headings_fit_their_box(browser: Browser, language: str, width: int) -> None:
    """No heading runs past its box, and its copy-link button is in view, in either language."""
    layout = _layout(browser, language, width, tuple(PAGES))
    wide = [f"{path}: {text}" for path, seen in layout.pages.items() for text in seen["wide"]]
    assert not wide, f"{len(wide)} headings wider than their box at {width} px:\n" + "\n".join(wide)


@pytest.mark.parametrize("language", LANGUAGES)
def test_heading_marks_show_only_on_hover(browser: Browser, language: str) -> None:
    layout = _layout(browser, language, PHONE, tuple(PAGES))
    shown = [f"{path}: {text}" for path, seen in layout.pages.items() for text in seen["marks"]]
    assert not shown, "headings show their ¶ before any hover:\n" + "\n".join(shown[:10])


# -- a copied link is a citation ----------------------------------------------------------------


def _documentation() -> str:
    with open(REPO / "pyproject.toml", "rb") as file:
        return str(tomllib.load(file)["project"]["urls"]["Documentation"]).rstrip("/")


def _verified_on(claim_id: str, language: str) -> str:
    """What a row's citation says it observed where, from the committed records.

    A PyTorch row: each value with its runs of consecutive releases, values in the order they
    first appear ("error on torch 2.0.1–2.2.2 and 2.14.1–2.15.0, ok on torch 2.3.1–2.13.0");
    another framework's row: the versions it was verified with.  Both name the device every
    record was made on, a CPU.
    """
    zh = language == "zh_CN"
    framework = claim_id.split(".")[0]
    if framework in VERIFIED_WITH and framework != "torch":
        record = json.loads(paths.ECOSYSTEM_RECORD.read_text(encoding="utf-8"))
        names = VERIFIED_WITH[framework]
        versions = ("、" if zh else ", ").join(f"{n} {record['versions'][n]}" for n in names)
        return f"已在 CPU 上用 {versions} 验证" if zh else f"verified on {versions} on a CPU"
    runs: list[list[str | None]] = []  # [first, last, value] of each run
    for release in paths.torch_releases():
        record = json.loads(paths.torch_record(release.torch).read_text(encoding="utf-8"))
        row = record["rows"].get(claim_id)
        if row is None:
            continue
        value = row["observed"] if row.get("status") == "ok" else None
        if runs and runs[-1][2] == value:
            runs[-1][1] = release.torch
        else:
            runs.append([release.torch, release.torch, value])
    spans: dict[str, list[str]] = {}
    for first, last, value in runs:
        if value is not None:
            spans.setdefault(value, []).append(f"{first}–{last}" if first != last else str(first))
    joined = {value: (" 和 " if zh else " and ").join(found) for value, found in spans.items()}
    if zh:
        said = "，".join(f"torch {releases} 上为 {value}" for value, releases in joined.items())
        return f"{said}（CPU）"
    return ", ".join(f"{value} on torch {releases}" for value, releases in joined.items()) + (
        ", on a CPU"
    )


def _expected(
    language: str, path: str, anchor: str, verified: str | None, number: str | None = None
) -> str:
    """The citation a button copies; in Chinese a space keeps the address apart from "（"."""
    url = f"{_documentation()}/{SLUG[language]}/v{_version()}/{path}#{anchor}"
    version = _version()
    if language == "zh_CN":
        if number is not None:
            return f"{url} （attention {version}，公式 {number}）"
        if verified is None:
            return f"{url} （attention {version}）"
        return f"{url} （attention {version}；{verified}）"
    if number is not None:
        return f"{url} (attention {version}, equation {number})"
    if verified is None:
        return f"{url} (attention {version})"
    return f"{url} (attention {version}; {verified})"


def _copy(page: Page, selector: str) -> str:
    page.evaluate("navigator.clipboard.writeText('nothing copied')")
    page.locator(selector).first.click()
    page.wait_for_function(
        "async () => (await navigator.clipboard.readText()) !== 'nothing copied'"
    )
    return str(page.evaluate("navigator.clipboard.readText()"))


@pytest.fixture
def tab(browser: Browser) -> Iterator[list[Page]]:
    pages: list[Page] = []
    yield pages
    for page in pages:
        page.close()
    _check_clean(browser)


# a numbered display equation, as the pages write it (the shape site.js looks for)
EQUATION = (
    '<div class="math" id="equation-cite-check" lang="zxx"><span class="eqno" lang="en">(1)</span>'
    '<math display="block"><mi>x</mi></math></div>'
)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(
    ("path", "row"),
    [
        (MASK_PAGES[0], "sdpa.attn_mask.bool"),
        (MASK_PAGES[0], "mha.key_padding_mask.bool"),
        # error on 2.0–2.2, ok on 2.3–2.13, error from 2.14: the citation says which held where
        (MASK_PAGES[0], "sdpa.is_causal_with_attn_mask"),
    ],
)
def test_a_copied_link_is_a_citation(
    browser: Browser, tab: list[Page], language: str, path: str, row: str
) -> None:
    page = browser.open(f"{language}/{path}")
    tab.append(page)
    page.wait_for_selector("button.copy-link")
    copied = _copy(page, f"tr[id='{row}'] button.copy-link")
    assert copied == _expected(language, path, row, _verified_on(row, language))

    heading = page.locator("article section[id] > h2 button.copy-link").first
    anchor = heading.get_attribute("data-anchor") or ""
    copied = _copy(page, f"article section[id='{anchor}'] > h2 button.copy-link")
    assert copied == _expected(language, path, anchor, None)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_copied_link_to_another_frameworks_row_names_its_versions(
    browser: Browser, tab: list[Page], language: str
) -> None:
    record = json.loads(paths.ECOSYSTEM_RECORD.read_text(encoding="utf-8"))
    row = next(claim for claim, seen in record["rows"].items() if seen["status"] == "ok")
    page = browser.open(f"{language}/{MASK_PAGES[1]}")
    tab.append(page)
    page.wait_for_selector("button.copy-link")
    copied = _copy(page, f"tr[id='{row}'] button.copy-link")
    assert copied == _expected(language, MASK_PAGES[1], row, _verified_on(row, language))


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_numbered_equation_copies_its_citation(
    browser: Browser, tab: list[Page], language: str
) -> None:
    path = "lesson/02-scaled-dot-product.html"

    def with_equation(route: Route) -> None:
        answer = route.fetch()
        html = answer.text().replace("</h1>", "</h1>" + EQUATION, 1)
        route.fulfill(response=answer, body=html)

    browser.context.route(f"{browser.base}/{language}/{path}", with_equation)
    try:
        page = browser.open(f"{language}/{path}")
        tab.append(page)
        button = page.locator("div.math#equation-cite-check span.eqno button.copy-link")
        button.wait_for()
        label = button.get_attribute("aria-label") or ""
        assert ("公式" if language == "zh_CN" else "equation") in label, label
        copied = _copy(page, "div.math#equation-cite-check span.eqno button.copy-link")
    finally:
        browser.context.unroute(f"{browser.base}/{language}/{path}", with_equation)
    assert copied == _expected(language, path, "equation-cite-check", None, "(1)")
