"""The page "Mask semantics by torch release" in headless Chromium, in both languages.

* The matrix has one line per PyTorch row (in the claims' order, each id linking to its row on
  the mask-semantics page) and one column per verified release (headed ``2.5``, the full release
  in the title), and each cell says what that release's record observed: the value, a dash where
  the release lacks the API, "not verified" where the row could not run.
* The cells where a row's value differs from the release before are marked (``▲``, with the
  release in the title), and no other cell is.
* "What changed between releases" has one entry per pair of consecutive releases, listing exactly
  the rows whose observed value differs between them.
* The page never scrolls sideways, at 1280 px or 390 px: the matrix scrolls inside its own box,
  and its first column stays in view while it does.

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
  const box = document.querySelector('article .table-wrapper.semantics-matrix');
  const table = box && box.querySelector('table.semantics-matrix');
  if (!table) return null;
  const heads = [...table.querySelectorAll('thead th')].slice(1)
    .map(th => ({text: th.textContent.trim(), title: th.getAttribute('title') || ''}));
  const rows = [...table.querySelectorAll('tbody tr')].map(tr => {
    const link = tr.querySelector('th a');
    return {
      id: tr.querySelector('th').textContent.trim(),
      href: link ? link.getAttribute('href') : null,
      cells: [...tr.querySelectorAll('td')].map(td => ({
        text: td.textContent.trim(), title: td.getAttribute('title') || '',
        changed: td.classList.contains('changed')})),
    };
  });
  const pairs = [...document.querySelectorAll(
      'section#what-changed-between-releases ul.semantics-release-pairs > li')].map(li => ({
    text: li.querySelector('p').textContent,
    rows: [...li.querySelectorAll('ul.semantics-value-changes > li > p > a:first-child')]
      .map(a => a.textContent.trim()),
  }));
  const stub = table.querySelector('tbody th');
  const before = stub.getBoundingClientRect().left - box.getBoundingClientRect().left;
  box.scrollLeft = box.scrollWidth;
  const scrolled = box.scrollLeft;
  const after = stub.getBoundingClientRect().left - box.getBoundingClientRect().left;
  box.scrollLeft = 0;
  return {
    heads: heads, rows: rows, pairs: pairs,
    page: {scroll: document.documentElement.scrollWidth, client: window.innerWidth},
    box: {scroll: box.scrollWidth, client: box.clientWidth,
          right: box.getBoundingClientRect().right,
          scrolled: scrolled, stubBefore: before, stubAfter: after},
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


@pytest.mark.parametrize("language", LANGUAGES)
def test_one_line_per_row_and_one_column_per_release(
    browser: Browser,
    tab: list[Page],
    language: str,
) -> None:
    seen = _seen(browser, tab, language, WIDTHS[0])
    records = _records()
    assert [head["title"] for head in seen["heads"]] == [f"torch {r}" for r in records]
    assert [head["text"] for head in seen["heads"]] == [".".join(r.split(".")[:2]) for r in records]
    ids = [claim.id for claim in load_claims()]
    assert [row["id"] for row in seen["rows"]] == ids
    for row in seen["rows"]:
        assert row["href"] == f"{ROWS_PAGE}#{row['id']}", f"{row['id']} links to {row['href']}"
        assert len(row["cells"]) == len(records), f"{row['id']}: {len(row['cells'])} cells"


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_cell_is_what_its_release_observed(
    browser: Browser,
    tab: list[Page],
    language: str,
) -> None:
    seen = _seen(browser, tab, language, WIDTHS[0])
    records = _records()
    empty = [row["id"] for row in seen["rows"] for cell in row["cells"] if not cell["text"]]
    assert not empty, f"empty cells on the lines of {empty}"
    wrong = []
    for row in seen["rows"]:
        changed = _changed(row["id"], records)
        for (release, record), cell in zip(records.items(), row["cells"], strict=True):
            value = _observed(record, row["id"])
            text = cell["text"].removeprefix("▲").strip()
            if value is None:
                # "not verified" in the page's language
                expected = "未验证" if language == "zh_CN" else "not verified"
            else:
                expected = "–" if value == "absent" else value
            if text != expected:
                wrong.append(f"{row['id']} on {release}: {cell['text']!r}, expected {expected!r}")
            marked = cell["changed"] or cell["text"].startswith("▲")
            if marked != (release in changed):
                wrong.append(f"{row['id']} on {release}: marked {marked}, expected the opposite")
            title = cell["title"]
            if release in changed and (release not in title or changed[release] not in title):
                wrong.append(f"{row['id']} on {release}: title {title!r}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_pair_of_releases_lists_the_rows_that_changed(
    browser: Browser,
    tab: list[Page],
    language: str,
) -> None:
    seen = _seen(browser, tab, language, WIDTHS[0])
    records = _records()
    releases = list(records)
    assert len(seen["pairs"]) == len(releases) - 1
    ids = [claim.id for claim in load_claims()]
    for (before, after), pair in zip(pairwise(releases), seen["pairs"], strict=True):
        assert before in pair["text"], pair["text"]
        assert after in pair["text"], pair["text"]
        expected = []
        for claim_id in ids:
            old, new = _observed(records[before], claim_id), _observed(records[after], claim_id)
            if old is not None and new is not None and old != new:
                expected.append(claim_id)
        assert pair["rows"] == expected, f"{before} → {after}"


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_matrix_scrolls_in_its_box_not_the_page(
    browser: Browser,
    tab: list[Page],
    language: str,
    width: int,
) -> None:
    seen = _seen(browser, tab, language, width)
    page, box = seen["page"], seen["box"]
    assert page["scroll"] <= page["client"], f"the page scrolls sideways at {width} px: {page}"
    assert box["right"] <= width, f"the matrix's box ends beyond the screen: {box}"
    if width < 1280:
        # sixteen releases never fit a phone: the box must scroll there
        assert box["scroll"] > box["client"], f"the matrix fits at {width} px: {box}"
    if box["scroll"] <= box["client"]:
        return
    assert box["scrolled"] > 0, f"the matrix's box does not scroll: {box}"
    # the ids stay where they were while the releases scroll under them
    assert abs(box["stubAfter"] - box["stubBefore"]) <= 1, f"the first column moved: {box}"
