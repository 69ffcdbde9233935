"""A Boolean mask is first turned into a float bias, 0 where allowed and finfo.min elsewhere, as the pull request does.

Report: https://github.com/huggingface/transformers/pull/48363
Class: bool_to_float
"""

import torch


def indexer_topk(index_scores, attention_mask, index_topk):
    # index_scores: (batch, q_len, k_len); attention_mask: (batch, 1, q_len, k_len)
    causal_mask = attention_mask
    if causal_mask.dtype == torch.bool:
        min_dtype = torch.finfo(index_scores.dtype).min
        causal_mask = torch.where(causal_mask, 0.0, min_dtype)
    index_scores = index_scores + causal_mask[:, 0]
    return index_scores.topk(index_topk, dim=-1).indices  # the keys each query keeps


def run() -> torch.Tensor:
    torch.manual_seed(0)
    index_scores = torch.randn(1, 4, 4) * 4
    attention_mask = torch.tril(torch.ones(4, 4, dtype=torch.bool))[None, None]  # True = may attend
    return indexer_topk(index_scores, attention_mask, index_topk=2).float()
