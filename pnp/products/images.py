"""Exports and the contents sheet: what pnp makes besides the imposed print PDFs.

* ``export_png``: one PNG per distinct item and side, with bleed, for print-on-demand services
  (The Game Crafter's poker card: 825 x 1125 px at 300 dpi), beside an ``index.json``.
* ``export_tts``: Tabletop Simulator deck sheets (up to 10 x 7 faces, the hidden-card face in the
  last slot, at most 4096 x 4096 px), the back image(s) and a JSON saying which sheet and slot
  holds which item.
* ``preview``: one piece (front and back side by side) or a contact sheet of a component.
* ``render_contents``: the one-page contents sheet ``pnp build`` writes beside the PDFs: what was
  printed, the paper and cut settings, and what is needed but not printed.

One drawing path: every raster image is pnp's own PDF (``pnp.render.draw.render``: the print-shop pages
of ``pnp.render.component.render_component``, or a page composed of slots holding piece layouts) rasterised by
PDFium (pypdfium2). Nothing is drawn a second way. Each page is rendered straight into a bitmap of
its exact pixel size, the page mapped onto it per axis, so the size is
``round(mm / 25.4 * dpi)`` on each axis (63.5 x 88.9 mm + 3.175 mm bleed at 300 dpi:
825 x 1125) with no resampling. Each export's files are written all or nothing
(``pnp.render.write.FileSet``): staged beside their final names, renamed into place when all are."""

from __future__ import annotations

import io
import json
import math
import struct
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from pnp.errors import DataError, Diagnostic, did_you_mean
from pnp.impose.sheet import Edges, Page, Paper, Slot
from pnp.input.model import Component, Game, Item
from pnp.layout.fonts import UI_FONT, FontBook
from pnp.layout.piece import PieceLayout
from pnp.layout.primitives import Primitive
from pnp.plan.component import ComponentPlan
from pnp.qa.check import GameCheck
from pnp.render.draw import DocInfo, render
from pnp.render.pixels import ArtWork
from pnp.render.raster import render_rgb, render_stepwise
from pnp.units import MM, MM_PER_INCH

if TYPE_CHECKING:  # PDFium and Pillow load only for exports: a build's contents sheet needs neither
    import pypdfium2 as pdfium
    from PIL import Image


FORMAT_VERSION = 1


def px(mm: float, dpi: float) -> int:
    """Millimetres to whole pixels at ``dpi``, rounding half up (never Python's half-to-even)."""
    return math.floor(mm / MM_PER_INCH * dpi + 0.5 + 1e-9)


# --------------------------------------------------------------------------- pieces


class Distinct(Struct, frozen=True):
    """One distinct item of a component with its laid-out sides."""

    item: Item
    front: PieceLayout
    back: PieceLayout | None


def _first_copies(plan: ComponentPlan) -> Iterator[tuple[Item, int]]:
    """Each item in data order with the index of its first copy in ``plan.fronts``/``backs``
    (which hold one layout per copy)."""
    i = 0
    for item in plan.component.items:
        yield item, i
        i += item.copies


def distinct(plan: ComponentPlan) -> list[Distinct]:
    """The component's items in data order, each with its sides."""
    return [Distinct(item, plan.fronts[i], plan.backs[i]) for item, i in _first_copies(plan)]


def item_backs(plan: ComponentPlan) -> list[PieceLayout | None]:
    """Each distinct item's back, as ``distinct`` gives them, without laying out a front."""
    return [plan.backs[i] for _, i in _first_copies(plan)]


def distinct_backs(plan: ComponentPlan) -> set[tuple[Primitive, ...]]:
    """What the distinct items' backs draw: one entry per back image of ``pnp export png``."""
    return {b.primitives for b in item_backs(plan) if b is not None}


def select_plans(gc: GameCheck, component: str | None) -> list[ComponentPlan]:
    """Every plan, or the one of ``component``; an unknown id is an input error naming the valid ones."""
    if component is None:
        return list(gc.plans)
    for p in gc.plans:
        if p.component.id == component:
            return [p]
    ids = [p.component.id for p in gc.plans]
    raise DataError([Diagnostic(gc.game.manifest_file, f"no component {component!r} in game {gc.game.id}",
                                expected=f"one of: {', '.join(ids)}",
                                hint=did_you_mean(component, ids) or "`pnp list` lists the components")])


def select_item(plan: ComponentPlan, item: str) -> Distinct:
    ds = distinct(plan)
    for d in ds:
        if d.item.id == item:
            return d
    ids = [d.item.id for d in ds]
    raise DataError([Diagnostic(plan.component.data_file, f"no item {item!r} in component {plan.component.id}",
                                expected=f"one of: {', '.join(ids)}", hint=did_you_mean(item, ids))])


def _bleed_mm(plan: ComponentPlan) -> float:
    return plan.sheet.bleed / MM


# --------------------------------------------------------------------------- rasterising


@contextmanager
def _pdf(data: bytes) -> Iterator[pdfium.PdfDocument]:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(data)
    try:
        yield doc
    finally:
        doc.close()


# An image charged more than this (its pixels and the art it draws at the dpi, as the pixel budget
# counts them, pnp.render.pixels: ~0.5 s at NS_PER_PIXEL, less as the charge is conservative) is
# rendered in a worker process (pnp.products.workers.isolated): PDFium pauses only between page
# objects, and one costly drawing held Ctrl-C ~5 s (attack 23, F3). A cheaper one is rendered here,
# step by step (render_stepwise): a worker costs its fork and memory copied on write, ~20 % of
# the CPU of exporting the Golems cards at 300 dpi.
ISOLATED_PIXELS = 20_000_000


def costly(pixels: int, art: ArtWork, dpi: float) -> bool:
    """Whether an image of ``pixels`` drawing ``art`` at ``dpi`` is rendered in a worker
    (ISOLATED_PIXELS); PDFium and Pillow then loaded here, before the fork, not in each worker."""
    if pixels + art.at(dpi) <= ISOLATED_PIXELS:
        return False
    import pypdfium2  # noqa: F401
    from PIL import Image  # noqa: F401

    return True


MAX_EXPORT_PIXELS = 250_000_000  # one exported image: e.g. a 60 cm square board at 600 dpi (~200 Mpx)
BAND_PIXELS = 16_000_000  # an image larger than this is rendered and written in bands of this size


def check_pixels(size: tuple[int, int], what: str) -> None:
    """DataError, before anything is rendered or written, for an image of more than
    MAX_EXPORT_PIXELS pixels (a big board at a high --dpi)."""
    w, h = size
    if w * h > MAX_EXPORT_PIXELS:
        raise DataError([Diagnostic(what, f"the image would be {w} x {h} = {w * h} pixels, more than pnp's "
                                    f"limit of {MAX_EXPORT_PIXELS}", expected=f"at most {MAX_EXPORT_PIXELS} pixels",
                                    hint="lower --dpi")])


def raster(doc: pdfium.PdfDocument, index: int, size: tuple[int, int]) -> Image.Image:
    """Page ``index`` rendered into exactly ``size`` pixels, RGB on white: PDFium maps the page
    onto the bitmap per axis (``PdfPage.render`` takes one scale and rounds each side up).
    DataError for more than MAX_EXPORT_PIXELS pixels."""
    check_pixels(size, f"page {index + 1}")
    page = doc[index]
    try:
        return render_rgb(page, *size)
    finally:
        page.close()


def banded_png(doc: pdfium.PdfDocument, index: int, size: tuple[int, int], dpi: float) -> bytes:
    """Page ``index`` as an RGB PNG of exactly ``size`` pixels, as ``raster`` maps it, rendered in
    bands of at most BAND_PIXELS pixels and compressed band by band: memory stays near one band
    (plus the compressed file) however large the image (180 Mpx: ~200 MB, 2 s). Within a few rows
    of a band's edge, PDFium may anti-alias a hairline's pixels otherwise than in one whole render
    (on the calibration sheet in 37-row bands: 4 rows, by up to 20/255).
    DataError above MAX_EXPORT_PIXELS."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    w, h = size
    check_pixels(size, f"page {index + 1}")
    parts = [_png_head(w, h, dpi)]
    z = zlib.compressobj(6)
    band = max(1, BAND_PIXELS // w)
    page = doc[index]
    try:
        for y0 in range(0, h, band):
            bh = min(band, h - y0)
            bitmap = pdfium.PdfBitmap.new_native(w, bh, pdfium_c.FPDFBitmap_BGR, rev_byteorder=True)
            pdfium_c.FPDFBitmap_FillRect(bitmap.raw, 0, 0, w, bh, 0xFFFFFFFF)
            render_stepwise(bitmap.raw, page.raw, 0, -y0, w, h)
            buf = bytes(bitmap.buffer)
            stride = bitmap.stride
            out = [z.compress(b"\x00" + buf[r * stride:r * stride + 3 * w]) for r in range(bh)]
            parts += [_chunk(b"IDAT", b"".join(out))] if any(out) else []
            bitmap.close()
    finally:
        page.close()
    parts += [_chunk(b"IDAT", z.flush()), _chunk(b"IEND", b"")]
    return b"".join(parts)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _png_head(w: int, h: int, dpi: float) -> bytes:
    """The signature, IHDR (8-bit RGB) and pHYs chunks of a ``w`` x ``h`` PNG at ``dpi``."""
    ppm = int(dpi / 0.0254 + 0.5)  # pixels per metre, as Pillow writes pHYs
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + _chunk(b"pHYs", struct.pack(">IIB", ppm, ppm, 1)))


def png_bytes(img: Image.Image, dpi: float, fast: bool = False) -> bytes:
    """``img`` as PNG bytes (Pillow's per-row filters, zlib level 6). ``fast``, which ``pnp
    export png`` uses: no per-row filter and zlib level 2, the same pixels encoded in about 60 %
    of the time of Pillow's default (and of its run-length strategy's 70 %), files about as large
    (rendered vector art is flat colour, which filters do not help; measured on the Golems cards:
    7.8 ms and 78 KB a card against 18.6 ms and 82 KB). Only for an RGB image."""
    if fast:
        assert img.mode == "RGB", img.mode
        w, h = img.size
        raw, stride = img.tobytes(), 3 * w
        z = zlib.compressobj(2)
        data = z.compress(b"".join(b"\x00" + raw[r * stride:(r + 1) * stride] for r in range(h))) + z.flush()
        return _png_head(w, h, dpi) + _chunk(b"IDAT", data) + _chunk(b"IEND", b"")
    buf = io.BytesIO()
    img.save(buf, format="PNG", dpi=(dpi, dpi))
    return buf.getvalue()


def compose(paper: Paper, placed: Sequence[tuple[PieceLayout, float, float] | tuple[PieceLayout, float, float, float]],
            fonts: FontBook, info: DocInfo) -> bytes:
    """A one-page PDF of size ``paper`` with each layout's trim at (x, y) (pt, origin bottom-left),
    clipped to its trim (grown by an optional fourth value, pt); drawn in order by
    ``pnp.render.draw.render``."""
    layouts = [p[0] for p in placed]
    slots = tuple(Slot(i, "front", p[1], p[2], p[0].width, p[0].height, Edges(*[p[3] if len(p) > 3 else 0.0] * 4))
                  for i, p in enumerate(placed))
    return render([Page(1, "front", slots, ())], paper, layouts, [None] * len(layouts), fonts, info)


def _info(game: Game, title: str, subject: str) -> DocInfo:
    return DocInfo(title=f"{game.title} — {title}", author=game.designer, subject=subject, ui_font=UI_FONT)


def json_bytes(data: Mapping[str, Any]) -> bytes:
    """An export's JSON file: indented, UTF-8, a newline at the end."""
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _stale(folder: Path, index: Path, keep: set[str], listed: Callable[[dict[str, Any]], list[Any]]) -> list[Path]:
    """The images a previous export of this folder listed (in ``index``) that this one no longer
    writes (a renamed item), to remove with the new set (``FileSet.drop``) so the folder matches
    its JSON; never anything else."""
    try:
        old = json.loads(index.read_text(encoding="utf-8"))
        names = listed(old)
    except (OSError, ValueError, AttributeError, TypeError):
        return []
    return [folder / name for name in names
            if isinstance(name, str) and name.endswith(".png") and name not in keep and Path(name).name == name]


# --------------------------------------------------------------------------- PNG


class Exported(Struct, frozen=True):
    """The images (and index) one component was exported to."""

    component: Component
    folder: Path
    files: tuple[Path, ...]  # images, in order
    index: Path  # the JSON beside them
    size_px: tuple[int, int]  # one image (PNG: a piece with bleed; TTS: one sheet's face)

