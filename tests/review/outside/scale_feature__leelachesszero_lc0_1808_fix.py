"""The policy encoder's multi-head attention scales Q K^T by 1 / sqrt(depth), the width of one head.

Report: https://github.com/LeelaChessZero/lc0/pull/1808
Class: scale_feature
"""

import math

import torch

kSquares = 64


def attention_matmul_2d(transpose_b, heads, M, N, K, alpha, A, B):
    """For each head: alpha * A[h] @ (B[h]^T if transpose_b else B[h])."""
    A = A.view(heads, M, K)
    B = B.view(heads, N, K) if transpose_b else B.view(heads, K, N)
    return alpha * torch.bmm(A, B.transpose(1, 2) if transpose_b else B)


def encoder_mha(q_out, k_out, v_out, heads):
    """q_out, k_out, v_out: [batch_size, kSquares, d_model] outputs of the Q, K, V layers."""
    batch_size = q_out.shape[0]
    d_model = q_out.shape[-1]
    depth = d_model // heads
    scaling = 1.0 / math.sqrt(depth)

    outputs = []
    # MHA is done per batch since there's a fourth dimension introduced.
    for batch in range(batch_size):
        # Reshape and transpose for each head.
        Q = q_out[batch].view(kSquares, heads, depth).transpose(0, 1).contiguous()
        K = k_out[batch].view(kSquares, heads, depth).transpose(0, 1).contiguous()
        V = v_out[batch].view(kSquares, heads, depth).transpose(0, 1).contiguous()

        # matmul(Q, K) for all heads per batch.
        QK = attention_matmul_2d(True, heads, kSquares, kSquares, depth, scaling, Q, K)

        # Apply Softmax.
        QK = torch.softmax(QK, dim=-1)

        # matmul(softmax(QK), V) for all heads per batch.
        attn = attention_matmul_2d(False, heads, kSquares, depth, kSquares, 1.0, QK, V)

        # Transpose back into 64 x H x D.
        outputs.append(attn.transpose(0, 1).reshape(kSquares, d_model))
    return torch.stack(outputs)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q_out, k_out, v_out = (torch.randn(3, 2, kSquares, 32) * 1.5).unbind(0)
    return encoder_mha(q_out, k_out, v_out, heads=4)
