"""Figures for the documentation pages: Boolean mask matrices and attention-weight heatmaps.

The pages' ``{code-cell}`` blocks build masks and weights with the ``attention`` package and hand
them to the two functions below, so every picture is computed from the package at build time.

Both functions draw on a :class:`matplotlib.figure.Figure` with the Agg canvas attached directly:
no ``pyplot`` state, no global backend switch, nothing that depends on the clock, so the same
tensors give the same picture.  The returned :class:`DisplayFigure` renders itself as PNG, so a
notebook cell (myst-nb) shows it when it is the cell's value, with or without ``pyplot``.

Labels are language-neutral on purpose (``q0``, ``k1``, code in titles): the English and the
Chinese pages show the same images.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import numpy as np
import torch
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Patch

__all__ = ["DisplayFigure", "show_mask", "show_weights"]

ALLOWED_COLOUR = "#2b6cb0"
"""Cells a query may attend to (True in the ``allowed`` convention)."""

FORBIDDEN_COLOUR = "#edf2f7"
"""Cells that are masked out (False in the ``allowed`` convention)."""

CELL_INCHES = 0.42
"""Edge of one matrix cell in the figure, so every matrix is drawn at the same scale."""


class DisplayFigure(Figure):
    """A figure that IPython displays as a PNG (``_repr_png_``) without pyplot's inline backend."""

    def _repr_png_(self) -> bytes:
        buffer = io.BytesIO()
        # no "Software" entry: the bytes then depend on the drawing only, not on the version
        self.savefig(buffer, format="png", bbox_inches="tight", metadata={"Software": None})
        return buffer.getvalue()


def _labels(prefix: str, count: int, given: Sequence[str] | None, what: str) -> list[str]:
    """Default tick labels ``q0, q1, ...`` / ``k0, k1, ...``, or the given ones, checked."""
    if given is None:
        return [f"{prefix}{i}" for i in range(count)]
    labels = list(given)
    if len(labels) != count:
        raise ValueError(f"{what} needs {count} labels, got {len(labels)}")
    return labels


def _new_figure(rows: int, columns: int, panels: int) -> tuple[DisplayFigure, list[Axes]]:
    """A figure with ``panels`` side-by-side axes, sized from the matrix so cells stay square."""
    width = max(3.2, CELL_INCHES * columns + 1.1) * panels
    height = max(1.7, CELL_INCHES * rows + 1.2)
    # constrained layout keeps the suptitle, the panel titles and the legend apart
    figure = DisplayFigure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(figure)  # attach the Agg canvas: rendering needs no pyplot and no display
    axes = figure.subplots(1, panels, squeeze=False)[0]
    return figure, list(axes)


def _ticks(axes: Axes, row_labels: list[str], col_labels: list[str]) -> None:
    axes.set_xticks(range(len(col_labels)), col_labels)
    axes.set_yticks(range(len(row_labels)), row_labels)
    axes.tick_params(length=0, labelsize=9)
    axes.xaxis.set_ticks_position("top")
    axes.xaxis.set_label_position("top")
    axes.set_xlabel("key", fontsize=9)
    axes.set_ylabel("query", fontsize=9)
    # thin white grid lines between the cells
    axes.set_xticks(np.arange(-0.5, len(col_labels), 1.0), minor=True)
    axes.set_yticks(np.arange(-0.5, len(row_labels), 1.0), minor=True)
    axes.grid(which="minor", color="white", linewidth=1.5)
    axes.tick_params(which="minor", length=0)
    for spine in axes.spines.values():
        spine.set_visible(False)


def show_mask(
    allowed: torch.Tensor,
    title: str,
    *,
    row_labels: Sequence[str] | None = None,
    col_labels: Sequence[str] | None = None,
    panel_titles: Sequence[str] | None = None,
) -> DisplayFigure:
    """Draw a Boolean **allowed** mask (True = may attend): dark cells may be attended.

    ``allowed`` is ``[L, S]`` for one matrix or ``[B, L, S]`` for one panel per batch element
    (a key-padding mask ``[B, 1, S]`` draws one row per sequence).  Each cell also carries a
    ``1`` (allowed) or ``0`` (masked out) so the picture reads without colour.
    """
    if allowed.dtype != torch.bool:
        raise TypeError(
            f"allowed must be a torch.bool tensor (True = may attend), got {allowed.dtype}"
        )
    if allowed.ndim == 2:
        batch = allowed[None]  # [1, L, S]
    elif allowed.ndim == 3:
        batch = allowed  # [B, L, S]
    else:
        raise ValueError(f"allowed must be [L, S] or [B, L, S], got shape {list(allowed.shape)}")
    panels, rows, columns = batch.shape
    if panel_titles is not None and len(panel_titles) != panels:
        raise ValueError(f"panel_titles needs {panels} entries, got {len(panel_titles)}")
    rows_text = _labels("q", rows, row_labels, "row_labels")
    cols_text = _labels("k", columns, col_labels, "col_labels")
    figure, axes_list = _new_figure(rows, columns, panels)
    colours = ListedColormap([FORBIDDEN_COLOUR, ALLOWED_COLOUR])
    for index, axes in enumerate(axes_list):
        matrix = batch[index].detach().cpu().numpy().astype(np.int64)  # [L, S], 1 = may attend
        axes.imshow(matrix, cmap=colours, vmin=0, vmax=1)
        for i in range(rows):
            for j in range(columns):
                allowed_cell = bool(matrix[i, j])
                axes.text(
                    j,
                    i,
                    "1" if allowed_cell else "0",
                    ha="center",
                    va="center",
                    fontsize=8,
                    color="white" if allowed_cell else "#718096",
                )
        _ticks(axes, rows_text, cols_text)
        if panel_titles is not None:
            axes.set_title(panel_titles[index], fontsize=9)
    figure.suptitle(title, fontsize=10, family="monospace")
    figure.legend(
        handles=[
            Patch(color=ALLOWED_COLOUR, label="1 (True) = may attend"),
            Patch(facecolor=FORBIDDEN_COLOUR, edgecolor="#a0aec0", label="0 (False) = masked out"),
        ],
        loc="outside lower center",
        ncols=2,
        fontsize=8,
        frameon=False,
    )
    return figure


def show_weights(
    weights: torch.Tensor,
    title: str,
    *,
    row_labels: Sequence[str] | None = None,
    col_labels: Sequence[str] | None = None,
    decimals: int = 2,
) -> DisplayFigure:
    """Draw attention weights ``[L, S]`` (rows are queries, columns keys) with each value printed.

    The colour scale is fixed to ``[0, 1]``, so equal weights look equal across figures and an
    exact 0 (a masked key) is the lightest colour.
    """
    if weights.ndim != 2:
        raise ValueError(f"weights must be [L, S], got shape {list(weights.shape)}")
    rows, columns = weights.shape
    rows_text = _labels("q", rows, row_labels, "row_labels")
    cols_text = _labels("k", columns, col_labels, "col_labels")
    values = weights.detach().to(torch.float64).cpu().numpy()  # [L, S]
    figure, (axes,) = _new_figure(rows, columns, 1)
    image = axes.imshow(values, cmap="Blues", vmin=0.0, vmax=1.0)
    for i in range(rows):
        for j in range(columns):
            value = float(values[i, j])
            axes.text(
                j,
                i,
                f"{value:.{decimals}f}",
                ha="center",
                va="center",
                fontsize=8,
                color="white" if value > 0.6 else "black",
            )
    _ticks(axes, rows_text, cols_text)
    figure.colorbar(image, ax=axes, fraction=0.046, pad=0.04)
    figure.suptitle(title, fontsize=10, family="monospace")
    return figure
