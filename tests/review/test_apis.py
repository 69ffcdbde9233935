"""The attention APIs' rows (``attention.review.apis``) held against the claims table and torch.

Every claim a row cites exists in the claims tables (``conf/semantics.toml``, and
``conf/semantics-ecosystem.toml`` for another framework's API) and is about that API and that
argument; the convention a row states (a Boolean mask's True, a floating-point mask, a causal
flag's alignment) is the one its claims expect; an argument handed on to another API (``via``)
means what it means there; and the positions are the installed torch's.
"""

from __future__ import annotations

import inspect
import re

import pytest

from attention.review import apis
from attention.review.apis import APIS, Api, Argument
from attention.semantics.claims import Claim, load_claims, load_ecosystem_claims

BY_ID = {claim.id: claim for claim in (*load_claims(), *load_ecosystem_claims())}
BY_NAME = {api.name: api for api in APIS}
ARGUMENTS = [
    pytest.param(api, argument, id=f"{api.kind}.{argument.keyword}")
    for api in APIS
    for argument in api.arguments
]
CONVENTIONS = ("allowed", "forbidden")
ALIGNMENTS = ("upper_left", "lower_right")


def about(api: Api) -> tuple[str, ...]:
    """The API names a claim cited by this row may be about."""
    return (api.name, api.reported_as) if api.reported_as else (api.name,)


def names_argument(claim: Claim, keyword: str) -> bool:
    """Whether the claim's argument names ``keyword`` as a word (``attn_mask (torch.bool)``)."""
    return re.search(rf"(?<![\w.]){re.escape(keyword)}(?!\w)", claim.argument) is not None


def convention_agrees(argument: Argument, claim: Claim) -> bool:
    """Whether what the row says of the argument is what the claim expects, where it says it."""
    if claim.expected in CONVENTIONS:
        return argument.boolean == claim.expected
    if claim.expected == "additive":
        return argument.floating == "additive"
    if claim.expected in ALIGNMENTS:
        return argument.alignment == claim.expected
    return True


def test_the_rows_have_distinct_names_and_kinds() -> None:
    names = [name for api in APIS for name in api.names]
    assert len(names) == len(set(names))
    assert len({api.kind for api in APIS}) == len(APIS)
    for api in APIS:
        keywords = [argument.keyword for argument in api.arguments]
        assert len(keywords) == len(set(keywords)), api.name
        positions = [a.position for a in api.arguments if a.position is not None]
        assert positions == sorted(set(positions)), f"{api.name}: not in positional order"


@pytest.mark.parametrize(("api", "argument"), ARGUMENTS)
def test_every_claim_an_argument_cites_is_about_it(api: Api, argument: Argument) -> None:
    for row in argument.claims:
        assert row in BY_ID, f"{api.name}({argument.keyword}) cites {row!r}, not a claim"
        claim = BY_ID[row]
        assert claim.api in about(api), f"{row} is about {claim.api}, not {api.name}"
        assert names_argument(claim, argument.keyword), (
            f"{row} is about {claim.argument!r}, not {argument.keyword}"
        )


@pytest.mark.parametrize("api", APIS, ids=[api.kind for api in APIS])
def test_every_claim_an_api_cites_is_about_it(api: Api) -> None:
    for row in api.claims:
        assert row in BY_ID, f"{api.name} cites {row!r}, not a claim"
        assert BY_ID[row].api in about(api), f"{row} is about {BY_ID[row].api}, not {api.name}"


@pytest.mark.parametrize(("api", "argument"), ARGUMENTS)
def test_the_convention_is_the_claims(api: Api, argument: Argument) -> None:
    for row in argument.claims:
        claim = BY_ID[row]
        assert convention_agrees(argument, claim), (
            f"{api.name}({argument.keyword}): the row says boolean={argument.boolean}, "
            f"floating={argument.floating}, alignment={argument.alignment}; {row} expects "
            f"{claim.expected}"
        )


@pytest.mark.parametrize(("api", "argument"), ARGUMENTS)
def test_an_argument_handed_on_means_what_it_means_there(api: Api, argument: Argument) -> None:
    if argument.via is None:
        return
    receiver, keyword = argument.via
    assert receiver in BY_NAME, f"{api.name}({argument.keyword}) is handed to {receiver}: no row"
    there = BY_NAME[receiver].argument(keyword)
    assert (argument.role, argument.boolean, argument.alignment) == (
        there.role,
        there.boolean,
        there.alignment,
    )
    assert argument.floating in (None, there.floating)


def test_every_mask_of_a_public_torch_api_rests_on_a_claim() -> None:
    public = [api for api in APIS if api.name.startswith("torch.") and api.reported_as is None]
    for api in public:
        for argument in api.masks:
            assert argument.claims or argument.via, f"{api.name}({argument.keyword})"


def test_the_boolean_conventions_are_the_tables() -> None:
    # the two conventions people mix up, spelled out: the claims say it, the rows must too
    assert BY_ID["sdpa.attn_mask.bool"].expected == apis.SDPA.argument("attn_mask").boolean
    assert apis.SDPA.argument("attn_mask").boolean == "allowed"
    for keyword in ("key_padding_mask", "attn_mask"):
        assert apis.MHA.argument(keyword).boolean == "forbidden"
        assert BY_ID[f"mha.{keyword}.bool"].expected == "forbidden"
    assert apis.SDPA.argument("is_causal").alignment == "upper_left"


def test_every_causal_flag_names_masks_of_its_api() -> None:
    for api in APIS:
        for flag in api.causal:
            if flag.vouches_for is not None:
                assert api.argument(flag.vouches_for).role == "mask"
            if flag.beside is not None:
                assert api.argument(flag.beside).role == "padding"


PYTHON_SIGNATURES = [
    (apis.MHA, "forward"),
    (apis.TRANSFORMER_ENCODER_LAYER, "forward"),
    (apis.TRANSFORMER_ENCODER, "forward"),
    (apis.TRANSFORMER_DECODER_LAYER, "forward"),
    (apis.TRANSFORMER_DECODER, "forward"),
    (apis.TRANSFORMER, "forward"),
    (apis.MHA_FORWARD, None),
    (apis.FLEX_ATTENTION, None),
    (apis.CREATE_BLOCK_MASK, None),
]


@pytest.mark.parametrize(
    ("api", "method"), PYTHON_SIGNATURES, ids=[api.kind for api, _ in PYTHON_SIGNATURES]
)
def test_the_positions_are_torchs(api: Api, method: str | None) -> None:
    pytest.importorskip("torch")
    import importlib

    module, _, name = api.name.rpartition(".")
    function = getattr(importlib.import_module(module), name)
    parameters = list(
        inspect.signature(getattr(function, method) if method else function).parameters
    )
    if method:
        parameters = parameters[1:]  # self
    for argument in api.arguments:
        assert argument.position is not None
        assert parameters[argument.position] == argument.keyword, (api.name, argument)


SCHEMAS = [apis.SDPA, apis.NATIVE_MHA, apis.TRANSFORMER_ENCODER_LAYER_FWD, apis.NESTED_FROM_MASK]


@pytest.mark.parametrize("api", SCHEMAS, ids=[api.kind for api in SCHEMAS])
def test_the_positions_of_torchs_operators_are_their_schemas(api: Api) -> None:
    torch = pytest.importorskip("torch")
    (schema, *_) = torch._C._jit_get_schemas_for_operator(f"aten::{api.short}")
    parameters = [argument.name for argument in schema.arguments]
    for argument in api.arguments:
        assert argument.position is not None
        assert parameters[argument.position] == argument.keyword, (api.name, argument)


def test_the_prefilter_lets_through_every_api_by_its_rows_words() -> None:
    from attention.review.check import KEYWORDS, could_hold_finding

    for api in APIS:
        assert set(api.words) <= set(KEYWORDS), api.name
        for word in api.words:
            assert could_hold_finding(f"x = {word}"), word


def _watch_citations() -> tuple[list[tuple[str, str, str]], list[str]]:
    """What the watch's modules cite: (row, tail, id) per ``apis.ROW.claim(tail)`` call, and
    every string that is the id of a claim about a row's API (an id written, not read)."""
    import ast
    from pathlib import Path

    from attention.review import watch, watch_rules

    rows = {name: getattr(apis, name) for name in apis.__all__}
    apis_named = {name for api in APIS for name in about(api)}
    cited: list[tuple[str, str, str]] = []
    written: list[str] = []
    for module in (watch, watch_rules):
        tree = ast.parse(Path(str(module.__file__)).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "claim"
                and isinstance(node.func.value, ast.Attribute)
                and isinstance(node.func.value.value, ast.Name)
                and node.func.value.value.id == "apis"
            ):
                row = node.func.value.attr
                tails = [n.value for n in ast.walk(node.args[0]) if isinstance(n, ast.Constant)]
                if isinstance(node.args[0], ast.BinOp):  # "prefix_" + ("true" if … else "false")
                    prefix, *ends = tails
                    tails = [prefix + end for end in ends]
                cited.extend((row, tail, rows[row].claim(tail)) for tail in tails)
            elif (
                isinstance(node, ast.Constant)
                and node.value in BY_ID
                and BY_ID[node.value].api in apis_named
            ):
                written.append(f"{module.__name__}: {node.value!r}")
    return cited, written


def test_every_claim_the_watch_cites_is_a_claim_of_its_row() -> None:
    cited, written = _watch_citations()
    assert cited, "the watch cites no claim through a row"
    assert not written, f"claim ids written in the watch, not read from a row: {written}"
    for row, tail, claim in cited:
        api = getattr(apis, row)
        assert claim in api.cited, f"apis.{row}.claim({tail!r}) = {claim!r}, not its row's"
        assert claim in BY_ID, f"apis.{row}.claim({tail!r}) = {claim!r}, not a claim"
        assert BY_ID[claim].api in about(api), f"{claim} is about {BY_ID[claim].api}, not {row}"


def test_the_positions_of_jax_are_its_signature() -> None:
    """jax.nn.dot_product_attention's row against the installed jax (``nox -s
    semantics_ecosystem`` installs the pinned one; the default environment has none)."""
    jax = pytest.importorskip("jax")
    parameters = inspect.signature(jax.nn.dot_product_attention).parameters
    for argument in apis.JAX_DOT_PRODUCT_ATTENTION.arguments:
        parameter = parameters[argument.keyword]
        if argument.position is None:
            assert parameter.kind is inspect.Parameter.KEYWORD_ONLY, argument
        else:
            assert list(parameters).index(argument.keyword) == argument.position, argument


def _jax(call: str) -> list[tuple[str, int]]:
    from attention.review.check import check_source

    source = (
        "import jax\n\n\ndef attend(q, k, v, ids, pad_id):\n"
        "    padding = (ids == pad_id)[:, None, None, :]  # True = padding\n"
        "    real = (ids != pad_id)[:, None, None, :]  # True = a real token\n"
        f"    return {call}\n"
    )
    return [(finding.code, finding.line) for finding in check_source(source, "case.py")]


@pytest.mark.parametrize(
    "given",
    ["mask=padding", "None, padding"],
    ids=["keyword", "position"],
)
def test_a_new_api_is_read_from_its_row_alone(given: str) -> None:
    """jax.nn.dot_product_attention is one row: its Boolean ``mask`` means True = may attend
    (the claim jax.nn.dot_product_attention.mask.bool), read by keyword or at position 4."""
    assert _jax(f"jax.nn.dot_product_attention(q, k, v, {given})") == [("AM101", 7)]
    right = given.replace("padding", "real")
    assert _jax(f"jax.nn.dot_product_attention(q, k, v, {right})") == []


def test_multi_head_attention_forward_reads_its_masks_where_its_row_puts_them() -> None:
    """F.multi_head_attention_forward's key_padding_mask (True = padding) given positionally,
    as fairseq and open_clip call it: a True = real-token mask there is AM102."""
    from attention.review.check import check_source

    call = (
        "F.multi_head_attention_forward(q, k, v, 8, 2, w, b, None, None, False, 0.0, ow, ob, True"
    )
    source = (
        "import torch.nn.functional as F\n\n\n"
        "def attend(q, k, v, ids, pad_id, w, b, ow, ob):\n"
        "    real = ids != pad_id\n"
        "    padding = ids == pad_id\n"
        f"    right = {call}, padding)\n"
        f"    return {call}, real)\n"
    )
    assert [(f.code, f.line) for f in check_source(source, "case.py")] == [("AM102", 8)]
