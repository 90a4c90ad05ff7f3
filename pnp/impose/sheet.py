"""Impose identical physical pieces onto printer pages.

A pure module: no canvas, no I/O. All coordinates are PDF points (1 pt = 1/72 in),
origin at the page's bottom-left, y up.

Decisions this module makes (the contract the ``draw`` stage can rely on):

* Grid: per page axis, pieces either sit with a *gutter* (each piece has full bleed on
  both sides of that axis) or *abut* (neighbours share a cut line, bleed only on the
  outer edges of the grid). The larger count wins; on a tie the gutter wins. An axis abuts
  only where the options allow the piece edges that meet along it to be shared (``abut_lr``,
  ``abut_tb``: the caller says which edges match in colour). The piece is
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

from pnp.layout.primitives import Primitive
from pnp.units import MM

EPS = 1e-6  # pt; tolerance for "fits" comparisons and for deduplicating cut positions

FLIP_EDGES = ("long", "short")  # the duplex modes that print backs on the sheet's other side
DUPLEX_MODES = (*FLIP_EDGES, "none", "fold")
# A build's defaults (BuildOptions, the command line): Letter, long-edge duplex, 3 mm bleed
DEFAULT_PAPER = "letter"  # a key of PAPERS
DEFAULT_DUPLEX = "long"
DEFAULT_BLEED_MM = 3.0  # beyond the trim, unless a component says otherwise
MAX_BLEED_MM = 10  # the most a build or a printer profile may ask for (component.bleed's schema says so too)
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


def paper_named(name: str) -> Paper:
    """The paper called ``name`` (a key of ``PAPERS``); an unknown name is a ValueError naming
    the known ones. Every paper name becomes a size here (build options, the contents sheet)."""
    paper = PAPERS.get(name)
    if paper is None:
        raise ValueError(f"unknown paper {name!r}, expected one of {', '.join(PAPERS)}")
    return paper


class Edges(Struct, frozen=True):
    """Per-side amounts, pt."""

    left: float
    bottom: float
    right: float
    top: float


class SheetOptions(Struct, frozen=True):
    paper: Paper
    duplex: str = DEFAULT_DUPLEX  # one of DUPLEX_MODES
    bleed: float = DEFAULT_BLEED_MM * MM  # bleed beyond the trim on outer edges
    margin: float = 4 * MM  # min distance from page edge to any bleed/art
    mark_gap: float = 1 * MM  # gap between the outermost bleed edge and a crop mark's start
    overlap: float = 10 * MM  # glue overlap for pieces tiled over several pages
    crop_marks: bool = True  # False for reference sheets (nothing to cut)
    abut: bool = True  # allow shared cut lines; False gives every piece its own bleed (round tokens)
    # Which edges of the piece (its own frame, before any turn) may be shared with a neighbour's:
    # left against right (``abut_lr``), bottom against top (``abut_tb``); False where the meeting
    # edges differ in colour (pnp.layout.edges), so a slightly-off cut shows no neighbour's colour.
    abut_lr: bool = True
    abut_tb: bool = True
    abut_hex: bool = True  # hexes may interlock in a honeycomb (every edge shared)
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
    # Sheet labels and scale marks placed outside every piece and cut line (pnp.impose.marks);
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

