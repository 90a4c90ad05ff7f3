"""The library's front door: check and build games by running the stages in order.

    load + validate + model (project.load_game) -> templates + layout (plan_component)
    -> rules (check.check_game) -> impose -> draw -> write

Everything that can fail on bad input (data, templates, fonts, images, rules) runs before the
first byte is written, so a failing build leaves no partial output.

Size: over 500 lines because one component's plan is worked out here as a whole: the templates
of each item and side, the fronts laid out lazily (``LazyPieces``: for the drawer, for the edge
sampler, their warnings in item order), the backs, the sheet and grid, and the blocks of pieces
whose edges match (``matching_edges``)."""

from __future__ import annotations

import itertools
import re
from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any, overload

from msgspec import Struct
from msgspec.structs import replace

from pnp.errors import DataError, Diagnostic, did_you_mean
from pnp.impose.grid import gutterfold, impose, one_per_page, plan_grid, print_shop
from pnp.impose.hex import impose_hex, plan_hex
from pnp.impose.sheet import Grid, Page, PieceSpec, SheetOptions
from pnp.input import kinds
from pnp.input.conditions import fields_read
from pnp.input.model import Component, Game, Item
from pnp.input.templates import Element, Template, TemplateStore
from pnp.layout.cost import floor_problem, input_files
from pnp.layout.edges import (
    EdgeBudgetError,
    EdgeSampler,
    SamplingBudgetError,
    edge_classes,
    edge_match,
    sampling_budget,
)
from pnp.layout.fields import BUILTINS, FILTERS, REPEAT_VARS, TRACK_VARS, Env, LayoutError, field_refs
from pnp.layout.piece import Context, PieceLayout, layout_piece
from pnp.plan.options import BuildOptions, sheet_for
from pnp.plan.session import Session
from pnp.units import MM


class LazyPieces(Sequence[PieceLayout]):
    """The front layouts of a component's pieces (copies expanded), made when asked for and
    forgotten soon after: a build draws page by page, so a 50,000-card deck never holds more
    than a few pages of layouts. Copies of an item return the same object while it is cached.

    ``key(i)`` names piece i's item without laying it out (the drawer counts uses with it).
    ``found`` collects each distinct warning with the ids of the items that raised it, the first
    time each item is laid out: in the order they are laid out, or with ``item_order`` in item
    order whatever order the drawer takes (a plan that sampled its pieces' edges, whose blocks
    draw classes of pieces apart, reports as when it laid every front out in item order first).
    ``for_edges(k)``: item k's front as the edge sampler sees it, without fitting its text."""

    CACHE = 64  # items kept: more than any page holds

    def __init__(self, tpl: Template | Sequence[Template], items: Sequence[Item], ctx: Context,
                 after: Callable[[PieceLayout], PieceLayout] | Sequence[Callable[[PieceLayout], PieceLayout]]
                 | None = None, item_order: bool = False):
        # one template for all items, or one per item (a component whose template names a field),
        # and so the step after layout (the ink saver)
        self._tpl, self._items, self._ctx, self._after = tpl, items, ctx, after
        self._item_of: list[int] = [i for i, item in enumerate(items) for _ in range(item.copies)]
        self._cache: OrderedDict[int, PieceLayout] = OrderedDict()
        self._done: set[int] = set()
        self._found: dict[Diagnostic, list[str]] = {}
        self.item_order = item_order
        self._warned: dict[int, tuple[Diagnostic, ...]] = {}  # with item_order: item -> its warnings
        self._edges: Context | None = None
        # told of each item's layout the first time it is made (pnp.preflight watches with it)
        self.observers: list[Callable[[PieceLayout, Item], None]] = []

    def __len__(self) -> int:
        return len(self._item_of)

    def key(self, piece: int) -> int:
        return self._item_of[piece]

    @property
    def found(self) -> dict[Diagnostic, list[str]]:
        if not self.item_order:
            return self._found
        out: dict[Diagnostic, list[str]] = {}
        for k in sorted(self._warned):
            for w in self._warned[k]:
                out.setdefault(w, []).append(self._items[k].id)
        return out

    def for_edges(self, k: int) -> PieceLayout:
        """Item k's front as ``pnp.layout.edges`` samples it: every primitive of its layout but
        the text (``Context.edges_only``), after the same step (the ink saver), on a context of its
        own (its painters, and its shapes charged to the budget's tally for the sampler); the
        same input errors as a full layout, but no warnings, and nothing kept or observed."""
        if self._edges is None:
            self._edges = replace(self._ctx, edges_only=True, painters={}, tally=self._ctx.tally.edges,
                                  counted=set(), warnings=[])
        lay = layout_piece(self._template(k), self._items[k], self._edges)
        after = self._after if self._after is None or callable(self._after) else self._after[k]
        return after(lay) if after is not None else lay

    def errors(self) -> list[Diagnostic]:
        """Lay out every item once, keeping nothing: the diagnostics of the first input error."""
        try:
            for k, item in enumerate(self._items):
                layout_piece(self._template(k), item, self._ctx)
        except DataError as exc:
            return list(exc.diagnostics)
        return []

    def _template(self, k: int) -> Template:
        return self._tpl if isinstance(self._tpl, Template) else self._tpl[k]

    def first(self) -> PieceLayout | None:
        return self[0] if self._item_of else None

    @overload
    def __getitem__(self, i: int) -> PieceLayout: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[PieceLayout]: ...
    def __getitem__(self, i: int | slice) -> PieceLayout | Sequence[PieceLayout]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        k = self._item_of[i]
        lay = self._cache.get(k)
        if lay is not None:
            self._cache.move_to_end(k)
            return lay
        item = self._items[k]
        lay = layout_piece(self._template(k), item, self._ctx)
        after = self._after if self._after is None or callable(self._after) else self._after[k]
        if after is not None:
            lay = after(lay)
        if k not in self._done:
            self._done.add(k)
            if self.item_order:
                if lay.warnings:
                    self._warned[k] = lay.warnings
            else:
                for w in lay.warnings:
                    self._found.setdefault(w, []).append(item.id)
            for fn in self.observers:
                fn(lay, item)
        self._cache[k] = lay
        if len(self._cache) > self.CACHE:
            self._cache.popitem(last=False)
        return lay


class Block(Struct, frozen=True):
    """Pieces (indexes into a plan's fronts) imposed together on sheets with these options."""

    pieces: tuple[int, ...]
    sheet: SheetOptions


class ComponentPlan(Struct, frozen=True, dict=True):
    """One component ready to draw: its piece layouts, sheet options and grid."""

    component: Component
    fronts: Sequence[PieceLayout]  # one per piece (copies share the same object); LazyPieces in builds
    backs: tuple[PieceLayout | None, ...]
    grid: Grid | None  # None: one per page or tiled
    sheet: SheetOptions
    placement: str  # "grid" | "page" (the kind's) | "print-shop" (--one-per-page)
    # Runs of pieces imposed each on sheets of their own (piece indexes, sheet options): pieces whose
    # meeting edges match in colour abut on full sheets, the rest sit apart (see ``matching_edges``).
    # Empty: every piece in order on ``sheet``'s grid.
    blocks: tuple[Block, ...] = ()

    @cached_property
    def pages(self) -> tuple[Page, ...]:
        """The imposed pages (see ``pages_for``), worked out once: the render, the preflight, the
        contents sheet and the assembly page all ask for them."""
        return _impose_plan(self)


def _honeycomb(comp: Component, sheet: SheetOptions) -> bool:
    """Hex tiles interlock with shared edges (not with gutterfold, whose halves need a grid, nor
    where their edges differ in colour)."""
    return comp.shape == "hex" and sheet.duplex != "fold" and sheet.abut and sheet.abut_hex


def _static_refs(tpl: Template, comp: Component) -> list[Diagnostic]:
    """Field references that can never resolve, even in elements no item currently draws."""
    out: list[Diagnostic] = []
    known = set(comp.fields) | set(BUILTINS)

    def check_str(el: Element, key: str, s: str, scope: set[str]) -> None:
        for name, filters in field_refs(s):
            if name not in scope:
                out.append(el.doc.diag(el.path + (key,), f"unknown field {{{name}}} (component {comp.id})",
                                       expected="one of " + ", ".join(sorted(scope)), hint=did_you_mean(name, scope)))
            for f in filters:
                if f not in FILTERS:
                    out.append(el.doc.diag(el.path + (key,), f"unknown filter |{f} in {{{name}|...}}",
                                           expected="one of " + ", ".join(sorted(FILTERS)),
                                           hint=did_you_mean(f, FILTERS)))

    def walk(el: Element, scope: set[str]) -> None:
        d = el.data
        for key in ("text", "name", "src", "fill", "stroke", "color", "fg", "bg", "accent", "count", "first", "last",
                    "fit", "rotate", "focus"):
            v = d.get(key)
            if isinstance(v, str):
                check_str(el, key, v, scope)
            elif key == "focus" and isinstance(v, list):
                for part in v:
                    if isinstance(part, str):
                        check_str(el, key, part, scope)
            elif isinstance(v, dict) and "by" in v and v["by"] not in scope:
                out.append(el.doc.diag(el.path + (key, "by"), f"unknown field {v['by']!r} (component {comp.id})",
                                       expected="one of " + ", ".join(sorted(scope)),
                                       hint=did_you_mean(v["by"], scope)))
        # Names the template chain defines, written as they are (no {field}): wrong for every item,
        # so reported here with the rest, not at the first piece that draws them.
        style = d.get("style")
        if isinstance(style, str) and style not in tpl.styles:
            out.append(el.doc.diag(el.path + ("style",), f"unknown style {style!r} (component {comp.id})",
                                   expected="one of " + ", ".join(sorted(tpl.styles)),
                                   hint=did_you_mean(style, tpl.styles)))
        icon = d.get("name")
        if d.get("type") == "icon" and isinstance(icon, str) and "{" not in icon and icon not in tpl.icons:
            out.append(el.doc.diag(el.path + ("name",), f"unknown icon {icon!r} (component {comp.id})",
                                   expected="an icon defined in the template chain (" + ", ".join(tpl.chain) + ")",
                                   hint=did_you_mean(icon, tpl.icons)))
        if "when" in d:
            for name, at in fields_read(d["when"], ("when",)):
                if name not in scope:
                    out.append(el.doc.diag(el.path + at, f"unknown field {name!r} (component {comp.id})",
                                           expected="one of " + ", ".join(sorted(scope)),
                                           hint=did_you_mean(name, scope)))
        inner = scope | set(REPEAT_VARS) if d["type"] == "repeat" else scope | set(TRACK_VARS) \
            if d["type"] == "track" else scope
        for i in range(len(d.get("elements", []))):
            walk(el.child("elements", i), inner)
        for i in range(len(d.get("otherwise", []))):
            walk(el.child("otherwise", i), scope)

    for el in tpl.elements:
        walk(el, known)
    return out


def _static(tpl: Template) -> bool:
    """True when the template draws the same thing for every item: no field references, no
    conditions, no colour maps (a deck's common back)."""

    def walk(v: Any) -> bool:
        if isinstance(v, str):
            return "{" not in v
        if isinstance(v, dict):
            return "when" not in v and "by" not in v and all(walk(x) for x in v.values())
        if isinstance(v, list):
            return all(walk(x) for x in v)
        return True

    return all(walk(el.data) for el in tpl.elements)


def _warn_suffix(w: Diagnostic, game: Game, comp: Component, ids: list[str]) -> Diagnostic:
    return replace(w, message=f"{w.message} in game {game.id}, component {comp.id}, "
                   + (f"item {ids[0]}" if len(ids) == 1 else f"{len(ids)} items: {', '.join(ids[:6])}"
                      + (", ..." if len(ids) > 6 else "")))


def front_warnings(game: Game, plan: ComponentPlan) -> list[Diagnostic]:
    """Warnings raised while a build laid out a plan's lazy fronts (after it was drawn)."""
    if not isinstance(plan.fronts, LazyPieces):
        return []
    return [_warn_suffix(w, game, plan.component, ids) for w, ids in plan.fronts.found.items()]


_TEMPLATE_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*/[a-z0-9][a-z0-9_-]*")


def side_templates(store: TemplateStore, game: Game, comp: Component,
                   side: str) -> tuple[Template | None, list[Template]]:
    """One side of a component (``side``: "template", the front, or "back"): its template (the
    first item's where items choose; None for no back, or no item to choose one) and the template
    of each item, in item order. A name with field references (``"tarot/{arcana}"``,
    ``"cards/{type|slug}"``) chooses per item; every error (an unknown field, a name that is not a
    template's, a missing template) is reported at once, naming the items."""
    name = comp.template if side == "template" else comp.back
    if name is None:
        return None, []
    manifest = game.manifest
    # its entry in the manifest, found by id (a game checked with some parts left out has fewer
    # components than entries)
    entries = manifest.data.get("components", []) if manifest is not None and isinstance(manifest.data, dict) else []
    ci = next((i for i, c in enumerate(entries) if isinstance(c, dict) and c.get("id") == comp.id),
              [c.id for c in game.components].index(comp.id))
    where = (manifest, ("components", ci, side)) if manifest is not None else None
    if "{" not in name:
        tpl = store.get(name, where)
        return tpl, [tpl] * len(comp.items)

    def diag(msg: str, expected: str, hint: str | None = None) -> Diagnostic:
        return where[0].diag(where[1], msg, expected=expected, hint=hint) if where is not None \
            else Diagnostic(comp.id, msg, expected=expected, hint=hint)

    out: list[Template] = []
    found: dict[str, Template] = {}
    problem: dict[str, str] = {}  # a chosen name that is no template -> the message about it
    bad: dict[str, list[str]] = {}  # message -> the items it applies to
    fixes: dict[str, tuple[str, str | None]] = {}  # message -> expected, hint
    for item in comp.items:
        try:
            chosen = Env(item, comp, game).sub(name)
        except LayoutError as exc:
            msg = f"{exc.message} in {side} {name!r}"
            bad.setdefault(msg, []).append(item.id)
            fixes[msg] = (exc.expected or "a field of the component", exc.hint)
            continue
        if chosen not in found and chosen not in problem:
            if not _TEMPLATE_NAME.fullmatch(chosen):
                problem[chosen] = f"{side} {name!r} gives {chosen!r}, not a template name"
                fixes[problem[chosen]] = ("GROUP/NAME in lowercase letters, digits, - and _",
                                          "give the item a value for the field")
            elif store.path_of(chosen) is None:
                problem[chosen] = f"{side} {name!r} gives template {chosen!r}, which is not found"
                fixes[problem[chosen]] = ("an existing template name", store._suggest(chosen))
            else:
                found[chosen] = store.get(chosen, where)
        if chosen in problem:
            bad.setdefault(problem[chosen], []).append(item.id)
            continue
        out.append(found[chosen])
    if bad:
        raise DataError([diag(f"{msg} (component {comp.id}, item{'s' if len(ids) > 1 else ''} "
                              f"{', '.join(ids[:6])}{', ...' if len(ids) > 6 else ''})", *fixes[msg])
                         for msg, ids in bad.items()])
    return (out[0] if out else None), out


def plan_component(s: Session, game: Game, comp: Component, opts: BuildOptions,
                   lazy: bool = False) -> tuple[ComponentPlan, list[Diagnostic]]:
    """Templates, sheet and grid of one component, and its piece layouts. With ``lazy`` the
    fronts are laid out later, while they are drawn (their warnings then come from
    ``front_warnings``); backs are always laid out here, one layout per distinct content."""
    manifest = game.manifest
    # its entry in the manifest (a check of a game with bad parts plans only the good ones)
    entries = manifest.data.get("components", []) if manifest is not None and isinstance(manifest.data, dict) else []
    ci = next((i for i, c in enumerate(entries) if isinstance(c, dict) and c.get("id") == comp.id),
              [c.id for c in game.components].index(comp.id))
    front, fronts_by_item = side_templates(s.store, game, comp, "template")
    back, backs_by_item = side_templates(s.store, game, comp, "back")
    per_item = any(t is not front for t in fronts_by_item) or any(t is not back for t in backs_by_item)
    diags: list[Diagnostic] = []
    for tpl in {id(t): t for t in (*fronts_by_item, *backs_by_item)}.values():
        if tpl.size is not None and (abs(tpl.size[0] - comp.size[0]) > 0.01 or abs(tpl.size[1] - comp.size[1]) > 0.01):
            diags.append(tpl.doc.diag(("size",), f"template {tpl.name} is drawn for "
                                      f"{tpl.size[0]:g} x {tpl.size[1]:g} mm "
                                      f"but component {comp.id} is {comp.size[0]:g} x {comp.size[1]:g} mm",
                                      expected="the component's size"))
        diags.extend(_static_refs(tpl, comp))
    if diags:
        raise DataError(diags)
    # The command's shape budget: raised by this component's files, and held, before any of its
    # pieces is laid out, to what its templates are sure to draw (pnp.layout.cost).
    s.tally.allow(input_files(game, comp, [*fronts_by_item, *backs_by_item]))
    over = floor_problem(s.tally, game, comp, fronts_by_item, backs_by_item)
    if over is not None:
        raise DataError([over])
    sheet = sheet_for(comp, opts)
    ctx = Context(s.fonts, game, comp, sheet.bleed, token_cut=opts.token_cut,
                  images=s.images.setdefault(game.id, {}), tally=s.tally)
    fronts: list[PieceLayout] = []
    backs: list[PieceLayout | None] = []
    found: dict[Diagnostic, list[str]] = {}
    static_back = back is not None and _static(back) and not per_item
    same: dict[tuple[Any, ...], PieceLayout] = {}  # distinct back contents: one object each
    saver_front, saver_back = ink_saver_sides(front, back) if opts.ink_saver and front is not None else (None, None)
    fctx = replace(ctx, light=True) if opts.ink_saver else ctx
    savers: dict[tuple[int, int], Any] = {}  # per (front, back) template pair: the ink saver's steps
    if per_item and opts.ink_saver:
        for f_tpl, b_tpl in zip(fronts_by_item, backs_by_item or [None] * len(fronts_by_item), strict=True):
            savers.setdefault((id(f_tpl), id(b_tpl)), ink_saver_sides(f_tpl, b_tpl))
    front_savers = [savers[(id(f), id(b))][0] for f, b in zip(fronts_by_item, backs_by_item or
                                                             [None] * len(fronts_by_item), strict=True)] \
        if savers else saver_front
    kind = kinds.get(comp.kind)
    placement = "print-shop" if opts.print_shop else kind.placement
    # (with no bleed a gutter would be 0 mm wide: pieces share cut lines whatever their edges, so
    # their edges are not sampled)
    sampled = placement == "grid" and kind.crop_marks and sheet.abut and sheet.bleed > 0 and bool(comp.items)
    lazy_fronts = LazyPieces(fronts_by_item if per_item or front is None else front, comp.items, fctx, front_savers,
                             item_order=sampled) if lazy else None
    for n, item in enumerate(comp.items):
        if per_item:
            front = fronts_by_item[n]
            back = backs_by_item[n] if backs_by_item else None
            if savers:
                saver_front, saver_back = savers[(id(front), id(back))]
        # Lazily, the first front is still laid out here: a template's errors show in the same
        # order as in a full layout (its front before its back), before anything is drawn.
        f = layout_piece(front, item, fctx) if not lazy else lazy_fronts.first() if n == 0 else None  # type: ignore[union-attr]
        if f is not None and saver_front is not None and not lazy:
            f = saver_front(f)
        if back is None:
            b = None
        elif static_back and same:
            b = next(iter(same.values()))
        else:
            b = layout_piece(back, item, ctx)
            if saver_back is not None:
                b = saver_back(b)
            b = same.setdefault(b.primitives, b)
        for w in (f.warnings if f and not lazy else ()) + (b.warnings if b else ()):
            found.setdefault(w, []).append(item.id)
        if f is not None and not lazy:
            fronts.extend([f] * item.copies)
        backs.extend([b] * item.copies)
    warnings = [_warn_suffix(w, game, comp, ids) for w, ids in found.items()]
    piece = PieceSpec(comp.size[0] * MM, comp.size[1] * MM, has_back=back is not None)
    if sampled:
        firsts = list(itertools.accumulate((item.copies for item in comp.items[:-1]), initial=0))
        if lazy_fronts is not None:
            # Each item's front as the sampler sees it (no text fitted), not the drawer's layout:
            # a full layout here took as long again as the drawing. The warnings and the
            # preflight still come in item order, as when every front was laid out here.
            laid = [lazy_fronts.for_edges(k) for k in range(len(firsts))]
            lazy_fronts._edges = None  # its painters' memos are not needed again
        else:
            laid = [fronts[i] for i in firsts]
        try:
            sheet, blocks = matching_edges(comp, piece, sheet, laid, backs, firsts)
        except EdgeBudgetError as e:
            if isinstance(e, SamplingBudgetError):  # shapes along the edges (attack 15, F2)
                msg = (f"component {comp.id}: its {len(comp.items)} items draw so many shapes along their edges "
                       f"that their edge colours take {e} to find which pieces may share a cut line")
                expected = ("fewer shapes reaching within 0.5 mm of the trim (one background shape under the edge), "
                            "or --bleed 0 (no shared cut lines judged)")
            else:
                msg = (f"component {comp.id}: its {len(comp.items)} items' edges, in too many different colours, "
                       f"take {e} to find which pieces may share a cut line")
                expected = ("fewer distinct edge colours (a shared border colour), or --bleed 0 (no shared cut "
                            "lines judged)")
            raise DataError([manifest.diag(("components", ci), msg, expected=expected)
                             if manifest else Diagnostic(comp.id, msg, expected=expected)]) from None
    else:
        blocks = ()
    grid = None
    if placement == "grid":
        grid = plan_hex(piece, sheet) if _honeycomb(comp, sheet) else None
        if grid is None:
            if opts.duplex == "fold" and piece.has_back and gutterfold(1, piece, sheet) is None:
                msg = (f"a {comp.size[0]:g} x {comp.size[1]:g} mm piece with a back does not fit half a "
                       f"{opts.paper} page for --duplex fold")
                raise DataError([manifest.diag(("components", ci, "size"), msg,
                                               expected="a smaller piece, or --duplex long/short")
                                 if manifest else Diagnostic(comp.id, msg)])
            grid = plan_grid(piece, blocks[0].sheet if blocks else sheet)
    front_seq: Sequence[PieceLayout] = lazy_fronts if lazy_fronts is not None else tuple(fronts)
    return ComponentPlan(comp, front_seq, tuple(backs), grid, sheet, placement, blocks), warnings


def matching_edges(comp: Component, piece: PieceSpec, sheet: SheetOptions, fronts: Sequence[PieceLayout],
                   backs: Sequence[PieceLayout | None], firsts: Sequence[int]
                   ) -> tuple[SheetOptions, tuple[Block, ...]]:
    """``sheet`` allowing shared cut lines only between edges that match in colour
    (pnp.layout.edges): a side whose pieces' meeting edges differ gets a gutter, a honeycomb of
    hexes whose edges differ becomes a grid. ``fronts`` holds each item's front (its first copy
    is piece ``firsts[k]``), ``backs`` every piece's back.

    And the blocks, when they take fewer sheets: the items fall into classes whose meeting edges
    all match; each class fills whole sheets of the abutting grid, and what is left over of every
    class shares sheets of the gutter grid (or, where that takes more sheets, ends its class on
    an abutting sheet of its own). Skipped (nothing to share) when the grid would have gutters on
    both axes anyway."""
    grid = plan_grid(piece, sheet)
    hexes = _honeycomb(comp, sheet)
    if not hexes and (grid is None or (grid.gutter_x and grid.gutter_y)):
        return sheet, ()
    back_of = [backs[i] for i in firsts] if backs else []
    sides = [fronts] + ([back_of] if sheet.duplex != "none" else [])
    sampler = EdgeSampler(sampling=sampling_budget(len(comp.items)))
    m = edge_match(sides, hexagon=hexes, sampler=sampler)
    if m.lr and m.tb and m.hexes:
        return sheet, ()
    apart = replace(sheet, abut_lr=m.lr, abut_tb=m.tb, abut_hex=m.hexes)
    spaced = plan_grid(piece, apart)
    if hexes or grid is None or spaced is None:
        return apart, ()
    lr = not (grid.gutter_y if grid.rotated else grid.gutter_x)  # the edges the abutting grid shares
    tb = not (grid.gutter_x if grid.rotated else grid.gutter_y)
    classes, alone = edge_classes([[f] + ([back_of[k]] if len(sides) > 1 else []) for k, f in enumerate(fronts)],
                                  lr, tb, sampler)
    counts = [item.copies for item in comp.items]
    cells, few = grid.cols * grid.rows, spaced.cols * spaced.rows

    def pieces(items: Sequence[int]) -> list[int]:
        return [firsts[k] + c for k in items for c in range(counts[k])]

    runs = [pieces(cls) for cls in classes]
    full = [run[: len(run) // cells * cells] for run in runs]
    rest = [run[len(full[i]):] for i, run in enumerate(runs)]
    single = pieces(alone)  # pieces that can abut nothing: on gutter sheets in any case
    left = sorted([i for r in rest for i in r] + single)
    own = sum(1 for r in rest if r) + -(-len(single) // few)  # each class's leftovers on a sheet of its own
    shared = -(-len(left) // few)  # all leftovers together on gutter sheets
    sheets = sum(len(f) // cells for f in full) + min(shared, own)
    if sheets >= -(-sum(counts) // few):
        return apart, ()
    blocks = [Block(tuple(f), sheet) for f in full if f]
    if shared <= own:
        blocks += [Block(tuple(left), apart)] if left else []
    else:
        blocks += [Block(tuple(r), sheet) for r in rest if r] + ([Block(tuple(single), apart)] if single else [])
    return apart, tuple(blocks)


def ink_saver_sides(front: Template, back: Template | None
                    ) -> tuple[Callable[[PieceLayout], PieceLayout], Callable[[PieceLayout], PieceLayout]]:
    """The ``--ink-saver`` steps after layout (see pnp.inksaver): fronts (laid out with the light
    variant's fills) lose full-bleed fills, backs become outline patterns."""
    from pnp.layout.inksaver import ink_of, light_front, outline_back

    front_ink = ink_of(front.colors)
    back_ink = ink_of(back.colors) if back is not None else front_ink
    return (lambda f: light_front(f, front_ink)), (lambda b: outline_back(b, back_ink))




def pages_for(plan: ComponentPlan) -> tuple[Page, ...]:
    """A plan's imposed pages, without sheet furniture (computed once per plan)."""
    return plan.pages


def _impose_plan(plan: ComponentPlan) -> tuple[Page, ...]:
    piece = PieceSpec(plan.component.size[0] * MM, plan.component.size[1] * MM,
                      has_back=any(b is not None for b in plan.backs) and plan.sheet.duplex != "none")
    n = len(plan.fronts)
    if plan.placement == "print-shop":
        return print_shop(n, piece, plan.sheet)
    if plan.placement == "grid" and _honeycomb(plan.component, plan.sheet):
        pages = impose_hex(n, piece, plan.sheet)
        if pages is not None:
            return pages
    if plan.placement == "page":
        return one_per_page(n, piece, plan.sheet)
    if plan.blocks:
        out: list[Page] = []
        for block in plan.blocks:
            for page in impose(len(block.pieces), piece, block.sheet):
                slots = tuple(replace(s, piece=block.pieces[s.piece]) for s in page.slots)
                out.append(replace(page, number=len(out) + 1, slots=slots))
        return tuple(out)
    return impose(n, piece, plan.sheet)

