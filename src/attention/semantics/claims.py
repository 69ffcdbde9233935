"""The claims: what each framework API does with a mask, as data, loaded from ``semantics.toml``.

The data file is the single source of the table on the site and of the live check
``python -m attention.semantics``: one ``[[claims]]`` entry per row, with the API and argument it is
about, the expected value (one word of :data:`VOCABULARY`), an explanation in English and Chinese, a
link to the framework's documentation and a short ``>>>`` snippet that reproduces it.

A row states what every torch release does without being copied: ``expected`` holds from the
oldest verified release on, and an optional list of ``changes`` (``since``, ``expected``, a note in
both languages) says where the behaviour changed; :func:`expected_for` gives the expectation for
any release.

In a source checkout the file is ``conf/semantics.toml``; an installed wheel carries a copy inside
this package (:func:`attention.semantics.paths.claims_file`).  :func:`load_claims` finds either,
validates every field and raises :class:`ClaimsError` at the first problem, naming the file, the
line, the row and its id, and the field.  The rows about other frameworks (JAX, Flax, Keras,
Transformers, flash-attn, xFormers) live beside it in ``conf/semantics-ecosystem.toml``, read by
:func:`load_ecosystem_claims`; :func:`load_all_claims` reads both and checks that no id appears in
both.  A row in the wrong file (a JAX row among the PyTorch rows, a PyTorch row among the others) is
an error.

>>> claims = load_claims()
>>> by_id = {claim.id: claim for claim in claims}
>>> by_id["sdpa.attn_mask.bool"].expected, by_id["mha.attn_mask.bool"].expected
('allowed', 'forbidden')
>>> row = by_id["sdpa.is_causal_with_attn_mask"]
>>> expected_for(row, "2.13.0"), expected_for(row, "2.14.1")
('ok', 'error')
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from attention.semantics import paths
from attention.semantics.registry import FRAMEWORK_MODULES

__all__ = [
    "DOCS_SAY_EXTRA",
    "REQUIREMENTS",
    "VERSIONED",
    "VOCABULARY",
    "Change",
    "Claim",
    "ClaimsError",
    "default_claims_path",
    "ecosystem_claims_path",
    "expected_for",
    "load_all_claims",
    "load_claims",
    "load_ecosystem_claims",
    "parse_claims",
    "release_tuple",
]

VOCABULARY: Mapping[str, str] = {
    "allowed": "Boolean mask: True means the query may attend to that key",
    "forbidden": "Boolean mask: True means the key is masked out",
    "additive": "floating-point mask: its values are added to the scores before the softmax",
    "upper_left": "causal triangle anchored at the top-left: query i sees keys j <= i",
    "lower_right": "causal triangle anchored at the bottom-right: query i sees keys j <= i + S - L",
    "zeros": "a query row with no allowed key comes out as zeros",
    "nan": "a query row with no allowed key comes out as NaN",
    "uniform": "a query row with no allowed key attends to every key equally",
    "error": "the call is rejected with an exception",
    "ok": "the call is accepted",
    "warning": "the call is accepted with a warning",
    "silent": "the call is accepted without a warning",
    "applied": "the argument takes effect",
    "ignored": "the argument has no effect",
    "1/sqrt(d_k)": "the default scale is one over the square root of the per-head key dimension",
    "leaks": "a NaN in a masked-out key or value still reaches the output",
    "contained": "a NaN in a masked-out key or value does not reach the output",
    "finite": "the output holds no NaN",
    "computed": "padded positions come back with computed values, like any other position",
    "truncated": "the output lost the positions that are padding in every batch item",
    "absent": "this torch release does not have the API or argument the row is about",
    "w_keys": "a sliding window of size W covers W keys: the query's own and the W - 1 before it",
    "w_plus_1_keys": "a sliding window of size W covers W + 1 keys: the query's and the W before",
}
"""Every value a claim may expect, with its meaning.  Probes answer in these words too."""

DOCS_SAY_EXTRA = ("unspecified",)
"""Values ``docs_say`` may hold besides :data:`VOCABULARY`: the documentation is silent."""

VERSIONED = ("torch", "transformers", "onnxruntime", "keras")
"""The frameworks whose rows are stated per release of that framework (``changes``, ``introduced``).

A torch row's ``since`` is a torch release; a transformers row's a transformers release, an
onnxruntime row's an onnxruntime release, a keras row's a Keras release.  Each is verified on the
releases ``conf/torch-releases.toml`` and ``conf/library-releases.toml`` list.
"""

REQUIREMENTS = ("cuda",)
"""What a claim may require beyond a CPU; such rows are reported as not verified without it."""

# the first part is a lower-case module name; later parts may be class names (MultiHeadAttention)
_ID = re.compile(r"^[a-z][a-z0-9_]*(\.[A-Za-z0-9_]+)+$")
_FIELDS = {
    "id",
    "framework",
    "api",
    "argument",
    "expected",
    "docs",
    "docs_say",
    "note",
    "issues",
    "requires",
    "source",
    "explanation",
    "reproduce",
    "changes",
    "introduced",
}
_CHANGE_FIELDS = {"since", "expected", "note", "reproduce"}
_SINCE = re.compile(r"^\d+\.\d+$")
_RELEASE = re.compile(r"^\d+(\.\d+)*")
_REQUIRED = ("id", "api", "argument", "expected", "docs", "explanation", "reproduce")
_LANGUAGES = ("en", "zh")


class ClaimsError(ValueError):
    """The claims data is malformed; the message names where, the field and what is wrong.

    The message is one line: ``<file>:<line>: claim #<n> ('<id>'): <what is wrong>`` when the data
    was read from a file (``<file>:<line>:<column>:`` for a file that is not TOML or not UTF-8),
    without the file and line when parsed data was passed in.  The parts are also attributes:
    ``path``, ``line``, ``column``, ``row`` (1-based), ``claim_id``, ``field`` and ``problem``;
    each is None where it does not apply.

    >>> parse_claims({"claims": [{"id": "x"}]})
    Traceback (most recent call last):
    ...
    attention.semantics.claims.ClaimsError: claim #1 ('x'): missing field 'api'
    """

    def __init__(
        self,
        problem: str,
        *,
        field: str | None = None,
        row: int | None = None,
        claim_id: object = None,
        path: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.problem = problem
        self.field = field
        self.row = row
        self.claim_id = claim_id
        self.path = path
        self.line = line
        self.column = column
        super().__init__(self._message())

    def _message(self) -> str:
        parts: list[str] = []
        if self.path is not None:
            where = [self.path, *(str(n) for n in (self.line, self.column) if n is not None)]
            parts.append(":".join(where))
        if self.row is not None:
            parts.append(
                f"claim #{self.row}"
                + (f" ({self.claim_id!r})" if self.claim_id is not None else "")
            )
        return ": ".join([*parts, self.problem])

    def located(self, path: str, line: int | None) -> ClaimsError:
        """The same error, named at ``line`` of the file ``path``."""
        return ClaimsError(
            self.problem,
            field=self.field,
            row=self.row,
            claim_id=self.claim_id,
            path=path,
            line=line,
        )


@dataclass(frozen=True)
class Change:
    """Where a row's behaviour changed: from torch ``since`` (``X.Y``) on, it is ``expected``.

    ``note_en`` / ``note_zh`` say what changed; ``reproduce`` is the row's snippet for those
    releases, when the row's own one no longer holds there.
    """

    since: str
    expected: str
    note_en: str
    note_zh: str
    reproduce: str | None = None

    def note(self, language: str) -> str:
        """The note in ``language`` (``"zh..."``: Chinese, else English)."""
        return self.note_zh if language.startswith("zh") else self.note_en


def release_tuple(release: str) -> tuple[int, ...]:
    """``"2.14.1"`` as ``(2, 14, 1)`` (``"2.14"`` as ``(2, 14)``); a local tag is dropped.

    >>> release_tuple("2.13.0+cpu") < release_tuple("2.14") <= release_tuple("2.14.1")
    True
    """
    match = _RELEASE.match(release)
    if match is None:
        raise ValueError(f"not a torch release: {release!r}")
    return tuple(int(part) for part in match.group(0).split("."))


@dataclass(frozen=True)
class Claim:
    """One row of the table: what ``api`` does with ``argument``, and the value a probe must see.

    ``argument`` and ``explanation_en`` are English, ``argument_zh`` and ``explanation_zh``
    Chinese; the command line and its JSON use the English ones.

    ``docs_say`` is set only where the documentation disagrees with the observed behaviour or is
    silent about it; ``note`` (English, Chinese) then explains the difference.  ``issues`` are
    issue or pull-request numbers in the framework's repository.  ``requires`` names hardware
    the check needs (``"cuda"``); without it the row is reported as not verified.  ``source``
    (English, Chinese) names the file or page, and the version, that a row rests on where it
    cannot be verified here.

    >>> claim = next(c for c in load_claims() if c.id == "sdpa.fully_masked_row")
    >>> claim.expected, expected_for(claim, "2.5.1"), claim.docs_say, claim.disagrees_with_docs
    ('nan', 'zeros', 'nan', True)
    """

    id: str
    framework: str
    api: str
    argument: str
    argument_zh: str
    expected: str
    docs: str
    explanation_en: str
    explanation_zh: str
    reproduce: str
    docs_say: str | None = None
    note_en: str | None = None
    note_zh: str | None = None
    issues: tuple[int, ...] = ()
    requires: str | None = None
    source_en: str | None = None
    source_zh: str | None = None
    changes: tuple[Change, ...] = ()
    introduced: str | None = None

    def change_for(self, release: str) -> Change | None:
        """The last change in effect on torch ``release``, or None where ``expected`` holds."""
        current = None
        for change in self.changes:
            if release_tuple(release) >= release_tuple(change.since):
                current = change
        return current

    def reproduce_for(self, release: str) -> str:
        """The snippet that reproduces the row on torch ``release``."""
        for change in reversed(self.changes):
            if release_tuple(release) >= release_tuple(change.since) and change.reproduce:
                return change.reproduce
        return self.reproduce

    @property
    def disagrees_with_docs(self) -> bool:
        """True when the documentation says something else than the row holds on some release."""
        behaviours = {self.expected, *(change.expected for change in self.changes)}
        return self.docs_say is not None and behaviours != {self.docs_say}

    def disagrees_with_docs_on(self, release: str) -> bool:
        """True when the documentation says something else than the row holds on ``release``.

        >>> row = next(c for c in load_claims() if c.id == "sdpa.is_causal_with_attn_mask")
        >>> row.disagrees_with_docs_on("2.13.0"), row.disagrees_with_docs_on("2.14.1")
        (True, False)
        """
        observed = expected_for(self, release)
        return self.docs_say is not None and observed not in (self.docs_say, "absent")

    def argument_in(self, language: str) -> str:
        """The argument description in ``language`` (``"zh..."``: Chinese, else English)."""
        return self.argument_zh if language.startswith("zh") else self.argument

    def explanation(self, language: str) -> str:
        """The explanation in ``language`` (``"zh..."`` selects Chinese, anything else English).

        >>> claim = next(c for c in load_claims() if c.id == "sdpa.attn_mask.bool")
        >>> claim.explanation("zh_CN") == claim.explanation_zh
        True
        """
        return self.explanation_zh if language.startswith("zh") else self.explanation_en

    def note(self, language: str) -> str | None:
        """The note on a docs disagreement in ``language``, or None when there is none."""
        return self.note_zh if language.startswith("zh") else self.note_en

    def source(self, language: str) -> str | None:
        """Where an unverifiable row comes from, in ``language``, or None."""
        return self.source_zh if language.startswith("zh") else self.source_en


def expected_for(claim: Claim, release: str) -> str:
    """What ``claim`` expects on torch ``release`` (``X.Y.Z``).

    The expectation of the last change in effect on that release, else ``claim.expected``; rows
    about other frameworks have no changes.

    A release newer than every recorded one gets the latest expectation; the caller says so
    (:func:`attention.semantics.report.release_context`).
    """
    if claim.introduced is not None and release_tuple(release) < release_tuple(claim.introduced):
        return "absent"
    change = claim.change_for(release)
    return change.expected if change is not None else claim.expected


def _claims_file(name: str) -> Path:
    """``name`` as packaged in a wheel, else from ``conf/`` of the checkout."""
    found = paths.claims_file(name)
    if not found.is_file():
        raise ClaimsError(
            f"no claims file: neither a packaged attention/semantics/{name} nor {found} exists"
        )
    return found


def default_claims_path() -> Path:
    """The claims file: the copy packaged in a wheel, else ``conf/semantics.toml`` of the checkout.

    >>> default_claims_path().name
    'semantics.toml'
    """
    return _claims_file("semantics.toml")


def ecosystem_claims_path() -> Path:
    """The claims about other frameworks: the packaged copy, else ``conf/semantics-ecosystem.toml``.

    >>> ecosystem_claims_path().name
    'semantics-ecosystem.toml'
    """
    return _claims_file("semantics-ecosystem.toml")


_TOML_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")


def _read(source: Path) -> tuple[str, dict[str, Any]]:
    """The text of ``source`` and its parsed TOML; a file that cannot be read is a ClaimsError."""
    name = str(source)
    try:
        raw = source.read_bytes()
    except OSError as error:
        reason = error.strerror or str(error)
        raise ClaimsError(f"cannot read the claims file: {reason}", path=name) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line_start = raw.rfind(b"\n", 0, error.start) + 1
        raise ClaimsError(
            f"not UTF-8: byte 0x{raw[error.start]:02x} at byte {error.start - line_start + 1} "
            f"of the line cannot be decoded ({error.reason}); save the file as UTF-8",
            path=name,
            line=raw.count(b"\n", 0, error.start) + 1,
        ) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        position = _TOML_POSITION.search(message)
        line = column = None
        if position is not None:
            line, column = int(position.group(1)), int(position.group(2))
            message = message[: position.start()]
        raise ClaimsError(f"invalid TOML: {message}", path=name, line=line, column=column) from None
    return text, data


_ROW_HEADER = re.compile(r"^[ \t]*\[\[[ \t]*claims[ \t]*\]\][ \t]*(#.*)?$")


def _line_of(text: str, data: Mapping[str, Any], row: int | None, field: str | None) -> int | None:
    """The line of ``text`` where ``field`` of ``row`` is, else where the row starts, else None.

    Rows are found by their ``[[claims]]`` headers; a file that writes its rows some other way
    (an inline array) gets the line of its ``claims =`` key instead.
    """
    lines = text.splitlines()
    headers = [n for n, line in enumerate(lines, start=1) if _ROW_HEADER.match(line)]
    rows = data.get("claims")

    def key_line(start: int, stop: int, key: str) -> int | None:
        # a key (`key = ...`, `"key" = ...`) or a table header (`[key]`, `[[key]]`)
        name = rf"\"?{re.escape(key)}\"?"
        pattern = re.compile(rf"^[ \t]*({name}[ \t]*=|\[\[?[ \t]*{name}[ \t]*\])")
        for number in range(start, stop):
            if pattern.match(lines[number - 1]):
                return number
        return None

    if row is not None and isinstance(rows, list) and len(headers) == len(rows):
        start = headers[row - 1]
        stop = headers[row] if row < len(headers) else len(lines) + 1
        found = key_line(start, stop, field) if field is not None else None
        return found if found is not None else start
    if field is not None:
        return key_line(1, len(lines) + 1, field)
    return None


def _load(
    source: Path, check: Callable[[int, Claim, Mapping[str, Any]], None] | None = None
) -> list[Claim]:
    """Parse the file ``source``, run ``check`` on each row, and name the line of any problem."""
    text, data = _read(source)
    try:
        claims = parse_claims(data)
        if check is not None:
            for index, (claim, row) in enumerate(zip(claims, data["claims"], strict=True), 1):
                check(index, claim, row)
    except ClaimsError as error:
        raise error.located(str(source), _line_of(text, data, error.row, error.field)) from None
    return claims


def load_claims(path: Path | str | None = None) -> list[Claim]:
    """Read and validate the PyTorch claims file (``path``, or :func:`default_claims_path`).

    Every row must be about torch (no ``framework``, or ``"torch"``): the rows about other
    frameworks belong in the other file (:func:`load_ecosystem_claims`).

    Raises:
        ClaimsError: the file cannot be read, is not UTF-8 or not TOML, or a row is malformed or
            about another framework; the message names the file, the line, the row and the field.
    """
    source = Path(path) if path is not None else default_claims_path()

    def only_torch(index: int, claim: Claim, row: Mapping[str, Any]) -> None:
        if claim.framework != "torch":
            raise ClaimsError(
                f"framework {claim.framework!r}: {source} was read as the PyTorch claims file, "
                f"whose rows are all about torch; a row about {claim.framework} belongs in the "
                f"other frameworks' claims file, {paths.ECOSYSTEM_CLAIMS.name}",
                field="framework",
                row=index,
                claim_id=claim.id,
            )

    return _load(source, only_torch)


def load_ecosystem_claims(path: Path | str | None = None) -> list[Claim]:
    """Read and validate the claims about other frameworks (default :func:`ecosystem_claims_path`).

    Every row must name its ``framework``, and none may be about torch: those rows belong in the
    PyTorch file.

    >>> sorted({claim.framework for claim in load_ecosystem_claims()})[:3]
    ['flash_attn', 'flax', 'jax']

    Raises:
        ClaimsError: as :func:`load_claims`; also for a row about torch, or one that does not
            name its framework.
    """
    source = Path(path) if path is not None else ecosystem_claims_path()

    def not_torch(index: int, claim: Claim, row: Mapping[str, Any]) -> None:
        if "framework" not in row or claim.framework == "torch":
            said = f"framework {claim.framework!r}" if "framework" in row else "no framework"
            raise ClaimsError(
                f"{said}: {source} was read as the other frameworks' claims file, in which a "
                "row must name its framework, and it may not be torch; a PyTorch row belongs in "
                f"the PyTorch claims file, {paths.CLAIMS.name}",
                field="framework",
                row=index,
                claim_id=claim.id,
            )

    return _load(source, not_torch)


def load_all_claims(
    path: Path | str | None = None, ecosystem_path: Path | str | None = None
) -> list[Claim]:
    """The PyTorch claims followed by the claims about other frameworks; ids unique across both.

    >>> claims = load_all_claims()
    >>> len(claims) == len(load_claims()) + len(load_ecosystem_claims())
    True

    Raises:
        ClaimsError: as :func:`load_claims` and :func:`load_ecosystem_claims`, or for an id that
            appears in both files.
    """
    ours = load_claims(path)
    theirs = load_ecosystem_claims(ecosystem_path)
    ids = {claim.id for claim in ours}
    for index, claim in enumerate(theirs, start=1):
        if claim.id in ids:
            raise ClaimsError(
                f"id {claim.id!r} appears in both claims files",
                field="id",
                row=index,
                claim_id=claim.id,
                path=str(ecosystem_path if ecosystem_path is not None else ecosystem_claims_path()),
            )
    return ours + theirs


@dataclass(frozen=True)
class _Row:
    """Where a row is (its 1-based index and the id it gives), for its error messages."""

    index: int
    claim_id: object

    def error(self, field: str, problem: str) -> ClaimsError:
        return ClaimsError(problem, field=field, row=self.index, claim_id=self.claim_id)


def _text(row: _Row, data: Mapping[str, Any], key: str, field: str | None = None) -> str:
    """The non-empty string ``data[key]``; ``field`` names it in messages (default ``key``)."""
    name = field if field is not None else key
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise row.error(name.split(".")[0], f"{name} must be a non-empty string, got {value!r}")
    return value.strip()


def _bilingual(row: _Row, data: Mapping[str, Any], key: str) -> tuple[str, str]:
    value = data.get(key)
    if not isinstance(value, Mapping) or set(value) != set(_LANGUAGES):
        got = sorted(value) if isinstance(value, Mapping) else value
        raise row.error(key, f"{key} must be a table with exactly the keys en and zh, got {got!r}")
    return _text(row, value, "en", f"{key}.en"), _text(row, value, "zh", f"{key}.zh")


def _parse_one(index: int, data: object) -> Claim:
    if not isinstance(data, Mapping):
        raise ClaimsError(
            f"claims must be an array of tables ([[claims]] rows), but this row is {data!r}",
            field="claims",
            row=index,
        )
    row = _Row(index, data.get("id"))
    unknown = set(data) - _FIELDS
    if unknown:
        raise row.error(
            sorted(unknown)[0], f"unknown field(s) {sorted(unknown)}; known: {sorted(_FIELDS)}"
        )
    for key in _REQUIRED:
        if key not in data:
            raise row.error(key, f"missing field {key!r}")
    claim_id = _text(row, data, "id")
    if not _ID.match(claim_id):
        raise row.error(
            "id",
            f"id must look like 'api.argument...' (lower case, dot-separated), got {claim_id!r}",
        )
    expected = _text(row, data, "expected")
    if expected not in VOCABULARY:
        raise row.error("expected", f"expected {expected!r} is not one of {sorted(VOCABULARY)}")
    docs = _text(row, data, "docs")
    if not docs.startswith("https://"):
        raise row.error("docs", f"docs must be an https:// link, got {docs!r}")
    docs_say = data.get("docs_say")
    if docs_say is not None and docs_say not in (*VOCABULARY, *DOCS_SAY_EXTRA):
        raise row.error(
            "docs_say",
            f"docs_say {docs_say!r} is not one of {sorted((*VOCABULARY, *DOCS_SAY_EXTRA))}",
        )
    note_en = note_zh = None
    if "note" in data:
        note_en, note_zh = _bilingual(row, data, "note")

    issues = data.get("issues", [])
    if not isinstance(issues, list) or not all(
        isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in issues
    ):
        raise row.error(
            "issues", f"issues must be a list of positive issue numbers, got {issues!r}"
        )
    requires = data.get("requires")
    if requires is not None and requires not in REQUIREMENTS:
        raise row.error("requires", f"requires must be one of {REQUIREMENTS}, got {requires!r}")
    framework = data.get("framework", "torch")
    if framework not in FRAMEWORK_MODULES:
        raise row.error(
            "framework",
            f"framework must be one of {sorted(FRAMEWORK_MODULES)}, got {framework!r}",
        )
    source_en = source_zh = None
    if "source" in data:
        source_en, source_zh = _bilingual(row, data, "source")
    if requires is not None and source_en is None and framework != "torch":
        raise row.error("source", "a row that cannot be verified everywhere must name its source")
    reproduce = _text(row, data, "reproduce")
    if not reproduce.startswith(">>> "):
        raise row.error("reproduce", "reproduce must be a '>>> ' example that can run as a doctest")
    explanation_en, explanation_zh = _bilingual(row, data, "explanation")
    argument_en, argument_zh = _bilingual(row, data, "argument")
    changes = _changes(row, data.get("changes", []), expected, framework)
    behaviours = {expected, *(change.expected for change in changes)}
    if docs_say is not None and behaviours != {docs_say} and note_en is None:
        raise row.error("docs_say", "docs_say differs from expected, so a note must explain it")
    introduced = data.get("introduced")
    if introduced is not None:
        if framework not in VERSIONED:
            raise row.error(
                "introduced",
                f"introduced is a release of {', '.join(VERSIONED)}: {framework} rows have none",
            )
        if not isinstance(introduced, str) or not _SINCE.match(introduced):
            raise row.error(
                "introduced", f"introduced must be a {framework} release 'X.Y', got {introduced!r}"
            )
        if changes and release_tuple(changes[0].since) <= release_tuple(introduced):
            raise row.error(
                "introduced", "every change must come after the release that introduced the API"
            )
    if "absent" in (expected, *(change.expected for change in changes)):
        raise row.error("expected", "'absent' is implied by introduced; a row never expects it")
    return Claim(
        id=claim_id,
        framework=framework,
        api=_text(row, data, "api"),
        argument=argument_en,
        argument_zh=argument_zh,
        expected=expected,
        docs=docs,
        explanation_en=explanation_en,
        explanation_zh=explanation_zh,
        reproduce=reproduce + "\n",
        docs_say=docs_say,
        note_en=note_en,
        note_zh=note_zh,
        issues=tuple(issues),
        requires=requires,
        source_en=source_en,
        source_zh=source_zh,
        changes=changes,
        introduced=introduced,
    )


def _changes(row: _Row, data: object, expected: str, framework: str) -> tuple[Change, ...]:
    """The ``[[claims.changes]]`` of a row: in release order, each a different expectation."""
    if not isinstance(data, list) or not all(isinstance(item, Mapping) for item in data):
        raise row.error("changes", f"changes must be an array of tables, got {data!r}")
    if data and framework not in VERSIONED:
        raise row.error(
            "changes",
            f"changes are per release of {', '.join(VERSIONED)}: {framework} rows have none",
        )
    changes: list[Change] = []
    previous = expected
    for item in data:
        unknown = set(item) - _CHANGE_FIELDS
        if unknown:
            raise row.error(
                "changes",
                f"unknown field(s) {sorted(unknown)} in changes; known: {sorted(_CHANGE_FIELDS)}",
            )
        since = item.get("since")
        if not isinstance(since, str) or not _SINCE.match(since):
            raise row.error("changes", f"changes.since must be a release 'X.Y', got {since!r}")
        if changes and release_tuple(since) <= release_tuple(changes[-1].since):
            raise row.error("changes", f"changes must be in release order; {since} is not")
        new = _text(row, item, "expected", "changes.expected")
        if new not in VOCABULARY:
            raise row.error("changes", f"changes.expected {new!r} is not one of the vocabulary")
        if new == previous:
            raise row.error(
                "changes", f"the change since {since} expects {new!r}, which already held before"
            )
        note_en, note_zh = _bilingual(row, item, "note")
        reproduce = item.get("reproduce")
        if reproduce is not None:
            reproduce = _text(row, item, "reproduce", "changes.reproduce")
            if not reproduce.startswith(">>> "):
                raise row.error("changes", "changes.reproduce must be a '>>> ' example")
            reproduce += "\n"
        changes.append(Change(since, new, note_en, note_zh, reproduce))
        previous = new
    return tuple(changes)


def parse_claims(data: Mapping[str, Any]) -> list[Claim]:
    """Validate parsed TOML (a table with a ``claims`` array) and return the claims in order.

    Raises:
        ClaimsError: the table holds anything but a non-empty ``claims`` array of tables, a row
            is malformed, or two rows share an id; the message names the row and the field.
    """
    extra = sorted(set(data) - {"claims"})
    if extra:
        raise ClaimsError(
            f"unknown top-level key(s) {extra}; the file holds only [[claims]] rows",
            field=extra[0],
        )
    rows = data.get("claims")
    if rows is None:
        raise ClaimsError(
            "no [[claims]] rows: the file must hold a non-empty [[claims]] array", field="claims"
        )
    if not isinstance(rows, list) or not rows:
        raise ClaimsError(
            f"claims must be a non-empty array of tables ([[claims]] rows), got {rows!r}",
            field="claims",
        )
    claims = [_parse_one(index, row) for index, row in enumerate(rows, start=1)]
    first: dict[str, int] = {}
    for index, claim in enumerate(claims, start=1):
        if claim.id in first:
            raise ClaimsError(
                f"id {claim.id!r} appears twice: claim #{first[claim.id]} has it too",
                field="id",
                row=index,
                claim_id=claim.id,
            )
        first[claim.id] = index
    return claims
