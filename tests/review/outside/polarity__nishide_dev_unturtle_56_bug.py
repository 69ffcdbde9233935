"""_normalize_attention_mask reads any 4-D mask it is given as a boolean keep-mask by casting it to bool; an additive float mask from the HF helpers (0.0 = keep, finfo.min = masked) becomes a keep-mask of the opposite polarity, so attention is restricted to the padding.

Report: https://github.com/nishide-dev/unturtle/pull/56
Class: polarity
Decidable: values
"""

import torch
import torch.nn.functional as F


def _normalize_attention_mask(attention_mask, batch_size, seq_len):
    if attention_mask is None:
        return None
    if attention_mask.dim() == 2:
        keep = attention_mask.bool()[:, None, None, :]
    else:
        keep = attention_mask.bool()  # bug
    return keep.expand(batch_size, 1, seq_len, seq_len)


class DDiTBlockAttention(torch.nn.Module):
    def __init__(self, dim, n_heads):
        super().__init__()
        self.n_heads = n_heads
        self.attn_qkv = torch.nn.Linear(dim, 3 * dim, bias=False)
        self.attn_out = torch.nn.Linear(dim, dim, bias=False)

    def forward(self, x, attention_mask=None):
        b, s, d = x.shape
        qkv = self.attn_qkv(x).view(b, s, 3, self.n_heads, d // self.n_heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4)
        keep = _normalize_attention_mask(attention_mask, b, s)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)  # bug
        return self.attn_out(out.transpose(1, 2).reshape(b, s, d))


def run() -> torch.Tensor:
    torch.manual_seed(0)
    block = DDiTBlockAttention(dim=8, n_heads=2)
    x = torch.randn(2, 4, 8)
    padding = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]])
    # the 4-D additive mask a HF-style caller passes: 0.0 = keep, finfo.min = masked
    additive = torch.zeros(2, 1, 4, 4).masked_fill(padding[:, None, None, :] == 0, torch.finfo(torch.float32).min)
    return block(x, attention_mask=additive)
