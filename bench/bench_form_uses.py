"""What PDFium holds to rasterise a page that draws SVG art many times (pnp.render.pixels,
MAX_IMAGE_SHAPES): a form XObject of ``shapes`` see-through rectangles (as svglib writes them,
each with its own graphics state), drawn ``uses`` times on one 63 x 88 mm page, rendered once at
300 dpi in a fresh process; its peak RSS over that of the same process rendering an empty page,
per drawn shape. PDFium parses a form again for every use, so what it holds grows with shapes x
uses, not with the PDF's bytes. ``--path N``: each shape a path of N segments instead.

    python bench/bench_form_uses.py [--path N]
"""

from __future__ import annotations

import io
import json
import subprocess
import sys

from reportlab.pdfgen import canvas

from pnp.units import MM

W, H = 63 * MM, 88 * MM


def pdf(shapes: int, uses: int, segments: int = 0) -> bytes:
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(W, H))
    c.beginForm("art", upperx=100, uppery=100)
    for i in range(shapes):
        c.saveState()
        c.setFillColorRGB(1, 0, 0)
        c.setFillAlpha(0.3)
        if segments:
            p = c.beginPath()
            p.moveTo(0, 0)
            for k in range(segments):
                p.lineTo(100 * ((k + i) % 7) / 7, 100 * (k % 5) / 5)
            p.close()
            c.drawPath(p, stroke=0, fill=1)
        else:
            c.rect(0, 0, 100, 100, stroke=0, fill=1)
        c.restoreState()
    c.endForm()
    for u in range(uses):
        c.saveState()
        c.translate((u % 20) * 5, (u // 20) * 5)
        c.scale(0.5, 0.5)
        c.doForm("art")
        c.restoreState()
    c.showPage()
    c.save()
    return buf.getvalue()


CHILD = r"""
import resource, sys, pypdfium2 as pdfium
data = open(sys.argv[1], 'rb').read()
doc = pdfium.PdfDocument(data)
page = doc[0]
bmp = page.render(scale=300 / 72)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def peak(data: bytes, path: str = "/tmp/bench_form_uses.pdf") -> int:
    """Peak RSS (KB) of a fresh process rendering ``data``'s first page at 300 dpi."""
    with open(path, "wb") as f:
        f.write(data)
    out = subprocess.run([sys.executable, "-c", CHILD, path], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[-1])


def main() -> None:
    segments = int(sys.argv[sys.argv.index("--path") + 1]) if "--path" in sys.argv else 0
    base = peak(pdf(0, 0))
    rows = []
    for shapes, uses in ((5000, 20), (5000, 40), (5000, 80), (1000, 400), (100, 4000), (20000, 10)):
        kb = peak(pdf(shapes, uses, segments)) - base
        rows.append({"shapes": shapes, "uses": uses, "drawn": shapes * uses, "peak_mb": round(kb / 1024, 1),
                     "bytes_per_shape": round(kb * 1024 / (shapes * uses))})
        print(json.dumps(rows[-1]), flush=True)


if __name__ == "__main__":
    main()
