"""Rectangular imposition: the grid of a sheet (bleed, gutters, label room), grid pages with their
backs, gutterfold pages, one piece per page, and print-shop pages."""

from __future__ import annotations

from msgspec.structs import replace

from pnp.impose.sheet import (
    EPS,
    FOLD_GAP,
    CutLine,
    Edges,
    Grid,
    Mark,
    Page,
    Paper,
    PieceSpec,
    SheetOptions,
    Slot,
    _assemble,
    _axis_outer,
    _check_count,
    _cut_lines,
    _fits,
    _mirror,
    _Sheet,
    _trim_cuts,
    _usable,
    _with_backs,
)
from pnp.impose.tiles import _tile

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
        abut_x, abut_y = _abuts(options, rotated)
        cols, gutter_x, outer_x = _axis_outer(w, options.bleed, uw, abut_x, options.min_outer_bleed)
        rows, gutter_y, outer_y = _axis_outer(h, options.bleed, uh, abut_y, options.min_outer_bleed)
        if cols * rows == 0:
            continue
        if best is None or cols * rows > best.cols * best.rows:
            best = Grid(cols, rows, rotated, gutter_x, gutter_y, outer_x, outer_y)
    if best is not None and options.label_room > 0 and area is None:
        best = _with_label_room(best, piece, options)
    return best


def _abuts(options: SheetOptions, rotated: bool) -> tuple[bool, bool]:
    """Whether pieces may abut along the page's x and y axes: a piece's left and right edges meet
    along x unless it is turned, when its top and bottom edges do."""
    lr, tb = options.abut and options.abut_lr, options.abut and options.abut_tb
    return (tb, lr) if rotated else (lr, tb)


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

    abut_x, abut_y = _abuts(options, grid.rotated)
    if room(grid) or not (abut_x or abut_y):
        return grid
    uw, uh = _usable(options)
    candidates = []
    if grid.gutter_x and abut_x:
        ext = _extent(grid.cols, w, b, False, None)
        if ext <= uw + EPS:
            candidates.append(replace(grid, gutter_x=False, outer_x=None))
    if grid.gutter_y and abut_y:
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

