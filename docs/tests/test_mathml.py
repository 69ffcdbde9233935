"""The build's TeX-to-MathML step (docs/_ext/mathml.py), without building the site.

The browser checks see the result on every page; these say what the step promises of a formula:
the TeX the site writes that docutils' converter lacks is rewritten to the same meaning, TeX it
cannot render is an error (never passed through), and the font keeps every character drawn.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from docutils.utils.math import MathError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "_ext"))
import mathml


@pytest.mark.parametrize(
    ("tex", "expected"),
    [
        (r"0, \dots, i", r"0, \ldots, i"),
        (r"a \iff b", r"a \;\Longleftrightarrow\; b"),
        (r"\dotsc \iffy", r"\dotsc \iffy"),  # whole commands only
        (r"\tfrac12 + \frac 1 3", r"\tfrac{1}{2} + \frac{1}{3}"),
        (r"\frac{12}{3}", r"\frac{12}{3}"),
        (r"m' = e^{m - m''}", r"m\prime  = e^{m - m\prime \prime }"),
        (r"D = \textstyle\sum_d x, \quad y", r"D = {\textstyle\sum_d x, \quad y}"),
        (r"{a \textstyle b} c", r"{a {\textstyle b}} c"),
        (r"\textstyle a", r"\textstyle a"),  # first in its group already
        (r"\begin{gathered} a \\ b \end{gathered}", r"\begin{matrix} a \\ b \end{matrix}"),
    ],
)
def test_tex_the_converter_lacks_is_rewritten_to_the_same_meaning(tex: str, expected: str) -> None:
    assert mathml.normalise(tex) == expected


def test_display_math_is_block_mathml_without_namespace_or_indentation() -> None:
    xml = mathml.tex_to_mathml(r"\frac{a}{\sqrt{b}}", block=True)
    assert xml.startswith('<math display="block"><mfrac><mi>a</mi><msqrt'), xml
    assert "xmlns" not in xml
    assert "\n" not in xml


def test_a_slash_is_not_spaced_as_an_operator() -> None:
    assert '<mo stretchy="false" lspace="0" rspace="0">/</mo>' in mathml.tex_to_mathml(
        "a/b", block=False
    )


@pytest.mark.parametrize("tex", [r"a \mathrel{+}= b", r"\frac{a}", r"\begin{align} a \end{align}"])
def test_tex_the_converter_cannot_render_is_an_error(tex: str) -> None:
    with pytest.raises(MathError):
        mathml.tex_to_mathml(tex, block=True)


def test_the_font_keeps_what_the_browser_draws() -> None:
    chars = mathml.characters(mathml.tex_to_mathml(r"\sqrt{h} + \mathrm{max} \ell", block=False))
    assert "\u221a" in chars  # the radical: drawn from the font, though not in the text
    assert "\u210e" in chars  # a lone h is shown as MATHEMATICAL ITALIC SMALL H (U+210E)
    assert "h" not in chars
    assert {"m", "a", "x", "+", "\u2113"} <= chars


def test_a_letter_with_its_italic_correction_is_still_drawn_italic() -> None:
    """``T^2``'s T carries a padding: it is still an italic T, which the font must hold."""
    xml = mathml.tex_to_mathml(r"T^2 + P", block=False)
    assert '<mi style="padding-right:' in xml, xml
    assert {"\U0001d447", "\U0001d443"} <= mathml.characters(xml)  # 𝑇, 𝑃


def test_the_search_index_reads_a_formula_as_unicode() -> None:
    plain = mathml.plain_text(mathml.tex_to_mathml(r"-\infty, \sqrt{d_k}, L \neq S", block=False))
    assert plain == "\u2212\u221e,\u221adk,L\u2260S"
