"""The citation examples of the "Cite" page, computed when the site is built.

``{citation-examples}`` renders the address of a page, of a section, of a numbered equation (with
the number the page shows) and of a mask-table row of *this* build, then a BibTeX entry and a
``CITATION.cff`` record for the row, filled in with the site version (``attention.__version__``,
the one version of the project) and the torch release that ran the pages' examples::

    ```{citation-examples}
    :page: lesson/04-boolean-mask-semantics
    :section: three-mask-conventions
    :equation: scaled-dot-product
    :row: sdpa.attn_mask.bool
    ```

``:section:``, ``:equation:`` and ``:row:`` are labels (a section's explicit target, an
equation's label, a mask-table row's id); a page or label that the site lacks is a build
warning, so the examples cannot point nowhere.

The addresses are *versioned*: a release of the site has its own address, which keeps showing
what was cited after ``latest`` has moved on.  On Read the Docs the git tag ``v<version>`` is
built and served at ``…/<language>/v<version>/``; each build's canonical URL
(``READTHEDOCS_CANONICAL_URL``, ``…/en/latest/``, which docs/conf.py passes as
``html_baseurl``) names the host and the language, and :func:`versioned_base_url` puts the
release in place of the version being read.  A local build has no canonical URL, so the
addresses start at the documentation address in ``[project.urls]`` of pyproject.toml.

Every page also gets what its copy-link buttons (docs/_static/site.js) need to copy a citation
instead of the address in the browser: the versioned address of the page, the site version, and
for each mask-table row what it was verified on (``site_citation`` in the page's context,
written by docs/_templates/page.html into the ``site-strings`` JSON).
"""

from __future__ import annotations

import json
import re
import string
import tomllib
from pathlib import Path
from typing import Any, ClassVar

import torch
from docutils import nodes
from docutils.parsers.rst import directives
from site_messages import _
from site_support import LANGUAGES
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.typing import ExtensionMetadata

import attention
from attention.semantics import paths

ROOT = Path(__file__).resolve().parents[2]
CITATION_FILE = ROOT / "CITATION.cff"
logger = logging.getLogger(__name__)


def base_url(html_baseurl: str, language: str) -> str:
    """Where this build's pages live: the canonical URL, or the documented site's ``latest``."""
    if html_baseurl:
        return html_baseurl.rstrip("/") + "/"
    with open(ROOT / "pyproject.toml", "rb") as file:
        documentation = tomllib.load(file)["project"]["urls"]["Documentation"]
    return f"{documentation.rstrip('/')}/{LANGUAGES[language][2]}/latest/"


def versioned_base_url(html_baseurl: str, language: str, version: str) -> str:
    """Where the release ``version`` of the site lives: ``…/<language>/v<version>/``.

    The last folder of the build's address names the version being read (``latest``,
    ``stable``, a branch); a release is the git tag ``v<version>``, served under its own name.

    >>> versioned_base_url("https://example.org/zh-cn/latest/", "zh_CN", "0.1.0")
    'https://example.org/zh-cn/v0.1.0/'
    """
    base = base_url(html_baseurl, language).rstrip("/")
    return f"{base.rsplit('/', 1)[0]}/v{version}/"


def cff_record(text: str, version: str, url: str) -> str:
    """``CITATION.cff`` without its comments, with this build's version and address."""
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    titles = [number for number, line in enumerate(lines) if line.startswith("title:")]
    urls = [number for number, line in enumerate(lines) if line.startswith("url:")]
    if len(titles) != 1 or len(urls) != 1:
        raise ValueError(f"{CITATION_FILE} needs one top-level title: and one url: line")
    lines[urls[0]] = f'url: "{url}"'
    lines.insert(titles[0] + 1, f'version: "{version}"')
    return "\n".join(lines).strip() + "\n"


def bibtex_text(text: str) -> str:
    """``text`` as BibTeX field text that LaTeX accepts: its special characters escaped.

    >>> bibtex_text("row sdpa.attn_mask.bool, 100 %")
    'row sdpa.attn\\_mask.bool, 100 \\%'
    """
    return re.sub(r"([_%&#$])", r"\\\1", text)


def bibtex_entry(
    title: str, row: str, url: str, version: str, torch_release: str, year: int
) -> str:
    """A BibTeX ``@misc`` entry for one mask-table row of the site, in the build's language.

    The title and the note are text (underscores escaped); the address is inside ``\\url``,
    which takes it as it is.  ``year``: the year the site was built.
    """
    # Translators: the BibTeX title of a mask-table row: the site's title, then the row's id
    full_title = bibtex_text(_("{title}, row {row}").format(title=title, row=row))
    # Translators: the BibTeX note: the site version and the torch release of the build
    note = _("site version {version}, torch {torch}").format(version=version, torch=torch_release)
    return "\n".join(
        [
            f"@misc{{attention-textbook-{version}-{row},",
            "  author       = {{attention contributors}},",
            f"  title        = {{{full_title}}},",
            f"  year         = {{{year}}},",
            f"  howpublished = {{\\url{{{url}}}}},",
            f"  version      = {{{version}}},",
            f"  note         = {{{bibtex_text(note)}}},",
            "}",
        ]
    )


def build_year() -> int:
    """The year the rows were last verified: the newest date of the committed records.

    Not the clock (two builds of one commit write the same bytes) nor ``SOURCE_DATE_EPOCH``
    (0 in every nox build).
    """
    dates = [
        str(json.loads(path.read_text(encoding="utf-8")).get("date", ""))
        for path in paths.record_files()
    ]
    return max(int(date[:4]) for date in dates if date[:4].isdigit())


class CitationExamples(SphinxDirective):
    """The three kinds of address, a BibTeX entry and a CFF record, from this build."""

    option_spec: ClassVar[dict[str, Any]] = {
        "page": directives.unchanged_required,
        "section": directives.unchanged_required,
        "equation": directives.unchanged_required,
        "row": directives.unchanged_required,
    }

    def run(self) -> list[nodes.Node]:
        for option in ("page", "section", "equation", "row"):
            if option not in self.options:
                raise self.error(f"citation-examples needs the :{option}: option")
        config = self.env.config
        # the release, not the build (2.13.0, not 2.13.0+cpu or +cu130): the site is the same
        # whichever build ran its examples, as it is whichever Python built it
        version, torch_release = attention.__version__, torch.__version__.split("+")[0]
        base = versioned_base_url(config.html_baseurl, str(config.language), version)
        self.env.note_dependency(str(CITATION_FILE))
        row = self.options["row"]

        # The addresses are written in by _resolve, once every page's labels are known.
        addresses = nodes.bullet_list(classes=["citation-addresses", "generated"])
        for kind, target in (
            (_("a page: {address}"), ("page", self.options["page"])),
            (_("a section: {address}"), ("label", self.options["section"])),
            # Translators: {number} is the equation's number as the page shows it, 2.1
            (_("an equation ({number}): {address}"), ("equation", self.options["equation"])),
            (_("a mask-table row: {address}"), ("label", row)),
        ):
            literal = nodes.literal("", "", citation_target=target, citation_base=base)
            number = nodes.inline("", "", citation_number=target[1])
            parts = _compose(kind, address=literal, number=number)
            item = nodes.paragraph("", "", *parts, translatable=False)
            addresses += nodes.list_item("", item)
        # already in the build's language: not a message for the page's catalogue
        facts = nodes.paragraph("", "", translatable=False, classes=["generated"])
        facts += _compose(
            _("Site version: {version}; torch release of this build: {torch}."),
            version=nodes.literal(version, version),
            torch=nodes.literal(torch_release, torch_release),
        )
        bibtex = {"title": str(config.html_title), "row": row, "version": version}
        bibtex["torch"] = torch_release
        cff = cff_record(CITATION_FILE.read_text(encoding="utf-8"), version, base)
        blocks: list[nodes.Node] = [addresses, facts]
        for label, block in (
            ("BibTeX", nodes.literal_block("", "", language="bibtex", citation_bibtex=bibtex)),
            ("CITATION.cff", nodes.literal_block(cff, cff, language="yaml")),
        ):
            # a record holds whole addresses: wrapped on screen (site.css), copied as it is
            block["classes"].append("citation-record")
            blocks += [nodes.paragraph("", "", nodes.strong(label, label), translatable=False)]
            blocks.append(block)
        return blocks


def _relative_url(env: BuildEnvironment, target: tuple[str, str]) -> str | None:
    """``page.html`` or ``page.html#anchor`` of a page name or a label; None if there is none."""
    kind, name = target
    if kind == "page":
        return f"{name}.html" if name in env.found_docs else None
    if kind == "equation":
        found_equation = _equation(env, name)
        return None if found_equation is None else f"{found_equation[0]}.html#equation-{name}"
    domain = env.domains.standard_domain
    found = domain.labels.get(name) or domain.anonlabels.get(name)
    return None if found is None else f"{found[0]}.html#{found[1]}"


def _equation(env: BuildEnvironment, label: str) -> tuple[str, str] | None:
    """The page of a labelled equation and its number as the page shows it: ``2.1``."""
    found = env.domains["math"].data["objects"].get(label)
    if found is None:
        return None
    docname, number = found[0], str(found[1])
    if env.config.math_numfig and env.config.numfig:
        numbers = env.toc_fignumbers.get(docname, {}).get("displaymath", {})
        number = ".".join(map(str, numbers.get(f"equation-{label}", ())))
    return docname, number


def _resolve(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Write the absolute addresses into the examples; warn about a target the site lacks."""
    row_url = ""
    for literal in list(doctree.findall(nodes.literal)):
        if "citation_target" not in literal:
            continue
        kind, name = literal["citation_target"]
        relative = _relative_url(app.env, (kind, name))
        if relative is None:
            logger.warning(f"citation-examples: the site has no {kind} {name!r}", location=literal)
            relative = ""
        row_url = literal["citation_base"] + relative  # the row comes last
        literal += nodes.Text(row_url)
    for number in list(doctree.findall(nodes.inline)):
        if "citation_number" in number:
            found = _equation(app.env, number["citation_number"])
            number += nodes.Text(found[1] if found else "")
    for block in list(doctree.findall(nodes.literal_block)):
        if "citation_bibtex" in block:
            fields = block["citation_bibtex"]
            text = bibtex_entry(
                fields["title"],
                fields["row"],
                row_url,
                fields["version"],
                fields["torch"],
                build_year(),
            )
            block.rawsource = text
            block += nodes.Text(text)


def _compose(template: str, **parts: nodes.Node) -> list[nodes.Node]:
    """``template`` (a translated message with ``{name}`` fields) with a node for each field."""
    result: list[nodes.Node] = []
    for text, field, _spec, _conversion in string.Formatter().parse(template):
        if text:
            result.append(nodes.Text(text))
        if field is not None:
            result.append(parts[field])
    return result


def _page_citation(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """What the page's copy-link buttons copy, besides the anchor: ``site_citation``.

    ``url``: the page's versioned address; ``version``: the site version; ``rows``: mask-table
    row id -> what it was verified on ("torch 2.13.0, 2.14.1"), for the rows on this page.
    """
    config = app.config
    version = attention.__version__
    base = versioned_base_url(config.html_baseurl, str(config.language), version)
    rows: dict[str, str] = {}
    if doctree is not None:
        for node in doctree.findall(nodes.row):
            if node.get("citation_verified") and node["ids"]:
                rows[node["ids"][0]] = node["citation_verified"]
    context["site_citation"] = {
        "url": base + app.builder.get_target_uri(pagename),
        "version": version,
        "rows": rows,
    }


def setup(app: Sphinx) -> ExtensionMetadata:
    app.add_directive("citation-examples", CitationExamples)
    app.connect("doctree-resolved", _resolve)
    app.connect("html-page-context", _page_citation)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
