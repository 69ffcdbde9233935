"""Events and the rules that subscribe to them: what the pass meets, judged where it is told."""

from __future__ import annotations

import ast
import inspect

from attention.review import events
from attention.review.interpreter import Interpreter
from attention.review.provenance import Mask, Origin
from attention.review.syntax import Source


def test_every_kind_of_event_is_judged_by_some_rule() -> None:
    kinds = [
        kind
        for _, kind in inspect.getmembers(events, inspect.isclass)
        if issubclass(kind, events.Event) and kind is not events.Event
    ]
    assert len(kinds) == 26
    assert [kind.__name__ for kind in kinds if not events.subscribers(kind)] == []


def test_a_rule_judges_the_event_it_subscribed_to() -> None:
    """A True = forbidden mask reaching an API that reads True as allowed: AM101, raised by
    the polarity family on the event alone, whatever code made the mask."""
    source = Source("import torch\nsdpa(q, k, v, attn_mask=padding)\n")
    interpreter = Interpreter(source)
    node = source.tree.body[1].value.keywords[0].value  # type: ignore[attr-defined]
    padding = Mask("mask", Origin(ast.Constant(0), "padding"), "bool", "forbidden")
    events.emit(interpreter, events.MaskAtApi("allowed", padding, node, "F.sdpa(attn_mask=…)"))
    assert [hit.code for hit in interpreter.hits] == ["AM101"]
    interpreter.hits.clear()
    events.emit(
        interpreter, events.MaskAtApi("forbidden", padding, node, "nn.MHA(key_padding_mask=…)")
    )
    assert interpreter.hits == []
