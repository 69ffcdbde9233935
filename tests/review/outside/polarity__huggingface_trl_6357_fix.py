"""The attention mask keeps the prompt by its prompt mask and the completion up to and including its first EOS, instead of matching ids against pad_token_id, as the pull request does.

Report: https://github.com/huggingface/trl/pull/6357
Class: polarity
"""

import math

import torch


def generate_on_policy_outputs(generated_tokens, prompt_mask, eos_token_id, pad_token_id=None):
    prompt_length = prompt_mask.size(1)
    completion_ids = generated_tokens[:, prompt_length:]
    is_eos = completion_ids == eos_token_id
    eos_idx = torch.full((is_eos.size(0),), is_eos.size(1), dtype=torch.long)
    eos_idx[is_eos.any(dim=1)] = is_eos.int().argmax(dim=1)[is_eos.any(dim=1)]
    sequence_indices = torch.arange(is_eos.size(1)).expand(is_eos.size(0), -1)
    completion_mask = (sequence_indices <= eos_idx.unsqueeze(1)).int()

    # Pad ids can appear inside real prompt text, so use the prompt mask instead of matching ids
    new_attention_mask = torch.ones_like(generated_tokens)
    new_attention_mask[:, prompt_length:] = completion_mask
    new_attention_mask[:, :prompt_length] = prompt_mask
    new_labels = generated_tokens.clone()
    new_labels[new_attention_mask == 0] = -100
    return generated_tokens, new_attention_mask, new_labels


def student_attention(hidden, attention_mask):
    T = hidden.size(1)
    keep = torch.ones(T, T, dtype=torch.bool).tril()[None] & attention_mask.bool()[:, None, :]
    scores = hidden @ hidden.transpose(-1, -2) / math.sqrt(hidden.size(-1))
    scores = scores.masked_fill(~keep, torch.finfo(scores.dtype).min)
    return scores.softmax(dim=-1) @ hidden


def run() -> torch.Tensor:
    torch.manual_seed(0)
    eos_token_id = pad_token_id = 2  # tokenizer.pad_token = tokenizer.eos_token
    generated = torch.tensor([[5, 2, 6, 7, 8, 2, 2]])  # prompt [5, <eos>, 6] + completion [7, 8, <eos>] + pad
    prompt_mask = torch.ones(1, 3, dtype=torch.long)
    tokens, attention_mask, _ = generate_on_policy_outputs(generated, prompt_mask, eos_token_id, pad_token_id)
    embedding = torch.nn.Embedding(16, 8)
    return student_attention(embedding(tokens), attention_mask)
