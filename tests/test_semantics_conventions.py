"""The package's mask converters and the mask-semantics table cannot disagree.

Each test reads the convention a PyTorch argument uses from the claims data (the same data the
site renders and ``python -m attention.semantics`` checks), derives what the converter must return
from it, and then feeds the converter's output to the real PyTorch API to show that exactly the
keys the ``allowed`` mask excludes get no weight.  If a claim were edited to the other polarity,
or a converter changed, one of these would fail.
"""

from __future__ import annotations

import itertools

import pytest
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.nn.attention import bias as attention_bias

from attention import (
    allowed_to_additive,
    allowed_to_forbidden,
    allowed_to_mha_attn_mask,
    allowed_to_mha_key_padding_mask,
    causal_allowed,
    forbidden_to_allowed,
    key_padding_allowed,
    mha_attn_mask_to_allowed,
    mha_key_padding_mask_to_allowed,
)
from attention.semantics.claims import load_claims
from attention.semantics.probes import mha, sdpa

EXPECTED = {claim.id: claim.expected for claim in load_claims()}


def reading(claim_id: str) -> str:
    """The Boolean convention the table states for this argument (allowed or forbidden)."""
    convention = EXPECTED[claim_id]
    assert convention in ("allowed", "forbidden"), (claim_id, convention)
    return convention


def as_argument(allowed: Tensor, convention: str) -> Tensor:
    """What an ``allowed`` mask must become for an argument read in ``convention``."""
    return allowed if convention == "allowed" else ~allowed


def allowed_masks_3x3() -> list[Tensor]:
    """Every 3x3 allowed mask whose rows each let at least one key through (7**3 = 343)."""
    rows = [r for r in itertools.product([False, True], repeat=3) if any(r)]
    return [torch.tensor(m) for m in itertools.product(rows, repeat=3)]


MASKS = allowed_masks_3x3()
SAMPLE = MASKS[::17]  # 21 masks spread over all of them, for the slower module paths


def zero_score_mha(num_heads: int) -> nn.MultiheadAttention:
    """MHA whose scores are all 0, so its weights are uniform over the keys a mask lets through."""
    mha = nn.MultiheadAttention(4, num_heads, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        mha.in_proj_weight[:8].zero_()  # W_Q and W_K
    return mha


def test_mha_attn_mask_converter_follows_the_table() -> None:
    convention = reading("mha.attn_mask.bool")
    for allowed in MASKS:
        assert torch.equal(allowed_to_mha_attn_mask(allowed), as_argument(allowed, convention))
        assert torch.equal(allowed_to_forbidden(allowed), as_argument(allowed, "forbidden"))


@pytest.mark.parametrize("path", mha.MHA_PATHS)
def test_converted_attn_mask_masks_exactly_the_excluded_keys(path: mha.MhaPath) -> None:
    for allowed in SAMPLE:
        weights = mha.mha_weights(path, attn_mask=allowed_to_mha_attn_mask(allowed))
        assert torch.equal(weights > 0, allowed), (path, allowed)


def test_batched_attn_mask_converter_orders_batch_then_head() -> None:
    # [B, H, L, S] allowed -> [B*H, L, S] for MHA, checked against per-head weights
    generator = torch.Generator().manual_seed(0)
    picks = torch.randint(len(MASKS), (2, 2), generator=generator)
    allowed = torch.stack([torch.stack([MASKS[int(i)] for i in row]) for row in picks])
    mha = zero_score_mha(num_heads=2)
    x = torch.randn(2, 3, 4, dtype=torch.float64, generator=generator)  # [B, T, E]
    _, weights = mha(
        x, x, x, attn_mask=allowed_to_mha_attn_mask(allowed), average_attn_weights=False
    )
    assert weights is not None
    assert torch.equal(weights > 0, allowed)  # [B, H, L, S]
    assert torch.equal(mha_attn_mask_to_allowed(allowed_to_mha_attn_mask(allowed), 2), allowed)


def test_key_padding_converter_follows_the_table() -> None:
    convention = reading("mha.key_padding_mask.bool")
    allowed = key_padding_allowed([3, 1, 2], 3)  # [B, 1, S]
    converted = allowed_to_mha_key_padding_mask(allowed)  # [B, S]
    assert torch.equal(converted, as_argument(allowed[:, 0, :], convention))
    assert torch.equal(mha_key_padding_mask_to_allowed(converted), allowed)


@pytest.mark.parametrize("path", mha.MHA_PATHS)
def test_converted_key_padding_masks_exactly_the_padding(path: mha.MhaPath) -> None:
    for length in (1, 2, 3):
        allowed = key_padding_allowed([length], 3)  # [B=1, 1, S]
        weights = mha.mha_weights(path, key_padding_mask=allowed_to_mha_key_padding_mask(allowed))
        assert torch.equal(weights > 0, allowed[0].expand(3, 3)), (path, length)


def test_sdpa_takes_the_package_convention_unchanged() -> None:
    convention = reading("sdpa.attn_mask.bool")
    for allowed in MASKS:
        weights = sdpa.sdpa_weights(3, 3, attn_mask=as_argument(allowed, convention))
        assert torch.equal(weights > 0, allowed)


def test_moving_an_mha_mask_to_sdpa_needs_the_inversion_the_table_implies() -> None:
    # forbidden_to_allowed is the bridge from MHA's convention to SDPA's
    same_polarity = reading("mha.attn_mask.bool") == reading("sdpa.attn_mask.bool")
    for allowed in SAMPLE:
        mha_mask = allowed_to_mha_attn_mask(allowed)
        bridged = mha_mask if same_polarity else forbidden_to_allowed(mha_mask)
        weights = sdpa.sdpa_weights(3, 3, attn_mask=bridged)
        assert torch.equal(weights > 0, allowed)


def test_additive_converter_matches_both_apis_float_reading() -> None:
    assert EXPECTED["sdpa.attn_mask.float"] == "additive"
    assert EXPECTED["mha.attn_mask.float"] == "additive"
    for allowed in SAMPLE:
        additive = allowed_to_additive(allowed, torch.float64)
        uniform = allowed / allowed.sum(-1, keepdim=True)
        assert torch.allclose(sdpa.sdpa_weights(3, 3, attn_mask=additive), uniform.double())
        for path in ("need_weights_true", "need_weights_false"):
            mha_weights = mha.mha_weights(path, attn_mask=additive)
            assert torch.allclose(mha_weights, uniform.double()), path


def test_causal_builder_alignment_matches_is_causal() -> None:
    alignment = EXPECTED["sdpa.is_causal.alignment"]
    assert alignment in ("upper_left", "lower_right")
    for length, source in [(2, 4), (3, 3), (1, 5)]:
        weights = sdpa.sdpa_weights(length, source, is_causal=True)
        assert torch.equal(weights > 0, causal_allowed(length, source, alignment=alignment))


@pytest.mark.parametrize(
    ("claim_id", "factory"),
    [
        ("bias.causal_lower_right.alignment", attention_bias.causal_lower_right),
        ("bias.causal_upper_left.alignment", attention_bias.causal_upper_left),
    ],
)
def test_causal_builder_alignment_matches_torch_bias(claim_id: str, factory: object) -> None:
    alignment = EXPECTED[claim_id]
    assert alignment in ("upper_left", "lower_right")
    assert callable(factory)
    for length, source in [(2, 4), (3, 5)]:
        weights = sdpa.sdpa_weights(length, source, attn_mask=factory(length, source))
        assert torch.equal(weights > 0, causal_allowed(length, source, alignment=alignment))


def test_square_subsequent_mask_is_the_additive_causal_mask() -> None:
    assert EXPECTED["transformer.generate_square_subsequent_mask"] == "additive"
    mask = nn.Transformer.generate_square_subsequent_mask(4)
    assert torch.equal(mask, allowed_to_additive(causal_allowed(4), mask.dtype))


def test_allowed_mask_through_sdpa_equals_the_explicit_masked_softmax() -> None:
    # one end-to-end case with real scores: the package's allowed mask through SDPA equals the
    # explicit masked softmax over the same keys
    generator = torch.Generator().manual_seed(1)
    q, k, v = (torch.randn(1, 3, 4, dtype=torch.float64, generator=generator) for _ in range(3))
    allowed = causal_allowed(3)
    scores = (q @ k.transpose(-2, -1)) / 2.0  # 1/sqrt(d_k) with d_k = 4
    explicit = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ v
    fused = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    assert torch.allclose(fused, explicit)
