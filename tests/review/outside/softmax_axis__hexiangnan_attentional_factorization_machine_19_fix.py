"""The AFM attention network takes the softmax of its (None, M'*(M'-1), 1) scores over dim=1, the feature pairs, as the reply in the thread suggests.

Report: https://github.com/hexiangnan/attentional_factorization_machine/issues/19
Class: softmax_axis
"""

import torch
import torch.nn.functional as F


def run() -> torch.Tensor:
    torch.manual_seed(0)
    batch, num_interactions, hidden_factor, attention_size = 2, 6, 4, 3
    weights = {
        "attention_W": torch.randn(hidden_factor, attention_size),
        "attention_b": torch.randn(1, attention_size),
        "attention_p": torch.randn(attention_size),
    }
    # pairwise products of the feature embeddings: None * (M'*(M'-1)) * K
    element_wise_product = torch.randn(batch, num_interactions, hidden_factor)

    attention_mul = torch.matmul(
        element_wise_product.reshape(-1, hidden_factor), weights["attention_W"]
    ).reshape(-1, num_interactions, attention_size)
    attention_relu = torch.sum(
        weights["attention_p"] * F.relu(attention_mul + weights["attention_b"]), 2, keepdim=True
    )  # None * (M'*(M'-1)) * 1
    attention_out = F.softmax(attention_relu, dim=1)
    AFM = torch.sum(attention_out * element_wise_product, 1)  # None * K
    return AFM
