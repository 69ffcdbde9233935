"""t5_encode_text zeroes the embeddings where the tokenizer mask is True, the real tokens; the cross-attention mask derived from non-zero embeddings then hides the text and keeps the padding.

Report: https://github.com/lucidrains/muse-maskgit-pytorch/issues/38
Class: polarity
"""

import torch
import torch.nn.functional as F
from torch import nn


def t5_encode_text(encoded_text, attn_mask):
    # encoded_text: T5 last_hidden_state (b, n, d); attn_mask: tokenizer mask, 1 = real token
    attn_mask = attn_mask.bool()
    encoded_text = encoded_text.masked_fill(attn_mask[..., None], 0.0)  # bug
    return encoded_text


class CrossAttention(nn.Module):
    def __init__(self, dim, dim_head=4, heads=2, scale=8):
        super().__init__()
        self.scale = scale
        self.heads = heads
        inner_dim = dim_head * heads
        self.null_kv = nn.Parameter(torch.randn(2, heads, 1, dim_head))
        self.to_q = nn.Linear(dim, inner_dim, bias=False)
        self.to_kv = nn.Linear(dim, inner_dim * 2, bias=False)

    def forward(self, x, context, context_mask):
        b, n, h = x.shape[0], x.shape[-2], self.heads
        q, k, v = (self.to_q(x), *self.to_kv(context).chunk(2, dim=-1))
        q, k, v = (t.view(b, t.shape[1], h, -1).transpose(1, 2) for t in (q, k, v))
        nk, nv = (t.expand(b, -1, -1, -1) for t in self.null_kv)
        k = torch.cat((nk, k), dim=-2)
        v = torch.cat((nv, v), dim=-2)
        q, k = F.normalize(q, dim=-1), F.normalize(k, dim=-1)
        context_mask = context_mask[:, None, None, :].expand(b, h, n, context_mask.shape[-1])
        context_mask = F.pad(context_mask, (1, 0), value=True)
        sim = torch.einsum("b h i d, b h j d -> b h i j", q, k) * self.scale
        sim = sim.masked_fill(~context_mask, -torch.finfo(sim.dtype).max)
        attn = sim.softmax(dim=-1)
        return torch.einsum("b h i j, b h j d -> b h i d", attn, v)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    last_hidden_state = torch.randn(2, 4, 8)
    attn_mask = torch.tensor([[1, 1, 1, 1], [1, 1, 0, 0]])  # the second text is padded
    text_embeds = t5_encode_text(last_hidden_state, attn_mask)
    context_mask = (text_embeds != 0).any(dim=-1)  # bug
    image_tokens = torch.randn(2, 3, 8)
    return CrossAttention(dim=8)(image_tokens, text_embeds, context_mask)
