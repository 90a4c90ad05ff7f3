"""Impose identical physical pieces onto printer pages.

A pure module: no canvas, no I/O. All coordinates are PDF points (1 pt = 1/72 in),
origin at the page's bottom-left, y up.

Decisions this module makes (the contract the ``draw`` stage can rely on):

* Grid: per page axis, pieces either sit with a *gutter* (each piece has full bleed on
  both sides of that axis) or *abut* (neighbours share a cut line, bleed only on the
  outer edges of the grid). The larger count wins; on a tie the gutter wins. The piece is
  turned 90 degrees counter-clockwise only if that gives strictly more pieces per page.
  The full grid is centred on the page; a partial last page keeps the full grid's
  positions (filled row by row from the top-left), and its bleed is that of the full grid
  (an abutting side stays at 0 bleed even if the neighbouring cell is empty, so bleed
  boxes never overlap).
* ``Slot.bleed`` is in page space (after rotation).
* A rotated slot (``rotation == 90``): the piece's top edge faces the page's left. A piece
  point ``(px, py)`` (origin at its trim bottom-left) lands on the page at
  ``(slot.x + piece_height - py, slot.y + px)``; see :func:`piece_to_page`.
* Duplex backs follow their front page and mirror positions and bleed. Backs carry no cut
  lines and no marks. A back is turned so that a cut piece turned over like a book page
  (about its own vertical axis) shows it upright: long-edge flips keep upright pieces at 0
  and turn 90-degree pieces to 270; short-edge flips turn upright pieces 180 (see
  :func:`back_rotation`). Art is never mirrored.
* Tiling (a piece that does not fit even rotated): the minimal number of parts per axis,
  all parts of an axis with the same drawn extent (region plus drawn bleed), consecutive
  parts overlapping by ``overlap``. The part is turned 90 degrees only if that needs
  strictly fewer pages. Each part's drawn extent is *centred* on its page. Parts are
  emitted row by row from the top-left of the piece, one copy after the other. Tiled
  pieces get no back pages (``has_back`` is ignored): a board glued together from parts
  is not duplex-printed as a whole, and a back would need its own mirrored part grid.
  When ``count > 1`` the label gets `` (copy i of n)`` appended.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from msgspec import Struct
from msgspec.structs import replace

from pnp.primitives import Primitive

MM = 72 / 25.4
EPS = 1e-6  # pt; tolerance for "fits" comparisons and for deduplicating cut positions

DUPLEX_MODES = ("long", "short", "none", "fold")
FOLD_GAP = 1 * MM  # between the fold line and the nearest bleed edge


def mm(v: float) -> float:
    """Millimetres to points."""
    return v * MM


class Paper(Struct, frozen=True):
    name: str
    width: float  # pt
    height: float  # pt

    def __post_init__(self) -> None:
        if not (self.width > 0 and self.height > 0):
            raise ValueError(f"paper {self.name!r}: width and height must be positive")


PAPERS: dict[str, Paper] = {
    "letter": Paper("letter", 612.0, 792.0),
    "a4": Paper("a4", mm(210), mm(297)),
    # The intersection of A4 and Letter: a page smaller than both, centred on either sheet by
    # "actual size" printing (and scaled by exactly 1.0 by "fit to paper" on both), so one file
    # prints at true size on both and duplex backs mirror about the sheet's centre.
    "universal": Paper("universal", mm(210), 792.0),
}
# Distance from the page edge to any piece, bleed or sheet label (cut lines still run to the
# edge). Universal keeps everything 5 mm inside the A4/Letter intersection.
PAPER_MARGINS: dict[str, float] = {"universal": mm(5)}
# On universal paper the bleed on the outside of a grid may shrink to this so that a grid which
# misses the margin by less still fits (3 x 3 poker cards: 2.7 mm above and below).
UNIVERSAL_MIN_OUTER_BLEED = mm(2)


class Edges(Struct, frozen=True):
    """Per-side amounts, pt."""

    left: float
    bottom: float
    right: float
    top: float


class SheetOptions(Struct, frozen=True):
    paper: Paper
    duplex: str = "long"  # "long" | "short" | "none"
    bleed: float = 3 * MM  # bleed beyond the trim on outer edges
    margin: float = 4 * MM  # min distance from page edge to any bleed/art
    mark_gap: float = 1 * MM  # gap between the outermost bleed edge and a crop mark's start
    overlap: float = 10 * MM  # glue overlap for pieces tiled over several pages
    crop_marks: bool = True  # False for reference sheets (nothing to cut)
    abut: bool = True  # allow shared cut lines; False gives every piece its own bleed (round tokens)
    cut_circles: bool = False  # round pieces: a thin cut circle on each trim (for scissors or a punch)
    # The bleed on the outer edges of a grid may shrink down to this (None: never) when that fits
    # one more row or column; inner bleed (gutters) is never reduced.
    min_outer_bleed: float | None = None
    # Room (pt) beyond the margin that a grid should leave on some side for the sheet label; it
    # only decides ties (gutter or abutting with the same count), never costs a piece.
    label_room: float = 0.0

    def __post_init__(self) -> None:
        if self.duplex not in DUPLEX_MODES:
            raise ValueError(f"duplex must be one of {DUPLEX_MODES}, not {self.duplex!r}")
        for name in ("bleed", "margin", "mark_gap", "overlap", "min_outer_bleed"):
            value = getattr(self, name)
            if value is None and name == "min_outer_bleed":
                continue
            if not (value >= 0 and math.isfinite(value)):
                raise ValueError(f"{name} must be a finite number >= 0, not {value!r}")


class PieceSpec(Struct, frozen=True):
    width: float  # trim width, pt
    height: float  # trim height, pt
    has_back: bool = True

    def __post_init__(self) -> None:
        if not (self.width > 0 and self.height > 0):
            raise ValueError("piece width and height must be positive")
        if not (math.isfinite(self.width) and math.isfinite(self.height)):
            raise ValueError("piece width and height must be finite")


class TilePart(Struct, frozen=True):
    """One part of a piece split over several pages."""

    row: int  # 0-based, from the TOP of the piece
    col: int  # 0-based, from the left of the piece
    rows: int
    cols: int
    # (x, y, w, h) of the piece area shown, in piece coords (pt, origin at the piece's trim
    # bottom-left), including the glue overlap
    region: tuple[float, float, float, float]


class Slot(Struct, frozen=True):
    piece: int  # index of the piece copy, 0..count-1
    side: str  # "front" | "back"
    x: float  # trim box on the page (for a TilePart: the region's box on the page)
    y: float
    w: float
    h: float
    bleed: Edges  # bleed drawn on each side, page space
    rotation: int = 0  # 0, 90, 180 or 270: degrees the art is turned counter-clockwise (w, h are page dims)
    part: TilePart | None = None
    clip: tuple[tuple[float, float], ...] | None = None  # polygon the art is clipped to (hex tiles), page space

    @property
    def bleed_box(self) -> tuple[float, float, float, float]:
        """(x, y, w, h) of the trim box grown by the drawn bleed."""
        b = self.bleed
        return (
            self.x - b.left,
            self.y - b.bottom,
            self.w + b.left + b.right,
            self.h + b.bottom + b.top,
        )


class CutLine(Struct, frozen=True):
    x1: float
    y1: float
    x2: float
    y2: float


class Mark(Struct, frozen=True):
    """Alignment marks and glue zones for tiled parts."""

    kind: str  # "align" (crosshair centre at x, y) | "glue" (rect x, y, w, h) | "fold" (line x, y .. y + h)
    #            | "circle" (cut circle in the trim box x, y, w, h) | "punch" (guides around that circle)
    x: float
    y: float
    w: float = 0
    h: float = 0
    bleed: float = 0  # "punch": the piece's bleed, the room around the circle for the guides


class Page(Struct, frozen=True):
    number: int  # 1-based, in output order
    side: str  # "front" | "back"
    slots: tuple[Slot, ...]
    cuts: tuple[CutLine, ...]
    marks: tuple[Mark, ...] = ()
    label: str | None = None  # e.g. "Part row 1, column 2 of 2 x 2" for a tiled piece
    paper: Paper | None = None  # this page's own size (print-shop pages); None: the options' paper
    # Sheet labels and scale marks placed outside every piece and cut line (pnp.sheetmarks);
    # empty until the pipeline furnishes the page.
    furniture: tuple[Furniture, ...] = ()


class Furniture(Struct, frozen=True):
    """Something printed on a sheet outside the pieces: a label or a scale mark. ``box`` is the
    page area it occupies (pt, x, y, w, h); ``prims`` are drawn in the box's own frame, origin at
    its bottom-left, turned ``rotation`` degrees counter-clockwise (90: reading upwards)."""

    kind: str  # "label" | "scale-in" | "scale-cm" | "scale-bar"
    box: tuple[float, float, float, float]
    rotation: int
    prims: tuple[Primitive, ...]
    text: str = ""


class Grid(Struct, frozen=True):
    """The chosen grid: counts and gutter flags are in page space (after rotation)."""

    cols: int
    rows: int
    rotated: bool
    gutter_x: bool
    gutter_y: bool
    outer_x: float | None = None  # bleed on the grid's left and right edges when shrunk (None: the bleed)
    outer_y: float | None = None  # bleed on the grid's top and bottom edges when shrunk


# --------------------------------------------------------------------------- helpers


def _usable(options: SheetOptions) -> tuple[float, float]:
    paper = options.paper
    return paper.width - 2 * options.margin, paper.height - 2 * options.margin


def _axis(size: float, bleed: float, avail: float, abut: bool = True) -> tuple[int, bool]:
    """(count, gutter) along one axis; the larger count wins, a tie goes to the gutter."""
    if avail <= 0:
        return 0, True
    gutter = math.floor((avail + EPS) / (size + 2 * bleed))
    if not abut:
        return gutter, True
    room = avail - 2 * bleed
    abut = math.floor((room + EPS) / size) if room + EPS >= 0 else 0
    if gutter >= abut:
        return gutter, True
    return abut, False


def _axis_outer(size: float, bleed: float, avail: float, abut: bool,
                min_outer: float | None) -> tuple[int, bool, float | None]:
    """:func:`_axis`, and if a smaller outer bleed (at least ``min_outer``) fits one more piece,
    that count with the largest outer bleed that fits (else None: the full bleed)."""
    count, gutter = _axis(size, bleed, avail, abut)
    if min_outer is None or min_outer >= bleed:
        return count, gutter, None
    # with outer bleed o the extent is core + 2 * o, where core is the pieces and inner gutters
    best: tuple[int, bool, float | None] = (count, gutter, None)
    for gut in (True, False) if abut else (True,):
        pitch = size + 2 * bleed if gut else size
        n = math.floor((avail - 2 * min_outer + (2 * bleed if gut else 0) + EPS) / pitch)
        if n <= best[0]:
            continue
        core = n * size + (n - 1) * (2 * bleed if gut else 0)
        best = (n, gut, min(bleed, (avail - core) / 2))
    return best


def _fits(w: float, h: float, options: SheetOptions) -> bool:
    uw, uh = _usable(options)
    b = options.bleed
    return w + 2 * b <= uw + EPS and h + 2 * b <= uh + EPS


def _check_count(count: int) -> None:
    if count < 0:
        raise ValueError(f"count must be >= 0, not {count}")


def _dedupe(values: Iterable[float]) -> list[float]:
    out: list[float] = []
    for v in sorted(values):
        if not out or v - out[-1] > EPS:
            out.append(v)
    return out


def _cut_lines(
    slots: Sequence[Slot], xs: Iterable[float], ys: Iterable[float], options: SheetOptions,
    frame: Sequence[Slot] | None = None,
) -> tuple[CutLine, ...]:
    """Cut lines at the trim positions xs (vertical) and ys (horizontal), drawn only in the
    margins: from the page edge to ``mark_gap`` short of the outermost drawn bleed of
    ``frame`` (the full grid, so a partial page's lines stay in the margins), or of
    ``slots``."""
    if not options.crop_marks or not slots:
        return ()
    boxes = [s.bleed_box for s in (frame or slots)]
    lo = min(b[1] for b in boxes) - options.mark_gap
    hi = max(b[1] + b[3] for b in boxes) + options.mark_gap
    left = min(b[0] for b in boxes) - options.mark_gap
    right = max(b[0] + b[2] for b in boxes) + options.mark_gap
    pw, ph = options.paper.width, options.paper.height
    cuts: list[CutLine] = []
    for x in _dedupe(xs):
        if lo > EPS:
            cuts.append(CutLine(x, 0.0, x, lo))
        if hi < ph - EPS:
            cuts.append(CutLine(x, hi, x, ph))
    for y in _dedupe(ys):
        if left > EPS:
            cuts.append(CutLine(0.0, y, left, y))
        if right < pw - EPS:
            cuts.append(CutLine(right, y, pw, y))
    return tuple(cuts)


def _trim_cuts(slots: Sequence[Slot], options: SheetOptions,
               frame: Sequence[Slot] | None = None) -> tuple[CutLine, ...]:
    xs = [v for s in slots for v in (s.x, s.x + s.w)]
    ys = [v for s in slots for v in (s.y, s.y + s.h)]
    return _cut_lines(slots, xs, ys, options, frame)


def back_rotation(rotation: int, duplex: str) -> int:
    """How a back is turned on its page so that the cut piece, turned over about its own
    vertical axis, shows the back upright. A sheet flipped on its long edge (vertical axis of a
    portrait page) mirrors x: a front whose top points along (ux, uy) needs a back whose top
    points along (-ux, uy); a short-edge flip mirrors y, and turning the card about its own
    vertical axis then differs from the sheet's flip by half a turn."""
    if duplex == "short":
        return (180 - rotation) % 360
    return (-rotation) % 360


def _mirror(slot: Slot, duplex: str, paper: Paper) -> Slot:
    b = slot.bleed
    rot = back_rotation(slot.rotation, duplex)
    if duplex == "long":
        return replace(slot, side="back", x=paper.width - slot.x - slot.w,
                       bleed=Edges(b.right, b.bottom, b.left, b.top), rotation=rot)
    return replace(slot, side="back", y=paper.height - slot.y - slot.h,
                   bleed=Edges(b.left, b.top, b.right, b.bottom), rotation=rot)


class _Sheet(Struct, frozen=True):
    slots: tuple[Slot, ...]
    cuts: tuple[CutLine, ...]
    marks: tuple[Mark, ...] = ()
    label: str | None = None


def _assemble(sheets: Sequence[_Sheet], backs: bool, options: SheetOptions) -> tuple[Page, ...]:
    pages: list[Page] = []
    for sheet in sheets:
        pages.append(
            Page(len(pages) + 1, "front", sheet.slots, sheet.cuts, sheet.marks, sheet.label)
        )
        if backs:
            mirrored = tuple(_mirror(s, options.duplex, options.paper) for s in sheet.slots)
            pages.append(Page(len(pages) + 1, "back", mirrored, ()))
    return tuple(pages)


def _with_backs(piece: PieceSpec, options: SheetOptions) -> bool:
    return piece.has_back and options.duplex != "none"


# --------------------------------------------------------------------------- grid


def plan_grid(piece: PieceSpec, options: SheetOptions, area: tuple[float, float] | None = None) -> Grid | None:
    """The grid of pieces per page (or per ``area``, w x h in pt, e.g. half a page for a
    gutterfold), or None if not even one piece (with bleed) fits. With ``options.label_room``,
    an axis whose gutter and abutting layouts hold the same count abuts if that alone leaves a
    margin with room for the sheet label."""
    uw, uh = area or _usable(options)
    best: Grid | None = None
    for rotated in (False, True):
        w, h = (piece.height, piece.width) if rotated else (piece.width, piece.height)
        cols, gutter_x, outer_x = _axis_outer(w, options.bleed, uw, options.abut, options.min_outer_bleed)
        rows, gutter_y, outer_y = _axis_outer(h, options.bleed, uh, options.abut, options.min_outer_bleed)
        if cols * rows == 0:
            continue
        if best is None or cols * rows > best.cols * best.rows:
            best = Grid(cols, rows, rotated, gutter_x, gutter_y, outer_x, outer_y)
    if best is not None and options.label_room > 0 and area is None:
        best = _with_label_room(best, piece, options)
    return best


def _extent(n: int, size: float, bleed: float, gutter: bool, outer: float | None) -> float:
    return n * size + (n - 1) * (2 * bleed if gutter else 0) + 2 * (bleed if outer is None else outer)


def _with_label_room(grid: Grid, piece: PieceSpec, options: SheetOptions) -> Grid:
    """``grid``, or the same counts with an axis turned from gutter to abutting, whichever first
    leaves ``label_room`` beyond the margin on some side (x first, as side margins are long)."""
    w, h = (piece.height, piece.width) if grid.rotated else (piece.width, piece.height)
    b = options.bleed

    def room(g: Grid) -> bool:
        mx = (options.paper.width - _extent(g.cols, w, b, g.gutter_x, g.outer_x)) / 2
        my = (options.paper.height - _extent(g.rows, h, b, g.gutter_y, g.outer_y)) / 2
        return max(mx, my) - options.margin + EPS >= options.label_room

    if room(grid) or not options.abut:
        return grid
    uw, uh = _usable(options)
    candidates = []
    if grid.gutter_x:
        ext = _extent(grid.cols, w, b, False, None)
        if ext <= uw + EPS:
            candidates.append(replace(grid, gutter_x=False, outer_x=None))
    if grid.gutter_y:
        ext = _extent(grid.rows, h, b, False, None)
        if ext <= uh + EPS:
            candidates.append(replace(grid, gutter_y=False, outer_y=None))
    for g in candidates:
        if room(g):
            return g
    return grid


def _grid_cells(grid: Grid, piece: PieceSpec, options: SheetOptions, right: float | None = None) -> list[Slot]:
    """Front slots of one full page, in fill order (row by row from the top-left), centred on
    the page, or with the grid's right edge (bleed included) at ``right``."""
    w, h = (piece.height, piece.width) if grid.rotated else (piece.width, piece.height)
    b = options.bleed
    ox = b if grid.outer_x is None else grid.outer_x  # bleed on the grid's outer edges
    oy = b if grid.outer_y is None else grid.outer_y
    paper = options.paper
    pitch_x = w + 2 * b if grid.gutter_x else w
    pitch_y = h + 2 * b if grid.gutter_y else h
    extent_x = grid.cols * pitch_x + (0 if grid.gutter_x else 2 * b)
    extent_y = grid.rows * pitch_y + (0 if grid.gutter_y else 2 * b)
    if ox != b:
        extent_x -= 2 * (b - ox)
    if oy != b:
        extent_y -= 2 * (b - oy)
    left = (paper.width - extent_x) / 2 if right is None else right - extent_x
    top = (paper.height + extent_y) / 2
    cells: list[Slot] = []
    for r in range(grid.rows):
        y = top - oy - r * pitch_y - h
        bt = oy if r == 0 else b if grid.gutter_y else 0.0
        bb = oy if r == grid.rows - 1 else b if grid.gutter_y else 0.0
        for c in range(grid.cols):
            x = left + ox + c * pitch_x
            bl = ox if c == 0 else b if grid.gutter_x else 0.0
            br = ox if c == grid.cols - 1 else b if grid.gutter_x else 0.0
            cells.append(
                Slot(0, "front", x, y, w, h, Edges(bl, bb, br, bt), 90 if grid.rotated else 0)
            )
    return cells


def impose(count: int, piece: PieceSpec, options: SheetOptions) -> tuple[Page, ...]:
    """Place ``count`` copies of ``piece`` on pages: a grid when at least one fits on a
    page, else each copy tiled over several pages (see the module docstring). With duplex
    ``fold`` (and a back), fronts and backs share each page: see :func:`gutterfold`."""
    _check_count(count)
    if options.duplex == "fold" and piece.has_back:
        pages = gutterfold(count, piece, options)
        if pages is None:
            raise ValueError("the piece is too large for a gutterfold half page; use --duplex long or short")
        return pages
    grid = plan_grid(piece, options)
    if grid is None:
        return _tile(count, piece, options)
    cells = _grid_cells(grid, piece, options)
    sheets: list[_Sheet] = []
    full: tuple[tuple[CutLine, ...], tuple[Mark, ...]] | None = None  # every full sheet's cuts and circles
    for start in range(0, count, len(cells)):
        used = cells[: count - start]
        slots = tuple(replace(cell, piece=start + i) for i, cell in enumerate(used))
        if full is not None and len(used) == len(cells):
            cuts, circles = full
        else:
            circles = tuple(Mark(kind, s.x, s.y, s.w, s.h, min(s.bleed.left, s.bleed.bottom, s.bleed.right,
                                                               s.bleed.top) if kind == "punch" else 0.0)
                            for s in slots for kind in ("circle", "punch")) if options.cut_circles else ()
            cuts = _trim_cuts(slots, options, cells)
            if len(used) == len(cells):
                full = (cuts, circles)
        sheets.append(_Sheet(slots, cuts, circles))
    return _assemble(sheets, _with_backs(piece, options), options)


def one_per_page(count: int, piece: PieceSpec, options: SheetOptions) -> tuple[Page, ...]:
    """Each copy centred alone on its page (reference sheets), turned 90 degrees only if it
    fits no other way; backs as for :func:`impose`. A piece too large even rotated is
    tiled exactly as :func:`impose` does."""
    _check_count(count)
    if _fits(piece.width, piece.height, options):
        w, h, rotation = piece.width, piece.height, 0
    elif _fits(piece.height, piece.width, options):
        w, h, rotation = piece.height, piece.width, 90
    else:
        return _tile(count, piece, options)
    b = options.bleed
    paper = options.paper
    x = (paper.width - w) / 2
    y = (paper.height - h) / 2
    sheets = []
    for i in range(count):
        slots = (Slot(i, "front", x, y, w, h, Edges(b, b, b, b), rotation),)
        sheets.append(_Sheet(slots, _trim_cuts(slots, options)))
    return _assemble(sheets, _with_backs(piece, options), options)


def gutterfold(count: int, piece: PieceSpec, options: SheetOptions) -> tuple[Page, ...] | None:
    """Fronts in a grid on the left half of each page, backs on the right half mirrored across
    a vertical fold line at the page's centre, for printers without duplex: print
    single-sided, fold along the line, glue, cut. The grid hugs the fold (``FOLD_GAP`` from
    it) so each back lands exactly behind its front; cut lines run in the outer margins of
    the front half, which is on top after folding. None when not even one piece fits."""
    paper = options.paper
    best = plan_grid(piece, options, (paper.width / 2 - options.margin - FOLD_GAP,
                                      paper.height - 2 * options.margin))
    if best is None:
        return None
    cells = _grid_cells(best, piece, options, right=paper.width / 2 - FOLD_GAP)
    fold = Mark("fold", paper.width / 2, 0.0, 0.0, paper.height)
    pages: list[Page] = []
    for start in range(0, count, len(cells)):
        fronts = [replace(cell, piece=start + i) for i, cell in enumerate(cells[: count - start])]
        backs = [_mirror(s, "long", paper) for s in fronts]
        cuts = _cut_lines(fronts, [v for s in fronts for v in (s.x, s.x + s.w)],
                          [v for s in fronts for v in (s.y, s.y + s.h)], options, cells)
        # Horizontal cuts only in the outer (left) margin: the right half folds under.
        cuts = tuple(ct for ct in cuts if not (ct.y1 == ct.y2 and ct.x1 > paper.width / 2 - EPS))
        pages.append(Page(len(pages) + 1, "front", (*fronts, *backs), cuts, (fold,),
                          "print single-sided · fold on the dashed line · glue · cut"))
    return tuple(pages)


def hex_outline(x: float, y: float, w: float, h: float) -> tuple[tuple[float, float], ...]:
    """The hexagon filling the box, pointy (a vertex at the top) when h >= w, else flat; the
    same hexagon the ``hex`` template element draws."""
    cx, cy = x + w / 2, y + h / 2
    if h >= w:
        return ((cx, y + h), (x + w, y + 0.75 * h), (x + w, y + 0.25 * h), (cx, y),
                (x, y + 0.25 * h), (x, y + 0.75 * h))
    return ((x, cy), (x + 0.25 * w, y + h), (x + 0.75 * w, y + h), (x + w, cy),
            (x + 0.75 * w, y), (x + 0.25 * w, y))


def _line_cross(p1: tuple[float, float], d1: tuple[float, float], p2: tuple[float, float],
                d2: tuple[float, float]) -> tuple[float, float]:
    det = d1[0] * d2[1] - d1[1] * d2[0]
    t = ((p2[0] - p1[0]) * d2[1] - (p2[1] - p1[1]) * d2[0]) / det
    return (p1[0] + t * d1[0], p1[1] + t * d1[1])


def _grow_edges(poly: tuple[tuple[float, float], ...], grow: list[float]) -> tuple[tuple[float, float], ...]:
    """Push edge i (poly[i] -> poly[i+1]) outwards by grow[i]; vertices are re-intersected."""
    n = len(poly)
    cx = sum(p[0] for p in poly) / n
    cy = sum(p[1] for p in poly) / n
    lines = []
    for i in range(n):
        (ax, ay), (bx, by) = poly[i], poly[(i + 1) % n]
        dx, dy = bx - ax, by - ay
        length = math.hypot(dx, dy)
        nx, ny = dy / length, -dx / length
        if (ax - cx) * nx + (ay - cy) * ny < 0:  # make the normal point outwards
            nx, ny = -nx, -ny
        lines.append(((ax + nx * grow[i], ay + ny * grow[i]), (dx, dy)))
    return tuple(_line_cross(*lines[(i - 1) % n], *lines[i]) for i in range(n))


def plan_hex(piece: PieceSpec, options: SheetOptions) -> Grid | None:
    """Honeycomb of a hex piece: (cols, rows) per page with shared edges, or None if not one fits.
    Computed for pointy hexes; a flat hex is the same layout with x and y swapped."""
    w, h = (piece.width, piece.height) if piece.height >= piece.width else (piece.height, piece.width)
    uw, uh = _usable(options)
    if piece.height < piece.width:
        uw, uh = uh, uw
    b = options.bleed
    best: Grid | None = None
    for rows in range(1, 200):
        height = h + (rows - 1) * 0.75 * h + 2 * b
        if height > uh + EPS:
            break
        cols = math.floor((uw - 2 * b - (w / 2 if rows > 1 else 0) + EPS) / w)
        if cols >= 1 and (best is None or cols * rows > best.cols * best.rows):
            best = Grid(cols, rows, False, False, False)
    return best


def impose_hex(count: int, piece: PieceSpec, options: SheetOptions) -> tuple[Page, ...] | None:
    """Hex tiles in a honeycomb: neighbours share an edge (one cut serves both), each hex is
    clipped to its own outline, bleed only on edges with no neighbour, cut lines along every
    edge once. Odd rows are shifted half a hex. Backs mirror as for :func:`impose`. None when
    not even one hex fits (then the rectangular grid or tiling applies)."""
    _check_count(count)
    grid = plan_hex(piece, options)
    if grid is None:
        return None
    flat = piece.height < piece.width
    w, h = (piece.height, piece.width) if flat else (piece.width, piece.height)
    paper = options.paper
    pw, ph = (paper.height, paper.width) if flat else (paper.width, paper.height)
    b = options.bleed
    extent_x = grid.cols * w + (w / 2 if grid.rows > 1 else 0) + 2 * b
    extent_y = h + (grid.rows - 1) * 0.75 * h + 2 * b
    left, top = (pw - extent_x) / 2 + b, (ph + extent_y) / 2 - b
    per_page = grid.cols * grid.rows

    def swap(p: tuple[float, float]) -> tuple[float, float]:
        return (p[1], p[0]) if flat else p

    pages: list[Page] = []
    for start in range(0, count, per_page):
        n = min(per_page, count - start)
        cells = {(i // grid.cols, i % grid.cols): start + i for i in range(n)}
        slots: list[Slot] = []
        edges: dict[tuple[tuple[float, float], tuple[float, float]], None] = {}
        for (r, c), piece_no in cells.items():
            x = left + c * w + (w / 2 if r % 2 else 0)
            y = top - h - r * 0.75 * h
            poly = hex_outline(x, y, w, h)  # pointy: top, upper-right, lower-right, bottom, ...
            shift = 1 if r % 2 else 0
            neighbours = [(r - 1, c + shift), (r, c + 1), (r + 1, c + shift), (r + 1, c - 1 + shift),
                          (r, c - 1), (r - 1, c - 1 + shift)]  # across edges 0..5
            grow = [0.0 if nb in cells else b for nb in neighbours]
            clip = _grow_edges(poly, grow)
            for i in range(6):
                key = tuple(sorted((tuple(round(v, 6) for v in swap(poly[i])),
                                    tuple(round(v, 6) for v in swap(poly[(i + 1) % 6])))))
                edges[key] = None  # type: ignore[index]
            sx, sy = swap((x, y))
            sw, sh = (h, w) if flat else (w, h)
            slots.append(Slot(piece_no, "front", sx, sy, sw, sh, Edges(b, b, b, b),
                              clip=tuple(swap(p) for p in clip)))
        cuts = tuple(CutLine(a[0], a[1], e[0], e[1]) for a, e in edges) if options.crop_marks else ()
        pages.append(Page(len(pages) + 1, "front", tuple(slots), cuts))
        if _with_backs(piece, options):
            backs = []
            for s in slots:
                m = _mirror(s, options.duplex, paper)
                if s.clip is not None:
                    clip = tuple((paper.width - x, y) if options.duplex == "long" else (x, paper.height - y)
                                 for x, y in s.clip)
                    m = replace(m, clip=clip)
                backs.append(m)
            pages.append(Page(len(pages) + 1, "back", tuple(backs), ()))
    return tuple(pages)


def print_shop(count: int, piece: PieceSpec, options: SheetOptions) -> tuple[Page, ...]:
    """One piece per page, the page exactly trim + bleed (print-on-demand services read the
    TrimBox/BleedBox the drawing sets): front 1, back 1, front 2, back 2 ... Backs sit upright
    in the same place: the service handles the turn. No cut lines; paper is ignored."""
    _check_count(count)
    b = options.bleed
    paper = Paper("piece", piece.width + 2 * b, piece.height + 2 * b)
    edges = Edges(b, b, b, b)
    pages: list[Page] = []
    for i in range(count):
        for side in ("front", "back") if piece.has_back else ("front",):
            slot = Slot(i, side, b, b, piece.width, piece.height, edges)
            pages.append(Page(len(pages) + 1, side, (slot,), (), paper=paper))
    return tuple(pages)


# --------------------------------------------------------------------------- tiling


def _tile_count(size: float, bleed: float, overlap: float, avail: float) -> int:
    """Minimal number of parts along one axis. All parts get the same drawn extent
    D = (size + 2*bleed + (n-1)*overlap) / n, which must fit in ``avail``."""
    if size + 2 * bleed <= avail + EPS:
        return 1
    step = avail - overlap
    if step <= EPS:
        raise ValueError("the glue overlap does not leave room on the page to tile this piece")
    n = max(2, math.ceil((size + 2 * bleed - overlap) / step - 1e-9))
    while (size + 2 * bleed + (n - 1) * overlap) / n > avail + EPS:
        n += 1
    extent = (size + 2 * bleed + (n - 1) * overlap) / n
    if extent - bleed < overlap:
        raise ValueError("the page is too small to tile this piece with this overlap and bleed")
    return n


def _tile_spans(size: float, bleed: float, overlap: float, n: int) -> list[tuple[float, float]]:
    """(start, length) of each part along an axis, from the low coordinate upwards."""
    if n == 1:
        return [(0.0, size)]
    extent = (size + 2 * bleed + (n - 1) * overlap) / n
    spans: list[tuple[float, float]] = []
    for i in range(n):
        start = 0.0 if i == 0 else i * (extent - overlap) - bleed
        end = size if i == n - 1 else start + (extent - bleed if i == 0 else extent)
        spans.append((start, end - start))
    return spans


def slot_matrix(slot: Slot) -> tuple[float, float, float, float, float, float]:
    """The affine matrix (a, b, c, d, e, f) taking piece coordinates (pt, origin at the
    piece's trim bottom-left) to page coordinates for this slot: page = (a*px + c*py + e,
    b*px + d*py + f). Handles whole pieces and tiled parts at 0, 90, 180 and 270 degrees."""
    x, y = slot.x, slot.y
    if slot.part is not None:
        rx, ry, rw, rh = slot.part.region
    else:
        rx, ry = 0.0, 0.0
        rw, rh = (slot.h, slot.w) if slot.rotation in (90, 270) else (slot.w, slot.h)
    if slot.rotation == 90:
        return (0.0, 1.0, -1.0, 0.0, x + ry + rh, y - rx)
    if slot.rotation == 180:
        return (-1.0, 0.0, 0.0, -1.0, x + rx + rw, y + ry + rh)
    if slot.rotation == 270:
        return (0.0, -1.0, 1.0, 0.0, x - ry, y + rx + rw)
    return (1.0, 0.0, 0.0, 1.0, x - rx, y - ry)


def piece_to_page(slot: Slot, px: float, py: float) -> tuple[float, float]:
    """Map a point in piece coordinates (pt, origin at the piece's trim bottom-left) to the
    page, for a whole-piece slot or a tiled part's slot, honouring the rotation."""
    a, b, c, d, e, f = slot_matrix(slot)
    return a * px + c * py + e, b * px + d * py + f


def _rect_to_page(slot: Slot, rect: tuple[float, float, float, float]) -> Mark:
    x, y, w, h = rect
    x1, y1 = piece_to_page(slot, x, y)
    x2, y2 = piece_to_page(slot, x + w, y + h)
    return Mark("glue", min(x1, x2), min(y1, y2), abs(x2 - x1), abs(y2 - y1))


def _tile(count: int, piece: PieceSpec, options: SheetOptions) -> tuple[Page, ...]:
    uw, uh = _usable(options)
    b, o = options.bleed, options.overlap
    plain = (_tile_count(piece.width, b, o, uw), _tile_count(piece.height, b, o, uh))
    turned = (_tile_count(piece.width, b, o, uh), _tile_count(piece.height, b, o, uw))
    rotated = turned[0] * turned[1] < plain[0] * plain[1]
    cols, rows = turned if rotated else plain
    xspans = _tile_spans(piece.width, b, o, cols)
    yspans = _tile_spans(piece.height, b, o, rows)[::-1]  # row 0 is the top of the piece
    paper = options.paper

    parts: list[tuple[TilePart, Edges]] = []  # piece-space bleed per part
    for r, (ry, rh) in enumerate(yspans):
        for c, (rx, rw) in enumerate(xspans):
            edges = Edges(
                b if c == 0 else 0.0,
                b if r == rows - 1 else 0.0,
                b if c == cols - 1 else 0.0,
                b if r == 0 else 0.0,
            )
            parts.append((TilePart(r, c, rows, cols, (rx, ry, rw, rh)), edges))

    sheets: list[_Sheet] = []
    for i in range(count):
        for part, pe in parts:
            rx, ry, rw, rh = part.region
            if rotated:
                w, h = rh, rw
                edges = Edges(pe.top, pe.left, pe.bottom, pe.right)
            else:
                w, h = rw, rh
                edges = pe
            x = (paper.width - (w + edges.left + edges.right)) / 2 + edges.left
            y = (paper.height - (h + edges.bottom + edges.top)) / 2 + edges.bottom
            slot = Slot(i, "front", x, y, w, h, edges, 90 if rotated else 0, part)
            sheets.append(
                _Sheet(
                    (slot,),
                    _tile_cuts(slot, piece, options),
                    _tile_marks(slot, o),
                    _tile_label(part, i, count),
                )
            )
    return _assemble(sheets, False, options)


def _tile_label(part: TilePart, copy: int, count: int) -> str:
    label = f"Part row {part.row + 1}, column {part.col + 1} of {part.rows} x {part.cols}"
    if count > 1:
        label += f" (copy {copy + 1} of {count})"
    return label


def _tile_cuts(slot: Slot, piece: PieceSpec, options: SheetOptions) -> tuple[CutLine, ...]:
    """Cut lines only at the piece's outer trim edges present on this part."""
    part = slot.part
    assert part is not None
    piece_xs = ([0.0] if part.col == 0 else []) + (
        [piece.width] if part.col == part.cols - 1 else []
    )
    piece_ys = ([piece.height] if part.row == 0 else []) + (
        [0.0] if part.row == part.rows - 1 else []
    )
    ry = part.region[1]
    rx = part.region[0]
    if slot.rotation == 90:
        # piece verticals (x = const) become page horizontals, and vice versa
        page_ys = [piece_to_page(slot, px, ry)[1] for px in piece_xs]
        page_xs = [piece_to_page(slot, rx, py)[0] for py in piece_ys]
    else:
        page_xs = [piece_to_page(slot, px, ry)[0] for px in piece_xs]
        page_ys = [piece_to_page(slot, rx, py)[1] for py in piece_ys]
    return _cut_lines((slot,), page_xs, page_ys, options)


def _tile_marks(slot: Slot, overlap: float) -> tuple[Mark, ...]:
    """Glue zones that the next part covers (right and bottom, in piece terms) and align
    crosshairs at the corners of every overlap zone on this part (the neighbouring part
    has crosshairs at the same piece points)."""
    part = slot.part
    assert part is not None
    rx, ry, rw, rh = part.region
    right = (rx + rw - overlap, ry, overlap, rh)
    bottom = (rx, ry, rw, overlap)
    left = (rx, ry, overlap, rh)
    top = (rx, ry + rh - overlap, rw, overlap)
    glue = []
    if part.col < part.cols - 1:
        glue.append(right)
    if part.row < part.rows - 1:
        glue.append(bottom)
    zones = list(glue)
    if part.col > 0:
        zones.append(left)
    if part.row > 0:
        zones.append(top)
    marks = [_rect_to_page(slot, z) for z in glue]
    seen: list[tuple[float, float]] = []
    for zx, zy, zw, zh in zones:
        for px, py in ((zx, zy), (zx + zw, zy), (zx, zy + zh), (zx + zw, zy + zh)):
            point = piece_to_page(slot, px, py)
            if all(abs(point[0] - q[0]) > EPS or abs(point[1] - q[1]) > EPS for q in seen):
                seen.append(point)
                marks.append(Mark("align", point[0], point[1]))
    return tuple(marks)
