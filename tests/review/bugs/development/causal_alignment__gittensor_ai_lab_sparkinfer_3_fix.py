"""The prefill kernel maps query ``qpos`` to key position ``qpos + (seqlen_kv - seqlen_q)`` and attends through it: the cached context stays visible.

Report: https://github.com/gittensor-ai-lab/sparkinfer/issues/3
Class: causal_alignment
"""

import torch


def flash_prefill(q, k, v, causal=True):
    seqlen_q, seqlen_kv = q.size(-2), k.size(-2)
    out = torch.empty_like(q)
    for qpos in range(seqlen_q):
        kv_end = min(seqlen_kv, qpos + 1 + (seqlen_kv - seqlen_q)) if causal else seqlen_kv
        scores = q[..., qpos : qpos + 1, :] @ k[..., :kv_end, :].transpose(-2, -1)
        probs = (scores / q.size(-1) ** 0.5).softmax(-1)  # (B, H, 1, kv_end)
        out[..., qpos : qpos + 1, :] = probs @ v[..., :kv_end, :]
    return out


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q = torch.randn(1, 2, 3, 4)  # query chunk: the tail of the sequence
    k = torch.randn(1, 2, 8, 4)
    v = torch.randn(1, 2, 8, 4)
    return flash_prefill(q, k, v)
