"""Left padding applied on both axes: the padded queries' rows have no allowed key.

Written from huggingface/transformers#32390 (NaN from fully masked rows with left padding).
"""

import torch


def masked_scores(q, k, input_ids, pad_token_id):
    real = input_ids != pad_token_id
    allowed = real[:, None, :, None] & real[:, None, None, :]
    scores = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5
    scores = scores.masked_fill(~allowed, float("-inf"))  # expect: AM602
    return torch.softmax(scores, dim=-1)
