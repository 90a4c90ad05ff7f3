"""Hex tiles imposed as a honeycomb: interlocking rows that share their cut edges."""

from __future__ import annotations

import math

from msgspec.structs import replace

from pnp.impose.sheet import (
    EPS,
    CutLine,
    Edges,
    Grid,
    Page,
    PieceSpec,
    SheetOptions,
    Slot,
    _check_count,
    _mirror,
    _usable,
    _with_backs,
)


def hex_outline(x: float, y: float, w: float, h: float) -> tuple[tuple[float, float], ...]:
    """The hexagon filling the box, pointy (a vertex at the top) when h >= w, else flat; the
    same hexagon the ``hex`` template element draws."""
    cx, cy = x + w / 2, y + h / 2
    if h >= w:
        return ((cx, y + h), (x + w, y + 0.75 * h), (x + w, y + 0.25 * h), (cx, y),
                (x, y + 0.25 * h), (x, y + 0.75 * h))
    return ((x, cy), (x + 0.25 * w, y + h), (x + 0.75 * w, y + h), (x + w, cy),
            (x + 0.75 * w, y), (x + 0.25 * w, y))


def _line_cross(p1: tuple[float, float], d1: tuple[float, float], p2: tuple[float, float],
                d2: tuple[float, float]) -> tuple[float, float]:
    det = d1[0] * d2[1] - d1[1] * d2[0]
    t = ((p2[0] - p1[0]) * d2[1] - (p2[1] - p1[1]) * d2[0]) / det
    return (p1[0] + t * d1[0], p1[1] + t * d1[1])


def _grow_edges(poly: tuple[tuple[float, float], ...], grow: list[float]) -> tuple[tuple[float, float], ...]:
    """Push edge i (poly[i] -> poly[i+1]) outwards by grow[i]; vertices are re-intersected."""
    n = len(poly)
    cx = sum(p[0] for p in poly) / n
    cy = sum(p[1] for p in poly) / n
    lines = []
    for i in range(n):
        (ax, ay), (bx, by) = poly[i], poly[(i + 1) % n]
        dx, dy = bx - ax, by - ay
        length = math.hypot(dx, dy)
        nx, ny = dy / length, -dx / length
        if (ax - cx) * nx + (ay - cy) * ny < 0:  # make the normal point outwards
            nx, ny = -nx, -ny
        lines.append(((ax + nx * grow[i], ay + ny * grow[i]), (dx, dy)))
    return tuple(_line_cross(*lines[(i - 1) % n], *lines[i]) for i in range(n))


def plan_hex(piece: PieceSpec, options: SheetOptions) -> Grid | None:
    """Honeycomb of a hex piece: (cols, rows) per page with shared edges, or None if not one fits.
    Computed for pointy hexes; a flat hex is the same layout with x and y swapped."""
    w, h = (piece.width, piece.height) if piece.height >= piece.width else (piece.height, piece.width)
    uw, uh = _usable(options)
    if piece.height < piece.width:
        uw, uh = uh, uw
    b = options.bleed
    best: Grid | None = None
    for rows in range(1, 200):
        height = h + (rows - 1) * 0.75 * h + 2 * b
        if height > uh + EPS:
            break
        cols = math.floor((uw - 2 * b - (w / 2 if rows > 1 else 0) + EPS) / w)
        if cols >= 1 and (best is None or cols * rows > best.cols * best.rows):
            best = Grid(cols, rows, False, False, False)
    return best


def impose_hex(count: int, piece: PieceSpec, options: SheetOptions) -> tuple[Page, ...] | None:
    """Hex tiles in a honeycomb: neighbours share an edge (one cut serves both), each hex is
    clipped to its own outline, bleed only on edges with no neighbour, cut lines along every
    edge once. Odd rows are shifted half a hex. Backs mirror as for :func:`impose`. None when
    not even one hex fits (then the rectangular grid or tiling applies)."""
    _check_count(count)
    grid = plan_hex(piece, options)
    if grid is None:
        return None
    flat = piece.height < piece.width
    w, h = (piece.height, piece.width) if flat else (piece.width, piece.height)
    paper = options.paper
    pw, ph = (paper.height, paper.width) if flat else (paper.width, paper.height)
    b = options.bleed
    extent_x = grid.cols * w + (w / 2 if grid.rows > 1 else 0) + 2 * b
    extent_y = h + (grid.rows - 1) * 0.75 * h + 2 * b
    left, top = (pw - extent_x) / 2 + b, (ph + extent_y) / 2 - b
    per_page = grid.cols * grid.rows

    def swap(p: tuple[float, float]) -> tuple[float, float]:
        return (p[1], p[0]) if flat else p

    pages: list[Page] = []
    for start in range(0, count, per_page):
        n = min(per_page, count - start)
        cells = {(i // grid.cols, i % grid.cols): start + i for i in range(n)}
        slots: list[Slot] = []
        edges: dict[tuple[tuple[float, float], tuple[float, float]], None] = {}
        for (r, c), piece_no in cells.items():
            x = left + c * w + (w / 2 if r % 2 else 0)
            y = top - h - r * 0.75 * h
            poly = hex_outline(x, y, w, h)  # pointy: top, upper-right, lower-right, bottom, ...
            shift = 1 if r % 2 else 0
            neighbours = [(r - 1, c + shift), (r, c + 1), (r + 1, c + shift), (r + 1, c - 1 + shift),
                          (r, c - 1), (r - 1, c - 1 + shift)]  # across edges 0..5
            grow = [0.0 if nb in cells else b for nb in neighbours]
            clip = _grow_edges(poly, grow)
            for i in range(6):
                key = tuple(sorted((tuple(round(v, 6) for v in swap(poly[i])),
                                    tuple(round(v, 6) for v in swap(poly[(i + 1) % 6])))))
                edges[key] = None  # type: ignore[index]
            sx, sy = swap((x, y))
            sw, sh = (h, w) if flat else (w, h)
            slots.append(Slot(piece_no, "front", sx, sy, sw, sh, Edges(b, b, b, b),
                              clip=tuple(swap(p) for p in clip)))
        cuts = tuple(CutLine(a[0], a[1], e[0], e[1]) for a, e in edges) if options.crop_marks else ()
        pages.append(Page(len(pages) + 1, "front", tuple(slots), cuts))
        if _with_backs(piece, options):
            backs = []
            for s in slots:
                m = _mirror(s, options.duplex, paper)
                if s.clip is not None:
                    clip = tuple((paper.width - x, y) if options.duplex == "long" else (x, paper.height - y)
                                 for x, y in s.clip)
                    m = replace(m, clip=clip)
                backs.append(m)
            pages.append(Page(len(pages) + 1, "back", tuple(backs), ()))
    return tuple(pages)

