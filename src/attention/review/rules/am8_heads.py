"""AM8xx, heads and layout: ``batch_first`` and the order of batch, heads and positions.

``nn.MultiheadAttention`` given ``[B, T, E]`` where it reads ``[T, B, E]`` (or the reverse), a
mask tiled for the heads in the other order than the scores', and heads split from a
projection before its positions.
"""

# ruff: noqa: E501  (the examples are whole source files, kept as a reader would write them)

from __future__ import annotations

from attention.review.rules._examples import _SPLIT_CLASS
from attention.review.rules._rule import Rule

RULES: tuple[Rule, ...] = (
    Rule(
        "AM801",
        "multihead-attention-batch-first-mismatch",
        "warning",
        ("mha.attn_mask.bool",),
        "nn.MultiheadAttention (or an nn.Transformer layer) built without batch_first=True reads "
        "[T, B, E] and is given [B, T, E] (an embedding of a tokenizer's input_ids, or of ids "
        "whose sizes the code reads batch first), or the reverse: no error, the batch is "
        "attended as the sequence.",
        "`{subject}` has the batch first, the module reads the sequence first",
        "Build the module with batch_first=True, or transpose the input to [T, B, E].",
        "from torch import nn\n\n\nclass Encoder(nn.Module):\n"
        "    def __init__(self, vocab, dim):\n        super().__init__()\n"
        "        self.embed = nn.Embedding(vocab, dim)\n"
        "        self.attn = nn.MultiheadAttention(dim, 4)\n\n"
        "    def forward(self, batch):\n        x = self.embed(batch['input_ids'])\n"
        "        out, _ = self.attn(x, x, x)\n        return out\n",
        "from torch import nn\n\n\nclass Encoder(nn.Module):\n"
        "    def __init__(self, vocab, dim):\n        super().__init__()\n"
        "        self.embed = nn.Embedding(vocab, dim)\n"
        "        self.attn = nn.MultiheadAttention(dim, 4, batch_first=True)\n\n"
        "    def forward(self, batch):\n        x = self.embed(batch['input_ids'])\n"
        "        out, _ = self.attn(x, x, x)\n        return out\n",
    ),
    Rule(
        "AM802",
        "multihead-attn-mask-tiled-with-repeat",
        "error",
        ("mha.attn_mask.bool",),
        "A [B, L, S] mask is tiled for the heads with repeat(H, 1, 1): nn.MultiheadAttention reads "
        "entry b·H + h, repeat lays out h·B + b, so heads get other batch items' masks.",
        "`{subject}` is tiled with repeat, not repeat_interleave",
        "`mask.repeat_interleave(num_heads, dim=0)` (attention.conventions.allowed_to_mha_attn_mask "
        "does this).",
        "from torch import nn\n\n\nclass Encoder(nn.Module):\n"
        "    def __init__(self, dim, heads):\n        super().__init__()\n"
        "        self.heads = heads\n"
        "        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)\n\n"
        "    def forward(self, x, ids, pad_id):\n"
        "        padding = (ids == pad_id)[:, None, :].expand(-1, ids.size(1), -1)\n"
        "        out, _ = self.attn(x, x, x, attn_mask=padding.repeat(self.heads, 1, 1))\n"
        "        return out\n",
        "from torch import nn\n\n\nclass Encoder(nn.Module):\n"
        "    def __init__(self, dim, heads):\n        super().__init__()\n"
        "        self.heads = heads\n"
        "        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)\n\n"
        "    def forward(self, x, ids, pad_id):\n"
        "        padding = (ids == pad_id)[:, None, :].expand(-1, ids.size(1), -1)\n"
        "        out, _ = self.attn(x, x, x, attn_mask=padding.repeat_interleave(self.heads, dim=0))\n"
        "        return out\n",
    ),
    Rule(
        "AM803",
        "heads-split-before-the-positions",
        "warning",
        (),
        "An nn.Linear's output [B, L, H·d] is viewed as [B, H, L, d] (or [B·H, L, d]) with no "
        "transpose: its memory runs position by position, so each 'head' holds several "
        "positions' slices and each 'position' one slice of a token.",
        "`{subject}` puts the heads before the positions of an nn.Linear's output",
        "`x.view(b, -1, heads, head_dim).transpose(1, 2)` (then `.reshape(b * heads, -1, "
        "head_dim)` for a [B·H, L, d] layout).  A warning: with one position (L = 1) the view "
        "is right.",
        _SPLIT_CLASS + "        q = self.q(x).view(b, self.heads, -1, self.head_dim)\n"
        "        return torch.softmax(q @ q.transpose(-2, -1) / self.head_dim**0.5, -1) @ q\n",
        _SPLIT_CLASS
        + "        q = self.q(x).view(b, -1, self.heads, self.head_dim).transpose(1, 2)\n"
        "        return torch.softmax(q @ q.transpose(-2, -1) / self.head_dim**0.5, -1) @ q\n",
    ),
    Rule(
        "AM804",
        "mask-tiled-against-the-heads",
        "error",
        (),
        "Scores of a [B·H, L, S] layout are masked with a [B, L, S] mask tiled for the heads in "
        "the other order: heads split with `view(B, L, H, d)` then `transpose(1, 2)` and merged give "
        "row b·H + h, which `repeat_interleave(H, dim=0)` matches and `repeat(H, 1, 1)` (row "
        "h·B + b) does not; heads split with `permute(2, 0, 1, 3)` the reverse.  Heads then get "
        "other batch items' masks.",
        "`{subject}` tiles the mask in another order than the scores' heads",
        "Tile the mask as the scores are laid out: `mask.repeat_interleave(H, dim=0)` for "
        "batch-major rows (b·H + h), `mask.repeat(H, 1, 1)` for head-major rows (h·B + b).",
        _SPLIT_CLASS.replace("def forward(self, x):", "def forward(self, x, ids, pad_id):")
        + "        q = self.q(x).view(b, -1, self.heads, self.head_dim).transpose(1, 2)\n"
        "        q = q.reshape(b * self.heads, -1, self.head_dim)\n"
        "        padding = (ids == pad_id)[:, None, :].expand(-1, ids.size(1), -1)\n"
        "        scores = torch.bmm(q, q.transpose(1, 2)) / self.head_dim**0.5\n"
        "        scores = scores.masked_fill(padding.repeat(self.heads, 1, 1), float('-inf'))\n"
        "        return torch.softmax(scores, dim=-1)\n",
        _SPLIT_CLASS.replace("def forward(self, x):", "def forward(self, x, ids, pad_id):")
        + "        q = self.q(x).view(b, -1, self.heads, self.head_dim).transpose(1, 2)\n"
        "        q = q.reshape(b * self.heads, -1, self.head_dim)\n"
        "        padding = (ids == pad_id)[:, None, :].expand(-1, ids.size(1), -1)\n"
        "        scores = torch.bmm(q, q.transpose(1, 2)) / self.head_dim**0.5\n"
        "        tiled = padding.repeat_interleave(self.heads, dim=0)\n"
        "        scores = scores.masked_fill(tiled, float('-inf'))\n"
        "        return torch.softmax(scores, dim=-1)\n",
    ),
)
