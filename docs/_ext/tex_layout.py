"""TeX's layout rules, written into MathML that a browser lays out by MathML Core's.

A browser sets MathML with the constants of the math font's OpenType MATH table, and where
TeX and MathML Core differ, the same TeX reads differently on the page and in a LaTeX document
(``docs/_tools/math_latex.py`` puts them side by side).  :func:`apply` rewrites the MathML the
converter wrote so that Chromium draws what TeX would, with nothing but MathML attributes:

* **Spacing between atoms** (The TeXbook, chapter 18 and Appendix G, rule 20): every element of
  a row is an atom of a class (Ord, Op, Bin, Rel, Open, Close, Punct, Inner) and the space
  between two atoms comes from TeX's table, with a binary operator that follows nothing, another
  operator, a relation, an opening or a punctuation mark set as an ordinary symbol, and no
  space in a script but between an operator and its neighbours.  MathML Core spaces each
  operator by its own dictionary entry instead, so ``= \\sum`` took a relation's and an
  operator's space, ``\\max(`` the space of an unknown operator and ``1 .`` a space before the
  period.  Every ``<mo>`` gets ``lspace`` and ``rspace``; a space between two atoms neither of
  which is an operator is an ``<mspace>``.
* **Italic correction and kerns** (rules 17 and 14): TeX adds to an italic letter its
  correction, the part of the glyph that leans past its advance, and sets a superscript after
  it; a browser adds nothing, so ``T²``'s 2 touched the T and ``P\\,Attn`` read ``PAttn``.  A
  letter gets the correction (from the font's MATH table) as right padding, or, with a
  superscript and a subscript, the superscript is moved right by it.  TeX also kerns two
  characters of one font (``df``, ``V,``; ``Va`` in ``Var``) by the font's table, which Latin
  Modern Math lacks: cmmi10's kerns become margins, cmr10's a kerning feature of the served font.
* **Scripts of a character** (rule 18): TeX sets a character's subscript at a fixed depth, 0.15
  em (``\\sigma_{16}``), whatever the character's own depth, while MathML Core lowers it below a
  descender (``q_i`` sat 0.15 em lower than ``k_i``) and takes 0.247 em; the font the build
  writes carries TeX's values (:data:`FONT_CONSTANTS`).  A display formula raises a lone
  superscript to TeX's ``\\sigma_{13}`` and a large operator's scripts drop as TeX drops a
  box's.  A script's glyphs are the font's designs for script sizes (its 'ssty' alternates, as
  TeX's cmmi7), which math.css asks for where the build marks a script.
* **Delimiters** (rule 19, ``\\delimiterfactor`` 901 and ``\\delimitershortfall`` 5 pt): a
  ``\\left(`` takes the smallest of TeX's sizes that covers 90.1 % of the formula it encloses,
  a ``\\bigl(`` TeX's 1.2 em size; Chromium took the smallest of the font's finer sizes that
  covers all of it, and reserved for every stretchy parenthesis the width of its widest size,
  a gap on either side of a small one.  Such a fence gets ``minsize`` and ``maxsize`` set to
  its TeX size and negative margins that give back the width it does not use.  The same gap
  stood after a square root (``√1 = 0``): the root gets the margin back.
* **Arrays and the rest**: a matrix's, a cases block's and an aligned block's rows stand on
  TeX's strut, their columns apart by TeX's ``\\arraycolsep``, ``\\quad`` or
  ``\\minalignsep`` (``math.css``, which also sets a fraction's ``\\nulldelimiterspace``);
  ``\\ldots`` is TeX's three spaced dots, and ``\\!`` takes its room back.

The vertical extent of a formula, which decides a root's and a fence's size, is computed from
the font's glyph bounds and constants by the rules of MathML Core (:class:`Extent`), for the
elements the site's formulas use; an element it cannot measure leaves its fence or root as the
browser sets it.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from docutils.utils.math import mathalphabet2unichar

FONT_SOURCE = Path(__file__).resolve().parent.parent / "_fonts" / "latin-modern-math"
FONT_PATH = FONT_SOURCE / "latinmodern-math.otf"

# TeX's values (cmsy10's font parameters, in thousandths of an em) where the font's MATH table
# gives MathML Core another rule: the build writes them into the font it serves (mathml.py).
FONT_CONSTANTS = {
    "SubscriptShiftDown": 150,  # sigma_16, a subscript alone; MathML Core's one value (0.247)
    # is TeX's sigma_17, for a subscript under a superscript, where the gap rule decides anyway
    "SubscriptBaselineDropMin": -1000,  # a character's subscript ignores its depth ...
    "SuperscriptBaselineDropMax": 1000,  # ... and its superscript its height (rule 18a)
}
# TeX's own values for what MathML Core does not distinguish
SUPERSCRIPT_DISPLAY = 0.413  # sigma_13: a superscript in display style (MathML: 0.363 always)
SUB_DROP = 0.05  # sigma_19 of the script font: how far a box's subscript drops below it
DELIMITER_FACTOR, DELIMITER_SHORTFALL = 0.901, 0.5  # \delimiterfactor, \delimitershortfall (em)
THIN, MEDIUM, THICK = 3 / 18, 4 / 18, 5 / 18  # \, \> \; (mu / 18 = em)
# TeX's \big, \Big, \bigg, \Bigg heights in cmex10, as docutils writes them (MathJax's sizes)
BIG_SIZES = {"1.2em": 1.2, "1.623em": 1.8, "2.047em": 2.4, "2.470em": 3.0}
# TeX's kerns between two characters of one font (The TeXbook, Appendix G, rule 14), which
# Latin Modern Math does not carry: cmmi10's (an italic letter before a letter, a comma, a
# period or a slash, which plain TeX takes from cmmi) and cmr10's (between the letters of an
# upright name, Var, Attn), in thousandths of an em, read from TeX Live's cmmi10.tfm and
# cmr10.tfm with tftopl.
ITALIC_KERNS = (
    "C,-56 C.-56 C/-28 F,-111 F.-111 F/-56 H,-56 H.-56 H/-56 J,-111 J.-111 J/-56 K,-56 K.-56 "
    "K/-56 M,-56 M.-56 M/-56 N,-56 N.-56 N/-83 P,-111 P.-111 P/-56 S,-56 S.-56 S/-56 T,-56 "
    "T.-56 T/-28 U,-111 U.-111 U/-56 V,-167 V.-167 V/-111 W,-167 W.-167 W/-111 X,-56 X.-56 "
    "X/-83 Y,-167 Y.-167 Y/-111 Z,-56 Z.-56 Z/-56 f,-56 f.-56 j,-56 j.-56 r,-56 r.-56 "
    "dY56 dZ-56 df-167 dj-111"
)
UPRIGHT_KERNS = (
    "AC-28 AG-28 AO-28 AQ-28 AT-83 AU-28 AV-111 AW-111 AY-83 At-28 DA-28 DV-28 DW-28 DX-28 "
    "DY-28 FA-111 FC-28 FG-28 FO-28 FQ-28 Fa-83 Fe-83 Fo-83 Fr-83 Fu-83 II28 KC-28 KG-28 KO-28 "
    "KQ-28 LT-83 LV-111 LW-111 LY-83 OA-28 OV-28 OW-28 OX-28 OY-28 PA-83 Pa-28 Pe-28 Po-28 "
    "RC-28 RG-28 RO-28 RQ-28 RT-83 RU-28 RV-111 RW-111 RY-83 Rt-28 TA-83 Ta-83 Te-83 To-83 "
    "Tr-83 Tu-83 Ty-28 VA-111 VC-28 VG-28 VO-28 VQ-28 Va-83 Ve-83 Vo-83 Vr-83 Vu-83 WA-111 "
    "WC-28 WG-28 WO-28 WQ-28 Wa-83 We-83 Wo-83 Wr-83 Wu-83 XC-28 XG-28 XO-28 XQ-28 YA-83 "
    "Ya-83 Ye-83 Yo-83 Yr-83 Yu-83 aj56 av-28 aw-28 ay-28 bc28 bd28 be28 bj56 bo28 bq28 bv-28 "
    "bw-28 bx-28 by-28 ch-28 ck-28 gj28 hb-28 ht-28 hu-28 hv-28 hw-28 hy-28 ka-56 kc-28 ke-28 "
    "ko-28 mb-28 mt-28 mu-28 mv-28 mw-28 my-28 nb-28 nt-28 nu-28 nv-28 nw-28 ny-28 oc28 od28 "
    "oe28 oj56 oo28 oq28 ov-28 ow-28 ox-28 oy-28 pc28 pd28 pe28 pj56 po28 pq28 pv-28 pw-28 "
    "px-28 py-28 tw-28 ty-28 uw-28 va-56 vc-28 ve-28 vo-28 wa-28 wc-28 we-28 wo-28 ya-28 ye-28 "
    "yo-28"
)


def _kerns(table: str) -> dict[tuple[str, str], float]:
    return {(pair[0], pair[1]): int(pair[2:]) / 1000 for pair in table.split()}


# TeX's \strut in an array's rows (0.7 and 0.3 \baselineskip, 12 pt at 10 pt: em), times
# \arraystretch (1.2 in cases); aligned and gathered rows stand \jot (3 pt) apart (math.css)
STRUT = {
    "matrix": (0.84, 0.36),
    "cases": (1.008, 0.432),
    "ams-align": (0.84, 0.36),
    "gathered": (0.84, 0.36),
}

# -- the font ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Glyph:
    """A glyph's advance and ink box, in em."""

    name: str
    advance: float
    left: float
    right: float
    ascent: float
    descent: float


class Font:
    """The glyph metrics, MATH constants and size variants of Latin Modern Math, in em."""

    def __init__(self, path: Path = FONT_PATH) -> None:
        from fontTools.pens.boundsPen import BoundsPen
        from fontTools.ttLib import TTFont

        font = TTFont(path)
        self._units = float(font["head"].unitsPerEm)
        self._cmap: dict[int, str] = font.getBestCmap()
        self._hmtx = font["hmtx"]
        self._glyphs = font.getGlyphSet()
        self._bounds_pen = BoundsPen
        math = font["MATH"].table
        self.constants = {
            name: getattr(getattr(math.MathConstants, name), "Value", None)
            or getattr(math.MathConstants, name)
            for name in dir(math.MathConstants)
            if name[0].isupper()
        }
        self.constants.update(FONT_CONSTANTS)
        info = math.MathGlyphInfo.MathItalicsCorrectionInfo
        self._italic = {
            glyph: record.Value / self._units
            for glyph, record in zip(info.Coverage.glyphs, info.ItalicsCorrection, strict=True)
        }
        variants = math.MathVariants
        self._vertical: dict[str, Any] = dict(
            zip(variants.VertGlyphCoverage.glyphs, variants.VertGlyphConstruction, strict=True)
        )
        self._script: dict[str, list[str]] = {}
        gsub = font["GSUB"].table
        for record in gsub.FeatureList.FeatureRecord:
            if record.FeatureTag == "ssty":
                for index in record.Feature.LookupListIndex:
                    for table in gsub.LookupList.Lookup[index].SubTable:
                        self._script.update(getattr(table, "alternates", {}))

    def constant(self, name: str) -> float:
        """A MATH constant in em (a percentage as a fraction)."""
        value = float(self.constants[name])
        return value / 100 if name.endswith("PercentScaleDown") else value / self._units

    def glyph_name(self, char: str, level: int = 0) -> str | None:
        """The glyph a browser draws for ``char`` at script level ``level`` (with 'ssty')."""
        name = self._cmap.get(ord(char))
        if name is None:
            return None
        alternates = self._script.get(name)
        if level > 0 and alternates:
            return alternates[min(level, len(alternates)) - 1]
        return name

    @functools.cache  # noqa: B019 (one Font lives for the whole build)
    def glyph(self, name: str) -> Glyph:
        """Advance and ink box of a glyph."""
        pen = self._bounds_pen(self._glyphs)
        self._glyphs[name].draw(pen)
        left, bottom, right, top = pen.bounds or (0, 0, 0, 0)
        units = self._units
        return Glyph(
            name,
            self._hmtx[name][0] / units,
            left / units,
            right / units,
            top / units,
            -bottom / units,
        )

    def italic_correction(self, char: str) -> float:
        """The italic correction of ``char``'s glyph, in em (0 if it has none)."""
        name = self.glyph_name(char)
        return self._italic.get(name, 0.0) if name else 0.0

    def vertical_variants(self, char: str) -> list[tuple[Glyph, float]]:
        """Each size of a vertically stretchy ``char``: its glyph and its measured height."""
        name = self.glyph_name(char)
        construction = self._vertical.get(name) if name else None
        if construction is None:
            return []
        return [
            (self.glyph(record.VariantGlyph), record.AdvanceMeasurement / self._units)
            for record in construction.MathGlyphVariantRecord
        ]

    def assembly_width(self, char: str) -> float:
        """The width of ``char`` built from its glyph assembly: its widest part."""
        name = self.glyph_name(char)
        construction = self._vertical.get(name) if name else None
        if construction is None or construction.GlyphAssembly is None:
            return 0.0
        parts = construction.GlyphAssembly.PartRecords
        return max(self.glyph(part.glyph).advance for part in parts)

    def widest_stretch(self, char: str) -> float:
        """The inline size Chromium reserves for a stretchy ``char``: its widest size or part.

        (MathML Core's "preferred inline size of a glyph stretched along the block axis".)
        """
        name = self.glyph_name(char)
        construction = self._vertical.get(name) if name else None
        if name is None or construction is None:
            return 0.0
        names = [name, *(r.VariantGlyph for r in construction.MathGlyphVariantRecord)]
        if construction.GlyphAssembly is not None:
            names += [part.glyph for part in construction.GlyphAssembly.PartRecords]
        return max(self.glyph(glyph).advance for glyph in names)


def adapt_font(ttfont: Any) -> None:
    """What the served font needs for TeX's layout (fontTools ``TTFont``, changed in place).

    * TeX's script constants (:data:`FONT_CONSTANTS`) in its MATH table;
    * its features (the script glyphs, 'ssty') under the default script as well: the font
      lists them for the script 'math' alone, which a browser does not shape MathML's letters
      with, so ``font-feature-settings: "ssty"`` (math.css) found nothing;
    * cmr10's kerns between upright letters (:data:`UPRIGHT_KERNS`), which the browser applies
      inside a name such as ``Var``.
    """
    from fontTools.ttLib.tables import otTables

    constants = ttfont["MATH"].table.MathConstants
    for name, value in FONT_CONSTANTS.items():
        record = getattr(constants, name)
        if hasattr(record, "Value"):
            record.Value = value
        else:
            setattr(constants, name, value)
    from fontTools.feaLib.builder import addOpenTypeFeaturesFromString

    glyphs = set(ttfont.getGlyphOrder())
    cmap = ttfont.getBestCmap()
    units = ttfont["head"].unitsPerEm
    pairs = [
        f"pos {cmap[ord(a)]} {cmap[ord(b)]} {round(kern * units)};"
        for (a, b), kern in _kerns(UPRIGHT_KERNS).items()
        if ord(a) in cmap and ord(b) in cmap and {cmap[ord(a)], cmap[ord(b)]} <= glyphs
    ]
    if pairs:
        feature = "languagesystem DFLT dflt;\nfeature kern {\n" + "\n".join(pairs) + "\n} kern;\n"
        addOpenTypeFeaturesFromString(ttfont, feature, tables=["GPOS"])
    scripts = ttfont["GSUB"].table.ScriptList
    tags = [record.ScriptTag for record in scripts.ScriptRecord]
    if "math" in tags and "DFLT" not in tags:
        math = scripts.ScriptRecord[tags.index("math")]
        default = otTables.ScriptRecord()
        default.ScriptTag = "DFLT"
        default.Script = math.Script
        scripts.ScriptRecord.insert(0, default)
        scripts.ScriptCount = len(scripts.ScriptRecord)


@functools.cache
def font() -> Font:
    """The math font, read once."""
    return Font()


# -- what a formula's elements are -------------------------------------------------------------

ORD, OP, BIN, REL, OPEN, CLOSE, PUNCT, INNER = range(8)
REL_CHARS = set("=<>≠≈≤≥∼≡∈∉⊂⊆⊃⊇→←↔⇒⇐⇔⟶⟵⟷⟹⟸⟺↦∝∣∥:≔≪≫")
BIN_CHARS = set("+−-±∓×·⋅∘∗∪∩∧∨⊕⊗⊙∖÷")
OPEN_CHARS = set("([{⟨⌊⌈")
CLOSE_CHARS = set(")]}⟩⌋⌉!")
PUNCT_CHARS = set(",;")
LARGE_OPS = set("∑∏∐∫∬∭∮⋃⋂⋁⋀⨁⨂")
FUNCTION_APPLICATION = "\u2061"
# plain TeX's and amsmath's operator names (\log, \max, ...): \mathop atoms, whether docutils
# follows the name with U+2061 FUNCTION APPLICATION (\ln 3) or not (\log_2 e)
FUNCTION_NAMES = frozenset(
    {
        *("arccos", "arcsin", "arctan", "arg", "cos", "cosh", "cot", "coth", "csc", "deg"),
        *("det", "dim", "exp", "gcd", "hom", "inf", "ker", "lg", "lim", "liminf", "limsup"),
        *("ln", "log", "max", "min", "Pr", "sec", "sin", "sinh", "sup", "tan", "tanh"),
    }
)
INVISIBLE = {"\u2061", "\u2062", "\u2063", "\u2064"}

# TeX's table of spaces between atoms (The TeXbook, p. 170): 0 none, 1 thin, 2 medium, 3 thick,
# negative: only in display and text style (the parenthesised entries); None cannot happen (a
# Bin next to an operator or a punctuation mark is an Ord by then).
N: int | None = None
SPACES: list[list[int | None]] = [
    #  Ord Op  Bin Rel Open Close Punct Inner
    [0, 1, -2, -3, 0, 0, 0, -1],  # Ord
    [1, 1, N, -3, 0, 0, 0, -1],  # Op
    [-2, -2, N, N, -2, N, N, -2],  # Bin
    [-3, -3, N, 0, -3, 0, 0, -3],  # Rel
    [0, 0, N, 0, 0, 0, 0, 0],  # Open
    [0, 1, -2, -3, 0, 0, 0, -1],  # Close
    [-1, -1, N, -1, -1, -1, -1, -1],  # Punct
    [-1, 1, -2, -3, -1, 0, -1, -1],  # Inner
]
SPACE_WIDTHS = {0: 0.0, 1: THIN, 2: MEDIUM, 3: THICK}

_ITALIC: dict[str, str] = {
    **mathalphabet2unichar.mathit,
    "h": "\u210e",
    "\u0131": "\U0001d6a4",
    "\u0237": "\U0001d6a5",
}
SCRIPTED = ("msub", "msup", "msubsup", "munder", "mover", "munderover")
ROWS = ("math", "mrow", "mtd", "msqrt", "mstyle", "mpadded", "mphantom")


def _text(element: ElementTree.Element) -> str:
    return element.text or ""


def drawn(element: ElementTree.Element) -> str:
    """The characters a token draws: a lone letter of an ``mi`` is drawn italic."""
    text = _text(element)
    if element.tag == "mi" and len(text) == 1 and not element.get("mathvariant"):
        return _ITALIC.get(text, text)
    return text


def is_italic_letter(element: ElementTree.Element) -> bool:
    """An ``mi`` of one character that TeX takes from its math italic font (a letter, ∂, ℓ).

    Its italic correction is the font's (0 for a character that does not lean).
    """
    text = _text(element)
    return (
        element.tag == "mi"
        and len(text) == 1
        and not element.get("mathvariant")
        and text not in INVISIBLE
        and text != "…"
    )


def em(value: float) -> str:
    """A length in em, as short as the precision that matters (a thousandth)."""
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("0", "-0") else f"{text}em"


@dataclass
class Atom:
    """One element of a row, as TeX sees it."""

    element: ElementTree.Element
    left: int  # its class towards the atom before it
    right: int  # ... and towards the atom after it
    left_mo: ElementTree.Element | None  # the operator that carries a space before it
    right_mo: ElementTree.Element | None  # ... and after it


def _core_mo(element: ElementTree.Element) -> ElementTree.Element | None:
    """The operator of an embellished operator (MathML Core): it carries the spacing."""
    if element.tag == "mo":
        return element
    if element.tag in SCRIPTED or element.tag == "mfrac":
        children = list(element)
        return _core_mo(children[0]) if children else None
    if element.tag in ("mrow", "mstyle", "mpadded"):
        children = [c for c in element if c.tag != "mspace"]
        return _core_mo(children[0]) if len(children) == 1 else None
    return None


def _mo_class(text: str) -> int:
    if text in REL_CHARS:
        return REL
    if text in BIN_CHARS:
        return BIN
    if text in OPEN_CHARS:
        return OPEN
    if text in CLOSE_CHARS:
        return CLOSE
    if text in PUNCT_CHARS:
        return PUNCT
    if text in LARGE_OPS or (len(text) > 1 and text.isalpha()):
        return OP  # \sum, and \max, \min, \lim ...: TeX's \mathop
    return ORD


MARK = "data-tex"  # what an element was before this module resized it (removed at the end)


def fenced(element: ElementTree.Element) -> bool:
    """A ``\\left…\\right`` group: an ``mrow`` between two stretchy fences (an Inner atom)."""
    return element.get(MARK) == "left-right"


def _big_group(element: ElementTree.Element) -> bool:
    """A ``\\bigl( … \\bigr)`` group: docutils wraps it in an ``mrow``; TeX does not."""
    return element.get(MARK) == "big-group"


def _is_big(element: ElementTree.Element) -> bool:
    """A ``\\bigl(`` or ``\\Bigr)``: a delimiter of a fixed size."""
    return element.get(MARK) == "big"


def _mark(root: ElementTree.Element) -> None:
    """Tell the groups and fences apart as docutils wrote them, before any is resized."""
    for element in root.iter():
        children = list(element)
        if (
            element.tag == "mo"
            and element.get("minsize")
            and element.get("minsize") == element.get("maxsize")
        ):
            element.set(MARK, "big")
        if element.tag != "mrow" or len(children) < 2 or children[0].tag != "mo":
            continue
        first, last = children[0], children[-1]
        if first.get("minsize"):
            element.set(MARK, "big-group")
        elif (
            _text(first) in OPEN_CHARS | {"|", "‖"}
            and first.get("stretchy") != "false"
            and (last.tag != "mo" or last.get("stretchy") != "false")
        ):
            element.set(MARK, "left-right")


def _atoms(children: list[ElementTree.Element]) -> list[Atom]:
    """The atoms of a row, with the operators that can carry the space around each."""
    atoms = []
    for index, child in enumerate(children):
        if child.tag == "mspace" or (child.tag == "mo" and _text(child) in INVISIBLE):
            continue  # glue, or an invisible operator: not atoms
        if child.tag == "mo":
            kind = _mo_class(_text(child))
            atoms.append(Atom(child, kind, kind, child, child))
        elif _function_name(child) or (child.tag == "mi" and len(_text(child)) > 1):
            following = children[index + 1] if index + 1 < len(children) else None
            applied = (
                following is not None
                and following.tag == "mo"
                and _text(following) == FUNCTION_APPLICATION
            )
            # \ln, \log_2, \operatorname{Var}: TeX's \mathop
            kind = OP if applied or _function_name(child) else ORD
            atoms.append(Atom(child, kind, kind, None, following if applied else None))
        elif child.tag == "mi" and _text(child) == "…":
            atoms.append(Atom(child, INNER, INNER, None, None))  # \ldots is \mathinner
        elif child.tag in SCRIPTED:
            core = _core_mo(child)
            kind = _mo_class(_text(core)) if core is not None else ORD
            atoms.append(Atom(child, kind, kind, core, core))
        elif child.tag == "mfrac":
            atoms.append(Atom(child, INNER, INNER, None, None))  # a fraction is an Inner atom
        elif fenced(child):
            inner = list(child)
            last = inner[-1] if inner[-1].tag == "mo" else None
            atoms.append(Atom(child, INNER, INNER, inner[0], last))
        elif _big_group(child):
            inner = list(child)
            last = inner[-1] if inner[-1].tag == "mo" else None
            right = _mo_class(_text(last)) if last is not None else ORD
            atoms.append(Atom(child, OPEN, right, inner[0], last))
        else:
            atoms.append(Atom(child, ORD, ORD, None, None))  # a letter, a number, a {group}
    return atoms


def _function_name(element: ElementTree.Element) -> bool:
    """An operator name (``\\log``, ``\\log_2``): a \\mathop atom."""
    if element.tag in ("msub", "msup", "msubsup") and len(element):
        element = element[0]
    return element.tag == "mi" and _text(element) in FUNCTION_NAMES


def _space(before: int, after: int, script: bool) -> float:
    entry = SPACES[before][after]
    if entry is None:
        return 0.0
    if entry < 0:
        return 0.0 if script else SPACE_WIDTHS[-entry]
    return SPACE_WIDTHS[entry]


def _space_row(row: ElementTree.Element, script: bool, leading_ord: bool = False) -> None:
    """Set TeX's spaces between the atoms of ``row``'s children (rules 5, 6 and 20)."""
    atoms = _atoms(list(row))
    # rules 5 and 6: a Bin with no left operand, or before Rel/Close/Punct, is an Ord
    for index, atom in enumerate(atoms):
        if atom.left != BIN:
            continue
        before = atoms[index - 1].right if index else (ORD if leading_ord else None)
        after = atoms[index + 1].left if index + 1 < len(atoms) else None
        if before in (None, BIN, OP, REL, OPEN, PUNCT) or after in (REL, CLOSE, PUNCT):
            atom.left = atom.right = ORD
    for atom in atoms:
        if atom.left_mo is not None:
            atom.left_mo.set("lspace", "0")
        if atom.right_mo is not None:
            atom.right_mo.set("rspace", "0")
    if leading_ord and atoms:
        _set_space(row, None, atoms[0], _space(ORD, atoms[0].left, script))
    for previous, atom in itertools.pairwise(atoms):
        _set_space(row, previous, atom, _space(previous.right, atom.left, script))


def _set_space(row: ElementTree.Element, previous: Atom | None, atom: Atom, width: float) -> None:
    """Put ``width`` between two atoms: on an operator beside it, else as an ``mspace``."""
    if width == 0:
        return
    if atom.left_mo is not None:
        atom.left_mo.set("lspace", em(width))
    elif previous is not None and previous.right_mo is not None:
        previous.right_mo.set("rspace", em(width))
    else:
        space = ElementTree.Element("mspace", width=em(width))
        row.insert(list(row).index(atom.element), space)


# -- styles: display or text, script level, cramped ----------------------------------------------


@dataclass(frozen=True)
class Style:
    """What MathML Core's math-style, math-depth and math-shift are at an element."""

    display: bool
    level: int
    cramped: bool

    @property
    def scale(self) -> float:
        """Font size relative to the formula's."""
        f = font()
        if self.level <= 0:
            return 1.0
        if self.level == 1:
            return f.constant("ScriptPercentScaleDown")
        return f.constant("ScriptScriptPercentScaleDown")

    def script(self, cramped: bool | None = None) -> Style:
        """The style of a script of an element in this style."""
        return Style(False, self.level + 1, self.cramped if cramped is None else cramped)

    def own(self, element: ElementTree.Element) -> Style:
        """This style changed by the element's own attributes (docutils' \\textstyle, \\tfrac)."""
        style = self
        if element.get("displaystyle") is not None:
            style = Style(element.get("displaystyle") == "true", style.level, style.cramped)
        level = element.get("scriptlevel", "")
        if level.isdigit():
            style = Style(style.display, int(level), style.cramped)
        return style


def _children_styles(
    element: ElementTree.Element, style: Style
) -> Iterator[tuple[ElementTree.Element, Style]]:
    """Each child with its style, by MathML Core's user-agent style sheet and math.css."""
    children = list(element)
    tag = element.tag
    if tag in SCRIPTED:
        for index, child in enumerate(children):
            if index == 0:
                yield child, style
            elif tag in ("msub", "munder") or (tag in ("msubsup", "munderover") and index == 1):
                yield child, style.script(cramped=True)  # a subscript, an underscript
            else:
                yield child, style.script()
    elif tag == "mfrac":
        inner = Style(False, style.level + (0 if style.display else 1), style.cramped)
        for index, child in enumerate(children):
            yield child, inner if index == 0 else Style(inner.display, inner.level, True)
    elif tag == "msqrt":
        for child in children:
            yield child, Style(style.display, style.level, True)
    elif tag == "mtable":
        # math.css sets an aligned block (and a gathered one) in display style, as TeX does
        display = bool({"ams-align", "gathered"} & set(element.get("class", "").split()))
        for child in children:
            yield child, Style(display and style.display, style.level, style.cramped)
    else:
        for child in children:
            yield child, style


# -- vertical extent, as MathML Core lays it out -------------------------------------------------


@dataclass(frozen=True)
class Extent:
    """How far an element's box reaches above and below the baseline, in the formula's em."""

    ascent: float
    descent: float


class UnmeasuredError(Exception):
    """An element whose layout is not computed here."""


def extent(element: ElementTree.Element, style: Style) -> Extent:
    """The box of ``element`` in ``style``, by MathML Core's layout and the font's metrics."""
    tag = element.tag
    style = style.own(element)
    if tag in ("mi", "mn", "mtext") or (tag == "mo" and not _stretches(element)):
        return _token_extent(element, style)
    if tag == "mo":
        raise UnmeasuredError("a stretchy operator")
    if tag == "mspace":
        scale = style.scale
        return Extent(_length(element.get("height")) * scale, _length(element.get("depth")) * scale)
    if tag in ROWS:
        return _row_extent(element, style)
    if tag in ("msub", "msup", "msubsup") or (
        tag in ("munder", "munderover") and _movable(element) and not style.display
    ):
        return _scripts_extent(element, style)[0]
    if tag in ("munder", "mover", "munderover"):
        return _limits_extent(element, style)
    if tag == "mfrac":
        return _fraction_extent(element, style)
    if tag == "mtable":
        return _table_extent(element, style)
    raise UnmeasuredError(tag)


def _token_extent(element: ElementTree.Element, style: Style) -> Extent:
    """A token's ink: Chromium's box of a token element is the ink of its glyphs."""
    f = font()
    text = drawn(element) if element.tag == "mi" else _text(element)
    if element.tag == "mo" and text in LARGE_OPS and style.display:
        return _large_op(text)
    names = [f.glyph_name(char, style.level) for char in text if char not in INVISIBLE]
    if not names:
        return Extent(0, 0)
    boxes = []
    for name in names:
        if name is None:
            raise UnmeasuredError(text)
        boxes.append(f.glyph(name))
    scale = style.scale
    return Extent(max(b.ascent for b in boxes) * scale, max(b.descent for b in boxes) * scale)


def _length(value: str | None) -> float:
    if not value:
        return 0.0
    return float(value.removesuffix("em"))


def _stretches(element: ElementTree.Element) -> bool:
    """A vertically stretchy fence: it takes the size of what stands beside it."""
    return (
        element.tag == "mo"
        and element.get("stretchy") != "false"
        and _text(element) in OPEN_CHARS | CLOSE_CHARS | {"|", "‖"}
    )


def _movable(element: ElementTree.Element) -> bool:
    core = _core_mo(element)
    return core is not None and core.get("movablelimits") == "true"


def _large_op(char: str) -> Extent:
    """A large operator in display style: its first size at least DisplayOperatorMinHeight."""
    f = font()
    minimum = f.constant("DisplayOperatorMinHeight")
    variants = f.vertical_variants(char)
    if not variants:
        raise UnmeasuredError(char)
    glyph = next((g for g, height in variants if height >= minimum), variants[-1][0])
    return Extent(glyph.ascent, glyph.descent)


def _row_extent(element: ElementTree.Element, style: Style) -> Extent:
    """A row reaches as high and as low as its highest and lowest element, fences sized."""
    ascent = descent = 0.0
    children = list(_children_styles(element, style))
    fences = [child for child, _ in children if _stretches(child) or _is_big(child)]
    for child, child_style in children:
        if child in fences:
            continue
        box = extent(child, child_style)
        shift = _length(child.get("voffset")) * child_style.scale if child.tag == "mpadded" else 0
        ascent, descent = max(ascent, box.ascent + shift), max(descent, box.descent - shift)
    if fences:
        axis = font().constant("AxisHeight") * style.scale
        for fence in fences:
            size = _fence_size(fence, Extent(ascent, descent), style)
            if size is None:
                raise UnmeasuredError("a fence")
            ascent, descent = max(ascent, size / 2 + axis), max(descent, size / 2 - axis)
    return Extent(ascent, descent)


def _scripts_extent(element: ElementTree.Element, style: Style) -> tuple[Extent, float, float]:
    """The box of a base with scripts, and the subscript's and superscript's shifts.

    MathML Core's rules (3.4.1), with the constants of the font the build writes.
    """
    f = font()
    children = list(_children_styles(element, style))
    base = extent(*children[0])
    tag = element.tag
    subscript = superscript = None
    if tag in ("msub", "munder"):
        subscript = children[1]
    elif tag in ("msup", "mover"):
        superscript = children[1]
    else:
        subscript, superscript = children[1], children[2]
    scale = style.scale
    sub_shift = sup_shift = 0.0
    sub_box = sup_box = Extent(0, 0)
    if subscript is not None:
        sub_box = extent(*subscript)
        sub_shift = max(
            f.constant("SubscriptShiftDown") * scale,
            base.descent + f.constant("SubscriptBaselineDropMin") * scale,
            sub_box.ascent - f.constant("SubscriptTopMax") * scale,
        )
    if superscript is not None:
        sup_box = extent(*superscript)
        shift_up = "SuperscriptShiftUpCramped" if style.cramped else "SuperscriptShiftUp"
        sup_shift = max(
            f.constant(shift_up) * scale,
            base.ascent - f.constant("SuperscriptBaselineDropMax") * scale,
            f.constant("SuperscriptBottomMin") * scale + sup_box.descent,
        )
    if subscript is not None and superscript is not None:
        gap = (sup_shift - sup_box.descent) + (sub_shift - sub_box.ascent)
        needed = f.constant("SubSuperscriptGapMin") * scale - gap
        if needed > 0:
            room = f.constant("SuperscriptBottomMaxWithSubscript") * scale - (
                sup_shift - sup_box.descent
            )
            if room > 0:
                raise_by = min(room, needed)
                sup_shift += raise_by
                needed -= raise_by
            sub_shift += needed
    ascent = max(base.ascent, sup_shift + sup_box.ascent if superscript else 0)
    descent = max(base.descent, sub_shift + sub_box.descent if subscript else 0)
    return Extent(ascent, descent), sub_shift, sup_shift


def _limits_extent(element: ElementTree.Element, style: Style) -> Extent:
    """Limits under and over a base (MathML Core 3.4.2, a large operator's constants)."""
    f = font()
    children = list(_children_styles(element, style))
    base = extent(*children[0])
    scale = style.scale
    ascent, descent = base.ascent, base.descent
    tag = element.tag
    if tag in ("munder", "munderover"):
        under = extent(*children[1])
        shift = max(
            f.constant("LowerLimitBaselineDropMin") * scale,
            f.constant("LowerLimitGapMin") * scale + under.ascent,
        )
        descent = base.descent + shift + under.descent
    if tag in ("mover", "munderover"):
        over = extent(*children[-1])
        shift = max(
            f.constant("UpperLimitBaselineRiseMin") * scale,
            f.constant("UpperLimitGapMin") * scale + over.descent,
        )
        ascent = base.ascent + shift + over.ascent
    return Extent(ascent, descent)


def _fraction_extent(element: ElementTree.Element, style: Style) -> Extent:
    """A fraction (MathML Core 3.3.2)."""
    f = font()
    (numerator, num_style), (denominator, den_style) = list(_children_styles(element, style))
    num, den = extent(numerator, num_style), extent(denominator, den_style)
    scale = style.scale
    display = "DisplayStyle" if style.display else ""
    num_shift = f.constant(f"FractionNumerator{display}ShiftUp") * scale
    den_shift = f.constant(f"FractionDenominator{display}ShiftDown") * scale
    num_gap = f.constant("FractionNumDisplayStyleGapMin" if display else "FractionNumeratorGapMin")
    den_gap = f.constant(
        "FractionDenomDisplayStyleGapMin" if display else "FractionDenominatorGapMin"
    )
    axis = f.constant("AxisHeight") * scale
    rule = f.constant("FractionRuleThickness") * scale
    num_shift = max(num_shift, axis + rule / 2 + num_gap * scale + num.descent)
    den_shift = max(den_shift, den_gap * scale + rule / 2 - axis + den.ascent)
    return Extent(num_shift + num.ascent, den_shift + den.descent)


def _table_extent(element: ElementTree.Element, style: Style) -> Extent:
    """A matrix's or a cases block's rows (math.css: no padding), centred on the axis."""
    classes = set(element.get("class", "").split())
    if not {"matrix", "cases"} & classes:
        raise UnmeasuredError("a table with the browser's padding")
    height = 0.0
    for row, row_style in _children_styles(element, style):
        ascent = descent = 0.0
        for cell, cell_style in _children_styles(row, row_style):
            box = extent(cell, cell_style)
            ascent, descent = max(ascent, box.ascent), max(descent, box.descent)
        height += ascent + descent
    axis = font().constant("AxisHeight") * style.scale
    return Extent(height / 2 + axis, height / 2 - axis)


# -- fences and roots ----------------------------------------------------------------------------

TEX_DELIMITER_HEIGHTS = (1.0, 1.2, 1.8, 2.4, 3.0)  # cmex10's sizes of ( [ { and the root


def _tex_sizes(variants: list[tuple[Glyph, float]]) -> list[tuple[Glyph, float]]:
    """The sizes TeX's cmex10 has among the font's: 1, 1.2, 1.8, 2.4 and 3 em.

    Latin Modern Math adds sizes between them (1.095, 1.445, 2.093 em for a parenthesis);
    TeX, and so this site, uses only its own.
    """
    return [
        variant
        for variant in variants
        if any(abs(variant[1] - height) < 0.02 for height in TEX_DELIMITER_HEIGHTS)
    ]


def _fence_size(fence: ElementTree.Element, content: Extent, style: Style) -> float | None:
    """The height TeX gives ``fence`` around ``content`` (rule 19), or its \\big size."""
    f = font()
    variants = f.vertical_variants(_text(fence))
    if not variants:
        return None
    scale = style.scale
    if _is_big(fence):
        wanted = BIG_SIZES.get(fence.get("minsize", ""), _length(fence.get("minsize"))) * scale
    else:
        axis = f.constant("AxisHeight") * scale
        half = max(content.ascent - axis, content.descent + axis)
        wanted = max(2 * half * DELIMITER_FACTOR, 2 * half - DELIMITER_SHORTFALL * scale)
    for _glyph, height in _tex_sizes(variants):
        if height * scale >= wanted - 0.01 * scale:
            return height * scale
    return wanted  # beyond the largest size: the glyph assembly, built to this height


def _size_fence(fence: ElementTree.Element, size: float, style: Style) -> None:
    """Ask for ``size`` and give back the width Chromium reserves beyond the glyph drawn."""
    f = font()
    char = _text(fence)
    relative = size / style.scale  # minsize and maxsize are in the fence's own em
    drawn_glyph = next((g for g, h in f.vertical_variants(char) if h >= relative - 0.002), None)
    width = drawn_glyph.advance if drawn_glyph else f.assembly_width(char)
    for name in ("minsize", "maxsize"):
        fence.set(name, em(relative - 0.001))
    fence.set("symmetric", "true")
    fence.attrib.pop("stretchy", None)
    spare = (f.widest_stretch(char) - width) / 2
    if spare > 0.001:
        fence.set("style", f"margin:0 -{em(spare)}")


def _fix_fences(row: ElementTree.Element, style: Style) -> None:
    """Give each stretchy fence of ``row`` TeX's size for what stands between it and the other."""
    children = list(_children_styles(row, style))
    fences = [child for child, _ in children if _stretches(child) or _is_big(child)]
    if not fences:
        return
    content = Extent(0, 0)
    try:
        for child, child_style in children:
            if child not in fences:
                box = extent(child, child_style)
                content = Extent(max(content.ascent, box.ascent), max(content.descent, box.descent))
    except UnmeasuredError:
        if not all(_is_big(fence) for fence in fences):
            return  # left as the browser sizes it
    for fence in fences:
        size = _fence_size(fence, content, style)
        if size is not None:
            _size_fence(fence, size, style)


def _fix_root(root: ElementTree.Element, style: Style) -> None:
    """Give back the width Chromium reserves for a root's widest size beyond the one drawn."""
    f = font()
    try:
        content = _row_extent(root, Style(style.display, style.level, True))
    except UnmeasuredError:
        return
    scale = style.scale
    gap = f.constant("RadicalDisplayStyleVerticalGap" if style.display else "RadicalVerticalGap")
    target = content.ascent + content.descent + (gap + f.constant("RadicalRuleThickness")) * scale
    glyph = next((g for g, h in f.vertical_variants("\u221a") if h * scale >= target), None)
    width = glyph.advance if glyph else f.assembly_width("\u221a")
    spare = f.widest_stretch("\u221a") - width  # in the root's own em
    if spare > 0.001:
        root.set("style", f"margin-right:-{em(spare)}")


# -- scripts and italic corrections --------------------------------------------------------------


def _fix_scripts(element: ElementTree.Element, style: Style) -> None:
    """Italic corrections (rule 17) and TeX's script positions that the font cannot give."""
    f = font()
    children = list(element)
    base = children[0]
    tag = element.tag
    if tag == "msubsup" and is_italic_letter(base):
        # the superscript stands the correction further right than the subscript
        correction = f.italic_correction(drawn(base)) * style.scale / style.script().scale
        _pad(children[2], correction, side="left")
    large_op = base.tag == "mo" and _text(base) in LARGE_OPS
    inline_limits = tag in ("munder", "munderover") and _movable(element) and not style.display
    if large_op and (tag == "msub" or (tag == "munder" and inline_limits)):
        _drop_op_subscript(element, style)
    if tag == "msup" and style.display and not style.cramped and base.tag in ("mi", "mn"):
        _raise_display_superscript(element, style)


def _pad(element: ElementTree.Element, width: float, side: str = "right") -> None:
    if width > 0.0005:
        element.set("style", f"padding-{side}:{em(width)}")


def _wrap_voffset(element: ElementTree.Element, index: int, shift: float) -> None:
    """Move child ``index`` up by ``shift`` (in that child's em; negative: down)."""
    if abs(shift) < 0.005:
        return
    child = element[index]
    wrapper = ElementTree.Element("mpadded", voffset=em(shift))
    element.remove(child)
    wrapper.append(child)
    element.insert(index, wrapper)


def _drop_op_subscript(element: ElementTree.Element, style: Style) -> None:
    """An operator's subscript drops below it as TeX drops a box's (rule 18a)."""
    f = font()
    try:
        _, sub_shift, _ = _scripts_extent(element, style)
        base = extent(element[0], style)
        sub = extent(element[1], style.script(cramped=True))
    except UnmeasuredError:
        return
    scale = style.scale
    script_scale = style.script().scale
    tex_shift = max(
        f.constant("SubscriptShiftDown") * scale,
        base.descent + SUB_DROP * script_scale,
        sub.ascent - f.constant("SubscriptTopMax") * scale,
    )
    _wrap_voffset(element, 1, -(tex_shift - sub_shift) / script_scale)


def _raise_display_superscript(element: ElementTree.Element, style: Style) -> None:
    """A superscript in display style stands at TeX's sigma_13 (MathML has one value)."""
    f = font()
    try:
        _, _, shift = _scripts_extent(element, style)
        sup = extent(element[1], style.script())
    except UnmeasuredError:
        return
    scale, script_scale = style.scale, style.script().scale
    quarter_x_height = f.constant("SuperscriptBottomMin")  # 1/4 of the x-height, as TeX's
    tex = max(SUPERSCRIPT_DISPLAY * scale, sup.descent + quarter_x_height * scale)
    if tex > shift:
        _wrap_voffset(element, 1, (tex - shift) / script_scale)


def _italic_letters(root: ElementTree.Element) -> None:
    """Each italic letter takes its italic correction, and TeX's kern with what follows it.

    The correction (rule 17) is room on the letter's right; not for a subscript's base, whose
    subscript TeX sets under the overhang (a superscript beside it stands further right,
    :func:`_fix_scripts`).  The kern (rule 14): cmmi10's, between a letter and the letter,
    comma, period or slash right after it in the same row (:data:`ITALIC_KERNS`).
    """
    f = font()
    kerns = _kerns(ITALIC_KERNS)
    for parent in root.iter():
        children = list(parent)
        for index, child in enumerate(children):
            if not is_italic_letter(child) or child.get("style"):
                continue
            if index == 0 and parent.tag in ("msub", "msubsup", "munder", "munderover"):
                continue
            following = children[index + 1] if index + 1 < len(children) else None
            kern = 0.0
            if parent.tag in ROWS and following is not None and following.tag in ("mi", "mo"):
                kern = kerns.get((_text(child), _text(following)), 0.0)
            room = f.italic_correction(drawn(child)) + kern
            if room >= 0:
                _pad(child, room)
            else:
                child.set("style", f"margin-right:{em(room)}")


# -- arrays and dots -------------------------------------------------------------------------------


def _fix_tables(root: ElementTree.Element) -> None:
    """Arrays as TeX sets them: TeX's strut in every cell, and classes math.css reads.

    A table between fences is a matrix or a cases block; a table alone with no class is a
    ``gathered`` block (:data:`mathml.TEX_ALIASES`), in display style like an aligned one.
    """
    for parent in root.iter():
        for table in parent.findall("mtable"):
            classes = table.get("class", "").split()
            if fenced(parent):
                kind = "cases" if "cases" in classes else "matrix"
            elif "ams-align" in classes:
                kind = "ams-align"
            elif not classes:
                kind = "gathered"
            else:
                continue
            table.set("class", " ".join(dict.fromkeys([*classes, kind])))
            height, depth = STRUT[kind]
            for cell in table.iter("mtd"):
                strut = ElementTree.Element("mspace", height=em(height), depth=em(depth))
                cell.insert(0, strut)
        first = next(iter(parent), None)
        if fenced(parent) and first is not None and first.get("rspace") == "0.17em":
            del first.attrib["rspace"]  # docutils' cases brace; TeX's cases has @{} after it


def _ldots(root: ElementTree.Element) -> None:
    """``\\ldots``: TeX's three dots a thin space apart (\\mathinner{\\ldotp\\ldotp\\ldotp})."""
    for parent in list(root.iter()):
        for index, child in enumerate(list(parent)):
            if child.tag == "mi" and _text(child) == "…":
                dots = ElementTree.Element("mrow")
                for number in range(3):
                    dot = ElementTree.SubElement(dots, "mo", lspace="0")
                    dot.set("rspace", em(THIN) if number < 2 else "0")
                    dot.text = "."
                parent.remove(child)
                parent.insert(index, dots)


def _negative_spaces(root: ElementTree.Element) -> None:
    """``\\!`` (a negative thin space): an ``mspace`` cannot be narrower than nothing in
    Chromium, but a negative margin takes the room back."""
    for space in root.iter("mspace"):
        width = space.get("width", "")
        if width.startswith("-"):
            space.set("width", "0")
            space.set("style", f"margin-right:{width}")


# -- the whole formula --------------------------------------------------------------------------


def apply(root: ElementTree.Element) -> None:
    """Rewrite a formula's MathML (``<math>``) so that a browser sets it as TeX would."""
    display = root.get("display") == "block"
    _mark(root)
    _fix_tables(root)
    aligned = {
        id(cell)
        for table in root.iter("mtable")
        if "ams-align" in table.get("class", "")
        for row in table
        for index, cell in enumerate(row)
        if index % 2 == 1
    }
    _walk(root, Style(display, 0, False), aligned)
    _italic_letters(root)
    _ldots(root)
    _negative_spaces(root)
    for element in root.iter():
        element.attrib.pop(MARK, None)


def _walk(element: ElementTree.Element, style: Style, aligned: set[int]) -> None:
    style = style.own(element)
    for child, child_style in _children_styles(element, style):
        if child_style.own(child).level > style.level and child_style.own(child).level <= 2:
            # script glyphs: the font's designs for 7 and 5 pt, as TeX's cmmi7 and cmmi5
            # (MathML Core asks for 'ssty'; Chromium does not apply it; math.css does)
            classes = child.get("class", "").split()
            child.set("class", " ".join([*classes, f"ssty{child_style.own(child).level}"]))
        _walk(child, child_style, aligned)
    tag = element.tag
    if tag in ROWS:
        # a cell right of an & in an aligned block: amsmath sets {} before its content
        _space_row(element, script=style.level > 0, leading_ord=id(element) in aligned)
        _fix_fences(element, style)
    elif tag in SCRIPTED or tag == "mfrac":
        for index, child in enumerate(list(element)):
            if child.tag == "mo" and (index > 0 or tag == "mfrac"):
                child.set("lspace", "0")
                child.set("rspace", "0")
        if tag != "mfrac":
            _fix_scripts(element, style)
    if tag == "msqrt":
        _fix_root(element, style)
