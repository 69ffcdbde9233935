"""The SDPA mask is attention_mask == 1, True for real tokens, as the pull request does.

Report: https://github.com/InseeFrLab/torchTextClassifiers/pull/92
Class: polarity
"""

import torch
import torch.nn.functional as F
from torch import nn


def norm(x):
    return F.rms_norm(x, (x.size(-1),))


class LabelAttention(nn.Module):
    def __init__(self, d_model, n_head, num_classes):
        super().__init__()
        self.num_classes = num_classes
        self.n_head = n_head
        self.head_dim = d_model // n_head
        self.label_embeds = nn.Embedding(num_classes, d_model)
        self.c_q = nn.Linear(d_model, d_model, bias=False)
        self.c_k = nn.Linear(d_model, d_model, bias=False)
        self.c_v = nn.Linear(d_model, d_model, bias=False)
        self.c_proj = nn.Linear(d_model, d_model, bias=False)

    def forward(self, token_embeddings, attention_mask=None):
        B, T, C = token_embeddings.size()
        label_indices = torch.arange(self.num_classes).expand(B, -1)
        all_label_embeddings = norm(self.label_embeds(label_indices))  # (B, num_classes, d_model)
        q = self.c_q(all_label_embeddings).view(B, self.num_classes, self.n_head, self.head_dim)
        k = self.c_k(token_embeddings).view(B, T, self.n_head, self.head_dim)
        v = self.c_v(token_embeddings).view(B, T, self.n_head, self.head_dim)
        q, k = norm(q), norm(k)  # QK norm
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)  # (B, H, T, D)
        attn_mask = None
        if attention_mask is not None:
            # attention_mask: (B, T) with 1 for real tokens, 0 for padding
            attn_mask = attention_mask == 1  # (B, T)
            attn_mask = attn_mask.unsqueeze(1).unsqueeze(2)  # (B, 1, 1, T)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, is_causal=False)
        y = y.transpose(1, 2).contiguous().view(B, self.num_classes, -1)  # (B, n_labels, d_model)
        return self.c_proj(y)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention = LabelAttention(d_model=8, n_head=2, num_classes=3)
    attention_mask = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]])
    return attention(torch.randn(2, 4, 8), attention_mask)
