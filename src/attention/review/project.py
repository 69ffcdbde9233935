"""The modules of one checked tree, so a mask can cross an import.

A file that imports a helper from another module of the same tree (``from .masks import
padding_mask``, ``from mypkg.masks import padding_mask``) calls it as if it were its own: the
checker reads that module (once per run, parsed with :mod:`ast`) and takes what the helper
returns, as it does for a function defined in the same file.

The bound, so the cost and the guesswork stay small:

* one step: what the imported helper returns is read with its parameters unknown, and
  whatever that helper imports in turn is not followed;
* only return values cross: a mask passed *into* an imported function is not followed there,
  and a finding is always reported in the file being checked;
* a module is found only under the tree's root (the folder given on the command line, or the
  file's own folder), by its dotted path (``a/b.py`` or ``a/b/__init__.py``), never in
  site-packages.

The tree also answers one question about itself: whether it runs in float16 (or bfloat16)
anywhere (:meth:`Project.runs_in`), which a fill beyond that dtype's range needs before it is
reported (AM202).  Its modules are searched for :data:`NARROW_WORDS` until the first is
found, at most :data:`MAX_SCANNED_MODULES` of them, skipping hidden folders, ``site-packages``
and ``node_modules`` (a virtual environment inside the tree is not the tree's code).

>>> project = Project(Path("."))
>>> project.module_file(Path("pkg/sub/mod.py"), "", 0) is None
True
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from attention.review.syntax import Source

__all__ = ["Project"]

MAX_MODULE_BYTES = 2_000_000
"""A module larger than this is not read for its helpers (generated code, vendored bundles)."""
MASK_WORDS = re.compile(r"mask|tril|triu|finfo|causal|padd|-inf|\binf\b|\.cat\(|concat\(")
"""A helper is read only if its text names one of these: what it returns may be a mask (or
keys with a cache prepended); the others cannot change a finding and are not worth a parse."""
_HALF = r"\.half\(|torch\.half\b|fp16|autocast|torch\.(?:cuda\.)?amp\b|GradScaler"
NARROW_WORDS = {
    "float16": re.compile(rf"(?<![bB])float16|{_HALF}", re.IGNORECASE),
    "bfloat16": re.compile(rf"b?float16|bf16|{_HALF}", re.IGNORECASE),
}
"""Text that says code runs in a dtype, or in a narrower one.  float16: the dtype (not
bfloat16, whose range holds -1e9), ``.half()``, an ``fp16`` option, autocast and its gradient
scaler; bfloat16: the same, or bfloat16 / ``bf16``.  A comment counts: it is the author saying
so."""
MAX_SCANNED_MODULES = 20_000
"""At most this many modules are searched for :data:`NARROW_WORDS` in one tree."""
_NOT_THE_TREE = frozenset({"site-packages", "node_modules", "__pycache__"})


@dataclass
class Project:
    """The checked tree: where its modules are, and each one parsed at most once."""

    root: Path
    _sources: dict[Path, Source | None] = field(default_factory=dict)
    _texts: dict[Path, str | None] = field(default_factory=dict)
    _relevant: dict[tuple[Path, str], bool] = field(default_factory=dict)
    _files: dict[tuple[Path, str, int], Path | None] = field(default_factory=dict)
    readers: dict[Path, Any] = field(default_factory=dict)
    """Each module's interpreter, once it has read the module (kept by the interpreter)."""
    _resolved: dict[Path, Path] = field(default_factory=dict)
    _runs_in: dict[str, bool] = field(default_factory=dict)

    def runs_in(self, dtype: str) -> bool:
        """Whether any module of the tree names ``dtype`` (:data:`NARROW_WORDS`); asked once.

        >>> words = NARROW_WORDS["float16"]
        >>> [bool(words.search(text)) for text in ("x.half()", "--fp16", "torch.bfloat16")]
        [True, True, False]
        """
        if dtype not in self._runs_in:
            words = NARROW_WORDS[dtype]
            self._runs_in[dtype] = any(
                text is not None and words.search(text) is not None
                for text in map(_read, _modules(self.resolve(self.root)))
            )
        return self._runs_in[dtype]

    def resolve(self, path: Path) -> Path:
        """``path.resolve()``, asked of the file system once per path and run."""
        found = self._resolved.get(path)
        if found is None:
            found = self._resolved[path] = path.resolve()
        return found

    def module_file(self, importer: Path, module: str, level: int) -> Path | None:
        """The file of ``module`` as imported from ``importer`` (``level`` leading dots)."""
        key = (importer.parent, module, level)
        if key not in self._files:
            self._files[key] = self._find(importer, module, level)
        return self._files[key]

    def _find(self, importer: Path, module: str, level: int) -> Path | None:
        parts = [part for part in module.split(".") if part]
        if level:
            base = self.resolve(importer).parent
            for _ in range(level - 1):
                base = base.parent
            return _existing(base, parts)
        root = self.resolve(self.root)
        folder = self.resolve(importer).parent
        # an absolute import: under the root, from the importer's folder upwards
        while True:
            found = _existing(folder, parts) if parts else None
            if found is not None:
                return found
            if folder == root or root not in folder.parents:
                return None
            folder = folder.parent

    def source(self, path: Path, function: str) -> Source | None:
        """The parsed module at ``path``, if ``function`` there may make a mask, else None.

        The function's text is found without parsing (``def function(`` at the left margin,
        up to the next line there); a module is parsed only for a function that names a mask.
        """
        key = self.resolve(path)
        if (key, function) not in self._relevant:
            self._relevant[key, function] = self._names_a_mask(key, function)
        if not self._relevant[key, function]:
            return None
        text = self._texts[key]
        assert text is not None
        if key not in self._sources:
            self._sources[key] = _parse(key, text)
        return self._sources[key]

    def _names_a_mask(self, key: Path, function: str) -> bool:
        if key not in self._texts:
            self._texts[key] = _read(key)
        text = self._texts[key]
        if text is None:
            return False
        found = re.search(rf"^(async )?def {re.escape(function)}\(", text, re.M)
        if found is None:
            return False
        end = _MARGIN.search(text, found.end())
        return MASK_WORDS.search(text, found.start(), end.start() if end else len(text)) is not None


def _modules(root: Path) -> Iterator[Path]:
    """The tree's ``.py`` files, at most :data:`MAX_SCANNED_MODULES`, none in hidden folders."""
    count = 0
    for folder, folders, names in os.walk(root):
        folders[:] = sorted(
            name for name in folders if not name.startswith(".") and name not in _NOT_THE_TREE
        )
        for name in sorted(names):
            if name.endswith(".py"):
                yield Path(folder, name)
                count += 1
                if count >= MAX_SCANNED_MODULES:
                    return


def _existing(base: Path, parts: list[str]) -> Path | None:
    if not parts:
        init = base / "__init__.py"
        return init if init.is_file() else None
    as_file = base.joinpath(*parts[:-1], f"{parts[-1]}.py")
    if as_file.is_file():
        return as_file
    as_package = base.joinpath(*parts, "__init__.py")
    return as_package if as_package.is_file() else None


_MARGIN = re.compile(r"^\S", re.M)


def _read(path: Path) -> str | None:
    try:
        if path.stat().st_size > MAX_MODULE_BYTES:
            return None
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _parse(path: Path, text: str) -> Source | None:
    try:
        return Source(text, ast.parse(text, filename=str(path)))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
