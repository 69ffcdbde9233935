"""MOSA-Net+ builds its frame-score attention as nn.MultiheadAttention(128, num_heads=8) (batch_first=False) but feeds it the [batch, seq, 128] output of a batch_first LSTM, so the samples of a batch attend to one another.

Report: https://github.com/dhimasryan/MOSA-Net-Cross-Domain/issues/10
Class: batch_first
Decidable: code

Trimmed to the LSTM, dense layer and quality head of MosPredictor.forward; the convolutional,
SincNet and Whisper feature paths that build concat_feat are replaced by a random input.
"""

import torch
from torch import nn


class MosPredictor(nn.Module):
    def __init__(self):
        super().__init__()
        self.relu_ = nn.ReLU()
        self.sigmoid_ = nn.Sigmoid()
        self.mean_net_rnn = nn.LSTM(input_size=512, hidden_size=128, num_layers=1, batch_first=True, bidirectional=True)
        self.mean_net_dnn = nn.Sequential(nn.Linear(256, 128), nn.ReLU(), nn.Dropout(0.3))
        self.att_output_layer_quality = nn.MultiheadAttention(128, num_heads=8)  # bug
        self.output_layer_quality = nn.Linear(128, 1)
        self.qualaverage_score = nn.AdaptiveAvgPool1d(1)

    def forward(self, concat_feat):
        out_lstm, (h, c) = self.mean_net_rnn(concat_feat)
        out_dense = self.mean_net_dnn(out_lstm)  # (batch, seq, 1)
        quality_att, _ = self.att_output_layer_quality(out_dense, out_dense, out_dense)  # bug
        frame_quality = self.output_layer_quality(quality_att)
        frame_quality = self.sigmoid_(frame_quality)
        quality_utt = self.qualaverage_score(frame_quality.permute(0, 2, 1))
        return quality_utt.squeeze(1)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    model = MosPredictor()
    model.eval()
    concat_feat = torch.randn(3, 6, 512)  # [batch, frames, features]
    return model(concat_feat)
