"""In cross-attention the text key-padding mask is sliced to the query length and applied to the image queries: most query rows are zeroed and the padded text keys are still attended.

Report: https://github.com/vllm-project/vllm-omni/issues/5865
Class: padding_axis
"""

import torch
import torch.nn.functional as F


def cross_attention(query, key, value, attention_mask):
    query_length = query.size(-2)
    query_mask = attention_mask[:, -query_length:]  # bug
    out = F.scaled_dot_product_attention(query, key, value)
    return out * query_mask[:, None, :, None]


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query = torch.randn(2, 2, 6, 4)  # image tokens
    key = torch.randn(2, 2, 8, 4)  # text tokens, padded
    value = torch.randn(2, 2, 8, 4)
    attention_mask = torch.tensor([[True] * 5 + [False] * 3, [True] * 7 + [False]])
    return cross_attention(query, key, value, attention_mask)
