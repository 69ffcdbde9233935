"""Formulas set as TeX sets them, measured in Chromium on every page with math, both languages.

The build writes TeX's layout rules into the MathML (docs/_ext/tex_layout.py), and
docs/_tools/math_latex.py puts every formula beside LaTeX's rendering of it.  These checks
measure, on the built pages at 1280 px, what that comparison showed wrong:

* **a superscript clears its letter**: ``T²``'s 2 began inside the T's top right, the part of
  an italic letter that leans past its advance (TeX's italic correction);
* **an italic letter keeps the space after it**: ``P\\,\\mathrm{Attn}`` read "PAttn", the P's
  overhang eating the thin space: the gap between the letter's ink and what follows is at least
  the space the formula puts there;
* **a letter's subscript hangs 0.15 em** below the baseline (TeX's sigma 16), whatever the
  letter: ``q_i``'s i hung 0.15 em lower than ``k_i``'s, and every subscript 0.1 em lower
  than TeX's;
* **a root ends where its radicand ends**: ``√1 = 0`` had 0.22 em of nothing after the 1;
* **a stretchy delimiter is as wide as the glyph it draws**: ``\\bigl(`` and ``\\left(`` stood
  in a box as wide as the font's widest parenthesis, a gap on either side of a small one.

A glyph's ink and the sizes of a stretchy glyph come from the font the build served, the
boxes from the page.  Shares the browser fixture of
test_browser.py; run with ``nox -s browser``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import pytest
from test_browser import (
    LANGUAGES,
    PAGES,
    SITE,
    Browser,
    browser,  # noqa: F401  (the shared fixture)
)

MATH_PAGES = [path for path in PAGES if "<math" in (SITE / "en" / path).read_text(encoding="utf-8")]
# The formulas are measured ten times their size: a token's box is its ink rounded to whole
# pixels, which at reading size (19 px to the em) is 0.05 em, as much as some of the defects.
SCALE = 10
TOLERANCE = 0.01  # em: what a measurement may be off by at that size

# Every measurement the checks need, read in one visit of a page: for each token, its character
# as drawn (a lone letter of an <mi> is drawn in mathematical italic, text-transform:
# math-auto), its font size, its script level (the build's ssty1/ssty2 classes) and where its
# text starts (its box's left edge plus its left padding).  The ink itself comes from the
# served font (_Ink).
MEASURE = r"""() => {
  const italic = ch => {
    const c = ch.codePointAt(0);
    if (ch === 'h') return '\u210e';
    if (c >= 97 && c <= 122) return String.fromCodePoint(0x1d44e + c - 97);
    if (c >= 65 && c <= 90) return String.fromCodePoint(0x1d434 + c - 65);
    if (c >= 0x3b1 && c <= 0x3c9) return String.fromCodePoint(0x1d6fc + c - 0x3b1);
    return ch;
  };
  const token = el => {
    const text = el.textContent;
    const drawn = el.tagName === 'mi' && [...text].length === 1 && !el.getAttribute('mathvariant')
      ? italic(text) : text;
    const box = el.getBoundingClientRect(), style = getComputedStyle(el);
    const level = el.closest('.ssty2') ? 2 : el.closest('.ssty1') ? 1 : 0;
    return {text: drawn, size: parseFloat(style.fontSize), level,
            origin: box.left + parseFloat(style.paddingLeft)};
  };
  const tokens = 'mi, mn, mo, mtext';
  const firstToken = el => el.matches(tokens) ? el : el.querySelector(tokens);
  const formula = el => (el.closest('math').textContent || '').slice(0, 60);
  const em = el => parseFloat(getComputedStyle(el.closest('math')).fontSize);
  const single = el => el && el.matches('mi, mn') && [...el.textContent].length === 1;
  const out = {sups: [], letters: [], subs: [], roots: [], fences: []};
  for (const math of document.querySelectorAll('article math')) {
    for (const s of math.querySelectorAll('msup, msubsup')) {
      const base = s.children[0];
      const sup = firstToken(s.children[s.children.length - 1]);
      if (!single(base) || base.tagName !== 'mi' || !sup) continue;
      out.sups.push({formula: formula(s), text: s.textContent, em: em(s),
                     base: token(base), script: token(sup)});
    }
    for (const letter of math.querySelectorAll('mi')) {
      if (!single(letter) || letter.getAttribute('mathvariant')) continue;
      if (letter.parentElement.matches('msub, msup, msubsup, munder, mover, munderover, mfrac')) {
        continue;
      }
      let next = letter.nextElementSibling, space = 0;
      while (next && next.tagName === 'mspace') {
        space += parseFloat(getComputedStyle(next).width) || 0;
        next = next.nextElementSibling;
      }
      if (!next) continue;
      const lspace = next.tagName === 'mo' ? next.getAttribute('lspace') || '' : '';
      if (lspace.endsWith('em')) space += parseFloat(lspace) * em(next);
      if (space <= 0) continue;
      out.letters.push({formula: formula(letter), text: letter.textContent, em: em(letter),
                        space, letter: token(letter), next: next.getBoundingClientRect().left});
    }
    for (const root of math.querySelectorAll('msqrt')) {
      const right = root.getBoundingClientRect().right
        + parseFloat(getComputedStyle(root).marginRight);
      out.roots.push({formula: formula(root), em: em(root),
                      after: right - root.lastElementChild.getBoundingClientRect().right});
    }
    for (const mo of math.querySelectorAll('mo')) {
      const fence = mo.hasAttribute('minsize')
        || ('([{'.includes(mo.textContent) && mo.parentElement.tagName === 'mrow'
            && mo.getAttribute('stretchy') !== 'false'
            && mo === mo.parentElement.firstElementChild);
      if (!fence) continue;
      const box = mo.getBoundingClientRect(), style = getComputedStyle(mo);
      out.fences.push({formula: formula(mo), char: mo.textContent,
                       size: parseFloat(style.fontSize), height: box.height,
                       width: box.width + parseFloat(style.marginLeft)
                         + parseFloat(style.marginRight)});
    }
  }
  // Baselines, last (it changes the page): an empty <mspace> sits on the baseline of the row it
  // stands in, exactly (a token's box is its ink, rounded to whole pixels).  One goes after
  // each subscripted letter, on its row's baseline; one with the subscript, on the subscript's.
  const NS = 'http://www.w3.org/1998/Math/MathML';
  const marker = () => {
    const space = document.createElementNS(NS, 'mspace');
    for (const name of ['width', 'height', 'depth']) space.setAttribute(name, '0');
    return space;
  };
  const subs = [];
  for (const s of document.querySelectorAll('article math msub')) {
    const base = s.children[0], sub = s.children[1];
    if (!single(base) || !single(sub) || !s.parentElement.matches('math, mrow, mtd, mstyle')) {
      continue;
    }
    const row = document.createElementNS(NS, 'mrow');
    const onSub = marker(), onBase = marker();
    s.replaceChild(row, sub);
    row.append(sub, onSub);
    s.after(onBase);
    subs.push({s, sub, onSub, onBase, item: {formula: formula(s), text: s.textContent,
                                             base: token(base), script: token(sub)}});
  }
  for (const {onSub, onBase, item} of subs) {
    item.shift = onSub.getBoundingClientRect().top - onBase.getBoundingClientRect().top;
    out.subs.push(item);
  }
  return out;
}"""


class _Ink:
    """The served math font's glyphs: ink boxes (script glyphs at a script level) and sizes."""

    def __init__(self) -> None:
        from fontTools.pens.boundsPen import BoundsPen
        from fontTools.ttLib import TTFont

        self.font = TTFont(SITE / "en" / "_static" / "attention-math.woff2")
        self.units = self.font["head"].unitsPerEm
        self.cmap = self.font.getBestCmap()
        self.glyphs = self.font.getGlyphSet()
        self.pen = BoundsPen
        self.script: dict[str, list[str]] = {}
        gsub = self.font["GSUB"].table
        for record in gsub.FeatureList.FeatureRecord:
            if record.FeatureTag == "ssty":
                for index in record.Feature.LookupListIndex:
                    for table in gsub.LookupList.Lookup[index].SubTable:
                        self.script.update(getattr(table, "alternates", {}))

    def bounds(self, name: str) -> tuple[float, float, float, float]:
        """left, bottom, right, top of a glyph's ink, in em."""
        pen = self.pen(self.glyphs)
        self.glyphs[name].draw(pen)
        left, bottom, right, top = pen.bounds or (0, 0, 0, 0)
        return left / self.units, bottom / self.units, right / self.units, top / self.units

    def char(self, token: dict[str, Any]) -> tuple[float, float, float, float]:
        """Ink of a token's first character as drawn: left, bottom, right, top, in px from its
        origin and baseline (y up)."""
        name = self.cmap[ord(token["text"][0])]
        alternates = self.script.get(name)
        if token["level"] and alternates:
            name = alternates[min(token["level"], len(alternates)) - 1]
        size = float(token["size"])
        left, bottom, right, top = self.bounds(name)
        return left * size, bottom * size, right * size, top * size

    def stretchy(self, char: str) -> list[tuple[float, float]]:
        """Each size of a vertically stretchy ``char``: (ink height, advance) in em; a glyph
        assembly last, as high as it needs and as wide as its widest part."""
        variants = self.font["MATH"].table.MathVariants
        constructions = dict(
            zip(variants.VertGlyphCoverage.glyphs, variants.VertGlyphConstruction, strict=True)
        )
        construction = constructions.get(self.cmap.get(ord(char), ""))
        if construction is None:
            return []
        hmtx = self.font["hmtx"]
        sizes = []
        for record in construction.MathGlyphVariantRecord:
            _, bottom, _, top = self.bounds(record.VariantGlyph)
            sizes.append((top - bottom, hmtx[record.VariantGlyph][0] / self.units))
        if construction.GlyphAssembly is not None:
            parts = construction.GlyphAssembly.PartRecords
            sizes.append((float("inf"), max(hmtx[p.glyph][0] for p in parts) / self.units))
        return sizes


@functools.cache
def _ink() -> _Ink:
    return _Ink()


@dataclass
class Measured:
    """What one page's formulas measure."""

    sups: list[dict[str, Any]]
    letters: list[dict[str, Any]]
    subs: list[dict[str, Any]]
    roots: list[dict[str, Any]]
    fences: list[dict[str, Any]]


_MEASURED: dict[str, Measured] = {}


def _measure(session: Browser, url: str) -> Measured:
    if url not in _MEASURED:
        page = session.open(url)
        try:
            page.set_viewport_size({"width": 1280, "height": 900})
            page.add_style_tag(content=f"article math {{ font-size: {1.2 * SCALE}em !important; }}")
            page.evaluate("() => document.fonts.ready")
            _MEASURED[url] = Measured(**page.evaluate(MEASURE))
        finally:
            page.close()
    return _MEASURED[url]


def _where(item: dict[str, Any]) -> str:
    return f"{item['formula']!r}"


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("path", MATH_PAGES)
def test_a_superscript_clears_its_letter(
    browser: Browser,  # noqa: F811
    language: str,
    path: str,
) -> None:
    """The ink of a letter's superscript starts right of the letter's ink, as TeX sets it."""
    ink = _ink()
    touching = []
    for item in _measure(browser, f"{language}/{path}").sups:
        base, script = item["base"], item["script"]
        gap = (script["origin"] + ink.char(script)[0]) - (base["origin"] + ink.char(base)[2])
        if gap < 0.02 * base["size"]:
            touching.append(f"  {item['text']} in {_where(item)}: {gap / base['size']:+.3f} em")
    assert not touching, "superscripts touching their letter:\n" + "\n".join(touching)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("path", MATH_PAGES)
def test_an_italic_letter_keeps_the_space_after_it(
    browser: Browser,  # noqa: F811
    language: str,
    path: str,
) -> None:
    """Between a letter's ink and what follows stands the space the formula asks for there."""
    ink = _ink()
    eaten = []
    for item in _measure(browser, f"{language}/{path}").letters:
        letter = item["letter"]
        gap = item["next"] - (letter["origin"] + ink.char(letter)[2])
        if gap < item["space"] - TOLERANCE * item["em"]:
            eaten.append(
                f"  {item['text']} in {_where(item)}: {gap / item['em']:.3f} em of ink gap "
                f"for a {item['space'] / item['em']:.3f} em space"
            )
    assert not eaten, "a letter's overhang eats the space after it:\n" + "\n".join(eaten)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("path", MATH_PAGES)
def test_a_letters_subscript_hangs_as_tex_hangs_it(
    browser: Browser,  # noqa: F811
    language: str,
    path: str,
) -> None:
    """A one-character subscript of a letter or digit sits 0.15 em below its baseline.

    TeX's sigma 16 (cmsy10), for a character of any depth (``q_i`` as ``k_i``), unless the
    subscript is so tall that its top would stand above 4/5 of the x-height.
    """
    ink = _ink()
    wrong = []
    for item in _measure(browser, f"{language}/{path}").subs:
        base, script = item["base"], item["script"]
        size = base["size"]
        _, _, _, top = ink.char(script)
        if top > (0.344 + 0.15) * size:
            continue  # tall enough that 4/5 of the x-height decides, not sigma 16
        shift = item["shift"]
        if abs(shift - 0.15 * size) > TOLERANCE * size:
            wrong.append(f"  {item['text']} in {_where(item)}: {shift / size:.3f} em")
    assert not wrong, "subscripts not 0.15 em below the baseline:\n" + "\n".join(wrong)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("path", MATH_PAGES)
def test_a_root_ends_where_its_radicand_ends(
    browser: Browser,  # noqa: F811
    language: str,
    path: str,
) -> None:
    """No blank after a radicand inside its root (``√1 = 0`` read ``√1  = 0``)."""
    gaps = [
        f"  {_where(item)}: {item['after'] / item['em']:+.3f} em after the radicand"
        for item in _measure(browser, f"{language}/{path}").roots
        if abs(item["after"]) > TOLERANCE * item["em"]
    ]
    assert not gaps, "roots wider than their radicand:\n" + "\n".join(gaps)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("path", MATH_PAGES)
def test_a_stretchy_delimiter_is_as_wide_as_its_glyph(
    browser: Browser,  # noqa: F811
    language: str,
    path: str,
) -> None:
    """A ``\\bigl(`` or ``\\left(`` takes the room of the glyph it draws, as TeX's does.

    The glyph is the font's size whose height is nearest the delimiter's box, or its glyph
    assembly beyond the largest size.
    """
    ink = _ink()
    loose = []
    for item in _measure(browser, f"{language}/{path}").fences:
        entries = ink.stretchy(item["char"])
        if not entries:
            continue
        height = item["height"] / item["size"]
        fixed = [entry for entry in entries if entry[0] != float("inf")]
        nearest = min(fixed, key=lambda entry: abs(entry[0] - height))
        glyph = entries[-1] if height > fixed[-1][0] + 0.1 else nearest
        expected = glyph[1] * item["size"]
        if abs(item["width"] - expected) > TOLERANCE * item["size"]:
            loose.append(
                f"  {item['char']} in {_where(item)}: {item['width'] / item['size']:.3f} em wide "
                f"for a glyph {glyph[1]:.3f} em wide"
            )
    assert not loose, "delimiters wider than their glyph:\n" + "\n".join(loose)
