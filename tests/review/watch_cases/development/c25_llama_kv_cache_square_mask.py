"""With a KV cache and seqlen > 1, the causal mask must be (seqlen, cache_len + seqlen), shifted by
the cache: a top-left triangle hides the cached tokens.

https://github.com/meta-llama/llama/pull/900
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

SOURCE = "https://github.com/meta-llama/llama/pull/900"

torch.manual_seed(0)
SEQ, CACHED = 3, 5
SCORES = torch.randn(1, 2, SEQ, CACHED + SEQ)


def wrong() -> torch.Tensor:
    mask = torch.full((SEQ, CACHED + SEQ), float("-inf")).triu(1)  # top-left: query i sees 0..i
    return F.softmax(SCORES + mask, dim=-1)


def right() -> torch.Tensor:
    mask = torch.full((SEQ, CACHED + SEQ), float("-inf")).triu(CACHED + 1)
    return F.softmax(SCORES + mask, dim=-1)
