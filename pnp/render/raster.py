"""raster: PDF pages -> pixels with PDFium, step by step, so that Ctrl-C (or SIGTERM) ends a long
render between PDFium's steps instead of after it (``render_stepwise``); ``render_page`` is
pypdfium2's ``PdfPage.render`` (the same pixels) rendered so, for ``pnp preflight``'s measuring
renders. The exports' rasterising (``pnp.products.images``) draws through ``render_stepwise`` too."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from PIL import Image


_PAUSE: list[Any] = []  # PDFium's pause callback, made once and kept alive


def render_stepwise(bitmap: Any, page: Any, x: int, y: int, w: int, h: int) -> None:
    """Render ``page`` into ``bitmap`` (as FPDF_RenderPageBitmap with annotations, RGB byte order)
    progressively: PDFium stops after each batch of page objects (a piece's form, one SVG art
    drawing) and Python carries on, so Ctrl-C (or SIGTERM) ends a long render there instead of
    after it (one sheet of costly art held `pnp export tts` 66 s after Ctrl-C: attack 22, F2). The
    pixels are the same as a render in one call's. While PDFium runs, the signals' handlers only
    note them (a handler raising inside PDFium's callback would be lost there); each is handed to
    its own handler between steps."""
    import signal
    import threading

    import pypdfium2.raw as pdfium_c

    if not _PAUSE:
        need = pdfium_c.IFSDK_PAUSE._fields_[1][1](lambda _pause: 1)  # pause whenever PDFium may
        _PAUSE.extend([need, pdfium_c.IFSDK_PAUSE(version=1, NeedToPauseNow=need)])
    pause = _PAUSE[1]
    flags = pdfium_c.FPDF_ANNOT | pdfium_c.FPDF_REVERSE_BYTE_ORDER
    caught: list[tuple[int, Any]] = []
    saved: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            handler = signal.getsignal(sig)
            if callable(handler):  # not ignored (a worker's SIGINT) nor the default
                saved[sig] = handler
                signal.signal(sig, lambda signum, frame: caught.append((signum, frame)))
    try:
        status = pdfium_c.FPDF_RenderPageBitmap_Start(bitmap, page, x, y, w, h, 0, flags, pause)
        while status == pdfium_c.FPDF_RENDER_TOBECONTINUED:
            while caught:  # its handler, between steps (pnp's raise: the render ends here)
                signum, frame = caught.pop(0)
                saved[signum](signum, frame)
            status = pdfium_c.FPDF_RenderPage_Continue(page, pause)
    finally:
        pdfium_c.FPDF_RenderPage_Close(page)
        for sig, handler in saved.items():
            signal.signal(sig, handler)
    while caught:  # one that came during the last step
        signum, frame = caught.pop(0)
        saved[signum](signum, frame)


def render_rgb(page: Any, w: int, h: int, x: int = 0, y: int = 0, page_w: int | None = None,
               page_h: int | None = None) -> Image.Image:
    """``page`` (a pypdfium2 PdfPage) drawn step by step (``render_stepwise``) into an RGB image
    of ``w`` x ``h`` pixels on white, the page mapped onto ``page_w`` x ``page_h`` pixels (by
    default the image's) with its top-left corner at (``x``, ``y``)."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    bitmap = pdfium.PdfBitmap.new_native(w, h, pdfium_c.FPDFBitmap_BGR, rev_byteorder=True)
    try:
        pdfium_c.FPDFBitmap_FillRect(bitmap.raw, 0, 0, w, h, 0xFFFFFFFF)
        render_stepwise(bitmap.raw, page.raw, x, y, w if page_w is None else page_w, h if page_h is None else page_h)
        img = bitmap.to_pil()  # RGB already (BGR in reversed byte order), a copy of the buffer
        return img if img.mode == "RGB" else img.convert("RGB")
    finally:
        bitmap.close()


def render_page(page: Any, scale: float, crop: tuple[float, float, float, float] = (0, 0, 0, 0)) -> Image.Image:
    """``page`` (a pypdfium2 PdfPage) as ``page.render(scale=scale, crop=crop).to_pil()`` gives it
    (its size rounded up, the crop in page points from the left, bottom, right and top, on
    white, annotations drawn), RGB, rendered step by step: preflight's page renders drew every
    drawing of costly art in one call, and answered Ctrl-C 7-8 s late (attack 25, F5)."""
    src_w, src_h = math.ceil(page.get_width() * scale), math.ceil(page.get_height() * scale)
    left, bottom, right, top = (math.ceil(c * scale) for c in crop)
    w, h = src_w - left - right, src_h - bottom - top
    if w < 1 or h < 1:
        raise ValueError("Crop exceeds page dimensions")
    return render_rgb(page, w, h, -left, -top, src_w, src_h)
