"""The configuration of each checked file, and the inline suppressions of a line.

Each file takes the nearest configuration in its folder or above it, as ruff finds its own:
an ``attention-review.toml`` (its keys at the top level), or a ``pyproject.toml`` that has a
``[tool.attention-review]`` table (one without the table is passed over); in one folder the
``attention-review.toml`` wins.  ``--config FILE`` names one file for every checked file
instead.  Standard input takes the configuration of the current folder::

    [tool.attention-review]
    select = ["AM1", "AM2"]          # codes or prefixes; default: every rule
    ignore = ["AM501"]
    per-file-ignores = { "tests/*" = ["AM105"] }   # patterns relative to this file's folder
    base-url = "https://example.org/attention/"
    version = "0.1.0"

``base-url`` and ``version`` say where the cited site lives, for the whole run: they are read
from ``--config``, else from the configuration of the folder that holds every checked path.

A line ending in ``# attention: ignore[AM101]``, ``# noqa: AM101`` or a bare ``# noqa``
suppresses those findings (or every finding) on it; the command line and the flake8 plugin
read the same files and the same comments.

>>> suppressed("x = f(m)  # noqa: AM101, AM202", "AM202")
True
>>> suppressed("x = f(m)  # attention: ignore[AM101]", "AM202")
False
"""

from __future__ import annotations

import fnmatch
import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from attention.review.check import Finding
from attention.review.rules import RULES

__all__ = [
    "CONFIG_FILES",
    "Config",
    "ConfigError",
    "Configs",
    "codes",
    "read_config",
    "suppressed",
]

CONFIG_FILES = ("attention-review.toml", "pyproject.toml")
"""The files that may configure the checker, in the order they are looked for in a folder."""

KEYS = ("select", "ignore", "per-file-ignores", "base-url", "version")


class ConfigError(ValueError):
    """A configuration file, or an option on the command line, is invalid."""


_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.I)
_IGNORE = re.compile(r"#\s*attention:\s*ignore(?:\[(?P<codes>[^\]]*)\])?")


def suppressed(line: str, code: str) -> bool:
    """Say whether ``line`` carries an inline suppression that covers ``code``."""
    if "#" not in line:
        return False
    for pattern in (_NOQA, _IGNORE):
        for match in pattern.finditer(line):
            codes = match.group("codes")
            if codes is None:
                return True
            if code in re.split(r"[,\s]+", codes.strip()):
                return True
    return False


@dataclass(frozen=True)
class Config:
    """Which rules run (on which files) and where the cited site lives."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    base_url: str | None = None
    version: str | None = None
    root: Path | None = None
    """The folder the ``per-file-ignores`` patterns are relative to."""
    source: Path | None = None
    """The file it was read from (None: the defaults)."""

    def enabled(self, code: str, path: str) -> bool:
        """Say whether rule ``code`` runs on ``path``."""
        if self.select and not any(code.startswith(prefix) for prefix in self.select):
            return False
        if any(code.startswith(prefix) for prefix in self.ignore):
            return False
        relative = path
        if self.root is not None:
            inside = os.path.relpath(os.path.abspath(path), self.root)
            if not inside.startswith(os.pardir):
                relative = Path(inside).as_posix()
        for pattern, codes in self.per_file_ignores.items():
            matches = fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(path, pattern)
            if matches and any(code.startswith(prefix) for prefix in codes):
                return False
        return True

    def keeps(self, finding: Finding, lines: Sequence[str]) -> bool:
        """Say whether ``finding`` is reported.

        It is when its rule runs on its file and no comment on the lines it spans (``lines`` are
        its module's) suppresses it.
        """
        if not self.enabled(finding.code, finding.path):
            return False
        spanned = lines[finding.line - 1 : finding.end_line]
        return not any(suppressed(line, finding.code) for line in spanned)


def _codes(where: str, value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [part for part in re.split(r"[,\s]+", value) if part]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f'{where} must be a list of rule codes (e.g. ["AM101"]), got {value!r}')
    known = sorted(rule.code for rule in RULES)
    for item in value:
        if not any(code.startswith(item) for code in known):
            # the range from the rules themselves: a written range went stale when AM804 came
            raise ConfigError(
                f"{where}: {item!r} matches no rule (the rules are {known[0]}…{known[-1]})"
            )
    return tuple(value)


def codes(where: str, value: object) -> tuple[str, ...]:
    """Rule codes or prefixes from a list or a comma-separated string; ConfigError otherwise."""
    return _codes(where, value)


def _load(path: Path) -> dict[str, object]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigError(f"{path}: cannot be read ({error.strerror})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: not valid TOML ({error})") from None
    return data


def _table(path: Path, data: Mapping[str, object]) -> Mapping[str, object] | None:
    """The checker's keys in a configuration file's data (None: a pyproject.toml without them)."""
    if path.name != "pyproject.toml":
        return data
    tool = data.get("tool")
    if not isinstance(tool, dict) or "attention-review" not in tool:
        return None
    table = tool["attention-review"]
    if not isinstance(table, dict):
        raise ConfigError(f"{path} [tool.attention-review] must be a table")
    return table


def read_config(path: Path, root: Path | None = None) -> Config:
    """The configuration in ``path`` (a pyproject.toml's table, or an attention-review.toml).

    ``per-file-ignores`` patterns are relative to ``root`` (default: the file's folder).
    """
    table = _table(path, _load(path))
    if table is None:
        raise ConfigError(f"{path}: no [tool.attention-review] table")
    where = f"{path} [tool.attention-review]" if path.name == "pyproject.toml" else str(path)
    unknown = set(table) - set(KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise ConfigError(f"{where} per-file-ignores must be a table of pattern = [codes]")
    for key in ("base-url", "version"):
        if key in table and not isinstance(table[key], str):
            raise ConfigError(f"{where} {key} must be a string, got {table[key]!r}")
    base_url, version = table.get("base-url"), table.get("version")
    return Config(
        select=_codes(f"{where} select", table.get("select", [])),
        ignore=_codes(f"{where} ignore", table.get("ignore", [])),
        per_file_ignores={
            pattern: _codes(f"{where} per-file-ignores {pattern!r}", value)
            for pattern, value in per_file.items()
        },
        base_url=base_url if isinstance(base_url, str) else None,
        version=version if isinstance(version, str) else None,
        root=Path(os.path.abspath(root or path.parent)),
        source=path,
    )


class Configs:
    """Each checked file's configuration, found once per folder.

    ``config_file`` (``--config``) replaces every configuration found; ``select``, ``ignore``,
    ``base_url`` and ``version`` (the command line's options) apply over whichever is used.
    """

    def __init__(
        self,
        config_file: str | None = None,
        *,
        select: tuple[str, ...] | None = None,
        ignore: tuple[str, ...] = (),
        base_url: str | None = None,
        version: str | None = None,
    ) -> None:
        self.select = select
        self.ignore = ignore
        self.base_url = base_url
        self.version = version
        self._folders: dict[Path, Path | None] = {}
        self._read: dict[Path, Config | ConfigError] = {}
        self.fixed: Config | None = None
        if config_file is not None:
            path = Path(config_file)
            if not path.is_file():
                raise ConfigError(f"--config {config_file}: no such file")
            self.fixed = read_config(path, root=Path.cwd())

    def nearest(self, folder: Path) -> Path | None:
        """The configuration file that governs ``folder`` (None: none does)."""
        if folder in self._folders:
            return self._folders[folder]
        found: Path | None = None
        for name in CONFIG_FILES:
            candidate = folder / name
            if candidate.is_file() and self._governs(candidate):
                found = candidate
                break
        else:
            if folder.parent != folder:
                found = self.nearest(folder.parent)
        self._folders[folder] = found
        return found

    def _governs(self, candidate: Path) -> bool:
        if candidate.name != "pyproject.toml":
            return True
        try:
            return _table(candidate, _load(candidate)) is not None
        except ConfigError:
            return True  # a broken pyproject.toml is named, not passed over

    def _config(self, path: Path | None) -> Config:
        if path is None:
            return Config()
        if path not in self._read:
            try:
                self._read[path] = read_config(path)
            except ConfigError as error:
                self._read[path] = error
        found = self._read[path]
        if isinstance(found, ConfigError):
            raise found
        return found

    def _folder(self, name: str) -> Path:
        if name == "-":
            return Path.cwd()
        return Path(os.path.abspath(name)).parent

    def for_path(self, name: str) -> Config:
        """The configuration of the file ``name`` (``-``: standard input).

        ConfigError when that configuration is invalid.
        """
        config = self.fixed or self._config(self.nearest(self._folder(name)))
        return self._options(config)

    def for_run(self, paths: Sequence[str]) -> Config:
        """The configuration of the run's site links.

        ``--config``, else that of the folder holding every path (the defaults where it cannot
        be read).
        """
        if self.fixed is not None:
            return self._options(self.fixed)
        folders = [str(self._folder(path)) if not os.path.isdir(path) else path for path in paths]
        try:
            common = Path(os.path.commonpath([os.path.abspath(f) for f in folders]))
            return self._options(self._config(self.nearest(common)))
        except (ValueError, ConfigError):
            return self._options(Config())

    def _options(self, config: Config) -> Config:
        return replace(
            config,
            select=self.select if self.select is not None else config.select,
            ignore=config.ignore + self.ignore,
            base_url=self.base_url or config.base_url,
            version=self.version or config.version,
        )
