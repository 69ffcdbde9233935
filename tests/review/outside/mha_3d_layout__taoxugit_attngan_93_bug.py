"""GlobalAttentionGeneral views the scores as [batch * queryL, sourceL] (batch-major) but tiles the [batch, sourceL] word mask with repeat(queryL, 1), so each query row gets another caption's padding mask.

Report: https://github.com/taoxugit/AttnGAN/issues/93
Class: mha_3d_layout
Decidable: code
"""

import torch
from torch import nn


def conv1x1(in_planes, out_planes):
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=1, padding=0, bias=False)


class GlobalAttentionGeneral(nn.Module):
    def __init__(self, idf, cdf):
        super().__init__()
        self.conv_context = conv1x1(cdf, idf)
        self.sm = nn.Softmax(dim=1)
        self.mask = None

    def applyMask(self, mask):
        self.mask = mask  # batch x sourceL

    def forward(self, input, context):
        ih, iw = input.size(2), input.size(3)
        queryL = ih * iw
        batch_size, sourceL = context.size(0), context.size(2)

        # --> batch x queryL x idf
        target = input.view(batch_size, -1, queryL)
        targetT = torch.transpose(target, 1, 2).contiguous()
        # batch x cdf x sourceL --> batch x cdf x sourceL x 1
        sourceT = context.unsqueeze(3)
        # --> batch x idf x sourceL
        sourceT = self.conv_context(sourceT).squeeze(3)

        # --> batch x queryL x sourceL
        attn = torch.bmm(targetT, sourceT)
        # --> batch*queryL x sourceL
        attn = attn.view(batch_size * queryL, sourceL)
        if self.mask is not None:
            # batch_size x sourceL --> batch_size*queryL x sourceL
            mask = self.mask.repeat(queryL, 1)  # bug
            attn.data.masked_fill_(mask.data, -float("inf"))  # bug
        attn = self.sm(attn)
        # --> batch x queryL x sourceL
        attn = attn.view(batch_size, queryL, sourceL)
        # --> batch x sourceL x queryL
        attn = torch.transpose(attn, 1, 2).contiguous()

        # --> batch x idf x queryL
        weightedContext = torch.bmm(sourceT, attn)
        weightedContext = weightedContext.view(batch_size, -1, ih, iw)
        return weightedContext


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention = GlobalAttentionGeneral(idf=4, cdf=6)
    input = torch.randn(2, 4, 2, 2)  # batch x idf x ih x iw
    context = torch.randn(2, 6, 5)  # batch x cdf x sourceL (words)
    captions = torch.tensor([[3, 7, 9, 2, 5], [4, 8, 0, 0, 0]])  # 0 = no word
    attention.applyMask(captions == 0)
    return attention(input, context)
