"""The claims: what each framework API does with a mask, as data, loaded from ``semantics.toml``.

The data file is the single source of the table on the site and of the live check
``python -m attention.semantics``: one ``[[claims]]`` entry per row, with the API and argument it is
about, the expected value (one word of :data:`VOCABULARY`), an explanation in English and Chinese, a
link to the framework's documentation and a short ``>>>`` snippet that reproduces it.

In a source checkout the file is ``conf/semantics.toml``; an installed wheel carries a copy inside
this package.  :func:`load_claims` finds either, validates every field and raises
:class:`ClaimsError` naming the row and the field at the first problem.  The rows about other
frameworks (JAX, Flax, Keras, Transformers, flash-attn, xFormers) live beside it in
``conf/semantics-ecosystem.toml``, read by :func:`load_ecosystem_claims`; :func:`load_all_claims`
reads both and checks that no id appears in both.

>>> claims = load_claims()
>>> by_id = {claim.id: claim for claim in claims}
>>> by_id["sdpa.attn_mask.bool"].expected, by_id["mha.attn_mask.bool"].expected
('allowed', 'forbidden')
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from attention.semantics.registry import FRAMEWORK_MODULES

__all__ = [
    "DOCS_SAY_EXTRA",
    "REQUIREMENTS",
    "VOCABULARY",
    "Claim",
    "ClaimsError",
    "default_claims_path",
    "ecosystem_claims_path",
    "load_all_claims",
    "load_claims",
    "load_ecosystem_claims",
    "parse_claims",
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
}
"""Every value a claim may expect, with its meaning.  Probes answer in these words too."""

DOCS_SAY_EXTRA = ("unspecified",)
"""Values ``docs_say`` may hold besides :data:`VOCABULARY`: the documentation is silent."""

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
}
_REQUIRED = ("id", "api", "argument", "expected", "docs", "explanation", "reproduce")
_LANGUAGES = ("en", "zh")


class ClaimsError(ValueError):
    """The claims data is malformed; the message names the row and the field.

    >>> parse_claims({"claims": [{"id": "x"}]})
    Traceback (most recent call last):
    ...
    attention.semantics.claims.ClaimsError: claim #1 ('x'): missing field 'api'
    """


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
    >>> claim.expected, claim.docs_say, claim.disagrees_with_docs
    ('zeros', 'nan', True)
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

    @property
    def disagrees_with_docs(self) -> bool:
        """True when the documentation says something else than what the probe checks."""
        return self.docs_say is not None and self.docs_say != self.expected

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


def _claims_file(name: str) -> Path:
    """``name`` as packaged in a wheel, else from ``conf/`` of the checkout."""
    packaged = resources.files("attention.semantics").joinpath(name)
    if packaged.is_file():
        return Path(str(packaged))
    # src/attention/semantics/claims.py -> the repository root is three folders above "attention"
    checkout = Path(__file__).resolve().parents[3] / "conf" / name
    if checkout.is_file():
        return checkout
    raise ClaimsError(
        f"no claims file: neither a packaged attention/semantics/{name} nor {checkout} exists"
    )


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


def load_claims(path: Path | str | None = None) -> list[Claim]:
    """Read and validate the claims file (``path``, or :func:`default_claims_path`)."""
    source = Path(path) if path is not None else default_claims_path()
    with source.open("rb") as handle:
        data = tomllib.load(handle)
    return parse_claims(data)


def load_ecosystem_claims(path: Path | str | None = None) -> list[Claim]:
    """Read and validate the claims about other frameworks (default :func:`ecosystem_claims_path`).

    Every row must name its ``framework``, and none may be about torch: those rows belong in the
    PyTorch file.

    >>> sorted({claim.framework for claim in load_ecosystem_claims()})[:3]
    ['flash_attn', 'flax', 'jax']
    """
    source = Path(path) if path is not None else ecosystem_claims_path()
    with source.open("rb") as handle:
        data = tomllib.load(handle)
    claims = parse_claims(data)
    for index, row in enumerate(data["claims"], start=1):
        if "framework" not in row or row["framework"] == "torch":
            raise ClaimsError(
                f"claim #{index} ({row.get('id')!r}): a row of {source.name} must name its "
                "framework, and it may not be torch"
            )
    return claims


def load_all_claims(
    path: Path | str | None = None, ecosystem_path: Path | str | None = None
) -> list[Claim]:
    """The PyTorch claims followed by the claims about other frameworks; ids unique across both.

    >>> claims = load_all_claims()
    >>> len(claims) == len(load_claims()) + len(load_ecosystem_claims())
    True
    """
    claims = load_claims(path) + load_ecosystem_claims(ecosystem_path)
    seen: set[str] = set()
    for claim in claims:
        if claim.id in seen:
            raise ClaimsError(f"claim id {claim.id!r} appears in both claims files")
        seen.add(claim.id)
    return claims


def _text(row: str, data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ClaimsError(f"{row}: {key} must be a non-empty string, got {value!r}")
    return value.strip()


def _bilingual(row: str, data: Mapping[str, Any], key: str) -> tuple[str, str]:
    value = data.get(key)
    if not isinstance(value, Mapping) or set(value) != set(_LANGUAGES):
        raise ClaimsError(f"{row}: {key} must be a table with exactly the keys en and zh")
    return _text(row, value, "en"), _text(row, value, "zh")


def _parse_one(index: int, data: Mapping[str, Any]) -> Claim:
    row = f"claim #{index} ({data.get('id')!r})"
    unknown = set(data) - _FIELDS
    if unknown:
        raise ClaimsError(f"{row}: unknown field(s) {sorted(unknown)}; known: {sorted(_FIELDS)}")
    for key in _REQUIRED:
        if key not in data:
            raise ClaimsError(f"{row}: missing field {key!r}")
    claim_id = _text(row, data, "id")
    if not _ID.match(claim_id):
        raise ClaimsError(
            f"{row}: id must look like 'api.argument...' (lower case, dot-separated), "
            f"got {claim_id!r}"
        )
    expected = _text(row, data, "expected")
    if expected not in VOCABULARY:
        raise ClaimsError(f"{row}: expected {expected!r} is not one of {sorted(VOCABULARY)}")
    docs = _text(row, data, "docs")
    if not docs.startswith("https://"):
        raise ClaimsError(f"{row}: docs must be an https:// link, got {docs!r}")
    docs_say = data.get("docs_say")
    if docs_say is not None and docs_say not in (*VOCABULARY, *DOCS_SAY_EXTRA):
        raise ClaimsError(f"{row}: docs_say {docs_say!r} is not a vocabulary value")
    note_en = note_zh = None
    if "note" in data:
        note_en, note_zh = _bilingual(row, data, "note")
    if docs_say is not None and docs_say != expected and note_en is None:
        raise ClaimsError(f"{row}: docs_say differs from expected, so a note must explain it")
    issues = data.get("issues", [])
    if not isinstance(issues, list) or not all(
        isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in issues
    ):
        raise ClaimsError(f"{row}: issues must be a list of positive issue numbers")
    requires = data.get("requires")
    if requires is not None and requires not in REQUIREMENTS:
        raise ClaimsError(f"{row}: requires must be one of {REQUIREMENTS}, got {requires!r}")
    framework = data.get("framework", "torch")
    if framework not in FRAMEWORK_MODULES:
        raise ClaimsError(
            f"{row}: framework must be one of {sorted(FRAMEWORK_MODULES)}, got {framework!r}"
        )
    source_en = source_zh = None
    if "source" in data:
        source_en, source_zh = _bilingual(row, data, "source")
    if requires is not None and source_en is None and framework != "torch":
        raise ClaimsError(f"{row}: a row that cannot be verified everywhere must name its source")
    reproduce = _text(row, data, "reproduce")
    if not reproduce.startswith(">>> "):
        raise ClaimsError(f"{row}: reproduce must be a '>>> ' example that can run as a doctest")
    explanation_en, explanation_zh = _bilingual(row, data, "explanation")
    argument_en, argument_zh = _bilingual(row, data, "argument")
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
    )


def parse_claims(data: Mapping[str, Any]) -> list[Claim]:
    """Validate parsed TOML (a table with a ``claims`` array) and return the claims in order."""
    rows = data.get("claims")
    if not isinstance(rows, Sequence) or not rows:
        raise ClaimsError("the claims file must hold a non-empty [[claims]] array")
    claims = [_parse_one(index, row) for index, row in enumerate(rows, start=1)]
    seen: set[str] = set()
    for claim in claims:
        if claim.id in seen:
            raise ClaimsError(f"claim id {claim.id!r} appears twice")
        seen.add(claim.id)
    return claims
