"""Every public function and argument, fed valid and invalid values by Hypothesis.

Each case draws a valid call, then (usually) replaces one argument with a value of any kind: a
near miss (a float head count, a string scale, a mask of the wrong dtype or shape, a meta tensor)
or junk (None, a list, a module).  The call must either raise a package error whose message
names the replaced argument, or return a finite answer equal to torch's (within what the dtype's
rounding allows).  Anything else -- an ``AttributeError`` from inside torch, a NaN, a wrong
number -- fails the case, and Hypothesis shrinks it to a minimal tensor or value.

``tiled_attention`` is walked here like the rest; its gradients and tiling have their own tests in
test_tiled.py.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import reduce
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import Tensor, nn

import attention
from attention import errors
from tests.bad_inputs import (
    DEVICES,
    DTYPES,
    FLAGS,
    FLOAT_DTYPES,
    INTS,
    JUNK,
    MODERATE,
    OUTCOMES,
    SCALES,
    tensors,
)

PACKAGE_ERRORS = tuple(getattr(errors, name) for name in errors.__all__)
TOLERANCE = {torch.float64: 1e-9, torch.float32: 1e-4, torch.float16: 1e-2, torch.bfloat16: 3e-2}
EPS = {dtype: torch.finfo(dtype).eps for dtype in (torch.float32, torch.float64)}

Args = dict[str, object]


@dataclass
class Spec:
    """One public callable: valid arguments, near misses per argument, the call and its oracle."""

    valid: st.SearchStrategy[Args]
    call: Callable[[Args], object]
    oracle: Callable[[Args, object], None]
    near_misses: dict[str, st.SearchStrategy[object]] = field(default_factory=dict)
    examples: int = 60


# -- oracles --------------------------------------------------------------------------------------


def _same_mask(result: object, expected: Tensor) -> None:
    """``result`` equals ``expected`` exactly (shape and dtype only, for a meta result)."""
    assert isinstance(result, Tensor)
    assert result.shape == expected.shape
    assert result.dtype == expected.dtype
    if not result.is_meta:
        assert torch.equal(result, expected)


def _close(result: Tensor, expected: Tensor, tolerance: float) -> None:
    result, expected = result.detach(), expected.detach()
    assert bool(torch.isfinite(result).all()), "a call returned NaN or inf"
    scale = max(1.0, float(expected.abs().max())) if expected.numel() else 1.0
    torch.testing.assert_close(
        result.double(), expected, rtol=tolerance, atol=tolerance * scale, equal_nan=False
    )


def _slack(query: Tensor, key: Tensor, factor: float, extra: float = 0.0) -> float:
    """How far the weights may move when the scores carry the compute dtype's rounding error."""
    wide = torch.float32 if query.dtype in (torch.float16, torch.bfloat16) else query.dtype
    largest = float(query.double().abs().max()) * float(key.double().abs().max())
    bound = largest * query.shape[-1] * abs(factor) + extra  # every |score| is below this
    return min(1.0, 8 * EPS[wide] * bound)


def _factor(args: Args, width: int) -> float:
    scale = args["scale"]
    return 1.0 / math.sqrt(width) if scale is None else float(scale)  # type: ignore[arg-type]


def _scores_oracle(args: Args, result: object) -> None:
    query, key = args["query"], args["key"]
    assert isinstance(result, Tensor)
    assert isinstance(query, Tensor)
    assert isinstance(key, Tensor)
    factor = _factor(args, query.shape[-1])
    expected = (query.double() @ key.double().transpose(-2, -1)) * factor
    assert result.dtype == query.dtype
    _close(result, expected, TOLERANCE[query.dtype])


def _sdpa_oracle(args: Args, result: object) -> None:
    query, key, value = args["query"], args["key"], args["value"]
    assert isinstance(query, Tensor)
    assert isinstance(key, Tensor)
    assert isinstance(value, Tensor)
    assert isinstance(result, tuple)
    output, weights = result
    factor = _factor(args, query.shape[-1])
    bias = torch.zeros(query.shape[0], query.shape[1], key.shape[1], dtype=torch.float64)
    allowed, additive = args["allowed"], args["additive"]
    extra = 0.0
    if isinstance(allowed, Tensor):
        bias = bias.masked_fill(~allowed, -math.inf)
    if isinstance(additive, Tensor):
        bias = bias + additive.double()
        finite = additive.double()[torch.isfinite(additive)]
        extra = float(finite.abs().max()) if finite.numel() else 0.0
    q, k, v = query.double(), key.double(), value.double()
    expected = F.scaled_dot_product_attention(q, k, v, attn_mask=bias, scale=factor)
    expected_weights = torch.softmax(q @ k.transpose(-2, -1) * factor + bias, dim=-1)
    tolerance = TOLERANCE[query.dtype] + _slack(query, key, factor, extra)
    assert output.dtype == weights.dtype == query.dtype
    _close(weights, expected_weights, tolerance)
    _close(output, expected, tolerance * max(1.0, float(v.abs().max())) * key.shape[1])


# -- attention ------------------------------------------------------------------------------------


@st.composite
def _scores_args(draw: st.DrawFn) -> Args:
    dtype = draw(st.sampled_from(FLOAT_DTYPES))
    leading = tuple(draw(st.lists(st.integers(1, 2), max_size=2)))
    length, source, width = (draw(st.integers(1, 3)) for _ in range(3))
    return {
        "query": draw(tensors(dtypes=[dtype], shape=(*leading, length, width), elements=MODERATE)),
        "key": draw(tensors(dtypes=[dtype], shape=(*leading, source, width), elements=MODERATE)),
        "scale": draw(st.one_of(st.none(), st.floats(0.1, 2.0))),
    }


@st.composite
def _sdpa_args(draw: st.DrawFn) -> Args:
    dtype = draw(st.sampled_from(FLOAT_DTYPES))
    batch, length, source, width, width_v = (draw(st.integers(1, 3)) for _ in range(5))

    def floats(*shape: int) -> st.SearchStrategy[Tensor]:
        return tensors(dtypes=[dtype], shape=shape, elements=MODERATE, meta=False)

    mask_shape = draw(st.sampled_from([(length, source), (batch, 1, source), (source,)]))
    additive_entries = st.one_of(MODERATE, st.just(-math.inf))
    return {
        "query": draw(floats(batch, length, width)),
        "key": draw(floats(batch, source, width)),
        "value": draw(floats(batch, source, width_v)),
        "allowed": draw(
            st.one_of(st.none(), tensors(dtypes=[torch.bool], shape=mask_shape, meta=False))
        ),
        "additive": draw(
            st.one_of(
                st.none(),
                tensors(
                    dtypes=[dtype], shape=(length, source), elements=additive_entries, meta=False
                ),
            )
        ),
        "scale": draw(st.one_of(st.none(), st.floats(0.1, 2.0))),
    }


ANY_TENSOR = tensors()
# an "allowed" argument of a wrong dtype as well as a right one (True = may attend when Boolean)
ANY_ALLOWED = tensors(dtypes=[torch.bool, torch.uint8, torch.float32])
SPECS: dict[str, Spec] = {
    "attention_scores": Spec(
        _scores_args(),
        lambda a: attention.attention_scores(a["query"], a["key"], scale=a["scale"]),  # type: ignore[arg-type]
        _scores_oracle,
        {"query": ANY_TENSOR, "key": ANY_TENSOR, "scale": SCALES},
        examples=100,
    ),
    "scaled_dot_product_attention": Spec(
        _sdpa_args(),
        lambda a: attention.scaled_dot_product_attention(
            a["query"],  # type: ignore[arg-type]
            a["key"],  # type: ignore[arg-type]
            a["value"],  # type: ignore[arg-type]
            a["allowed"],  # type: ignore[arg-type]
            additive=a["additive"],  # type: ignore[arg-type]
            scale=a["scale"],  # type: ignore[arg-type]
        ),
        _sdpa_oracle,
        {
            "query": ANY_TENSOR,
            "key": ANY_TENSOR,
            "value": ANY_TENSOR,
            "allowed": ANY_ALLOWED,
            "additive": tensors(dtypes=FLOAT_DTYPES),
            "scale": SCALES,
        },
        examples=150,
    ),
}


@st.composite
def _tiled_args(draw: st.DrawFn) -> Args:
    dtype = draw(st.sampled_from(FLOAT_DTYPES))
    leading = tuple(draw(st.lists(st.integers(1, 2), max_size=2)))
    length, source, width, width_v = (draw(st.integers(1, 5)) for _ in range(4))

    def floats(*shape: int) -> st.SearchStrategy[Tensor]:
        return tensors(dtypes=[dtype], shape=(*leading, *shape), elements=MODERATE, meta=False)

    mask_shape = draw(st.sampled_from([(length, source), (*leading, 1, source), (source,)]))
    return {
        "query": draw(floats(length, width)),
        "key": draw(floats(source, width)),
        "value": draw(floats(source, width_v)),
        "allowed": draw(
            st.one_of(st.none(), tensors(dtypes=[torch.bool], shape=mask_shape, meta=False))
        ),
        "block_size": draw(st.integers(1, 6)),
        "scale": draw(st.one_of(st.none(), st.floats(0.1, 2.0))),
    }


def _tiled_oracle(args: Args, result: object) -> None:
    query, key, value = args["query"], args["key"], args["value"]
    assert isinstance(query, Tensor)
    assert isinstance(key, Tensor)
    assert isinstance(value, Tensor)
    assert isinstance(result, Tensor)
    factor = _factor(args, query.shape[-1])
    allowed = args["allowed"]
    bias = torch.zeros(query.shape[-2], key.shape[-2], dtype=torch.float64)
    if isinstance(allowed, Tensor):
        bias = bias.masked_fill(~allowed, -math.inf)
    q, k, v = query.double(), key.double(), value.double()
    expected = F.scaled_dot_product_attention(q, k, v, attn_mask=bias, scale=factor)
    tolerance = TOLERANCE[query.dtype] + _slack(query, key, factor)
    assert result.dtype == query.dtype
    assert result.shape == expected.shape
    _close(result, expected, tolerance * max(1.0, float(v.abs().max())) * key.shape[-2])


SPECS["tiled_attention"] = Spec(
    _tiled_args(),
    lambda a: attention.tiled_attention(
        a["query"],  # type: ignore[arg-type]
        a["key"],  # type: ignore[arg-type]
        a["value"],  # type: ignore[arg-type]
        a["allowed"],  # type: ignore[arg-type]
        block_size=a["block_size"],  # type: ignore[arg-type]
        scale=a["scale"],  # type: ignore[arg-type]
    ),
    _tiled_oracle,
    {
        "query": ANY_TENSOR,
        "key": ANY_TENSOR,
        "value": ANY_TENSOR,
        "allowed": ANY_ALLOWED,
        "block_size": INTS,
        "scale": SCALES,
    },
    examples=150,
)


# -- multi-head ------------------------------------------------------------------------------------


@st.composite
def _module_args(draw: st.DrawFn) -> Args:
    heads = draw(st.integers(1, 3))
    return {
        "embed_dim": heads * draw(st.integers(1, 3)),
        "num_heads": heads,
        "bias": draw(st.booleans()),
        "batch_first": draw(st.booleans()),
        "device": draw(st.sampled_from([None, "cpu"])),
        "dtype": draw(st.sampled_from([None, torch.float32, torch.float64])),
    }


def _module_oracle(args: Args, result: object) -> None:
    assert isinstance(result, attention.MultiHeadAttention)
    reference = nn.MultiheadAttention(**args)  # type: ignore[arg-type]
    ours = {name: p.shape for name, p in result.named_parameters()}
    assert sum(math.prod(shape) for shape in ours.values()) == sum(
        p.numel() for p in reference.parameters()
    )
    assert result.q_proj.weight.dtype == reference.in_proj_weight.dtype
    assert result.q_proj.weight.device == reference.in_proj_weight.device
    assert result.head_dim * result.num_heads == result.embed_dim == reference.embed_dim


def _reference_module(embed_dim: int, num_heads: int, batch_first: bool) -> nn.MultiheadAttention:
    torch.manual_seed(0)
    module = nn.MultiheadAttention(embed_dim, num_heads, batch_first=batch_first).double()
    with torch.no_grad():
        module.in_proj_bias.normal_()
    return module.eval()


@st.composite
def _forward_args(draw: st.DrawFn) -> Args:
    heads = draw(st.integers(1, 2))
    embed = heads * draw(st.integers(1, 2))
    batch_first = draw(st.booleans())
    batch, length, source = (draw(st.integers(1, 3)) for _ in range(3))

    def inputs(positions: int) -> st.SearchStrategy[Tensor]:
        shape = (batch, positions, embed) if batch_first else (positions, batch, embed)
        return tensors(dtypes=[torch.float64], shape=shape, elements=MODERATE, meta=False)

    mask_shape = draw(
        st.sampled_from(
            [
                (length, source),
                (batch, 1, source),
                (batch, length, source),
                (batch, heads, 1, source),
            ]
        )
    )
    return {
        "_module": (embed, heads, batch_first),
        "query": draw(inputs(length)),
        "key": draw(inputs(source)),
        "value": draw(inputs(source)),
        "allowed": draw(
            st.one_of(st.none(), tensors(dtypes=[torch.bool], shape=mask_shape, meta=False))
        ),
        "need_weights": draw(st.booleans()),
        "average_attn_weights": draw(st.booleans()),
    }


def _forward(args: Args) -> object:
    embed, heads, batch_first = args["_module"]  # type: ignore[misc]
    module = attention.MultiHeadAttention.from_torch(_reference_module(embed, heads, batch_first))
    return module(
        args["query"],  # type: ignore[arg-type]
        args["key"],  # type: ignore[arg-type]
        args["value"],  # type: ignore[arg-type]
        args["allowed"],  # type: ignore[arg-type]
        need_weights=args["need_weights"],  # type: ignore[arg-type]
        average_attn_weights=args["average_attn_weights"],  # type: ignore[arg-type]
    )


def _forward_oracle(args: Args, result: object) -> None:
    embed, heads, batch_first = args["_module"]  # type: ignore[misc]
    reference = _reference_module(embed, heads, batch_first)
    query, key, allowed = args["query"], args["key"], args["allowed"]
    assert isinstance(query, Tensor)
    assert isinstance(key, Tensor)
    assert isinstance(result, tuple)
    batch = query.shape[0 if batch_first else 1]
    length, source = query.shape[1 if batch_first else 0], key.shape[1 if batch_first else 0]
    bias = None
    if isinstance(allowed, Tensor):
        full = allowed[:, None] if allowed.ndim == 3 else allowed
        full = full.expand(batch, heads, length, source)
        bias = torch.zeros(full.shape, dtype=torch.float64).masked_fill(~full, -math.inf)
        bias = bias.reshape(batch * heads, length, source)
    expected, expected_weights = reference(
        query,
        key,
        args["value"],
        attn_mask=bias,
        need_weights=args["need_weights"],
        average_attn_weights=args["average_attn_weights"],
    )
    output, weights = result
    _close(output, expected, 1e-9)
    if args["need_weights"]:
        _close(weights, expected_weights, 1e-9)
    else:
        assert weights is None


@st.composite
def _from_torch_args(draw: st.DrawFn) -> Args:
    heads = draw(st.integers(1, 2))
    return {"module": _reference_module(heads * 2, heads, draw(st.booleans()))}


def _from_torch_oracle(args: Args, result: object) -> None:
    reference = args["module"]
    assert isinstance(result, attention.MultiHeadAttention)
    assert isinstance(reference, nn.MultiheadAttention)
    x = torch.randn(2, 3, reference.embed_dim, dtype=torch.float64)
    _close(result(x, x, x)[0], reference(x, x, x)[0], 1e-9)


UNCOPYABLE = st.sampled_from(
    [
        nn.Linear(4, 4),
        nn.MultiheadAttention(4, 2, kdim=2, vdim=2),
        nn.MultiheadAttention(4, 2, add_bias_kv=True),
        nn.MultiheadAttention(4, 2, add_zero_attn=True),
        "MultiheadAttention",
    ]
)

SPECS.update(
    {
        "MultiHeadAttention": Spec(
            _module_args(),
            lambda a: attention.MultiHeadAttention(**a),  # type: ignore[arg-type]
            _module_oracle,
            {
                "embed_dim": INTS,
                "num_heads": INTS,
                "bias": FLAGS,
                "batch_first": FLAGS,
                "device": DEVICES,
                "dtype": DTYPES,
            },
            examples=40,
        ),
        "MultiHeadAttention.forward": Spec(
            _forward_args(),
            _forward,
            _forward_oracle,
            {
                "query": ANY_TENSOR,
                "key": ANY_TENSOR,
                "value": ANY_TENSOR,
                "allowed": tensors(dtypes=[torch.bool, torch.float64]),
                "need_weights": FLAGS,
                "average_attn_weights": FLAGS,
            },
            examples=40,
        ),
        "MultiHeadAttention.from_torch": Spec(
            _from_torch_args(),
            lambda a: attention.MultiHeadAttention.from_torch(a["module"]),  # type: ignore[arg-type]
            _from_torch_oracle,
            {"module": UNCOPYABLE},
            examples=25,
        ),
        "mha_parameter_count": Spec(
            st.builds(
                lambda heads, per_head, bias: {
                    "embed_dim": heads * per_head,
                    "num_heads": heads,
                    "bias": bias,
                },
                st.integers(1, 3),
                st.integers(1, 3),
                st.booleans(),
            ),
            lambda a: attention.mha_parameter_count(**a),  # type: ignore[arg-type]
            lambda a, result: _equal(
                result,
                sum(
                    p.numel()
                    for p in nn.MultiheadAttention(
                        a["embed_dim"],  # type: ignore[arg-type]
                        a["num_heads"],  # type: ignore[arg-type]
                        bias=a["bias"],  # type: ignore[arg-type]
                    ).parameters()
                ),
            ),
            {"embed_dim": INTS, "num_heads": INTS, "bias": FLAGS},
            examples=40,
        ),
    }
)


def _equal(result: object, expected: object) -> None:
    assert type(result) is type(expected)
    assert result == expected


# -- cost model ------------------------------------------------------------------------------------


def _cost_oracle(args: Args, result: object) -> None:
    assert isinstance(result, attention.AttentionCost)
    b, t, d, h = (int(args[n]) for n in ("batch", "seq_len", "d_model", "num_heads"))  # type: ignore[call-overload]
    f = 4 * d if args["ffn_dim"] is None else int(args["ffn_dim"])  # type: ignore[call-overload]
    e = int(args["bytes_per_element"])  # type: ignore[call-overload]
    _equal(result.score_flops + result.mix_flops, 4 * b * t * t * d)
    _equal(result.projection_flops, 8 * b * t * d * d)
    _equal(result.ffn_flops, 4 * b * t * d * f)
    _equal(result.score_bytes, b * h * t * t * e)
    _equal(result.ffn_hidden_bytes, b * t * f * e)


SPECS["attention_cost"] = Spec(
    st.builds(
        lambda b, t, h, per_head, f, e: {
            "batch": b,
            "seq_len": t,
            "d_model": h * per_head,
            "num_heads": h,
            "ffn_dim": f,
            "bytes_per_element": e,
        },
        st.integers(1, 3),
        st.integers(1, 64),
        st.integers(1, 4),
        st.integers(1, 8),
        st.one_of(st.none(), st.integers(1, 64)),
        st.integers(1, 8),
    ),
    lambda a: attention.attention_cost(**a),  # type: ignore[arg-type]
    _cost_oracle,
    {name: INTS for name in ("batch", "seq_len", "d_model", "num_heads", "bytes_per_element")}
    | {"ffn_dim": st.one_of(st.none(), INTS)},
)


# -- mask builders ----------------------------------------------------------------------------------

LENGTH = st.integers(0, 4)
GOOD_DEVICE = st.sampled_from([None, "cpu", torch.device("cpu"), "meta"])


def _causal_expected(a: Args) -> Tensor:
    length = a["query_length"]
    source = length if a["key_length"] is None else a["key_length"]
    offset = 0 if a["alignment"] == "upper_left" else source - length  # type: ignore[operator]
    return torch.ones(length, source, dtype=torch.bool).tril(offset)  # type: ignore[call-overload, no-any-return]


def _window_expected(a: Args) -> Tensor:
    length, window = a["length"], a["window"]
    ones = torch.ones(length, length, dtype=torch.bool)  # type: ignore[call-overload]
    if a["causal"]:
        return ones.tril() & ~ones.tril(-window)  # type: ignore[operator, no-any-return]
    return ones.tril(window - 1) & ones.triu(1 - window)  # type: ignore[operator, no-any-return]


def _padding_expected(lengths: object, width: int) -> Tensor:
    rows = [[j < n for j in range(width)] for n in lengths]  # type: ignore[attr-defined]
    return torch.tensor(rows, dtype=torch.bool).reshape(len(rows), width)


def _block_expected(a: Args) -> Tensor:
    lengths = list(a["segment_lengths"])  # type: ignore[call-overload]
    blocks = [torch.ones(n, n, dtype=torch.bool) for n in lengths]
    if not blocks:
        return torch.zeros(0, 0, dtype=torch.bool)
    return torch.block_diag(*blocks)


LENGTHS = st.one_of(st.lists(LENGTH, max_size=3), st.tuples(LENGTH, LENGTH))
LENGTHS_NEAR = st.one_of(
    st.lists(st.one_of(INTS, st.integers(4, 9)), max_size=3),
    tensors(dtypes=[torch.int64, torch.float32, torch.complex64, torch.bool]),
    st.sampled_from(["12", 3, None, range(2)]),
)


def _builder(
    function: Callable[..., Tensor],
    valid: st.SearchStrategy[Args],
    expected: Callable[[Args], Tensor],
    near: dict[str, st.SearchStrategy[object]],
) -> Spec:
    return Spec(
        valid,
        lambda a: function(**a),
        lambda a, result: _same_mask(result, expected(a).to(result.device)),  # type: ignore[attr-defined]
        {**near, "device": DEVICES},
    )


SPECS.update(
    {
        "causal_allowed": _builder(
            attention.causal_allowed,
            st.fixed_dictionaries(
                {
                    "query_length": LENGTH,
                    "key_length": st.one_of(st.none(), LENGTH),
                    "alignment": st.sampled_from(["upper_left", "lower_right"]),
                    "device": GOOD_DEVICE,
                }
            ),
            _causal_expected,
            {
                "query_length": INTS,
                "key_length": INTS,
                "alignment": st.sampled_from(["bottom_right", "", None, 0, ["upper_left"]]),
            },
        ),
        "bidirectional_allowed": _builder(
            attention.bidirectional_allowed,
            st.fixed_dictionaries(
                {
                    "query_length": LENGTH,
                    "key_length": st.one_of(st.none(), LENGTH),
                    "device": GOOD_DEVICE,
                }
            ),
            lambda a: torch.ones(
                a["query_length"],  # type: ignore[arg-type]
                a["query_length"] if a["key_length"] is None else a["key_length"],  # type: ignore[arg-type]
                dtype=torch.bool,
            ),
            {"query_length": INTS, "key_length": INTS},
        ),
        "prefix_lm_allowed": _builder(
            attention.prefix_lm_allowed,
            LENGTH.flatmap(
                lambda n: st.fixed_dictionaries(
                    {
                        "length": st.just(n),
                        "prefix_length": st.integers(0, n),
                        "device": GOOD_DEVICE,
                    }
                )
            ),
            lambda a: (
                torch.ones(a["length"], a["length"], dtype=torch.bool).tril()  # type: ignore[arg-type]
                | (torch.arange(a["length"]) < a["prefix_length"])[None, :]  # type: ignore[arg-type, operator]
            ),
            {"length": INTS, "prefix_length": INTS},
        ),
        "sliding_window_allowed": _builder(
            attention.sliding_window_allowed,
            st.fixed_dictionaries(
                {
                    "length": LENGTH,
                    "window": st.integers(1, 5),
                    "causal": st.booleans(),
                    "device": GOOD_DEVICE,
                }
            ),
            _window_expected,
            {"length": INTS, "window": INTS, "causal": FLAGS},
        ),
        "block_diagonal_allowed": _builder(
            attention.block_diagonal_allowed,
            st.fixed_dictionaries({"segment_lengths": LENGTHS, "device": GOOD_DEVICE}),
            _block_expected,
            {"segment_lengths": LENGTHS_NEAR},
        ),
        "key_padding_allowed": _builder(
            attention.key_padding_allowed,
            st.fixed_dictionaries(
                {"lengths": LENGTHS, "source_length": st.just(4), "device": GOOD_DEVICE}
            ),
            lambda a: _padding_expected(a["lengths"], a["source_length"])[:, None, :],  # type: ignore[arg-type]
            {"lengths": LENGTHS_NEAR, "source_length": INTS},
        ),
        "source_padding_allowed": _builder(
            attention.source_padding_allowed,
            st.fixed_dictionaries(
                {
                    "source_lengths": LENGTHS,
                    "source_length": st.just(4),
                    "query_length": LENGTH,
                    "device": GOOD_DEVICE,
                }
            ),
            lambda a: _padding_expected(a["source_lengths"], a["source_length"])[  # type: ignore[arg-type]
                :, None, :
            ].expand(-1, a["query_length"], -1),  # type: ignore[arg-type]
            {"source_lengths": LENGTHS_NEAR, "source_length": INTS, "query_length": INTS},
        ),
        "query_padding_allowed": _builder(
            attention.query_padding_allowed,
            st.fixed_dictionaries(
                {"lengths": LENGTHS, "query_length": st.just(4), "device": GOOD_DEVICE}
            ),
            lambda a: _padding_expected(a["lengths"], a["query_length"]),  # type: ignore[arg-type]
            {"lengths": LENGTHS_NEAR, "query_length": INTS},
        ),
    }
)


# -- combining masks (variadic: the arguments are named "argument 0", "argument 1", ...) -----------


@st.composite
def _masks_args(draw: st.DrawFn) -> Args:
    length, source = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    count = draw(st.integers(1, 3))
    shapes = st.sampled_from([(length, source), (2, 1, source), (2, length, source), (source,)])
    return {
        f"argument {n}": draw(tensors(dtypes=[torch.bool], shape=draw(shapes), meta=False))
        for n in range(count)
    }


def _combine_spec(function: Callable[..., Tensor], op: Callable[[Tensor, Tensor], Tensor]) -> Spec:
    def oracle(a: Args, result: object) -> None:
        masks = torch.broadcast_tensors(*a.values())  # type: ignore[no-untyped-call]
        _same_mask(result, reduce(op, masks))

    return Spec(
        _masks_args(),
        lambda a: function(*a.values()),
        oracle,
        {f"argument {n}": tensors() for n in range(3)},
    )


SPECS["intersect_allowed"] = _combine_spec(attention.intersect_allowed, torch.logical_and)
SPECS["union_allowed"] = _combine_spec(attention.union_allowed, torch.logical_or)


# -- converters ---------------------------------------------------------------------------------------


def _bool_masks(*shapes: tuple[int, ...]) -> st.SearchStrategy[Tensor]:
    return st.sampled_from(shapes).flatmap(
        lambda shape: tensors(dtypes=[torch.bool], shape=shape, meta=False)
    )


ANY_MASK = _bool_masks((3,), (2, 3), (2, 2, 3), (1, 2, 2, 3))
MINUS_INF_OR_ZERO = st.sampled_from([0.0, -math.inf])


def _additive_masks(*shapes: tuple[int, ...]) -> st.SearchStrategy[Tensor]:
    return st.tuples(st.sampled_from(shapes), st.sampled_from(FLOAT_DTYPES)).flatmap(
        lambda pair: tensors(
            dtypes=[pair[1]], shape=pair[0], elements=MINUS_INF_OR_ZERO, meta=False
        )
    )


def _additive_of(allowed: Tensor, dtype: object) -> Tensor:
    return torch.zeros(allowed.shape, dtype=dtype).masked_fill(~allowed, -math.inf)  # type: ignore[call-overload]


def _converter(
    function: Callable[..., Tensor],
    valid: dict[str, st.SearchStrategy[object]],
    expected: Callable[[Args], Tensor],
    near: dict[str, st.SearchStrategy[object]],
) -> Spec:
    return Spec(
        st.fixed_dictionaries(valid),
        lambda a: function(**a),
        lambda a, result: _same_mask(result, expected(a)),
        near,
    )


BOOL_NEAR = tensors(dtypes=[torch.bool, torch.uint8, torch.int64, torch.float32])
FLOAT_NEAR = tensors(dtypes=[torch.bool, torch.int64, *FLOAT_DTYPES])
MASK_DTYPE = st.sampled_from(FLOAT_DTYPES)
HEADS = st.one_of(st.none(), st.integers(1, 3))


def _per_key(allowed: object) -> Tensor:
    """``[B, 1, S]`` → ``[B, S]``; ``[B, S]`` stays."""
    assert isinstance(allowed, Tensor)
    return allowed[:, 0] if allowed.ndim == 3 else allowed


def _to_mha_expected(a: Args) -> Tensor:
    allowed, heads = a["allowed"], a["num_heads"]
    assert isinstance(allowed, Tensor)
    if allowed.ndim == 2:
        return ~allowed
    if allowed.ndim == 3:
        return (~allowed).repeat_interleave(heads, dim=0)  # type: ignore[arg-type]
    return (~allowed).flatten(0, 1)


def _from_mha_expected(a: Args) -> Tensor:
    mask, heads = a["attn_mask"], a["num_heads"]
    assert isinstance(mask, Tensor)
    allowed = mask == 0 if mask.is_floating_point() else ~mask
    if allowed.ndim == 3 and heads is not None:
        return allowed.unflatten(0, (-1, heads))  # type: ignore[arg-type]
    return allowed


@st.composite
def _to_mha_args(draw: st.DrawFn) -> Args:
    allowed = draw(_bool_masks((2, 3), (2, 2, 3), (1, 2, 2, 3)))
    heads = draw(st.integers(1, 3))
    if allowed.ndim == 2:
        heads = draw(st.one_of(st.none(), st.just(heads)))
    elif allowed.ndim == 4:
        heads = draw(st.sampled_from([None, allowed.shape[1]]))
    return {"allowed": allowed, "num_heads": heads}


@st.composite
def _from_mha_args(draw: st.DrawFn) -> Args:
    heads = draw(HEADS)
    rows = 2 * (heads or 1)
    shape = draw(st.sampled_from([(2, 3), (rows, 2, 3)]))
    mask = draw(st.one_of(_bool_masks(shape), _additive_masks(shape)))
    return {"attn_mask": mask, "num_heads": heads}


SPECS.update(
    {
        "allowed_to_forbidden": _converter(
            attention.allowed_to_forbidden,
            {"allowed": ANY_MASK},
            lambda a: ~a["allowed"],  # type: ignore[operator]
            {"allowed": BOOL_NEAR},
        ),
        "forbidden_to_allowed": _converter(
            attention.forbidden_to_allowed,
            {"forbidden": ANY_MASK},
            lambda a: ~a["forbidden"],  # type: ignore[operator]
            {"forbidden": BOOL_NEAR},
        ),
        "allowed_to_additive": _converter(
            attention.allowed_to_additive,
            {"allowed": ANY_MASK, "dtype": MASK_DTYPE},
            lambda a: _additive_of(a["allowed"], a["dtype"]),  # type: ignore[arg-type]
            {"allowed": BOOL_NEAR, "dtype": DTYPES},
        ),
        "forbidden_to_additive": _converter(
            attention.forbidden_to_additive,
            {"forbidden": ANY_MASK, "dtype": MASK_DTYPE},
            lambda a: _additive_of(~a["forbidden"], a["dtype"]),  # type: ignore[operator]
            {"forbidden": BOOL_NEAR, "dtype": DTYPES},
        ),
        "additive_to_allowed": _converter(
            attention.additive_to_allowed,
            {"additive": _additive_masks((3,), (2, 3))},
            lambda a: a["additive"] == 0,
            {"additive": FLOAT_NEAR},
        ),
        "additive_to_forbidden": _converter(
            attention.additive_to_forbidden,
            {"additive": _additive_masks((3,), (2, 3))},
            lambda a: a["additive"] != 0,
            {"additive": FLOAT_NEAR},
        ),
        "allowed_to_mha_attn_mask": Spec(
            _to_mha_args(),
            lambda a: attention.allowed_to_mha_attn_mask(**a),  # type: ignore[arg-type]
            lambda a, result: _same_mask(result, _to_mha_expected(a)),
            {"allowed": BOOL_NEAR, "num_heads": INTS},
        ),
        "mha_attn_mask_to_allowed": Spec(
            _from_mha_args(),
            lambda a: attention.mha_attn_mask_to_allowed(**a),  # type: ignore[arg-type]
            lambda a, result: _same_mask(result, _from_mha_expected(a)),
            {"attn_mask": FLOAT_NEAR, "num_heads": INTS},
        ),
        "allowed_to_mha_key_padding_mask": _converter(
            attention.allowed_to_mha_key_padding_mask,
            {"allowed": _bool_masks((2, 3), (2, 1, 3))},
            lambda a: ~_per_key(a["allowed"]),
            {"allowed": BOOL_NEAR},
        ),
        "mha_key_padding_mask_to_allowed": _converter(
            attention.mha_key_padding_mask_to_allowed,
            {"key_padding_mask": st.one_of(_bool_masks((2, 3)), _additive_masks((2, 3)))},
            lambda a: _from_mha_expected({"attn_mask": a["key_padding_mask"], "num_heads": None})[
                :, None, :
            ],
            {"key_padding_mask": FLOAT_NEAR},
        ),
        "hf_attention_mask_to_allowed": _converter(
            attention.hf_attention_mask_to_allowed,
            {
                "attention_mask": st.sampled_from([torch.bool, torch.uint8, torch.int64]).flatmap(
                    lambda dtype: tensors(
                        dtypes=[dtype], shape=(2, 3), elements=st.integers(0, 1), meta=False
                    )
                )
            },
            lambda a: a["attention_mask"].bool()[:, None, :],  # type: ignore[attr-defined]
            {"attention_mask": tensors()},
        ),
        "allowed_to_hf_attention_mask": _converter(
            attention.allowed_to_hf_attention_mask,
            {
                "allowed": _bool_masks((2, 3), (2, 1, 3)),
                "dtype": st.sampled_from([torch.long, torch.int32, torch.bool]),
            },
            lambda a: _per_key(a["allowed"]).to(a["dtype"]),  # type: ignore[arg-type]
            {"allowed": BOOL_NEAR, "dtype": DTYPES},
        ),
    }
)


# -- the suite --------------------------------------------------------------------------------------


def _names_argument(message: str, name: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", message) is not None


def _succeeds(spec: Spec, args: Args) -> bool:
    try:
        spec.call(args)
    except PACKAGE_ERRORS:
        return False
    return True


def test_every_public_callable_has_a_spec() -> None:
    public = {
        name
        for name in attention.__all__
        if callable(getattr(attention, name)) and name != "AttentionCost"
    }
    assert public <= set(SPECS), f"no bad-input spec for {sorted(public - set(SPECS))}"


@pytest.mark.parametrize("name", sorted(SPECS))
def test_bad_inputs_raise_a_named_package_error_or_match_torch(name: str) -> None:
    spec = SPECS[name]

    @settings(max_examples=spec.examples, deadline=None)
    @given(data=st.data())
    def case(data: st.DataObject) -> None:
        valid = dict(data.draw(spec.valid, label="valid arguments"))
        arguments = [n for n in valid if not n.startswith("_")]  # "_module": the fixture
        replaced = data.draw(st.sampled_from([None, *arguments]), label="replaced argument")
        args = dict(valid)
        if replaced is not None:
            bad = st.one_of(spec.near_misses.get(replaced, st.nothing()), JUNK)
            args[replaced] = data.draw(bad, label=replaced)
        try:
            result = spec.call(args)
        except PACKAGE_ERRORS as error:
            message = f"{type(error).__name__}: {error}"
        else:
            spec.oracle(args, result)
            OUTCOMES["answer"] += 1
            return
        # The replaced argument is to blame, unless the call failed without the replacement.
        names = [replaced] if replaced is not None and _succeeds(spec, valid) else arguments
        assert any(_names_argument(message, n) for n in names), (
            f"the message does not name {' or '.join(names)}: {message}"
        )
        OUTCOMES["error"] += 1

    case()


# -- the reported cases: each gave a NaN, an error from inside torch or Python, a message in the
# wrong terms, or accepted nonsense ---------------------------------------------------------------


def _half(value: float, *shape: int) -> Tensor:
    return torch.full(shape, value, dtype=torch.float16)


def _fake_cuda(*shape: int, dtype: torch.dtype = torch.float32) -> Tensor:
    """A tensor that claims to live on cuda:0, without needing a GPU (torch's fake tensors)."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        return torch.zeros(shape, dtype=dtype, device="cuda")


def _mha_fully_masked_batch_one() -> object:
    module = attention.MultiHeadAttention(8, 2)  # [T, B, d_model]
    x = torch.randn(3, 2, 8)  # T=3, B=2
    allowed = torch.ones(2, 3, 3, dtype=torch.bool)  # [B, L, S], True = may attend
    allowed[1, 0] = False  # the caller's batch 1, query 0 sees nothing
    return module(x, x, x, allowed)


MASK = torch.ones(2, 2, dtype=torch.bool)
REPORTED: dict[str, tuple[Callable[[], object], str, str]] = {
    # silent NaN from valid calls
    "float16 q=1000 k=0.001 scale=100 gives torch's 1.0": (
        lambda: attention.scaled_dot_product_attention(
            _half(1000, 1, 1, 1), _half(0.001, 1, 1, 1), _half(1, 1, 1, 1), scale=100
        )[0].item(),
        "value",
        "1.0",
    ),
    "scale=1e39 on float32": (
        lambda: attention.scaled_dot_product_attention(
            torch.ones(1, 1, 1), torch.ones(1, 2, 1), torch.ones(1, 2, 1), scale=1e39
        ),
        "NonFiniteError",
        r"scale=1e\+39 is infinite in torch.float32",
    ),
    "a finite additive that pushes a float16 score to +inf": (
        lambda: attention.scaled_dot_product_attention(
            _half(240, 1, 1, 1),
            _half(240, 1, 2, 1),
            _half(1, 1, 2, 1),
            additive=torch.tensor([6e4, 0.0], dtype=torch.float16),
            scale=1.0,
        ),
        "NonFiniteError",
        r"scores plus additive overflowed to ±inf in torch.float16",
    ),
    # errors from deep inside torch or Python
    "attention_scores of a list": (
        lambda: attention.attention_scores([[1.0]], torch.ones(1, 1)),  # type: ignore[arg-type]
        "ArgumentTypeError",
        r"query must be a torch.Tensor, got list",
    ),
    "attention_scores with D=0": (
        lambda: attention.attention_scores(torch.ones(1, 2, 0), torch.ones(1, 3, 0)),
        "AttentionShapeError",
        r"key dimension D must be positive",
    ),
    "attention_scores with mismatched D": (
        lambda: attention.attention_scores(torch.ones(1, 2, 3), torch.ones(1, 2, 4)),
        "AttentionShapeError",
        r"query and key must share the key dimension D",
    ),
    "attention_scores of NaN": (
        lambda: attention.attention_scores(torch.full((1, 2), math.nan), torch.ones(1, 2)),
        "NonFiniteError",
        r"query holds NaN or ±inf",
    ),
    **{
        f"scale={scale!r}": (
            lambda scale=scale: attention.scaled_dot_product_attention(  # type: ignore[misc]
                torch.ones(1, 1, 2), torch.ones(1, 2, 2), torch.ones(1, 2, 1), scale=scale
            ),
            "ArgumentTypeError",
            rf"scale must be a real number \(int or float\) or None, got {type(scale).__name__}",
        )
        for scale in ("abc", "2", True)
    },
    "MultiHeadAttention on a list": (
        lambda: attention.MultiHeadAttention(8, 2)([[0.0] * 8], torch.ones(1, 1, 8), None),  # type: ignore[arg-type]
        "ArgumentTypeError",
        r"query must be a torch.Tensor, got list",
    ),
    "MultiHeadAttention on float64 with float32 weights": (
        lambda: attention.MultiHeadAttention(8, 2)(
            *(torch.ones(1, 1, 8, dtype=torch.float64),) * 3
        ),
        "InputDtypeError",
        r"query has dtype torch.float64 but the module's weights are torch.float32",
    ),
    "MultiHeadAttention(8, 2.0)": (
        lambda: attention.MultiHeadAttention(8, 2.0),  # type: ignore[arg-type]
        "ArgumentTypeError",
        r"num_heads must be an int, got float 2.0",
    ),
    "MultiHeadAttention(8.0, 2)": (
        lambda: attention.MultiHeadAttention(8.0, 2),  # type: ignore[arg-type]
        "ArgumentTypeError",
        r"embed_dim must be an int, got float 8.0",
    ),
    "from_torch(nn.Linear(4, 4))": (
        lambda: attention.MultiHeadAttention.from_torch(nn.Linear(4, 4)),  # type: ignore[arg-type]
        "ArgumentTypeError",
        r"module must be a torch.nn.MultiheadAttention, got Linear",
    ),
    "block_diagonal_allowed(None)": (
        lambda: attention.block_diagonal_allowed(None),  # type: ignore[arg-type]
        "ArgumentTypeError",
        r"segment_lengths must be a list of ints .*, got NoneType",
    ),
    "key_padding_allowed(3, 4)": (
        lambda: attention.key_padding_allowed(3, 4),  # type: ignore[arg-type]
        "ArgumentTypeError",
        r"lengths must be a list of ints .*, got int 3",
    ),
    "allowed_to_additive(m, 'float32')": (
        lambda: attention.allowed_to_additive(MASK, "float32"),  # type: ignore[arg-type]
        "ArgumentTypeError",
        r"dtype must be a torch.dtype such as torch.float32, got str 'float32'",
    ),
    "a meta query": (
        lambda: attention.scaled_dot_product_attention(*(torch.ones(1, 2, 2, device="meta"),) * 3),
        "DeviceError",
        r"query is on the meta device",
    ),
    "a meta additive mask": (
        lambda: attention.additive_to_allowed(torch.zeros(2, device="meta")),
        "DeviceError",
        r"additive is on the meta device",
    ),
    # messages in the wrong terms
    "MultiHeadAttention names the caller's batch": (
        _mha_fully_masked_batch_one,
        "NoAllowedKeyError",
        r"query row \(batch 1, position 0\) has no allowed key",
    ),
    "MultiHeadAttention reports batch sizes in the caller's layout": (
        lambda: attention.MultiHeadAttention(8, 2)(
            torch.ones(3, 4, 8), torch.ones(4, 6, 8), torch.ones(4, 6, 8)
        ),
        "AttentionShapeError",
        r"batch size B \(layout \[T, B, d_model\]\): query \[3, 4, 8\] has B=4, key \[4, 6, 8\]"
        r" has B=6",
    ),
    "forbidden_to_allowed says forbidden's polarity": (
        lambda: attention.forbidden_to_allowed(torch.tensor([1.0])),
        "MaskDtypeError",
        r"forbidden must be a torch.bool tensor \(True = masked out\)",
    ),
    # accepted nonsense
    "mha_parameter_count(8.0, 2)": (
        lambda: attention.mha_parameter_count(8.0, 2),  # type: ignore[arg-type]
        "ArgumentTypeError",
        r"embed_dim must be an int, got float 8.0",
    ),
    "attention_cost(ffn_dim=2.5)": (
        lambda: attention.attention_cost(batch=1, seq_len=4, d_model=8, num_heads=2, ffn_dim=2.5),  # type: ignore[arg-type]
        "ArgumentTypeError",
        r"ffn_dim must be an int, got float 2.5",
    ),
    "attention_cost(bytes_per_element=2.5)": (
        lambda: attention.attention_cost(
            batch=1,
            seq_len=4,
            d_model=8,
            num_heads=2,
            bytes_per_element=2.5,  # type: ignore[arg-type]
        ),
        "ArgumentTypeError",
        r"bytes_per_element must be an int, got float 2.5",
    ),
    "allowed_to_mha_attn_mask(m, num_heads=-5)": (
        lambda: attention.allowed_to_mha_attn_mask(MASK, num_heads=-5),
        "MaskArgumentError",
        r"num_heads must be >= 1, got -5",
    ),
    "complex lengths": (
        lambda: attention.key_padding_allowed(torch.tensor([1 + 0j]), 3),
        "ArgumentTypeError",
        r"lengths must be a 1-D integer tensor \[B\] or a list of ints, got torch.complex64",
    ),
    # error types: a device mismatch is not a shape error; no plain ValueError
    "a key on another device": (
        lambda: attention.scaled_dot_product_attention(
            torch.ones(1, 1, 2), _fake_cuda(1, 2, 2), torch.ones(1, 2, 1)
        ),
        "DeviceError",
        r"key is on cuda:0 but query is on cpu",
    ),
    "an allowed mask on another device": (
        lambda: attention.scaled_dot_product_attention(
            torch.ones(1, 1, 2),
            torch.ones(1, 2, 2),
            torch.ones(1, 2, 1),
            _fake_cuda(2, dtype=torch.bool),
        ),
        "DeviceError",
        r"allowed is on cuda:0 but query is on cpu",
    ),
    "MultiHeadAttention(10, 3)": (
        lambda: attention.MultiHeadAttention(10, 3),
        "ArgumentValueError",
        r"embed_dim=10 must be a positive multiple of num_heads=3",
    ),
    "attention_cost with d_model not a multiple of num_heads": (
        lambda: attention.attention_cost(batch=1, seq_len=4, d_model=8, num_heads=3),
        "ArgumentValueError",
        r"d_model=8 must be a multiple of num_heads=3",
    ),
    "from_torch of a module with kdim": (
        lambda: attention.MultiHeadAttention.from_torch(nn.MultiheadAttention(4, 2, kdim=2)),
        "ArgumentValueError",
        r"kdim == vdim == embed_dim, got module with embed_dim=4, kdim=2",
    ),
}


@pytest.mark.parametrize("case", sorted(REPORTED))
def test_reported_case(case: str) -> None:
    call, kind, expected = REPORTED[case]
    if kind == "value":
        assert str(call()) == expected
        return
    error_type = getattr(errors, kind)
    with pytest.raises(error_type, match=expected) as caught:
        call()
    assert type(caught.value) is error_type, f"{type(caught.value).__name__}, not {kind}"


@pytest.mark.parametrize("module", ["multihead", "cost", "masks", "conventions", "_validate"])
def test_no_plain_builtin_errors_are_raised(module: str) -> None:
    source = (Path(attention.__file__).parent / f"{module}.py").read_text()
    assert not re.search(r"raise (ValueError|TypeError)\(", source), (
        f"attention/{module}.py raises a plain ValueError/TypeError instead of a package error"
    )
