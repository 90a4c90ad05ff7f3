"""What ``pnp preflight`` measures on the rendered PDF by rasterising it, within the command's
pixel budget (``pnp.render.pixels``): ink coverage (every page at ``COVERAGE_DPI``) and shared cut
lines (``pnp.qa.miscut``: a strip along each, at its DPI). Each render draws the pieces it covers,
so PDFium decodes their image files and draws their SVG art every time: a 62 KB PNG of 49
million pixels on 1,000 cards made `pnp preflight` take 50 s of CPU at 20 dpi (attack 6, F4); and
it paints their fills and gradients at the render's dpi: 300 card-sized gradient rectangles on 30
cards, 33 s in the 600-dpi strips (attack 19, F1).
A component whose measuring renders would pass what is left of the budget is not measured, and
says so (``Budget.take``)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from msgspec import Struct

from pnp.impose.sheet import Page, Slot
from pnp.layout.paints import AREA_PT2
from pnp.layout.piece import PieceLayout
from pnp.layout.primitives import Image, Text, Vector
from pnp.layout.svg import svg_cost
from pnp.qa.miscut import DPI as MISCUT_DPI
from pnp.qa.miscut import STRIP_PAD, lines_of
from pnp.render.pixels import (
    GRADIENT_WEIGHT,
    MAX_COMMAND_PIXELS,
    NO_ART,
    PAINTED_PER_PIXEL,
    ArtWork,
    over_budget,
    prim_art,
)
from pnp.render.raster import render_page

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
                img = render_page(page, dpi / 72.0)  # step by step: Ctrl-C ends it between drawings
            finally:
                page.close()
            r, g, b = img.split()
            low = ImageChops.darker(ImageChops.darker(r, g), b)
            out.append(1.0 - ImageStat.Stat(low).mean[0] / 255.0)
        return out
    finally:
        doc.close()


class Cost(Struct, frozen=True):
    """What measuring renders: ``images`` renders of ``pixels`` pixels together, drawing ``art``
    and painting ``painted`` weighted pixels (``ArtWork.painted_at`` each render's dpi)."""

    images: int = 0
    pixels: int = 0
    art: ArtWork = NO_ART
    painted: int = 0
    glyphed: int = 0  # what the glyphs drawn count at each render's dpi (``ArtWork.glyphs_at``)

    def __add__(self, other: Cost) -> Cost:
        return Cost(self.images + other.images, self.pixels + other.pixels, self.art + other.art,
                    self.painted + other.painted, self.glyphed + other.glyphed)

    @property
    def counted(self) -> int:
        return self.pixels + self.art.counted + self.painted // PAINTED_PER_PIXEL + self.glyphed


def measuring_cost(pages: Sequence[Page], sizes: Sequence[tuple[float, float]],
                   art_of: Callable[[Page, Slot, bool], ArtWork], coverage: bool, seams: bool,
                   dpi: float = COVERAGE_DPI) -> Cost:
    """The renders ``pnp preflight`` makes of a component's ``pages`` (each of its size in
    ``sizes``, pt): with ``coverage`` each page whole at ``dpi``, with ``seams`` a strip along each shared
    cut line (as ``pnp.qa.miscut`` crops it). A render draws every piece it covers: the whole
    page's (``art_of(page, slot, False)``), and for a strip the art of the two pieces that comes
    near their trim (``art_of(page, slot, True)``: PDFium skips what lies outside the strip)."""
    images = pixels = painted = glyphed = 0
    art = NO_ART
    pad = STRIP_PAD
    scale = MISCUT_DPI / 72
    lines = lines_of(pages) if seams else [[] for _ in pages]
    for page, (w, h), found in zip(pages, sizes, lines, strict=True):
        if coverage:
            images += 1
            pixels += math.ceil(w * dpi / 72) * math.ceil(h * dpi / 72)
            for slot in page.slots:
                drawn = art_of(page, slot, False)
                art += drawn
                painted += drawn.painted_at(dpi)
                glyphed += drawn.glyphs_at(dpi)
        for a, b, ((x0, y0), (x1, y1)) in found:
            images += 1
            pixels += math.ceil((abs(x1 - x0) + 2 * pad) * scale) * math.ceil((abs(y1 - y0) + 2 * pad) * scale)
            drawn = art_of(page, page.slots[a], True) + art_of(page, page.slots[b], True)
            art += drawn
            painted += drawn.painted_at(MISCUT_DPI)
            glyphed += drawn.glyphs_at(MISCUT_DPI)
    return Cost(images, pixels, art, painted, glyphed)


def edge_art(lay: PieceLayout) -> ArtWork:
    """``art_work`` of the image files and SVG art of ``lay`` whose box comes within a miscut
    strip's reach of the trim (any side: a piece may be turned on the page); art drawn through a
    matrix counts wherever it is. PDFium decodes a file and parses the art whole for a strip, but
    paints and rasterises only what lies in it: SVG art's gradients and edges count as much of
    them as lies within the strip's reach of the trim, along whichever side holds most
    (``strip_share``); all of them, drawn through a matrix."""
    reach = STRIP_PAD
    w, h = lay.width, lay.height
    out = NO_ART
    for p in lay.primitives:
        if p.__class__ is Text:  # its glyphs, wherever it lies: a line may run along the trim
            out += prim_art([p])
            continue
        if not isinstance(p, Image | Vector):
            continue
        turned = getattr(p, "matrix", None) is not None
        if turned or p.x <= reach or p.y <= reach or p.x + p.w >= w - reach or p.y + p.h >= h - reach:
            drawn = prim_art([p])
            if isinstance(p, Vector) and not turned:
                drawn = ArtWork(drawn.decoded, drawn.shapes, *strip_share(p, w, h, reach))  # no glyphs in art
            out += drawn
    return out


def strip_share(p: Vector, w: float, h: float, reach: float) -> tuple[int, int]:
    """(painted, edged), as ``prim_art`` counts them, of what the SVG art ``p`` (not turned) has
    within ``reach`` of the trim of a ``w`` x ``h`` pt piece, along the side that holds most: a
    strip along one side renders it. Which of the art's sides faces which of the piece's is
    not assumed (the art's y runs up, the piece's may run down): each side of the piece takes
    the larger of the two art sides on its axis."""
    if not (p.art_w > 0 and p.art_h > 0 and p.w > 0 and p.h > 0):
        return 0, 0
    sx, sy = p.w / p.art_w, p.h / p.art_h  # pt on the piece a pt of the art
    cost = svg_cost(p.src)
    shaded = edged = 0.0
    for depth, sides in (((reach - p.x) / sx, (0, 1)), ((p.x + p.w - (w - reach)) / sx, (0, 1)),
                         ((reach - p.y) / sy, (2, 3)), ((p.y + p.h - (h - reach)) / sy, (2, 3))):
        if depth > 0:
            for side in sides:
                g, e = cost.band(side, depth)
                shaded, edged = max(shaded, g), max(edged, e * max(sx, sy))
    painted = shaded * sx * sy / AREA_PT2 * GRADIENT_WEIGHT
    return (int(painted) if math.isfinite(painted) else 0), (int(edged) if math.isfinite(edged) else 0)


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
            return over_budget("pnp preflight", total.images, total.pixels, total.art, self.limit,
                               painted=total.painted, glyphed=total.glyphed)
        self.spent = total
        return None
