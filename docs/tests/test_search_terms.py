"""The Chinese search finds every glossary term on the pages that use it.

Sphinx's Chinese search index holds the words jieba cuts a page's text into; a term jieba does
not know (因果掩码) is cut into pieces (因果, 掩码), and a reader who searches for the term finds
none of the pages that use it.  The build adds every Chinese term of ``docs/glossary.toml`` to
jieba's dictionary (docs/_ext/site_support.py), so each is a word of the index, on every page
whose text has it.

A term of two or more characters is "used" where a page's text contains it.  One character
(键, 值, 头) is also part of other words (关键, 数值, 开头), where it is not the term: the index
must find it on at least one page, and on every page where the segmenter reads it as a word.

Reads ``searchindex.js`` and the built pages (no browser); runs with ``nox -s browser``.
"""

from __future__ import annotations

import json
import tomllib
from functools import cache

import pytest
from bs4 import BeautifulSoup
from test_browser import REPO, SITE

GLOSSARY = REPO / "docs" / "glossary.toml"


def _terms() -> list[str]:
    """Every Chinese term of the glossary; "分块 / 分块注意力" is two."""
    with open(GLOSSARY, "rb") as file:
        entries = tomllib.load(file)["term"]
    return sorted({part.strip() for entry in entries for part in entry["zh"].split("/")})


@cache
def _index() -> dict[str, set[str]]:
    """Word -> the pages (docnames) the Chinese index finds it on, in text or in titles."""
    path = SITE / "zh_CN" / "searchindex.js"
    if not path.is_file():
        pytest.fail(f"no {path}: run `nox -s docs` first")
    text = path.read_text(encoding="utf-8")
    data = json.loads(text.removeprefix("Search.setIndex(").removesuffix(")"))
    names = data["docnames"]
    found: dict[str, set[str]] = {}
    for key in ("terms", "titleterms"):
        for word, pages in data[key].items():
            numbers = pages if isinstance(pages, list) else [pages]
            found.setdefault(word, set()).update(names[number] for number in numbers)
    return found


@cache
def _texts() -> dict[str, str]:
    """Docname -> the text of the built Chinese page's article that the index reads."""
    texts = {}
    root = SITE / "zh_CN"
    for docname in sorted({page for pages in _index().values() for page in pages}):
        page = root / f"{docname}.html"
        if not page.is_file():
            continue
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        article = soup.find("article")
        if article is None:
            continue
        # what the index does not read: the template's language switch, the formulas (their
        # text is the formula's Unicode), what the build marks no-search
        for skipped in article.select(".language-switch, .no-search, .math, script, style"):
            skipped.decompose()
        texts[docname] = article.get_text(" ")
    return texts


@pytest.mark.parametrize("term", _terms())
def test_the_chinese_search_finds_the_term_on_the_pages_that_use_it(term: str) -> None:
    found = _index().get(term, set())
    if len(term) == 1:
        assert found, f"{term}: no page in the index"
        return
    using = {docname for docname, text in _texts().items() if term in text}
    assert using, f"{term}: no page uses it (is it still a term of the glossary?)"
    missed = sorted(using - found)
    assert not missed, f"{term}: on {len(using)} pages, found on {len(found)}; missed {missed}"
