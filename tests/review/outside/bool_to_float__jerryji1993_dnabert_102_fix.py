"""get_extended_attention_mask returns the converted mask ((1.0 - mask) * -10000.0), so the padded tokens get -10000 before the softmax.

Report: https://github.com/jerryji1993/DNABERT/issues/102
Class: bool_to_float
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
        attention_scores = attention_scores + attention_mask
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
        extended_attention_mask = extended_attention_mask.to(dtype=self.dtype)
        extended_attention_mask = (1.0 - extended_attention_mask) * -10000.0
        return extended_attention_mask

    def forward(self, hidden_states, attention_mask):
        extended_attention_mask = self.get_extended_attention_mask(attention_mask, hidden_states.shape[:2])
        return self.attention(hidden_states, extended_attention_mask)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    model = BertModel()
    hidden_states = torch.randn(2, 5, 8)
    attention_mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 0]])
    return model(hidden_states, attention_mask)
