"""Edge colours of laid-out pieces: what a slightly-off cut shows of a neighbour.

Two pieces that abut share one cut line. A cut that misses that line by up to ``MISCUT_MM``
leaves on one piece a strip of its neighbour: invisible when the two meeting edges have the same
colour there, a coloured sliver when they do not. So each piece's edge is sampled just inside its
trim, at depths within ``MISCUT_MM`` (``DEPTHS_MM``), every ``STEP_MM`` along the edge, and two edges
*match* when at every position the colours are within ``MATCH_DE`` (CIEDE2000) of each other.

The colour at a point is worked out from the primitives (painter's order, fills and strokes
composited over the paper with their opacity); text is left out (it stays inside the safe zone),
and raster or SVG art counts as its file (two edges showing art match only where they show the
same file). Pure: no canvas; the edges of pieces that draw the same primitives near an edge are
computed once.

``MISCUT_MM`` = 0.5 mm: a sheet cut by hand along a printed line with a rotary trimmer or a
guillotine misses it by that much as a matter of course, and a 0.5 mm strip of another colour
along a card's edge is plainly visible. ``MATCH_DE`` = 5: the colours of one ink on one sheet
differ by a few ΔE00 from place to place on a home printer; below 5 two strips read as one
colour, above it as a seam.

Size: over 500 lines because sampling, matching and grouping share one sampler: its profiles
and memos, its budget of sampling steps (``SAMPLE_BUDGET``), and the budget of colour
comparisons (``EDGE_BUDGET``) that the matching and the grouping's index of L slabs
(``edge_classes``) both spend from. The geometry of testing a shape along a line of samples at
once lives apart, in ``pnp.layout.spans``."""

from __future__ import annotations

import bisect
import functools
import itertools
import math
from collections.abc import Iterable, Sequence

import msgspec
from msgspec import Struct

from pnp.layout.colours import ciede2000, delta_e, hex_rgb, srgb_lab
from pnp.layout.piece import PieceLayout
from pnp.layout.primitives import PAPER, Ellipse, Image, Line, Path, Primitive, Rect, Text, Vector
from pnp.layout.spans import marks
from pnp.units import MM

MISCUT_MM = 0.5  # how far a cut may miss its line (see the module docstring)
MATCH_DE = 5.0  # ΔE00 up to which two edge colours count as the same
STEP_MM = 1.0  # sample spacing along an edge
# sample depths inside the trim: within the strip a miscut uncovers, clear of its far side (where
# the next feature of the design may begin, and a sample would land on one side of it or the other)
DEPTHS_MM = (0.15, 0.4)
SIDES = ("left", "bottom", "right", "top")
# Colour comparisons one sampler makes (edge_match, edge_classes: sample positions compared, and
# class keys tried): past this a component's pieces are too many in too many near colours to group
# in bounded time (EdgeBudgetError, exit 2). 3,000 cards in random colours spend 6.6 million
# (their check: 3.3 s of CPU, measured); the cost grows with the square of the number of
# distinct colours within a slab of L.
EDGE_BUDGET = 10_000_000
# Steps of sampling one sampler takes (shapes tested along an edge, the samples they cover, the
# layers composited), each about as long as a colour comparison (0.4 to 0.6 µs measured): past its
# budget, SAMPLE_BUDGET plus SAMPLE_PER_PIECE for each of the component's pieces, they draw too
# many shapes along their edges to sample in bounded time (SamplingBudgetError, exit 2; the
# bundled games take at most 14,000 a component). Shapes are charged to the shape budget by what
# laying them out and drawing them costs; sampling one that lies along an edge costs more (attack
# 15, F2), and a long stroke or a thin rectangle along an edge covers every sample of it.
SAMPLE_BUDGET = 5_000_000  # about 2 s, as SHAPES_BASE (pnp.layout.cost) of laying out
SAMPLE_PER_PIECE = 5_000  # more for each of the component's pieces (its items' fronts and backs)
SHAPE_STEPS = 30  # a shape tested along an edge's lines of samples (pnp.layout.spans)
VERTEX_STEPS = 3  # and each vertex of its outline
COVER_STEPS = 3  # a sample a shape covers, and each layer composited at a sample
# ΔE00 <= MATCH_DE implies |ΔL| <= MATCH_DE * SL, and SL (CIEDE2000's lightness weight) is at most
# 1 + 0.015 * 50² / sqrt(20 + 50²) = 1.7471 for L between 0 and 100: two matching colours lie at
# most 8.74 apart in L, so in the same or neighbouring slabs of L_SLAB (edge_classes' index)
L_SLAB = 9.0

Profile = tuple[str, ...]  # colours along an edge, position by position, each depth in turn


class EdgeMatch(Struct, frozen=True):
    """Which sides of a component's pieces may share a cut line: ``lr``: a piece's right edge
    against any piece's left edge (neighbours side by side in the piece's own frame), ``tb``: top
    against bottom, ``hexes``: the edges of a honeycomb."""

    lr: bool = True
    tb: bool = True
    hexes: bool = True


def _cubic(p0: tuple[float, float], v: tuple[float, ...], n: int = 8) -> list[tuple[float, float]]:
    x0, y0 = p0
    x1, y1, x2, y2, x3, y3 = v
    out = []
    for i in range(1, n + 1):
        t = i / n
        u = 1 - t
        out.append((u ** 3 * x0 + 3 * u * u * t * x1 + 3 * u * t * t * x2 + t ** 3 * x3,
                    u ** 3 * y0 + 3 * u * u * t * y1 + 3 * u * t * t * y2 + t ** 3 * y3))
    return out


def polygons(p: Path) -> list[list[tuple[float, float]]]:
    """The path's subpaths as polygons (curves flattened into 8 segments each)."""
    out: list[list[tuple[float, float]]] = []
    cur: list[tuple[float, float]] = []
    for op, v in p.ops:
        if op == "M":
            if len(cur) > 1:
                out.append(cur)
            cur = [(v[0], v[1])]
        elif op == "L":
            cur.append((v[0], v[1]))
        elif op == "C" and cur:
            cur.extend(_cubic(cur[-1], v))
        elif op == "Z" and cur:
            out.append(cur)
            cur = [cur[0]]
    if len(cur) > 1:
        out.append(cur)
    return out


def _winding(polys: list[list[tuple[float, float]]], x: float, y: float) -> int:
    wn = 0
    for poly in polys:
        for (x1, y1), (x2, y2) in zip(poly, poly[1:] + poly[:1], strict=True):
            if y1 <= y < y2 and (x2 - x1) * (y - y1) - (x - x1) * (y2 - y1) > 0:
                wn += 1
            elif y2 <= y < y1 and (x2 - x1) * (y - y1) - (x - x1) * (y2 - y1) < 0:
                wn -= 1
    return wn


def _seg_dist(x: float, y: float, a: tuple[float, float], b: tuple[float, float]) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    ll = dx * dx + dy * dy
    t = 0.0 if ll == 0 else max(0.0, min(1.0, ((x - a[0]) * dx + (y - a[1]) * dy) / ll))
    return math.hypot(x - a[0] - t * dx, y - a[1] - t * dy)


_ROUND = [(math.cos(2 * math.pi * i / 64), math.sin(2 * math.pi * i / 64)) for i in range(64)]  # an ellipse's 64-gon


def _rect_polys(p: Rect | Ellipse) -> list[list[tuple[float, float]]]:
    if isinstance(p, Ellipse):
        cx, cy, rx, ry = p.x + p.w / 2, p.y + p.h / 2, p.w / 2, p.h / 2
        return [[(cx + rx * c, cy + ry * s) for c, s in _ROUND]]
    r = min(p.radius, p.w / 2, p.h / 2)
    if r <= 0:
        return [[(p.x, p.y), (p.x + p.w, p.y), (p.x + p.w, p.y + p.h), (p.x, p.y + p.h)]]
    pts = []
    for cx, cy, start in ((p.x + p.w - r, p.y + r, -90), (p.x + p.w - r, p.y + p.h - r, 0),
                          (p.x + r, p.y + p.h - r, 90), (p.x + r, p.y + r, 180)):
        for i in range(9):
            a = math.radians(start + 90 * i / 8)
            pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return [pts]


class _Shape:
    """One primitive, ready for point tests (its box, outline and stroke's segments worked out
    when first asked for)."""

    def __init__(self, p: Primitive):
        self.p = p

    @functools.cached_property
    def box(self) -> tuple[float, float, float, float]:
        return _box(self.p) or (0.0, 0.0, -1.0, -1.0)

    @functools.cached_property
    def polys(self) -> list[list[tuple[float, float]]]:
        p = self.p
        if isinstance(p, Path):
            return polygons(p)
        return _rect_polys(p) if isinstance(p, Rect | Ellipse) else []

    @functools.cached_property
    def closed(self) -> bool:
        p = self.p
        return not isinstance(p, Path) or any(op == "Z" for op, _ in p.ops)

    @functools.cached_property
    def segs(self) -> list[Segment]:
        return [seg for poly in self.polys for seg in
                (zip(poly, poly[1:] + poly[:1], strict=True) if self.closed else itertools.pairwise(poly))]

    def along(self) -> tuple[tuple | None, tuple[list[list[tuple[float, float]]], bool] | None, float]:
        """What ``pnp.layout.spans.marks`` takes of the shape: its fill (polygons or an ellipse),
        the polylines its stroke follows (closed or not: its ``segs``) and the stroke's half width."""
        p = self.p
        paint = p.paint  # type: ignore[union-attr]
        fill: tuple | None = None
        stroke: tuple[list[list[tuple[float, float]]], bool] | None = None
        if paint.fill is not None and p.__class__ is not Line:
            if p.__class__ is Ellipse:
                fill = ("ellipse", p.x + p.w / 2, p.y + p.h / 2, p.w / 2, p.h / 2)  # type: ignore[union-attr]
            elif not (p.__class__ is Rect and p.radius <= 0 and (p.w < 0 or p.h < 0)):  # type: ignore[union-attr]
                fill = ("poly", self.polys, p.__class__ is Path and paint.fill_rule == "evenodd")
        if paint.stroke is not None and paint.stroke_width > 0:
            stroke = (([[(p.x1, p.y1), (p.x2, p.y2)]], False) if p.__class__ is Line  # type: ignore[union-attr]
                      else (self.polys, self.closed))
        return fill, stroke, paint.stroke_width / 2

    def _inside(self, x: float, y: float) -> bool:
        p = self.p
        if isinstance(p, Rect) and p.radius <= 0:
            return p.x <= x <= p.x + p.w and p.y <= y <= p.y + p.h
        if isinstance(p, Ellipse):
            rx, ry = p.w / 2, p.h / 2
            return rx > 0 and ry > 0 and ((x - p.x - rx) / rx) ** 2 + ((y - p.y - ry) / ry) ** 2 <= 1
        wn = _winding(self.polys, x, y)
        if isinstance(p, Path) and p.paint.fill_rule == "evenodd":
            return wn % 2 != 0
        return wn != 0

    def _on_stroke(self, x: float, y: float, half: float) -> bool:
        p = self.p
        if isinstance(p, Line):
            return _seg_dist(x, y, (p.x1, p.y1), (p.x2, p.y2)) <= half
        return any(_seg_dist(x, y, a, b) <= half for a, b in self.segs)

    def hit(self, x: float, y: float) -> int:
        """What of the primitive covers (x, y): 0 nothing, 1 its fill, 2 its stroke, 3 both, 4 its
        art (an image or SVG). Its geometry only: the same for any colours of its paint."""
        b = self.box
        if not (b[0] <= x <= b[2] and b[1] <= y <= b[3]):
            return 0
        p = self.p
        if isinstance(p, Image | Vector):
            x0, y0, x1, y1 = _art_box(p)
            return 4 if x0 <= x <= x1 and y0 <= y <= y1 else 0
        paint = p.paint  # type: ignore[union-attr]
        h = 0
        if paint.fill is not None and not isinstance(p, Line) and self._inside(x, y):
            h |= 1
        if paint.stroke is not None and paint.stroke_width > 0 and self._on_stroke(x, y, paint.stroke_width / 2):
            h |= 2
        return h

    def paint(self, x: float, y: float, under: str) -> str:
        """The colour at (x, y) with this primitive drawn over ``under``."""
        return _painted(self.p, self.hit(x, y), under)


def _painted(p: Primitive, hit: int, under: str) -> str:
    """``under`` with what ``hit`` (``_Shape.hit``) says of ``p`` drawn over it."""
    if not hit:
        return under
    if isinstance(p, Image | Vector):
        return f"?{p.src}"
    paint = p.paint  # type: ignore[union-attr]
    out = under
    if hit & 1:
        out = _over(out, paint.fill, paint.opacity)
    if hit & 2:
        out = _over(out, paint.stroke, paint.opacity)
    return out


def _geometry(p: Primitive) -> Primitive:
    """``p`` with the colours of its paint left out (whether it has a fill and a stroke kept):
    what decides which of it covers a point."""
    if isinstance(p, Image | Vector | Text):
        return p
    paint = p.paint
    return msgspec.structs.replace(p, paint=msgspec.structs.replace(paint, fill=paint.fill and "#",
                                                                     stroke=paint.stroke and "#"))


def _art_box(p: Image | Vector) -> tuple[float, float, float, float]:
    pts = [(p.x, p.y), (p.x + p.w, p.y), (p.x, p.y + p.h), (p.x + p.w, p.y + p.h)]
    if p.matrix is not None:
        a, b, c, d, e, f = p.matrix
        pts = [(a * x + c * y + e, b * x + d * y + f) for x, y in pts]
    box = (min(x for x, _ in pts), min(y for _, y in pts), max(x for x, _ in pts), max(y for _, y in pts))
    if p.clip is not None and p.matrix is None:
        cx, cy, cw, ch = p.clip
        box = (max(box[0], cx), max(box[1], cy), min(box[2], cx + cw), min(box[3], cy + ch))
    return box


@functools.lru_cache(maxsize=1 << 16)  # layers of one colour repeat (attack 14, F7: 19,000 of one)
def _over(under: str, colour: str, opacity: float) -> str:
    """``colour`` ('#rrggbb' or '#rrggbbaa') painted with ``opacity`` over ``under``."""
    alpha = opacity * (int(colour[7:9], 16) / 255 if len(colour) >= 9 else 1.0)
    if alpha >= 1 - 1e-9 or under.startswith("?"):
        return colour[:7].lower() if alpha > 0.5 or not under.startswith("?") else under
    if alpha <= 0:
        return under
    top, bottom = hex_rgb(colour), hex_rgb(under)
    return "#" + "".join(f"{round(255 * (alpha * t + (1 - alpha) * b)):02x}" for t, b in zip(top, bottom, strict=True))


def _box(p: Primitive) -> tuple[float, float, float, float] | None:
    if isinstance(p, Text):
        return None
    if isinstance(p, Rect | Ellipse):
        half = p.paint.stroke_width / 2 if p.paint.stroke else 0.0
        return (p.x - half, p.y - half, p.x + p.w + half, p.y + p.h + half)
    if isinstance(p, Image | Vector):
        return _art_box(p)
    if isinstance(p, Line):
        half = p.paint.stroke_width / 2
        return (min(p.x1, p.x2) - half, min(p.y1, p.y2) - half, max(p.x1, p.x2) + half, max(p.y1, p.y2) + half)
    flat = [v for _, pts in p.ops for v in pts]  # every op's points are (x, y) pairs
    xs, ys = flat[0::2], flat[1::2]
    if not xs:
        return None
    half = p.paint.stroke_width / 2 if p.paint.stroke else 0.0
    return (min(xs) - half, min(ys) - half, max(xs) + half, max(ys) + half)


Segment = tuple[tuple[float, float], tuple[float, float]]  # from, to; the piece lies to the left


def rect_sides(w: float, h: float) -> dict[str, Segment]:
    """The four trim edges, each running with the piece on its left (inward normal to the left):
    left and right run upwards, bottom and top to the right, as a neighbour's edge does."""
    return {"left": ((0.0, h), (0.0, 0.0)), "bottom": ((0.0, 0.0), (w, 0.0)),
            "right": ((w, 0.0), (w, h)), "top": ((w, h), (0.0, h))}


def _frame(seg: Segment) -> tuple[float, float, float, float, float, float, list[float]]:
    """The edge's canonical start (x, y) and direction (ux, uy) (left to right, bottom to top,
    so that two edges along one line give the same points), its inward normal (nx, ny), and how
    far along it each sample position lies: every ``STEP_MM``, ``MISCUT_MM`` clear of its ends
    (the corners)."""
    (ax, ay), (bx, by) = seg
    length = math.hypot(bx - ax, by - ay)
    nx, ny = -(by - ay) / length, (bx - ax) / length  # the piece is on the left
    if bx - ax < -1e-9 or (abs(bx - ax) <= 1e-9 and by < ay):
        (ax, ay), (bx, by) = (bx, by), (ax, ay)
    ux, uy = (bx - ax) / length, (by - ay) / length
    end = MISCUT_MM * MM
    n = max(1, int((length - 2 * end) / (STEP_MM * MM) + 1e-6))
    return ax, ay, ux, uy, nx, ny, [end + (length - 2 * end) * (i + 0.5) / n for i in range(n)]


def _positions(seg: Segment) -> list[tuple[float, float, float, float]]:
    """(x, y, inward nx, ny) at every sample position along the edge, in a canonical order
    (``_frame``)."""
    ax, ay, ux, uy, nx, ny, ts = _frame(seg)
    return [(ax + ux * t, ay + uy * t, nx, ny) for t in ts]


def _band(seg: Segment) -> tuple[float, float, float, float]:
    (ax, ay), (bx, by) = seg
    pad = MISCUT_MM * MM + 0.1
    return (min(ax, bx) - pad, min(ay, by) - pad, max(ax, bx) + pad, max(ay, by) + pad)


def _meets(box: tuple[float, float, float, float], band: tuple[float, float, float, float]) -> bool:
    return box[0] <= band[2] and box[2] >= band[0] and box[1] <= band[3] and box[3] >= band[1]


Hits = tuple[list[tuple[tuple[int, int], ...]], tuple[int, ...], int]  # _hit_patterns: patterns, each sample's, steps


def _hit_patterns(seg: Segment, near: tuple[Primitive, ...]) -> Hits:
    """The distinct patterns of ``_Shape.hit`` along ``seg``, each the primitives of ``near`` that
    cover a sample as (index in ``near``, hit) in painter's order, and each sample's pattern (its
    index), in the order ``EdgeSampler.profile`` samples, and the steps it took
    (``SAMPLE_BUDGET``). Primitives of one geometry are tested once; a plain filled rectangle by
    its box alone (bisected along the edge), 19,000 full-card rectangles on a piece cost 11
    million tests, 7 s of `check` (attack 14, F7), where they now cost one rectangle's; any other
    shape along each line of samples at once (``pnp.layout.spans``), a sample tested on its own
    only within a hair of its outline (19,000 turned rectangles along an edge: attack 15, F2)."""
    ax, ay, ux, uy, nx, ny, ts = _frame(seg)
    pts = [(ax + ux * t + nx * depth * MM, ay + uy * t + ny * depth * MM) for t in ts for depth in DEPTHS_MM]
    nd = len(DEPTHS_MM)
    frame, depths = (ax, ay, ux, uy, nx, ny), [depth * MM for depth in DEPTHS_MM]
    reach = max(abs(ax), abs(ay), abs(ax + ux * ts[-1]), abs(ay + uy * ts[-1])) + max(DEPTHS_MM) * MM
    axis = 0 if abs(ux) >= abs(uy) else 1  # the samples spread along this axis
    order = sorted(range(len(pts)), key=lambda i: pts[i][axis])
    keys = [pts[i][axis] for i in order]
    members: dict[Primitive, list[int]] = {}  # each distinct geometry -> its indexes in near
    for k, p in enumerate(near):
        members.setdefault(p, []).append(k)
    covers: list[list[tuple[int, int]]] = [[] for _ in pts]  # each sample: (distinct geometry, hit)
    steps = len(members)
    everywhere: list[tuple[int, int]] = []  # plain rectangles over every sample
    xs, ys = [x for x, _ in pts], [y for _, y in pts]
    sx0, sy0, sx1, sy1 = min(xs, default=0.0), min(ys, default=0.0), max(xs, default=0.0), max(ys, default=0.0)
    for d, p in enumerate(members):
        shape = _Shape(p)
        plain = (p.__class__ is Rect and p.radius <= 0  # type: ignore[union-attr]
                 and (p.paint.stroke is None or p.paint.stroke_width <= 0))  # type: ignore[union-attr]
        if plain and p.paint.fill is None:  # type: ignore[union-attr]
            continue
        if plain or p.__class__ is Image or p.__class__ is Vector:
            x0, y0, x1, y1 = shape.box
            h = 1 if plain else 4
            if x0 <= sx0 and sx1 <= x1 and y0 <= sy0 and sy1 <= y1:
                everywhere.append((d, h))
                continue
            for i in order[bisect.bisect_left(keys, x0 if axis == 0 else y0):
                           bisect.bisect_right(keys, x1 if axis == 0 else y1)]:
                x, y = pts[i]
                if x0 <= x <= x1 and y0 <= y <= y1:
                    covers[i].append((d, h))
            continue
        fill, stroke, half = shape.along()
        steps += SHAPE_STEPS + VERTEX_STEPS * ((sum(map(len, fill[1])) if fill is not None and fill[0] == "poly" else 0)
                                               + (sum(map(len, stroke[0])) if stroke is not None else 0))
        x0, y0, x1, y1 = shape.box  # what ``hit`` covers lies in it (a box inside out covers nothing)
        for j, runs in enumerate(marks(fill, stroke, half, frame, depths, ts, reach)):
            for q0, q1, state in runs:
                for i in range(q0 * nd + j, q1 * nd + j, nd):
                    x, y = pts[i]
                    if x0 <= x <= x1 and y0 <= y <= y1 and (h := state if state > 0 else shape.hit(x, y)):
                        covers[i].append((d, h))
    index: dict[tuple[tuple[int, int], ...], int] = {}
    which = [index.setdefault(tuple(c), len(index)) for c in covers]
    ks = list(members.values())
    patterns = [tuple(sorted((k, h) for d, h in (*everywhere, *c) for k in ks[d])) for c in index]
    return patterns, tuple(which), steps + COVER_STEPS * sum(map(len, covers))


def sampling_budget(pieces: int) -> int:
    """The steps of sampling a component of ``pieces`` items may take (``SAMPLE_BUDGET``)."""
    return SAMPLE_BUDGET + SAMPLE_PER_PIECE * pieces


class EdgeBudgetError(ValueError):
    """More colour comparisons than ``EDGE_BUDGET`` to judge one component's edges."""

    def __init__(self, budget: int):
        super().__init__(f"more than {budget:,} edge colour comparisons")
        self.budget = budget


class SamplingBudgetError(EdgeBudgetError):
    """More steps than ``SAMPLE_BUDGET`` to sample one component's edges."""

    def __init__(self, budget: int):
        ValueError.__init__(self, f"more than {budget:,} steps of edge sampling")
        self.budget = budget


class EdgeSampler:
    """Edge profiles of pieces, each distinct set of primitives near an edge sampled once, its
    steps counted against ``sampling``; and the comparisons of those profiles, counted against
    ``budget``."""

    def __init__(self, paper: str = PAPER, budget: int | None = None, sampling: float | None = None):
        self.paper = paper
        self.budget = EDGE_BUDGET if budget is None else budget
        self.spent = 0
        self.sampling = SAMPLE_BUDGET if sampling is None else sampling  # steps of sampling (SAMPLE_BUDGET)
        self.sampled = 0
        self._cache: dict[tuple[Segment, tuple[Primitive, ...]], Profile] = {}
        self._hits: dict[tuple[Segment, tuple[Primitive, ...]], Hits] = {}
        self._bands: dict[Segment, tuple[float, float, float, float]] = {}
        # the last few layouts asked for (a piece's front and back alternate), by identity
        self._last: dict[int, tuple[PieceLayout, list[tuple[tuple[float, float, float, float], Primitive]]]] = {}

    def _boxes(self, lay: PieceLayout) -> list[tuple[tuple[float, float, float, float], Primitive]]:
        """The drawn primitives of ``lay`` with their boxes (kept for the last 8 layouts asked for:
        a layout's four edges are sampled one after the other, a piece's front and back in turn,
        and the classes sample again what the matching sampled)."""
        got = self._last.get(id(lay))
        if got is None or got[0] is not lay:
            if len(self._last) >= 8:
                del self._last[next(iter(self._last))]
            got = self._last[id(lay)] = (lay, [(b, p) for p in lay.primitives if (b := _box(p)) is not None])
        return got[1]

    def profile(self, lay: PieceLayout, seg: Segment) -> Profile:
        """Colours along ``seg`` (see ``rect_sides``) just inside the trim, position by position
        (canonical order), each at every depth of ``DEPTHS_MM``."""
        band = self._bands.get(seg)
        if band is None:
            band = self._bands[seg] = _band(seg)
        near = tuple(p for b, p in self._boxes(lay) if _meets(b, band))
        key = (seg, near)
        found = self._cache.get(key)
        if found is None:
            # which part of each primitive covers each sample: worked out once for primitives of
            # one geometry whatever their colours (cards alike but for a colour cost a lookup),
            # then the colours composited once per distinct pattern of parts
            geo = (seg, tuple(_geometry(p) for p in near))
            hits = self._hits.get(geo)
            if hits is None:
                hits = self._hits[geo] = _hit_patterns(seg, geo[1])
                self.sample(hits[2])
            patterns, which, _ = hits
            self.sample(COVER_STEPS * sum(map(len, patterns)))
            colours = []
            for pattern in patterns:
                colour = self.paper
                for k, h in pattern:
                    colour = _painted(near[k], h, colour)
                colours.append(colour)
            found = self._cache[key] = tuple(colours[k] for k in which)
        return found


    def sample(self, n: int) -> None:
        """Count ``n`` steps of sampling; SamplingBudgetError past ``sampling``."""
        self.sampled += n
        if self.sampled > self.sampling:
            raise SamplingBudgetError(int(self.sampling))

    def spend(self, n: int) -> None:
        self.spent += n
        if self.spent > self.budget:
            raise EdgeBudgetError(self.budget)

    def matches(self, a: Profile, b: Profile) -> bool:
        """``profiles_match``, its sample comparisons counted."""
        if a == b:
            return True
        if len(a) != len(b):
            return False
        n = 0
        ok = True
        for x, y in zip(a, b, strict=True):
            n += 1
            if x != y and not _same(x, y):
                ok = False
                break
        self.spend(n)
        return ok


@functools.lru_cache(maxsize=1 << 16)
def _lab(colour: str) -> tuple[float, float, float]:
    return srgb_lab(colour)


def same(a: str, b: str) -> bool:
    """Whether two sampled colours count as one (art: only the same file)."""
    if a == b:
        return True
    if a.startswith("?") or b.startswith("?"):
        return False
    la, lb = _lab(a), _lab(b)
    dl, lm = abs(la[0] - lb[0]), (la[0] + lb[0]) / 2 - 50
    # ΔE00 >= |ΔL| / SL (its other terms add up to no less than 0): far apart in L, no need of the
    # whole formula (the margin keeps every answer the formula's own)
    if dl > MATCH_DE * (1 + 0.015 * lm * lm / math.sqrt(20 + lm * lm)) * (1 + 1e-9):
        return False
    return ciede2000(la, lb) <= MATCH_DE


_same = functools.lru_cache(maxsize=1 << 16)(same)


def _slab(colour: str) -> int | str:
    """edge_classes' index key of a colour: its slab of L (art: the file)."""
    return colour if colour.startswith("?") else math.floor(_lab(colour)[0] / L_SLAB)


def worst(a: Profile, b: Profile) -> float:
    """The largest ΔE00 between two profiles position by position (inf where art differs)."""
    out = 0.0
    for x, y in zip(a, b, strict=False):
        if x == y:
            continue
        if x.startswith("?") or y.startswith("?"):
            return math.inf
        out = max(out, delta_e(x, y))
    return out


def profiles_match(a: Profile, b: Profile) -> bool:
    return a == b or (len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True)))


def _all_match(left: Iterable[Profile], right: Iterable[Profile], sampler: EdgeSampler) -> bool:
    ls, rs = set(left), set(right)
    return all(sampler.matches(a, b) for a in ls for b in rs)


def hex_sides(w: float, h: float) -> list[Segment]:
    """The six edges of the piece's hexagon (the ``hex`` element's), each running with the piece on
    its left; edge i meets a honeycomb neighbour's edge (i + 3) % 6."""
    cx, cy = w / 2, h / 2
    if h >= w:
        poly = [(cx, h), (0.0, 0.75 * h), (0.0, 0.25 * h), (cx, 0.0), (w, 0.25 * h), (w, 0.75 * h)]
    else:
        poly = [(0.0, cy), (0.25 * w, 0.0), (0.75 * w, 0.0), (w, cy), (0.75 * w, h), (0.25 * w, h)]
    # counter-clockwise, so the inside is on the left
    if sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(poly, poly[1:] + poly[:1], strict=True)) < 0:
        poly.reverse()
    return [(poly[i], poly[(i + 1) % 6]) for i in range(6)]


def edge_match(sides: Sequence[Sequence[PieceLayout | None]], hexagon: bool = False,
               sampler: EdgeSampler | None = None) -> EdgeMatch:
    """Which edges may be shared by the pieces of ``sides`` (one sequence of layouts per printed
    side: fronts, backs; None is skipped, each layout object is sampled once). Pieces meet only
    pieces of the same side (backs are mirrored with their fronts), so each side is judged alone.
    For a honeycomb (``hexagon``) every edge meets every other's opposite edge, in reverse."""
    sampler = sampler or EdgeSampler()
    lr = tb = hexes = True
    for lays in sides:
        distinct = list({id(lay): lay for lay in lays if lay is not None}.values())
        if not distinct:
            continue
        segs = rect_sides(distinct[0].width, distinct[0].height)
        each = [{name: sampler.profile(lay, seg) for name, seg in segs.items()} for lay in distinct]
        prof = {name: [p[name] for p in each] for name in segs}
        lr = lr and _all_match(prof["left"], prof["right"], sampler)
        tb = tb and _all_match(prof["bottom"], prof["top"], sampler)
        if hexagon and hexes:
            edges = hex_sides(distinct[0].width, distinct[0].height)
            by_lay = [[sampler.profile(lay, seg) for seg in edges] for lay in distinct]
            per_edge = [[p[i] for p in by_lay] for i in range(6)]
            hexes = all(_all_match(per_edge[i], per_edge[(i + 3) % 6], sampler) for i in range(3))
    return EdgeMatch(lr, tb, hexes)


def edge_classes(pieces: Sequence[Sequence[PieceLayout | None]], lr: bool, tb: bool,
                 sampler: EdgeSampler | None = None) -> tuple[list[list[int]], list[int]]:
    """The pieces (each its layouts: front, back) in classes whose edges all match where pieces
    meet (``lr``: left against right, ``tb``: bottom against top), in order of first appearance,
    each class in piece order; and the pieces that do not even match themselves (a left edge
    unlike its own right edge), which can abut nothing. A piece joins the first class every
    distinct member of which it matches both ways.

    Not every class is tried: a piece can join only a class whose first member's key colour (the
    first sample of its front's left edge; of its bottom edge where only ``tb``) matches the
    piece's colour there (the first sample of its right, or top, edge), and matching colours lie
    in the same or neighbouring slabs of L (``L_SLAB``). So the classes are indexed by that slab,
    and only those of the piece's slab and its two neighbours are tried, in order: the first that
    takes the piece is the one trying every class finds. Raises EdgeBudgetError (``EDGE_BUDGET``)."""
    sampler = sampler or EdgeSampler()
    classes: list[tuple[list[list[dict[str, Profile]]], set[tuple[Profile, ...]], list[int], str | None]] = []
    alone: list[int] = []
    meet, keyed = ("right", "left") if lr else ("top", "bottom") if tb else ("", "")
    index: dict[int | str, list[int]] = {}  # slab of its key colour -> classes, in order
    loose: list[int] = []  # classes without a key colour (no front, or no side meets): always tried
    for i, lays in enumerate(pieces):
        prof = [{name: sampler.profile(lay, seg) for name, seg in rect_sides(lay.width, lay.height).items()}
                if lay is not None else {} for lay in lays]
        if not _pair_ok(prof, prof, lr, tb, sampler):
            alone.append(i)
            continue
        seen = tuple(tuple(x[name] for name in SIDES) if x else () for x in prof)
        q = prof[0][meet][0] if meet and prof and prof[0] else None
        if q is None:
            tried: Iterable[int] = range(len(classes))
        else:
            slab = _slab(q)
            near = [slab] if isinstance(slab, str) else [slab - 1, slab, slab + 1]
            tried = sorted(loose + [c for k in near for c in index.get(k, ())])
        for c in tried:
            members, distinct, idx, key = classes[c]
            if q is not None and key is not None:
                sampler.spend(1)
                if not _same(q, key):  # the first member's meeting colour: it cannot match
                    continue
            if all(_pair_ok(prof, m, lr, tb, sampler) for m in members):
                idx.append(i)
                if seen not in distinct:
                    distinct.add(seen)
                    members.append(prof)
                break
        else:
            key = prof[0][keyed][0] if meet and prof and prof[0] else None
            if key is None:
                loose.append(len(classes))
            else:
                index.setdefault(_slab(key), []).append(len(classes))
            classes.append(([prof], {seen}, [i], key))
    return [idx for _, _, idx, _ in classes], alone


def _pair_ok(a: list[dict[str, Profile]], b: list[dict[str, Profile]], lr: bool, tb: bool,
             sampler: EdgeSampler) -> bool:
    match = sampler.matches
    for x, y in zip(a, b, strict=True):  # side by side: fronts with fronts, backs with backs
        if not x or not y:
            continue
        for u, v in ((x, y), (y, x)):
            if lr and not match(u["right"], v["left"]):
                return False
            if tb and not match(u["top"], v["bottom"]):
                return False
        if (lr and not match(x["right"], x["left"])) or (tb and not match(x["top"], x["bottom"])):
            return False
    return True
