"""Scores flattened to [batch_size * output_len, query_len] and normalised with nn.Softmax(dim=-1).

Correct: after the view each row holds the scores of one query over the whole context, and the
softmax runs along that row.
"""

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, query, context):
        batch_size, output_len, _ = query.size()
        query_len = context.size(1)
        attention_scores = torch.bmm(query, context.transpose(1, 2).contiguous())
        attention_scores = attention_scores.view(batch_size * output_len, query_len)
        attention_weights = self.softmax(attention_scores)
        attention_weights = attention_weights.view(batch_size, output_len, query_len)
        return torch.bmm(attention_weights, context)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    with torch.no_grad():
        return Attention()(torch.randn(2, 3, 4), torch.randn(2, 5, 4))
