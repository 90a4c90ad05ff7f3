"""One component's plan -> its PDF bytes: the imposed pages furnished with labels and scale marks,
drawn by ``pnp.render.draw``."""

from __future__ import annotations

from collections.abc import Sequence

from pnp.impose.dieline import DieLine
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


def render_component(s: Session, game: Game, plan: ComponentPlan,
                     opts: BuildOptions | None = None) -> tuple[bytes, int]:
    pages = furnished_pages(s, game, plan)
    o = opts or BuildOptions()
    info = DocInfo(title=f"{game.title} — {plan.component.title}", author=game.designer,
                   subject=f"pnp print sheet: {game.id}/{plan.component.id}", ui_font=UI_FONT,
                   duplex=viewer_duplex(pages, plan.sheet.duplex), color=o.color)
    correction = BackCorrection(o.back_offset[0] * MM, o.back_offset[1] * MM, *o.back_scale)
    comp = plan.component
    die = DieLine(comp.shape, comp.corner_radius * MM) if o.die_line else None
    data = render(pages, plan.sheet.paper, plan.fronts, plan.backs, s.fonts, info,
                  page_boxes=plan.placement in ("page", "print-shop"),
                  back_correction=None if plan.placement == "print-shop" else correction, die=die)
    return data, len(pages)

