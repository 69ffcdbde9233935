"""The single-head causal attention example divides Q @ K.T by sqrt(d_k), with d_k = K.shape[-1], before the mask and the softmax, as in the formula.

Report: https://github.com/huggingface/blog/pull/2893
Class: scale
"""

import math

import torch
import torch.nn.functional as F


def run() -> torch.Tensor:
    torch.manual_seed(0)
    input_seq_length = 5
    dim_model = 10

    input_ids_emb = torch.randn(input_seq_length, dim_model)
    W_q = torch.randn(dim_model, dim_model)
    W_k = torch.randn(dim_model, dim_model)
    W_v = torch.randn(dim_model, dim_model)

    Q = input_ids_emb @ W_q
    K = input_ids_emb @ W_k
    V = input_ids_emb @ W_v

    d_k = K.shape[-1]
    attention_scores = (Q @ K.T) / math.sqrt(d_k)

    # Lower triangular mask to prevent future token access
    causal_mask = torch.tril(torch.ones(input_seq_length, input_seq_length))
    masked_scores = attention_scores.masked_fill(causal_mask == 0, float("-inf"))

    attention_weights = F.softmax(masked_scores, dim=-1)
    output = attention_weights @ V
    return output
