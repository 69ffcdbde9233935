"""The prefill kernel caps a query at key ``qpos`` (``kv_end = min(seqlen_kv, qpos + 1)``), as if the chunk started at key 0: with a longer KV the cached context is masked out.

Report: https://github.com/gittensor-ai-lab/sparkinfer/issues/3
Class: causal_alignment
"""

import torch


def flash_prefill(q, k, v, causal=True):
    seqlen_q, seqlen_kv = q.size(-2), k.size(-2)
    out = torch.empty_like(q)
    for qpos in range(seqlen_q):
        kv_end = min(seqlen_kv, qpos + 1) if causal else seqlen_kv  # bug
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
