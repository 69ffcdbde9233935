"""attention.plots: what each figure draws, in both languages, and every error path."""

from __future__ import annotations

import builtins
import inspect
from typing import Any

import pytest
import torch

import attention
from attention import plots

PUBLIC = [getattr(plots, name) for name in plots.__all__]


@pytest.mark.parametrize(
    "obj", [obj for obj in PUBLIC if inspect.isfunction(obj) or inspect.isclass(obj)]
)
def test_public_name_has_an_example(obj: Any) -> None:
    assert ">>>" in (inspect.getdoc(obj) or "")


@pytest.mark.parametrize(
    ("language", "key", "query", "allowed"),
    [
        ("en", "key", "query", "1 (True) = may attend"),
        ("zh_CN", "键", "查询", "1（True）= 允许参与"),
    ],
)
def test_mask_words_are_in_the_language(language: str, key: str, query: str, allowed: str) -> None:
    figure = plots.show_mask(attention.causal_allowed(3), "causal", language=language)  # type: ignore[arg-type]
    assert (figure.axes[0].get_xlabel(), figure.axes[0].get_ylabel()) == (key, query)
    assert figure.legends[0].get_texts()[0].get_text() == allowed


def test_in_language_draws_the_same_data_again() -> None:
    allowed = attention.key_padding_allowed([3, 1], 3)  # [B, 1, S], True = may attend
    english = plots.show_mask(allowed, "padding", panel_titles=["b = 0", "b = 1"])
    chinese = english.in_language("zh_CN")
    cells = [[text.get_text() for text in axes.texts] for axes in english.axes]
    assert cells == [[text.get_text() for text in axes.texts] for axes in chinese.axes]
    assert cells == [["1", "1", "1"], ["1", "0", "0"]]
    assert english._repr_png_() != chinese._repr_png_()


def test_titles_can_differ_by_language() -> None:
    title = {"en": "order", "zh_CN": "顺序"}
    figure = plots.show_weights(torch.eye(2), title)
    assert figure.get_suptitle() == "order"
    assert figure.in_language("zh_CN").get_suptitle() == "顺序"
    with pytest.raises(ValueError, match="no entry for language 'zh_CN'"):
        plots.show_weights(torch.eye(2), {"en": "only English"}, language="zh_CN")


def test_weights_print_nan_for_a_row_with_nothing_to_attend() -> None:
    weights = torch.tensor([[1.0, 0.0], [float("nan"), float("nan")]])
    texts = [text.get_text() for text in plots.show_weights(weights, "w").axes[0].texts]
    assert texts == ["1.00", "0.00", "nan", "nan"]


def test_matrices_are_titled_with_their_shapes_in_rows() -> None:
    x = torch.zeros(2, 3)
    figure = plots.show_matrices([("A", x), ("B", x.T), ("C", x)], "t", per_row=2)
    assert [axes.get_title() for axes in figure.axes] == ["A [2, 3]", "B [3, 2]", "C [2, 3]"]
    assert len(figure.subfigs) == 2


def test_cost_terms_plot_the_cost_model() -> None:
    figure = plots.show_cost_terms([64, 128], d_model=32, num_heads=4)
    flops = figure.axes[0].get_lines()[0].get_ydata()
    expected = [
        attention.attention_cost(batch=1, seq_len=t, d_model=32, num_heads=4).attention_matrix_flops
        for t in (64, 128)
    ]
    assert list(flops) == expected


ROW = {
    "impl": "dense",
    "batch": 1,
    "heads": 2,
    "d_k": 4,
    "seconds_median": 1.0,
    "extra_peak_bytes_median": 2.0**20,
}


def test_benchmark_draws_forward_rows_and_ignores_new_keys_and_other_passes() -> None:
    record = {
        "schema": 2,
        "sweep": [
            dict(ROW, length=8, masked=False, **{"pass": "forward", "new_field": [1, 2]}),
            dict(ROW, length=16, masked=False, seconds_median=3.0),
            dict(ROW, length=16, masked=True, **{"pass": "forward_backward"}),
        ],
        "forward_backward": [dict(ROW, length=8, masked=False, **{"pass": "forward_backward"})],
    }
    figure = plots.show_benchmark(record)
    (line,) = figure.axes[0].get_lines()
    assert (list(line.get_xdata()), list(line.get_ydata())) == ([8.0, 16.0], [1.0, 3.0])
    assert line.get_label() == "dense reference, no mask"
    chinese = figure.in_language("zh_CN")
    assert chinese.axes[0].get_lines()[0].get_label() == "稠密参考实现，无掩码"


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({}, "non-empty 'sweep'"),
        ({"sweep": [1]}, "must be a mapping"),
        ({"sweep": [{"impl": "dense"}]}, "lacks"),
        ({"sweep": [dict(ROW, length="8", masked=False)]}, "'length' must be a number"),
    ],
)
def test_benchmark_rejects_a_bad_record(record: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        plots.show_benchmark(record)


def test_errors_name_what_is_wrong() -> None:
    with pytest.raises(TypeError, match=r"torch\.bool"):
        plots.show_mask(torch.ones(2, 2), "x")
    with pytest.raises(ValueError, match=r"\[L, S\] or \[P, L, S\]"):
        plots.show_mask(torch.ones(2, dtype=torch.bool), "x")
    with pytest.raises(ValueError, match="panel_titles needs 1 entries, got 2"):
        plots.show_mask(torch.ones(2, 2, dtype=torch.bool), "x", panel_titles=["a", "b"])
    with pytest.raises(ValueError, match="row_labels needs 2 labels, got 1"):
        plots.show_weights(torch.eye(2), "x", row_labels=["a"])
    with pytest.raises(ValueError, match="language must be one of"):
        plots.show_weights(torch.eye(2), "x", language="fr")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="at least one"):
        plots.show_matrices([], "x")
    with pytest.raises(ValueError, match="2-D matrix"):
        plots.show_matrices([("v", torch.ones(3))], "x")
    with pytest.raises(ValueError, match="per_row must be at least 1"):
        plots.show_matrices([("v", torch.ones(1, 1))], "x", per_row=0)
    with pytest.raises(ValueError, match="at least two"):
        plots.show_cost_terms([64], d_model=32, num_heads=4)
    with pytest.raises(ValueError, match=r"drawn by attention\.plots"):
        plots.DisplayFigure().in_language("en")


def test_chinese_without_the_font_package_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_import = builtins.__import__

    def no_font(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "noto_cjk_sans_otc":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    plots._register_cjk_font.cache_clear()
    monkeypatch.setattr(builtins, "__import__", no_font)
    try:
        with pytest.raises(ImportError, match=r"pip install 'attention\[plots\]'"):
            plots.show_mask(attention.causal_allowed(2), "x", language="zh_CN")
    finally:
        monkeypatch.undo()
        plots._register_cjk_font.cache_clear()


def test_chinese_labels_use_the_packaged_font() -> None:
    import noto_cjk_sans_otc  # type: ignore[import-untyped]
    from matplotlib import font_manager

    plots.show_mask(attention.causal_allowed(2), "x", language="zh_CN")
    found = font_manager.findfont(font_manager.FontProperties(family="Noto Sans CJK SC"))
    assert found == str(noto_cjk_sans_otc.FONT_PATH)
