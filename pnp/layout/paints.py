"""layout paints: what a shape paints, for the shape budget (``pnp.layout.cost``) and the cost of
SVG art (``pnp.layout.svg``): the area units a fill or a stroke's band counts in, the length of a
path's outline, and the grown box a shape filled and stroked with transparency is drawn into."""

from __future__ import annotations

import math
from typing import Any

# A filled shape counts one more for each AREA_PT2 of its box within the piece's trim (``pnp.layout.cost.area``),
# SEE_THROUGH times as many when drawn with transparency: the rasteriser's work (an export, a
# preview) grows with the pixels each shape covers. Measured (pdfium 4, one 63 x 88 mm page at
# 300 dpi, 2,000 filled rectangles, CPU per rectangle): 1 mm² 0.1 µs, 10 x 10 mm 7 µs, 40 x 40 mm
# 107 µs, 63 x 88 mm 406 µs (0.073 µs a mm²); with opacity 0.5: 0.4, 35, 530, 1,872 µs (4.6 to 5
# times as much). So 120 mm² (8.7 µs) is a square's worth; a full card counts 46 more, 230 seen
# through (attack 14, F7: 19,000 full-card rectangles at opacity 0.5 on one piece, 28 s to export).
AREA_PT2 = 120 * (72 / 25.4) ** 2  # 120 mm² in pt²
SEE_THROUGH = 5
# A shape both filled and stroked with transparency: PDFium draws it into a bitmap of its own, the
# size of its box grown by the stroke's width, however little of it the page shows (``grouped``):
# about 20 ns a pixel at 300 dpi (a 1 pt line 255 pt wide: 24-28 ms a render, 7 to 9 times what a
# band of its area costs stroked alone), so its grown box counts GROUPED for each AREA_PT2.
GROUPED = 40


def path_length(ops: Any) -> float:
    """At least the length of a path's outline: its lines, its curves' control polygons, and the
    line a close draws back to the start."""
    length = 0.0
    x = y = sx = sy = 0.0
    for op, a in ops:
        if op == "M":
            x, y = sx, sy = a[-2], a[-1]
            continue
        if op == "Z":
            length += math.hypot(sx - x, sy - y)
            x, y = sx, sy
            continue
        for i in range(0, len(a) - 1, 2):
            length += math.hypot(a[i] - x, a[i + 1] - y)
            x, y = a[i], a[i + 1]
    return length


def grouped(box: tuple[float, float, float, float] | None, width: float) -> float:
    """What a shape both filled and stroked with transparency counts: GROUPED for each AREA_PT2 of
    its ``box`` grown by the stroke's ``width`` on every side, the piece's size aside. PDFium draws
    such a shape into a bitmap of its own that size (measured, docs/performance.md: a 1 pt line
    255 pt wide, filled and stroked at opacity 0.5, 24 to 28 ms a render at 300 dpi, stroked only
    3 ms; 1,200 pt wide 555 ms, on a 63 x 88 mm page: about 20 ns a pixel of that box)."""
    if box is None:
        return 0.0
    x0, y0, x1, y1 = box
    return (abs(x1 - x0) + 2 * width) * (abs(y1 - y0) + 2 * width) / AREA_PT2 * GROUPED
