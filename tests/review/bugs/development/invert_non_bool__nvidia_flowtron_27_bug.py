"""``get_mask_from_lengths`` returns a byte mask and the caller inverts it with ``~``: since torch 1.2 that gives 254/255, every position reads as padding and the attention row is all -inf (NaN).

Report: https://github.com/NVIDIA/flowtron/pull/27
Class: invert_non_bool
"""

import torch


def get_mask_from_lengths(lengths):
    max_len = torch.max(lengths).item()
    ids = torch.arange(0, max_len, dtype=torch.long)
    return (ids < lengths.unsqueeze(1)).byte()


class Attention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.score_mask_value = -float("inf")

    def forward(self, queries, keys, values, mask):
        attn = torch.bmm(queries, keys.transpose(1, 2))  # (B, T_out, T_in)
        attn = attn / queries.size(-1) ** 0.5
        attn = attn.masked_fill(mask.transpose(1, 2).bool(), self.score_mask_value)
        return torch.bmm(attn.softmax(dim=2), values)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    in_lens = torch.tensor([4, 2])
    mask = ~get_mask_from_lengths(in_lens)[..., None]  # bug
    keys = values = torch.randn(2, 4, 8)
    queries = torch.randn(2, 3, 8)
    return Attention()(queries, keys, values, mask)
