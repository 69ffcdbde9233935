"""AM4xx, softmax: where the mask and the softmax meet.

A mask after the softmax, a softmax over the query axis, a softcap that squashes the mask.
"""

from __future__ import annotations

from attention.review.rules._examples import _SCORES
from attention.review.rules._rule import Rule

RULES: tuple[Rule, ...] = (
    Rule(
        "AM401",
        "mask-after-softmax",
        "error",
        (),
        "The mask is applied to the weights after the softmax and they are not renormalised: "
        "each row then sums to less than 1.",
        "`{subject}` masks the attention weights after the softmax",
        "Mask the scores before the softmax (`scores.masked_fill(~allowed, float('-inf'))`), or "
        "divide by the row sums afterwards.",
        "import torch\n\n\ndef attend(q, k, v, allowed):\n"
        + _SCORES
        + "    weights = torch.softmax(scores, dim=-1)\n"
        "    weights = weights.masked_fill(~allowed, 0.0)\n"
        "    return weights @ v\n",
        "import torch\n\n\ndef attend(q, k, v, allowed):\n"
        + _SCORES
        + "    scores = scores.masked_fill(~allowed, float('-inf'))\n"
        "    weights = torch.softmax(scores, dim=-1)\n    return weights @ v\n",
    ),
    Rule(
        "AM402",
        "softmax-over-the-query-axis",
        "error",
        (),
        "The softmax over q @ kᵀ runs along an axis that is not the key axis (the last one): "
        "the weights of each query no longer sum to 1.",
        "`{subject}` is not the key axis of the scores",
        "`softmax(scores, dim=-1)`.",
        "import torch\n\n\ndef attend(q, k, v):\n"
        + _SCORES
        + "    weights = torch.softmax(scores, dim=-2)\n    return weights @ v\n",
        "import torch\n\n\ndef attend(q, k, v):\n"
        + _SCORES
        + "    weights = torch.softmax(scores, dim=-1)\n    return weights @ v\n",
    ),
    Rule(
        "AM403",
        "mask-squashed-by-a-softcap",
        "error",
        (),
        "The mask's penalty goes into the scores before a tanh softcap "
        "(`cap * tanh(scores / cap)`): `tanh` maps -inf, or any large negative, to -1, so a "
        "masked key scores `-cap`, a finite score, and keeps a weight.",
        "`{subject}` squashes the mask's penalty into a finite score",
        "Cap the raw scores first, then mask them: `scores = cap * torch.tanh(scores / cap)`, "
        "then `scores.masked_fill(~allowed, float('-inf'))` (or `+ bias`).",
        "import torch\n\n\ndef attend(q, k, v, allowed, cap=50.0):\n"
        + _SCORES
        + "    scores = scores.masked_fill(~allowed, float('-inf'))\n"
        "    scores = cap * torch.tanh(scores / cap)\n"
        "    return torch.softmax(scores, dim=-1) @ v\n",
        "import torch\n\n\ndef attend(q, k, v, allowed, cap=50.0):\n"
        + _SCORES
        + "    scores = cap * torch.tanh(scores / cap)\n"
        "    scores = scores.masked_fill(~allowed, float('-inf'))\n"
        "    return torch.softmax(scores, dim=-1) @ v\n",
    ),
)
