"""Fragments the rules' wrong and right examples share (imports, a class head, the scores line)."""

_SDPA_HEAD = "import torch\nimport torch.nn.functional as F\n\n"
_MHA_CLASS = (
    "from torch import nn\n\n\n"
    "class Encoder(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.attn = nn.MultiheadAttention(16, 2, batch_first=True)\n\n"
)
_SCORES = "    scores = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5\n"

_ROW_BIAS = (
    "import torch\n\n\n"
    "def attend(q, k, v):\n"
    "    bias = torch.zeros(1, 1, 3, 3)\n"
    '    bias[..., 2, :] = float("-inf")  # query 2 may attend to nothing\n'
    "    scores = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5 + bias\n"
)
_SPLIT_CLASS = (
    "import torch\nfrom torch import nn\n\n\n"
    "class Attention(nn.Module):\n"
    "    def __init__(self, dim, heads):\n"
    "        super().__init__()\n"
    "        self.heads, self.head_dim = heads, dim // heads\n"
    "        self.q = nn.Linear(dim, dim)\n\n"
    "    def forward(self, x):\n"
    "        b = x.size(0)\n"
)
