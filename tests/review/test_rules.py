"""The rule registry: each rule's examples are its golden fixtures, its demos run on torch."""

from __future__ import annotations

import ast
import doctest
import importlib
import pkgutil
import re

import pytest

from attention.review import rules as registry
from attention.review.check import check_source
from attention.review.links import known_rows
from attention.review.rules import RULES, by_code
from attention.review.syntax import Source

IDS = [rule.code for rule in RULES]


def test_codes_are_unique_and_well_formed() -> None:
    assert len(set(IDS)) == len(IDS)
    assert all(re.fullmatch(r"AM[1-9]\d\d", code) for code in IDS)
    assert sorted(IDS) == IDS


def _family_modules() -> list[tuple[str, object]]:
    """Every family module of the rules package (``am<digit>_<what>``), by its digit."""
    names = [
        info.name
        for info in pkgutil.iter_modules(registry.__path__)
        if not info.name.startswith("_")
    ]
    assert all(re.fullmatch(r"am[1-9]_[a-z_]+", name) for name in names), names
    digits = [name[2] for name in names]
    assert len(set(digits)) == len(digits), f"two modules for one family: {sorted(names)}"
    return [
        (name[2], importlib.import_module(f"{registry.__name__}.{name}"))
        for name in sorted(names, key=lambda name: name[2])
    ]


@pytest.mark.parametrize(
    ("digit", "module"), _family_modules(), ids=lambda x: getattr(x, "__name__", x)
)
def test_family_module_holds_its_family_only(digit, module) -> None:
    codes = [rule.code for rule in module.RULES]
    assert codes, f"{module.__name__} holds no rule"
    strays = [code for code in codes if not code.startswith(f"AM{digit}")]
    assert not strays, f"{module.__name__} holds rules of other families: {strays}"
    assert codes == sorted(codes), f"{module.__name__} is not in code order: {codes}"


def test_rules_are_every_family_in_code_order() -> None:
    families = _family_modules()
    assert list(registry.FAMILIES) == [module for _, module in families]
    assert tuple(rule for _, module in families for rule in module.RULES) == RULES
    assert len(set(IDS)) == len(IDS), "a code is held twice"
    assert sorted(IDS) == IDS


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_rule_rests_on_rows_of_the_table(rule) -> None:
    # rows the table is still gaining may be missing until they land: that failure is expected
    missing = sorted(set(rule.rows) - known_rows())
    assert not missing, f"{rule.code} rests on rows not in the table: {missing}"


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_wrong_example_gives_exactly_its_finding(rule) -> None:
    assert [f.code for f in check_source(rule.wrong)] == [rule.code]


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_right_example_gives_no_finding(rule) -> None:
    assert check_source(rule.right) == []


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_message_names_the_subject(rule) -> None:
    finding = check_source(rule.wrong)[0]
    assert finding.subject in rule.message.format(subject=finding.subject)
    assert finding.expects


def _renamed(source: str) -> str:
    """Every parameter and assigned name renamed (not imports, attributes or pad ids)."""
    tree = ast.parse(source)
    bound = {node.arg for node in ast.walk(tree) if isinstance(node, ast.arg)} | {
        target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    # A comparison with the padding id (`ids == pad_id`) is what the source says the mask is;
    # the id keeps its name. `self` stays `self`.
    keep = {name for name in bound if "pad" in name.lower()} | {"self"}
    mapping = {name: f"v{index}" for index, name in enumerate(sorted(bound - keep))}
    text = Source(source, tree)
    edits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in mapping:
            edits.append((text.span(node), mapping[node.id]))
        elif isinstance(node, ast.arg) and node.arg in mapping:
            start = text.offset(node.lineno, node.col_offset)
            edits.append(((start, start + len(node.arg)), mapping[node.arg]))
    for (start, end), name in sorted(edits, reverse=True):
        source = source[:start] + name + source[end:]
    return source


@pytest.mark.parametrize("rule", [r for r in RULES if r.severity == "error"], ids=lambda r: r.code)
def test_errors_do_not_rest_on_names(rule) -> None:
    renamed = _renamed(rule.wrong)
    assert renamed != rule.wrong
    before = [(f.code, f.line, f.column) for f in check_source(rule.wrong)]
    after = [(f.code, f.line) for f in check_source(renamed)]
    assert after == [(code, line) for code, line, _ in before], renamed


@pytest.mark.parametrize(
    "rule", [r for r in RULES if r.severity == "warning"], ids=lambda r: r.code
)
def test_warnings_say_why_they_are_warnings(rule) -> None:
    assert rule.severity == "warning"
    assert rule.summary


@pytest.mark.parametrize("which", ["demo_wrong", "demo_right"])
@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_demo_runs_on_the_installed_torch(rule, which) -> None:
    text = getattr(rule, which)
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, {}, f"{rule.code}.{which}", None, 0)
    assert test.examples, "a demo shows at least one example"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test, out=lambda _: None)
    assert runner.failures == 0, f"{rule.code} {which} no longer prints what it says"


def test_by_code_names_the_codes_when_unknown() -> None:
    with pytest.raises(KeyError, match="AM101"):
        by_code("AM999")


NAME_ONLY = """\
import torch.nn.functional as F


def attend(q, k, v, key_padding_mask, attention_mask):
    a = F.scaled_dot_product_attention(q, k, v, attn_mask=key_padding_mask[:, None, :, None])
    b = F.scaled_dot_product_attention(q, k, v, attn_mask=attention_mask.bool()[:, None, :, None])
    return a, b
"""


def test_masks_known_only_by_name_give_warnings_only() -> None:
    findings = check_source(NAME_ONLY)
    assert findings, "the names say the conventions: there is something to warn about"
    assert {by_code(f.code).severity for f in findings} == {"warning"}
