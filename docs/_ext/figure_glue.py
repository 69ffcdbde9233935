"""Glue a page's figure in every language of the site, for the ``{localized-figure}`` directive.

A page's hidden setup cell imports :func:`glue_figure` (the site's build puts ``docs/_ext`` on the
kernel's ``PYTHONPATH``); a hidden cell after each figure cell calls it with the figure's name.
Code cells run once for both languages, so every variant is glued here, as ``<name>.<language>``,
and ``docs/_ext/localized_figure.py`` shows the one for the language being built.
"""

from __future__ import annotations

from IPython import get_ipython
from myst_nb import glue

from attention.plots import LANGUAGES, DisplayFigure


def glue_figure(name: str) -> None:
    """Glue the figure the previous cell returned, in every language, as ``<name>.<language>``."""
    shell = get_ipython()
    figure = None if shell is None else shell.last_execution_result.result
    if not isinstance(figure, DisplayFigure):
        raise TypeError(f"the cell before glue_figure({name!r}) must return a figure")
    for language in LANGUAGES:
        glue(f"{name}.{language}", figure.in_language(language), display=False)
