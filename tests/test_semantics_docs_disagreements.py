"""The cross-framework page's list of rows where a library's documentation says otherwise.

A library recorded release by release lists only the releases whose value differs from what its
documentation says: onnxruntime's empty rows gave NaN, then uniform weights, and from 1.28 on
the zeros that the ONNX definition (its opset-23 errata) says, so its row names the older
releases and not the newest, which agrees.
"""

from __future__ import annotations

import sys
from pathlib import Path

from docutils import nodes

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

import semantics_table  # noqa: E402  (docs/_ext is not a package)

from attention.semantics.claims import load_ecosystem_claims  # noqa: E402

LABELS = {
    "observed": "Observed: {}.",
    "differs_on": "Observed {value} on torch {releases}.",
    "differs_on_library": "Observed {value} on {framework} {releases}.",
}


def _text(parts: list[nodes.Node]) -> str:
    return "".join(part.astext() for part in parts)


def _claim(claim_id: str):  # type: ignore[no-untyped-def]
    return next(
        c for c in load_ecosystem_claims(semantics_table.ECOSYSTEM_FILE) if c.id == claim_id
    )


def test_a_library_row_names_the_releases_that_differ_from_its_documentation() -> None:
    records = semantics_table._records()
    claim = _claim("onnxruntime.Attention.fully_masked_row")
    text = _text(semantics_table._disagreement(claim, LABELS, records))
    assert text == (
        "Observed nan on onnxruntime 1.23.2. Observed uniform on onnxruntime 1.24.4–1.27.0."
    )
    assert "zeros" not in text  # the newest releases agree with the documentation
