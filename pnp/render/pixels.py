"""The pixel budget of every command that rasterises (`pnp export png` and `tts`, a PNG shop's run,
`pnp preview`, `pnp serve`'s pictures, `pnp preflight`'s measuring renders): the pixels it
renders plus what drawing them costs PDFium besides (``ArtWork``: the image files and SVG art
drawn, once per drawing), held to MAX_COMMAND_PIXELS (or the user's ``--max-megapixels``) before
anything is rendered. docs/performance.md#pixel-budget has the measurements.

And what PDFium holds to rasterise one image (``held``: the shapes of the pieces it shows, SVG
art's every time it is drawn), held to MAX_IMAGE_SHAPES before that image is rendered
(``too_many``): the pixel budget bounds a command's time, this one image's memory."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

from msgspec import Struct

from pnp.errors import DataError, Diagnostic, counted
from pnp.input.model import Game, Item
from pnp.input.project import shown_path
from pnp.layout.cost import area, edges
from pnp.layout.fonts import GLYPH_OUTLINE
from pnp.layout.paints import AREA_PT2, SEE_THROUGH
from pnp.layout.piece import PieceLayout
from pnp.layout.primitives import Ellipse, Image, Line, Path, Primitive, Rect, Text, Vector
from pnp.layout.shapes import image_work
from pnp.layout.svg import svg_cost, svg_shapes
from pnp.layout.svg_cost import SEGMENTS_PER_SHAPE, drawn_scale

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
# And it parses and draws SVG art's shapes again each time (``pnp.layout.svg_cost.ArtCost.at``: shapes
# of about 2 µs, 1.6 to 2 for a square or a short path): one counts as this many rendered pixels.
PIXELS_PER_SHAPE = 100
MIN_DPI = 36  # the lowest --dpi the export commands take
# And it paints each fill and stroke over the pixels it covers, at the --dpi: the layout's area
# charge (``pnp.layout.cost.area``: AREA_PT2 units, see-through ones SEE_THROUGH times) is calibrated
# at 300 dpi, but at 1,200 dpi a pixel of a piece is 16 of them. Measured (export png, 3 cards, one
# core): 800 opaque full-card rectangles a card at 1,200 dpi 27 s, 300 see-through ones 31 s:
# 0.9 and 0.56 ns a weighted painted pixel, against 25 ns a rendered one; this many weighted
# painted pixels count as one rendered pixel (attack 16 note: the area charge was not dpi-aware).
PAINTED_PER_PIXEL = 25
# A gradient in SVG art is shaded pixel by pixel: 300 card-sized rectangles of a two-stop radial
# gradient took 6 s a drawing at 300 dpi, 25 times the same with solid fills (attack 19, F1); its
# area counts this many times an opaque fill's, in the painting above (the pixel budget only: a
# build draws it as a PDF shading).
GRADIENT_WEIGHT = 25
# And it builds cells along every edge a fill or stroke gives its rasteriser (a fill's outline, a
# stroke's two sides), at the dpi, however thin the stroke: a pixel of edge counts this many
# weighted painted pixels. Measured (python bench/bench_art_cost.py): 1,000 random segments
# stroked 0.3 mm wide, 173 ms a card at 600 dpi (92 ns a pixel of edge), 1,000 lines stroked corner
# to corner over each other 171-194 ms at 300 dpi; a filled path of 20,000 random edges 453 ms at
# 300 dpi (48 ns); 2,000 near-vertical lines 0.025 mm apart, stroked 0.3 mm wide (attack 20, F1),
# 628 ms at 300 dpi (157 ns a pixel of edge), counted 0.07 s; where the painted area counted 2-40 ms.
EDGE_WEIGHT = 150
# The shapes PDFium may hold to rasterise one image (``held``). pnp draws an SVG file as one form
# XObject, in the PDF once, but PDFium parses a form again for every time a page draws it and
# holds every shape it parsed until the page is closed. Measured (bench/bench_form_uses.py,
# pypdfium2, one 63 x 88 mm page at 300 dpi, peak RSS over an empty page's): 510-525 bytes a
# see-through rectangle drawn, whether 5,000 x 20 or 100 x 4,000 times (a 30-segment path 810
# bytes, counted 6 shapes); a form of 5,000 rectangles drawn 400 times on a card took 1.4 GB and
# aborted in PDFium under a 1.5 GB limit (attack 16, F5). At this many shapes an image holds about
# 130 MB, two export workers 260 MB; a bundled game's image holds at most 1,000 or so.
MAX_IMAGE_SHAPES = 250_000
# And it draws every glyph of a text that reaches the image (a line running off it too: only a
# text object wholly outside is skipped). Measured (reportlab text in Lato, pypdfium2, CPU, 100,000
# glyphs): ~200-850 ns a glyph up to an em of ~50 px, ~3-6 µs from ~58 px (14 pt at 300 dpi, 8 pt
# at 600), where PDFium stops drawing glyphs from its cache; 33-160 ns a glyph of a text wholly
# off the image. A glyph counts GLYPH_PIXELS rendered pixels, and its em squared at the dpi over
# GLYPH_EM_PIXELS more (an em of 58 px: 124 pixels, 3.1 µs at NS_PER_PIXEL, measured 3.0; of 25
# px: 33 pixels, 0.8 µs, measured 0.35; `python bench/bench_glyph_cost.py`): 1,000,000 glyphs
# of 30 pt a card (a repeat of 200 unwrapped texts of 5,000 characters) took 44 s to export 20
# cards and 90 s to preflight, uncharged (attack 24, F3).
GLYPH_PIXELS = 12
GLYPH_EM_PIXELS = 30
# And a glyph whose outline is long (a self-crossing zigzag) is rasterised in time with its
# length at the dpi, as a path's edges are: a font whose "A" was one outline of 4,900 points,
# 2,400 ems long, took 125 ms a glyph at an em of 450 px (~113 ns a pixel of outline), counted
# 1 ms (attack 26, F3). Every glyph of a font whose longest outline (pnp.layout.fontcheck:
# each contour's control polygon) passes OUTLINE_EMS_FREE ems counts that excess, at the em's
# size in pixels, OUTLINE_PIXELS rendered pixels a pixel. The bundled fonts' longest: 8-13 ems.
OUTLINE_EMS_FREE = 20
OUTLINE_PIXELS = 5


class ArtWork(Struct, frozen=True):
    """What rendering images costs beyond their own pixels: the pixels of the image files they
    draw (``decoded``: more for a progressive JPEG's scans, ``pnp.layout.shapes.image_work``) and
    the shapes of the SVG art they draw (``shapes``), once per drawing; the area their fills and
    strokes paint (``painted``: ``pnp.layout.cost.area`` units) and the glyphs of their texts."""

    decoded: int = 0
    shapes: int = 0
    painted: int = 0
    edged: int = 0  # pt of the edges its fills and strokes give the rasteriser (``pnp.layout.cost.edges``)
    glyphs: int = 0  # characters of the texts drawn
    ems: int = 0  # their ems squared, pt²
    outlined: int = 0  # their outlines past OUTLINE_EMS_FREE ems, pt at their size

    def __add__(self, other: ArtWork) -> ArtWork:
        return ArtWork(self.decoded + other.decoded, self.shapes + other.shapes, self.painted + other.painted,
                       self.edged + other.edged, self.glyphs + other.glyphs, self.ems + other.ems,
                       self.outlined + other.outlined)

    def __mul__(self, times: int) -> ArtWork:
        return ArtWork(self.decoded * times, self.shapes * times, self.painted * times, self.edged * times,
                       self.glyphs * times, self.ems * times, self.outlined * times)

    @property
    def counted(self) -> int:
        """In rendered pixels: what the budget adds for the files and the SVG shapes."""
        return self.decoded // DECODED_PER_PIXEL + self.shapes * PIXELS_PER_SHAPE

    def painted_at(self, dpi: float) -> int:
        """The weighted pixels the fills and strokes paint at ``dpi``: their areas, and their edges
        (EDGE_WEIGHT a pixel of edge)."""
        return int(self.painted * AREA_PT2 * (dpi / 72) ** 2 + self.edged * (dpi / 72) * EDGE_WEIGHT)

    def glyphs_at(self, dpi: float) -> int:
        """In rendered pixels: what the glyphs drawn at ``dpi`` count (GLYPH_PIXELS a glyph, and
        its em squared over GLYPH_EM_PIXELS)."""
        scale = dpi / 72
        return int(self.glyphs * GLYPH_PIXELS + self.ems * scale**2 / GLYPH_EM_PIXELS
                   + self.outlined * scale * OUTLINE_PIXELS)

    def at(self, dpi: float) -> int:
        """In rendered pixels at ``dpi``: what the budget adds for it, painting and glyphs included."""
        return self.counted + self.painted_at(dpi) // PAINTED_PER_PIXEL + self.glyphs_at(dpi)


NO_ART = ArtWork()


def art_work(layouts: Iterable[PieceLayout | None]) -> ArtWork:
    """The image files and SVG art ``layouts`` draw, once per drawing (what PDFium decodes and
    draws to render them), from the files' headers (``pnp.layout.shapes.image_size``) and the
    checked art (``pnp.layout.svg.svg_cost``), both read when the layout was made."""
    laid = [lay for lay in layouts if lay is not None]
    art = prim_art(p for lay in laid for p in lay.primitives)
    return ArtWork(art.decoded, art.shapes,
                   art.painted + sum(area(list(lay.primitives), lay.width, lay.height) for lay in laid),
                   art.edged + int(sum(edges(lay.primitives) for lay in laid)), art.glyphs, art.ems, art.outlined)


def prim_art(prims: Iterable[Primitive]) -> ArtWork:
    """``art_work`` of some primitives (``painted``: the gradients of their SVG art)."""
    decoded = shapes = painted = edged = glyphs = 0
    ems = outlined = 0.0
    for p in prims:
        if p.__class__ is Text:
            n = len(p.text)  # type: ignore[union-attr]
            glyphs += n
            ems += n * p.size * p.size  # type: ignore[union-attr]
            excess = GLYPH_OUTLINE.get(p.font, 0.0) - OUTLINE_EMS_FREE  # type: ignore[union-attr]
            if excess > 0:
                outlined += n * excess * p.size  # type: ignore[union-attr]
        elif isinstance(p, Image):
            decoded += image_work(p.src)  # its pixels, more for a progressive JPEG's scans
        elif isinstance(p, Vector):
            scale = drawn_scale(p)
            cost = svg_cost(p.src)
            shapes += cost.at(scale)  # its dashes as drawn
            shaded = cost.gradient * (scale or 1.0) ** 2
            if shaded > 0 and math.isfinite(shaded):
                painted += int(shaded / AREA_PT2 * GRADIENT_WEIGHT)
            edge = cost.edges_at(scale) * (scale or 1.0)
            if edge > 0 and math.isfinite(edge):
                edged += int(edge)
    return ArtWork(decoded, shapes, painted, edged, glyphs, int(ems) if math.isfinite(ems) else 0,
                   int(outlined) if math.isfinite(outlined) else 0)


class Held(Struct, frozen=True):
    """What PDFium holds to rasterise an image (``held``): ``shapes`` in all, ``art``: each SVG
    file drawn -> (times drawn, its shapes), and ``most``: the index of the layout holding most."""

    shapes: int = 0
    art: dict[str, tuple[int, int]] = {}
    most: int = 0

    def __add__(self, other: Held) -> Held:
        """Both on one image (``most``: this one's)."""
        art = dict(self.art)
        for src, (times, each) in other.art.items():
            art[src] = (art.get(src, (0, each))[0] + times, each)
        return Held(self.shapes + other.shapes, art, self.most)


def held(layouts: Iterable[PieceLayout | None]) -> Held:
    """The shapes PDFium holds to rasterise one image of ``layouts`` (None: an empty slot): each
    shape a piece draws 1 (a path 1 more for every SEGMENTS_PER_SHAPE segments), and SVG art its
    shapes (``pnp.layout.svg.svg_shapes``, dashes aside: they cost time, not memory) each time it
    is drawn. Image files and text are left out: their cost is the pixel budget's."""
    total, best, most = 0, -1, 0
    art: dict[str, tuple[int, int]] = {}
    for k, lay in enumerate(layouts):
        if lay is None:
            continue
        n = 0
        for p in lay.primitives:
            c = p.__class__
            if c is Vector:
                each = svg_shapes(p.src)  # type: ignore[union-attr]
                times, _ = art.get(p.src, (0, each))  # type: ignore[union-attr]
                art[p.src] = (times + 1, each)  # type: ignore[union-attr]
                n += each
            elif c is Path:
                n += 1 + len(p.ops) // SEGMENTS_PER_SHAPE  # type: ignore[union-attr]
            elif c is Rect or c is Ellipse or c is Line:
                n += 1
        total += n
        if n > best:
            best, most = n, k
    return Held(total, art, most)


def too_many(command: str, what: str, h: Held) -> tuple[str, str, str] | None:
    """(message, expected, hint) when the image ``what`` names (``held``: ``h``) would hold more
    than MAX_IMAGE_SHAPES shapes for ``command`` to render it, naming the SVG art drawn most."""
    if h.shapes <= MAX_IMAGE_SHAPES:
        return None
    expected = (f"at most {MAX_IMAGE_SHAPES} shapes in one rendered image, SVG art's counted each time it is drawn"
                ": PDFium holds about 500 bytes a shape")
    if not h.art:
        return (f"{what} draws {counted(h.shapes, 'shape')}, more than `{command}` may hold at once to render "
                "one image", expected, "fewer shapes on each piece (smaller `repeat` counts)")
    src, (times, each) = max(h.art.items(), key=lambda kv: (kv[1][0] * kv[1][1], kv[0]))
    return (f"{what} draws SVG art {shown_path(src)!r} ({counted(each, 'shape')}) {counted(times, 'time')}: "
            f"{counted(h.shapes, 'shape')} in all, more than `{command}` may hold at once to render one image",
            expected, "draw the art fewer times on a piece (a smaller `repeat` count, fewer inline `{icon:...}` in "
            "the text), simplify it (fewer shapes), or export it as a PNG and draw that")


def check_held(game: Game, items: Sequence[Item | None], command: str, what: str,
               layouts: Sequence[PieceLayout | None]) -> None:
    """DataError, before the image is rendered, when one image of ``layouts`` (``items[k]``
    drew ``layouts[k]``) would hold more than MAX_IMAGE_SHAPES shapes (``too_many``): at the
    item, in its data file, whose piece holds most."""
    h = held(layouts)
    problem = too_many(command, what, h)
    if problem is None:
        return
    msg, expected, hint = problem
    item = items[h.most] if h.most < len(items) else None
    doc = game.doc_for(item.origin[0]) if item is not None else None
    if item is None or doc is None:
        raise DataError([Diagnostic(game.id, msg, expected=expected, hint=hint)])
    raise DataError([doc.diag(item.origin[1], msg, expected=expected, hint=hint)])


def over_budget(command: str, images: int, total: int, art: ArtWork, limit: int,
                ways: Iterable[str | None] = (), painted: int = 0, glyphed: int = 0) -> tuple[str, str]:
    """(message, hint) for ``images`` of ``total`` pixels drawing ``art`` beyond ``limit``:
    what it comes to, and how to fit (``ways`` first; then the art, then raising the limit).
    ``painted``: the weighted pixels its fills and strokes paint at the renders' dpi
    (``ArtWork.painted_at``), and ``glyphed`` what its glyphs count (``ArtWork.glyphs_at``),
    counted too; the glyphs named where they come to 1 % of it."""
    files = art.counted + painted // PAINTED_PER_PIXEL + glyphed
    glyphs = art.glyphs if glyphed * 100 >= total + files else 0
    painted = painted if painted // PAINTED_PER_PIXEL else 0  # named where it counts
    needed = -(-(total + files) // 1_000_000)  # megapixels, rounded up
    hint = [*ways,
            "scale the art to the resolution it prints at (300 ppi at its size on the piece)" if art.decoded else None,
            "simplify the SVG art (fewer shapes, nodes and dashes), or export it as a PNG" if art.shapes else None,
            "fewer or smaller fills and strokes (shorter outlines), opaque rather than see-through"
            if painted // PAINTED_PER_PIXEL > limit // 10 else None,
            "shorter texts, or fewer of them (every character drawn counts, in a line running off the piece too)"
            if glyphed > limit // 10 else None,
            f"if the time is worth it (about {needed * NS_PER_PIXEL // 1000} s of CPU), raise the limit with "
            f"--max-megapixels {needed}"]
    said = " and ".join(w for w in (f"decode {art.decoded} pixels of image files" if art.decoded else "",
                                    f"draw {art.shapes} shapes of SVG art" if art.shapes else "",
                                    f"draw {glyphs} glyphs of text" if glyphs else "",
                                    f"paint {painted} pixels of fills and strokes (see-through ones "
                                    f"{SEE_THROUGH} times)" if painted else "") if w)
    counts = ", ".join(w for w in (f"a file's pixel 1 in {DECODED_PER_PIXEL}" if art.decoded else "",
                                   f"a shape as {PIXELS_PER_SHAPE} pixels" if art.shapes else "",
                                   f"a glyph as {GLYPH_PIXELS} pixels and more for its size at the dpi"
                                   if glyphs else "",
                                   f"a painted pixel 1 in {PAINTED_PER_PIXEL}" if painted else "") if w)
    drawn = f" and {said} for them (counted {counts}: {total + files} together)" if files else ""
    return (f"`{command}` would render {counted(images, 'image')} of {total} pixels together "
            f"({total // 1_000_000} million){drawn}, more than pnp's limit of {limit} pixels "
            f"({limit // 1_000_000} million) a command", ", or ".join(w for w in hint if w))


def check_total(where: str, command: str, images: int, total: int, dpi: float,
                total_at: Callable[[int], int] | None, other: str | None, art: ArtWork = NO_ART,
                limit: int | None = None) -> None:
    """DataError, before anything is rendered or written, when the ``images`` one command would
    render come to more than MAX_COMMAND_PIXELS pixels (``total``) together, with the ``art``
    they draw (image files, SVG art, painting and glyphs at the dpi, ``ArtWork.at``). ``total_at(d)``: the rendered
    pixels at ``--dpi d``, to name the highest whole dpi that fits (None where --dpi is not the
    user's to lower: a shop sets it); ``other``: what else the user can do; ``limit``: the
    budget (None: MAX_COMMAND_PIXELS; the user may raise it, ``--max-megapixels``)."""
    limit = MAX_COMMAND_PIXELS if limit is None else limit
    if total + art.at(dpi) <= limit:
        return
    fits = _dpi_that_fits(dpi, lambda d: total_at(d) + art.at(d), limit) if total_at is not None else None
    msg, hint = over_budget(command, images, total, art, limit,
                            [f"lower --dpi (--dpi {fits} fits)" if fits is not None else None, other],
                            art.painted_at(dpi), art.glyphs_at(dpi))
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
