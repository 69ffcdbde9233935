"""Reading the site on a phone and while scrolling, in headless Chromium, in both languages.

* **A wrapped line of code reads as a continuation**: at 390 px long lines wrap, and a wrapped
  doctest line used to go on at the left edge with no prompt, where a line of output starts.
  Every part of a wrapped line after its first starts at least three characters in.
* **An API signature breaks between its parts**: at 390 px ``scaled_dot_product_attention(qu``
  broke inside ``query``.  No name, parameter or default of a signature spans two lines.
* **"Back to top" covers no heading**: furo showed it at the top of the window while the reader
  scrolled up, over the heading or the sticky table head being looked for.  On long pages at
  1280 and 390 px, scrolled up through most of the page, it covers no heading's text and no
  table head where the page shows them.

Uses the browser and server of ``test_browser.py``; run with ``nox -s browser``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page
from test_browser import PAGES, SITE, Browser, _check_clean, browser

__all__ = ["browser"]  # the fixture, shared with test_browser.py

LANGUAGES = ("en", "zh_CN")
PHONE = 390
CODE_PAGES = [
    path for path in PAGES if 'class="highlight' in (SITE / "en" / path).read_text(encoding="utf-8")
]
API_PAGES = [path for path in PAGES if path.startswith("reference/api/")]
LONG_PAGES = (
    "reference/mask-semantics-releases.html",
    "reference/mask-semantics.html",
    "lesson/02-scaled-dot-product.html",
    "reference/api/attention.html",
)


@pytest.fixture
def page_at(browser: Browser) -> Iterator[list[Page]]:
    pages: list[Page] = []
    yield pages
    for page in pages:
        page.close()
    _check_clean(browser)


def _open(browser: Browser, pages: list[Page], path: str, width: int) -> Page:
    page = browser.open(path)
    pages.append(page)
    page.set_viewport_size({"width": width, "height": 900})
    page.wait_for_load_state("load")
    page.evaluate("() => document.fonts.ready")
    return page


# Each line of code that wraps: where each of its parts starts, in characters from where its
# first part starts (a part per line box of its text; a line of the code is what stands between
# two of its line breaks).
WRAPPED_LINES = """() => {
  const out = [];
  for (const pre of document.querySelectorAll('article div.highlight pre')) {
    if (pre.offsetParent === null) continue;
    const probe = document.createElement('span');
    probe.textContent = '0000000000';
    pre.appendChild(probe);
    const ch = probe.getBoundingClientRect().width / 10;
    probe.remove();
    const pieces = [];
    const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
    let length = 0;
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      pieces.push({node, start: length});
      length += node.data.length;
    }
    const at = position => {
      const piece = pieces.filter(p => p.start <= position).pop();
      return [piece.node, Math.min(position - piece.start, piece.node.data.length)];
    };
    const text = pieces.map(p => p.node.data).join('');
    let offset = 0;
    for (const line of text.split('\\n')) {
      const start = offset;
      offset += line.length + 1;
      if (!line.trim()) continue;
      const range = document.createRange();
      range.setStart(...at(start));
      range.setEnd(...at(start + line.length));
      const lefts = [];
      let top = null;
      for (const rect of range.getClientRects()) {
        if (rect.width === 0) continue;
        if (top === null || rect.top > top + 2) {
          lefts.push(rect.left);
          top = rect.top;
        }
      }
      if (lefts.length > 1) {
        out.push({line: line.slice(0, 60),
                  indents: lefts.slice(1).map(left => (left - lefts[0]) / ch)});
      }
    }
  }
  return out;
}"""


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("path", CODE_PAGES)
def test_a_wrapped_line_of_code_reads_as_a_continuation(
    browser: Browser, page_at: list[Page], language: str, path: str
) -> None:
    page = _open(browser, page_at, f"{language}/{path}", PHONE)
    for button in page.locator("article .admonition.dropdown button.toggle-button").all():
        button.click()  # folded solutions too
    page.evaluate("() => document.querySelectorAll('article details').forEach(d => d.open = true)")
    flush = [
        f"  {item['line']!r}: goes on {min(item['indents']):.1f} characters in"
        for item in page.evaluate(WRAPPED_LINES)
        if min(item["indents"]) < 3
    ]
    assert not flush, f"wrapped lines at {PHONE} px that go on at the left edge:\n" + "\n".join(
        flush
    )


# Every piece of a signature (a name, a parameter, a default: a span.pre) that spans two lines.
SPLIT_PIECES = """() => [...document.querySelectorAll('dt.sig span.pre')]
  .filter(piece => {
    const tops = new Set([...piece.getClientRects()].map(rect => Math.round(rect.top)));
    return tops.size > 1;
  })
  .map(piece => piece.closest('dt.sig').id + ': ' + piece.textContent)"""


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("path", API_PAGES)
def test_an_api_signature_breaks_between_its_parts(
    browser: Browser, page_at: list[Page], language: str, path: str
) -> None:
    page = _open(browser, page_at, f"{language}/{path}", PHONE)
    split = page.evaluate(SPLIT_PIECES)
    assert not split, f"signature parts cut at {PHONE} px:\n" + "\n".join(split)


# Where "Back to top" is, if it shows, and the headings' text and table heads it covers where
# the page shows them (not under the sticky header bar of a phone, which covers them anyway).
COVERED = """() => {
  const back = document.querySelector('.back-to-top');
  if (!back || !back.getClientRects().length) return {shown: false, covered: []};
  const b = back.getBoundingClientRect();
  const header = document.querySelector('.mobile-header');
  const shownHeader = header && header.getClientRects().length;
  const under = shownHeader ? header.getBoundingClientRect().bottom : 0;
  const hits = r => {
    const top = Math.max(r.top, under);
    return r.width > 0 && r.right > b.left && r.left < b.right && r.bottom > b.top
      && top < b.bottom && top < r.bottom;
  };
  const covered = [];
  for (const heading of document.querySelectorAll('article :is(h1, h2, h3, h4, h5, h6)')) {
    const range = document.createRange();
    range.selectNodeContents(heading);
    if ([...range.getClientRects()].some(hits)) covered.push(heading.textContent.trim());
  }
  for (const head of document.querySelectorAll('article th')) {
    if ([...head.getClientRects()].some(hits)) covered.push('th: ' + head.textContent.trim());
  }
  return {shown: true, covered: covered.slice(0, 3)};
}"""


@pytest.mark.parametrize("width", [1280, PHONE])
@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("path", LONG_PAGES)
def test_back_to_top_covers_no_heading(
    browser: Browser, page_at: list[Page], language: str, path: str, width: int
) -> None:
    """Scrolled up through most of the page, "Back to top" never covers a heading's text."""
    page = _open(browser, page_at, f"{language}/{path}", width)
    height = page.evaluate("document.documentElement.scrollHeight")
    page.evaluate(f"window.scrollTo(0, {int(height * 0.9)})")
    page.mouse.move(width // 2, 450)
    page.mouse.wheel(0, 300)
    page.wait_for_timeout(150)
    page.mouse.wheel(0, -200)  # furo shows "Back to top" while the reader scrolls up
    page.wait_for_timeout(300)
    shown, problems = 0, []
    for _ in range(int(height * 0.8 / 120)):
        found = page.evaluate(COVERED)
        shown += found["shown"]
        if found["covered"]:
            problems.append(f"  at {page.evaluate('window.scrollY')} px: {found['covered']}")
        page.evaluate("window.scrollBy(0, -120)")  # on up, as a reader scrolls
        page.wait_for_timeout(40)
    assert shown, "'Back to top' never showed: the check saw nothing"
    assert not problems, "'Back to top' covers:\n" + "\n".join(problems[:8])
