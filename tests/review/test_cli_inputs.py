"""What the checker is given: every path is checked or named, never a traceback.

Exit status 0 means no finding, 1 findings, 2 something that could not be checked; a path that
cannot be checked is named on standard error in one line, and every other path is still checked.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from attention.review.__main__ import main
from attention.review.check import could_hold_finding
from attention.review.rules import by_code
from attention.review.syntax import NestingError, check_syntax, parse

WRONG = by_code("AM101").wrong  # one AM101 on line 8
CLEAN = by_code("AM101").right


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def checker(
    *args: str, stdin: bytes = b"", cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """The checker as a command, so a crash of the process is seen as one."""
    done = subprocess.run(
        [sys.executable, "-m", "attention.review", *args],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        check=False,
    )
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
    )


def one_line_naming(err: str, *words: str) -> None:
    assert "Traceback" not in err, err
    assert err.count("\n") == 1, err
    for word in words:
        assert word in err, err


@pytest.fixture
def wrong(tmp_path: Path) -> Path:
    path = tmp_path / "wrong.py"
    path.write_text(WRONG)
    return path


# -- paths ----------------------------------------------------------------------------------------


def test_a_missing_path_beside_good_ones_leaves_them_checked(wrong, tmp_path, capsys) -> None:
    code, out, err = run([str(tmp_path / "deleted.py"), str(wrong)], capsys)
    assert code == 2
    assert out.count(" AM101 ") == 1
    one_line_naming(err, "deleted.py", "no such file")


def test_a_symlink_loop_given_directly_is_named(wrong, tmp_path, capsys) -> None:
    loop = tmp_path / "loop.py"
    loop.symlink_to(loop)
    code, out, err = run([str(loop), str(wrong)], capsys)
    assert code == 2
    assert out.count(" AM101 ") == 1
    one_line_naming(err, "loop.py", "symbolic link loop")


def test_a_symlink_loop_inside_a_folder_is_named(wrong, tmp_path, capsys) -> None:
    (tmp_path / "a.py").symlink_to(tmp_path / "b.py")
    (tmp_path / "b.py").symlink_to(tmp_path / "a.py")
    code, out, err = run([str(tmp_path)], capsys)
    assert code == 2
    assert out.count(" AM101 ") == 1
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 2, err
    assert all("symbolic link loop" in line for line in lines), err


@pytest.mark.parametrize("given", ["directly", "in a folder"])
def test_a_dangling_link_is_named(given, wrong, tmp_path, capsys) -> None:
    link = tmp_path / "gone.py"
    link.symlink_to(tmp_path / "deleted.py")
    paths = [str(link), str(wrong)] if given == "directly" else [str(tmp_path)]
    code, out, err = run(paths, capsys)
    assert code == 2
    assert out.count(" AM101 ") == 1
    one_line_naming(err, "gone.py", "deleted.py")


def test_a_folder_named_like_a_module_is_walked_not_read(tmp_path, capsys) -> None:
    folder = tmp_path / "weights.py"
    folder.mkdir()
    (folder / "inner.py").write_text(WRONG)
    for given in (tmp_path, folder):
        code, out, err = run([str(given)], capsys)
        assert (code, err) == (1, "")
        assert out.count(" AM101 ") == 1


def _unreadable_run(path: Path, wrong: Path) -> subprocess.CompletedProcess[str]:
    if os.geteuid() != 0:
        return checker(str(path), str(wrong))
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("root reads every file, and setpriv (util-linux) is not here to drop that")
    # root without CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH reads by the file's mode like any user
    done = subprocess.run(
        [
            setpriv,
            "--bounding-set=-dac_override,-dac_read_search",
            "--inh-caps=-all",
            sys.executable,
            "-m",
            "attention.review",
            str(path),
            str(wrong),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    return done


def test_an_unreadable_file_is_named(wrong, tmp_path) -> None:
    secret = tmp_path / "secret.py"
    secret.write_text(WRONG)
    secret.chmod(0)
    try:
        done = _unreadable_run(secret, wrong)
    finally:
        secret.chmod(0o644)
    assert done.returncode == 2, done.stderr
    assert done.stdout.count(" AM101 ") == 1
    one_line_naming(done.stderr, "secret.py", "Permission denied")


def test_the_same_file_named_twice_is_checked_once(wrong, capsys) -> None:
    with contextlib.chdir(wrong.parent):
        code, out, _ = run(["wrong.py", "./wrong.py", str(wrong), "."], capsys)
    assert code == 1
    assert out.count(" AM101 ") == 1


def test_stub_files_are_checked_given_directly_and_in_folders(tmp_path, capsys) -> None:
    (tmp_path / "pkg").mkdir()
    stub = tmp_path / "pkg" / "model.pyi"
    stub.write_text(WRONG)
    assert run([str(stub)], capsys)[0] == 1
    code, out, _ = run([str(tmp_path)], capsys)
    assert code == 1
    assert "model.pyi:8:" in out


# -- bytes -----------------------------------------------------------------------------------------


def test_non_utf8_stdin_is_one_line() -> None:
    done = checker("-", stdin=b"import torch\nname = '\xe9t\xe9'\n")
    assert done.returncode == 2
    one_line_naming(done.stderr, "<stdin>", "UTF-8", "line 2")


def test_a_latin1_file_with_a_coding_line_is_checked(tmp_path, capsys) -> None:
    path = tmp_path / "latin.py"
    path.write_bytes(b"# -*- coding: latin-1 -*-\n# r\xe9sum\xe9 of the model\n" + WRONG.encode())
    code, out, err = run([str(path)], capsys)
    assert (code, err) == (1, "")
    assert f"{path}:10:" in out


def test_a_non_utf8_file_without_a_coding_line_is_named_with_its_line(
    wrong, tmp_path, capsys
) -> None:
    path = tmp_path / "latin.py"
    path.write_bytes(b"import torch\n\n# r\xe9sum\xe9\n")
    code, out, err = run([str(path), str(wrong)], capsys)
    assert code == 2
    assert out.count(" AM101 ") == 1
    one_line_naming(err, "latin.py", "line 3", "UTF-8")


def test_stdin_with_a_coding_line_is_decoded_by_it() -> None:
    source = b"# coding: latin-1\n# caf\xe9\n" + WRONG.encode()
    done = checker("-", stdin=source)
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith("<stdin>:10:")


def test_a_byte_order_mark_is_read_as_utf8(tmp_path, capsys) -> None:
    path = tmp_path / "bom.py"
    path.write_bytes(b"\xef\xbb\xbf" + WRONG.encode())
    code, out, _ = run([str(path)], capsys)
    assert code == 1
    assert f"{path}:8:" in out


def test_null_bytes_are_named(wrong, tmp_path, capsys) -> None:
    path = tmp_path / "nul.py"
    path.write_bytes(b"import torch\nx = 1\x00\n")
    code, out, err = run([str(path), str(wrong)], capsys)
    assert code == 2
    assert out.count(" AM101 ") == 1
    one_line_naming(err, "nul.py", "null")


# -- parsing ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        "def f(:\n    pass\n",  # no attention API named: parsed all the same
        "x = 1\ny = (\n",
        "x = 1\n  y = 2\n",
        "import torch\nreturn torch.softmax(x, -1) +\n",
    ],
)
def test_syntax_errors_are_reported_where_cpython_reports_them(
    source, wrong, tmp_path, capsys
) -> None:
    path = tmp_path / "broken.py"
    path.write_text(source)
    with pytest.raises(SyntaxError) as raised:
        compile(source, str(path), "exec")
    code, out, err = run([str(path), str(wrong)], capsys)
    assert code == 2
    assert out.count(" AM101 ") == 1
    one_line_naming(err, f"{path}:{raised.value.lineno}:{raised.value.offset}: syntax error")


NESTED = {
    "parentheses 2000": "import torch\ny = torch.softmax("
    + "(" * 2000
    + "x"
    + ")" * 2000
    + ", -1)\n",
    "parentheses 5000": "import torch\ny = " + "f(" * 5000 + "x" + ")" * 5000 + "\n",
    "unary 20000": "import torch\ny = torch.softmax(" + "-" * 20000 + "x, -1)\n",
    "conditional 20000": "import torch\ny = torch.softmax(" + "a if b else " * 20000 + "c, -1)\n",
    "sum 5000": "import torch\ny = torch.softmax(" + "+".join(["s"] * 5000) + ", -1)\n",
    "attributes 5000": "import torch\ny = s" + ".float()" * 5000 + ".softmax(-1)\n",
}


@pytest.mark.parametrize("name", sorted(NESTED))
def test_deep_nesting_is_one_line_not_a_crash(name, tmp_path) -> None:
    (tmp_path / "deep.py").write_text(NESTED[name])
    (tmp_path / "wrong.py").write_text(WRONG)
    done = checker("deep.py", "wrong.py", "--jobs", "1", cwd=tmp_path)
    assert done.returncode == 2, done.stderr[-500:]
    assert done.stdout.count(" AM101 ") == 1
    one_line_naming(done.stderr, "deep.py")


def test_deep_nesting_is_no_crash_where_the_host_raised_the_recursion_limit(tmp_path) -> None:
    """A host process (a linter, a test runner) may raise the limit: CPython's parser then recurses
    as deep as the expression and overflows the C stack (a segmentation fault) on 300,000 terms."""
    (tmp_path / "deep.py").write_text(
        "import torch\ny = torch.softmax(" + "+".join(["s"] * 300_000) + ", -1)\n"
    )
    script = (
        "import sys\n"
        "sys.setrecursionlimit(10**7)\n"
        "from attention.review.__main__ import main\n"
        "sys.exit(main(['deep.py', '--jobs', '1']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert done.returncode == 2, (done.returncode, done.stderr[-500:])
    one_line_naming(done.stderr, "deep.py")


def _plain(source: str) -> str:
    """The same nesting in a module that names no attention API (only its syntax is checked)."""
    plain = source.replace("import torch\n", "").replace("torch.softmax(", "g(")
    plain = plain.replace(".softmax(-1)", ".g(-1)")
    assert not could_hold_finding(plain)
    return plain


@pytest.mark.parametrize("name", sorted(NESTED))
def test_deep_nesting_where_only_the_syntax_is_checked_is_one_line_not_a_crash(
    name, tmp_path
) -> None:
    """Where this Python's compiler reads the file (3.13 compiles a sum of 5,000 terms that 3.11
    and 3.12 refuse), it is a valid module with nothing to check; where it refuses it, one line."""
    (tmp_path / "deep.py").write_text(_plain(NESTED[name]))
    (tmp_path / "wrong.py").write_text(WRONG)
    cpython = subprocess.run(
        [sys.executable, "-c", "compile(open('deep.py').read(), 'deep.py', 'exec')"],
        cwd=tmp_path,
        capture_output=True,
    )
    done = checker("deep.py", "wrong.py", "--jobs", "1", cwd=tmp_path)
    assert done.stdout.count(" AM101 ") == 1
    if cpython.returncode == 0:
        assert (done.returncode, done.stderr) == (1, "")
    else:
        assert done.returncode == 2, done.stderr[-500:]
        one_line_naming(done.stderr, "deep.py")


@pytest.mark.parametrize(
    "source",
    [
        "return 1\n",  # the compiler refuses it, the parser does not
        "from __future__ import braces_please\n",
        "x = '\\d'\ny = 1 is 1\n",  # warnings at compile time, none reported
        "x = (1,\n",
        "def f(:\n    pass\n",
        "x = 1\0\n",
        "x = " + "-" * 100_000 + "1\n",
        "x = " + "+".join(["a"] * 200_000) + "\n",
    ],
)
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # the parser's, on invalid escapes
def test_checking_only_the_syntax_raises_what_parsing_raises(source: str) -> None:
    def outcome(read) -> object:
        try:
            read(source, "m.py")
        except (SyntaxError, NestingError) as error:
            return (type(error), getattr(error, "lineno", None), getattr(error, "offset", None))
        return None

    assert outcome(check_syntax) == outcome(parse)


def test_a_syntax_error_in_a_file_with_no_attention_api_fails_the_run(tmp_path, capsys) -> None:
    path = tmp_path / "util.py"
    path.write_text("def helper(:\n    return 1\n")
    code, _, err = run([str(path)], capsys)
    assert code == 2
    one_line_naming(err, "util.py:1:")


def test_many_files_in_parallel_name_each_problem_once(tmp_path, capsys) -> None:
    for index in range(8):
        (tmp_path / f"m{index}.py").write_text(WRONG if index % 2 else CLEAN)
    (tmp_path / "latin.py").write_bytes(b"x = '\xe9'\n")
    (tmp_path / "deep.py").write_text(NESTED["unary 20000"])
    (tmp_path / "gone.py").symlink_to(tmp_path / "nowhere.py")
    one = run(["--jobs", "1", str(tmp_path)], capsys)
    many = run(["--jobs", "2", str(tmp_path)], capsys)
    assert one == many
    code, out, err = one
    assert code == 2
    assert out.count(" AM101 ") == 4
    assert "Traceback" not in err
    assert sorted(Path(line.split(":")[0]).name for line in err.splitlines()) == [
        "deep.py",
        "gone.py",
        "latin.py",
    ]


def test_a_file_the_checker_fails_on_is_named_and_the_others_checked(
    wrong, tmp_path, capsys, monkeypatch
) -> None:
    import attention.review.__main__ as cli

    real = cli.check_source

    def failing(source: str, path: str, *args: object) -> object:
        if path.endswith("trips.py"):
            raise AttributeError("'NoneType' object has no attribute 'lineno'")
        return real(source, path, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(cli, "check_source", failing)
    (tmp_path / "trips.py").write_text(CLEAN)
    code, out, err = run([str(tmp_path / "trips.py"), str(wrong), "--jobs", "1"], capsys)
    assert code == 2
    assert out.count(" AM101 ") == 1
    one_line_naming(err, "trips.py", "internal error", "AttributeError")


def test_folders_of_environments_and_builds_are_left_out(tmp_path, capsys) -> None:
    for folder in (".venv/lib", "docs/_build/html", "node_modules/x", "build/lib"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "vendored.py").write_text(WRONG)
    assert run([str(tmp_path)], capsys) == (0, "", "")


def test_the_checked_files_own_warnings_are_not_the_checkers_output(tmp_path: Path) -> None:
    """An invalid escape in the checked file: Python 3.12 and later warn while parsing it
    (SyntaxWarning, shown by default; 3.11: a DeprecationWarning, shown here with -W always)."""
    (tmp_path / "escapes.py").write_text(
        'import re, torch\npattern = re.compile("layers.\\d.")\ny = torch.softmax(x, -1)\n'
    )
    done = subprocess.run(
        [sys.executable, "-W", "always", "-m", "attention.review", "escapes.py"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
