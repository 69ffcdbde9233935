"""The single-head causal attention example multiplies Q by K.T and takes the softmax of the masked scores without dividing by sqrt(d_k), although the formula above it does.

Report: https://github.com/huggingface/blog/pull/2893
Class: scale
Decidable: code
"""

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

    attention_scores = Q @ K.T  # bug

    # Lower triangular mask to prevent future token access
    causal_mask = torch.tril(torch.ones(input_seq_length, input_seq_length))
    masked_scores = attention_scores.masked_fill(causal_mask == 0, float("-inf"))

    attention_weights = F.softmax(masked_scores, dim=-1)  # bug
    output = attention_weights @ V
    return output
