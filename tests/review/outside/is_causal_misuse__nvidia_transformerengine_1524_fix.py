"""Softmax's fallback path, used when no fused kernel is available, applies the upper-triangular (causal) mask itself when softmax_type is SCALED_UPPER_TRIANG_MASKED.

Report: https://github.com/NVIDIA/TransformerEngine/issues/1524
Class: is_causal_misuse
"""

import torch


class SoftmaxType:
    SCALED = "scaled"
    SCALED_MASKED = "scaled_masked"
    SCALED_UPPER_TRIANG_MASKED = "scaled_upper_triang_masked"


def is_softmax_kernel_available(softmax_type, batch, heads, q_seqlen, k_seqlen, dtype):
    # the fused kernels are not available on this device
    return False


class Softmax:
    def __init__(self, scale_factor=1.0, softmax_type=SoftmaxType.SCALED):
        self.scale_factor = scale_factor
        self.softmax_type = softmax_type

    def __call__(self, logits):
        batch, heads, q_seqlen, k_seqlen = logits.shape
        dtype = logits.dtype
        if self.softmax_type is not SoftmaxType.SCALED_MASKED and is_softmax_kernel_available(
            self.softmax_type, batch, heads, q_seqlen, k_seqlen, dtype
        ):
            raise NotImplementedError("fused kernel path")
        # For the case that self.softmax == SoftmaxType.SCALED_UPPER_TRIANG_MASKED
        # and kernel is unavailable, then try on pure scaled softmax custom calls.
        if is_softmax_kernel_available(SoftmaxType.SCALED, batch, heads, q_seqlen, k_seqlen, dtype):
            raise NotImplementedError("fused kernel path")
        if self.softmax_type is SoftmaxType.SCALED_UPPER_TRIANG_MASKED:
            causal_mask = torch.ones(q_seqlen, k_seqlen, dtype=torch.bool).triu(diagonal=1)
            logits = logits.masked_fill(causal_mask, -1e10)
        outputs = torch.softmax(logits * self.scale_factor, dim=-1)
        return outputs


def run() -> torch.Tensor:
    torch.manual_seed(0)
    logits = torch.randn(1, 2, 4, 4)
    softmax = Softmax(scale_factor=0.5, softmax_type=SoftmaxType.SCALED_UPPER_TRIANG_MASKED)
    return softmax(logits)
