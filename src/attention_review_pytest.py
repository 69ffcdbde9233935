"""The ``--attention-watch`` option of pytest, registered for every pytest run in an environment.

It lives outside the ``attention`` package so that loading it imports neither torch nor the
package: a run without the option pays nothing.  With ``--attention-watch`` (warn) or
``--attention-watch=strict`` it loads :mod:`attention.review.pytest_plugin`, which runs every
test under :func:`attention.review.watch`.
"""

from __future__ import annotations

from typing import Any


def pytest_addoption(parser: Any) -> None:
    """``--attention-watch`` (a flag) and ``--attention-watch=strict``.

    The flag takes no value, so ``pytest --attention-watch tests/`` runs ``tests/``.  Strict mode
    is a second option spelled with its value: argparse looks an argument up whole before it
    splits it at ``=``.
    """
    group = parser.getgroup("attention-watch", "mask checks at run time")
    group.addoption(
        "--attention-watch",
        action="store_const",
        const="warn",
        dest="attention_watch",
        default=None,
        help="run every test under attention.review.watch and list the mask findings in the "
        "terminal summary",
    )
    group.addoption(
        "--attention-watch=strict",
        action="store_const",
        const="strict",
        dest="attention_watch",
        help="the same, and the call that has a finding fails its test",
    )


def pytest_configure(config: Any) -> None:
    """Load the watch only when the option asks for it."""
    mode = config.getoption("attention_watch", default=None)
    if mode:
        from attention.review.pytest_plugin import WatchPlugin

        config.pluginmanager.register(
            WatchPlugin(strict=mode == "strict"), "attention-watch-session"
        )
