"""``~`` on a Python ``int`` or ``bool`` is arithmetic: ``~0 == -1``, ``~1 == -2``, ``~True == -2``.

A flag made with the builtins ``int(...)`` or ``bool(...)`` (and products of such ints) and
inverted with ``~`` to weigh a mask in or out adds it with weight -1 or -2 instead of 0 or 1
(paddleformers#4033): AM701.  A tensor's ``.bool()`` and a name imported over the builtin are
not Python scalars.
"""

from __future__ import annotations

import pytest

from attention.review.check import check_source

_CASE = (
    "import torch\n\n\n"
    "def mask_for(ids, pad, scores):\n"
    "    {flag}\n"
    "    mask = ids.ne(pad).long() * flag + torch.ones_like(ids) * ~flag\n"
    "    return scores.masked_fill(mask[:, None, :] == 0, float('-inf')).softmax(-1)\n"
)


def codes(flag: str) -> list[str]:
    return [finding.code for finding in check_source(_CASE.format(flag=flag), "case.py")]


@pytest.mark.parametrize(
    "flag",
    [
        "flag = int(bool((ids == pad).any()))",
        "flag = bool((ids == pad).any())",
        "flag = int((ids == pad).any()) * int(pad != 2)",
    ],
)
def test_inverting_a_python_scalar(flag: str) -> None:
    assert codes(flag) == ["AM701"]


@pytest.mark.parametrize(
    "flag",
    [
        "flag = (ids == pad).any()",  # a Boolean tensor: ~ is a logical not
        "flag = (ids == pad).any().bool()",
        "flag = int((ids == pad).any()) * (ids == pad)",  # times a Boolean tensor
    ],
)
def test_inverting_a_tensor(flag: str) -> None:
    assert codes(flag) == []


def test_a_name_imported_over_the_builtin() -> None:
    source = _CASE.format(flag="flag = int(True)").replace(
        "import torch\n", "import torch\nfrom torch import tensor as int\n"
    )
    assert [finding.code for finding in check_source(source, "case.py")] == []
