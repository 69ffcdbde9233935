"""The ``semantics-table`` directive: the mask-semantics claims as a table, one row per claim.

The rows come from ``conf/semantics.toml`` through :mod:`attention.semantics.claims` (the same
data ``python -m attention.semantics`` checks), and the result of each row on every verified torch
release, with the date, from the records ``conf/records/torch-<release>.json`` (every path from
:mod:`attention.semantics.paths`; framework metadata from :mod:`attention.semantics.registry`).
A row shows the value its probe observed on the newest verified release, the older releases'
values under it ("Until torch 2.13.0: ok"), and the releases it was verified on as runs of
consecutive releases with the same value ("torch 2.0.1–2.4.1: nan", "2.5.1–2.15.0: zeros"); a row
whose behaviour changed between releases is marked "changed in X.Y", and
``{semantics-disagreements}`` names the releases on which each row differs
from the documentation.  The matrix of every row on every release is
:mod:`semantics_releases`'s.  In MyST::

    ```{semantics-table}
    :prefix: sdpa softmax
    ```

``:prefix:`` keeps the claims whose id starts with one of the space-separated prefixes (all
claims without it).  Each row's ``<tr>`` carries the claim id verbatim as its HTML id
(``id="sdpa.attn_mask.bool"``: docutils would turn the dots into hyphens if the id went through
its normaliser, so it is set directly), and the id is a reference label, so other pages link to
``mask-semantics.md#sdpa.attn_mask.bool`` or ``{ref}`text <sdpa.attn_mask.bool>```.

The explanation and the note come from the claims data in the build's language (``zh_CN``:
Chinese, otherwise English); the few fixed strings (column heads, "Reproduce", ...) go through
gettext with English as the message id (``docs/_ext/site_messages.py``: catalogue ``site``).  Each
claim is three rows: the claim (id, API, argument) across the table, so no name has to break;
what was observed, what it means and the release(s) and date it was verified on; and the folded
snippet that reproduces it.  The claim row's label carries the claim as its title, so a
cross-reference (and the ``std:label`` in ``objects.inv``) reads as the claim.  The build warns
(and ``-W`` fails) when a prefix matches no claim, when a claim is on no page or on two, and when
a verification record does not match the claims and probes, states no date, or a listed release
has none (run ``nox -s semantics_matrix``).

The rows about other frameworks come from ``conf/semantics-ecosystem.toml`` and their record
from ``conf/records/ecosystem.json`` (written by ``nox -s semantics_ecosystem``); a row shows
the package versions it was verified on, and a row that needs a CUDA device shows "not verified
here" and the source it rests on.  ``{semantics-record}`` renders that record's date and versions.

Every lesson page states the torch releases its examples are verified on, from the records
(:func:`_state_releases`, a paragraph under the page title).
"""

from __future__ import annotations

import re
import string
from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from packaging.specifiers import SpecifierSet
from site_messages import _
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.typing import ExtensionMetadata

from attention.semantics import paths
from attention.semantics.claims import (
    Claim,
    expected_for,
    load_all_claims,
    load_claims,
    load_ecosystem_claims,
)
from attention.semantics.record import claims_digest, load_record
from attention.semantics.registry import VERIFIED_WITH, issue_url

logger = logging.getLogger(__name__)

CLAIMS_FILE = paths.CLAIMS
ECOSYSTEM_FILE = paths.ECOSYSTEM_CLAIMS


def _series(claim: Claim, records: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Release -> record of the claim's framework, when its rows are recorded per release.

    torch's releases (``conf/torch-releases.toml``), transformers' and onnxruntime's
    (``conf/library-releases.toml``), in release order; empty for a framework with one record.
    """
    series: dict[str, dict[str, Any]] = records.get(claim.framework, {})
    return series


def _data_files() -> list[Path]:
    """Every file the tables are made from: a change to one rereads the pages that use them."""
    return [
        *(CLAIMS_FILE, ECOSYSTEM_FILE, paths.RELEASES, paths.LIBRARY_RELEASES),
        *paths.record_files(),
        *paths.library_record_files(),
    ]


def _labels() -> dict[str, str]:
    """The table's fixed strings in the build's language (gettext catalogue ``site``)."""
    return {
        "claim": _("Claim"),
        "result": _("Observed"),
        "why": _("What it means"),
        "verified": _("Verified on"),
        # Translators: a row whose behaviour differs from the given torch release (X.Y) on
        "changed": _("changed in {}"),
        # Translators: a row's value on the newest release, when older releases observed
        # another, and the run of releases ("2.14.1–2.15.0") that observe it
        "newest_run": _("{value} (torch {releases})"),
        # Translators: a run of torch releases with the same observed value, in a row's
        # "Verified on": releases "2.0.1–2.4.1" (or one release), value a word such as "zeros"
        "run": _("torch {releases}: {value}"),
        # Translators: the same, for the later runs of releases, under the first
        "run_more": _("{releases}: {value}"),
        # Translators: a row where the documentation and the library differ, after what the
        # documentation says: the value observed and the releases (e.g. "2.3.1–2.13.0")
        "differs_on": _("Observed {value} on torch {releases}."),
        "differs_on_library": _("Observed {value} on {framework} {releases}."),
        "not_verified_run": _("not verified"),
        # Translators: a run of releases of another library ("transformers 4.46.3–4.52.4:
        # uniform"), the library's name first
        "run_named": _("{name} {releases}: {value}"),
        # Translators: a row's value on the newest release of another library, and its releases
        "newest_run_named": _("{value} ({name} {releases})"),
        # Translators: in a copied citation of another library's row: "zeros on transformers
        # 4.53.3–5.24.0"
        "cite_value_named": _("{value} on {name} {releases}"),
        "reproduce_release": _("Reproduce on torch {}"),
        # Translators: a list of releases or package versions, e.g. "2.13.0, 2.14.1"
        "separator": _(", "),
        # Translators: under a lesson page title; the releases, e.g. "2.13.0 and 2.14.1"
        "lesson_releases": _("Every example on this page is verified on torch {}."),
        "and": _(" and "),
        "docs_say": _("The documentation says: {}."),
        "undocumented": _("Not documented."),
        "docs": _("Documentation"),
        "issues": _("Issues:"),
        "reproduce": _("Reproduce"),
        "not_verified": _("Not verified: needs a CUDA device."),
        "not_verified_here": _("Not verified here: needs a CUDA device and {}."),
        "source": _("Source: {}"),
        "backend": _("{} backend"),
        "unrecorded": _("Not verified yet."),
        "observed": _("Observed: {}."),
        "not_observed": _("Stated by the source, not observed here."),
        "record": _("Verified on {date} (UTC), Python {python}, on a CPU:"),
        "not_installed": _("not installed"),
        # Translators: the title of a row (what a cross-reference to it reads): API, argument, value
        "title": _("{api}, {argument}: {observed}"),
        # Translators: in a copied citation of a row, a value and the runs of releases that
        # observe it: "error on torch 2.0.1–2.2.2 and 2.14.1–2.15.0"
        "cite_value": _("{value} on torch {releases}"),
        # Translators: in a copied citation of a row, two of the clauses above, one after the other
        "cite_more": _("{clause}, {more}"),
        # Translators: in a copied citation of another framework's row: "jax 0.7.2, flax 0.11.1"
        "cite_versions": _("verified on {} on a CPU"),
        # Translators: in a copied citation of a PyTorch row, after its values and releases
        "cite_cpu": _("{}, on a CPU"),
        # Translators: after the days a torch row was verified on: the device of every record
        "cpu": _(" · CPU"),
    }


_CODE = re.compile(r"`([^`]+)`")


class value_literal(nodes.literal):  # noqa: N801 (docutils names node classes in lower case)
    """A word of the vocabulary (``zeros``), written as ``<code class="literal">zeros</code>``.

    A plain literal is ``<code class="docutils literal notranslate"><span class="pre">zeros
    </span></code>``: 70 bytes for a five-letter word, which the mask-semantics page shows some
    200 times.  A word holds no space to keep (span.pre) and is code, which no page translates.
    """


def _visit_value_literal(translator: Any, node: value_literal) -> None:
    translator.body.append(f'<code class="literal">{translator.encode(node.astext())}</code>')
    raise nodes.SkipNode


def _value(word: str) -> value_literal:
    return value_literal(word, word)


def _with_value(label: str, value: str) -> list[nodes.Node]:
    """``label`` (with one ``{}``) around ``value``, a vocabulary word shown as code."""
    before, after = label.split("{}")
    return [nodes.Text(before), _value(value), nodes.Text(after)]


def _inline(text: str) -> list[nodes.Node]:
    """Text with `backquoted` spans as inline code."""
    parts: list[nodes.Node] = []
    for index, piece in enumerate(_CODE.split(text)):
        if not piece:
            continue
        parts.append(nodes.literal(piece, piece) if index % 2 else nodes.Text(piece))
    return parts


def _compose(template: str, **parts: str | nodes.Node | list[nodes.Node]) -> list[nodes.Node]:
    """``template`` (a translated message with ``{name}`` fields) with nodes for its fields.

    The punctuation around the fields belongs to the message, so each language writes its own
    (``{mark}: {before}`` in English, ``{mark}：{before}`` in Chinese).
    """
    result: list[nodes.Node] = []
    for text, field, _spec, _conversion in string.Formatter().parse(template):
        if text:
            result.append(nodes.Text(text))
        if field is not None:
            part = parts[field]
            if isinstance(part, str):
                result.append(nodes.Text(part))
            elif isinstance(part, list):
                result.extend(part)
            else:
                result.append(part)
    return result


def _paragraph(*children: nodes.Node, classes: list[str] | None = None) -> nodes.paragraph:
    # no source and translatable=False: generated text, never extracted into the .pot
    paragraph = nodes.paragraph("", "", *children, classes=classes or [])
    paragraph["translatable"] = False
    return paragraph


def _label(text: str) -> nodes.paragraph:
    """A cell's column name, shown only where the cells stack (a phone) and the head is hidden."""
    return _paragraph(nodes.Text(text), classes=["semantics-label"])


def _entry(*children: nodes.Node, span: int = 1, classes: list[str] | None = None) -> nodes.entry:
    entry = nodes.entry("", *children, classes=classes or [])
    if span > 1:
        entry["morecols"] = span - 1
    return entry


class claim_row(nodes.row):  # noqa: N801 (docutils names node classes in lower case)
    """A table row that is a claim: a reference target whose title is the claim.

    Registered as an enumerable node, so Sphinx's standard domain records the row's label with
    :func:`_claim_title` as its title: ``{ref}`<sdpa.attn_mask.bool>``` and the ``std:label`` in
    ``objects.inv`` read as the claim, not as the raw id.  Every translator renders it as the
    row it is (Sphinx dispatches on the class's ancestors).
    """


def _claim_title(node: nodes.Element) -> str:
    return str(node["title"])


class reproduce_block(nodes.literal_block):  # noqa: N801
    """A row's folded ``>>>`` snippet: ``<details>`` on an HTML page, a literal block elsewhere.

    Closed, a ``<details>`` shows nothing, and the table's fixed layout keeps a long line of a
    snippet from widening it; open, its lines wrap inside the cell (semantics-table.css).  The
    snippet is plain text, without the highlighter's one ``<span>`` per token: 34 highlighted
    snippets were half of the page's HTML.
    sphinx-copybutton still gives the ``<pre>`` its button (it copies the ``>>>`` lines).
    """


def _visit_reproduce_html(translator: Any, node: reproduce_block) -> None:
    summary = translator.encode(node["title"])
    # ">" needs no escape in HTML text: a snippet's ">>> " prompts stay 4 bytes, not 13
    code = translator.encode(node.astext()).replace("&gt;", ">")
    translator.body.append(
        f'<details class="semantics-reproduce"><summary>{summary}</summary>'
        f'<div class="highlight-pycon notranslate"><div class="highlight"><pre>{code}</pre>'
        "</div></div></details>\n"
    )
    raise nodes.SkipNode


class SemanticsTable(SphinxDirective):
    """Render the claims (optionally only those under some id prefixes) as a table."""

    has_content = False
    option_spec: ClassVar[dict[str, Any]] = {"prefix": directives.unchanged_required}

    def run(self) -> list[nodes.Node]:
        claims = load_all_claims(CLAIMS_FILE, ECOSYSTEM_FILE)
        for path in _data_files():
            self.env.note_dependency(str(path))
        prefixes = self.options.get("prefix", "").split()
        chosen = [c for c in claims if not prefixes or any(_under(c.id, p) for p in prefixes)]
        for prefix in prefixes:
            if not any(_under(c.id, prefix) for c in claims):
                logger.warning(
                    "semantics-table: no claim id starts with %r",
                    prefix,
                    location=self.get_location(),
                )
        language = "zh_CN" if str(self.config.language).startswith("zh") else "en"
        labels = _labels()
        record = _records()

        # Each claim takes three rows of a three-column table: the claim itself across the whole
        # width (its id and API name break only after a dot or an underscore), then what was
        # observed, what it means and what it was verified on, then the folded snippet that
        # reproduces it, full width.  On a phone the cells stack (semantics-table.css), each
        # under its column's name.
        table = nodes.table(classes=["semantics-table", "colwidths-given"])
        group = nodes.tgroup(cols=3)
        table += group
        for width in (18, 58, 24):
            group += nodes.colspec(colwidth=width)
        head = nodes.thead()
        head += nodes.row("", _entry(_paragraph(nodes.Text(labels["claim"])), span=3))
        heading = nodes.row()
        for key in ("result", "why", "verified"):
            heading += _entry(_paragraph(nodes.Text(labels[key])))
        head += heading
        group += head
        body = nodes.tbody()
        group += body
        for claim in chosen:
            body.extend(self._claim_rows(claim, language, labels, record))
            _rows(self.env).setdefault(claim.id, []).append(self.env.docname)
        return [table]

    def _claim_rows(
        self, claim: Claim, language: str, labels: dict[str, str], record: dict[str, Any]
    ) -> list[nodes.row]:
        argument = claim.argument_in(language)
        # the headline is what the newest verified release does; the older values follow it
        newest = _newest_value(claim, record)
        title = labels["title"].format(api=claim.api, argument=argument, observed=newest)
        # the raw id, dots and all; the title is what a cross-reference to the row reads
        row = claim_row(ids=[claim.id], names=[claim.id], classes=["semantics-claim"])
        row["title"] = title
        self.state.document.note_explicit_target(row)

        anchor = nodes.reference("", "", nodes.literal(claim.id, claim.id), refid=claim.id)
        row += _entry(
            _paragraph(anchor, classes=["semantics-id"]),
            _paragraph(
                nodes.literal(claim.api, claim.api, classes=["semantics-api"]),
                nodes.Text(" · "),
                *_inline(argument),
            ),
            span=3,
        )

        # the observed value is a word of the vocabulary above, the same in both languages
        value = _value(newest)
        older_runs = _older_values(claim, record)
        if older_runs:
            # a value that changed names its releases, each run newest first, so the history
            # reads down from the newest release: error (2.14.1–2.15.0), 2.3.1–2.13.0: ok, ...
            releases = _releases(record, claim.framework)
            first = releases[-1]
            for release in reversed(releases):
                if _value_on(claim, release, record) != newest:
                    break
                first = release
            span = _version(_span(first, releases[-1]))
            if claim.framework == "torch":
                headline = _compose(
                    labels["newest_run"], value=nodes.strong("", "", value), releases=span
                )
            else:
                headline = _compose(
                    labels["newest_run_named"],
                    value=nodes.strong("", "", value),
                    name=claim.framework,
                    releases=span,
                )
            result = [_paragraph(*headline)]
        else:
            result = [_paragraph(nodes.strong("", "", value))]
        for start, last, older in older_runs:
            # what the older releases observe, newest first, under the newest release's value
            word = nodes.strong("", "", _value(older))
            if claim.framework == "torch":
                item = _compose(labels["run"], releases=_version(_span(start, last)), value=word)
            else:
                item = _compose(
                    labels["run_named"],
                    name=claim.framework,
                    releases=_version(_span(start, last)),
                    value=word,
                )
            result.append(_paragraph(*item, classes=["semantics-changed-value"]))
        if not _is_verified(claim, record):
            # the value a row cannot check here is the claim, never shown as an observation
            text = labels["not_observed"]
            result.append(_paragraph(nodes.emphasis(text, text)))
        if claim.docs_say == "unspecified":
            result.append(
                _paragraph(nodes.emphasis(labels["undocumented"], labels["undocumented"]))
            )
        elif claim.docs_say is not None:
            said = _with_value(labels["docs_say"], claim.docs_say)
            result.append(_paragraph(nodes.emphasis("", "", *said)))
        details = nodes.row(classes=["semantics-details"])
        details += _entry(_label(labels["result"]), *result, classes=["generated"])

        why: list[nodes.Node] = [
            _label(labels["why"]),
            _paragraph(*_inline(claim.explanation(language))),
        ]
        note = claim.note(language)
        if note:
            why.append(_paragraph(*_inline(note), classes=["semantics-note"]))
        for change in claim.changes:
            mark = labels["changed"].format(change.since)
            why.append(
                _paragraph(
                    nodes.inline(mark, mark, classes=["semantics-changed"]),
                    nodes.Text(" "),
                    *_inline(change.note(language)),
                    classes=["semantics-note"],
                )
            )
        links: list[nodes.Node] = [
            nodes.reference(labels["docs"], labels["docs"], refuri=claim.docs, internal=False)
        ]
        if claim.issues:
            links.append(nodes.Text(" · " + labels["issues"] + " "))
            for index, number in enumerate(claim.issues):
                if index:
                    links.append(nodes.Text(", "))
                text = f"#{number}"
                url = issue_url(claim.framework, number)
                links.append(nodes.reference(text, text, refuri=url, internal=False))
        # what an unverified row rests on names classes and calls (`torch.triu(-inf,
        # diagonal=1)`): they need the wide column, not the narrow one of the releases
        source = claim.source(language)
        if source:
            text = labels["source"].format(source)
            why.append(_paragraph(*_inline(text), classes=["semantics-source"]))
        why.append(_paragraph(*links, classes=["generated"]))
        details += _entry(*why)

        verified = [_label(labels["verified"]), *_verified(claim, labels, record)]
        details += _entry(*verified, classes=["generated"])
        # what a copied link to the row names besides its address (docs/_ext/citation.py)
        row["citation_verified"] = _verified_list(claim, labels, record)

        # the newest release's snippet only: the older behaviours' snippets stay in the claims
        # file, run on every release by nox -s semantics_matrix (the page's weight budget)
        newest = next((c for c in reversed(claim.changes) if c.reproduce), None)
        snippets = [
            (labels["reproduce_release"].format(newest.since), newest.reproduce)
            if newest is not None and newest.reproduce
            else (labels["reproduce"], claim.reproduce)
        ]
        reproduce = nodes.row(classes=["semantics-reproduce-row"])
        folded = []
        for title, snippet in snippets:
            code = snippet.rstrip("\n")
            block = reproduce_block(code, code, language="pycon")
            block["title"] = title
            folded.append(block)
        reproduce += _entry(*folded, span=3)
        return [row, details, reproduce]


class SemanticsDisagreements(SphinxDirective):
    """A list of the claims where the documentation disagrees or is silent, linked to their rows."""

    has_content = False
    option_spec: ClassVar[dict[str, Any]] = {"claims": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        labels = _labels()
        # :claims: ecosystem lists the cross-framework rows; without it, the PyTorch rows
        ecosystem = self.options.get("claims") == "ecosystem"
        source = ECOSYSTEM_FILE if ecosystem else CLAIMS_FILE
        self.env.note_dependency(str(source))
        if not ecosystem:
            for path in _data_files():
                self.env.note_dependency(str(path))
        records = _records()
        items = nodes.bullet_list()
        claims = load_ecosystem_claims(source) if ecosystem else load_claims(source)
        for claim in claims:
            if claim.docs_say is None:
                continue
            observed = _disagreement(claim, labels, records)
            if not observed:
                continue  # the documentation and the library agree on every verified release
            link = nodes.reference("", "", nodes.literal(claim.id, claim.id), refid=claim.id)
            said = (
                [nodes.Text(labels["undocumented"])]
                if claim.docs_say == "unspecified"
                else _with_value(labels["docs_say"], claim.docs_say)
            )
            items += nodes.list_item(
                "", _paragraph(link, nodes.Text(" — "), *said, nodes.Text(" "), *observed)
            )
        items["classes"].append("generated")
        return [items]


def _disagreement(
    claim: Claim, labels: dict[str, str], records: dict[str, Any]
) -> list[nodes.Node]:
    """What a row with ``docs_say`` observes where the documentation says otherwise.

    A PyTorch row names the releases, grouped into runs ("Observed ok on torch 2.3.1–2.13.0."),
    from the records; [] where every verified release agrees with the documentation.  A row no
    record verified, and a row about another framework, states its claim.
    """
    if claim.framework != "torch" and _series(claim, records):
        # a library recorded release by release: the runs of its releases that differ
        return _library_differs(claim, labels, records)
    runs = _runs(claim, records) if claim.framework == "torch" else []
    if not any(value is not None for _, _, value in runs):
        # another library's row with one record: what it observes
        return _with_value(labels["observed"], _newest_value(claim, records))
    parts: list[nodes.Node] = []
    for first, last, value in runs:
        if value is None or value in ("absent", claim.docs_say):
            continue
        if parts:
            parts.append(nodes.Text(" "))
        parts += _compose(
            labels["differs_on"],
            value=_value(value),
            releases=_version(_span(first, last)),
        )
    return parts


def _library_differs(
    claim: Claim, labels: dict[str, str], records: dict[str, Any]
) -> list[nodes.Node]:
    """The runs of a library's recorded releases whose value is not what its documentation says.

    [] where every recorded release agrees (onnxruntime's empty rows: NaN on 1.23, uniform on
    1.24-1.27, zeros from 1.28 on, as the ONNX definition now says).
    """
    parts: list[nodes.Node] = []
    for first, last, value in _library_runs(claim, records):
        if value in ("absent", claim.docs_say):
            continue
        if parts:
            parts.append(nodes.Text(" "))
        parts += _compose(
            labels["differs_on_library"],
            value=_value(value),
            framework=nodes.Text(claim.framework),
            releases=_version(_span(first, last)),
        )
    return parts


def _under(claim_id: str, prefix: str) -> bool:
    return claim_id == prefix or claim_id.startswith(prefix + ".")


def _version(text: str) -> nodes.inline:
    """A release or a package version, kept on one line (semantics-table.css)."""
    # an inline, not a literal: 68 release lines as code were 8 KB of the page's HTML;
    # notranslate: names and numbers, not words of the page's language
    return nodes.inline(text, text, classes=["semantics-version", "notranslate"])


def _versions(claim: Claim, record: dict[str, Any], labels: dict[str, str]) -> list[str]:
    """What an ecosystem row was verified with: "jax 0.7.2", "flax 0.11.1", ..."""
    versions = record["versions"]
    texts = [
        f"{name} {versions.get(name) or labels['not_installed']}"
        for name in VERIFIED_WITH[claim.framework]
    ]
    if claim.framework == "keras":
        texts.append(labels["backend"].format(record["keras_backend"]))
    return texts


def _verified_list(claim: Claim, labels: dict[str, str], records: dict[str, Any]) -> str:
    """What a copied citation of the row says it observed where, as one line; "" if nothing.

    A PyTorch row names each value with its runs of releases, in the order the values first
    appear: "error on torch 2.0.1–2.2.2 and 2.14.1–2.15.0, ok on torch 2.3.1–2.13.0" (releases
    that could not run the row are left out); another framework's row the versions it was
    verified with ("verified on jax 0.7.2, flax 0.11.1").
    """
    if _series(claim, records):
        spans: dict[str, list[str]] = {}
        for first, last, value in _runs(claim, records):
            if value is not None:
                spans.setdefault(value, []).append(_span(first, last))
        clauses = [
            labels["cite_value"].format(value=value, releases=labels["and"].join(runs))
            if claim.framework == "torch"
            else labels["cite_value_named"].format(
                value=value, name=claim.framework, releases=labels["and"].join(runs)
            )
            for value, runs in spans.items()
        ]
        text = clauses[0] if clauses else ""
        for clause in clauses[1:]:
            text = labels["cite_more"].format(clause=text, more=clause)
        # every record was made on a CPU: a citation says so, as the row does
        return labels["cite_cpu"].format(text) if text else ""
    row = records["ecosystem"].get("rows", {}).get(claim.id)
    if row is None or row.get("status") != "ok":
        return ""
    versions = labels["separator"].join(_versions(claim, records["ecosystem"], labels))
    return labels["cite_versions"].format(versions)


def _torch_rows(
    claim: Claim, records: dict[str, Any]
) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(release, record, row) for every verified release whose record has the claim's row."""
    found = []
    for release, record in _series(claim, records).items():
        row = record.get("rows", {}).get(claim.id)
        if row is not None:
            found.append((release, record, row))
    return found


def _is_verified(claim: Claim, records: dict[str, Any]) -> bool:
    """True when a record shows the row's probe ran and saw the expected value."""
    if _series(claim, records):
        return any(row.get("status") == "ok" for _, _, row in _torch_rows(claim, records))
    row = records["ecosystem"].get("rows", {}).get(claim.id)
    return row is not None and row.get("status") == "ok"


def _span(first: str, last: str) -> str:
    """A run of releases: "2.3.1–2.13.0", or one release."""
    return first if first == last else f"{first}–{last}"


def _runs(claim: Claim, records: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    """(first, last, value) for each run of consecutive releases that observe the same value.

    The releases are those whose record has the row, in release order; ``value`` is the word
    observed, or None where the row was not verified.
    """
    runs: list[tuple[str, str, str | None]] = []
    for release, _record, row in _torch_rows(claim, records):
        value = row.get("observed") if row.get("status") == "ok" else None
        if runs and runs[-1][2] == value:
            runs[-1] = (runs[-1][0], release, value)
        else:
            runs.append((release, release, value))
    return runs


def _value_on(claim: Claim, release: str, records: dict[str, Any]) -> str:
    """What the row observed on ``release``; the claim's expectation where no record says."""
    row = _series(claim, records).get(release, {}).get("rows", {}).get(claim.id)
    if row is not None and row.get("status") == "ok" and row.get("observed"):
        return str(row["observed"])
    return expected_for(claim, release)


def _releases(records: dict[str, Any], framework: str = "torch") -> list[str]:
    """The verified releases (of ``framework``) that have a record, else every listed one."""
    series = records.get(framework, {})
    recorded = [release for release, record in series.items() if record.get("rows")]
    if framework != "torch":
        return recorded or paths.library_releases()[framework]
    return recorded or [release.torch for release in paths.torch_releases()]


def _newest_value(claim: Claim, records: dict[str, Any]) -> str:
    """The row's value on the newest verified release (an ecosystem row: its claim)."""
    if not _series(claim, records):
        return claim.expected
    return _value_on(claim, _releases(records, claim.framework)[-1], records)


def _library_runs(claim: Claim, records: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(first release, last release, value) of each run of the framework's releases, in order."""
    runs: list[tuple[str, str, str]] = []
    for release in _releases(records, claim.framework):
        value = _value_on(claim, release, records)
        if runs and runs[-1][2] == value:
            runs[-1] = (runs[-1][0], release, value)
        else:
            runs.append((release, release, value))
    return runs


def _older_values(claim: Claim, records: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(first release, last release, value) of each earlier run of releases, newest first."""
    if not _series(claim, records):
        return []
    return list(reversed(_library_runs(claim, records)[:-1]))


def _verified(
    claim: Claim, labels: dict[str, str], records: dict[str, Any]
) -> list[nodes.paragraph]:
    """What the row was verified on: its runs of releases with their values, and the days."""
    if _series(claim, records):
        shown = _torch_rows(claim, records)
        name = claim.framework
        if any(row.get("status") == "ok" for _, _, row in shown):
            # "torch 2.0.1–2.15.0 ✓" where every release observes the same value, else one line
            # per run of releases with the same value: "torch 2.0.1–2.4.1: nan ✓", "2.5.1–2.15.0:
            # zeros ✓"; then the days of the runs
            runs = _runs(claim, records)
            lines = []
            if len(runs) == 1:
                text = f"{_span(runs[0][0], runs[0][1])} ✓"
                if name == "torch":
                    lines.append(
                        _paragraph(_version(f"torch {text}"), classes=["semantics-release"])
                    )
                else:  # a longer name: it may break before the releases, as in the other runs
                    lines.append(
                        _paragraph(
                            nodes.Text(f"{name} "), _version(text), classes=["semantics-release"]
                        )
                    )
            for index, (first, last, value) in enumerate(runs if len(runs) > 1 else []):
                word = labels["not_verified_run"] if value is None else value
                first_label = labels["run"] if name == "torch" else labels["run_named"]
                item = _compose(
                    first_label if index == 0 else labels["run_more"],
                    releases=_version(_span(first, last)),
                    value=_value(word) if value is not None else nodes.Text(word),
                    **({} if name == "torch" or index else {"name": name}),
                )
                # no break before the mark: it belongs to the value
                mark = [nodes.Text("\u00a0✓")] if value is not None else []
                lines.append(_paragraph(*item, *mark, classes=["semantics-release"]))
            days = sorted({record["date"] for _, record, row in shown if row.get("status") == "ok"})
            # a day never breaks at its hyphens ("2026-" / "12-01"), a span of days only at its
            # spaces (semantics-table.css: the days of a span are spans without a class, a
            # single day is the paragraph's only text and the paragraph keeps its line)
            span: list[nodes.Node] = [nodes.Text(days[0])]
            if len(days) > 1:
                span = [nodes.inline(days[0], days[0])]
                span += [nodes.Text(" – "), nodes.inline(days[-1], days[-1])]
            # the records are CPU runs, and a CUDA kernel may differ (an empty row, for one): the
            # device follows the days, a few bytes a row on a page near its weight budget
            span.append(nodes.Text(labels["cpu"]))
            if name != "torch":  # every release of the library was verified with the same torch
                torch_used = {paths.release_of(str(record["torch"])) for _, record, _ in shown}
                lines += [
                    _paragraph(_version(f"torch {release}"), classes=["semantics-release"])
                    for release in sorted(torch_used)
                ]
            return [*lines, _paragraph(*span, classes=["semantics-date"])]
        if shown and all(row.get("status") == "not_verified" for _, _, row in shown):
            text = labels["not_verified"]
            return [_paragraph(nodes.Text(text), classes=["semantics-not-verified"])]
        return [_paragraph(nodes.Text(labels["unrecorded"]), classes=["semantics-not-verified"])]
    record = records["ecosystem"]
    row = record.get("rows", {}).get(claim.id)
    if row is not None and row.get("status") == "ok":
        # one name and version per line: a list of them on one line is wider than the column
        lines = [
            _paragraph(_version(text), classes=["semantics-release"])
            for text in _versions(claim, record, labels)
        ]
        return [*lines, _paragraph(nodes.Text(record["date"]), classes=["semantics-date"])]
    if row is not None and row.get("status") == "not_verified":
        text = labels["not_verified_here"].format(VERIFIED_WITH[claim.framework][0])
        return [_paragraph(nodes.Text(text), classes=["semantics-not-verified"])]
    return [_paragraph(nodes.Text(labels["unrecorded"]), classes=["semantics-not-verified"])]


_RECORDS: dict[tuple[float, ...], dict[str, Any]] = {}


def _checked(path: Path, digest: str, command: str) -> dict[str, Any]:
    """The record at ``path`` if it matches ``digest``; else a warning and an empty record."""
    where = path.relative_to(paths.ROOT)
    if not path.is_file():
        logger.warning("%s is missing; run `%s`", where, command)
        return {"rows": {}}
    record = load_record(path)
    if record.get("claims_sha256") != digest:
        logger.warning("%s does not match the claims and probes; run `%s`", where, command)
        return {"rows": {}}
    if "date" not in record:
        logger.warning("%s states no date; run `%s`", where, command)
        return {"rows": {}}
    return record


def _records() -> dict[str, Any]:
    """Every verification record, each checked against its claims and probes once per version.

    ``torch`` maps each release of ``conf/torch-releases.toml`` to its record, in release order;
    ``ecosystem`` is the other frameworks' record.  A record that is missing or does not match
    is a warning (an error under ``-W``), and none of its rows is then shown as verified.
    """
    key = tuple(path.stat().st_mtime for path in _data_files())
    if key not in _RECORDS:
        digest = claims_digest(load_claims(CLAIMS_FILE))
        _RECORDS[key] = {
            "torch": {
                release.torch: _checked(
                    paths.torch_record(release.torch), digest, "nox -s semantics_matrix"
                )
                for release in paths.torch_releases()
            },
            "ecosystem": _checked(
                paths.ECOSYSTEM_RECORD,
                claims_digest(load_ecosystem_claims(ECOSYSTEM_FILE)),
                "nox -s semantics_ecosystem",
            ),
        }
        ecosystem = load_ecosystem_claims(ECOSYSTEM_FILE)
        for framework, releases in paths.library_releases().items():
            rows = [claim for claim in ecosystem if claim.framework == framework]
            _RECORDS[key][framework] = {
                release: _checked(
                    paths.library_record(framework, release),
                    claims_digest(rows),
                    f"nox -s semantics_releases -- {framework}=={release}",
                )
                for release in releases
            }
    return _RECORDS[key]


def _supported(release: str, record: dict[str, Any]) -> bool:
    """True when the package supports ``release``, so the pages' doctests ran on it there."""
    requires = str(record.get("package", {}).get("requires", "torch"))
    return SpecifierSet(requires.removeprefix("torch").strip()).contains(release)


def _release_list(labels: dict[str, str]) -> str:
    """The releases the pages' examples are verified on, in runs: "2.5.1–2.15.0".

    Those with a record and within the package's requirement: older releases get their rows
    probed, not the pages' doctests.
    """
    records = _records()["torch"]
    listed = list(records)
    runs: list[tuple[str, str]] = []
    for index, release in enumerate(listed):
        record = records[release]
        if not record.get("rows") or not _supported(release, record):
            continue
        if runs and listed.index(runs[-1][1]) == index - 1:
            runs[-1] = (runs[-1][0], release)
        else:
            runs.append((release, release))
    texts = [_span(first, last) for first, last in runs]
    if len(texts) < 2:
        return "".join(texts)
    return labels["separator"].join(texts[:-1]) + labels["and"] + texts[-1]


def _state_releases(app: Sphinx, doctree: nodes.document) -> None:
    """Under the title of every lesson page: the torch releases its examples are verified on."""
    env = app.env
    if not env.docname.startswith("lesson/"):
        return
    for path in _data_files():
        env.note_dependency(str(path))
    labels = _labels()
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is None:
        return
    text = labels["lesson_releases"].format(_release_list(labels))
    paragraph = _paragraph(nodes.emphasis(text, text), classes=["verified-releases", "generated"])
    title = section.next_node(nodes.title)
    section.insert(section.index(title) + 1 if title is not None else 0, paragraph)


class SemanticsRecord(SphinxDirective):
    """The date, Python and package versions of the cross-framework verification record."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        labels = _labels()
        for path in _data_files():
            self.env.note_dependency(str(path))
        record = _records()["ecosystem"]
        if "versions" not in record:
            return [_paragraph(nodes.Text(labels["unrecorded"]))]
        intro = labels["record"].format(date=record["date"], python=record["python"])
        items = nodes.bullet_list()
        for name, version in record["versions"].items():
            text = f"{name} {version or labels['not_installed']}"
            if name == "keras" and version:
                text += " (" + labels["backend"].format(record["keras_backend"]) + ")"
            items += nodes.list_item("", _paragraph(nodes.literal(text, text)))
        items["classes"].append("generated")
        return [_paragraph(nodes.Text(intro), classes=["generated"]), items]


def _rows(env: BuildEnvironment) -> dict[str, list[str]]:
    """claim id -> the documents that render it (kept in the environment across documents)."""
    if not hasattr(env, "semantics_rows"):
        env.semantics_rows = {}  # type: ignore[attr-defined]
    rows: dict[str, list[str]] = env.semantics_rows  # type: ignore[attr-defined]
    return rows


def _purge(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    rows = _rows(env)
    for claim_id in list(rows):
        rows[claim_id] = [doc for doc in rows[claim_id] if doc != docname]
        if not rows[claim_id]:
            del rows[claim_id]


def _merge(app: Sphinx, env: BuildEnvironment, docnames: set[str], other: BuildEnvironment) -> None:
    rows = _rows(env)
    for claim_id, docs in _rows(other).items():
        rows.setdefault(claim_id, []).extend(d for d in docs if d in docnames)


def _check_every_claim_once(app: Sphinx, env: BuildEnvironment) -> None:
    rows = _rows(env)
    if not rows:
        return  # a build without the table (e.g. a single page) has nothing to check
    for claim in load_all_claims(CLAIMS_FILE, ECOSYSTEM_FILE):
        pages = rows.get(claim.id, [])
        if len(pages) != 1:
            where = ", ".join(sorted(pages)) or "no page"
            logger.warning(
                "semantics claim %s must be rendered on exactly one page, found: %s",
                claim.id,
                where,
            )


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("site_messages")  # the catalogue of the table's fixed strings
    app.add_css_file("semantics-table.css")  # docs/_static/semantics-table.css
    app.add_enumerable_node(claim_row, "semantics-claim", _claim_title)
    app.add_node(reproduce_block, html=(_visit_reproduce_html, None))
    app.add_node(value_literal, html=(_visit_value_literal, None))
    app.add_directive("semantics-table", SemanticsTable)
    app.add_directive("semantics-disagreements", SemanticsDisagreements)
    app.add_directive("semantics-record", SemanticsRecord)
    app.connect("doctree-read", _state_releases)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("env-check-consistency", _check_every_claim_once)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
