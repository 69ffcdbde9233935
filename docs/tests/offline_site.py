"""The built site served on 127.0.0.1 and opened in Debian's Chromium with every other host blocked.

One set-up for every browser check (``test_browser*.py``) and for the screenshots tool
(``docs/_tools/screenshots.py``): a local server for the site, headless Chromium with a fresh
profile and no background networking, and a route that aborts any request to another host and
records it, so a page that needs a CDN fails here exactly as it would for a reader offline.
"""

from __future__ import annotations

import functools
import http.server
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from playwright.sync_api import BrowserContext, Route, sync_playwright

LANGUAGES = ("en", "zh_CN")  # the site's languages, each under its own folder of the build
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@dataclass
class OfflineSite:
    """A browser context on the served site; ``external`` lists every blocked request."""

    context: BrowserContext
    base: str  # http://127.0.0.1:<port>, the site's root
    external: list[str] = field(default_factory=list)


@contextmanager
def open_offline(site: Path, chromium: str, *, scale: float = 1) -> Iterator[OfflineSite]:
    """Serve ``site`` and open a headless ``chromium`` on it; close both on exit.

    ``scale``: device pixels per CSS pixel (2 for a high-density screen's sharper screenshots).
    """
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with tempfile.TemporaryDirectory() as profile, sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                profile,  # a fresh --user-data-dir
                executable_path=chromium,
                headless=True,
                args=CHROMIUM_ARGS,
                device_scale_factor=scale,
            )
            offline = OfflineSite(context, f"http://127.0.0.1:{server.server_address[1]}")

            def only_local(route: Route) -> None:
                if urlsplit(route.request.url).hostname in ("127.0.0.1", None):
                    route.continue_()
                else:
                    offline.external.append(route.request.url)
                    route.abort()

            context.route("**/*", only_local)
            try:
                yield offline
            finally:
                context.close()
    finally:
        server.shutdown()
