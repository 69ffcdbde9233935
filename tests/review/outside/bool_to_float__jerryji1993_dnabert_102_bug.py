"""get_extended_attention_mask writes the converted mask into a misspelt variable (exteneded_attention_mask) and returns the raw 0/1 mask, so the attention adds +1 to the real tokens and +0 to the padding instead of -10000.

Report: https://github.com/jerryji1993/DNABERT/issues/102
Class: bool_to_float
Decidable: code
"""

import math

import torch
from torch import nn


class BertSelfAttention(nn.Module):
    def __init__(self, hidden_size, num_attention_heads):
        super().__init__()
        self.num_attention_heads = num_attention_heads
        self.attention_head_size = hidden_size // num_attention_heads
        self.query = nn.Linear(hidden_size, hidden_size)
        self.key = nn.Linear(hidden_size, hidden_size)

    def transpose_for_scores(self, x):
        new_x_shape = x.size()[:-1] + (self.num_attention_heads, self.attention_head_size)
        return x.view(*new_x_shape).permute(0, 2, 1, 3)

    def forward(self, hidden_states, attention_mask):
        query_layer = self.transpose_for_scores(self.query(hidden_states))
        key_layer = self.transpose_for_scores(self.key(hidden_states))
        attention_scores = torch.matmul(query_layer, key_layer.transpose(-1, -2))
        attention_scores = attention_scores / math.sqrt(self.attention_head_size)
        attention_scores = attention_scores + attention_mask  # bug
        return nn.Softmax(dim=-1)(attention_scores)


class BertModel(nn.Module):
    def __init__(self, hidden_size=8, num_attention_heads=2):
        super().__init__()
        self.dtype = torch.float32
        self.attention = BertSelfAttention(hidden_size, num_attention_heads)

    def get_extended_attention_mask(self, attention_mask, input_shape):
        if attention_mask.dim() == 2:
            extended_attention_mask = attention_mask[:, None, None, :]
        else:
            raise ValueError(f"Wrong shape for attention_mask (shape {attention_mask.shape})")
        exteneded_attention_mask = extended_attention_mask.to(dtype=self.dtype)
        exteneded_attention_mask = (1.0 - extended_attention_mask) * -10000.0  # bug
        return extended_attention_mask  # bug

    def forward(self, hidden_states, attention_mask):
        extended_attention_mask = self.get_extended_attention_mask(attention_mask, hidden_states.shape[:2])
        return self.attention(hidden_states, extended_attention_mask)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    model = BertModel()
    hidden_states = torch.randn(2, 5, 8)
    attention_mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 0]])
    return model(hidden_states, attention_mask)
