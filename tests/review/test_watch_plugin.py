"""pytest --attention-watch: every test under the watch, findings in the summary, strict fails."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

INVERTED = """
import torch
import torch.nn.functional as F

def test_inverted_mask():
    q = torch.randn(1, 1, 4, 8)
    future = torch.ones(4, 4, dtype=torch.bool).triu(diagonal=1)
    F.scaled_dot_product_attention(q, q, q, attn_mask=future)

def test_causal_mask():
    q = torch.randn(1, 1, 4, 8)
    F.scaled_dot_product_attention(q, q, q, attn_mask=torch.ones(4, 4, dtype=torch.bool).tril())
"""


def test_the_option_lists_findings_per_test_and_passes(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(INVERTED)
    result = pytester.runpytest("--attention-watch", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            "*attention watch (warn)*",
            "*test_inverted_mask",
            "*AW201 inverted-boolean-mask: attn_mask [[]4, 4[]] (torch.bool) allows exactly*",
            "*mask-semantics.html#sdpa.attn_mask.bool",
            "1 mask finding(s) in 1 test(s)*",
        ]
    )
    assert "test_causal_mask" not in result.stdout.str().split("attention watch")[1]


def test_the_option_is_a_flag_that_leaves_the_next_argument_alone(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_watched=INVERTED, test_elsewhere="def test_elsewhere():\n    pass\n")
    result = pytester.runpytest("--attention-watch", "test_watched.py", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*attention watch (warn)*", "1 mask finding(s) in 1 test(s)*"])
    strict = pytester.runpytest(
        "--attention-watch=strict", "test_watched.py", "-p", "no:cacheprovider"
    )
    strict.assert_outcomes(passed=1, failed=1)


def test_strict_fails_the_test_whose_call_has_a_finding(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(INVERTED)
    result = pytester.runpytest("--attention-watch=strict", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*AttentionWatchError: AW201*", "*attention watch (strict)*"])


def test_strict_fails_the_run_even_where_a_test_catches_the_error(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        import torch
        import torch.nn.functional as F

        def test_swallowed():
            q = torch.randn(1, 1, 1, 8)
            k = torch.randn(1, 1, 5, 8)
            try:
                F.scaled_dot_product_attention(q, k, k, is_causal=True)
            except Exception:
                pass
        """
    )
    result = pytester.runpytest("--attention-watch=strict", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*AW207 is-causal-shape*"])


def test_without_the_option_nothing_is_watched_and_torch_is_not_imported(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        import sys

        def test_plugin_loaded_light():
            assert "torch" not in sys.modules and "attention" not in sys.modules
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "attention watch" not in result.stdout.str()
    assert "--attention-watch" in pytester.runpytest_subprocess("--help").stdout.str()
