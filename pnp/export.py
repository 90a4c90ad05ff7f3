"""Exports and the contents sheet: what pnp makes besides the imposed print PDFs.

* ``export_png``: one PNG per distinct item and side, with bleed, for print-on-demand services
  (The Game Crafter's poker card: 825 x 1125 px at 300 dpi), beside an ``index.json``.
* ``export_tts``: Tabletop Simulator deck sheets (up to 10 x 7 faces, the hidden-card face in the
  last slot, at most 4096 x 4096 px), the back image(s) and a JSON saying which sheet and slot
  holds which item.
* ``preview``: one piece (front and back side by side) or a contact sheet of a component.
* ``render_contents``: the one-page contents sheet ``pnp build`` writes beside the PDFs: what was
  printed, the paper and cut settings, and what is needed but not printed.

One drawing path: every raster image is pnp's own PDF (``pnp.draw.render``: the print-shop pages
of ``pipeline.render_component``, or a page composed of slots holding piece layouts) rasterised by
PDFium (pypdfium2). Nothing is drawn a second way. Each page is rendered straight into a bitmap of
its exact pixel size, the page mapped onto it per axis, so the size is
``round(mm / 25.4 * dpi)`` on each axis (63.5 x 88.9 mm + 3.175 mm bleed at 300 dpi:
825 x 1125) with no resampling. All files are written atomically (``pnp.write.write_atomic``)."""

from __future__ import annotations

import io
import json
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec import Struct
from msgspec.structs import replace

from pnp import __version__, kinds
from pnp.assembly import sections
from pnp.draw import DocInfo, render
from pnp.errors import DataError, Diagnostic, counted
from pnp.fonts import FontBook
from pnp.impose import PAPERS, Edges, Page, Paper, Slot
from pnp.layout import MM, PieceLayout
from pnp.model import Component, Game, Item
from pnp.pipeline import UI_FONT, BuildOptions, ComponentPlan, GameCheck, Session, pages_for, render_component
from pnp.primitives import Line, Paint, Primitive, Rect
from pnp.primitives import Path as PathPrim
from pnp.project import DataRoot, bundled_root
from pnp.sheetmarks import scale_square
from pnp.text import Style, TextLayout
from pnp.version import data_version
from pnp.write import write_atomic

if TYPE_CHECKING:  # PDFium and Pillow load only for exports: a build's contents sheet needs neither
    import pypdfium2 as pdfium
    from PIL import Image

FORMAT_VERSION = 1
# The contents and assembly pages are set in the UI font's family, which labels every sheet: they
# add no font to a build (each further TrueType font costs 3-5 ms to load).
HEAD_FONT = "Lato-Bold"
TTS_MAX_PX = 4096  # Tabletop Simulator: keep every sheet at most this wide and tall
TTS_MAX_COLS, TTS_MAX_ROWS = 10, 7
TTS_MIN_GRID = 2  # TTS's deck import takes 2..10 columns and 2..7 rows
# TTS CustomDeck "Type": 0 rounded rectangle, 1 rectangle, 2 rounded hex, 3 hex, 4 circle
TTS_TYPES = {"rounded": 0, "rect": 1, "square": 1, "hex": 3, "round": 4}

# Preview layout, mm
PREVIEW_MARGIN = 8.0
PREVIEW_GAP = 6.0
PREVIEW_CAPTION = 5.0
PREVIEW_TITLE = 9.0
PREVIEW_BG = "#e8e5de"
MASK_OVERLAP = 2.0  # pt the mask of a round piece reaches past its trim (no seam at the edge)


def px(mm: float, dpi: float) -> int:
    """Millimetres to whole pixels at ``dpi``, rounding half up (never Python's half-to-even)."""
    return math.floor(mm / 25.4 * dpi + 0.5 + 1e-9)


# --------------------------------------------------------------------------- pieces


class Distinct(Struct, frozen=True):
    """One distinct item of a component with its laid-out sides."""

    item: Item
    front: PieceLayout
    back: PieceLayout | None


def distinct(plan: ComponentPlan) -> list[Distinct]:
    """The component's items in data order; ``plan.fronts`` holds one layout per copy."""
    out: list[Distinct] = []
    i = 0
    for item in plan.component.items:
        out.append(Distinct(item, plan.fronts[i], plan.backs[i]))
        i += item.copies
    return out


def select_plans(gc: GameCheck, component: str | None) -> list[ComponentPlan]:
    """Every plan, or the one of ``component``; an unknown id is an input error naming the valid ones."""
    if component is None:
        return list(gc.plans)
    for p in gc.plans:
        if p.component.id == component:
            return [p]
    ids = ", ".join(p.component.id for p in gc.plans)
    raise DataError([Diagnostic(gc.game.manifest_file, f"no component {component!r} in game {gc.game.id}",
                                expected=f"one of: {ids}", hint="run `pnp list` to see the components")])


def select_item(plan: ComponentPlan, item: str) -> Distinct:
    ds = distinct(plan)
    for d in ds:
        if d.item.id == item:
            return d
    ids = ", ".join(d.item.id for d in ds)
    raise DataError([Diagnostic(plan.component.data_file, f"no item {item!r} in component {plan.component.id}",
                                expected=f"one of: {ids}")])


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


def raster(doc: pdfium.PdfDocument, index: int, size: tuple[int, int]) -> Image.Image:
    """Page ``index`` rendered into exactly ``size`` pixels, RGB on white: PDFium maps the page
    onto the bitmap per axis (``PdfPage.render`` takes one scale and rounds each side up)."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    page = doc[index]
    try:
        w, h = size
        bitmap = pdfium.PdfBitmap.new_native(w, h, pdfium_c.FPDFBitmap_BGR, rev_byteorder=True)
        pdfium_c.FPDFBitmap_FillRect(bitmap.raw, 0, 0, w, h, 0xFFFFFFFF)
        pdfium_c.FPDF_RenderPageBitmap(bitmap.raw, page.raw, 0, 0, w, h, 0,
                                       pdfium_c.FPDF_ANNOT | pdfium_c.FPDF_REVERSE_BYTE_ORDER)
        return bitmap.to_pil().convert("RGB")
    finally:
        page.close()


def png_bytes(img: Image.Image, dpi: float) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="PNG", dpi=(dpi, dpi))
    return buf.getvalue()


def compose(paper: Paper, placed: Sequence[tuple[PieceLayout, float, float] | tuple[PieceLayout, float, float, float]],
            fonts: FontBook, info: DocInfo) -> bytes:
    """A one-page PDF of size ``paper`` with each layout's trim at (x, y) (pt, origin bottom-left),
    clipped to its trim (grown by an optional fourth value, pt); drawn in order by
    ``pnp.draw.render``."""
    layouts = [p[0] for p in placed]
    slots = tuple(Slot(i, "front", p[1], p[2], p[0].width, p[0].height, Edges(*[p[3] if len(p) > 3 else 0.0] * 4))
                  for i, p in enumerate(placed))
    return render([Page(1, "front", slots, ())], paper, layouts, [None] * len(layouts), fonts, info)


def _info(game: Game, title: str, subject: str) -> DocInfo:
    return DocInfo(title=f"{game.title} — {title}", author=game.designer, subject=subject, ui_font=UI_FONT)


def _write_json(path: Path, data: Mapping[str, Any]) -> None:
    write_atomic(path, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


def _remove_stale(folder: Path, index: Path, keep: set[str],
                  listed: Callable[[dict[str, Any]], list[Any]]) -> None:
    """Delete the images a previous export of this folder listed (in ``index``) that this one no
    longer writes (a renamed item), so the folder matches its JSON; never anything else."""
    try:
        old = json.loads(index.read_text(encoding="utf-8"))
        names = listed(old)
    except (OSError, ValueError, AttributeError, TypeError):
        return
    for name in names:
        if isinstance(name, str) and name.endswith(".png") and name not in keep and Path(name).name == name:
            with suppress(OSError):
                (folder / name).unlink()


# --------------------------------------------------------------------------- PNG


class Exported(Struct, frozen=True):
    """The images (and index) one component was exported to."""

    component: Component
    folder: Path
    files: tuple[Path, ...]  # images, in order
    index: Path  # the JSON beside them
    size_px: tuple[int, int]  # one image (PNG: a piece with bleed; TTS: one sheet's face)


def export_png(session: Session, gc: GameCheck, out: Path, dpi: float = 300,
               component: str | None = None) -> Iterator[Exported]:
    """Write ``out/<game>/png/<component>/<item>-front.png`` (and ``-back.png``) for every
    distinct item, with bleed, RGB, plus ``index.json``. ``gc`` should come from
    ``check(..., BuildOptions(one_per_page=True, bleed_mm=...))``; any plan is redrawn as
    print-shop pages (page = trim + bleed)."""
    plans = select_plans(gc, component)
    for plan in plans:
        ds = distinct(plan)
        sub = replace(plan, fronts=tuple(d.front for d in ds), backs=tuple(d.back for d in ds),
                      placement="print-shop", grid=None)
        data, _ = render_component(session, gc.game, sub)
        pages = pages_for(sub)
        w_mm, h_mm = plan.component.size
        b = _bleed_mm(plan)
        size = (px(w_mm + 2 * b, dpi), px(h_mm + 2 * b, dpi))
        folder = out / gc.game.id / "png" / plan.component.id
        names: dict[int, dict[str, str]] = {}
        files: list[Path] = []
        with _pdf(data) as doc:
            for i, page in enumerate(pages):
                slot = page.slots[0]
                item = ds[slot.piece].item
                name = f"{item.id}-{page.side}.png"
                img = raster(doc, i, size)
                assert img.size == size, (img.size, size)
                path = folder / name
                write_atomic(path, png_bytes(img, dpi))
                names.setdefault(slot.piece, {})[page.side] = name
                files.append(path)
        index_path = folder / "index.json"
        _remove_stale(folder, index_path, {p.name for p in files},
                      lambda old: [n for it in old.get("items", []) for n in (it.get("front"), it.get("back"))])
        comp = plan.component
        _write_json(index_path, {
            "format": "pnp-png", "version": FORMAT_VERSION,
            "game": gc.game.id, "component": comp.id, "title": comp.title,
            "dpi": dpi, "trim_mm": list(comp.size), "bleed_mm": round(b, 4), "size_px": list(size),
            "pieces": comp.pieces,
            "items": [{"id": d.item.id, "copies": d.item.copies, "front": names[i]["front"],
                       "back": names[i].get("back")} for i, d in enumerate(ds)],
        })
        yield Exported(comp, folder, tuple(files), index_path, size)


# --------------------------------------------------------------------------- Tabletop Simulator


def tts_grid(slots: int, face: tuple[int, int]) -> tuple[int, int]:
    """(cols, rows) for ``slots`` faces (the hidden face included): the fewest slots, then the
    largest faces once the sheet is scaled into 4096 x 4096, then the fewest rows."""
    if not 1 <= slots <= TTS_MAX_COLS * TTS_MAX_ROWS:
        raise ValueError(f"a TTS sheet holds 1 to {TTS_MAX_COLS * TTS_MAX_ROWS} faces, not {slots}")
    best: tuple[tuple[int, float, int], tuple[int, int]] | None = None
    for rows in range(TTS_MIN_GRID, TTS_MAX_ROWS + 1):
        for cols in range(TTS_MIN_GRID, TTS_MAX_COLS + 1):
            if cols * rows < slots:
                continue
            key = (cols * rows, -_tts_scale(cols, rows, face), rows)
            if best is None or key < best[0]:
                best = (key, (cols, rows))
    assert best is not None
    return best[1]


def _tts_scale(cols: int, rows: int, face: tuple[int, int]) -> float:
    return min(1.0, TTS_MAX_PX / (cols * face[0]), TTS_MAX_PX / (rows * face[1]))


def _title_face(fonts: FontBook, game: Game, comp: Component) -> PieceLayout:
    """A plain face naming the component: the hidden face when the backs differ by item."""
    w, h = comp.size[0] * MM, comp.size[1] * MM
    tl = TextLayout(fonts)
    m = min(w, h) * 0.1
    prims: list[Primitive] = [Rect(0, 0, w, h, Paint(fill="#3b3731"))]
    t, _ = tl.fit(comp.title, Style("Vollkorn-Bold", size=max(6.0, min(w, h) * 0.14), color="#f4efe6",
                                    align="center", valign="bottom"),
                  (m, h * 0.5, w - 2 * m, h * 0.4), markup=False, min_size=4)
    g, _ = tl.fit(game.title, Style("Lato-Regular", size=max(5.0, min(w, h) * 0.08), color="#c9c0b0",
                                    align="center", valign="top"),
                  (m, h * 0.1, w - 2 * m, h * 0.36), markup=False, min_size=3)
    return PieceLayout(w, h, 0.0, (*prims, *t, *g))


def _tts_sheet(layouts: Sequence[PieceLayout | None], cols: int, rows: int, fonts: FontBook,
               info: DocInfo, face: tuple[int, int]) -> Image.Image:
    """A sheet of ``cols`` x ``rows`` trims (slot k at column k % cols, row k // cols from the
    top); None leaves a slot white. Each slot is exactly ``face`` pixels."""
    first = next(lay for lay in layouts if lay is not None)
    w, h = first.width, first.height
    placed = [(lay, (k % cols) * w, (rows - 1 - k // cols) * h) for k, lay in enumerate(layouts) if lay is not None]
    data = compose(Paper("tts-sheet", cols * w, rows * h), placed, fonts, info)
    with _pdf(data) as doc:
        return raster(doc, 0, (cols * face[0], rows * face[1]))


def export_tts(session: Session, gc: GameCheck, out: Path, dpi: float = 300,
               component: str | None = None) -> tuple[list[Exported], list[Component]]:
    """Tabletop Simulator deck sheets for every component with a back (or ``component``, which
    must have one). Returns (exported, skipped components without a back)."""
    plans = select_plans(gc, component)
    if component is not None and all(b is None for b in plans[0].backs):
        raise DataError([Diagnostic(gc.game.manifest_file,
                                    f"component {component!r} has no back; a Tabletop Simulator deck needs one",
                                    expected="a component with `back`",
                                    hint="`pnp export png` exports pieces without backs")])
    done: list[Exported] = []
    skipped: list[Component] = []
    for plan in plans:
        if all(b is None for b in plan.backs):
            skipped.append(plan.component)
            continue
        done.append(_export_tts_component(session, gc, plan, out, dpi))
    return done, skipped


def _export_tts_component(session: Session, gc: GameCheck, plan: ComponentPlan, out: Path,
                          dpi: float) -> Exported:
    comp, game, fonts = plan.component, gc.game, session.fonts
    ds = distinct(plan)
    backs = [d.back for d in ds]
    uniform = len(set(backs)) == 1 and backs[0] is not None
    hidden = backs[0] if uniform else _title_face(fonts, game, comp)
    per_sheet = TTS_MAX_COLS * TTS_MAX_ROWS - 1  # the last slot is the hidden face
    chunks = [ds[i:i + per_sheet] for i in range(0, len(ds), per_sheet)]
    native = (px(comp.size[0], dpi), px(comp.size[1], dpi))
    grids = [tts_grid(len(c) + 1, native) for c in chunks]
    scale = min(_tts_scale(cols, rows, native) for cols, rows in grids)
    face = (max(1, math.floor(native[0] * scale)), max(1, math.floor(native[1] * scale)))
    folder = out / game.id / "tts" / comp.id
    info = _info(game, comp.title, f"pnp Tabletop Simulator sheet: {game.id}/{comp.id}")
    files: list[Path] = []
    custom: dict[str, Any] = {}
    sheets: list[dict[str, Any]] = []
    cards: list[dict[str, Any]] = []
    deck_ids: list[int] = []
    back_name = f"{comp.id}-back.png"
    if uniform:
        assert hidden is not None
        img = _tts_sheet([hidden], 1, 1, fonts, info, face)
        write_atomic(folder / back_name, png_bytes(img, dpi * scale))
    for n, (chunk, (cols, rows)) in enumerate(zip(chunks, grids, strict=True), start=1):
        slots: list[PieceLayout | None] = [d.front for d in chunk] + [None] * (cols * rows - len(chunk))
        slots[-1] = hidden
        name = f"{comp.id}-{n}.png"
        img = _tts_sheet(slots, cols, rows, fonts, info, face)
        assert img.width <= TTS_MAX_PX and img.height <= TTS_MAX_PX
        write_atomic(folder / name, png_bytes(img, dpi * scale))
        files.append(folder / name)
        sheet_back = back_name
        if not uniform:
            sheet_back = f"{comp.id}-{n}-back.png"
            bslots: list[PieceLayout | None] = [d.back for d in chunk] + [None] * (cols * rows - len(chunk))
            bslots[-1] = hidden
            write_atomic(folder / sheet_back, png_bytes(_tts_sheet(bslots, cols, rows, fonts, info, face),
                                                        dpi * scale))
            files.append(folder / sheet_back)
        custom[str(n)] = {"FaceURL": name, "BackURL": sheet_back, "NumWidth": cols, "NumHeight": rows,
                          "BackIsHidden": False, "UniqueBack": not uniform,
                          "Type": TTS_TYPES.get(comp.shape, 1)}
        sheets.append({"deck": n, "file": name, "back": sheet_back, "cols": cols, "rows": rows,
                       "size_px": [img.width, img.height], "items": len(chunk), "hidden_slot": cols * rows - 1})
        for slot, d in enumerate(chunk):
            card_id = n * 100 + slot
            cards.append({"item": d.item.id, "copies": d.item.copies, "deck": n, "file": name, "slot": slot,
                          "card_id": card_id})
            deck_ids.extend([card_id] * d.item.copies)
    if uniform:
        files.append(folder / back_name)
    index_path = folder / f"{comp.id}.json"
    _remove_stale(folder, index_path, {p.name for p in files},
                  lambda old: [f for s in old.get("sheets", []) for f in (s.get("file"), s.get("back"))])
    _write_json(index_path, {
        "format": "pnp-tts", "version": FORMAT_VERSION,
        "game": game.id, "component": comp.id, "title": comp.title,
        "shape": comp.shape, "size_mm": list(comp.size), "sideways": comp.size[0] > comp.size[1],
        "face_px": list(face), "pieces": comp.pieces,
        "hidden_face": "back" if uniform else "title",
        "CustomDeck": custom,
        "DeckIDs": deck_ids,
        "sheets": sheets,
        "cards": cards,
    })
    return Exported(comp, folder, tuple(files), index_path, face)


# --------------------------------------------------------------------------- preview


def _caption(tl: TextLayout, text: str, x: float, y: float, w: float, h: float, size: float = 7.0,
             font: str = "Lato-Regular", color: str = "#3b3731", valign: str = "top") -> list[Primitive]:
    prims, _ = tl.fit(text, Style(font, size=size, color=color, align="center", valign=valign),
                      (x, y, w, h), markup=False, wrap=False, min_size=3.5)
    return prims


def preview(session: Session, gc: GameCheck, out: Path, component: str, item: str | None = None,
            dpi: float = 150) -> Path:
    """``out/preview/<game>-<component>[-<item>].png``: one item's front and back side by side, or
    without ``item`` a contact sheet of every distinct item (and each distinct back), at the trim."""
    plan = select_plans(gc, component)[0]
    comp, game, fonts = plan.component, gc.game, session.fonts
    pw, ph = comp.size[0] * MM, comp.size[1] * MM
    m, g, cap, top = (v * MM for v in (PREVIEW_MARGIN, PREVIEW_GAP, PREVIEW_CAPTION, PREVIEW_TITLE))
    cells: list[tuple[PieceLayout, str]] = []
    if item is not None:
        d = select_item(plan, item)
        cells.append((d.front, "front"))
        if d.back is not None:
            cells.append((d.back, "back"))
        cols = len(cells)
        title = f"{game.title} — {comp.title} — {d.item.id}" + (f" (x{d.item.copies})" if d.item.copies > 1 else "")
    else:
        ds = distinct(plan)
        cells = [(d.front, d.item.id + (f"  x{d.item.copies}" if d.item.copies > 1 else "")) for d in ds]
        users: dict[PieceLayout, list[str]] = {}
        for d in ds:
            if d.back is not None:
                users.setdefault(d.back, []).append(d.item.id)
        for b, ids in users.items():
            more = f" +{len(ids) - 1}" if len(ids) > 1 else ""
            cells.append((b, "back" if len(users) == 1 else f"back of {ids[0]}{more}"))
        cols = _contact_cols(len(cells), pw + g, ph + cap + g)
        title = f"{game.title} — {comp.title}: {comp.pieces} pieces, {len(ds)} distinct"
    rows = math.ceil(len(cells) / cols)
    width = 2 * m + cols * pw + (cols - 1) * g
    height = 2 * m + top + rows * (ph + cap) + (rows - 1) * g
    tl = TextLayout(fonts)
    overlay: list[Primitive] = [Rect(0, 0, width, height, Paint(fill=PREVIEW_BG))]
    overlay += _caption(tl, title, m, height - m - top + 2 * MM, width - 2 * m, top - 2 * MM, size=10,
                        font="Lato-Bold", valign="bottom")
    mask = _outside(comp, pw, ph)
    placed: list[tuple[PieceLayout, float, float] | tuple[PieceLayout, float, float, float]] = []
    for k, (lay, label) in enumerate(cells):
        c, r = k % cols, k // cols
        x = m + c * (pw + g)
        y = height - m - top - (r + 1) * (ph + cap) - r * g + cap
        placed.append((lay, x, y))
        if mask is not None:
            placed.append((mask, x, y, MASK_OVERLAP))
        overlay += _caption(tl, label, x - g / 2, y - cap, pw + g, cap - 1.2 * MM)
    page = PieceLayout(width, height, 0.0, tuple(overlay))
    data = compose(Paper("preview", width, height), [(page, 0.0, 0.0), *placed], fonts,
                   _info(game, comp.title, f"pnp preview: {game.id}/{comp.id}"))
    size = (px(width / MM, dpi), px(height / MM, dpi))
    with _pdf(data) as doc:
        img = raster(doc, 0, size)
    path = out / "preview" / f"{game.id}-{comp.id}{'-' + item if item else ''}.png"
    write_atomic(path, png_bytes(img, dpi))
    return path


def _outside(comp: Component, w: float, h: float) -> PieceLayout | None:
    """For round pieces, the background colour outside the cut circle, so a preview shows the
    piece as cut (the square corners are bleed art). The circle winds against the square, so the
    hole is a hole under either fill rule."""
    if comp.shape != "round":
        return None
    k = 0.5523 * w / 2, 0.5523 * h / 2
    cx, cy, rx, ry = w / 2, h / 2, w / 2, h / 2
    e = MASK_OVERLAP
    ops = (("M", (-e, -e)), ("L", (w + e, -e)), ("L", (w + e, h + e)), ("L", (-e, h + e)), ("Z", ()),
           ("M", (cx + rx, cy)),
           ("C", (cx + rx, cy - k[1], cx + k[0], cy - ry, cx, cy - ry)),
           ("C", (cx - k[0], cy - ry, cx - rx, cy - k[1], cx - rx, cy)),
           ("C", (cx - rx, cy + k[1], cx - k[0], cy + ry, cx, cy + ry)),
           ("C", (cx + k[0], cy + ry, cx + rx, cy + k[1], cx + rx, cy)), ("Z", ()))
    return PieceLayout(w, h, e, (PathPrim(ops, Paint(fill=PREVIEW_BG, fill_rule="evenodd")),))


def _contact_cols(n: int, cell_w: float, cell_h: float, aspect: float = 1.5) -> int:
    """Columns that make the sheet's shape closest to ``aspect`` (landscape)."""
    return min(range(1, n + 1), key=lambda c: abs(math.log((c * cell_w) / (math.ceil(n / c) * cell_h) / aspect)))


# --------------------------------------------------------------------------- contents sheet

INK = "#1f1c18"
MUTED = "#6e675d"
ACCENT = "#7a4a24"
HAIRLINE = "#c8c0b2"
SHADE = "#f2eee6"
DUPLEX_TEXT = {
    "long": "Double-sided, flipped on the long edge: each front page is followed by its back page",
    "short": "Double-sided, flipped on the short edge: each front page is followed by its back page",
    "none": "Single-sided: fronts only, no backs printed",
    "fold": "Gutterfold, single-sided: fronts and backs side by side on one page; fold on the fold line, "
            "glue, then cut",
}


def _paper_text(paper: Paper) -> str:
    w, h = paper.width / MM, paper.height / MM
    if paper.name == "letter":
        return f"Letter, 8.5 x 11 in ({w:.0f} x {h:.0f} mm)"
    if paper.name == "universal":
        return (f"Universal, {w:g} x {h:g} mm (the part of the page that A4 and Letter share): print it on A4 or "
                "Letter at actual size")
    return f"{paper.name.upper() if len(paper.name) <= 3 else paper.name.title()}, {w:.0f} x {h:.0f} mm"


def _per_sheet(plan: ComponentPlan) -> str:
    if plan.placement == "print-shop":
        return "1 per page"
    if plan.placement == "page":
        return "1 per page"
    if plan.grid is not None:
        g = plan.grid
        return f"{g.cols} x {g.rows} = {g.cols * g.rows}" + (", turned" if g.rotated else "")
    pages = pages_for(plan)
    part = pages[0].slots[0].part if pages and pages[0].slots else None
    if part is not None:
        return f"{part.rows} x {part.cols} parts, glued"
    return "1 per page"


def _correction_text(opts: BuildOptions) -> str:
    (dx, dy), (sx, sy) = getattr(opts, "back_offset", (0.0, 0.0)), getattr(opts, "back_scale", (1.0, 1.0))
    moves = [f"{abs(v):g} mm {pos if v > 0 else neg}" for v, pos, neg in ((dx, "right", "left"), (dy, "up", "down"))
             if v]
    parts = ["moved " + " and ".join(moves)] if moves else []
    if (sx, sy) != (1.0, 1.0):
        parts.append(f"scaled {sx:g} across, {sy:g} up" if sx != sy else f"scaled {sx:g}")
    if not parts or opts.one_per_page:
        return ""
    return "Back pages " + " and ".join(parts) + " to match this printer's duplex (measured with pnp calibrate)"


def _kind_text(comp: Component) -> str:
    k = kinds.get(comp.kind)
    return comp.kind if len(k.shapes) == 1 else f"{comp.kind}, {comp.shape}"


Cell = tuple[float, float, bool, Sequence[tuple[str, Style]]]  # x, width, wrap, stacked lines


class _Sheet:
    """A cursor from the top of the page down; every text goes through ``TextLayout``."""

    def __init__(self, fonts: FontBook, width: float, height: float, margin: float, k: float):
        self.tl = TextLayout(fonts)
        self.w, self.h, self.m, self.k = width, height, margin, k
        self.y = height - margin
        self.prims: list[Primitive] = []

    def style(self, font: str, size: float, color: str = INK, align: str = "left", **kw: Any) -> Style:
        return Style(font, size=size * self.k, color=color, align=align, valign="top", leading=1.25, **kw)

    def text(self, s: str, st: Style, x: float, w: float, top: float, wrap: bool = True) -> float:
        """Draw ``s`` from ``top`` down in a column (x, w); returns the height used."""
        prims, fit = self.tl.fit(s, st, (x, top - 2000, w, 2000), markup=False, wrap=wrap,
                                 min_size=st.size * 0.6)
        self.prims.extend(prims)
        return max(1, fit.lines) * fit.size * st.leading

    def gap(self, mm: float) -> None:
        self.y -= mm * MM * self.k

    def rule(self, color: str = HAIRLINE, width: float = 0.5) -> None:
        self.prims.append(Line(self.m, self.y, self.w - self.m, self.y, Paint(stroke=color, stroke_width=width)))

    def box(self, x: float, top: float, size: float) -> None:
        self.prims.append(Rect(x, top - size, size, size, Paint(stroke=INK, stroke_width=0.6), radius=1.0))

    def heading(self, s: str, note: str = "") -> None:
        st = self.style(HEAD_FONT, 14, ACCENT)
        h = self.text(s, st, self.m, self.w - 2 * self.m, self.y)
        if note:
            self.text(note, self.style("Lato-Regular", 8.5, MUTED, align="right"), self.m, self.w - 2 * self.m,
                      self.y - (h - 8.5 * self.k * 1.25) / 2 - 2 * self.k)
        self.y -= h + 2 * self.k
        self.rule(ACCENT, 0.8)
        self.gap(1.5)

    def row(self, cells: Sequence[Cell], check: bool = False, shade: bool = False, pad: float = 3.0) -> None:
        """One table row of cells, each (x, width, wrap, [(text, style), ...] stacked); a checkbox
        at the left margin, level with the first line."""
        top = self.y - pad * self.k
        start = len(self.prims)
        hgt = 0.0
        for x, w, wrap, parts in cells:
            y = top
            for text, st in parts:
                y -= self.text(text, st, x, w, y, wrap)
            hgt = max(hgt, top - y)
        hgt += 2 * pad * self.k
        if shade:
            self.prims.insert(start, Rect(self.m, self.y - hgt, self.w - 2 * self.m, hgt, Paint(fill=SHADE)))
        if check:
            size = 7.5 * self.k
            first = cells[0][3][0][1]
            self.box(self.m + 2 * self.k, top - (first.size * first.leading - size) / 2, size)
        self.y -= hgt


def _derived_options(plans: Sequence[ComponentPlan]) -> BuildOptions:
    bleeds = [p.sheet.bleed / MM for p in plans if kinds.get(p.component.kind).bleed]
    sheet = plans[0].sheet if plans else None
    paper = sheet.paper.name if sheet and sheet.paper.name in PAPERS else "letter"
    return BuildOptions(paper=paper, duplex=sheet.duplex if sheet else "long",
                        bleed_mm=max(set(bleeds), key=bleeds.count) if bleeds else 0.0,
                        one_per_page=any(p.placement == "print-shop" for p in plans),
                        token_cut="circle" if any(p.component.shape == "round" and not p.sheet.abut for p in plans)
                        else "square")


def render_contents(game: Game, plans: Sequence[ComponentPlan], opts: BuildOptions | None = None,
                    pages_per_component: Mapping[str, int] | None = None, *,
                    fonts: FontBook | None = None, session: Session | None = None,
                    preflight: str | None = None) -> bytes:
    """The contents PDF: two pages on the build's paper. Page 1, the contents sheet: what was
    printed (per component: title, kind, size, pieces, pieces per sheet, pages, and with a
    ``session`` its data version), the paper, duplex and bleed settings, and what is needed but
    not printed (``game.not_printed``). Page 2, the assembly page (:func:`assembly_page`). Laid
    out with ``TextLayout`` into primitives and drawn by ``pnp.draw.render`` like any piece.
    ``opts`` and ``pages_per_component`` default to what the plans say. The low-ink variant
    (``--ink-saver``) says so in the settings; ``preflight`` (the build's one-line preflight
    summary) is printed there too."""
    opts = opts or _derived_options(plans)
    fonts = fonts or (session.fonts if session else FontBook(DataRoot(bundled_root()).font_dirs()))
    pages = {p.component.id: (pages_per_component or {}).get(p.component.id) or len(pages_for(p)) for p in plans}
    paper = plans[0].sheet.paper if plans and plans[0].sheet.paper.name == opts.paper else PAPERS[opts.paper]
    versions = ({p.component.id: data_version(session.root, session.store, game, p.component) for p in plans}
                if session is not None else {})
    margin = 15 * MM
    sheet = None
    for k in (1.0, 0.92, 0.85, 0.78, 0.72, 0.66, 0.6, 0.55, 0.5):
        sheet = _contents_page(game, plans, opts, pages, paper, margin, fonts, k, versions, preflight)
        if sheet.y >= margin:
            break
    assert sheet is not None
    layouts = [PieceLayout(paper.width, paper.height, 0.0, tuple(sheet.prims)),
               PieceLayout(paper.width, paper.height, 0.0, tuple(assembly_page(game, plans, opts, paper, fonts)))]
    info = _info(game, "contents and assembly", f"pnp contents sheet: {game.id}")
    full = Edges(0.0, 0.0, 0.0, 0.0)
    pages_out = [Page(i + 1, "front", (Slot(i, "front", 0.0, 0.0, paper.width, paper.height, full),), ())
                 for i in range(len(layouts))]
    return render(pages_out, paper, layouts, [None] * len(layouts), fonts, replace(info, duplex="simplex"))


def assembly_page(game: Game, plans: Sequence[ComponentPlan], opts: BuildOptions, paper: Paper,
                  fonts: FontBook) -> list[Primitive]:
    """The assembly page (``pnp.assembly.sections``) with a 1 in and a 1 cm scale square at the
    top right, shrunk like the contents sheet until it fits."""
    secs = sections(game, plans, opts.duplex, paper, opts.one_per_page, opts.token_cut)
    margin = 15 * MM
    s = None
    for k in (1.0, 0.92, 0.85, 0.78, 0.72, 0.66, 0.6, 0.55, 0.5):
        s = _Sheet(fonts, paper.width, paper.height, margin, k)
        m, W = margin, paper.width - 2 * margin
        inch = 25.4 * MM
        title_w = W - inch - 10 * MM - 4 * MM  # the squares sit right of the title
        top = s.y
        s.y -= s.text(f"{game.title}: printing and assembly", s.style(HEAD_FONT, 20), m, title_w, s.y)
        s.gap(1.5)
        s.y -= s.text("How to print, cut and put together every part of this build, in order.",
                      s.style(UI_FONT, 9, MUTED), m, title_w, s.y)
        s.y = min(s.y, top - inch) - 5 * MM * k
        body = s.style("Lato-Regular", 9.5)
        for sec in secs:
            s.heading(sec.heading)
            for para in sec.paragraphs:
                s.y -= s.text(para, body, m, W, s.y)
                s.gap(2)
            s.gap(3)
        if s.y >= margin:
            break
    assert s is not None
    x_in = paper.width - margin - inch
    for x, side, lines in ((x_in, inch, ["1 in", "print at", "100 % /", "actual size"]),
                           (x_in - 3 * MM - 10 * MM, 10 * MM, ["1 cm"])):
        for p in scale_square(fonts, UI_FONT, side, lines):
            s.prims.append(replace(p, x=p.x + x, y=p.y + top - side))
    return s.prims


def _contents_page(game: Game, plans: Sequence[ComponentPlan], opts: BuildOptions, pages: Mapping[str, int],
                   paper: Paper, margin: float, fonts: FontBook, k: float,
                   versions: Mapping[str, str] | None = None, preflight: str | None = None) -> _Sheet:
    s = _Sheet(fonts, paper.width, paper.height, margin, k)
    m, W = margin, paper.width - 2 * margin
    s.y -= s.text(game.title, s.style(HEAD_FONT, 26), m, W, s.y)
    if game.subtitle:
        s.y -= s.text(game.subtitle, s.style(UI_FONT, 12, MUTED), m, W, s.y)
    lo, hi = game.players
    if hi is None:
        players = f"{lo}+ players"
    elif hi != lo:
        players = f"{lo}–{hi} players"
    else:
        players = counted(lo, "player")
    byline = " · ".join(x for x in (f"by {game.designer}" if game.designer else "", players) if x)
    s.gap(1)
    s.y -= s.text(byline, s.style("Lato-Regular", 10.5, MUTED), m, W, s.y)
    s.gap(1.5)
    s.text("Contents sheet: check off each part as you print, cut and gather it.",
           s.style(UI_FONT, 9, MUTED), m, W, s.y)
    s.y -= 9 * k * 1.25
    s.gap(6)

    # -- printed
    total_pieces = sum(p.component.pieces for p in plans)
    total_pages = sum(pages.values())
    s.heading("Printed", f"{len(plans)} components · {total_pieces} pieces · {total_pages} pages")
    cols = [  # (header, share of the width, align)
        ("", 0.035, "left"), ("Component", 0.30, "left"), ("Kind", 0.14, "left"), ("Size", 0.13, "left"),
        ("Pieces", 0.13, "right"), ("Per sheet", 0.17, "right"), ("Pages", 0.095, "right")]
    xs: list[tuple[float, float]] = []
    x = m
    pad = 4 * k
    for _, share, _ in cols:
        xs.append((x + pad / 2, W * share - pad))
        x += W * share
    head = s.style("Lato-Bold", 7.5, MUTED, tracking=0.4)
    s.row([(*xs[i], False, [(h.upper(), replace(head, align=a))]) for i, (h, _, a) in enumerate(cols) if h], pad=2)
    s.rule()
    body = s.style("Lato-Regular", 9.5)
    right = replace(body, align="right")
    small = s.style("Lato-Regular", 7, MUTED)
    for i, p in enumerate(plans):
        c = p.component
        pieces = f"{c.pieces}" + (f" ({len(c.items)} distinct)" if len(c.items) != c.pieces else "")
        sides = ", fronts + backs" if any(pg.side == "back" for pg in pages_for(p)) else ""
        version = f" · data {versions[c.id]}" if versions and c.id in versions else ""
        s.row([
            (*xs[1], True, [(c.title, s.style("Lato-Bold", 9.5)), (f"{c.id}.pdf{sides}{version}", small)]),
            (*xs[2], True, [(_kind_text(c), body)]),
            (*xs[3], False, [(f"{c.size[0]:g} x {c.size[1]:g} mm", body)]),
            (*xs[4], False, [(pieces, right)]),
            (*xs[5], True, [(_per_sheet(p), right)]),
            (*xs[6], False, [(f"{pages[c.id]}", right)]),
        ], check=True, shade=i % 2 == 1)
    s.rule()
    s.gap(6)

    # -- settings
    s.heading("Print settings")
    bleeds = {p.component.title: p.sheet.bleed / MM for p in plans}
    main = opts.bleed_mm
    others = [f"{t}: {'none' if b == 0 else f'{b:g} mm'}" for t, b in bleeds.items() if abs(b - main) > 1e-6]
    settings = [
        ("Paper", "Print-shop pages: each page is one piece, exactly trim + bleed, with TrimBox and BleedBox "
                  f"set (this sheet: {_paper_text(paper)})" if opts.one_per_page else _paper_text(paper)),
        ("Printing", "A piece's front page is followed by its back page (when it has one); the print service "
                     "prints them as one double-sided piece" if opts.one_per_page else
         DUPLEX_TEXT.get(opts.duplex, opts.duplex) + ". Print at 100 % (actual size), no scaling."),
        ("Bleed", (f"{main:g} mm of art beyond every cut edge" if main else "none")
         + (f" ({'; '.join(others)})" if others else "")),
        ("Cutting", "Print-shop pages: the service trims at the TrimBox" if opts.one_per_page else
         "Cut along the lines in the margins; each line is one straight cut across the sheet. "
         "Boards larger than the paper come in parts with glue zones and alignment marks."),
        ("Files", "One PDF per component, named in the table above, in the folder of this sheet"),
    ]
    if preflight:
        settings.append(("Preflight", preflight.replace(">=", "\u2265")
                         + f" (thresholds and ink coverage: pnp preflight {game.id})"))
    correction = _correction_text(opts)
    if correction:
        settings.insert(2, ("Back pages", correction))
    if getattr(opts, "ink_saver", False):
        settings.insert(0, ("Variant", "Ink saver: the game's light colours, no full-bleed colour fills, backs as "
                                       "outline patterns; every colour-coded part keeps its symbol"))
    label_w = W * 0.16
    for label, text in settings:
        s.row([(m, label_w - 4 * k, False, [(label, s.style("Lato-Bold", 9))]),
               (m + label_w, W - label_w, True, [(text, s.style("Lato-Regular", 9))])], pad=2)
    s.gap(6)

    # -- not printed
    s.heading("Not printed — you also need")
    if not game.not_printed:
        none = "Nothing else: every part of the game is printed."
        s.row([(m, W, True, [(none, s.style(UI_FONT, 9.5, MUTED))])])
    name_x = m + W * 0.035 + pad / 2
    name_w = W * 0.33 - pad
    for i, n in enumerate(game.not_printed):
        qx = name_x + name_w + pad
        s.row([(name_x, name_w, True, [(n.name, s.style("Lato-Bold", 9.5))]),
               (qx, m + W - qx - pad / 2, True, [(n.quantity, s.style("Lato-Regular", 9.5))])],
              check=True, shade=i % 2 == 1)
    s.rule()

    # -- footer
    src = game.document.get("title") if game.document else None
    foot = " · ".join(x for x in (f"Source: {src}" if src else "", f"made with pnp {__version__}") if x)
    fst = Style("Lato-Regular", size=7 * k, color=MUTED, align="center", valign="bottom")
    prims, _ = s.tl.fit(foot, fst, (m, margin - 8 * MM, W, 6 * MM), markup=False, wrap=False, min_size=4)
    s.prims.extend(prims)
    return s

