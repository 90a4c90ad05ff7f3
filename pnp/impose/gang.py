"""Ganged sheets (``--gang``): the partial sheets of a game — a deck's partial last sheet,
a component that fills a fraction of its one sheet, a part of a board tiled over several pages
— share sheets.

Each such sheet's content is a *block*: its pieces (and their back page) as a band across the
page, from the lowest to the highest bleed edge. Blocks keep their x position and are stacked
from the top of a new sheet (first fit, tallest first), so on a duplex sheet each back block
stays exactly behind its front (a long-edge flip mirrors x, which does not move; a short-edge
flip mirrors y, so the back moves by the opposite amount). A block that fits on no sheet begun
may be split (the caller's ``split``: its first rows, imposed again, and the rest) over the room
left on several, when every part finds room; else it begins a sheet. A sheet is ganged only when
it holds two blocks or more; a block that fits with no other keeps its own sheet as it was.

Cut lines: a block keeps its horizontal cut lines (in the side margins, at its own trims); its
vertical ones, which ran the page's height, become ticks of ``TICK`` just above and below the
block; between two blocks a full-width separation line says "cut the sheet apart here first".
Pure geometry on ``Page`` values.

Size: over 500 lines because the packing of blocks and the two ways of pooling pieces into
lines of one edge colour (``line_sheets``, ``segment_sheets``) share the block geometry (bands,
heights, ticks); the packing's shortcuts that keep hundreds of blocks fast (``_Heights``,
``_may_empty``) sit beside the search they shorten."""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterator, Sequence

from msgspec import Struct
from msgspec.structs import replace

from pnp.impose.grid import _abuts, _grid_cells, plan_grid
from pnp.impose.sheet import (
    EPS,
    CutLine,
    Edges,
    Grid,
    Mark,
    Page,
    PieceSpec,
    SheetOptions,
    Slot,
    _assemble,
    _axis_outer,
    _Sheet,
    _trim_cuts,
    _with_backs,
)
from pnp.impose.sheet import _usable as _page_usable
from pnp.units import MM

TICK = 4 * MM  # the length of a block's vertical cut ticks
SEPARATION = 3 * MM  # the gap between two blocks' ticks, with the separation line in its middle
MAX_SHARE = 1.0  # a sheet whose block (with its ticks) is at most this share of the usable height is ganged
GANGED_MARKS = ("circle", "punch", "glue", "align")  # marks a block may carry (cut circles; a tiled part's)


class Block(Struct, frozen=True):
    """One sheet's content to gang: its front page, its back page (duplex), and who it is
    (``owner``: the caller's index, e.g. the component)."""

    owner: int
    front: Page
    back: Page | None = None


class Ganged(Struct, frozen=True):
    """A ganged sheet: its pages (front, and back when any block has one) and the blocks on it."""

    pages: tuple[Page, ...]
    blocks: tuple[Block, ...]


def _band(page: Page) -> tuple[float, float]:
    """The lowest and highest y of what the page draws, vertical cut lines aside."""
    ys = [v for s in page.slots for v in (s.bleed_box[1], s.bleed_box[1] + s.bleed_box[3])]
    ys += [v for m in page.marks for v in (m.y - m.bleed, m.y + m.h + m.bleed)]
    ys += [c.y1 for c in page.cuts if abs(c.y1 - c.y2) < EPS]
    return min(ys), max(ys)


def _gangable(page: Page) -> bool:
    """Grid slots of one side (or the one part of a tiled piece, with its label), no paper of its
    own, no clip (a hex honeycomb), no marks but cut circles and a part's glue and alignment marks."""
    one_part = len(page.slots) == 1 and page.slots[0].part is not None
    return (bool(page.slots) and page.paper is None and (page.label is None or one_part)
            and all(s.clip is None and (s.part is None or one_part) for s in page.slots)
            and all(s.side == page.side for s in page.slots)
            and all(m.kind in GANGED_MARKS for m in page.marks))


def gangable(b: Block) -> bool:
    """Whether a block's pages may move onto a shared sheet (``_gangable``, front and back)."""
    return _gangable(b.front) and (b.back is None or _gangable(b.back))


def height(b: Block, options: SheetOptions) -> float:
    """The height a block takes on a shared sheet: its band and its ticks above and below."""
    lo, hi = _band(b.front)
    return hi - lo + 2 * (options.mark_gap + TICK)


def _usable(options: SheetOptions, label_room: float) -> tuple[float, float]:
    return options.margin + label_room, options.paper.height - options.margin


def candidates(blocks: Sequence[Block], options: SheetOptions, label_room: float = 0.0) -> list[Block]:
    """The blocks worth ganging: gangable pages whose band takes at most ``MAX_SHARE`` of the
    usable height."""
    lo, hi = _usable(options, label_room)
    return [b for b in blocks if gangable(b) and height(b, options) <= MAX_SHARE * (hi - lo)]


Split = Callable[[Block, float], "tuple[Block, Block] | None"]


def gang(blocks: Sequence[Block], options: SheetOptions, label_room: float = 0.0,
         split: Split | None = None) -> tuple[list[Ganged], list[Block]]:
    """Pack ``blocks`` (see ``candidates``) onto shared sheets. Returns (the ganged sheets, the
    blocks left on their own sheet). ``split(block, room)``, when given, is the block's first part
    that takes at most ``room`` (with its ticks) and the rest, or None: a block that fits on no
    sheet begun is split over the room left on them, when all of it finds room."""
    lo, hi = _usable(options, label_room)
    room = hi - lo
    bins: list[list[Block]] = []
    used: list[float] = []
    rank = {id(b): k for k, b in enumerate(blocks)}  # the order of blocks on a sheet; a part takes its block's
    hgt = _Heights(options)
    order = sorted(blocks, key=lambda b: -hgt(b))
    least: list[tuple[float, int]] = []  # (used, sheet), the least used on top; stale entries dropped when seen
    for b in order:
        h = hgt(b)
        while least and least[0][0] != used[least[0][1]]:
            heapq.heappop(least)
        # no sheet has room when the least used has none (most blocks, when they are many): no scan
        fits = bool(least) and least[0][0] + SEPARATION + h <= room + EPS
        for i in range(len(bins)) if fits else ():
            if used[i] + SEPARATION + h <= room + EPS:
                bins[i].append(b)
                used[i] += SEPARATION + h
                heapq.heappush(least, (used[i], i))
                break
        else:
            parts = None
            # _spread's first room is the least used sheet's: a block whose first part fits not
            # even there is spread over none (most of them, when they are many): no sort of the rest
            if split is not None and least and _may_empty([b], room - least[0][0], -room, hgt, split):
                parts = _spread(b, [room - u - SEPARATION for u in used], hgt, split)
            if parts is None:
                bins.append([b])
                used.append(h)
                heapq.heappush(least, (h, len(bins) - 1))
                continue
            for i, part in parts:
                bins[i].append(part)
                used[i] += SEPARATION + hgt(part)
                heapq.heappush(least, (used[i], i))
                rank[id(part)] = rank[id(b)]
    # then empty a sheet into the room left on the others, emptiest first, while one can be
    while len(bins) > 1:
        free = [room - u for u in used]
        most = heapq.nsmallest(2, range(len(free)), key=lambda i: (-free[i], i))  # the two with most room
        for j in sorted(range(len(bins)), key=lambda i: (used[i], i)):
            if not _may_empty(bins[j], free[most[1] if most[0] == j else most[0]], -room, hgt, split):
                continue
            moved = _relocate(bins[j], [room - u if i != j else -room for i, u in enumerate(used)], hgt, split)
            if moved is not None:
                for i, part, parent in moved:
                    bins[i].append(part)
                    used[i] += SEPARATION + hgt(part)
                    rank[id(part)] = rank[id(parent)]
                del bins[j], used[j]
                break
        else:
            break
    sheets = [_sheet(sorted(group, key=lambda b: rank[id(b)]), options, hi) for group in bins if len(group) > 1]
    alone = [group[0] for group in bins if len(group) == 1]
    return sheets, sorted(alone, key=lambda b: rank[id(b)])


class _Heights:
    """``height`` of each block, worked out once (the packing asks again and again)."""

    def __init__(self, options: SheetOptions):
        self.options = options
        self.known: dict[int, tuple[Block, float]] = {}  # id -> (the block, kept so its id stays its own; height)

    def __call__(self, b: Block) -> float:
        found = self.known.get(id(b))
        if found is None:
            found = self.known[id(b)] = (b, height(b, self.options))
        return found[1]


def _may_empty(group: Sequence[Block], most: float, own: float, hgt: _Heights, split: Split | None) -> bool:
    """False when ``_relocate`` surely finds no room for ``group``'s tallest block (its first),
    ``most`` being the most room left on another sheet and ``own`` what its own sheet is given: it
    fits whole nowhere and its first part fits not even there. A sheet of many that cannot be
    emptied is then passed over without a search through the others."""
    if own >= most:
        return True
    tallest = max(group, key=hgt)  # the first of the tallest, as _relocate takes them
    h = hgt(tallest)
    if SEPARATION + h <= most + EPS:
        return True
    if split is None:
        return False
    first = most - SEPARATION  # _spread's first room
    return not h <= first + EPS and split(tallest, first) is not None


def _most_room_first(free: list[float]) -> Iterator[int]:
    """The sheets by the room left on them, most first (then in order); the first without a sort
    (a block that cannot be split asks for no more)."""
    if not free:
        return
    first = min(range(len(free)), key=lambda i: (-free[i], i))
    yield first
    yield from (i for i in sorted(range(len(free)), key=lambda i: (-free[i], i)) if i != first)


def _spread(b: Block, free: list[float], hgt: _Heights, split: Split) -> list[tuple[int, Block]] | None:
    """``b`` in parts over the room ``free`` left on the sheets begun (most room first), or None
    when some of it finds no room. A part that fits no room fits none smaller (``split`` gives the
    first rows that fit): the search ends there."""
    out: list[tuple[int, Block]] = []
    rest: Block | None = b
    for i in _most_room_first(free):
        if rest is None:
            break
        if hgt(rest) <= free[i] + EPS:
            out.append((i, rest))
            rest = None
            break
        cut = split(rest, free[i])
        if cut is None:
            break
        out.append((i, cut[0]))
        rest = cut[1]
    return out if rest is None and len(out) > 1 else None


def _relocate(group: Sequence[Block], free: list[float], hgt: _Heights,
              split: Split | None) -> list[tuple[int, Block, Block]] | None:
    """Every block of ``group`` in the room ``free`` (with the separation) left on other sheets,
    whole (first fit, tallest first) or in parts (``_spread``), as (sheet, block or part, the
    block it is of); None when some of it finds no room."""
    free = list(free)
    out: list[tuple[int, Block, Block]] = []
    for b in sorted(group, key=lambda b: -hgt(b)):
        h = hgt(b)
        i = next((i for i, f in enumerate(free) if SEPARATION + h <= f + EPS), None)
        if i is not None:
            out.append((i, b, b))
            free[i] -= SEPARATION + h
            continue
        parts = _spread(b, [f - SEPARATION for f in free], hgt, split) if split else None
        if parts is None:
            return None
        for i, part in parts:
            out.append((i, part, b))
            free[i] -= SEPARATION + hgt(part)
    return out


def _circles(slots: Sequence[Slot], options: SheetOptions) -> tuple[Mark, ...]:
    """Cut circles (and punch marks) on round pieces' trims, as ``impose`` draws them."""
    if not options.cut_circles:
        return ()
    return tuple(Mark(kind, s.x, s.y, s.w, s.h, min(s.bleed.left, s.bleed.bottom, s.bleed.right, s.bleed.top)
                      if kind == "punch" else 0.0) for s in slots for kind in ("circle", "punch"))


def _moved_page(page: Page, dy: float, band: tuple[float, float], options: SheetOptions) -> tuple[Page, list[CutLine]]:
    """``page``'s content moved up by ``dy``, its vertical cut lines turned into ticks above and
    below ``band`` (the moved band)."""
    slots = tuple(replace(s, y=s.y + dy) for s in page.slots)
    marks = tuple(replace(m, y=m.y + dy) for m in page.marks)
    cuts: list[CutLine] = []
    xs = sorted({round(c.x1, 6) for c in page.cuts if abs(c.x1 - c.x2) < EPS})
    for c in page.cuts:
        if abs(c.y1 - c.y2) < EPS:
            cuts.append(CutLine(c.x1, c.y1 + dy, c.x2, c.y2 + dy))
    lo, hi = band
    g = options.mark_gap
    for x in xs:
        cuts.append(CutLine(x, lo - g - TICK, x, lo - g))
        cuts.append(CutLine(x, hi + g, x, hi + g + TICK))
    return replace(page, slots=slots, marks=marks, cuts=()), cuts


def _sheet(group: Sequence[Block], options: SheetOptions, top: float) -> Ganged:
    pw, ph = options.paper.width, options.paper.height
    short = options.duplex == "short"
    front_slots: list[Slot] = []
    front_marks: list[Mark] = []
    front_cuts: list[CutLine] = []
    back_slots: list[Slot] = []
    back_marks: list[Mark] = []
    back_cuts: list[CutLine] = []
    y = top
    for i, b in enumerate(group):
        lo, hi = _band(b.front)
        new_hi = y - options.mark_gap - TICK
        dy = new_hi - hi
        page, cuts = _moved_page(b.front, dy, (lo + dy, hi + dy), options)
        front_slots += page.slots
        front_marks += page.marks
        front_cuts += cuts
        if b.back is not None:
            bdy = -dy if short else dy
            blo, bhi = _band(b.back)
            bpage, bcuts = _moved_page(b.back, bdy, (blo + bdy, bhi + bdy), options)
            back_slots += bpage.slots
            back_marks += bpage.marks
            back_cuts += bcuts
        y = lo + dy - options.mark_gap - TICK
        if i + 1 < len(group):  # the separation line, in the middle of the gap to the next block
            sep = y - SEPARATION / 2
            front_cuts.append(CutLine(0.0, sep, pw, sep))
            back_cuts.append(CutLine(0.0, ph - sep if short else sep, pw, ph - sep if short else sep))
            y -= SEPARATION
    pages = [Page(0, "front", tuple(front_slots), tuple(front_cuts), tuple(front_marks))]
    if back_slots:
        pages.append(Page(0, "back", tuple(back_slots), tuple(back_cuts), tuple(back_marks)))
    return Ganged(tuple(pages), tuple(group))


# --------------------------------------------------------------------------- lines of one class

def line_sheets(classes: Sequence[Sequence[int]], alone: Sequence[int], piece: PieceSpec,
                options: SheetOptions, share: bool = True) -> tuple[Page, ...] | None:
    """Pieces of several colour classes on grid sheets where they abut only within a *line*.

    ``options`` lets one axis of the piece abut (``abut_lr`` or ``abut_tb``); when the grid it
    gives abuts along one page axis and keeps a gutter along the other, the cells along the
    abutting axis form lines (columns when pieces abut top to bottom, rows when side by side).
    Each line holds pieces of one class only (``classes``: piece numbers whose meeting edges all
    match, ``pnp.layout.edges.edge_classes``); a piece in ``alone`` (unlike even itself) has a
    line to itself. Lines of different classes meet across a gutter, each piece with its own
    bleed. Short runs of several classes share a line with an empty cell between them (unless not
    ``share``: then each run has a line of its own, fewer pieces per line); a piece
    next to an empty cell gets its bleed on that side. Whole lines come first, so the last sheet
    is the emptiest. None when the grid does not abut along exactly one axis."""
    grid = plan_grid(piece, options)
    if grid is None or grid.gutter_x == grid.gutter_y:
        return None
    cells = _grid_cells(grid, piece, options)
    cols, rows = grid.cols, grid.rows
    down = grid.gutter_x  # pieces abut along y: a line is a column, filled from the top
    lines = ([[cells[r * cols + c] for r in range(rows)] for c in range(cols)] if down
             else [[cells[r * cols + c] for c in range(cols)] for r in range(rows)])
    size = len(lines[0])
    chunks: list[list[int]] = []
    for cls in classes:
        chunks += [list(cls[k:k + size]) for k in range(0, len(cls), size)]
    chunks += [[i] for i in alone]
    # each line's runs (first cell, pieces): a whole line is one run; short runs share a line with
    # an empty cell between them (first fit, longest first), when a cell is wide enough for two bleeds
    along = cells[0].h if down else cells[0].w  # a cell's length along the line, in page space
    gap = 1 if share and along + EPS >= 2 * options.bleed else size
    filled: list[list[tuple[int, list[int]]]] = [[(0, ch)] for ch in chunks if len(ch) == size]
    ends: list[int] = []
    short: list[list[tuple[int, list[int]]]] = []
    for ch in sorted((ch for ch in chunks if len(ch) < size), key=lambda ch: -len(ch)):
        for i, end in enumerate(ends):
            if end + gap + len(ch) <= size:
                short[i].append((end + gap, ch))
                ends[i] = end + gap + len(ch)
                break
        else:
            short.append([(0, ch)])
            ends.append(len(ch))
    filled += short
    b = options.bleed
    sheets: list[_Sheet] = []
    for start in range(0, len(filled), len(lines)):
        slots: list[Slot] = []
        for line, runs in zip(lines, filled[start:start + len(lines)], strict=False):
            for first, chunk in runs:
                for k, p in enumerate(chunk):
                    cell = line[first + k]
                    e = cell.bleed
                    if k == 0 and first > 0:  # the cell before is empty: its room is bleed
                        e = Edges(e.left, e.bottom, e.right, b) if down else Edges(b, e.bottom, e.right, e.top)
                    if k == len(chunk) - 1 and first + k + 1 < size:  # so is the cell after
                        e = Edges(e.left, b, e.right, e.top) if down else Edges(e.left, e.bottom, b, e.top)
                    slots.append(replace(cell, piece=p, bleed=e))
        circles = _circles(slots, options)
        sheets.append(_Sheet(tuple(slots), _trim_cuts(slots, options, cells), circles))
    return _assemble(sheets, _with_backs(piece, options), options)


# --------------------------------------------------------------------------- a low block

def low_sheet(count: int, piece: PieceSpec, options: SheetOptions) -> tuple[Page, ...] | None:
    """``count`` pieces on one grid page (and its back), turned or not, whichever takes the
    lowest band (the rows they need only, as ``impose`` places them), to stack under other blocks:
    a 120 x 70 mm card a plain grid turns 90 degrees (4 to a sheet) lies flat when alone. None
    when they fit one page neither way."""
    uw, uh = _page_usable(options)
    b = options.bleed
    best: tuple[float, tuple[Page, ...]] | None = None
    for rotated in (False, True):
        w, h = (piece.height, piece.width) if rotated else (piece.width, piece.height)
        abut_x, abut_y = _abuts(options, rotated)
        cols, gutter_x, outer_x = _axis_outer(w, b, uw, abut_x, options.min_outer_bleed)
        rows, gutter_y, outer_y = _axis_outer(h, b, uh, abut_y, options.min_outer_bleed)
        if cols == 0 or rows == 0 or math.ceil(count / cols) > rows:
            continue
        grid = Grid(cols, math.ceil(count / cols), rotated, gutter_x, gutter_y, outer_x, outer_y)
        cells = _grid_cells(grid, piece, options)
        slots = tuple(replace(cell, piece=i) for i, cell in enumerate(cells[:count]))
        circles = _circles(slots, options)
        pages = _assemble([_Sheet(slots, _trim_cuts(slots, options, cells), circles)],
                          _with_backs(piece, options), options)
        lo, hi = _band(pages[0])
        if best is None or hi - lo < best[0] - EPS:
            best = (hi - lo, pages)
    return None if best is None else best[1]


# --------------------------------------------------------------------------- lines in segments

MAX_PATTERNS = 256  # the segmentations of a line tried, at most


def _compositions(n: int, parts: int) -> list[tuple[int, ...]]:
    """The ways of writing ``n`` as an ordered sum of ``parts`` positive integers."""
    if parts == 1:
        return [(n,)]
    return [(k, *rest) for k in range(1, n - parts + 2) for rest in _compositions(n - k, parts - 1)]


def segment_sheets(classes: Sequence[Sequence[int]], alone: Sequence[int], piece: PieceSpec,
                   options: SheetOptions) -> tuple[Page, ...] | None:
    """Like ``line_sheets``, but each line is cut into *segments* with a gutter between them,
    where the page has room for the gutters (universal paper: a column of 4 turned poker cards
    has room for 2, a column of 6 tiles of 40 mm for 4): pieces abut only within a segment, each
    segment holds pieces of one class, and every line of a sheet has the same segments, so the
    cut lines still run across the whole sheet. Of the segmentations that fit, the one with the
    fewest sheets (then the fewest pieces and the lowest band on the last) is kept; None when no
    segmentation fits or the grid does not abut along exactly one axis. Segments are filled sheet
    by sheet: a one-cell segment takes a piece unlike even itself first, then one of the
    smallest class left; a longer segment a run of the largest class left."""
    grid = plan_grid(piece, options)
    if grid is None or grid.gutter_x == grid.gutter_y:
        return None
    down = grid.gutter_x  # pieces abut along y: a line is a column, filled from the top
    base = _grid_cells(grid, piece, options)
    cols, rows = grid.cols, grid.rows
    w, h = (piece.height, piece.width) if grid.rotated else (piece.width, piece.height)
    size, length, lines = (h, rows, cols) if down else (w, cols, rows)
    uw, uh = _page_usable(options)
    avail = uh if down else uw
    b = options.bleed
    least = b if options.min_outer_bleed is None else min(b, options.min_outer_bleed)
    patterns: list[tuple[tuple[int, ...], float]] = []  # the segments and the outer bleed along the line
    for parts in range(2, length + 1):
        core = length * size + (parts - 1) * 2 * b
        if core + 2 * least > avail + EPS:
            break
        outer = min(b, (avail - core) / 2)
        patterns += [(p, outer) for p in _compositions(length, parts)]
        if len(patterns) > MAX_PATTERNS:
            return None
    if not patterns:
        return None
    # the cross-line extent is the base grid's; the label needs room beyond the margin on some side
    cross = [v for s in base for v in ((s.x - s.bleed.left, s.x + s.w + s.bleed.right) if down
                                       else (s.y - s.bleed.bottom, s.y + s.h + s.bleed.top))]
    cross_margin = (min(cross) if down else options.paper.height - max(cross)) - options.margin
    best: tuple[tuple[int, int, float], tuple[Page, ...]] | None = None
    for segments, outer in patterns:
        extent = length * size + (len(segments) - 1) * 2 * b + 2 * outer
        along_margin = ((options.paper.height if down else options.paper.width) - extent) / 2 - options.margin
        if options.label_room > 0 and max(cross_margin, along_margin) + EPS < options.label_room:
            continue
        pages = _segmented(classes, alone, piece, options, grid, base, segments, outer, size, lines, down)
        fronts = [pg for pg in pages if pg.side == "front"]
        lo, hi = _band(fronts[-1])
        key = (len(fronts), len(fronts[-1].slots), round(hi - lo, 3))
        if best is None or key < best[0]:
            best = (key, pages)
    return None if best is None else best[1]


def _segmented(classes: Sequence[Sequence[int]], alone: Sequence[int], piece: PieceSpec, options: SheetOptions,
               grid: Grid, base: Sequence[Slot], segments: tuple[int, ...], outer: float, size: float,
               lines: int, down: bool) -> tuple[Page, ...]:
    """The pages of ``segment_sheets`` for one segmentation."""
    b = options.bleed
    length = sum(segments)
    extent = length * size + (len(segments) - 1) * 2 * b + 2 * outer
    paper = options.paper
    starts = [sum(segments[:i]) for i in range(len(segments))]
    gaps = [i for i, s in enumerate(segments) for _ in range(s)]  # gutters before each cell along the line
    # each line's cells along the line: position of the trim's near edge (top for a column, left for a row)
    if down:
        top = (paper.height + extent) / 2
        along = [top - outer - k * size - gaps[k] * 2 * b for k in range(length)]
    else:
        left = (paper.width - extent) / 2
        along = [left + outer + k * size + gaps[k] * 2 * b for k in range(length)]
    line_base = [base[c] for c in range(grid.cols)] if down else [base[r * grid.cols] for r in range(grid.rows)]
    queues = [list(c) for c in classes if c]
    singles = list(alone)
    sheets: list[_Sheet] = []
    full_frame: list[Slot] = []
    while queues or singles:
        slots: list[Slot] = []
        frame: list[Slot] = []
        for line in range(lines):
            lb = line_base[line]
            for seg, first in zip(segments, starts, strict=True):
                run: list[int] = []
                if seg == 1 and singles:
                    run = [singles.pop(0)]
                elif queues:
                    q = min(queues, key=len) if seg == 1 else max(queues, key=len)
                    run, q[:] = q[:seg], q[seg:]
                    if not q:
                        queues.remove(q)
                elif singles:
                    run = [singles.pop(0)]
                for k in range(first, first + seg):
                    near = outer if k == 0 else b if k == first else 0.0
                    far = outer if k == length - 1 else b if k == first + seg - 1 or k - first + 1 >= len(run) else 0.0
                    if down:
                        cell = replace(lb, y=along[k] - size,
                                       bleed=Edges(lb.bleed.left, far, lb.bleed.right, near))
                    else:
                        cell = replace(lb, x=along[k], bleed=Edges(near, lb.bleed.bottom, far, lb.bleed.top))
                    frame.append(cell)
                    if k - first < len(run):
                        slots.append(replace(cell, piece=run[k - first]))
        if not slots:
            break
        full_frame = full_frame or frame
        circles = _circles(slots, options)
        sheets.append(_Sheet(tuple(slots), _trim_cuts(slots, options, full_frame), circles))
    return _assemble(sheets, _with_backs(piece, options), options)
