"""The Nucleus model turns the text mask into an additive bias only when it is not floating point, but the base model has already cast the boolean mask to the model dtype, so a 0/1 float mask skips the conversion and is added to the scores as +1 / +0: the padding tokens stay attendable.

Report: https://github.com/Comfy-Org/ComfyUI/pull/13471
Class: bool_to_float
Decidable: values
"""

import torch


def optimized_attention(q, k, v, heads, mask=None):
    b, _, dim = q.shape
    q, k, v = (t.view(b, -1, heads, dim // heads).transpose(1, 2) for t in (q, k, v))
    scores = q @ k.transpose(-2, -1) * (dim // heads) ** -0.5
    if mask is not None:
        scores = scores + mask[:, None, None, :]  # bug
    out = scores.softmax(dim=-1) @ v
    return out.transpose(1, 2).reshape(b, -1, dim)


class NucleusTransformer(torch.nn.Module):
    def __init__(self, dim=8, heads=2):
        super().__init__()
        self.heads = heads
        self.to_q = torch.nn.Linear(dim, dim)
        self.to_kv = torch.nn.Linear(dim, 2 * dim)

    def forward(self, x, context, attention_mask=None):
        encoder_hidden_states = context
        encoder_hidden_states_mask = attention_mask
        if encoder_hidden_states_mask is not None and encoder_hidden_states_mask.ndim > 2:
            encoder_hidden_states_mask = encoder_hidden_states_mask.reshape(encoder_hidden_states_mask.shape[0], -1)
        if encoder_hidden_states_mask is not None and not torch.is_floating_point(encoder_hidden_states_mask):  # bug
            encoder_hidden_states_mask = (encoder_hidden_states_mask - 1).to(x.dtype) * torch.finfo(x.dtype).max
        k, v = self.to_kv(encoder_hidden_states).chunk(2, dim=-1)
        return optimized_attention(self.to_q(x), k, v, self.heads, mask=encoder_hidden_states_mask)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    model = NucleusTransformer()
    x = torch.randn(2, 3, 8)
    context = torch.randn(2, 5, 8)
    text_mask = torch.tensor([[True, True, True, False, False], [True, True, True, True, False]])
    attention_mask = text_mask.to(x.dtype)  # the base model casts the mask to the model dtype first
    return model(x, context, attention_mask=attention_mask)
