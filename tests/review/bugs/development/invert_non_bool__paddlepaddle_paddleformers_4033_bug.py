"""``~can_infer_attention_mask`` is a bitwise NOT on the integer 0/1 flag (``~0 == -1``, ``~1 == -2``): the default mask is added with weight -2 instead of 0.

Report: https://github.com/PaddlePaddle/PaddleFormers/pull/4033
Class: invert_non_bool
"""

import torch


def prepare_attention_mask_for_generation(input_ids, pad_token_id, eos_token_id):
    is_pad_token_in_inputs = int(bool((input_ids == pad_token_id).any()))
    is_pad_token_not_equal_to_eos_token_id = int(pad_token_id != eos_token_id)
    can_infer_attention_mask = is_pad_token_in_inputs * is_pad_token_not_equal_to_eos_token_id
    attention_mask_from_padding = input_ids.ne(pad_token_id).long()
    default_attention_mask = torch.ones_like(input_ids)
    return (
        attention_mask_from_padding * can_infer_attention_mask
        + default_attention_mask * ~can_infer_attention_mask  # bug
    )


def run() -> torch.Tensor:
    torch.manual_seed(0)
    input_ids = torch.tensor([[0, 0, 5, 6], [3, 4, 5, 6]])  # left padding with id 0
    attention_mask = prepare_attention_mask_for_generation(input_ids, 0, 2)
    scores = torch.randn(2, 4, 4)
    scores = scores.masked_fill(attention_mask[:, None, :] == 0, float("-inf"))
    return scores.softmax(-1)
