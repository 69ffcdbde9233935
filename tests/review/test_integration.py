"""The checker as other repositories use it: the pre-commit hook's definition."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).parents[2]


def test_pre_commit_hook_runs_the_checker_on_python_files() -> None:
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "attention-review"
    assert hook["entry"] == "python -m attention.review"
    assert hook["language"] == "python"
    assert hook["types_or"] == ["python", "pyi", "jupyter"]


def test_the_hook_entry_takes_file_names_as_pre_commit_passes_them(tmp_path: Path) -> None:
    clean = tmp_path / "clean.py"
    clean.write_text("import torch\nx = torch.softmax(torch.ones(2, 2), dim=-1)\n")
    done = subprocess.run([*hook_entry(), str(clean)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def hook_entry() -> list[str]:
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    program, *args = hook["entry"].split()
    return [sys.executable if program == "python" else program, *args]


def test_flake8_finds_the_plugin_by_its_entry_point() -> None:
    import importlib
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    target = project["entry-points"]["flake8.extension"]["AM"]
    module, name = target.split(":")
    plugin = getattr(importlib.import_module(module), name)
    source = (
        "import torch  # fp16\ndef f(scores, mask):\n    return scores.masked_fill(mask, -1e9)\n"
    )
    found = list(plugin(None, source.splitlines(True), "m.py").run())
    assert [(line, code.split()[0]) for line, _, code, _ in found] == [(3, "AM202")]
    assert list(plugin(None, ["y = torch.softmax(\n"], "bad.py").run()) == []
