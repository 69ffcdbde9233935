"""Save every page of the built site, in every language, as PNG at desktop and phone width.

Used by ``nox -s screenshots`` (not part of the default run), for reviewing a change by eye::

    python docs/_tools/screenshots.py docs/_build/html docs/_build/screenshots

writes ``<out>/<language>/<page>-1280.png`` and ``-390.png`` (``lesson/01-projections.html`` ->
``lesson__01-projections-1280.png``), each the whole page once its fonts have loaded.  The
site is served and Debian's Chromium driven by the browser checks' own set-up
(docs/tests/offline_site.py): headless, a fresh profile, every request to another host aborted.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from offline_site import LANGUAGES, open_offline

WIDTHS = (1280, 390)
HEIGHT = 900  # the first screen; the screenshot covers the whole page


def pages(site: Path, language: str) -> list[str]:
    root = site / language
    return sorted(
        str(path.relative_to(root))
        for path in root.rglob("*.html")
        if "_static" not in path.relative_to(root).parts
    )


def has_chinese_font() -> bool:
    """Whether fontconfig knows a font with Chinese glyphs (without one, zh pages show boxes)."""
    if shutil.which("fc-list") is None:
        return True  # no fontconfig to ask: leave it to the eye
    listed = subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True, check=False)
    return bool(listed.stdout.strip())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, help="the built site: docs/_build/html")
    parser.add_argument("out", type=Path, help="where the PNG files go")
    args = parser.parse_args(argv)
    if not has_chinese_font():
        print(
            "error: no font with Chinese glyphs is installed, so the zh_CN screenshots would show "
            "empty boxes; install one (Debian: apt-get install fonts-noto-cjk)",
            file=sys.stderr,
        )
        return 2
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    written = 0
    with open_offline(args.site, chromium) as offline:
        page = offline.context.new_page()
        for language in LANGUAGES:
            for path in pages(args.site, language):
                for width in WIDTHS:
                    page.set_viewport_size({"width": width, "height": HEIGHT})
                    page.goto(f"{offline.base}/{language}/{path}", wait_until="load")
                    page.evaluate("() => document.fonts.ready")
                    name = path.removesuffix(".html").replace("/", "__")
                    target = args.out / language / f"{name}-{width}.png"
                    target.parent.mkdir(parents=True, exist_ok=True)
                    page.screenshot(path=str(target), full_page=True)
                    written += 1
        external = list(offline.external)
    print(f"wrote {written} screenshots under {args.out}")
    if external:
        print(f"requests to other hosts were blocked: {sorted(set(external))}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
