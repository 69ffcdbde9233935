"""What a reader sees of the API reference and of the math, in Chromium, in both languages.

* Every page with math shows it without a single console warning or error (the other browser
  checks count errors only).
* The API reference shows each signature as the code defines it (``allowed=None``, not
  ``=allowedNone``) and a type for every parameter (``query (Tensor)``, not ``query ()``).

test_browser.py imports these tests, so they run on its ``browser`` fixture: one Playwright per
process (a second one in the same thread fails).  The math check asserts on the single visit
of each page (``page_view.py``).  Run with ``nox -s browser``.
"""

from __future__ import annotations

import re

import pytest
from page_view import watch
from playwright.sync_api import Page
from test_browser import LANGUAGES, PAGES, SITE, Browser

# Pages with math (the second test finds TeX that no renderer turned into MathML).
MATH_PAGES = [
    page
    for page in PAGES
    if 'class="math' in (SITE / "en" / page).read_text(encoding="utf-8")
    or "\\(" in (SITE / "en" / page).read_text(encoding="utf-8")
]

SDPA = "attention.scaled_dot_product_attention"
SDPA_SIGNATURE = "(query, key, value, allowed=None, *, additive=None, scale=None)"
# a parameter line whose type is missing: "query ()" or "allowed (, default: None)"
EMPTY_TYPE = re.compile(r"^\s*\**\w+ \(\s*[,)]", re.MULTILINE)
# a signature parameter that starts with "=": "=allowedNone"
GARBLED_PARAMETER = re.compile(r"[(,]\s*=")


def _open_recording_console(browser: Browser, path: str) -> tuple[Page, list[str]]:
    """Open ``path`` with every console warning and error and every page error recorded."""
    messages: list[str] = []
    page = browser.context.new_page()
    watch(page, browser.base, console=messages)
    page.goto(f"{browser.base}/{path}", wait_until="load")
    return page, messages


def test_some_pages_have_math() -> None:
    assert MATH_PAGES, "no page with math found: the math checks would check nothing"


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("path", MATH_PAGES)
def test_math_typesets_without_console_warnings(browser: Browser, language: str, path: str) -> None:
    view = browser.view(f"{language}/{path}")
    assert view.typeset > 0, "no formula as MathML"
    assert not view.console, "\n".join(view.console)


API_PAGES = sorted(
    f"reference/api/{page.name}" for page in (SITE / "en" / "reference" / "api").glob("*.html")
)


def test_the_api_reference_has_pages() -> None:
    assert "reference/api/attention.html" in API_PAGES, API_PAGES


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("path", API_PAGES)
def test_api_signatures_read_as_the_code(browser: Browser, language: str, path: str) -> None:
    page, messages = _open_recording_console(browser, f"{language}/{path}")
    sdpa = page.locator(f"dt[id='{SDPA}']")
    signature = sdpa.inner_text() if sdpa.count() else None
    signatures = page.eval_on_selector_all("dt.sig", "els => els.map(e => e.innerText)")
    parameters = page.eval_on_selector_all("dl.field-list li", "els => els.map(e => e.innerText)")
    page.close()
    assert signatures, "no signature on an API page"
    if path.endswith("/attention.html"):
        assert signature is not None, f"no {SDPA} on {path}"
        assert SDPA_SIGNATURE in signature.replace("\n", ""), signature
    garbled = [text for text in signatures if GARBLED_PARAMETER.search(text)]
    assert not garbled, f"{len(garbled)} garbled signatures, e.g. {garbled[:3]}"
    untyped = [text for text in parameters if EMPTY_TYPE.match(text)]
    assert not untyped, f"{len(untyped)} parameters without a type, e.g. {untyped[:3]}"
    assert not messages, "\n".join(messages)
