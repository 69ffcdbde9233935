"""The Chinese-prose check (docs/_tools/zhprose.py) on small pages, and the glossary it reads."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(DOCS / "_tools"))

import zhprose  # noqa: E402

GLOSSARY = zhprose.load_glossary(DOCS / "glossary.toml")

# The terms every Chinese page uses; they are fixed, entries may only be added.
FIXED = {
    "mask": "掩码",
    "Boolean mask": "布尔掩码",
    "additive mask": "加性掩码",
    "causal mask": "因果掩码",
    "padding": "填充",
    "key padding mask": "键填充掩码",
    "query": "查询",
    "key": "键",
    "value": "值",
    "head": "头",
    "multi-head attention": "多头注意力",
    "scaled dot-product attention": "缩放点积注意力",
    "attention weights": "注意力权重",
    "score": "分数",
    "kernel (compute)": "内核",
    "bias": "偏置",
    "cost model": "代价模型",
    "allowed / may attend": "允许参与",
    "forbidden / masked out": "禁止参与",
    "fully masked row": "全部被屏蔽的行",
    "tile / tiled attention": "分块 / 分块注意力",
    "forward / backward pass": "前向 / 反向传播",
    "release (of torch)": "版本",
    "figure": "图",
    "common misconceptions": "常见误区",
    "exercise": "练习",
    "batch": "批",
}


def _page(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "page.html"
    path.write_text(f"<html><body><nav>mask</nav><article>{body}</article></body></html>")
    return path


def _problems(tmp_path: Path, body: str) -> tuple[list[str], list[str]]:
    text = zhprose.page_prose(_page(tmp_path, body))
    return (
        zhprose.term_problems("page.html", text, GLOSSARY),
        zhprose.english_problems("page.html", text, GLOSSARY),
    )


def test_the_fixed_terms_keep_their_chinese() -> None:
    terms = {term.en: term.zh for term in GLOSSARY.terms}
    assert {en: terms.get(en) for en in FIXED} == FIXED


@pytest.mark.parametrize(
    ("prose", "spelling"),
    [
        ("<p>Boolean 掩码在不同 API 中含义不同。</p>", "'Boolean 掩码'"),
        ("<p>一个成本模型。</p>", "'成本模型'"),
        ("<p>每个 query 都可以关注它。</p>", "'可以关注'"),
        ("<h2>Key padding。</h2>", "'padding'"),
    ],
)
def test_a_second_term_for_one_concept_is_reported(
    tmp_path: Path, prose: str, spelling: str
) -> None:
    terms, _ = _problems(tmp_path, prose)
    assert any(spelling in problem for problem in terms), terms


def test_english_words_in_prose_are_reported(tmp_path: Path) -> None:
    _, english = _problems(tmp_path, "<p>这个结果 depends on 输入。</p>")
    assert [problem.split("'")[1] for problem in english] == ["depends", "on"]


def test_code_math_names_and_identifiers_are_not_prose(tmp_path: Path) -> None:
    body = (
        "<p>布尔掩码 <code>mask</code> 传给 PyTorch 的 SDPA；<span class='math'>\\text{key}</span>"
        "；参数 attn_mask、torch.nn、float64 与 MaskValueError 都是名字。</p>"
        "<pre>scores = query @ key</pre>"
        "<dl class='field-list'><dd><p><strong>query</strong> -- 查询张量。</p></dd></dl>"
        "<p>见 pytorch/pytorch#41508 与 2.13.0+cpu。</p>"
    )
    assert _problems(tmp_path, body) == ([], [])


def test_text_outside_the_article_is_not_read(tmp_path: Path) -> None:
    assert "mask" not in zhprose.page_prose(_page(tmp_path, "<p>掩码</p>"))


def test_a_spelling_that_matches_its_own_term_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "glossary.toml"
    path.write_text('[[term]]\nen = "mask"\nzh = "掩码"\nnot = ["掩"]\n', encoding="utf-8")
    with pytest.raises(ValueError, match="matches its own"):
        zhprose.load_glossary(path)


@pytest.mark.parametrize(
    "generated",
    [
        "<p class='generated'>站点版本: <code>0.1.0</code>; 本次构建</p>",
        "<li class='generated'>在 2.14 中变化: <code>ok</code> → <code>nan</code>. 从 2.14 起</li>",
        "<th class='generated'>时间 (ms)</th>",
    ],
)
def test_ascii_punctuation_in_generated_chinese_is_reported(tmp_path: Path, generated: str) -> None:
    text = zhprose.generated_prose(_page(tmp_path, generated))
    assert zhprose.punctuation_problems("page.html", text), text


def test_chinese_punctuation_and_prose_outside_generated_text_pass(tmp_path: Path) -> None:
    body = (
        "<p class='generated'>站点版本：<code>0.1.0</code>；本次构建的 torch 版本："
        "<code>2.13.0</code>。时间（ms）</p>"
        "<p>1. 交叉注意力 (查询, 键) 不是生成的文字。</p>"
    )
    text = zhprose.generated_prose(_page(tmp_path, body))
    assert zhprose.punctuation_problems("page.html", text) == []


def test_the_catalogues_of_generated_strings_use_chinese_punctuation() -> None:
    assert zhprose.catalogue_problems(zhprose.LOCALES) == []


def test_verified_on_reads_as_the_releases_not_an_environment() -> None:
    """The column "Verified on" names releases: 验证于, not 验证环境 (an environment)."""
    locales = Path(__file__).resolve().parents[1] / "locales"
    found = sorted(
        str(path.relative_to(locales))
        for path in locales.rglob("*.po")
        if "验证环境" in path.read_text(encoding="utf-8")
    )
    assert not found, f"验证环境 in {found}"
