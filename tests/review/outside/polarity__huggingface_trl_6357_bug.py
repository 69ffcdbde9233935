"""GKD's generate_on_policy_outputs masks every generated position whose id equals pad_token_id; when the tokenizer's pad token is its EOS token, the real EOS tokens (also inside the prompt's chat template) are masked out of the student's attention.

Report: https://github.com/huggingface/trl/pull/6357
Class: polarity
Decidable: values

model.generate is replaced by fixed generated ids (prompt of length 3 whose template holds an EOS,
then a completion ending in EOS and padding); the student side is one causal eager attention.
"""

import math

import torch


def generate_on_policy_outputs(generated_tokens, pad_token_id=None):
    # Calculate new attention mask
    new_attention_mask = torch.ones_like(generated_tokens)
    new_labels = generated_tokens.clone()

    # If there's pad_token_id, set attention mask to 0 for padding tokens
    if pad_token_id is not None:
        new_labels[new_labels == pad_token_id] = -100
        new_attention_mask[generated_tokens == pad_token_id] = 0  # bug

    return generated_tokens, new_attention_mask, new_labels


def student_attention(hidden, attention_mask):
    T = hidden.size(1)
    keep = torch.ones(T, T, dtype=torch.bool).tril()[None] & attention_mask.bool()[:, None, :]
    scores = hidden @ hidden.transpose(-1, -2) / math.sqrt(hidden.size(-1))
    scores = scores.masked_fill(~keep, torch.finfo(scores.dtype).min)  # bug
    return scores.softmax(dim=-1) @ hidden


def run() -> torch.Tensor:
    torch.manual_seed(0)
    eos_token_id = pad_token_id = 2  # tokenizer.pad_token = tokenizer.eos_token
    generated = torch.tensor([[5, 2, 6, 7, 8, 2, 2]])  # prompt [5, <eos>, 6] + completion [7, 8, <eos>] + pad
    tokens, attention_mask, _ = generate_on_policy_outputs(generated, pad_token_id)
    embedding = torch.nn.Embedding(16, 8)
    return student_attention(embedding(tokens), attention_mask)
