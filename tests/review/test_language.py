"""The checker in Chinese: headlines, fixes, labels and links from the site's catalogue."""

from __future__ import annotations

import json

import pytest

from attention.review.__main__ import main
from attention.review.i18n import LABELS, Catalogue, language_of
from attention.review.rules import FAMILIES, RULES

WRONG = (
    "import torch.nn.functional as F\n\n\n"
    "def attend(q, k, v, ids, pad_id):\n"
    "    padding = ids == pad_id\n"
    "    return F.scaled_dot_product_attention(q, k, v, attn_mask=padding)\n"
)


@pytest.mark.parametrize("rule", RULES, ids=[rule.code for rule in RULES])
def test_every_rule_speaks_chinese(rule) -> None:
    chinese = Catalogue("zh_CN")
    for text in (rule.message, rule.fix, rule.summary):
        assert chinese.gettext(text) != text, f"{rule.code}: {text!r} has no translation"
    assert "{subject}" in chinese.gettext(rule.message)


@pytest.mark.parametrize("family", FAMILIES, ids=[family.__name__ for family in FAMILIES])
def test_every_family_says_what_it_reads_and_leaves_silent_in_chinese(family) -> None:
    chinese = Catalogue("zh_CN")
    for text in (family.READS, family.SILENT):
        assert text.strip(), f"{family.__name__}: an empty text"
        assert chinese.gettext(text) != text, f"{family.__name__}: {text!r} has no translation"


def test_every_label_speaks_chinese() -> None:
    chinese = Catalogue("zh_CN")
    assert all(chinese.gettext(label) != label for label in LABELS)


def test_the_report_in_chinese(tmp_path, capsys) -> None:
    model = tmp_path / "model.py"
    model.write_text(WRONG)
    assert main([str(model), "--language", "zh_CN"]) == 1
    out = capsys.readouterr().out
    assert "`padding` 在禁止参与处为 True，却被读作 True = 允许参与 [错误]" in out
    assert "    修正: " in out
    assert "/zh-cn/" in out
    assert "/en/" not in out
    assert out.rstrip().endswith("1 条发现")
    assert main([str(model), "--language", "zh_CN", "--format", "json"]) == 1
    record = json.loads(capsys.readouterr().out)["findings"][0]
    assert record["message"].startswith("`padding` 在禁止参与处")
    assert "/zh-cn/" in record["rule_url"]


def test_the_language_comes_from_the_locale(tmp_path, capsys, monkeypatch) -> None:
    model = tmp_path / "model.py"
    model.write_text(WRONG)
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    main([str(model)])
    assert "修正" in capsys.readouterr().out
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    main([str(model)])
    assert "fix: " in capsys.readouterr().out
    assert language_of({"LANGUAGE": "zh_TW:en", "LANG": "en_US.UTF-8"}) == "zh_CN"
    assert language_of({}) == "en"
