"""A boolean keep-mask converted to an additive float mask with torch.zeros_like(scores).masked_fill(~mask, float("-inf")) and then added to the scores.

Correct: the float mask is a new float tensor (0 where kept, -inf where masked), so the addition
masks exactly the dropped keys; the boolean values themselves are never added, and each row
keeps at least one key.
"""

import torch


def eager_attention(query, key, value, attention_mask):
    scores = query @ key.transpose(-2, -1) * query.shape[-1] ** -0.5
    if attention_mask.dtype == torch.bool:
        attention_mask = torch.zeros_like(scores).masked_fill(attention_mask.logical_not(), float("-inf"))
    scores = scores + attention_mask
    return scores.softmax(dim=-1) @ value


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query, key, value = torch.randn(3, 1, 2, 4, 8).unbind(0)
    attention_mask = torch.ones(4, 4, dtype=torch.bool).tril()
    return eager_attention(query, key, value, attention_mask)
