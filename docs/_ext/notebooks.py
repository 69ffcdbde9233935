"""Each lesson page as a Jupyter notebook that a reader can download and run.

The notebook is made from the page's MyST source, so it holds exactly the code the page runs:

* prose stays Markdown (roles such as ``{func}`attention.x``` become plain code spans, ``{math}``
  blocks become ``$$ … $$``, an admonition becomes its bold title followed by its body, MyST
  targets such as ``(label)=`` are left out);
* every ``{code-cell}`` becomes a code cell (read by myst-nb's own MyST-notebook reader);
* every ``{doctest}`` block, and every ``python``/``pycon`` fence that starts with ``>>>`` (the
  blocks ``docs/conftest.py`` runs), becomes code cells with the ``>>>`` / ``...`` prompts
  stripped and the expected output left out.  A cell ends after each example that shows output,
  so Jupyter displays that value; an example whose expected output is an exception gets a cell
  of its own tagged ``raises-exception``, which Jupyter and nbclient run past;
* a ``{literalinclude}`` becomes the included code, as the page shows it;
* in a build in another language the prose comes from the page's catalogue, exactly as on the
  page (each paragraph, heading, list item and table cell is one message); code stays as it is.

The HTML builders write ``_downloads/notebooks/<page>.ipynb`` and put a "Download as notebook"
link under the page title; its text comes from ``locales/<language>/LC_MESSAGES/notebooks.po``
beside this file.  Which pages get one: ``notebook_pages`` (glob patterns of document names) in
conf.py, limited to pages that hold code.  ``tests/test_notebooks.py`` converts every such page
and executes the notebook in a fresh kernel.
"""

from __future__ import annotations

import dataclasses
import doctest
import fnmatch
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import nbformat
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from docutils import nodes
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from myst_nb.core.read import read_myst_markdown_notebook
from myst_parser.config.main import MdParserConfig
from myst_parser.parsers.directives import parse_directive_text
from myst_parser.parsers.mdit import create_md_parser
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.directives.code import LiteralIncludeReader
from sphinx.locale import get_translation
from sphinx.locale import init as init_locale
from sphinx.util.i18n import docname_to_domain
from sphinx.util.typing import ExtensionMetadata

CATALOGUE = "notebooks"
LOCALES = Path(__file__).resolve().parent / "locales"
FOLDER = "notebooks"  # under the builder's _downloads/
# The default of ``notebook_pages``: the lesson and the worked example.
DEFAULT_PAGES = ["lesson/*", "concepts/worked-example"]

_ = get_translation(CATALOGUE)

# The fences docs/conftest.py runs as doctests: {doctest}, and python/pycon/py starting with >>>.
DOCTEST_FENCES = ("python", "pycon", "py")
# A MyST role with its content: {func}`attention.x`, {doc}`text <target>`, {math}`x`.
ROLE = re.compile(r"\{(?P<name>[a-z]+(?::[a-z]+)?)\}`(?P<content>[^`]+)`")
# A MyST target, `(label)=` on a line of its own: an anchor for the site, nothing to read.
TARGET = re.compile(r"^\([^()\s]+\)=[ \t]*\n?", re.MULTILINE)
# A `>>> # comment` line followed by the next `>>> ` statement.
COMMENT_ABOVE = re.compile(r"^(?P<comment>>>> *#.*)\n>>> ", re.MULTILINE)
EXPLICIT_TITLE = re.compile(r"^(?P<title>.+?)\s*<(?P<target>[^<>]+)>$")
ADMONITIONS = ("admonition", "note", "tip", "hint", "important", "warning", "caution", "seealso")


class NotebookError(ValueError):
    """A page that cannot become a notebook (names the page and the line)."""


def _parser_config() -> MdParserConfig:
    # The extensions of docs/conf.py that change block structure (fences, math, lists).
    return MdParserConfig(enable_extensions={"colon_fence", "dollarmath", "amsmath", "deflist"})


@dataclasses.dataclass
class _Converter:
    """Turns one page's MyST source into notebook cells."""

    path: Path
    title_of: Callable[[str], str] | None = None
    translate: Callable[[str], str] | None = None
    config: MdParserConfig = dataclasses.field(default_factory=_parser_config)

    def notebook(self, text: str) -> nbformat.NotebookNode:
        read = read_myst_markdown_notebook(text, self.config, path=str(self.path))
        cells: list[nbformat.NotebookNode] = []
        for cell in read.cells:
            if cell.cell_type == "markdown":
                cells.extend(self._markdown(cell.source))
            elif "remove-cell" not in cell.metadata.get("tags", []):
                # a removed cell only serves the site's build (it glues figures with myst-nb)
                cells.append(cell)
        kernelspec = {"name": "python3", "display_name": "Python 3", "language": "python"}
        notebook = nbformat.v4.new_notebook(
            cells=cells,
            metadata={"kernelspec": kernelspec, "language_info": {"name": "python"}},
        )
        # Fixed cell ids (nbformat draws random ones): two builds write the same bytes.
        for index, cell in enumerate(notebook.cells):
            cell["id"] = f"cell-{index}"
        nbformat.validate(notebook)
        return notebook

    # -- Markdown: split out the code, keep the prose --------------------------------------

    def _markdown(self, source: str) -> Iterator[nbformat.NotebookNode]:
        lines = source.splitlines()
        tokens = create_md_parser(self.config, RendererHTML).parse(source + "\n")
        start = 0
        nesting = 0
        for token in tokens:
            nesting += token.nesting
            if nesting or token.type not in ("fence", "colon_fence") or token.map is None:
                continue
            cells = self._fence(token)
            if cells is None:
                continue
            yield from self._prose("\n".join(lines[start : token.map[0]]))
            yield from cells
            start = token.map[1]
        yield from self._prose("\n".join(lines[start:]))

    def _prose(self, text: str) -> Iterator[nbformat.NotebookNode]:
        text = TARGET.sub("", text).strip("\n")
        if text.strip():
            yield nbformat.v4.new_markdown_cell(ROLE.sub(self._role, self._translated(text)))

    def _translated(self, text: str) -> str:
        """``text`` with each paragraph, heading, list item and table cell translated.

        The page catalogues hold one message per such block: its MyST source on one line.
        """
        if self.translate is None:
            return text
        lines = text.split("\n")
        blocks = [
            token
            for token in create_md_parser(self.config, RendererHTML).parse(text + "\n")
            if token.type == "inline" and token.map is not None and token.content.strip()
        ]
        for token in reversed(blocks):  # bottom-up: earlier line numbers stay valid
            assert token.map is not None
            first, last = token.map
            source = token.content
            translated = self._message(source)
            if translated == source:
                continue
            segment = "\n".join(lines[first:last])
            head, tail = source.split("\n")[0], source.split("\n")[-1]
            start = segment.find(head)
            end = segment.rfind(tail) + len(tail)
            if start < 0 or end < start:
                continue
            segment = segment[:start] + translated + segment[end:]
            lines[first:last] = segment.split("\n")
        return "\n".join(lines)

    def _message(self, source: str) -> str:
        assert self.translate is not None
        message = " ".join(line.strip() for line in source.split("\n"))
        translated = self.translate(message)
        return source if translated == message else translated

    def _role(self, match: re.Match[str]) -> str:
        name, content = match["name"], match["content"]
        if name == "math":
            return f"${content}$"
        explicit = EXPLICIT_TITLE.match(content)
        if explicit:
            return explicit["title"] if name in ("doc", "ref") else f"`{explicit['title']}`"
        if name == "doc" and self.title_of is not None:
            return self.title_of(content)
        if name in ("doc", "ref"):
            return content
        return f"`{content.lstrip('~!')}`"

    def _fence(self, token: Token) -> list[nbformat.NotebookNode] | None:
        """The cells for one top-level fence, or None to keep it as Markdown."""
        info = token.info.strip()
        word, _space, argument = info.partition(" ")
        if word in DOCTEST_FENCES:
            if not token.content.lstrip().startswith(">>>"):
                return None
            return self._doctest(token.content, token)
        if not (word.startswith("{") and word.endswith("}")):
            return None
        directive = word[1:-1]
        if directive == "doctest":
            return self._doctest("\n".join(self._body(token)[1]), token)
        if directive == "math":
            formula = "\n".join(self._body(token)[1])
            return [nbformat.v4.new_markdown_cell(f"$$\n{formula}\n$$")]
        if directive == "literalinclude":
            return [self._literalinclude(argument, token)]
        if directive == "localized-figure":
            # the figure itself is the output of the code cell above; keep its caption
            caption = " ".join(line.strip() for line in self._body(token)[1]).strip()
            if self.translate is not None:
                caption = self._message(caption)
            return [nbformat.v4.new_markdown_cell(f"*{caption}*")]
        if directive in ADMONITIONS or directive == "dropdown":
            title = argument.strip() or directive.capitalize()
            if self.translate is not None:
                title = self._message(title)
            body = "\n".join(self._body(token)[1])
            return [nbformat.v4.new_markdown_cell(f"**{title}**"), *self._markdown(body)]
        return None

    def _body(self, token: Token) -> tuple[dict[str, Any], list[str]]:
        class _Directive:
            option_spec: ClassVar[dict[str, bool]] = {"options": True}
            required_arguments = 0
            optional_arguments = 1
            has_content = True

        result = parse_directive_text(_Directive, "", token.content, validate_options=False)
        if result.warnings:
            raise self._error(token, f"cannot read the directive: {result.warnings[0]}")
        return result.options, result.body

    def _doctest(self, text: str, token: Token) -> list[nbformat.NotebookNode]:
        # doctest drops an example that is only a comment; keep it with the statement below it.
        text = COMMENT_ABOVE.sub(r"\g<comment>\n... ", text)
        try:
            examples = doctest.DocTestParser().get_examples(text, str(self.path))
        except ValueError as error:
            raise self._error(token, f"not a valid doctest: {error}") from error
        if not examples:
            raise self._error(token, "a doctest block without a single >>> example")
        cells: list[nbformat.NotebookNode] = []
        pending: list[str] = []

        def flush() -> None:
            if pending:
                cells.append(nbformat.v4.new_code_cell("".join(pending).rstrip("\n")))
                pending.clear()

        for example in examples:
            if example.exc_msg is not None:
                flush()
                cell = nbformat.v4.new_code_cell(example.source.rstrip("\n"))
                cell.metadata["tags"] = ["raises-exception"]
                cells.append(cell)
                continue
            pending.append(example.source)
            if example.want:
                flush()  # the cell's last value is what the page shows as output
        flush()
        return cells

    def _literalinclude(self, argument: str, token: Token) -> nbformat.NotebookNode:
        options, _body = self._body(token)
        filename = (self.path.parent / argument.strip()).resolve()
        try:
            code, _count = LiteralIncludeReader(str(filename), options, Config()).read()
        except (OSError, ValueError) as error:
            raise self._error(token, f"literalinclude {argument}: {error}") from error
        language = options.get("language", "")
        return nbformat.v4.new_markdown_cell(f"```{language}\n{code.rstrip()}\n```")

    def _error(self, token: Token, message: str) -> NotebookError:
        line = token.map[0] + 1 if token.map else "?"
        return NotebookError(f"{self.path}: the fence near line {line}: {message}")


def page_notebook(
    path: Path,
    title_of: Callable[[str], str] | None = None,
    translate: Callable[[str], str] | None = None,
) -> nbformat.NotebookNode:
    """The notebook of the MyST page at ``path`` (see the module docstring).

    ``title_of`` maps a ``{doc}`` target to the text shown for it (the page title in Sphinx);
    without it the target itself is shown.  ``translate`` maps a message of the page's
    catalogue (a paragraph's source on one line) to its translation; without it the prose
    stays English.  Code is never translated.
    """
    converter = _Converter(path, title_of, translate)
    return converter.notebook(path.read_text(encoding="utf-8"))


def has_code(notebook: nbformat.NotebookNode) -> bool:
    """Whether a notebook holds any code cell (a page without code gets no notebook)."""
    return any(cell.cell_type == "code" for cell in notebook.cells)


def wanted(docname: str, patterns: list[str]) -> bool:
    """Whether ``docname`` matches one of the ``notebook_pages`` patterns."""
    return any(fnmatch.fnmatchcase(docname, pattern) for pattern in patterns)


# -- Sphinx ------------------------------------------------------------------------------------


def _load_catalogue(app: Sphinx) -> None:
    """Compile this extension's catalogue into the build folder and register it."""
    compiled = Path(app.doctreedir) / "notebooks-locales"
    language = str(app.config.language)
    po = LOCALES / language / "LC_MESSAGES" / f"{CATALOGUE}.po"
    if po.is_file():
        mo = compiled / language / "LC_MESSAGES" / f"{CATALOGUE}.mo"
        mo.parent.mkdir(parents=True, exist_ok=True)
        with po.open(encoding="utf-8") as file:
            catalogue = read_po(file, locale=language)
        with mo.open("wb") as file:
            write_mo(file, catalogue, use_fuzzy=False)
    app.add_message_catalog(CATALOGUE, str(compiled))


def _write_notebook(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    if app.builder.format != "html" or not wanted(docname, app.config.notebook_pages):
        return
    env = app.env

    def title_of(target: str) -> str:
        resolved = str(Path(docname).parent / target) if not target.startswith("/") else target
        resolved = str(Path(resolved)).lstrip("/")
        title = env.titles.get(resolved)
        return title.astext() if title is not None else target

    translate = None
    if app.config.language != "en":
        dirs = [str(Path(app.srcdir) / folder) for folder in app.config.locale_dirs]
        domain = docname_to_domain(docname, app.config.gettext_compact)
        catalogue, found = init_locale(dirs, app.config.language, domain)
        if found:
            translate = catalogue.gettext
    notebook = page_notebook(Path(env.doc2path(docname)), title_of, translate)
    if not has_code(notebook):
        return
    relative = f"{FOLDER}/{docname}.ipynb"
    out = Path(app.outdir) / "_downloads" / relative
    out.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, out)

    link = addnodes.download_reference("", "", filename=relative)
    link += nodes.Text(_("Download as notebook"))
    paragraph = nodes.paragraph("", "", link, classes=["notebook-download"])
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is None:
        doctree.insert(0, paragraph)
    else:
        section.insert(1, paragraph)  # under the page title


def setup(app: Sphinx) -> ExtensionMetadata:
    app.add_config_value(
        "notebook_pages",
        DEFAULT_PAGES,
        "html",
        types=frozenset({list}),
    )
    app.connect("builder-inited", _load_catalogue)
    app.connect("doctree-resolved", _write_notebook)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
