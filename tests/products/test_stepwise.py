"""Rendering with PDFium step by step (pnp.products.images.render_stepwise): the pixels of one
whole render, and Ctrl-C answered between steps, not after a render of costly art (a sheet held
`pnp export tts` 66 s after Ctrl-C: attack 22, F2); one drawing PDFium cannot pause in,
rendered in a worker process that Ctrl-C ends (attack 23, F3)."""

from __future__ import annotations

import hashlib
import io
import os
import random
import signal
import threading
import time

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
import pytest
from reportlab.pdfgen import canvas

from pnp.products.images import raster, render_stepwise
from pnp.products.workers import isolated


def _forms(lines: int) -> bytes:
    """A page of nine forms, each of ``lines`` thin near-vertical lines across it."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(300, 300), invariant=1)
    c.beginForm("art", upperx=100, uppery=100)
    c.setLineWidth(0.1)
    for i in range(lines):
        c.line(i * 100 / lines, 0, (i + 0.5) * 100 / lines, 100)
    c.endForm()
    for k in range(9):
        c.saveState()
        c.translate(k % 3 * 100, k // 3 * 100)
        c.doForm("art")
        c.restoreState()
    c.showPage()
    c.save()
    return buf.getvalue()


def _whole(doc: pdfium.PdfDocument, size: tuple[int, int]) -> bytes:
    page = doc[0]
    w, h = size
    bitmap = pdfium.PdfBitmap.new_native(w, h, pdfium_c.FPDFBitmap_BGR, rev_byteorder=True)
    pdfium_c.FPDFBitmap_FillRect(bitmap.raw, 0, 0, w, h, 0xFFFFFFFF)
    pdfium_c.FPDF_RenderPageBitmap(bitmap.raw, page.raw, 0, 0, w, h, 0,
                                   pdfium_c.FPDF_ANNOT | pdfium_c.FPDF_REVERSE_BYTE_ORDER)
    out = bitmap.to_pil().tobytes()
    page.close()
    return out


def test_a_stepwise_render_has_the_pixels_of_one_whole_render() -> None:
    doc = pdfium.PdfDocument(_forms(200))
    try:
        assert raster(doc, 0, (500, 500)).tobytes() == _whole(doc, (500, 500))
    finally:
        doc.close()


def test_ctrl_c_ends_a_render_between_its_steps() -> None:
    """Ctrl-C 0.1 s into a render of nine costly forms is raised out of it (their handler runs
    between PDFium's steps, not inside its callback), before the last forms are drawn; the
    handlers are the same after it."""
    doc = pdfium.PdfDocument(_forms(20_000))
    page = doc[0]
    w = h = 3000
    bitmap = pdfium.PdfBitmap.new_native(w, h, pdfium_c.FPDFBitmap_BGR, rev_byteorder=True)
    pdfium_c.FPDFBitmap_FillRect(bitmap.raw, 0, 0, w, h, 0xFFFFFFFF)
    before = signal.getsignal(signal.SIGINT)
    timer = threading.Timer(0.1, os.kill, (os.getpid(), signal.SIGINT))
    try:
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            render_stepwise(bitmap.raw, page.raw, 0, 0, w, h)
        assert signal.getsignal(signal.SIGINT) is before
        img = bitmap.to_pil()
        drawn = [img.crop((x, y, x + 1000, y + 1000)).getextrema() != ((255, 255),) * 3
                 for y in (0, 1000, 2000) for x in (0, 1000, 2000)]
        assert not all(drawn)  # stopped before the last form
    finally:
        timer.cancel()
        page.close()
        doc.close()


def _one_path(points: int) -> bytes:
    """A page whose one page object is a path of ``points`` random lines, filled and stroked."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(100, 100), invariant=1)
    rnd = random.Random(1)
    path = c.beginPath()
    path.moveTo(0, 0)
    for _ in range(points):
        path.lineTo(rnd.uniform(0, 100), rnd.uniform(0, 100))
    c.setLineWidth(0.3)
    c.drawPath(path, stroke=1, fill=1)
    c.showPage()
    c.save()
    return buf.getvalue()


def test_ctrl_c_ends_one_costly_drawing_rendered_in_a_worker() -> None:
    """One page object (a path of 20,000 random lines) is drawn in one PDFium step: rendered here,
    Ctrl-C would be answered only after it, however long it takes (~5 s for a polygon of 120,000
    vertices at 1,200 dpi, attack 23 F3). ``isolated`` renders it in a forked worker, with the
    same pixels, and Ctrl-C ends the worker at once: in a fraction of the render's time."""
    data = _one_path(20_000)
    size = (2000, 2000)

    def picture() -> tuple[int, str]:
        doc = pdfium.PdfDocument(data)
        try:
            return os.getpid(), hashlib.sha256(raster(doc, 0, size).tobytes()).hexdigest()
        finally:
            doc.close()

    start = time.monotonic()
    here = picture()
    whole = time.monotonic() - start
    there = isolated(picture)
    assert there[0] != os.getpid() and there[1] == here[1]
    timer = threading.Timer(whole / 5, os.kill, (os.getpid(), signal.SIGINT))
    start = time.monotonic()
    try:
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            isolated(picture)
        assert time.monotonic() - start < whole * 0.6, (time.monotonic() - start, whole)
    finally:
        timer.cancel()
