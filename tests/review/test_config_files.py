"""Configuration per file: the nearest pyproject.toml or attention-review.toml above each file.

As ruff finds its own: a ``pyproject.toml`` counts only when it has ``[tool.attention-review]``,
an ``attention-review.toml`` always counts (and wins over a pyproject.toml in the same folder),
``--config FILE`` replaces them all, and the flake8 plugin reads the same files and comments.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from attention.review.__main__ import main
from attention.review.flake8_plugin import Plugin
from attention.review.rules import by_code

WRONG = by_code("AM101").wrong  # AM101 on line 8
FILL = by_code("AM202").wrong  # AM202 on line 6


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def project(folder: Path, config: str | None, name: str = "pyproject.toml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    if config is not None:
        (folder / name).write_text(config)
    (folder / "model.py").write_text(WRONG)
    return folder / "model.py"


QUIET = '[tool.attention-review]\nignore = ["AM101"]\n'


def test_two_projects_in_one_call_each_take_their_own(tmp_path, capsys) -> None:
    quiet = project(tmp_path / "quiet", QUIET)
    loud = project(tmp_path / "loud", "[tool.attention-review]\n")
    for order in ([quiet, loud], [loud, quiet]):
        code, out, _ = run([str(path) for path in order], capsys)
        assert code == 1
        assert f"{loud}:8:" in out
        assert str(quiet) not in out


def test_a_pyproject_without_the_table_is_passed_over(tmp_path, capsys) -> None:
    (tmp_path / "pyproject.toml").write_text(QUIET)
    model = project(tmp_path / "sub", '[project]\nname = "sub"\n')
    assert run([str(model)], capsys)[0] == 0


def test_attention_review_toml_counts_and_wins_in_its_folder(tmp_path, capsys) -> None:
    model = project(tmp_path, 'ignore = ["AM101"]\n', name="attention-review.toml")
    (tmp_path / "pyproject.toml").write_text('[tool.attention-review]\nselect = ["AM1"]\n')
    assert run([str(model)], capsys)[0] == 0


def test_the_nearest_configuration_wins(tmp_path, capsys) -> None:
    (tmp_path / "pyproject.toml").write_text(QUIET)
    inner = project(tmp_path / "inner", "[tool.attention-review]\n")
    outer = project(tmp_path, None)
    code, out, _ = run([str(tmp_path)], capsys)
    assert code == 1
    assert f"{inner}:8:" in out
    assert f"{outer}:8:" not in out


def test_per_file_ignores_are_relative_to_their_configuration(tmp_path, capsys) -> None:
    sub = tmp_path / "lib"
    (sub / "legacy").mkdir(parents=True)
    (sub / "pyproject.toml").write_text(
        '[tool.attention-review]\nper-file-ignores = { "legacy/*" = ["AM1"] }\n'
    )
    (sub / "legacy" / "old.py").write_text(WRONG)
    (tmp_path / "legacy").mkdir()
    (tmp_path / "legacy" / "other.py").write_text(WRONG)
    code, out, _ = run([str(tmp_path)], capsys)
    assert code == 1
    assert "old.py" not in out
    assert "other.py:8:" in out


def test_config_option_replaces_every_found_configuration(tmp_path, capsys) -> None:
    model = project(tmp_path / "p", QUIET)
    chosen = tmp_path / "strict.toml"
    chosen.write_text('select = ["AM1"]\n')
    code, out, _ = run([str(model), "--config", str(chosen)], capsys)
    assert code == 1
    assert f"{model}:8:" in out


def test_config_option_takes_a_pyproject_too(tmp_path, capsys) -> None:
    model = project(tmp_path / "p", None)
    chosen = tmp_path / "other" / "pyproject.toml"
    chosen.parent.mkdir()
    chosen.write_text(QUIET)
    assert run([str(model), "--config", str(chosen)], capsys)[0] == 0


def test_a_missing_config_option_file_is_a_usage_error(tmp_path, capsys) -> None:
    model = project(tmp_path, None)
    code, out, err = run([str(model), "--config", str(tmp_path / "absent.toml")], capsys)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert "absent.toml" in err


def test_a_broken_configuration_leaves_the_other_projects_checked(tmp_path, capsys) -> None:
    broken = project(tmp_path / "broken", "[tool.attention-review]\nselect = 3\n")
    good = project(tmp_path / "good", None)
    code, out, err = run([str(broken), str(good)], capsys)
    assert code == 2
    assert f"{good}:8:" in out
    assert err.count("\n") == 1
    assert "select" in err
    assert "broken" in err


def test_stdin_takes_the_configuration_of_the_current_folder(tmp_path, capsys, monkeypatch) -> None:
    (tmp_path / "pyproject.toml").write_text(QUIET)
    monkeypatch.setattr("sys.stdin", _bytes_stdin(WRONG.encode()))
    with contextlib.chdir(tmp_path):
        assert run(["-"], capsys)[0] == 0


def _bytes_stdin(data: bytes):
    import io

    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")


# -- the flake8 plugin reads the same --------------------------------------------------------------


def flake8_codes(path: Path) -> list[str]:
    lines = path.read_text().splitlines(True)
    return [message.split()[0] for _, _, message, _ in Plugin(None, lines, str(path)).run()]


def test_flake8_honours_the_attention_ignore_comment(tmp_path) -> None:
    path = tmp_path / "m.py"
    path.write_text(FILL.replace("-1e9)", "-1e9)  # attention: ignore[AM202]"))
    assert flake8_codes(path) == []


def test_flake8_honours_the_configuration(tmp_path) -> None:
    (tmp_path / "attention-review.toml").write_text('ignore = ["AM2"]\n')
    path = tmp_path / "m.py"
    path.write_text(FILL)
    assert flake8_codes(path) == []
    (tmp_path / "attention-review.toml").write_text('per-file-ignores = { "other.py" = ["AM2"] }\n')
    assert flake8_codes(path) == ["AM202"]


def test_flake8_without_a_configuration_reports(tmp_path) -> None:
    path = tmp_path / "m.py"
    path.write_text(FILL)
    assert flake8_codes(path) == ["AM202"]


def test_an_unknown_code_is_refused_naming_the_rules_that_exist() -> None:
    """The range in the message comes from the rules: it named AM803 after AM804 was added."""
    from attention.review.config import ConfigError, codes
    from attention.review.rules import RULES

    last = max(rule.code for rule in RULES)
    with pytest.raises(
        ConfigError, match=rf"'AM999' matches no rule \(the rules are AM101…{last}\)"
    ):
        codes("select", ["AM999"])
