"""The mask-semantics rows release by release, from the verification records.

Four directives for ``docs/reference/mask-semantics-releases.md``, each generated from the
records ``conf/records/torch-<release>.json`` of the releases in ``conf/torch-releases.toml``
(read and checked once by :func:`semantics_table._records`) and the claims of
``conf/semantics.toml``:

``{semantics-release-matrix}``
    One line per PyTorch row, one column per verified release (headed ``2.5``, the full release
    in its title), the value that release's record observed in each cell: a dash where the
    release lacks the API (``absent``), "not verified" where the row could not run.  A cell
    whose value differs from the release before it is marked (``▲``, class ``changed``, with
    the change in its title).  Each row's id links to its row on the mask-semantics page.  The
    table scrolls sideways in its own box, its first column kept in view
    (``semantics-releases.css``).
``{semantics-release-changes}``
    For every pair of consecutive verified releases, the rows whose observed value differs
    (before → after, with the claim's note for the release where it changed) and the SDPA
    rows whose kernel changed (the record's ``backends``); "no row changed" for the others.
``{semantics-release-disagreements}``
    For each release (consecutive releases with the same list grouped), the rows whose
    ``docs_say`` differs from what that release observed; ``unspecified`` is "not documented".
``{semantics-release-package}``
    Which of the package's own functions fail on each release (``record["package"]``), under the
    package's requirement: releases below it had their rows probed, not the pages' doctests.

The fixed strings go through the site's catalogue (``docs/_ext/site_messages.py``), as those of
:mod:`semantics_table`; every generated paragraph is kept out of the pages' ``.pot`` files.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from docutils import nodes
from semantics_table import (
    CLAIMS_FILE,
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

from attention.semantics.claims import Claim, load_claims

logger = logging.getLogger(__name__)

ABSENT = "absent"
DASH = "–"
CHANGED_MARK = "▲"


def _labels() -> dict[str, str]:
    """The fixed strings of the release pages in the build's language (catalogue ``site``)."""
    return {
        # Translators: the head of the matrix's first column (the rows' ids)
        "row": _("Row"),
        "absent": _("not in this release"),
        "not_verified": _("not verified"),
        # Translators: the title of a matrix cell where a row's value changed; release X.Y.Z
        "changed_cell": _("changed in torch {release}: {before} → {after}"),
        # Translators: a pair of consecutive releases in "What changed between releases"
        "pair": _("torch {before} → {after}:"),
        "no_row_changed": _("no row changed."),
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


def _releases(records: dict[str, Any]) -> list[str]:
    """The verified releases: those of ``conf/torch-releases.toml`` that have a record."""
    return [release for release, record in records["torch"].items() if record.get("rows")]


def _cells(claim: Claim, records: dict[str, Any], releases: list[str]) -> list[_Cell]:
    cells = []
    for release in releases:
        row = records["torch"][release]["rows"].get(claim.id, {})
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


class matrix_cell(nodes.entry):  # noqa: N801
    """A cell of the matrix: an entry with a ``title`` (the full release, the change)."""


def _visit_matrix_cell(translator: Any, node: matrix_cell) -> None:
    translator.visit_entry(node)
    if node.get("title"):
        # visit_entry wrote the opening tag last; the title goes inside it
        tag = translator.body[-1]
        title = translator.attval(node["title"])
        translator.body[-1] = tag[:-1] + f' title="{title}">'


def _depart_matrix_cell(translator: Any, node: matrix_cell) -> None:
    translator.depart_entry(node)


def _cell(text: str, title: str = "", classes: list[str] | None = None) -> matrix_cell:
    # the text sits in the cell itself, without a paragraph: 700 cells of <p> weigh 5 KB
    cell = matrix_cell("", nodes.Text(text), classes=classes or [])
    if title:
        cell["title"] = title
    return cell


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


class ReleaseMatrix(_Directive):
    """Every PyTorch row × every verified release: the value each release observed."""

    def run(self) -> list[nodes.Node]:
        labels, records, releases, claims = self._setup()
        short = _short(releases)
        # notranslate: ids, releases and vocabulary words, the same in both languages;
        # no-search: the ids and words are in the search index from the rows' own page
        table = nodes.table(classes=["semantics-matrix", "notranslate", "no-search"])
        group = nodes.tgroup(cols=len(releases) + 1)
        table += group
        group += nodes.colspec(colwidth=1, stub=1)
        for _release in releases:
            group += nodes.colspec(colwidth=1)
        head = nodes.thead()
        heading = nodes.row()
        heading += _cell(labels["row"])
        for release in releases:
            heading += _cell(short[release], title=f"torch {release}")
        head += heading
        group += head
        body = nodes.tbody()
        group += body
        for claim in claims:
            cells = _cells(claim, records, releases)
            changed = _changes(cells)
            line = nodes.row()
            line += nodes.entry("", _paragraph(_link(claim.id)))
            for cell in cells:
                if cell.value is None:
                    line += _cell(labels["not_verified"], classes=["unverified"])
                elif cell.release in changed:
                    title = labels["changed_cell"].format(
                        release=cell.release, before=changed[cell.release], after=cell.value
                    )
                    text = DASH if cell.value == ABSENT else cell.value
                    line += _cell(f"{CHANGED_MARK} {text}", title=title, classes=["changed"])
                elif cell.value == ABSENT:
                    line += _cell(DASH, title=labels["absent"], classes=["absent"])
                else:
                    line += _cell(cell.value)
            body += line
        return [table]


def _word(value: str) -> nodes.literal:
    return _value(value)


class ReleaseChanges(_Directive):
    """For each pair of consecutive verified releases: the rows and kernels that changed."""

    def run(self) -> list[nodes.Node]:
        labels, records, releases, claims = self._setup()
        cells = {claim.id: _cells(claim, records, releases) for claim in claims}
        pairs = nodes.bullet_list(classes=["semantics-release-pairs", "generated", "no-search"])
        for before, after in pairwise(releases):
            items = nodes.bullet_list(classes=["semantics-value-changes"])
            kernels = nodes.bullet_list(classes=["semantics-kernel-changes"])
            for claim in claims:
                old, new = (c for c in cells[claim.id] if c.release in (before, after))
                if old.value is not None and new.value is not None and old.value != new.value:
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
                    items += nodes.list_item("", _paragraph(*parts))
                if old.backends and new.backends and old.backends != new.backends:
                    kernel = _compose(
                        labels["kernel_change"],
                        id=_link(claim.id),
                        before=_word(" + ".join(old.backends)),
                        after=_word(" + ".join(new.backends)),
                    )
                    kernels += nodes.list_item("", _paragraph(*kernel))
            title = _compose(labels["pair"], before=_version(before), after=_version(after))
            item = nodes.list_item()
            if not items.children and not kernels.children:
                item += _paragraph(*title, nodes.Text(" "), nodes.Text(labels["no_row_changed"]))
            else:
                item += _paragraph(*title, classes=["semantics-pair"])
                for found in (items, kernels):
                    if found.children:
                        item += found
            pairs += item
        return [pairs]


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
            elif not fails:
                text = labels["every_function"].format(checked=checked)
                item += _paragraph(*title, nodes.Text(" " + text))
            else:
                text = labels["functions_fail"].format(failed=len(fails), checked=checked)
                item += _paragraph(*title, nodes.Text(" " + text), classes=["semantics-pair"])
                names = nodes.bullet_list()
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
            runs += item
        result.append(runs)
        return result


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
    app.add_directive("semantics-release-matrix", ReleaseMatrix)
    app.add_directive("semantics-release-changes", ReleaseChanges)
    app.add_directive("semantics-release-disagreements", ReleaseDisagreements)
    app.add_directive("semantics-release-package", ReleasePackage)
    app.connect("doctree-resolved", _resolve_links)
    app.connect("html-page-context", _matrix_style, priority=950)  # after asset_bundle's 900
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
