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
    # None on one path, a mask on the other: every use of the name that runs sees the mask
    "none-join": (
        "def f(q, k, v, ids, pad, use_mask):\n"
        "    attn_mask = None\n"
        "    if use_mask:\n"
        "        attn_mask = ids == pad\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask)\n",
        "def f(q, k, v, ids, pad, use_mask):\n"
        "    attn_mask = None\n"
        "    if use_mask:\n"
        "        attn_mask = ids != pad\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask)\n",
        ["AM101"],
    ),
    # `a if test else b`: each side is read, and the mask of either reaches the call
    "conditional-expression": (
        "def f(q, k, v, ids, pad):\n"
        "    m = None if ids is None else (ids == pad)[:, None, None, :]\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=m)\n",
        "def f(q, k, v, ids, pad):\n"
        "    m = None if ids is None else (ids != pad)[:, None, None, :]\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=m)\n",
        ["AM101"],
    ),
    # a helper defined below its caller is known where it is called, as Python resolves it
    "helper-below": (
        "def f(q, k, v, ids, pad):\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=padding(ids, pad))\n\n\n"
        "def padding(ids, pad):\n"
        "    return (ids == pad)[:, None, None, :]\n",
        "def f(q, k, v, ids, pad):\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=padding(ids, pad))\n\n\n"
        "def padding(ids, pad):\n"
        "    return (ids != pad)[:, None, None, :]\n",
        ["AM101"],
    ),
    # torch.full raises on a value its dtype cannot hold; torch.tensor turns it into -inf
    "full-raises": (
        "def f(scores, shape, dtype):\n"
        "    return torch.softmax(scores + torch.tensor(-1e9, dtype=dtype), dim=-1)\n",
        "def f(scores, shape, dtype):\n"
        "    return torch.softmax(scores + torch.full(shape, -1e9, dtype=dtype), dim=-1)\n",
        ["AM202"],
    ),
    # an overflowing torch.where against a tensor nothing shows to be attention waits for a
    # softmax: a beam search's scores are no attention
    "where-waits-for-a-softmax": (
        "def f(done, beam_scores):\n"
        "    beam_scores = torch.where(done, -1e9, beam_scores)\n"
        "    return beam_scores.softmax(dim=-1)\n",
        "def f(done, beam_scores, logits):\n"
        "    beam_scores = torch.where(done, -1e9, beam_scores)\n"
        "    return beam_scores.topk(4, dim=-1), logits.softmax(dim=-1)\n",
        ["AM202"],
    ),
    # scores times a 0/1 mask: a masked score becomes 0, a weight like any other; the fill is
    # what masks (q.mm(k.t()) is q @ kᵀ)
    "scores-times-a-mask": (
        "def f(q, k, nodes, groups):\n"
        "    same = torch.zeros(nodes, nodes)\n"
        "    same[groups[0] : groups[1], groups[0] : groups[1]] = 1\n"
        "    a = q.mm(k.t()) / q.size(-1) ** 0.5\n"
        "    return torch.softmax(a * same, dim=-1)\n",
        "def f(q, k, nodes, groups):\n"
        "    same = torch.zeros(nodes, nodes)\n"
        "    same[groups[0] : groups[1], groups[0] : groups[1]] = 1\n"
        "    a = q.mm(k.t()) / q.size(-1) ** 0.5\n"
        "    return torch.softmax(a.masked_fill(same == 0, float('-inf')), dim=-1)\n",
        ["AM203"],
    ),
    # a learned position bias (T5's) is trained with unscaled scores: no scale is missing
    "t5-position-bias": (
        "class T5Attention(nn.Module):\n"
        "    def __init__(self, n_heads):\n"
        "        super().__init__()\n"
        "        self.n_heads = n_heads\n\n"
        "    def forward(self, q, k, mask):\n"
        "        scores = torch.matmul(q, k.transpose(3, 2))\n"
        "        scores += mask\n"
        "        return nn.functional.softmax(scores.float(), dim=-1)\n",
        "class T5Attention(nn.Module):\n"
        "    def __init__(self, n_heads):\n"
        "        super().__init__()\n"
        "        self.n_heads = n_heads\n\n"
        "    def forward(self, q, k, position_bias):\n"
        "        scores = torch.matmul(q, k.transpose(3, 2))\n"
        "        scores += position_bias\n"
        "        return nn.functional.softmax(scores.float(), dim=-1)\n",
        ["AM501"],
    ),
    # a softmax along an axis of size 1 (a Conv1d's single channel): every weight is 1
    "softmax-of-one-channel": (
        "class Pool(nn.Module):\n"
        "    def __init__(self, features):\n"
        "        super().__init__()\n"
        "        self.score = nn.Sequential(nn.Conv1d(features, 1, 1), nn.Softmax(dim=1))\n\n"
        "    def forward(self, x):\n"
        "        return (self.score(x) * x).sum(dim=-1)\n",
        "class Pool(nn.Module):\n"
        "    def __init__(self, features):\n"
        "        super().__init__()\n"
        "        self.score = nn.Sequential(nn.Conv1d(features, 1, 1), nn.Softmax(dim=-1))\n\n"
        "    def forward(self, x):\n"
        "        return (self.score(x) * x).sum(dim=-1)\n",
        ["AM402"],
    ),
    # a softmax module built and called at once reads its dim as a self.softmax module does
    "softmax-module-called-at-once": (
        "def f(q, k, v):\n"
        "    scores = torch.bmm(q, k.transpose(1, 2)) / q.size(-1) ** 0.5\n"
        "    return torch.bmm(nn.Softmax(dim=1)(scores), v)\n",
        "def f(q, k, v):\n"
        "    scores = torch.bmm(q, k.transpose(1, 2)) / q.size(-1) ** 0.5\n"
        "    return torch.bmm(nn.Softmax(dim=-1)(scores), v)\n",
        ["AM402"],
    ),
    # a Boolean times a Python float is float32: -1e9 fits; a float16 indicator keeps float16
    "boolean-times-a-constant": (
        "def f(scores, padding):\n"
        "    return torch.softmax(scores + padding.half() * -1e20, dim=-1)\n",
        "def f(scores, padding):\n    return torch.softmax(scores + (~padding) * -1e20, dim=-1)\n",
        ["AM202"],
    ),
    # a query normalised by a layer of its own (qk-norm) carries its own, learned scale
    "qk-norm": (
        "class Norm(nn.Module):\n"
        "    def forward(self, x):\n"
        "        return x\n\n\n"
        "class A(nn.Module):\n"
        "    def __init__(self, heads):\n"
        "        super().__init__()\n"
        "        self.heads = heads\n"
        "        self.q_proj = Norm()\n\n"
        "    def forward(self, q, k):\n"
        "        q = self.q_proj(q)\n"
        "        return torch.matmul(q, k.transpose(-1, -2)).softmax(dim=-1)\n",
        "class Norm(nn.Module):\n"
        "    def forward(self, x):\n"
        "        return x\n\n\n"
        "class A(nn.Module):\n"
        "    def __init__(self, heads):\n"
        "        super().__init__()\n"
        "        self.heads = heads\n"
        "        self.q_norm = Norm()\n\n"
        "    def forward(self, q, k):\n"
        "        q = self.q_norm(q)\n"
        "        return torch.matmul(q, k.transpose(-1, -2)).softmax(dim=-1)\n",
        ["AM501"],
    ),
    # heads are read from identifiers, not from a comment ("single-head attention")
    "a-comment-names-no-head": (
        "def f(q, k, num_heads):\n    return (q @ k.transpose(-1, -2)).softmax(dim=-1)\n",
        "def f(q, k):\n"
        "    # single-head attention over scalar q, k (one head: no scale)\n"
        "    return (q @ k.transpose(-1, -2)).softmax(dim=-1)\n",
        ["AM501"],
    ),
    # a test the pass can decide reads one side of the if only: L == S is the causal branch
    "decided-branch": (
        "def f(q, k, v):\n"
        "    tq, tk = q.size(2), k.size(2)\n"
        "    if tq != tk:\n"
        "        return F.scaled_dot_product_attention(q, k, v, is_causal=True)\n"
        "    return F.scaled_dot_product_attention(q, k, v)\n\n\n"
        "out = f(torch.randn(1, 2, 1, 4), torch.randn(1, 2, 6, 4), torch.randn(1, 2, 6, 4))\n",
        "def f(q, k, v):\n"
        "    tq, tk = q.size(2), k.size(2)\n"
        "    if tq == tk:\n"
        "        return F.scaled_dot_product_attention(q, k, v, is_causal=True)\n"
        "    return F.scaled_dot_product_attention(q, k, v)\n\n\n"
        "out = f(torch.randn(1, 2, 1, 4), torch.randn(1, 2, 6, 4), torch.randn(1, 2, 6, 4))\n",
        ["AM302"],
    ),
    # a loop is read twice: what its first pass left (a cache grown at its end) is there for
    # the second
    "loop-second-pass": (
        "def generate(q, k, v, steps):\n"
        "    for _ in range(steps):\n"
        "        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)\n"
        "        k = torch.cat([k, out], dim=-2)\n"
        "        v = torch.cat([v, out], dim=-2)\n"
        "    return out\n",
        "def generate(q, k, v, steps):\n"
        "    for _ in range(steps):\n"
        "        out = F.scaled_dot_product_attention(q, k, v)\n"
        "        k = torch.cat([k, out], dim=-2)\n"
        "        v = torch.cat([v, out], dim=-2)\n"
        "    return out\n",
        ["AM304"],
    ),
    # a function named for the top-left alignment builds it on purpose
    "upper-left-by-name": (
        "def causal(q, k):\n"
        "    return torch.ones(q.size(-2), k.size(-2), dtype=torch.bool).tril()\n\n\n"
        "m = causal(torch.randn(1, 2, 4), torch.randn(1, 6, 4))\n",
        "def _upper_left(q, k):\n"
        "    return torch.ones(q.size(-2), k.size(-2), dtype=torch.bool).tril()\n\n\n"
        "m = _upper_left(torch.randn(1, 2, 4), torch.randn(1, 6, 4))\n",
        ["AM305"],
    ),
}


FP16 = "# trained with --fp16\n"
"""Where a case is about a value float16 cannot hold, both look-alikes say they run in it."""


def _in_float16(source: str, codes: list[str]) -> str:
    return source + FP16 if "AM202" in codes else source


@pytest.mark.parametrize("name", list(CASES))
def test_the_wrong_look_alike_is_flagged(name: str) -> None:
    wrong, _right, codes = CASES[name]
    assert [f.code for f in check_source(HEAD + _in_float16(wrong, codes))] == codes


@pytest.mark.parametrize("name", list(CASES))
def test_the_right_look_alike_is_not(name: str) -> None:
    _wrong, right, codes = CASES[name]
    assert [(f.line, f.code) for f in check_source(HEAD + _in_float16(right, codes))] == []


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


def test_a_method_defined_after_its_call_is_followed_where_its_returns_agree() -> None:
    # methods are known wherever they are defined; two returns of different shapes join to
    # nothing known
    assert check_source(HEAD + METHOD.format(op="==")) == []
    single = METHOD.replace(
        "        if ids.dim() == 2:\n            return (ids {op} pad_id)[:, None, None, :]\n", ""
    )
    assert [f.code for f in check_source(HEAD + single.format(op="=="))] == ["AM101"]
    assert check_source(HEAD + single.format(op="!=")) == []


def test_a_polarity_the_helper_does_not_share_is_reported_where_the_mask_is_passed() -> None:
    source = HEAD + (
        "def attend(q, k, v, padding_mask):\n"
        "    return F.multi_head_attention_forward(q, k, v, key_padding_mask=padding_mask)\n\n\n"
        "def encode(q, k, v, ids, pad):\n"
        "    keep = ids != pad\n"
        "    return attend(q, k, v, keep)\n"
    )
    findings = check_source(source)
    assert [(f.line, f.code) for f in findings] == [(14, "AM102")]
    assert "in `attend` (line 9" in findings[0].expects


PARTIAL = """
import functools


def attend(q, k, v, mask):
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


def f(q, k, v, ids, pad):
    run = functools.partial(attend, mask=(ids {op} pad)[:, None, None, :])
    return run(q, k, v)
"""


def test_a_mask_bound_by_functools_partial_reaches_the_helper() -> None:
    found = check_source(HEAD + PARTIAL.format(op="=="))
    # reported where the mask is bound: the helper is right for the masks it was written for
    assert [(f.line, f.code) for f in found] == [(17, "AM101")]
    assert check_source(HEAD + PARTIAL.format(op="!=")) == []


def test_a_helper_imported_from_the_tree_is_followed(tmp_path) -> None:
    from attention.review.project import Project

    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "masks.py").write_text(
        "from .deeper import padding_below\n\n\n"
        "def padding(ids, pad):\n    return (ids == pad)[:, None, None, :]\n\n\n"
        "def keep(ids, pad):\n    return (ids != pad)[:, None, None, :]\n\n\n"
        "def relay(ids, pad):\n    return padding_below(ids, pad)\n"
    )
    (package / "deeper.py").write_text(
        "def padding_below(ids, pad):\n    return (ids == pad)[:, None, None, :]\n"
    )
    caller = package / "model.py"
    text = HEAD + (
        "from .masks import keep, padding, relay\n\n\n"
        "def f(q, k, v, ids, pad):\n"
        "    a = F.scaled_dot_product_attention(q, k, v, attn_mask=padding(ids, pad))\n"
        "    b = F.scaled_dot_product_attention(q, k, v, attn_mask=keep(ids, pad))\n"
        "    return a, F.scaled_dot_product_attention(q, k, v, attn_mask=relay(ids, pad))\n"
    )
    caller.write_text(text)
    found = check_source(text, str(caller), Project(tmp_path))
    # the helper's return crosses the import; the bound: what it imports in turn is not read
    assert [(f.line, f.code) for f in found] == [(12, "AM101")]
    assert "returned by `padding` (masks.py:4)" in found[0].inferred[0]
    assert check_source(text, str(caller)) == []  # without the tree, nothing to follow


MAPPED = """
def padding(ids):
    return (ids == PAD)[:, None, None, :]  # True = padding


def f(q, k, v, ids_q, ids_k):
    {bind}
    return F.scaled_dot_product_attention(q, k, v, attn_mask=key_side)
"""


@pytest.mark.parametrize(
    "bind",
    [
        "query_side, key_side = map(padding, (ids_q, ids_k))",
        "query_side, key_side = map(lambda ids: padding(ids), (ids_q, ids_k))",
        "query_side, key_side = (padding(ids) for ids in (ids_q, ids_k))",
        "query_side, key_side = [padding(ids) for ids in [ids_q, ids_k]]",
    ],
)
def test_a_helper_mapped_over_a_tuple_gives_each_name_its_value(bind: str) -> None:
    """``map`` and one-``for`` comprehensions over a tuple written out: one value per name."""
    source = HEAD + "PAD = 0\n" + MAPPED.format(bind=bind)
    assert [f.code for f in check_source(source)] == ["AM101"]
    unpacked = "query_side, key_side = padding(ids_q), padding(ids_k)"
    assert [f.code for f in check_source(source.replace(bind, unpacked))] == ["AM101"]


RETURNED_PAIR = """
def embed(ids, pad):
    return ids.float(), ids {op} pad


def f(q, k, v, ids, pad):
    emb, {name} = embed(ids, pad)
    return F.scaled_dot_product_attention(q, k, v, attn_mask={name}[:, None, None, :])
"""


def test_a_helper_returning_a_pair_gives_each_unpacked_name_its_part() -> None:
    """``return embeds, ids == pad``: the caller's second name is the padding mask."""
    found = check_source(HEAD + RETURNED_PAIR.format(op="==", name="mask"))
    assert [(f.line, f.code) for f in found] == [(15, "AM101")]
    assert check_source(HEAD + RETURNED_PAIR.format(op="!=", name="mask")) == []
