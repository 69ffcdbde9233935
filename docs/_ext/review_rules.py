"""The "Review rules" pages, written from the checker's rule registry.

Every fact on these pages comes from :mod:`attention.review` when the site is built, so a rule,
its tests and its page cannot drift apart:

* ```` ```{review-rules-table} ```` — every static rule (:data:`attention.review.rules.RULES`):
  code (a link to its page), name, severity and the mask-semantics rows it rests on;
* ```` ```{review-rule} AM101 ```` — a rule's whole page: what it catches, what the checker
  reports on the rule's wrong example (the checker runs on it here, and the build warns unless
  it reports exactly this rule, and nothing on the right example), the two examples, the
  demonstration run as doctests (``docs/review/conftest.py`` runs the same text under pytest),
  the fix (with the ``--diff`` output where the rule is fixable), the rows, the severity and how
  to silence it (the suppressed line is checked too);
* ```` ```{review-watch-rules} ```` — one section per runtime rule
  (:data:`attention.review.watch_rules.RULES`), with the demonstration of
  ``docs/_ext/review_watch_demos.py``;
* ```` ```{review-precommit} ```` — the pre-commit configuration, from
  ``.pre-commit-hooks.yaml`` and the package version;
* each row of the mask-semantics table gets a line "Review rules: AM101 · AW201" linking to the
  rules that rest on it (added when the page is written: ``docs/_ext/semantics_table.py`` is not
  touched).

The build warns (``-W`` fails) unless the pages under ``review/rules/`` are exactly one per
static rule, ``review/rules/<code>.md`` holding ```` ```{review-rule} <CODE> ````, and every
runtime rule has a demonstration.

Translation: the fixed strings below and the registry's texts (each rule's summary and fix, each
runtime rule's message and fix) are messages of the catalogue ``review/registry``
(``docs/locales/zh_CN/LC_MESSAGES/review/registry.po``), with the English text as message id.
The gettext build writes ``review/registry.pot`` beside the pages' ``.pot`` files, so
``nox -s translations`` keeps it up to date and ``nox -s docs`` fails while a message is
untranslated or fuzzy; a rule whose English text changes is fuzzy until its Chinese is checked.
Codes, names, rows, numbers and the examples are not translated: both languages show the same.
"""

from __future__ import annotations

import datetime
import os
import re
from pathlib import Path
from typing import Any, ClassVar

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_file
from babel.messages.pofile import write_po
from docutils import nodes
from review_watch_demos import WATCH_DEMOS
from site_messages import load_catalogue
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.locale import get_translation
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.typing import ExtensionMetadata

import attention
from attention.review import watch_rules
from attention.review.check import Finding, check_source
from attention.review.config import suppressed
from attention.review.fix import diff, fixed_source
from attention.review.i18n import LABELS
from attention.review.report import render
from attention.review.rules import FAMILIES, RULES, Rule, by_code, family_of
from attention.semantics.claims import Claim, load_claims, load_ecosystem_claims

logger = logging.getLogger(__name__)

CATALOGUE = "review/registry"
EXT = Path(__file__).resolve().parent
DOCS = EXT.parent
ROOT = DOCS.parent
RULES_FOLDER = "review/rules"
HOOKS = ROOT / ".pre-commit-hooks.yaml"
# what the pages are made from: a change to one rereads the pages that show it (the Chinese
# catalogue too, whose texts the directives write into the pages when they are read)
SOURCES = [
    *sorted((ROOT / "src" / "attention" / "review" / "rules").glob("*.py")),
    *(
        ROOT / "src" / "attention" / "review" / name
        for name in ("demos.py", "watch_rules.py", "check.py", "report.py", "fix.py")
    ),
    DOCS / "locales" / "zh_CN" / "LC_MESSAGES" / f"{CATALOGUE}.po",
]

_ = get_translation(CATALOGUE)


def _labels() -> dict[str, str]:
    """The pages' fixed strings in the build's language (catalogue ``review/registry``)."""
    return {
        "rule": _("Rule"),
        "severity": _("Severity"),
        "rows": _("Rows it rests on"),
        "error": _("error"),
        "warning": _("warning"),
        "catches": _("What it catches"),
        "reads": _("What it reads"),
        "silent": _("What it leaves silent"),
        "example": _("Example"),
        "why": _("Why: the wrong code on torch"),
        "fix": _("Fix"),
        "silence": _("Silence it"),
        # Translators: the severity of a rule, then what that severity means
        "severity_error": _("Severity: {severity}. The source alone proves the mistake."),
        "severity_warning": _(
            "Severity: {severity}. The finding rests on what the source suggests but does not "
            "prove: a name (`pad_mask`, `attention_mask`), or a dtype, size or path it does not "
            "show."
        ),
        "reports": _(
            "What `python -m attention.review example.py` reports on the wrong example below:"
        ),
        "wrong": _("Wrong: the checker reports the finding above."),
        "right": _("Right: the checker reports nothing."),
        "demo_wrong": _("The mistake, run on the installed torch:"),
        "demo_right": _("The right code, on the same inputs:"),
        "fixable": _(
            "`--fix` makes this rewrite in place, and `--diff` prints it first; on the wrong "
            "example:"
        ),
        "not_fixable": _(
            "The checker does not rewrite this: the fix is text in the message, since any "
            "rewrite could change what a correct program computes."
        ),
        "no_rows": _(
            "No row of the mask-semantics table: the mistake is not in how an API reads a mask, "
            "but in the attention computed around it, which the lesson teaches, or in the layout "
            "of its inputs."
        ),
        # Translators: {line} is a line number of the wrong example
        "inline": _(
            "On the flagged line (line {line} of the example), either comment silences this "
            "rule and no other:"
        ),
        "config": _("For a whole project, or for some files, in `pyproject.toml`:"),
        # Translators: before the links from a row of the mask-semantics table to the rules
        "row_rules": _("Review rules:"),
        "watch_reports": _("What it reports"),
        "warning_class": _("Warning class"),
        "watch_demo": _("A call it flags, on the installed torch:"),
        "watch_silence": _(
            "Silence it: filter its warning class, or pass `strict=True` to raise instead."
        ),
    }


_CODE = re.compile(r"`([^`]+)`")


def _inline(text: str) -> list[nodes.Node]:
    """Text with `backquoted` spans as inline code."""
    parts: list[nodes.Node] = []
    for index, piece in enumerate(_CODE.split(text)):
        if piece:
            parts.append(nodes.literal(piece, piece) if index % 2 else nodes.Text(piece))
    return parts


def _paragraph(
    *children: nodes.Node, classes: tuple[str, ...] = (), generated: bool = True
) -> nodes.paragraph:
    # generated text, never extracted into a page's .pot; "generated": the Chinese-prose check
    # holds it to Chinese punctuation (docs/_tools/zhprose.py).  A row's argument is the claims
    # data's text, shown as the mask-semantics table shows it (not "generated" there either).
    classes = ("generated", *classes) if generated else classes
    paragraph = nodes.paragraph("", "", *children, classes=list(classes))
    paragraph["translatable"] = False
    return paragraph


def _text(template: str, **fields: str | list[nodes.Node]) -> list[nodes.Node]:
    """``template`` with `code` spans, and its ``{name}`` fields replaced by nodes."""
    result: list[nodes.Node] = []
    for piece in re.split(r"(\{\w+\})", template):
        name = piece[1:-1]
        if piece.startswith("{") and name in fields:
            value = fields[name]
            result.extend(value if isinstance(value, list) else [nodes.Text(value)])
        else:
            result.extend(_inline(piece))
    return result


def _section(ident: str, title: list[nodes.Node]) -> nodes.section:
    # ids are fixed: the same anchors in both languages
    section = nodes.section(ids=[ident])
    heading = nodes.title("", "", *title)
    heading["translatable"] = False  # generated: never in a page's .pot
    section += heading
    return section


class rule_name(nodes.literal):  # noqa: N801 (docutils names node classes in lower case)
    """A rule's name as code: ``<code>`` and the name, nothing else.

    It holds no space (no ``span.pre`` per word is needed) and breaks after its hyphens, as
    any text does where the CSS lets it (``review-rules.css``); every page's sidebar lists all
    the rules, so each byte here is paid once per rule on every page.
    """


def _visit_rule_name(translator: Any, node: rule_name) -> None:
    code = translator.starttag(node, "code", "", CLASS="literal notranslate")
    translator.body.append(code + translator.encode(node.astext()) + "</code>")
    raise nodes.SkipNode


def _heading(code: str, name: str) -> list[nodes.Node]:
    """A rule's title: its code and its name (as code: names are not translated).

    The name is a :class:`rule_name`, which every page's sidebar repeats for each rule.
    """
    return [nodes.Text(f"{code} "), rule_name(name, name, classes=["review-name"])]


def _code(text: str, language: str) -> nodes.literal_block:
    block = nodes.literal_block(text, text, language=language)
    return block


def _doctest(text: str, group: str) -> nodes.literal_block:
    """A doctest block, as ``{doctest}`` writes it: ``sphinx-build -b doctest`` runs it too."""
    code = text.rstrip("\n")
    block = nodes.literal_block(code, code, testnodetype="doctest", groups=[group])
    block["language"] = "pycon"
    block["options"] = {}
    return block


def _claims() -> dict[str, Claim]:
    return {claim.id: claim for claim in (*load_claims(), *load_ecosystem_claims())}


class review_row_ref(nodes.Inline, nodes.Element):  # noqa: N801 (docutils names nodes in lower case)
    """A link to a row of the mask-semantics table, resolved by :class:`_RowLinks`."""


def _row_ref(row: str, docname: str) -> review_row_ref:
    """A link to a row of the mask-semantics table (each row is a label with its id)."""
    return review_row_ref("", row=row, refdoc=docname)


class _RowLinks(SphinxPostTransform):
    """Each :class:`review_row_ref` becomes a link to its row, the id shown as code.

    A std:ref with explicit text would show the id as plain text; as code, it breaks after its
    dots like every other name (docs/_ext/site_support.py runs later, at priority 900).
    """

    default_priority = 20  # after Sphinx resolves the references (10)

    def run(self, **kwargs: Any) -> None:
        labels = self.env.domains.standard_domain.labels
        for node in list(self.document.findall(review_row_ref)):
            row = node["row"]
            code = nodes.literal(row, row)
            if row not in labels:
                logger.warning("review rules: no mask-semantics row %r", row, location=node)
                node.replace_self(code)
                continue
            docname, anchor, _title = labels[row]
            uri = self.app.builder.get_relative_uri(node["refdoc"], docname) + "#" + anchor
            node.replace_self(nodes.reference("", "", code, refuri=uri, internal=True))


def _doc_ref(target: str, text: str, docname: str) -> addnodes.pending_xref:
    ref = addnodes.pending_xref(
        "", refdomain="std", reftype="doc", reftarget=target, refexplicit=True, refdoc=docname
    )
    ref += nodes.literal(text, text)
    return ref


def _rows_list(rows: tuple[str, ...], docname: str, language: str) -> nodes.bullet_list:
    claims = _claims()
    items = nodes.bullet_list(classes=["review-rows"])
    for row in rows:
        parts: list[nodes.Node] = [_row_ref(row, docname)]
        claim = claims.get(row)
        if claim is not None:
            parts += [nodes.Text(" — "), nodes.literal(claim.api, claim.api), nodes.Text(" · ")]
            parts += _inline(claim.argument_in(language))
        items += nodes.list_item("", _paragraph(*parts, generated=False))
    return items


def _severity(rule: Rule, labels: dict[str, str]) -> list[nodes.Node]:
    word = labels[rule.severity]
    template = labels["severity_error" if rule.severity == "error" else "severity_warning"]
    return _text(template, severity=[nodes.strong(word, word)])


def _language(config: Any) -> str:
    return "zh_CN" if str(config.language).startswith("zh") else "en"


def _findings(rule: Rule, source: str) -> list[Finding]:
    return [finding for finding in check_source(source, "example.py") if finding.code == rule.code]


class ReviewRule(SphinxDirective):
    """A rule's page: ```` ```{review-rule} AM101 ````."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        for path in SOURCES:
            self.env.note_dependency(str(path))
        try:
            rule = by_code(self.arguments[0])
        except KeyError as error:
            logger.warning("review-rule: %s", error.args[0], location=self.get_location())
            return []
        _pages(self.env)[self.env.docname] = rule.code
        # not in the search index: the rules' table on review/index lists each code, name and
        # summary, and 23 pages of examples and checker output would double the Chinese index
        self.env.metadata[self.env.docname]["nosearch"] = ""
        labels = _labels()
        language = _language(self.config)
        docname = self.env.docname
        page = _section(rule.code.lower(), _heading(rule.code, rule.name))
        _label(self, page, rule.code.lower())
        page += _paragraph(*_inline(_(rule.summary)))
        page += _paragraph(*_severity(rule, labels))

        found = _findings(rule, rule.wrong)
        if len(found) != 1 or check_source(rule.right, "example.py"):
            logger.warning(
                "review-rule %s: the checker must report this rule exactly once on the wrong "
                "example and nothing on the right one",
                rule.code,
                location=self.get_location(),
            )
        catches = _section("what-it-catches", [nodes.Text(labels["catches"])])
        catches += _paragraph(*_inline(labels["reports"]))
        language = self.env.config.language or "en"
        catches += _code(render(found, "text", _site(language)).rstrip("\n"), "text")
        page += catches

        family = family_of(rule.code)  # every rule of a family reads the same facts
        reads = _section("what-it-reads", [nodes.Text(labels["reads"])])
        reads += _paragraph(*_inline(_(family.READS)))
        page += reads
        silent = _section("what-it-leaves-silent", [nodes.Text(labels["silent"])])
        silent += _paragraph(*_inline(_(family.SILENT)))
        page += silent

        example = _section("example", [nodes.Text(labels["example"])])
        example += _paragraph(*_inline(labels["wrong"]))
        example += _code(rule.wrong.rstrip("\n"), "python")
        example += _paragraph(*_inline(labels["right"]))
        example += _code(rule.right.rstrip("\n"), "python")
        page += example

        why = _section("why", [nodes.Text(labels["why"])])
        why += _paragraph(*_inline(labels["demo_wrong"]))
        why += _doctest(rule.demo_wrong, f"{rule.code.lower()}-wrong")
        why += _paragraph(*_inline(labels["demo_right"]))
        why += _doctest(rule.demo_right, f"{rule.code.lower()}-right")
        page += why

        fix = _section("fix", [nodes.Text(labels["fix"])])
        fix += _paragraph(*_inline(_(rule.fix)))
        if rule.fixable:
            fix += _paragraph(*_inline(labels["fixable"]))
            after = fixed_source(rule.wrong, "example.py")
            fix += _code(diff("example.py", rule.wrong, after).rstrip("\n"), "diff")
        else:
            fix += _paragraph(*_inline(labels["not_fixable"]))
        page += fix

        rows = _section("rows", [nodes.Text(labels["rows"])])
        if rule.rows:
            rows += _rows_list(rule.rows, docname, language)
        else:
            rows += _paragraph(*_inline(labels["no_rows"]))
        page += rows

        silence = _section("silence", [nodes.Text(labels["silence"])])
        page += silence
        if found:
            line = found[0].line
            flagged = rule.wrong.splitlines()[line - 1]
            comments = (f"  # attention: ignore[{rule.code}]", f"  # noqa: {rule.code}")
            for comment in comments:
                if not suppressed(flagged + comment, rule.code):
                    logger.warning(
                        "review-rule %s: %r does not silence it",
                        rule.code,
                        comment,
                        location=self.get_location(),
                    )
            silence += _paragraph(*_text(labels["inline"], line=str(line)))
            silence += _code("\n".join(flagged + comment for comment in comments), "python")
        silence += _paragraph(*_inline(labels["config"]))
        config = (
            "[tool.attention-review]\n"
            f'ignore = ["{rule.code}"]                        # everywhere\n'
            f'per-file-ignores = {{ "tests/*" = ["{rule.code}"] }}   # only there'
        )
        silence += _code(config, "toml")
        return [page]


def _label(directive: SphinxDirective, section: nodes.section, name: str) -> None:
    """Make the section a reference target: ``{ref}`text <aw206>``` links to it."""
    section["names"].append(name)
    directive.state.document.note_explicit_target(section)


def _site(language: str = "en") -> Any:
    from attention.review.report import Site

    return Site(version=attention.__version__, language=language if language == "zh_CN" else "en")


class ReviewRulesTable(SphinxDirective):
    """Every static rule: code (its page), name, severity, the rows it rests on."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        for path in SOURCES:
            self.env.note_dependency(str(path))
        labels = _labels()
        docname = self.env.docname
        table = nodes.table(classes=["review-rules", "colwidths-given"])
        group = nodes.tgroup(cols=3)
        table += group
        for width in (42, 14, 44):
            group += nodes.colspec(colwidth=width)
        head = nodes.thead()
        heading = nodes.row()
        for key in ("rule", "severity", "rows"):
            heading += nodes.entry("", _paragraph(nodes.Text(labels[key])))
        head += heading
        group += head
        body = nodes.tbody()
        group += body
        for rule in RULES:
            row = nodes.row(ids=[rule.code.lower()])
            row += nodes.entry(
                "",
                _paragraph(
                    _doc_ref(f"/{RULES_FOLDER}/{rule.code.lower()}", rule.code, docname),
                    nodes.Text(" "),
                    rule_name(rule.name, rule.name, classes=["review-name"]),
                ),
                _paragraph(*_inline(_(rule.summary)), classes=("review-summary",)),
            )
            word = labels[rule.severity]
            row += nodes.entry("", _paragraph(nodes.Text(word)))
            # a rule that rests on no row says why, as its page does, instead of an empty cell
            rows = [_paragraph(_row_ref(r, docname)) for r in rule.rows] or [
                _paragraph(nodes.emphasis("", "", *_inline(labels["no_rows"])))
            ]
            row += nodes.entry("", *rows)
            body += row
        return [table]


class ReviewWatchRules(SphinxDirective):
    """One section per runtime rule, each with its demonstration."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        for path in SOURCES:
            self.env.note_dependency(str(path))
        self.env.note_dependency(str(EXT / "review_watch_demos.py"))
        labels = _labels()
        language = _language(self.config)
        docname = self.env.docname
        _watch_pages(self.env)[docname] = list(watch_rules.RULES)
        unknown = set(WATCH_DEMOS) - set(watch_rules.RULES)
        missing = set(watch_rules.RULES) - set(WATCH_DEMOS)
        if unknown or missing:
            logger.warning(
                "review-watch-rules: demonstrations without a rule: %s; rules without one: %s",
                ", ".join(sorted(unknown)) or "none",
                ", ".join(sorted(missing)) or "none",
                location=self.get_location(),
            )
        sections = []
        for code, rule in watch_rules.RULES.items():
            section = _section(code.lower(), _heading(code, rule.name))
            _label(self, section, code.lower())
            stop = "." if language == "en" else "。"  # the registry's texts end without one
            section += _paragraph(
                nodes.strong(labels["watch_reports"], labels["watch_reports"]),
                nodes.Text(": " if language == "en" else "："),
                *_inline(_(rule.message) + stop),
            )
            name = f"attention.review.watch_rules.{rule.warning.__name__}"
            section += _paragraph(
                nodes.strong(labels["warning_class"], labels["warning_class"]),
                nodes.Text(": " if language == "en" else "："),
                nodes.literal(name, name),
            )
            section += _paragraph(
                nodes.strong(labels["fix"], labels["fix"]),
                nodes.Text(": " if language == "en" else "："),
                *_inline(_(rule.fix) + stop),
            )
            section += _paragraph(nodes.strong(labels["rows"], labels["rows"]))
            if rule.rows:
                section += _rows_list(rule.rows, docname, language)
            else:  # a softmax that cannot be right, whatever the API's convention
                section += _paragraph(*_inline(labels["no_rows"]))
            if code in WATCH_DEMOS:
                section += _paragraph(*_inline(labels["watch_demo"]))
                section += _doctest(WATCH_DEMOS[code], code.lower())
            section += _paragraph(*_inline(labels["watch_silence"]))
            filter_code = (
                "import warnings\n"
                f"from attention.review.watch_rules import {rule.warning.__name__}\n\n"
                f'warnings.filterwarnings("ignore", category={rule.warning.__name__})'
            )
            section += _code(filter_code, "python")
            sections.append(section)
        return sections


class ReviewPrecommit(SphinxDirective):
    """The ``.pre-commit-config.yaml`` entry for the hook ``.pre-commit-hooks.yaml`` defines."""

    has_content = False
    option_spec: ClassVar[dict[str, Any]] = {}

    def run(self) -> list[nodes.Node]:
        self.env.note_dependency(str(HOOKS))
        ids = re.findall(r"^- id:\s*(\S+)", HOOKS.read_text(encoding="utf-8"), re.MULTILINE)
        if len(ids) != 1:
            logger.warning(
                "review-precommit: %s must define one hook, found %s",
                HOOKS.name,
                ids,
                location=self.get_location(),
            )
            return []
        repo = "  - repo: /path/to/attention"
        rev = f"    rev: v{attention.__version__}"
        width = max(len(repo), len(rev)) + 2
        text = (
            "repos:\n"
            f"{repo.ljust(width)}# a clone of attention, or any address git clone takes\n"
            f"{rev.ljust(width)}# a tag of it (each release makes one) or a commit\n"
            "    hooks:\n"
            f"      - id: {ids[0]}"
        )
        return [_code(text, "yaml")]


# -- the links from the mask-semantics rows to the rules ----------------------------------------


class review_links(nodes.Inline, nodes.Element):  # noqa: N801 (docutils names nodes in lower case)
    """The links of a row to its rules, written as plain ``<a href>``: about 40 bytes each."""


def _visit_review_links_html(translator: Any, node: review_links) -> None:
    links = " · ".join(
        f'<a href="{translator.encode(href)}">{translator.encode(code)}</a>'
        for code, href in node["links"]
    )
    translator.body.append(links)
    raise nodes.SkipNode


def _visit_review_links_text(translator: Any, node: review_links) -> None:
    raise nodes.SkipNode


def _rules_by_row() -> dict[str, list[tuple[str, str | None]]]:
    """row -> [(code, rule page or None for a runtime rule)], static rules first."""
    found: dict[str, list[tuple[str, str | None]]] = {}
    for rule in RULES:
        for row in rule.rows:
            found.setdefault(row, []).append((rule.code, f"{RULES_FOLDER}/{rule.code.lower()}"))
    for code, watch_rule in watch_rules.RULES.items():
        for row in watch_rule.rows:
            found.setdefault(row, []).append((code, None))
    return found


def _link_rows(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """After each claim row's id line: "Review rules: AM101 · AW201", each a link."""
    if app.builder.format != "html":
        return
    from semantics_table import claim_row

    rows = [row for row in doctree.findall(claim_row)]
    if not rows:
        return
    by_row = _rules_by_row()
    watch_page = next(iter(_watch_pages(app.env)), None)
    label = _labels()["row_rules"]
    for row in rows:
        rules = by_row.get(row["ids"][0], [])
        links = []
        for code, page in rules:
            if page is None:
                if watch_page is None:
                    continue
                href = app.builder.get_relative_uri(docname, watch_page) + f"#{code.lower()}"
            else:
                href = app.builder.get_relative_uri(docname, page)
            links.append((code, href))
        if not links:
            continue
        node = review_links()
        node["links"] = links
        entry = row.next_node(nodes.entry)
        space = "" if label.endswith("：") else " "
        entry += _paragraph(nodes.Text(label + space), node, classes=("semantics-review",))


# -- consistency: one page per static rule, every runtime rule shown ------------------------------


def _pages(env: BuildEnvironment) -> dict[str, str]:
    """docname -> the static rule its page shows (kept in the environment)."""
    if not hasattr(env, "review_rule_pages"):
        env.review_rule_pages = {}  # type: ignore[attr-defined]
    pages: dict[str, str] = env.review_rule_pages  # type: ignore[attr-defined]
    return pages


def _watch_pages(env: BuildEnvironment) -> dict[str, list[str]]:
    """docname -> the runtime rules it shows."""
    if not hasattr(env, "review_watch_pages"):
        env.review_watch_pages = {}  # type: ignore[attr-defined]
    pages: dict[str, list[str]] = env.review_watch_pages  # type: ignore[attr-defined]
    return pages


def _purge(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    _pages(env).pop(docname, None)
    _watch_pages(env).pop(docname, None)


def _merge(app: Sphinx, env: BuildEnvironment, docnames: set[str], other: BuildEnvironment) -> None:
    _pages(env).update({d: c for d, c in _pages(other).items() if d in docnames})
    _watch_pages(env).update({d: c for d, c in _watch_pages(other).items() if d in docnames})


def _check_pages(app: Sphinx, env: BuildEnvironment) -> None:
    """The pages under review/rules/ are exactly one per rule, each named for its code."""
    if not any(doc.startswith("review/") for doc in env.found_docs):
        return  # a build of some other pages only
    expected = {f"{RULES_FOLDER}/{rule.code.lower()}": rule.code for rule in RULES}
    found = {doc for doc in env.found_docs if doc.startswith(f"{RULES_FOLDER}/")}
    shown = _pages(env)
    for doc in sorted(expected.keys() - found):
        logger.warning("review rule %s has no page: add %s.md", expected[doc], doc)
    for doc in sorted(found):
        if doc not in expected:
            logger.warning("%s: no rule %s; the rules are in attention.review.rules", doc, doc)
        elif shown.get(doc) != expected[doc]:
            logger.warning(
                "%s must hold ```{review-rule} %s```, found %s", doc, expected[doc], shown.get(doc)
            )
    watched = [code for codes in _watch_pages(env).values() for code in codes]
    if sorted(watched) != sorted(watch_rules.RULES):
        logger.warning("the runtime rules must be shown on one page ({review-watch-rules})")


# -- the catalogue --------------------------------------------------------------------------------


def extract() -> Catalog:
    """The fixed strings above, then each rule's texts, in the registry's order."""
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "0"))
    catalogue = Catalog(
        project="attention",
        creation_date=datetime.datetime.fromtimestamp(epoch, datetime.UTC),
        fuzzy=False,
    )
    for _line, message, comments, context in extract_from_file(
        "python", __file__, keywords={"_": None}, comment_tags=("Translators:",)
    ):
        if isinstance(message, str):  # _(rule.summary) and the like are added below
            catalogue.add(message, auto_comments=comments, context=context)
    for label in LABELS:
        catalogue.add(label, auto_comments=["the checker's report: a label or a severity"])
    for family in FAMILIES:
        name = family.__name__.rsplit(".", 1)[-1]
        catalogue.add(family.READS, auto_comments=[f"{name}: what its rules read"])
        catalogue.add(family.SILENT, auto_comments=[f"{name}: what its rules leave silent"])
    for rule in RULES:
        catalogue.add(rule.summary, auto_comments=[f"{rule.code} {rule.name}: what it catches"])
        catalogue.add(rule.fix, auto_comments=[f"{rule.code} {rule.name}: the fix"])
        catalogue.add(
            rule.message, auto_comments=[f"{rule.code} {rule.name}: the finding's headline"]
        )
    for code, watch_rule in watch_rules.RULES.items():
        name = watch_rule.name
        catalogue.add(watch_rule.message, auto_comments=[f"{code} {name}: what it reports"])
        catalogue.add(watch_rule.fix, auto_comments=[f"{code} {name}: the fix"])
    return catalogue


def _write_pot(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.name != "gettext":
        return
    target = Path(app.outdir) / f"{CATALOGUE}.pot"
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "wb") as file:
        write_po(file, extract(), no_location=True, omit_header=False, width=100)
    # A rule's page is one directive: its text is in review/registry, its own catalogue would
    # hold nothing (and ask for an empty .po per rule).
    for pot in sorted((Path(app.outdir) / RULES_FOLDER).glob("*.pot")):
        if "\nmsgid " not in pot.read_text(encoding="utf-8").split("msgstr", 1)[1]:
            pot.unlink()


def setup(app: Sphinx) -> ExtensionMetadata:
    load_catalogue(app, CATALOGUE)
    app.setup_extension("semantics_table")  # the rows the links are added to
    app.add_css_file("review-rules.css")  # docs/_static/review-rules.css
    app.add_node(
        review_links,
        html=(_visit_review_links_html, None),
        text=(_visit_review_links_text, None),
        latex=(_visit_review_links_text, None),
        man=(_visit_review_links_text, None),
        texinfo=(_visit_review_links_text, None),
    )
    app.add_node(review_row_ref)
    app.add_node(rule_name, html=(_visit_rule_name, None))
    app.add_post_transform(_RowLinks)
    app.add_directive("review-rule", ReviewRule)
    app.add_directive("review-rules-table", ReviewRulesTable)
    app.add_directive("review-watch-rules", ReviewWatchRules)
    app.add_directive("review-precommit", ReviewPrecommit)
    app.connect("doctree-resolved", _link_rows)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("env-check-consistency", _check_pages)
    app.connect("build-finished", _write_pot)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
