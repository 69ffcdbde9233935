"""The torch operations table (``review/ops.py``) against torch and through the checker.

Each row names a method torch has, says one thing about it (keep, dtype, axes or fill) and,
run on a real tensor, torch agrees with what the row says; a mask moved through a row's method
reaches an attention API with the meaning the row says it keeps.
"""

from __future__ import annotations

import pytest
import torch

from attention.review import ops
from attention.review.check import check_source

_NAMES = sorted(ops.OPS)


@pytest.mark.parametrize("name", _NAMES)
def test_each_row_is_an_operation_torch_has(name: str) -> None:
    assert hasattr(torch.Tensor, name) or hasattr(torch, name)


@pytest.mark.parametrize("name", _NAMES)
def test_a_row_says_only_what_its_category_allows(name: str) -> None:
    op = ops.OPS[name]
    assert op.name == name
    assert (op.axes is not None) == (op.category == "axes")
    if op.category != "dtype":
        assert op.dtype is None
        assert not op.like
        assert not op.wide
    if op.wide or op.like:
        assert op.dtype == "float"
    if not op.dtype_kept:
        assert op.category == "axes"


@pytest.mark.parametrize("name", _NAMES)
def test_no_operation_both_keeps_a_value_and_changes_it(name: str) -> None:
    if ops.keeps(name):
        assert ops.gives(name) is None
        assert not ops.dtype_argument(name)
        assert ops.keeps_dtype(name)
        assert not ops.reorders(name)
    if ops.gives(name) is not None or ops.dtype_argument(name):
        assert not ops.keeps_dtype(name)
    assert not (ops.gives(name) is not None and ops.dtype_argument(name))


_X = torch.arange(6, dtype=torch.float32).reshape(2, 3)  # (2, 3)
_CALLS = {
    "contiguous": (),
    "clone": (),
    "detach": (),
    "cuda": (),
    "cpu": (),
    "to_dense": (),
    "requires_grad_": (),
    "float": (),
    "double": (),
    "half": (),
    "bfloat16": (),
    "long": (),
    "int": (),
    "byte": (),
    "short": (),
    "char": (),
    "bool": (),
    "to": (torch.int64,),
    "type": (torch.int64,),
    "type_as": (torch.zeros(1, dtype=torch.float64),),
    "transpose": (0, 1),
    "swapaxes": (0, 1),
    "t": (),
    "permute": (1, 0),
    "view": (3, 2),
    "reshape": (3, 2),
    "unflatten": (1, (3, 1)),
    "flatten": (),
    "unsqueeze": (0,),
    "squeeze": (),
    "expand": (4, 2, 3),
    "expand_as": (torch.empty(4, 2, 3),),
    "repeat": (2, 1),
    "flip": (0,),
    "narrow": (1, 0, 2),
    "index_select": (1, torch.tensor([0, 2])),
    "zero_": (),
    "fill_": (1.0,),
    "masked_fill": (torch.ones(2, 3, dtype=torch.bool), 0.0),
    "masked_fill_": (torch.ones(2, 3, dtype=torch.bool), 0.0),
}
"""How to call each row's method on ``_X``."""


def test_every_row_has_a_call() -> None:
    assert sorted(_CALLS) == _NAMES


@pytest.mark.parametrize("name", _NAMES)
def test_torch_does_what_the_row_says(name: str) -> None:
    if name == "cuda" and not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    op = ops.OPS[name]
    x = _X.clone()
    out = getattr(x, name)(*_CALLS[name])
    if op.category == "keep":
        assert out.dtype == x.dtype
        assert out.shape == x.shape
        assert torch.equal(out.cpu(), _X)
    elif op.category == "fill":
        assert out.dtype == x.dtype
        assert out.shape == x.shape
    elif op.category == "axes":
        assert out.dtype == x.dtype
        if ops.reorders(name):
            assert sorted(out.shape) == sorted(x.shape)
    elif op.like:
        assert out.dtype == _CALLS[name][0].dtype
    elif op.dtype is None:
        assert out.dtype == _CALLS[name][0]  # to(dtype), type(dtype): the argument's
    else:
        given = {"float": out.is_floating_point(), "bool": out.dtype == torch.bool}
        given["int"] = not given["float"] and not given["bool"]
        assert given[op.dtype]
        assert op.wide == (out.is_floating_point() and torch.finfo(out.dtype).bits >= 32)


def test_the_function_form_names_the_method() -> None:
    assert ops.function_form("torch.masked_fill") == "masked_fill"
    assert ops.function_form("torch.nn.functional.softmax") is None
    assert ops.function_form("numpy.topk") is None
    assert ops.function_form(None) is None


_HEAD = "import torch\nimport torch.nn.functional as F\n\n\n"
_FUTURE = "torch.ones(n, n, dtype=torch.bool).triu(1)"  # True = masked out: wrong for SDPA
_PAST = "torch.ones(n, n, dtype=torch.bool).tril()"  # True = may attend: right for SDPA


def findings(mask: str, parameters: str = "q, k, v, n") -> list[tuple[str, int]]:
    source = (
        _HEAD
        + f"def attend({parameters}):\n"
        + f"    mask = {mask}\n"
        + "    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)\n"
    )
    return [(finding.code, finding.line) for finding in check_source(source, "case.py")]


@pytest.mark.parametrize(
    "moved",
    [
        ".contiguous()",
        ".clone()",
        ".detach()",
        ".cpu()",
        ".expand(2, 4, n, n)",
        ".bool()",
        ".to(torch.bool)",
        ".unsqueeze(0)",
        ".view(1, 1, n, n)",
    ],
)
def test_a_mask_kept_or_moved_reaches_sdpa_with_its_meaning(moved: str) -> None:
    assert findings(_FUTURE + moved) == [("AM101", 7)]
    assert findings(_PAST + moved) == []


def test_a_float_row_makes_a_zero_one_mask() -> None:
    assert findings(_PAST + ".float()") == [("AM201", 7)]


@pytest.mark.parametrize("swap", [".transpose(0, 1)", ".swapaxes(0, 1)", ".t()"])
def test_a_swap_row_turns_the_triangle_over(swap: str) -> None:
    assert findings(_PAST + swap) == [("AM303", 6)]


_PADDING = "(ids == pad_id)[:, None, None, :]"  # True = padding
_REAL = "(ids != pad_id)[:, None, None, :]"  # True = a real token


def padded(mask: str) -> list[tuple[str, int]]:
    return findings(mask, "q, k, v, ids, pad_id")


@pytest.mark.parametrize("flip", [".flip(-1)", ".flip((0, -1))", ".fliplr()"])
def test_a_flipped_mask_keeps_its_meaning(flip: str) -> None:
    """A padding mask read from the other end still marks padding: True = padding reaches
    SDPA, which reads True = may attend (AM101), flipped or not."""
    assert padded(_PADDING + flip) == [("AM101", 7)]
    assert padded(_REAL + flip) == []


@pytest.mark.parametrize("flip", [".flip(-1)", ".flip(0)", ".flip((0, 1))"])
def test_a_flipped_triangle_is_no_triangle_the_rules_know(flip: str) -> None:
    """Unflipped, the future's triangle given as allowed is AM101; flipped, its entries no
    longer lie where the rules' triangles do: nothing is claimed about it."""
    assert findings(_FUTURE) == [("AM101", 7)]
    assert findings(_FUTURE + flip) == []


def test_torch_f_of_x_is_x_f() -> None:
    """``torch.logical_not(m)`` is ``m.logical_not()``: the mask inverted, whatever its name."""
    assert padded("torch.logical_not(" + _REAL + ")") == [("AM101", 7)]
    assert padded(_REAL + ".logical_not()") == [("AM101", 7)]


def test_an_unbound_tensor_method_is_the_method() -> None:
    """``torch.Tensor.masked_fill(s, m, -inf)`` is ``s.masked_fill(m, -inf)``."""
    source = (
        _HEAD + "def attend(q, k, v, ids, pad_id):\n"
        "    real = (ids != pad_id)[:, None, :]\n"
        "    s = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5\n"
        "    s = torch.Tensor.masked_fill(s, real, float('-inf'))\n"
        "    return s.softmax(-1) @ v\n"
    )
    assert [(f.code, f.line) for f in check_source(source, "case.py")] == [("AM102", 8)]
