"""build_attention_mask applies the sliding window as tril(masked, diagonal=seqlen_k - seqlen_q + sliding_window), which keeps the causal triangle and never masks the keys older than the window.

Report: https://github.com/huggingface/transformers/pull/41228
Class: causal_diagonal
Decidable: code

The window's band is put on the wrong side of the diagonal (a tril that only trims the already
masked future), so the mask stays plain causal.
"""

import torch


def build_attention_mask(seqlen_q, seqlen_k, sliding_window=1):
    minus_inf = torch.full((seqlen_q, seqlen_k), float("-inf"))
    causal_diagonal = seqlen_k - seqlen_q + 1
    masked = torch.triu(minus_inf, diagonal=causal_diagonal)
    # Apply sliding window mask if needed
    if sliding_window > 1:
        sliding_diagonal = seqlen_k - seqlen_q + sliding_window  # bug
        masked = torch.tril(masked, diagonal=sliding_diagonal)  # bug
    return masked


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 1, 2, 6, 8).unbind(0)
    attn_mask = build_attention_mask(6, 6, sliding_window=2)
    scores = q @ k.transpose(-2, -1) / 8**0.5 + attn_mask
    return scores.softmax(dim=-1) @ v
