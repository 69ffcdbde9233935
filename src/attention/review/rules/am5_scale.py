"""AM5xx, scale: the scores' scale, missing, taken from the model width, or inverted."""

from __future__ import annotations

from attention.review.rules._rule import Rule

RULES: tuple[Rule, ...] = (
    Rule(
        "AM501",
        "missing-scale",
        "warning",
        ("sdpa.scale.default", "mha.scale.default"),
        "The scores reach the softmax unscaled: with a head size of 64 the softmax saturates "
        "(a warning: the scale may be folded into the projection weights).  Only in code that "
        "names a head count: single-head dot-product attention (Luong's) is unscaled by design.",
        "`{subject}` takes scores that were never scaled",
        "Divide by √(head size): `scores / math.sqrt(q.size(-1))`, as SDPA does by default.",
        "import torch\n\n\ndef attend(x, w_qkv, num_heads):\n    b, t, _ = x.shape\n"
        "    q, k, v = (x @ w_qkv).view(b, t, 3, num_heads, -1).permute(2, 0, 3, 1, 4)\n"
        "    scores = q @ k.transpose(-2, -1)\n"
        "    return torch.softmax(scores, dim=-1) @ v\n",
        "import math\n\nimport torch\n\n\ndef attend(x, w_qkv, num_heads):\n    b, t, _ = x.shape\n"
        "    q, k, v = (x @ w_qkv).view(b, t, 3, num_heads, -1).permute(2, 0, 3, 1, 4)\n"
        "    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))\n"
        "    return torch.softmax(scores, dim=-1) @ v\n",
    ),
    Rule(
        "AM502",
        "scale-from-model-width",
        "warning",
        ("sdpa.scale.default", "mha.scale.default"),
        "The scale is built from the model width or the head count instead of the head size "
        "(by the names it uses): the softmax is too flat by √num_heads.",
        "`{subject}` scales by a model width or head count, not the head size",
        "Use the head size: `dim_head ** -0.5` (= (d_model // num_heads) ** -0.5).",
        "import torch\nfrom torch import nn\n\n\nclass Attention(nn.Module):\n"
        "    def __init__(self, dim, heads=8, dim_head=64):\n        super().__init__()\n"
        "        self.heads = heads\n        self.scale = dim ** -0.5\n\n"
        "    def forward(self, q, k, v):\n"
        "        dots = torch.matmul(q, k.transpose(-1, -2)) * self.scale\n"
        "        return dots.softmax(dim=-1) @ v\n",
        "import torch\nfrom torch import nn\n\n\nclass Attention(nn.Module):\n"
        "    def __init__(self, dim, heads=8, dim_head=64):\n        super().__init__()\n"
        "        self.heads = heads\n        self.scale = dim_head ** -0.5\n\n"
        "    def forward(self, q, k, v):\n"
        "        dots = torch.matmul(q, k.transpose(-1, -2)) * self.scale\n"
        "        return dots.softmax(dim=-1) @ v\n",
    ),
    Rule(
        "AM503",
        "scale-inverted",
        "error",
        ("sdpa.scale.default",),
        "The scores are multiplied by √d (or divided by 1/√d) instead of divided by it: the "
        "softmax sharpens instead of being tempered.",
        "`{subject}` is √d where the scale is 1/√d",
        "`scale=1 / math.sqrt(head_size)`; or leave scale=None (SDPA's default).",
        "import math\n\nimport torch.nn.functional as F\n\n\ndef attend(q, k, v):\n"
        "    return F.scaled_dot_product_attention(q, k, v, scale=math.sqrt(q.size(-1)))\n",
        "import math\n\nimport torch.nn.functional as F\n\n\ndef attend(q, k, v):\n"
        "    return F.scaled_dot_product_attention(q, k, v, scale=1 / math.sqrt(q.size(-1)))\n",
    ),
)
