"""layout cost: the shape budget of one command, and the least a template is sure to cost a piece.

Laying out is charged in shapes: each primitive a leaf element draws counts by what drawing it
costs (``weight``: a square 1, a circle 4, a path by its segments) and what rasterising it does
(``area``: a fill one more for each AREA_PT2 it covers of the piece), and each text
element that is fitted counts TEXT_COST more, plus one for each FIT_CHARS characters its fitting
measured (fitting text costs more than placing a rectangle, and a long text shrunk to fit far
more). All the pieces one command lays out (every component of every game it checks or builds;
copies share one layout) share one budget, ``Tally``: SHAPES_BASE, plus SHAPES_PER_BYTE
for each byte of the games' manifests, data files and templates. A template line multiplies
against every item (a `repeat` of 4 x 1000 rectangles on 1,000 items is 4 million shapes from a
64 KB input), so the budget follows the input's bytes, not its items.

``least_cost`` works out, from a template alone, the shapes every piece drawn with it is sure to
cost (elements without `when`, counts that are numbers, texts that cannot come out empty): a
lower bound of what laying the piece out is charged. ``floor_problem`` holds a component's pieces
to the budget with it before any is laid out (``pnp.plan.component.plan_component``), so
``check`` refuses such an input at once and within little memory; what only the data decides (a
`repeat` count from a field, a `when`) is charged as it is laid out (``pnp.layout.piece``)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pnp.errors import Diagnostic
from pnp.input.model import Component, Game
from pnp.input.templates import Element, Template
from pnp.layout.fields import REPEAT_VARS, TRACK_VARS, _compiled
from pnp.layout.paints import AREA_PT2, GROUPED, SEE_THROUGH, grouped, path_length
from pnp.layout.primitives import Ellipse, Image, Line, Path, Rect, Vector
from pnp.layout.svg import art_area
from pnp.layout.svg_cost import DASH_END_WIDTHS

# Measured (docs/performance.md, "Shape budget"): a build lays out and draws a rectangle in about
# 7 to 10 µs (check: 3 to 4 µs, and it holds every front: about 100 bytes a rectangle), a short
# fitted text (one line, fits at its size) in about 33 µs (check: 24), a long one in proportion to
# the characters its fitting measures (each size tried measures the whole text): about 5 s of
# building per MB of input at the most.
TEXT_COST = 3  # a fitted text element, besides the lines and inline icons it draws (a short one: ~33 µs)
FIT_CHARS = 100  # and one more for each this many characters its fitting measures (``Fit.work``)
SHAPES_BASE = 250_000  # per command: about 2 s of building; `check` charges the five bundled games ~78,000
SHAPES_PER_BYTE = 0.25  # per byte (character) of the command's manifests, data files and templates
SHAPES_MAX = 6_000_000  # per command whatever its input: `check` holds its layouts (~600 MB at this)

# What a primitive counts, by how long drawing it takes (docs/performance.md, "Shape budget": a
# filled and stroked square 8.7 µs, a line 10, a polygon of 5 points 21, a circle 30, a rounded
# square 32, an icon of one 39-segment path 130): a square or a line 1, a circle or a rounded
# rectangle CURVED, a path 1 plus 2 for every 5 segments.
CURVED = 4
# A dashed stroke counts one more for each this many dashes (its stroked length over the dash's
# period, on + off). PDFium cuts the whole path into dashes each time it draws it, even where the
# piece clips it away (a 4 m line on a 63 mm card costs as much as on a 4 m page: clipping the
# length counted to the piece would undercount), then strokes them. Measured 2026-11-26
# (pypdfium2, one page rendered, CPU): pnp's own PDF of a card with 150 lines of 4 m dashed
# [0.1, 0.1] (8.5 million dashes, round caps) 2.06 s at 72 dpi and 2.13 s at 300, about 245 ns a
# dash whatever the dpi (reportlab's butt-capped lines: 115-125 ns). So 40 dashes are about 10 µs
# a render, what laying out and drawing a square costs (8.7 µs, "Shape budget" in
# docs/performance.md); the budget's 250,000 shapes are about 10 million dashes, 2.5 s of CPU in
# `pnp export png` for that card. The 1,000 such lines of attack 14, F3 (13 s a piece) count 1.4
# million; a bundled game's dashed outline (a few hundred dashes) a few shapes.
DASHES_PER_SHAPE = 40
# Pattern steps (`matches`, `replace`) counted as one shape: a step is an upper bound (instructions
# x characters), ~0.3 ns measured against a square's ~8.7 µs; 48 million a piece, legal, on 3,000
# pieces took 40 s of check (attack 8, F2).
REGEX_STEPS = 25_000


def weight(prims: list[Any]) -> int:
    """What ``prims`` count against the budget together (a dashed stroke: ``dashes``, as drawn:
    the renderer strokes a shape whose stroke has a colour and a width above 0)."""
    n = 0
    for p in prims:
        c = p.__class__
        if c is Path:
            n += 1 + 2 * len(p.ops) // 5
        elif c is Ellipse or (c is Rect and p.radius):
            n += CURVED
        else:
            n += 1
        if c is Line or c is Rect or c is Path or c is Ellipse:
            paint = p.paint
            if paint.dash is not None and paint.stroke is not None and paint.stroke_width > 0:
                n += dashes(p) // DASHES_PER_SHAPE
    return n


def dashes(p: Any) -> int:
    """The dashes PDFium cuts the stroke of a dashed ``p`` (a Line, Rect, Ellipse or Path) into:
    its length (a curve's by its control polygon, at least its length) over the period."""
    period = p.paint.dash[0] + p.paint.dash[1]
    if not period > 0:
        return 0
    length = stroke_length(p)
    return int(length / period) if math.isfinite(length) else 0


def stroke_length(p: Any) -> float:
    """The length of the outline of ``p`` (a Line, Rect, Ellipse or Path; 0 for anything else),
    a curve's by its control polygon: at least the length the renderer strokes."""
    c = p.__class__
    if c is Line:
        return math.hypot(p.x2 - p.x1, p.y2 - p.y1)
    if c is Rect or c is Ellipse:
        return 2 * (abs(p.w) + abs(p.h))  # the box's outline: at least the shape's
    if c is Path:
        return path_length(p.ops)
    return 0.0


def edges(prims: list[Any]) -> float:
    """The length (pt) of the edges ``prims`` give the rasteriser: a fill's outline once, a
    stroke's twice (its two sides), each as ``stroke_length`` measures it, and a stroked path's
    joins (a round one's outline at each point). PDFium builds cells
    along every edge at the dpi: they cost in proportion to their length in pixels
    (``pnp.render.pixels.EDGE_WEIGHT``), however thin the stroke."""
    n = 0.0
    for p in prims:
        c = p.__class__
        if c is Line or c is Rect or c is Ellipse or c is Path:
            paint = p.paint
            stroked = paint.stroke is not None and paint.stroke_width > 0
            filled = paint.fill is not None and c is not Line
            if stroked or filled:
                n += stroke_length(p) * (2 * stroked + filled)
            if stroked and c is Path:  # a join at every vertex: its outline, a round one's at most
                n += len(p.ops) * math.pi * paint.stroke_width
            if stroked and paint.dash is not None:  # each dash's ends, a width each, and its caps
                n += dashes(p) * DASH_END_WIDTHS * paint.stroke_width  # (attack 21, F2: 16-200 times)
    return n if math.isfinite(n) else 0.0


def area(prims: list[Any], w: float, h: float) -> int:
    """What ``prims`` count besides their ``weight`` for the area of their fills within a piece of
    ``w`` x ``h`` pt (trim): the part of each fill's box (an image's) inside the trim, in AREA_PT2,
    SEE_THROUGH times that for a fill drawn with transparency. Rounded down: a small shape counts
    its weight alone. A stroke counts the same way for the band it paints, its length (and caps)
    times its width (at most the piece's area; attack 15, F1: 1,900 lines 100 pt wide at opacity 0.5 took
    13 s a piece to export, uncharged). A shape both filled and stroked with transparency counts
    GROUPED times its box grown by its stroke's width, however much of it the piece shows, instead
    of its band (``grouped``). SVG art counts its own shapes so, at the size it is drawn
    (``pnp.layout.svg.art_area``)."""
    n = 0.0
    for p in prims:
        c = p.__class__
        if c is Line or c is Rect or c is Ellipse or c is Path:
            paint = p.paint
            if paint.stroke is not None and paint.stroke_width > 0:
                clear = paint.opacity < 1 or len(paint.stroke) > 7 or len(paint.fill or "") > 7
                if clear and paint.fill is not None and c is not Line:
                    n += grouped(_box(p), paint.stroke_width)
                else:
                    # its length and its caps (a short line of a wide stroke paints about width²:
                    # attack 15, F5, an icon's 1-unit line 300 units wide covering the card)
                    band = (stroke_length(p) + paint.stroke_width) * paint.stroke_width
                    if band > 0:
                        n += min(band, w * h) / AREA_PT2 * (SEE_THROUGH if clear else 1)
        if c is Rect or c is Ellipse or c is Path:
            if p.paint.fill is None:
                continue
            box = _box(p)
            if box is None:
                continue
            x0, y0, x1, y1 = box
        elif c is Image or c is Vector:
            pts = [(p.x, p.y), (p.x + p.w, p.y), (p.x, p.y + p.h), (p.x + p.w, p.y + p.h)]
            if p.matrix is not None:
                a, b, cc, d, e, f = p.matrix
                pts = [(a * x + cc * y + e, b * x + d * y + f) for x, y in pts]
            x0, y0 = min(x for x, _ in pts), min(y for _, y in pts)
            x1, y1 = max(x for x, _ in pts), max(y for _, y in pts)
            if c is Vector:
                n += art_area(p, min(w * h, (x1 - x0) * (y1 - y0)))
        else:
            continue
        covered = max(0.0, min(x1, w) - max(x0, 0.0)) * max(0.0, min(y1, h) - max(y0, 0.0))
        if covered:
            paint = getattr(p, "paint", None)
            clear = paint is not None and (paint.opacity < 1 or len(paint.fill or "") > 7)
            n += covered / AREA_PT2 * (SEE_THROUGH if clear else 1)
    return int(n)


def _box(p: Any) -> tuple[float, float, float, float] | None:
    """The box (x0, y0, x1, y1) of a Rect, Ellipse or Path (its points, curves' control points
    included), None for a path without points."""
    if p.__class__ is Path:
        xs = [v for _, pts in p.ops for v in pts[0::2]]
        ys = [v for _, pts in p.ops for v in pts[1::2]]
        return (min(xs), min(ys), max(xs), max(ys)) if xs else None
    return p.x, p.y, p.x + p.w, p.y + p.h


_LEAVES = frozenset(("rect", "circle", "hex", "polygon", "line", "image"))  # one primitive each
_REPEAT_VARS = frozenset(REPEAT_VARS)  # a repeat's and a track's own numbers: never empty
_TRACK_VARS = frozenset(TRACK_VARS)


class Tally:
    """Shapes charged so far against one command's budget (``limit``), shared by the contexts of
    every component it lays out. The edge sampler's layouts (``edges``) are charged to a tally of
    their own with the same limit: they are a second pass over the same pieces."""

    __slots__ = ("_edges", "_parent", "by_game", "bytes", "files", "floor", "used")

    def __init__(self, parent: Tally | None = None) -> None:
        self._parent = parent
        self._edges: Tally | None = None
        self.used = 0
        self.floor = 0  # what the pieces planned so far are sure to cost (floor_problem)
        self.bytes = 0  # of the input files allowed for so far
        self.files: set[str] = set()
        self.by_game: dict[str, list[int]] = {}  # game id -> [used, floor] it was charged

    def charge(self, gid: str, used: int, floor: int = 0) -> None:
        self.used += used
        self.floor += floor
        mine = self.by_game.get(gid)
        if mine is None:
            mine = self.by_game[gid] = [0, 0]
        mine[0] += used
        mine[1] += floor

    def forget(self, gid: str) -> None:
        """Drop what a game was charged: it is being checked again (its old layouts are not
        used; a program may check the same games again and again with one Session)."""
        for t in (self, self._edges):
            if t is not None and gid in t.by_game:
                used, floor = t.by_game.pop(gid)
                t.used -= used
                t.floor -= floor

    @property
    def limit(self) -> int:
        if self._parent is not None:
            return self._parent.limit
        return min(SHAPES_BASE + int(SHAPES_PER_BYTE * self.bytes), SHAPES_MAX)

    @property
    def edges(self) -> Tally:
        if self._parent is not None:
            return self
        if self._edges is None:
            self._edges = Tally(self)
        return self._edges

    def allow(self, files: Mapping[str, int]) -> None:
        """Raise the limit by SHAPES_PER_BYTE for each byte of ``files`` (name -> size) not
        counted yet (a template several games use counts once)."""
        root = self._parent or self
        for name, size in files.items():
            if name not in root.files:
                root.files.add(name)
                root.bytes += size

    def expected(self) -> str:
        root = self._parent or self
        return (f"at most {root.limit} shapes across the pieces one command lays out: {SHAPES_BASE} plus "
                f"{SHAPES_PER_BYTE:g} per byte of its games' manifests, data files and templates ({root.bytes} "
                f"bytes here), {SHAPES_MAX} at most; a text element counts {TEXT_COST} besides its lines, and one more "
                f"for each {FIT_CHARS} characters its fitting measures; an element its `when` leaves out, and a group "
                f"or repeat each time it is reached, count 1, a dashed stroke 1 more for each {DASHES_PER_SHAPE} "
                f"dashes (its length over the dash's period), and a piece's patterns 1 for each {REGEX_STEPS} steps"
                f"; a filled shape counts 1 more for each {AREA_PT2 / (72 / 25.4) ** 2:g} mm² it covers of its piece "
                f"({SEE_THROUGH} times as many with transparency), a stroke so for its band "
                "((length + width) x width), "
                f"a shape filled and stroked with transparency {GROUPED} for each {AREA_PT2 / (72 / 25.4) ** 2:g} mm² "
                "of its box grown by its stroke's width, and the shapes of SVG art so at the size it is drawn")


def least_cost(tpl: Template) -> list[tuple[Element, int]]:
    """Each top-level element of ``tpl`` with the shapes it is sure to cost every piece."""
    return [(el, _least(el.data, tpl, frozenset())) for el in tpl.elements]


def _least(d: Mapping[str, Any], tpl: Template, loop: frozenset[str]) -> int:
    if not isinstance(d, Mapping) or "when" in d:
        return 0  # drawn for some items only (or `otherwise`)
    kind = d.get("type")
    if kind in _LEAVES:
        return 1
    if kind in ("text", "richtext"):
        return TEXT_COST if "replace" not in d and _sure_text(d.get("text"), loop) else 0
    if kind == "icon":
        spec = tpl.icons.get(d.get("name")) if isinstance(d.get("name"), str) else None
        if spec is None:
            return 0  # its name from the data
        return len(spec["shapes"]) if isinstance(spec.get("shapes"), list) and "file" not in spec else 1
    kids = d.get("elements")
    if not isinstance(kids, list):
        return 0
    if kind == "group":
        return sum(_least(k, tpl, loop) for k in kids)
    if kind == "repeat":
        count = d.get("count")
        if count.__class__ is not int or count <= 0:
            return 0  # a count from the data
        return count * sum(_least(k, tpl, loop | _REPEAT_VARS) for k in kids)
    if kind == "track":
        first, last = d.get("first"), d.get("last")
        if first.__class__ is not int or last.__class__ is not int or not 0 <= last - first < 1000:
            return 0
        return (last - first + 1) * sum(_least(k, tpl, loop | _TRACK_VARS) for k in kids)
    return 0


def _sure_text(text: Any, loop: frozenset[str]) -> bool:
    """Whether a text element's ``text`` is never empty: it holds more than spaces outside its
    field references, or references a repeat's or track's own number as it is."""
    if not isinstance(text, str):
        return False
    parts = _compiled(text)
    if parts.__class__ is str:
        return bool(parts.strip())  # type: ignore[union-attr]
    return any(p.strip() if p.__class__ is str else (p[0] in loop and not p[1]) for p in parts)  # type: ignore[union-attr]


def template_files(tpls: list[Template]) -> dict[str, int]:
    """The template files ``tpls`` are made from (their own and the ones they extend, as far as
    their elements come from them), with their sizes in characters."""
    out: dict[str, int] = {}
    for tpl in {id(t): t for t in tpls}.values():
        for doc in (tpl.doc, *(el.doc for el in tpl.elements)):
            out.setdefault(doc.display, len(doc.text))
    return out


def floor_problem(tally: Tally, game: Game, comp: Component, fronts: list[Template],
                  backs: list[Template]) -> Diagnostic | None:
    """Charge ``tally.floor`` with what a component's pieces are sure to cost (``least_cost``
    of each item's front, and of its back once): an error at the template element that costs
    most, when the command's pieces so far come to more than the budget, before any is laid out."""
    uses: dict[int, tuple[Template, int]] = {}  # id(template) -> (template, pieces drawn with it)
    for tpl in (*fronts, *backs[:1]):
        got = uses.get(id(tpl))
        uses[id(tpl)] = (tpl, 1 if got is None else got[1] + 1)
    per_el: dict[int, tuple[Element, int, int]] = {}  # id(element) -> (element, each piece, pieces)
    total = 0
    for tpl, pieces in uses.values():
        for el, n in least_cost(tpl):
            if n:
                total += n * pieces
                e = per_el.get(id(el))
                per_el[id(el)] = (el, n, pieces if e is None else e[2] + pieces)
    root = tally._parent or tally
    root.charge(game.id, 0, total)
    if root.floor <= root.limit or not per_el:
        return None
    el, n, pieces = max(per_el.values(), key=lambda e: e[1] * e[2])
    texts = f" (counting {TEXT_COST} for each text it lays out)" if _texts(el.data) else ""
    return el.doc.diag(el.path, f"this element draws at least {n} shapes{texts} on each of {pieces} distinct pieces of "
                       f"component {comp.id} (game {game.id}): the pieces of this command come to at least "
                       f"{root.floor} shapes, more than pnp's budget of {root.limit}",
                       expected=tally.expected(),
                       hint="smaller `repeat` and `track` counts (repeats inside repeats multiply), or a template "
                       "of its own for the few pieces that need so many")


def _texts(d: Any) -> bool:
    """Whether an element is or holds a text element."""
    if not isinstance(d, Mapping):
        return False
    return d.get("type") in ("text", "richtext") or any(
        _texts(k) for key in ("elements", "otherwise") if isinstance(d.get(key), list) for k in d[key])


def input_files(game: Game, comp: Component, tpls: list[Template]) -> dict[str, int]:
    """The files one component of a game is made from (manifest, data file, templates), with
    their sizes: what raises the command's budget (``Tally.allow``)."""
    out: dict[str, int] = {}
    for doc in (game.manifest, game.data_docs.get(comp.id)):
        if doc is not None:
            out[doc.display] = len(doc.text) if doc.text else _size(doc.path)
    out.update(template_files(tpls))
    return out


def _size(path: Any) -> int:
    try:
        return int(path.stat().st_size)
    except (OSError, AttributeError):
        return 0
