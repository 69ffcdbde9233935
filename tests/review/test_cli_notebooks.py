"""Jupyter notebooks: their code cells are checked as one module, findings located by cell."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attention.review.__main__ import main
from attention.review.rules import by_code

IMPORTS = "%matplotlib inline\nimport torch\nimport torch.nn.functional as F\n"
ATTEND = (
    "def attend(q, k, v):\n"
    "    L = q.size(-2)\n"
    "    future = torch.triu(torch.ones(L, L, dtype=torch.bool), diagonal=1)\n"
    "    return F.scaled_dot_product_attention(q, k, v, attn_mask=future)\n"
)
FLAGGED = "    return F.scaled_dot_product_attention(q, k, v, attn_mask=future)\n"


def notebook(*cells: tuple[str, str], language: str = "python") -> str:
    """A notebook as Jupyter writes it (nbformat 4, one JSON string per source line)."""
    written = []
    for kind, source in cells:
        cell: dict[str, object] = {
            "cell_type": kind,
            "metadata": {},
            "source": source.splitlines(True),
        }
        if kind == "code":
            cell.update(execution_count=None, outputs=[])
        written.append(cell)
    document = {
        "cells": written,
        "metadata": {
            "kernelspec": {"display_name": language, "language": language, "name": language},
            "language_info": {"name": language},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"


WRONG_NOTEBOOK = notebook(
    ("markdown", "# Attention\n\nA causal mask.\n"),
    ("code", IMPORTS),
    ("code", "!pip install torch\nresult = !ls\n"),
    ("markdown", "The function:\n"),
    ("code", ATTEND),
    ("code", "%%bash\necho (not python\n"),
    ("code", "attend?\n??attend\nfor i in range(2):\n    %time attend(q, q, q)\n"),
)


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def wrong(tmp_path: Path) -> Path:
    path = tmp_path / "causal.ipynb"
    path.write_text(WRONG_NOTEBOOK, encoding="utf-8")
    return path


def file_line(path: Path, text: str) -> int:
    """The line of the notebook's file that holds ``text`` as a JSON string."""
    encoded = json.dumps(text, ensure_ascii=False)
    (number,) = [n for n, line in enumerate(path.read_text().splitlines(), 1) if encoded in line]
    return number


def test_a_notebook_given_directly_is_checked_and_located_by_cell(wrong, capsys) -> None:
    code, out, err = run([str(wrong)], capsys)
    assert (code, err) == (1, "")
    assert out.startswith(f"{wrong}:cell 5:4:62 AM101 ")
    assert "(line 3: `torch.triu(" in out  # the line in its cell


def test_notebooks_in_folders_are_checked_and_checkpoints_are_not(wrong, tmp_path, capsys) -> None:
    checkpoints = tmp_path / ".ipynb_checkpoints"
    checkpoints.mkdir()
    (checkpoints / "causal-checkpoint.ipynb").write_text(WRONG_NOTEBOOK)
    code, out, _ = run([str(tmp_path)], capsys)
    assert code == 1
    assert out.count(" AM101 ") == 1
    assert "causal.ipynb:cell 5:4:62 AM101" in out


def test_json_gives_the_cell_and_the_line_in_it(wrong, capsys) -> None:
    _, out, _ = run([str(wrong), "--format", "json"], capsys)
    (record,) = json.loads(out)["findings"]
    assert (record["path"], record["cell"], record["line"], record["column"]) == (
        str(wrong),
        5,
        4,
        62,
    )


def test_github_annotations_point_at_the_line_of_the_file_and_name_the_cell(wrong, capsys) -> None:
    _, out, _ = run([str(wrong), "--format", "github"], capsys)
    line = out.splitlines()[0]
    assert line.startswith(f"::error file={wrong},line={file_line(wrong, FLAGGED)},")
    assert "::cell 5, line 4, column 62: " in line


def test_sarif_points_at_the_line_of_the_file_and_names_the_cell(wrong, capsys) -> None:
    _, out, _ = run([str(wrong), "--format", "sarif"], capsys)
    (result,) = json.loads(out)["runs"][0]["results"]
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"].endswith("causal.ipynb")
    assert location["region"]["startLine"] == file_line(wrong, FLAGGED)
    assert result["message"]["text"].startswith("cell 5, line 4, column 62: ")


def test_magics_and_shell_lines_are_skipped_not_parsed(tmp_path, capsys) -> None:
    path = tmp_path / "magic.ipynb"
    path.write_text(
        notebook(
            ("code", "%%time\nthis is not python\n"),
            ("code", "!ls -la\nfiles = !ls\n%load_ext autoreload\nx?\n"),
            ("code", "if True:\n    %timeit 1 + 1\n"),
            ("code", by_code("AM101").right),
        )
    )
    assert run([str(path)], capsys) == (0, "", "")


def test_a_syntax_error_is_located_by_cell(tmp_path, capsys) -> None:
    path = tmp_path / "broken.ipynb"
    path.write_text(
        notebook(("code", "import torch\n"), ("markdown", "x"), ("code", "x = 1\ndef f(:\n"))
    )
    code, _, err = run([str(path)], capsys)
    assert code == 2
    assert err.startswith(f"{path}:cell 3:2:")
    assert "syntax error" in err
    assert err.count("\n") == 1


def test_a_file_that_is_not_a_notebook_is_named(tmp_path, capsys) -> None:
    path = tmp_path / "fake.ipynb"
    path.write_text("import torch\n")
    (tmp_path / "m.py").write_text(by_code("AM101").wrong)
    code, out, err = run([str(path), str(tmp_path / "m.py")], capsys)
    assert code == 2
    assert out.count(" AM101 ") == 1
    assert err.startswith(f"{path}: not a Jupyter notebook")
    assert err.count("\n") == 1


def test_a_notebook_of_another_language_is_left_alone(tmp_path, capsys) -> None:
    path = tmp_path / "r.ipynb"
    path.write_text(notebook(("code", "x <- c(1, 2)\n"), language="R"))
    assert run([str(path)], capsys) == (0, "", "")


def test_an_inline_ignore_in_a_cell_is_honoured(tmp_path, capsys) -> None:
    quiet = ATTEND.replace("attn_mask=future)", "attn_mask=future)  # attention: ignore[AM101]")
    path = tmp_path / "quiet.ipynb"
    path.write_text(notebook(("code", IMPORTS), ("code", quiet)))
    assert run([str(path)], capsys)[0] == 0


def test_fix_leaves_a_notebook_byte_for_byte(tmp_path, capsys) -> None:
    fixable = "import torch  # fp16\n\ndef f(scores, forbidden):\n    return scores.masked_fill(forbidden, -1e9).softmax(-1)\n"
    path = tmp_path / "fill.ipynb"
    path.write_text(notebook(("code", fixable)))
    before = path.read_bytes()
    code, out, _ = run([str(path), "--fix"], capsys)
    assert path.read_bytes() == before
    assert code == 1
    assert "fill.ipynb:cell 1:4:" in out
