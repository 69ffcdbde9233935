"""conf/torch_pins.py: the pins for one torch release, from pip's resolution of torch alone.

No package index is needed: pip's report is made up here, and ``check`` runs a stand-in for
``python -m pip`` that writes one.  (The real resolutions run in ``ATTENTION_TORCH=... nox``.)
"""

from __future__ import annotations

import functools
import http.server
import importlib.util
import json
import socket
import sys
import textwrap
import threading
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from attention.semantics import paths

ROOT = Path(__file__).resolve().parents[1]


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("torch_pins", ROOT / "conf" / "torch_pins.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


pins = _load()
sys.path.insert(0, str(ROOT / "conf"))
import check_pins  # noqa: E402  (conf/ is not a package)

ENVIRONMENT = {
    "implementation_name": "cpython",
    "os_name": "posix",
    "platform_machine": "x86_64",
    "platform_system": "Linux",
    "python_full_version": "3.11.7",
    "python_version": "3.11",
    "sys_platform": "linux",
    "platform_python_implementation": "CPython",
}


def item(name: str, version: str, *requires: str, requested: bool = False) -> dict[str, Any]:
    metadata = {"name": name, "version": version, "requires_dist": list(requires)}
    return {"metadata": metadata, "requested": requested}


def report(*items: dict[str, Any]) -> dict[str, Any]:
    return {"version": "1", "install": list(items), "environment": ENVIRONMENT}


BASE = """\
# the project's pins
filelock==4.3.1
Jinja2==3.1.6
numpy==2.4.6
sympy==1.14.0
torch==2.13.0
typing_extensions==4.16.0
"""

TORCH_251 = report(
    item(
        "torch",
        "2.5.1",
        "filelock",
        "jinja2",
        "typing-extensions (>=4.8.0)",
        'sympy (==1.12.1) ; python_version == "3.8"',
        'sympy (==1.13.1) ; python_version >= "3.9"',
        'triton (==3.1.0) ; platform_system == "Linux" and python_version < "3.13"',
        'nvidia-cuda-runtime-cu12 (==12.4.127) ; platform_system == "Linux"',
        'cuda-toolkit[cublas] (==13.0.3) ; platform_system == "Linux"',
        'setuptools ; python_version >= "3.12"',
        "opt-einsum (>=3.3) ; extra == 'opt-einsum'",
        requested=True,
    ),
    item("triton", "3.1.0", "filelock"),
    item(
        "cuda-toolkit",
        "13.0.3",
        'nvidia-cublas==13.1.1.3; extra == "cublas"',
        'nvidia-cufft==12.0.0.61; extra == "cufft"',
    ),
    item("nvidia-cublas", "13.1.1.3"),
    item("nvidia-cuda-runtime-cu12", "12.4.127"),
    item("sympy", "1.13.1", "mpmath<1.4,>=1.1.0"),
    item("mpmath", "1.3.0"),
    item("filelock", "4.4.0"),
    item("Jinja2", "3.1.6", "MarkupSafe>=2.0"),
    item("MarkupSafe", "3.0.4"),
    item("typing_extensions", "4.16.0"),
)


def test_the_pins_keep_the_base_where_torch_allows_it_and_resolve_the_rest() -> None:
    text = pins.render(BASE, TORCH_251, "torch==2.5.1", base_name="constraints.txt")
    lines = text.splitlines()
    body = [line for line in lines if line and not line.startswith("#")]
    assert body == [
        "filelock==4.3.1",  # torch and triton take any filelock: the project's pin stays
        "Jinja2==3.1.6",
        "numpy==2.4.6",  # not torch's: untouched
        "sympy==1.13.1  # constraints.txt: 1.14.0; torch 2.5.1 needs ==1.13.1",
        "torch==2.5.1",
        "typing_extensions==4.16.0",
        # what the base does not pin, sorted; no nvidia-cufft (an extra nobody asks for), no
        # setuptools (Python >= 3.12 only), no opt-einsum (an extra of torch's)
        "cuda-toolkit==13.0.3",
        "MarkupSafe==3.0.4",
        "mpmath==1.3.0",
        "nvidia-cublas==13.1.1.3",
        "nvidia-cuda-runtime-cu12==12.4.127",
        "triton==3.1.0",
    ]
    assert lines[0].startswith("# The pins for torch==2.5.1, written by conf/torch_pins.py")
    assert "# the project's pins" in lines  # the base's comments stay where they were
    # the same base and resolution give the same bytes
    assert text == pins.render(BASE, TORCH_251, "torch==2.5.1", base_name="constraints.txt")


def test_a_pin_that_an_extra_requirement_rules_out_is_replaced() -> None:
    base = BASE + "nvidia-cublas==12.0.0\n"
    text = pins.render(base, TORCH_251, "torch==2.5.1", base_name="constraints.txt")
    assert "nvidia-cublas==13.1.1.3  # constraints.txt: 12.0.0; torch 2.5.1 needs ==13.1.1.3" in (
        text.splitlines()
    )


def test_a_local_build_is_pinned_as_resolved() -> None:
    cpu = report(item("torch", "2.13.0+cpu", "filelock", requested=True), item("filelock", "4.3.1"))
    text = pins.render(BASE, cpu, "torch==2.13.0", base_name="constraints.txt")
    assert "torch==2.13.0+cpu" in text.splitlines()
    assert "requires these" not in text  # nothing to add


def test_condense_keeps_what_conflicts_in_one_line() -> None:
    stderr = textwrap.dedent(
        """\
        ERROR: Cannot install torch==2.5.1 because these package versions have conflicting dependencies.

        The conflict is caused by:
            torch 2.5.1 depends on sympy==1.13.1; python_version >= "3.9"
            The user requested (constraint) sympy==1.14.0

        Additionally, some packages in these conflicts have no matching distributions:
            sympy

        ERROR: ResolutionImpossible: for help visit https://pip.pypa.io/...
        """
    )
    assert pins.condense(stderr) == (
        "torch 2.5.1 depends on sympy==1.13.1; The user requested (constraint) sympy==1.14.0"
    )
    missing = (
        "ERROR: Could not find a version that satisfies the requirement torch==2.99.0 "
        "(from versions: 2.5.0, 2.5.1)\nERROR: No matching distribution found for torch==2.99.0\n"
    )
    assert pins.condense(missing) == (
        "Could not find a version that satisfies the requirement torch==2.99.0; "
        "No matching distribution found for torch==2.99.0"
    )


def fake_pip(tmp_path: Path, written: dict[str, Any] | None, stderr: str = "") -> str:
    """A stand-in for ``python`` whose ``-m pip install --report FILE`` writes ``written``."""
    script = tmp_path / "python"
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, sys\n"
        "args = sys.argv[1:]\n"
        f"written = {json.dumps(written)!r}\n"
        "if written == 'null':\n"
        f"    sys.stderr.write({stderr!r})\n"
        "    sys.exit(1)\n"
        "path = args[args.index('--report') + 1]\n"
        "open(path, 'w').write(written)\n",
        encoding="utf-8",
    )
    script.chmod(0o755)
    return str(script)


def test_check_refuses_an_install_that_brings_an_unpinned_package(tmp_path: Path) -> None:
    pinned = tmp_path / "constraints.txt"
    pinned.write_text("torch==2.5.1\nfilelock==4.3.1\n", encoding="utf-8")
    install = report(
        item("torch", "2.5.1", requested=True),
        item("filelock", "4.3.1"),
        item("nvidia-nccl-cu12", "2.21.5"),
        item("attention-textbook", "0.1.0", requested=True),  # the project itself is not pinned
    )
    python = fake_pip(tmp_path, install)
    with pytest.raises(pins.PinsError, match=r"does not pin what the install needs: nvidia-nccl"):
        pins.check(pinned, ["-e", "."], python=python)
    pinned.write_text("torch==2.5.1\nfilelock==4.3.1\nnvidia-nccl-cu12==2.21.5\n", encoding="utf-8")
    assert pins.check(pinned, ["-e", "."], python=python) == 4


def test_a_resolution_that_fails_is_one_line_naming_the_conflict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pinned = tmp_path / "constraints.txt"
    pinned.write_text("sympy==1.14.0\n", encoding="utf-8")
    stderr = (
        "ERROR: Cannot install torch==2.5.1\n\nThe conflict is caused by:\n"
        "    torch 2.5.1 depends on sympy==1.13.1\n"
        "    The user requested (constraint) sympy==1.14.0\n\n"
    )
    python = fake_pip(tmp_path, None, stderr)
    assert pins.main(["check", str(pinned), "--python", python, "--", "torch==2.5.1"]) == 1
    captured = capsys.readouterr()
    assert captured.err == (
        f"torch_pins: error: the pins in {pinned} cannot be met: torch 2.5.1 depends on "
        "sympy==1.13.1; The user requested (constraint) sympy==1.14.0\n"
    )


def test_a_release_lists_no_pins_file(tmp_path: Path) -> None:
    assert all(set(vars(release)) == {"torch"} for release in paths.torch_releases())
    listed = tmp_path / "torch-releases.toml"
    listed.write_text(
        '[[releases]]\ntorch = "2.14.1"\nconstraints = "constraints-torch-2.14.1.txt"\n'
    )
    with pytest.raises(ValueError, match=r"release #1: unknown key constraints .*generated"):
        paths.torch_releases(listed)


# --- the default environment, on each build pip can get for torch==2.13.0 -------------------------
# pip's reports of `pip install --dry-run --report torch==2.13.0` on Linux x86-64, Python 3.11,
# recorded once from each source (trimmed to what the pins are made from): PyPI alone, whose
# only Linux build bundles CUDA, and an index that serves the CPU build.  Nothing is downloaded.

RECORDED = ROOT / "tests" / "pip_reports"
BUILDS = {
    "cuda": ("torch-2.13.0-cuda.json", "torch==2.13.0", 19),
    "cpu": ("torch-2.13.0-cpu.json", "torch==2.13.0+cpu", 0),
}


def recorded(kind: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((RECORDED / BUILDS[kind][0]).read_text(encoding="utf-8"))
    return data


def default_torch() -> str:
    return "torch==" + pins.read_pins(paths.CONSTRAINTS)["torch"]


@pytest.mark.parametrize("kind", sorted(BUILDS))
def test_the_recorded_resolutions_are_of_the_default_torch(kind: str) -> None:
    torch = next(i for i in recorded(kind)["install"] if i["metadata"]["name"] == "torch")
    release = torch["metadata"]["version"].split("+")[0]
    assert f"torch=={release}" == default_torch(), (
        "conf/constraints.txt pins another torch: record tests/pip_reports/ again with "
        "`pip install --dry-run --ignore-installed --report FILE torch==X.Y.Z` from each source"
    )


@pytest.mark.parametrize("kind", sorted(BUILDS))
def test_the_lock_holds_every_package_of_either_build_pip_gets(kind: str) -> None:
    """The default environment installs with conf/constraints.txt itself: nothing is generated."""
    gpu_packages = BUILDS[kind][2]
    report = recorded(kind)
    assert pins.check_report(paths.CONSTRAINTS, report) == len(report["install"])
    installed = [(i["metadata"]["name"], i["metadata"]["version"]) for i in report["install"]]
    assert check_pins.unpinned(pins.read_pins(paths.CONSTRAINTS), installed) == []
    names = [pins.normalise(name) for name, _ in installed]
    assert sum(1 for name in names if pins.GPU_PACKAGE.match(name)) == gpu_packages


def test_a_pin_whose_marker_fails_does_not_count_for_that_environment(tmp_path: Path) -> None:
    lock = tmp_path / "constraints.txt"
    lock.write_text(
        "torch==2.13.0\n"
        "triton==3.7.1 ; sys_platform == 'linux'  # via torch\n"
        "appnope==1.0.0 ; sys_platform == 'darwin'\n"
    )
    assert pins.read_pins(lock, ENVIRONMENT) == {"torch": "2.13.0", "triton": "3.7.1"}
    assert set(pins.read_pins(lock)) == {"torch", "triton", "appnope"}
    darwin = report(item("torch", "2.13.0", requested=True), item("appnope", "1.0.0"))
    with pytest.raises(pins.PinsError, match=r"appnope 1\.0\.0"):
        pins.check_report(lock, darwin)


def test_check_asks_pip_to_look_in_the_torch_index_too(tmp_path: Path) -> None:
    python = fake_pip(tmp_path, recorded("cpu"))
    argv = tmp_path / "argv.json"
    script = Path(python)
    script.write_text(
        script.read_text().replace(
            "path = args",
            f"open({str(argv)!r}, 'w').write(json.dumps(args))\npath = args",
        ),
        encoding="utf-8",
    )
    index = "http://127.0.0.1:9/whl/cpu"
    assert pins.check(paths.CONSTRAINTS, ["torch"], python=python, torch_index=index) == 10
    args = json.loads(argv.read_text())
    assert args[args.index("--extra-index-url") + 1] == index
    pins.check(paths.CONSTRAINTS, ["torch"], python=python)
    assert "--extra-index-url" not in json.loads(argv.read_text())


# --- whether the CPU index answers: a few seconds at most ------------------------------------------


def test_an_index_that_answers_is_reachable(tmp_path: Path) -> None:
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "index.html").write_text("<html></html>")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            url = f"http://127.0.0.1:{server.server_address[1]}"
            assert pins.reachable(url) is None
            assert pins.reachable(url + "/missing") == "HTTP 404"
        finally:
            server.shutdown()


def test_an_index_that_refuses_or_never_answers_costs_at_most_the_timeout() -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    assert "refused" in (pins.reachable(f"http://127.0.0.1:{port}") or "")
    with socket.socket() as silent:  # accepts connections, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        start = time.monotonic()
        why = pins.reachable(f"http://127.0.0.1:{silent.getsockname()[1]}", timeout=0.5)
        assert why is not None
        assert "timed out" in why
        assert time.monotonic() - start < 2.0
    assert pins.REACHABLE_TIMEOUT_S <= 3.0  # what the fallback costs where the index is unreachable
