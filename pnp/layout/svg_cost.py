"""What drawing checked SVG art costs PDFium each time a page draws it (``ArtCost``, from
``art_cost`` over the reportlab Drawing svglib made): its shapes, segments, dashes, the lengths its
strokes and outlines run, its gradients, the areas its fills and strokes paint and the edges they
give the rasteriser, and where those lie (``ArtCost.parts``: for the strips ``pnp preflight``
renders along a piece's trim). Measured against PDFium by bench/bench_art_cost.py;
docs/performance.md#pixel-budget has the figures. pnp.layout.svg reads and checks the files.

Size: just over 500 lines because every part of the cost is measured in the one walk of the
drawing (``art_cost``), with the geometry it needs beside it (outlines, dash counts, the edges
clipped to the art's box, where each shape lies)."""

from __future__ import annotations

import bisect
import math
from array import array
from collections.abc import Sequence
from typing import Any

from pnp.layout.paints import AREA_PT2, SEE_THROUGH, grouped, path_length

# What PDFium takes to draw the art each time a page draws it, in shapes of about 2 µs (measured,
# docs/performance.md#pixel-budget: svglib writes each shape with its own graphics state, which
# PDFium parses for every drawing): a filled rectangle or a short path 1.6-2.0 µs, a circle or a
# stroked shape about 4, a path 0.3 µs more a segment (40 segments: 16 µs).
SEGMENTS_PER_SHAPE = 6
# And a stroke one more for each 1/STROKE_SHAPES_PER_SIDE of the art's side it runs (its outline's
# length over the square root of the art's area): PDFium strokes a path at 10-16 µs for each length
# of the art's side, about the same at 36 and at 300 dpi (attack 17, F1: one 1 MB path of 54,000
# arcs, or of 76,000 lines corner to corner, opaque and 1 unit wide, took 0.9-1.4 s a drawing, 213 s
# for a preflight of 100 cards; it counted 18,000 shapes, 45 ms). A fill as much again for its
# outline, whose edges the rasteriser walks row by row (attack 18, F1: one filled path of 120,000
# random edges, 0.65 s a drawing, counted 20,000 shapes).
STROKE_SHAPES_PER_SIDE = 5
# And a stroked path or polyline this many for each vertex: PDFium builds a join at every one
# (attack 18, F1: 120,000 segments of 0.14 units stroked 3 wide with round joins, about 4 µs a
# vertex under load, 0.5-0.75 s a drawing; they counted 20,000 shapes).
STROKED_VERTEX_SHAPES = 3
# And each shape a gradient fills this many, plus one a stop: PDFium sets up a shading for each,
# whatever its size (3,000 half-unit rectangles of a two-stop radial gradient on a card took 78 ms a
# drawing at 36 and at 300 dpi, the same in a solid colour 5-15 ms; 1,000 of three stops 28 ms, of
# eight 34 ms: 26-34 µs a gradient fill, against 2.5 µs a shape; they counted 2 shapes each).
GRADIENT_SHAPES = 10
# And a dashed stroke one more for each this many dashes (its length over the dash's period):
# PDFium cuts the whole outline into dashes however little of it shows: 132 ns a dash measured
# (svglib's butt-capped lines, 100 lines of 10,000 pt dashed 0.1 in a card's art, 0.66 s a render
# at 300 or 600 dpi; pnp.layout.cost.DASHES_PER_SHAPE), so 20 are a shape's 2.5 µs. It does not dash a
# stroke whose period comes to less than about 0.1 device pixel (measured: 0.083 px drawn solid at
# once, 0.1 px dashed), so dashes count only where the period, at the size the art is drawn, is at
# least MIN_DASH_PERIOD pt: 0.08 px at the highest --dpi, 1200. 100 lines of 2,000,000 units dashed
# 0.1 drawn a few cm wide are solid lines to PDFium at any dpi; drawn where each dash is visible,
# 4 m of such lines is 13 s a piece (attack 14, F3).
SVG_DASHES_PER_SHAPE = 20
DASH_END_WIDTHS = 4  # the edges of a dash's ends, in stroke widths: 2 butt, 4 square, pi round
_IDENTITY = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)  # an affine matrix (a, b, c, d, e, f) that moves nothing
PART_POINTS = 64  # a long path's pieces kept apart for where its edges lie (``_path_parts``)
MIN_DASH_PERIOD = 0.08 * 72 / 1200  # pt


class ArtCost:
    """What drawing a checked file's art once costs, in shapes: ``shapes`` without its dashes (what
    a rasteriser holds), ``runs`` for the lengths its strokes run, and its dashed strokes
    (``dashes``: the ones whose period, in the art's pt, is at least
    ``periods[i]``), to count at the size it is drawn (``at``); and the areas its shapes paint
    (``areas``), to count where it is placed (``area``); where its gradients and edges lie
    (``parts``), to count what a strip along one side draws of them (``band``)."""

    __slots__ = ("areas", "bands", "dash_edges", "dashes", "edges", "gradient", "parts", "periods", "runs", "shapes",
                 "size")

    def __init__(self, shapes: int, strokes: list[tuple[float, int, float]], areas: ArtAreas | None = None,
                 runs: int = 0, gradient: float = 0.0, edges: float = 0.0, parts: array[float] | None = None,
                 size: tuple[float, float] = (0.0, 0.0)) -> None:
        self.shapes = shapes
        self.runs = runs
        self.gradient = gradient  # the art's pt² gradients fill (drawn at 1 pt a pt)
        self.edges = edges  # the art's pt of edges its fills and strokes give, dashes' ends aside
        # each shape's box in the drawing's pt (x0, y0, x1, y1), its gradient area and its edges
        self.parts = parts if parts is not None else array("d")
        self.size = size  # the drawing's width and height
        self.bands: dict[tuple[int, float], tuple[float, float]] = {}
        self.areas = areas or ArtAreas([], [], 0.0)
        strokes.sort(key=lambda t: -t[0])  # longest period first
        self.periods = [-t[0] for t in strokes]  # ascending, for bisect
        total, self.dashes = 0, []
        ends, self.dash_edges = 0.0, []  # the edges of the dashes' ends, in the same order
        for _, n, e in strokes:
            total += n
            self.dashes.append(total)
            ends += e
            self.dash_edges.append(ends)

    def edges_at(self, scale: float | None) -> float:
        """The edges (the art's pt) of one drawing ``scale`` pt a pt of the art: ``edges``, and the
        ends of each dash of the dashed strokes drawn as dashes (None: all of them)."""
        if not self.dash_edges:
            return self.edges
        k = len(self.dash_edges) if scale is None or not scale > 0 else \
            bisect.bisect_right(self.periods, -MIN_DASH_PERIOD / scale)
        return self.edges + (self.dash_edges[k - 1] if k else 0.0)

    def at(self, scale: float | None) -> int:
        """The shapes of one drawing ``scale`` pt a pt of the art (None: counting every dash)."""
        if not self.dashes:
            return self.shapes + self.runs
        if scale is None or not scale > 0:
            k = len(self.dashes)
        else:
            k = bisect.bisect_right(self.periods, -MIN_DASH_PERIOD / scale)  # periods >= the least drawn
        return self.shapes + self.runs + (self.dashes[k - 1] // SVG_DASHES_PER_SHAPE if k else 0)


    def band(self, side: int, depth: float) -> tuple[float, float]:
        """The gradient area (pt²) and the edges (pt) of the art within ``depth`` pt of its side
        ``side`` (0 left, 1 right, 2 bottom, 3 top), each shape's share as much as its box lies
        there (spread evenly over it)."""
        key = (side, round(depth, 3))
        hit = self.bands.get(key)
        if hit is not None:
            return hit
        w, h = self.size
        lo, hi = ((0.0, depth), (w - depth, w), (0.0, depth), (h - depth, h))[side]
        k = 0 if side < 2 else 1  # the box's x0 (x1: + 2) or y0 (y1)
        parts = self.parts
        shaded = edged = 0.0
        for i in range(0, len(parts), 6):
            a, b = parts[i + k], parts[i + k + 2]
            inside = min(b, hi) - max(a, lo)
            if inside < 0 or (inside == 0 and b > a):
                continue
            share = inside / (b - a) if b > a else 1.0
            shaded += parts[i + 4] * share
            edged += parts[i + 5] * share
        if len(self.bands) < 64:
            self.bands[key] = (shaded, edged)
        return shaded, edged


class ArtAreas:
    """The areas (the art's pt²) an art's shapes paint: each fill's box and each stroke's band
    ((length + width) x width), opaque (``opaque``) or with transparency (``clear``), each at
    most the art's own area; and the grown boxes of shapes both filled and stroked with
    transparency (``grouped``, already in shapes at the art's size: ``pnp.layout.paints.grouped``)."""

    __slots__ = ("clear", "grouped", "opaque")

    def __init__(self, opaque: list[float], clear: list[float], grouped: float) -> None:
        self.opaque, self.clear = _sums(opaque), _sums(clear)
        self.grouped = grouped

    def at(self, scale: float, cap: float) -> float:
        """In shapes, drawn ``scale`` pt a pt of the art, each area at most ``cap`` pt² (what the
        art covers of its piece): as ``pnp.layout.cost.area`` counts a template's shapes."""
        s2 = scale * scale
        return (_capped(self.opaque, s2, cap) + SEE_THROUGH * _capped(self.clear, s2, cap)) / AREA_PT2 + \
            self.grouped * s2


def _sums(areas: list[float]) -> tuple[list[float], list[float]]:
    """``areas`` sorted, and the sums of their first 0, 1, 2, ... ."""
    areas = sorted(areas)
    sums = [0.0]
    for a in areas:
        sums.append(sums[-1] + a)
    return areas, sums


def _capped(sums: tuple[list[float], list[float]], s2: float, cap: float) -> float:
    """The sum of min(area x ``s2``, ``cap``) over sorted areas and their running sums."""
    areas, run = sums
    if not areas or not s2 > 0:
        return 0.0
    k = bisect.bisect_right(areas, cap / s2)  # these are below the cap once scaled
    return run[k] * s2 + (len(areas) - k) * cap


def drawn_scale(p: Any) -> float | None:
    """The pt a Vector ``p`` draws for a pt of its art (its box; a turned element at most its
    matrix's largest stretch), or None for art of no size."""
    if not (p.art_w > 0 and p.art_h > 0):
        return None
    scale = max(p.w / p.art_w, p.h / p.art_h)
    return scale * stretch(p.matrix) if p.matrix is not None else scale


def stretch(m: Any) -> float:
    """The most an affine matrix (a, b, c, d, e, f) lengthens a line (its largest singular value)."""
    a, b, c, d = (float(v) for v in m[:4])
    s = a * a + b * b + c * c + d * d
    det = a * d - b * c
    return math.sqrt(max(0.0, (s + math.sqrt(max(0.0, s * s - 4 * det * det))) / 2))


def art_cost(drawing: Any) -> ArtCost:
    """The shapes drawing ``drawing`` once counts: each shape 1, a circle, an ellipse, a rounded
    rectangle or a stroked shape 2, one more for every SEGMENTS_PER_SHAPE segments of a
    path, polygon or polyline (groups only hold them), STROKE_SHAPES_PER_SIDE more for each length
    of the art's side a stroke or a fill's outline runs, GRADIENT_SHAPES and one a stop more for
    each shape a gradient fills, and for every SVG_DASHES_PER_SHAPE dashes of a dashed stroke,
    counted at the size the art is drawn (``ArtCost``)."""
    from reportlab.graphics.shapes import Circle, Ellipse, Line, Path, Polygon, PolyLine, Rect, Wedge

    gradient = 0.0  # the art's pt² that gradients fill (svglib: a group of the gradient and its clip shape)
    edges = 0.0  # the art's pt of edges: a fill's outline, a stroke's both sides
    n = runs = 0  # runs: the strokes' lengths, in STROKE_SHAPES_PER_SIDE shapes a side (time, not memory)
    strokes: list[tuple[float, int, float]] = []  # (dash period in the art's pt, dashes, their ends' edges)
    opaque: list[float] = []  # the art's pt² each fill's box and each stroke's band paints
    clear: list[float] = []  # (with transparency)
    group = 0.0  # shapes of the grown boxes of the shapes filled and stroked with transparency
    size = (float(getattr(drawing, "width", 0) or 0), float(getattr(drawing, "height", 0) or 0))
    whole = size[0] * size[1]
    parts = array("d")  # where the gradients and edges lie (``ArtCost.band``)
    # each node, how much the groups around it scale it (at most) and their matrix
    stack: list[tuple[Any, float, tuple[float, ...]]] = [(drawing, 1.0, _IDENTITY)]
    while stack:
        node, scale, m = stack.pop()
        if isinstance(getattr(node, "contents", None), list):
            t = getattr(node, "transform", None)
            if isinstance(t, list | tuple) and len(t) == 6:
                scale *= stretch(t)
                m = _then(m, t)
            stack.extend((k, scale, m) for k in node.contents)
            shaded = [k for k in node.contents if type(k).__name__.endswith("GradientShape")]
            if shaded:
                clips = [k for k in node.contents if k not in shaded]  # the shapes svglib clips it to
                area = _gradient_area(clips, scale, whole)
                gradient += area
                runs += sum(GRADIENT_SHAPES + len(getattr(k, "_positions", None) or ()) for k in shaded)
                clip = sum(_seen(k, _outline(k), scale, m, size) for k in clips)
                clip = clip if math.isfinite(clip) else 0.0
                edges += clip
                _part(parts, clips, m, area, clip, size)
            continue  # a group: what it holds counts
        curved = isinstance(node, Circle | Ellipse | Wedge) or (isinstance(node, Rect) and (node.rx or node.ry))
        stroked = getattr(node, "strokeColor", None) is not None and (getattr(node, "strokeWidth", 0) or 0) > 0
        n += 2 if curved or stroked else 1
        if isinstance(node, Path):
            n += len(node.operators) // SEGMENTS_PER_SHAPE
        elif isinstance(node, PolyLine | Polygon):
            n += len(node.points) // 2 // SEGMENTS_PER_SHAPE
        edge = 0.0  # the edges it gives the rasteriser
        if stroked and isinstance(node, Path | PolyLine | Polygon):  # a join at every vertex (time only)
            vertices = len(node.operators) if isinstance(node, Path) else len(node.points) // 2
            runs += vertices * STROKED_VERTEX_SHAPES
            edge = vertices * math.pi * float(node.strokeWidth) * scale  # their outlines, a round one's at most
        filled = getattr(node, "fillColor", None) is not None and not isinstance(node, Line)
        length = _outline(node) if stroked or filled else 0.0  # once: a 1 MB path takes a while
        if (stroked or filled) and whole > 0:  # a fill's outline too: the rasteriser walks its edges
            run = length * scale / math.sqrt(whole) * STROKE_SHAPES_PER_SIDE * (stroked + filled)
            runs += int(run) if math.isfinite(run) else 0
            edge += _seen(node, length, scale, m, size) * (2 * stroked + filled)
        edge = edge if math.isfinite(edge) else 0.0
        edges += edge
        if stroked and getattr(node, "strokeDashArray", None) is not None:
            period, count = _dashes(node, length)
            # each dash's two ends, a width each (and a cap's: a round one's outline at most 4 widths
            # in all; attack 21, F1: dashes of round caps 60 units wide, 8-18 times their count)
            ends = count * DASH_END_WIDTHS * float(node.strokeWidth) * scale
            if count and math.isfinite(period * scale) and math.isfinite(ends):
                strokes.append((period * scale, count, ends))
                edge += ends  # where it lies, for the strips (``edges_at`` counts them as drawn)
        if edge > 0:
            if isinstance(node, Path | PolyLine | Polygon) and len(node.points) > 2 * PART_POINTS:
                _path_parts(parts, node.points, m, edge, size)  # a long path lies where its pieces do
            else:
                _part(parts, [node], m, 0.0, edge, size)
        group += _paints(node, scale, whole, opaque, clear, length)
    return ArtCost(n, strokes, ArtAreas(opaque, clear, group), runs, gradient, edges, parts, size)


def _seen(node: Any, length: float, scale: float, m: tuple[float, ...], size: tuple[float, float]) -> float:
    """The length (the drawing's pt) of ``node``'s outline (``length`` in its own units, ``scale``
    the most its groups stretch it) that lies within the drawing's box: the art is a form whose
    box clips it, and PDFium's rasteriser clips each edge to it before building cells (a stray
    point at 1e6 units counted its whole way there: attack 21). A shape inside the box: all of it;
    else its outline through ``m`` (a curve by its control polygon, a circle, an ellipse or a
    rectangle by its box's) clipped segment by segment."""
    from reportlab.graphics.shapes import Line, Path, Polygon, PolyLine

    w, h = size
    try:
        x0, y0, x1, y1 = (float(v) for v in node.getBounds())
    except Exception:
        return length * scale
    xs, ys = _through(m, _corners((x0, y0, x1, y1)))
    if min(xs) >= 0 and min(ys) >= 0 and max(xs) <= w and max(ys) <= h:
        return length * scale
    if isinstance(node, Line):
        polygons = [[node.x1, node.y1, node.x2, node.y2]]
    elif isinstance(node, Path):
        polygons = _subpaths(node.points, node.operators)
    elif isinstance(node, PolyLine | Polygon):
        pts = list(node.points)
        polygons = [pts + pts[:2] if isinstance(node, Polygon) else pts]
    else:
        polygons = [[x0, y0, x1, y0, x1, y1, x0, y1, x0, y0]]
    seen = 0.0
    for pts in polygons:
        px, py = _through(m, pts)
        for i in range(len(px) - 1):
            seen += _clipped(px[i], py[i], px[i + 1], py[i + 1], w, h)
    return seen if math.isfinite(seen) else length * scale


def _subpaths(points: list[float], operators: list[int]) -> list[list[float]]:
    """A reportlab path's subpaths as point lists (a curve by its control points; a closed one
    back to its start)."""
    out: list[list[float]] = []
    cur: list[float] = []
    i = 0
    for op in operators:
        k = 0 if op == 3 else 6 if op == 2 else 2
        if i + k > len(points):
            break
        if op == 0:
            cur = list(points[i:i + 2])
            out.append(cur)
        elif op == 3:
            cur.extend(cur[:2])
        else:
            if not cur:
                cur = [0.0, 0.0]
                out.append(cur)
            cur.extend(points[i:i + k])
        i += k
    return out


def _clipped(x0: float, y0: float, x1: float, y1: float, w: float, h: float) -> float:
    """The length of the segment (x0, y0)-(x1, y1) inside the box 0..w x 0..h (Liang-Barsky)."""
    dx, dy = x1 - x0, y1 - y0
    t0, t1 = 0.0, 1.0
    for p, q in ((-dx, x0), (dx, w - x0), (-dy, y0), (dy, h - y0)):
        if p == 0:
            if q < 0:
                return 0.0
            continue
        r = q / p
        if p < 0:
            if r > t1:
                return 0.0
            t0 = max(t0, r)
        else:
            if r < t0:
                return 0.0
            t1 = min(t1, r)
    return (t1 - t0) * math.hypot(dx, dy)


def _then(m: tuple[float, ...], t: Any) -> tuple[float, ...]:
    """The affine matrix that applies ``t`` (a group's transform), then ``m``."""
    a, b, c, d, e, f = m
    ta, tb, tc, td, te, tf = (float(v) for v in t)
    return (a * ta + c * tb, b * ta + d * tb, a * tc + c * td, b * tc + d * td,
            a * te + c * tf + e, b * te + d * tf + f)


def _through(m: tuple[float, ...], points: Sequence[float]) -> tuple[list[float], list[float]]:
    """The x and the y of each of the flat (x, y, x, y, ...) ``points`` through the matrix ``m``."""
    a, b, c, d, e, f = m
    pairs = list(zip(points[0::2], points[1::2], strict=False))
    return [a * x + c * y + e for x, y in pairs], [b * x + d * y + f for x, y in pairs]


def _corners(box: Sequence[float]) -> list[float]:
    """The four corners of the box (x0, y0, x1, y1), flat."""
    x0, y0, x1, y1 = box
    return [x0, y0, x1, y0, x0, y1, x1, y1]


def _path_parts(parts: array[float], points: list[float], m: tuple[float, ...], edged: float,
                size: tuple[float, float]) -> None:
    """Add to ``parts`` a long path's pieces of PART_POINTS points (through ``m``) as boxes of
    their own, its edges ``edged`` shared as their lengths within the drawing's box (the control
    polygon's) are: one box for a path of 80,000 segments along a card's top edge and one point
    at its foot would spread them over the whole card."""
    xs, ys = _through(m, points)
    if not all(math.isfinite(v) for v in (*xs, *ys)):
        return
    steps = [_clipped(xs[i], ys[i], xs[i + 1], ys[i + 1], *size) for i in range(len(xs) - 1)]
    total = sum(steps)
    for i in range(0, len(xs) - 1, PART_POINTS):
        cx, cy = xs[i:i + PART_POINTS + 1], ys[i:i + PART_POINTS + 1]  # a piece and the next one's first point
        share = sum(steps[i:i + PART_POINTS]) / total if total > 0 else (len(cx) - 1) / (len(xs) - 1)
        parts.extend((min(cx), min(cy), max(cx), max(cy), 0.0, edged * share))


def _part(parts: array[float], shapes: list[Any], m: tuple[float, ...], shaded: float, edged: float,
          size: tuple[float, float]) -> None:
    """Add to ``parts`` the box (in the drawing's pt, through ``m``) of ``shapes`` with the
    gradient area and edges they hold; a box reportlab cannot give is the whole drawing's."""
    xs: list[float] = []
    ys: list[float] = []
    for k in shapes:
        try:
            kx, ky = _through(m, _corners([float(v) for v in k.getBounds()]))
        except Exception:
            kx, ky = _through(_IDENTITY, _corners((0.0, 0.0, *size)))
        xs += kx
        ys += ky
    if xs and all(math.isfinite(v) for v in (*xs, *ys)):
        parts.extend((min(xs), min(ys), max(xs), max(ys), shaded, edged))
    elif shaded or edged:
        parts.extend((0.0, 0.0, size[0], size[1], shaded, edged))


def _gradient_area(clips: list[Any], scale: float, whole: float) -> float:
    """The art's pt² a gradient fills: the box of the shapes beside it in its group (``clips``:
    svglib draws it clipped to them), at most the art's area."""
    area = 0.0
    for k in clips:
        try:
            x0, y0, x1, y1 = (float(v) for v in k.getBounds())
        except Exception:  # a shape reportlab cannot bound paints nothing
            continue
        area += abs(x1 - x0) * abs(y1 - y0) * scale * scale
    return min(area, whole) if math.isfinite(area) else whole


def _see_through(node: Any, part: str) -> bool:
    """Whether ``node``'s fill or stroke (``part``) is drawn with transparency."""
    colour = getattr(node, part + "Color", None)
    opacity = getattr(node, part + "Opacity", None)
    alpha = getattr(colour, "alpha", 1)
    return (isinstance(opacity, int | float) and opacity < 1) or (isinstance(alpha, int | float) and alpha < 1)


def _paints(node: Any, scale: float, whole: float, opaque: list[float], clear: list[float], length: float) -> float:
    """Add the areas (the art's pt², at most ``whole``) ``node``'s fill box and stroke band (its
    outline ``length`` long) paint, ``scale`` pt of the art a unit of its own, to ``opaque`` or
    ``clear``; return what it counts
    as a shape filled and stroked with transparency (``pnp.layout.paints.grouped``, at the art's
    size), 0 for any other."""
    from reportlab.graphics.shapes import Line

    s2 = scale * scale
    width = getattr(node, "strokeWidth", 0) or 0
    stroked = getattr(node, "strokeColor", None) is not None and isinstance(width, int | float) and width > 0
    filled = getattr(node, "fillColor", None) is not None and not isinstance(node, Line)
    box = None
    if filled or stroked:
        try:
            x0, y0, x1, y1 = (float(v) for v in node.getBounds())
            box = (x0 * scale, y0 * scale, x1 * scale, y1 * scale)
        except Exception:  # a shape reportlab cannot bound (no points) paints nothing
            return 0.0
    if filled and stroked and (_see_through(node, "fill") or _see_through(node, "stroke")):
        return grouped(box, width * scale)
    if filled and box is not None:
        a = min(abs(box[2] - box[0]) * abs(box[3] - box[1]), whole)
        (clear if _see_through(node, "fill") else opaque).append(a)
    if stroked:
        band = (length + width) * width * s2
        if band > 0 and math.isfinite(band):
            (clear if _see_through(node, "stroke") else opaque).append(min(band, whole))
    return 0.0


def _dashes(node: Any, length: float) -> tuple[float, int]:
    """The period of a dashed shape's dash array (``_dash``'s) and the dashes its stroke is cut
    into: its outline's length (a curve's by its control polygon, at least its length) over it,
    times the dashes a period holds."""
    dash = node.strokeDashArray
    values = dash[1] if isinstance(dash, list | tuple) and len(dash) == 2 and isinstance(dash[1], list | tuple) \
        else dash
    values = [values] if isinstance(values, int | float) else values
    if not isinstance(values, list | tuple) or not all(isinstance(v, int | float) for v in values):
        return 0.0, 0
    period = float(sum(values)) * (2 if len(values) % 2 else 1)
    if not period > 0:
        return 0.0, 0
    # a period holds a dash for each (on, off) pair of the list: `0.01 0.01 ...` of 1,000 entries
    # is 500 dashes a period (counted one: attack 22, F1, 30 times under)
    count = length / period * max(1, len(values) // 2 if len(values) % 2 == 0 else len(values))
    return period, int(min(count, 1e15)) if math.isfinite(count) else 0


def _outline(node: Any) -> float:
    """The length of a shape's outline (a curve's by its control polygon, at least its length;
    0 for what has none)."""
    from reportlab.graphics.shapes import Circle, Ellipse, Line, Path, Polygon, PolyLine, Rect, Wedge

    if isinstance(node, Line):
        return math.hypot(node.x2 - node.x1, node.y2 - node.y1)
    if isinstance(node, Rect):
        return 2 * (abs(node.width) + abs(node.height))
    if isinstance(node, Circle):
        return 8 * abs(node.r)  # its square's outline: at least its own
    if isinstance(node, Ellipse):
        return 4 * (abs(node.rx) + abs(node.ry))
    if isinstance(node, Wedge):
        return 8 * abs(node.radius)
    if isinstance(node, Path):
        return _path_length(node.points, node.operators)
    if isinstance(node, PolyLine | Polygon):
        pts = list(node.points)
        closed = [("Z", ())] if isinstance(node, Polygon) else []
        return path_length([("M", pts[:2]), ("L", pts[2:]), *closed]) if len(pts) >= 2 else 0.0
    return 0.0


def _path_length(points: list[float], operators: list[int]) -> float:
    """``pnp.layout.paints.path_length`` of a reportlab path (operators: 0 move, 1 line, 2 curve,
    3 close; a truncated last operator ends it)."""
    ops: list[tuple[str, Any]] = []
    i = 0
    for op in operators:
        k = 0 if op == 3 else 6 if op == 2 else 2
        a = points[i:i + k]
        i += k
        if len(a) < k:
            break
        ops.append(("Z" if op == 3 else "C" if op == 2 else "M" if op == 0 else "L", a))
    return path_length(ops)
