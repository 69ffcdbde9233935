"""Pictures of masks, attention weights and intermediate matrices, in English or Chinese.

Install the optional extra to use this module: ``pip install 'attention[plots]'`` (matplotlib,
and the Noto Sans CJK font that the Chinese labels are set in).

Every function draws on a matplotlib ``Figure`` with the Agg canvas attached
directly: no ``pyplot`` state, no global backend switch, nothing that depends on the clock, so the
same tensors give the same picture.  The returned :class:`DisplayFigure` renders itself as PNG,
so a Jupyter cell shows it when it is the cell's value, with or without ``pyplot``.

``language`` chooses the language of the words drawn in the figure (axis labels, legends):
``"en"`` (the default) or ``"zh_CN"``.  Titles and tick labels are passed in by the caller and
drawn as given.

>>> import attention
>>> from attention.plots import show_mask
>>> figure = show_mask(attention.causal_allowed(3), "causal_allowed(3)")
>>> figure.axes[0].get_xlabel(), figure.axes[0].get_ylabel()
('key', 'query')
>>> chinese = figure.in_language("zh_CN")                  # the same figure, drawn again
>>> chinese.axes[0].get_xlabel(), chinese.axes[0].get_ylabel()
('键', '查询')
>>> figure._repr_png_().startswith(bytes([0x89]) + b"PNG")
True
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Literal, get_args

import numpy as np
import torch
from matplotlib import colormaps, font_manager
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import Colormap, ListedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from PIL import Image

from attention.cost import attention_cost

__all__ = [
    "LANGUAGES",
    "DisplayFigure",
    "Language",
    "show_benchmark",
    "show_cost_terms",
    "show_mask",
    "show_matrices",
    "show_weights",
]

Language = Literal["en", "zh_CN"]
"""A language the figures can be labelled in."""

LANGUAGES: tuple[Language, ...] = get_args(Language)
"""Every :data:`Language`, English first."""

Text = str | dict[Language, str]
"""Words drawn in a figure, the same in every language (a string) or per language (a dict)."""

ALLOWED_COLOUR = "#2b6cb0"
"""Cells a query may attend to (True in the ``allowed`` convention)."""

FORBIDDEN_COLOUR = "#edf2f7"
"""Cells that are masked out (False in the ``allowed`` convention)."""

NAN_COLOUR = "#fed7d7"
"""Cells whose value is NaN (a row with nothing to attend to, read by an API that returns NaN)."""

CELL_INCHES = 0.42
"""Edge of one matrix cell in the figure, so every matrix is drawn at the same scale."""

_WORDS: dict[Language, dict[str, str]] = {
    "en": {
        "query": "query",
        "key": "key",
        "position": "position",
        "allowed": "1 (True) = may attend",
        "forbidden": "0 (False) = masked out",
    },
    "zh_CN": {
        "query": "查询",
        "key": "键",
        "position": "位置",
        "allowed": "1（True）= 允许参与",
        "forbidden": "0（False）= 禁止参与",
    },
}

_CJK_FAMILY = "Noto Sans CJK SC"
"""The family Chinese labels are set in (from the ``noto-cjk-sans-otc`` package's collection)."""


class DisplayFigure(Figure):
    """A figure that IPython displays as a PNG (``_repr_png_``) without pyplot's inline backend.

    A figure drawn by this module's functions remembers how it was drawn:
    :meth:`in_language` draws it again with its words in another language.

    >>> import attention
    >>> figure = show_mask(attention.causal_allowed(2), "causal_allowed(2)")
    >>> figure.in_language("zh_CN").legends[0].get_texts()[0].get_text()
    '1（True）= 允许参与'
    """

    redraw: Callable[[Language], DisplayFigure] | None = None
    """Draws the same figure in a given language (set by the function that drew this one)."""

    def in_language(self, language: Language) -> DisplayFigure:
        """The same figure with its words in ``language``.

        Raises:
            ValueError: an unknown language, or a figure not drawn by this module.
        """
        language = _check_language(language)
        if self.redraw is None:
            raise ValueError("in_language needs a figure drawn by attention.plots")
        return self.redraw(language)

    def _repr_png_(self) -> bytes:
        """The figure as a PNG of at most 256 colours, about a third of the bytes of Agg's.

        The figures are flat fills, lines and text on an opaque background: a palette of 256
        colours (median cut, no dithering) keeps them as drawn, at the size they are shown.
        """
        buffer = io.BytesIO()
        # no "Software" entry: the bytes then depend on the drawing only, not on the version
        self.savefig(buffer, format="png", bbox_inches="tight", metadata={"Software": None})
        buffer.seek(0)
        with Image.open(buffer) as drawn:
            rgba = drawn.convert("RGBA")
        flat = Image.new("RGB", rgba.size, "white")
        flat.paste(rgba, mask=rgba.getchannel("A"))  # a transparent face would show as white
        palette = flat.quantize(
            colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
        )
        out = io.BytesIO()
        palette.save(out, format="png", optimize=True)
        return out.getvalue()


@cache
def _register_cjk_font() -> str:
    """Add the Noto Sans CJK collection to matplotlib once; return the family to draw with."""
    try:
        import noto_cjk_sans_otc  # type: ignore[import-untyped]  # ships only the font file
    except ImportError as error:
        raise ImportError(
            "language='zh_CN' needs the Noto Sans CJK font from the noto-cjk-sans-otc package: "
            "pip install 'attention[plots]'"
        ) from error
    path = str(noto_cjk_sans_otc.FONT_PATH)
    manager = font_manager.fontManager
    # The package's file, not a copy of the family that the system may also have (another
    # version draws other glyph outlines): the figures then come out the same on every machine.
    manager.ttflist = [
        entry for entry in manager.ttflist if entry.name != _CJK_FAMILY or entry.fname == path
    ]
    manager.addfont(path)  # also clears the font lookup cache
    families = {entry.name for entry in manager.ttflist if entry.fname == path}
    if _CJK_FAMILY not in families:
        raise RuntimeError(f"{path} has no {_CJK_FAMILY!r} face; it has {sorted(families)}")
    return _CJK_FAMILY


def _say(text: Text, language: Language) -> str:
    """``text`` in ``language`` (a plain string is the same in every language)."""
    if isinstance(text, str):
        return text
    if language not in text:
        raise ValueError(f"text {dict(text)!r} has no entry for language {language!r}")
    return text[language]


def _check_language(language: str) -> Language:
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {list(LANGUAGES)}, got {language!r}")
    return language


def _fonts(language: Language) -> list[str]:
    """The font families for ``language``: DejaVu Sans first, the CJK font for what it lacks."""
    if language == "en":
        return ["DejaVu Sans"]
    return ["DejaVu Sans", _register_cjk_font()]


def _labels(prefix: str, count: int, given: Sequence[str] | None, what: str) -> list[str]:
    """Default tick labels ``q0, q1, ...`` / ``k0, k1, ...``, or the given ones, checked."""
    if given is None:
        return [f"{prefix}{i}" for i in range(count)]
    labels = list(given)
    if len(labels) != count:
        raise ValueError(f"{what} needs {count} labels, got {len(labels)}")
    return labels


def _panels(tensor: torch.Tensor, name: str, convention: str) -> torch.Tensor:
    """``[L, S]`` as one panel ``[1, L, S]``; ``[P, L, S]`` as it is; anything else an error."""
    if tensor.ndim == 2:
        return tensor[None]
    if tensor.ndim == 3:
        return tensor
    raise ValueError(
        f"{name} ({convention}) must be [L, S] or [P, L, S], got shape {list(tensor.shape)}"
    )


def _new_figure(
    rows: int, columns: int, panels: int, extra_width: float = 0.0
) -> tuple[DisplayFigure, list[Axes]]:
    """A figure with ``panels`` side-by-side axes, sized from the matrix so cells stay square."""
    width = max(3.2 if panels == 1 else 2.4, CELL_INCHES * columns + 1.1) * panels + extra_width
    height = max(1.7, CELL_INCHES * rows + 1.2)
    # constrained layout keeps the suptitle, the panel titles and the legend apart
    figure = DisplayFigure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(figure)  # attach the Agg canvas: rendering needs no pyplot and no display
    axes = figure.subplots(1, panels, squeeze=False)[0]
    return figure, list(axes)


def _grid(axes: Axes, rows: int, columns: int) -> None:
    """Thin white lines between the cells, no frame."""
    axes.set_xticks(np.arange(-0.5, columns, 1.0), minor=True)
    axes.set_yticks(np.arange(-0.5, rows, 1.0), minor=True)
    axes.grid(which="minor", color="white", linewidth=1.5)
    axes.tick_params(which="minor", length=0)
    for spine in axes.spines.values():
        spine.set_visible(False)


def _ticks(
    axes: Axes, row_labels: list[str], col_labels: list[str], language: Language, fonts: list[str]
) -> None:
    words = _WORDS[language]
    axes.set_xticks(range(len(col_labels)), col_labels)
    axes.set_yticks(range(len(row_labels)), row_labels)
    axes.tick_params(length=0, labelsize=9)
    axes.xaxis.set_ticks_position("top")
    axes.xaxis.set_label_position("top")
    axes.set_xlabel(words["key"], fontsize=9, family=fonts)
    axes.set_ylabel(words["query"], fontsize=9, family=fonts)
    _grid(axes, len(row_labels), len(col_labels))


def _panel_titles(
    titles: Sequence[Text] | None, panels: int, language: Language
) -> list[str] | None:
    if titles is None:
        return None
    if len(titles) != panels:
        raise ValueError(f"panel_titles needs {panels} entries, got {len(titles)}")
    return [_say(title, language) for title in titles]


def show_mask(
    allowed: torch.Tensor,
    title: Text,
    *,
    row_labels: Sequence[str] | None = None,
    col_labels: Sequence[str] | None = None,
    panel_titles: Sequence[Text] | None = None,
    language: Language = "en",
) -> DisplayFigure:
    """Draw a Boolean **allowed** mask (True = may attend): dark cells may be attended.

    Args:
        allowed: ``[L, S]`` for one matrix or ``[P, L, S]`` for one panel per leading index (a
            key-padding mask ``[B, 1, S]`` draws one row per sequence), ``torch.bool``,
            True = may attend.  Each cell also carries a ``1`` (allowed) or ``0`` (masked out) so
            the picture reads without colour.
        title: Drawn above the panels, in a monospace font (usually the call that built the mask);
            a string, or a mapping from language to string.
        row_labels: One label per query (default ``q0, q1, ...``).
        col_labels: One label per key (default ``k0, k1, ...``).
        panel_titles: One title per panel (each a string or a mapping from language to string).
        language: The language of the axis labels and the legend.

    Returns:
        The figure.

    Raises:
        TypeError: ``allowed`` is not a Boolean tensor.
        ValueError: a shape or a number of labels does not match, or an unknown language.

    >>> import attention
    >>> allowed = attention.key_padding_allowed([2, 1], 2)
    >>> figure = show_mask(allowed, "key_padding_allowed")
    >>> len(figure.axes)                                          # one panel per sequence
    2
    >>> show_mask(attention.causal_allowed(2).int(), "causal")
    Traceback (most recent call last):
    ...
    TypeError: allowed must be a torch.bool tensor (True = may attend), got torch.int32
    """
    language = _check_language(language)
    if allowed.dtype != torch.bool:
        raise TypeError(
            f"allowed must be a torch.bool tensor (True = may attend), got {allowed.dtype}"
        )
    batch = _panels(allowed, "allowed", "True = may attend")  # [P, L, S]
    panels, rows, columns = batch.shape
    titles = _panel_titles(panel_titles, panels, language)
    rows_text = _labels("q", rows, row_labels, "row_labels")
    cols_text = _labels("k", columns, col_labels, "col_labels")
    fonts = _fonts(language)
    words = _WORDS[language]
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
        _ticks(axes, rows_text, cols_text, language, fonts)
        if titles is not None:
            axes.set_title(titles[index], fontsize=9, family=fonts)
    figure.suptitle(_say(title, language), fontsize=10, family=["monospace", *fonts[1:]])
    figure.legend(
        handles=[
            Patch(color=ALLOWED_COLOUR, label=words["allowed"]),
            Patch(facecolor=FORBIDDEN_COLOUR, edgecolor="#a0aec0", label=words["forbidden"]),
        ],
        loc="outside lower center",
        ncols=2,
        fontsize=8,
        frameon=False,
        prop={"family": fonts, "size": 8},
    )
    figure.redraw = lambda other: show_mask(
        allowed,
        title,
        row_labels=row_labels,
        col_labels=col_labels,
        panel_titles=panel_titles,
        language=other,
    )
    return figure


def show_weights(
    weights: torch.Tensor,
    title: Text,
    *,
    row_labels: Sequence[str] | None = None,
    col_labels: Sequence[str] | None = None,
    panel_titles: Sequence[Text] | None = None,
    decimals: int = 2,
    language: Language = "en",
) -> DisplayFigure:
    """Draw attention weights (rows are queries, columns keys) with each value printed.

    The colour scale is fixed to ``[0, 1]``, so equal weights look equal across figures and an
    exact 0 (a masked key) is the lightest colour; a NaN cell is drawn pale red and reads ``nan``.

    Args:
        weights: ``[L, S]`` for one matrix or ``[P, L, S]`` for one panel per leading index.
        title: Drawn above the panels, in a monospace font; a string, or a mapping from language
            to string.
        row_labels: One label per query (default ``q0, q1, ...``).
        col_labels: One label per key (default ``k0, k1, ...``).
        panel_titles: One title per panel (drawn in a monospace font: usually a call); each a
            string or a mapping from language to string.
        decimals: Digits printed after the decimal point in each cell.
        language: The language of the axis labels.

    Returns:
        The figure.

    Raises:
        ValueError: a shape or a number of labels does not match, or an unknown language.

    >>> import torch
    >>> figure = show_weights(torch.full((2, 3), 1 / 3), "uniform")
    >>> figure.axes[0].texts[0].get_text()
    '0.33'
    """
    language = _check_language(language)
    batch = _panels(weights, "weights", "rows are queries")  # [P, L, S]
    panels, rows, columns = batch.shape
    titles = _panel_titles(panel_titles, panels, language)
    rows_text = _labels("q", rows, row_labels, "row_labels")
    cols_text = _labels("k", columns, col_labels, "col_labels")
    fonts = _fonts(language)
    figure, axes_list = _new_figure(rows, columns, panels, extra_width=0.8)
    colours = _blues_with_nan()
    image = None
    for index, axes in enumerate(axes_list):
        values = batch[index].detach().to(torch.float64).cpu().numpy()  # [L, S]
        image = axes.imshow(np.ma.masked_invalid(values), cmap=colours, vmin=0.0, vmax=1.0)
        for i in range(rows):
            for j in range(columns):
                value = float(values[i, j])
                axes.text(
                    j,
                    i,
                    "nan" if math.isnan(value) else f"{value:.{decimals}f}",
                    ha="center",
                    va="center",
                    fontsize=8,
                    color="white" if value > 0.6 else "black",
                )
        _ticks(axes, rows_text, cols_text, language, fonts)
        if titles is not None:
            axes.set_title(titles[index], fontsize=9, family=["monospace", *fonts[1:]])
    if image is not None:
        figure.colorbar(image, ax=axes_list, fraction=0.046, pad=0.04)
    figure.suptitle(_say(title, language), fontsize=10, family=["monospace", *fonts[1:]])
    figure.redraw = lambda other: show_weights(
        weights,
        title,
        row_labels=row_labels,
        col_labels=col_labels,
        panel_titles=panel_titles,
        decimals=decimals,
        language=other,
    )
    return figure


def _blues_with_nan() -> Colormap:
    """Matplotlib's ``Blues`` with NaN (masked) cells in :data:`NAN_COLOUR`."""
    blues = colormaps["Blues"]
    return ListedColormap(blues(np.linspace(0.0, 1.0, 256)), name="Blues").with_extremes(
        bad=NAN_COLOUR
    )


def show_matrices(
    panels: Sequence[tuple[str, torch.Tensor]],
    title: Text,
    *,
    per_row: int | None = None,
    decimals: int = 1,
    language: Language = "en",
) -> DisplayFigure:
    """Draw several 2-D matrices side by side, each titled with its name and its shape.

    One colour scale, centred on 0 (blue negative, red positive), is shared by every panel so a
    value looks the same wherever it appears; each cell also prints its value, so the figure
    needs no colour bar.  Cells are squares
    of one size in every panel, and rows start at the top, so matrices with the same number of
    rows line up.

    Args:
        panels: ``(name, matrix)`` pairs; each matrix is ``[rows, columns]`` and the title of its
            panel reads ``name [rows, columns]``.
        title: Drawn above the panels; a string, or a mapping from language to string.
        per_row: Panels per row of the figure (default: all in one row).
        decimals: Digits printed after the decimal point in each cell.
        language: The language of the row-axis label.

    Returns:
        The figure.

    Raises:
        ValueError: no panels, a matrix that is not 2-D, ``per_row`` below 1, or an unknown
            language.

    >>> import torch
    >>> x = torch.arange(6.0).reshape(2, 3)
    >>> figure = show_matrices([("X", x), ("Xᵀ", x.T)], "a matrix and its transpose")
    >>> [axes.get_title() for axes in figure.axes[:2]]
    ['X [2, 3]', 'Xᵀ [3, 2]']
    """
    language = _check_language(language)
    if not panels:
        raise ValueError("panels must name at least one (name, matrix) pair")
    matrices: list[tuple[str, np.ndarray]] = []
    for name, matrix in panels:
        if matrix.ndim != 2:
            raise ValueError(f"panel {name!r} must be a 2-D matrix, got shape {list(matrix.shape)}")
        matrices.append((name, matrix.detach().to(torch.float64).cpu().numpy()))
    per_row = len(matrices) if per_row is None else per_row
    if per_row < 1:
        raise ValueError(f"per_row must be at least 1, got {per_row}")
    fonts = _fonts(language)
    limit = max(float(np.nanmax(np.abs(values))) for _, values in matrices) or 1.0
    groups = [matrices[start : start + per_row] for start in range(0, len(matrices), per_row)]
    cell = CELL_INCHES * 1.1
    widest = max(
        sum(max(values.shape[1], 2) for _, values in group) * cell + 0.7 * len(group)
        for group in groups
    )
    heights = [max(values.shape[0] for _, values in group) for group in groups]
    figure = DisplayFigure(
        figsize=(widest + 0.9, sum(height * cell + 0.9 for height in heights) + 0.4),
        dpi=100,
        layout="constrained",
    )
    FigureCanvasAgg(figure)
    rows_of_figures = figure.subfigures(len(groups), 1, squeeze=False, height_ratios=heights)[:, 0]
    for group, height_in_cells, subfigure in zip(groups, heights, rows_of_figures, strict=True):
        widths = [max(values.shape[1], 2) for _, values in group]
        axes_row = subfigure.subplots(1, len(group), squeeze=False, width_ratios=widths)[0]
        for index, (axes, (name, values)) in enumerate(zip(axes_row, group, strict=True)):
            height, width = values.shape
            axes.imshow(values, cmap="RdBu_r", vmin=-limit, vmax=limit)
            for i in range(height):
                for j in range(width):
                    value = float(values[i, j])
                    axes.text(
                        j,
                        i,
                        f"{value:.{decimals}f}",
                        ha="center",
                        va="center",
                        fontsize=8,
                        color="white" if abs(value) > 0.6 * limit else "black",
                    )
            axes.set_title(f"{name} [{height}, {width}]", fontsize=10, family=fonts)
            axes.set_xticks([])
            axes.set_yticks(range(height), [str(i) for i in range(height)])
            axes.tick_params(length=0, labelsize=8)
            axes.set_ylim(height_in_cells - 0.5, -0.5)
            axes.set_xlim(-0.5, max(width, 2) - 0.5)
            _grid(axes, height, width)
            if index == 0:
                axes.set_ylabel(_WORDS[language]["position"], fontsize=9, family=fonts)
    figure.suptitle(_say(title, language), fontsize=11, family=fonts)
    figure.redraw = lambda other: show_matrices(
        panels, title, per_row=per_row, decimals=decimals, language=other
    )
    return figure


_CHART_WORDS: dict[Language, dict[str, str]] = {
    "en": {
        "flops": "FLOPs (one layer, forward pass)",
        "seconds": "time (s)",
        "memory": "extra peak memory (MiB)",
        "torch_default": "torch default kernel",
        "dense": "dense reference",
        "tiled": "tiled",
        "none": "no mask",
        "causal": "causal mask",
        "model": "cost model: scores + weights",
        "time_panel": "forward pass time",
        "memory_panel": "extra peak memory",
        "pair": "{}, {}",
    },
    "zh_CN": {
        "flops": "FLOPs（一层，前向传播）",
        "seconds": "时间（秒）",
        "memory": "额外峰值内存（MiB）",
        "torch_default": "torch 默认内核",
        "dense": "稠密参考实现",
        "tiled": "分块实现",
        "none": "无掩码",
        "causal": "因果掩码",
        "model": "代价模型：分数 + 注意力权重",
        "time_panel": "前向传播时间",
        "memory_panel": "额外峰值内存",
        "pair": "{}，{}",
    },
}


def _chart_figure(width: float, height: float, rows: int) -> tuple[DisplayFigure, list[Axes]]:
    figure = DisplayFigure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(figure)
    return figure, list(figure.subplots(rows, 1, squeeze=False)[:, 0])


def show_cost_terms(
    lengths: Sequence[int], *, d_model: int, num_heads: int, language: Language = "en"
) -> DisplayFigure:
    """FLOPs of one layer's three terms against the sequence length ``T`` (log-log, ``B = 1``).

    The attention matrix products grow as ``4BT²d``, the four projections as ``8BTd²`` and the
    feed-forward block as ``16BTd²`` (:func:`attention.attention_cost`); dashed lines mark
    ``T = 2d`` and ``T = 4d``, where the quadratic term overtakes each of the others.

    Args:
        lengths: The sequence lengths ``T`` to draw, at least two.
        d_model: Model width ``d``.
        num_heads: Number of heads (the FLOPs do not depend on it).
        language: The language of the axis labels.

    Returns:
        The figure.

    Raises:
        ValueError: fewer than two lengths, or an unknown language; and whatever
            :func:`attention.attention_cost` raises for its arguments.

    >>> figure = show_cost_terms([128, 256, 512], d_model=64, num_heads=4)
    >>> [line.get_label() for line in figure.axes[0].get_lines()[:3]]
    ['4BT²d  (QKᵀ, AV)', '8BTd²  (W_Q, W_K, W_V, W_O)', '16BTd²  (FFN, f = 4d)']
    """
    language = _check_language(language)
    if len(lengths) < 2:
        raise ValueError(f"lengths needs at least two sequence lengths, got {list(lengths)}")
    fonts = _fonts(language)
    costs = [
        attention_cost(batch=1, seq_len=length, d_model=d_model, num_heads=num_heads)
        for length in lengths
    ]
    figure, (axes,) = _chart_figure(5.2, 3.6, 1)
    for values, label in (
        ([cost.attention_matrix_flops for cost in costs], "4BT²d  (QKᵀ, AV)"),
        ([cost.projection_flops for cost in costs], "8BTd²  (W_Q, W_K, W_V, W_O)"),
        ([cost.ffn_flops for cost in costs], "16BTd²  (FFN, f = 4d)"),
    ):
        axes.plot(list(lengths), values, marker="o", markersize=3, label=label)
    low = min(cost.attention_matrix_flops for cost in costs)
    for crossover, text in ((2 * d_model, "T = 2d"), (4 * d_model, "T = 4d")):
        axes.axvline(crossover, color="#718096", linewidth=0.8, linestyle="--")
        # written up the line, so the two labels stay apart when 2d and 4d are close on the axis
        axes.text(crossover * 1.04, low, text, fontsize=10, color="#4a5568", rotation=90)
    axes.set_xscale("log", base=2)
    axes.set_yscale("log")
    axes.set_xlabel("T", fontsize=11)
    axes.set_ylabel(_CHART_WORDS[language]["flops"], fontsize=11, family=fonts)
    axes.tick_params(labelsize=10)
    axes.set_title(f"d_model = {d_model}, B = 1", fontsize=11, family="monospace")
    axes.legend(fontsize=10, frameon=False)
    figure.redraw = lambda other: show_cost_terms(
        lengths, d_model=d_model, num_heads=num_heads, language=other
    )
    return figure


def _forward_rows(record: dict[str, object]) -> list[Mapping[str, object]]:
    """The forward-pass rows of a benchmark record's ``sweep`` (any other pass is left out)."""
    sweep = record.get("sweep")
    if not isinstance(sweep, list) or not sweep:
        raise ValueError("record needs a non-empty 'sweep' list (python -m attention.benchmark)")
    rows: list[Mapping[str, object]] = []
    for row in sweep:
        if not isinstance(row, Mapping):
            raise ValueError(f"every 'sweep' entry must be a mapping, got {row!r}")
        needed = {"impl", "masked", "length", "batch", "heads", "d_k", "seconds_median"}
        missing = (needed | {"extra_peak_bytes_median"}) - set(row)
        if missing:
            raise ValueError(f"a 'sweep' row lacks {sorted(missing)}: {dict(row)!r}")
        # records since the backward pass was measured say which pass a row is; older ones
        # hold forward rows only
        if row.get("pass", "forward") == "forward":
            rows.append(row)
    return rows


def _number(row: Mapping[str, object], key: str) -> float:
    value = row[key]
    if not isinstance(value, int | float):
        raise ValueError(f"benchmark field {key!r} must be a number, got {value!r}")
    return float(value)


def show_benchmark(record: dict[str, object], *, language: Language = "en") -> DisplayFigure:
    """Forward time and extra peak memory against ``T``, from a benchmark record.

    ``record`` is what ``python -m attention.benchmark --out FILE`` writes (read with
    ``json.load``): one line per implementation and mask, solid without a mask, dashed with
    the causal mask; the memory panel adds the cost model's size of the scores plus the weights
    (``2 · B·H·T² · 4`` bytes, :func:`attention.attention_cost` with the rows' ``batch``,
    ``heads`` and ``d_k``).  The two panels are stacked and share one legend below them, so the
    figure stays legible on a narrow screen.  Fields other than those drawn are ignored, and so
    are rows of any pass other than the forward one.

    Args:
        record: The benchmark record.
        language: The language of the labels and the legend.

    Returns:
        The figure.

    Raises:
        ValueError: the record has no usable ``sweep`` rows, or an unknown language.

    >>> row = {"impl": "tiled", "masked": False, "batch": 1, "heads": 8, "d_k": 64,
    ...        "seconds_median": 0.01, "extra_peak_bytes_median": 2.0**20}
    >>> sweep = [dict(row, length=512), dict(row, length=1024, seconds_median=0.04)]
    >>> record = {"sweep": sweep}
    >>> [line.get_label() for line in show_benchmark(record).axes[0].get_lines()]
    ['tiled, no mask']
    """
    language = _check_language(language)
    rows = _forward_rows(record)
    fonts = _fonts(language)
    words = _CHART_WORDS[language]
    figure, (time_axis, memory_axis) = _chart_figure(4.8, 7.2, 2)
    implementations = list(dict.fromkeys(str(row["impl"]) for row in rows))
    colours = ["#2b6cb0", "#c05621", "#2f855a", "#6b46c1", "#b83280"]
    handles = []
    for index, impl in enumerate(implementations):
        colour = colours[index % len(colours)]
        for masked, style in ((False, "-"), (True, "--")):
            line_rows = sorted(
                (row for row in rows if row["impl"] == impl and bool(row["masked"]) == masked),
                key=lambda row: _number(row, "length"),
            )
            if not line_rows:
                continue
            lengths = [_number(row, "length") for row in line_rows]
            label = words["pair"].format(
                words.get(impl, impl), words["causal" if masked else "none"]
            )
            (handle,) = time_axis.plot(
                lengths,
                [_number(row, "seconds_median") for row in line_rows],
                style,
                color=colour,
                marker="o",
                markersize=4,
                label=label,
            )
            handles.append(handle)
            memory_axis.plot(
                lengths,
                [max(_number(row, "extra_peak_bytes_median"), 1.0) / 2**20 for row in line_rows],
                style,
                color=colour,
                marker="o",
                markersize=4,
            )
    all_lengths = sorted({int(_number(row, "length")) for row in rows})
    batch, heads, d_k = (int(_number(rows[0], key)) for key in ("batch", "heads", "d_k"))
    model = [
        2
        * attention_cost(
            batch=batch, seq_len=length, d_model=heads * d_k, num_heads=heads
        ).score_bytes
        / 2**20
        for length in all_lengths
    ]
    (model_handle,) = memory_axis.plot(
        all_lengths, model, ":", color="black", linewidth=2, label=words["model"]
    )
    handles.append(model_handle)
    for axes, unit, panel in (
        (time_axis, words["seconds"], words["time_panel"]),
        (memory_axis, words["memory"], words["memory_panel"]),
    ):
        axes.set_xscale("log", base=2)
        axes.set_yscale("log")
        axes.set_xlabel("T", fontsize=12)
        axes.set_ylabel(unit, fontsize=12, family=fonts)
        axes.set_title(panel, fontsize=12, family=fonts)
        axes.tick_params(labelsize=11)
        axes.grid(visible=True, which="both", alpha=0.3)
    figure.legend(
        handles=handles,
        loc="outside lower center",
        ncols=1,
        frameon=False,
        prop={"family": fonts, "size": 12},
    )
    figure.redraw = lambda other: show_benchmark(record, language=other)
    return figure
