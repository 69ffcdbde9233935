"""One style sheet and one script per page instead of eight of each.

Sphinx, furo, myst-nb, sphinx-copybutton, sphinx-togglebutton and the site each add their own
CSS and JavaScript files, so a page made 17 requests before its first figure.  This extension
replaces, in every page, the run of local style sheets by one ``_static/bundle-<key>.css`` and the
run of local scripts (inline configuration snippets included, in their place) by one
``_static/bundle-<key>.js``.  The files are joined in the order the page listed them, so the
cascade and the order of execution stay the same; pages that list the same files share a bundle
(``<key>`` names the list).  A script that is deferred, asynchronous, a module or not under
``_static/`` (the search index) keeps its own tag.

The bundles are minified (rcssmin, rjsmin: comments and spaces out, nothing renamed), and
myst-nb's colours for ANSI escape output (``.-Color…``, about 30 KiB of rules) are left out when
no page of the build has such output: a code cell that fails breaks the build here, so no
traceback is ever shown in colour.

The bundles are written when the build has finished, after furo rewrites ``pygments.css``; then
every page's link to a bundle gets ``?v=<hash of its content>``, as Sphinx versions its own
assets, so a reader's cached copy is replaced when a bundle changes.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import rcssmin
import rjsmin
from sphinx.application import Sphinx
from sphinx.builders.html._assets import _CascadingStyleSheet, _JavaScript
from sphinx.util.typing import ExtensionMetadata

STATIC = "_static"
_BUNDLE_LINK = re.compile(r"(_static/bundle-[0-9a-f]{12}\.(?:css|js))(?:\?v=[0-9a-f]+)?")
# url(...) in a style sheet: a relative address must be rewritten when the sheet moves
_CSS_URL = re.compile(r"""url\(\s*(['"]?)([^'")]+)\1\s*\)""")
_SOURCE_MAP = re.compile(r"/\*# sourceMappingURL=[^*]*\*/|//# sourceMappingURL=\S*")
# a rule (or a comma-separated group of selectors) that styles only ANSI-coloured output
_ANSI_RULE = re.compile(r"[^{}]*\.-Color(?![\w])[^{}]*\{[^{}]*\}")
# an element of ANSI-coloured output: class="-Color -Color-Red" (myst-nb's ANSI lexer)
_ANSI_OUTPUT = re.compile(r'class="(?:[^"]*\s)?-Color[\s"]')


@dataclass
class _Bundles:
    """What each bundle holds: ``("file", path under the output)`` or ``("inline", code)``."""

    parts: dict[str, list[tuple[str, str]]] = field(default_factory=dict)


def _is_local(filename: str) -> bool:
    return filename.startswith(f"{STATIC}/") and "://" not in filename


def _bundle_name(kind: str, parts: list[tuple[str, str]]) -> str:
    key = hashlib.sha256(repr((kind, parts)).encode()).hexdigest()[:12]
    return f"{STATIC}/bundle-{key}.{kind}"


def _replace(
    bundles: _Bundles,
    assets: list[Any],
    bundled: list[Any],
    parts: list[tuple[str, str]],
    kind: str,
    make: Any,
) -> list[Any]:
    """``assets`` with ``bundled`` replaced by one bundle of ``parts``, where the first stood."""
    if len(bundled) < 2:
        return assets
    name = _bundle_name(kind, parts)
    bundles.parts[name] = parts
    first = assets.index(bundled[0])
    kept = [asset for asset in assets if asset not in bundled]
    kept.insert(first, make(name, priority=bundled[0].priority))
    return kept


def _bundle_styles(bundles: _Bundles, styles: list[Any]) -> list[Any]:
    bundled = [
        css
        for css in styles
        if isinstance(css, _CascadingStyleSheet)
        and _is_local(os.fspath(css.filename))
        and css.attributes.get("rel") == "stylesheet"
        and not set(css.attributes) - {"rel", "type"}
    ]
    parts = [("file", os.fspath(css.filename)) for css in bundled]
    return _replace(bundles, styles, bundled, parts, "css", _CascadingStyleSheet)


def _bundle_scripts(bundles: _Bundles, scripts: list[Any]) -> list[Any]:
    def bundleable(js: Any) -> bool:
        if not isinstance(js, _JavaScript):
            return False
        attributes = {key for key, value in js.attributes.items() if value is not None}
        if js.filename:
            return _is_local(os.fspath(js.filename)) and not attributes
        return attributes == {"body"}  # an inline classic script (a configuration snippet)

    bundled = [js for js in scripts if bundleable(js)]
    parts = [
        ("file", os.fspath(js.filename)) if js.filename else ("inline", js.attributes["body"])
        for js in bundled
    ]
    return _replace(bundles, scripts, bundled, parts, "js", _JavaScript)


def _page_context(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: object
) -> None:
    bundles: _Bundles = app.env.bundles  # type: ignore[attr-defined]
    if "css_files" in context:
        context["css_files"] = _bundle_styles(bundles, list(context["css_files"]))
    if "script_files" in context:
        context["script_files"] = _bundle_scripts(bundles, list(context["script_files"]))


def _relocated_css(text: str, source: str, target: str) -> str:
    """The sheet ``text`` from ``source``, its relative addresses made relative to ``target``."""

    def fix(match: re.Match[str]) -> str:
        quote, address = match.groups()
        if re.match(r"^(data:|[a-z]+:|/|#)", address):
            return match.group(0)
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(source), address))
        relative = posixpath.relpath(resolved, posixpath.dirname(target))
        return f"url({quote}{relative}{quote})"

    return _CSS_URL.sub(fix, text)


def _compact_css(text: str, keep_ansi: bool) -> str:
    """``text`` minified, without myst-nb's ANSI colours unless a page needs them."""
    text = rcssmin.cssmin(text, keep_bang_comments=True)  # licences stay
    return text if keep_ansi else _ANSI_RULE.sub("", text)


def _versioned(link: re.Match[str], versions: dict[str, str]) -> str:
    name = link.group(1)
    return f"{name}?v={versions[name]}" if name in versions else link.group(0)


def _write_bundles(app: Sphinx, exception: BaseException | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    bundles: _Bundles = app.env.bundles  # type: ignore[attr-defined]
    outdir = Path(app.outdir)
    pages = {page: page.read_text(encoding="utf-8") for page in outdir.rglob("*.html")}
    keep_ansi = any(_ANSI_OUTPUT.search(text) for text in pages.values())
    versions: dict[str, str] = {}
    for name, parts in sorted(bundles.parts.items()):
        chunks = []
        for kind, value in parts:
            if kind == "inline":
                chunks.append(f"/* inline */\n{value}\n;")
                continue
            text = _SOURCE_MAP.sub("", (outdir / value).read_text(encoding="utf-8"))
            if name.endswith(".css"):
                css = _compact_css(_relocated_css(text, value, name), keep_ansi)
                chunks.append(f"/* {value} */\n{css}")
            else:
                # `;` ends a file whose last statement lacks one before the next file starts
                chunks.append(f"/* {value} */\n{text}\n;")
        if name.endswith(".css"):
            content = "\n".join(chunks)
        else:
            # a first file's "use strict" must not make the files after it strict
            content = rjsmin.jsmin(";\n" + "\n".join(chunks), keep_bang_comments=True)
        (outdir / name).write_text(content, encoding="utf-8")
        versions[name] = hashlib.sha256(content.encode()).hexdigest()[:8]
    for stale in (outdir / STATIC).glob("bundle-*.*"):
        if f"{STATIC}/{stale.name}" not in bundles.parts:
            stale.unlink()  # a bundle of an earlier build that no page links to
    for page, text in pages.items():
        new = _BUNDLE_LINK.sub(lambda m: _versioned(m, versions), text)
        if new != text:
            page.write_text(new, encoding="utf-8")


def _registry(app: Sphinx) -> None:
    # Kept in the pickled environment: an incremental build writes only the changed pages, and
    # the bundles of the pages it leaves alone must still be written from today's files.
    if not isinstance(getattr(app.env, "bundles", None), _Bundles):
        app.env.bundles = _Bundles()  # type: ignore[attr-defined]


def setup(app: Sphinx) -> ExtensionMetadata:
    app.connect("builder-inited", _registry)
    app.connect("html-page-context", _page_context, priority=900)
    app.connect("build-finished", _write_bundles, priority=900)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": False}
