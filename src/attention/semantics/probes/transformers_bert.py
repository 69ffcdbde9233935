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
from attention.semantics.registry import framework_module, probe

__all__ = ["IMPLEMENTATIONS", "Implementation", "attention_mask", "tiny_bert"]

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


@probe("transformers.attention_mask", framework=FRAMEWORK)
def attention_mask() -> str:
    """What 1 and 0 mean in ``attention_mask``, with the eager and the SDPA implementation."""
    seen = {implementation: _reading(implementation) for implementation in IMPLEMENTATIONS}
    values = set(seen.values())
    if len(values) == 1:
        return values.pop()
    return "differs by implementation: " + ", ".join(f"{k}: {v}" for k, v in seen.items())
