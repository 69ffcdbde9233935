"""What each PyTorch attention API does with masks, stated as data and checked on the live library.

The claims live in ``conf/semantics.toml`` (:mod:`attention.semantics.claims`); one probe per
claim calls the real API on a tiny hand-made input (:mod:`attention.semantics.probes`);
:mod:`attention.semantics.report` compares the two.  Run it on your own torch with
``python -m attention.semantics`` (``--json`` for machine-readable output).

>>> from attention.semantics import load_claims, run
>>> [row.observed for row in run(load_claims(), only=["mha.attn_mask.bool"])]
['forbidden']
"""

from attention.semantics.claims import VOCABULARY, Claim, ClaimsError, load_claims
from attention.semantics.report import RowResult, exit_status, run, to_json

__all__ = [
    "VOCABULARY",
    "Claim",
    "ClaimsError",
    "RowResult",
    "exit_status",
    "load_claims",
    "run",
    "to_json",
]
