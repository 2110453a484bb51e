"""The built documentation site, seen by headless Chromium.

Set ``SPE_DOCS_HTML`` to the HTML output of the site build (CI does, after
``sphinx-build -W docs <dir>``); without it, without the built site, or without a Chromium
on the PATH these tests skip. They screenshot the front page and a user-guide page and
check what a reader would see: a page that is not blank, the main text column on screen,
the figure the guide draws at build time, and the formulas of the method page as math.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

WIDTH, HEIGHT = 1280, 1000
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars")
MATHJAX_HOST = "cdn.jsdelivr.net"


def _site() -> Path:
    root = os.environ.get("SPE_DOCS_HTML")
    if not root:
        pytest.skip("SPE_DOCS_HTML is not set (the built documentation site)")
    site = Path(root)
    if not (site / "index.html").is_file():
        pytest.skip(f"no built site at {site} (index.html missing)")
    return site


def _chromium() -> str:
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no Chromium on the PATH")


@pytest.fixture(scope="module")
def site():
    return _site()


@pytest.fixture(scope="module")
def browser():
    return _chromium()


def _run(browser, page: Path, *args, timeout=90) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run([browser, *FLAGS, f"--user-data-dir={profile}", f"--window-size={WIDTH},{HEIGHT}",
                               "--virtual-time-budget=8000", *args, page.as_uri()],
                              capture_output=True, text=True, timeout=timeout)


def screenshot(browser, page: Path, out: Path) -> np.ndarray:
    """(height, width) grey levels in [0, 1] of the page as rendered at WIDTH x HEIGHT."""
    from PIL import Image

    done = _run(browser, page, f"--screenshot={out}")
    assert out.is_file(), f"Chromium wrote no screenshot of {page}: {done.stderr[-500:]}"
    return np.asarray(Image.open(out).convert("L"), dtype=float) / 255.0


def dom(browser, page: Path) -> str:
    return _run(browser, page, "--dump-dom").stdout


def _text_columns(grey: np.ndarray) -> np.ndarray:
    """Share of rows in each of 20 vertical strips that hold dark (text) pixels."""
    dark = grey < 0.5
    strips = np.array_split(dark, 20, axis=1)
    return np.array([np.mean(strip.any(axis=1)) for strip in strips])


@pytest.mark.parametrize("page", ["index.html", "user_guide/binary.html"])
def test_page_renders_with_its_main_text_on_screen(site, browser, page, tmp_path):
    grey = screenshot(browser, site / page, tmp_path / "shot.png")
    assert grey.shape == (HEIGHT, WIDTH)
    # not blank: a rendered page has text and rules, i.e. contrast
    assert grey.std() > 0.05, f"{page} looks blank (grey-level sd {grey.std():.3f})"
    assert np.mean(grey < 0.5) > 0.005, f"{page} has almost no dark pixels"
    # the main text column, not only a sidebar, is on screen: text in the middle of the page
    middle = _text_columns(grey)[5:15]
    assert np.mean(middle > 0.1) >= 0.5, f"{page}: the middle of the page holds little text ({middle.round(2)})"


def test_guide_page_shows_its_build_time_figure(site, browser):
    html = dom(browser, site / "user_guide" / "binary.html")
    assert "What a fit shows" in html
    images = _img_sources(html, "plot-directive")
    assert images, "user_guide/binary.html has no figure drawn by its plot directive"
    figure = (site / "user_guide" / images[0]).resolve()
    assert figure.is_file() and figure.stat().st_size > 10_000, f"figure {figure} missing or nearly empty"
    assert "std-term" in html and "glossary.html#term-" in html, "binary.html links no glossary term"


def _img_sources(html: str, css_class: str) -> list[str]:
    import re

    tags = re.findall(r"<img\s[^>]*>", html)
    return [re.search(r'\ssrc="([^"]+)"', tag).group(1) for tag in tags if css_class in tag and " src=" in tag]


def test_method_page_marks_its_formulas_as_math(site, browser):
    html = dom(browser, site / "method.html")
    math = html.count('class="math')
    assert math >= 40, f"method.html has {math} math elements; its formulas are not rendered as math"
    assert "mathjax" in html.lower(), "method.html loads no MathJax"
    assert "sum_j b_j x_j(s)" not in html, "method.html still writes a formula as plain text"


def _reachable(host: str) -> bool:
    try:
        socket.create_connection((host, 443), timeout=3).close()
        return True
    except OSError:
        return False


def test_mathjax_typesets_the_method_page(site, browser):
    if not _reachable(MATHJAX_HOST):
        pytest.skip(f"MathJax is loaded from {MATHJAX_HOST}, which is unreachable (offline)")
    html = dom(browser, site / "method.html")
    assert html.count("<mjx-container") >= 40, "MathJax loaded but did not typeset method.html's formulas"
