"""The library's front door: check and build games by running the stages in order.

    load + validate + model (project.load_game) -> templates + layout (plan_component)
    -> rules (check.check_game) -> impose -> draw -> write

Everything that can fail on bad input (data, templates, fonts, images, rules) runs before the
first byte is written, so a failing build leaves no partial output."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pnp import kinds
from pnp.check import Report, check_game
from pnp.draw import BackCorrection, DocInfo, render
from pnp.errors import DataError, Diagnostic
from pnp.fonts import FontBook, FontError
from pnp.impose import (
    PAPERS,
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
from pnp.model import Component, Game
from pnp.project import DataRoot, load_game
from pnp.templates import Element, Template, TemplateStore
from pnp.write import ensure_dir, write_atomic

UI_FONT = "Lato-Regular"


@dataclass(frozen=True)
class BuildOptions:
    paper: str = "letter"
    duplex: str = "long"
    bleed_mm: float = 3.0
    strict: bool = False
    one_per_page: bool = False  # print-shop pages: each piece alone, page = trim + bleed
    back_offset: tuple[float, float] = (0.0, 0.0)  # mm, moves back pages' content (right, up)
    back_scale: tuple[float, float] = (1.0, 1.0)  # scales back pages' content about the page centre
    ink_saver: bool = False  # the low-ink variant (pnp.inksaver), written to out/<game>/ink-saver/


@dataclass(frozen=True)
class ComponentPlan:
    component: Component
    fronts: tuple[PieceLayout, ...]  # one per piece (copies share the same object)
    backs: tuple[PieceLayout | None, ...]
    grid: Grid | None  # None: one per page or tiled
    sheet: SheetOptions
    placement: str  # "grid" | "page" (the kind's) | "print-shop" (--one-per-page)


@dataclass(frozen=True)
class GameCheck:
    game: Game
    report: Report
    plans: tuple[ComponentPlan, ...]
    warnings: tuple[Diagnostic, ...]
    opts: BuildOptions = field(default_factory=BuildOptions)


@dataclass
class Session:
    """Shared state for one run: the data root, its templates and fonts."""

    root: DataRoot
    store: TemplateStore = field(init=False)
    fonts: FontBook = field(init=False)

    def __post_init__(self) -> None:
        self.store = TemplateStore(self.root)
        self.fonts = FontBook(self.root.font_dirs())


def _honeycomb(comp: Component, sheet: SheetOptions) -> bool:
    """Hex tiles interlock with shared edges (not with gutterfold, whose halves need a grid)."""
    return comp.shape == "hex" and sheet.duplex != "fold"


def sheet_options(comp: Component, opts: BuildOptions) -> SheetOptions:
    kind = kinds.get(comp.kind)
    bleed = 0.0 if not kind.bleed else (comp.bleed if comp.bleed is not None else opts.bleed_mm)
    return SheetOptions(paper=PAPERS[opts.paper], duplex=opts.duplex, bleed=bleed * MM,
                        crop_marks=kind.placement == "grid" and kind.crop_marks,
                        # Round pieces are cut along a curve: each needs its own bleed ring.
                        abut=comp.shape != "round",
                        cut_circles=comp.shape == "round" and kind.crop_marks)


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


def plan_component(s: Session, game: Game, comp: Component,
                   opts: BuildOptions) -> tuple[ComponentPlan, list[Diagnostic]]:
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
    ctx = Context(s.fonts, game, comp, sheet.bleed)
    fronts: list[PieceLayout] = []
    backs: list[PieceLayout | None] = []
    found: dict[Diagnostic, list[str]] = {}
    saver = ink_saver_sides(front, back) if opts.ink_saver else None
    fctx = replace(ctx, light=True) if saver else ctx
    for item in comp.items:
        f = layout_piece(front, item, fctx)
        b = layout_piece(back, item, ctx) if back else None
        if saver:
            f, b = saver(f, b)
        for w in f.warnings + (b.warnings if b else ()):
            found.setdefault(w, []).append(item.id)
        fronts.extend([f] * item.copies)
        backs.extend([b] * item.copies)
    warnings = [replace(w, message=f"{w.message} in game {game.id}, component {comp.id}, "
                        + (f"item {ids[0]}" if len(ids) == 1 else f"{len(ids)} items: {', '.join(ids[:6])}"
                           + (", ..." if len(ids) > 6 else "")))
                for w, ids in found.items()]
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
    return ComponentPlan(comp, tuple(fronts), tuple(backs), grid, sheet, placement), warnings


def ink_saver_sides(front: Template, back: Template | None
                    ) -> Callable[[PieceLayout, PieceLayout | None], tuple[PieceLayout, PieceLayout | None]]:
    """The ``--ink-saver`` step after layout (see pnp.inksaver): fronts (laid out with the light
    variant's fills) lose full-bleed fills, backs become outline patterns."""
    from pnp.inksaver import ink_of, light_front, outline_back

    front_ink = ink_of(front.colors)
    back_ink = ink_of(back.colors) if back is not None else front_ink

    def apply(f: PieceLayout, b: PieceLayout | None) -> tuple[PieceLayout, PieceLayout | None]:
        return light_front(f, front_ink), outline_back(b, back_ink) if b is not None else None

    return apply


def output_folder(out: Path, checked: GameCheck) -> Path:
    """out/<game>/, or out/<game>/ink-saver/ for the low-ink variant (so both can coexist)."""
    folder = out / checked.game.id
    return folder / "ink-saver" if checked.opts.ink_saver else folder


def check(root: DataRoot, gid: str, opts: BuildOptions | None = None, session: Session | None = None) -> GameCheck:
    """Load, validate, lay out every piece and run the rulebook rules. Raises DataError on bad input."""
    opts = opts or BuildOptions()
    s = session or Session(root)
    game = load_game(root, gid)
    plans = []
    warnings: list[Diagnostic] = []
    errors: list[Diagnostic] = []
    for comp in game.components:
        try:
            plan, w = plan_component(s, game, comp, opts)
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


@dataclass(frozen=True)
class Written:
    component: Component
    path: Path
    pages: int
    pieces: int
    bytes: int
    grid: Grid | None


def render_component(s: Session, game: Game, plan: ComponentPlan,
                     opts: BuildOptions | None = None) -> tuple[bytes, int]:
    pages = pages_for(plan)
    info = DocInfo(title=f"{game.title} — {plan.component.title}", author=game.designer,
                   subject=f"pnp print sheet: {game.id}/{plan.component.id}", ui_font=UI_FONT)
    o = opts or BuildOptions()
    correction = BackCorrection(o.back_offset[0] * MM, o.back_offset[1] * MM, *o.back_scale)
    data = render(pages, plan.sheet.paper, plan.fronts, plan.backs, s.fonts, info,
                  page_boxes=plan.placement in ("page", "print-shop"),
                  back_correction=None if plan.placement == "print-shop" else correction)
    return data, len(pages)


def build(root: DataRoot, checked: GameCheck, out: Path, session: Session | None = None,
          progress: Callable[[str], None] | None = None, preflight: Any = None) -> Iterator[Written]:
    """Render and write every component of an already checked game to out/<game>/<component>.pdf
    (out/<game>/ink-saver/ for the low-ink variant), then the contents sheet with the short
    preflight report (``preflight``: the game's ``pnp.preflight.GamePreflight``, made when not given)."""
    s = session or Session(root)
    folder = output_folder(out, checked)
    ensure_dir(folder)
    for plan in checked.plans:
        if progress:
            progress(plan.component.id)
        data, npages = render_component(s, checked.game, plan, checked.opts)
        path = folder / f"{plan.component.id}.pdf"
        write_atomic(path, data)
        yield Written(plan.component, path, npages, len(plan.fronts), len(data), plan.grid)
    from pnp.export import render_contents  # late: pnp.export and pnp.preflight build on this module
    from pnp.preflight import contents_line, inspect

    pre = preflight if preflight is not None else inspect(checked, s)
    write_atomic(folder / f"{checked.game.id}-contents.pdf",
                 render_contents(checked.game, checked.plans, checked.opts, fonts=s.fonts,
                                 preflight=contents_line(pre)))
