"""The citable addresses a finding names: a mask-table row, or a review rule's page.

A row is an anchor of the page that shows it: PyTorch's rows (``conf/semantics.toml``) are on the
mask-semantics page, the other frameworks' rows (``conf/semantics-ecosystem.toml``) on the
cross-framework page or, for decoders, ONNX and MLX, on the decoder page (:data:`ROW_PAGES`, the
same id prefixes as those pages' tables).  A rule has a page of its own under ``review/rules/``.
Where those pages are depends on where the site is served:

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
>>> row_url("transformers.attention_mask", version="latest").rpartition("/")[2]
'cross-framework-masks.html#transformers.attention_mask'
>>> row_url("onnx.Attention.is_causal.alignment", version="latest").rpartition("/")[2]
'decoder-masks.html#onnx.Attention.is_causal.alignment'
>>> "sdpa.attn_mask.bool" in known_rows(), "transformers.attention_mask" in known_rows()
(True, True)
"""

from __future__ import annotations

import functools

import attention

__all__ = [
    "BUILD_FOLDERS",
    "DEFAULT_BASE_URL",
    "LANGUAGE_FOLDERS",
    "ROW_PAGES",
    "TORCH_PAGE",
    "cited_rows",
    "known_rows",
    "row_page",
    "row_url",
    "rule_url",
    "site_url",
    "torch_rows",
    "version_folder",
]

DEFAULT_BASE_URL = "https://attention-textbook.readthedocs.io/"
"""The project's documentation address (``[project.urls] Documentation``)."""

LANGUAGE_FOLDERS = {"en": "en", "zh_CN": "zh-cn"}
"""Read the Docs' folder for each language (its language slug)."""

BUILD_FOLDERS = {"en": "en", "zh_CN": "zh_CN"}
"""A build's folder for each language (``docs/_build/html/<folder>/``)."""


TORCH_PAGE = "reference/mask-semantics.html"
"""The page of every row of PyTorch's table (``conf/semantics.toml``)."""

ROW_PAGES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "reference/cross-framework-masks.html",
        ("jax", "flax", "keras", "transformers.attention_mask", "flash_attn", "xformers"),
    ),
    (
        "reference/decoder-masks.html",
        ("transformers", "onnx", "onnxruntime", "mlx"),
    ),
)
"""The page of the other frameworks' rows, by id prefix (a row is under ``p`` when its id is
``p`` or starts with ``p.``); the longest prefix a row is under decides.  The pages' tables
(``semantics-table :prefix:``) list the same prefixes, which ``tests/review/test_links.py``
holds them to."""


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
    """The address of the mask-table row ``row`` (a claim id of either claims file)."""
    return site_url(
        f"{row_page(row)}#{row}",
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
def torch_rows() -> frozenset[str]:
    """The ids of every row of PyTorch's table (``conf/semantics.toml``)."""
    from attention.semantics.claims import load_claims

    return frozenset(claim.id for claim in load_claims())


@functools.cache
def known_rows() -> frozenset[str]:
    """The ids of every row of the mask tables, PyTorch's and the other frameworks'.

    What a rule may rest on.
    """
    from attention.semantics.claims import load_ecosystem_claims

    return torch_rows() | frozenset(claim.id for claim in load_ecosystem_claims())


def _under(row: str, prefix: str) -> bool:
    return row == prefix or row.startswith(prefix + ".")


def row_page(row: str) -> str:
    """The page (``reference/….html``) whose table shows the row ``row``.

    A row of no claims file is on no page: ValueError names it.

    >>> row_page("sdpa.attn_mask.bool"), row_page("jax.nn.dot_product_attention.bias")
    ('reference/mask-semantics.html', 'reference/cross-framework-masks.html')
    """
    if row in torch_rows():
        return TORCH_PAGE
    if row in known_rows():
        pages = [
            (len(prefix), page)
            for page, prefixes in ROW_PAGES
            for prefix in prefixes
            if _under(row, prefix)
        ]
        if pages:
            return max(pages)[1]
    raise ValueError(
        f"{row!r} is no row of the mask tables (conf/semantics.toml, "
        "conf/semantics-ecosystem.toml), or no page's prefix covers it (links.ROW_PAGES)"
    )


def cited_rows(rule_rows: tuple[str, ...], api_rows: tuple[str, ...]) -> tuple[str, ...]:
    """The rows a finding cites: its rule's, or, at another framework's API, that API's.

    A finding at an argument whose rows (``api_rows``) are none of them in PyTorch's table cites
    them: a rule's rows are about PyTorch's APIs (and what it reads of other libraries' values).

    >>> cited_rows(("sdpa.attn_mask.bool",), ())
    ('sdpa.attn_mask.bool',)
    >>> cited_rows(("sdpa.attn_mask.bool",), ("sdpa.attn_mask.bool", "sdpa.attn_mask.float"))
    ('sdpa.attn_mask.bool',)
    >>> cited_rows(("sdpa.attn_mask.bool",), ("jax.nn.dot_product_attention.mask.bool",))
    ('jax.nn.dot_product_attention.mask.bool',)
    """
    if api_rows and not set(api_rows) & torch_rows():
        return api_rows
    return rule_rows
