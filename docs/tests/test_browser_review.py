"""The "Review rules" pages, checked against the checker's registry, in both languages.

Without a browser (they read the sources):

* the rule pages under ``docs/review/rules/`` are exactly one per rule of
  :data:`attention.review.rules.RULES`, ``<code>.md`` holding ```` ```{review-rule} <CODE> ````;
* every option the page "Using the checker" names exists: the checker's in
  ``python -m attention.review --help``, ``--attention-watch`` in pytest's help;
* the Chinese of each rule's text (``review/registry.po``) keeps its numbers and its code.

In headless Chromium (the browser and server of ``test_browser.py``):

* the rules' table lists every rule in the registry's order, each linking to its page, with its
  severity and links to exactly the mask-semantics rows it rests on;
* each rule page shows its demonstration (the wrong code and the right one, as doctests), links
  to exactly its rows, has the same anchors in both languages and never scrolls sideways on a
  phone (390 px);
* the runtime watch page has a section per runtime rule with its demonstration;
* each row of the mask-semantics table links to exactly the rules (static and runtime) that rest
  on it, and every such link leads to a page of the site.

Run with ``nox -s browser`` (builds the site first).
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po
from playwright.sync_api import Page
from test_browser import SITE, Browser, _check_clean, browser

from attention.review import watch_rules
from attention.review.links import row_page
from attention.review.rules import RULES

__all__ = ["browser"]  # the fixture, shared with test_browser.py

DOCS = Path(__file__).resolve().parents[1]
LANGUAGES = ("en", "zh_CN")
WIDTHS = (1280, 390)
SEVERITY = {
    "en": {"error": "error", "warning": "warning"},
    "zh_CN": {"error": "错误", "warning": "警告"},
}
OTHER_TOOLS = {"--name-only", "--all-files"}  # git's and pre-commit's, in the examples
SECTIONS = [
    "what-it-catches",
    "what-it-reads",
    "what-it-leaves-silent",
    "example",
    "why",
    "fix",
    "rows",
    "silence",
]
ROWS_PAGE = "reference/mask-semantics.html"

# -- the sources -----------------------------------------------------------------------------------


def test_rule_pages_are_exactly_the_registry() -> None:
    pages = {path.stem: path for path in (DOCS / "review" / "rules").glob("*.md")}
    assert sorted(pages) == sorted(rule.code.lower() for rule in RULES)
    for rule in RULES:
        text = pages[rule.code.lower()].read_text(encoding="utf-8")
        assert text == f"```{{review-rule}} {rule.code}\n```\n", f"{rule.code}: {text!r}"


def _help(*command: str) -> str:
    return subprocess.run(
        [sys.executable, *command, "--help"], capture_output=True, text=True, check=True
    ).stdout


def test_every_documented_option_exists() -> None:
    text = (DOCS / "review" / "using.md").read_text(encoding="utf-8")
    named = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", text)) - OTHER_TOOLS
    assert {"--format", "--fix", "--diff", "--select", "--exit-zero"} <= named, named
    checker = set(re.findall(r"--[a-z][a-z-]*", _help("-m", "attention.review")))
    pytest_options = set(
        re.findall(r"--[a-z][a-z-]*", _help("-m", "pytest", "-p", "no:cacheprovider"))
    )
    missing = sorted(
        option
        for option in named
        if option not in (pytest_options if option.startswith("--attention") else checker)
    )
    assert not missing, f"using.md names options that do not exist: {missing}"
    formats = re.search(r"--format \{([^}]*)\}", _help("-m", "attention.review"))
    assert formats is not None
    for name in formats.group(1).split(","):
        assert f"`{name}`" in text, f"using.md does not document --format {name}"


_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e-?\d+)?")
_CODE = re.compile(r"`([^`]+)`")


def test_chinese_keeps_every_number_and_code_span() -> None:
    path = DOCS / "locales" / "zh_CN" / "LC_MESSAGES" / "review" / "registry.po"
    with path.open("rb") as file:
        catalogue = read_po(file)
    wrong = []
    for message in catalogue:
        if not message.id or not message.string:
            continue
        english, chinese = str(message.id), str(message.string)
        for part in _NUMBER.findall(english) + _CODE.findall(english):
            if part not in chinese:
                wrong.append(f"{part!r} of {english[:60]!r}…")
    assert not wrong, "the Chinese drops or changes:\n" + "\n".join(wrong)


# -- the pages -------------------------------------------------------------------------------------

_READ_RULE = """() => {
  const article = document.querySelector('article');
  const why = article.querySelector('section#why');
  return {
    title: article.querySelector('h1').textContent,
    sections: [...article.querySelectorAll('section[id]')].map(s => s.id),
    doctests: why ? [...why.querySelectorAll('pre')].map(p => p.textContent) : [],
    rows: [...article.querySelectorAll('section#rows li > p > a:first-child')]
      .map(a => a.getAttribute('href')),
    scroll: document.documentElement.scrollWidth, client: window.innerWidth,
  };
}"""

_READ_TABLE = """() => [...document.querySelectorAll('table.review-rules tbody tr')].map(tr => {
  const cells = [...tr.querySelectorAll('td')];
  return {
    id: tr.id,
    page: cells[0].querySelector('a').getAttribute('href'),
    code: cells[0].querySelector('a').textContent.trim(),
    severity: cells[1].textContent.trim(),
    rows: [...cells[2].querySelectorAll('a')].map(a => a.getAttribute('href')),
    rowsText: cells[2].textContent.trim(),
  };
})"""

_READ_WATCH = """() => [...document.querySelectorAll('article section[id^="aw"]')].map(s => ({
  id: s.id,
  doctest: [...s.querySelectorAll('pre')].map(p => p.textContent).join('\\n'),
}))"""

_READ_ROW_LINKS = """() => [...document.querySelectorAll('tr.semantics-claim')].map(tr => ({
  id: tr.id,
  links: [...tr.querySelectorAll('.semantics-review a')].map(a => [a.textContent,
    a.getAttribute('href')]),
}))"""


@pytest.fixture
def tab(browser: Browser) -> Iterator[list[Page]]:
    pages: list[Page] = []
    yield pages
    for page in pages:
        page.close()
    _check_clean(browser)


def _read(browser: Browser, tab: list[Page], url: str, script: str, width: int = 1280) -> Any:
    page = browser.open(url)
    tab.append(page)
    if width != 1280:
        page.set_viewport_size({"width": width, "height": 900})
    return page.evaluate(script)


def _row_href(row: str, prefix: str) -> str:
    return f"{prefix}{row_page(row)}#{row}"  # the page whose table shows the row


def _lines(demo: str) -> list[str]:
    """The lines of a doctest as a reader sees them (no trailing spaces)."""
    return [line.rstrip() for line in demo.strip("\n").splitlines()]


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_table_lists_every_rule(browser: Browser, tab: list[Page], language: str) -> None:
    seen = _read(browser, tab, f"{language}/review/index.html", _READ_TABLE)
    assert [row["code"] for row in seen] == [rule.code for rule in RULES]
    for rule, row in zip(RULES, seen, strict=True):
        assert row["id"] == rule.code.lower()
        assert row["page"] == f"rules/{rule.code.lower()}.html", row
        assert row["severity"] == SEVERITY[language][rule.severity], row
        assert row["rows"] == [_row_href(r, "../") for r in rule.rows], rule.code
        # a rule on no row (AM401, AM402) says why instead of leaving its cell empty
        assert row["rowsText"], f"{rule.code}: an empty cell under the rows it rests on"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_severity_column_keeps_its_words_whole_on_a_phone(
    browser: Browser, tab: list[Page], language: str
) -> None:
    """At 390 px "Severity" and "warning" are one line each, not "Sev/erit/y", "warni/ng"."""
    broken = _read(
        browser,
        tab,
        f"{language}/review/index.html",
        """() => [...document.querySelectorAll(
              'table.review-rules :is(th, td):nth-child(2)')].filter(cell => {
            const lines = new Set();
            const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
              if (!node.textContent.trim()) continue;
              const range = document.createRange();
              range.selectNodeContents(node);
              for (const r of range.getClientRects()) {
                if (r.width > 0) lines.add(Math.round(r.top));
              }
            }
            return lines.size > 1;
          }).map(cell => cell.textContent.trim())""",
        width=390,
    )
    assert not broken, f"severity words broken across lines at 390 px: {broken}"


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("rule", RULES, ids=[rule.code for rule in RULES])
def test_each_rule_page_shows_its_demonstration_and_rows(
    browser: Browser, tab: list[Page], language: str, rule: Any
) -> None:
    url = f"{language}/review/rules/{rule.code.lower()}.html"
    seen = _read(browser, tab, url, _READ_RULE)
    assert rule.code in seen["title"], seen["title"]
    assert rule.name in seen["title"], seen["title"]
    assert seen["sections"] == [rule.code.lower(), *SECTIONS], seen["sections"]
    shown = [_lines(text) for text in seen["doctests"]]
    assert shown == [_lines(rule.demo_wrong), _lines(rule.demo_right)], f"{url}: {shown}"
    assert seen["rows"] == [_row_href(row, "../../") for row in rule.rows], url


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("page", ["index", "using", "watch", "rules/am101", "rules/am802"])
def test_review_pages_fit_a_phone(
    browser: Browser, tab: list[Page], language: str, page: str
) -> None:
    seen = _read(browser, tab, f"{language}/review/{page}.html", _READ_RULE, width=WIDTHS[1])
    assert seen["scroll"] <= seen["client"], f"{language}/review/{page}: scrolls sideways {seen}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_runtime_rule_has_its_section(
    browser: Browser, tab: list[Page], language: str
) -> None:
    seen = _read(browser, tab, f"{language}/review/watch.html", _READ_WATCH)
    assert [section["id"] for section in seen] == [code.lower() for code in watch_rules.RULES]
    for section in seen:
        code = section["id"].upper()
        assert f"{code} {watch_rules.RULES[code].name}:" in section["doctest"], code


def _expected_links() -> dict[str, list[tuple[str, str]]]:
    expected: dict[str, list[tuple[str, str]]] = {}
    for rule in RULES:
        for row in rule.rows:
            link = (rule.code, f"../review/rules/{rule.code.lower()}.html")
            expected.setdefault(row, []).append(link)
    for code, watch_rule in watch_rules.RULES.items():
        for row in watch_rule.rows:
            expected.setdefault(row, []).append((code, f"../review/watch.html#{code.lower()}"))
    return expected


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_table_row_links_to_its_rules(
    browser: Browser, tab: list[Page], language: str
) -> None:
    expected = _expected_links()
    shown = {}
    for page in sorted({ROWS_PAGE} | {row_page(row) for row in expected}):  # every table's page
        seen = _read(browser, tab, f"{language}/{page}", _READ_ROW_LINKS)
        assert seen, f"no claim rows on {page}"
        shown.update({row["id"]: [tuple(link) for link in row["links"]] for row in seen})
    assert set(expected) <= set(shown), (
        f"rules rest on rows not on the page: {set(expected) - set(shown)}"
    )
    wrong = [
        f"{row}: {links} (expected {expected.get(row, [])})"
        for row, links in shown.items()
        if links != expected.get(row, [])
    ]
    assert not wrong, "\n".join(wrong)
    for links in shown.values():
        for _code, href in links:
            target = (SITE / language / "reference" / href.split("#")[0]).resolve()
            assert target.is_file(), f"{href}: no such page"
