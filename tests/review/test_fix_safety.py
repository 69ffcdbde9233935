"""``--fix`` changes no correct program: each rewrite is run before and after on correct inputs.

The one fixable rule is AM202: a fill beyond float16's range becomes ``torch.finfo(x.dtype).min``.
That is the same program in float32 only where ``x`` is floating and a softmax reads the filled
tensor at once; these programs are run on float32 inputs, with a fully masked row among them,
before and after the rewrite, and the outputs compared.  Where the rewrite would not be safe
(another operation between the fill and the softmax, ``torch`` not bound where the fill runs,
an integer tensor), the finding stays and the source is left as it was.
"""

from __future__ import annotations

from typing import Any

import pytest
import torch

from attention.review.check import check_source
from attention.review.fix import fixed_source

FP16 = "\n# trained with --fp16\n"
"""Each program says it runs in float16: a fill beyond its range is a finding only there."""

SAFE = {
    "method": (
        "import torch\n\n\ndef f(s, mask):\n    return s.masked_fill(mask, -1e9).softmax(-1)\n",
        "torch.finfo(s.dtype).min",
    ),
    "function": (
        "import torch\n\n\ndef f(s, mask):\n    return torch.softmax(torch.masked_fill(s, mask, -1e9), -1)\n",
        "torch.finfo(s.dtype).min",
    ),
    "scores": (
        "import torch\n\n\ndef f(q, k, m):\n"
        "    scores = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5\n"
        "    scores = scores.masked_fill(m, -1e9)\n"
        "    return torch.softmax(scores, dim=-1)\n",
        "torch.finfo(scores.dtype).min",
    ),
    "aliased": (
        "import torch as th\n\n\ndef f(s, mask):\n    return s.masked_fill(mask, -1e9).softmax(-1)\n",
        "th.finfo(s.dtype).min",
    ),
}

UNSAFE = {
    # divided by a temperature after the fill: a fully masked row is finite with -1e9 / t, NaN
    # with finfo.min / t overflowing to -inf
    "temperature": "import torch\n\n\ndef f(q, k, m, t):\n"
    "    s = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5\n"
    "    s = s.masked_fill(m, -1e9)\n"
    "    return torch.softmax(s / t, dim=-1)\n",
    # torch bound only for type checkers: the rewrite would raise NameError
    "type-checking": "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    import torch\n\n\n"
    "def f(s, mask):\n    return s.masked_fill(mask, -1e9).softmax(-1)\n",
    # torch imported inside another function
    "local-import": "def g():\n    import torch\n    return torch\n\n\n"
    "def f(s, mask):\n    return s.masked_fill(mask, -1e9).softmax(-1)\n",
    # nothing shows the filled tensor is floating or read by a softmax (an integer one raises)
    "no-softmax": "import torch\n\n\ndef f(attn_ids, m):\n    return attn_ids.masked_fill(m, -1e9)\n",
}


SAFE = {name: (source + FP16, rewrite) for name, (source, rewrite) in SAFE.items()}
UNSAFE = {name: source + FP16 for name, source in UNSAFE.items()}


def _run(source: str, *args: torch.Tensor) -> Any:
    namespace: dict[str, Any] = {}
    exec(compile(source, "<test>", "exec"), namespace)
    return namespace["f"](*args)


def _inputs(name: str) -> tuple[torch.Tensor, ...]:
    generator = torch.Generator().manual_seed(0)
    mask = torch.tensor([[False, True, False], [True, True, True]])  # row 1: fully masked
    if name == "scores":
        q = torch.randn(2, 4, generator=generator)
        k = torch.randn(3, 4, generator=generator)
        return q, k, mask
    return torch.randn(2, 3, generator=generator), mask


@pytest.mark.parametrize("name", list(SAFE))
def test_a_safe_rewrite_gives_the_same_numbers(name: str) -> None:
    source, rewrite = SAFE[name]
    fixed = fixed_source(source)
    assert rewrite in fixed
    assert "-1e9" not in fixed
    before = _run(source, *_inputs(name))
    after = _run(fixed.replace("import torch as th", "import torch as th"), *_inputs(name))
    assert torch.equal(before, after)
    assert check_source(fixed) == []


@pytest.mark.parametrize("name", list(UNSAFE))
def test_an_unsafe_rewrite_is_not_made(name: str) -> None:
    source = UNSAFE[name]
    found = check_source(source)
    assert [f.code for f in found] == ["AM202"]
    assert found[0].fix_code is None
    assert fixed_source(source) == source


def test_the_temperature_case_is_why() -> None:
    q, k, m = torch.randn(2, 4), torch.randn(3, 4), torch.ones(2, 3, dtype=torch.bool)
    t = torch.tensor(0.5)
    source = UNSAFE["temperature"]
    finite = _run(source, q, k, m, t)
    rewritten = source.replace("-1e9", "torch.finfo(s.dtype).min")
    assert torch.isfinite(finite).all()
    assert torch.isnan(_run(rewritten, q, k, m, t)).all()


def test_every_other_byte_is_kept() -> None:
    source = "\ufeffimport torch\r\n\r\n\r\ndef f(s, mask):  # keep, fp16\r\n    return s.masked_fill(mask, -1e9).softmax(-1)\r\n"
    fixed = fixed_source(source)
    assert fixed == source.replace("-1e9", "torch.finfo(s.dtype).min")


def test_a_float32_tensor_is_no_finding() -> None:
    source = "import torch\n\n\ndef f(s, mask):\n    return s.float().masked_fill(mask, -1e9).softmax(-1)\n"
    source += FP16
    assert check_source(source) == []
