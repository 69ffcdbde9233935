"""Every public name documents itself with an example, and every mask name says its convention."""

from __future__ import annotations

import inspect
import re

import pytest

import attention
from attention import conventions, cost, errors, masks, multihead, scaled_dot_product, tiled

MODULES = [attention, conventions, cost, errors, masks, multihead, scaled_dot_product, tiled]
PUBLIC = sorted(
    {(name, getattr(module, name)) for module in MODULES for name in module.__all__},
    key=lambda item: item[0],
)
CALLABLES = [(name, obj) for name, obj in PUBLIC if callable(obj) and inspect.getdoc(obj)]
CONVENTION = re.compile(r"True = may attend|True = masked out|True = padded|0 / -inf|True = the")
MASK_WORDS = re.compile(r"allowed|forbidden|additive|mask")


def test_every_public_name_is_exported_once() -> None:
    assert len({name for name, _ in PUBLIC}) == len(PUBLIC)


@pytest.mark.parametrize(("name", "obj"), PUBLIC, ids=[name for name, _ in PUBLIC])
def test_public_name_has_a_docstring_with_an_example(name: str, obj: object) -> None:
    if not (inspect.isclass(obj) or inspect.isfunction(obj) or inspect.ismodule(obj)):
        return  # type aliases (Alignment, Term) are documented where they are defined
    doc = inspect.getdoc(obj) or ""
    assert ">>>" in doc, f"{name} has no example in its docstring"


@pytest.mark.parametrize(("name", "obj"), CALLABLES, ids=[name for name, _ in CALLABLES])
def test_mask_handling_names_state_their_convention(name: str, obj: object) -> None:
    signature = str(inspect.signature(obj)) if not inspect.isclass(obj) else ""  # type: ignore[arg-type]
    if not (MASK_WORDS.search(name) or MASK_WORDS.search(signature)):
        return
    doc = inspect.getdoc(obj) or ""
    if inspect.isclass(obj) and hasattr(obj, "forward"):
        doc += inspect.getdoc(obj.forward) or ""
    assert CONVENTION.search(doc), f"{name} does not say which mask convention it uses"
