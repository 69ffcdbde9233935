"""A mask of unknown rank indexed ``[:, None, :, None]`` is a padding mask on the query axis once
the code shows its rank.

``mask[:, None, :, None]`` leaves the mask's last axis second to last only if the mask has the
two axes the subscript names (``[B, S]``); a ``[B, 1, S]`` mask keeps its keys last there.  So
nothing is said until something shows that rank: ``expand`` with as many sizes
(x-transformers#172's ``'b i -> b h i j'``), or scores of as many axes that the mask fills or is
added to (``torch.bmm``'s 3-D scores, attention-is-all-you-need-keras#16).  Then it is AM601,
also for a mask known only by its name.
"""

from __future__ import annotations

import pytest

from attention.review.check import check_source

_HEAD = "import torch\n\n\n"


def found(source: str) -> list[tuple[str, int]]:
    return [(finding.code, finding.line) for finding in check_source(_HEAD + source, "case.py")]


_EXPANDED = (
    "def attend(q, k, v, mask, heads):\n"
    "    n = mask.shape[1]\n"
    "    mask = {mask}\n"
    "    dots = (q @ k.transpose(-1, -2)) * q.shape[-1] ** -0.5\n"
    "    dots = dots.masked_fill(~mask, -torch.finfo(dots.dtype).max)\n"
    "    return dots.softmax(dim=-1) @ v\n"
)


@pytest.mark.parametrize(
    "mask",
    [
        "mask[:, None, :, None].expand(-1, heads, -1, n)",
        "mask[:, None, :, None].expand((-1, heads, -1, n))",
        "mask[:, :, None].expand(-1, -1, n)",
    ],
)
def test_a_rank_shown_by_expand(mask: str) -> None:
    assert found(_EXPANDED.format(mask=mask)) == [("AM601", 6)]


@pytest.mark.parametrize(
    "mask",
    [
        "mask[:, None, None, :].expand(-1, heads, n, -1)",  # the keys stay last
        "mask[:, None, :, None]",  # the rank is not shown
        "mask[:, :, None].expand(-1, heads, -1, n)",  # 4 sizes: the mask had 3 axes
        "mask[..., None].expand(-1, heads, -1, n)",  # an Ellipsis names no rank
        "mask[:, None, :, None].expand(-1, heads, -1, n).transpose(-1, -2)",
    ],
)
def test_no_rank_or_keys_last(mask: str) -> None:
    assert found(_EXPANDED.format(mask=mask)) == []


_BMM = (
    "def attend(q, k, v, mask):\n"
    "    attn = torch.bmm(q, k.transpose(1, 2)) / q.size(-1) ** 0.5\n"
    "    attn = attn + (-1e10) * (1 - {mask})\n"
    "    return torch.bmm(torch.softmax(attn, dim=-1), v)\n"
)


def test_a_rank_shown_by_the_scores() -> None:
    assert found(_BMM.format(mask="mask[:, :, None]")) == [("AM601", 6)]
    assert found(_BMM.format(mask="mask[:, None, :]")) == []
    # [:, None, :, None] gives 4 axes, bmm's scores have 3: a mask of another rank
    assert found(_BMM.format(mask="mask[:, None, :, None]")) == []


def test_a_filled_mask_meets_scores_of_known_rank() -> None:
    source = (
        "def attend(q, k, v, pad_mask):\n"
        "    s = torch.einsum('bhid,bhjd->bhij', q, k) / q.size(-1) ** 0.5\n"
        "    s = s.masked_fill({mask}, float('-inf'))\n"
        "    return s.softmax(-1) @ v\n"
    )
    assert found(source.format(mask="pad_mask[:, None, :, None]")) == [("AM601", 6)]
    assert found(source.format(mask="pad_mask[:, None, None, :]")) == []


def test_a_mask_on_values_is_no_attention_mask() -> None:
    source = "def pool(x, mask):\n    return (x * mask[:, :, None]).sum(1)\n"
    assert found(source) == []


def test_not_a_mask_by_its_name() -> None:
    source = _EXPANDED.format(mask="keep[:, None, :, None].expand(-1, heads, -1, n)")
    assert found(source.replace("mask, heads", "keep, heads")) == []


_PACKED = (
    "def attend(x, key_padding_mask, qkv, heads):\n"
    "    B, S, D = x.shape\n"
    "    q, k, v = qkv(x).view(B, S, 3, heads, D // heads).{move}\n"
    "    s = q @ k.transpose(-2, -1) / (D // heads) ** 0.5\n"
    "    s = s.masked_fill(key_padding_mask[:, None, :, None], float('-inf'))\n"
    "    return s.softmax(dim=-1) @ v\n"
)


def test_a_rank_shown_by_queries_unpacked_from_a_permuted_projection() -> None:
    """``q, k, v = qkv.view(B, S, 3, H, d).permute(2, 0, 3, 1, 4)``: each of q, k, v has four
    axes, so the scores do, and they show the mask's rank."""
    assert found(_PACKED.format(move="permute(2, 0, 3, 1, 4)")) == [("AM601", 8)]
    assert found(_PACKED.format(move="permute(2, 0, 3, -1, 4)")) == []  # no rank shown
    assert found(_PACKED.format(move="unbind(2)")) == []  # not a tensor: nothing known


_UNSQUEEZED = (
    "import torch.nn.functional as F\n\n\n"
    "def attend(q, k, v, attention_mask):\n"
    "    keep = attention_mask.bool(){moves}\n"
    "    return F.scaled_dot_product_attention(q, k, v, attn_mask=keep)\n"
)


@pytest.mark.parametrize(
    ("moves", "expected"),
    [
        (".unsqueeze(1).unsqueeze(-1)", [("AM601", 8)]),  # the keys are no longer last
        (".unsqueeze(1).unsqueeze(2)", []),  # [B, 1, 1, S] as the name's rank says
        (".unsqueeze(1).unsqueeze(3)", []),  # last only if the name's rank is right: a guess
    ],
)
def test_unsqueeze_minus_one_moves_the_keys_whatever_the_rank(
    moves: str, expected: list[tuple[str, int]]
) -> None:
    assert found(_UNSQUEEZED.format(moves=moves)) == expected
