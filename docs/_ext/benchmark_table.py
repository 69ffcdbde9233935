"""The ``benchmark-table`` directive: the committed benchmark record as tables.

The record is ``docs/_data/benchmark.json``, written by ``nox -s bench`` (``python -m
attention.benchmark``).  In MyST::

    ```{benchmark-table}
    :part: sweep
    ```

``:part:`` is ``provenance`` (machine, load, torch, date), ``sweep`` (time and extra peak memory
per implementation and sequence length, next to the cost model's score-matrix size; ``:pass:``
chooses ``forward``, the default, or ``forward_backward``), ``dense-vs-math`` (both passes) or
``goals``.  Column heads go through gettext, English being the message id (catalogue ``site``,
``docs/_ext/site_messages.py``); numbers come from the record only, so both languages show the
same figures.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from site_messages import _
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective
from sphinx.util.typing import ExtensionMetadata

from attention.cost import attention_cost

RECORD = Path(__file__).resolve().parents[1] / "_data" / "benchmark.json"
MIB = 2**20
PASSES = ("forward", "forward_backward")  # the record's passes (attention.benchmark.PASSES)


def _labels() -> dict[str, str]:
    """The tables' strings in the build's language (gettext catalogue ``site``)."""
    return {
        "T": "T",  # a name: the same in every language
        "mask": _("mask"),
        "none": _("none"),
        "causal": _("causal"),
        # Translators: a column head: what is measured ("tiled") and the quantity ("time (ms)")
        "column": _("{what}: {quantity}"),
        "time": _("time (ms)"),
        "memory": _("extra peak memory (MiB)"),
        "torch_default": _("torch default kernel"),
        "torch_math": _("torch math backend"),
        "dense": _("dense reference"),
        "tiled": _("tiled"),
        "model": _("cost model: scores + weights (MiB)"),
        "goal": _("goal"),
        "ratio": _("measured ratio"),
        "target": _("target"),
        "met": _("met"),
        "yes": _("yes"),
        "no": _("no"),
        "field": _("field"),
        "value": _("value"),
        "date": _("date"),
        "torch": "torch",  # a name: the same in every language
        "python": "Python",  # a name: the same in every language
        "cpu": "CPU",  # a name: the same in every language
        "cores": _("cores"),
        "torch_threads": _("torch threads"),
        "platform": _("platform"),
        "repeats": _("interleaved timing rounds per figure (median)"),
        "timer": _("timer"),
        "load": _("load average (1, 5, 15 min) before / after"),
        "config": _("configuration"),
        "forward": _("forward"),
        "forward_backward": _("forward + backward"),
        "tiled_memory_vs_dense_T8192": _("tiled / dense extra peak memory, T = 8192"),
        "tiled_time_vs_torch_default_T4096": _(
            "tiled / torch default kernel time, forward, T = 4096"
        ),
        "tiled_forward_backward_time_vs_torch_default_T4096": _(
            "tiled / torch default kernel time, forward + backward, T = 4096"
        ),
        "tiled_forward_backward_memory_vs_dense_T4096": _(
            "tiled / dense extra peak memory, forward + backward, T = 4096"
        ),
        "dense_time_vs_torch_math_B4_T1024_causal": _(
            "dense reference / torch math backend time, B = 4, L = S = 1024, causal"
        ),
    }


def load_record(path: Path = RECORD) -> dict[str, Any]:
    """The committed benchmark record."""
    record: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return record


def _table(head: list[str], rows: list[list[str]]) -> nodes.table:
    table = nodes.table(classes=["benchmark-table"])
    group = nodes.tgroup(cols=len(head))
    table += group
    group.extend(nodes.colspec(colwidth=1) for _ in head)
    thead, tbody = nodes.thead(), nodes.tbody()
    for target, cells in ((thead, [head]), (tbody, rows)):
        for cells_row in cells:
            row = nodes.row()
            for text in cells_row:
                row += nodes.entry("", nodes.paragraph(text=text))
            target += row
    group += thead
    group += tbody
    return table


class BenchmarkTable(SphinxDirective):
    """Render one part of the benchmark record."""

    option_spec: ClassVar[dict[str, Any]] = {
        "part": directives.unchanged_required,
        "pass": lambda argument: directives.choice(argument, PASSES),
    }

    def run(self) -> list[nodes.Node]:
        self.env.note_dependency(str(RECORD))
        label = _labels()
        record = load_record()
        part = self.options.get("part", "sweep")
        if part == "provenance":
            machine = record["machine"]
            rows = [
                [label["date"], record["date"]],
                [label["torch"], record["torch"]],
                [label["python"], record["python"]],
                [label["cpu"], machine["cpu"]],
                [label["cores"], str(machine["cores"])],
                [label["torch_threads"], str(machine["torch_threads"])],
                [label["platform"], machine["platform"]],
                [label["repeats"], str(record["repeats"])],
            ]
            if "load_average" in record:  # schema 2
                load = record["load_average"]
                before, after = (
                    ", ".join(f"{x:.1f}" for x in load[k]) for k in ("before", "after")
                )
                rows += [[label["timer"], record["timer"]], [label["load"], f"{before} / {after}"]]
            return [_table([label["field"], label["value"]], rows)]
        if part == "sweep":
            return [self._sweep(self._rows(record, self.options.get("pass", "forward")), label)]
        if part == "dense-vs-math":
            times: dict[str, dict[str, str]] = {}
            for row in record["dense_vs_math"]:
                pass_name = row.get("pass", "forward")  # schema 1 timed the forward pass only
                times.setdefault(row["impl"], {})[pass_name] = f"{row['seconds_median'] * 1000:.1f}"
            head = [label["config"]] + [
                label["column"].format(what=label[p], quantity=label["time"]) for p in PASSES
            ]
            rows = [
                [label[impl]] + [by_pass.get(p, "–") for p in PASSES]
                for impl, by_pass in times.items()
            ]
            return [_table(head, rows)]
        if part == "goals":
            rows = []
            for name, goal in record["goals"].items():
                ratio = "–" if goal["ratio"] is None else f"{goal['ratio']:.3f}"
                met = "–" if goal["met"] is None else label["yes" if goal["met"] else "no"]
                rows.append([label[name], ratio, goal["target"], met])
            head = [label["goal"], label["ratio"], label["target"], label["met"]]
            return [_table(head, rows)]
        raise self.error(f"unknown :part: {part!r}; use provenance, sweep, dense-vs-math or goals")

    def _rows(self, record: dict[str, Any], pass_name: str) -> list[dict[str, Any]]:
        """The sweep rows of one pass: ``sweep`` is the forward pass in every schema."""
        rows: list[dict[str, Any]] | None = record.get(
            "sweep" if pass_name == "forward" else "forward_backward"
        )
        if rows is None:
            raise self.error(
                f"{RECORD} has no {pass_name} figures (schema {record.get('schema', 1)}); "
                "regenerate it with nox -s bench"
            )
        return rows

    @staticmethod
    def _sweep(sweep: list[dict[str, Any]], label: dict[str, str]) -> nodes.table:
        impls = ("torch_default", "dense", "tiled")
        cells: dict[tuple[int, bool], dict[str, dict[str, Any]]] = {}
        for row in sweep:
            cells.setdefault((row["length"], row["masked"]), {})[row["impl"]] = row
        head = [label["T"], label["mask"]]
        head += [label["column"].format(what=label[i], quantity=label["time"]) for i in impls]
        head += [label["column"].format(what=label[i], quantity=label["memory"]) for i in impls]
        head.append(label["model"])
        rows = []
        for (length, masked), by_impl in sorted(cells.items()):
            first = next(iter(by_impl.values()))
            cost = attention_cost(
                batch=first["batch"],
                seq_len=length,
                d_model=first["heads"] * first["d_k"],
                num_heads=first["heads"],
            )
            rows.append(
                [str(length), label["causal" if masked else "none"]]
                + [f"{by_impl[i]['seconds_median'] * 1000:.1f}" for i in impls]
                + [f"{by_impl[i]['extra_peak_bytes_median'] / MIB:.1f}" for i in impls]
                + [f"{2 * cost.score_bytes / MIB:.0f}"]
            )
        return _table(head, rows)


def setup(app: Sphinx) -> ExtensionMetadata:
    """Register the directive."""
    app.setup_extension("site_messages")  # the catalogue of the column heads
    app.add_directive("benchmark-table", BenchmarkTable)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
