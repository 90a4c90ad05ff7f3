"""pnp.render.raster.render_page: pypdfium2's PdfPage.render (the same pixels, cropped or not)
rendered step by step, so `pnp preflight`'s measuring renders end at Ctrl-C between drawings
(a page of costly SVG art answered 7-8 s late: attack 25, F5)."""

from __future__ import annotations

import os
import signal
import threading
import time

import pypdfium2 as pdfium
import pytest

from pnp.render.raster import render_page
from tests.products.test_stepwise import _forms


@pytest.mark.parametrize("crop", [(0, 0, 0, 0), (30, 40, 100, 60.5)])
def test_render_page_has_the_pixels_of_pypdfium2s_render(crop: tuple[float, float, float, float]) -> None:
    doc = pdfium.PdfDocument(_forms(300))
    try:
        page = doc[0]
        for scale in (20 / 72, 600 / 72):
            ours = render_page(page, scale, crop)
            theirs = page.render(scale=scale, crop=crop).to_pil().convert("RGB")
            assert ours.size == theirs.size and ours.tobytes() == theirs.tobytes()
    finally:
        doc.close()


def test_ctrl_c_ends_a_page_render_between_its_drawings() -> None:
    doc = pdfium.PdfDocument(_forms(4_000))
    try:
        page = doc[0]
        start = time.monotonic()
        render_page(page, 8.0)
        whole = time.monotonic() - start
        timer = threading.Timer(whole / 5, os.kill, (os.getpid(), signal.SIGINT))
        start = time.monotonic()
        try:
            timer.start()
            with pytest.raises(KeyboardInterrupt):
                render_page(page, 8.0)
            assert time.monotonic() - start < whole * 0.8, (time.monotonic() - start, whole)
        finally:
            timer.cancel()
    finally:
        doc.close()
