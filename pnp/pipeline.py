"""The library's front door: check and build games by running the stages in order.

    load + validate + model (project.load_game) -> templates + layout (plan_component)
    -> rules (check.check_game) -> impose -> draw -> write

Everything that can fail on bad input (data, templates, fonts, images, rules) runs before the
first byte is written, so a failing build leaves no partial output."""

from __future__ import annotations

import gc as garbage_collector
import os
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from typing import Any, overload

from msgspec import Struct, field
from msgspec.structs import replace

from pnp import kinds
from pnp.check import Report, check_game
from pnp.draw import BackCorrection, DocInfo, render
from pnp.errors import DataError, Diagnostic
from pnp.figures import summary
from pnp.fonts import FontBook, FontError
from pnp.impose import (
    PAPER_MARGINS,
    PAPERS,
    UNIVERSAL_MIN_OUTER_BLEED,
    Grid,
    Page,
    PieceSpec,
    SheetOptions,
    gutterfold,
    impose,
    impose_hex,
    one_per_page,
    plan_grid,
    plan_hex,
    print_shop,
)
from pnp.layout import (
    BUILTINS,
    FILTERS,
    MM,
    REPEAT_VARS,
    TRACK_VARS,
    Context,
    PieceLayout,
    field_refs,
    layout_piece,
)
from pnp.model import Component, Game, Item
from pnp.options import BuildOptions, output_folder
from pnp.project import DataRoot, load_game
from pnp.sheetmarks import LABEL_ROOM, SheetText, furnish
from pnp.templates import Element, Template, TemplateStore
from pnp.version import data_version
from pnp.write import ensure_dir, remove_stale_temps, write_atomic

UI_FONT = "Lato-Regular"


class LazyPieces(Sequence[PieceLayout]):
    """The front layouts of a component's pieces (copies expanded), made when asked for and
    forgotten soon after: a build draws page by page, so a 50,000-card deck never holds more
    than a few pages of layouts. Copies of an item return the same object while it is cached.

    ``key(i)`` names piece i's item without laying it out (the drawer counts uses with it).
    ``found`` collects each distinct warning with the ids of the items that raised it, in item
    order, the first time each item is laid out."""

    CACHE = 64  # items kept: more than any page holds

    def __init__(self, tpl: Template, items: Sequence[Item], ctx: Context,
                 after: Callable[[PieceLayout], PieceLayout] | None = None):
        self._tpl, self._items, self._ctx, self._after = tpl, items, ctx, after
        self._item_of: list[int] = [i for i, item in enumerate(items) for _ in range(item.copies)]
        self._cache: OrderedDict[int, PieceLayout] = OrderedDict()
        self._done: set[int] = set()
        self.found: dict[Diagnostic, list[str]] = {}
        # told of each item's layout the first time it is made (pnp.preflight watches with it)
        self.observers: list[Callable[[PieceLayout, Item], None]] = []

    def __len__(self) -> int:
        return len(self._item_of)

    def key(self, piece: int) -> int:
        return self._item_of[piece]

    def errors(self) -> list[Diagnostic]:
        """Lay out every item once, keeping nothing: the diagnostics of the first input error."""
        try:
            for item in self._items:
                layout_piece(self._tpl, item, self._ctx)
        except DataError as exc:
            return list(exc.diagnostics)
        return []

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
        lay = layout_piece(self._tpl, item, self._ctx)
        if self._after is not None:
            lay = self._after(lay)
        if k not in self._done:
            self._done.add(k)
            for w in lay.warnings:
                self.found.setdefault(w, []).append(item.id)
            for fn in self.observers:
                fn(lay, item)
        self._cache[k] = lay
        if len(self._cache) > self.CACHE:
            self._cache.popitem(last=False)
        return lay


class ComponentPlan(Struct, frozen=True, dict=True):
    """One component ready to draw: its piece layouts, sheet options and grid."""

    component: Component
    fronts: Sequence[PieceLayout]  # one per piece (copies share the same object); LazyPieces in builds
    backs: tuple[PieceLayout | None, ...]
    grid: Grid | None  # None: one per page or tiled
    sheet: SheetOptions
    placement: str  # "grid" | "page" (the kind's) | "print-shop" (--one-per-page)

    @cached_property
    def pages(self) -> tuple[Page, ...]:
        """The imposed pages (see ``pages_for``), worked out once: the render, the preflight, the
        contents sheet and the assembly page all ask for them."""
        return _impose_plan(self)


class GameCheck(Struct, frozen=True):
    """One checked game: the rules report, a plan per component and the warnings."""

    game: Game
    report: Report
    plans: tuple[ComponentPlan, ...]
    warnings: tuple[Diagnostic, ...]
    opts: BuildOptions = field(default_factory=BuildOptions)


class Session:
    """Shared state for one run: the data root, its templates and fonts."""

    def __init__(self, root: DataRoot) -> None:
        self.root = root
        self.store = TemplateStore(root)
        self.fonts = FontBook(root.font_dirs())


def _honeycomb(comp: Component, sheet: SheetOptions) -> bool:
    """Hex tiles interlock with shared edges (not with gutterfold, whose halves need a grid)."""
    return comp.shape == "hex" and sheet.duplex != "fold"


def sheet_options(comp: Component, opts: BuildOptions) -> SheetOptions:
    kind = kinds.get(comp.kind)
    bleed = 0.0 if not kind.bleed else (comp.bleed if comp.bleed is not None else opts.bleed_mm)
    # Round pieces cut as circles need each its own bleed ring; cut square (the default) their
    # square cut boxes abut like tiles and straight cuts suffice.
    circle = comp.shape == "round" and opts.token_cut == "circle"
    margin = PAPER_MARGINS.get(opts.paper)
    return SheetOptions(paper=PAPERS[opts.paper], duplex=opts.duplex, bleed=bleed * MM,
                        crop_marks=kind.placement == "grid" and kind.crop_marks,
                        abut=not circle,
                        cut_circles=circle and kind.crop_marks, label_room=LABEL_ROOM,
                        **({"margin": margin, "min_outer_bleed": UNIVERSAL_MIN_OUTER_BLEED}
                           if margin is not None else {}))


def _static_refs(tpl: Template, comp: Component) -> list[Diagnostic]:
    """Field references that can never resolve, even in elements no item currently draws."""
    out: list[Diagnostic] = []
    known = set(comp.fields) | set(BUILTINS)

    def check_str(el: Element, key: str, s: str, scope: set[str]) -> None:
        for name, filters in field_refs(s):
            if name not in scope:
                out.append(el.doc.diag(el.path + (key,), f"unknown field {{{name}}} (component {comp.id})",
                                       expected="one of " + ", ".join(sorted(scope))))
            for f in filters:
                if f not in FILTERS:
                    out.append(el.doc.diag(el.path + (key,), f"unknown filter |{f} in {{{name}|...}}",
                                           expected="one of " + ", ".join(sorted(FILTERS))))

    def check_cond(el: Element, cond: Mapping[str, Any], path: tuple[str | int, ...], scope: set[str]) -> None:
        if "field" in cond and cond["field"] not in scope:
            out.append(el.doc.diag(el.path + path + ("field",), f"unknown field {cond['field']!r} "
                                   f"(component {comp.id})", expected="one of " + ", ".join(sorted(scope))))
        for k in ("all", "any"):
            for i, c in enumerate(cond.get(k, [])):
                check_cond(el, c, path + (k, i), scope)
        if "not" in cond:
            check_cond(el, cond["not"], path + ("not",), scope)

    def walk(el: Element, scope: set[str]) -> None:
        d = el.data
        for key in ("text", "name", "src", "fill", "stroke", "color", "fg", "bg", "accent", "count", "first", "last"):
            v = d.get(key)
            if isinstance(v, str):
                check_str(el, key, v, scope)
            elif isinstance(v, dict) and "by" in v and v["by"] not in scope:
                out.append(el.doc.diag(el.path + (key, "by"), f"unknown field {v['by']!r} (component {comp.id})",
                                       expected="one of " + ", ".join(sorted(scope))))
        if "when" in d:
            check_cond(el, d["when"], ("when",), scope)
        inner = scope | set(REPEAT_VARS) if d["type"] == "repeat" else scope | set(TRACK_VARS) \
            if d["type"] == "track" else scope
        for i in range(len(d.get("elements", []))):
            walk(el.child("elements", i), inner)

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


def plan_component(s: Session, game: Game, comp: Component, opts: BuildOptions,
                   lazy: bool = False) -> tuple[ComponentPlan, list[Diagnostic]]:
    """Templates, sheet and grid of one component, and its piece layouts. With ``lazy`` the
    fronts are laid out later, while they are drawn (their warnings then come from
    ``front_warnings``); backs are always laid out here, one layout per distinct content."""
    manifest = game.manifest
    ci = [c.id for c in game.components].index(comp.id)
    front = s.store.get(comp.template, (manifest, ("components", ci, "template")) if manifest else None)
    back = s.store.get(comp.back, (manifest, ("components", ci, "back")) if manifest else None) if comp.back else None
    diags: list[Diagnostic] = []
    for tpl in (front, back):
        if tpl is None:
            continue
        if tpl.size is not None and (abs(tpl.size[0] - comp.size[0]) > 0.01 or abs(tpl.size[1] - comp.size[1]) > 0.01):
            diags.append(tpl.doc.diag(("size",), f"template {tpl.name} is drawn for "
                                      f"{tpl.size[0]:g} x {tpl.size[1]:g} mm "
                                      f"but component {comp.id} is {comp.size[0]:g} x {comp.size[1]:g} mm",
                                      expected="the component's size"))
        diags.extend(_static_refs(tpl, comp))
    if diags:
        raise DataError(diags)
    sheet = sheet_options(comp, opts)
    ctx = Context(s.fonts, game, comp, sheet.bleed, token_cut=opts.token_cut)
    fronts: list[PieceLayout] = []
    backs: list[PieceLayout | None] = []
    found: dict[Diagnostic, list[str]] = {}
    static_back = back is not None and _static(back)
    same: dict[tuple[Any, ...], PieceLayout] = {}  # distinct back contents: one object each
    saver_front, saver_back = ink_saver_sides(front, back) if opts.ink_saver else (None, None)
    fctx = replace(ctx, light=True) if opts.ink_saver else ctx
    lazy_fronts = LazyPieces(front, comp.items, fctx, saver_front) if lazy else None
    for n, item in enumerate(comp.items):
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
    kind = kinds.get(comp.kind)
    piece = PieceSpec(comp.size[0] * MM, comp.size[1] * MM, has_back=back is not None)
    placement = "print-shop" if opts.one_per_page else kind.placement
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
            grid = plan_grid(piece, sheet)
    front_seq: Sequence[PieceLayout] = lazy_fronts if lazy_fronts is not None else tuple(fronts)
    return ComponentPlan(comp, front_seq, tuple(backs), grid, sheet, placement), warnings


def ink_saver_sides(front: Template, back: Template | None
                    ) -> tuple[Callable[[PieceLayout], PieceLayout], Callable[[PieceLayout], PieceLayout]]:
    """The ``--ink-saver`` steps after layout (see pnp.inksaver): fronts (laid out with the light
    variant's fills) lose full-bleed fills, backs become outline patterns."""
    from pnp.inksaver import ink_of, light_front, outline_back

    front_ink = ink_of(front.colors)
    back_ink = ink_of(back.colors) if back is not None else front_ink
    return (lambda f: light_front(f, front_ink)), (lambda b: outline_back(b, back_ink))


def layout_errors(gc: GameCheck) -> list[Diagnostic]:
    """Lay out every front a build would lay out while drawing (each item once, nothing kept) and
    return the input errors found, the first per component as ``check`` with layout finds them.
    A build whose rules fail never draws, so it asks this first: input errors come before rule
    violations, as in ``pnp check``."""
    return [d for plan in gc.plans if isinstance(plan.fronts, LazyPieces) for d in plan.fronts.errors()]


def check(root: DataRoot, gid: str, opts: BuildOptions | None = None, session: Session | None = None,
          layout: bool = True) -> GameCheck:
    """Load, validate, lay out every piece and run the rulebook rules. Raises DataError on bad input.

    ``layout=False`` (what a build uses) leaves the fronts to be laid out while they are drawn:
    their errors and warnings then come from ``render_game``."""
    opts = opts or BuildOptions()
    s = session or Session(root)
    game = load_game(root, gid)
    plans = []
    warnings: list[Diagnostic] = []
    errors: list[Diagnostic] = []
    for comp in game.components:
        try:
            plan, w = plan_component(s, game, comp, opts, lazy=not layout)
        except DataError as exc:
            errors.extend(exc.diagnostics)
            continue
        plans.append(plan)
        warnings.extend(w)
    try:
        s.fonts.ensure(UI_FONT)  # every sheet's labels use it: a broken fonts/ override fails here, not in draw
    except FontError as exc:
        where = s.fonts.files.get(UI_FONT)
        errors.append(Diagnostic(root.display(where) if where else UI_FONT, f"{exc} (pnp labels sheets with it)",
                                 expected=exc.expected, hint=exc.hint))
    if errors:
        raise DataError(errors)
    report = check_game(game)
    return GameCheck(game, report, tuple(plans), tuple(warnings), opts)


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
    return impose(n, piece, plan.sheet)


class Written(Struct, frozen=True):
    """One component PDF written by ``build`` (what the library API yields per file)."""

    component: Component
    path: Path
    pages: int
    pieces: int
    bytes: int
    grid: Grid | None


def viewer_duplex(pages: Sequence[Page], duplex: str) -> str:
    """The print dialog's preselected mode for these pages: a flip edge when there are back pages."""
    return duplex if duplex in ("long", "short") and any(p.side == "back" for p in pages) else "simplex"


def furnished_pages(s: Session, game: Game, plan: ComponentPlan) -> tuple[Page, ...]:
    """The component's pages, each (but print-shop pages) labelled and given scale marks."""
    pages = pages_for(plan)
    if plan.placement == "print-shop":
        return pages
    text = SheetText(game.title, plan.component.title, data_version(s.root, s.store, game, plan.component))
    return furnish(pages, plan.sheet, text, s.fonts, UI_FONT)


DRAWING_GC_THRESHOLD = 20_000  # allocations between two young-generation collections while drawing


@contextmanager
def _collector_for_drawing() -> Iterator[None]:
    """The garbage collector set for drawing a component. Everything alive when the drawing
    starts (the game's data and model, its templates) outlives it: frozen (``gc.freeze``), it
    is not walked again by every full collection. The drawing makes and drops millions of
    small objects that reference counting frees (layouts, primitives and PDF operators make no
    cycles): the young generation is collected every 20,000 allocations instead of 700. Both
    are undone afterwards; left as they are when objects are frozen already (a caller's own
    setting)."""
    if garbage_collector.get_freeze_count():
        yield
        return
    thresholds = garbage_collector.get_threshold()
    garbage_collector.freeze()
    garbage_collector.set_threshold(max(thresholds[0], DRAWING_GC_THRESHOLD), *thresholds[1:])
    try:
        yield
    finally:
        garbage_collector.set_threshold(*thresholds)
        garbage_collector.unfreeze()


def render_component(s: Session, game: Game, plan: ComponentPlan,
                     opts: BuildOptions | None = None) -> tuple[bytes, int]:
    with _collector_for_drawing():
        return _render_component(s, game, plan, opts)


def _render_component(s: Session, game: Game, plan: ComponentPlan,
                      opts: BuildOptions | None = None) -> tuple[bytes, int]:
    pages = furnished_pages(s, game, plan)
    info = DocInfo(title=f"{game.title} — {plan.component.title}", author=game.designer,
                   subject=f"pnp print sheet: {game.id}/{plan.component.id}", ui_font=UI_FONT,
                   duplex=viewer_duplex(pages, plan.sheet.duplex))
    o = opts or BuildOptions()
    correction = BackCorrection(o.back_offset[0] * MM, o.back_offset[1] * MM, *o.back_scale)
    data = render(pages, plan.sheet.paper, plan.fronts, plan.backs, s.fonts, info,
                  page_boxes=plan.placement in ("page", "print-shop"),
                  back_correction=None if plan.placement == "print-shop" else correction)
    return data, len(pages)


class RenderedFile(Struct, frozen=True):
    """One PDF of a build, rendered but not yet written (``data`` None: unchanged, not rendered)."""

    plan: ComponentPlan
    path: Path
    data: bytes | None
    pages: int
    warnings: tuple[Diagnostic, ...] = ()
    preflight: Any = None  # pnp.figures.ComponentPreflight: rendered now, or recorded by the last build


class RenderedGame(Struct, frozen=True):
    """One game's PDFs and contents sheet, rendered in memory and not yet written."""

    checked: GameCheck
    folder: Path
    files: tuple[RenderedFile, ...]
    contents: bytes  # the contents sheet, out/<game>/<game>-contents.pdf

    @property
    def warnings(self) -> list[Diagnostic]:
        return [w for f in self.files for w in f.warnings]

    @property
    def contents_path(self) -> Path:
        return self.folder / f"{self.checked.game.id}-contents.pdf"


# Rendering in worker processes: the parent's checked games are inherited through fork, so a
# task is only a pair of indices and a result only bytes, a page count and diagnostics.
_TASKS: tuple[Session, list[tuple[GameCheck, ComponentPlan]]] | None = None


def _render_task(i: int) -> tuple[int, bytes | None, int, list[Diagnostic], Any]:
    from pnp.preflight import Collector  # late: pnp.preflight builds on this module

    assert _TASKS is not None
    s, tasks = _TASKS
    gc, plan = tasks[i]
    preflight = Collector(s, gc, plan)  # watches the pieces as they are drawn: no extra layout
    try:
        data, npages = render_component(s, gc.game, plan, gc.opts)
    except DataError as exc:
        return i, None, 0, list(exc.diagnostics), None
    figures, found = preflight.finish(data)
    return i, data, npages, front_warnings(gc.game, plan) + found, figures


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def render_games(root: DataRoot, checked: Sequence[GameCheck], out: Path, session: Session | None = None,
                 jobs: int = 1, reuse: Callable[[GameCheck, ComponentPlan], bool] | None = None,
                 progress: Callable[[str], None] | None = None,
                 reused_figures: Callable[[GameCheck, ComponentPlan], Any] | None = None) -> list[RenderedGame]:
    """Render every component of already checked games, in memory: nothing is written (see
    ``commit``). Components for which ``reuse`` says yes are not rendered (their PDF on disk is
    current; ``reused_figures`` gives their recorded preflight figures). With ``jobs`` > 1
    components render in that many worker processes; the bytes are the same either way. The
    contents sheet carries the preflight summary when every component's figures are known.
    Raises DataError with every component's layout errors."""
    global _TASKS
    s = session or Session(root)
    tasks = [(gc, plan) for gc in checked for plan in gc.plans if not (reuse and reuse(gc, plan))]
    results: dict[int, tuple[bytes | None, int, list[Diagnostic], Any]] = {}
    if jobs > 1 and len(tasks) > 1 and hasattr(os, "fork"):
        import multiprocessing as mp  # only when there is something to share out

        # Biggest first, so the last worker is not left with the longest component.
        order = sorted(range(len(tasks)), key=lambda i: -len(tasks[i][1].fronts))
        _TASKS = (s, tasks)
        try:
            with mp.get_context("fork").Pool(min(jobs, len(tasks))) as pool:
                for i, data, npages, diags, figures in pool.imap_unordered(_render_task, order):
                    if progress:
                        progress(tasks[i][1].component.id)
                    results[i] = (data, npages, diags, figures)
        finally:
            _TASKS = None
    else:
        _TASKS = (s, tasks)
        try:
            for i in range(len(tasks)):
                if progress:
                    progress(tasks[i][1].component.id)
                _, data, npages, diags, figures = _render_task(i)
                results[i] = (data, npages, diags, figures)
        finally:
            _TASKS = None
    errors = [d for i in range(len(tasks)) if results[i][0] is None for d in results[i][2]]
    if errors:
        raise DataError(errors)
    done = {(id(gc), plan.component.id): results[i] for i, (gc, plan) in enumerate(tasks)}
    from pnp.export import render_contents  # late: pnp.export builds on this module

    games = []
    for gc in checked:
        folder = output_folder(out, gc.game.id, gc.opts)
        files = []
        pages: dict[str, int] = {}
        for plan in gc.plans:
            path = folder / f"{plan.component.id}.pdf"
            r = done.get((id(gc), plan.component.id))
            if r is None:
                figures = reused_figures(gc, plan) if reused_figures else None
                files.append(RenderedFile(plan, path, None, len(pages_for(plan)), (), figures))
            else:
                files.append(RenderedFile(plan, path, r[0], r[1], tuple(r[2]), r[3]))
            pages[plan.component.id] = files[-1].pages
        known = [f.preflight for f in files]
        line = summary(known) if known and all(f is not None for f in known) else None  # type: ignore[arg-type]
        contents = render_contents(gc.game, gc.plans, gc.opts, fonts=s.fonts, pages_per_component=pages,
                                   session=s, preflight=line)
        games.append(RenderedGame(gc, folder, tuple(files), contents))
    return games


def same_bytes(path: Path, data: bytes) -> bool:
    """The file at ``path`` holds exactly ``data`` (a missing or unreadable file does not)."""
    try:
        return path.stat().st_size == len(data) and path.read_bytes() == data
    except OSError:
        return False


def commit(games: Sequence[RenderedGame], before_writing: Callable[[RenderedGame], None] | None = None) -> list[Path]:
    """Write rendered games (each file atomically; a file whose bytes are already on disk is
    left alone). ``before_writing(game)`` runs once before a game's first file is written (not
    at all when none is). Returns the paths written."""
    from pnp.cache import CACHE_NAME

    written: list[Path] = []
    for g in games:
        ensure_dir(g.folder)
        files = [(f.path, f.data) for f in g.files] + [(g.contents_path, g.contents)]
        # what a killed build left half-written into this folder goes now
        remove_stale_temps(g.folder, [path.name for path, _ in files] + [CACHE_NAME])
        first = True
        for path, data in files:
            if data is not None and not same_bytes(path, data):
                if first and before_writing is not None:
                    before_writing(g)
                first = False
                write_atomic(path, data)
                written.append(path)
    return written


def build(root: DataRoot, checked: GameCheck, out: Path, session: Session | None = None,
          progress: Callable[[str], None] | None = None, jobs: int = 1) -> Iterator[Written]:
    """Render every component of an already checked game, then write them all to
    out/<game>/<component>.pdf with the contents sheet (all or nothing on bad input)."""
    (game,) = render_games(root, [checked], out, session, jobs=jobs, progress=progress)
    commit([game])
    for f in game.files:
        size = len(f.data) if f.data is not None else f.path.stat().st_size
        yield Written(f.plan.component, f.path, f.pages, len(f.plan.fronts), size, f.plan.grid)
