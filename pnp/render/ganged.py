"""A game's ganged PDF (``--gang``): every grid component's sheets in one file, its mostly empty
sheets sharing sheets (``pnp.impose.gang``), each labelled with what is on it."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from msgspec import Struct
from msgspec.structs import replace

from pnp.impose.dieline import DieLine
from pnp.impose.gang import Block, candidates, gang
from pnp.impose.marks import LABEL_ROOM, SheetText, furnish, sheet_numbers
from pnp.impose.sheet import Page
from pnp.input.model import Game
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
    """The ganged file's pages and pieces; None when no two sheets can share one."""
    chosen = gangable_plans(plans, opts)
    if not chosen:
        return None
    sheet = chosen[0].sheet
    blocks = [b for i, p in enumerate(chosen) for b in _blocks(pages_for(p), i)]
    sheets, _ = gang(candidates(blocks, sheet, LABEL_ROOM), sheet, LABEL_ROOM)
    if not sheets:
        return None
    ganged_ids = {id(b.front) for g in sheets for b in g.blocks}
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

    pages: list[Page] = []
    before = 0
    for i, p in enumerate(chosen):
        own = furnished_pages(s, game, p)
        before += sheet_numbers(own)[1]
        raw_pages = pages_for(p)
        keep = [pg for pg, raw in zip(own, raw_pages, strict=True)
                if not (id(raw) in ganged_ids or (raw.side == "back" and _follows_ganged(raw, raw_pages, ganged_ids)))]
        pages += [shifted(pg, i) for pg in keep]
    versions = hashlib.sha256(" ".join(data_version(s.root, s.store, game, p.component) for p in chosen).encode())
    shared = []
    for g in sheets:  # each page's label names the components on it
        names = " + ".join(dict.fromkeys(chosen[b.owner].component.title for b in g.blocks))
        shared += [replace(_owned(page, g, offset), label=names) for page in g.pages]
    text = SheetText(game.title, "shared sheets", versions.hexdigest()[:10])
    pages += list(furnish(shared, sheet, text, s.fonts, UI_FONT))
    after = sheet_numbers(pages)[1]
    die = None  # die lines only where every ganged component has the same outline
    if opts.die_line and len({(p.component.shape, p.component.corner_radius) for p in chosen}) == 1:
        die = DieLine(chosen[0].component.shape, chosen[0].component.corner_radius * MM)
    return GangedFile(tuple(pages), tuple(fronts), tuple(backs),
                      GangReport(tuple(p.component.id for p in chosen), before, after), die)


def _follows_ganged(back: Page, pages: Sequence[Page], ganged: set[int]) -> bool:
    i = next(k for k, pg in enumerate(pages) if pg is back)
    return i > 0 and id(pages[i - 1]) in ganged


def _owned(page: Page, g: object, offset: Sequence[int]) -> Page:
    """A ganged page's slots with their pieces offset into the file's layout list: the slots
    come block by block, in the order of ``g.blocks``."""
    blocks = g.blocks  # type: ignore[attr-defined]
    side = page.side
    slots = []
    k = 0
    for b in blocks:
        src = b.front if side == "front" else b.back
        if src is None:
            continue
        for _ in src.slots:
            sl = page.slots[k]
            slots.append(replace(sl, piece=sl.piece + offset[b.owner]))
            k += 1
    assert k == len(page.slots)
    return replace(page, slots=tuple(slots))
