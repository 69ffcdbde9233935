"""The citable addresses a finding names: a mask-table row, or a review rule's page.

A row is an anchor of the mask-semantics page, a rule has a page of its own under
``review/rules/``.  Where those pages are depends on where the site is served:

* on Read the Docs, each language and version at ``<base>/<language slug>/<version>/``
  (``en``, ``zh-cn``; the version of a release is its tag, ``v0.1.0``; ``latest`` and
  ``stable`` are versions like any other).  This is the default, with the project's
  documentation address and this package's release, so a finding cites the table it was
  checked against; a base address *with* a version is read the same way;
* a build of the site (``./dev docs`` writes ``docs/_build/html/``, or that folder served over
  HTTP) holds one version, each language in a folder of its own (``en``, ``zh_CN``): a base
  address without a version is such a build (``file:///…/docs/_build/html/``,
  ``http://127.0.0.1:8000/``).

>>> row_url("sdpa.attn_mask.bool", version="0.1.0")
'https://attention-textbook.readthedocs.io/en/v0.1.0/reference/mask-semantics.html#sdpa.attn_mask.bool'
>>> rule_url("AM101", version="latest", language="zh_CN")
'https://attention-textbook.readthedocs.io/zh-cn/latest/review/rules/am101.html'
>>> rule_url("AM101", base_url="https://example.org/", version="0.2.0", language="zh_CN")
'https://example.org/zh-cn/v0.2.0/review/rules/am101.html'
>>> rule_url("AM101", base_url="file:///home/me/attention/docs/_build/html/", language="zh_CN")
'file:///home/me/attention/docs/_build/html/zh_CN/review/rules/am101.html'
>>> "sdpa.attn_mask.bool" in known_rows()
True
"""

from __future__ import annotations

import functools

import attention

__all__ = [
    "BUILD_FOLDERS",
    "DEFAULT_BASE_URL",
    "LANGUAGE_FOLDERS",
    "known_rows",
    "row_url",
    "rule_url",
    "site_url",
    "version_folder",
]

DEFAULT_BASE_URL = "https://attention-textbook.readthedocs.io/"
"""The project's documentation address (``[project.urls] Documentation``)."""

LANGUAGE_FOLDERS = {"en": "en", "zh_CN": "zh-cn"}
"""Read the Docs' folder for each language (its language slug)."""

BUILD_FOLDERS = {"en": "en", "zh_CN": "zh_CN"}
"""A build's folder for each language (``docs/_build/html/<folder>/``)."""


def version_folder(version: str) -> str:
    """The folder of a version on Read the Docs.

    A release's is its tag (``0.1.0`` -> ``v0.1.0``), any other version's its name (``latest``,
    ``stable``, ``v0.1.0``).

    >>> version_folder("0.1.0"), version_folder("latest"), version_folder("v0.2.0")
    ('v0.1.0', 'latest', 'v0.2.0')
    """
    return f"v{version}" if version[:1].isdigit() else version


def site_url(
    page: str,
    *,
    base_url: str | None = None,
    version: str | None = None,
    language: str = "en",
) -> str:
    """The address of ``page`` (``reference/mask-semantics.html#…``) on one version of the site.

    Without ``base_url``, Read the Docs' address of ``version`` (default: this release); with a
    ``base_url`` and a ``version``, the same layout there; with a ``base_url`` alone, a build of
    the site.
    """
    if language not in LANGUAGE_FOLDERS:
        raise ValueError(f"language must be one of {sorted(LANGUAGE_FOLDERS)}, got {language!r}")
    if base_url and not version:
        return f"{base_url.rstrip('/')}/{BUILD_FOLDERS[language]}/{page}"
    base = (base_url or DEFAULT_BASE_URL).rstrip("/")
    folder = version_folder(version or attention.__version__)
    return f"{base}/{LANGUAGE_FOLDERS[language]}/{folder}/{page}"


def row_url(
    row: str, *, base_url: str | None = None, version: str | None = None, language: str = "en"
) -> str:
    """The address of the mask-semantics row ``row`` (a claim id of ``conf/semantics.toml``)."""
    return site_url(
        f"reference/mask-semantics.html#{row}",
        base_url=base_url,
        version=version,
        language=language,
    )


def rule_url(
    code: str, *, base_url: str | None = None, version: str | None = None, language: str = "en"
) -> str:
    """The address of the page of the review rule ``code`` (``AM101``)."""
    return site_url(
        f"review/rules/{code.lower()}.html", base_url=base_url, version=version, language=language
    )


@functools.cache
def known_rows() -> frozenset[str]:
    """The ids of every row of the PyTorch mask-semantics table: what a rule may rest on."""
    from attention.semantics.claims import load_claims

    return frozenset(claim.id for claim in load_claims())
