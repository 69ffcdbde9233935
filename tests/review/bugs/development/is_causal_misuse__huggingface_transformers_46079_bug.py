"""``Gemma4TextConfig(use_bidirectional_attention="all")`` leaves ``config.is_causal`` True: the shared mask helper reads that flag and builds a causal mask, so the bidirectional model cannot see later tokens.

Report: https://github.com/huggingface/transformers/pull/46079
Class: is_causal_misuse
"""

import torch


class Gemma4TextConfig:
    def __init__(self, use_bidirectional_attention=None):
        self.use_bidirectional_attention = use_bidirectional_attention
        self.is_causal = True  # bug


def create_mask(config, attention_mask):
    # the shared masking helper: config.is_causal switches between causal and bidirectional masks
    seq_len = attention_mask.shape[-1]
    allowed = attention_mask[:, None, None, :].bool()
    if config.is_causal:  # bug
        allowed = allowed & torch.ones(seq_len, seq_len, dtype=torch.bool).tril()
    return allowed


def eager_attention_forward(query, key, value, attention_mask, scaling):
    attn_weights = torch.matmul(query, key.transpose(2, 3)) * scaling
    attn_weights = attn_weights.masked_fill(~attention_mask, torch.finfo(attn_weights.dtype).min)
    attn_weights = torch.softmax(attn_weights, dim=-1)
    return torch.matmul(attn_weights, value)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    config = Gemma4TextConfig(use_bidirectional_attention="all")
    mask = create_mask(config, torch.ones(1, 4, dtype=torch.long))
    query, key, value = torch.randn(3, 1, 2, 4, 8).unbind(0)
    return eager_attention_forward(query, key, value, mask, scaling=8**-0.5)
