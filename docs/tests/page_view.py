"""One visit per page: everything the per-page browser checks read, gathered in a single load.

Each page of the site, in each language, is opened once in the shared headless Chromium, as a
reader meets it at 1280 x 900 px: it loads, its fonts load, the icons are fetched; then every
folded solution is opened, each code block is measured and its copy button clicked, and the
page's notebook link followed.  A :class:`PageView` keeps what was seen; the checks in
``test_browser.py``, ``test_browser_code.py``, ``test_browser_figures.py`` and
``browser_api_checks.py`` assert on it.  Loading a page takes most of a check's time, so a
page read once for all of them instead of once per check halves the browser session.

The JavaScript below only reads the page (and clicks copy buttons); what must be true of what
it reads is said in the test modules.  :func:`watch` records what goes wrong on a page (console,
page errors, failed requests), for these visits and for the pages other checks open.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import BrowserContext, ConsoleMessage, Page, Request, Response
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

WIDTH, HEIGHT = 1280, 900

# The article's text without code and formulas (MathML): TeX source left here reached the reader.
PROSE = """() => {
    const article = document.querySelector('article').cloneNode(true);
    article.querySelectorAll('pre, code, math').forEach(e => e.remove());
    return article.textContent;
}"""

# Scripts whose address or text names a math typesetter: the formulas are MathML from the build.
MATH_SCRIPTS = """() => [...document.scripts]
    .filter(s => /mathjax|katex/i.test(s.src + ' ' + s.textContent))
    .map(s => s.src || s.textContent.trim().slice(0, 80))"""

# The font the page's formulas are drawn in: its @font-face's load status and where it came from.
MATH_FONT = """async () => {
    await document.fonts.ready;
    const math = document.querySelector('article math');
    const family = getComputedStyle(math).fontFamily.split(',')[0].replace(/["']/g, '').trim();
    const faces = [...document.fonts].filter(f => f.family.replace(/["']/g, '') === family);
    const urls = performance.getEntriesByType('resource').map(e => e.name)
        .filter(name => /\\.(woff2?|otf|ttf)([?#]|$)/.test(name));
    return {family, status: faces.map(f => f.status).join(' ') || 'no @font-face', urls};
}"""

# Every image of the article with what a reader gets from it; the theme's own icons (the module
# index's toggles, under _static/) are not figures.
FIGURES = """els => els.filter(img => !img.getAttribute('src').includes('_static/')).map(img => {
    const figure = img.closest('figure');
    const caption = figure ? figure.querySelector('figcaption') : null;
    const number = caption ? caption.querySelector('.caption-number') : null;
    const text = caption ? caption.querySelector('.caption-text') : null;
    return {
        src: new URL(img.src).pathname.replace(/^.*\\/_images\\//, '_images/'),
        alt: img.getAttribute('alt') || '',
        number: number ? number.textContent.trim() : '',
        caption: text ? text.textContent.trim() : '',
        classes: figure ? figure.className : '',
    };
})"""

# Every code block of the article that scrolls sideways, with the lines it cuts off.  A cut line
# is "output" when it is a doctest's expected output or a code cell's printed output, else
# "code"; "comment" says that the hidden part is (in) a comment.
OVERFLOWING_BLOCKS = """() => {
  const blocks = [...document.querySelectorAll('article div.highlight pre')];
  return blocks.filter(pre => pre.offsetParent !== null && pre.scrollWidth > pre.clientWidth)
    .map(pre => {
      const box = pre.getBoundingClientRect();
      const style = getComputedStyle(pre);
      const right = box.left + pre.clientWidth - parseFloat(style.paddingRight);
      const top = box.top + parseFloat(style.paddingTop);
      const height = parseFloat(style.lineHeight);
      const lines = pre.innerText.split('\\n');
      const doctest = pre.querySelector('span.gp') !== null;
      const output = pre.closest('.cell_output') !== null;
      const cut = new Map();
      const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (!node.textContent.trim()) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        for (const rect of range.getClientRects()) {
          if (rect.right <= right + 1) continue;
          const index = Math.floor((rect.top + rect.height / 2 - top) / height);
          const line = lines[index] || '';
          const comment = node.parentElement.matches('.c, .c1, .ch, .cm, .cp, .cs');
          const kind = comment ? 'comment'
            : output || (doctest && !/^(>>>|\\.\\.\\.)( |$)/.test(line)) ? 'output' : 'code';
          const previous = cut.get(index);
          if (!previous || previous.kind === 'output') cut.set(index, {kind: kind, line: line});
        }
      }
      return {scroll: pre.scrollWidth, client: pre.clientWidth, cut: [...cut.values()]};
    });
}"""

# Each code block's copy buttons and tooltip; for a doctest block, its code (each prompted
# line, prompt removed) beside what a real click on its button (handled by sphinx-copybutton) put
# on the clipboard.  A marker written first tells a copy that did not happen.
COPY_EVERY_BLOCK = """async () => {
    const copies = [];
    for (const pre of document.querySelectorAll('article div.highlight pre')) {
        const buttons = [...pre.parentElement.children].filter(
            e => e.matches('button.copybtn') && (pre.compareDocumentPosition(e) & 4));
        const copy = {buttons: buttons.length, tooltip: null, code: null, copied: null};
        copies.push(copy);
        if (buttons.length !== 1) continue;
        copy.tooltip = buttons[0].getAttribute('data-tooltip');
        if (!pre.querySelector('span.gp')) continue;
        copy.code = pre.innerText.split('\\n')
            .filter(line => /^(>>>|\\.\\.\\.)( |$)/.test(line))
            .map(line => line.slice(4));
        const marker = 'not copied ' + copies.length;
        await navigator.clipboard.writeText(marker);
        buttons[0].click();
        for (let i = 0; i < 100; i++) {
            copy.copied = await navigator.clipboard.readText();
            if (copy.copied !== marker) break;
            await new Promise(resolve => setTimeout(resolve, 20));
        }
    }
    return copies;
}"""


@dataclass
class Notebook:
    """The page's "download as notebook" links, and the first one followed."""

    texts: list[str]  # each link's text
    href: str | None = None
    status: int | None = None
    nbformat: int | None = None
    code_cells: int = 0


@dataclass
class PageView:
    """What one page (``<language>/<path>``) showed in a single visit."""

    url: str  # language/path
    errors: list[str] = field(default_factory=list)  # console errors, page errors, failed requests
    console: list[str] = field(default_factory=list)  # console warnings and errors, page errors
    external: list[str] = field(default_factory=list)  # requests to other hosts (blocked)
    math: int = 0  # formulas in the article (class "math")
    untypeset: int = 0  # formulas (class "math") that hold no <math> element
    typeset: int = 0  # <math> elements in the article
    math_scripts: list[str] = field(default_factory=list)  # MATH_SCRIPTS: should be none
    math_font: dict[str, Any] = field(default_factory=dict)  # MATH_FONT, on a page with math
    prose: str = ""  # the article without code and typeset formulas
    open_dropdowns: int = 0  # solution bodies visible before any click
    icons: dict[str, int] = field(default_factory=dict)  # linked icon -> HTTP status
    anchors: list[str] = field(default_factory=list)  # ids inside the article, sorted
    lang: str | None = None  # <html lang>
    switch: list[str] = field(default_factory=list)  # the language switch's links, absolute
    figures: list[dict[str, str]] = field(default_factory=list)  # FIGURES rows
    overflowing: list[dict[str, Any]] = field(default_factory=list)  # OVERFLOWING_BLOCKS rows
    code_blocks: int = 0
    copy_buttons: int = 0
    copies: list[dict[str, Any]] = field(default_factory=list)  # COPY_EVERY_BLOCK rows
    doctests: int = 0  # doctest blocks and executed code cells
    notebook: Notebook = field(default_factory=lambda: Notebook([]))
    # what the first visit downloaded, up to a quiet network and before any click: address
    # (relative to the site) -> bytes of the response body
    downloads: dict[str, int] = field(default_factory=dict)


def _record_downloads(page: Page, base: str, downloads: dict[str, int]) -> None:
    """Add every finished request of ``page`` to ``downloads`` (its body's size in bytes)."""

    def on_finished(request: Request) -> None:
        sizes = request.sizes()
        address = request.url.removeprefix(base + "/")
        downloads[address] = downloads.get(address, 0) + sizes["responseBodySize"]

    page.on("requestfinished", on_finished)


def watch(
    page: Page,
    base: str,
    *,
    errors: list[str] | None = None,
    console: list[str] | None = None,
    prefix: str = "",
) -> None:
    """Record what goes wrong on ``page`` from now on, each message starting with ``prefix``.

    ``errors``: console errors, page errors, failed requests to the site (``base``) and HTTP
    errors.  ``console``: console warnings and errors, and page errors (MathJax reports an option
    it does not understand as a warning).
    """

    def note(target: list[str] | None, message: str) -> None:
        if target is not None:
            target.append(prefix + message)

    def on_console(message: ConsoleMessage) -> None:
        if message.type in ("warning", "error"):
            note(console, f"console {message.type}: {message.text}")
        if message.type == "error":
            note(errors, f"console error: {message.text}")

    def on_failed(request: Request) -> None:
        # net::ERR_ABORTED is the browser cancelling its own request because the page navigated
        # or closed first (typically the favicon, fetched after "load"); it says nothing about
        # the site.  Every other failure of a local request (refused, reset, empty) is an error;
        # the icons are fetched explicitly, so a missing one still fails.
        if request.url.startswith(base) and request.failure != "net::ERR_ABORTED":
            note(errors, f"request failed: {request.url} {request.failure}")

    def on_response(answer: Response) -> None:
        if answer.status >= 400:
            note(errors, f"HTTP {answer.status} {answer.url}")

    def on_page_error(error: Exception) -> None:
        note(errors, f"page error: {error}")
        note(console, f"page error: {error}")

    page.on("console", on_console)
    page.on("pageerror", on_page_error)
    page.on("requestfailed", on_failed)
    page.on("response", on_response)


def _typeset(page: Page, view: PageView) -> None:
    view.math = page.locator("article .math").count()
    view.untypeset = page.eval_on_selector_all(
        "article .math", "els => els.filter(e => !e.querySelector('math')).length"
    )
    view.typeset = page.locator("article math").count()
    view.math_scripts = page.evaluate(MATH_SCRIPTS)
    if view.typeset:
        view.math_font = page.evaluate(MATH_FONT)


def _notebook(page: Page, view: PageView) -> None:
    view.doctests = page.locator("article div.highlight-pycon, article div.cell").count()
    links = page.locator("article p.notebook-download a")
    view.notebook = Notebook([text.strip() for text in links.all_inner_texts()])
    if not view.notebook.texts:
        return
    href = links.first.get_attribute("href")
    view.notebook.href = href
    if not href:
        return
    answer = page.request.get(f"{page.url.rsplit('/', 1)[0]}/{href}")
    view.notebook.status = answer.status
    if answer.status == 200:
        notebook = answer.json()
        view.notebook.nbformat = notebook.get("nbformat")
        view.notebook.code_cells = sum(cell["cell_type"] == "code" for cell in notebook["cells"])


def read_page(context: BrowserContext, base: str, external: list[str], url: str) -> PageView:
    """Open ``base/url`` once and read everything the per-page checks need; close it."""
    view = PageView(url)
    blocked_before = len(external)
    page = context.new_page()
    try:
        page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
        watch(page, base, errors=view.errors, console=view.console)
        downloads: dict[str, int] = {}
        _record_downloads(page, base, downloads)
        page.goto(f"{base}/{url}", wait_until="load")
        page.wait_for_load_state("networkidle")  # the fonts a page's text asks for, too
        view.downloads = dict(downloads)  # a first visit's, before the clicks below
        _typeset(page, view)
        view.prose = page.evaluate(PROSE)
        bodies = page.locator("article .admonition.dropdown > :not(.admonition-title)").all()
        view.open_dropdowns = sum(body.is_visible() for body in bodies)
        for icon in page.eval_on_selector_all("link[rel~='icon']", "els => els.map(e => e.href)"):
            view.icons[icon] = page.request.get(icon).status
        view.anchors = sorted(
            page.eval_on_selector_all("article [id]", "els => els.map(e => e.id)")
        )
        view.lang = page.get_attribute("html", "lang")
        view.switch = page.eval_on_selector_all(
            "nav.language-switch a.language-switch-link", "els => els.map(e => e.href)"
        )
        view.figures = page.eval_on_selector_all("article img", FIGURES)

        # as a reader reads the code: every folded solution opened
        for button in page.locator("article .admonition.dropdown button.toggle-button").all():
            button.click()
        view.overflowing = page.evaluate(OVERFLOWING_BLOCKS)
        view.code_blocks = page.locator("article div.highlight pre").count()
        # sphinx-copybutton adds its buttons once the page has loaded; the copy check reports
        # the count if they never all arrive
        with contextlib.suppress(PlaywrightTimeoutError):
            page.wait_for_function(
                "n => document.querySelectorAll('article div.highlight button.copybtn')"
                ".length >= n",
                arg=view.code_blocks,
                timeout=15000,
            )
        view.copy_buttons = page.locator("article div.highlight button.copybtn").count()
        view.copies = page.evaluate(COPY_EVERY_BLOCK)
        _notebook(page, view)
    finally:
        page.close()
    view.external = external[blocked_before:]
    return view
