"""What the checker may conclude, and what it must not: each narrowing with a wrong look-alike.

Every pair below is the same code twice: in ``wrong`` the mistake is proved by the source, in
``right`` a guard, a conversion, a reassignment, an annotation or the API the value goes to
contradicts what a name alone would say, and the checker stays silent.  The ``right`` cases
are shapes from released code (transformers, espnet, fairseq, x-transformers) that earlier
versions of the checker flagged.
"""

from __future__ import annotations

import pytest

from attention.review.check import check_source

HEAD = "import math\n\nimport torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n\n"

CASES: dict[str, tuple[str, str, list[str]]] = {
    # `~` on a parameter named attention_mask: the `~` says it is Boolean (masked_fill needs it)
    "invert-a-name": (
        "def f(scores, batch):\n"
        '    return scores.masked_fill(~batch["attention_mask"], float("-inf"))\n',
        "def f(scores, attention_mask):\n"
        '    return scores.masked_fill(~attention_mask, float("-inf"))\n',
        ["AM702"],
    ),
    # `if m.dtype == torch.bool:` proves a Boolean inside, whatever the name says
    "dtype-guard": (
        "def f(x, attention_mask):\n"
        "    return x.masked_fill(attention_mask.to(torch.bool), -1e4)\n",
        "def f(x, attention_mask):\n"
        "    if attention_mask.dtype == torch.bool:\n"
        "        attention_mask = torch.zeros_like(x).masked_fill(attention_mask, -1e4)\n"
        "    return x + attention_mask\n",
        ["AM104"],
    ),
    # an early raise: after `if m.dtype != torch.bool: raise`, m is Boolean
    "early-raise": (
        "def f(q, k, v, ids, pad):\n"
        "    m = (ids == pad).long()\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=~m)\n",
        "def f(q, k, v, ids, pad):\n"
        "    m = (ids == pad).long()\n"
        "    if m.dtype != torch.bool:\n"
        "        raise TypeError('a Boolean mask')\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=~m)\n",
        ["AM701"],
    ),
    # `.eq(0)` reassigned two lines above: the name no longer means 1 = real token
    "eq-zero": (
        "def f(scores, attention_mask):\n"
        "    attention_mask = attention_mask.unsqueeze(1).to(torch.bool)\n"
        "    return scores.masked_fill(attention_mask, torch.finfo(scores.dtype).min)\n",
        "def f(scores, attention_mask):\n"
        "    attention_mask = attention_mask.unsqueeze(1).eq(0)\n"
        "    return scores.masked_fill(attention_mask, torch.finfo(scores.dtype).min)\n",
        ["AM104"],
    ),
    # a reassignment from a call the pass does not follow: the name proves nothing after it
    "reassigned": (
        "def f(scores, attention_mask):\n"
        "    bias = attention_mask[:, None, None, :] * -10000.0\n"
        "    return torch.softmax(scores + bias, dim=-1)\n",
        "def f(self, scores, attention_mask):\n"
        "    attention_mask = self.get_extended_attention_mask(attention_mask)\n"
        "    bias = attention_mask * -10000.0\n"
        "    return torch.softmax(scores + bias, dim=-1)\n",
        ["AM104"],
    ),
    # both branches of an if/else: what they agree on survives (here: the same Boolean flip)
    "if-else-join": (
        "def f(q, k, v, ids, pad, flash):\n"
        "    if flash:\n"
        "        m = ids == pad\n"
        "    else:\n"
        "        m = ids == pad\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=m)\n",
        "def f(q, k, v, ids, pad, flash):\n"
        "    if flash:\n"
        "        m = ids != pad\n"
        "    else:\n"
        "        m = ids != pad\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=m)\n",
        ["AM101"],
    ),
    # branches that disagree: the name is unknown after them, not read from its name again
    "if-disagrees": (
        "def f(scores, attention_mask):\n"
        "    return scores.masked_fill(attention_mask.to(torch.bool), -1e4)\n",
        "def f(scores, attention_mask, L):\n"
        "    if attention_mask is None:\n"
        "        attention_mask = ~torch.ones(L, L, dtype=torch.bool).tril()\n"
        "    return scores.masked_fill(attention_mask.to(torch.bool), -1e4)\n",
        ["AM104"],
    ),
    # jaxtyping / torch.BoolTensor annotations say Boolean
    "bool-annotation": (
        "class P(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.attn = nn.MultiheadAttention(8, 2, batch_first=True)\n\n"
        "    def forward(self, x, batch):\n"
        '        return self.attn(x, x, x, key_padding_mask=~batch["attention_mask"])[0]\n',
        "class P(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.attn = nn.MultiheadAttention(8, 2, batch_first=True)\n\n"
        "    def forward(self, x, attention_mask: torch.BoolTensor):\n"
        "        return self.attn(x, x, x, key_padding_mask=~attention_mask)[0]\n",
        ["AM702"],
    ),
    # zeroing fully masked rows after a softmax of scores masked before it is a guard
    "guard-after-softmax": (
        "def f(q, k, keep):\n"
        "    scores = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5\n"
        "    weights = torch.softmax(scores, dim=-1)\n"
        "    return weights.masked_fill(~keep, 0.0)\n",
        "def f(q, k, keep):\n"
        "    scores = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5\n"
        '    scores = scores.masked_fill(~keep, float("-inf"))\n'
        "    weights = torch.softmax(scores, dim=-1)\n"
        "    return weights.masked_fill(~keep, 0.0)\n",
        ["AM401"],
    ),
    # a fill of logits no softmax reads (a ranking head) proves nothing about attention
    "no-softmax": (
        "def f(q, k, L):\n"
        "    logits = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5\n"
        "    mask = torch.tril(torch.ones(L, L)).bool()\n"
        "    return torch.softmax(logits.masked_fill(mask, -1e4), dim=-1)\n",
        "def f(q, k, L):\n"
        "    logits = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5\n"
        "    mask = torch.tril(torch.ones(L, L)).bool()\n"
        "    return logits.masked_fill(mask, -1e4)\n",
        ["AM102"],
    ),
    # `x.float().masked_fill(m, -1e9)`: the filled tensor is float32, -1e9 fits
    "float32-fill": (
        "def f(mask):\n    return torch.zeros(mask.shape).half().masked_fill(~mask, -1e9)\n",
        "def f(mask):\n    return mask.float().masked_fill(~mask, -1e9)\n",
        ["AM202"],
    ),
    # scores converted to float32 on an earlier line: -1e18 fits
    "float32-scores": (
        "def f(q, k, mask):\n"
        "    scores = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5\n"
        "    scores = scores.half()\n"
        "    return torch.softmax(scores.masked_fill(mask, -1e18), dim=-1)\n",
        "def f(q, k, mask):\n"
        "    scores = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5\n"
        "    scores = scores.float()\n"
        "    return torch.softmax(scores.masked_fill(mask, -1e18), dim=-1)\n",
        ["AM202"],
    ),
    # sqrt(1 / (3 * d)) is the reciprocal already: multiplying by it scales correctly
    "sqrt-of-a-reciprocal": (
        "def f(q, k):\n"
        "    a = torch.matmul(q, k.transpose(-1, -2))\n"
        "    a *= math.sqrt(3 * q.shape[-1])\n"
        "    return torch.softmax(a, dim=-1)\n",
        "def f(q, k):\n"
        "    a = torch.matmul(q, k.transpose(-1, -2))\n"
        "    a *= math.sqrt(1.0 / (3 * q.shape[-1]))\n"
        "    return torch.softmax(a, dim=-1)\n",
        ["AM503"],
    ),
    # a beam's log-probabilities are not attention: nothing names a mask or scores
    "not-attention": (
        "def f(beam, finished):\n"
        "    return beam.attn_scores.masked_fill_(torch.tensor(finished), -1e10)\n",
        "def f(beam, finished):\n"
        "    return beam.topk_log_probs.masked_fill_(torch.tensor(finished), -1e10)\n",
        ["AM202"],
    ),
    # `(scores > 0)` of an additive tensor is Boolean: `~` on it is fine
    "comparison-of-additive": (
        "def f(scores, keep):\n"
        '    scores = scores.masked_fill(~keep, float("-inf"))\n'
        "    positive = (scores > 0).long()\n"
        '    return scores.masked_fill(~positive, float("-inf"))\n',
        "def f(scores, keep):\n"
        '    scores = scores.masked_fill(~keep, float("-inf"))\n'
        "    positive = scores > 0\n"
        '    return scores.masked_fill(~positive, float("-inf"))\n',
        ["AM701"],
    ),
    # a padding mask by its name is no MHA attn_mask ([L, S] or [B·H, L, S])
    "padding-name-as-attn-mask": (
        "class P(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.attn = nn.MultiheadAttention(8, 2)\n\n"
        "    def forward(self, x, encoder_attention_mask):\n"
        "        return self.attn(x, x, x, key_padding_mask=encoder_attention_mask)[0]\n",
        "class P(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.attn = nn.MultiheadAttention(8, 2)\n\n"
        "    def forward(self, x, encoder_attention_mask):\n"
        "        return self.attn(x, x, x, attn_mask=encoder_attention_mask)[0]\n",
        ["AM103"],
    ),
    # single-head attention (no head count anywhere): the width is the head size
    "single-head-scale": (
        "class A(nn.Module):\n"
        "    def __init__(self, dim, heads):\n"
        "        super().__init__()\n"
        "        self.heads = heads\n"
        "        self.scale = dim ** -0.5\n\n"
        "    def forward(self, q, k):\n"
        "        return (q @ k.transpose(-1, -2) * self.scale).softmax(dim=-1)\n",
        "class A(nn.Module):\n"
        "    def __init__(self, dim):\n"
        "        super().__init__()\n"
        "        self.scale = dim ** -0.5\n\n"
        "    def forward(self, q, k):\n"
        "        return (q @ k.transpose(-1, -2) * self.scale).softmax(dim=-1)\n",
        ["AM502"],
    ),
    # einsum whose output puts the keys elsewhere than last: the axis is not known
    "einsum-key-axis": (
        "def f(q, k):\n"
        "    logits = torch.einsum('b i d, b j d -> b i j', q, k) * q.shape[-1] ** -0.5\n"
        "    return logits.softmax(dim=1)\n",
        "def f(q, k):\n"
        "    logits = torch.einsum('v b d, l b d -> v l b', q, k) * q.shape[-1] ** -0.5\n"
        "    return logits.softmax(dim=1)\n",
        ["AM402"],
    ),
    # a causal term leaves the diagonal finite: no row is all -inf, the softmax stays finite
    "sum-with-a-causal-term": (
        "def f(padding_forbidden, L, dtype):\n"
        "    low = torch.finfo(dtype).min\n"
        "    causal = torch.zeros(L, L, dtype=dtype).masked_fill(padding_forbidden, low)\n"
        "    padding = torch.zeros(L, L, dtype=dtype).masked_fill(padding_forbidden, low)\n"
        "    return causal + padding\n",
        "def f(padding_forbidden, L, dtype):\n"
        "    low = torch.finfo(dtype).min\n"
        "    causal = torch.triu(torch.full((L, L), torch.finfo(dtype).min), 1)\n"
        "    padding = torch.zeros(L, L, dtype=dtype).masked_fill(padding_forbidden, low)\n"
        "    return causal + padding\n",
        ["AM204"],
    ),
    # a triangle of a tensor whose dtype the code does not show is no proven 0/1 mask
    "triangle-of-unknown": (
        "def f(q, k, L):\n"
        "    scores = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5\n"
        "    scores += torch.triu(torch.ones(L, L), diagonal=1)\n"
        "    return torch.softmax(scores, dim=-1)\n",
        "def f(q, k, L):\n"
        "    scores = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5\n"
        "    scores += torch.triu(scores.new([-math.inf]).expand(L, L).clone(), diagonal=1)\n"
        "    return torch.softmax(scores, dim=-1)\n",
        ["AM201"],
    ),
    # descriptor matching scaled by the width, never softmaxed: not attention
    "scale-without-softmax": (
        "class M(nn.Module):\n"
        "    def forward(self, d0, d1, num_heads, hidden_size):\n"
        "        scores = d0 @ d1.transpose(1, 2)\n"
        "        scores = scores / hidden_size ** 0.5\n"
        "        return scores.softmax(dim=-1)\n",
        "class M(nn.Module):\n"
        "    def forward(self, d0, d1, num_heads, hidden_size):\n"
        "        scores = d0 @ d1.transpose(1, 2)\n"
        "        scores = scores / hidden_size ** 0.5\n"
        "        return log_optimal_transport(scores)\n\n"
        "    def weights(self, logits):\n"
        "        return logits.softmax(dim=-1)\n",
        ["AM502"],
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_wrong_look_alike_is_flagged(name: str) -> None:
    wrong, _right, codes = CASES[name]
    assert [f.code for f in check_source(HEAD + wrong)] == codes


@pytest.mark.parametrize("name", list(CASES))
def test_the_right_look_alike_is_not(name: str) -> None:
    _wrong, right, _codes = CASES[name]
    assert [(f.line, f.code) for f in check_source(HEAD + right)] == []


HELPER = """
def padding_of(ids, pad_id):
    return ids {op} pad_id


def attend(q, k, v, ids, pad_id):
    pad = padding_of(ids, pad_id)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=pad[:, None, None, :])
"""

METHOD = """
class A(nn.Module):
    def forward(self, q, k, v, ids, pad_id):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=self.keep(ids, pad_id))

    def keep(self, ids, pad_id):
        if ids.dim() == 2:
            return (ids {op} pad_id)[:, None, None, :]
        return (ids {op} pad_id)[:, None, :]
"""


@pytest.mark.parametrize("template", [HELPER], ids=["function"])
def test_a_mask_crosses_a_return(template: str) -> None:
    assert [f.code for f in check_source(HEAD + template.format(op="=="))] == ["AM101"]
    assert check_source(HEAD + template.format(op="!=")) == []


def test_a_method_defined_after_its_call_is_not_followed() -> None:
    # the bound: one pass in order; a method below its caller is unknown there
    assert check_source(HEAD + METHOD.format(op="==")) == []
