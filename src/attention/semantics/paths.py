"""Where every file of ``conf/`` lives: the claims, the records, the torch releases, the pins.

The one place that names them.  The package, ``noxfile.py`` and the docs extensions all ask this
module; it imports nothing but the standard library, so ``noxfile.py`` loads it from its file
without installing the package (and without torch).

In a source checkout the files are in ``conf/``; an installed wheel carries the two claims files
inside ``attention/semantics/`` (see ``pyproject.toml``), so :func:`claims_file` looks there first.
The records are written by ``python -m attention.semantics --record`` and ``nox -s
semantics_matrix``: one per torch release, ``conf/records/torch-<release>.json``, and one for the
other frameworks, ``conf/records/ecosystem.json``.  The frameworks whose rows are stated per
release of their own (transformers, onnxruntime, keras) also have one record per release listed in
``conf/library-releases.toml``, ``conf/records/libraries/<framework>-<release>.json``, written by
``nox -s semantics_releases``.

>>> torch_record("2.14.1").relative_to(ROOT).as_posix()
'conf/records/torch-2.14.1.json'
>>> [release.torch for release in torch_releases()][:2]
['2.0.1', '2.1.2']
>>> library_record("transformers", "4.52.4").relative_to(ROOT).as_posix()
'conf/records/libraries/transformers-4.52.4.json'
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "CLAIMS",
    "CONF",
    "CONSTRAINTS",
    "ECOSYSTEM_CLAIMS",
    "ECOSYSTEM_CONSTRAINTS",
    "ECOSYSTEM_RECORD",
    "LIBRARY_RECORDS",
    "LIBRARY_RELEASES",
    "RECORDS",
    "RELEASES",
    "ROOT",
    "TorchRelease",
    "checkout",
    "claims_file",
    "library_record",
    "library_record_files",
    "library_releases",
    "pins",
    "record_files",
    "release_of",
    "torch_record",
    "torch_releases",
]

# src/attention/semantics/paths.py: the checkout's root is three folders above "attention"
ROOT = Path(__file__).resolve().parents[3]
CONF = ROOT / "conf"
CLAIMS = CONF / "semantics.toml"
"""The PyTorch claims (the rows of the mask-semantics table)."""
ECOSYSTEM_CLAIMS = CONF / "semantics-ecosystem.toml"
"""The claims about other frameworks (JAX, Flax, Keras, Transformers, flash-attn, xFormers)."""
RECORDS = CONF / "records"
"""The verification records, one JSON file per torch release and one for the other frameworks."""
ECOSYSTEM_RECORD = RECORDS / "ecosystem.json"
LIBRARY_RECORDS = RECORDS / "libraries"
"""One record per release of transformers and of onnxruntime: ``<framework>-<release>.json``."""
LIBRARY_RELEASES = CONF / "library-releases.toml"
"""The transformers, onnxruntime and keras releases that ``nox -s semantics_releases`` verifies."""
RELEASES = CONF / "torch-releases.toml"
"""The torch releases ``nox -s semantics_matrix`` verifies the claims on."""
CONSTRAINTS = CONF / "constraints.txt"
"""The exact versions every environment installs (torch: the default release), on every supported
Python: a universal lock, written by ``nox -s lock``."""
ECOSYSTEM_CONSTRAINTS = CONF / "constraints-ecosystem.txt"
"""The exact versions of the other frameworks (``nox -s semantics_ecosystem``)."""

_RELEASE = re.compile(r"^\d+\.\d+\.\d+$")
_PIN = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)\s*===?\s*([^\s;#]+)")


def pins(*files: Path) -> dict[str, str]:
    """``{name: version}`` of every ``name==version`` line of the constraints ``files``.

    Names in one form, lower case with ``_`` for ``-`` and ``.``; a line's environment marker
    (``; sys_platform == 'linux'``) and its comment (``# via torch``) are left aside.

    >>> pins(CONSTRAINTS)["torch"]
    '2.13.0'
    """
    found = {}
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            match = _PIN.match(line.strip())
            if match and not line.startswith("#"):
                found[re.sub(r"[-_.]+", "_", match[1]).lower()] = match[2]
    return found


def claims_file(name: str) -> Path:
    """The ``conf/`` file ``name`` a wheel carries: the packaged copy, else ``conf/<name>``.

    The path is returned even when neither exists; reading it then reports the missing file.

    >>> claims_file("semantics.toml").name
    'semantics.toml'
    """
    packaged = Path(__file__).resolve().parent / name
    return packaged if packaged.is_file() else CONF / name


def checkout(start: Path | str | None = None) -> Path | None:
    """The repository checkout that ``start`` (default: the current folder) is in, or None.

    A checkout is the nearest folder, ``start`` or one above it, that holds
    ``conf/semantics.toml``.  Unlike :data:`ROOT` (guessed from this module's location, which
    for an installed wheel is inside site-packages) it is where the user works, so
    ``python -m attention.semantics --record`` writes its record there.

    >>> checkout(ROOT / "src" / "attention") == ROOT
    True
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     print(checkout(folder))
    None
    """
    here = Path(start if start is not None else Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "conf" / CLAIMS.name).is_file():
            return folder
    return None


def release_of(version: str) -> str:
    """The release ``X.Y.Z`` of a torch version string (no local build tag, no pre-release).

    >>> release_of("2.13.0+cpu"), release_of("2.14.1")
    ('2.13.0', '2.14.1')
    """
    match = re.match(r"^(\d+)\.(\d+)\.(\d+)", version)
    if match is None:
        raise ValueError(f"not a torch version: {version!r}")
    return ".".join(match.groups())


def torch_record(release: str) -> Path:
    """The record of the PyTorch rows on torch ``release`` (``X.Y.Z``)."""
    if not _RELEASE.match(release):
        raise ValueError(f"a torch release is X.Y.Z, got {release!r}")
    return RECORDS / f"torch-{release}.json"


def record_files() -> list[Path]:
    """Every record in ``conf/records/``, sorted by name."""
    return sorted(RECORDS.glob("*.json"))


@dataclass(frozen=True)
class TorchRelease:
    """One release of :data:`RELEASES`.

    Its pins are not listed here: ``conf/torch_pins.py`` resolves torch's own requirements for
    the release and writes them where its environment lives (``noxfile.py``).

    >>> TorchRelease("2.14.1")
    TorchRelease(torch='2.14.1')
    """

    torch: str


def torch_releases(path: Path | None = None) -> list[TorchRelease]:
    """The releases listed in ``path`` (default: the packaged copy, else :data:`RELEASES`).

    In file order; raises ValueError naming a bad entry, or a key other than ``torch``.
    """
    path = path if path is not None else claims_file(RELEASES.name)
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    releases: list[TorchRelease] = []
    for index, entry in enumerate(data.get("releases", []), start=1):
        version = entry.get("torch") if isinstance(entry, dict) else None
        if not isinstance(version, str) or not _RELEASE.match(version):
            raise ValueError(f"{path}: release #{index}: torch must be 'X.Y.Z', got {version!r}")
        unknown = sorted(set(entry) - {"torch"})
        if unknown:
            raise ValueError(
                f"{path}: release #{index}: unknown key {', '.join(unknown)} (a release lists its "
                "torch only: its pins are generated, see conf/torch_pins.py)"
            )
        releases.append(TorchRelease(version))
    if not releases:
        raise ValueError(f"{path}: no [[releases]] entry")
    return releases


def library_record(framework: str, release: str) -> Path:
    """The record of ``framework``'s rows on its release ``release`` (``X.Y.Z``)."""
    if not re.fullmatch(r"[a-z][a-z0-9_]*", framework):
        raise ValueError(f"not a framework name: {framework!r}")
    if not _RELEASE.match(release):
        raise ValueError(f"a {framework} release is X.Y.Z, got {release!r}")
    return LIBRARY_RECORDS / f"{framework}-{release}.json"


def library_record_files() -> list[Path]:
    """Every record in ``conf/records/libraries/``, sorted by name."""
    return sorted(LIBRARY_RECORDS.glob("*.json"))


def library_releases(path: Path | None = None) -> dict[str, list[str]]:
    """The releases of each framework in ``path`` (default :data:`LIBRARY_RELEASES`), oldest first.

    The file holds one table per framework with a ``releases`` list of ``X.Y.Z``; raises
    ValueError naming a bad entry.

    >>> library_releases()["transformers"][0]
    '4.40.2'
    """
    path = path if path is not None else LIBRARY_RELEASES
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    found: dict[str, list[str]] = {}
    for framework, table in data.items():
        releases = table.get("releases") if isinstance(table, dict) else None
        if not isinstance(releases, list) or not releases:
            raise ValueError(f"{path}: [{framework}] needs a non-empty releases = [...] list")
        unknown = sorted(set(table) - {"releases"})
        if unknown:
            raise ValueError(f"{path}: [{framework}]: unknown key {', '.join(unknown)}")
        for release in releases:
            if not isinstance(release, str) or not _RELEASE.match(release):
                raise ValueError(f"{path}: [{framework}]: a release is 'X.Y.Z', got {release!r}")
        ordered = sorted(releases, key=lambda r: tuple(int(p) for p in r.split(".")))
        if ordered != releases or len(set(releases)) != len(releases):
            raise ValueError(f"{path}: [{framework}]: list each release once, oldest first")
        found[framework] = list(releases)
    return found
