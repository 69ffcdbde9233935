"""The findings in four formats: text, json, github (workflow annotations), sarif 2.1.0.

Formats only: every word of a finding comes from the checker (:mod:`.check`) and the rules
(:mod:`.rules`); the addresses from :mod:`.links`.  Each format is written for the program that
reads it:

* ``json``: one object, ``{"schema_version": 1, "tool_version": …, "findings": […],
  "not_checked": […]}``, described by the JSON Schema ``findings.schema.json`` shipped beside
  this module (:data:`JSON_SCHEMA_VERSION` changes when a key changes meaning or goes away);
* ``github``: one workflow command per finding, with the rule's page, and one per file that
  could not be checked;
* ``sarif``: SARIF 2.1.0, file locations as URIs relative to ``%SRCROOT%`` (the current folder)
  and percent-encoded, columns counted in Unicode code points as the checker counts them, the
  files that could not be checked as notifications of the run's invocation.

A finding in a notebook is placed by cell (``nb.ipynb:cell 3:2:5``); GitHub and SARIF, which
point at lines of the file itself, get the line of the ``.ipynb`` file that holds it, and the
cell, line and column in the message.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import attention
from attention.review.check import Finding
from attention.review.i18n import catalogue
from attention.review.inputs import Problem
from attention.review.links import row_url, rule_url
from attention.review.rules import RULES, Rule, by_code

__all__ = ["FORMATS", "JSON_SCHEMA_VERSION", "MACHINE_FORMATS", "Site", "render"]

FORMATS = ("text", "json", "github", "sarif")
MACHINE_FORMATS = ("json", "github", "sarif")
"""The formats another program reads: nothing else may be written into them."""

JSON_SCHEMA_VERSION = 1
"""The version of the ``json`` format (``schema_version``; ``findings.schema.json``)."""

SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
SRCROOT = "%SRCROOT%"


@dataclass(frozen=True)
class Site:
    """Where the cited pages live: base address and site version (None: the defaults)."""

    base_url: str | None = None
    version: str | None = None
    language: str = "en"

    def row(self, row: str) -> str:
        """A mask-table row's address, in the site's language."""
        return row_url(row, base_url=self.base_url, version=self.version, language=self.language)

    def rule(self, code: str) -> str:
        """A rule's page, in the site's language."""
        return rule_url(code, base_url=self.base_url, version=self.version, language=self.language)

    def _(self, message: str) -> str:
        """``message`` (a rule's text or a label) in the site's language."""
        return catalogue(self.language).gettext(message)


def _headline(rule: Rule, finding: Finding, site: Site) -> str:
    return site._(rule.message).format(subject=finding.subject)


def _rows(finding: Finding, rule: Rule) -> tuple[str, ...]:
    """The rows the finding cites: its own where the check set them, else its rule's."""
    return finding.rows or rule.rows


def _where(finding: Finding) -> str:
    """``path:line:col``, or ``path:cell N:line:col`` in a notebook (as ruff writes it)."""
    cell = f"cell {finding.cell}:" if finding.cell is not None else ""
    return f"{finding.path}:{cell}{finding.line}:{finding.column}"


def _in_cell(finding: Finding) -> str:
    """``cell 3, line 2, column 5: `` for a finding in a notebook, else nothing."""
    if finding.cell is None:
        return ""
    return f"cell {finding.cell}, line {finding.line}, column {finding.column}: "


def _record(finding: Finding, site: Site) -> dict[str, object]:
    rule = by_code(finding.code)
    return {
        "path": finding.path,
        "cell": finding.cell,
        "line": finding.line,
        "column": finding.column,
        "end_line": finding.end_line,
        "end_column": finding.end_column,
        "code": finding.code,
        "name": rule.name,
        "severity": rule.severity,
        "message": _headline(rule, finding, site),
        "inferred": list(finding.inferred),
        "expects": finding.expects,
        "fix": site._(rule.fix),
        "fixable": finding.fix_code is not None,
        "rows": [{"id": row, "url": site.row(row)} for row in _rows(finding, rule)],
        "rule_url": site.rule(rule.code),
    }


def _problem_text(problem: Problem) -> str:
    """What is wrong, with the cell and line in a notebook (its location in the file is lost)."""
    if problem.cell is None:
        return problem.message
    return f"cell {problem.cell}, line {problem.line}: {problem.message}"


def _problem_record(problem: Problem) -> dict[str, object]:
    return {
        "path": problem.path,
        "cell": problem.cell,
        "line": problem.line,
        "column": problem.column,
        "message": problem.message,
    }


def _json(findings: Sequence[Finding], problems: Sequence[Problem], site: Site) -> str:
    document = {
        "schema_version": JSON_SCHEMA_VERSION,
        "tool_version": attention.__version__,
        "findings": [_record(finding, site) for finding in findings],
        "not_checked": [_problem_record(problem) for problem in problems],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _text(findings: Sequence[Finding], site: Site) -> str:
    lines = []
    for finding in findings:
        rule = by_code(finding.code)
        lines.append(
            f"{_where(finding)} {finding.code} {_headline(rule, finding, site)} "
            f"[{site._(rule.severity)}]"
        )
        lines.extend(f"    {site._('inferred')}: {text}" for text in finding.inferred)
        lines.append(f"    {site._('expects')}: {finding.expects}")
        lines.append(f"    {site._('fix')}: {site._(rule.fix)}")
        for row in _rows(finding, rule):
            lines.append(f"    {site._('row')}: {site.row(row)}")
        lines.append(f"    {site._('rule')}: {site.rule(rule.code)}")
    if findings:
        count = len(findings)
        lines.append(f"{count} {site._('finding' if count == 1 else 'findings')}")
    return "\n".join(lines) + ("\n" if lines else "")


def _escape(text: str, *, property_value: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if property_value:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def _command(level: str, message: str, **properties: object) -> str:
    """One GitHub workflow command (``::error file=…,line=…::message``)."""
    props = ",".join(
        f"{key}={_escape(str(value), property_value=True)}"
        for key, value in properties.items()
        if value is not None
    )
    return f"::{level} {props}::{_escape(message)}"


def _github(findings: Sequence[Finding], problems: Sequence[Problem], site: Site) -> str:
    lines = []
    for finding in findings:
        rule = by_code(finding.code)
        body = "\n".join(
            [
                _in_cell(finding) + _headline(rule, finding, site),
                *finding.inferred,
                f"{site._('expects')}: {finding.expects}",
                f"{site._('fix')}: {site._(rule.fix)}",
                *(f"{site._('row')}: {site.row(row)}" for row in _rows(finding, rule)),
                f"{site._('rule')}: {site.rule(rule.code)}",
            ]
        )
        in_notebook = finding.cell is not None
        lines.append(
            _command(
                "error" if rule.severity == "error" else "warning",
                body,
                file=finding.path,
                line=finding.file_line if in_notebook else finding.line,
                col=None if in_notebook else finding.column,
                endLine=None if in_notebook else finding.end_line,
                title=f"{rule.code} {rule.name}",
            )
        )
    for problem in problems:
        in_notebook = problem.cell is not None
        lines.append(
            _command(
                "error",
                _problem_text(problem),
                file=problem.path,
                line=None if in_notebook else problem.line,
                col=None if in_notebook else problem.column,
                title="attention.review: not checked",
            )
        )
    return "\n".join(lines) + ("\n" if lines else "")


def _artifact(path: str, base: Path) -> dict[str, object]:
    """A SARIF artifactLocation: relative to ``%SRCROOT%`` when the file is below it."""
    if path == "<stdin>":
        return {"description": {"text": "standard input"}}
    absolute = Path(os.path.abspath(path))
    try:
        relative = absolute.relative_to(base)
    except ValueError:
        return {"uri": absolute.as_uri()}
    return {"uri": quote(relative.as_posix(), safe="/"), "uriBaseId": SRCROOT}


def _sarif_rules(site: Site) -> list[dict[str, object]]:
    return [
        {
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": site._(rule.summary)},
            "fullDescription": {
                "text": f"{site._(rule.summary)} {site._('fix')}: {site._(rule.fix)}"
            },
            "helpUri": site.rule(rule.code),
            "defaultConfiguration": {"level": rule.severity},
            "properties": {"rows": [site.row(row) for row in rule.rows]},
        }
        for rule in RULES
    ]


def _sarif_result(finding: Finding, index: int, base: Path, site: Site) -> dict[str, object]:
    rule = by_code(finding.code)
    text = " ".join(
        [
            _headline(rule, finding, site) + ".",
            *finding.inferred,
            f"{site._('fix')}: {site._(rule.fix)}",
        ]
    )
    location: dict[str, object] = {"artifactLocation": _artifact(finding.path, base)}
    if finding.cell is None:
        region: dict[str, int] = {"startLine": finding.line, "startColumn": finding.column}
        region["endLine"] = finding.end_line
        if finding.end_column > 0:
            region["endColumn"] = finding.end_column
        location["region"] = region
    elif finding.file_line is not None:
        location["region"] = {"startLine": finding.file_line}
    result: dict[str, object] = {
        "ruleId": rule.code,
        "ruleIndex": index,
        "level": rule.severity,
        "message": {"text": _in_cell(finding) + text},
        "locations": [{"physicalLocation": location}],
    }
    if finding.cell is not None:
        result["properties"] = {
            "cell": finding.cell,
            "cellLine": finding.line,
            "cellColumn": finding.column,
        }
    return result


def _notification(problem: Problem, base: Path) -> dict[str, object]:
    location: dict[str, object] = {"artifactLocation": _artifact(problem.path, base)}
    if problem.cell is None and problem.line is not None:
        region = {"startLine": problem.line}
        if problem.column is not None:
            region["startColumn"] = problem.column
        location["region"] = region
    return {
        "level": "error",
        "message": {"text": _problem_text(problem)},
        "locations": [{"physicalLocation": location}],
    }


def _sarif(findings: Sequence[Finding], problems: Sequence[Problem], site: Site) -> str:
    base = Path(os.getcwd())
    index = {rule.code: number for number, rule in enumerate(RULES)}
    invocation: dict[str, object] = {"executionSuccessful": not problems}
    if problems:
        invocation["toolExecutionNotifications"] = [_notification(p, base) for p in problems]
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "attention.review",
                        "version": attention.__version__,
                        "informationUri": site.rule("AM101").rsplit("/", 1)[0] + "/",
                        "rules": _sarif_rules(site),
                    }
                },
                "originalUriBaseIds": {SRCROOT: {"uri": base.as_uri().rstrip("/") + "/"}},
                "columnKind": "unicodeCodePoints",
                "invocations": [invocation],
                "results": [_sarif_result(f, index[f.code], base, site) for f in findings],
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def render(
    findings: Sequence[Finding],
    form: str = "text",
    site: Site | None = None,
    problems: Sequence[Problem] = (),
) -> str:
    """``findings`` written in ``form`` (one of :data:`FORMATS`).

    The paths that could not be checked (``problems``) go where the format has room for them;
    text leaves them to standard error.
    """
    site = site or Site()
    if form == "text":
        return _text(findings, site)
    if form == "json":
        return _json(findings, problems, site)
    if form == "github":
        return _github(findings, problems, site)
    if form == "sarif":
        return _sarif(findings, problems, site)
    raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {form!r}")
