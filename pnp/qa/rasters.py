"""What ``pnp preflight`` measures on the rendered PDF by rasterising it, within the command's
pixel budget (``pnp.render.pixels``): ink coverage (every page at ``COVERAGE_DPI``) and shared cut
lines (``pnp.qa.miscut``: a strip along each, at its DPI). Each render draws the pieces it covers,
so PDFium decodes their image files and draws their SVG art every time: a 62 KB PNG of 49
million pixels on 1,000 cards made `pnp preflight` take 50 s of CPU at 20 dpi (attack 6, F4).
A component whose measuring renders would pass what is left of the budget is not measured, and
says so (``Budget.take``)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from msgspec import Struct

from pnp.impose.sheet import Page, Slot
from pnp.layout.piece import PieceLayout
from pnp.layout.primitives import Image, Vector
from pnp.qa.miscut import DPI as MISCUT_DPI
from pnp.qa.miscut import STRIP_PAD, lines_of
from pnp.render.pixels import MAX_COMMAND_PIXELS, NO_ART, ArtWork, over_budget, prim_art

COVERAGE_DPI = 20  # coverage is an area average: 20 dpi is plenty and fast


def page_coverage(pdf: bytes, dpi: float = COVERAGE_DPI) -> list[float]:
    """Ink coverage (0..1) of each page: the mean of ``1 - min(R, G, B)`` over its pixels."""
    import pypdfium2 as pdfium  # late: a build does not rasterise
    from PIL import ImageChops, ImageStat

    doc = pdfium.PdfDocument(pdf)
    try:
        out = []
        for i in range(len(doc)):
            page = doc[i]
            try:
                img = page.render(scale=dpi / 72.0).to_pil().convert("RGB")
            finally:
                page.close()
            r, g, b = img.split()
            low = ImageChops.darker(ImageChops.darker(r, g), b)
            out.append(1.0 - ImageStat.Stat(low).mean[0] / 255.0)
        return out
    finally:
        doc.close()


class Cost(Struct, frozen=True):
    """What measuring renders: ``images`` renders of ``pixels`` pixels together, drawing ``art``."""

    images: int = 0
    pixels: int = 0
    art: ArtWork = NO_ART

    def __add__(self, other: Cost) -> Cost:
        return Cost(self.images + other.images, self.pixels + other.pixels, self.art + other.art)

    @property
    def counted(self) -> int:
        return self.pixels + self.art.counted


def measuring_cost(pages: Sequence[Page], sizes: Sequence[tuple[float, float]],
                   art_of: Callable[[Page, Slot, bool], ArtWork], coverage: bool, seams: bool,
                   dpi: float = COVERAGE_DPI) -> Cost:
    """The renders ``pnp preflight`` makes of a component's ``pages`` (each of its size in
    ``sizes``, pt): with ``coverage`` each page whole at ``dpi``, with ``seams`` a strip along each shared
    cut line (as ``pnp.qa.miscut`` crops it). A render draws every piece it covers: the whole
    page's (``art_of(page, slot, False)``), and for a strip the art of the two pieces that comes
    near their trim (``art_of(page, slot, True)``: PDFium skips what lies outside the strip)."""
    images = pixels = 0
    art = NO_ART
    pad = STRIP_PAD
    scale = MISCUT_DPI / 72
    lines = lines_of(pages) if seams else [[] for _ in pages]
    for page, (w, h), found in zip(pages, sizes, lines, strict=True):
        if coverage:
            images += 1
            pixels += math.ceil(w * dpi / 72) * math.ceil(h * dpi / 72)
            for slot in page.slots:
                art += art_of(page, slot, False)
        for a, b, ((x0, y0), (x1, y1)) in found:
            images += 1
            pixels += math.ceil((abs(x1 - x0) + 2 * pad) * scale) * math.ceil((abs(y1 - y0) + 2 * pad) * scale)
            art += art_of(page, page.slots[a], True) + art_of(page, page.slots[b], True)
    return Cost(images, pixels, art)


def edge_art(lay: PieceLayout) -> ArtWork:
    """``art_work`` of the image files and SVG art of ``lay`` whose box comes within a miscut
    strip's reach of the trim (any side: a piece may be turned on the page); art drawn through a
    matrix counts wherever it is."""
    reach = STRIP_PAD
    w, h = lay.width, lay.height
    near = [p for p in lay.primitives if isinstance(p, Image | Vector) and (
        getattr(p, "matrix", None) is not None or p.x <= reach or p.y <= reach
        or p.x + p.w >= w - reach or p.y + p.h >= h - reach)]
    return prim_art(near)


class Budget:
    """One command's pixel budget for measuring renders (``limit``: the user's
    ``--max-megapixels``, else MAX_COMMAND_PIXELS), spent component by component."""

    def __init__(self, limit: int | None = None):
        self.limit = MAX_COMMAND_PIXELS if limit is None else limit
        self.spent = Cost()

    def take(self, cost: Cost) -> tuple[str, str] | None:
        """Spend ``cost``, or, if the command's renders would then pass the limit, spend nothing
        and say so: (message, hint) in the words of the other rasterising commands."""
        total = self.spent + cost
        if total.counted > self.limit:
            return over_budget("pnp preflight", total.images, total.pixels, total.art, self.limit)
        self.spent = total
        return None
