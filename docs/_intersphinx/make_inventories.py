"""Write the two intersphinx inventories the site links against, so the build needs no network.

The site cross-links PyTorch and Python objects (``{py:class}`torch.Tensor```, type hints in the API
reference).  Sphinx resolves such links through a project's ``objects.inv``; downloading those at
build time would make the build depend on the network, so this script writes small inventories
with exactly the objects the site refers to, each with its real URL on docs.pytorch.org or
docs.python.org.  The files are committed; rerun the script after adding an object::

    python docs/_intersphinx/make_inventories.py

A reference to an object missing from these lists fails the nitpicky build (``-n -W``) with
"py:class reference target not found", which is the signal to add it here.

The inventories are written with :class:`sphinx.util.inventory.InventoryFile` (format version 2)
and read back to check every entry round-trips.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from sphinx.util.inventory import InventoryFile

HERE = Path(__file__).resolve().parent

TORCH_URL = "https://docs.pytorch.org/docs/stable/"
PYTHON_URL = "https://docs.python.org/3/"


@dataclass(frozen=True)
class Entry:
    """One object: its dotted name, Sphinx role, page (relative to the base URL) and anchor."""

    name: str
    role: str  # "class", "function", "method", "data", "exception", "module", "attribute"
    page: str
    anchor: str


def _generated(name: str, role: str, *, page: str | None = None) -> Entry:
    """PyTorch's autosummary layout: generated/<name>.html#<name>."""
    return Entry(name, role, f"generated/{page or name}.html", name)


# Every PyTorch object the pages and the API reference refer to.  Names under
# ``torch.nn.modules.*`` are the paths autodoc prints for base classes; they point at the public
# page of the same class.
TORCH: tuple[Entry, ...] = (
    Entry("torch", "module", "torch.html", "module-torch"),
    Entry("torch.Tensor", "class", "tensors.html", "torch.Tensor"),
    Entry("torch.dtype", "class", "tensor_attributes.html", "torch.dtype"),
    Entry("torch.device", "class", "tensor_attributes.html", "torch.device"),
    Entry("torch.Size", "class", "size.html", "torch.Size"),
    Entry("torch.finfo", "class", "type_info.html", "torch.torch.finfo"),
    _generated("torch.Tensor.masked_fill", "method"),
    _generated("torch.Tensor.softmax", "method"),
    _generated("torch.softmax", "function"),
    _generated("torch.matmul", "function"),
    _generated("torch.tensor", "function"),
    _generated("torch.randn", "function"),
    _generated("torch.manual_seed", "function"),
    _generated("torch.tril", "function"),
    _generated("torch.triu", "function"),
    _generated("torch.where", "function"),
    _generated("torch.allclose", "function"),
    _generated("torch.nn.Module", "class"),
    Entry(
        "torch.nn.modules.module.Module",
        "class",
        "generated/torch.nn.Module.html",
        "torch.nn.Module",
    ),
    _generated("torch.nn.Linear", "class"),
    _generated("torch.nn.Dropout", "class"),
    _generated("torch.nn.MultiheadAttention", "class"),
    Entry(
        "torch.nn.modules.activation.MultiheadAttention",
        "class",
        "generated/torch.nn.MultiheadAttention.html",
        "torch.nn.MultiheadAttention",
    ),
    _generated("torch.nn.MultiheadAttention.forward", "method", page="torch.nn.MultiheadAttention"),
    _generated("torch.nn.Transformer", "class"),
    _generated(
        "torch.nn.Transformer.generate_square_subsequent_mask",
        "method",
        page="torch.nn.Transformer",
    ),
    _generated("torch.nn.Transformer.forward", "method", page="torch.nn.Transformer"),
    _generated("torch.nn.TransformerEncoder", "class"),
    _generated("torch.nn.TransformerDecoder", "class"),
    _generated("torch.nn.TransformerEncoderLayer", "class"),
    _generated("torch.nn.TransformerDecoderLayer", "class"),
    _generated("torch.nn.functional.scaled_dot_product_attention", "function"),
    _generated("torch.nn.functional.softmax", "function"),
    _generated("torch.nn.functional.dropout", "function"),
    _generated("torch.nn.functional.linear", "function"),
    _generated("torch.nn.functional.multi_head_attention_forward", "function"),
    _generated("torch.nn.attention.sdpa_kernel", "function"),
    _generated("torch.nn.attention.SDPBackend", "class"),
    _generated("torch.nn.attention.bias.CausalBias", "class"),
    _generated("torch.nn.attention.bias.CausalVariant", "class"),
    _generated("torch.nn.attention.bias.causal_lower_right", "function"),
    _generated("torch.nn.attention.bias.causal_upper_left", "function"),
    Entry(
        "torch.nn.attention.flex_attention",
        "module",
        "nn.attention.flex_attention.html",
        "module-torch.nn.attention.flex_attention",
    ),
    Entry(
        "torch.nn.attention.flex_attention.flex_attention",
        "function",
        "nn.attention.flex_attention.html",
        "torch.nn.attention.flex_attention.flex_attention",
    ),
    Entry(
        "torch.nn.attention.flex_attention.create_block_mask",
        "function",
        "nn.attention.flex_attention.html",
        "torch.nn.attention.flex_attention.create_block_mask",
    ),
    Entry(
        "torch.nn.attention.flex_attention.BlockMask",
        "class",
        "nn.attention.flex_attention.html",
        "torch.nn.attention.flex_attention.BlockMask",
    ),
    _generated("torch.utils.flop_counter.FlopCounterMode", "class"),
    _generated(
        "torch.utils.flop_counter.FlopCounterMode.get_total_flops",
        "method",
        page="torch.utils.flop_counter.FlopCounterMode",
    ),
)


def _builtin(name: str, role: str = "class") -> Entry:
    return Entry(name, role, "library/functions.html", name)


def _stdtype(name: str) -> Entry:
    return Entry(name, "class", "library/stdtypes.html", name)


def _exception(name: str) -> Entry:
    return Entry(name, "exception", "library/exceptions.html", name)


# Python objects that appear in signatures, type hints and prose.
PYTHON: tuple[Entry, ...] = (
    _builtin("int"),
    _builtin("float"),
    _builtin("bool"),
    _builtin("object"),
    _builtin("type"),
    _builtin("isinstance", "function"),
    _builtin("len", "function"),
    _builtin("round", "function"),
    _stdtype("str"),
    _stdtype("tuple"),
    _stdtype("list"),
    _stdtype("dict"),
    _stdtype("set"),
    _stdtype("range"),
    Entry("None", "data", "library/constants.html", "None"),
    Entry("True", "data", "library/constants.html", "True"),
    Entry("False", "data", "library/constants.html", "False"),
    _exception("Exception"),
    _exception("ValueError"),
    _exception("TypeError"),
    _exception("IndexError"),
    _exception("RuntimeError"),
    Entry("math.sqrt", "function", "library/math.html", "math.sqrt"),
    Entry("math.log", "function", "library/math.html", "math.log"),
    Entry("math.exp", "function", "library/math.html", "math.exp"),
    Entry("math.inf", "data", "library/math.html", "math.inf"),
    Entry("typing.Literal", "data", "library/typing.html", "typing.Literal"),
    Entry("typing.Any", "data", "library/typing.html", "typing.Any"),
    Entry("typing.Self", "data", "library/typing.html", "typing.Self"),
    Entry("typing.TypeAlias", "data", "library/typing.html", "typing.TypeAlias"),
    Entry(
        "collections.abc.Sequence",
        "class",
        "library/collections.abc.html",
        "collections.abc.Sequence",
    ),
    Entry(
        "collections.abc.Callable",
        "class",
        "library/collections.abc.html",
        "collections.abc.Callable",
    ),
    Entry(
        "collections.abc.Iterable",
        "class",
        "library/collections.abc.html",
        "collections.abc.Iterable",
    ),
    Entry(
        "collections.abc.Mapping",
        "class",
        "library/collections.abc.html",
        "collections.abc.Mapping",
    ),
    Entry("pathlib.Path", "class", "library/pathlib.html", "pathlib.Path"),
    Entry(
        "dataclasses.dataclass",
        "function",
        "library/dataclasses.html",
        "dataclasses.dataclass",
    ),
    Entry("doctest", "module", "library/doctest.html", "module-doctest"),
)


class _Config:
    def __init__(self, project: str, version: str) -> None:
        self.project = project
        self.version = version


class _Domain:
    """The part of a Sphinx domain that ``InventoryFile.dump`` reads."""

    name = "py"

    def __init__(self, entries: tuple[Entry, ...]) -> None:
        self._entries = entries

    def get_objects(self) -> Iterator[tuple[str, str, str, str, str, int]]:
        for entry in self._entries:
            # (fullname, dispname, type, docname, anchor, priority); the page stands in for the
            # docname and _Builder.get_target_uri returns it unchanged.
            yield entry.name, entry.name, entry.role, entry.page, entry.anchor, 1


class _Domains:
    def __init__(self, domain: _Domain) -> None:
        self._domain = domain

    def sorted(self) -> list[_Domain]:
        return [self._domain]


class _Env:
    def __init__(self, project: str, version: str, entries: tuple[Entry, ...]) -> None:
        self.config = _Config(project, version)
        self.domains = _Domains(_Domain(entries))


class _Builder:
    @staticmethod
    def get_target_uri(docname: str) -> str:
        return docname


def write(path: Path, project: str, version: str, base: str, entries: tuple[Entry, ...]) -> None:
    """Write ``entries`` as a version-2 inventory and check that it reads back identically."""
    names = [entry.name for entry in entries]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise SystemExit(f"{path.name}: duplicate entries {duplicates}")
    InventoryFile.dump(path, _Env(project, version, entries), _Builder())  # type: ignore[arg-type]
    inventory = InventoryFile.loads(path.read_bytes(), uri=base)
    for entry in entries:
        item = inventory[f"py:{entry.role}", entry.name]
        expected = f"{base}{entry.page}#{entry.anchor}"
        if item.uri != expected:
            raise SystemExit(f"{path.name}: {entry.name} reads back as {item.uri}, not {expected}")
    print(f"wrote {path.relative_to(HERE.parent.parent)}: {len(entries)} objects")


def main() -> int:
    write(HERE / "torch-objects.inv", "PyTorch", "stable", TORCH_URL, TORCH)
    write(HERE / "python-objects.inv", "Python", "3", PYTHON_URL, PYTHON)
    return 0


if __name__ == "__main__":
    sys.exit(main())
