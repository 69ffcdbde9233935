r"""The checker's words in the reader's language, from the site's own catalogue.

The rules' headlines and fixes and the report's labels are messages of the site's gettext
catalogue ``review/registry`` (``docs/locales/zh_CN/LC_MESSAGES/review/registry.po``, which the
site's Chinese rule pages use too), so the command line and the pages say the same words.  An
installed wheel carries a copy of that file (``attention/review/locales/``); a checkout reads it
where it is.  The catalogue is read with the few lines below rather than compiled to ``.mo``: the
checker installs nothing beside itself, and this catalogue uses only plain ``msgid`` /
``msgstr`` pairs.  What the checker infers about a line (``inferred``, ``expects``) is
generated text and stays in English.

>>> Catalogue("zh_CN").gettext("fix")
'修正'
>>> Catalogue("en").gettext("fix")
'fix'
>>> language_of({"LANG": "zh_CN.UTF-8"}), language_of({"LANG": "C.UTF-8"})
('zh_CN', 'en')
"""

from __future__ import annotations

import ast
import functools
import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["LABELS", "LANGUAGES", "Catalogue", "catalogue", "language_of"]

LANGUAGES = ("en", "zh_CN")

LABELS = ("inferred", "expects", "fix", "row", "rule", "error", "warning", "finding", "findings")
"""The report's own words, translated with the rules' texts."""

_INSTALLED = Path(__file__).parent / "locales" / "zh_CN" / "registry.po"
_CHECKOUT = (
    Path(__file__).resolve().parents[3]
    / "docs"
    / "locales"
    / "zh_CN"
    / "LC_MESSAGES"
    / "review"
    / "registry.po"
)


def language_of(environment: Mapping[str, str] = os.environ) -> str:
    """The reader's language from the locale variables, as gettext reads them (zh* is zh_CN)."""
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = environment.get(name, "")
        if value:
            return "zh_CN" if value.split(":")[0].lower().startswith("zh") else "en"
    return "en"


class Catalogue:
    """One language's translations of the registry's messages (English is the identity)."""

    def __init__(self, language: str) -> None:
        if language not in LANGUAGES:
            raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, got {language!r}")
        self.language = language
        self.messages: dict[str, str] = {} if language == "en" else _read_po(_catalogue_file())

    def gettext(self, message: str) -> str:
        """``message`` in this language (as it is, where the catalogue has no translation)."""
        return self.messages.get(message) or message


@functools.cache
def catalogue(language: str) -> Catalogue:
    """The catalogue of ``language``, read once."""
    return Catalogue(language)


def _catalogue_file() -> Path:
    for path in (_INSTALLED, _CHECKOUT):
        if path.is_file():
            return path
    raise FileNotFoundError(
        f"the Chinese catalogue is missing: neither {_INSTALLED} nor {_CHECKOUT}"
    )


def _read_po(path: Path) -> dict[str, str]:
    """``msgid`` → ``msgstr`` of a catalogue, fuzzy and untranslated entries left out."""
    messages: dict[str, str] = {}
    entry: dict[str, list[str]] = {}
    key = ""
    fuzzy = False

    def finish() -> None:
        nonlocal entry, fuzzy
        source, target = "".join(entry.get("msgid", [])), "".join(entry.get("msgstr", []))
        if source and target and not fuzzy:
            messages[source] = target
        entry, fuzzy = {}, False

    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line:
            finish()
        elif line.startswith("#,") and "fuzzy" in line:
            fuzzy = True
        elif line.startswith("#"):
            continue
        elif line.startswith(("msgid ", "msgstr ")):
            key, _, text = line.partition(" ")
            if key == "msgid" and "msgstr" in entry:
                finish()
            entry[key] = [ast.literal_eval(text)]
        elif line.startswith('"') and key:
            entry[key].append(ast.literal_eval(line))
    finish()
    return messages
