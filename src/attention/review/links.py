"""The citable addresses a finding names: a mask-table row, or a review rule's page.

The site lives at ``<base>/<language>/v<version>/``; a row is an anchor of the mask-semantics
page, a rule has a page of its own under ``review/rules/``.  The base address and the version
are configurable (``[tool.attention-review]`` ``base-url`` / ``version``); by default they are
the project's documentation address and this package's version, so a finding cites the table
it was checked against.

>>> row_url("sdpa.attn_mask.bool", version="0.1.0")
'https://attention-textbook.readthedocs.io/en/v0.1.0/reference/mask-semantics.html#sdpa.attn_mask.bool'
>>> rule_url("AM101", base_url="https://example.org/", version="0.2.0", language="zh_CN")
'https://example.org/zh-cn/v0.2.0/review/rules/am101.html'
>>> "sdpa.attn_mask.bool" in known_rows()
True
"""

from __future__ import annotations

import functools

import attention

__all__ = ["DEFAULT_BASE_URL", "LANGUAGE_FOLDERS", "known_rows", "row_url", "rule_url", "site_url"]

DEFAULT_BASE_URL = "https://attention-textbook.readthedocs.io/"
"""The project's documentation address (``[project.urls] Documentation``)."""

LANGUAGE_FOLDERS = {"en": "en", "zh_CN": "zh-cn"}
"""The site's folder for each language."""


def site_url(
    page: str,
    *,
    base_url: str | None = None,
    version: str | None = None,
    language: str = "en",
) -> str:
    """The address of ``page`` (``reference/mask-semantics.html#…``) on one version of the site."""
    if language not in LANGUAGE_FOLDERS:
        raise ValueError(f"language must be one of {sorted(LANGUAGE_FOLDERS)}, got {language!r}")
    base = (base_url or DEFAULT_BASE_URL).rstrip("/")
    return f"{base}/{LANGUAGE_FOLDERS[language]}/v{version or attention.__version__}/{page}"


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
