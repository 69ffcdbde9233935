"""A per-sample [B, S] padding mask tiled to [B * num_heads, L, S] with unsqueeze(1).repeat(1, L * num_heads, 1).view(-1, L, S) for nn.MultiheadAttention.

Correct: the repeat happens inside each sample's block ([B, L * H, S]), so after the view the
leading index is b * num_heads + h, the order nn.MultiheadAttention reads; a sample's heads all get
that sample's padding. The diagonal is re-allowed so padded query rows keep one key.
"""

import torch
from torch import nn


class BehaviorTransformer(nn.Module):
    def __init__(self, embedding_dim=8, num_heads=2):
        super().__init__()
        self.num_heads = num_heads
        self.attention = nn.MultiheadAttention(embedding_dim, num_heads, batch_first=True)

    def get_mask(self, x):
        """padding_mask: 1 for masked positions
        attn_mask: 1 for masked positions in nn.MultiheadAttention
        """
        padding_mask = x == 0
        seq_len = padding_mask.size(1)
        attn_mask = padding_mask.unsqueeze(1).repeat(1, seq_len * self.num_heads, 1).view(-1, seq_len, seq_len)
        diag_zeros = (1 - torch.eye(seq_len, device=x.device)).bool().unsqueeze(0).expand_as(attn_mask)
        attn_mask = attn_mask & diag_zeros
        return padding_mask, attn_mask

    def forward(self, x, emb):
        padding_mask, attn_mask = self.get_mask(x)
        out, _ = self.attention(emb, emb, emb, attn_mask=attn_mask)
        return out


def run() -> torch.Tensor:
    torch.manual_seed(0)
    model = BehaviorTransformer().eval()
    x = torch.tensor([[3, 5, 2, 0], [4, 0, 0, 0]])  # item ids, 0 = padding
    emb = torch.randn(2, 4, 8)
    with torch.no_grad():
        return model(x, emb)
