"""scaled_dot_product_attention_batch scales the per-head dot products by 1/sqrt(d_model/h), the width of each head.

Report: https://github.com/brightmart/bert_language_understanding/issues/9
Class: scale_feature
"""

import math

import torch


class MultiHeadAttention:
    def __init__(self, d_model, h):
        self.d_model = d_model
        self.h = h

    def scaled_dot_product_attention_batch(self, Q, K_s, V_s):
        # 1. split Q,K,V
        Q_heads = torch.stack(torch.chunk(Q, self.h, dim=2), dim=1)  # [batch,h,length,d_k]
        K_heads = torch.stack(torch.chunk(K_s, self.h, dim=2), dim=1)  # [batch,h,length,d_k]
        V_heads = torch.stack(torch.chunk(V_s, self.h, dim=2), dim=1)  # [batch,h,length,d_k]
        # 2. dot product of Q,K
        dot_product = torch.matmul(Q_heads, K_heads.transpose(-1, -2))  # [batch,h,length,length]
        dot_product = dot_product * (1.0 / math.sqrt(float(self.d_model / self.h)))
        # 3. get possibility
        weights = torch.softmax(dot_product, dim=-1)
        # 4. final output
        output = torch.matmul(weights, V_heads)  # [batch,h,length,d_k]
        # 5. concat
        output = torch.cat(torch.unbind(output, dim=1), dim=-1)  # [batch,length,d_model]
        return output


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention = MultiHeadAttention(d_model=32, h=4)
    Q = torch.randn(2, 5, 32) * 2.0
    K_s = torch.randn(2, 5, 32) * 2.0
    V_s = torch.randn(2, 5, 32)
    return attention.scaled_dot_product_attention_batch(Q, K_s, V_s)
