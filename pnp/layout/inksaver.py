"""The low-ink variant (``pnp build --ink-saver``): the same data and templates, drawn for little ink.

Three steps, the first in data and the other two here, on laid-out pieces (pure: primitives in,
primitives out):

1. Fronts are laid out with each template's *light variant*: the ``light`` colours and palette
   entries a game's style (or a template) defines replace the normal ones where they fill a shape
   or an icon's background (``pnp.layout``, ``Context.light``); text, strokes and symbols keep
   their colours. The bundled games' light variants are designed as pale tints of the fills.
2. :func:`light_front` drops *full-bleed* fills, i.e. a filled shape covering at least
   ``FULL_BLEED`` (90 %) of the piece's bleed box (trim plus bleed), and re-inks what would no
   longer read: a text, an icon shape or an inline icon whose colour has a contrast ratio below
   ``MIN_CONTRAST`` with what it now sits on, and is itself light, is drawn in the game's ``ink``
   (what the variant can break is light text and symbols that sat on dark fills).
3. :func:`outline_back` reduces a back to an outline pattern: full-bleed fills go, every other
   filled shape becomes its outline (a ``OUTLINE_WIDTH`` stroke in its own normal colour, or in
   ink when that colour is too pale to see on white paper), strokes are at most ``MAX_OUTLINE``
   wide, faint shapes (shadows, glazes) go, and text is kept, re-inked when it would not read
   on white.

Colour-coded things keep their symbols: only fills change; no icon, text or symbol is removed."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from msgspec.structs import replace

from pnp.layout.piece import TEXT_TYPES, PieceLayout
from pnp.layout.primitives import PAPER, Ellipse, Image, Line, Paint, Path, Primitive, Rect, Text, Vector
from pnp.layout.turn import corners

FULL_BLEED = 0.9  # share of the bleed box a fill must cover to count as full-bleed
MIN_CONTRAST = 2.0  # WCAG contrast ratio below which light text or a light symbol is re-inked
LIGHT = 0.35  # relative luminance from which a colour counts as light
OUTLINE_WIDTH = 0.6  # pt, the outlines of a back's shapes
MAX_OUTLINE = 1.2  # pt, the widest stroke a back keeps (a broad band of colour is a fill in all but name)
VISIBLE = 1.4  # contrast with white paper below which an outline is drawn in ink instead
FAINT = 0.35  # a fill at most this opaque is decoration (shadow, glaze): dropped on backs

Box = tuple[float, float, float, float]  # x0, y0, x1, y1


def rgba(hex_: str) -> tuple[float, float, float, float]:
    h = hex_.lstrip("#")
    r, g, b = (int(h[i:i + 2], 16) / 255.0 for i in (0, 2, 4))
    return r, g, b, (int(h[6:8], 16) / 255.0 if len(h) == 8 else 1.0)


def _hex(r: float, g: float, b: float) -> str:
    return "#" + "".join(f"{round(max(0.0, min(1.0, v)) * 255):02x}" for v in (r, g, b))


def over(top: str, bottom: str, opacity: float = 1.0) -> str:
    """``top`` composited over the opaque ``bottom``."""
    r, g, b, a = rgba(top)
    br, bg_, bb, _ = rgba(bottom)
    a *= opacity
    return _hex(r * a + br * (1 - a), g * a + bg_ * (1 - a), b * a + bb * (1 - a))


def luminance(hex_: str) -> float:
    """WCAG relative luminance of an opaque colour."""
    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b, _ = rgba(hex_)
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)


def contrast(a: str, b: str) -> float:
    la, lb = luminance(a), luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


# --------------------------------------------------------------------------- geometry


def bbox(p: Primitive) -> Box | None:
    if isinstance(p, Rect | Ellipse):
        return (p.x, p.y, p.x + p.w, p.y + p.h)
    if isinstance(p, Image | Vector):  # turned art: the upright box around it
        return corners(p.x, p.y, p.x + p.w, p.y + p.h, p.matrix)
    if isinstance(p, Line):
        return (min(p.x1, p.x2), min(p.y1, p.y2), max(p.x1, p.x2), max(p.y1, p.y2))
    if isinstance(p, Path):
        xs = [v for _, pts in p.ops for v in pts[0::2]]
        ys = [v for _, pts in p.ops for v in pts[1::2]]
        return (min(xs), min(ys), max(xs), max(ys)) if xs else None
    return None


def _area(b: Box) -> float:
    return max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1])


def _clip(b: Box, to: Box) -> Box:
    return (max(b[0], to[0]), max(b[1], to[1]), min(b[2], to[2]), min(b[3], to[3]))


def bleed_box(lay: PieceLayout) -> Box:
    return (-lay.bleed, -lay.bleed, lay.width + lay.bleed, lay.height + lay.bleed)


def filled(p: Primitive) -> bool:
    return isinstance(p, Rect | Ellipse | Path) and p.paint.fill is not None


def is_full_bleed(p: Primitive, lay: PieceLayout) -> bool:
    """A filled shape covering at least ``FULL_BLEED`` of the piece's bleed box."""
    if not filled(p):
        return False
    b = bbox(p)
    whole = bleed_box(lay)
    return b is not None and _area(_clip(b, whole)) >= FULL_BLEED * _area(whole) - 1e-6


def _polygon(p: Path) -> list[tuple[float, float]]:
    pts: list[tuple[float, float]] = []
    for op, v in p.ops:
        if op in ("M", "L"):
            pts.append((v[0], v[1]))
        elif op == "C":
            pts.append((v[4], v[5]))
    return pts


def contains(p: Primitive, x: float, y: float) -> bool:
    """Whether the point lies inside the shape (paths: their polygon through the end points)."""
    b = bbox(p)
    if b is None or not (b[0] <= x <= b[2] and b[1] <= y <= b[3]):
        return False
    if isinstance(p, Ellipse):
        rx, ry = p.w / 2, p.h / 2
        return rx > 0 and ry > 0 and ((x - p.x - rx) / rx) ** 2 + ((y - p.y - ry) / ry) ** 2 <= 1
    if isinstance(p, Path):
        poly = _polygon(p)
        inside = False
        for (x1, y1), (x2, y2) in zip(poly, poly[1:] + poly[:1], strict=True):
            if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
                inside = not inside
        return inside
    return True


def _probe(p: Primitive) -> tuple[float, float] | None:
    """The point whose background decides whether ``p`` reads."""
    if isinstance(p, Text):
        return (p.x + 0.3 * p.size, p.y + 0.3 * p.size)
    b = bbox(p)
    return None if b is None else ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)


class _Backdrop:
    """What lies under a point, from the shapes drawn so far (topmost first)."""

    def __init__(self) -> None:
        self.shapes: list[tuple[Primitive, str]] = []

    def under(self, x: float, y: float) -> tuple[str, Primitive | None]:
        for shape, colour in reversed(self.shapes):
            if contains(shape, x, y):
                return colour, shape
        return PAPER, None

    def add(self, p: Primitive) -> None:
        if not filled(p):
            return
        probe = _probe(p)
        below = self.under(*probe)[0] if probe else PAPER
        self.shapes.append((p, over(p.paint.fill, below, p.paint.opacity)))  # type: ignore[arg-type]


def _reink(colour: str, bg: str, ink: str) -> str:
    """``colour``, or ink when it is a light colour that no longer reads on ``bg``. The variant
    only lightens and removes fills, so what it can break is light text and symbols that sat
    on dark fills; dark on dark is left as designed."""
    if luminance(colour[:7]) < LIGHT or contrast(over(colour, bg), bg) >= MIN_CONTRAST:
        return colour
    return ink


def _symbol_spans(lay: PieceLayout) -> Iterator[bool]:
    """Per primitive: does it belong to a symbol (an icon element, or an inline icon of a text)?"""
    if sum(n for _, n in lay.sources) != len(lay.primitives):
        yield from (False for _ in lay.primitives)
        return
    for el, n in lay.sources:
        kind = el.data.get("type")
        symbol = kind == "icon" or kind in TEXT_TYPES
        yield from (symbol for _ in range(n))


def _reink_symbol(p: Rect | Ellipse | Path | Line, back: _Backdrop, ink: str) -> Primitive:
    """An icon's shape: a light outline that no longer reads becomes ink; so does a light fill,
    unless the shape is not small against what it sits on (a plate, not a glyph) or keeps a
    readable outline."""
    paint = p.paint
    bg, under = back.under(*_probe(p))  # type: ignore[misc]
    stroke = paint.stroke
    if stroke is not None and paint.stroke_width > 0 and rgba(stroke)[3] * paint.opacity > FAINT:
        stroke = _reink(stroke, bg, ink)
    fill = paint.fill
    if fill is not None and rgba(fill)[3] * paint.opacity > FAINT:
        small = under is None or _area(bbox(p) or (0, 0, 0, 0)) < 0.6 * _area(bbox(under) or (0, 0, 0, 0))
        outlined = stroke is not None and paint.stroke_width >= 0.3 and contrast(over(stroke, bg), bg) >= MIN_CONTRAST
        if small and not outlined:
            fill = _reink(fill, bg, ink)
    if (fill, stroke) == (paint.fill, paint.stroke):
        return p
    return replace(p, paint=replace(paint, fill=fill, stroke=stroke))


def light_front(lay: PieceLayout, ink: str) -> PieceLayout:
    """Drop full-bleed fills; re-ink text and symbols that no longer read on what is under them."""
    out: list[Primitive] = []
    back = _Backdrop()
    for p, symbol in zip(lay.primitives, _symbol_spans(lay), strict=True):
        if is_full_bleed(p, lay):  # its stroke, if any, stays; one primitive for one keeps `sources` true
            out.append(replace(p, paint=replace(p.paint, fill=None)))  # type: ignore[union-attr]
            continue
        if isinstance(p, Text):
            bg = back.under(*_probe(p))[0]  # type: ignore[misc]
            out.append(replace(p, color=_reink(p.color, bg, ink)))
            continue
        if symbol and isinstance(p, Rect | Ellipse | Path | Line):
            p = _reink_symbol(p, back, ink)
        back.add(p)
        out.append(p)
    return replace(lay, primitives=tuple(out))


def _pale(colour: str, opacity: float) -> bool:
    """An opaque colour too pale to see on white (faint, translucent ones are faint on purpose)."""
    return rgba(colour)[3] * opacity > FAINT and contrast(colour[:7], PAPER) < VISIBLE


def outline_back(lay: PieceLayout, ink: str) -> PieceLayout:
    """A back as an outline pattern: no fills, each shape's outline in its own colour."""
    out: list[Primitive] = []
    for p in lay.primitives:
        if isinstance(p, Text):
            out.append(replace(p, color=_reink(p.color, PAPER, ink)))
            continue
        if not filled(p):
            paint = getattr(p, "paint", None)
            if paint is not None and paint.stroke is not None:
                p = replace(p, paint=replace(paint, stroke=ink if _pale(paint.stroke, paint.opacity) else paint.stroke,
                                             stroke_width=min(paint.stroke_width, MAX_OUTLINE)))
            out.append(p)
            continue
        paint = p.paint  # type: ignore[union-attr]
        fill = paint.fill
        assert fill is not None
        if is_full_bleed(p, lay) or rgba(fill)[3] * paint.opacity <= FAINT:
            keep = paint.stroke is not None and paint.stroke_width > 0 and not is_full_bleed(p, lay)
            out.append(replace(p, paint=replace(paint, fill=None) if keep else Paint()))
            continue
        if paint.stroke is not None and paint.stroke_width > 0:
            stroke = ink if _pale(paint.stroke, paint.opacity) else paint.stroke
            out.append(replace(p, paint=replace(paint, fill=None, stroke=stroke,
                                                 stroke_width=min(paint.stroke_width, MAX_OUTLINE))))
            continue
        colour = fill[:7]
        if contrast(colour, PAPER) < VISIBLE:
            colour = ink
        out.append(replace(p, paint=Paint(stroke=colour, stroke_width=OUTLINE_WIDTH, dash=paint.dash)))
    return replace(lay, primitives=tuple(out))


def ink_of(colors: Mapping[str, str]) -> str:
    """The game's ink: its ``ink`` colour when it has one, else near-black."""
    v = colors.get("ink")
    return v.lower()[:7] if isinstance(v, str) and v.startswith("#") else "#222222"

