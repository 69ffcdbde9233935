"""python -m attention.review: formats, exit codes, stdin, configuration, ignores, fixes."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from attention.review.__main__ import main
from attention.review.links import rule_url
from attention.review.rules import by_code

WRONG = by_code("AM101").wrong
FIXABLE = by_code("AM202").wrong


def run(args: list[str], capsys: pytest.CaptureFixture[str], stdin: str | None = None):
    if stdin is not None:
        sys.stdin = io.StringIO(stdin)
    try:
        code = main(args)
    finally:
        sys.stdin = sys.__stdin__
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def wrong(tmp_path: Path) -> Path:
    path = tmp_path / "model.py"
    path.write_text(WRONG)
    return path


def test_text_finding_says_where_what_and_the_row(wrong, capsys) -> None:
    code, out, _ = run([str(wrong)], capsys)
    assert code == 1
    first = out.splitlines()[0]
    assert first.startswith(f"{wrong}:8:")
    assert " AM101 " in first
    assert "inferred: `future` is True above the diagonal: the future" in out
    assert "(line 7: `torch.triu(" in out
    assert "#sdpa.attn_mask.bool" in out


def test_clean_file_exits_zero(tmp_path, capsys) -> None:
    path = tmp_path / "ok.py"
    path.write_text(by_code("AM101").right)
    assert run([str(path)], capsys)[0] == 0


def test_empty_file_list_exits_zero(capsys) -> None:
    assert run([], capsys) == (0, "", "")


def test_exit_zero(wrong, capsys) -> None:
    assert run([str(wrong), "--exit-zero"], capsys)[0] == 0


def test_stdin(capsys) -> None:
    code, out, _ = run(["-"], capsys, stdin=WRONG)
    assert code == 1
    assert out.startswith("<stdin>:8:")


def test_folder_is_read_recursively(tmp_path, capsys) -> None:
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "sub" / "m.py").write_text(WRONG)
    (tmp_path / "pkg" / "notes.txt").write_text(WRONG)
    code, out, _ = run([str(tmp_path / "pkg")], capsys)
    assert code == 1
    assert out.count(" AM101 ") == 1


def test_json(wrong, capsys) -> None:
    code, out, _ = run([str(wrong), "--format", "json"], capsys)
    (record,) = json.loads(out)["findings"]
    assert code == 1
    assert record["code"] == "AM101"
    assert record["severity"] == "error"
    assert record["line"] == 8
    assert record["rows"][0]["id"] == "sdpa.attn_mask.bool"
    assert record["rule_url"] == rule_url("AM101")


def test_github_annotations(wrong, capsys) -> None:
    _, out, _ = run([str(wrong), "--format", "github"], capsys)
    line = out.splitlines()[0]
    assert line.startswith(f"::error file={wrong},line=8,col=")
    assert "title=AM101 forbidden-mask-read-as-allowed::" in line
    assert "\n" not in line


def test_sarif(wrong, capsys) -> None:
    _, out, _ = run([str(wrong), "--format", "sarif"], capsys)
    log = json.loads(out)
    assert log["version"] == "2.1.0"
    driver = log["runs"][0]["tool"]["driver"]
    rules = {rule["id"]: rule for rule in driver["rules"]}
    assert rules["AM101"]["helpUri"] == rule_url("AM101")
    (result,) = log["runs"][0]["results"]
    assert result["ruleId"] == "AM101"
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 8


def test_base_url_and_version(wrong, capsys) -> None:
    _, out, _ = run(
        [str(wrong), "--base-url", "https://example.org/", "--site-version", "9.9"], capsys
    )
    assert "https://example.org/en/v9.9/reference/mask-semantics.html#sdpa.attn_mask.bool" in out


def test_select_and_ignore(wrong, capsys) -> None:
    assert run([str(wrong), "--ignore", "AM1"], capsys)[0] == 0
    assert run([str(wrong), "--select", "AM2"], capsys)[0] == 0
    assert run([str(wrong), "--select", "AM101"], capsys)[0] == 1


def test_unknown_code_is_a_usage_error(wrong, capsys) -> None:
    code, _, err = run([str(wrong), "--select", "XY1"], capsys)
    assert code == 2
    assert err.count("\n") == 1
    assert "XY1" in err


@pytest.mark.parametrize(
    "comment",
    ["  # noqa: AM101", "  # noqa", "  # attention: ignore[AM101]", "  # attention: ignore"],
)
def test_inline_ignores(tmp_path, capsys, comment) -> None:
    lines = WRONG.splitlines()
    lines[7] += comment
    path = tmp_path / "m.py"
    path.write_text("\n".join(lines) + "\n")
    assert run([str(path)], capsys)[0] == 0


def test_inline_ignore_of_another_code_keeps_the_finding(tmp_path, capsys) -> None:
    lines = WRONG.splitlines()
    lines[7] += "  # noqa: AM202"
    path = tmp_path / "m.py"
    path.write_text("\n".join(lines) + "\n")
    assert run([str(path)], capsys)[0] == 1


def test_pyproject_configuration(tmp_path, capsys) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.attention-review]\nper-file-ignores = { "legacy/*" = ["AM101"] }\n'
        'base-url = "https://mirror.example/"\n'
    )
    (tmp_path / "legacy").mkdir()
    (tmp_path / "legacy" / "old.py").write_text(WRONG)
    (tmp_path / "new.py").write_text(WRONG)
    code, out, _ = run([str(tmp_path)], capsys)
    assert code == 1
    assert "old.py" not in out
    assert "new.py" in out
    assert "https://mirror.example/en/" in out


def test_bad_configuration_is_one_line(tmp_path, capsys) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.attention-review]\nselect = 3\n")
    (tmp_path / "m.py").write_text(WRONG)
    code, _, err = run([str(tmp_path / "m.py")], capsys)
    assert code == 2
    assert err.count("\n") == 1
    assert "select" in err


def test_missing_path_is_one_line(tmp_path, capsys) -> None:
    code, _, err = run([str(tmp_path / "absent.py")], capsys)
    assert code == 2
    assert err.count("\n") == 1
    assert "absent.py" in err


def test_syntax_error_is_one_line_not_a_traceback(tmp_path, capsys) -> None:
    path = tmp_path / "broken.py"
    path.write_text("import torch\ndef f(:\n    torch.softmax(x, -1)\n")
    code, _, err = run([str(path)], capsys)
    assert code == 2
    assert err.count("\n") == 1
    assert "Traceback" not in err
    assert "broken.py:" in err


def test_diff_shows_the_safe_rewrite_and_changes_nothing(tmp_path, capsys) -> None:
    path = tmp_path / "m.py"
    path.write_text(FIXABLE)
    code, out, _ = run([str(path), "--diff"], capsys)
    assert "-        scores = scores.masked_fill(forbidden, -1e9)" in out
    assert "+        scores = scores.masked_fill(forbidden, torch.finfo(scores.dtype).min)" in out
    assert path.read_text() == FIXABLE
    assert code == 1


def test_fix_rewrites_the_file_and_the_finding_is_gone(tmp_path, capsys) -> None:
    path = tmp_path / "m.py"
    path.write_text(FIXABLE)
    code, _, _ = run([str(path), "--fix"], capsys)
    assert code == 0
    assert path.read_text() == by_code("AM202").right
    assert run([str(path)], capsys)[0] == 0


def test_fix_leaves_other_findings_as_text(wrong, capsys) -> None:
    before = wrong.read_text()
    assert run([str(wrong), "--fix"], capsys)[0] == 1
    assert wrong.read_text() == before


def test_module_entry_point() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "attention.review", "-"],
        input=WRONG,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert " AM101 " in done.stdout


def test_a_file_named_twice_is_reported_once(wrong, capsys) -> None:
    _, out, _ = run([str(wrong), str(wrong), str(wrong.parent)], capsys)
    assert out.count(" AM101 ") == 1


def test_jobs_give_the_same_findings_in_the_same_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for index in range(6):
        (tmp_path / f"m{index}.py").write_text(WRONG if index % 2 else "x = 1\n")
    (tmp_path / "broken.py").write_text("def (:\n  softmax(\n")
    one = run(["--jobs", "1", str(tmp_path)], capsys)
    many = run(["--jobs", "3", str(tmp_path)], capsys)
    assert one == many
    code, out, err = one
    assert code == 2
    assert out.count("AM101") == 3
    assert "syntax error" in err


@pytest.mark.parametrize("value", ["0", "two"])
def test_jobs_must_be_a_positive_number(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as raised:
        main(["--jobs", value, "x.py"])
    assert raised.value.code == 2
    assert "--jobs takes" in capsys.readouterr().err
