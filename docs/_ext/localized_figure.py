"""``{localized-figure}``: a numbered, captioned figure from a code cell, in the page's language.

A page's code cells execute once, and both language builds read the same cached outputs
(``nb_execution_mode = "cache"``).  So a cell draws every language variant of a figure and glues
each one under ``<name>.<language>`` (``myst_nb.glue``); this directive, a
:class:`myst_nb.ext.glue.directives.PasteFigureDirective` (``glue:figure``), pastes the variant
for the language being built::

    ```{localized-figure} causal-5
    The causal mask for five positions: ...
    ```

The body is the caption (one paragraph; the gettext catalogues translate it like any other page
text).  The figure gets the target ``fig-<page>-<name>``, so ``numfig`` numbers it (Fig. 1 /
图 1) and ``{numref}`` can refer to it; the image's alt text is the caption as the page shows
it (after translation), never a file name.  The figure carries the classes ``localized-figure`` and
``figure-lang-<language>``, so a check of the built page can see which variant it shows.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from myst_nb.ext.glue.directives import PasteFigureDirective
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform
from sphinx.util import logging

LOGGER = logging.getLogger(__name__)
FIGURE_CLASS = "localized-figure"


class LocalizedFigureDirective(PasteFigureDirective):
    """``glue:figure`` of the key ``<name>.<language>``, with a required caption."""

    def run(self) -> list[nodes.Node]:
        """Paste the variant for the build's language, as a named, captioned figure."""
        name = self.arguments[0]
        env = self.state.document.settings.env
        language = env.config.language or "en"
        if not self.content:
            raise self.error(f"localized-figure {name!r} needs a caption (the directive's body)")
        self.arguments[0] = f"{name}.{language}"
        # labels are global to the site: the page's name keeps them apart across pages
        self.options.setdefault("name", f"fig-{env.docname.rsplit('/', 1)[-1]}-{name}")
        self.options["figclass"] = [
            *self.options.get("figclass", []),
            FIGURE_CLASS,
            f"figure-lang-{language}",
        ]
        result: list[nodes.Node] = super().run()
        return result


class CaptionAsAltText(SphinxTransform):
    """Give each localized figure's image its caption, as translated, for alt text."""

    default_priority = 880  # after the gettext translation (Locale, 20) replaced the caption

    def apply(self, **kwargs: Any) -> None:
        """Set ``alt`` on every image of a localized figure that has none."""
        for figure in self.document.findall(nodes.figure):
            if FIGURE_CLASS not in figure["classes"]:
                continue
            captions = list(figure.findall(nodes.caption))
            if not captions:
                LOGGER.warning("localized figure without a caption", location=figure)
                continue
            text = " ".join(captions[0].astext().split())
            for image in figure.findall(nodes.image):
                image.setdefault("alt", text)


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the directive and the alt-text transform."""
    app.setup_extension("myst_nb")
    app.add_directive("localized-figure", LocalizedFigureDirective)
    app.add_transform(CaptionAsAltText)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
