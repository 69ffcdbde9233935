"""SoftMoE takes the dispatch softmax over dim=0, the batch axis of the (b, m, n, p) logits, where the paper's softmax over the m input tokens is dim=1 once a batch axis is present.

Report: https://github.com/fkodom/soft-mixture-of-experts/pull/1
Class: softmax_axis
Decidable: code
"""

import torch
from torch import Tensor, nn


class MultiExpertLayer(nn.Module):
    def __init__(self, in_features: int, out_features: int, num_experts: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(num_experts, in_features, out_features) * in_features**-0.5)

    def forward(self, x: Tensor) -> Tensor:
        return torch.einsum("b n p d, n d e -> b n p e", x, self.weight)


class SoftMoE(nn.Module):
    def __init__(self, in_features: int, out_features: int, num_experts: int, slots_per_expert: int):
        super().__init__()
        self.in_features = in_features
        self.num_experts = num_experts
        self.slots_per_expert = slots_per_expert
        self.phi = nn.Parameter(torch.randn(in_features, num_experts, slots_per_expert))
        self.experts = MultiExpertLayer(in_features, out_features, num_experts)

    def forward(self, x: Tensor) -> Tensor:
        """
        einstein notation:
        - b: batch size
        - m: input sequence length
        - d: embedding dimension
        - n: num experts
        - p: num slots per expert
        """
        logits = torch.einsum("b m d, d n p -> b m n p", x, self.phi)
        dispatch_weights = logits.softmax(dim=0)  # denoted 'D' in the paper  # bug
        b, m = logits.shape[:2]
        combine_weights = logits.flatten(start_dim=2).softmax(dim=-1).view(
            b, m, self.num_experts, self.slots_per_expert
        )

        x = torch.einsum("b m d, b m n p -> b n p d", x, dispatch_weights)  # Xs  # bug
        x = self.experts(x)  # Ys
        x = torch.einsum("b n p d, b m n p -> b m d", x, combine_weights)  # Y
        return x


def run() -> torch.Tensor:
    torch.manual_seed(0)
    moe = SoftMoE(in_features=8, out_features=8, num_experts=2, slots_per_expert=2).eval()
    x = torch.randn(3, 5, 8)
    with torch.no_grad():
        return moe(x)
