"""Pieces bigger than a page (boards, mats): tiled across pages with a glue overlap, alignment
marks and a row/column label per part."""

from __future__ import annotations

import math

from pnp.impose.sheet import (
    EPS,
    CutLine,
    Edges,
    Mark,
    Page,
    PieceSpec,
    SheetOptions,
    Slot,
    TilePart,
    _assemble,
    _cut_lines,
    _rect_to_page,
    _Sheet,
    _usable,
    piece_to_page,
)

# --------------------------------------------------------------------------- tiling


def _tile_count(size: float, bleed: float, overlap: float, avail: float) -> int:
    """Minimal number of parts along one axis. All parts get the same drawn extent
    D = (size + 2*bleed + (n-1)*overlap) / n, which must fit in ``avail``."""
    if size + 2 * bleed <= avail + EPS:
        return 1
    step = avail - overlap
    if step <= EPS:
        raise ValueError("the glue overlap does not leave room on the page to tile this piece")
    n = max(2, math.ceil((size + 2 * bleed - overlap) / step - 1e-9))
    while (size + 2 * bleed + (n - 1) * overlap) / n > avail + EPS:
        n += 1
    extent = (size + 2 * bleed + (n - 1) * overlap) / n
    if extent - bleed < overlap:
        raise ValueError("the page is too small to tile this piece with this overlap and bleed")
    return n


def _tile_spans(size: float, bleed: float, overlap: float, n: int) -> list[tuple[float, float]]:
    """(start, length) of each part along an axis, from the low coordinate upwards."""
    if n == 1:
        return [(0.0, size)]
    extent = (size + 2 * bleed + (n - 1) * overlap) / n
    spans: list[tuple[float, float]] = []
    for i in range(n):
        start = 0.0 if i == 0 else i * (extent - overlap) - bleed
        end = size if i == n - 1 else start + (extent - bleed if i == 0 else extent)
        spans.append((start, end - start))
    return spans


def _tile(count: int, piece: PieceSpec, options: SheetOptions) -> tuple[Page, ...]:
    uw, uh = _usable(options)
    b, o = options.bleed, options.overlap
    plain = (_tile_count(piece.width, b, o, uw), _tile_count(piece.height, b, o, uh))
    turned = (_tile_count(piece.width, b, o, uh), _tile_count(piece.height, b, o, uw))
    rotated = turned[0] * turned[1] < plain[0] * plain[1]
    cols, rows = turned if rotated else plain
    xspans = _tile_spans(piece.width, b, o, cols)
    yspans = _tile_spans(piece.height, b, o, rows)[::-1]  # row 0 is the top of the piece
    paper = options.paper

    parts: list[tuple[TilePart, Edges]] = []  # piece-space bleed per part
    for r, (ry, rh) in enumerate(yspans):
        for c, (rx, rw) in enumerate(xspans):
            edges = Edges(
                b if c == 0 else 0.0,
                b if r == rows - 1 else 0.0,
                b if c == cols - 1 else 0.0,
                b if r == 0 else 0.0,
            )
            parts.append((TilePart(r, c, rows, cols, (rx, ry, rw, rh)), edges))

    sheets: list[_Sheet] = []
    for i in range(count):
        for part, pe in parts:
            rx, ry, rw, rh = part.region
            if rotated:
                w, h = rh, rw
                edges = Edges(pe.top, pe.left, pe.bottom, pe.right)
            else:
                w, h = rw, rh
                edges = pe
            x = (paper.width - (w + edges.left + edges.right)) / 2 + edges.left
            y = (paper.height - (h + edges.bottom + edges.top)) / 2 + edges.bottom
            slot = Slot(i, "front", x, y, w, h, edges, 90 if rotated else 0, part)
            sheets.append(
                _Sheet(
                    (slot,),
                    _tile_cuts(slot, piece, options),
                    _tile_marks(slot, o),
                    _tile_label(part, i, count),
                )
            )
    return _assemble(sheets, False, options)


def _tile_label(part: TilePart, copy: int, count: int) -> str:
    label = f"Part row {part.row + 1}, column {part.col + 1} of {part.rows} x {part.cols}"
    if count > 1:
        label += f" (copy {copy + 1} of {count})"
    return label


def _tile_cuts(slot: Slot, piece: PieceSpec, options: SheetOptions) -> tuple[CutLine, ...]:
    """Cut lines only at the piece's outer trim edges present on this part."""
    part = slot.part
    assert part is not None
    piece_xs = ([0.0] if part.col == 0 else []) + (
        [piece.width] if part.col == part.cols - 1 else []
    )
    piece_ys = ([piece.height] if part.row == 0 else []) + (
        [0.0] if part.row == part.rows - 1 else []
    )
    ry = part.region[1]
    rx = part.region[0]
    if slot.rotation == 90:
        # piece verticals (x = const) become page horizontals, and vice versa
        page_ys = [piece_to_page(slot, px, ry)[1] for px in piece_xs]
        page_xs = [piece_to_page(slot, rx, py)[0] for py in piece_ys]
    else:
        page_xs = [piece_to_page(slot, px, ry)[0] for px in piece_xs]
        page_ys = [piece_to_page(slot, rx, py)[1] for py in piece_ys]
    return _cut_lines((slot,), page_xs, page_ys, options)


def _tile_marks(slot: Slot, overlap: float) -> tuple[Mark, ...]:
    """Glue zones that the next part covers (right and bottom, in piece terms) and align
    crosshairs at the corners of every overlap zone on this part (the neighbouring part
    has crosshairs at the same piece points)."""
    part = slot.part
    assert part is not None
    rx, ry, rw, rh = part.region
    right = (rx + rw - overlap, ry, overlap, rh)
    bottom = (rx, ry, rw, overlap)
    left = (rx, ry, overlap, rh)
    top = (rx, ry + rh - overlap, rw, overlap)
    glue = []
    if part.col < part.cols - 1:
        glue.append(right)
    if part.row < part.rows - 1:
        glue.append(bottom)
    zones = list(glue)
    if part.col > 0:
        zones.append(left)
    if part.row > 0:
        zones.append(top)
    marks = [_rect_to_page(slot, z) for z in glue]
    seen: list[tuple[float, float]] = []
    for zx, zy, zw, zh in zones:
        for px, py in ((zx, zy), (zx + zw, zy), (zx, zy + zh), (zx + zw, zy + zh)):
            point = piece_to_page(slot, px, py)
            if all(abs(point[0] - q[0]) > EPS or abs(point[1] - q[1]) > EPS for q in seen):
                seen.append(point)
                marks.append(Mark("align", point[0], point[1]))
    return tuple(marks)

