"""The page "Mask semantics by torch release" in headless Chromium, in both languages.

* The matrix reads as caniuse.com does: one column per verified release (headed ``2.5``, the full
  release in the title), all sixteen in view at 1280 px with no sideways scrolling and the head
  at the top of the window mid-table (with furo's "Back to top" off it); each PyTorch row (in
  the claims' order, its id linking to its row on the mask-semantics page) is a bar of runs of
  releases with one observed value, each run its word and a colour the legend names.
* A tap on a row's bar opens its details (every run with its full releases, what changed); a
  "changes only" switch leaves the rows whose value changed; at 390 px each row's runs read top
  to bottom, each with its releases.
* "What changed between releases" lists exactly the pairs of releases where a row's value
  changed, and the kernel changes have a section of their own; an artefact of a record's
  environment (no ``pkg_resources``) is named as such, not listed as what a release lacks.
* The page never scrolls sideways, at 1280 px or 390 px.

The expected values come from the committed records (``conf/records/torch-<release>.json``), not
from the page.  Uses the browser and server of ``test_browser.py``; run with ``nox -s browser``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from itertools import pairwise
from typing import Any

import pytest
from playwright.sync_api import Page
from test_browser import Browser, _check_clean, browser

from attention.semantics import paths
from attention.semantics.claims import load_claims

__all__ = ["browser"]  # the fixture, shared with test_browser.py

LANGUAGES = ("en", "zh_CN")
PAGE = "reference/mask-semantics-releases.html"
ROWS_PAGE = "mask-semantics.html"
WIDTHS = (1280, 390)

# Everything the checks need from the page, read once per language and width.
READ = """() => {
  const table = document.querySelector('article table.semantics-matrix');
  if (!table) return null;
  const box = table.closest('.table-wrapper') || table.parentElement;
  const article = document.querySelector('article').getBoundingClientRect();
  const visible = e => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
  const heads = [...table.querySelectorAll('thead th')].map(th => {
    const r = th.getBoundingClientRect();
    return {text: th.textContent.trim(), title: th.getAttribute('title') || '',
            left: r.left, right: r.right, shown: visible(th)};
  });
  const rows = [...table.querySelectorAll('tbody tr.matrix-claim')].map(tr => {
    const link = tr.querySelector('.matrix-id a');
    const bar = tr.nextElementSibling;
    return {
      id: tr.querySelector('.matrix-id').textContent.trim(),
      href: link ? link.getAttribute('href') : null,
      details: tr.querySelector('details') !== null,
      runs: [...bar.querySelectorAll('td')].map(td => {
        const style = getComputedStyle(td);
        const word = td.querySelector('.run-word');
        const releases = td.querySelector('.run-releases');
        const r = td.getBoundingClientRect();
        return {
          span: td.colSpan, word: word ? word.textContent.trim() : '',
          releases: releases ? releases.textContent.trim() : '',
          releasesShown: releases ? visible(releases) : false,
          title: td.getAttribute('title') || '', classes: [...td.classList],
          background: style.backgroundColor + ' ' + style.backgroundImage,
          top: r.top, left: r.left,
          wordFits: word ? word.getBoundingClientRect().right <= r.right + 1 : false,
        };
      }),
    };
  });
  const section = id => document.querySelector('section#' + id);
  const pairs = [...section('what-changed-between-releases')
      .querySelectorAll('ul.semantics-release-pairs > li')].map(li => ({
    text: li.querySelector('p').textContent,
    rows: [...li.querySelectorAll('ul.semantics-value-changes > li > p > a:first-child')]
      .map(a => a.textContent.trim()),
    kernels: li.querySelectorAll('ul.semantics-kernel-changes > li').length,
  }));
  const kernels = section('kernel-changes-between-releases');
  const lacks = section('what-the-package-lacks-on-releases-older-than-it-supports');
  return {
    heads: heads, rows: rows, pairs: pairs,
    kernelPairs: kernels ? kernels.querySelectorAll('ul.semantics-release-pairs > li').length : -1,
    lacks: lacks ? [...lacks.querySelectorAll('ul.semantics-package-fails > li')]
      .map(li => li.textContent) : [],
    artefacts: lacks ? [...lacks.querySelectorAll('.semantics-environment')]
      .map(e => e.textContent) : [],
    legend: [...document.querySelectorAll('article ul.matrix-legend .run')]
      .map(e => [...e.classList].find(c => c.startsWith('run-') && c !== 'run-edge')),
    article: {left: article.left, right: article.right},
    page: {scroll: document.documentElement.scrollWidth, client: window.innerWidth},
    box: {scroll: box.scrollWidth, client: box.clientWidth,
          right: box.getBoundingClientRect().right},
  };
}"""

_SEEN: dict[tuple[str, int], dict[str, Any]] = {}


@pytest.fixture
def tab(browser: Browser) -> Iterator[list[Page]]:
    pages: list[Page] = []
    yield pages
    for page in pages:
        page.close()
    _check_clean(browser)


def _seen(browser: Browser, tab: list[Page], language: str, width: int) -> dict[str, Any]:
    key = (language, width)
    if key not in _SEEN:
        page = browser.open(f"{language}/{PAGE}")
        tab.append(page)
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_load_state("load")
        seen = page.evaluate(READ)
        assert seen is not None, f"{language}/{PAGE}: no matrix in its scroll box"
        _SEEN[key] = seen
    return _SEEN[key]


def _records() -> dict[str, dict[str, Any]]:
    """release -> its record, for the releases of conf/torch-releases.toml, in their order."""
    records = {}
    for release in paths.torch_releases():
        path = paths.torch_record(release.torch)
        record = json.loads(path.read_text(encoding="utf-8"))
        if record.get("rows"):
            records[release.torch] = record
    return records


def _observed(record: dict[str, Any], claim_id: str) -> str | None:
    row = record["rows"].get(claim_id, {})
    return row.get("observed") if row.get("status") == "ok" else None


def _changed(claim_id: str, records: dict[str, dict[str, Any]]) -> dict[str, str]:
    """release -> the value before it, where the row's value differs from the last verified one."""
    changed, previous = {}, None
    for release, record in records.items():
        value = _observed(record, claim_id)
        if value is None:
            continue
        if previous is not None and value != previous:
            changed[release] = previous
        previous = value
    return changed


def _runs(claim_id: str, records: dict[str, dict[str, Any]]) -> list[tuple[str, str, Any]]:
    """(first, last, value) of each run of consecutive releases with one value (None: not run)."""
    runs: list[tuple[str, str, Any]] = []
    for release, record in records.items():
        value = _observed(record, claim_id)
        if runs and runs[-1][2] == value:
            runs[-1] = (runs[-1][0], release, value)
        else:
            runs.append((release, release, value))
    return runs


def _minor(release: str) -> str:
    return ".".join(release.split(".")[:2])


@pytest.mark.parametrize("language", LANGUAGES)
def test_one_column_per_release_all_in_view(
    browser: Browser, tab: list[Page], language: str
) -> None:
    """Every release heads a column, and all sixteen fit the article at 1280 px."""
    seen = _seen(browser, tab, language, WIDTHS[0])
    records = _records()
    assert [head["title"] for head in seen["heads"]] == [f"torch {r}" for r in records]
    assert [head["text"] for head in seen["heads"]] == [_minor(r) for r in records]
    article = seen["article"]
    outside = [
        head["text"]
        for head in seen["heads"]
        if head["left"] < article["left"] - 1 or head["right"] > article["right"] + 1
    ]
    assert not outside, f"release columns out of view at 1280 px: {outside}"
    box = seen["box"]
    assert box["scroll"] <= box["client"], f"the matrix scrolls sideways at 1280 px: {box}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_row_is_its_runs_of_releases(browser: Browser, tab: list[Page], language: str) -> None:
    """A row is a bar of runs: one cell per run of releases with one value, its word in it."""
    seen = _seen(browser, tab, language, WIDTHS[0])
    records = _records()
    ids = [claim.id for claim in load_claims()]
    assert [row["id"] for row in seen["rows"]] == ids
    unverified = "未验证" if language == "zh_CN" else "not verified"
    absent = "无此项" if language == "zh_CN" else "absent"
    wrong = []
    for row in seen["rows"]:
        if row["href"] != f"{ROWS_PAGE}#{row['id']}":
            wrong.append(f"{row['id']} links to {row['href']}")
        runs = _runs(row["id"], records)
        releases = list(records)
        spans = [releases.index(last) - releases.index(first) + 1 for first, last, _ in runs]
        if [run["span"] for run in row["runs"]] != spans:
            wrong.append(f"{row['id']}: runs of {[r['span'] for r in row['runs']]}, not {spans}")
            continue
        verified = [value for *_, value in runs if value is not None]
        for (first, last, value), run in zip(runs, row["runs"], strict=True):
            word = unverified if value is None else absent if value == "absent" else value
            kind = (
                "unverified"
                if value is None
                else "absent"
                if value == "absent"
                else "newest"
                if value == verified[-1]
                else "differs"
            )
            span = first if first == last else f"{first}–{last}"
            if run["word"] != word or f"run-{kind}" not in run["classes"]:
                wrong.append(f"{row['id']} {span}: {run['word']!r} {run['classes']}")
            if span not in run["title"] or word not in run["title"]:
                wrong.append(f"{row['id']} {span}: title {run['title']!r}")
        if row["details"] != (len(runs) > 1):
            wrong.append(f"{row['id']}: details {row['details']} with {len(runs)} runs")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("language", LANGUAGES)
def test_colour_comes_with_a_word_and_a_legend(
    browser: Browser, tab: list[Page], language: str
) -> None:
    seen = _seen(browser, tab, language, WIDTHS[0])
    assert seen["rows"], "the matrix has no rows of runs"
    assert len(seen["legend"]) >= 4, f"no legend: {seen['legend']}"
    kinds = {c for row in seen["rows"] for run in row["runs"] for c in run["classes"]}
    kinds = {c for c in kinds if c.startswith("run-")}
    assert kinds <= set(seen["legend"]), f"colours without a legend: {kinds - set(seen['legend'])}"
    wordless = [row["id"] for row in seen["rows"] for run in row["runs"] if not run["word"]]
    assert not wordless, f"runs shown by colour alone: {wordless}"
    hidden = [
        f"{row['id']}: {run['word']}"
        for row in seen["rows"]
        for run in row["runs"]
        if not run["wordFits"]
    ]
    assert not hidden, f"words cut at their run's edge: {hidden}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_behaviour_changes_apart_from_kernel_changes(
    browser: Browser, tab: list[Page], language: str
) -> None:
    """What changed lists the pairs of releases where a row's value changed, and only those.

    The kernels the probes ran on have a section of their own.
    """
    seen = _seen(browser, tab, language, WIDTHS[0])
    records = _records()
    ids = [claim.id for claim in load_claims()]
    expected = []
    for before, after in pairwise(records):
        rows = []
        for claim_id in ids:
            old, new = _observed(records[before], claim_id), _observed(records[after], claim_id)
            if old is not None and new is not None and old != new:
                rows.append(claim_id)
        if rows:
            expected.append((before, after, rows))
    assert len(seen["pairs"]) == len(expected), [p["text"] for p in seen["pairs"]]
    for (before, after, rows), pair in zip(expected, seen["pairs"], strict=True):
        assert before in pair["text"], pair["text"]
        assert after in pair["text"], pair["text"]
        assert pair["rows"] == rows, f"{before} → {after}"
        assert pair["kernels"] == 0, f"{before} → {after}: kernel changes among the behaviours"
    assert seen["kernelPairs"] > 0, "no section of kernel changes"


@pytest.mark.parametrize("language", LANGUAGES)
def test_environment_artefacts_are_not_what_a_release_lacks(
    browser: Browser, tab: list[Page], language: str
) -> None:
    seen = _seen(browser, tab, language, WIDTHS[0])
    artefacts = [text for text in seen["lacks"] if "pkg_resources" in text]
    assert not artefacts, f"an artefact of the environment listed as missing: {artefacts}"
    assert any("pkg_resources" in text for text in seen["artefacts"]), seen["artefacts"]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_page_never_scrolls_sideways(
    browser: Browser, tab: list[Page], language: str, width: int
) -> None:
    seen = _seen(browser, tab, language, width)
    page = seen["page"]
    assert page["scroll"] <= page["client"], f"the page scrolls sideways at {width} px: {page}"
    assert seen["box"]["right"] <= width, f"the matrix ends beyond the screen: {seen['box']}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_phone_reads_the_runs_top_to_bottom(
    browser: Browser, tab: list[Page], language: str
) -> None:
    seen = _seen(browser, tab, language, WIDTHS[1])
    assert len(seen["rows"]) == len(load_claims()), "the matrix has no row per claim"
    wrong = []
    for row in seen["rows"]:
        tops = [run["top"] for run in row["runs"]]
        if tops != sorted(tops) or len(set(round(t) for t in tops)) != len(tops):
            wrong.append(f"{row['id']}: runs side by side")
        if not all(run["releasesShown"] and run["releases"] for run in row["runs"]):
            wrong.append(f"{row['id']}: a run without its releases")
    assert not wrong, "\n".join(wrong[:10])


def _matrix_page(browser: Browser, tab: list[Page], language: str, width: int = 1280) -> Page:
    page = browser.open(f"{language}/{PAGE}")
    tab.append(page)
    page.set_viewport_size({"width": width, "height": 900})
    page.wait_for_load_state("load")
    return page


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_release_head_stays_in_view(browser: Browser, tab: list[Page], language: str) -> None:
    """Mid-table, the release head is at the top of the window, and "Back to top" is not on it."""
    page = _matrix_page(browser, tab, language)
    middle = page.locator("article table.semantics-matrix tbody tr.matrix-claim").nth(25)
    middle.scroll_into_view_if_needed()
    page.mouse.wheel(0, 600)
    page.wait_for_timeout(200)
    page.mouse.wheel(0, -200)  # furo shows "Back to top" while the reader scrolls up
    page.wait_for_timeout(400)
    found = page.evaluate(
        """() => {
          const head = document.querySelector('article table.semantics-matrix thead th');
          const r = head.getBoundingClientRect();
          const back = document.querySelector('.back-to-top');
          const b = back && back.getClientRects().length ? back.getBoundingClientRect() : null;
          const covers = b !== null && b.bottom > r.top && b.top < r.bottom;
          return {top: r.top, covers: covers};
        }"""
    )
    assert 0 <= found["top"] <= 2, f"the release head is not at the top mid-table: {found}"
    assert not found["covers"], "'Back to top' covers the release head"


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_tap_on_a_row_shows_what_changed(
    browser: Browser, tab: list[Page], language: str, width: int
) -> None:
    page = _matrix_page(browser, tab, language, width)
    row = "sdpa.is_causal_with_attn_mask"
    claim = page.locator(f"article tr.matrix-claim:has(a[href$='#{row}'])")
    details = claim.locator("details")
    assert not details.locator("li").first.is_visible()
    # a tap on a touch screen is a click: the bar's second run
    claim.locator("xpath=following-sibling::tr[1]").locator("td").nth(1).click()
    text = details.locator("ul").inner_text()
    for expected in ("2.0.1–2.2.2", "2.3.1–2.13.0", "2.14.1–2.15.0", "error", "ok"):
        assert expected in text, f"{expected!r} not in the row's details: {text!r}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_changes_only_hides_the_rows_without_a_change(
    browser: Browser, tab: list[Page], language: str
) -> None:
    page = _matrix_page(browser, tab, language)
    records = _records()
    changing = [c.id for c in load_claims() if len(_runs(c.id, records)) > 1]
    page.locator("#matrix-changes-only").check()
    shown = page.evaluate(
        """() => [...document.querySelector('article table.semantics-matrix')
                .querySelectorAll('tr.matrix-claim')]
            .filter(r => r.getClientRects().length)
            .map(r => r.querySelector('.matrix-id').textContent.trim())"""
    )
    assert shown == changing
    # the one switch governs the libraries' matrices too (transformers, onnxruntime, keras)
    others = page.evaluate(
        """() => [...document.querySelectorAll('article table.semantics-matrix')].slice(1)
            .map(t => [...t.querySelectorAll('tr.matrix-claim')].map(r => [
                r.getClientRects().length > 0, r.classList.contains('matrix-same')]))"""
    )
    assert len(others) == len(paths.library_releases())
    for rows in others:
        assert rows
        assert any(visible for visible, _ in rows)
        assert all(visible != same for visible, same in rows)
