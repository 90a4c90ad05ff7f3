"""A PNG of one item (front and back side by side), or a contact sheet of a component, for a
designer iterating on data."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

from pnp.impose.sheet import Paper
from pnp.input.model import Component, Item
from pnp.layout.fonts import UI_BOLD, UI_FONT
from pnp.layout.piece import PieceLayout
from pnp.layout.primitives import Paint, Primitive, Rect
from pnp.layout.primitives import Path as PathPrim
from pnp.layout.text import Style, TextLayout
from pnp.plan.session import Session
from pnp.products.images import (
    BAND_PIXELS,
    _info,
    _pdf,
    banded_png,
    check_pixels,
    compose,
    costly,
    distinct,
    png_bytes,
    px,
    raster,
    select_item,
    select_plans,
)
from pnp.products.workers import isolated
from pnp.qa.check import GameCheck
from pnp.render.pixels import art_work, check_held, check_total
from pnp.render.write import check_real_folders, write_atomic
from pnp.units import MM

if TYPE_CHECKING:  # PDFium and Pillow load only for exports: a build's contents sheet needs neither
    pass


# Preview layout, mm
PREVIEW_MARGIN = 8.0
PREVIEW_GAP = 6.0
PREVIEW_CAPTION = 5.0
PREVIEW_TITLE = 9.0
PREVIEW_BG = "#e8e5de"
MASK_OVERLAP = 2.0  # pt the mask of a round piece reaches past its trim (no seam at the edge)


# --------------------------------------------------------------------------- preview


def _caption(tl: TextLayout, text: str, x: float, y: float, w: float, h: float, size: float = 7.0,
             font: str = UI_FONT, color: str = "#3b3731", valign: str = "top") -> list[Primitive]:
    prims, _ = tl.fit(text, Style(font, size=size, color=color, align="center", valign=valign),
                      (x, y, w, h), markup=False, wrap=False, min_size=3.5)
    return prims


def preview(session: Session, gc: GameCheck, out: Path, component: str, item: str | None = None,
            dpi: float = 150, max_pixels: int | None = None) -> Path:
    """``out/preview/<game>/<component>/<item>.png``: one item's front and back side by side, or
    without ``item`` a contact sheet of every distinct item (and each distinct back), ``.../<component>.png``;
    at the trim. ``max_pixels``: the picture's pixel budget (``pnp.render.pixels.check_total``)."""
    plan = select_plans(gc, component)[0]
    comp, game, fonts = plan.component, gc.game, session.fonts
    pw, ph = comp.size[0] * MM, comp.size[1] * MM
    m, g, cap, top = (v * MM for v in (PREVIEW_MARGIN, PREVIEW_GAP, PREVIEW_CAPTION, PREVIEW_TITLE))
    cells: list[tuple[PieceLayout, str]] = []
    owners: list[Item] = []  # the item each cell is drawn for (the first of a shared back's)
    if item is not None:
        d = select_item(plan, item)
        cells.append((d.front, "front"))
        if d.back is not None:
            cells.append((d.back, "back"))
        owners = [d.item] * len(cells)
        cols = len(cells)
        title = f"{game.title} — {comp.title} — {d.item.id}" + (f" (x{d.item.copies})" if d.item.copies > 1 else "")
    else:
        ds = distinct(plan)
        cells = [(d.front, d.item.id + (f"  x{d.item.copies}" if d.item.copies > 1 else "")) for d in ds]
        owners = [d.item for d in ds]
        firsts: dict[str, Item] = {d.item.id: d.item for d in ds}
        users: dict[tuple[Primitive, ...], tuple[PieceLayout, list[str]]] = {}  # by what the back draws
        for d in ds:
            if d.back is not None:
                users.setdefault(d.back.primitives, (d.back, []))[1].append(d.item.id)
        for b, ids in users.values():
            more = f" +{len(ids) - 1}" if len(ids) > 1 else ""
            cells.append((b, "back" if len(users) == 1 else f"back of {ids[0]}{more}"))
            owners.append(firsts[ids[0]])
        cols = _contact_cols(len(cells), pw + g, ph + cap + g)
        title = f"{game.title} — {comp.title}: {comp.pieces} pieces, {len(ds)} distinct"
    # one folder a game, and an item's picture in its component's folder: `deck scout` and the
    # contact sheet of a component `deck-scout` are two files (ids hold hyphens)
    path = out / "preview" / game.id / (f"{comp.id}/{item}.png" if item else f"{comp.id}.png")
    check_real_folders(out, [path.parent])  # no link on the way: before the picture is drawn
    rows = math.ceil(len(cells) / cols)
    width = 2 * m + cols * pw + (cols - 1) * g
    height = 2 * m + top + rows * (ph + cap) + (rows - 1) * g
    tl = TextLayout(fonts)
    overlay: list[Primitive] = [Rect(0, 0, width, height, Paint(fill=PREVIEW_BG))]
    overlay += _caption(tl, title, m, height - m - top + 2 * MM, width - 2 * m, top - 2 * MM, size=10,
                        font=UI_BOLD, valign="bottom")
    mask = _outside(comp, pw, ph)
    placed: list[tuple[PieceLayout, float, float] | tuple[PieceLayout, float, float, float]] = []
    for k, (lay, label) in enumerate(cells):
        c, r = k % cols, k // cols
        x = m + c * (pw + g)
        y = height - m - top - (r + 1) * (ph + cap) - r * g + cap
        placed.append((lay, x, y))
        if mask is not None:
            placed.append((mask, x, y, MASK_OVERLAP))
        overlay += _caption(tl, label, x - g / 2, y - cap, pw + g, cap - 1.2 * MM)
    page = PieceLayout(width, height, 0.0, tuple(overlay))
    data = compose(Paper("preview", width, height), [(page, 0.0, 0.0), *placed], fonts,
                   _info(game, comp.title, f"pnp preview: {game.id}/{comp.id}"))
    size = (px(width / MM, dpi), px(height / MM, dpi))
    check_pixels(size, f"{game.id}/{comp.id}")
    art = art_work(lay for lay, _ in cells)  # the files and SVG art each cell draws
    check_total(game.id, "pnp preview", 1, size[0] * size[1], dpi, lambda d: px(width / MM, d) * px(height / MM, d),
                None, art, max_pixels)
    check_held(game, owners, "pnp preview", f"the preview of component {comp.id}"
               + (f", item {item!r}" if item else ""), [lay for lay, _ in cells])

    def picture() -> bytes:  # costly: in a worker (isolated), which Ctrl-C ends at once
        with _pdf(data) as doc:
            # a big board at a high --dpi: rendered in bands, memory bounded
            return (banded_png(doc, 0, size, dpi) if size[0] * size[1] > BAND_PIXELS
                    else png_bytes(raster(doc, 0, size), dpi))

    write_atomic(path, isolated(picture) if costly(size[0] * size[1], art, dpi) else picture())
    return path


def _outside(comp: Component, w: float, h: float) -> PieceLayout | None:
    """For round pieces, the background colour outside the cut circle, so a preview shows the
    piece as cut (the square corners are bleed art). The circle winds against the square, so the
    hole is a hole under either fill rule."""
    if comp.shape != "round":
        return None
    k = 0.5523 * w / 2, 0.5523 * h / 2
    cx, cy, rx, ry = w / 2, h / 2, w / 2, h / 2
    e = MASK_OVERLAP
    ops = (("M", (-e, -e)), ("L", (w + e, -e)), ("L", (w + e, h + e)), ("L", (-e, h + e)), ("Z", ()),
           ("M", (cx + rx, cy)),
           ("C", (cx + rx, cy - k[1], cx + k[0], cy - ry, cx, cy - ry)),
           ("C", (cx - k[0], cy - ry, cx - rx, cy - k[1], cx - rx, cy)),
           ("C", (cx - rx, cy + k[1], cx - k[0], cy + ry, cx, cy + ry)),
           ("C", (cx + k[0], cy + ry, cx + rx, cy + k[1], cx + rx, cy)), ("Z", ()))
    return PieceLayout(w, h, e, (PathPrim(ops, Paint(fill=PREVIEW_BG, fill_rule="evenodd")),))


def _contact_cols(n: int, cell_w: float, cell_h: float, aspect: float = 1.5) -> int:
    """Columns that make the sheet's shape closest to ``aspect`` (landscape)."""
    return min(range(1, n + 1), key=lambda c: abs(math.log((c * cell_w) / (math.ceil(n / c) * cell_h) / aspect)))

