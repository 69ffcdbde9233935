"""A masked softmax that adds a large negative value at the masked positions before the softmax and multiplies the output by the mask afterwards, so a fully masked row comes out as zeros.

Correct: the masking that decides the weights happens before the softmax; the multiplication
after it only changes rows that are entirely masked (uniform -> zeros), it never removes weight
from a row that has an allowed position, so those rows still sum to one.
"""

import torch


class Softmax(torch.nn.Module):
    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def forward(self, inputs, mask=None):
        if mask is not None:
            adder = (1.0 - mask.to(inputs.dtype)) * -1e9
            inputs = inputs + adder
        outputs = torch.softmax(inputs, dim=self.axis)
        if mask is not None:
            outputs = outputs * mask.to(outputs.dtype)
        return outputs


def run() -> torch.Tensor:
    torch.manual_seed(0)
    scores = torch.randn(3, 4)
    mask = torch.tensor([[1, 1, 1, 0], [1, 0, 0, 0], [0, 0, 0, 0]]).bool()
    return Softmax(axis=-1)(scores, mask)
