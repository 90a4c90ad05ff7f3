"""A game's ganged PDF (``--gang``): every grid component's sheets in one file, its mostly empty
sheets sharing sheets (``pnp.impose.gang``), each labelled with what is on it."""

from __future__ import annotations

import bisect
import hashlib
import math
from collections.abc import Callable, Sequence

from msgspec import Struct, field
from msgspec.structs import replace

from pnp.impose.dieline import DieLine
from pnp.impose.gang import Block, candidates, gang, gangable, height, line_sheets, low_sheet, segment_sheets
from pnp.impose.grid import impose, plan_grid
from pnp.impose.marks import LABEL_ROOM, SheetText, furnish, sheet_numbers
from pnp.impose.sheet import Page, PieceSpec, SheetOptions
from pnp.input.kinds import STOCKS, stock_of
from pnp.input.model import Game
from pnp.layout.edges import EDGE_BUDGET, EdgeBudgetError, EdgeMatch, EdgeSampler, edge_classes, edge_match
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

    First the partial sheets of components whose pieces are alike (stock, size, shape, kind,
    backs, sheet options: a deck's partial last sheet and a few cards of another deck) pool their
    pieces into ordinary grid sheets, when that takes no more sheets; then what is still mostly
    empty is stacked onto shared sheets (``pnp.impose.gang``), a block split over the room left
    on several when that spares its sheet. Sheets are shared within one stock (cards; tiles and
    tokens; boards and mats: ``pnp.input.kinds``), unless sharing across stocks saves more
    sheets: then the label of a sheet that mixes stocks says so.

    Judging which pooled pieces may share a cut line spends from one budget of colour
    comparisons for the whole file (``EDGE_BUDGET``, as for one component): a pool judged once it
    is spent is imposed as if its edges did not match (gutters, no lines of one colour), so many
    components in many near colours gang in bounded time, and the same input gives the same file."""
    chosen = gangable_plans(plans, opts)
    if not chosen:
        return None
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

    def named(page: Page) -> tuple[str, ...]:
        """The components on a front page, in piece order (a tiled part with its label)."""
        out = []
        for sl in page.slots:
            title = chosen[bisect.bisect_right(offset, sl.piece) - 1].component.title
            out.append(f"{title} ({page.label[0].lower()}{page.label[1:]})" if sl.part is not None and page.label
                       else title)
        return tuple(dict.fromkeys(out))

    blocks = []
    origin: dict[int, Page] = {}  # id of a block's front page -> the plan's own front page it is
    for i, p in enumerate(chosen):
        for b in _blocks(pages_for(p), i):
            moved = Block(i, shifted(b.front, i), shifted(b.back, i) if b.back is not None else None)
            origin[id(moved.front)] = b.front
            blocks.append(moved)
    # one budget of colour comparisons for the whole file (each component's pieces were judged
    # within it by the plan, and check refuses what is past that): a pool judged once it is spent
    # is imposed as if its edges did not match, never refused (check has said yes by now)
    lays = _Lays(fronts, backs, EdgeSampler(budget=EDGE_BUDGET, sampling=math.inf))  # sampled by the plans
    versions = hashlib.sha256(" ".join(data_version(s.root, s.store, game, p.component) for p in chosen).encode())
    found: tuple[int, tuple[bool, bool, bool]] | None = None
    # each stock on its own sheets, or mixed; short lines of one colour sharing a line, or not; a
    # component's lone sheet as imposed, or turned to its lowest band: the packing that takes
    # fewest sheets (the first of equals), counted without labels, then made with them
    for turn in (False, True):
        for mixed, share in ((False, True), (True, True), (False, False), (True, False)):
            f = _pack(s, game, chosen, opts, blocks, named, dict(origin), mixed, shifted, versions.hexdigest()[:10],
                      replace(lays, share=share), turn, final=False)
            if f is not None and (found is None or f.report.after < found[0]):
                found = (f.report.after, (turn, mixed, share))
    if found is None:
        return None
    turn, mixed, share = found[1]
    best = _pack(s, game, chosen, opts, blocks, named, dict(origin), mixed, shifted, versions.hexdigest()[:10],
                 replace(lays, share=share), turn)
    assert best is not None and best.report.after == found[0]
    die = None  # die lines only where every ganged component has the same outline
    if opts.die_line and len({(p.component.shape, p.component.corner_radius) for p in chosen}) == 1:
        die = DieLine(chosen[0].component.shape, chosen[0].component.corner_radius * MM)
    return replace(best, fronts=tuple(fronts), backs=tuple(backs), die=die)


def _pack(s: Session, game: Game, chosen: Sequence[ComponentPlan], opts: BuildOptions, blocks: Sequence[Block],
          named: Callable[[Page], tuple[str, ...]], origin: dict[int, Page], mixed: bool,
          shifted: Callable[[Page, int], Page], version: str, lays: _Lays, turn: bool = False,
          final: bool = True) -> GangedFile | None:
    """One packing of ``blocks``: by stock, or ``mixed``; with ``turn``, a component's sheet that
    goes to a shared sheet is imposed again turned when that lowers its band (``low_sheet``);
    None when it saves no sheet. ``origin`` is added to (the parts of split blocks). Not ``final``:
    the pages without labels and scale marks, to count the sheets."""
    sheet = chosen[0].sheet
    cands = {id(b.front) for b in candidates(blocks, sheet, LABEL_ROOM)}
    leaving: set[int] = set()  # ids of the plans' own front pages that leave their component
    stocks: dict[int, str] = {}  # id of a block's front page -> its stock
    # id of a pooled or split block's front page -> a plan of its pieces and the sheet options they are imposed with
    pools: dict[int, tuple[int, SheetOptions]] = {}
    made: list[Block] = []  # every block made here, kept so that no id above is reused
    pooled: list[tuple[str, Page]] = []  # pooled sheets full enough to stand alone, and their stock
    stack: list[Block] = []  # the blocks to stack onto shared sheets
    groups: dict[tuple[object, ...], list[Block]] = {}
    for b in blocks:
        stocks[id(b.front)] = stock_of(chosen[b.owner].component.kind)
    for b in blocks:  # every sheet of alike components, to pool
        plan = chosen[b.owner]
        c = plan.component
        if not (gangable(b) and plan.grid is not None):
            if id(b.front) in cands:
                stack.append(b)
            continue
        alike = replace(plan.sheet, abut_lr=True, abut_tb=True)  # whether edges match is _pool's to judge
        groups.setdefault((stocks[id(b.front)], alike, c.size, c.shape, c.kind, b.back is not None), []).append(b)
    for every in groups.values():
        # the group's partial sheets (a sheet too full to stack pools too), only those not too full
        # to stack (the others keep their sheets), or every sheet of its components (pieces of
        # several colours in lines of one colour: see _pool): whichever takes fewest sheets, then
        # leaves the emptier last one
        group = [b for b in every if len(b.front.slots) < _capacity(chosen[b.owner])]
        small = [b for b in group if id(b.front) in cands]
        best: tuple[tuple[int, int, float], list[Block], tuple[tuple[Page, ...], SheetOptions]] | None = None
        tried: set[tuple[int, ...]] = set()
        for members in (group, small, every):
            ids = tuple(id(b.front) for b in members)
            if len(members) < 2 or ids in tried:
                continue
            tried.add(ids)
            pool = _pool(members, chosen, opts, lays)
            if pool is not None:
                n, last, tall = _fill(pool[0], sheet)
                key = (n + len(every) - len(members), last, tall)
                if best is None or key < best[0]:
                    best = (key, members, pool)
        if best is None:
            stack += [b for b in every if id(b.front) in cands]
            continue
        inside = {id(b.front) for b in best[1]}
        stack += [b for b in every if id(b.front) in cands and id(b.front) not in inside]
        _, group, (pages, pool_sheet) = best
        leaving |= {id(origin[id(b.front)]) for b in group}
        pool_blocks = _blocks(pages, group[0].owner)
        if turn:  # the last pooled sheet (its lines spanning the page) laid in its lowest band
            last = pool_blocks[-1]
            pieces = [sl.piece for sl in last.front.slots]
            low = low_sheet(len(pieces), _spec(chosen[group[0].owner], group[0], opts), pool_sheet)
            if low is not None:
                nb = _blocks(_renumber(low, pieces), group[0].owner)[0]
                if height(nb, sheet) < height(last, sheet) - 1e-6:
                    pool_blocks[-1] = nb
        made += pool_blocks
        for pb in pool_blocks:
            stocks[id(pb.front)], pools[id(pb.front)] = stocks[id(group[0].front)], (group[0].owner, pool_sheet)
            if candidates([pb], sheet, LABEL_ROOM):
                stack.append(pb)
            else:
                pooled += [(stocks[id(pb.front)], replace(pg, label=" + ".join(named(pb.front))))
                           for pg in (pb.front, pb.back) if pg is not None]

    if turn:  # a component's own sheet, turned to its lowest band
        for k, b in enumerate(stack):
            plan = chosen[b.owner]
            if (plan.grid is None or id(b.front) in pools or id(b.front) not in origin
                    or any(sl.part is not None or sl.clip is not None for sl in b.front.slots)):
                continue
            pieces = [sl.piece for sl in b.front.slots]
            low = low_sheet(len(pieces), _spec(plan, b, opts), plan.sheet)
            if low is None:
                continue
            nb = _blocks(_renumber(low, pieces), b.owner)[0]
            if height(nb, sheet) < height(b, sheet) - 1e-6:
                made.append(nb)
                stocks[id(nb.front)] = stocks[id(b.front)]
                origin[id(nb.front)] = origin[id(b.front)]
                stack[k] = nb

    def split(b: Block, room: float) -> tuple[Block, Block] | None:
        """``b``'s first rows that take at most ``room``, imposed again, and the rest."""
        k, grid_sheet = pools.get(id(b.front), (b.owner, chosen[b.owner].sheet))
        plan = chosen[k]
        if plan.grid is None or any(sl.part is not None or sl.clip is not None for sl in b.front.slots):
            return None
        pieces = [sl.piece for sl in b.front.slots]
        grid = plan_grid(_spec(plan, b, opts), grid_sheet)  # the grid it is imposed again with
        cols = (grid or plan.grid).cols  # in page space
        for n in range(((len(pieces) - 1) // cols) * cols, 0, -cols):
            head = _impose_pieces(pieces[:n], plan, grid_sheet, b, opts)
            if height(head[0], sheet) <= room + 1e-6:
                tail = _impose_pieces(pieces[n:], plan, grid_sheet, b, opts)
                made.extend((head[0], tail[0]))
                for part in (head[0], tail[0]):
                    stocks[id(part.front)] = stocks[id(b.front)]
                    pools[id(part.front)] = k, grid_sheet
                    if id(b.front) in origin:
                        origin[id(part.front)] = origin[id(b.front)]
                return head[0], tail[0]
        return None

    shared: dict[str, list[Page]] = {}  # the shared sheets, by the stocks on them; pooled sheets first
    for stock, pg in pooled:
        shared.setdefault(STOCKS[stock], []).append(pg)
    by_stock: dict[str, list[Block]] = {}
    for b in stack:
        by_stock.setdefault("mixed" if mixed else stocks[id(b.front)], []).append(b)
    runs = [gang(by_stock[key], sheet, LABEL_ROOM, split)
            for key in sorted(by_stock, key=lambda k: (k == "mixed", list(STOCKS).index(k) if k in STOCKS else 0))]
    alone = [b for _, left in runs for b in left]
    if not mixed and len(alone) > 1:  # what found no company in its stock may find it in another's
        runs.append(gang(alone, sheet, LABEL_ROOM, split))
        alone = runs[-1][1]
    for sheets, _ in runs:
        for g in sheets:
            leaving |= {id(origin[id(b.front)]) for b in g.blocks if id(b.front) in origin}
            on = tuple(k for k in STOCKS if any(stocks[id(b.front)] == k for b in g.blocks))
            title = " + ".join(dict.fromkeys(n for b in g.blocks for n in named(b.front)))
            shared.setdefault(" + ".join(STOCKS[k] for k in on), []).extend(replace(page, label=title)
                                                                                for page in g.pages)
    for b in alone:  # a pooled sheet with no company: a sheet of its own
        if id(b.front) not in origin:
            shared.setdefault(STOCKS[stocks[id(b.front)]], []).extend(
                replace(pg, label=" + ".join(named(b.front))) for pg in (b.front, b.back) if pg is not None)
    if not leaving:
        return None
    pages: list[Page] = []
    before = 0
    for i, p in enumerate(chosen):
        raw_pages = pages_for(p)
        own = furnished_pages(s, game, p) if final else raw_pages  # labels change no count
        before += sheet_numbers(own)[1]
        keep = [pg for pg, r in zip(own, raw_pages, strict=True)
                if not (id(r) in leaving or (r.side == "back" and _follows_ganged(r, raw_pages, leaving)))]
        pages += [shifted(pg, i) for pg in keep]
    for on, out in sorted(shared.items(), key=lambda kv: (" + " in kv[0], kv[0])):  # one run of sheets per stock
        text = SheetText(game.title, f"shared sheets ({on})", version)
        pages += list(furnish(out, sheet, text, s.fonts, UI_FONT)) if final else out
    after = sheet_numbers(pages)[1]
    if after >= before:
        return None
    return GangedFile(tuple(pages), (), (), GangReport(tuple(p.component.id for p in chosen), before, after), None)


def _spec(plan: ComponentPlan, b: Block, opts: BuildOptions) -> PieceSpec:
    w, h = plan.component.size
    return PieceSpec(w * MM, h * MM, has_back=b.back is not None and opts.duplex != "none")


def _impose_pieces(pieces: Sequence[int], plan: ComponentPlan, sheet: SheetOptions, b: Block,
                   opts: BuildOptions) -> list[Block]:
    """``pieces`` (numbered for the whole file) imposed as ``plan``'s pieces with ``sheet``, as blocks."""
    return _blocks(_renumber(impose(len(pieces), _spec(plan, b, opts), sheet), pieces), b.owner)


def _renumber(pages: Sequence[Page], pieces: Sequence[int]) -> tuple[Page, ...]:
    """``pages`` of pieces 0..n-1 with their numbers in ``pieces`` (numbered for the whole file)."""
    return tuple(replace(pg, slots=tuple(replace(sl, piece=pieces[sl.piece]) for sl in pg.slots)) for pg in pages)


def _pool(group: Sequence[Block], chosen: Sequence[ComponentPlan], opts: BuildOptions,
          lays: _Lays) -> tuple[tuple[Page, ...], SheetOptions] | None:
    """The pieces of ``group`` (alike components' sheets, pieces already numbered for the whole
    file) imposed together as grid sheets; None when that takes more sheets. Three ways, the one
    with fewer sheets (then the emptier last sheet) kept: one grid, abutting only along an axis
    where every piece's edges match every other's; lines of one colour class
    (``pnp.impose.gang.line_sheets``: pieces abut along one axis within a line of their class,
    gutters between lines), which fits 9 cards of several colours on a Letter sheet where the
    first way fits 6; or lines cut into segments of one class (``segment_sheets``), where a
    line has room for gutters of its own (A4, universal paper). As many sheets is kept: the
    pieces fill the first ones, and the emptier last one stacks more easily with other blocks
    (cyberiad: 6 + 4 cards make 9 + 1). The sheet options returned are those a part of a
    pooled sheet is imposed again with (no abutting for lines of classes: their order is not kept by a plain grid)."""
    plan = chosen[group[0].owner]
    pieces = [sl.piece for b in group for sl in b.front.slots]
    spec = _spec(plan, group[0], opts)
    sheet = plan.sheet
    owners = {b.owner for b in group}
    if len(owners) > 1 and (sheet.abut_lr or sheet.abut_tb):
        # pieces of several components abut only where their meeting edges match (pnp.layout.edges)
        key: tuple[object, ...] = (tuple(sorted(owners)), spec.has_back)  # judged once for every packing
        if key not in lays.matched:
            fronts = [f for o in sorted(owners) for f in chosen[o].fronts]
            try:
                lays.matched[key] = edge_match([fronts, [b for o in sorted(owners) for b in chosen[o].backs]]
                                               if spec.has_back else [fronts], sampler=lays.sampler)
            except EdgeBudgetError:
                lays.matched[key] = EdgeMatch(False, False, False)
        m = lays.matched[key]
        sheet = replace(sheet, abut_lr=sheet.abut_lr and m.lr, abut_tb=sheet.abut_tb and m.tb)
    pages = impose(len(pieces), spec, sheet)
    best = (_renumber(pages, pieces), sheet)
    # hexes in a rectangular grid are cut along their own outline, not the sides of their boxes
    # that edge classes compare (ComponentPlan's classes leave hexes out too)
    if sheet.abut and not (sheet.abut_lr and sheet.abut_tb) and plan.component.shape != "hex":
        each = [[lays.fronts[p], lays.backs[p] if spec.has_back else None] for p in pieces]
        for lr, tb in ((False, True), (True, False)):
            key = (tuple(pieces), spec.has_back, lr, tb)  # the same pool is judged in every packing
            if key not in lays.classes:
                try:
                    lays.classes[key] = edge_classes(each, lr, tb, lays.sampler)
                except EdgeBudgetError:  # the file's budget is spent: no lines of classes
                    lays.classes[key] = None
            found = lays.classes[key]
            if found is None:
                continue
            classes, alone = found
            lined = line_sheets([[pieces[i] for i in c] for c in classes], [pieces[i] for i in alone], spec,
                                replace(plan.sheet, abut_lr=lr, abut_tb=tb), lays.share)
            if lined is not None and _fill(lined, sheet) < _fill(best[0], sheet):
                best = (lined, replace(plan.sheet, abut_lr=False, abut_tb=False))
            cut = segment_sheets([[pieces[i] for i in c] for c in classes], [pieces[i] for i in alone], spec,
                                 replace(plan.sheet, abut_lr=lr, abut_tb=tb))
            if cut is not None and _fill(cut, sheet) < _fill(best[0], sheet):
                best = (cut, replace(plan.sheet, abut_lr=False, abut_tb=False))
    if sum(pg.side == "front" for pg in best[0]) > len(group):
        return None
    return best


def _fill(pages: Sequence[Page], sheet: SheetOptions) -> tuple[int, int, float]:
    """Front sheets, then pieces on the last one, then the height its pieces take: fewer sheets
    first, then the emptier and lower last sheet, which stacks more easily with other blocks."""
    fronts = [pg for pg in pages if pg.side == "front"]
    return len(fronts), len(fronts[-1].slots), round(height(Block(0, fronts[-1]), sheet), 3)


class _Lays(Struct, frozen=True):
    """Every ganged piece's layouts (numbered for the whole file) and one edge sampler for all."""

    fronts: Sequence[PieceLayout]
    backs: Sequence[PieceLayout | None]
    sampler: EdgeSampler
    share: bool = True  # short lines of several classes may share a line (line_sheets)
    # edge classes of a pool's pieces, by (pieces, backs, lr, tb), None past the budget; and whether
    # the edges of a pool's components match, by (components, backs): shared by the packings
    classes: dict[tuple[object, ...], tuple[list[list[int]], list[int]] | None] = field(default_factory=dict)
    matched: dict[tuple[object, ...], EdgeMatch] = field(default_factory=dict)


def _capacity(plan: ComponentPlan) -> int:
    """The pieces a full sheet of ``plan`` (on a grid) holds."""
    assert plan.grid is not None
    return plan.grid.cols * plan.grid.rows


def _follows_ganged(back: Page, pages: Sequence[Page], ganged: set[int]) -> bool:
    i = next(k for k, pg in enumerate(pages) if pg is back)
    return i > 0 and id(pages[i - 1]) in ganged
