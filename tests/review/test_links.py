"""The addresses a finding cites, on Read the Docs and on a build of the site elsewhere.

Read the Docs serves each version of each language at ``/<language slug>/<version>/``; a build of
the site (``./dev docs``, or that folder served over HTTP) has one version and writes each language
to a folder of its own: ``docs/_build/html/en/``, ``docs/_build/html/zh_CN/``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import attention
from attention.review.__main__ import main
from attention.review.check import check_source
from attention.review.links import row_page, row_url, rule_url
from attention.review.rules import RULES, by_code
from attention.semantics.claims import load_claims, load_ecosystem_claims

DOCS = Path(__file__).parents[2] / "docs"
ROW = "sdpa.attn_mask.bool"


def test_by_default_the_links_cite_this_release_on_read_the_docs() -> None:
    assert rule_url("AM101") == (
        f"https://attention-textbook.readthedocs.io/en/v{attention.__version__}/review/rules/am101.html"
    )


@pytest.mark.parametrize(
    ("version", "folder"),
    [("latest", "latest"), ("stable", "stable"), ("0.2.0", "v0.2.0"), ("v0.2.0", "v0.2.0")],
)
def test_latest_is_a_version_like_any_other(version: str, folder: str) -> None:
    assert rule_url("AM101", version=version) == (
        f"https://attention-textbook.readthedocs.io/en/{folder}/review/rules/am101.html"
    )
    assert rule_url("AM101", version=version, language="zh_CN").startswith(
        f"https://attention-textbook.readthedocs.io/zh-cn/{folder}/"
    )


@pytest.mark.parametrize(
    "base",
    [
        "file:///home/me/attention/docs/_build/html/",
        "file:///home/me/attention/docs/_build/html",
        "http://127.0.0.1:8000/",
        "http://localhost:8000/attention/",
    ],
)
def test_a_build_of_the_site_is_addressed_by_its_language_folders(base: str) -> None:
    root = base.rstrip("/") + "/"
    assert rule_url("AM101", base_url=base) == root + "en/review/rules/am101.html"
    assert row_url(ROW, base_url=base, language="zh_CN") == (
        root + f"zh_CN/reference/mask-semantics.html#{ROW}"
    )


def test_a_base_address_with_a_version_is_read_the_docs_layout() -> None:
    assert rule_url("AM101", base_url="https://mirror.example/", version="latest") == (
        "https://mirror.example/en/latest/review/rules/am101.html"
    )


def test_every_rule_and_row_address_names_a_page_of_the_site() -> None:
    """The part after the language folder is a page the documentation sources build."""
    base = "file:///site/"
    for rule in RULES:
        for url in (
            rule_url(rule.code, base_url=base),
            *(row_url(r, base_url=base) for r in rule.rows),
        ):
            page = url.removeprefix(base + "en/").split("#")[0]
            assert (DOCS / page).with_suffix(".md").is_file(), url


def test_the_command_line_points_the_links_at_a_local_build(tmp_path, capsys) -> None:
    (tmp_path / "m.py").write_text(by_code("AM101").wrong)
    site = (tmp_path / "docs" / "_build" / "html").as_uri() + "/"
    main([str(tmp_path / "m.py"), "--base-url", site])
    out = capsys.readouterr().out
    assert f"rule: {site}en/review/rules/am101.html" in out
    assert f"row: {site}en/reference/mask-semantics.html#{ROW}" in out


def test_the_command_line_takes_latest(tmp_path, capsys) -> None:
    (tmp_path / "m.py").write_text(by_code("AM101").wrong)
    main([str(tmp_path / "m.py"), "--site-version", "latest"])
    out = capsys.readouterr().out
    assert "https://attention-textbook.readthedocs.io/en/latest/review/rules/am101.html" in out
    assert "vlatest" not in out


def _tables() -> dict[str, list[str]]:
    """Each reference page's table prefixes, as its ``semantics-table :prefix:`` lines say."""
    found: dict[str, list[str]] = {}
    for page in sorted((DOCS / "reference").glob("*.md")):
        text = page.read_text(encoding="utf-8")
        for table in re.finditer(r"```\{semantics-table\}\n:prefix:([^\n]*)\n", text):
            found.setdefault(f"reference/{page.stem}.html", []).extend(table.group(1).split())
    return found


def test_every_row_is_cited_on_the_page_whose_table_shows_it() -> None:
    """A finding's row address names the page that renders the row (the anchor lives there)."""
    tables = _tables()
    for claim in (*load_claims(), *load_ecosystem_claims()):
        shown = [
            page
            for page, prefixes in tables.items()
            if any(claim.id == p or claim.id.startswith(p + ".") for p in prefixes)
        ]
        assert shown == [row_page(claim.id)], f"{claim.id}: shown on {shown}"


def test_a_row_of_no_table_names_itself() -> None:
    with pytest.raises(ValueError, match=r"'sdpa\.no_such_row' is no row"):
        row_url("sdpa.no_such_row")


JAX_PADDING = (
    "import jax\n"
    "def attend(q, k, v, ids, pad_id):\n"
    "    padding = (ids == pad_id)[:, None, None, :]\n"
    "    return jax.nn.dot_product_attention(q, k, v, mask=padding)\n"
)


def test_a_finding_at_another_frameworks_api_cites_that_apis_rows(tmp_path, capsys) -> None:
    """JAX's `mask` is True = may attend, as SDPA's is: the finding rests on JAX's row."""
    (tmp_path / "m.py").write_text(JAX_PADDING)
    main([str(tmp_path / "m.py"), "--format", "json", "--site-version", "latest"])
    [finding] = json.loads(capsys.readouterr().out)["findings"]
    assert finding["code"] == "AM101"
    rows = [row["id"] for row in finding["rows"]]
    assert rows[0] == "jax.nn.dot_product_attention.mask.bool", rows
    assert all(row.startswith("jax.") for row in rows), rows
    assert finding["rows"][0]["url"].endswith(
        "/reference/cross-framework-masks.html#jax.nn.dot_product_attention.mask.bool"
    )


def test_a_finding_at_a_torch_api_cites_its_rules_rows() -> None:
    [finding] = check_source(by_code("AM101").wrong, "m.py")
    assert finding.rows == by_code("AM101").rows
