"""The ``--attention-watch`` option of pytest, registered for every pytest run in an environment.

It lives outside the ``attention`` package so that loading it imports neither torch nor the
package: a run without the option pays nothing.  With ``--attention-watch`` (warn) or
``--attention-watch=strict`` it loads :mod:`attention.review.pytest_plugin`, which runs every
test under :func:`attention.review.watch`.
"""

from __future__ import annotations

from typing import Any

CHOICES = ("warn", "strict")


def pytest_addoption(parser: Any) -> None:
    """``--attention-watch[=strict]``."""
    parser.getgroup("attention-watch", "mask checks at run time").addoption(
        "--attention-watch",
        nargs="?",
        const="warn",
        default=None,
        choices=CHOICES,
        help=(
            "run every test under attention.review.watch: list the mask findings in the terminal "
            "summary (warn, the default), or fail the call that has one (strict)"
        ),
    )


def pytest_configure(config: Any) -> None:
    """Load the watch only when the option asks for it."""
    mode = config.getoption("--attention-watch", default=None)
    if mode:
        from attention.review.pytest_plugin import WatchPlugin

        config.pluginmanager.register(
            WatchPlugin(strict=mode == "strict"), "attention-watch-session"
        )
