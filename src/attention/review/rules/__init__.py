"""Every rule of the checker as data, with its examples and its demonstration.

A rule is a code, a name, a severity, the rows it rests on, a message, a fix, a wrong and a
right example (the source of its test fixtures and of its site page), and a demonstration
that runs the wrong code on torch next to the right one (:mod:`.demos`).

Severity is ``error`` where the source alone proves the mistake, ``warning`` where the finding
rests on what the source suggests but does not prove (a name such as ``pad_mask``, or a dtype,
size or path it does not show).  Codes
are stable: a retired rule keeps its code unused.

>>> RULES[0].code, RULES[0].severity
('AM101', 'error')
>>> by_code("AM202").fixable
True
"""

from __future__ import annotations

from types import ModuleType

# One module per family (the code's first digit), each holding its rules with their examples;
# the examples' shared fragments are in ._examples, the Rule class in ._rule.
from attention.review.rules import (
    am1_polarity,
    am2_fills,
    am3_causal,
    am4_softmax,
    am5_scale,
    am6_padding,
    am7_inversion,
    am8_heads,
)
from attention.review.rules._rule import Rule, Severity

__all__ = ["FAMILIES", "RULES", "Rule", "Severity", "by_code", "family_of"]

FAMILIES = (
    am1_polarity,
    am2_fills,
    am3_causal,
    am4_softmax,
    am5_scale,
    am6_padding,
    am7_inversion,
    am8_heads,
)
"""The family modules, AM1xx to AM8xx, in code order; each holds its ``RULES``."""

RULES: tuple[Rule, ...] = tuple(rule for family in FAMILIES for rule in family.RULES)

_BY_CODE = {rule.code: rule for rule in RULES}


def by_code(code: str) -> Rule:
    """The rule ``code`` (``AM101``); KeyError names the known codes otherwise."""
    try:
        return _BY_CODE[code]
    except KeyError:
        raise KeyError(f"no rule {code!r}; the rules are {', '.join(_BY_CODE)}") from None


def family_of(code: str) -> ModuleType:
    """The family module of rule ``code``.

    Its ``READS`` and ``SILENT`` say what its rules read and what they leave silent.

    >>> family_of("AM202").__name__
    'attention.review.rules.am2_fills'
    """
    rule = by_code(code)
    return next(family for family in FAMILIES if rule in family.RULES)
