"""The additive float mask of the eager path is turned back into the boolean keep-mask (True where the bias is 0) before logical_not(), so only the disallowed positions get -inf.

Report: https://github.com/huggingface/transformers/pull/48817
Class: mask_dtype_inversion
"""

import torch
from torch import nn


def create_bidirectional_mask(attention_mask, dtype, attn_implementation="eager"):
    keep = attention_mask[:, None, None, :].bool()
    if attn_implementation == "sdpa":
        return keep
    return torch.zeros(keep.shape, dtype=dtype).masked_fill(~keep, torch.finfo(dtype).min)


class NemotronAsrStreamingEncoderAttention(nn.Module):
    def __init__(self, hidden_size, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = hidden_size // num_heads
        self.scaling = self.head_dim**-0.5
        self.qkv = nn.Linear(hidden_size, 3 * hidden_size)
        self.pos_bias_u = nn.Parameter(torch.zeros(num_heads, self.head_dim))
        self.pos_bias_v = nn.Parameter(torch.zeros(num_heads, self.head_dim))

    def forward(self, hidden_states, position_embeddings, attention_mask):
        b, t, _ = hidden_states.shape
        q, k, v = self.qkv(hidden_states).view(b, t, 3, self.num_heads, self.head_dim).unbind(2)
        p = position_embeddings.view(1, t, self.num_heads, self.head_dim)
        matrix_ac = torch.einsum("bthd,bshd->bhts", q + self.pos_bias_u, k)
        matrix_bd = torch.einsum("bthd,bshd->bhts", q + self.pos_bias_v, p.expand(b, -1, -1, -1))
        if attention_mask is not None:
            if attention_mask.dtype != torch.bool:
                attention_mask = attention_mask == 0
            matrix_bd = matrix_bd.masked_fill_(attention_mask.logical_not(), float("-inf"))
        attn_weights = (matrix_ac + matrix_bd) * self.scaling
        attn_weights = nn.functional.softmax(attn_weights, dim=-1)
        return torch.einsum("bhts,bshd->bthd", attn_weights, v).reshape(b, t, -1)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attn = NemotronAsrStreamingEncoderAttention(hidden_size=8, num_heads=2)
    hidden_states = torch.randn(2, 4, 8)
    position_embeddings = torch.randn(4, 8)
    lengths_mask = torch.tensor([[1, 1, 1, 0], [1, 1, 1, 1]])
    attention_mask = create_bidirectional_mask(lengths_mask, hidden_states.dtype, attn_implementation="eager")
    return attn(hidden_states, position_embeddings, attention_mask)
