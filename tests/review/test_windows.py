"""AM307: a window size that counts the query's own key, given where the window does not count it.

transformers' ``sliding_window=W`` lets a query see W keys, itself included (row
``transformers.mistral.sliding_window``); flash-attn's ``window_size=(left, right)`` lets query i
see keys ``i - left`` to ``i + right``, so a left size of W is W + 1 keys (row
``flash_attn.flash_attn_func.window_size``; transformers issue 39408, fixed by pull request 40163,
whose code before the fix is the first case).  The size is read where the call gets it: by
keyword, by position, from a pair assigned to a name, or from a dict handed in with ``**``.
"""

from __future__ import annotations

import pytest

from attention.review.check import check_source

HEAD = "from flash_attn import flash_attn_func, flash_attn_varlen_func\n\n\n"

FLAGGED = {
    "a dict of keyword arguments, as transformers 4.52 wrote it": (
        "def forward(q, k, v, sliding_window=None, is_causal=True):\n"
        "    use_sliding_windows = sliding_window is not None and k.shape[1] > sliding_window\n"
        '    flash_kwargs = {"window_size": (sliding_window, sliding_window)} if use_sliding_windows else {}\n'
        "    return flash_attn_func(q, k, v, causal=is_causal, **flash_kwargs)\n"
    ),
    "by keyword, from the config": (
        "def forward(self, q, k, v):\n"
        "    return flash_attn_func(q, k, v, causal=True, window_size=(self.config.sliding_window, 0))\n"
    ),
    "by position": (
        "def forward(q, k, v, config):\n"
        "    return flash_attn_func(q, k, v, 0.0, None, True, (int(config.sliding_window), 0))\n"
    ),
    "a dict filled by key": (
        "def forward(q, k, v, cu, m, config):\n"
        "    kwargs = {}\n"
        '    kwargs["window_size"] = (config.sliding_window, -1)\n'
        "    return flash_attn_varlen_func(q, k, v, cu, cu, m, m, causal=True, **kwargs)\n"
    ),
}

SILENT = {
    "one key taken off": (
        "def forward(q, k, v, sliding_window):\n"
        "    window = (sliding_window - 1, sliding_window - 1)\n"
        "    return flash_attn_func(q, k, v, causal=True, window_size=window)\n"
    ),
    "a size no row says how it counts": (
        "def forward(self, q, k, v):\n"
        "    return flash_attn_func(q, k, v, causal=True, window_size=(self.window, 0))\n"
    ),
    "no window": (
        "def forward(q, k, v):\n"
        "    return flash_attn_func(q, k, v, causal=True, window_size=(-1, -1))\n"
    ),
    "an API whose window counts the query's key": (
        "def forward(q, k, v, sliding_window):\n"
        "    return local_attention(q, k, v, window_size=(sliding_window, 0))\n"
    ),
}


@pytest.mark.parametrize("body", FLAGGED.values(), ids=FLAGGED.keys())
def test_a_window_counted_with_its_key_is_one_key_too_many(body: str) -> None:
    findings = check_source(HEAD + body, "m.py")
    assert [f.code for f in findings] == ["AM307"], findings
    assert findings[0].rows == (
        "flash_attn.flash_attn_func.window_size",
        "transformers.mistral.sliding_window",
    )


@pytest.mark.parametrize("body", SILENT.values(), ids=SILENT.keys())
def test_a_window_the_code_does_not_show_to_count_its_key_is_silent(body: str) -> None:
    assert check_source(HEAD + body, "m.py") == []


def test_every_window_setting_rests_on_rows_of_the_tables() -> None:
    from attention.review.apis import WINDOW_SETTINGS
    from attention.review.links import known_rows

    for setting in WINDOW_SETTINGS:
        assert setting.claims, setting
        assert set(setting.claims) <= known_rows(), setting


OTHER_APIS = {
    "JAX's local_window_size, a pair": (
        "import jax\n\n\ndef attend(q, k, v, config):\n"
        "    return jax.nn.dot_product_attention(\n"
        "        q, k, v, is_causal=True, local_window_size=(config.sliding_window, 0)\n    )\n",
        ("jax.nn.dot_product_attention.local_window_size", "transformers.mistral.sliding_window"),
    ),
    "JAX's local_window_size, one size for both sides": (
        "import jax\n\n\ndef attend(q, k, v, config):\n"
        "    return jax.nn.dot_product_attention(\n"
        "        q, k, v, is_causal=True, local_window_size=config.sliding_window\n    )\n",
        ("jax.nn.dot_product_attention.local_window_size", "transformers.mistral.sliding_window"),
    ),
    "xFormers' window_left": (
        "from xformers.ops.fmha.attn_bias import LocalAttentionFromBottomRightMask\n\n\n"
        "def bias(config):\n"
        "    return LocalAttentionFromBottomRightMask(window_left=config.sliding_window, window_right=0)\n",
        (
            "xformers.LocalAttentionFromBottomRightMask.window_left",
            "transformers.mistral.sliding_window",
        ),
    ),
}


@pytest.mark.parametrize(("source", "rows"), OTHER_APIS.values(), ids=OTHER_APIS.keys())
def test_every_window_that_adds_the_querys_key_is_read_and_cites_its_own_rows(
    source: str, rows: tuple[str, ...]
) -> None:
    [finding] = check_source(source, "m.py")
    assert (finding.code, finding.rows) == ("AM307", rows)


def test_a_window_that_counts_the_querys_key_takes_the_setting_as_it_is() -> None:
    """xFormers' other local mask counts the query's key: W keys for a window of W."""
    source = (
        "from xformers.ops.fmha.attn_bias import LowerTriangularFromBottomRightLocalAttentionMask\n"
        "\n\ndef bias(config):\n"
        "    return LowerTriangularFromBottomRightLocalAttentionMask(config.sliding_window)\n"
    )
    assert check_source(source, "m.py") == []
