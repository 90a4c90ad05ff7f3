"""A game's ganged PDF (``--gang``): every grid component's sheets in one file, its mostly empty
sheets sharing sheets (``pnp.impose.gang``), each labelled with what is on it."""

from __future__ import annotations

import hashlib
from bisect import bisect_right
from collections.abc import Sequence

from msgspec import Struct
from msgspec.structs import replace

from pnp.impose.dieline import DieLine
from pnp.impose.gang import Block, candidates, gang
from pnp.impose.grid import impose
from pnp.impose.marks import LABEL_ROOM, SheetText, furnish, sheet_numbers
from pnp.impose.sheet import Page, PieceSpec
from pnp.input.model import Game
from pnp.layout.edges import edge_match
from pnp.layout.fonts import UI_FONT
from pnp.layout.piece import PieceLayout
from pnp.plan.component import ComponentPlan, pages_for
from pnp.plan.digest import data_version
from pnp.plan.options import BuildOptions
from pnp.plan.session import Session
from pnp.render.component import furnished_pages, viewer_duplex
from pnp.render.draw import DocInfo, render
from pnp.units import MM


class GangReport(Struct, frozen=True):
    """Sheets of the ganged components before and after (a duplex front and back are one sheet)."""

    components: tuple[str, ...]  # the components in the ganged file
    before: int
    after: int

    @property
    def saved(self) -> int:
        return self.before - self.after


def _blocks(pages: Sequence[Page], owner: int) -> list[Block]:
    out = []
    for i, page in enumerate(pages):
        if page.side != "front":
            continue
        back = pages[i + 1] if i + 1 < len(pages) and pages[i + 1].side == "back" else None
        out.append(Block(owner, page, back))
    return out


def gangable_plans(plans: Sequence[ComponentPlan], opts: BuildOptions) -> list[ComponentPlan]:
    """The plans whose sheets may be ganged: grid placement, the game's paper, not gutterfold."""
    if opts.print_shop or opts.duplex == "fold":
        return []
    return [p for p in plans if p.placement == "grid" and pages_for(p)]


class GangedFile(Struct, frozen=True):
    """What the ganged PDF draws: its pages, whose slots index ``fronts``/``backs`` (every
    ganged plan's pieces, one plan after the other), and what it saved."""

    pages: tuple[Page, ...]
    fronts: tuple[PieceLayout, ...]
    backs: tuple[PieceLayout | None, ...]
    report: GangReport
    die: DieLine | None


def render_ganged(s: Session, game: Game, plans: Sequence[ComponentPlan],
                  opts: BuildOptions) -> tuple[bytes, GangReport] | None:
    """The game's ganged PDF and what it saved; None when no two sheets can share one."""
    f = ganged_file(s, game, plans, opts)
    if f is None:
        return None
    info = DocInfo(title=f"{game.title} — ganged sheets", author=game.designer,
                   subject=f"pnp ganged sheets: {game.id}", ui_font=UI_FONT,
                   duplex=viewer_duplex(f.pages, opts.duplex), color=opts.color)
    paper = gangable_plans(plans, opts)[0].sheet.paper
    return render(f.pages, paper, f.fronts, f.backs, s.fonts, info, die=f.die), f.report


def ganged_file(s: Session, game: Game, plans: Sequence[ComponentPlan], opts: BuildOptions) -> GangedFile | None:
    """The ganged file's pages and pieces; None when no sheet is saved.

    First the mostly empty sheets of components whose pieces are alike (size, shape, kind,
    backs, sheet options: a deck's partial last sheet and a few cards of another deck) pool their
    pieces into ordinary grid sheets, when that takes no more sheets; then what is still mostly
    empty is stacked onto shared sheets (``pnp.impose.gang``)."""
    chosen = gangable_plans(plans, opts)
    if not chosen:
        return None
    sheet = chosen[0].sheet
    # one list of layouts for the whole file: each plan's pieces after the ones before it
    fronts: list[PieceLayout] = []
    backs: list[PieceLayout | None] = []
    offset: list[int] = []
    for p in chosen:
        offset.append(len(fronts))
        fronts += list(p.fronts)
        backs += list(p.backs)

    def shifted(page: Page, owner: int) -> Page:
        return replace(page, slots=tuple(replace(sl, piece=sl.piece + offset[owner]) for sl in page.slots))

    raw: dict[int, Page] = {}  # id of a block's (shifted) front page -> the plan's own front page
    names: dict[int, tuple[str, ...]] = {}  # id of a block's front page -> the components on it
    blocks = []
    for i, p in enumerate(chosen):
        for b in _blocks(pages_for(p), i):
            moved = Block(i, shifted(b.front, i), shifted(b.back, i) if b.back is not None else None)
            raw[id(moved.front)], names[id(moved.front)] = b.front, (p.component.title,)
            blocks.append(moved)
    cands = candidates(blocks, sheet, LABEL_ROOM)
    leaving: set[int] = set()  # ids of the plans' own front pages that leave their component
    pooled_pages: list[Page] = []  # pooled sheets that are full enough to stand alone
    stack: list[Block] = []
    groups: dict[tuple[object, ...], list[Block]] = {}
    for b in cands:
        c = chosen[b.owner].component
        key = (chosen[b.owner].sheet, c.size, c.shape, c.kind, b.back is not None)
        groups.setdefault(key, []).append(b)
    for group in groups.values():
        pool = _pool(group, chosen, opts) if len(group) > 1 else None
        if pool is None:
            stack += group
            continue
        leaving |= {id(raw[id(b.front)]) for b in group}
        for pb in _blocks(pool, -1):
            # the components on this sheet of the pool (its pieces numbered for the whole file)
            title = tuple(dict.fromkeys(chosen[bisect_right(offset, sl.piece) - 1].component.title
                                        for sl in pb.front.slots))
            names[id(pb.front)] = title
            if candidates([pb], sheet, LABEL_ROOM):
                stack.append(pb)
            else:
                pooled_pages += [replace(pg, label=" + ".join(title)) for pg in (pb.front, pb.back) if pg is not None]
    sheets, alone = gang(stack, sheet, LABEL_ROOM)
    leaving |= {id(raw[id(b.front)]) for g in sheets for b in g.blocks if id(b.front) in raw}
    for b in alone:  # a pooled sheet with no company: a sheet of its own
        if id(b.front) not in raw:
            pooled_pages += [replace(pg, label=" + ".join(names[id(b.front)])) for pg in (b.front, b.back)
                             if pg is not None]
    if not leaving:
        return None
    pages: list[Page] = []
    before = 0
    for i, p in enumerate(chosen):
        own = furnished_pages(s, game, p)
        before += sheet_numbers(own)[1]
        raw_pages = pages_for(p)
        keep = [pg for pg, r in zip(own, raw_pages, strict=True)
                if not (id(r) in leaving or (r.side == "back" and _follows_ganged(r, raw_pages, leaving)))]
        pages += [shifted(pg, i) for pg in keep]
    versions = hashlib.sha256(" ".join(data_version(s.root, s.store, game, p.component) for p in chosen).encode())
    shared = list(pooled_pages)
    for g in sheets:  # each page's label names the components on it
        title = " + ".join(dict.fromkeys(n for b in g.blocks for n in names[id(b.front)]))
        shared += [replace(page, label=title) for page in g.pages]
    text = SheetText(game.title, "shared sheets", versions.hexdigest()[:10])
    pages += list(furnish(shared, sheet, text, s.fonts, UI_FONT))
    after = sheet_numbers(pages)[1]
    if after >= before:
        return None
    die = None  # die lines only where every ganged component has the same outline
    if opts.die_line and len({(p.component.shape, p.component.corner_radius) for p in chosen}) == 1:
        die = DieLine(chosen[0].component.shape, chosen[0].component.corner_radius * MM)
    return GangedFile(tuple(pages), tuple(fronts), tuple(backs),
                      GangReport(tuple(p.component.id for p in chosen), before, after), die)


def _pool(group: Sequence[Block], chosen: Sequence[ComponentPlan], opts: BuildOptions) -> tuple[Page, ...] | None:
    """The pieces of ``group`` (alike components' mostly empty sheets, pieces already numbered
    for the whole file) imposed together as ordinary grid sheets; None when that takes more
    sheets. As many sheets is kept: the pieces fill the first ones, and the emptier last one
    stacks more easily with other blocks (cyberiad: 6 + 4 cards make 9 + 1)."""
    plan = chosen[group[0].owner]
    pieces = [sl.piece for b in group for sl in b.front.slots]
    w, h = plan.component.size
    spec = PieceSpec(w * MM, h * MM, has_back=group[0].back is not None and opts.duplex != "none")
    sheet = plan.sheet
    owners = {b.owner for b in group}
    if len(owners) > 1 and (sheet.abut_lr or sheet.abut_tb):
        # pieces of several components abut only where their meeting edges match (pnp.layout.edges)
        fronts = [chosen[o].fronts for o in sorted(owners)]
        m = edge_match([[f for seq in fronts for f in seq],
                        [b for o in sorted(owners) for b in chosen[o].backs]] if spec.has_back else
                       [[f for seq in fronts for f in seq]])
        sheet = replace(sheet, abut_lr=sheet.abut_lr and m.lr, abut_tb=sheet.abut_tb and m.tb)
    pages = impose(len(pieces), spec, sheet)
    if sum(pg.side == "front" for pg in pages) > len(group):
        return None
    return tuple(replace(pg, slots=tuple(replace(sl, piece=pieces[sl.piece]) for sl in pg.slots)) for pg in pages)


def _follows_ganged(back: Page, pages: Sequence[Page], ganged: set[int]) -> bool:
    i = next(k for k, pg in enumerate(pages) if pg is back)
    return i > 0 and id(pages[i - 1]) in ganged
