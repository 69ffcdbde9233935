"""The built site in a real browser: math renders offline, language links work, no errors.

Debian's Chromium (``/usr/bin/chromium``, or ``$CHROMIUM``) runs headless through Playwright; no
browser is downloaded.  The site (``docs/_build/html``, or ``$ATTENTION_SITE``) is served from
127.0.0.1 and every request to any other host is aborted and counted as a failure, so a page that
needs a CDN fails here exactly as it would for a reader offline.

Run with ``nox -s browser`` (builds the site first).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from offline_site import LANGUAGES, open_offline
from page_view import PageView, read_page, watch
from playwright.sync_api import BrowserContext, Page

REPO = Path(__file__).resolve().parents[2]
SITE = Path(os.environ.get("ATTENTION_SITE", REPO / "docs" / "_build" / "html"))
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")

# TeX that must never reach a reader: formulas are MathML written by the build (code excluded).
RAW_TEX = re.compile(r"\$\$|\\\(|\\\[|\\frac|\\sqrt|\\operatorname|\\mathrm|\\top")


def _site_pages() -> list[str]:
    """Every English page of the built site, relative to en/ (empty before the first build)."""
    root = SITE / "en"
    return sorted(
        str(path.relative_to(root))
        for path in root.rglob("*.html")
        if "_static" not in path.relative_to(root).parts
    )


PAGES = _site_pages()


@dataclass
class Browser:
    """One headless Chromium, a local server and what the pages did."""

    context: BrowserContext
    base: str
    external: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    views: dict[str, PageView] = field(default_factory=dict)

    def view(self, url: str) -> PageView:
        """What ``url`` (``<language>/<path>``) showed; the page is read on first use only."""
        if url not in self.views:
            self.views[url] = read_page(self.context, self.base, self.external, url)
        return self.views[url]

    def open(self, path: str) -> Page:
        """A new page at ``path``; what goes wrong on it is recorded on ``errors``."""
        page = self.context.new_page()
        watch(page, self.base, errors=self.errors, prefix=f"{path}: ")
        page.goto(f"{self.base}/{path}", wait_until="load")
        return page


# Test modules beside this one import the fixture below, which gives each of them its own
# session-scoped instance; all share the first one's browser, since Playwright's sync API cannot
# run twice at once in one thread.
_RUNNING: list[Browser] = []


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if _RUNNING:
        yield _RUNNING[0]
        return
    if not (SITE / "index.html").is_file() or not PAGES:
        pytest.fail(f"no built site at {SITE}: run `nox -s docs` first")
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"no Chromium at {CHROMIUM}: apt-get install -y chromium")
    with open_offline(SITE, CHROMIUM) as offline:
        # the copy-button checks click a button and read the clipboard back
        clipboard = ["clipboard-read", "clipboard-write"]
        offline.context.grant_permissions(clipboard, origin=offline.base)
        session = Browser(offline.context, offline.base, external=offline.external)
        _RUNNING.append(session)
        try:
            yield session
        finally:
            _RUNNING.remove(session)


def _check_icons(page: Page) -> None:
    """Every icon the page links is served (the browser may cancel its own favicon fetch)."""
    icons = page.eval_on_selector_all("link[rel~='icon']", "els => els.map(e => e.href)")
    assert icons, "the page links no icon"
    for url in icons:
        status = page.request.get(url).status
        assert status == 200, f"icon {url}: HTTP {status}"


def _check_clean(browser: Browser) -> None:
    external, errors = list(browser.external), list(browser.errors)
    browser.external.clear()
    browser.errors.clear()
    assert not external, f"requests to other hosts: {external}"
    assert not errors, "\n".join(errors)


def test_root_page_offers_both_languages(browser: Browser) -> None:
    page = browser.open("index.html")
    _check_icons(page)
    links = page.eval_on_selector_all("a[hreflang]", "els => els.map(e => e.getAttribute('href'))")
    assert sorted(links) == ["en/index.html", "zh_CN/index.html"]
    for href in links:
        page.click(f"a[href='{href}']")
        # Waits until the link's page has loaded; times out (fails) if the link goes elsewhere.
        page.wait_for_url(f"{browser.base}/{href}", wait_until="load", timeout=15000)
        assert page.locator("nav.language-switch").count() == 1
        page.go_back()
    page.close()
    _check_clean(browser)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("path", PAGES)
def test_page(browser: Browser, language: str, path: str) -> None:
    """Math typeset, no raw TeX, folded solutions, and the switch to the same page elsewhere."""
    view = browser.view(f"{language}/{path}")
    assert not view.external, f"requests to other hosts: {view.external}"
    assert not view.errors, "\n".join(view.errors)
    assert not view.math_scripts, f"a math script on the page: {view.math_scripts}"
    if view.math:
        assert view.untypeset == 0, f"{view.untypeset} of {view.math} formulas hold no <math>"
        font = view.math_font
        assert font["status"] == "loaded", f"math font {font['family']!r}: {font['status']}"
        assert font["urls"], "the math font was not downloaded"
        elsewhere = [url for url in font["urls"] if not url.startswith(f"{browser.base}/")]
        assert not elsewhere, f"fonts from another site: {elsewhere}"
    match = RAW_TEX.search(view.prose)
    assert not match, f"raw TeX left on the page: {match}"
    # Solutions (admonitions with :class: dropdown) start folded.
    assert view.open_dropdowns == 0, f"{view.open_dropdowns} dropdowns open before a click"
    assert view.icons, "the page links no icon"
    for icon, status in view.icons.items():
        assert status == 200, f"icon {icon}: HTTP {status}"
    other = next(code for code in LANGUAGES if code != language)
    assert view.switch == [f"{browser.base}/{other}/{path}"], "the switch goes elsewhere"
    counterpart = browser.view(f"{other}/{path}")
    assert counterpart.lang != view.lang, f"both languages say <html lang={view.lang!r}>"
    assert counterpart.anchors == view.anchors, "the two languages do not share the same anchors"


@pytest.mark.parametrize("language", LANGUAGES)
def test_search_results_show_no_tex(language: str) -> None:
    """The titles a search result shows are the formulas' Unicode text, not their TeX."""
    index = (SITE / language / "searchindex.js").read_text(encoding="utf-8")
    data = json.loads(index.removeprefix("Search.setIndex(").removesuffix(")"))
    titles = [*data["titles"], *data["alltitles"]]
    tex = [title for title in titles if RAW_TEX.search(title) or re.search(r"\\[a-zA-Z]+", title)]
    assert not tex, f"search titles with TeX: {tex}"


def test_chinese_search_finds_chinese_words(browser: Browser) -> None:
    """The zh_CN search index is segmented with jieba, so a Chinese word finds pages."""
    page = browser.open("zh_CN/search.html?q=%E6%B3%A8%E6%84%8F%E5%8A%9B")  # 注意力
    page.wait_for_selector("#search-results ul.search li", timeout=15000)
    assert page.locator("#search-results ul.search li").count() > 0
    page.close()
    _check_clean(browser)


@pytest.mark.parametrize("term", ["因果掩码", "填充掩码"])
def test_chinese_search_finds_glossary_terms(browser: Browser, term: str) -> None:
    """Searching for a glossary term finds every page whose text has it (test_search_terms.py)."""
    from test_search_terms import _texts

    using = sum(term in text for text in _texts().values())
    page = browser.open(f"zh_CN/search.html?q={term}")
    page.wait_for_selector("#search-results ul.search li", timeout=15000)
    # the summary names the number of pages once every result is shown
    page.wait_for_function(
        "() => /\\d/.test(document.querySelector('#search-results .search-summary')"
        "?.textContent || '')",
        timeout=15000,
    )
    found = page.locator("#search-results ul.search li").count()
    page.close()
    _check_clean(browser)
    assert found >= using, f"{term}: {found} results, {using} pages use it"


# The API reference and math-console checks (browser_api_checks.py) run on this module's fixture.
from browser_api_checks import (  # noqa: E402
    test_api_signatures_read_as_the_code,
    test_math_typesets_without_console_warnings,
    test_some_pages_have_math,
)

__all__ = [
    "test_api_signatures_read_as_the_code",
    "test_math_typesets_without_console_warnings",
    "test_some_pages_have_math",
]
