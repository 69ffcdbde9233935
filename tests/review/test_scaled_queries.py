"""A scale applied to the queries (or keys) before ``q @ kᵀ`` is checked where they meet.

``q = self.q_proj(x) * self.scaling`` then the head split (``view``, ``transpose``): the
scores are scaled, by that scale, so a scale from the model width is AM502 there as it is on
the scores, and ``q * √d`` AM503.  The root of a scale split over both sides,
``q * math.sqrt(scale)`` and ``k * math.sqrt(scale)`` (onnxscript's SDPA), is no √d.
"""

from __future__ import annotations

import pytest

from attention.review.check import check_source

_LAYER = """import math
import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.scaling = {scale}
        self.q_proj = nn.Linear(embed_dim, embed_dim)
        self.k_proj = nn.Linear(embed_dim, embed_dim)

    def forward(self, x):
        B, L, _ = x.shape
        q = {query}
        q = q.view(B, L, self.num_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(B, L, self.num_heads, self.head_dim).transpose(1, 2)
        return (q @ k.transpose(-2, -1)).softmax(dim=-1)
"""


def codes(scale: str, query: str) -> list[tuple[str, int]]:
    source = _LAYER.format(scale=scale, query=query)
    return [(finding.code, finding.line) for finding in check_source(source, "case.py")]


@pytest.mark.parametrize(
    ("scale", "query", "expected"),
    [
        ("embed_dim ** -0.5", "self.q_proj(x) * self.scaling", [("AM502", 11)]),
        ("embed_dim ** -0.5", "self.scaling * self.q_proj(x)", [("AM502", 11)]),
        ("math.sqrt(embed_dim)", "self.q_proj(x) / self.scaling", [("AM502", 11)]),
        ("self.head_dim ** -0.5", "self.q_proj(x) * self.scaling", []),
        ("math.sqrt(self.head_dim)", "self.q_proj(x) * self.scaling", [("AM503", 17)]),
        ("math.sqrt(self.head_dim)", "self.q_proj(x) / self.scaling", []),
        # scaled after the split: as before
        ("embed_dim ** -0.5", "self.q_proj(x)", []),
    ],
)
def test_a_query_scaled_at_its_projection(
    scale: str, query: str, expected: list[tuple[str, int]]
) -> None:
    assert codes(scale, query) == expected


_SPLIT = """import math
import torch


def attend(query, key, value, scale):
    query_scaled = query * {q}
    key_transposed_scaled = key.transpose(-2, -1) * {k}
    return torch.softmax(query_scaled @ key_transposed_scaled, dim=-1) @ value
"""


@pytest.mark.parametrize(
    ("q", "k"),
    [
        ("math.sqrt(scale)", "math.sqrt(scale)"),
        ("(1 / query.shape[-1] ** 0.5) ** 0.5", "(1 / query.shape[-1] ** 0.5) ** 0.5"),
    ],
)
def test_the_root_of_a_scale_on_both_sides(q: str, k: str) -> None:
    source = _SPLIT.format(q=q, k=k)
    assert check_source(source, "case.py") == []


def test_a_root_of_the_head_size_multiplied_in() -> None:
    source = _SPLIT.format(q="1.0", k="math.sqrt(query.size(-1))")
    assert [finding.code for finding in check_source(source, "case.py")] == ["AM503"]


_POOL = """import torch
from torch import nn


class Pooled(nn.Module):
    def __init__(self, d_model, nhead):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model, nhead, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.d_model, self.nhead = d_model, nhead
        self.pool_q = nn.Linear(d_model, d_model)
        self.pool_k = nn.Linear(d_model, d_model)

    def forward(self, x):
        h = self.encoder(x)
        q = self.pool_q(h.mean(dim=1, keepdim=True)) * self.d_model ** -0.5
        k = self.pool_k(h){split}
        return torch.softmax(q @ k.transpose(-2, -1), dim=-1)
"""


def test_a_single_head_beside_a_multi_head_encoder() -> None:
    """No head split where the scaled query meets its keys: the width is the head size."""
    assert check_source(_POOL.format(split=""), "case.py") == []
    split = ".view(h.size(0), -1, self.nhead, self.d_model // self.nhead).transpose(1, 2)"
    found = check_source(_POOL.format(split=split), "case.py")
    assert [finding.code for finding in found] == ["AM502"]


def test_a_width_name_that_is_the_head_size() -> None:
    """`nn.Linear(in_dim, hidden_dim * num_heads)`: hidden_dim is each head's size."""
    source = _LAYER.format(scale="embed_dim ** -0.5", query="self.q_proj(x) * self.scaling")
    per_head = source.replace(
        "nn.Linear(embed_dim, embed_dim)", "nn.Linear(7, embed_dim * num_heads)"
    )
    assert check_source(per_head, "case.py") == []


@pytest.mark.parametrize(
    "scaling",
    [
        "        q = q * q.shape[-1] ** -0.5\n",  # a query the pass does not know, times a scale
        "        dim = q.shape[-1]\n        q = q * dim ** -0.5\n",
        "        q = q * (self.attn_mult / self.head_dim)\n",  # muP's 1/d, folded into q
    ],
)
def test_queries_scaled_before_their_heads_meet(scaling: str) -> None:
    source = (
        "import torch\nfrom torch import nn\n\n\nclass Attend(nn.Module):\n"
        "    def __init__(self, heads, head_dim):\n        super().__init__()\n"
        "        self.heads, self.head_dim, self.attn_mult = heads, head_dim, 8.0\n\n"
        "    def forward(self, q, k, v):\n"
        + scaling
        + "        q = q.view(q.size(0), -1, self.heads, self.head_dim).transpose(1, 2)\n"
        "        return (q @ k.transpose(-2, -1)).softmax(dim=-1) @ v\n"
    )
    assert check_source(source, "case.py") == []


def test_a_query_scaled_where_it_meets_the_keys() -> None:
    source = (
        "import torch\nfrom torch import nn\n\n\nclass Attend(nn.Module):\n"
        "    def __init__(self, heads):\n        super().__init__()\n        self.heads = heads\n\n"
        "    def forward(self, q, k, v):\n"
        "        q = q * q.shape[-1] ** -0.5\n"
        "        return (q @ k.transpose(-2, -1)).softmax(dim=-1) @ v\n"
    )
    assert check_source(source, "case.py") == []


def test_heads_split_elsewhere_in_the_function() -> None:
    """A query through a helper the pass does not read, then scaled: the split is in the view."""
    source = (
        _LAYER.format(scale="embed_dim ** -0.5", query="self.q_proj(x)")
        .replace(
            "        q = q.view(B, L, self.num_heads, self.head_dim).transpose(1, 2)\n",
            "        q = q.view(B, L, self.num_heads, self.head_dim)\n"
            "        q = apply_rotary(q, x).transpose(1, 2)\n"
            "        q = q * self.scaling\n",
        )
        .replace(
            "k = self.k_proj(x).view(B, L, self.num_heads, self.head_dim).transpose(1, 2)",
            "k = keys_of(x)",
        )
    )
    assert [finding.code for finding in check_source(source, "case.py")] == ["AM502"]


def test_heads_split_in_a_helper() -> None:
    source = _LAYER.format(scale="embed_dim ** -0.5", query="self.q_proj(x)")
    source = source.replace(
        "        q = q.view(B, L, self.num_heads, self.head_dim).transpose(1, 2)\n"
        "        k = self.k_proj(x).view(B, L, self.num_heads, self.head_dim).transpose(1, 2)\n",
        "        q = self.split(q, B) * self.scaling\n        k = self.split(self.k_proj(x), B)\n",
    )
    source += (
        "\n    def split(self, t, bsz):\n"
        "        return t.view(bsz, -1, self.num_heads, self.head_dim).transpose(1, 2)\n"
    )
    assert [finding.code for finding in check_source(source, "case.py")] == ["AM502"]


_EINOPS = """import torch
from torch import nn
from einops import rearrange


class Attention(nn.Module):
    def __init__(self, dim, heads=8):
        super().__init__()
        self.heads = heads
        self.scale = dim ** -0.5
        self.to_q = nn.Linear(dim, dim)
        self.to_k = nn.Linear(dim, dim)

    def forward(self, x):
        q = self.to_q(x) * self.scale
        k = self.to_k(x)
        q = rearrange(q, "{pattern}"{heads})
        k = rearrange(k, "{pattern}"{heads})
        return (q @ k.transpose(-1, -2)).softmax(dim=-1)
"""


@pytest.mark.parametrize(
    ("pattern", "heads", "expected"),
    [
        ("b n (h d) -> b h n d", ", h=self.heads", [("AM502", 10)]),
        ("b n (heads d) -> b heads n d", ", heads=self.heads", [("AM502", 10)]),
        ("b n (g d) -> b g n d", ", g=self.heads", [("AM502", 10)]),  # a head count given
        ("b n (h d) -> b n h d", ", h=self.heads", [("AM502", 10)]),
        ("b n d -> b 1 n d", "", []),  # one head: its width is its head size
        ("b n (g d) -> b g n d", ", g=2", []),  # an axis not named for the heads
        ("b n (h d) -> b n (h d)", ", h=self.heads", []),  # merged again
    ],
)
def test_a_scaled_query_split_by_einops(pattern: str, heads: str, expected: list) -> None:
    """``rearrange(q, 'b n (h d) -> b h n d', h=heads)`` splits the heads off a scaled query
    (lucidrains/vit-pytorch#65's shape of the scale from the width)."""
    source = _EINOPS.format(pattern=pattern, heads=heads)
    assert [(f.code, f.line) for f in check_source(source, "case.py")] == expected


_UNBOUND = """import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, num_heads=8):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.scale = {scale}
        self.qkv = nn.Linear(dim, dim * 3)

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        q = q * self.scale
        attn = (q @ k.transpose(-2, -1)).softmax(dim=-1)
        return attn @ v
"""


@pytest.mark.parametrize(
    ("scale", "expected"), [("dim ** -0.5", [("AM502", 10)]), ("self.head_dim ** -0.5", [])]
)
def test_a_query_the_pass_does_not_know_carries_its_scale(
    scale: str, expected: list[tuple[str, int]]
) -> None:
    """timm's layer with the width's scale: `q * self.scale` of an unbound query."""
    source = _UNBOUND.format(scale=scale)
    assert [(f.code, f.line) for f in check_source(source, "case.py")] == expected


_KERAS_PORT = """import torch
import torch.nn.functional as F
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.d_model = d_model
        self.depth = d_model // num_heads

    def forward(self, q, k, batch_size):
        q = q.view(batch_size, -1, self.num_heads, self.depth).permute(0, 2, 1, 3)
        k = k.view(batch_size, -1, self.num_heads, self.depth).permute(0, 2, 1, 3)
        matmul_qk = torch.matmul(q, k.transpose(-1, -2))
        dk = {dk}
        return F.softmax(matmul_qk / torch.sqrt(dk), dim=-1)
"""


@pytest.mark.parametrize(
    ("dk", "expected"),
    [
        ("torch.tensor(self.d_model, dtype=torch.float32)", [("AM502", 18)]),
        ("float(self.d_model)", [("AM502", 18)]),
        ("torch.tensor(self.depth, dtype=torch.float32)", []),
        ("torch.tensor(self.d_model // self.num_heads, dtype=torch.float32)", []),
    ],
)
def test_a_scale_named_for_the_head_size_that_holds_the_width(
    dk: str, expected: list[tuple[str, int]]
) -> None:
    """The TensorFlow tutorial's `dk`, given the model width in a port: what the name holds."""
    found = check_source(_KERAS_PORT.format(dk=dk), "case.py")
    assert [(f.code, f.line) for f in found] == expected


_BLOOM = """import math
import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, hidden_size, n_head):
        super().__init__()
        self.num_heads = n_head
        self.head_dim = hidden_size // n_head

    def forward(self, query_layer, key_layer, batch_size, q_length):
        scores = torch.baddbmm(
            torch.zeros(batch_size * self.num_heads, q_length, q_length),
            batch1=query_layer,
            batch2=key_layer,
            beta=0.0,
            alpha={alpha},
        )
        return scores.softmax(dim=-1)
"""


@pytest.mark.parametrize(
    ("alpha", "expected"),
    [
        ("1.0 / math.sqrt(self.num_heads)", [("AM502", 18)]),  # the head count
        ("1.0 / math.sqrt(self.head_dim)", []),
        ("math.sqrt(self.head_dim)", [("AM503", 18)]),  # the wrong power
    ],
)
def test_baddbmm_scales_by_alpha(alpha: str, expected: list[tuple[str, int]]) -> None:
    """BLOOM's scores: torch.baddbmm(bias, q, k, beta=0.0, alpha=1/√d); batch_size * num_heads
    elsewhere in the layer does not make the head count a head size."""
    found = check_source(_BLOOM.format(alpha=alpha), "case.py")
    assert [(f.code, f.line) for f in found] == expected


_VIT = """import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, heads=8, dim_head=64):
        super().__init__()
        inner_dim = {inner}
        self.heads = heads
        self.scale = {scale} ** -0.5
        self.to_qkv = nn.Linear(dim, inner_dim * 3, bias=False)

    def forward(self, x):
        b, n, _ = x.shape
        q, k, v = self.to_qkv(x).chunk(3, dim=-1)
        q, k, v = (t.reshape(b, n, self.heads, -1).transpose(1, 2) for t in (q, k, v))
        dots = torch.matmul(q, k.transpose(-1, -2)) * self.scale
        return dots.softmax(dim=-1) @ v
"""


@pytest.mark.parametrize(
    ("inner", "scale", "expected"),
    [
        ("dim_head * heads", "inner_dim", [("AM502", 10)]),  # every head's width together
        ("heads * dim_head", "inner_dim", [("AM502", 10)]),
        ("dim_head * heads", "dim_head", []),
        ("dim_head * 2", "inner_dim", []),  # no head count in it
    ],
)
def test_a_width_made_of_the_head_size_times_the_heads(
    inner: str, scale: str, expected: list[tuple[str, int]]
) -> None:
    """vit-pytorch's ``inner_dim = dim_head * heads`` is the width, whatever its name."""
    found = check_source(_VIT.format(inner=inner, scale=scale), "case.py")
    assert [(f.code, f.line) for f in found] == expected


_WIDTH = """import math
import torch
from torch import nn


class MultiHeadedAttention(nn.Module):
    def __init__(self, n_head, {width}):
        super().__init__()
        self.d_k = {width} // n_head
        self.h = n_head
        self.scale = 1.0 / math.sqrt({scale})

    def forward(self, q, k, n_batch):
        q = q.view(n_batch, -1, self.h, self.d_k).transpose(1, 2)
        k = k.view(n_batch, -1, self.h, self.d_k).transpose(1, 2)
        return (torch.matmul(q, k.transpose(-2, -1)) * self.scale).softmax(dim=-1)
"""


@pytest.mark.parametrize("width", ["n_feat", "attention_dim", "adim", "hidden_units"])
def test_other_names_of_the_model_width(width: str) -> None:
    """ESPnet's ``n_feat`` / ``adim`` / ``attention_dim``, SASRec's ``hidden_units``."""
    wrong = check_source(_WIDTH.format(width=width, scale=width), "case.py")
    assert [(f.code, f.line) for f in wrong] == [("AM502", 11)]
    right = check_source(_WIDTH.format(width=width, scale="self.d_k"), "case.py")
    assert right == []
