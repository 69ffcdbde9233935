"""The mask-semantics rows release by release, from the verification records.

Four directives for ``docs/reference/mask-semantics-releases.md``, each generated from the
records ``conf/records/torch-<release>.json`` of the releases in ``conf/torch-releases.toml``
(read and checked once by :func:`semantics_table._records`) and the claims of
``conf/semantics.toml``:

``{semantics-release-matrix}``
    Every PyTorch row over the verified releases, in the manner of caniuse.com: one column per
    release (headed ``2.5``, the full release in its title), all of them in a desktop page's
    column, the head sticky; each row its id on a line, then a bar of runs of consecutive
    releases with one observed value, each run its word and a colour (the newest release's
    value, another value, absent, not verified; a legend above the table), a dark left edge
    where the value changed, with from and to in the run's title and in the row's
    ``<details>``, opened by a tap on the row (docs/_static/site.js).  A "changes only" switch
    hides the rows with one value on every release; on a phone each row reads top to bottom
    (``semantics-releases.css``).
``{semantics-release-changes}``
    The pairs of consecutive verified releases where a row's observed value differs (before →
    after, with the claim's note for the release where it changed); the pairs where none does
    share one line.  ``:kernels:``: the same for the SDPA rows whose probe ran on another
    kernel (the record's ``backends``), kept apart from the changes of behaviour.
``{semantics-release-disagreements}``
    For each release (consecutive releases with the same list grouped), the rows whose
    ``docs_say`` differs from what that release observed; ``unspecified`` is "not documented".
``{semantics-release-package}``
    Which of the package's own functions fail on each release (``record["package"]``), under the
    package's requirement: releases below it had their rows probed, not the pages' doctests.  A
    failure that the environment of the record caused (:data:`ENVIRONMENT_ARTEFACTS`: no
    ``pkg_resources`` in its setuptools) is named as such, apart from what the release lacks.

The fixed strings go through the site's catalogue (``docs/_ext/site_messages.py``), as those of
:mod:`semantics_table`; every generated paragraph is kept out of the pages' ``.pot`` files.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from semantics_table import (
    CLAIMS_FILE,
    ECOSYSTEM_FILE,
    _compose,
    _data_files,
    _inline,
    _paragraph,
    _records,
    _rows,
    _span,
    _supported,
    _value,
    _version,
)
from site_messages import _
from sphinx.application import Sphinx
from sphinx.builders.html._assets import _CascadingStyleSheet
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.typing import ExtensionMetadata

from attention.semantics import paths
from attention.semantics.claims import Claim, load_claims, load_ecosystem_claims

logger = logging.getLogger(__name__)

ABSENT = "absent"
# Why a function can fail in a release's environment without torch lacking anything: the
# error's text, as the record writes it
ENVIRONMENT_ARTEFACTS = ("No module named 'pkg_resources'",)


def _labels() -> dict[str, str]:
    """The fixed strings of the release pages in the build's language (catalogue ``site``)."""
    return {
        # Translators: the head of the matrix's first column (the rows' ids)
        "not_verified": _("not verified"),
        # Translators: a run of releases in the matrix that lack the row's API or argument
        "absent_word": _("absent"),
        # Translators: the title of a matrix cell where a row's value changed; release X.Y.Z
        "changed_cell": _("changed in torch {release}: {before} → {after}"),
        # Translators: a run of releases of the matrix, then how it changed from the run before
        "with_change": _("{run} ({change})"),
        # Translators: what a reader taps to see a matrix row's runs and changes
        "details": _("releases and changes"),
        # Translators: a run of releases ("2.3.1–2.13.0") and the value they observe
        "run_line": _("torch {releases}: {value}"),
        # Translators: the matrix's legend; a sample run of the colour, then what it means
        "legend_value": _("value"),
        "legend_newest": _("the value of the newest release, torch {release}"),
        "legend_differs": _("a value other than the newest release's"),
        "legend_absent": _("the release does not have the API or argument"),
        "legend_unverified": _("the row could not run there (it needs a CUDA device)"),
        "legend_edge": _(
            "a dark left edge: the value changed from the release before (what from and to: "
            "point at the run, or tap the row)"
        ),
        "changes_only": _("Changes only: hide the rows that observe one value on every release"),
        # Translators: the same three strings for another library's matrix (transformers,
        # onnxruntime): name is the library
        "changed_cell_named": _("changed in {name} {release}: {before} → {after}"),
        "run_line_named": _("{name} {releases}: {value}"),
        "legend_newest_named": _("the value of the newest release, {name} {release}"),
        # Translators: the pairs of releases where no row's value changed, after the others
        "no_change_pairs": _("No row changed from {pairs}."),
        # Translators: a function that does not import in a release's environment, for a
        # reason of the environment (a module of setuptools it lacks), not of torch
        "environment": _(
            "Not counted: {functions} do not import in that release's environment: {why} "
            "(pkg_resources is a module of older setuptools, which the environment the record "
            "was made in lacks; an artefact of that environment, not something torch lacks)."
        ),
        # Translators: a pair of consecutive releases in "What changed between releases"
        "pair": _("torch {before} → {after}:"),
        # Translators: a pair of consecutive releases in a list of them
        "pair_plain": _("{before} → {after}"),
        # Translators: a list of pairs of releases, e.g. "2.4.1 → 2.5.1, 2.5.1 → 2.6.0"
        "separator": _(", "),
        # Translators: a row whose observed value changed between two releases
        "value_change": _("{id}: {before} → {after}."),
        # Translators: an SDPA row whose probe ran on another kernel on the newer release
        "kernel_change": _("{id}: the SDPA kernel went from {before} to {after}."),
        # Translators: a run of releases ("2.3.1–2.13.0") with what they have in common
        "releases": _("torch {releases}:"),
        # Translators: the documentation says one value, the release observed another
        "docs_differ": _("{id}: the documentation says {said}, the release observes {observed}."),
        "undocumented": _("{id}: not documented; the release observes {observed}."),
        "docs_agree": _("the documentation and the library agree on every row."),
        # Translators: the package's requirement, e.g. "torch>=2.5"
        "requires": _(
            "The package requires {requires}: on the releases below that, only the rows were "
            "probed, not the pages' doctests."
        ),
        # Translators: a run of releases older than the package's requirement
        "releases_below": _("torch {releases} (below the requirement):"),
        # Translators: every one of the package's functions checked ran on the release
        "every_function": _("every function ran ({checked} checked)."),
        # Translators: how many of the package's functions checked fail on the release
        "functions_fail": _("{failed} of {checked} functions fail:"),
        "unrecorded": _("not recorded."),
    }


@dataclass(frozen=True)
class _Cell:
    """What one release observed for one row; ``value`` None where it was not verified."""

    release: str
    value: str | None
    backends: tuple[str, ...]


def _releases(records: dict[str, Any], framework: str = "torch") -> list[str]:
    """The verified releases of ``framework`` that have a record (``conf/torch-releases.toml``;
    another library's, ``conf/library-releases.toml``)."""
    return [release for release, record in records[framework].items() if record.get("rows")]


def _cells(claim: Claim, records: dict[str, Any], releases: list[str]) -> list[_Cell]:
    cells = []
    for release in releases:
        row = records[claim.framework][release]["rows"].get(claim.id, {})
        value = row.get("observed") if row.get("status") == "ok" else None
        cells.append(_Cell(release, value, tuple(row.get("backends") or ())))
    return cells


def _changes(cells: list[_Cell]) -> dict[str, str]:
    """release -> the value before it, for each release whose value differs from the one before.

    "Before" is the last release that verified the row: a release that could not run it
    neither starts nor ends a run.
    """
    changed: dict[str, str] = {}
    previous: str | None = None
    for cell in cells:
        if cell.value is None:
            continue
        if previous is not None and cell.value != previous:
            changed[cell.release] = previous
        previous = cell.value
    return changed


def _short(releases: list[str]) -> dict[str, str]:
    """Each release's column head: ``2.5`` for 2.5.1, the full release where two share X.Y."""
    minor = {release: ".".join(release.split(".")[:2]) for release in releases}
    shared = {m for m in minor.values() if list(minor.values()).count(m) > 1}
    return {release: release if m in shared else m for release, m in minor.items()}


def _minor(release: str) -> str:
    return ".".join(release.split(".")[:2])


class row_link(nodes.reference):  # noqa: N801 (docutils names node classes in lower case)
    """A link to a claim's row on the page that renders it, resolved once every page is read."""


def _link(claim_id: str) -> row_link:
    link = row_link("", "", nodes.literal(claim_id, claim_id), internal=True, refuri="")
    link["claim"] = claim_id
    return link


def _resolve_links(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Point each :class:`row_link` at its row: ``mask-semantics.html#sdpa.attn_mask.bool``."""
    pages = _rows(app.env)
    for link in doctree.findall(row_link):
        where = pages.get(link["claim"])
        if not where:
            logger.warning("semantics-release: no page renders the row %s", link["claim"])
            continue
        uri = app.builder.get_relative_uri(docname, where[0])
        link["refuri"] = f"{uri}#{link['claim']}"


class _Directive(SphinxDirective):
    has_content = False

    def _setup(self) -> tuple[dict[str, str], dict[str, Any], list[str], list[Claim]]:
        for path in _data_files():
            self.env.note_dependency(str(path))
        records = _records()
        claims = load_claims(CLAIMS_FILE)
        return _labels(), records, _releases(records), claims

    @property
    def language(self) -> str:
        return "zh_CN" if str(self.config.language).startswith("zh") else "en"


class matrix_cell(nodes.entry):  # noqa: N801
    """A cell of the matrix: an entry with a ``title`` (the full releases, the change)."""


def _visit_matrix_cell(translator: Any, node: matrix_cell) -> None:
    translator.visit_entry(node)
    if node.get("title"):
        # visit_entry wrote the opening tag last; the title goes inside it
        tag = translator.body[-1]
        title = translator.attval(node["title"])
        translator.body[-1] = tag[:-1] + f' title="{title}">'


def _depart_matrix_cell(translator: Any, node: matrix_cell) -> None:
    translator.depart_entry(node)


class disclosure(nodes.General, nodes.Element):  # noqa: N801
    """``<details>``: its first child (a :class:`disclosure_summary`) shows, the rest on a tap."""


class disclosure_summary(nodes.General, nodes.TextElement):  # noqa: N801
    """``<summary>`` of a :class:`disclosure`."""


def _visit_disclosure(translator: Any, node: disclosure) -> None:
    classes = " ".join(node["classes"])
    translator.body.append(f'<details class="{classes}">')


def _depart_disclosure(translator: Any, node: disclosure) -> None:
    translator.body.append("</details>")


def _visit_summary(translator: Any, node: disclosure_summary) -> None:
    translator.body.append("<summary>")


def _depart_summary(translator: Any, node: disclosure_summary) -> None:
    translator.body.append("</summary>")


def _visit_disclosure_latex(translator: Any, node: disclosure) -> None:
    """On paper nothing folds: the summary and what it discloses print one after the other."""


def _visit_summary_latex(translator: Any, node: disclosure_summary) -> None:
    translator.body.append("\n\n")


def _depart_summary_latex(translator: Any, node: disclosure_summary) -> None:
    translator.body.append("\n\n")


def _cell(
    *children: nodes.Node, title: str = "", classes: list[str] | None = None, span: int = 1
) -> matrix_cell:
    # the text sits in the cell itself, without a paragraph: hundreds of <p> weigh kilobytes
    cell = matrix_cell("", *children, classes=classes or [])
    if span > 1:
        cell["morecols"] = span - 1  # colspan
    if title:
        cell["title"] = title
    return cell


@dataclass(frozen=True)
class _Run:
    """Consecutive releases that observed one value for a row; ``value`` None: not verified."""

    first: str
    last: str
    count: int
    value: str | None
    before: str | None  # the value of the last verified release before the run, if different


def _matrix_runs(cells: list[_Cell]) -> list[_Run]:
    changed = _changes(cells)
    runs: list[_Run] = []
    for cell in cells:
        last = runs[-1] if runs else None
        if last is not None and last.value == cell.value:
            runs[-1] = _Run(last.first, cell.release, last.count + 1, last.value, last.before)
        else:
            before = changed.get(cell.release)
            runs.append(_Run(cell.release, cell.release, 1, cell.value, before))
    return runs


# What a run's colour says (each run also shows its word: never the colour alone)
KINDS = ("newest", "differs", "absent", "unverified")


def _kind(run: _Run, newest: str | None) -> str:
    if run.value is None:
        return "unverified"
    if run.value == ABSENT:
        return "absent"
    return "newest" if run.value == newest else "differs"


def _named(labels: dict[str, str], framework: str) -> dict[str, str]:
    """``labels`` for another library's matrix: its name where torch's stands."""
    if framework == "torch":
        return labels
    named = {
        key: labels[f"{key}_named"].replace("{name}", framework)
        for key in ("changed_cell", "run_line", "legend_newest")
    }
    return {**labels, **named}


class ReleaseMatrix(_Directive):
    """Every PyTorch row over the verified releases: its values as runs of releases.

    In the manner of caniuse.com: one column per release (all sixteen in the column of a
    desktop page, the release head sticky while the rows scroll under it), each row a bar of
    runs ("2.0–2.2 error │ 2.3–2.13 ok │ 2.14–2.15 error"), each run coloured by what it is
    (the newest release's value, another value, absent, not verified: the legend) and showing
    its word; the row's id above its bar, with its runs, and what changed where, in a
    ``<details>`` a reader opens by a tap (on the id's line or on the bar, docs/_static/site.js)
    as well as pointing at a run (its title).  A "changes only" switch (a checkbox, CSS only)
    hides the rows that observe one value on every release.  On a phone the table is a list:
    each row's id, then its runs one under the other, each with its releases.
    """

    option_spec: ClassVar[dict[str, Any]] = {"framework": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        labels, records, releases, claims = self._setup()
        # :framework: transformers / onnxruntime: that library's rows over its own releases
        framework = self.options.get("framework", "torch").strip()
        if framework != "torch":
            if framework not in paths.library_releases():
                raise self.error(
                    f":framework: must be torch or one of {sorted(paths.library_releases())}, "
                    f"got {framework!r}"
                )
            claims = [c for c in load_ecosystem_claims(ECOSYSTEM_FILE) if c.framework == framework]
            releases = _releases(records, framework)
            labels = _named(labels, framework)
            if not releases:
                logger.warning(
                    "semantics-release-matrix: no %s release has a record; run "
                    "`nox -s semantics_releases`",
                    framework,
                    location=self.get_location(),
                )
                return []
        if self.env.app.builder.name == "latex":
            return [self._on_paper(labels, records, releases, claims)]
        short = _short(releases)
        # notranslate: ids, releases and vocabulary words, the same in both languages;
        # no-search: the ids and words are in the search index from the rows' own page
        table = nodes.table(classes=["semantics-matrix", "notranslate", "no-search"])
        group = nodes.tgroup(cols=len(releases))
        table += group
        for _release in releases:
            group += nodes.colspec(colwidth=1)
        head = nodes.thead()
        heading = nodes.row()
        for release in releases:
            heading += _cell(nodes.Text(short[release]), title=f"{framework} {release}")
        head += heading
        group += head
        body = nodes.tbody()
        group += body
        for claim in claims:
            cells = _cells(claim, records, releases)
            runs = _matrix_runs(cells)
            verified = [run.value for run in runs if run.value is not None]
            newest = verified[-1] if verified else None
            same = ["matrix-same"] if len(runs) == 1 else []
            name = nodes.row(classes=["matrix-claim", *same])
            what = [_paragraph(_link(claim.id), classes=["matrix-id"])]
            if len(runs) > 1:
                what.append(self._details(claim, runs, labels))
            name += _cell(*what, span=len(releases))
            body += name
            bar = nodes.row(classes=["matrix-runs", *same])
            for run in runs:
                word = self._word(run, labels)
                span = _span(run.first, run.last)
                title = f"{framework} {span}: {word}"
                classes = ["run", f"run-{_kind(run, newest)}"]
                if run.before is not None and run.value is not None:
                    classes.append("changed")
                    change = labels["changed_cell"].format(
                        release=run.first, before=run.before, after=run.value
                    )
                    title = labels["with_change"].format(run=title, change=change)
                shown = _span(short[run.first], short[run.last])
                bar += _cell(
                    nodes.inline(shown, shown, classes=["run-releases"]),
                    nodes.inline(word, word, classes=["run-word"]),
                    title=title,
                    classes=classes,
                    span=run.count,
                )
            body += bar
        # one switch per page: it hides the single-valued rows of every matrix on the page
        switch = [self._switch(labels)] if framework == "torch" else []
        return [self._legend(labels, releases[-1]), *switch, table]

    def _on_paper(
        self,
        labels: dict[str, str],
        records: dict[str, Any],
        releases: list[str],
        claims: list[Claim],
    ) -> nodes.definition_list:
        """The matrix split for a printed page (the PDF book): the phone's layout, as a list.

        Sixteen columns of releases do not fit a page's width; each row's id is a term, and
        its runs, with their full releases and what changed where, are its definition.
        """
        rows = nodes.definition_list(classes=["semantics-matrix", "notranslate"])
        for claim in claims:
            runs = _matrix_runs(_cells(claim, records, releases))
            details = self._details(claim, runs, labels)
            item = nodes.definition_list_item()
            item += nodes.term("", "", _link(claim.id))
            item += nodes.definition("", *details.children[1:])  # the runs, not the fold's title
            rows += item
        return rows

    def _word(self, run: _Run, labels: dict[str, str]) -> str:
        if run.value is None:
            return labels["not_verified"]
        return labels["absent_word"] if run.value == ABSENT else run.value

    def _details(self, claim: Claim, runs: list[_Run], labels: dict[str, str]) -> disclosure:
        """The row's runs with their full releases, and what changed where (the claim's note)."""
        details = disclosure(classes=["matrix-details"])
        details += disclosure_summary("", labels["details"])
        items = nodes.bullet_list()
        for run in runs:
            word = self._word(run, labels)
            parts = _compose(
                labels["run_line"], releases=_version(_span(run.first, run.last)), value=word
            )
            if run.before is not None and run.value is not None:
                change = labels["changed_cell"].format(
                    release=run.first, before=run.before, after=run.value
                )
                parts = _compose(labels["with_change"], run=parts, change=change)
                note = next(
                    (c.note(self.language) for c in claim.changes if c.since == _minor(run.first)),
                    None,
                )
                if note:
                    parts += [nodes.Text(" "), *_inline(note)]
            items += nodes.list_item("", _paragraph(*parts))
        details += items
        return details

    def _legend(self, labels: dict[str, str], newest: str) -> nodes.bullet_list:
        legend = nodes.bullet_list(classes=["matrix-legend", "generated", "no-search"])
        samples = {
            "newest": (labels["legend_value"], labels["legend_newest"].format(release=newest)),
            "differs": (labels["legend_value"], labels["legend_differs"]),
            "absent": (labels["absent_word"], labels["legend_absent"]),
            "unverified": (labels["not_verified"], labels["legend_unverified"]),
        }
        for kind in KINDS:
            word, meaning = samples[kind]
            swatch = nodes.inline(word, word, classes=["run", f"run-{kind}"])
            legend += nodes.list_item("", _paragraph(swatch, nodes.Text(" " + meaning)))
        edge = nodes.inline("", "", classes=["run", "run-differs", "changed", "run-edge"])
        legend += nodes.list_item("", _paragraph(edge, nodes.Text(" " + labels["legend_edge"])))
        return legend

    def _switch(self, labels: dict[str, str]) -> nodes.raw:
        label = html.escape(labels["changes_only"])
        markup = (
            '<p class="matrix-view"><label><input type="checkbox" id="matrix-changes-only"> '
            f"{label}</label></p>"
        )
        return nodes.raw("", markup, format="html")


def _word(value: str) -> nodes.literal:
    return _value(value)


class ReleaseChanges(_Directive):
    """The pairs of consecutive verified releases where a row's observed value changed.

    ``:kernels:`` lists instead the pairs where an SDPA row's probe ran on another kernel (the
    record's ``backends``): the dispatcher's choice, not a change of what the call returns.  The
    pairs with nothing to list share one line at the end.
    """

    option_spec: ClassVar[dict[str, Any]] = {"kernels": directives.flag}

    def run(self) -> list[nodes.Node]:
        labels, records, releases, claims = self._setup()
        kernels = "kernels" in self.options
        cells = {claim.id: _cells(claim, records, releases) for claim in claims}
        pairs = nodes.bullet_list(classes=["semantics-release-pairs", "generated", "no-search"])
        quiet: list[tuple[str, str]] = []
        for before, after in pairwise(releases):
            found = nodes.bullet_list(
                classes=["semantics-kernel-changes" if kernels else "semantics-value-changes"]
            )
            for claim in claims:
                old, new = (c for c in cells[claim.id] if c.release in (before, after))
                if kernels:
                    if old.backends and new.backends and old.backends != new.backends:
                        parts = _compose(
                            labels["kernel_change"],
                            id=_link(claim.id),
                            before=_word(" + ".join(old.backends)),
                            after=_word(" + ".join(new.backends)),
                        )
                        found += nodes.list_item("", _paragraph(*parts))
                    continue
                if old.value is None or new.value is None or old.value == new.value:
                    continue
                parts = _compose(
                    labels["value_change"],
                    id=_link(claim.id),
                    before=_word(old.value),
                    after=_word(new.value),
                )
                note = next(
                    (c.note(self.language) for c in claim.changes if c.since == _minor(after)),
                    None,
                )
                if note:
                    parts += [nodes.Text(" "), *_inline(note)]
                found += nodes.list_item("", _paragraph(*parts))
            if not found.children:
                quiet.append((before, after))
                continue
            title = _compose(labels["pair"], before=_version(before), after=_version(after))
            item = nodes.list_item()
            item += _paragraph(*title, classes=["semantics-pair"])
            item += found
            pairs += item
        result: list[nodes.Node] = [pairs]
        if quiet:
            listed: list[nodes.Node] = []
            for index, (before, after) in enumerate(quiet):
                if index:
                    listed.append(nodes.Text(labels["separator"]))
                listed += _compose(
                    labels["pair_plain"], before=_version(before), after=_version(after)
                )
            text = _compose(labels["no_change_pairs"], pairs=listed)
            result.append(_paragraph(*text, classes=["semantics-quiet-pairs", "generated"]))
        return result


def _grouped(releases: list[str], key: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """Runs of consecutive releases whose ``key`` is the same: (first, last, key)."""
    runs: list[tuple[str, str, Any]] = []
    for release in releases:
        if runs and runs[-1][2] == key[release]:
            runs[-1] = (runs[-1][0], release, key[release])
        else:
            runs.append((release, release, key[release]))
    return runs


class ReleaseDisagreements(_Directive):
    """For each release: the rows whose documentation says something else than it observes."""

    def run(self) -> list[nodes.Node]:
        labels, records, releases, claims = self._setup()
        documented = [claim for claim in claims if claim.docs_say is not None]
        differ: dict[str, tuple[tuple[str, str, str], ...]] = {}
        for release in releases:
            found = []
            for claim in documented:
                row = records["torch"][release]["rows"].get(claim.id, {})
                observed = row.get("observed") if row.get("status") == "ok" else None
                if observed is None or observed == ABSENT or observed == claim.docs_say:
                    continue
                found.append((claim.id, str(claim.docs_say), str(observed)))
            differ[release] = tuple(found)
        runs = nodes.bullet_list(classes=["semantics-release-pairs", "generated", "no-search"])
        for first, last, found in _grouped(releases, differ):
            title = _compose(labels["releases"], releases=_version(_span(first, last)))
            item = nodes.list_item()
            if not found:
                item += _paragraph(*title, nodes.Text(" " + labels["docs_agree"]))
                runs += item
                continue
            item += _paragraph(*title, classes=["semantics-pair"])
            rows = nodes.bullet_list()
            for claim_id, said, observed in found:
                if said == "unspecified":
                    parts = _compose(
                        labels["undocumented"], id=_link(claim_id), observed=_word(observed)
                    )
                else:
                    parts = _compose(
                        labels["docs_differ"],
                        id=_link(claim_id),
                        said=_word(said),
                        observed=_word(observed),
                    )
                rows += nodes.list_item("", _paragraph(*parts))
            item += rows
            runs += item
        return [runs]


class ReleasePackage(_Directive):
    """Which of the package's functions fail on each release, under its requirement."""

    def run(self) -> list[nodes.Node]:
        labels, records, releases, _claims = self._setup()
        requires = next(
            (
                records["torch"][r]["package"]["requires"]
                for r in reversed(releases)
                if "package" in records["torch"][r]
            ),
            None,
        )
        result: list[nodes.Node] = []
        if requires is not None:
            text = _compose(labels["requires"], requires=_word(str(requires)))
            result.append(_paragraph(*text, classes=["generated"]))
        outcome: dict[str, Any] = {}
        for release in releases:
            package = records["torch"][release].get("package")
            below = not _supported(release, records["torch"][release])
            if package is None:
                outcome[release] = (None, (), below)
            else:
                fails = tuple(sorted(dict(package.get("fails", {})).items()))
                outcome[release] = (int(package.get("checked", 0)), fails, below)
        runs = nodes.bullet_list(classes=["semantics-release-pairs", "generated", "no-search"])
        for first, last, (checked, fails, below) in _grouped(releases, outcome):
            template = labels["releases_below"] if below else labels["releases"]
            title = _compose(template, releases=_version(_span(first, last)))
            item = nodes.list_item()
            if checked is None:
                item += _paragraph(*title, nodes.Text(" " + labels["unrecorded"]))
                runs += item
                continue
            artefacts = [(name, why) for name, why in fails if _artefact(why)]
            fails = tuple((name, why) for name, why in fails if not _artefact(why))
            if not fails and not artefacts:
                text = labels["every_function"].format(checked=checked)
                item += _paragraph(*title, nodes.Text(" " + text))
            elif not fails:
                item += _paragraph(*title, classes=["semantics-pair"])
            else:
                text = labels["functions_fail"].format(failed=len(fails), checked=checked)
                item += _paragraph(*title, nodes.Text(" " + text), classes=["semantics-pair"])
                names = nodes.bullet_list(classes=["semantics-package-fails"])
                for name, why in fails:
                    names += nodes.list_item(
                        # the exception's own words: English on every page, as torch wrote them
                        "",
                        _paragraph(
                            _word(name),
                            nodes.Text(" — "),
                            nodes.inline(why, why, classes=["notranslate"]),
                        ),
                    )
                item += names
            if artefacts:
                listed: list[nodes.Node] = []
                for index, (name, _why) in enumerate(artefacts):
                    if index:
                        listed.append(nodes.Text(labels["separator"]))
                    listed.append(_word(name))
                why = _artefact(artefacts[0][1]) or ""
                text = _compose(
                    labels["environment"],
                    functions=listed,
                    why=nodes.inline(why, why, classes=["notranslate"]),
                )
                item += _paragraph(*text, classes=["semantics-environment"])
            runs += item
        result.append(runs)
        return result


def _artefact(why: str) -> str | None:
    """The artefact of the environment that ``why`` (a failure's first line) names, if any."""
    return next((artefact for artefact in ENVIRONMENT_ARTEFACTS if artefact in why), None)


STYLE = "_static/semantics-releases.css"  # docs/_static/semantics-releases.css


def _matrix_style(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """The matrix's style sheet, linked from the pages with a matrix only, after the bundle.

    Not in the bundle of every page (docs/_ext/asset_bundle.py): every other page, the search
    page among them, would download it for nothing.  Nor in a bundle of this page's own, which
    an incremental build that leaves the page alone would not write: added after the bundling,
    it stays a link of its own, one request more on this page only.
    """
    if doctree is None or next(iter(doctree.findall(matrix_cell)), None) is None:
        return
    if "css_files" in context:
        context["css_files"] = [*context["css_files"], _CascadingStyleSheet(STYLE, priority=800)]


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("semantics_table")  # the records, the rows' pages, the site catalogue
    app.add_node(row_link)
    app.add_node(matrix_cell, html=(_visit_matrix_cell, _depart_matrix_cell))
    app.add_node(
        disclosure,
        html=(_visit_disclosure, _depart_disclosure),
        latex=(_visit_disclosure_latex, _visit_disclosure_latex),
    )
    app.add_node(
        disclosure_summary,
        html=(_visit_summary, _depart_summary),
        latex=(_visit_summary_latex, _depart_summary_latex),
    )
    app.add_directive("semantics-release-matrix", ReleaseMatrix)
    app.add_directive("semantics-release-changes", ReleaseChanges)
    app.add_directive("semantics-release-disagreements", ReleaseDisagreements)
    app.add_directive("semantics-release-package", ReleasePackage)
    app.connect("doctree-resolved", _resolve_links)
    app.connect("html-page-context", _matrix_style, priority=950)  # after asset_bundle's 900
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
