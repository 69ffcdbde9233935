"""Live probe for Hugging Face Transformers' ``attention_mask``, on a tiny model from a config.

No download: a one-layer ``BertModel`` (hidden size 8, two heads) is built from a
``BertConfig`` with weights drawn under a fixed seed, once for each attention implementation the
row covers -- ``"eager"`` (the model's own softmax, which can return the weights) and ``"sdpa"``
(``F.scaled_dot_product_attention``).  The claim is read off in two independent ways:

* *intervention*: with ``attention_mask = [1, 1, 0]``, changing the token at a position marked 0
  must leave query 0's output unchanged, and changing the token at a position marked 1 must change
  it (the attention is the only place where positions meet);
* *weights* (eager only): ``output_attentions=True`` gives exactly zero weight to the positions
  marked 0 and positive weight to the others.

Counting the calls into ``F.scaled_dot_product_attention`` shows which implementation ran.
"""

from __future__ import annotations

from typing import Any, Literal

import torch
import torch.nn.functional as F
from torch import Tensor

from attention.semantics.observe import ProbePathError, count_calls, describe, same
from attention.semantics.probes.releases import ABSENT
from attention.semantics.probes.transformers_llama import PATTERN, mask_reading
from attention.semantics.registry import framework_module, probe

__all__ = [
    "IMPLEMENTATIONS",
    "Implementation",
    "attention_mask",
    "bert_weights",
    "mask_4d_float01_eager",
    "mask_4d_float01_sdpa",
    "tiny_bert",
]

FRAMEWORK = "transformers"

Implementation = Literal["eager", "sdpa"]
"""The attention implementations the row covers (``attn_implementation`` of the config)."""

IMPLEMENTATIONS: tuple[Implementation, ...] = ("eager", "sdpa")

TOKENS = torch.tensor([[3, 5, 7]])  # [B=1, S=3] input ids
MASK = torch.tensor([[1, 1, 0]])  # [B, S]: the convention under test; position 2 marked 0


def tiny_bert(implementation: Implementation) -> Any:
    """A one-layer BertModel with seeded weights, in eval mode, using ``implementation``."""
    transformers = framework_module("transformers")
    config = transformers.BertConfig(
        vocab_size=16,
        hidden_size=8,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=16,
        max_position_embeddings=8,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
        attn_implementation=implementation,
    )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model = transformers.BertModel(config).eval()
    if model.config._attn_implementation != implementation:
        raise ProbePathError(
            f"asked for attn_implementation={implementation!r}, the model uses "
            f"{model.config._attn_implementation!r}"
        )
    return model


def _run(model: Any, implementation: Implementation, tokens: Tensor) -> Any:
    """The model's output for ``tokens`` with ``MASK``; raise unless ``implementation`` ran."""
    with torch.no_grad(), count_calls(F, "scaled_dot_product_attention") as sdpa:
        output = model(
            input_ids=tokens, attention_mask=MASK, output_attentions=implementation == "eager"
        )
    if (sdpa.calls > 0) != (implementation == "sdpa"):
        raise ProbePathError(
            f"attn_implementation={implementation!r}, but F.scaled_dot_product_attention ran "
            f"{sdpa.calls} time(s)"
        )
    return output


def _reading(implementation: Implementation) -> str:
    """``"allowed"`` / ``"forbidden"``: which positions of ``MASK`` the model lets query 0 see."""
    model = tiny_bert(implementation)
    base = _run(model, implementation, TOKENS)
    first = base.last_hidden_state[0, 0]  # [E]: query 0's output
    moved = {}
    for position in (1, 2):
        tokens = TOKENS.clone()
        tokens[0, position] = 9
        moved[position] = not same(
            _run(model, implementation, tokens).last_hidden_state[0, 0], first
        )
    if moved == {1: True, 2: False}:
        reading = "allowed"  # the position marked 0 is ignored: 1 = attend
    elif moved == {1: False, 2: True}:
        reading = "forbidden"
    else:
        return f"unrecognised: query 0 depends on position 1: {moved[1]}, on position 2: {moved[2]}"
    if implementation == "eager":
        weights = base.attentions[0][0]  # [H, L, S]
        receives = weights > 0
        marked = (MASK[0] == 1).expand_as(receives)
        expected = marked if reading == "allowed" else ~marked
        if not torch.equal(receives, expected):
            return f"unrecognised: outputs say {reading}, weights are {describe(weights)}"
    return reading


def _has_sdpa() -> bool:
    """Whether this release's BertModel has an SDPA implementation (4.41 on; 4.40 refuses it)."""
    try:
        tiny_bert("sdpa")
    except ValueError as error:
        if "does not support an attention implementation" in str(error):
            return False
        raise
    return True


@probe("transformers.attention_mask", framework=FRAMEWORK)
def attention_mask() -> str:
    """What 1 and 0 mean in ``attention_mask``, with the eager and the SDPA implementation.

    On a release whose BertModel has no SDPA implementation (4.40) the eager one alone is read.
    """
    implementations = IMPLEMENTATIONS if _has_sdpa() else ("eager",)
    seen = {implementation: _reading(implementation) for implementation in implementations}
    values = set(seen.values())
    if len(values) == 1:
        return values.pop()
    return "differs by implementation: " + ", ".join(f"{k}: {v}" for k, v in seen.items())


def bert_weights(implementation: Implementation, attention_mask: Tensor) -> Tensor:
    """The weights ``[L, S]`` (float64) of the one-layer BertModel (one head) on 3 positions.

    Zero query and key projections (every score 0) and the identity as the value projection:
    the input of the attention's output projection is ``weights @ hidden``, ``hidden`` being the
    layer's input [S, E], and solving that linear system gives the weights the model applied.
    """
    transformers = framework_module("transformers")
    config = transformers.BertConfig(
        vocab_size=16,
        hidden_size=8,
        num_hidden_layers=1,
        num_attention_heads=1,
        intermediate_size=16,
        max_position_embeddings=8,
        attn_implementation=implementation,
    )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model = transformers.BertModel(config).eval()
    layer = model.encoder.layer[0].attention
    with torch.no_grad():
        for projection in (layer.self.query, layer.self.key):
            projection.weight.zero_()
            projection.bias.zero_()
        layer.self.value.weight.copy_(torch.eye(8))
        layer.self.value.bias.zero_()
    seen: dict[str, Tensor] = {}

    def keep(name: str) -> Any:
        def hook(_module: object, args: tuple[Tensor, ...]) -> None:
            seen[name] = args[0][0].detach().to(torch.float64)

        return hook

    hooks = [
        layer.self.value.register_forward_pre_hook(keep("hidden")),  # [S, E]
        layer.output.dense.register_forward_pre_hook(keep("mixed")),  # [L, E]: weights @ hidden
    ]
    try:
        with torch.no_grad(), count_calls(F, "scaled_dot_product_attention") as sdpa:
            model(input_ids=TOKENS, attention_mask=attention_mask)
    finally:
        for hook in hooks:
            hook.remove()
    if (sdpa.calls > 0) != (implementation == "sdpa"):
        raise ProbePathError(
            f"attn_implementation={implementation!r}, but F.scaled_dot_product_attention ran "
            f"{sdpa.calls} time(s)"
        )
    # mixed = weights @ hidden, hidden [S, E] of full row rank S: solve hidden^T weights^T = mixed^T
    solved: Tensor = torch.linalg.lstsq(seen["hidden"].T, seen["mixed"].T).solution.T
    return solved


def _custom_4d_float01(implementation: Implementation) -> str:
    if implementation == "sdpa" and not _has_sdpa():
        return ABSENT
    mask = PATTERN.to(torch.float32)[None, None]  # [B, 1, L, S] of 1 (attend) and 0 (padding)
    try:
        weights = bert_weights(implementation, mask)
    except ProbePathError:
        raise
    except Exception:
        return "error"
    return mask_reading(weights, PATTERN)


@probe("transformers.bert.attention_mask.4d.float01.eager", framework=FRAMEWORK)
def mask_4d_float01_eager() -> str:
    """A float 4-D ``attention_mask`` of 1 (attend) and 0 (masked) to BertModel, eager."""
    return _custom_4d_float01("eager")


@probe("transformers.bert.attention_mask.4d.float01.sdpa", framework=FRAMEWORK)
def mask_4d_float01_sdpa() -> str:
    """The same float 0 / 1 4-D mask to BertModel, SDPA."""
    return _custom_4d_float01("sdpa")
