"""The machine formats as their consumers read them.

* SARIF: valid against the published SARIF 2.1.0 schema (``data/sarif-schema-2.1.0.json``, the
  OASIS standard's schema with errata 01), with relative, percent-encoded URIs resolved through
  ``%SRCROOT%`` and columns counted as the checker counts them;
* JSON: an object with a format version, valid against the schema the package ships;
* GitHub annotations: the rule's page with every finding;
* ``--diff`` never written into a machine format.
"""

from __future__ import annotations

import contextlib
import json
import re
from importlib import resources
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit
from urllib.request import url2pathname

import jsonschema
import pytest

from attention.review.__main__ import main
from attention.review.links import rule_url
from attention.review.rules import by_code

DATA = Path(__file__).parent / "data"
WRONG = by_code("AM101").wrong  # AM101 at 8:62
FILL = by_code("AM202").wrong


def run(args: list[str], capsys: pytest.CaptureFixture[str], cwd: Path) -> tuple[int, str, str]:
    with contextlib.chdir(cwd):
        code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A checkout with awkward names, and a file outside it."""
    root = tmp_path / "repo"
    (root / "src dir").mkdir(parents=True)
    (root / "src dir" / "100% model.py").write_text(WRONG)
    (root / "src dir" / "modèle.py").write_text("# é\n" + WRONG)
    (tmp_path / "outside.py").write_text(FILL)
    (root / "broken.py").write_text("def f(:\n")
    return root


def sarif_log(tree: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    code, out, _ = run(["src dir", "../outside.py", "broken.py", "--format", "sarif"], capsys, tree)
    assert code == 2
    return json.loads(out)


def test_sarif_is_valid_against_the_published_schema(tree, capsys) -> None:
    schema = json.loads((DATA / "sarif-schema-2.1.0.json").read_text())
    log = sarif_log(tree, capsys)
    jsonschema.Draft4Validator.check_schema(schema)
    jsonschema.Draft4Validator(schema).validate(log)


URI_REFERENCE = re.compile(r"^([A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-F]{2})*$")


def test_sarif_uris_are_relative_percent_encoded_and_resolve_to_the_files(tree, capsys) -> None:
    log = sarif_log(tree, capsys)
    (run_,) = log["runs"]  # type: ignore[index]
    base = run_["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert base == tree.resolve().as_uri() + "/"
    resolved = []
    for result in run_["results"]:
        artifact = result["locations"][0]["physicalLocation"]["artifactLocation"]
        uri = artifact["uri"]
        assert URI_REFERENCE.match(uri), uri
        if "uriBaseId" in artifact:
            assert artifact["uriBaseId"] == "%SRCROOT%"
            assert not urlsplit(uri).scheme
            assert not uri.startswith("/")
            uri = urljoin(base, uri)
        else:
            assert uri.startswith("file:///")  # outside the base: absolute
        resolved.append(Path(url2pathname(unquote(urlsplit(uri).path))))
    assert sorted(path.name for path in resolved) == ["100% model.py", "modèle.py", "outside.py"]
    assert all(path.is_file() for path in resolved)


def test_sarif_says_how_columns_are_counted(tree, capsys) -> None:
    (run_,) = sarif_log(tree, capsys)["runs"]  # type: ignore[index]
    assert run_["columnKind"] == "unicodeCodePoints"
    regions = [r["locations"][0]["physicalLocation"]["region"] for r in run_["results"]]
    assert {(region["startLine"], region["startColumn"]) for region in regions} >= {
        (8, 62),
        (9, 62),
    }


def test_sarif_names_what_could_not_be_checked(tree, capsys) -> None:
    (run_,) = sarif_log(tree, capsys)["runs"]  # type: ignore[index]
    (invocation,) = run_["invocations"]
    assert invocation["executionSuccessful"] is False
    (note,) = invocation["toolExecutionNotifications"]
    assert note["level"] == "error"
    assert "syntax error" in note["message"]["text"]
    where = note["locations"][0]["physicalLocation"]
    assert where["artifactLocation"] == {"uri": "broken.py", "uriBaseId": "%SRCROOT%"}
    assert where["region"]["startLine"] == 1


def test_sarif_of_stdin_is_valid(tmp_path, capsys, monkeypatch) -> None:
    import io

    schema = json.loads((DATA / "sarif-schema-2.1.0.json").read_text())
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(WRONG.encode()), "utf-8"))
    code, out, _ = run(["-", "--format", "sarif"], capsys, tmp_path)
    assert code == 1
    jsonschema.Draft4Validator(schema).validate(json.loads(out))


# -- json ------------------------------------------------------------------------------------------


def json_schema() -> dict[str, object]:
    text = resources.files("attention.review").joinpath("findings.schema.json").read_text()
    return json.loads(text)


def test_json_is_versioned_and_valid_against_its_schema(tree, capsys) -> None:
    code, out, _ = run(["src dir", "broken.py", "--format", "json"], capsys, tree)
    document = json.loads(out)
    schema = json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(document)
    assert document["schema_version"] == 1
    assert code == 2
    assert [f["code"] for f in document["findings"]] == ["AM101", "AM101"]
    (problem,) = document["not_checked"]
    assert problem["path"] == "broken.py"
    assert "syntax error" in problem["message"]


def test_the_json_schema_names_every_key_the_output_has(tree, capsys) -> None:
    _, out, _ = run(["src dir", "--format", "json"], capsys, tree)
    schema = json_schema()
    finding = schema["$defs"]["finding"]  # type: ignore[index]
    for record in json.loads(out)["findings"]:
        assert set(record) == set(finding["properties"]) == set(finding["required"])


def test_the_using_page_documents_every_json_key() -> None:
    page = (Path(__file__).parents[2] / "docs" / "review" / "using.md").read_text()
    schema = json_schema()
    keys = set(schema["properties"]) | set(schema["$defs"]["finding"]["properties"])  # type: ignore[index]
    keys |= set(schema["$defs"]["problem"]["properties"])  # type: ignore[index]
    missing = sorted(key for key in keys if f"`{key}`" not in page)
    assert not missing, f"docs/review/using.md does not document {missing}"


# -- github ----------------------------------------------------------------------------------------


def test_github_annotations_carry_the_rule_page(tree, capsys) -> None:
    _, out, _ = run(["src dir/100% model.py", "--format", "github"], capsys, tree)
    (line,) = out.splitlines()
    assert line.startswith("::error file=src dir/100%25 model.py,line=8,col=62,")
    assert rule_url("AM101") in line


def test_github_annotations_name_what_could_not_be_checked(tree, capsys) -> None:
    code, out, _ = run(["broken.py", "--format", "github"], capsys, tree)
    assert code == 2
    (line,) = out.splitlines()
    assert line.startswith("::error file=broken.py,line=1,col=")
    assert "syntax error" in line


# -- --diff ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("form", ["json", "github", "sarif"])
@pytest.mark.parametrize("fix", [[], ["--fix"]])
def test_diff_is_never_mixed_into_a_machine_format(form, fix, tmp_path, capsys) -> None:
    (tmp_path / "fill.py").write_text(FILL)
    code, out, err = run(["fill.py", "--diff", *fix, "--format", form], capsys, tmp_path)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert "--diff" in err
    assert (tmp_path / "fill.py").read_text() == FILL


@pytest.mark.parametrize("form", ["json", "sarif"])
def test_fix_with_a_machine_format_writes_only_that_format(form, tmp_path, capsys) -> None:
    (tmp_path / "fill.py").write_text(FILL)
    _, out, _ = run(["fill.py", "--fix", "--format", form], capsys, tmp_path)
    json.loads(out)
