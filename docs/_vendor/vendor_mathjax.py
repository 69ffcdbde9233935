"""Copy the parts of MathJax 4 the site uses from npm into docs/_static/vendor (committed).

The site renders math in the reader's browser with MathJax 4, served from the site itself: no CDN,
so the pages read offline and behind firewalls.  The versions are pinned in package.json /
package-lock.json beside this file.  To update MathJax, change both versions there, then::

    cd docs/_vendor && npm install --no-audit --no-fund && cd ../..
    python docs/_vendor/vendor_mathjax.py

The script runs ``npm ci`` (exact versions from the lock file), then copies only what
``mathjax_path``/``mathjax4_config`` in docs/conf.py load: the loader, the core, TeX input and
its autoloaded extensions, CommonHTML output, the hidden-MathML helper for screen readers, and
the New Computer Modern font (CHTML woff2 files and their dynamic ranges).  Speech, braille and the
menu stay out: they would fetch a speech worker and its rule files.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
MODULES = HERE / "node_modules"
VENDOR = HERE.parent / "_static" / "vendor"

# (source under node_modules, destination under docs/_static/vendor)
FILES = [
    ("mathjax/LICENSE", "mathjax/LICENSE"),
    ("mathjax/startup.js", "mathjax/startup.js"),
    ("mathjax/core.js", "mathjax/core.js"),
    ("mathjax/input/tex.js", "mathjax/input/tex.js"),
    ("mathjax/input/tex/extensions", "mathjax/input/tex/extensions"),
    ("mathjax/output/chtml.js", "mathjax/output/chtml.js"),
    ("mathjax/a11y/assistive-mml.js", "mathjax/a11y/assistive-mml.js"),
    # the font package ships no LICENSE file; its package.json names the licence (Apache-2.0)
    ("@mathjax/mathjax-newcm-font/package.json", "mathjax-newcm-font/package.json"),
    ("@mathjax/mathjax-newcm-font/chtml.js", "mathjax-newcm-font/chtml.js"),
    ("@mathjax/mathjax-newcm-font/chtml", "mathjax-newcm-font/chtml"),
]

MAX_BYTES = 5 * 1024 * 1024  # keep the committed copy small


def main() -> int:
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=HERE, check=True)
    if VENDOR.exists():
        shutil.rmtree(VENDOR)
    for source, destination in FILES:
        src, dst = MODULES / source, VENDOR / destination
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dst)
        else:
            shutil.copy2(src, dst)
    size = sum(path.stat().st_size for path in VENDOR.rglob("*") if path.is_file())
    print(f"docs/_static/vendor: {size / 1024 / 1024:.1f} MiB")
    if size > MAX_BYTES:
        print(f"more than {MAX_BYTES} bytes: trim FILES", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
