"""The registry of torch operations: readings filed by name and kind, tried in a known order."""

from __future__ import annotations

import ast

import pytest

from attention.review.ops import calls, registry
from attention.review.provenance import Mask, Module, Origin, Scores


def test_every_module_of_readings_is_loaded_in_the_order_of_precedence() -> None:
    """calls.READERS imports each module that registers readings, in PRECEDENCE's order."""
    loaded = [module.__name__.rsplit(".", 1)[-1] for module in calls.READERS]
    assert loaded == list(registry.PRECEDENCE)


def test_a_module_not_in_the_order_cannot_register() -> None:
    def reading(ev: object, c: registry.Call) -> registry.Reading:
        return registry.NOT_MINE

    reading.__module__ = "attention.review.ops.elsewhere"
    with pytest.raises(ValueError, match="elsewhere is not named in PRECEDENCE"):
        registry.operation("flip")(reading)  # type: ignore[arg-type]


def _names(names: set[str], receiver: object) -> list[str]:
    return [entry.handler.__name__ for entry in registry.readings(names, receiver)]  # type: ignore[arg-type]


def test_a_call_is_offered_only_to_the_readings_of_its_names_and_kind() -> None:
    origin = Origin(ast.Constant(0), "")
    mask = Mask("mask", origin, "bool", "allowed")
    scores = Scores(origin, scaled=True)
    # a mask's unsqueeze is read as a mask's; the scores' is no mask's
    assert "mask_unsqueezed" in _names({"unsqueeze"}, mask)
    assert "mask_unsqueezed" not in _names({"unsqueeze"}, scores)
    # the names of a table's rows file a reading under each of them
    assert _names({"half"}, scores)[:1] == ["scores_as_float"]
    assert "scores_as_float" not in _names({"softmax"}, scores)


def test_readings_of_a_kind_alone_come_after_every_named_one() -> None:
    """A module called with ``float`` in its name: the named readings first, then the
    module's reading by kind, so a new named reading never hides behind a kind's."""
    module = Module("embedding", False, Origin(ast.Constant(0), ""))
    found = registry.readings({"float"}, module)
    assert [entry.handler.__name__ for entry in found][-1] == "embedding_called"
    assert [entry.rank for entry in found] == sorted(entry.rank for entry in found)
