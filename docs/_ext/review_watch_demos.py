"""Each runtime watch rule's demonstration: a real call the watch flags, as doctest text.

The static rules keep theirs in :mod:`attention.review.demos`; the watch's rules
(:mod:`attention.review.watch_rules`) carry none, so the site keeps them here, beside the
extension that shows them (``docs/_ext/review_rules.py``).  ``docs/review/conftest.py`` runs
each one as a doctest on the installed torch, one pytest item per rule, and the build warns when
a watch rule has no demonstration or a demonstration names no rule.  Each prints what the watch
reported (its headline) and what the call returned.
"""

# ruff: noqa: E501  (doctest text kept verbatim, as it is shown on the page)

from __future__ import annotations

__all__ = ["WATCH_DEMOS"]

_HEAD = """\
>>> import warnings
>>> import torch
>>> import torch.nn.functional as F
>>> from attention.review import watch
"""

WATCH_DEMOS: dict[str, str] = {
    "AW201": _HEAD
    + """\
>>> q = k = torch.zeros(1, 1, 3, 2); v = torch.eye(3)[None, None]   # v = I: outputs are weights
>>> future = torch.ones(3, 3, dtype=torch.bool).triu(diagonal=1)    # meant as "masked out"
>>> with warnings.catch_warnings(record=True), watch() as seen:
...     out = F.scaled_dot_product_attention(q, k, v, attn_mask=future)
>>> print(seen.findings[0].headline)
AW201 inverted-boolean-mask: attn_mask [3, 3] (torch.bool) allows exactly the keys after each query (the future), and forbids every query its own key
>>> out[0, 0]                                                       # each query reads the future
tensor([[0.0000, 0.5000, 0.5000],
        [0.0000, 0.0000, 1.0000],
        [0.0000, 0.0000, 0.0000]])
""",
    "AW202": _HEAD
    + """\
>>> q = k = torch.zeros(1, 1, 3, 2); v = torch.eye(3)[None, None]
>>> allowed = torch.tensor([[True, True, False], [True, True, False], [False, False, False]])
>>> with warnings.catch_warnings(record=True), watch() as seen:
...     out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
>>> print(seen.findings[0].headline)
AW202 fully-masked-row: attn_mask [3, 3] (torch.bool): query 2 may attend to no key
>>> out[0, 0, 2]                                                    # what this torch returns
tensor([0., 0., 0.])
""",
    "AW203": _HEAD
    + """\
>>> mha = torch.nn.MultiheadAttention(2, 1, batch_first=True, bias=False)
>>> x = torch.zeros(2, 3, 2)
>>> padding = torch.tensor([[False, False, True], [True, True, True]])   # item 1: all padding
>>> with warnings.catch_warnings(record=True), watch() as seen:
...     out, weights = mha(x, x, x, key_padding_mask=padding)
>>> print(seen.findings[0].headline)
AW203 padding-hides-item: key_padding_mask [2, 3] (torch.bool) hides every key of batch item 1
>>> weights[1]
tensor([[nan, nan, nan],
        [nan, nan, nan],
        [nan, nan, nan]], grad_fn=<SelectBackward0>)
""",
    "AW204": _HEAD
    + """\
>>> q = k = torch.zeros(1, 1, 3, 2); v = torch.eye(3)[None, None]
>>> causal = torch.tril(torch.ones(3, 3, dtype=torch.bool))
>>> with warnings.catch_warnings(record=True), watch() as seen:
...     out = F.scaled_dot_product_attention(q, k, v, attn_mask=causal.float())
>>> print(seen.findings[0].headline)
AW204 boolean-mask-as-float: attn_mask [3, 3] (torch.float32) holds only 0.0 and 1.0: a Boolean mask turned float; 6 entries of 1.0, first at index (0, 0)
>>> out[0, 0]                                                       # the future is still read
tensor([[0.5761, 0.2119, 0.2119],
        [0.4223, 0.4223, 0.1554],
        [0.3333, 0.3333, 0.3333]])
""",
    "AW205": _HEAD
    + """\
>>> q = k = torch.zeros(1, 1, 3, 2); v = torch.eye(3)[None, None]
>>> additive = torch.zeros(3, 3); additive[0, 2] = float("nan")
>>> with warnings.catch_warnings(record=True), watch() as seen:
...     out = F.scaled_dot_product_attention(q, k, v, attn_mask=additive)
>>> print(seen.findings[0].headline)
AW205 non-finite-additive-mask: attn_mask [3, 3] (torch.float32) holds 1 NaN entries
>>> out[0, 0, 0]
tensor([nan, nan, nan])
""",
    "AW206": _HEAD
    + """\
>>> q = k = torch.zeros(1, 1, 3, 2, dtype=torch.float16); v = torch.eye(3, dtype=torch.float16)[None, None]
>>> causal = torch.tril(torch.ones(3, 3, dtype=torch.bool))
>>> additive = torch.zeros(3, 3).masked_fill(~causal, -1e9)         # float32, beyond float16
>>> with warnings.catch_warnings(record=True), watch() as seen:
...     out = F.scaled_dot_product_attention(q, k, v, attn_mask=additive)
>>> print(seen.findings[0].headline)
AW206 mask-overflow: attn_mask [3, 3] (torch.float32) holds 3 finite entries beyond ±65504, the range of the query's torch.float16 (largest magnitude 1e+09): they become -inf
""",
    "AW207": _HEAD
    + """\
>>> q = torch.zeros(1, 1, 1, 2); k = torch.zeros(1, 1, 3, 2); v = torch.eye(3)[None, None]   # L = 1, S = 3
>>> with warnings.catch_warnings(record=True), watch() as seen:
...     out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
>>> print(seen.findings[0].headline)
AW207 is-causal-shape: is_causal=True with query [1, 1, 1, 2] and key [1, 1, 3, 2]: L = 1 queries, S = 3 keys
>>> out[0, 0]                                                       # the new token sees key 0 only
tensor([[1., 0., 0.]])
""",
    "AW208": _HEAD
    + """\
>>> scores = torch.zeros(1, 3); scores[0, 2] = float("nan")       # a padded key's score is NaN
>>> additive = torch.tensor([[0.0, 0.0, float("-inf")]])          # that key, masked by addition
>>> with warnings.catch_warnings(record=True), watch() as seen:
...     weights = (scores + additive).softmax(dim=-1)
>>> print(seen.findings[0].headline)
AW208 nan-into-softmax: scores [1, 3] (torch.float32) holds 1 NaN entries, first in query 0: every weight of that row is NaN
>>> weights
tensor([[nan, nan, nan]])
""",
    "AW209": _HEAD
    + """\
>>> scores = torch.zeros(2, 3)
>>> keep = torch.tensor([[True, True, False], [False, False, False]])   # query 1: no key
>>> with warnings.catch_warnings(record=True), watch() as seen:
...     weights = scores.masked_fill(~keep, float("-inf")).softmax(dim=-1)
>>> print(seen.findings[0].headline)
AW209 masked-softmax-row: scores [2, 3] (torch.float32): query 1 has every entry -inf, so the softmax returns NaN there
>>> weights
tensor([[0.5000, 0.5000, 0.0000],
        [   nan,    nan,    nan]])
""",
    "AW210": _HEAD
    + """\
>>> scores = torch.tensor([[2.0, -1.0, 0.5]])
>>> keep = torch.tensor([[True, True, False]])
>>> with warnings.catch_warnings(record=True), watch() as seen:
...     weights = scores.masked_fill(~keep, 1e-9).softmax(dim=-1)   # -1e9 was meant
>>> print(seen.findings[0].headline)
AW210 weak-fill: scores [1, 3] (torch.float32) masked with 1e-09: a masked entry keeps weight 0.114 (at (0, 2))
>>> weights
tensor([[0.8438, 0.0420, 0.1142]])
""",
    "AW211": _HEAD
    + """\
>>> scores = torch.zeros(1, 2, 3, 3)                                # [B, H, L, S]
>>> keep = torch.tensor([True, True, False]).view(1, 1, 1, 3)       # [B, 1, 1, S]: key 2 is padding
>>> with warnings.catch_warnings(record=True), watch() as seen:
...     weights = F.softmax(scores.masked_fill(~keep, -1e9), dim=1)  # over the heads
>>> print(seen.findings[0].headline)
AW211 softmax-axis: softmax over dim 1 (size 2) of scores [1, 2, 3, 3] (torch.float32), along which the mask [1, 1, 1, 3] does not vary; the mask's key axis is dim 3 (size 3)
>>> weights[0, :, 0]                                                # the padded key keeps 0.5
tensor([[0.5000, 0.5000, 0.5000],
        [0.5000, 0.5000, 0.5000]])
""",
    "AW212": _HEAD
    + """\
>>> scores = torch.tensor([[[2.0, -1.0, 0.5]], [[0.0, 1.0, 3.0]]])   # [B, 1, T]: attention pooling
>>> with warnings.catch_warnings(record=True), watch() as seen:
...     weights = scores.softmax(dim=1)
>>> print(seen.findings[0].headline)
AW212 softmax-over-size-one-axis: softmax over dim 1 of scores [2, 1, 3] (torch.float32), which has size 1: every weight is 1.0; the last axis (size 3) is left unnormalised
>>> weights
tensor([[[1., 1., 1.]],
<BLANKLINE>
        [[1., 1., 1.]]])
""",
    "AW213": _HEAD
    + """\
>>> q = torch.zeros(1, 1, 2, 2); k = torch.zeros(1, 1, 4, 2); v = torch.eye(4)[None, None]   # 2 new of 4 keys
>>> top_left = torch.ones(2, 4, dtype=torch.bool).tril()            # meant: causal over the cache
>>> with warnings.catch_warnings(record=True), watch() as seen:
...     out = F.scaled_dot_product_attention(q, k, v, attn_mask=top_left)
>>> print(seen.findings[0].headline)
AW213 causal-top-left: the mask attn_mask [2, 4] (torch.bool) is the top-left causal triangle with L = 2 queries and S = 4 keys: query 0 sees key 0 alone, and the last query misses 2 keys
>>> out[0, 0]                                                       # the cached keys 2, 3 unread
tensor([[1.0000, 0.0000, 0.0000, 0.0000],
        [0.5000, 0.5000, 0.0000, 0.0000]])
""",
    "AW214": _HEAD
    + """\
>>> mha = torch.nn.MultiheadAttention(2, 1, batch_first=True, bias=False)
>>> x = torch.arange(16.0).reshape(2, 4, 2)                # [B, S, E]
>>> attention_mask = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]])   # all padded
>>> padding = attention_mask.bool()                        # True = real token
>>> with warnings.catch_warnings(record=True), watch() as seen:
...     out, weights = mha(x, x, x, key_padding_mask=padding)
>>> print(seen.findings[0].headline)
AW214 reversed-padding-mask: key_padding_mask [2, 4] (torch.bool) hides the first keys of every batch item (3 of 4 in item 0, 2 of 4 in item 1) and lets the last ones through; the hidden keys are not one repeated vector, as padding is
>>> weights[0, 0]                                          # padding only
tensor([0., 0., 0., 1.], grad_fn=<SelectBackward0>)
""",
    "AW215": _HEAD
    + """\
>>> q = torch.zeros(1, 1, 2, 2); v = torch.eye(3)[None, None]
>>> k = torch.zeros(1, 1, 3, 2); k[0, 0, 2] = float("nan")  # a padded key
>>> allowed = torch.tensor([[True, True, False]])          # masked out
>>> with warnings.catch_warnings(record=True), watch() as seen:
...     out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
>>> print(seen.findings[0].headline)
AW215 nan-in-hidden-key: key [1, 1, 3, 2] holds NaN or inf at batch item 0, head 0, key 2, which attn_mask [1, 3] (torch.bool) hides from every query; the output [1, 1, 2, 3] holds 6 NaN
>>> out[0, 0]
tensor([[nan, nan, nan],
        [nan, nan, nan]])
""",
    "AW216": _HEAD
    + """\
>>> q = k = torch.tensor([[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]])   # [B, L, D]
>>> with warnings.catch_warnings(record=True), watch() as seen:
...     weights = torch.softmax(q @ k.transpose(-2, -1) / 2**0.5, dim=1)
>>> print(seen.findings[0].headline)
AW216 softmax-over-queries: softmax over dim 1 of scores [1, 3, 3] (torch.float32), a product q @ kᵀ with L = S = 3: dim 1 holds its queries, dim 2 its keys
>>> weights.sum(-1)                                        # not 1 per query
tensor([[0.8471, 0.8471, 1.3057]])
""",
    "AW217": _HEAD
    + """\
>>> z = torch.tensor([[[0.5, -1.0, 2.0]]])                 # [B, 1, C]: a branch
>>> with warnings.catch_warnings(record=True), watch() as seen:
...     weights = torch.softmax(torch.cat([z, z], dim=1), dim=1)   # z twice
>>> print(seen.findings[0].headline)
AW217 uniform-softmax: softmax over dim 1 (size 2) of scores [1, 2, 3] (torch.float32): every row holds one value repeated, while the scores range from -1 to 2, so every weight is 0.5
>>> weights
tensor([[[0.5000, 0.5000, 0.5000],
         [0.5000, 0.5000, 0.5000]]])
""",
    "AW218": _HEAD
    + """\
>>> embed = torch.nn.Embedding(10, 4, padding_idx=0)
>>> mha = torch.nn.MultiheadAttention(4, 1)                 # reads [L, B, E]
>>> ids = torch.tensor([[5, 6, 0], [7, 8, 9], [5, 0, 0], [6, 7, 0]])   # [B, T], padded
>>> with warnings.catch_warnings(record=True), watch() as seen:
...     x = embed(ids)                                      # [B, T, E]
...     out, weights = mha(x, x, x)
>>> print(seen.findings[0].headline)
AW218 batch-first-input: query [4, 3, 4] is laid out as the token ids [4, 3] it was embedded from, whose padding (index 0) runs along dim 1 in every item: dim 0 holds 4 batch items, which the call reads as a sequence of 4 positions
>>> weights.shape                                           # [T, B, B]: items attend to items
torch.Size([3, 4, 4])
""",
    "AW219": _HEAD
    + """\
>>> _ = torch.manual_seed(0)
>>> mha = torch.nn.MultiheadAttention(4, 2, batch_first=True)   # H = 2 heads
>>> x = torch.randn(2, 3, 4)                                    # [B, L, E]
>>> pad = torch.tensor([[False, False, True], [False, True, True]])   # True = masked out
>>> per_item = pad[:, None, :].expand(2, 3, 3)                  # [B, L, S]
>>> with warnings.catch_warnings(record=True), watch() as seen:
...     out, weights = mha(x, x, x, attn_mask=per_item.repeat(2, 1, 1))   # head by head
>>> print(seen.findings[0].headline)
AW219 mask-tiled-against-the-heads: attn_mask [4, 3, 3] (torch.bool) for 2 batch items of 2 heads: read as the module reads it (entry b·2 + h), item 0's heads differ, while read head by head (entry h·2 + b) they agree: the per-item masks were tiled head by head
>>> weights[1, 0].detach().round(decimals=3)                     # item 1: key 1 is padding
tensor([0.7560, 0.2440, 0.0000])
>>> right = per_item.repeat_interleave(2, dim=0)                # item by item
>>> mha(x, x, x, attn_mask=right)[1][1, 0].detach()
tensor([1., 0., 0.])
""",
    "AW220": _HEAD
    + """\
>>> q = k = torch.zeros(1, 1, 3, 2); v = torch.eye(3)[None, None]   # v = I: outputs are weights
>>> keep = torch.tensor([[1, 1, 0]])                        # 1 = real token, 0 = padding
>>> with warnings.catch_warnings(record=True), watch() as seen:
...     out = F.scaled_dot_product_attention(q, k, v, attn_mask=(~keep).float()[:, None, None, :])
>>> print(seen.findings[0].headline)
AW220 integer-mask-as-additive: attn_mask [1, 1, 1, 3] (torch.float32) holds only -2 and -1 (2 entries of -2, first at index (0, 0, 0, 0)): a 0/1 mask turned into integers one apart, so the keys at -2 keep e^-1 ≈ 0.37 of the others' weight and no key is masked
>>> out[0, 0, 0]                                            # the padding key weighs most
tensor([0.2119, 0.2119, 0.5761])
>>> F.scaled_dot_product_attention(q, k, v, attn_mask=keep.bool()[:, None, None, :])[0, 0, 0]
tensor([0.5000, 0.5000, 0.0000])
""",
}
