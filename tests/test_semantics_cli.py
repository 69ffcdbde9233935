"""``python -m attention.semantics`` on a malformed claims file: one line, exit status 2.

Each case writes a claims file to a temporary folder, runs the command line in a fresh process and
checks what a reader of the terminal sees: exit status 2, nothing on stdout, exactly one line on
stderr (``error: <file>:<line>: ...``) that names the file, where in it (the row and its id, or
the line and column), the field and what is wrong, and no Python traceback.  The library raises
the same message as :class:`~attention.semantics.claims.ClaimsError`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch

from attention.semantics.__main__ import main
from attention.semantics.claims import (
    ClaimsError,
    load_claims,
    load_ecosystem_claims,
    release_tuple,
)
from attention.semantics.report import release_context

ROW = """\
[[claims]]
id = "{id}"
api = "torch.nn.functional.scaled_dot_product_attention"
argument = {{en = "scale", zh = "scale"}}
expected = "1/sqrt(d_k)"
docs = "https://docs.pytorch.org/docs/2.13/generated/torch.nn.functional.html"
explanation = {{en = "The default scale.", zh = "默认的缩放。"}}
reproduce = ">>> 1\\n1"
"""


def two_rows(second: str = ROW.format(id="sdpa.second")) -> str:
    """A valid first row and the given second row (by default a valid one)."""
    return "# claims\n\n" + ROW.format(id="sdpa.first") + "\n" + second


def line_of(text: str, needle: str, start: int = 0) -> int:
    """The 1-based line of the first ``needle`` at or after character ``start``."""
    return text.count("\n", 0, text.index(needle, start)) + 1


SECOND = two_rows().index('id = "sdpa.second"')


def at(line: int) -> str:
    """How the one line cites a line of the file: ``<file>:<line>:``."""
    return f":{line}:"


@dataclass(frozen=True)
class Case:
    """A malformed file and what the one line must contain besides the file name."""

    name: str
    content: bytes
    expected: tuple[str, ...]


def case(name: str, text: str, *expected: str) -> Case:
    return Case(name, text.encode("utf-8"), expected)


def second_row(old: str, new: str) -> str:
    """The two-row file with ``old`` replaced by ``new`` in the second row only."""
    text = two_rows()
    head, tail = text[:SECOND], text[SECOND:]
    assert old in tail, old
    return head + tail.replace(old, new, 1)


BAD_TOML = second_row('expected = "1/sqrt(d_k)"', "expected = 1/sqrt(d_k)")
NOT_UTF8 = two_rows().encode("utf-8").replace(b"The default scale.", b"The d\xe9faut scale.", 1)
MISSING = second_row(
    'docs = "https://docs.pytorch.org/docs/2.13/generated/torch.nn.functional.html"\n', ""
)
VOCABULARY = second_row('expected = "1/sqrt(d_k)"', 'expected = "true"')
UNKNOWN = second_row('expected = "1/sqrt(d_k)"\n', 'expected = "1/sqrt(d_k)"\ncolour = "red"\n')
DUPLICATE = second_row('id = "sdpa.second"', 'id = "sdpa.first"')
FOREIGN = second_row('id = "sdpa.second"', 'id = "jax.second"\nframework = "jax"')
NOT_A_STRING = second_row('api = "torch.nn.functional.scaled_dot_product_attention"', "api = 5")
HALF_BILINGUAL = second_row(
    'explanation = {en = "The default scale.", zh = "默认的缩放。"}',
    'explanation = {en = "The default scale."}',
)

CASES = [
    case(
        "invalid TOML",
        BAD_TOML,
        # tomllib stops at the "/" after the number 1: line and column as the TOML parser gives them
        f"{at(line_of(BAD_TOML, 'expected = 1/', SECOND))}{len('expected = 1/')}: invalid TOML",
    ),
    Case(
        "not UTF-8",
        NOT_UTF8,
        (at(NOT_UTF8.count(b"\n", 0, NOT_UTF8.index(b"\xe9")) + 1), "UTF-8", "0xe9"),
    ),
    case(
        "a missing field",
        MISSING,
        at(line_of(MISSING, "[[claims]]", SECOND - 20)),
        "claim #2",
        "'sdpa.second'",
        "'docs'",
    ),
    case(
        "a value outside the vocabulary",
        VOCABULARY,
        at(line_of(VOCABULARY, 'expected = "true"')),
        "claim #2",
        "'sdpa.second'",
        "expected",
        "'true'",
    ),
    case("claims is a string", 'claims = "abc"\n', ":1:", "claims", "array of tables", "'abc'"),
    case("claims holds numbers", "claims = [1, 2]\n", ":1:", "claim #1", "claims", "table"),
    case("no claims at all", "# nothing here\n", "claims", "[[claims]]"),
    case(
        "a misspelt array",
        ROW.format(id="sdpa.x").replace("[[claims]]", "[[claim]]"),
        ":1:",
        "'claim'",
    ),
    case(
        "an unknown field",
        UNKNOWN,
        at(line_of(UNKNOWN, "colour")),
        "claim #2",
        "'sdpa.second'",
        "'colour'",
    ),
    case(
        "a duplicate id",
        DUPLICATE,
        at(line_of(DUPLICATE, 'id = "sdpa.first"', SECOND)),
        "claim #2",
        "'sdpa.first'",
        "id",
        "claim #1",
    ),
    case(
        "a row about another framework",
        FOREIGN,
        at(line_of(FOREIGN, 'framework = "jax"')),
        "claim #2",
        "'jax.second'",
        "framework",
        "'jax'",
    ),
    case(
        "a number where text belongs",
        NOT_A_STRING,
        at(line_of(NOT_A_STRING, "api = 5")),
        "claim #2",
        "'sdpa.second'",
        "api",
    ),
    case(
        "half of a bilingual field",
        HALF_BILINGUAL,
        at(line_of(HALF_BILINGUAL, "explanation = {en", SECOND)),
        "claim #2",
        "'sdpa.second'",
        "explanation",
        "zh",
    ),
]


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m attention.semantics ARGS``, from ``cwd`` (default: this directory)."""
    return subprocess.run(
        [sys.executable, "-m", "attention.semantics", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
        check=False,
        cwd=cwd,
    )


def assert_one_line_error(result: subprocess.CompletedProcess[str], *expected: str) -> str:
    """Exit status 2, empty stdout, one ``error: ...`` line on stderr containing ``expected``."""
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    (line,) = lines
    assert line.startswith("error: "), line
    for part in expected:
        assert part in line, (part, line)
    return line


@pytest.mark.parametrize("bad", CASES, ids=[c.name for c in CASES])
def test_a_malformed_claims_file_is_one_line_and_exit_status_2(bad: Case, tmp_path: Path) -> None:
    path = tmp_path / "claims.toml"
    path.write_bytes(bad.content)
    line = assert_one_line_error(run_cli("--claims", str(path)), str(path), *bad.expected)
    # the library raises the same message, for callers that load the file themselves
    with pytest.raises(ClaimsError) as caught:
        load_claims(path)
    assert line == f"error: {caught.value}"


@pytest.mark.parametrize("kind", ["missing", "a folder"])
def test_a_claims_path_that_is_not_a_file_is_one_line(kind: str, tmp_path: Path) -> None:
    path = tmp_path / "nowhere.toml" if kind == "missing" else tmp_path
    assert_one_line_error(run_cli("--claims", str(path)), str(path), "cannot read")


def test_the_valid_two_row_file_is_accepted(tmp_path: Path) -> None:
    """The cases above differ from a file that loads by their one defect only."""
    path = tmp_path / "claims.toml"
    path.write_text(two_rows(), encoding="utf-8")
    assert [claim.id for claim in load_claims(path)] == ["sdpa.first", "sdpa.second"]


def test_a_torch_row_in_the_ecosystem_file_is_an_error(tmp_path: Path) -> None:
    text = (
        ROW.format(id="jax.first").replace(
            'id = "jax.first"', 'id = "jax.first"\nframework = "jax"'
        )
        + "\n"
        + ROW.format(id="sdpa.second").replace(
            'id = "sdpa.second"', 'id = "sdpa.second"\nframework = "torch"'
        )
    )
    path = tmp_path / "eco.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ClaimsError) as caught:
        load_ecosystem_claims(path)
    message = str(caught.value)
    torch_line = line_of(text, 'framework = "torch"')
    assert message.startswith(f"{path}:{torch_line}:"), message
    for part in ("claim #2", "'sdpa.second'", "framework", "'torch'"):
        assert part in message, (part, message)
    # and a row that leaves its framework to the default (torch) is the same mistake
    path.write_text(text.replace('framework = "torch"\n', ""), encoding="utf-8")
    with pytest.raises(ClaimsError, match=r"claim #2 \('sdpa.second'\).*framework"):
        load_ecosystem_claims(path)


# --- what the command line says and where it writes ------------------------------------------------

ROOT = Path(__file__).resolve().parents[1]
ROOT_RECORDS = ROOT / "conf" / "records"


def run_in(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The command line run from ``folder``, as a user in another directory would."""
    return run_cli(*args, cwd=folder)


def records_now() -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(ROOT_RECORDS.glob("*.json"))}


def test_record_without_a_path_outside_a_checkout_is_refused(tmp_path: Path) -> None:
    """Never into the package's own folder (site-packages for a wheel): exit 2, one line."""
    before = records_now()
    result = run_in(tmp_path, "--record")
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: --record without a path"), line
    for part in (str(tmp_path), "conf/semantics.toml", "--record PATH"):
        assert part in line, (part, line)
    assert records_now() == before
    assert list(tmp_path.iterdir()) == []


def test_record_without_a_path_writes_into_the_checkout_it_runs_in(tmp_path: Path) -> None:
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "semantics.toml").write_bytes(
        (ROOT / "conf" / "semantics.toml").read_bytes()
    )
    inside = tmp_path / "docs" / "deeper"
    inside.mkdir(parents=True)
    before = records_now()
    result = run_in(inside, "--record")
    assert result.returncode == 0, result.stdout + result.stderr
    written = list((tmp_path / "conf" / "records").glob("torch-*.json"))
    assert [path.name for path in written] == [f"torch-{release_context().installed}.json"]
    assert f"wrote {written[0]}" in result.stderr
    assert records_now() == before  # the package's own checkout is left alone


def test_a_claims_file_of_the_wrong_kind_names_the_file_given_and_where_the_row_goes(
    tmp_path: Path,
) -> None:
    given = tmp_path / "mine.toml"
    given.write_bytes((ROOT / "conf" / "semantics-ecosystem.toml").read_bytes())
    line = assert_one_line_error(run_cli("--claims", str(given)), str(given))
    assert f"{given} was read as the PyTorch claims file" in line, line
    assert "belongs in the other frameworks' claims file, semantics-ecosystem.toml" in line, line
    assert "which holds the PyTorch rows" not in line, line
    # and the other way round, from the library
    given.write_bytes((ROOT / "conf" / "semantics.toml").read_bytes())
    with pytest.raises(ClaimsError) as caught:
        load_ecosystem_claims(given)
    message = str(caught.value)
    assert f"{given} was read as the other frameworks' claims file" in message, message
    assert "belongs in the PyTorch claims file, semantics.toml" in message, message


CUDA_ROW = "sdpa.attn_mask.bool.cuda"  # needs a CUDA device: not verified on a CPU machine
needs_no_cuda = pytest.mark.skipif(
    torch.cuda.is_available(), reason="the CUDA row is verified on this machine"
)


@needs_no_cuda
def test_strict_says_why_it_fails_a_run_with_no_failed_row() -> None:
    plain = run_cli("--only", "sdpa.attn_mask.bool")
    assert plain.returncode == 0, plain.stdout
    assert "--strict" not in plain.stdout
    strict = run_cli("--strict", "--only", "sdpa.attn_mask.bool")
    assert strict.returncode == 1, strict.stdout
    lines = strict.stdout.splitlines()
    count = next(i for i, line in enumerate(lines) if line.startswith("2 rows: "))
    assert lines[count] == "2 rows: 1 ok, 0 failed, 1 not verified here"
    assert lines[count + 1] == (
        "--strict counts the 1 rows not verified here as failures, so the run exits 1"
    )


@needs_no_cuda
@pytest.mark.parametrize("json_output", [False, True], ids=["table", "json"])
def test_a_run_that_verified_no_row_exits_1_and_says_so(json_output: bool) -> None:
    result = run_cli("--only", CUDA_ROW, *(("--json",) if json_output else ()))
    assert result.returncode == 1, result.stdout + result.stderr
    said = result.stderr if json_output else result.stdout
    assert (
        "nothing was verified here: of 1 rows, 1 not verified here, and a run that verifies no "
        "row exits 1"
    ) in said, said


@pytest.mark.parametrize(
    ("where", "said"),
    [
        ("older", "is older than every verified release"),
        ("between", "lies between the verified releases"),
        ("newer", "is newer than every verified release"),
    ],
)
def test_a_release_that_is_not_verified_is_compared_with_its_nearest_neighbour(
    where: str, said: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    verified = release_context().verified
    oldest, below, above = verified[0], verified[-2], verified[-1]
    major, minor, patch = (int(part) for part in below.split("."))
    installed, used = {
        "older": ("1.0.0", oldest),
        "between": (f"{major}.{minor}.{patch + 1}", below),
        "newer": ("99.0.0", above),
    }[where]
    between = release_tuple(f"{major}.{minor}.{patch + 1}")
    assert release_tuple(below) < between < release_tuple(above)
    monkeypatch.setattr(torch, "__version__", installed)
    assert main(["--json", "--only", "sdpa.scale"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["release"]["compared_with"] == used
    assert {row["expected_for"] for row in document["rows"]} == {used}
    note = document["release"]["note"]
    assert said in note
    assert used in note.split(": compared with the expectations for ", 1)[1], note
    if where == "between":
        assert f"{below} and {above}" in note
    main(["--only", "sdpa.scale"])
    assert f"note: {note}" in capsys.readouterr().out
