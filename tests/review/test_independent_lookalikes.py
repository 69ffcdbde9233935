"""Correct code written by an independent review against this checker's readings: no finding.

Each case is right on torch (run and compared with a reference when it was written) and close
to a reading the checker makes: a mask expanded per head and flipped with ``eq(0)``, pooling
scores ``[B, S, 1]`` that take ``mask.unsqueeze(-1)`` rightly, an einops reshape of an image
whose ``h`` is a height, a penalty built before its mask was inverted, ids transposed to the
sequence-first layout, causal triangles tiled for the heads (the same for every batch item,
so no order of copies is wrong), and slot attention's softmax over the slots, renormalised
over the inputs after it.  Its wrong twin, where one exists, is still found.
"""

from __future__ import annotations

import pytest

from attention.review.check import check_source

_HEAD = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n\n"

CASES: dict[str, str] = {
    "expanded-per-head-then-eq-0": (
        "def attend(q, k, v, ids, pad_id, num_heads):\n"
        "    bsz, n = ids.shape\n"
        "    scores = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5\n"
        "    keep = ids != pad_id\n"
        "    mask = keep[:, None, None, :].expand(bsz, num_heads, n, n).eq(0)\n"
        "    return scores.masked_fill(mask, float('-inf')).softmax(dim=-1) @ v\n"
    ),
    "pooling-scores-take-unsqueeze-minus-one": (
        "class Pool(nn.Module):\n"
        "    def __init__(self, dim):\n"
        "        super().__init__()\n"
        "        self.w = nn.Linear(dim, 1)\n\n"
        "    def forward(self, x, attention_mask):\n"
        "        scores = self.w(x)  # [B, S, 1]\n"
        "        scores = scores + (1.0 - attention_mask.unsqueeze(-1).float()) * -10000.0\n"
        "        return (F.softmax(scores, dim=1) * x).sum(1)\n"
    ),
    "per-head-expand-with-its-keys-moved-back": (
        "def attend(q, k, v, key_padding_mask, num_heads):\n"
        "    B, L = key_padding_mask.shape\n"
        "    s = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5\n"
        "    m = key_padding_mask.unsqueeze(-1)\n"
        "    m = m[:, None].expand(B, num_heads, L, L).transpose(2, 3)\n"
        "    return torch.softmax(s.masked_fill(m, float('-inf')), dim=-1) @ v\n"
    ),
    "einops-height-is-no-head-count": (
        "from einops import rearrange\n\n\n"
        "class Block(nn.Module):\n"
        "    def __init__(self, dim, num_heads):\n"
        "        super().__init__()\n"
        "        self.attn = nn.MultiheadAttention(dim, num_heads, batch_first=True)\n"
        "        self.q = nn.Linear(dim, dim)\n"
        "        self.k = nn.Linear(dim, dim)\n"
        "        self.scale = dim ** -0.5\n\n"
        "    def forward(self, x):\n"
        "        b, c, h, w = x.shape\n"
        "        t = rearrange(x, 'b c h w -> b (h w) c')\n"
        "        y, _ = self.attn(t, t, t)\n"
        "        q = self.q(y) * self.scale\n"
        "        gate = (q @ self.k(y).transpose(-2, -1)).softmax(dim=-1)\n"
        "        return rearrange(gate @ y, 'b (h w) c -> b c h w', h=h)\n"
    ),
    "penalty-built-before-the-mask-was-inverted": (
        "def attend(s, mask):\n"
        "    penalty = mask * -1e9\n"
        "    mask = 1.0 - mask\n"
        "    return torch.where(mask == 0, penalty, s).softmax(dim=-1)\n"
    ),
    "ids-transposed-to-sequence-first": (
        "class Encoder(nn.Module):\n"
        "    def __init__(self, vocab, dim):\n"
        "        super().__init__()\n"
        "        self.embed = nn.Embedding(vocab, dim)\n"
        "        self.attn = nn.MultiheadAttention(dim, 2)\n\n"
        "    def forward(self, ids):\n"
        "        bsz, seq_len = ids.shape\n"
        "        ids = ids.t()\n"
        "        x = self.embed(ids)\n"
        "        return self.attn(x, x, x)[0]\n"
    ),
    "causal-triangle-repeated-for-the-heads": (
        "class Layer(nn.Module):\n"
        "    def __init__(self, dim, num_heads):\n"
        "        super().__init__()\n"
        "        self.num_heads = num_heads\n"
        "        self.attn = nn.MultiheadAttention(dim, num_heads, batch_first=True)\n\n"
        "    def forward(self, x):\n"
        "        B, L, _ = x.shape\n"
        "        causal = torch.triu(torch.ones(L, L, dtype=torch.bool), diagonal=1)\n"
        "        causal = causal.unsqueeze(0).expand(B, L, L)\n"
        "        return self.attn(x, x, x, attn_mask=causal.{tile})[0]\n"
    ).replace("{tile}", "repeat(self.num_heads, 1, 1)"),
}
CASES["causal-triangle-copies-joined"] = CASES["causal-triangle-repeated-for-the-heads"].replace(
    "causal.repeat(self.num_heads, 1, 1)", "torch.cat([causal] * self.num_heads)"
)
CASES |= {
    "unsqueezed-pair-of-a-three-axis-mask": (
        "def attend(q, k, v, ids, pad):\n"
        "    s = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5\n"
        "    keep = (ids != pad)[:, None, :]\n"
        "    pair = keep.unsqueeze(2) & keep.unsqueeze(1)  # [B, 1, 1, N] twice: keys only\n"
        "    return torch.softmax(s.masked_fill(~pair, float('-inf')), dim=-1) @ v\n"
    ),
}


CASES["slot-attention-normalises-over-the-slots-first"] = (
    "def slot_step(slots, k, v, to_q, scale, eps=1e-8):\n"
    "    q = to_q(slots)\n"
    "    dots = torch.einsum('bid,bjd->bij', q, k) * scale\n"
    "    attn = dots.softmax(dim=1) + eps  # the slots compete for each input\n"
    "    attn = attn / attn.sum(dim=-1, keepdim=True)\n"
    "    return torch.einsum('bjd,bij->bid', v, attn)\n"
)


@pytest.mark.parametrize("name", sorted(CASES))
def test_correct_code_gives_no_finding(name: str) -> None:
    found = check_source(_HEAD + CASES[name], "case.py")
    assert [(f.line, f.code) for f in found] == []


def test_the_wrong_twins_are_still_found() -> None:
    """The pooling mask given to SDPA, and a mask tiled head-major for a batch item each."""
    sdpa = (
        "def attend(q, k, v, attention_mask):\n"
        "    keep = attention_mask.bool().unsqueeze(1).unsqueeze(-1)\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=keep)\n"
    )
    assert [f.code for f in check_source(_HEAD + sdpa, "case.py")] == ["AM601"]
    tiled = CASES["causal-triangle-copies-joined"].replace(
        "causal.unsqueeze(0).expand(B, L, L)", "x.sum(-1)[:, :, None] != x.sum(-1)[:, None, :]"
    )
    assert [f.code for f in check_source(_HEAD + tiled, "case.py")] == ["AM802"]
    # the softmax over the slots with no renormalisation over the keys after it
    slots = CASES["slot-attention-normalises-over-the-slots-first"].replace(
        "    attn = attn / attn.sum(dim=-1, keepdim=True)\n", ""
    )
    assert [f.code for f in check_source(_HEAD + slots, "case.py")] == ["AM402"]
