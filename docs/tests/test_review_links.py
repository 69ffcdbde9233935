"""The checker's links lead to pages and anchors of the site, on a build and on Read the Docs.

``python -m attention.review --base-url file:///…/docs/_build/html/`` cites a build of the site,
each language in a folder of its own (``en/``, ``zh_CN/``); by default it cites Read the Docs,
where each language and version has a folder (``/en/latest/``, ``/zh-cn/v0.1.0/``), which serves
the same build.  For every rule and every row a rule rests on, in both languages, the address is
a page of this build and its anchor an id on that page: the build's address directly, Read the
Docs' address once its language slug and version folder are read as the build's language folder.

Reads the HTML files only (no browser); runs with the browser checks (``nox -s browser``).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit
from urllib.request import url2pathname

import pytest
from test_browser import SITE

from attention.review.links import (
    BUILD_FOLDERS,
    DEFAULT_BASE_URL,
    LANGUAGE_FOLDERS,
    row_url,
    rule_url,
    version_folder,
)
from attention.review.rules import RULES

LANGUAGES = tuple(BUILD_FOLDERS)
ID = re.compile(r'\sid="([^"]+)"')


@functools.cache
def _ids(page: Path) -> frozenset[str]:
    return frozenset(ID.findall(page.read_text(encoding="utf-8")))


def _addresses(language: str, **where: str) -> list[str]:
    found = []
    for rule in RULES:
        found.append(rule_url(rule.code, language=language, **where))
        found.extend(row_url(row, language=language, **where) for row in rule.rows)
    return found


def _exists(page: Path, anchor: str, address: str) -> None:
    if not SITE.is_dir():
        pytest.fail(f"no {SITE}: run `nox -s docs` first")
    assert page.is_file(), f"{address}: no {page}"
    if anchor:
        assert anchor in _ids(page), f"{address}: no id {anchor!r} on {page}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_links_to_a_build_lead_to_its_pages_and_anchors(language: str) -> None:
    base = SITE.resolve().as_uri() + "/"
    for address in _addresses(language, base_url=base):
        parts = urlsplit(address)
        _exists(Path(url2pathname(unquote(parts.path))), parts.fragment, address)


@pytest.mark.parametrize("version", ["latest", "0.1.0"])
@pytest.mark.parametrize("language", LANGUAGES)
def test_links_to_read_the_docs_name_the_same_pages(language: str, version: str) -> None:
    for address in _addresses(language, version=version):
        assert address.startswith(DEFAULT_BASE_URL), address
        slug, folder, rest = address.removeprefix(DEFAULT_BASE_URL).split("/", 2)
        assert (slug, folder) == (LANGUAGE_FOLDERS[language], version_folder(version)), address
        page, _, anchor = rest.partition("#")
        _exists(SITE / BUILD_FOLDERS[language] / page, anchor, address)
