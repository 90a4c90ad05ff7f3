"""Preflight of shared cut lines: where a cut that misses its line by ``MISCUT_MM`` (0.5 mm; why
that much: ``pnp.layout.edges``) would leave a strip of a neighbouring piece's different colour.

Read from the rendered PDF, not from the layouts the imposition judged: every cut line two pieces
share (abutting rectangles, a honeycomb's hex edges; a side with less than ``MISCUT_MM`` of its own
bleed) is rasterised with PDFium at ``DPI`` in a narrow strip, and the colours on its two sides are
compared at depths 0.15 and 0.4 mm (``DEPTHS_MM``), every 1 mm along the line: a difference above ``MATCH_DE``
(ΔE00) anywhere is a seam that shows."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from msgspec import Struct

from pnp.impose.hex import hex_outline
from pnp.impose.sheet import Page, Slot
from pnp.layout.colours import delta_e
from pnp.layout.edges import DEPTHS_MM, MATCH_DE, MISCUT_MM, STEP_MM
from pnp.render.raster import render_page
from pnp.units import MM

STRIP_PAD = MISCUT_MM * MM + 2  # pt either side of a shared cut line that a strip renders
DPI = 600  # 0.5 mm is 12 pixels: the samples keep clear of the anti-aliased line itself
TOUCH = 0.01  # pt: how close two trims must be to count as one cut line
SLACK_PX = 2  # pixels (0.08 mm at 600 dpi) either way a sample may look for the same colour

Point = tuple[float, float]


class Seam(Struct, frozen=True):
    """A shared cut line on a page where a miscut shows a neighbour's different colour."""

    page: int  # 1-based page of the component's PDF
    side: str  # "front" | "back"
    a: int  # slot indexes on the page
    b: int
    line: tuple[Point, Point]  # page coordinates, pt
    delta_e: float  # the largest ΔE00 found along it


def _hex_edges(s: Slot) -> list[tuple[Point, Point]]:
    poly = hex_outline(s.x, s.y, s.w, s.h)
    return [(poly[i], poly[(i + 1) % 6]) for i in range(6)]


def _bleed_toward(s: Slot, p: Point, q: Point) -> float:
    """The slot's drawn bleed on its side along the line p-q (rectangles; hexes: the clip grew
    by its bleed only where there is no neighbour, so a shared hex edge has none)."""
    if s.clip is not None:
        return 0.0
    b = s.bleed
    if abs(p[0] - q[0]) <= TOUCH:
        return b.left if abs(p[0] - s.x) <= TOUCH else b.right
    return b.bottom if abs(p[1] - s.y) <= TOUCH else b.top


def shared_lines(page: Page) -> list[tuple[int, int, tuple[Point, Point]]]:
    """(slot a, slot b, segment) for every cut line two pieces on the page share, where at least
    one of them has less than ``MISCUT_MM`` of its own bleed towards the other; in the order of
    (a, b), then of ``_common``. Only pairs whose trim boxes come within ``REACH`` of each other
    are compared (``touching``): a page of 2,000 small tokens is 2 million pairs, 8,000 near."""
    out: list[tuple[int, int, tuple[Point, Point]]] = []
    slots = page.slots
    for i, j in touching(slots):
        a, b = slots[i], slots[j]
        for seg in _common(a, b):
            if min(_bleed_toward(a, *seg), _bleed_toward(b, *seg)) < MISCUT_MM * MM - 1e-6:
                out.append((i, j, seg))
    return out


def lines_of(pages: Sequence[Page]) -> list[list[tuple[int, int, tuple[Point, Point]]]]:
    """``shared_lines`` of each page, found once for each different arrangement of slots (full
    pages of a component repeat one)."""
    found: dict[Any, list[tuple[int, int, tuple[Point, Point]]]] = {}
    out = []
    for page in pages:
        key = tuple((s.x, s.y, s.w, s.h, s.clip is None, s.bleed) for s in page.slots)
        if key not in found:
            found[key] = shared_lines(page)
        out.append(found[key])
    return out


REACH = 1.0  # pt: far more than TOUCH; a pair whose boxes are farther apart shares no line


def touching(slots: Sequence[Slot]) -> list[tuple[int, int]]:
    """The pairs (i, j), i < j, sorted, of slots whose trim boxes (a hex tile's hexagon lies in
    its box) grown by ``REACH`` overlap: every pair that can share a cut line, and few more.
    Found through a grid of cells the size of the median slot, so the work is the slots and
    their neighbours, not all pairs; each slot is entered in every cell its grown box covers."""
    if len(slots) < 2:
        return []
    size = sorted(max(s.w, s.h) for s in slots)[len(slots) // 2]
    cell = max(size, 1.0) + 2 * REACH
    grid: dict[tuple[int, int], list[int]] = {}
    boxes = []
    for k, s in enumerate(slots):
        box = (s.x - REACH, s.y - REACH, s.x + s.w + REACH, s.y + s.h + REACH)
        boxes.append(box)
        for cx in range(math.floor(box[0] / cell), math.floor(box[2] / cell) + 1):
            for cy in range(math.floor(box[1] / cell), math.floor(box[3] / cell) + 1):
                grid.setdefault((cx, cy), []).append(k)
    pairs: set[tuple[int, int]] = set()
    for members in grid.values():
        for n, i in enumerate(members):
            ax0, ay0, ax1, ay1 = boxes[i]
            for j in members[n + 1:]:
                bx0, by0, bx1, by1 = boxes[j]
                if ax0 <= bx1 and bx0 <= ax1 and ay0 <= by1 and by0 <= ay1:
                    pairs.add((i, j))  # members are in slot order: i < j
    return sorted(pairs)


def _common(a: Slot, b: Slot) -> list[tuple[Point, Point]]:
    if a.clip is not None and b.clip is not None:
        found = []
        for p, q in _hex_edges(a):
            for r, t in _hex_edges(b):
                if (math.dist(p, t) <= TOUCH and math.dist(q, r) <= TOUCH) or \
                        (math.dist(p, r) <= TOUCH and math.dist(q, t) <= TOUCH):
                    found.append((p, q))
        return found
    out = []
    for r1, r2 in ((a.x + a.w, b.x), (b.x + b.w, a.x)):
        if abs(r1 - r2) <= TOUCH:
            lo, hi = max(a.y, b.y), min(a.y + a.h, b.y + b.h)
            if hi - lo > TOUCH:
                out.append(((r1, lo), (r1, hi)))
    for t1, t2 in ((a.y + a.h, b.y), (b.y + b.h, a.y)):
        if abs(t1 - t2) <= TOUCH:
            lo, hi = max(a.x, b.x), min(a.x + a.w, b.x + b.w)
            if hi - lo > TOUCH:
                out.append(((lo, t1), (hi, t1)))
    return out


def _strip(page: Any, seg: tuple[Point, Point], size: tuple[float, float]) -> tuple[Any, float, float, float]:
    """The page rendered around the segment: (image, scale, left, top) in page points."""
    pad = STRIP_PAD
    pw, ph = size
    left = max(0.0, min(seg[0][0], seg[1][0]) - pad)
    right = min(pw, max(seg[0][0], seg[1][0]) + pad)
    bottom = max(0.0, min(seg[0][1], seg[1][1]) - pad)
    top = min(ph, max(seg[0][1], seg[1][1]) + pad)
    scale = DPI / 72
    img = render_page(page, scale, (left, bottom, pw - right, ph - top))  # step by step, as a page's
    return img, scale, left, top


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#" + "".join(f"{v:02x}" for v in rgb)


def seam_difference(page: Any, seg: tuple[Point, Point], size: tuple[float, float], quick: bool = True) -> float:
    """The largest ΔE00 between the two sides of the cut line ``seg`` on a rendered PDF page, at the
    same distance from it (``DEPTHS_MM``), every ``STEP_MM`` along it clear of its ends. ``quick``:
    0 at once where the strip has one colour wherever a sample falls (``False``: sample anyway)."""
    img, scale, left, top = _strip(page, seg, size)
    (ax, ay), (bx, by) = seg
    length = math.hypot(bx - ax, by - ay)
    ux, uy = (bx - ax) / length, (by - ay) / length
    nx, ny = -uy, ux
    end = MISCUT_MM * MM
    n = max(1, int((length - 2 * end) / (STEP_MM * MM) + 1e-6))
    worst = 0.0
    w, h = img.size
    # The samples below lie in the box of the four extreme ones (each pixel index is a monotone
    # function of the distance along the line and across it), grown by a pixel: if the strip
    # has one colour there, every sample is that colour and every difference 0.
    far = max(DEPTHS_MM) * MM + SLACK_PX / scale
    xs, ys = [], []
    for t in (end + (length - 2 * end) * 0.5 / n, end + (length - 2 * end) * (n - 0.5) / n):
        px, py = ax + ux * t, ay + uy * t
        for sign in (1, -1):
            xs.append(round((px + sign * nx * far - left) * scale - 0.5))
            ys.append(round((top - (py + sign * ny * far)) * scale - 0.5))
    band = (max(0, min(xs) - 1), max(0, min(ys) - 1), min(w - 1, max(xs) + 1) + 1, min(h - 1, max(ys) + 1) + 1)
    if quick and band[0] < band[2] and band[1] < band[3] and \
            all(lo == hi for lo, hi in img.crop(band).getextrema()):
        return 0.0
    pixel = img.load()  # the same values as getpixel, without its checks on every read
    names: dict[Any, str] = {}  # a strip holds few colours: each named once
    for k in range(n):
        t = end + (length - 2 * end) * (k + 0.5) / n
        px, py = ax + ux * t, ay + uy * t
        for d in DEPTHS_MM:
            sides = []
            for sign in (1, -1):
                near = []
                for j in range(-SLACK_PX, SLACK_PX + 1):
                    q = d * MM + j / scale
                    qx, qy = px + sign * nx * q, py + sign * ny * q
                    ix = min(w - 1, max(0, round((qx - left) * scale - 0.5)))
                    iy = min(h - 1, max(0, round((top - qy) * scale - 0.5)))
                    rgb = pixel[ix, iy]
                    name = names.get(rgb)
                    if name is None:
                        name = names[rgb] = _hex(rgb)
                    near.append(name)
                sides.append(near)
            # each side's colour at depth d against the other's within SLACK_PX of the same depth:
            # a sharp edge at exactly that depth lands on different pixels on the two sides
            a, b = sides[0][SLACK_PX], sides[1][SLACK_PX]
            worst = max(worst, min(_de(a, c) for c in sides[1]), min(_de(b, c) for c in sides[0]))
    return worst


def _de(a: str, b: str) -> float:
    return 0.0 if a == b else delta_e(a, b)


def find_seams(pdf: bytes, pages: Sequence[Page], sizes: Sequence[tuple[float, float]]) -> list[Seam]:
    """Every shared cut line of ``pages`` (the imposed pages ``pdf`` was drawn from, each of the
    size in ``sizes``) across which a ``MISCUT_MM`` miscut shows a colour more than ``MATCH_DE``
    away from the piece's own."""
    lines = lines_of(pages)
    if not any(lines):
        return []
    import pypdfium2 as pdfium  # late: only a preflight with shared cut lines rasterises

    doc = pdfium.PdfDocument(pdf)
    out: list[Seam] = []
    try:
        for k, (page, found) in enumerate(zip(pages, lines, strict=True)):
            if not found:
                continue
            pg = doc[k]
            try:
                for a, b, seg in found:
                    de = seam_difference(pg, seg, sizes[k])
                    if de > MATCH_DE:
                        out.append(Seam(page.number, page.side, a, b, seg, round(de, 1)))
            finally:
                pg.close()
    finally:
        doc.close()
    return out
