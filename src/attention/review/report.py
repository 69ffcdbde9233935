"""The findings in four formats: text, json, github (workflow annotations), sarif 2.1.0.

Formats only: every word of a finding comes from the checker (:mod:`.check`) and the rules
(:mod:`.rules`); the addresses from :mod:`.links`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

import attention
from attention.review.check import Finding
from attention.review.links import row_url, rule_url
from attention.review.rules import RULES, Rule, by_code

__all__ = ["FORMATS", "Site", "render"]

FORMATS = ("text", "json", "github", "sarif")


@dataclass(frozen=True)
class Site:
    """Where the cited pages live: base address and site version (None: the defaults)."""

    base_url: str | None = None
    version: str | None = None

    def row(self, row: str) -> str:
        """A row's address."""
        return row_url(row, base_url=self.base_url, version=self.version)

    def rule(self, code: str) -> str:
        """A rule's page."""
        return rule_url(code, base_url=self.base_url, version=self.version)


def _headline(rule: Rule, finding: Finding) -> str:
    return rule.message.format(subject=finding.subject)


def _record(finding: Finding, site: Site) -> dict[str, object]:
    rule = by_code(finding.code)
    return {
        "path": finding.path,
        "line": finding.line,
        "column": finding.column,
        "code": finding.code,
        "name": rule.name,
        "severity": rule.severity,
        "message": _headline(rule, finding),
        "inferred": list(finding.inferred),
        "expects": finding.expects,
        "fix": rule.fix,
        "rows": [{"id": row, "url": site.row(row)} for row in rule.rows],
        "rule_url": site.rule(rule.code),
    }


def _text(findings: Sequence[Finding], site: Site) -> str:
    lines = []
    for finding in findings:
        rule = by_code(finding.code)
        lines.append(
            f"{finding.path}:{finding.line}:{finding.column} {finding.code} "
            f"{_headline(rule, finding)} [{rule.severity}]"
        )
        lines.extend(f"    inferred: {text}" for text in finding.inferred)
        lines.append(f"    expects: {finding.expects}")
        lines.append(f"    fix: {rule.fix}")
        for row in rule.rows:
            lines.append(f"    row: {site.row(row)}")
        lines.append(f"    rule: {site.rule(rule.code)}")
    if findings:
        lines.append(f"{len(findings)} finding{'s' if len(findings) != 1 else ''}")
    return "\n".join(lines) + ("\n" if lines else "")


def _escape(text: str, *, property_value: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if property_value:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def _github(findings: Sequence[Finding], site: Site) -> str:
    lines = []
    for finding in findings:
        rule = by_code(finding.code)
        level = "error" if rule.severity == "error" else "warning"
        body = "\n".join(
            [
                _headline(rule, finding),
                *finding.inferred,
                f"expects: {finding.expects}",
                f"fix: {rule.fix}",
                *(site.row(row) for row in rule.rows),
            ]
        )
        props = ",".join(
            [
                f"file={_escape(finding.path, property_value=True)}",
                f"line={finding.line}",
                f"col={finding.column}",
                f"title={_escape(f'{rule.code} {rule.name}', property_value=True)}",
            ]
        )
        lines.append(f"::{level} {props}::{_escape(body)}")
    return "\n".join(lines) + ("\n" if lines else "")


def _sarif(findings: Sequence[Finding], site: Site) -> str:
    rules = [
        {
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": f"{rule.summary} Fix: {rule.fix}"},
            "helpUri": site.rule(rule.code),
            "defaultConfiguration": {"level": rule.severity},
            "properties": {"rows": [site.row(row) for row in rule.rows]},
        }
        for rule in RULES
    ]
    index = {rule.code: number for number, rule in enumerate(RULES)}
    results = []
    for finding in findings:
        rule = by_code(finding.code)
        text = " ".join([_headline(rule, finding) + ".", *finding.inferred, f"Fix: {rule.fix}"])
        results.append(
            {
                "ruleId": rule.code,
                "ruleIndex": index[rule.code],
                "level": rule.severity,
                "message": {"text": text},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": finding.path},
                            "region": {
                                "startLine": finding.line,
                                "startColumn": finding.column,
                                "endLine": finding.end_line,
                            },
                        }
                    }
                ],
            }
        )
    log = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "attention.review",
                        "version": attention.__version__,
                        "informationUri": site.rule("AM101").rsplit("/", 1)[0] + "/",
                        "rules": rules,
                    }
                },
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def render(findings: Sequence[Finding], form: str = "text", site: Site | None = None) -> str:
    """``findings`` written in ``form`` (one of :data:`FORMATS`)."""
    site = site or Site()
    if form == "text":
        return _text(findings, site)
    if form == "json":
        records = [_record(finding, site) for finding in findings]
        return json.dumps(records, indent=2, ensure_ascii=False) + "\n"
    if form == "github":
        return _github(findings, site)
    if form == "sarif":
        return _sarif(findings, site)
    raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {form!r}")
