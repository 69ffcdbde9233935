"""Every formula of the built site beside LaTeX's rendering of the same TeX, as PNG.

Used by ``nox -s mathcompare`` (not part of the default run), for judging the site's math by eye
against the typesetter it imitates::

    python docs/_tools/math_latex.py docs/_build/html docs/_build/doctrees docs/_build/math-latex

For each language, each page is opened in Debian's Chromium at 1280 px (device scale 2, as a
high-density screen shows it; docs/tests/offline_site.py's set-up: offline, a fresh profile) and
each formula of its article is cut out, ink-tight.  The same formula's TeX, read from the page's
doctree, is set by LaTeX (``latex`` with amsmath and amssymb at 10 pt, ``dvipng``), at the
resolution that gives LaTeX's em the browser's em in pixels, and cut out the same way.  Both
crops share one scale, so a glyph, a gap or a script's height can be compared pixel for pixel.

Writes ``<out>/<language>/<page>-<n>.png`` (every display formula of the page and each inline
formula once, the browser's crop above LaTeX's, left-aligned, a screenful of them a sheet)
and ``<out>/<language>/widths.tsv`` (each crop's width and height in ems, and the browser's
width as a fraction of LaTeX's: a formula set wider or narrower than LaTeX sets it stands out
there).  Needs ``latex`` and ``dvipng``
(Debian: ``apt-get install texlive-latex-base texlive-latex-recommended dvipng``).
"""

from __future__ import annotations

import argparse
import io
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from docutils import nodes
from PIL import Image, ImageChops, ImageDraw, ImageFont
from playwright.sync_api import Page

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "_ext"))  # the doctrees' own nodes
import mathml
from offline_site import LANGUAGES, open_offline

WIDTH, HEIGHT = 1280, 900
SCALE = 2  # device pixels per CSS pixel
LATEX_POINT_SIZE = 10  # \documentclass[10pt]: 1 em of the math fonts is 10 pt
MARGIN = 6  # px of white kept around each ink-tight crop
INK = 200  # a pixel darker than this (0-255 grey) is ink

PREAMBLE = r"""\documentclass[10pt]{article}
\usepackage{amsmath,amssymb}
\pagestyle{empty}
\begin{document}
"""

# Each formula of the article in document order: its kind, its text as a reader sees it (the
# equation number left out), and its font size.
FORMULAS = """() => [...document.querySelectorAll('article .math')].map((element, index) => {
    element.dataset.compare = String(index);
    const math = element.querySelector('math');
    const clone = element.cloneNode(true);
    clone.querySelectorAll('.eqno').forEach(e => e.remove());
    return {
        display: element.tagName === 'DIV',
        text: clone.textContent,
        size: math ? parseFloat(getComputedStyle(math).fontSize) : 0,
    };
})"""


@dataclass
class Formula:
    """One formula of a page: its TeX, whether it is displayed, and its label if it has one."""

    tex: str
    display: bool
    label: str
    text: str  # as a reader sees it (mathml.plain_text), to match the page's element


def formulas(doctree: Path) -> list[Formula]:
    """The page's formulas in document order, from its pickled doctree."""
    with doctree.open("rb") as file:
        document = pickle.load(file)
    found = []
    for node in document.findall(lambda n: isinstance(n, (nodes.math, nodes.math_block))):
        display = isinstance(node, nodes.math_block)
        label = str(node.get("label") or "") if display else ""
        text = mathml.plain_text(str(node.get("mathml", "")))
        found.append(Formula(node.astext(), display, label, text))
    return found


def _plain(text: str) -> str:
    return "".join(text.split()).translate({0x2061: None, 0x2062: None, 0x2063: None, 0x221A: None})


def latex_source(formula: Formula) -> str:
    """The formula as Sphinx's LaTeX builder writes it (sphinx.util.math.wrap_displaymath)."""
    if not formula.display:
        return f"${formula.tex}$"
    parts = [part.strip() for part in formula.tex.split("\n\n") if part.strip()]
    if len(parts) == 1:
        return rf"\begin{{equation*}}\begin{{split}}{parts[0]}\end{{split}}\end{{equation*}}"
    return r"\begin{align*}" + "\\\\\n".join(parts) + r"\end{align*}"


def render_latex(sources: list[str], dpi: float, work: Path) -> list[Image.Image]:
    """Each source on a page of its own, set by LaTeX and rasterised by dvipng at ``dpi``."""
    tex = work / "formulas.tex"
    tex.write_text(
        PREAMBLE + "\n\\newpage\n".join(sources) + "\n\\end{document}\n", encoding="utf-8"
    )
    run = subprocess.run(
        ["latex", "-interaction=nonstopmode", "-halt-on-error", tex.name],
        cwd=work,
        capture_output=True,
        text=True,
        check=False,
    )
    if run.returncode != 0:
        raise RuntimeError(f"latex failed:\n{run.stdout[-3000:]}")
    for old in work.glob("page*.png"):
        old.unlink()
    subprocess.run(
        [
            *("dvipng", "-q", "-T", "tight", "-D", f"{dpi:.2f}", "-z", "3"),
            *("-bg", "rgb 1.0 1.0 1.0", "-fg", "rgb 0.0 0.0 0.0"),
            *("-o", "page%03d.png", "formulas.dvi"),
        ],
        cwd=work,
        check=True,
        capture_output=True,
    )
    pages = sorted(work.glob("page*.png"))
    if len(pages) != len(sources):
        raise RuntimeError(f"dvipng wrote {len(pages)} pages for {len(sources)} formulas")
    return [ink_tight(Image.open(page)) for page in pages]


def ink_tight(image: Image.Image) -> Image.Image:
    """The image cut to its ink (pixels darker than INK), with MARGIN of white around it."""
    grey = image.convert("L")
    mask = grey.point(lambda value: 255 if value < INK else 0)
    box = mask.getbbox()
    if box is None:
        return Image.new("L", (1, 1), 255)
    left, top, right, bottom = box
    crop = grey.crop((left, top, right, bottom))
    framed = Image.new("L", (crop.width + 2 * MARGIN, crop.height + 2 * MARGIN), 255)
    framed.paste(crop, (MARGIN, MARGIN))
    return framed


def without_background(image: Image.Image) -> Image.Image:
    """The browser's crop with the scroll box's edge shadows (pale grey) turned white."""
    grey = image.convert("L")
    white = Image.new("L", grey.size, 255)
    pale = grey.point(lambda value: 255 if value >= 235 else 0)
    return ImageChops.composite(white, grey, pale)


SHEET_WIDTH, SHEET_HEIGHT = 1600, 1000  # px: what a screen shows whole, at full size
Row = tuple[str, Image.Image, Image.Image]  # a formula's label, the browser's and LaTeX's crop


def tile(row: Row) -> Image.Image:
    """One formula: its label, then the browser's crop above LaTeX's, both left-aligned."""
    label, browser, latex = row
    font = ImageFont.load_default(size=20)
    gap, label_height, side = 10, 28, 112
    width = min(max(side + max(browser.width, latex.width), 360), SHEET_WIDTH)
    height = label_height + browser.height + latex.height + 3 * gap
    out = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(out)
    draw.text((6, 4), label[: width // 11], fill=0, font=font)
    y = label_height
    for name, crop in (("Chromium", browser), ("LaTeX", latex)):
        draw.text((6, y + crop.height // 2 - 10), name, fill=110, font=font)
        out.paste(crop, (side, y))
        y += crop.height + gap
    draw.rectangle((0, 0, width - 1, height - 1), outline=200)
    return out


def sheets(rows: list[Row]) -> list[Image.Image]:
    """The formulas' tiles packed left to right and top to bottom, a sheet a screenful."""
    tiles = [tile(row) for row in rows]
    pages: list[list[tuple[int, int, Image.Image]]] = [[]]
    x = y = shelf = 0
    for image in tiles:
        if x and x + image.width > SHEET_WIDTH:  # the next shelf
            x, y, shelf = 0, y + shelf + 8, 0
        if y and y + image.height > SHEET_HEIGHT:  # the next sheet
            pages.append([])
            x = y = shelf = 0
        pages[-1].append((x, y, image))
        x += image.width + 8
        shelf = max(shelf, image.height)
    out = []
    for placed in pages:
        width = max(px + image.width for px, _, image in placed)
        height = max(py + image.height for _, py, image in placed)
        sheet = Image.new("L", (width, height), 255)
        for px, py, image in placed:
            sheet.paste(image, (px, py))
        out.append(sheet)
    return out


# Everything but one formula hidden (visibility is inherited, and a child may show itself again),
# so a crop around it holds its whole ink, an italic letter's overhang beyond its box included,
# and nothing else.
ALONE = """index => {
    let style = document.getElementById('compare-alone');
    if (!style) {
        style = document.createElement('style');
        style.id = 'compare-alone';
        document.head.appendChild(style);
    }
    style.textContent = 'body { visibility: hidden !important; } '
        + `[data-compare="${index}"] math { visibility: visible !important; }`;
    const math = document.querySelector(`[data-compare="${index}"] math`);
    math.scrollIntoView({block: 'center', inline: 'nearest'});
    const box = math.getBoundingClientRect();
    const size = parseFloat(getComputedStyle(math).fontSize);
    return {x: box.left - size, y: box.top - size,
            width: box.width + 2 * size, height: box.height + 2 * size};
}"""


def _screenshot_alone(page: Page, index: int) -> bytes:
    """PNG of the formula ``data-compare=index`` and a margin of one em, nothing else drawn."""
    clip = page.evaluate(ALONE, index)
    clip["x"], clip["y"] = max(clip["x"], 0), max(clip["y"], 0)
    return page.screenshot(clip=clip)


def compare_language(
    site: Path, doctrees: Path, out: Path, language: str, chromium: str, only: str = ""
) -> int:
    """Write the sheets and the width table of one language; return the number of mismatches."""
    pages = sorted(
        path
        for path in (doctrees / language).rglob("*.doctree")
        if "jupyter_execute" not in path.parts and only in path.as_posix()
    )
    table = ["page\tformula\tkind\tbrowser_em_w\tlatex_em_w\tbrowser_em_h\tlatex_em_h\tw_ratio"]
    mismatches = 0
    with (
        open_offline(site, chromium, scale=SCALE) as offline,
        tempfile.TemporaryDirectory() as work,
    ):
        page = offline.context.new_page()
        page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
        for doctree in pages:
            name = doctree.relative_to(doctrees / language).with_suffix("").as_posix()
            found = formulas(doctree)
            if not found:
                continue
            page.goto(f"{offline.base}/{language}/{name}.html", wait_until="load")
            page.evaluate("() => document.fonts.ready")
            shown = page.evaluate(FORMULAS)
            if [_plain(f["text"]) for f in shown] != [_plain(f.text) for f in found]:
                print(f"{language}/{name}: the page's formulas differ from its doctree's; skipped")
                mismatches += 1
                continue
            seen: set[tuple[str, float]] = set()
            chosen = []  # each display formula, and each inline one once per font size
            for index, formula in enumerate(found):
                key = (formula.tex, shown[index]["size"])
                if formula.display or key not in seen:
                    seen.add(key)
                    chosen.append((index, formula))
            # LaTeX's em set to the browser's em in pixels, for each font size (a heading's too)
            latex: dict[int, Image.Image] = {}
            for size in sorted({shown[index]["size"] for index, _ in chosen}):
                group = [(i, f) for i, f in chosen if shown[i]["size"] == size]
                dpi = size * SCALE * 72.27 / LATEX_POINT_SIZE
                crops = render_latex([latex_source(f) for _, f in group], dpi, Path(work))
                latex.update(zip([i for i, _ in group], crops, strict=True))
            rows = []
            for index, formula in chosen:
                em = shown[index]["size"] * SCALE
                tex_crop = latex[index]
                shot = Image.open(io.BytesIO(_screenshot_alone(page, index)))
                browser_crop = ink_tight(without_background(shot))
                kind = "display" if formula.display else "inline"
                label = f"({formula.label})" if formula.label else formula.tex.replace("\n", " ")
                rows.append((f"{kind} {label}", browser_crop, tex_crop))
                widths = [(c.width - 2 * MARGIN) / em for c in (browser_crop, tex_crop)]
                heights = [(c.height - 2 * MARGIN) / em for c in (browser_crop, tex_crop)]
                table.append(
                    f"{name}\t{label[:60]}\t{kind}\t{widths[0]:.3f}\t{widths[1]:.3f}"
                    f"\t{heights[0]:.3f}\t{heights[1]:.3f}\t{widths[0] / widths[1]:.3f}"
                )
            stem = out / language / name.replace("/", "__")
            stem.parent.mkdir(parents=True, exist_ok=True)
            for number, image in enumerate(sheets(rows), start=1):
                image.save(f"{stem}-{number}.png")
            print(f"{language}/{name}: {len(rows)} formulas -> {stem}-*.png")
        page.close()
    (out / language).mkdir(parents=True, exist_ok=True)
    (out / language / "widths.tsv").write_text("\n".join(table) + "\n", encoding="utf-8")
    return mismatches


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, help="the built site: docs/_build/html")
    parser.add_argument("doctrees", type=Path, help="its doctrees: docs/_build/doctrees")
    parser.add_argument("out", type=Path, help="where the PNG files go")
    parser.add_argument("--only", default="", help="only the pages whose path contains this")
    args = parser.parse_args(argv)
    missing = [tool for tool in ("latex", "dvipng") if shutil.which(tool) is None]
    if missing:
        print(
            f"error: {' and '.join(missing)} not found; on Debian: apt-get install "
            "texlive-latex-base texlive-latex-recommended dvipng",
            file=sys.stderr,
        )
        return 2
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    shutil.rmtree(args.out, ignore_errors=True)
    mismatches = sum(
        compare_language(args.site, args.doctrees, args.out, language, chromium, args.only)
        for language in LANGUAGES
    )
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
