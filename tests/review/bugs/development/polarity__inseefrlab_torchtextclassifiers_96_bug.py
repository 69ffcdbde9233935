"""After the SDPA fix the mask is True for real tokens, but the attention-matrix path still fills -inf where it is True: the real tokens.

Report: https://github.com/InseeFrLab/torchTextClassifiers/pull/96
Class: polarity
"""

import torch


def label_attention_matrix(q, k, attention_mask, head_dim):
    # attention_mask: (B, T) with 1 for real tokens, 0 for padding
    attn_mask = attention_mask == 1  # (B, T), True = real token (what SDPA wants)
    attn_mask = attn_mask.unsqueeze(1).unsqueeze(2)  # (B, 1, 1, T)
    attention_scores = torch.matmul(q, k.transpose(-2, -1)) / (head_dim**0.5)
    # Set padding positions to -inf so they become 0 after softmax
    attention_scores = attention_scores.masked_fill(attn_mask, float("-inf"))  # bug
    return torch.softmax(attention_scores, dim=-1)  # (B, n_head, n_labels, T)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q = torch.randn(2, 2, 3, 4)  # (B, n_head, n_labels, head_dim)
    k = torch.randn(2, 2, 5, 4)  # (B, n_head, T, head_dim)
    attention_mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 0]])
    return label_attention_matrix(q, k, attention_mask, head_dim=4)
