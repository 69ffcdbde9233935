"""Each rule's demonstration: the wrong code run on torch, and the right one.

Doctest texts (``>>>`` lines with their output), run by the tests against the installed
torch and shown on the rules' pages: what the mistake does to the weights.
"""

# ruff: noqa: E501  (doctest text kept verbatim, as it is shown on the pages)

from __future__ import annotations

__all__ = ["DEMOS"]

DEMOS: dict[str, tuple[str, str]] = {
    "AM101": (
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> q = k = torch.zeros(1, 3, 2); v = torch.eye(3)[None]    # v = I: the output rows are the weights
>>> future = torch.triu(torch.ones(3, 3, dtype=torch.bool), diagonal=1)   # True = the future
>>> F.scaled_dot_product_attention(q, k, v, attn_mask=future)[0]   # each query sees only later keys
tensor([[0.0000, 0.5000, 0.5000],
        [0.0000, 0.0000, 1.0000],
        [0.0000, 0.0000, 0.0000]])
""",
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> q = k = torch.zeros(1, 3, 2); v = torch.eye(3)[None]
>>> causal = torch.tril(torch.ones(3, 3, dtype=torch.bool))       # True = may attend
>>> F.scaled_dot_product_attention(q, k, v, attn_mask=causal)[0]
tensor([[1.0000, 0.0000, 0.0000],
        [0.5000, 0.5000, 0.0000],
        [0.3333, 0.3333, 0.3333]])
""",
    ),
    "AM102": (
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> mha = torch.nn.MultiheadAttention(2, 1, batch_first=True, bias=False)
>>> x = torch.zeros(1, 3, 2)
>>> real = torch.tensor([[True, True, False]])          # True = real token
>>> mha(x, x, x, key_padding_mask=real)[1][0]          # the padded key gets all the weight
tensor([[0., 0., 1.],
        [0., 0., 1.],
        [0., 0., 1.]], grad_fn=<SelectBackward0>)
""",
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> mha = torch.nn.MultiheadAttention(2, 1, batch_first=True, bias=False)
>>> x = torch.zeros(1, 3, 2)
>>> padding = torch.tensor([[False, False, True]])      # True = padding
>>> mha(x, x, x, key_padding_mask=padding)[1][0]
tensor([[0.5000, 0.5000, 0.0000],
        [0.5000, 0.5000, 0.0000],
        [0.5000, 0.5000, 0.0000]], grad_fn=<SelectBackward0>)
""",
    ),
    "AM103": (
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> mha = torch.nn.MultiheadAttention(2, 1, batch_first=True, bias=False)
>>> x = torch.zeros(1, 3, 2)
>>> attention_mask = torch.tensor([[1, 1, 0]])          # Hugging Face: 1 = real token
>>> mha(x, x, x, key_padding_mask=attention_mask.bool())[1][0]   # only the padding is read
tensor([[0., 0., 1.],
        [0., 0., 1.],
        [0., 0., 1.]], grad_fn=<SelectBackward0>)
""",
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> mha = torch.nn.MultiheadAttention(2, 1, batch_first=True, bias=False)
>>> x = torch.zeros(1, 3, 2)
>>> attention_mask = torch.tensor([[1, 1, 0]])
>>> mha(x, x, x, key_padding_mask=attention_mask == 0)[1][0]
tensor([[0.5000, 0.5000, 0.0000],
        [0.5000, 0.5000, 0.0000],
        [0.5000, 0.5000, 0.0000]], grad_fn=<SelectBackward0>)
""",
    ),
    "AM104": (
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> scores = torch.zeros(1, 3)
>>> attention_mask = torch.tensor([[1, 1, 0]])          # 1 = real token
>>> torch.softmax(scores + attention_mask * -10000.0, dim=-1)   # the real tokens are masked
tensor([[0., 0., 1.]])
""",
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> scores = torch.zeros(1, 3)
>>> attention_mask = torch.tensor([[1, 1, 0]])
>>> torch.softmax(scores + (1 - attention_mask) * -10000.0, dim=-1)
tensor([[0.5000, 0.5000, 0.0000]])
""",
    ),
    "AM105": (
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> q = k = torch.zeros(1, 3, 2); v = torch.eye(3)[None]
>>> key_padding_mask = torch.tensor([[False, False, True]])   # True = padding
>>> F.scaled_dot_product_attention(q, k, v, attn_mask=key_padding_mask)[0]   # only padding read
tensor([[0., 0., 1.],
        [0., 0., 1.],
        [0., 0., 1.]])
""",
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> q = k = torch.zeros(1, 3, 2); v = torch.eye(3)[None]
>>> key_padding_mask = torch.tensor([[False, False, True]])
>>> F.scaled_dot_product_attention(q, k, v, attn_mask=~key_padding_mask)[0]
tensor([[0.5000, 0.5000, 0.0000],
        [0.5000, 0.5000, 0.0000],
        [0.5000, 0.5000, 0.0000]])
""",
    ),
    "AM201": (
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> scores = torch.zeros(3, 3)
>>> causal = torch.tril(torch.ones(3, 3, dtype=torch.bool))
>>> torch.softmax(scores + causal.float(), dim=-1).round(decimals=4)   # the future is still read
tensor([[0.5761, 0.2119, 0.2119],
        [0.4223, 0.4223, 0.1554],
        [0.3333, 0.3333, 0.3333]])
""",
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> scores = torch.zeros(3, 3)
>>> causal = torch.tril(torch.ones(3, 3, dtype=torch.bool))
>>> torch.softmax(scores.masked_fill(~causal, float('-inf')), dim=-1).round(decimals=4)
tensor([[1.0000, 0.0000, 0.0000],
        [0.5000, 0.5000, 0.0000],
        [0.3333, 0.3333, 0.3333]])
""",
    ),
    "AM202": (
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> scores = torch.zeros(1, 3, dtype=torch.float16)
>>> forbidden = torch.tensor([[False, False, True]])
>>> scores.masked_fill(forbidden, -1e9)
Traceback (most recent call last):
RuntimeError: ...
""",
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> scores = torch.zeros(1, 3, dtype=torch.float16)
>>> forbidden = torch.tensor([[False, False, True]])
>>> torch.softmax(scores.masked_fill(forbidden, torch.finfo(scores.dtype).min), dim=-1)
tensor([[0.5000, 0.5000, 0.0000]], dtype=torch.float16)
""",
    ),
    "AM203": (
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> scores = torch.tensor([[1.0, 2.0, 3.0]])
>>> forbidden = torch.tensor([[False, False, True]])
>>> torch.softmax(scores.masked_fill(forbidden, 0), dim=-1).round(decimals=4)  # masked key: 0.2
tensor([[0.2447, 0.6652, 0.0900]])
""",
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> scores = torch.tensor([[1.0, 2.0, 3.0]])
>>> forbidden = torch.tensor([[False, False, True]])
>>> torch.softmax(scores.masked_fill(forbidden, float('-inf')), dim=-1).round(decimals=4)
tensor([[0.2689, 0.7311, 0.0000]])
""",
    ),
    "AM204": (
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> low = torch.finfo(torch.float16).min
>>> causal = torch.tensor([[0.0, low]], dtype=torch.float16)
>>> padding = torch.tensor([[low, low]], dtype=torch.float16)   # the whole row is padding
>>> causal + padding                                       # overflow: -inf
tensor([[-65504.,    -inf]], dtype=torch.float16)
>>> torch.softmax(torch.zeros(1, 2, dtype=torch.float16) + causal + padding, dim=-1)
tensor([[1., 0.]], dtype=torch.float16)
""",
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> low = torch.finfo(torch.float16).min
>>> forbidden = torch.tensor([[False, True]]) | torch.tensor([[True, True]])
>>> additive = torch.zeros(1, 2, dtype=torch.float16).masked_fill(forbidden, low)
>>> torch.softmax(torch.zeros(1, 2, dtype=torch.float16) + additive, dim=-1)   # finite: uniform
tensor([[0.5000, 0.5000]], dtype=torch.float16)
""",
    ),
    "AM205": (
        """\
>>> import torch
>>> allowed = torch.tensor([[True, True, False]])
>>> (1 - allowed.float()) * float("-inf")          # 0 * -inf is NaN where allowed
tensor([[nan, nan, -inf]])
>>> torch.softmax(torch.zeros(1, 3) + (1 - allowed.float()) * float("-inf"), dim=-1)
tensor([[nan, nan, nan]])
""",
        """\
>>> import torch
>>> allowed = torch.tensor([[True, True, False]])
>>> torch.where(allowed, 0.0, float("-inf"))
tensor([[0., 0., -inf]])
>>> torch.softmax(torch.zeros(1, 3) + torch.where(allowed, 0.0, float("-inf")), dim=-1)
tensor([[0.5000, 0.5000, 0.0000]])
""",
    ),
    "AM206": (
        """\
>>> import torch
>>> allowed = torch.tril(torch.ones(2, 2)) == 1
>>> allowed.masked_fill(~allowed, float("-inf"))   # -inf stored as True
tensor([[True, True],
        [True, True]])
>>> allowed.masked_fill(~allowed, float("-inf")).float()   # added: +1 everywhere
tensor([[1., 1.],
        [1., 1.]])
""",
        """\
>>> import torch
>>> allowed = torch.tril(torch.ones(2, 2)) == 1
>>> torch.zeros(2, 2).masked_fill(~allowed, float("-inf"))
tensor([[0., -inf],
        [0., 0.]])
""",
    ),
    "AM301": (
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> q = k = torch.zeros(1, 2, 2); v = torch.eye(2)[None]
>>> allowed = torch.ones(2, 2, dtype=torch.bool)
>>> try:
...     F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, is_causal=True)
... except RuntimeError as error:
...     print(type(error).__name__)
RuntimeError
""",
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> q = k = torch.zeros(1, 2, 2); v = torch.eye(2)[None]
>>> allowed = torch.ones(2, 2, dtype=torch.bool)
>>> causal = torch.tril(torch.ones(2, 2, dtype=torch.bool))
>>> F.scaled_dot_product_attention(q, k, v, attn_mask=allowed & causal)[0]
tensor([[1.0000, 0.0000],
        [0.5000, 0.5000]])
""",
    ),
    "AM302": (
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> q = torch.zeros(1, 1, 2); k = torch.zeros(1, 3, 2); v = torch.eye(3)[None]   # L = 1, S = 3
>>> F.scaled_dot_product_attention(q, k, v, is_causal=True)[0]   # the new token sees key 0 only
tensor([[1., 0., 0.]])
""",
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> q = torch.zeros(1, 1, 2); k = torch.zeros(1, 3, 2); v = torch.eye(3)[None]
>>> F.scaled_dot_product_attention(q, k, v)[0].round(decimals=4)   # it may see every cached key
tensor([[0.3333, 0.3333, 0.3333]])
""",
    ),
    "AM303": (
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> q = k = torch.zeros(1, 3, 2); v = torch.eye(3)[None]
>>> allowed = torch.tril(torch.ones(3, 3, dtype=torch.bool), diagonal=-1)   # not itself
>>> F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)[0]   # row 0 has no key: zeros
tensor([[0.0000, 0.0000, 0.0000],
        [1.0000, 0.0000, 0.0000],
        [0.5000, 0.5000, 0.0000]])
""",
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> q = k = torch.zeros(1, 3, 2); v = torch.eye(3)[None]
>>> allowed = torch.tril(torch.ones(3, 3, dtype=torch.bool))
>>> F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)[0].round(decimals=4)
tensor([[1.0000, 0.0000, 0.0000],
        [0.5000, 0.5000, 0.0000],
        [0.3333, 0.3333, 0.3333]])
""",
    ),
    "AM304": (
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> q = torch.zeros(1, 1, 2); k = torch.zeros(1, 3, 2); v = torch.eye(3)[None]   # cached: L = 1, S = 3
>>> F.scaled_dot_product_attention(q, k, v, is_causal=True)[0]   # the new token sees key 0 only
tensor([[1., 0., 0.]])
""",
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> q = torch.zeros(1, 1, 2); k = torch.zeros(1, 3, 2); v = torch.eye(3)[None]
>>> F.scaled_dot_product_attention(q, k, v, is_causal=False)[0].round(decimals=4)
tensor([[0.3333, 0.3333, 0.3333]])
""",
    ),
    "AM305": (
        """\
>>> import torch
>>> L, S = 2, 4
>>> torch.ones(L, S, dtype=torch.bool).tril().int()   # the last query sees keys 0 and 1 only
tensor([[1, 0, 0, 0],
        [1, 1, 0, 0]], dtype=torch.int32)
""",
        """\
>>> import torch
>>> L, S = 2, 4
>>> torch.ones(L, S, dtype=torch.bool).tril(diagonal=S - L).int()   # every cached key, then causal
tensor([[1, 1, 1, 0],
        [1, 1, 1, 1]], dtype=torch.int32)
""",
    ),
    "AM306": (
        """\
>>> import torch
>>> from torch import nn
>>> mha = nn.MultiheadAttention(embed_dim=3, num_heads=1, batch_first=True)
>>> with torch.no_grad():                  # W_Q = W_K = 0, W_V = W_O = I
...     _ = mha.in_proj_weight.copy_(torch.cat([torch.zeros(6, 3), torch.eye(3)]))
...     _ = mha.in_proj_bias.zero_(); _ = mha.out_proj.weight.copy_(torch.eye(3))
...     _ = mha.out_proj.bias.zero_()
>>> x = 3 * torch.eye(3)[None]             # [B=1, L=3, E=3]: value j is 3·e_j
>>> last_key_is_padding = torch.zeros(3, 3)  # additive: -inf where forbidden
>>> last_key_is_padding[:, -1] = float("-inf")
>>> out, _ = mha(x, x, x, attn_mask=last_key_is_padding, need_weights=False, is_causal=True)
>>> out[0].detach()                         # causal, not this mask: row 2 reads key 2
tensor([[3.0000, 0.0000, 0.0000],
        [1.5000, 1.5000, 0.0000],
        [1.0000, 1.0000, 1.0000]])
""",
        """\
>>> import torch
>>> from torch import nn
>>> mha = nn.MultiheadAttention(embed_dim=3, num_heads=1, batch_first=True)
>>> with torch.no_grad():
...     _ = mha.in_proj_weight.copy_(torch.cat([torch.zeros(6, 3), torch.eye(3)]))
...     _ = mha.in_proj_bias.zero_(); _ = mha.out_proj.weight.copy_(torch.eye(3))
...     _ = mha.out_proj.bias.zero_()
>>> x = 3 * torch.eye(3)[None]
>>> last_key_is_padding = torch.zeros(3, 3)
>>> last_key_is_padding[:, -1] = float("-inf")
>>> out, _ = mha(x, x, x, attn_mask=last_key_is_padding, need_weights=False)
>>> out[0].detach()                         # every row: keys 0 and 1 only
tensor([[1.5000, 1.5000, 0.0000],
        [1.5000, 1.5000, 0.0000],
        [1.5000, 1.5000, 0.0000]])
""",
    ),
    "AM401": (
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> scores = torch.zeros(1, 3)
>>> allowed = torch.tensor([[True, True, False]])
>>> torch.softmax(scores, dim=-1) * allowed    # weights sum to 2/3
tensor([[0.3333, 0.3333, 0.0000]])
""",
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> scores = torch.zeros(1, 3)
>>> allowed = torch.tensor([[True, True, False]])
>>> torch.softmax(scores.masked_fill(~allowed, float('-inf')), dim=-1)
tensor([[0.5000, 0.5000, 0.0000]])
""",
    ),
    "AM402": (
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> scores = torch.tensor([[0.0, 1.0], [0.0, 0.0]])   # [L=2, S=2]
>>> torch.softmax(scores, dim=-2).round(decimals=4)   # columns sum to 1, rows do not
tensor([[0.5000, 0.7311],
        [0.5000, 0.2689]])
""",
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> scores = torch.tensor([[0.0, 1.0], [0.0, 0.0]])
>>> torch.softmax(scores, dim=-1).round(decimals=4)
tensor([[0.2689, 0.7311],
        [0.5000, 0.5000]])
""",
    ),
    "AM403": (
        """\
>>> import torch
>>> scores = torch.tensor([[1.0, 0.0, 0.0]])       # one query, three keys
>>> allowed = torch.tensor([[True, True, False]])  # key 2 is forbidden
>>> cap = 2.0
>>> masked = scores.masked_fill(~allowed, float("-inf"))
>>> capped = cap * torch.tanh(masked / cap)        # tanh(-inf) = -1
>>> capped                                         # key 2 scores -cap, a finite score
tensor([[ 0.9242,  0.0000, -2.0000]])
>>> torch.softmax(capped, dim=-1)                  # the forbidden key keeps 3.7 %
tensor([[0.6894, 0.2736, 0.0370]])
""",
        """\
>>> import torch
>>> scores = torch.tensor([[1.0, 0.0, 0.0]])
>>> allowed = torch.tensor([[True, True, False]])
>>> cap = 2.0
>>> capped = cap * torch.tanh(scores / cap)        # cap the raw scores first
>>> torch.softmax(capped.masked_fill(~allowed, float("-inf")), dim=-1)
tensor([[0.7159, 0.2841, 0.0000]])
""",
    ),
    "AM501": (
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> q = torch.full((1, 64), 1.0); k = torch.tensor([[1.0] * 64, [0.5] * 64])   # head size 64
>>> torch.softmax(q @ k.T, dim=-1).round(decimals=4)     # saturated: one key takes it all
tensor([[1., 0.]])
""",
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> q = torch.full((1, 64), 1.0); k = torch.tensor([[1.0] * 64, [0.5] * 64])
>>> torch.softmax(q @ k.T / 64 ** 0.5, dim=-1).round(decimals=4)
tensor([[0.9820, 0.0180]])
""",
    ),
    "AM502": (
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> dim, heads, dim_head = 512, 8, 64
>>> q = torch.full((1, dim_head), 0.25); k = torch.tensor([[0.25] * dim_head, [0.0] * dim_head])
>>> torch.softmax(q @ k.T * dim ** -0.5, dim=-1).round(decimals=4)   # too flat by √8
tensor([[0.5441, 0.4559]])
""",
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> dim, heads, dim_head = 512, 8, 64
>>> q = torch.full((1, dim_head), 0.25); k = torch.tensor([[0.25] * dim_head, [0.0] * dim_head])
>>> torch.softmax(q @ k.T * dim_head ** -0.5, dim=-1).round(decimals=4)
tensor([[0.6225, 0.3775]])
""",
    ),
    "AM503": (
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> q = torch.full((1, 1, 4), 0.5); k = torch.tensor([[[0.5] * 4, [0.0] * 4]]); v = torch.eye(2)[None]
>>> F.scaled_dot_product_attention(q, k, v, scale=4 ** 0.5)[0].round(decimals=4)
tensor([[0.8808, 0.1192]])
""",
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> q = torch.full((1, 1, 4), 0.5); k = torch.tensor([[[0.5] * 4, [0.0] * 4]]); v = torch.eye(2)[None]
>>> F.scaled_dot_product_attention(q, k, v, scale=1 / 4 ** 0.5)[0].round(decimals=4)
tensor([[0.6225, 0.3775]])
""",
    ),
    "AM504": (
        """\
>>> import torch
>>> q = torch.full((1, 4), 0.5); k = torch.tensor([[0.5] * 4, [0.0] * 4]); d = 4
>>> scores = q @ k.T / d ** 0.5
>>> torch.softmax(scores / d ** 0.5, dim=-1).round(decimals=4)   # divided by √d twice
tensor([[0.5622, 0.4378]])
""",
        """\
>>> import torch
>>> q = torch.full((1, 4), 0.5); k = torch.tensor([[0.5] * 4, [0.0] * 4]); d = 4
>>> scores = q @ k.T / d ** 0.5
>>> torch.softmax(scores, dim=-1).round(decimals=4)   # once: the weights SDPA gives
tensor([[0.6225, 0.3775]])
""",
    ),
    "AM601": (
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> q = k = torch.zeros(1, 1, 3, 2); v = torch.eye(3)[None, None]
>>> real = torch.tensor([[True, True, False]])
>>> F.scaled_dot_product_attention(q, k, v, attn_mask=real[:, None, :, None])[0, 0]   # query 2: no key
tensor([[0.3333, 0.3333, 0.3333],
        [0.3333, 0.3333, 0.3333],
        [0.0000, 0.0000, 0.0000]])
""",
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> q = k = torch.zeros(1, 1, 3, 2); v = torch.eye(3)[None, None]
>>> real = torch.tensor([[True, True, False]])
>>> F.scaled_dot_product_attention(q, k, v, attn_mask=real[:, None, None, :])[0, 0]
tensor([[0.5000, 0.5000, 0.0000],
        [0.5000, 0.5000, 0.0000],
        [0.5000, 0.5000, 0.0000]])
""",
    ),
    "AM602": (
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> scores = torch.zeros(1, 3, 3)
>>> real = torch.tensor([[True, True, False]])
>>> allowed = real[:, :, None] & real[:, None, :]
>>> torch.softmax(scores.masked_fill(~allowed, float('-inf')), dim=-1)[0]   # NaN row
tensor([[0.5000, 0.5000, 0.0000],
        [0.5000, 0.5000, 0.0000],
        [   nan,    nan,    nan]])
""",
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> scores = torch.zeros(1, 3, 3)
>>> real = torch.tensor([[True, True, False]])
>>> torch.softmax(scores.masked_fill(~real[:, None, :], float('-inf')), dim=-1)[0]
tensor([[0.5000, 0.5000, 0.0000],
        [0.5000, 0.5000, 0.0000],
        [0.5000, 0.5000, 0.0000]])
""",
    ),
    "AM603": (
        """\
>>> import torch
>>> scores = torch.zeros(3, 3)                 # [L, S]: every score is 0
>>> scores[2, :] = float("-inf")               # query 2 may attend to no key
>>> scores.softmax(dim=-1)[2].tolist()         # 0/0
[nan, nan, nan]
""",
        """\
>>> import torch
>>> scores = torch.zeros(3, 3)
>>> scores[2, :] = float("-inf")
>>> weights = scores.softmax(dim=-1)
>>> torch.where(weights.isnan(), 0.0, weights)[2].tolist()   # that query reads nothing
[0.0, 0.0, 0.0]
""",
    ),
    "AM701": (
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> padding = torch.tensor([[0, 0, 1]])     # 1 = padding, as integers
>>> ~padding                                # not the real tokens: -1 and -2
tensor([[-1, -1, -2]])
""",
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> padding = torch.tensor([[False, False, True]])
>>> ~padding
tensor([[ True,  True, False]])
""",
    ),
    "AM702": (
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> attention_mask = torch.tensor([[1, 1, 0]])     # Hugging Face: 1 = real token
>>> ~attention_mask                              # nonzero everywhere: every key reads True
tensor([[-2, -2, -1]])
>>> (~attention_mask).bool()
tensor([[True, True, True]])
""",
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> attention_mask = torch.tensor([[1, 1, 0]])
>>> attention_mask == 0                          # True = padding
tensor([[False, False,  True]])
""",
    ),
    "AM703": (
        """\
>>> import torch
>>> allowed = torch.tensor([[True, True, False]])      # for SDPA: True = may attend
>>> low = torch.finfo(torch.float32).min
>>> eager = torch.zeros(1, 3).masked_fill(~allowed, low)   # for eager: 0 or the minimum
>>> eager.logical_not()                                # True where attention is allowed
tensor([[ True,  True, False]])
>>> scores = torch.zeros(1, 3)
>>> torch.softmax(scores.masked_fill(eager.logical_not(), -torch.inf), dim=-1)
tensor([[0., 0., 1.]])
""",
        """\
>>> import torch
>>> allowed = torch.tensor([[True, True, False]])
>>> low = torch.finfo(torch.float32).min
>>> eager = torch.zeros(1, 3).masked_fill(~allowed, low)
>>> scores = torch.zeros(1, 3)
>>> torch.softmax(scores.masked_fill(allowed.logical_not(), -torch.inf), dim=-1)  # invert
tensor([[0.5000, 0.5000, 0.0000]])
>>> torch.softmax(scores + eager, dim=-1)                                         # add
tensor([[0.5000, 0.5000, 0.0000]])
""",
    ),
    "AM307": (
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> W = 3                                   # config.sliding_window: 3 keys, the query's own among them
>>> i, j = torch.arange(6)[:, None], torch.arange(6)[None, :]   # queries, keys
>>> def flash_window(left, right):          # flash-attn's window_size with causal=True, as documented
...     return (j >= i - left) & (j <= i + right) & (j <= i)   # (flash-attn itself needs CUDA)
>>> q = k = torch.zeros(1, 1, 6, 4)
>>> v = torch.eye(6)[None, None]            # one-hot values: output row = weight row
>>> F.scaled_dot_product_attention(q, k, v, attn_mask=flash_window(W, W))[0, 0, 5].tolist()
[0.0, 0.0, 0.25, 0.25, 0.25, 0.25]
""",
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> from attention import sliding_window_allowed
>>> W = 3
>>> i, j = torch.arange(6)[:, None], torch.arange(6)[None, :]
>>> def flash_window(left, right):
...     return (j >= i - left) & (j <= i + right) & (j <= i)
>>> q = k = torch.zeros(1, 1, 6, 4)
>>> v = torch.eye(6)[None, None]
>>> out = F.scaled_dot_product_attention(q, k, v, attn_mask=flash_window(W - 1, 0))
>>> [round(w, 4) for w in out[0, 0, 5].tolist()]  # query 5 sees keys 3, 4, 5: W keys
[0.0, 0.0, 0.0, 0.3333, 0.3333, 0.3333]
>>> torch.equal(flash_window(W - 1, 0), sliding_window_allowed(6, W))
True
""",
    ),
    "AM801": (
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> _ = torch.manual_seed(0)
>>> mha = torch.nn.MultiheadAttention(4, 1)      # batch_first=False: reads [T, B, E]
>>> x = torch.randn(2, 3, 4)                     # [B=2, T=3, E=4]
>>> out, weights = mha(x, x, x)
>>> tuple(weights.shape)                         # 3 'batches' of 2 tokens
(3, 2, 2)
""",
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> _ = torch.manual_seed(0)
>>> mha = torch.nn.MultiheadAttention(4, 1, batch_first=True)
>>> x = torch.randn(2, 3, 4)
>>> out, weights = mha(x, x, x)
>>> tuple(weights.shape)                         # 2 batches of 3 tokens
(2, 3, 3)
""",
    ),
    "AM802": (
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> B, H = 2, 2
>>> padding = torch.tensor([[False, True], [False, False]])[:, None, :].expand(B, 2, 2)
>>> tiled = padding.repeat(H, 1, 1)           # laid out h*B + b
>>> [bool(tiled[b * H + h, 0, 1]) for b in range(B) for h in range(H)]   # batch 0 head 1 unmasked
[True, False, True, False]
""",
        """\
>>> import torch
>>> import torch.nn.functional as F
>>> B, H = 2, 2
>>> padding = torch.tensor([[False, True], [False, False]])[:, None, :].expand(B, 2, 2)
>>> tiled = padding.repeat_interleave(H, dim=0)   # laid out b*H + h, as MHA reads it
>>> [bool(tiled[b * H + h, 0, 1]) for b in range(B) for h in range(H)]
[True, True, False, False]
""",
    ),
    "AM803": (
        """\
>>> import torch
>>> B, L, H, d = 1, 2, 2, 2
>>> x = torch.arange(8.0).view(B, L, H * d)   # a Linear's output: position 0 is 0..3, 1 is 4..7
>>> x.view(B, H, -1, d)[0, 0]                 # "head 0": both halves of position 0, no position 1
tensor([[0., 1.],
        [2., 3.]])
""",
        """\
>>> import torch
>>> B, L, H, d = 1, 2, 2, 2
>>> x = torch.arange(8.0).view(B, L, H * d)
>>> x.view(B, -1, H, d).transpose(1, 2)[0, 0]  # head 0: its slice of position 0 and of position 1
tensor([[0., 1.],
        [4., 5.]])
""",
    ),
    "AM804": (
        """\
>>> import torch
>>> B, H = 2, 2
>>> padding = torch.tensor([[False, False], [False, True]])  # item 1's key 1: padding
>>> mask = padding[:, None, :].expand(-1, 2, -1)  # [B, L, S], True = masked out
>>> tiled = mask.repeat(H, 1, 1)                   # row h·B + b
>>> scores = torch.zeros(B * H, 2, 2)              # row b·H + h (split, merged)
>>> weights = torch.softmax(scores.masked_fill(tiled, float("-inf")), dim=-1)
>>> weights[1 * H + 0, 0]                          # item 1, head 0: half on its padding
tensor([0.5000, 0.5000])
>>> weights[0 * H + 1, 0]                          # item 0, head 1: a real key lost
tensor([1., 0.])
""",
        """\
>>> import torch
>>> B, H = 2, 2
>>> padding = torch.tensor([[False, False], [False, True]])
>>> mask = padding[:, None, :].expand(-1, 2, -1)
>>> tiled = mask.repeat_interleave(H, dim=0)       # row b·H + h, as the scores
>>> scores = torch.zeros(B * H, 2, 2)
>>> weights = torch.softmax(scores.masked_fill(tiled, float("-inf")), dim=-1)
>>> weights[1 * H + 0, 0], weights[0 * H + 1, 0]
(tensor([1., 0.]), tensor([0.5000, 0.5000]))
""",
    ),
}
