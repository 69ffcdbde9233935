"""The field-level transformer gets embeddings laid out [rows, fields, hidden] while its nn.TransformerEncoder expects [fields, rows, hidden], so fields of different rows attend to each other.

Report: https://github.com/IBM/TabFormer/pull/14
Class: batch_first
Decidable: code
"""

import torch
from torch import nn


class TabFormerConcatEmbeddings(nn.Module):
    def __init__(self, vocab_size=20, field_hidden_size=8, num_attention_heads=2, ncols=4):
        super().__init__()
        self.ncols = ncols
        self.field_hidden_size = field_hidden_size
        self.word_embeddings = nn.Embedding(vocab_size, field_hidden_size)
        encoder_layer = nn.TransformerEncoderLayer(
            d_model=field_hidden_size, nhead=num_attention_heads, dim_feedforward=16, dropout=0.0
        )
        self.transformer_encoder = nn.TransformerEncoder(
            encoder_layer, num_layers=1, enable_nested_tensor=False
        )

    def forward(self, input_ids):
        inputs_embeds = self.word_embeddings(input_ids)  # [bsz, seq_len, ncols, hidden]
        embeds_shape = list(inputs_embeds.size())
        inputs_embeds = inputs_embeds.view(
            [-1, self.ncols, self.field_hidden_size]
        )  # [bsz * seq_len, ncols, hidden]
        inputs_embeds = self.transformer_encoder(inputs_embeds)  # bug
        return inputs_embeds.contiguous().view(embeds_shape[0], embeds_shape[1], -1)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    model = TabFormerConcatEmbeddings().eval()
    input_ids = torch.randint(0, 20, (2, 3, 4))
    with torch.no_grad():
        return model(input_ids)
