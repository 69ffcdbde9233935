"""Build the site the way Read the Docs does, from .readthedocs.yaml alone, in a fresh folder.

    python docs/_tools/readthedocs.py CHECKOUT OUT [--replace=TEXT=REPLACEMENT ...]

CHECKOUT is a clean clone of the repository (no caches, no environments); OUT receives a new
virtual environment and the HTML of each language.  The steps are Read the Docs' for a project
with ``build.jobs.install``: a fresh environment, the configured install commands run in the
checkout, then ``python -m sphinx -T -W --keep-going -b html -D language=<language>`` for the
English project and for its Chinese translation, with the environment variables Read the Docs
sets (``READTHEDOCS``, ``READTHEDOCS_VERSION``, ``READTHEDOCS_LANGUAGE``,
``READTHEDOCS_CANONICAL_URL``).  ``--replace`` rewrites part of the install commands for a machine
that cannot reach an index they name: ``--replace="--index-url
https://download.pytorch.org/whl/cpu=--no-index --find-links /opt/wheels"`` takes the CPU torch
from a local folder instead of PyTorch's CPU index.  It fails if a step fails, if a built
home page lacks its canonical link, or if the Cite page's addresses start elsewhere.  Where the
configuration asks for ``formats: [pdf]``, each language's book is built as Read the Docs builds
it (Sphinx's LaTeX builder, then latexmk, which needs XeLaTeX: see ``nox -s pdf``) and its text
is checked by docs/tests/test_pdf.py.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import yaml

# Read the Docs language slug of each Sphinx language of the site (docs/_ext/site_support.py)
LANGUAGES = {"en": "en", "zh_CN": "zh-cn"}
VERSION = "latest"


def main() -> int:
    """Run the install jobs and the two builds; report the canonical URL of each."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--replace", action="append", default=[], metavar="TEXT=REPLACEMENT")
    args = parser.parse_args()
    checkout, out = args.checkout.resolve(), args.out.resolve()
    config = yaml.safe_load((checkout / ".readthedocs.yaml").read_text())
    wanted = config["build"]["tools"]["python"]
    running = f"{sys.version_info.major}.{sys.version_info.minor}"
    if running != wanted:
        print(f"readthedocs: .readthedocs.yaml asks for Python {wanted}, this is {running}")
        return 2

    environment = out / "venv"
    venv.create(environment, with_pip=True, clear=True)
    env = dict(os.environ, PATH=f"{environment / 'bin'}{os.pathsep}{os.environ['PATH']}")
    env["VIRTUAL_ENV"] = str(environment)
    for command in config["build"]["jobs"]["install"]:
        for replacement in args.replace:
            text, _, local = replacement.partition("=")
            command = command.replace(text, local)
        print(f"readthedocs: $ {command}", flush=True)
        subprocess.run(command, shell=True, cwd=checkout, env=env, check=True)

    with open(checkout / "pyproject.toml", "rb") as file:
        site = tomllib.load(file)["project"]["urls"]["Documentation"].rstrip("/")
    init = (checkout / "src" / "attention" / "__init__.py").read_text()
    release = re.search(r'^__version__ = "([^"]+)"', init, re.MULTILINE)
    if release is None:
        print("readthedocs: no __version__ in src/attention/__init__.py")
        return 2
    configuration = Path(config["sphinx"]["configuration"])
    for language, slug in LANGUAGES.items():
        canonical = f"{site}/{slug}/{VERSION}/"
        build_env = dict(env, READTHEDOCS="True", READTHEDOCS_VERSION=VERSION)
        build_env.update(READTHEDOCS_LANGUAGE=slug, READTHEDOCS_CANONICAL_URL=canonical)
        html = out / "html" / language
        command = ["python", "-m", "sphinx", "-T", "-b", "html", "-D", f"language={language}"]
        if config["sphinx"].get("fail_on_warning"):
            command += ["-W", "--keep-going"]
        command += ["-d", str(out / "doctrees" / language), str(configuration.parent), str(html)]
        print(f"readthedocs: $ {' '.join(command)}", flush=True)
        subprocess.run(command, cwd=checkout, env=build_env, check=True)
        page = (html / "index.html").read_text()
        link = f'<link rel="canonical" href="{canonical}index.html"'
        if not re.search(re.escape(link) + r"\s*/?>", page):
            print(f"readthedocs: {html / 'index.html'} lacks {link}>")
            return 1
        # a citation names this release of the site, which Read the Docs serves from its tag
        versioned = f"{site}/{slug}/v{release.group(1)}/"
        cite = re.sub(r"<span[^>]*>|</span>|<wbr\s*/?>", "", (html / "cite.html").read_text())
        if not re.search(r"<code[^>]*>" + re.escape(versioned), cite):
            print(f"readthedocs: the Cite page's addresses do not start at {versioned}")
            return 1
        print(f"readthedocs: {language} built in {html}, canonical {canonical}")
        if "pdf" in config.get("formats", []):
            book = _pdf(checkout, configuration, out, language, build_env)
            if book is None:
                return 1
            print(f"readthedocs: {language} book {book} ({book.stat().st_size:,} bytes)")
    if "pdf" in config.get("formats", []):
        # the book's text and LaTeX's log, checked as `nox -s pdf` checks its own
        tests = Path(__file__).resolve().parents[1] / "tests" / "test_pdf.py"
        command = [sys.executable, "-m", "pytest", "-q", f"--confcutdir={tests.parent}", str(tests)]
        print(f"readthedocs: $ {' '.join(command)}", flush=True)
        books = dict(env, ATTENTION_BOOK=str(out / "pdf"), ATTENTION_SITE=str(out / "html"))
        if subprocess.run(command, cwd=checkout, env=books).returncode:
            return 1
    return 0


def _pdf(
    checkout: Path, configuration: Path, out: Path, language: str, env: dict[str, str]
) -> Path | None:
    """The book as Read the Docs builds it (``formats: [pdf]``): Sphinx's LaTeX, then latexmk.

    Read the Docs runs ``python -m sphinx -T -b latex``, then in the output folder, for the
    .tex file, ``latexmk -r latexmkrc -pdf -f -dvi- -ps- -jobname=<project>
    -interaction=nonstopmode`` (Sphinx's latexmkrc makes ``-pdf`` run XeLaTeX).  The book and
    its log are kept as ``out/pdf/attention-<language>.pdf`` and ``.log``.
    """
    latex = out / "latex" / language
    command = ["python", "-m", "sphinx", "-T", "-b", "latex", "-D", f"language={language}"]
    command += ["-W", "--keep-going", "-d", str(out / "doctrees" / f"latex-{language}")]
    command += [str(configuration.parent), str(latex)]
    print(f"readthedocs: $ {' '.join(command)}", flush=True)
    subprocess.run(command, cwd=checkout, env=env, check=True)
    sources = sorted(latex.glob("*.tex"))
    if len(sources) != 1:
        print(f"readthedocs: {latex} holds {len(sources)} .tex files, not the one book")
        return None
    command = ["latexmk", "-r", "latexmkrc", "-pdf", "-f", "-dvi-", "-ps-", "-jobname=attention"]
    command += ["-interaction=nonstopmode", sources[0].name]
    print(f"readthedocs: $ {' '.join(command)}", flush=True)
    done = subprocess.run(command, cwd=latex, env=env, capture_output=True, text=True)
    if done.returncode or not (latex / "attention.pdf").is_file():
        print(done.stdout[-3000:], done.stderr[-3000:])
        print(f"readthedocs: latexmk failed in {latex} (exit status {done.returncode})")
        return None
    book = out / "pdf" / f"attention-{language}.pdf"
    book.parent.mkdir(parents=True, exist_ok=True)
    for suffix in (".pdf", ".log"):
        book.with_suffix(suffix).write_bytes((latex / "attention").with_suffix(suffix).read_bytes())
    return book


if __name__ == "__main__":
    sys.exit(main())
