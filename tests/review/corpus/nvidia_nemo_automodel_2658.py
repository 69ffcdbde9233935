"""A causal and a padding mask, each holding ``finfo.min``, added together.

Written from NVIDIA-NeMo/Automodel#2658 (two finfo.min masks summed in bfloat16 / float16).
"""

import torch


def combined_bias(causal_forbidden, padding_forbidden, dtype):
    min_value = torch.finfo(dtype).min
    causal = torch.zeros(causal_forbidden.shape, dtype=dtype).masked_fill(
        causal_forbidden, min_value
    )
    padding = torch.zeros(padding_forbidden.shape, dtype=dtype).masked_fill(
        padding_forbidden, min_value
    )
    return causal + padding  # expect: AM204
