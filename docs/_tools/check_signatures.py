"""Check every Python signature and parameter list of the built site, in every language.

Used by ``nox -s docs`` after both language builds (run from the repository root)::

    python docs/_tools/check_signatures.py docs/_build/html

A reader of the API reference must see what PyTorch's reference shows, e.g.
``scaled_dot_product_attention(query, key, value, allowed=None, *, additive=None, scale=None)``
and ``query (Tensor) – [B, L, D] …``.  This fails, naming the page and the object, on

* a signature parameter that does not read ``name``, ``name=default``, ``*name``, ``**name``,
  ``*`` or ``/`` (a garbled one reads ``=allowedNone``);
* a signature whose parameters differ from the object's own (``inspect.signature``): names,
  order, keyword-only / positional-only markers and default values;
* a parameter whose type is empty (``query ()``) or starts with a comma
  (``allowed (, default: None)``), and an empty type or return type;
* a page with object descriptions in one language whose signatures read differently in the other
  (code is never translated), and a site with no signature at all.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import re
import sys
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

LANGUAGES = ("en", "zh_CN")

# name, *name, **name; optional ": annotation"; optional "=default" (no spaces around "=" when
# there is no annotation, as Sphinx and inspect print it)
PARAMETER = re.compile(r"^(\*{1,2})?[A-Za-z_][A-Za-z0-9_]*(: .+)?(=.+| = .+)?$")
SEPARATORS = ("*", "/")
# "name (" followed directly by ")" or "," in a parameter list: the type went missing
EMPTY_TYPE = re.compile(r"^\s*\**[A-Za-z_][A-Za-z0-9_]* \(\s*[,)]")


@dataclass
class Signature:
    """One ``<dt class="sig">``: the object's id, its parameters as rendered, the whole text."""

    ident: str
    kind: str  # the class of the enclosing <dl>: "py function", "py method", ...
    parameters: list[str] = field(default_factory=list)
    has_parentheses: bool = False
    text: str = ""


@dataclass
class FieldItem:
    """One parameter line of a "Parameters" field, and the type spans inside it."""

    text: str = ""
    types: list[str] = field(default_factory=list)


class _PageParser(HTMLParser):
    """Collect signatures, parameter lines and type spans of one HTML page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.signatures: list[Signature] = []
        self.items: list[FieldItem] = []
        self.return_types: list[str] = []
        self._stack: list[tuple[str, list[str]]] = []
        self._kinds: list[str] = []
        self._signature: Signature | None = None
        self._param: list[str] | None = None
        self._item: FieldItem | None = None
        self._type_depth: list[int] = []
        self._type_text: list[list[str]] = []
        self._field_name = ""
        self._in_field_name = False
        self._field_name_text: list[str] = []
        self._return_text: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        classes = (attributes.get("class") or "").split()
        self._stack.append((tag, classes))
        depth = len(self._stack)
        if tag == "dl" and "py" in classes:
            self._kinds.append(" ".join(classes))
        if tag == "dt" and "sig-object" in classes and "py" in classes:
            kind = self._kinds[-1] if self._kinds else ""
            self._signature = Signature(attributes.get("id") or "", kind)
        elif self._signature is not None and tag == "em" and "sig-param" in classes:
            self._param = []
        elif self._signature is not None and "sig-paren" in classes:
            self._signature.has_parentheses = True
        if tag == "dt" and any(c.startswith("field-") for c in classes):
            self._in_field_name, self._field_name_text = True, []
        if (
            tag == "dd"
            and any(c.startswith("field-") for c in classes)
            and self._field_name in ("Return type", "返回类型")
        ):
            self._return_text = []
        if tag == "li" and self._field_name in ("Parameters", "参数"):
            self._item = FieldItem()
            self.items.append(self._item)
        if tag == "span" and "sphinx_autodoc_typehints-type" in classes:
            self._type_depth.append(depth)
            self._type_text.append([])

    def handle_endtag(self, tag: str) -> None:
        depth = len(self._stack)
        if self._type_depth and self._type_depth[-1] == depth and tag == "span":
            self._type_depth.pop()
            text = "".join(self._type_text.pop()).strip()
            if self._item is not None:
                self._item.types.append(text)
            elif self._return_text is not None:
                self.return_types.append(text)
        if tag == "em" and self._param is not None and self._signature is not None:
            self._signature.parameters.append("".join(self._param).strip())
            self._param = None
        if tag == "dt" and self._signature is not None:
            self._signature.text = self._signature.text.replace("¶", "").strip()
            self.signatures.append(self._signature)
            self._signature = None
        if tag == "dt" and self._in_field_name:
            self._field_name = "".join(self._field_name_text).strip().rstrip(":：").strip()
            self._in_field_name = False
        if tag == "dd" and self._return_text is not None:
            self.return_types.append("".join(self._return_text).strip())
            self._return_text = None
        if tag == "li" and self._item is not None:
            self._item = None
        if tag == "dl" and self._stack and "py" in self._stack[-1][1] and self._kinds:
            self._kinds.pop()
        if self._stack:
            self._stack.pop()

    def handle_data(self, data: str) -> None:
        if self._signature is not None:
            self._signature.text += data
        if self._param is not None:
            self._param.append(data)
        if self._item is not None:
            self._item.text += data
        for text in self._type_text:
            text.append(data)
        if self._in_field_name:
            self._field_name_text.append(data)
        if self._return_text is not None:
            self._return_text.append(data)


def _pages(site: Path, language: str) -> list[Path]:
    root = site / language
    return sorted(
        path
        for path in root.rglob("*.html")
        if "_static" not in path.relative_to(root).parts
        and path.name not in ("search.html", "genindex.html", "py-modindex.html")
    )


def _resolve(ident: str) -> Any:
    """The object named by a signature's id, or None when it cannot be imported."""
    parts = ident.split(".")
    for split in range(len(parts) - 1, 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        try:
            for part in parts[split:]:
                obj = inspect.getattr_static(obj, part)
        except AttributeError:
            return None
        return obj
    return None


def expected_parameters(ident: str, kind: str) -> list[str] | None:
    """The parameters as Sphinx should print them (no annotations), or None when not checkable."""
    obj = _resolve(ident)
    if isinstance(obj, classmethod | staticmethod):
        is_static = isinstance(obj, staticmethod)
        obj = obj.__func__
        drop_first = not is_static
    else:
        drop_first = "method" in kind.split() or "py method" in kind
    if obj is None or isinstance(obj, property) or not callable(obj):
        return None
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    parameters = list(signature.parameters.values())
    if drop_first and not inspect.isclass(obj) and parameters:
        parameters = parameters[1:]
    bare = signature.replace(
        parameters=[p.replace(annotation=inspect.Parameter.empty) for p in parameters],
        return_annotation=inspect.Signature.empty,
    )
    rendered = str(bare)[1:-1]
    if not rendered:
        return []
    # split at the top-level ", " (defaults such as (1, 2) hold commas of their own)
    result, depth, start = [], 0, 0
    for index, char in enumerate(rendered):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            result.append(rendered[start:index].strip())
            start = index + 1
    result.append(rendered[start:].strip())
    return result


def _same_parameter(rendered: str, expected: str) -> bool:
    if rendered == expected:
        return True
    # a default whose repr carries a memory address (<function f at 0x...>) prints without it
    return bool(re.sub(r" at 0x[0-9a-f]+>", ">", expected) == rendered)


def check_page(path: Path, label: str) -> tuple[list[str], list[Signature]]:
    """Every problem on one page, and its signatures."""
    parser = _PageParser()
    parser.feed(path.read_text(encoding="utf-8"))
    problems: list[str] = []
    for signature in parser.signatures:
        where = f"{label}: {signature.ident or signature.text}"
        for parameter in signature.parameters:
            if parameter not in SEPARATORS and not PARAMETER.match(parameter):
                problems.append(f"{where}: parameter reads {parameter!r} in {signature.text!r}")
        if not signature.has_parentheses:
            continue
        expected = expected_parameters(signature.ident, signature.kind)
        if expected is not None and (
            len(expected) != len(signature.parameters)
            or not all(map(_same_parameter, signature.parameters, expected))
        ):
            problems.append(
                f"{where}: signature reads ({', '.join(signature.parameters)}), "
                f"the object's is ({', '.join(expected)})"
            )
    for item in parser.items:
        line = " ".join(item.text.split())
        if EMPTY_TYPE.match(line):
            problems.append(f"{label}: parameter without its type: {line[:100]!r}")
        for text in item.types:
            if not text:
                problems.append(f"{label}: empty type in {line[:100]!r}")
    for text in parser.return_types:
        if not text:
            problems.append(f"{label}: empty return type")
    return problems, parser.signatures


def check(site: Path) -> list[str]:
    """Every problem of the site's signatures, in every language."""
    problems: list[str] = []
    texts: dict[str, dict[str, list[str]]] = {}
    for language in LANGUAGES:
        pages = _pages(site, language)
        if not pages:
            problems.append(f"{language}: no pages under {site / language}")
        count = 0
        for path in pages:
            label = f"{language}/{path.relative_to(site / language)}"
            found, signatures = check_page(path, label)
            problems.extend(found)
            count += len(signatures)
            if signatures:
                page = str(path.relative_to(site / language))
                texts.setdefault(page, {})[language] = [s.text for s in signatures]
        if pages and not count:
            problems.append(f"{language}: no Python signature on any page")
    for page, by_language in sorted(texts.items()):
        if len(set(map(tuple, by_language.values()))) > 1 or len(by_language) != len(LANGUAGES):
            problems.append(f"{page}: the signatures differ between {', '.join(LANGUAGES)}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, help="the built site: docs/_build/html")
    args = parser.parse_args(argv)
    problems = check(args.site)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"{len(problems)} problem(s) in the rendered signatures", file=sys.stderr)
        return 1
    total = sum(
        len(check_page(path, "")[1]) for lang in LANGUAGES for path in _pages(args.site, lang)
    )
    print(f"signatures: {total} in {len(LANGUAGES)} languages, every one as the code defines it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
