"""The softmax runs over the last axis, the context positions, as the report's fix does.

Report: https://github.com/PetrochukM/PyTorch-NLP/issues/2
Class: softmax_axis
"""

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dimensions):
        super().__init__()
        self.linear_in = nn.Linear(dimensions, dimensions, bias=False)
        self.linear_out = nn.Linear(dimensions * 2, dimensions, bias=False)
        self.softmax = nn.Softmax(dim=-1)
        self.tanh = nn.Tanh()

    def forward(self, query, context):
        batch_size, output_len, dimensions = query.size()
        query_len = context.size(1)
        query = query.reshape(batch_size * output_len, dimensions)
        query = self.linear_in(query)
        query = query.reshape(batch_size, output_len, dimensions)
        # (batch_size, output_len, dimensions) * (batch_size, query_len, dimensions) ->
        # (batch_size, output_len, query_len)
        attention_scores = torch.bmm(query, context.transpose(1, 2).contiguous())
        attention_scores = attention_scores.view(batch_size * output_len, query_len)
        attention_weights = self.softmax(attention_scores)
        return attention_weights.view(batch_size, output_len, query_len)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention = Attention(3)
    return attention(torch.randn(2, 1, 3), torch.randn(2, 4, 3))
