"""Finish and check the built site: root page, translations, assets, anchors, language links.

Used by ``nox -s docs`` after the two language builds (run from the repository root)::

    python docs/_tools/sitetool.py root-index docs/_build/html
    python docs/_tools/sitetool.py check docs/_build/html docs/_build/gettext \
        docs/locales/zh_CN/LC_MESSAGES

``check`` runs the checks below and reports every problem before failing.  ``nox -s
reproducible`` uses ``compare DIR_A DIR_B``: two builds of one commit must be byte-identical.

``translations`` fails on any English message without a finished Chinese translation: a message
of a fresh ``.pot`` that has no entry in the ``.po`` (the catalogues are out of date), an empty
or fuzzy entry, a ``.pot`` without ``.po``, or a ``.po`` left over from a removed page.

``site`` fails on a script, style sheet, font, image or frame loaded from another host (the site
must read offline), on a page missing from one language, on a page whose anchors differ between
the languages, and on a language link that leads nowhere.

``chinese`` (``zhprose.py``) fails on Chinese prose that breaks the glossary docs/glossary.toml
(two terms for one concept, a spelling the glossary rules out) or keeps an English word that is
no name and no identifier; ``sitetool.py chinese HTML_DIR/zh_CN GLOSSARY`` runs it alone.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

from babel.messages.pofile import read_po
from zhprose import check as check_chinese

GLOSSARY = Path(__file__).resolve().parents[1] / "glossary.toml"

LANGUAGES = ("en", "zh_CN")

ROOT_INDEX = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Attention: get the mask semantics right · 注意力：先把掩码语义写对</title>
<link rel="icon" href="en/_static/favicon.svg" type="image/svg+xml">
<link rel="alternate" hreflang="en" href="en/index.html">
<link rel="alternate" hreflang="zh-CN" href="zh_CN/index.html">
<style>
  body { font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; padding: 0 1rem;
         line-height: 1.5; color: #1a202c; }
  h1 { font-size: 1.5rem; }
  ul { list-style: none; padding: 0; }
  li { margin: 1rem 0; }
  a { font-size: 1.25rem; color: #2b6cb0; }
</style>
</head>
<body>
<h1>Attention: get the mask semantics right<br>
<span lang="zh-CN">注意力：先把掩码语义写对</span></h1>
<p>Scaled dot-product and multi-head attention, every number checked by a doctest.<br>
<span lang="zh-CN">缩放点积注意力与多头注意力，每个数字都由 doctest 检验。</span></p>
<ul>
  <li><a href="en/index.html" hreflang="en" lang="en">English</a></li>
  <li><a href="zh_CN/index.html" hreflang="zh-CN" lang="zh-CN">简体中文</a></li>
</ul>
</body>
</html>
"""


def write_root_index(html_dir: Path) -> int:
    """Write the page at the root of the site that offers both languages."""
    missing = [lang for lang in LANGUAGES if not (html_dir / lang / "index.html").is_file()]
    if missing:
        print(f"not built: {', '.join(missing)} under {html_dir}", file=sys.stderr)
        return 1
    (html_dir / "index.html").write_text(ROOT_INDEX, encoding="utf-8")
    print(f"wrote {html_dir / 'index.html'}")
    return 0


# -- translations ---------------------------------------------------------------------------


def _messages(path: Path) -> dict[str, tuple[str, bool]]:
    """msgid -> (msgstr, fuzzy) of a .pot/.po file, header and obsolete entries left out."""
    with path.open("rb") as handle:
        catalog = read_po(handle)
    return {
        str(message.id): (str(message.string or ""), message.fuzzy)
        for message in catalog
        if message.id
    }


def check_translations(pot_dir: Path, po_dir: Path) -> int:
    """Every English message of every fresh .pot has a finished translation in its .po."""
    problems: list[str] = []
    pots = sorted(pot_dir.rglob("*.pot"))
    if not pots:
        problems.append(f"no .pot files under {pot_dir}: run the gettext builder first")
    expected = set()
    totals = [0, 0, 0]  # translated, fuzzy, untranslated
    for pot in pots:
        relative = pot.relative_to(pot_dir).with_suffix(".po")
        expected.add(relative)
        po = po_dir / relative
        if not po.is_file():
            problems.append(f"{po}: missing (a new page): run `nox -s translations`, translate it")
            continue
        translations = _messages(po)
        untranslated, fuzzy, stale = [], [], []
        for msgid in _messages(pot):
            if msgid not in translations:
                stale.append(msgid)
                continue
            msgstr, is_fuzzy = translations[msgid]
            if is_fuzzy:
                fuzzy.append(msgid)
            elif not msgstr.strip():
                untranslated.append(msgid)
            else:
                totals[0] += 1
        totals[1] += len(fuzzy)
        totals[2] += len(untranslated) + len(stale)
        for label, ids in (
            ("English text changed or added, no entry (run `nox -s translations`)", stale),
            ("fuzzy", fuzzy),
            ("untranslated", untranslated),
        ):
            for msgid in ids:
                problems.append(f"{po}: {label}: {_short(msgid)}")
    for po in sorted(po_dir.rglob("*.po")):
        if po.relative_to(po_dir) not in expected and pots:
            problems.append(f"{po}: no page produces this catalogue any more: delete it")
    print(
        f"zh_CN catalogues: {totals[0]} translated, {totals[1]} fuzzy, "
        f"{totals[2]} untranslated or missing"
    )
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


def _short(text: str, width: int = 100) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


# -- the built site -------------------------------------------------------------------------

EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:)?//", re.IGNORECASE)
CSS_URL = re.compile(r"""(?:url\(\s*['"]?|@import\s+['"])([^'")\s]+)""", re.IGNORECASE)


class _Page(HTMLParser):
    """Collects what the checks need from one HTML page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.assets: list[str] = []  # URLs the browser loads without a click
        self.ids: set[str] = set()  # anchor ids inside the article
        self.switch: list[str] = []  # hrefs of the language switch
        self._article_depth = 0
        self._in_switch = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {name: value or "" for name, value in attrs}
        if tag == "script" and attributes.get("src"):
            self.assets.append(attributes["src"])
        elif tag == "link" and attributes.get("href"):
            rel = attributes.get("rel", "").lower()
            if any(kind in rel for kind in ("stylesheet", "icon", "preload", "modulepreload")):
                self.assets.append(attributes["href"])
        elif tag in ("img", "iframe", "audio", "video", "source", "embed") and "src" in attributes:
            self.assets.append(attributes["src"])
        elif tag == "object" and attributes.get("data"):
            self.assets.append(attributes["data"])
        if "style" in attributes:
            self.assets.extend(CSS_URL.findall(attributes["style"]))
        if tag == "article":
            self._article_depth += 1
        if self._article_depth and attributes.get("id"):
            self.ids.add(attributes["id"])
        if tag == "nav" and "language-switch" in attributes.get("class", ""):
            self._in_switch = True
        if self._in_switch and tag == "a":
            self.switch.append(attributes.get("href", ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "article" and self._article_depth:
            self._article_depth -= 1
        if tag == "nav":
            self._in_switch = False

    def handle_data(self, data: str) -> None:
        pass


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def _pages(html_dir: Path, language: str) -> Iterator[Path]:
    root = html_dir / language
    for path in sorted(root.rglob("*.html")):
        if "_static" not in path.relative_to(root).parts:
            yield path


def check_site(html_dir: Path) -> int:
    """External assets, missing counterpart pages, anchors and language links."""
    problems: list[str] = []
    for css in sorted(html_dir.rglob("*.css")):
        for url in CSS_URL.findall(css.read_text(encoding="utf-8", errors="replace")):
            if EXTERNAL.match(url):
                problems.append(f"{css}: loads {url} from another host")
    root_page = html_dir / "index.html"
    if not root_page.is_file():
        problems.append(f"{root_page}: missing (run `sitetool.py root-index`)")
    else:
        problems.extend(
            f"{root_page}: loads {url}" for url in _parse(root_page).assets if EXTERNAL.match(url)
        )
    counted = 0
    pages = {
        lang: {p.relative_to(html_dir / lang): p for p in _pages(html_dir, lang)}
        for lang in LANGUAGES
    }
    for language in LANGUAGES:
        for relative, path in pages[language].items():
            counted += 1
            page = _parse(path)
            for url in page.assets:
                if EXTERNAL.match(url):
                    problems.append(f"{path}: loads {url} from another host")
            for other in LANGUAGES:
                if other == language:
                    continue
                if relative not in pages[other]:
                    problems.append(f"{path}: no {other} page {relative}")
                    continue
                if not page.switch:
                    problems.append(f"{path}: no language switch")
                for href in page.switch:
                    target = (path.parent / href.split("#")[0]).resolve()
                    if target != pages[other][relative].resolve():
                        problems.append(f"{path}: language link {href} is not {other}/{relative}")
                if language == LANGUAGES[0]:
                    theirs = _parse(pages[other][relative]).ids
                    if page.ids != theirs:
                        only_en = sorted(page.ids - theirs)[:5]
                        only_other = sorted(theirs - page.ids)[:5]
                        problems.append(
                            f"{relative}: anchors differ: only en {only_en}, "
                            f"only {other} {only_other}"
                        )
    print(f"checked {counted} pages in {', '.join(LANGUAGES)}")
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


def compare(first: Path, second: Path) -> int:
    """Two builds of the same commit: the same files with the same bytes."""
    files = {
        root: {path.relative_to(root) for path in root.rglob("*") if path.is_file()}
        for root in (first, second)
    }
    problems = [
        f"only in {root}: {path}"
        for root in files
        for path in sorted(files[root] - files[second if root == first else first])
    ]
    common = sorted(files[first] & files[second])
    differing = [
        path for path in common if (first / path).read_bytes() != (second / path).read_bytes()
    ]
    problems.extend(f"differs: {path}" for path in differing)
    print(
        f"compared {len(common)} files: {len(differing)} differ, "
        f"{len(problems) - len(differing)} in one build only"
    )
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems or not common else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    commands = parser.add_subparsers(dest="command", required=True)
    root = commands.add_parser("root-index", help="write the language chooser at the site root")
    root.add_argument("html_dir", type=Path)
    translations = commands.add_parser("translations", help="check the zh_CN catalogues")
    translations.add_argument("pot_dir", type=Path)
    translations.add_argument("po_dir", type=Path)
    site = commands.add_parser("site", help="check assets, anchors and language links")
    site.add_argument("html_dir", type=Path)
    both = commands.add_parser(
        "check", help="translations, site and Chinese prose, every problem reported"
    )
    both.add_argument("html_dir", type=Path)
    both.add_argument("pot_dir", type=Path)
    both.add_argument("po_dir", type=Path)
    chinese = commands.add_parser("chinese", help="Chinese prose against the glossary")
    chinese.add_argument("html_dir", type=Path, help="the built zh_CN pages")
    chinese.add_argument("glossary", type=Path, nargs="?", default=GLOSSARY)
    same = commands.add_parser("compare", help="two builds must be byte-identical")
    same.add_argument("first", type=Path)
    same.add_argument("second", type=Path)
    args = parser.parse_args(argv)
    if args.command == "root-index":
        return write_root_index(args.html_dir)
    if args.command == "translations":
        return check_translations(args.pot_dir, args.po_dir)
    if args.command == "site":
        return check_site(args.html_dir)
    if args.command == "compare":
        return compare(args.first, args.second)
    if args.command == "chinese":
        return check_chinese(args.html_dir, args.glossary)
    site_status = check_site(args.html_dir)
    chinese_status = check_chinese(args.html_dir / "zh_CN", GLOSSARY)
    return check_translations(args.pot_dir, args.po_dir) or site_status or chinese_status


if __name__ == "__main__":
    sys.exit(main())
