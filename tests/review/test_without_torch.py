"""The checker needs no torch; the textbook's functions say how to get it where it is missing."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

import attention

NO_TORCH = """
import importlib.abc, sys

class NoTorch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch.") or name == "numpy":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, NoTorch())
"""


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", NO_TORCH + code], capture_output=True, text=True, check=False
    )


def test_the_checker_runs_where_torch_cannot_be_imported(tmp_path) -> None:
    model = tmp_path / "model.py"
    model.write_text(
        "import torch.nn.functional as F\n"
        "def f(q, k, v, ids, pad):\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=ids == pad)\n"
    )
    done = _run(
        "import sys\n"
        "from attention.review.__main__ import main\n"
        f"status = main([{str(model)!r}, '--format', 'json'])\n"
        "assert 'torch' not in sys.modules and 'numpy' not in sys.modules\n"
        "sys.exit(status)\n"
    )
    assert done.returncode == 1, done.stderr
    assert '"AM101"' in done.stdout


def test_the_flake8_plugin_imports_no_torch() -> None:
    done = _run(
        "import sys\n"
        "from attention.review.flake8_plugin import Plugin\n"
        "assert 'torch' not in sys.modules\n"
    )
    assert done.returncode == 0, done.stderr


def test_a_textbook_function_names_the_extra_where_torch_is_missing(monkeypatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a)
    )
    monkeypatch.delitem(attention.__dict__, "causal_allowed", raising=False)
    with pytest.raises(ModuleNotFoundError, match=r"attention-textbook\[torch\]"):
        attention.causal_allowed  # noqa: B018 - the attribute's lookup is what is tested
