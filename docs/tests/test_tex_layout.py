"""TeX's layout rules in the MathML the build writes (docs/_ext/tex_layout.py), without a browser.

Each check says what TeX does with a formula (The TeXbook, Appendix G, and the fonts' metrics)
and looks for it in the MathML: the spaces between atoms, italic corrections and kerns, where
scripts stand, the size and width of delimiters and roots, arrays.  test_browser_math.py
measures the same formulas as Chromium lays them out.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "_ext"))
import mathml
import tex_layout

THICK, MEDIUM, THIN = "0.278em", "0.222em", "0.167em"


def _xml(tex: str, *, block: bool = False) -> ElementTree.Element:
    return ElementTree.fromstring(mathml.tex_to_mathml(tex, block=block))


def _mo(root: ElementTree.Element, text: str, index: int = 0) -> ElementTree.Element:
    return [mo for mo in root.iter("mo") if mo.text == text][index]


def _em(value: str | None) -> float:
    return float((value or "0").removesuffix("em"))


# -- spaces between atoms (rules 5, 6, 20 and the table of The TeXbook, p. 170) ----------------


@pytest.mark.parametrize(
    ("tex", "operator", "lspace", "rspace"),
    [
        ("a = b", "=", THICK, THICK),  # Rel: thick either side
        ("a + b", "+", MEDIUM, MEDIUM),  # Bin: medium
        ("-a", "−", "0", "0"),  # a Bin with nothing before it is an Ord
        ("a = -b", "−", THICK, "0"),  # ... and after a Rel (whose thick space it carries)
        ("(a, b)", ",", "0", THIN),  # Punct: a thin space after
        ("e^{m - m'}", "−", "0", "0"),  # no Bin space in a script
        ("x \\in A", "∈", THICK, THICK),
        ("1 .", ".", "0", "0"),  # a period is an Ord in TeX, not an operator
        ("a / b", "/", "0", "0"),
    ],
)
def test_atoms_are_spaced_by_texs_table(tex: str, operator: str, lspace: str, rspace: str) -> None:
    mo = _mo(_xml(tex), operator)
    assert (mo.get("lspace"), mo.get("rspace")) == (lspace, rspace), ElementTree.tostring(mo)


def test_a_relation_before_a_large_operator_takes_one_thick_space() -> None:
    """``= \\sum``: Rel-Op is a thick space; MathML would add the operator's own space too."""
    root = _xml(r"a = \sum_i x_i", block=True)
    assert _mo(root, "=").get("rspace") == "0"
    assert _mo(root, "∑").get("lspace") == THICK


@pytest.mark.parametrize(
    ("tex", "where"),
    [
        (r"\max(a, b)", "max"),  # Op-Open: no space (MathML: an unknown operator's thick space)
        (r"\operatorname{Var}(x)", "\u2061"),
        (r"\exp(x)", "\u2061"),
    ],
)
def test_an_operator_name_stands_close_to_its_parenthesis(tex: str, where: str) -> None:
    root = _xml(tex)
    assert _mo(root, where).get("rspace") == "0"
    assert _mo(root, "(").get("lspace") == "0"


@pytest.mark.parametrize(
    ("tex", "expected"),
    [
        (r"\ln 3", '<mi>ln</mi><mo rspace="0.167em">\u2061</mo><mn>3</mn>'),  # Op-Ord: thin
        (r"2\ln 3", '<mn>2</mn><mspace width="0.167em"></mspace><mi>ln</mi>'),  # Ord-Op: thin
        (r"s \log_2 e", '<mspace width="0.167em"></mspace><mi>e</mi>'),  # \log_2 is an Op
    ],
)
def test_an_operator_name_stands_a_thin_space_from_its_neighbours(tex: str, expected: str) -> None:
    assert expected in re.sub(r' style="[^"]*"', "", mathml.tex_to_mathml(tex, block=False))


def test_an_aligned_column_starts_as_if_after_an_ordinary_atom() -> None:
    """amsmath sets ``{}`` before the right-hand side of ``&=``: the = keeps its space."""
    root = _xml(r"\begin{aligned} a &= b \\ c &= d \end{aligned}", block=True)
    assert _mo(root, "=").get("lspace") == THICK


def test_a_negative_thin_space_takes_its_room_back() -> None:
    """``\\!``: Chromium draws a negative mspace as nothing; a negative margin moves on."""
    space = next(_xml(r"\operatorname{softmax}\!\left(x\right)").iter("mspace"))
    assert space.get("width") == "0"
    assert space.get("style") == "margin-right:-0.1667em"


# -- italic corrections and kerns (rules 14 and 17) -------------------------------------------


def test_a_superscript_stands_after_the_letters_italic_correction() -> None:
    """``T^2``: the 2 after the T's correction (the font's MATH table: 0.148 em)."""
    base = next(_xml("T^2").iter("msup"))[0]
    assert base.get("style") == "padding-right:0.148em"


def test_a_subscript_tucks_under_the_overhang() -> None:
    base = next(_xml("W_Q").iter("msub"))[0]
    assert base.get("style") is None


def test_with_both_scripts_the_superscript_alone_moves_right() -> None:
    """``W_Q^{(h)}``: the superscript by W's correction (0.132 em), in its own smaller em."""
    scripts = next(_xml("W_Q^{(h)}").iter("msubsup"))
    assert scripts[0].get("style") is None
    assert _em(scripts[2].get("style", "").removeprefix("padding-left:")) == pytest.approx(
        0.132 / 0.7, abs=0.001
    )


def test_a_letter_keeps_its_italic_correction_before_a_space() -> None:
    """``P\\,\\mathrm{Attn}`` read "PAttn": the P leans 0.14 em into the thin space."""
    letter = next(_xml(r"P\,\mathrm{Attn}").iter("mi"))
    assert letter.get("style") == "padding-right:0.14em"


@pytest.mark.parametrize(
    ("tex", "room"),
    [
        ("df", 0.024 - 0.167),  # cmmi10 kerns d-f by -1/6 em; d's correction is 0.024 em
        ("V,", 0.214 - 0.167),  # V's correction, then cmmi10's V-comma kern
    ],
)
def test_letters_kern_as_cmmi10_kerns_them(tex: str, room: float) -> None:
    letter = next(_xml(tex).iter("mi"))
    style = letter.get("style", "")
    value = _em(style.split(":")[1])
    assert value == pytest.approx(room, abs=0.001), style


def test_an_upright_name_kerns_in_the_font() -> None:
    """``Var``: the served font carries cmr10's V-a kern (-0.083 em), applied inside a name."""
    from fontTools.ttLib import TTFont

    font = TTFont(tex_layout.FONT_PATH)
    tex_layout.adapt_font(font)
    lookups = font["GPOS"].table.LookupList.Lookup
    pairs = {
        (first, second): record.Value1.XAdvance
        for lookup in lookups
        for table in lookup.SubTable
        if table.Format == 1
        for first, pair_set in zip(table.Coverage.glyphs, table.PairSet, strict=True)
        for record in pair_set.PairValueRecord
        for second in [record.SecondGlyph]
    }
    assert pairs[("V", "a")] == -83


# -- scripts (rule 18) and the font's constants ---------------------------------------------------


@pytest.mark.parametrize("letter", ["q", "k", "p", "x"])
def test_a_letters_subscript_hangs_015_em_whatever_its_depth(letter: str) -> None:
    """``q_i`` as ``k_i``: TeX ignores a character's depth (MathML Core does not)."""
    element = next(_xml(f"{letter}_i").iter("msub"))
    style = tex_layout.Style(display=False, level=0, cramped=False)
    _, shift, _ = tex_layout._scripts_extent(element, style)
    assert shift == pytest.approx(0.15, abs=0.001)


def test_the_served_font_carries_texs_script_constants() -> None:
    from fontTools.ttLib import TTFont

    font = TTFont(tex_layout.FONT_PATH)
    tex_layout.adapt_font(font)
    constants = font["MATH"].table.MathConstants
    assert constants.SubscriptShiftDown.Value == 150
    scripts = [record.ScriptTag for record in font["GSUB"].table.ScriptList.ScriptRecord]
    assert "DFLT" in scripts  # the script glyphs ('ssty') reach the browser's shaping


def test_a_display_superscript_stands_at_sigma_13() -> None:
    """In display style TeX raises a superscript 0.413 em, MathML Core 0.363 em: 0.05 em up,
    in the superscript's own em (0.7 of the formula's)."""
    wrapper = next(_xml("T^2", block=True).iter("msup"))[1]
    assert wrapper.tag == "mpadded"
    assert _em(wrapper.get("voffset")) == pytest.approx(0.05 / 0.7, abs=0.002)
    assert next(_xml("T^2").iter("msup"))[1].tag == "mn"  # not in text style


def test_a_scripts_glyphs_are_the_fonts_script_designs() -> None:
    scripts = next(_xml("W_Q").iter("msub"))
    assert scripts[1].get("class") == "ssty1"


def test_an_inline_large_operators_subscript_drops_as_tex_drops_a_boxs() -> None:
    """``\\sum_d`` in text style: the d 0.035 em below the 0.25 em-deep sum sign, not 0.15."""
    wrapper = next(_xml(r"\sum_d x").iter("munder"))[1]
    assert wrapper.tag == "mpadded"
    assert _em(wrapper.get("voffset")) == pytest.approx(-(0.25 + 0.035 - 0.15) / 0.7, abs=0.005)


# -- delimiters and roots (rule 19, rule 11) ------------------------------------------------------


def test_a_left_parenthesis_takes_texs_size_for_what_it_encloses() -> None:
    """Around a display fraction TeX's 2.4 em size (90.1 % of 2.54 em covered); MathML Core
    took the 3 em size, which covers all of it."""
    fence = _mo(_xml(r"\left(\frac{QK^\top}{\sqrt{d_k}} + M\right)", block=True), "(")
    assert fence.get("minsize") == fence.get("maxsize") == "2.392em"


def test_a_big_parenthesis_is_texs_12_em_size_and_gives_back_its_room() -> None:
    """``\\bigl(``: cmex10's 1.2 em parenthesis (Latin Modern's 1.195 em size), and a negative
    margin for the width Chromium reserves for the font's widest parenthesis (0.875 em)."""
    fence = _mo(_xml(r"f\bigl(x\bigr)"), "(")
    assert fence.get("minsize") == "1.194em"
    assert fence.get("style") == f"margin:0 -{tex_layout.em((0.875 - 0.458) / 2)}"


def test_a_root_gives_back_the_room_of_its_unused_sizes() -> None:
    """``\\sqrt{1}``: Chromium makes a root as wide as its widest size (1.056 em) while it
    draws the smallest (0.833 em): 0.223 em after the 1."""
    root = next(_xml(r"\sqrt{1} = 0").iter("msqrt"))
    assert root.get("style") == "margin-right:-0.223em"


def test_a_matrix_stands_on_texs_strut() -> None:
    table = next(_xml(r"\begin{pmatrix} 1 & 0 \\ 0 & 1 \end{pmatrix}", block=True).iter("mtable"))
    assert "matrix" in table.get("class", "").split()
    strut = next(table.iter("mtd"))[0]
    assert (strut.tag, strut.get("height"), strut.get("depth")) == ("mspace", "0.84em", "0.36em")


def test_ldots_are_three_dots_a_thin_space_apart() -> None:
    dots = [mo for mo in _xml(r"0, \dots, i").iter("mo") if mo.text == "."]
    assert [dot.get("rspace") for dot in dots] == [THIN, THIN, "0"]
