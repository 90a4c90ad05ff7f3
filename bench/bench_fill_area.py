"""What the rasteriser spends on a fill by the area it covers (pnp.layout.cost.AREA_PT2,
SEE_THROUGH): 2,000 filled rectangles of each size on one 63 x 88 mm page, rendered by pdfium
at 300 dpi, CPU per rectangle (best of 3), opaque and at opacity 0.5; with ``--edges``, the edge
sampler on one piece of 19,000 full-card rectangles (attack 14, F7), alike and each 0.001 pt
apart (docs/performance.md, "Shape budget" and "Edge colour budget").

    python bench/bench_fill_area.py [--edges]
"""

from __future__ import annotations

import io
import sys
import time

import pypdfium2 as pdfium
from reportlab.pdfgen import canvas

from pnp.units import MM

W, H = 63 * MM, 88 * MM


def page(n: int, w: float, h: float, alpha: float) -> bytes:
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(W, H))
    c.setFillColorRGB(0.2, 0.4, 0.6)
    if alpha < 1:
        c.setFillAlpha(alpha)
    for _ in range(n):
        c.rect(0, 0, w, h, stroke=0, fill=1)
    c.showPage()
    c.save()
    return buf.getvalue()


def render(pdf: bytes) -> float:
    doc = pdfium.PdfDocument(pdf)
    best = 1e9
    for _ in range(3):
        t0 = time.process_time()
        doc[0].render(scale=300 / 72).to_pil()
        best = min(best, time.process_time() - t0)
    return best


def fills(n: int = 2000) -> None:
    empty = render(page(0, 1, 1, 1))
    for alpha in (1.0, 0.5):
        for w, h in ((1, 1), (5, 5), (10, 10), (20, 20), (40, 40), (63, 88)):
            each = (render(page(n, w * MM, h * MM, alpha)) - empty) / n
            print(f"opacity {alpha}: {w} x {h} mm ({w * h} mm²): {each * 1e6:.1f} µs a rectangle")


def edges() -> None:
    from pnp.layout.edges import EdgeSampler, rect_sides
    from pnp.layout.piece import PieceLayout
    from pnp.layout.primitives import Paint, Rect

    b = 3 * MM
    for label, shift in (("alike", 0.0), ("each 0.001 pt apart", 1e-3)):
        prims = tuple(Rect(-b + i * shift, -b, W + 2 * b, H + 2 * b, Paint(fill="#204060", opacity=0.5))
                      for i in range(19_000))
        lay = PieceLayout(W, H, b, prims)
        t0 = time.process_time()
        s = EdgeSampler()
        for seg in rect_sides(W, H).values():
            s.profile(lay, seg)
        print(f"edge sampling, 19,000 full-card rectangles {label}: {time.process_time() - t0:.2f} s CPU")


if __name__ == "__main__":
    if "--edges" in sys.argv[1:]:
        edges()
    else:
        fills()
