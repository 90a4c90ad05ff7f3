"""Sheets that explain themselves: labels and scale marks placed outside every piece.

A pure stage between impose and draw (font metrics only, like layout). For every imposed page
:func:`furnish` adds :class:`pnp.impose.sheet.Furniture`:

* a **label**: game · component · front/back · sheet i of n · (the tile part or gutterfold note)
  · data version. It is set in the largest size from ``LABEL_SIZES`` that fits, in one piece or
  split into two or three, horizontally (preferred, nearest the bottom centre) or reading upwards
  in a side margin; where it fits nowhere whole, with the titles cut shorter (``LABEL_CUTS``);
* **scale marks**: a 1 in and a 1 cm square with "print at 100 % / actual size", where they fit;
  where the 1 in square does not fit (a full sheet of poker cards leaves margins of 5 to 13 mm),
  a scale bar 1 in long whose first centimetre is filled, horizontal and/or vertical.

Everything is kept ``margin`` inside the page edge (the sheet options' margin: 4 mm on Letter and
A4, 5 mm on universal paper) and clear of every piece's bleed box, every cut line, every fold
line and alignment mark, and of each other: no cut ever runs through a label and no label sits
on a piece. The search is a sweep over the few distinct heights at which obstacles start and
end; for each, the free horizontal intervals are the gaps between the obstacles crossing that
band. A vertical item is the same search on the page turned a quarter. A box longer than every
free stretch of its thickness (``free_length``) is turned away without a search: a sheet full of
small pieces has room for no label, and would otherwise search in full for every size and split."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from msgspec import Struct
from msgspec.structs import replace

from pnp.impose.sheet import Furniture, Page, SheetOptions
from pnp.layout.fonts import FontBook
from pnp.layout.primitives import Paint, Primitive, Rect, Text
from pnp.units import INCH, MM

Box = tuple[float, float, float, float]  # x0, y0, x1, y1 (pt)

LABEL_SIZES = (6.5, 6.0, 5.5, 5.0, 4.5)  # pt, largest first
LABEL_CUTS = (60, 40, 24, 16, 10)  # characters the titles are cut to, in turn, where a label fits nowhere whole
LABEL_COLOR = "#404040"
MARK_COLOR = "#000000"
CM = 10 * MM
PIECE_CLEARANCE = 0.3 * MM  # from a piece's bleed box
CUT_CLEARANCE = 0.5 * MM  # from a cut line, a fold line or an alignment mark
ITEM_CLEARANCE = 1.0 * MM  # between two labels or marks
LABEL_ROOM = 6.0 + PIECE_CLEARANCE  # margin beyond the sheet margin that a 6 pt label needs
BAR_THICKNESS = 1.2 * MM
BAR_CAPTION = "dark 1 cm · whole bar 1 in · print at 100 %"
BAR_SHORT_CAPTION = "1 in · dark 1 cm · at 100 %"
SEP = " · "


class SheetText(Struct, frozen=True):
    """What every sheet of one component PDF says about itself."""

    game: str  # the game's title
    component: str  # the component's title
    version: str  # pnp.plan.digest.data_version


def sheet_numbers(pages: Sequence[Page]) -> tuple[list[int], int]:
    """The physical sheet of each page (1-based; a back page shares its front's) and the count."""
    numbers: list[int] = []
    n = 0
    for page in pages:
        if page.side == "front" or n == 0:
            n += 1
        numbers.append(n)
    return numbers, n


def label_parts(page: Page, text: SheetText, sheet: int, sheets: int) -> list[str]:
    folded = any(s.side == "back" for s in page.slots) and page.side == "front"
    side = "fronts and backs (gutterfold)" if folded else page.side
    parts = [text.game, text.component, side, f"sheet {sheet} of {sheets}"]
    if page.label:
        parts.append(page.label)
    parts.append(f"data {text.version}")
    return parts


def furnish(pages: Sequence[Page], options: SheetOptions, text: SheetText, fonts: FontBook,
            font: str) -> tuple[Page, ...]:
    """``pages`` with a label and scale marks on each (see the module docstring)."""
    numbers, count = sheet_numbers(pages)
    out = []
    memo = _Memo()  # pages of one geometry, with labels of one width, repeat every search
    for page, sheet in zip(pages, numbers, strict=True):
        placer = _Placer(page, options, fonts, font, memo)
        items = placer.label(label_parts(page, text, sheet, count))
        items += placer.scales()
        # a sheet with room for nothing says so (``UNLABELLED``), and its own label is not drawn
        # across the cut lines in its stead (pnp.render.draw._labels; attack 25, F3)
        out.append(replace(page, furniture=tuple(items) or (UNLABELLED,)))
    return tuple(out)


# What ``furnish`` gives a page with room for no label and no scale mark: no drawing.
UNLABELLED = Furniture("none", (0.0, 0.0, 0.0, 0.0), 0, ())


# --------------------------------------------------------------------------- search


def _grow(b: Box, d: float) -> Box:
    return (b[0] - d, b[1] - d, b[2] + d, b[3] + d)


def _merge_rows(boxes: list[Box]) -> list[Box]:
    """Boxes of one row (same bottom and top) that touch or overlap, merged: a grid's slots
    become one obstacle per row, which keeps the sweep short."""
    out: list[Box] = []
    for b in sorted(boxes, key=lambda b: (round(b[1], 3), round(b[3], 3), b[0])):
        if out:
            last = out[-1]
            if abs(last[1] - b[1]) < 1e-6 and abs(last[3] - b[3]) < 1e-6 and b[0] <= last[2] + 1e-6:
                out[-1] = (last[0], last[1], max(last[2], b[2]), last[3])
                continue
        out.append(b)
    return out


def find_spot(w: float, h: float, obstacles: Sequence[Box], bounds: Box,
              anchor: tuple[float, float]) -> tuple[float, float] | None:
    """Bottom-left corner of a ``w`` x ``h`` box inside ``bounds`` that overlaps no obstacle,
    with its centre as near to ``anchor`` as possible; None if there is none."""
    bx0, by0, bx1, by1 = bounds
    if w > bx1 - bx0 + 1e-9 or h > by1 - by0 + 1e-9:
        return None
    ys = {by0, by1 - h, min(max(anchor[1] - h / 2, by0), by1 - h)}
    for o in obstacles:
        ys.add(o[3])
        ys.add(o[1] - h)
    ax, ay = anchor
    cands = sorted((y for y in ys if by0 - 1e-9 <= y <= by1 - h + 1e-9), key=lambda y: abs(y + h / 2 - ay))
    best: tuple[float, float, float] | None = None  # (distance, x, y)
    for y in cands:
        dy = abs(y + h / 2 - ay)
        if best is not None and dy >= best[0]:
            break  # every later band is farther away
        blocked = sorted((o[0], o[2]) for o in obstacles if o[1] < y + h - 1e-9 and o[3] > y + 1e-9)
        free_from = bx0
        gaps: list[tuple[float, float]] = []
        for lo, hi in blocked:
            if lo > free_from:
                gaps.append((free_from, min(lo, bx1)))  # never past the bounds (a mark beyond them)
            free_from = max(free_from, hi)
        gaps.append((free_from, bx1))
        for lo, hi in gaps:
            if hi - lo + 1e-9 < w:
                continue
            x = min(max(ax - w / 2, lo), hi - w)
            d = math.hypot(x + w / 2 - ax, dy)
            if best is None or d < best[0]:
                best = (d, x, y)
    return None if best is None else (best[1], best[2])


# find_spot's tolerances are 1e-9: a box it returns, shrunk by ROOM_SLACK on every side, meets no
# obstacle's inside and lies within the bounds
ROOM_SLACK = 1e-6


def widest_free(obstacles: Sequence[Box], lo: float, hi: float, base: float, thick: float,
                ceiling: float = math.inf) -> float:
    """At least the length, along the first axis of the boxes ``obstacles`` (a0, b0, a1, b1), of
    any box ``thick`` or more across whose inside meets no obstacle's inside, within ``lo`` ..
    ``hi`` along and ``base`` .. ``ceiling`` across: such a box slid back across stops at
    ``base`` or at an obstacle's far side, and there it lies in a stretch free of every obstacle
    crossing the band ``thick`` across."""
    best = -math.inf
    for b in sorted({base} | {o[3] for o in obstacles if o[3] > base}):
        if b + thick > ceiling:
            break
        free_from = lo
        for a0, a1 in sorted((o[0], o[2]) for o in obstacles if o[1] < b + thick and o[3] > b):
            if a0 > free_from:
                best = max(best, min(a0, hi) - free_from)
            free_from = max(free_from, a1)
        best = max(best, hi - free_from)
    return best


def free_length(obstacles: Sequence[Box], bounds: Box, flat: bool, thick: float) -> float:
    """At least the width (``flat``) or else the height, less ``2 * ROOM_SLACK``, of any box
    ``thick`` across that find_spot places among ``obstacles`` (or more of them) within
    ``bounds``."""
    bx0, by0, bx1, by1 = bounds
    if flat:
        return widest_free(obstacles, bx0, bx1, by0, thick - 2 * ROOM_SLACK, by1)
    return widest_free([(o[1], o[0], o[3], o[2]) for o in obstacles], by0, by1, bx0, thick - 2 * ROOM_SLACK, bx1)


def _obstacles(page: Page, width: float, height: float) -> list[Box]:
    """Everything on ``page`` (``width`` x ``height`` pt) a label or scale mark keeps clear of:
    bleed boxes (a grid's merged by row), cut lines, fold lines, alignment marks, glue zones and
    cut circles. A cut line is a guillotine's, across the whole sheet, not only its crop marks: on
    a partial sheet a label below the pieces was cut through (attack 26, F1)."""
    obstacles = _merge_rows([_grow((s.x - s.bleed.left, s.y - s.bleed.bottom, s.x + s.w + s.bleed.right,
                                    s.y + s.h + s.bleed.top), PIECE_CLEARANCE) for s in page.slots])
    for c in page.cuts:
        x0, y0, x1, y1 = min(c.x1, c.x2), min(c.y1, c.y2), max(c.x1, c.x2), max(c.y1, c.y2)
        if x0 == x1:
            y0, y1 = 0.0, height
        elif y0 == y1:
            x0, x1 = 0.0, width
        obstacles.append(_grow((x0, y0, x1, y1), CUT_CLEARANCE))
    for m in page.marks:
        if m.kind == "fold":  # the dashed line and the word "fold" centred on it
            obstacles.append((m.x - 8 - CUT_CLEARANCE, m.y, m.x + 8 + CUT_CLEARANCE, m.y + m.h))
        elif m.kind == "align":  # crosshair of radius 4 pt
            obstacles.append(_grow((m.x, m.y, m.x, m.y), 4 + CUT_CLEARANCE))
        else:  # glue zones and cut circles lie on their piece, but keep clear of them anyway
            obstacles.append(_grow((m.x, m.y, m.x + m.w, m.y + m.h), CUT_CLEARANCE))
    return obstacles


class _Memo:
    """What a ``furnish`` call has worked out already: the obstacles of each page geometry and
    the answer of each ``find_spot`` search (a pure function of its arguments)."""

    def __init__(self) -> None:
        self.obstacles: dict[tuple[object, ...], tuple[Box, ...]] = {}
        self.spots: dict[tuple[object, ...], tuple[float, float] | None] = {}
        self.room: dict[tuple[object, ...], float] = {}  # free_length(), by geometry, bounds, direction, thickness


class _Placer:
    def __init__(self, page: Page, options: SheetOptions, fonts: FontBook, font: str, memo: _Memo | None = None):
        paper = page.paper or options.paper
        self.W, self.H = paper.width, paper.height
        self.fonts, self.font = fonts, font
        self.margin = options.margin
        self.memo = memo or _Memo()
        geometry = (self.W, self.H, tuple((s.x, s.y, s.w, s.h, s.bleed) for s in page.slots), page.cuts, page.marks)
        start = self.memo.obstacles.get(geometry)
        if start is None:
            start = self.memo.obstacles[geometry] = tuple(_obstacles(page, self.W, self.H))
        self.obstacles = list(start)
        self.geometry, self.start = geometry, start

    def spot(self, w: float, h: float, rotation: int, anchor: tuple[float, float],
             inset: float | None = None) -> Box | None:
        """Page box for content ``w`` long and ``h`` tall, turned ``rotation`` (0 or 90)."""
        m = self.margin if inset is None else inset
        pw, ph = (w, h) if rotation == 0 else (h, w)
        bounds = (m, m, self.W - m, self.H - m)
        key = (pw, ph, bounds, anchor, *self.obstacles)
        spots = self.memo.spots
        if key in spots:
            found = spots[key]
        elif self._no_room(pw, ph, bounds):
            found = spots[key] = None
        else:
            found = spots[key] = find_spot(pw, ph, self.obstacles, bounds, anchor)
        if found is None:
            return None
        return (found[0], found[1], found[0] + pw, found[1] + ph)

    def _no_room(self, w: float, h: float, bounds: Box) -> bool:
        """Whether a ``w`` x ``h`` box surely fits nowhere: its longer side is longer than any
        free stretch of its thickness (``free_length``, among the page's own obstacles: labels
        and marks placed since only add to them). On a sheet full of small pieces a label that
        fits nowhere tries every size and split, each a whole search; this answers most."""
        flat = w >= h
        key = (self.geometry, bounds, flat, min(w, h))
        found = self.memo.room.get(key)
        if found is None:
            found = self.memo.room[key] = free_length(self.start, bounds, flat, min(w, h))
        return max(w, h) - 2 * ROOM_SLACK > found

    def take(self, box: Box) -> None:
        self.obstacles.append(_grow(box, ITEM_CLEARANCE))

    # -- the label ------------------------------------------------------------------------
    def label(self, parts: list[str]) -> list[Furniture]:
        # Largest size first; at each size in one line, else in two, three... pieces (each piece
        # placed after the one before it, so they read in order); horizontal near the bottom
        # centre, else reading upwards in a side margin. As a last resort the margin is halved
        # (never a piece or a cut line). Where none of that fits, the game's and the component's
        # titles are cut shorter (LABEL_CUTS, with an ellipsis) and all of it is tried again: a
        # part is never split, and a title of 150 characters left every sheet without a label
        # (attack 24, F1); the side, the sheet's number and the data version are never cut (the
        # page's own label, a board's part or a ganged sheet's components, is). Last, the titles
        # go: a full sheet of 20 mm tokens has room between its cut lines for little more.
        keep = {2, 3, len(parts) - 1}  # side, sheet i of n, data version
        cuts = [[p if i in keep else _cut(p, cut) for i, p in enumerate(parts)] for cut in LABEL_CUTS]
        tries = [parts, *cuts, cuts[-1][2:]]
        for n, tried in enumerate(tries):
            if n and tried == tries[n - 1]:
                continue
            for inset in (None, self.margin / 2):
                for size in LABEL_SIZES:
                    for k in range(1, len(tried) + 1):
                        placed = self._label_at(tried, size, k, inset)
                        if placed is not None:
                            return placed
        return []

    def _label_at(self, parts: list[str], size: float, k: int, inset: float | None) -> list[Furniture] | None:
        chunks = _split(parts, k, lambda s: self.fonts.width(s, self.font, size))
        lengths = [self.fonts.width(c, self.font, size) for c in chunks]
        total = sum(lengths) + (k - 1) * 3 * MM
        saved = list(self.obstacles)
        out: list[Furniture] = []
        for rotation, start in ((0, (self.W / 2 - total / 2, 0.0)), (90, (0.0, self.H / 2 - total / 2)),
                                (90, (self.W, self.H / 2 - total / 2))):
            out = []
            at = start
            for chunk, length in zip(chunks, lengths, strict=True):
                anchor = (at[0] + length / 2, at[1]) if rotation == 0 else (at[0], at[1] + length / 2)
                f = self._text_item(chunk, size, inset, rotation, anchor)
                if f is None:
                    break
                out.append(f)
                x, y, w, h = f.box
                at = (x + w + 3 * MM, y + h / 2) if rotation == 0 else (x + w / 2, y + h + 3 * MM)
            if len(out) == k:
                return out
            self.obstacles = list(saved)
        return None

    def _text_item(self, text: str, size: float, inset: float | None, rotation: int,
                   anchor: tuple[float, float]) -> Furniture | None:
        length = self.fonts.width(text, self.font, size)
        box = self.spot(length, size, rotation, anchor, inset)
        if box is None:
            return None
        self.take(box)
        prim = Text(0.0, self.fonts.descent(self.font, size), text, self.font, size, LABEL_COLOR)
        return Furniture("label", _xywh(box), rotation, (prim,), text)

    # -- scale marks ----------------------------------------------------------------------
    def scales(self) -> list[Furniture]:
        out: list[Furniture] = []
        inch = self.spot(INCH, INCH, 0, (self.W, 0.0))
        if inch is not None:
            self.take(inch)
            out.append(self._square("scale-in", inch, ["1 in", "print at", "100 % /", "actual size"]))
        cm = self.spot(CM, CM, 0, (self.W, 0.0))
        if cm is not None:
            self.take(cm)
            out.append(self._square("scale-cm", cm, ["1 cm"]))
        if inch is None:
            for rotation, anchor in ((0, (self.W, 0.0)), (90, (self.W, self.H / 2))):
                bar = self._bar(rotation, anchor)
                if bar is not None:
                    out.append(bar)
        return out

    def _square(self, kind: str, box: Box, lines: list[str]) -> Furniture:
        return Furniture(kind, _xywh(box), 0, scale_square(self.fonts, self.font, box[2] - box[0], lines),
                         " ".join(lines))

    def _bar(self, rotation: int, anchor: tuple[float, float]) -> Furniture | None:
        """A bar 1 in long, its first centimetre filled: the caption beside it, or (where the
        room between two cut lines is short) a short caption above it."""
        size = 4.5
        desc = self.fonts.descent(self.font, size)
        y0 = (size - BAR_THICKNESS) / 2
        inline = INCH + 1.5 * MM + self.fonts.width(BAR_CAPTION, self.font, size)
        stacked = max(INCH, self.fonts.width(BAR_SHORT_CAPTION, self.font, size))
        for length, height, caption, text_at in (
                (inline, size, BAR_CAPTION, (INCH + 1.5 * MM, desc)),
                (stacked, BAR_THICKNESS + 0.4 * MM + size, BAR_SHORT_CAPTION, (0.0, BAR_THICKNESS + 0.4 * MM + desc))):
            box = self.spot(length, height, rotation, anchor)
            if box is None:
                continue
            self.take(box)
            bar_y = y0 if caption == BAR_CAPTION else 0.0
            prims = (Rect(0.0, bar_y, CM, BAR_THICKNESS, Paint(fill=MARK_COLOR)),
                     Rect(0.0, bar_y, INCH, BAR_THICKNESS, Paint(stroke=MARK_COLOR, stroke_width=0.3)),
                     Text(text_at[0], text_at[1], caption, self.font, size, MARK_COLOR))
            return Furniture("scale-bar", _xywh(box), rotation, prims, caption)
        return None


def scale_square(fonts: FontBook, font: str, side: float, lines: Sequence[str]) -> tuple[Primitive, ...]:
    """A square ``side`` pt wide (its outline's centre line), origin at its bottom-left, with
    ``lines`` of caption inside its top-left corner, the first in bold."""
    prims: list[Primitive] = [Rect(0.0, 0.0, side, side, Paint(stroke=MARK_COLOR, stroke_width=0.5))]
    size = 6.0 if side > CM else 4.2
    y = side - 1.2 * MM - fonts.ascent(font, size)
    for i, line in enumerate(lines):
        s = size if i == 0 else size * 0.85
        prims.append(Text(1.2 * MM, y, line, font if i else _bold(fonts, font), s, MARK_COLOR))
        y -= s * 1.2
    return tuple(prims)


def _bold(fonts: FontBook, font: str) -> str:
    return fonts.ensure(fonts.variant(font, True, False))


def _xywh(b: Box) -> tuple[float, float, float, float]:
    return (b[0], b[1], b[2] - b[0], b[3] - b[1])


def _cut(text: str, n: int) -> str:
    """``text`` cut to at most ``n`` characters, an ellipsis last, at a space if one is near."""
    if len(text) <= n:
        return text
    head = text[:n - 1]
    space = head.rfind(" ")
    return (head[:space] if space > n * 2 // 3 else head).rstrip() + "\u2026"


def _split(parts: list[str], k: int, measure: Callable[[str], float]) -> list[str]:
    """``parts`` joined into ``k`` consecutive chunks whose longest is as short as possible."""
    if k == 1:
        return [SEP.join(parts)]
    best: list[str] | None = None
    best_w = math.inf
    n = len(parts)

    def rec(start: int, left: int, acc: list[str]) -> None:
        nonlocal best, best_w
        if left == 1:
            chunks = [*acc, SEP.join(parts[start:])]
            w = max(measure(c) for c in chunks)
            if w < best_w - 1e-9:
                best, best_w = chunks, w
            return
        for end in range(start + 1, n - left + 2):
            rec(end, left - 1, [*acc, SEP.join(parts[start:end])])

    rec(0, k, [])
    assert best is not None
    return best

