"""The pixel budget of every command that rasterises (`pnp export png` and `tts`, a PNG shop's run,
`pnp preview`, `pnp serve`'s pictures, `pnp preflight`'s measuring renders): the pixels it
renders plus what drawing them costs PDFium besides (``ArtWork``: the image files and SVG art
drawn, once per drawing), held to MAX_COMMAND_PIXELS (or the user's ``--max-megapixels``) before
anything is rendered. docs/performance.md#pixel-budget has the measurements."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from msgspec import Struct

from pnp.errors import DataError, Diagnostic, counted
from pnp.layout.piece import PieceLayout
from pnp.layout.primitives import Image, Primitive, Vector
from pnp.layout.shapes import image_size
from pnp.layout.svg import stretch, svg_work

# One command's raster images together (``pnp export png``, ``pnp export tts``, a PNG shop, a
# preview): counted from the plan (images x pixels at the --dpi) and refused before anything is
# rendered or written. Rendering and encoding cost 16-24 ns of CPU a pixel
# (docs/performance.md#pixel-budget), so this is 16-24 s of CPU; the largest bundled game at 600
# dpi is 443 million pixels.
MAX_COMMAND_PIXELS = 1_000_000_000
NS_PER_PIXEL = 25  # CPU a rendered pixel costs, about (card-sized images: 21-29 ns), for the message
# PDFium decodes an image file again each time a page draws it (1-6 ns a pixel of the file, PNG to
# JPEG): a file's pixels count this many to one rendered pixel, for every time a rendered image draws it.
DECODED_PER_PIXEL = 4
# And it parses and draws SVG art's shapes again each time (``pnp.layout.svg.svg_work``: shapes
# of about 2 µs, 1.6 to 2 for a square or a short path): one counts as this many rendered pixels.
PIXELS_PER_SHAPE = 100
MIN_DPI = 36  # the lowest --dpi the export commands take


class ArtWork(Struct, frozen=True):
    """What rendering images costs beyond their own pixels: the pixels of the image files they
    draw (``decoded``) and the shapes of the SVG art they draw (``shapes``), once per drawing."""

    decoded: int = 0
    shapes: int = 0

    def __add__(self, other: ArtWork) -> ArtWork:
        return ArtWork(self.decoded + other.decoded, self.shapes + other.shapes)

    def __mul__(self, times: int) -> ArtWork:
        return ArtWork(self.decoded * times, self.shapes * times)

    @property
    def counted(self) -> int:
        """In rendered pixels: what the budget adds for it."""
        return self.decoded // DECODED_PER_PIXEL + self.shapes * PIXELS_PER_SHAPE


NO_ART = ArtWork()


def art_work(layouts: Iterable[PieceLayout | None]) -> ArtWork:
    """The image files and SVG art ``layouts`` draw, once per drawing (what PDFium decodes and
    draws to render them), from the files' headers (``pnp.layout.shapes.image_size``) and the
    checked art (``pnp.layout.svg.svg_work``), both read when the layout was made."""
    return prim_art(p for lay in layouts if lay is not None for p in lay.primitives)


def prim_art(prims: Iterable[Primitive]) -> ArtWork:
    """``art_work`` of some primitives."""
    decoded = shapes = 0
    for p in prims:
        if isinstance(p, Image):
            w, h = image_size(p.src)
            decoded += w * h
        elif isinstance(p, Vector):
            scale = max(p.w / p.art_w, p.h / p.art_h) if p.art_w > 0 and p.art_h > 0 else None
            if scale is not None and p.matrix is not None:  # a turned element: at most its largest stretch
                scale *= stretch(p.matrix)
            shapes += svg_work(p.src, scale)  # its dashes as drawn (pnp.layout.svg.ArtCost)
    return ArtWork(decoded, shapes)


def over_budget(command: str, images: int, total: int, art: ArtWork, limit: int,
                ways: Iterable[str | None] = ()) -> tuple[str, str]:
    """(message, hint) for ``images`` of ``total`` pixels drawing ``art`` beyond ``limit``:
    what it comes to, and how to fit (``ways`` first; then the art, then raising the limit)."""
    files = art.counted
    needed = -(-(total + files) // 1_000_000)  # megapixels, rounded up
    hint = [*ways,
            "scale the art to the resolution it prints at (300 ppi at its size on the piece)" if art.decoded else None,
            "simplify the SVG art (fewer shapes, nodes and dashes), or export it as a PNG" if art.shapes else None,
            f"if the time is worth it (about {needed * NS_PER_PIXEL // 1000} s of CPU), raise the limit with "
            f"--max-megapixels {needed}"]
    said = " and ".join(w for w in (f"decode {art.decoded} pixels of image files" if art.decoded else "",
                                    f"draw {art.shapes} shapes of SVG art" if art.shapes else "") if w)
    counts = ", ".join(w for w in (f"a file's pixel 1 in {DECODED_PER_PIXEL}" if art.decoded else "",
                                   f"a shape as {PIXELS_PER_SHAPE} pixels" if art.shapes else "") if w)
    drawn = f" and {said} for them (counted {counts}: {total + files} together)" if files else ""
    return (f"`{command}` would render {counted(images, 'image')} of {total} pixels together "
            f"({total // 1_000_000} million){drawn}, more than pnp's limit of {limit} pixels "
            f"({limit // 1_000_000} million) a command", ", or ".join(w for w in hint if w))


def check_total(where: str, command: str, images: int, total: int, dpi: float,
                total_at: Callable[[int], int] | None, other: str | None, art: ArtWork = NO_ART,
                limit: int | None = None) -> None:
    """DataError, before anything is rendered or written, when the ``images`` one command would
    render come to more than MAX_COMMAND_PIXELS pixels (``total``) together, with the ``art``
    they draw (image files and SVG art, ``ArtWork.counted``). ``total_at(d)``: the rendered
    pixels at ``--dpi d``, to name the highest whole dpi that fits (None where --dpi is not the
    user's to lower: a shop sets it); ``other``: what else the user can do; ``limit``: the
    budget (None: MAX_COMMAND_PIXELS; the user may raise it, ``--max-megapixels``)."""
    limit = MAX_COMMAND_PIXELS if limit is None else limit
    files = art.counted
    if total + files <= limit:
        return
    fits = _dpi_that_fits(dpi, lambda d: total_at(d) + files, limit) if total_at is not None else None
    msg, hint = over_budget(command, images, total, art, limit,
                            [f"lower --dpi (--dpi {fits} fits)" if fits is not None else None, other])
    raise DataError([Diagnostic(where, msg, expected=f"at most {limit} pixels in one command", hint=hint)])


def _dpi_that_fits(dpi: float, total_at: Callable[[int], int], limit: int) -> int | None:
    """The highest whole dpi from MIN_DPI up, below ``dpi``, at which ``total_at`` fits
    ``limit`` (a binary search: the pixels never shrink as the dpi grows), or None."""
    lo, hi = MIN_DPI, math.ceil(dpi) - 1
    if hi < lo or total_at(lo) > limit:
        return None
    while lo < hi:  # total_at(lo) fits
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if total_at(mid) <= limit else (lo, mid - 1)
    return lo
