"""The flattened scores are normalised with nn.Softmax(dim=-1), over the context positions of each row.

Report: https://github.com/PetrochukM/PyTorch-NLP/issues/2
Class: softmax_axis
"""

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dimensions):
        super().__init__()
        self.linear_out = nn.Linear(dimensions * 2, dimensions, bias=False)
        self.softmax = nn.Softmax(dim=-1)
        self.tanh = nn.Tanh()

    def forward(self, query, context):
        batch_size, output_len, dimensions = query.size()
        query_len = context.size(1)
        attention_scores = torch.bmm(query, context.transpose(1, 2).contiguous())
        attention_scores = attention_scores.view(batch_size * output_len, query_len)
        attention_weights = self.softmax(attention_scores)
        attention_weights = attention_weights.view(batch_size, output_len, query_len)
        mix = torch.bmm(attention_weights, context)
        combined = torch.cat((mix, query), dim=2).view(batch_size * output_len, 2 * dimensions)
        output = self.tanh(self.linear_out(combined)).view(batch_size, output_len, dimensions)
        return output


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention = Attention(3).eval()
    query = torch.randn(2, 1, 3)
    context = torch.randn(2, 4, 3)
    with torch.no_grad():
        return attention(query, context)
