"""****pnp calibrate****: a two-page duplex calibration sheet.

The front carries mm rulers; the back carries thin lines placed so that, on a perfect printer,
they land exactly on each ruler's 0 when the sheet is held to the light. A printer that shifts
its back side moves the lines; the ruler labels are signed so that the number read off is the
****--back-offset**** that cancels the shift. Two rulers far apart on each axis also reveal a
printer that scales its back side (****--back-scale****).

Coordinates: PDF points, origin bottom-left; ****mirror**** maps a front position to the back
page position that lies behind it for the flip edge."""

from __future__ import annotations

from collections.abc import Callable

from msgspec import Struct

from pnp.impose.sheet import FLIP_EDGES, Edges, Page, Paper, Slot
from pnp.layout.fields import MINUS
from pnp.layout.fonts import UI_BOLD, UI_FONT, FontBook
from pnp.layout.piece import PieceLayout
from pnp.layout.primitives import INK, Line, Paint, Primitive, Text
from pnp.layout.text import Style, TextLayout
from pnp.render.draw import BackCorrection, DocInfo, render
from pnp.units import MM

RULER_HALF = 10.0  # mm each side of 0
DX_RISE = 20.0  # the DX rulers sit this far above the page centre, mm
DY_SHIFT = 20.0  # the DY rulers sit this far right of the page centre, mm
SPREAD_X = 75.0  # the left/right DX rulers sit this far from the centre, mm
SPREAD_Y = 95.0  # the top/bottom DY rulers
REACH = 16.0  # half length of a back line, mm: it still crosses its ruler after a 15 mm shift


class Ruler(Struct, frozen=True):
    """One vernier ruler of the calibration sheet, read where front and back meet."""

    name: str  # "DX", "DX left", ...
    axis: str  # "x": a horizontal ruler read along x; "y": vertical
    cx: float  # centre, pt
    cy: float


def signs(duplex: str) -> tuple[int, int]:
    """Label sign per axis so that reading = correction. Seen through the paper a long-edge
    flip mirrors x: a back shifted right by e appears shifted left by e at the front, and the
    cure is to shift it by -e; y is not mirrored. A short-edge flip is the other way round."""
    return (1, -1) if duplex == "long" else (-1, 1)


def rulers(paper: Paper) -> list[Ruler]:
    cx, cy = paper.width / 2, paper.height / 2
    return [
        Ruler("DX", "x", cx, cy + DX_RISE * MM),
        Ruler("DX left", "x", cx - SPREAD_X * MM, cy + DX_RISE * MM),
        Ruler("DX right", "x", cx + SPREAD_X * MM, cy + DX_RISE * MM),
        Ruler("DY", "y", cx + DY_SHIFT * MM, cy),
        Ruler("DY top", "y", cx + DY_SHIFT * MM, cy + SPREAD_Y * MM),
        Ruler("DY bottom", "y", cx + DY_SHIFT * MM, cy - SPREAD_Y * MM),
    ]


def mirror(paper: Paper, duplex: str) -> Callable[[float, float], tuple[float, float]]:
    if duplex == "long":
        return lambda x, y: (paper.width - x, y)
    return lambda x, y: (x, paper.height - y)


def label(value_mm: float) -> str:
    if value_mm == 0:
        return "0"
    return f"+{value_mm:g}" if value_mm > 0 else f"{MINUS}{-value_mm:g}"


def _text(fonts: FontBook, x: float, y: float, s: str, size: float, font: str = UI_FONT, align: str = "left") -> Text:
    w = fonts.width(s, font, size)
    dx = {"left": 0.0, "center": -w / 2, "right": -w}[align]
    return Text(x + dx, y, s, font, size, INK)


def _ruler(r: Ruler, sign: int, fonts: FontBook) -> list[Primitive]:
    thin = Paint(stroke=INK, stroke_width=0.25)
    out: list[Primitive] = []
    half = RULER_HALF * MM
    if r.axis == "x":
        out.append(Line(r.cx - half, r.cy, r.cx + half, r.cy, thin))
    else:
        out.append(Line(r.cx, r.cy - half, r.cx, r.cy + half, thin))
    for i in range(-int(RULER_HALF * 2), int(RULER_HALF * 2) + 1):
        o = i / 2  # mm
        length = 5.0 if o % 5 == 0 else 3.0 if o == int(o) else 1.6
        p = o * MM
        if r.axis == "x":
            out.append(Line(r.cx + p, r.cy, r.cx + p, r.cy + length * MM, thin))
            if o % 5 == 0:
                out.append(_text(fonts, r.cx + p, r.cy + 6 * MM, label(sign * o), 6, align="center"))
        else:
            out.append(Line(r.cx, r.cy + p, r.cx + length * MM, r.cy + p, thin))
            if o % 5 == 0:
                out.append(_text(fonts, r.cx + 6 * MM, r.cy + p - fonts.cap_height(UI_FONT, 6) / 2, label(sign * o), 6))
    if r.axis == "x":
        out.append(_text(fonts, r.cx, r.cy - 4 * MM, r.name, 7, UI_BOLD, "center"))
    else:
        out.append(_text(fonts, r.cx - 2 * MM, r.cy - 2.5, r.name, 7, UI_BOLD, "right"))
    return out


def front_layout(paper: Paper, duplex: str, fonts: FontBook) -> PieceLayout:
    sx, sy = signs(duplex)
    prims: list[Primitive] = []
    for r in rulers(paper):
        prims += _ruler(r, sx if r.axis == "x" else sy, fonts)
    w, h = paper.width, paper.height
    edge = "long" if duplex == "long" else "short"
    spread_x, spread_y = 2 * SPREAD_X, 2 * SPREAD_Y
    ax, bx = ("right", "left") if duplex == "long" else ("left", "right")
    ay, by = ("bottom", "top") if duplex == "long" else ("top", "bottom")
    prims.append(_text(fonts, 15 * MM, h - 18 * MM, f"pnp duplex calibration — {paper.name.title()}, "
                       f"flip on the {edge} edge", 14, UI_BOLD))
    steps = (
        f"**1.** Print both pages double-sided, flipping on the **{edge} edge**, at **100 %** (actual size, "
        "no fit-to-page). The bar below must measure 100 mm.\n"
        "**2.** Hold the sheet against a bright light: the thin lines printed on the back show through.\n"
        "**3.** Where the back's line crosses the **DX** ruler, read DX; on the **DY** ruler, read DY "
        "(numbers every 5 mm, long ticks every 1 mm, short ones every 0.5 mm).\n"
        f"**4.** Build with **--back-offset DX,DY**, or keep it in a printer profile (**pnp.toml**): "
        "**[printers.NAME]** **back_offset = [DX, DY]**, then **--printer NAME**.\n"
        f"**5.** If DX left and DX right differ, the printer scales the back: back scale X = "
        f"1 / (1 + (DX {ax} {MINUS} DX {bx}) / {spread_x:g}); likewise Y = 1 / (1 + (DY {ay} {MINUS} DY {by}) / "
        f"{spread_y:g}). Use **--back-scale X,Y**.\n"
        "**6.** Print again with the correction: every line should sit on 0."
    )
    tl = TextLayout(fonts)
    body = Style(font=UI_FONT, size=8.5, leading=1.3, color=INK, paragraph_space=0.2)
    box = (15 * MM, h / 2 + 38 * MM, w / 2 - 22 * MM, 70 * MM)
    text, _ = tl.fit(steps, body, box, markup=True, min_size=7)
    prims += text
    # A 100 mm bar: the print must be at actual size.
    bar_y = h / 2 - 60 * MM
    x0 = w / 2 - 50 * MM
    prims.append(Line(x0, bar_y, x0 + 100 * MM, bar_y, Paint(stroke=INK, stroke_width=0.5)))
    for i in range(11):
        prims.append(Line(x0 + i * 10 * MM, bar_y, x0 + i * 10 * MM, bar_y + (3 if i % 5 else 5) * MM,
                          Paint(stroke=INK, stroke_width=0.25)))
    prims.append(_text(fonts, w / 2, bar_y - 4 * MM, "100 mm", 7, UI_BOLD, "center"))
    return PieceLayout(w, h, 0.0, tuple(prims))


def back_layout(paper: Paper, duplex: str, fonts: FontBook, note: str = "") -> PieceLayout:
    """Lines that land on every ruler's 0 when the sheet is held to the light."""
    m = mirror(paper, duplex)
    line = Paint(stroke=INK, stroke_width=0.5)
    prims: list[Primitive] = []
    reach = REACH * MM
    for r in rulers(paper):
        if r.axis == "x":  # a vertical line through the ruler's 0
            (x1, y1), (x2, y2) = m(r.cx, r.cy - reach), m(r.cx, r.cy + reach)
        else:
            (x1, y1), (x2, y2) = m(r.cx - reach, r.cy), m(r.cx + reach, r.cy)
        prims.append(Line(x1, y1, x2, y2, line))
    w, h = paper.width, paper.height
    prims.append(_text(fonts, w / 2, 20 * MM, "BACK of the pnp calibration sheet — hold it to the light "
                       "and read the front", 9, UI_BOLD, "center"))
    if note:
        prims.append(_text(fonts, w / 2, 14 * MM, note, 8, UI_FONT, "center"))
    return PieceLayout(w, h, 0.0, tuple(prims))


def calibration_pdf(paper: Paper, duplex: str, fonts: FontBook,
                    correction: BackCorrection | None = None) -> bytes:
    if duplex not in FLIP_EDGES:
        raise ValueError("calibration needs a duplex flip edge: long or short")
    note = ""
    if correction is not None and not correction.identity:
        note = (f"printed with back offset {correction.dx / MM:g},{correction.dy / MM:g} mm and scale "
                f"{correction.sx:g},{correction.sy:g}: every line should now sit on 0")
    front = front_layout(paper, duplex, fonts)
    back = back_layout(paper, duplex, fonts, note)
    full = Edges(0, 0, 0, 0)
    pages = (Page(1, "front", (Slot(0, "front", 0, 0, paper.width, paper.height, full),), ()),
             Page(2, "back", (Slot(0, "back", 0, 0, paper.width, paper.height, full),), ()))
    info = DocInfo(title=f"pnp duplex calibration ({paper.name}, {duplex} edge)", author="pnp",
                   subject="Hold to the light and read the back offset", ui_font=UI_FONT)
    return render(pages, paper, [front], [back], fonts, info, back_correction=correction)

