"""The DSA indexer adds the attention mask as an additive bias, but with SDPA the mask is Boolean: True (may attend) adds 1.

Report: https://github.com/huggingface/transformers/pull/48363
Class: bool_to_float
"""

import torch


def indexer_topk(index_scores, attention_mask, index_topk):
    # index_scores: (batch, q_len, k_len); attention_mask: (batch, 1, q_len, k_len)
    causal_mask = attention_mask
    index_scores = index_scores + causal_mask[:, 0]  # bug
    return index_scores.topk(index_topk, dim=-1).indices  # the keys each query keeps


def run() -> torch.Tensor:
    torch.manual_seed(0)
    index_scores = torch.randn(1, 4, 4) * 4
    attention_mask = torch.tril(torch.ones(4, 4, dtype=torch.bool))[None, None]  # True = may attend
    return indexer_topk(index_scores, attention_mask, index_topk=2).float()
