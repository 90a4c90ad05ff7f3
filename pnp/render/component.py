"""One component's plan -> its PDF bytes: the imposed pages furnished with labels and scale marks,
drawn by ``pnp.render.draw`` with the garbage collector set for drawing."""

from __future__ import annotations

import gc as garbage_collector
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from pnp.impose.marks import SheetText, furnish
from pnp.impose.sheet import FLIP_EDGES, Page
from pnp.input.model import Game
from pnp.layout.fonts import UI_FONT
from pnp.plan.component import ComponentPlan, pages_for
from pnp.plan.digest import data_version
from pnp.plan.options import BuildOptions
from pnp.plan.session import Session
from pnp.render.draw import BackCorrection, DocInfo, render
from pnp.units import MM


def viewer_duplex(pages: Sequence[Page], duplex: str) -> str:
    """The print dialog's preselected mode for these pages: a flip edge when there are back pages."""
    return duplex if duplex in FLIP_EDGES and any(p.side == "back" for p in pages) else "simplex"


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

