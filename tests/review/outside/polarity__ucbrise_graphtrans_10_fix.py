"""The fill is made where the mask passed as valid_input_mask is non-zero (src_padding_mask is True at the padding), so only the padded nodes are masked.

Report: https://github.com/ucbrise/graphtrans/issues/10
Class: polarity
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def pad_batch(h_node, batch, max_input_len):
    num_batch = int(batch[-1]) + 1
    masks = [batch.eq(i) for i in range(num_batch)]
    num_nodes = [int(mask.sum()) for mask in masks]
    max_num_nodes = min(max(num_nodes), max_input_len)
    padded_h_node = h_node.data.new(max_num_nodes, num_batch, h_node.size(-1)).fill_(0)
    src_padding_mask = h_node.data.new(num_batch, max_num_nodes).fill_(0).bool()
    for i, mask in enumerate(masks):
        num_node = min(num_nodes[i], max_num_nodes)
        padded_h_node[-num_node:, i] = h_node[mask][-num_node:]
        src_padding_mask[i, : max_num_nodes - num_node] = True  # [b, s]
    return padded_h_node, src_padding_mask


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head):
        super().__init__()
        self.key = nn.Linear(n_embd, n_embd)
        self.query = nn.Linear(n_embd, n_embd)
        self.value = nn.Linear(n_embd, n_embd)
        self.n_head = n_head

    def forward(self, x, attn_mask=None, valid_input_mask=None, mask_value=-1e6):
        B, T, C = x.size()
        k = self.key(x).view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = self.query(x).view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = self.value(x).view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        if attn_mask is not None:
            att = att.masked_fill(attn_mask.unsqueeze(1) == 0, mask_value)
        if valid_input_mask is not None:
            att = att.masked_fill(valid_input_mask.unsqueeze(1).unsqueeze(2) != 0, mask_value)
        att = F.softmax(att, dim=-1)
        y = att @ v
        return y.transpose(1, 2).contiguous().view(B, T, C)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    h_node = torch.randn(5, 8)
    batch = torch.tensor([0, 0, 0, 1, 1])  # two graphs: 3 nodes and 2 nodes
    padded_h_node, src_padding_mask = pad_batch(h_node, batch, max_input_len=10)
    attn = CausalSelfAttention(n_embd=8, n_head=2)
    return attn(padded_h_node.transpose(0, 1), valid_input_mask=src_padding_mask)
