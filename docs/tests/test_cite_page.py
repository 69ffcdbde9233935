"""The Cite page of the built site: its BibTeX compiles and every address on it exists.

* The BibTeX entry is read by pybtex (a BibTeX parser), has a ``year``, and escapes every
  underscore outside ``\\url{…}`` (LaTeX stops at a bare ``_`` in text mode:
  ``sdpa.attn_mask.bool`` in a title).
* Every address the page gives (the page, section and row examples, the BibTeX ``\\url`` and the
  ``CITATION.cff`` ``url``) is a page of this build, and its anchor an id on that page, once
  Read the Docs' language folder is read as the build's: Read the Docs serves the Chinese pages
  under ``/zh-cn/`` (its language slug), a local build writes them to ``zh_CN/``.

Reads the HTML files only (no browser); runs with the browser checks (``nox -s browser``).
"""

from __future__ import annotations

import html
import re
import tomllib

import pytest
from pybtex.database import parse_string
from test_browser import REPO, SITE

LANGUAGES = ("en", "zh_CN")
FOLDER = {"en": "en", "zh-cn": "zh_CN"}  # Read the Docs' language slug -> the build's folder
TAG = re.compile(r"<[^>]+>")


def _documentation() -> str:
    with open(REPO / "pyproject.toml", "rb") as file:
        return str(tomllib.load(file)["project"]["urls"]["Documentation"]).rstrip("/")


def _cite_page(language: str) -> str:
    path = SITE / language / "cite.html"
    if not path.is_file():
        pytest.fail(f"no {path}: run `nox -s docs` first")
    return path.read_text(encoding="utf-8")


def _blocks(page: str, language: str) -> list[str]:
    """The text of each ``<pre>`` of the page's highlighted ``language`` blocks."""
    found = re.findall(
        rf'<div class="[^"]*\bhighlight-{language}\b[^"]*">.*?<pre>(.*?)</pre>', page, flags=re.S
    )
    return [html.unescape(TAG.sub("", block)) for block in found]


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_bibtex_entry_parses_with_a_year_and_escaped_underscores(language: str) -> None:
    (entry,) = _blocks(_cite_page(language), "bibtex")
    database = parse_string(entry, "bibtex")
    (item,) = database.entries.values()
    fields = dict(item.fields)
    assert re.fullmatch(r"\d{4}", fields.get("year", "")), f"no year: {fields}"
    for name, value in fields.items():
        text = re.sub(r"\\url\{[^}]*\}", "", value)
        bare = [m.start() for m in re.finditer(r"(?<!\\)_", text)]
        assert not bare, f"{name} = {{{value}}}: an unescaped underscore stops LaTeX"
    assert "sdpa.attn\\_mask.bool" in fields["title"], fields["title"]


def _addresses(page: str) -> list[str]:
    base = re.escape(_documentation())
    return sorted(set(re.findall(rf"{base}/[^\s<>\"'}}）)]+", html.unescape(TAG.sub("", page)))))


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_address_on_the_cite_page_exists(language: str) -> None:
    addresses = _addresses(_cite_page(language))
    assert len(addresses) >= 3, addresses
    missing = []
    for address in addresses:
        rest = address.removeprefix(_documentation() + "/")
        slug, _version, *path = rest.split("/")
        assert slug in FOLDER, f"{address}: no language {slug!r} on Read the Docs"
        page, _, anchor = "/".join(path).partition("#")
        built = SITE / FOLDER[slug] / (page or "index.html")
        if not built.is_file():
            missing.append(f"{address}: no {built.relative_to(SITE)}")
        elif anchor and f'id="{anchor}"' not in built.read_text(encoding="utf-8"):
            missing.append(f"{address}: no #{anchor} in {built.relative_to(SITE)}")
    assert not missing, "\n".join(missing)


def test_the_cite_page_says_where_each_language_is_served() -> None:
    """Read the Docs' /zh-cn/ and the build's zh_CN/ are named, so neither reads as a typo."""
    for language in LANGUAGES:
        text = TAG.sub("", _cite_page(language))
        assert "/zh-cn/" in text, f"{language}: the Cite page does not name /zh-cn/"
        assert "zh_CN/" in text, f"{language}: the Cite page does not name zh_CN/"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_citation_names_the_torch_release_not_the_build(language: str) -> None:
    """The CPU build (2.13.0+cpu) and the CUDA build (2.13.0+cu130) give the same Cite page."""
    with open(REPO / "conf" / "constraints.txt") as file:
        pinned = re.search(r"(?m)^torch==([^\s;#]+)", file.read())
    assert pinned
    text = html.unescape(TAG.sub("", _cite_page(language)))
    assert f"torch {pinned[1]}}}" in text
    assert not re.search(r"torch \d+\.\d+\.\d+\+", text), "a build label in the citation"
