"""``[tool.attention-review]`` in pyproject.toml, and the inline suppressions of a line.

The table is looked up from the checked paths upward (the first ``pyproject.toml`` that has
it)::

    [tool.attention-review]
    select = ["AM1", "AM2"]          # codes or prefixes; default: every rule
    ignore = ["AM501"]
    per-file-ignores = { "tests/*" = ["AM105"] }
    base-url = "https://example.org/attention/"
    version = "0.1.0"

A line ending in ``# attention: ignore[AM101]``, ``# noqa: AM101`` or a bare ``# noqa``
suppresses those findings (or every finding) on it.

>>> suppressed("x = f(m)  # noqa: AM101, AM202", "AM202")
True
>>> suppressed("x = f(m)  # attention: ignore[AM101]", "AM202")
False
"""

from __future__ import annotations

import fnmatch
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from attention.review.rules import RULES

__all__ = ["Config", "ConfigError", "find_config", "load_config", "suppressed"]


class ConfigError(ValueError):
    """The ``[tool.attention-review]`` table, or an option on the command line, is invalid."""


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

    def enabled(self, code: str, path: str) -> bool:
        """Say whether rule ``code`` runs on ``path``."""
        if self.select and not any(code.startswith(prefix) for prefix in self.select):
            return False
        if any(code.startswith(prefix) for prefix in self.ignore):
            return False
        relative = path
        if self.root is not None:
            try:
                relative = str(Path(path).resolve().relative_to(self.root))
            except ValueError:
                relative = path
        for pattern, codes in self.per_file_ignores.items():
            matches = fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(path, pattern)
            if matches and any(code.startswith(prefix) for prefix in codes):
                return False
        return True


def _codes(where: str, value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [part for part in re.split(r"[,\s]+", value) if part]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f'{where} must be a list of rule codes (e.g. ["AM101"]), got {value!r}')
    known = [rule.code for rule in RULES]
    for item in value:
        if not any(code.startswith(item) for code in known):
            raise ConfigError(f"{where}: {item!r} matches no rule (the rules are AM101…AM802)")
    return tuple(value)


def codes(where: str, value: object) -> tuple[str, ...]:
    """Rule codes or prefixes from a list or a comma-separated string; ConfigError otherwise."""
    return _codes(where, value)


def find_config(paths: Iterable[str]) -> Path | None:
    """The first pyproject.toml with a ``[tool.attention-review]`` table, from the paths up."""
    seen: set[Path] = set()
    for raw in paths:
        start = Path.cwd() if raw == "-" else Path(raw).resolve()
        for folder in [start, *start.parents]:
            if folder in seen:
                break
            seen.add(folder)
            candidate = folder / "pyproject.toml"
            if candidate.is_file():
                try:
                    data = tomllib.loads(candidate.read_text(encoding="utf-8"))
                except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
                    raise ConfigError(f"{candidate}: not valid TOML ({error})") from None
                if "attention-review" in data.get("tool", {}):
                    return candidate
    return None


def load_config(pyproject: Path | None) -> Config:
    """The configuration in ``pyproject`` (defaults when None)."""
    if pyproject is None:
        return Config()
    table = tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["attention-review"]
    where = f"{pyproject} [tool.attention-review]"
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table")
    unknown = set(table) - {"select", "ignore", "per-file-ignores", "base-url", "version"}
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise ConfigError(f"{where} per-file-ignores must be a table of pattern = [codes]")
    for key in ("base-url", "version"):
        if key in table and not isinstance(table[key], str):
            raise ConfigError(f"{where} {key} must be a string, got {table[key]!r}")
    return Config(
        select=_codes(f"{where} select", table.get("select", [])),
        ignore=_codes(f"{where} ignore", table.get("ignore", [])),
        per_file_ignores={
            pattern: _codes(f"{where} per-file-ignores {pattern!r}", value)
            for pattern, value in per_file.items()
        },
        base_url=table.get("base-url"),
        version=table.get("version"),
        root=pyproject.parent,
    )
