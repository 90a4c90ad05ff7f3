"""The page budget: how many pages a plan will print, counted without imposing them, and the
caps that keep a build within its memory.

A build holds each component's PDF in memory while it is drawn (about 10 KB per page until it
is written out: the page objects, their layouts' streams) and every PDF of the command until all
are written (all or nothing). The piece caps (pnp.input.model) bound the pieces, not what they
become: 3,000 boards of 2 x 2 m tile over 264,000 pages. So ``check`` and ``build`` count the
pages of the chosen options (paper, duplex, one per page, tiles, --gang's extra file) and refuse
a component or a command over its cap, before anything is drawn."""

from __future__ import annotations

import math
from collections.abc import Sequence

from pnp.errors import Diagnostic
from pnp.impose.grid import plan_grid
from pnp.impose.hex import plan_hex
from pnp.impose.sheet import FOLD_GAP, PieceSpec, SheetOptions, _fits, _usable
from pnp.impose.tiles import _tile_count
from pnp.input.model import Game
from pnp.plan.component import ComponentPlan, _honeycomb
from pnp.units import MM

# Measured (docs/performance.md, "Page budget"): the worst kind, boards tiled over many pages,
# peaks near 12 KB a page while a component is drawn.
MAX_COMPONENT_PAGES = 25_000  # one component's PDF: 10,000 cards one per page with backs is 20,000
MAX_RUN_PAGES = 60_000  # every PDF one command writes, the ganged files counted in


def _tiles(piece: PieceSpec, options: SheetOptions) -> int:
    """Pages one copy of a piece too large for the page takes (as pnp.impose.tiles lays it)."""
    uw, uh = _usable(options)
    b, o = options.bleed, options.overlap
    plain = _tile_count(piece.width, b, o, uw) * _tile_count(piece.height, b, o, uh)
    turned = _tile_count(piece.width, b, o, uh) * _tile_count(piece.height, b, o, uw)
    return min(plain, turned)


def _grid_pages(count: int, piece: PieceSpec, options: SheetOptions) -> int:
    """The pages of pnp.impose.grid.impose, counted."""
    if count == 0:
        return 0
    if options.duplex == "fold" and piece.has_back:
        paper = options.paper
        half = plan_grid(piece, options, (paper.width / 2 - options.margin - FOLD_GAP,
                                          paper.height - 2 * options.margin))
        return 0 if half is None else math.ceil(count / (half.cols * half.rows))
    grid = plan_grid(piece, options)
    if grid is None:
        return count * _tiles(piece, options)
    sides = 2 if piece.has_back and options.duplex != "none" else 1
    return math.ceil(count / (grid.cols * grid.rows)) * sides


def page_count(plan: ComponentPlan) -> int:
    """``len(plan.pages)``, worked out from the counts alone (imposing 264,000 pages to count them
    would itself take the memory the budget is there to spare). A piece the sheet cannot take at
    all counts 0 here: imposing it is the error then."""
    try:
        return _page_count(plan)
    except ValueError:  # a glue overlap leaving no room: the imposition says so when it runs
        return 0


def _page_count(plan: ComponentPlan) -> int:
    comp, sheet = plan.component, plan.sheet
    piece = PieceSpec(comp.size[0] * MM, comp.size[1] * MM,
                      has_back=any(b is not None for b in plan.backs) and sheet.duplex != "none")
    n = len(plan.fronts)
    sides = 2 if piece.has_back and sheet.duplex != "none" else 1
    if plan.placement == "print-shop":
        return n * (2 if piece.has_back else 1)
    if plan.placement == "grid" and _honeycomb(comp, sheet) and n:
        grid = plan_hex(piece, sheet)
        if grid is not None:
            return math.ceil(n / (grid.cols * grid.rows)) * sides
    if plan.placement == "page":
        if _fits(piece.width, piece.height, sheet) or _fits(piece.height, piece.width, sheet):
            return n * sides
        return n * _tiles(piece, sheet)
    if plan.blocks:
        return sum(_grid_pages(len(b.pieces), piece, b.sheet) for b in plan.blocks)
    return _grid_pages(n, piece, sheet)


def _hint(plan: ComponentPlan) -> str:
    """What would bring a plan's pages down."""
    ways = ["fewer pieces (fewer `copies`, a shorter `series`)"]
    if plan.placement == "print-shop":
        ways.append("no --one-per-page (a sheet holds several pieces)")
    elif _tiled(plan):
        ways.append("a smaller `size` or a larger --paper (fewer tiles to a piece)")
    return "; ".join(ways) + "; or split the component in two"


def component_pages_problems(game: Game, plans: Sequence[ComponentPlan]) -> list[Diagnostic]:
    """An error for each of a game's plans over MAX_COMPONENT_PAGES, at its manifest entry."""
    out = []
    for plan in plans:
        pages = page_count(plan)
        if pages <= MAX_COMPONENT_PAGES:
            continue
        comp = plan.component
        tiled = ", each piece tiled over several pages," if _tiled(plan) else ""
        msg = (f"component {comp.id} of game {game.id} would print {pages} pages{tiled} with these options "
               f"({len(plan.fronts)} pieces)")
        expected = f"at most {MAX_COMPONENT_PAGES} pages in one component's PDF"
        out.append(game.manifest_diag(msg, comp.id, expected=expected, hint=_hint(plan)))
    return out


def _tiled(plan: ComponentPlan) -> bool:
    comp, sheet = plan.component, plan.sheet
    if plan.placement == "print-shop":
        return False
    w, h = comp.size[0] * MM, comp.size[1] * MM
    return not (_fits(w, h, sheet) or _fits(h, w, sheet))


def run_pages(games: Sequence[tuple[str, Sequence[ComponentPlan], bool]]) -> list[tuple[str, int]]:
    """Each game's pages (``(id, plans, ganged)``): its components', and with --gang at most as
    many again for its ganged file (it only ever saves sheets)."""
    out = []
    for gid, plans, gang in games:
        counts = [(p, page_count(p)) for p in plans]
        total = sum(n for _, n in counts)
        if gang:
            total += sum(n for p, n in counts if p.placement == "grid" and p.sheet.duplex != "fold")
        out.append((gid, total))
    return out


def run_pages_problem(games: Sequence[tuple[str, Sequence[ComponentPlan], bool]], where: str) -> Diagnostic | None:
    """The error when the games one command builds would print more than MAX_RUN_PAGES pages."""
    counts = run_pages(games)
    total = sum(n for _, n in counts)
    if total <= MAX_RUN_PAGES:
        return None
    each = ", ".join(f"{gid} {n}" for gid, n in counts)
    gang = " (--gang's ganged files counted as their sheets again)" if any(g for _, _, g in games) else ""
    return Diagnostic(where, f"{total} pages in the PDFs of one command ({each}){gang}",
                      expected=f"at most {MAX_RUN_PAGES} pages across the games one command checks or builds",
                      hint="build fewer games at a time (name them: `pnp build GAME`)"
                      + (", without --gang" if gang else "") + ", or print fewer pieces")
