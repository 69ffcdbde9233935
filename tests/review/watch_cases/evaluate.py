"""The watch's recall on value-only mask bugs written from public bug reports.

Each case under ``development/`` and ``heldout/`` is a module with ``SOURCE`` (the report's
address), ``wrong()`` (the mistake, as the report shows it) and ``right()`` (its fix); both
return a tensor.  A case is *reproduced* when the two results differ on the installed torch
(or the wrong one holds NaN where the right one holds none); it is *found* when the watch
reports anything on ``wrong()``, and a *false finding* when it reports anything on ``right()``.
Every third case (by number) is held out: the rules were not tuned on those.

``python tests/review/watch_cases/evaluate.py --out docs/_data/watch-recall.json`` writes the
record that ``tests/review/test_watch_cases.py`` holds the current code to.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import warnings
from pathlib import Path
from types import ModuleType

import torch

from attention.review.watch import watch

HERE = Path(__file__).parent
SPLITS = ("development", "heldout")


def cases() -> dict[str, list[Path]]:
    """Each split's case files, sorted."""
    return {split: sorted((HERE / split).glob("c*.py")) for split in SPLITS}


def load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"watch_case_{path.stem}", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _differs(wrong: torch.Tensor, right: torch.Tensor) -> bool:
    if wrong.shape != right.shape:
        return True
    if bool(wrong.isnan().any()) and not bool(right.isnan().any()):
        return True
    return not torch.allclose(wrong.float(), right.float(), atol=1e-4, equal_nan=True)


def _codes(call: object) -> list[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with watch(warn=False) as seen:
            call()  # type: ignore[operator]
    return sorted({finding.code for finding in seen.findings})


def evaluate(path: Path) -> dict[str, object]:
    """What the watch says on one case, and whether the case shows its bug here."""
    module = load(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.manual_seed(0)
        wrong = module.wrong().detach()
        torch.manual_seed(0)
        right = module.right().detach()
    return {
        "source": module.SOURCE,
        "reproduced": _differs(wrong, right),
        "found": _codes(module.wrong),
        "false_findings": _codes(module.right),
    }


def record() -> dict[str, object]:
    """Every case's result and each split's recall."""
    splits: dict[str, object] = {}
    for split, paths in cases().items():
        results = {path.stem: evaluate(path) for path in paths}
        found = sum(1 for r in results.values() if r["found"])
        splits[split] = {
            "cases": len(results),
            "found": found,
            "recall": round(found / len(results), 3) if results else None,
            "false_findings_on_fixes": sum(1 for r in results.values() if r["false_findings"]),
            "results": results,
        }
    return {"schema": 1, "torch": torch.__version__.split("+")[0], "splits": splits}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path)
    options = parser.parse_args()
    found = record()
    for split, data in found["splits"].items():  # type: ignore[attr-defined]
        print(
            f"{split:12s} {data['found']}/{data['cases']} found (recall {data['recall']}),"
            f" {data['false_findings_on_fixes']} fixes with a finding"
        )
        for name, result in data["results"].items():
            mark = "found" if result["found"] else "-----"
            print(
                f"  {mark} {name:52s} {','.join(result['found'])}"
                f"{'' if result['reproduced'] else '  NOT REPRODUCED'}"
                f"{'  FALSE ' + ','.join(result['false_findings']) if result['false_findings'] else ''}"
            )
    if options.out is not None:
        options.out.write_text(json.dumps(found, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
