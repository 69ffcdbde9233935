"""What a reader who cites the site meets around the text, in headless Chromium, in both languages.

The language switch keeps the reader's place; every heading and mask-table row has a button that
copies its link; each mask-table row names the release(s) and the day it was verified; ids, API
names and shapes never break inside a word; the theme speaks the page's language; search
snippets start with the page's own text and show no TeX source; the site names its version; and
an intersphinx reference to a row reads as the row's claim.

Uses the browser and server of ``test_browser.py``; run with ``nox -s browser``.
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page
from test_browser import RAW_TEX, REPO, SITE, Browser, _check_clean, browser

from attention.semantics import paths

__all__ = ["browser"]  # the fixture, shared with test_browser.py

LANGUAGES = ("en", "zh_CN")
OTHER = {"en": "zh_CN", "zh_CN": "en"}
TABLE_PAGES = (
    "reference/mask-semantics.html",
    "reference/cross-framework-masks.html",
    "reference/decoder-masks.html",
)
SHAPE_PAGE = "lesson/02-scaled-dot-product.html"
ROW = "sdpa.attn_mask.bool"
WIDTHS = (1280, 390)
CJK = re.compile(r"[\u4e00-\u9fff]")

# furo's strings as the English pages show them: none may appear on a Chinese page
THEME_ENGLISH = (
    "Next",
    "Previous",
    "On this page",
    "Back to top",
    "Skip to content",
    "Made with",
    "Copyright",
    "Home",
    "Search",
    "Toggle",
    "version",
    "Version",
)
# the language switch's label on each side: a search snippet that carries it shows the page chrome
SWITCH_TEXT = ("Read this page in", "本页的其他语言版本")


def _version() -> str:
    text = (REPO / "src" / "attention" / "__init__.py").read_text(encoding="utf-8")
    match = re.search(r'^__version__ = "([^"]+)"', text, re.MULTILINE)
    assert match, "no __version__ in src/attention/__init__.py"
    return match.group(1)


def _records() -> dict[str, dict[str, object]]:
    """claim id -> (release texts, dates) expected on its row, from the committed records.

    A row names its releases as runs of consecutive releases with the same observed value:
    "torch 2.0.1–2.15.0 ✓" where all agree, else each run with its value ("2.0.1–2.4.1",
    "nan"); then the first and the last day of the runs.
    """
    seen: dict[str, list[tuple[str, str | None, str]]] = {}
    for release in paths.torch_releases():
        path = paths.torch_record(release.torch)
        record = json.loads(path.read_text(encoding="utf-8"))
        for claim_id, row in record["rows"].items():
            value = row["observed"] if row["status"] == "ok" else None
            seen.setdefault(claim_id, []).append((release.torch, value, record["date"]))
    expected: dict[str, dict[str, object]] = {}
    for claim_id, cells in seen.items():
        if all(value is None for _, value, _ in cells):
            expected[claim_id] = {"status": "not_verified", "releases": []}
            continue
        runs: list[list[str | None]] = []
        for release, value, _day in cells:
            if runs and runs[-1][2] == value:
                runs[-1][1] = release
            else:
                runs.append([release, release, value])
        spans = [f"{a}–{b}" if a != b else str(a) for a, b, _ in runs]
        if len(runs) == 1:
            texts = [f"torch {spans[0]} ✓"]
        else:
            texts = [*spans, *(str(value) for *_, value in runs if value is not None)]
        days = sorted(day for _, value, day in cells if value is not None)
        expected[claim_id] = {"status": "ok", "releases": [*texts, days[0], days[-1]]}
    ecosystem = json.loads(paths.ECOSYSTEM_RECORD.read_text(encoding="utf-8"))
    for claim_id, row in ecosystem["rows"].items():
        framework = claim_id.split(".")[0]
        names = [name for name in ecosystem["versions"] if name == framework]
        expected[claim_id] = {
            "status": row["status"],
            "releases": [
                *(f"{name} {ecosystem['versions'][name]}" for name in names),
                ecosystem["date"],
            ],
        }
    # transformers and onnxruntime rows name their releases as torch rows do, with the name
    for framework, releases in paths.library_releases().items():
        library: dict[str, list[tuple[str, str | None, str]]] = {}
        for release in releases:
            record = json.loads(paths.library_record(framework, release).read_text("utf-8"))
            for claim_id, row in record["rows"].items():
                value = row["observed"] if row["status"] == "ok" else None
                library.setdefault(claim_id, []).append((release, value, record["date"]))
        for claim_id, cells in library.items():
            if all(value is None for _, value, _ in cells):
                continue  # a row no release could run: the ecosystem record's expectation
            runs: list[list[str | None]] = []
            for release, value, _day in cells:
                if runs and runs[-1][2] == value:
                    runs[-1][1] = release
                else:
                    runs.append([release, release, value])
            spans = [f"{a}–{b}" if a != b else str(a) for a, b, _ in runs]
            if len(runs) == 1:
                texts = [f"{framework} {spans[0]} ✓"]
            else:
                texts = [*spans, *(str(value) for *_, value in runs if value is not None)]
            days = sorted(day for _, value, day in cells if value is not None)
            expected[claim_id] = {"status": "ok", "releases": [*texts, days[0], days[-1]]}
    return expected


@pytest.fixture
def page_at(browser: Browser) -> Iterator[list[Page]]:
    pages: list[Page] = []
    yield pages
    for page in pages:
        page.close()
    _check_clean(browser)


def _open(browser: Browser, pages: list[Page], path: str, width: int = 1280) -> Page:
    page = browser.open(path)
    pages.append(page)
    page.set_viewport_size({"width": width, "height": 900})
    page.wait_for_load_state("load")
    return page


def _switch(browser: Browser, page: Page) -> str:
    """Click the language switch; the URL the other language's page loads at."""
    with page.expect_navigation(wait_until="load", timeout=15000):
        page.click("nav.language-switch a.language-switch-link")
    return page.url[len(browser.base) + 1 :]


# -- the language switch keeps the place --------------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
def test_language_switch_keeps_the_anchor(
    browser: Browser, page_at: list[Page], language: str
) -> None:
    path = TABLE_PAGES[0]
    page = _open(browser, page_at, f"{language}/{path}#{ROW}")
    other = OTHER[language]
    assert _switch(browser, page) == f"{other}/{path}#{ROW}"
    assert page.evaluate("document.querySelector(':target')?.id") == ROW

    # a link followed inside the page after it loaded
    page.evaluate("location.hash = '#sdpa.attn_mask.float'")
    assert _switch(browser, page) == f"{language}/{path}#sdpa.attn_mask.float"


@pytest.mark.parametrize("language", LANGUAGES)
def test_language_switch_follows_links_inside_the_page(
    browser: Browser, page_at: list[Page], language: str
) -> None:
    """A reader who follows a link to a row after the page loaded switches to that row."""
    path = TABLE_PAGES[0]
    page = _open(browser, page_at, f"{language}/{path}")
    link = page.locator("article a[href^='#sdpa.']").first
    target = (link.get_attribute("href") or "")[1:]
    link.click()
    page.wait_for_function(f"location.hash === '#{target}'")
    assert _switch(browser, page) == f"{OTHER[language]}/{path}#{target}"


# -- copy-link buttons --------------------------------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("path", TABLE_PAGES)
def test_every_heading_and_row_has_a_copy_link_button(
    browser: Browser, page_at: list[Page], language: str, path: str
) -> None:
    page = _open(browser, page_at, f"{language}/{path}")
    missing = page.evaluate(
        """() => {
            const places = [
                ...document.querySelectorAll('article section[id] > :is(h1,h2,h3,h4,h5,h6)'),
                ...document.querySelectorAll('article table.semantics-table tr[id]'),
            ];
            return places.filter(p => !p.querySelector('button.copy-link'))
                .map(p => p.id || p.parentElement.id);
        }"""
    )
    rows = page.locator("article table.semantics-table tr[id]").count()
    assert rows > 0, "no mask-table rows on the page"
    assert not missing, f"no copy-link button on {missing}"
    labels = page.eval_on_selector_all(
        "article button.copy-link", "els => els.map(e => e.getAttribute('aria-label') || '')"
    )
    for label in set(labels):
        assert label, "a copy-link button without an accessible label"
        if language == "zh_CN":
            assert CJK.search(label), f"English label on a Chinese page: {label!r}"
        else:
            assert not CJK.search(label), f"Chinese label on an English page: {label!r}"


# what a copy-link button copies (a citation) is checked in test_browser_citable.py


# -- rows: release(s) and date; names whole ------------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("path", TABLE_PAGES)
def test_each_row_shows_its_releases_and_date(
    browser: Browser, page_at: list[Page], language: str, path: str
) -> None:
    page = _open(browser, page_at, f"{language}/{path}")
    shown = page.evaluate(
        """() => Object.fromEntries(
            [...document.querySelectorAll('article table.semantics-table tr[id]')].map(row => {
                // the row's claim and the rows that follow it up to the next claim
                let text = '', next = row.nextElementSibling;
                while (next && !next.id) {
                    text += ' ' + next.innerText;
                    next = next.nextElementSibling;
                }
                return [row.id, row.innerText + ' ' + text];
            }))"""
    )
    assert shown, "no mask-table rows"
    records = _records()
    problems = []
    for claim_id, text in shown.items():
        record = records[claim_id]
        if record["status"] != "ok":
            continue
        for release in record["releases"]:  # type: ignore[attr-defined]
            if not release or str(release) not in text:
                problems.append(f"{claim_id}: {release!r} not shown")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("path", [*TABLE_PAGES, SHAPE_PAGE])
def test_names_in_tables_never_break(
    browser: Browser, page_at: list[Page], language: str, path: str, width: int
) -> None:
    """A shape or a value in a table is one line (a wrapped one has several boxes).

    An id or an API name (class ``wbr-name``) may break after a dot or an underscore, at its
    ``<wbr>``, and code that the stacked mask table of a phone lets wrap at its spaces (a call
    with arguments) may break there; test_browser_citable.py checks that they break nowhere else.
    """
    page = _open(browser, page_at, f"{language}/{path}", width)
    broken = page.evaluate(
        """() => [...document.querySelectorAll('article table code.literal:not(.wbr-name)')]
            .filter(code => getComputedStyle(code).whiteSpace === 'nowrap')
            .filter(code => code.getClientRects().length > 1)
            .map(code => code.textContent)"""
    )
    assert page.locator("article table code.literal").count() > 0
    assert not broken, f"broken across lines at {width} px: {broken[:5]}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_reproduce_snippet_gets_the_table_width(
    browser: Browser, page_at: list[Page], language: str
) -> None:
    page = _open(browser, page_at, f"{language}/{TABLE_PAGES[0]}")
    table = page.locator("article table.semantics-table").first.bounding_box()
    page.locator("article .semantics-reproduce > summary").first.click()
    snippet = page.locator("article .semantics-reproduce pre").first
    snippet.wait_for(state="visible")
    box = snippet.bounding_box()
    assert table is not None
    assert box is not None
    assert box["width"] >= 0.8 * table["width"], (
        f"the snippet is {box['width']:.0f} px wide in a {table['width']:.0f} px table"
    )


# -- the theme in the page's language; the site's version ----------------------------------------


@pytest.mark.parametrize("path", ["index.html", SHAPE_PAGE, TABLE_PAGES[0], "search.html"])
def test_theme_strings_are_chinese_on_chinese_pages(
    browser: Browser, page_at: list[Page], path: str
) -> None:
    page = _open(browser, page_at, f"zh_CN/{path}")
    chrome = page.evaluate(
        """() => {
            const outside = [...document.querySelectorAll('body *')]
                .filter(e => !e.closest('article') && !e.closest('.sidebar-tree'));
            const texts = [];
            for (const e of outside) {
                for (const node of e.childNodes) {
                    if (node.nodeType === Node.TEXT_NODE && node.textContent.trim()) {
                        texts.push(node.textContent.trim());
                    }
                }
                for (const name of ['aria-label', 'placeholder', 'title']) {
                    if (e.getAttribute(name)) texts.push(e.getAttribute(name));
                }
            }
            return texts;
        }"""
    )
    english = sorted(
        {text for text in chrome for word in THEME_ENGLISH if re.search(rf"\b{word}\b", text)}
    )
    assert not english, f"English theme strings on a Chinese page: {english}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_site_shows_its_version(browser: Browser, page_at: list[Page], language: str) -> None:
    page = _open(browser, page_at, f"{language}/{SHAPE_PAGE}", 390)
    footer = page.locator("footer").inner_text()
    assert _version() in footer, f"the footer does not name version {_version()}: {footer!r}"


# -- search snippets ------------------------------------------------------------------------------


SEARCHES = [("en", "softmax"), ("en", "scale"), ("zh_CN", "softmax"), ("zh_CN", "缩放")]


def _snippets(browser: Browser, pages: list[Page], language: str, query: str) -> list[str]:
    page = _open(browser, pages, f"{language}/search.html?q={query}")
    page.wait_for_selector("#search-results ul.search li", timeout=15000)
    # each result's snippet is fetched from its page: wait until no more arrive
    count, stable = -1, 0
    for _ in range(60):
        page.wait_for_timeout(250)
        now = page.locator("#search-results ul.search li p.context").count()
        stable = stable + 1 if now == count else 0
        count = now
        if stable == 4:
            break
    snippets: list[str] = page.eval_on_selector_all(
        "#search-results ul.search li p.context", "els => els.map(e => e.textContent)"
    )
    assert len(snippets) >= 3, snippets
    return snippets


@pytest.mark.parametrize(("language", "query"), SEARCHES)
def test_search_snippets_start_with_the_pages_text(
    browser: Browser, page_at: list[Page], language: str, query: str
) -> None:
    snippets = _snippets(browser, page_at, language, query)
    chrome = [s for s in snippets if any(text in s for text in SWITCH_TEXT)]
    assert not chrome, f"{len(chrome)} of {len(snippets)} snippets show the language switch"


@pytest.mark.parametrize(("language", "query"), SEARCHES)
def test_search_snippets_show_no_tex(
    browser: Browser, page_at: list[Page], language: str, query: str
) -> None:
    snippets = _snippets(browser, page_at, language, query)
    tex = [s for s in snippets if RAW_TEX.search(s) or re.search(r"\\[a-zA-Z]+", s)]
    assert not tex, f"{len(tex)} of {len(snippets)} snippets show TeX, e.g. {tex[0][:200]!r}"


# -- cross-references to a row read as its claim ---------------------------------------------------


def _inventory(path: str) -> list[tuple[str, str, str, str]]:
    """(name, role, uri, display name) of every object in a Sphinx objects.inv."""
    data = (SITE / path).read_bytes()
    header_end = 0
    for _ in range(4):
        header_end = data.index(b"\n", header_end) + 1
    lines = zlib.decompress(data[header_end:]).decode("utf-8").splitlines()
    entries = []
    pattern = re.compile(r"(?x)(.+?)\s+(\S+:\S+)\s+(-?\d+)\s+(\S*)\s+(.*)")
    for line in lines:
        match = pattern.fullmatch(line)
        if match:
            name, role, _priority, uri, display = match.groups()
            entries.append((name, role, uri, display))
    return entries


@pytest.mark.parametrize("language", LANGUAGES)
def test_row_labels_read_as_their_claim(language: str) -> None:
    labels = {
        name: display
        for name, role, _uri, display in _inventory(f"{language}/objects.inv")
        if role == "std:label"
    }
    assert ROW in labels, f"{ROW} is not a label in objects.inv"
    display = labels[ROW]
    assert display != "-", f"{ROW} has no title: a reference to it shows the raw id"
    assert "scaled_dot_product_attention" in display, display
    assert "allowed" in display, display


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_deep_link_lands_at_once(browser: Browser, page_at: list[Page], language: str) -> None:
    """A link to a row puts the row at the top when the page has loaded, with no slow slide."""
    page = _open(browser, page_at, f"{language}/{TABLE_PAGES[0]}#sdpa.is_causal_with_attn_mask")
    page.wait_for_timeout(150)
    top = page.evaluate(
        "document.getElementById('sdpa.is_causal_with_attn_mask').getBoundingClientRect().top"
    )
    assert -5 <= top <= 80, f"150 ms after load the row is {top:.0f} px from the top"
