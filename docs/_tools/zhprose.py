"""Check the prose of the built Chinese pages against the glossary (docs/glossary.toml).

Three checks read every page under ``docs/_build/html/zh_CN`` (``sitetool.py check`` runs them;
``sitetool.py chinese HTML_DIR GLOSSARY`` runs them alone):

* ``terms``: a page uses one of a glossary entry's ``not`` spellings: a second Chinese term
  for one concept (``Boolean 掩码`` beside ``布尔掩码``, ``成本模型`` beside ``代价模型``), or
  the English term left in a Chinese sentence (``mask`` beside ``掩码``);
* ``english``: a page has an English word in its prose that is neither a name in the glossary's
  ``[names]`` nor an identifier (a word with ``_``, ``.``, a digit or an inner capital in it:
  ``attn_mask``, ``torch.nn``, ``float64``, ``MaskValueError``).
* ``punctuation``: a string the build writes (what the docs extensions compose, in elements of
  class ``generated``; and every translation in the catalogues of those strings, ``site.po`` and
  ``sphinx.po``) has ASCII punctuation ``: ; , . ! ? ( )`` next to a Chinese character, where
  Chinese writes ``：；，。！？（）``: ``站点版本: 0.1.0; 本次构建`` for ``站点版本：0.1.0；本次``.

Prose is the text of the page body (``<article>``) outside code (``<code>``, ``<pre>``, ``<kbd>``,
``<samp>``), math (class ``math``), API signatures (class ``sig``), anything marked
``notranslate``, links to documented objects and the parameter names of API field lists; and
without ``owner/repo#123`` references, addresses, version strings and quoted Python literals:
what a reader reads as Chinese sentences.  Sphinx's generated indices (``genindex.html``,
``py-modindex.html``, ``search.html``) list object names and are not read.
"""

from __future__ import annotations

import re
import sys
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

# Elements whose text is not prose: code, math, signatures, the scripts and styles of the page.
SKIPPED_TAGS = frozenset({"code", "pre", "kbd", "samp", "var", "script", "style", "svg", "math"})
SKIPPED_CLASSES = frozenset({"math", "notranslate", "sig", "headerlink", "highlight"})
VOID_TAGS = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)
# `owner/repo#123` and addresses: names of things elsewhere, not words of the sentence
# version strings such as `2.13.0+cpu`, and Python string literals (`Literal['ffn']`)
REFERENCE = re.compile(
    r"[A-Za-z0-9_.\-]+/[A-Za-z0-9_.\-]+#\d+|https?://\S+|\d+(?:\.\d+)+\+[A-Za-z0-9.]+"
    r"|'[A-Za-z0-9_]+'"
)
# Sphinx's generated lists of object names, not prose
GENERATED = frozenset({"genindex.html", "py-modindex.html", "search.html"})
WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:[.\-'’][A-Za-z0-9_]+)*")
CAMEL_CASE = re.compile(r"[a-z][A-Z]")  # a class or product name: MaskValueError, PyTorch
ASCII_LETTER = re.compile(r"[A-Za-z]")
# ASCII punctuation before or after a Chinese character (spaces between them allowed)
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
ASCII_PUNCTUATION = re.compile(rf"[{_CJK}][ \t]*[:;,.!?()]|[:;,.!?()][ \t]*[{_CJK}]")
# the catalogues of the strings the build writes (docs/_ext/site_messages.py, the templates)
GENERATED_CATALOGUES = ("site.po", "sphinx.po")
LOCALES = Path(__file__).resolve().parents[1] / "locales" / "zh_CN" / "LC_MESSAGES"


@dataclass(frozen=True)
class Term:
    """One glossary entry: the English term, its Chinese term, the spellings not allowed."""

    en: str
    zh: str
    banned: tuple[str, ...]


@dataclass(frozen=True)
class Glossary:
    """The glossary file: its entries and the names allowed in Chinese prose."""

    terms: tuple[Term, ...]
    names: frozenset[str]
    patterns: dict[str, re.Pattern[str]] = field(default_factory=dict, compare=False)

    def pattern(self, spelling: str) -> re.Pattern[str]:
        """The regular expression that finds ``spelling`` in prose (see glossary.toml)."""
        if spelling not in self.patterns:
            self.patterns[spelling] = spelling_pattern(spelling)
        return self.patterns[spelling]

    @property
    def banned_words(self) -> frozenset[str]:
        """Every single English word that is a ``not`` spelling, in lower case."""
        return frozenset(
            spelling.lower()
            for term in self.terms
            for spelling in term.banned
            if WORD.fullmatch(spelling)
        )


def spelling_pattern(spelling: str) -> re.Pattern[str]:
    """A case-insensitive pattern; ASCII letters at an end must sit at a word boundary."""
    parts = [re.escape(part) for part in spelling.split()]
    body = r"\s*".join(parts)
    # `attention.masks`, `key_padding`, `flash-attn` are names, not the word "masks" or "key"
    if ASCII_LETTER.match(spelling[0]):
        body = r"(?<![A-Za-z0-9_.\-])" + body
    if ASCII_LETTER.match(spelling[-1]):
        body += r"(?![A-Za-z0-9_]|[.\-][A-Za-z0-9_])"
    return re.compile(body, re.IGNORECASE)


def load_glossary(path: Path) -> Glossary:
    """Read and validate the glossary; a malformed entry is a ValueError naming it."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    terms = []
    seen: dict[str, str] = {}
    for number, entry in enumerate(data.get("term", []), start=1):
        en, zh, banned = entry.get("en"), entry.get("zh"), entry.get("not", [])
        if not isinstance(en, str) or not isinstance(zh, str) or not en or not zh:
            raise ValueError(f"{path}: term #{number} needs non-empty strings `en` and `zh`")
        if not isinstance(banned, list) or not all(isinstance(s, str) and s for s in banned):
            raise ValueError(f"{path}: term {en!r}: `not` must be a list of non-empty strings")
        if en in seen:
            raise ValueError(f"{path}: term {en!r} appears twice")
        seen[en] = zh
        for spelling in banned:
            if spelling_pattern(spelling).search(zh):
                raise ValueError(f"{path}: term {en!r}: {spelling!r} matches its own {zh!r}")
        terms.append(Term(en, zh, tuple(banned)))
    names = data.get("names", {}).get("allowed", [])
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ValueError(f"{path}: [names] allowed must be a list of strings")
    if not terms:
        raise ValueError(f"{path}: no [[term]] entries")
    return Glossary(tuple(terms), frozenset(names))


class _Prose(HTMLParser):
    """The prose of one page: text inside <article>, outside code, math and signatures.

    In an API field list (parameters, raises) the name that opens an item (``<strong>query
    </strong> (Tensor) -- …``) is an identifier, not prose; so is a link to a documented object
    (a ``reference`` with a ``title``, such as the types of a parameter).
    """

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        # (tag, in article, skipped, in field list, in generated text)
        self._stack: list[tuple[str, bool, bool, bool, bool]] = []
        self._item_start = False  # nothing read yet since a field-list item began
        self.chunks: list[str] = []
        self.generated: list[str] = []  # the prose of elements of class "generated"

    def _state(self) -> tuple[bool, bool, bool]:
        return self._stack[-1][1:4] if self._stack else (False, False, False)

    def _generated(self) -> bool:
        return self._stack[-1][4] if self._stack else False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID_TAGS:
            return
        in_article, skipped, in_fields = self._state()
        classes = set((dict(attrs).get("class") or "").split())
        in_article = in_article or tag == "article"
        in_fields = in_fields or "field-list" in classes
        if in_fields and tag in ("dd", "li", "p") and not skipped:
            self._item_start = True
        leading_name = in_fields and tag == "strong" and self._item_start
        # a link to a documented object (``int``, ``Sequence``, ``torch.device``) names it
        object_link = tag == "a" and "reference" in classes and bool(dict(attrs).get("title"))
        now_skipped = (
            skipped
            or tag in SKIPPED_TAGS
            or bool(classes & SKIPPED_CLASSES)
            or leading_name
            or object_link
        )
        if now_skipped and in_article and not skipped:
            self.chunks.append(" ")  # what was left out still separates the words around it
            if self._generated():
                self.generated.append(" ")
        generated = self._generated() or "generated" in classes
        if generated and not self._generated():
            self.generated.append("\n")  # one generated element's text apart from the next
        self._stack.append((tag, in_article, now_skipped, in_fields, generated))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        pass

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self._stack) - 1, -1, -1):
            if self._stack[depth][0] == tag:
                del self._stack[depth:]
                return

    def handle_data(self, data: str) -> None:
        in_article, skipped, _ = self._state()
        if data.strip():
            self._item_start = False
        if in_article and not skipped:
            self.chunks.append(data)
            if self._generated():
                self.generated.append(data)

    @property
    def text(self) -> str:
        return "".join(self.chunks)


def page_prose(path: Path) -> str:
    """The prose a reader reads on the page at ``path``."""
    return _read(path).text


def generated_prose(path: Path) -> str:
    """The prose of the page at ``path`` that the build composed (elements of class generated)."""
    return "".join(_read(path).generated)


def _read(path: Path) -> _Prose:
    parser = _Prose()
    parser.feed(path.read_text(encoding="utf-8"))
    parser.close()
    return parser


def _context(text: str, start: int, end: int, width: int = 18) -> str:
    left = text[max(0, start - width) : start]
    right = text[end : end + width]
    return " ".join(f"{left}[{text[start:end]}]{right}".split())


def term_problems(relative: str, text: str, glossary: Glossary) -> list[str]:
    """Every use of a ``not`` spelling on one page, with the term the glossary wants."""
    problems = []
    text = REFERENCE.sub(" ", text)
    for term in glossary.terms:
        own = len(re.findall(re.escape(term.zh), text)) if " / " not in term.zh else 0
        for spelling in term.banned:
            found = list(glossary.pattern(spelling).finditer(text))
            if not found:
                continue
            mixed = f", beside {term.zh!r} ×{own}" if own else ""
            first = found[0]
            problems.append(
                f"{relative}: {spelling!r} ×{len(found)} for {term.en!r}: write {term.zh!r}"
                f"{mixed}; e.g. {_context(text, first.start(), first.end())}"
            )
    return problems


def english_problems(relative: str, text: str, glossary: Glossary) -> list[str]:
    """English words in Chinese prose that are no name, no identifier and no glossary term."""
    banned = glossary.banned_words  # reported by term_problems, with the word to use
    counts: Counter[str] = Counter()
    first: dict[str, tuple[int, int]] = {}
    bare = REFERENCE.sub(" ", text)
    for match in WORD.finditer(bare):
        word = match.group()
        if (
            len(word) == 1
            or word in glossary.names
            or any(c in word for c in "_.")
            or any(c.isdigit() for c in word)
            or CAMEL_CASE.search(word)
            or word.lower() in banned
        ):
            continue
        counts[word] += 1
        first.setdefault(word, match.span())
    return [
        f"{relative}: English word {word!r} ×{count}; e.g. {_context(bare, *first[word])}"
        for word, count in sorted(counts.items())
    ]


def punctuation_problems(relative: str, text: str) -> list[str]:
    """Every ASCII punctuation mark next to a Chinese character in ``text``, in context."""
    return [
        f"{relative}: ASCII punctuation next to Chinese text: {match.group()!r}; "
        f"e.g. {_context(text, match.start(), match.end())}"
        for match in ASCII_PUNCTUATION.finditer(text)
    ]


def catalogue_problems(po_dir: Path) -> list[str]:
    """ASCII punctuation next to Chinese text in the translations of the build's own strings."""
    from babel.messages.pofile import read_po  # the docs toolchain's gettext library

    problems = []
    for name in GENERATED_CATALOGUES:
        path = po_dir / name
        if not path.is_file():
            continue
        with path.open("rb") as file:
            catalogue = read_po(file)
        for message in catalogue:
            if message.id and isinstance(message.string, str):
                problems += punctuation_problems(f"{name} {message.id!r}", message.string)
    return problems


def check(html_dir: Path, glossary_path: Path, po_dir: Path = LOCALES) -> int:
    """The three checks over every Chinese page under ``html_dir``; prints every problem."""
    glossary = load_glossary(glossary_path)
    pages = sorted(
        path
        for path in html_dir.rglob("*.html")
        if "_static" not in path.relative_to(html_dir).parts and path.name not in GENERATED
    )
    terms: list[str] = []
    english: list[str] = []
    punctuation = catalogue_problems(po_dir)
    for path in pages:
        relative = path.relative_to(html_dir).as_posix()
        read = _read(path)
        terms.extend(term_problems(relative, read.text, glossary))
        english.extend(english_problems(relative, read.text, glossary))
        punctuation.extend(punctuation_problems(relative, "".join(read.generated)))
    print(
        f"Chinese prose of {len(pages)} pages: {len(terms)} glossary problems, "
        f"{len(english)} English words left ({glossary_path.name}: {len(glossary.terms)} terms), "
        f"{len(punctuation)} ASCII punctuation marks in generated Chinese strings"
    )
    if not pages:
        print(f"no pages under {html_dir}: build the Chinese site first", file=sys.stderr)
    for problem in terms + english + punctuation:
        print(problem, file=sys.stderr)
    return 1 if terms or english or punctuation or not pages else 0


if __name__ == "__main__":
    sys.exit(check(Path(sys.argv[1]), Path(sys.argv[2])))
