"""How well the pixel budget's charge for text glyphs (pnp.render.pixels: GLYPH_PIXELS a glyph and
its em squared at the dpi over GLYPH_EM_PIXELS, at NS_PER_PIXEL a counted pixel) bounds what
PDFium takes to draw them: a page of ``--lines`` lines of ``--chars`` random letters in Lato
(embedded by reportlab, as pnp embeds it), each line starting on the page and running off it as
a long unwrapped text does, rendered with pypdfium2 in this process at each size and dpi (CPU,
the least of ``--rounds``), less an empty page. ``ratio`` = measured / charged: above 1 the
glyphs cost more than they are charged.

    python bench/bench_glyph_cost.py [--sizes 6,9,14,30] [--dpi 72,300,600,1200] [--rounds 2]
"""

from __future__ import annotations

import argparse
import io
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import machine

PAGE = (180.0, 250.0)  # pt: a card and a half
LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def page(lines: int, chars: int, size: float) -> bytes:
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.pdfgen import canvas

    from pnp.input.project import bundled_root

    if "Lato" not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(TTFont("Lato", str(bundled_root() / "fonts" / "Lato-Regular.ttf")))
    rnd = random.Random(1)
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=PAGE, invariant=1)
    c.setFont("Lato", size)
    for i in range(lines):
        text = "".join(rnd.choice(LETTERS) for _ in range(chars))
        c.drawString(5, 10 + (i * 2.3) % (PAGE[1] - 20), text)
    c.showPage()
    c.save()
    return buf.getvalue()


def render_cpu(data: bytes, dpi: float, rounds: int) -> float:
    import pypdfium2 as pdfium

    from pnp.products.images import raster

    size = (round(PAGE[0] / 72 * dpi), round(PAGE[1] / 72 * dpi))
    best = float("inf")
    for _ in range(rounds):
        doc = pdfium.PdfDocument(data)
        t = time.process_time()
        raster(doc, 0, size)
        best = min(best, time.process_time() - t)
        doc.close()
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="6,9,14,30")
    ap.add_argument("--dpi", default="72,300,600,1200")
    ap.add_argument("--lines", type=int, default=100)
    ap.add_argument("--chars", type=int, default=500)
    ap.add_argument("--rounds", type=int, default=2)
    a = ap.parse_args()
    from pnp.render.pixels import NS_PER_PIXEL, ArtWork

    print(machine())
    print(f"{a.lines} lines of {a.chars} glyphs a page, the least CPU of {a.rounds} renders, less an empty page")
    print(f"{'size':>5} {'dpi':>5} {'em px':>6} {'measured ns':>12} {'charged ns':>11} {'ratio':>6}")
    glyphs = a.lines * a.chars
    empty = page(0, 0, 9)
    for size in (float(s) for s in a.sizes.split(",")):
        data = page(a.lines, a.chars, size)
        for dpi in (float(d) for d in a.dpi.split(",")):
            measured = (render_cpu(data, dpi, a.rounds) - render_cpu(empty, dpi, a.rounds)) / glyphs * 1e9
            art = ArtWork(glyphs=1, ems=int(size * size))
            charged = art.glyphs_at(dpi) * NS_PER_PIXEL
            em = size / 72 * dpi
            print(f"{size:5g} {dpi:5g} {em:6.0f} {measured:12.0f} {charged:11.0f} {measured / charged:6.2f}")


if __name__ == "__main__":
    main()
