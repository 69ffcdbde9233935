"""The padded frames get -1e9 added ((~att_mask) * -1e9), so the attention weights of the padding are zero.

Report: https://github.com/s3prl/s3prl/issues/579
Class: bool_to_float
"""

import torch
from torch import nn


class AttentivePoolingModule(nn.Module):
    def __init__(self, input_dim, activation="ReLU"):
        super().__init__()
        self.W_a = nn.Linear(input_dim, input_dim)
        self.W = nn.Linear(input_dim, 1)
        self.act_fn = getattr(nn, activation)()
        self.softmax = nn.functional.softmax

    def forward(self, batch_rep, att_mask):
        att_logits = self.W(self.act_fn(self.W_a(batch_rep))).squeeze(-1)
        att_logits = att_logits + (~att_mask) * (-1e9)
        att_w = self.softmax(att_logits, dim=-1).unsqueeze(-1)
        utter_rep = torch.sum(batch_rep * att_w, dim=1)
        return utter_rep, att_w


class AttentivePooling(nn.Module):
    def __init__(self, input_dim):
        super().__init__()
        self.sap_layer = AttentivePoolingModule(input_dim)

    def forward(self, feature_BxTxH, features_len):
        len_masks = torch.lt(torch.arange(int(features_len.max())).unsqueeze(0), features_len.unsqueeze(1))
        sap_vec, att_w = self.sap_layer(feature_BxTxH, len_masks)
        return att_w


def run() -> torch.Tensor:
    torch.manual_seed(0)
    pooling = AttentivePooling(input_dim=8)
    features = torch.randn(2, 5, 8)
    features_len = torch.tensor([3, 5])
    return pooling(features, features_len)
