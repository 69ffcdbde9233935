"""The runtime watch: each rule fires on a real call and stays silent on the correct look-alike."""

from __future__ import annotations

import warnings
from collections.abc import Callable

import pytest
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

import attention.review
from attention.review import watch as watch_module
from attention.review.links import known_rows, row_url
from attention.review.watch import Watch, watch
from attention.review.watch_benchmark import GOALS, measure
from attention.review.watch_rules import RULES, AttentionWatchError, AttentionWatchWarning


def qkv(batch: int = 2, heads: int = 2, length: int = 4, dim: int = 8, **kw: object) -> Tensor:
    return torch.randn(batch, heads, length, dim, **kw)  # type: ignore[call-overload]


def sdpa(
    mask: Tensor | None = None,
    *,
    dtype: torch.dtype = torch.float32,
    length_k: int = 4,
    **kw: object,
) -> Callable[[], object]:
    q = qkv(dtype=dtype)
    k = qkv(length=length_k, dtype=dtype)
    return lambda: F.scaled_dot_product_attention(q, k, k, attn_mask=mask, **kw)  # type: ignore[arg-type]


def tril(length: int = 4) -> Tensor:
    return torch.ones(length, length, dtype=torch.bool).tril()


def padding_sdpa(hide_item: bool) -> Tensor:
    allowed = torch.ones(2, 1, 1, 4, dtype=torch.bool)  # [B, 1, 1, S]: True = real token
    allowed[1, ..., 2:] = False
    if hide_item:
        allowed[1] = False
    return allowed


def row_masked(bool_mask: bool) -> Tensor:
    allowed = tril()
    allowed[2] = False if bool_mask else allowed[2]
    if bool_mask:
        return allowed
    additive = torch.zeros(4, 4).masked_fill(~tril(), float("-inf"))
    additive[2] = float("-inf")
    return additive


def min_mask(query_without_key: bool) -> Tensor:
    """Hugging Face's additive form: finfo.min where masked, 0 where allowed."""
    mask = torch.zeros(4, 4).masked_fill(~tril(), torch.finfo(torch.float32).min)
    if query_without_key:
        mask[2] = torch.finfo(torch.float32).min
    return mask


def additive(value: float, where: tuple[int, int] = (0, 1)) -> Tensor:
    mask = torch.zeros(4, 4).masked_fill(~tril(), float("-inf"))
    mask[where] = value
    return mask


def t5_bias(length: int = 4, heads: int = 2) -> Tensor:
    """A T5-style relative-position bias [1, H, L, S]: signed, learned, one value per distance."""
    torch.manual_seed(1)
    table = torch.randn(heads, 2 * length - 1)  # one value per head and relative distance
    distance = torch.arange(length)[None, :] - torch.arange(length)[:, None]  # [L, S]
    return table[:, distance + length - 1][None]  # [1, H, L, S]


def alibi_bias(length: int = 4, heads: int = 2) -> Tensor:
    """ALiBi's causal bias [H, L, S]: -slope·distance below the diagonal, -inf above."""
    slopes = 2.0 ** (-8.0 * torch.arange(1, heads + 1) / heads)  # [H]
    distance = (torch.arange(length)[:, None] - torch.arange(length)[None, :]).float()
    bias = -slopes[:, None, None] * distance  # [H, L, S]
    return bias.masked_fill(~tril(length), float("-inf"))


MHA = nn.MultiheadAttention(8, 2, batch_first=True)
X = torch.randn(2, 4, 8)


def mha(**kw: object) -> Callable[[], object]:
    return lambda: MHA.train()(X, X, X, **kw)


def mha_fast(**kw: object) -> Callable[[], object]:
    def call() -> object:
        with torch.no_grad():
            return MHA.eval()(X, X, X, need_weights=False, **kw)

    return call


def encoder(nested: bool, training: bool = False, **kw: object) -> Callable[[], object]:
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    model = nn.TransformerEncoder(layer, 2, enable_nested_tensor=nested).train(training)

    def call() -> object:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.filterwarnings("ignore", "The PyTorch API of nested tensors")
            return model(X, **kw)

    return call


def padding(hide_item: bool) -> Tensor:
    forbidden = torch.tensor([[False] * 4, [False, False, True, True]])  # True = padding
    if hide_item:
        forbidden[1] = True
    return forbidden


def flex(mask_mod: Callable[..., Tensor], length: int = 128) -> Callable[[], object]:
    block_mask = create_block_mask(mask_mod, 1, 1, length, length, device="cpu")
    q = torch.randn(1, 1, length, 16)

    def call() -> object:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "flex_attention called without torch.compile")
            return flex_attention(q, q, q, block_mask=block_mask)

    return call


def causal_mod(b: Tensor, h: Tensor, q: Tensor, k: Tensor) -> Tensor:
    return q >= k


def future_mod(b: Tensor, h: Tensor, q: Tensor, k: Tensor) -> Tensor:
    return q < k


def lonely_mod(b: Tensor, h: Tensor, q: Tensor, k: Tensor) -> Tensor:
    return (q >= k) & (q != 5)


def every_item_padded(reversed_: bool) -> Tensor:
    """[B, S] True = padding, every item padded (none hidden whole); or that read backwards."""
    forbidden = torch.tensor([[False, False, False, True], [False, False, True, True]])
    return ~forbidden if reversed_ else forbidden


def nan_in_padding(where: str, zeroed: bool = False) -> Callable[[], object]:
    """SDPA whose padded key (or value) of item 1 holds NaN; the mask hides it."""
    torch.manual_seed(0)
    q, k, v = qkv(), qkv(), qkv()
    spoiled = k if where == "key" else v
    spoiled[1, :, 3] = 0.0 if zeroed else float("nan")
    return lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=padding_sdpa(False))


def mha_nan_key(zeroed: bool) -> Callable[[], object]:
    """Cross-attention whose padded key of item 1 holds NaN (or zeros)."""
    memory = torch.randn(2, 4, 8)
    memory[1, 3] = 0.0 if zeroed else float("nan")
    return lambda: MHA.train()(X, memory, memory, key_padding_mask=padding(False))


# (rule, wrong call, its correct look-alike)
CASES: dict[str, tuple[str, Callable[[], object], Callable[[], object]]] = {
    "sdpa future triangle": ("AW201", sdpa(tril().logical_not()), sdpa(tril())),
    "sdpa no own key": (
        "AW201",
        sdpa(~torch.eye(4, dtype=torch.bool)),
        sdpa(torch.eye(4, dtype=torch.bool)),
    ),
    "sdpa future, L < S": (
        "AW201",
        sdpa(torch.ones(4, 6, dtype=torch.bool).triu(3), length_k=6),
        sdpa(torch.ones(4, 6, dtype=torch.bool).tril(2), length_k=6),
    ),
    "mha causal for sdpa": ("AW201", mha(attn_mask=tril()), mha(attn_mask=~tril())),
    "flex future": ("AW201", flex(future_mod), flex(causal_mod)),
    "sdpa empty row": ("AW202", sdpa(row_masked(True)), sdpa(tril())),
    "sdpa empty additive row": ("AW202", sdpa(row_masked(False)), sdpa(additive(0.0, (0, 0)))),
    "sdpa row of finfo.min": (
        "AW202",
        sdpa(min_mask(query_without_key=True)),
        sdpa(min_mask(query_without_key=False)),
    ),
    "mha fast empty row": (
        "AW202",
        mha_fast(attn_mask=~row_masked(True)),
        mha_fast(attn_mask=~tril()),
    ),
    "flex empty row": ("AW202", flex(lonely_mod), flex(causal_mod)),
    "flex empty block": ("AW202", flex(lonely_mod, length=256), flex(causal_mod, length=256)),
    "sdpa padding hides item": ("AW203", sdpa(padding_sdpa(True)), sdpa(padding_sdpa(False))),
    "sdpa item with no key is not inverted": (  # Hugging Face's [B, 1, L, S] for an empty item
        "AW202",
        sdpa(padding_sdpa(True).expand(2, 1, 4, 4)),
        sdpa(padding_sdpa(False).expand(2, 1, 4, 4)),
    ),
    "mha padding hides item": (
        "AW203",
        mha(key_padding_mask=padding(True)),
        mha(key_padding_mask=padding(False)),
    ),
    "mha fast padding": (
        "AW203",
        mha_fast(key_padding_mask=padding(True)),
        mha_fast(key_padding_mask=padding(False)),
    ),
    "encoder nested": (
        "AW203",
        encoder(True, src_key_padding_mask=padding(True)),
        encoder(True, src_key_padding_mask=padding(False)),
    ),
    "encoder fused": (
        "AW203",
        encoder(False, src_key_padding_mask=padding(True)),
        encoder(False, src_key_padding_mask=padding(False)),
    ),
    "encoder training": (
        "AW203",
        encoder(False, True, src_key_padding_mask=padding(True)),
        encoder(False, True, src_key_padding_mask=padding(False)),
    ),
    "bool turned float": (
        "AW204",
        sdpa(tril().float()),
        sdpa(torch.zeros(4, 4).masked_fill(~tril(), float("-inf"))),
    ),
    "bool turned float, with -inf": (
        "AW204",
        sdpa(tril().float().masked_fill(~tril(), float("-inf"))),
        sdpa(t5_bias()),  # a relative-position bias: positive values by design
    ),
    "positive bias is not a mistake": ("AW204", sdpa(tril().float()), sdpa(additive(0.5))),
    "nan in mask": ("AW205", sdpa(additive(float("nan"))), sdpa(additive(float("-inf")))),
    "+inf in mask": ("AW205", sdpa(additive(float("inf"))), sdpa(additive(-1e4))),
    "-1e9 float32 for float16": (
        "AW206",
        sdpa(additive(-1e9), dtype=torch.float16),
        sdpa(additive(-1e9).half(), dtype=torch.float16),
    ),
    "finfo.min float32 for bfloat16": (
        "AW206",
        sdpa(additive(torch.finfo(torch.float32).min), dtype=torch.bfloat16),
        sdpa(additive(torch.finfo(torch.bfloat16).min).bfloat16(), dtype=torch.bfloat16),
    ),
    "two finfo.min summed": (
        "AW206",
        sdpa(additive(2 * torch.finfo(torch.float16).min), dtype=torch.float16),
        sdpa(additive(torch.finfo(torch.float16).min), dtype=torch.float16),
    ),
    "is_causal decode step": ("AW207", sdpa(length_k=6, is_causal=True), sdpa(is_causal=True)),
    "mha padding read backwards, every item padded": (
        "AW214",
        mha(key_padding_mask=every_item_padded(True)),
        mha(key_padding_mask=every_item_padded(False)),
    ),
    "sdpa padding read backwards, every item padded": (
        "AW214",
        sdpa(~every_item_padded(True)[:, None, None, :]),
        sdpa(~every_item_padded(False)[:, None, None, :]),
    ),
    "encoder padding read backwards, fused": (
        "AW214",
        encoder(False, src_key_padding_mask=every_item_padded(True)),
        encoder(False, src_key_padding_mask=every_item_padded(False)),
    ),
    "encoder padding read backwards, nested": (
        "AW214",
        encoder(True, src_key_padding_mask=every_item_padded(True)),
        encoder(True, src_key_padding_mask=every_item_padded(False)),
    ),
    "sdpa NaN in a hidden key": ("AW215", nan_in_padding("key"), nan_in_padding("key", True)),
    "sdpa NaN in a hidden value": (
        "AW215",
        nan_in_padding("value"),
        nan_in_padding("value", True),
    ),
    "mha NaN in a hidden key": ("AW215", mha_nan_key(False), mha_nan_key(True)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_each_rule_reports_a_real_call_and_not_its_correct_look_alike(case: str) -> None:
    code, wrong, right = CASES[case]
    with pytest.warns(RULES[code].warning) as caught, watch() as seen:
        wrong()
    assert {finding.code for finding in seen.findings} == {code}, [str(f) for f in seen.findings]
    assert all(issubclass(w.category, AttentionWatchWarning) for w in caught)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AttentionWatchWarning)
        with watch() as quiet:
            right()
    assert quiet.findings == [], [str(f) for f in quiet.findings]
    assert seen.errors == quiet.errors == []


def test_a_finding_names_the_batch_item_the_row_and_the_result_on_this_release() -> None:
    with watch(warn=False) as seen:
        mha(key_padding_mask=padding(True))()
        sdpa(row_masked(True))()
    hidden, empty = seen.findings
    assert "batch item 1" in hidden.seen
    assert "[2, 4]" in hidden.seen
    assert "returns NaN" in (hidden.returns or "")  # need_weights=True: the module's own softmax
    assert "query 2" in empty.seen
    assert "returns a row of zeros" in (empty.returns or "")
    assert empty.location is not None
    assert empty.location.startswith(__file__)
    assert empty.urls == (row_url("sdpa.fully_masked_row"),)


def test_what_a_row_returns_is_read_from_the_claims_for_the_installed_release(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(
        watch_module, "_expected_on_this_release", lambda: {"sdpa.fully_masked_row": "nan"}
    )
    with watch(warn=False) as seen:
        sdpa(row_masked(True))()
    assert "returns NaN" in (seen.findings[0].returns or "")


def test_strict_raises_before_the_call_runs() -> None:
    with pytest.raises(AttentionWatchError, match="AW201") as raised, watch(strict=True):
        sdpa(tril().logical_not())()
    assert raised.value.finding.code == "AW201"  # type: ignore[attr-defined]


def test_the_package_attribute_and_the_module_both_start_a_watch() -> None:
    assert isinstance(attention.review.watch(warn=False), Watch)
    assert isinstance(watch_module(warn=False), Watch)  # type: ignore[operator]


def test_ignore_silences_one_rule_and_refuses_unknown_codes() -> None:
    with watch(ignore=("AW201",)) as seen:
        sdpa(~torch.eye(4, dtype=torch.bool))()
    assert seen.findings == []
    with pytest.raises(ValueError, match="AW999"):
        watch(ignore=("AW999",))


def nan_equal(a: Tensor, b: Tensor) -> bool:
    return bool(torch.equal(a.isnan(), b.isnan()) and torch.equal(a.nan_to_num(), b.nan_to_num()))


@pytest.mark.parametrize(
    "call",
    [
        sdpa(row_masked(True)),
        mha(key_padding_mask=padding(True)),
        mha_fast(attn_mask=~row_masked(True)),  # NaN on the fused path, zeros off it
        encoder(False, src_key_padding_mask=padding(True)),
        encoder(True, src_key_padding_mask=padding(False)),
        flex(lonely_mod),
        mha(key_padding_mask=every_item_padded(True)),
        nan_in_padding("key"),
        mha_nan_key(False),
    ],
)
def test_results_are_those_of_an_unwatched_call(call: Callable[[], object]) -> None:
    def first(out: object) -> Tensor:
        tensor = out[0] if isinstance(out, tuple) else out
        assert isinstance(tensor, Tensor)
        return tensor.to_padded_tensor(0.0) if tensor.is_nested else tensor

    torch.manual_seed(0)
    plain = first(call())
    with watch(warn=False):
        watched = first(call())
    assert nan_equal(plain, watched)


WATCHED = [
    (F, "scaled_dot_product_attention"),
    (F, "multi_head_attention_forward"),
    (torch, "_native_multi_head_attention"),
    (torch, "_transformer_encoder_layer_fwd"),
    (F, "_canonical_mask"),
    (torch, "softmax"),
    (torch.Tensor, "softmax"),
    (torch.Tensor, "masked_fill"),
]


def test_the_fused_path_still_runs_watched_and_torch_is_restored_after() -> None:
    before = {(owner, name): getattr(owner, name) for owner, name in WATCHED}
    has_torch_function = torch.overrides.has_torch_function
    with watch(warn=False) as seen:
        out, _ = mha_fast(attn_mask=~row_masked(True))()  # type: ignore[misc]
        assert F.scaled_dot_product_attention is not before[F, "scaled_dot_product_attention"]
        assert torch.overrides.has_torch_function is has_torch_function  # torch's own choice
    assert seen.findings[0].rows == ("mha.fully_masked_row.fast_path",)
    assert out[0, 2].isnan().all()  # the row's NaN: the fused path ran, watched
    after = {(owner, name): getattr(owner, name) for owner, name in WATCHED}
    assert after == before
    assert "softmax" not in torch.Tensor.__dict__  # inherited from TensorBase, as before


def test_nested_watches_report_a_call_once_and_the_checks_do_not_recurse() -> None:
    with watch(warn=False) as outer:
        with watch(warn=False) as inner:
            sdpa(tril().logical_not())()
        sdpa(tril().logical_not())()
    assert [f.code for f in inner.findings] == ["AW201"]
    assert [f.code for f in outer.findings] == ["AW201"]


def test_a_check_that_cannot_read_its_input_never_breaks_the_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*args: object) -> list[object]:
        raise RuntimeError("cannot read this mask")

    monkeypatch.setitem(watch_module._CHECKS, F.scaled_dot_product_attention, broken)
    with watch() as seen:
        out = sdpa(tril())()
    assert isinstance(out, Tensor)
    assert seen.errors == ["RuntimeError: cannot read this mask"]


def test_every_rule_rests_on_rows_of_the_table() -> None:
    for rule in RULES.values():
        assert set(rule.rows) <= known_rows(), rule.code
        assert rule.code.startswith("AW2")
        assert rule.name
        assert rule.message
        assert rule.fix


@pytest.mark.parametrize("case", list(CASES))
def test_a_finding_cites_only_rows_its_rule_rests_on(case: str) -> None:
    code, wrong, _ = CASES[case]
    with watch(warn=False) as seen:
        wrong()
    for finding in seen.findings:
        assert finding.rows
        assert set(finding.rows) <= set(RULES[code].rows)


def test_the_overhead_measurement_runs() -> None:
    overhead = measure(rounds=1, min_run_time=0.01, only=("sdpa call", "encoder forward"))
    record = overhead.as_json()
    assert set(overhead.ratios) == {"sdpa call", "encoder forward"}
    assert record["goals"] == GOALS == {"model": 1.10, "call": 1.5}
    workloads = record["workloads"]
    assert isinstance(workloads, dict)
    assert workloads["sdpa call"]["goal"] == 1.5
    assert workloads["encoder forward"]["goal"] == 1.10
    with pytest.raises(ValueError, match="unknown workloads"):
        measure(rounds=1, only=("no such model",))


def counting_checks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the runs of SDPA's check (each run reads the mask's values)."""
    runs: list[int] = []
    check = watch_module._CHECKS[F.scaled_dot_product_attention]

    def counted(*args: object) -> object:
        runs.append(1)
        return check(*args)  # type: ignore[operator]

    monkeypatch.setitem(watch_module._CHECKS, F.scaled_dot_product_attention, counted)
    return runs


def test_a_mask_is_read_once_while_it_is_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    runs = counting_checks(monkeypatch)
    mask = tril().logical_not()  # AW201 on every call
    call = sdpa(mask)
    with watch(warn=False) as seen:
        for _ in range(3):
            call()
        assert len(runs) == 1
        assert [f.code for f in seen.findings] == ["AW201"] * 3  # reported on every call
        mask.copy_(tril())  # changed in place: its version moves, it is read again
        call()
    assert len(runs) == 2
    assert len(seen.findings) == 3


def test_a_small_mask_is_known_by_its_bytes_a_large_one_by_identity(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A padding mask built anew per batch (ids == pad) is read once per distinct value."""
    runs = counting_checks(monkeypatch)
    with watch(warn=False) as seen:
        sdpa(tril().logical_not())()  # AW201
        sdpa(tril().logical_not())()  # a new tensor, the same bytes: not read, still reported
        assert len(runs) == 1
        assert [f.code for f in seen.findings] == ["AW201"] * 2
        sdpa(tril())()  # other bytes: read
        assert len(runs) == 2
        large = 1 + watch_module._CONTENT_BYTES  # bytes of a Boolean mask [1, large]
        q, k = torch.randn(1, 1, 1, 2), torch.randn(1, 1, large, 2)  # [B, H, L, D], [B, H, S, D]
        for _ in range(2):
            F.scaled_dot_product_attention(
                q, k, k, attn_mask=torch.ones(1, large, dtype=torch.bool)
            )
    assert len(runs) == 4
    with watch(warn=False):  # a new watch reads them afresh
        sdpa(tril())()
    assert len(runs) == 5


def test_a_reused_mask_has_its_bytes_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[int] = []
    numpy = torch.Tensor.numpy

    def counted(self: Tensor, *args: object, **kwargs: object) -> object:
        reads.append(1)
        return numpy(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(torch.Tensor, "numpy", counted)
    call = sdpa(tril())
    with watch(warn=False):
        for _ in range(3):
            call()  # the same tensor, unchanged
    assert len(reads) == 1


def test_a_fill_mask_built_anew_per_call_is_read_once_per_value(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Hand-written attention masks with ~causal, a new tensor each call."""
    reads: list[int] = []
    read_fill = watch_module._read_fill

    def counted(*args: object) -> object:
        reads.append(1)
        return read_fill(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(watch_module, "_read_fill", counted)
    q = qkv()
    with watch(warn=False) as seen:
        for _ in range(3):
            scores = q @ q.transpose(-2, -1)  # [B, H, L, S]
            scores.masked_fill(~tril(), float("-inf")).softmax(-1)
    assert len(reads) == 1
    assert seen.findings == []


def test_an_entry_that_read_the_keys_holds_for_the_same_mask_objects_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """AW214 reads the keys where a mask hides a prefix: equal bytes do not settle it."""
    runs = counting_checks(monkeypatch)
    hidden = torch.tensor([[True, True, False, False], [True, False, False, False]])
    mask = ~hidden[:, None, None, :]  # [B, 1, 1, S], True = may attend: left padding
    call = sdpa(mask)
    with watch(warn=False):
        call()
        call()  # the same objects: not read
        assert len(runs) == 1
        sdpa(mask.clone())()  # equal bytes, other keys: read
    assert len(runs) == 2


def test_every_n_checks_one_call_in_n(monkeypatch: pytest.MonkeyPatch) -> None:
    with watch(warn=False, every=3) as seen:
        for _ in range(7):
            sdpa(tril().logical_not())()  # a new mask each call: nothing cached
    assert len(seen.findings) == 3  # calls 1, 4 and 7
    for wrong in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="every"):
            watch(every=wrong)  # type: ignore[arg-type]


def in_a_thread(call: Callable[[], object]) -> None:
    import threading

    thread = threading.Thread(target=call)
    thread.start()
    thread.join()


def test_a_thread_started_inside_the_block_is_watched_only_with_threads_true() -> None:
    call = sdpa(tril().logical_not())
    with watch(warn=False) as this_thread:
        in_a_thread(call)
    assert this_thread.findings == []  # the documented limit: the thread is not watched
    with watch(warn=False, threads=True) as every_thread:
        in_a_thread(call)
    assert [f.code for f in every_thread.findings] == ["AW201"]


def test_the_finding_names_the_callers_boolean_mask_not_torchs_float_copy() -> None:
    with watch(warn=False) as seen:
        mha(key_padding_mask=padding(True))()
        mha_fast(key_padding_mask=padding(True))()
        encoder(False, True, src_key_padding_mask=padding(True))()
    assert len(seen.findings) == 4  # the encoder's two layers each see it
    for finding in seen.findings:
        assert "(torch.bool)" in finding.seen, finding.seen


@pytest.mark.parametrize(
    "call",
    [
        sdpa(t5_bias()),
        sdpa(alibi_bias()[None]),
        sdpa(t5_bias().masked_fill(~tril(), float("-inf"))),  # decoder: bias and causal
        mha(attn_mask=alibi_bias().repeat(2, 1, 1)),  # [B·H, L, S]
        mha(attn_mask=t5_bias()[0, 0], key_padding_mask=padding(False)),
        encoder(False, True, mask=alibi_bias()[0], src_key_padding_mask=padding(False)),
        encoder(False, False, mask=alibi_bias()[0], src_key_padding_mask=padding(False)),
        encoder(True, False, src_key_padding_mask=padding(False)),
        *(  # a causal encoder over a padded batch, trained and in eval
            encoder(
                False,
                training,
                mask=nn.Transformer.generate_square_subsequent_mask(4),
                is_causal=True,
                src_key_padding_mask=padding(False),
            )
            for training in (True, False)
        ),
    ],
)
def test_float_position_biases_and_padding_give_no_finding(call: Callable[[], object]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", AttentionWatchWarning)
        with watch() as seen:
            call()
    assert seen.findings == [], [str(f) for f in seen.findings]
    assert seen.errors == []


def test_the_committed_benchmark_record_meets_its_shape_and_shows_no_finding_on_correct_models() -> (
    None
):
    import json
    from pathlib import Path

    record = json.loads(
        (Path(__file__).parents[2] / "docs" / "_data" / "watch-benchmark.json").read_text("utf-8")
    )
    assert record["schema"] == 2
    assert record["goals"] == GOALS
    for name, workload in record["workloads"].items():
        assert workload["met"] == (workload["ratio"] <= workload["goal"]), name
        assert len(workload["rounds"]) >= 5, name
    assert {"encoder forward", "encoder training step", "sdpa call", "mha call"} <= set(
        record["workloads"]
    )
    correct = record["correct_models"]
    assert {name.split()[0] for name in correct} == {"BERT", "GPT-2", "T5", "Llama"}
    for name, seen in correct.items():
        assert seen["findings"] == [], name
        assert seen["errors"] == [], name
        assert seen["bit_identical"], name


def test_left_padding_whose_hidden_keys_are_one_padding_vector_is_not_reversed() -> None:
    """Left padding on purpose hides the padding token's embedding, one vector repeated."""
    embed = nn.Embedding(10, 8, padding_idx=0)
    left = torch.tensor([[0, 0, 0, 5], [0, 0, 7, 3]])
    right = torch.tensor([[5, 4, 6, 0], [7, 3, 0, 0]])
    with torch.no_grad(), watch(warn=False) as seen:
        x = embed(left)
        MHA(x, x, x, key_padding_mask=left == 0)  # hides the padding: silent
        x = embed(right)
        MHA(x, x, x, key_padding_mask=right != 0)  # hides the tokens, which differ: reported
    assert [f.code for f in seen.findings] == ["AW214"]
    assert "the hidden keys are not one repeated vector" in seen.findings[0].seen


def test_a_hidden_key_is_read_only_when_the_output_is_not_finite(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reads: list[int] = []
    isfinite = Tensor.isfinite

    def counted(self: Tensor) -> Tensor:
        reads.append(1)
        return isfinite(self)

    monkeypatch.setattr(Tensor, "isfinite", counted)
    with watch(warn=False) as seen:
        nan_in_padding("key", zeroed=True)()  # finite output: the keys are not read
        assert reads == []
        nan_in_padding("key")()
    assert reads
    assert [f.code for f in seen.findings] == ["AW215"]
    assert "batch item 1, head 0, key 3 (and 1 more keys)" in seen.findings[0].seen


def test_an_output_is_read_on_the_calls_whose_masks_are_read() -> None:
    """Once per mask, as the masks are: a NaN that appears later under the same mask is missed."""
    torch.manual_seed(0)
    q, k, v = qkv(), qkv(), qkv()
    mask = padding_sdpa(False)
    with watch(warn=False) as seen:
        F.scaled_dot_product_attention(q, k, v, attn_mask=mask)  # read: finite
        k[1, :, 3] = float("nan")  # a padded key goes NaN
        F.scaled_dot_product_attention(q, k, v, attn_mask=mask)  # the same mask: not read
        assert seen.findings == []
        F.scaled_dot_product_attention(q, k, v, attn_mask=mask.clone())  # a new mask: read
    assert [f.code for f in seen.findings] == ["AW215"]
