"""Exports for other services: one PNG per distinct item and side (print-on-demand), and Tabletop
Simulator deck sheets with their JSON.

Size: over 500 lines because both exports share what they check before anything is rendered (each
image's pixels, the command's pixel budget, the shapes each image holds: ``pnp.render.pixels``) and
their all-or-nothing file set; the TTS saved object is ``pnp.products.tts_save``."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec import Struct
from msgspec.structs import replace

from pnp.errors import DataError, Diagnostic
from pnp.impose.sheet import Paper
from pnp.input.model import SAVED_OBJECTS, Component, Game
from pnp.layout.fonts import UI_FONT, FontBook
from pnp.layout.piece import PieceLayout
from pnp.layout.primitives import Paint, Primitive, Rect
from pnp.layout.text import Style, TextLayout
from pnp.plan.component import ComponentPlan, pages_for
from pnp.plan.session import Session
from pnp.products.images import (
    BAND_PIXELS,
    FORMAT_VERSION,
    Distinct,
    Exported,
    _bleed_mm,
    _info,
    _pdf,
    _stale,
    banded_png,
    check_pixels,
    compose,
    costly,
    distinct,
    distinct_backs,
    item_backs,
    json_bytes,
    png_bytes,
    px,
    raster,
    select_plans,
)
from pnp.products.tts_save import saved_object
from pnp.products.workers import can_fork, image_jobs, isolated, run_pool
from pnp.qa.check import GameCheck
from pnp.render.component import render_component
from pnp.render.draw import DocInfo
from pnp.render.pixels import ArtWork, art_work, check_held, check_total
from pnp.render.write import FileSet, check_real_folders, remove_leftovers
from pnp.units import MM

if TYPE_CHECKING:  # PDFium and Pillow load only for exports: a build's contents sheet needs neither
    import pypdfium2 as pdfium

TTS_MAX_PX = 4096  # Tabletop Simulator: keep every sheet at most this wide and tall
TTS_MAX_COLS, TTS_MAX_ROWS = 10, 7
# Faces at TTS's usual density: a full 10 x 7 sheet of 63 x 88 mm cards fills 4096 px across, 409 x 572 px
# a face (the deck template's and the community's 409 x 585 sheet cell, the card's own aspect kept), the same
# for every deck, small or large, and tokens as sharp as cards (docs/printing.md, Tabletop Simulator).
TTS_DPI = 165
TTS_MIN_GRID = 2  # TTS's deck import takes 2..10 columns and 2..7 rows
# TTS CustomDeck "Type": 0 rounded rectangle, 1 rectangle, 2 rounded hex, 3 hex, 4 circle
TTS_TYPES = {"rounded": 0, "rect": 1, "square": 1, "hex": 3, "round": 4}


def export_png(session: Session, gc: GameCheck, out: Path, dpi: float = 300,
               component: str | None = None, jobs: int = 1, root: Path | None = None,
               files: FileSet | None = None, locked: bool = False,
               max_pixels: int | None = None) -> Iterator[Exported]:
    """Write ``out/<game>/png/<component>/<item>-front.png`` for every distinct item and one
    image per distinct back (``back.png``, or ``back-1.png``, ``back-2.png``... when the backs
    differ), with bleed, RGB, plus ``index.json`` (which back each item uses). ``gc`` should come from
    ``check(..., BuildOptions(print_shop=True, bleed_mm=...))``; any plan is redrawn as
    print-shop pages (page = trim + bleed). With ``jobs`` > 1 the components' PDFs, then their
    images, are made in that many worker processes (``pnp.products.workers``); the bytes are the
    same either way. Yields each component once all its images are staged, in data order.
    ``root``: the folder the component folders go in, instead of ``out/<game>/png/`` (a shop's
    folder, ``pnp.products.shops``).

    All or nothing: every file is staged beside its final name (``pnp.render.write.FileSet``) and
    renamed into place once the last component is yielded, with the images the old indexes list
    and the new ones do not removed; an error (a full disk), Ctrl-C or a consumer that stops early
    leaves the old files as they were and no temporary file. With ``files``, the files are staged
    there instead, for the caller to commit with files of its own (a shop's report). What a killed
    export left staged goes first: temporary files older than ``STALE_AFTER``, or any with
    ``locked`` (the caller holds the output folder's lock, ``pnp.pipeline.guard``). ``max_pixels``:
    the command's pixel budget (``pnp.render.pixels.check_total``)."""
    global _PNG
    plans = select_plans(gc, component)
    base = root if root is not None else out / gc.game.id / "png"
    check_real_folders(out, [base / plan.component.id for plan in plans])  # no link on the way: before any write
    for plan in plans:  # every image's size is checked before the first is written
        w_mm, h_mm = plan.component.size
        b = _bleed_mm(plan)
        check_pixels((px(w_mm + 2 * b, dpi), px(h_mm + 2 * b, dpi)), f"{gc.game.id}/{plan.component.id}")
    counts = [len(plan.component.items) + len(distinct_backs(plan)) for plan in plans]

    def total_at(d: float) -> int:
        return sum(n * px(p.component.size[0] + 2 * _bleed_mm(p), d) * px(p.component.size[1] + 2 * _bleed_mm(p), d)
                   for n, p in zip(counts, plans, strict=True))

    more = (f"export one component at a time (`pnp export png {gc.game.id} COMPONENT`)" if len(plans) > 1
            else "fewer distinct items in the component")
    at = total_at if root is None else None  # a shop's folder: the shop sets the dpi
    check_total(gc.game.id, "pnp export png", sum(counts), total_at(dpi), dpi, at, more,  # before any layout
                limit=max_pixels)
    comps: list[_PngComponent] = []
    art = ArtWork()
    heavy = False  # an image costly to render: the images are rendered in a worker
    for plan in plans:
        ds = distinct(plan)
        sub = replace(plan, fronts=tuple(d.front for d in ds), backs=tuple(d.back for d in ds),
                      placement="print-shop", grid=None)
        w_mm, h_mm = plan.component.size
        b = _bleed_mm(plan)
        size = (px(w_mm + 2 * b, dpi), px(h_mm + 2 * b, dpi))
        folder = base / plan.component.id
        names: dict[int, dict[str, str]] = {}
        images: list[tuple[int, Path]] = []  # (page index, file) of each image to write
        back_names = _back_names(ds)
        for i, page in enumerate(pages_for(sub)):
            slot = page.slots[0]
            if page.side == "back":  # one image per distinct back, however many items share it
                name = back_names[slot.piece]
                names.setdefault(slot.piece, {})[page.side] = name
                if any(f.name == name for _, f in images):
                    continue
            else:
                name = f"{ds[slot.piece].item.id}-{page.side}.png"
            names.setdefault(slot.piece, {})[page.side] = name
            images.append((i, folder / name))
            lay = ds[slot.piece].front if page.side == "front" else ds[slot.piece].back
            drawn = art_work([lay])
            art += drawn
            heavy = heavy or costly(size[0] * size[1], drawn, dpi)
            check_held(gc.game, [ds[slot.piece].item], "pnp export png",
                       f"the {page.side} of item {ds[slot.piece].item.id!r} of component {plan.component.id}", [lay])
        comps.append(_PngComponent(plan, ds, sub, size, b, folder, names, images))
    # the fronts laid out: with the image files and SVG art each image draws
    check_total(gc.game.id, "pnp export png", sum(counts), total_at(dpi), dpi, at, more, art, max_pixels)
    tasks = [(k, i, path) for k, c in enumerate(comps) for i, path in c.images]
    fs = FileSet() if (own := files is None) else files
    for c in comps:
        remove_leftovers(c.folder, [p.name for _, p in c.images] + [INDEX], locked)
        fs.make(c.folder)  # here, not in a worker: a folder left empty goes with the set
        fs.expect(p for _, p in c.images)  # staged by workers: removed even if one is killed
    _PNG = _PngState(session, gc, dpi, comps, [])
    done: Iterable[tuple[list[int], list[tuple[str, Path]]]] = ()
    try:
        if jobs > 1 and len(tasks) > 1:
            jobs = image_jobs(jobs, [gc.game.folder])  # each worker decodes the images again
        if jobs > 1 and len(tasks) > 1 and can_fork():
            order = sorted(range(len(comps)), key=lambda k: -len(comps[k].images))  # the PDFs, biggest first
            made = dict(run_pool(min(jobs, len(comps)), _png_pdf_task, order))
            _PNG.pdfs.extend(made[k] for k in range(len(comps)))
            # forked again: the workers inherit the PDFs
            done = run_pool(min(jobs, len(tasks)), _png_images_task, list(_chunks(tasks, PNG_CHUNK)), ordered=True)
        else:
            _PNG.pdfs.extend(_png_pdf_task(k)[1] for k in range(len(comps)))
            chunks = list(_chunks(tasks, PNG_CHUNK))
            # a costly image: in one worker all the same, which Ctrl-C ends at once (images.costly)
            done = (run_pool(1, _png_images_task, chunks, ordered=True) if heavy and can_fork()
                    else map(_png_images_task, chunks))
        yield from _png_finish(comps, gc, dpi, _adopted(done, fs), fs)
        if own:
            fs.commit()
    finally:
        close = getattr(done, "close", None)
        if close is not None:  # the pool's workers ended before their staged files are swept
            close()
        if own:
            fs.discard()
        _PNG = None
        for doc in _OPEN.values():
            doc.close()
        _OPEN.clear()


INDEX = "index.json"


def _adopted(done: Iterable[tuple[list[int], list[tuple[str, Path]]]], fs: FileSet) -> Iterator[int]:
    """The component index of each image the tasks staged, their temporary files now ``fs``'s."""
    for ks, staged in done:
        fs.adopt(staged)
        yield from ks


class _PngComponent(Struct):
    plan: ComponentPlan
    ds: list[Distinct]
    sub: ComponentPlan  # one print-shop page per distinct item and side
    size: tuple[int, int]
    bleed: float
    folder: Path
    names: dict[int, dict[str, str]]  # item index -> side -> file name
    images: list[tuple[int, Path]]


class _PngState(Struct):
    session: Session
    gc: GameCheck
    dpi: float
    comps: list[_PngComponent]
    pdfs: list[bytes]


# The export in progress, inherited by forked workers: a task is a few indices.
_PNG: _PngState | None = None
_OPEN: dict[int, pdfium.PdfDocument] = {}  # this process's open PDFs, by component


def _png_pdf_task(k: int) -> tuple[int, bytes]:
    assert _PNG is not None
    data, _ = render_component(_PNG.session, _PNG.gc.game, _PNG.comps[k].sub)
    return k, data


PNG_CHUNK = 4  # images per worker task: rendered one after the other while a thread writes the previous ones


def _chunks(tasks: Sequence[tuple[int, int, Path]], n: int) -> Iterator[Sequence[tuple[int, int, Path]]]:
    return (tasks[i:i + n] for i in range(0, len(tasks), n))


def _png_images_task(tasks: Sequence[tuple[int, int, Path]]) -> tuple[list[int], list[tuple[str, Path]]]:
    """Renders and encodes each image of ``tasks`` in turn while one thread stages the ones before
    (``FileSet.stage`` waits for the disk in fsync, the CPU could render meanwhile); returns their
    components' indices and the staged (temporary, final) paths once every file is staged. A
    failure (a full disk) removes what this task staged and is raised here."""
    from concurrent.futures import ThreadPoolExecutor

    with FileSet() as fs:
        with ThreadPoolExecutor(1) as writer:
            written = [writer.submit(fs.stage, path, _png_image(k, i)) for k, i, path in tasks]
        for w in written:
            w.result()
        staged, fs.staged = fs.staged, []
    return [k for k, _, _ in tasks], staged


def _png_image(k: int, i: int) -> bytes:
    """Page ``i`` of component ``k``'s print-shop PDF as PNG bytes."""
    assert _PNG is not None
    if k not in _OPEN:
        import pypdfium2 as pdfium

        _OPEN[k] = pdfium.PdfDocument(_PNG.pdfs[k])
    doc, size, dpi = _OPEN[k], _PNG.comps[k].size, _PNG.dpi
    if size[0] * size[1] > BAND_PIXELS:  # a big board: rendered in bands, memory bounded
        return banded_png(doc, i, size, dpi)
    img = raster(doc, i, size)
    assert img.size == size, (img.size, size)
    return png_bytes(img, dpi, fast=True)


def _png_finish(comps: Sequence[_PngComponent], gc: GameCheck, dpi: float,
                done: Iterable[int], fs: FileSet) -> Iterator[Exported]:
    """Index each component once its images (``done``: their component indices, in task order) are staged."""
    left = [len(c.images) for c in comps]
    for k in done:
        left[k] -= 1
        if left[k]:
            continue
        c = comps[k]
        comp, files = c.plan.component, [p for _, p in c.images]
        index_path = c.folder / INDEX
        for old in _stale(c.folder, index_path, {p.name for p in files},
                          lambda old: [n for it in old.get("items", []) for n in (it.get("front"), it.get("back"))]):
            fs.drop(old)
        fs.stage(index_path, json_bytes({
            "format": "pnp-png", "version": FORMAT_VERSION,
            "game": gc.game.id, "component": comp.id, "title": comp.title,
            "dpi": dpi, "trim_mm": list(comp.size), "bleed_mm": round(c.bleed, 4),
            "size_px": list(c.size), "pieces": comp.pieces,
            "items": [{"id": d.item.id, "copies": d.item.copies, "front": c.names[i]["front"],
                       "back": c.names[i].get("back")} for i, d in enumerate(c.ds)],
        }))
        yield Exported(comp, c.folder, tuple(files), index_path, c.size)


def _back_names(ds: Sequence[Distinct]) -> dict[int, str]:
    """Item index -> its back image: ``back.png`` when every item has the same back, else
    ``back-1.png``, ``back-2.png``... numbered in the order the items first use them (items
    without a back are left out)."""
    firsts: dict[object, int] = {}
    for d in ds:
        if d.back is not None:
            firsts.setdefault(d.back.primitives, len(firsts) + 1)
    one = len(firsts) == 1
    return {i: "back.png" if one else f"back-{firsts[d.back.primitives]}.png"
            for i, d in enumerate(ds) if d.back is not None}


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
    g, _ = tl.fit(game.title, Style(UI_FONT, size=max(5.0, min(w, h) * 0.08), color="#c9c0b0",
                                    align="center", valign="top"),
                  (m, h * 0.1, w - 2 * m, h * 0.36), markup=False, min_size=3)
    return PieceLayout(w, h, 0.0, (*prims, *t, *g))


def _tts_sheet(layouts: Sequence[PieceLayout | None], cols: int, rows: int, fonts: FontBook,
               info: DocInfo, face: tuple[int, int], dpi: float) -> bytes:
    """A sheet of ``cols`` x ``rows`` trims (slot k at column k % cols, row k // cols from the
    top) as PNG bytes at ``dpi``; None leaves a slot white. Each slot is exactly ``face`` pixels.
    A costly sheet (``costly``) is rendered in a worker (``isolated``), which Ctrl-C ends at once."""
    first = next(lay for lay in layouts if lay is not None)
    w, h = first.width, first.height
    placed = [(lay, (k % cols) * w, (rows - 1 - k // cols) * h) for k, lay in enumerate(layouts) if lay is not None]
    data = compose(Paper("tts-sheet", cols * w, rows * h), placed, fonts, info)
    size = (cols * face[0], rows * face[1])
    assert size[0] <= TTS_MAX_PX and size[1] <= TTS_MAX_PX, size

    def sheet() -> bytes:
        with _pdf(data) as doc:
            return png_bytes(raster(doc, 0, size), dpi)

    return isolated(sheet) if costly(size[0] * size[1], art_work(layouts), dpi) else sheet()


def export_tts(session: Session, gc: GameCheck, out: Path, dpi: float = TTS_DPI,
               component: str | None = None, base_url: str | None = None,
               locked: bool = False, max_pixels: int | None = None) -> tuple[list[Exported], list[Component]]:
    """Tabletop Simulator deck sheets for every component with a back (or ``component``, which
    must have one), each with a saved object (``pnp.products.tts_save``) whose image URLs are
    ``file://`` URLs of the sheets, or ``base_url`` + their path inside ``out/<game>/tts/``.
    Returns (exported, skipped components without a back). All or nothing, as ``export_png``:
    every sheet, index and saved object is staged, and renamed into place when all are."""
    plans = select_plans(gc, component)
    if component is not None and all(b is None for b in plans[0].backs):
        raise DataError([Diagnostic(gc.game.manifest_file,
                                    f"component {component!r} has no back; a Tabletop Simulator deck needs one",
                                    expected="a component with `back`",
                                    hint="`pnp export png` exports pieces without backs")])
    decks = [p for p in plans if any(b is not None for b in p.backs)]
    tts = out / gc.game.id / "tts"
    check_real_folders(out, [*(tts / p.component.id for p in decks), tts / SAVED_OBJECTS] if decks else [])

    def total_at(d: float) -> int:
        return sum(_tts_geometry(p, d).pixels for p in decks)

    more = (f"export one component at a time (`pnp export tts {gc.game.id} COMPONENT`)" if len(decks) > 1
            else "fewer distinct items in the component")
    geometry = {id(p): _tts_geometry(p, dpi) for p in decks}  # at the --dpi, once a deck
    images, pixels = sum(g.images for g in geometry.values()), sum(g.pixels for g in geometry.values())
    check_total(gc.game.id, "pnp export tts", images, pixels, dpi, total_at, more,  # before any layout
                limit=max_pixels)
    dss = {id(p): distinct(p) for p in decks}
    art = sum((_tts_art(dss[id(p)], geometry[id(p)]) for p in decks), ArtWork())
    check_total(gc.game.id, "pnp export tts", images, pixels, dpi, total_at, more, art, max_pixels)
    for p in decks:  # each sheet within what PDFium may hold to render it
        _tts_held(gc, p, dss[id(p)], geometry[id(p)].uniform)
    done: list[Exported] = []
    skipped: list[Component] = []
    with FileSet() as fs:
        for plan in plans:
            if all(b is None for b in plan.backs):
                skipped.append(plan.component)
                continue
            done.append(_export_tts_component(session, gc, plan, dss[id(plan)], geometry[id(plan)], out, dpi,
                                              base_url, fs, locked))
        fs.commit()
    return done, skipped


def _tts_art(ds: Sequence[Distinct], g: _TtsGeometry) -> ArtWork:
    """The image files and SVG art a component's sheets draw, each time one draws them: every
    front, and every back on the back sheets, or the one back in each sheet's hidden slot and as
    the back image."""
    fronts = art_work(d.front for d in ds)
    if g.uniform:
        return fronts + art_work([ds[0].back]) * (len(g.grids) + 1)
    return fronts + art_work(d.back for d in ds)


def _tts_held(gc: GameCheck, plan: ComponentPlan, ds: Sequence[Distinct], uniform: bool) -> None:
    """DataError when one of a component's sheets would hold more shapes than PDFium may to
    render it (``pnp.render.pixels.check_held``): its faces and the hidden one, as
    ``_export_tts_component`` draws them."""
    cid = plan.component.id
    first = ds[0]
    if uniform:
        check_held(gc.game, [first.item], "pnp export tts", f"the back image of component {cid}", [first.back])
    for n, i in enumerate(range(0, len(ds), TTS_PER_SHEET), start=1):
        chunk = ds[i:i + TTS_PER_SHEET]
        items = [*(d.item for d in chunk), first.item]
        hidden = first.back if uniform else None  # or a title face: a few shapes
        check_held(gc.game, items, "pnp export tts", f"Tabletop Simulator sheet {n} of component {cid}",
                   [*(d.front for d in chunk), hidden])
        if not uniform:
            check_held(gc.game, items, "pnp export tts", f"Tabletop Simulator back sheet {n} of component {cid}",
                       [*(d.back for d in chunk), None])


TTS_PER_SHEET = TTS_MAX_COLS * TTS_MAX_ROWS - 1  # the last slot is the hidden face


class _TtsGeometry(Struct, frozen=True):
    """A component's Tabletop Simulator sheets as ``_export_tts_component`` draws them."""

    uniform: bool  # every item has the same back: one back image, else a back sheet per sheet
    grids: list[tuple[int, int]]  # (cols, rows) of each sheet
    scale: float  # the faces' scale from ``dpi`` into TTS_MAX_PX
    face: tuple[int, int]  # one face, px

    @property
    def pixels(self) -> int:
        """The pixels of every image the component's export renders."""
        sheets = sum(cols * self.face[0] * rows * self.face[1] for cols, rows in self.grids)
        return sheets + self.face[0] * self.face[1] if self.uniform else 2 * sheets

    @property
    def images(self) -> int:
        return len(self.grids) + 1 if self.uniform else 2 * len(self.grids)


def _tts_geometry(plan: ComponentPlan, dpi: float) -> _TtsGeometry:
    """The sheets of ``plan``'s component at ``dpi``, from its item count and the backs the check
    laid out (no front is laid out)."""
    comp = plan.component
    backs = item_backs(plan)
    drawn = {b.primitives if b is not None else None for b in backs}  # the backs by what they draw
    uniform = len(drawn) == 1 and backs[0] is not None
    n = len(comp.items)
    native = (px(comp.size[0], dpi), px(comp.size[1], dpi))
    grids = [tts_grid(min(TTS_PER_SHEET, n - i) + 1, native) for i in range(0, n, TTS_PER_SHEET)]
    scale = min(_tts_scale(cols, rows, native) for cols, rows in grids)
    face = (max(1, math.floor(native[0] * scale)), max(1, math.floor(native[1] * scale)))
    return _TtsGeometry(uniform, grids, scale, face)


def _export_tts_component(session: Session, gc: GameCheck, plan: ComponentPlan, ds: Sequence[Distinct],
                          g: _TtsGeometry, out: Path, dpi: float, base_url: str | None, fs: FileSet,
                          locked: bool) -> Exported:
    comp, game, fonts = plan.component, gc.game, session.fonts
    uniform, grids, scale, face = g.uniform, g.grids, g.scale, g.face
    hidden = ds[0].back if uniform else _title_face(fonts, game, comp)
    chunks = [ds[i:i + TTS_PER_SHEET] for i in range(0, len(ds), TTS_PER_SHEET)]
    folder = out / game.id / "tts" / comp.id
    info = _info(game, comp.title, f"pnp Tabletop Simulator sheet: {game.id}/{comp.id}")
    files: list[Path] = []
    custom: dict[str, Any] = {}
    sheets: list[dict[str, Any]] = []
    cards: list[dict[str, Any]] = []
    deck_ids: list[int] = []
    names: dict[str, str] = {}  # item id -> its name (the card's nickname in the saved object)
    back_name = f"{comp.id}-back.png"
    saved_path = out / game.id / "tts" / SAVED_OBJECTS / f"{game.id}-{comp.id}.json"
    index_path = folder / f"{comp.id}.json"
    sheet_names = [f"{comp.id}-{n}{side}.png" for n in range(1, len(chunks) + 1) for side in ("", "-back")]
    remove_leftovers(folder, [back_name, *sheet_names, index_path.name], locked)
    remove_leftovers(saved_path.parent, [saved_path.name], locked)
    if uniform:
        assert hidden is not None
        fs.stage(folder / back_name, _tts_sheet([hidden], 1, 1, fonts, info, face, dpi * scale))
    for n, (chunk, (cols, rows)) in enumerate(zip(chunks, grids, strict=True), start=1):
        slots: list[PieceLayout | None] = [d.front for d in chunk] + [None] * (cols * rows - len(chunk))
        slots[-1] = hidden
        name = f"{comp.id}-{n}.png"
        fs.stage(folder / name, _tts_sheet(slots, cols, rows, fonts, info, face, dpi * scale))
        files.append(folder / name)
        sheet_back = back_name
        if not uniform:
            sheet_back = f"{comp.id}-{n}-back.png"
            bslots: list[PieceLayout | None] = [d.back for d in chunk] + [None] * (cols * rows - len(chunk))
            bslots[-1] = hidden
            fs.stage(folder / sheet_back, _tts_sheet(bslots, cols, rows, fonts, info, face, dpi * scale))
            files.append(folder / sheet_back)
        custom[str(n)] = {"FaceURL": name, "BackURL": sheet_back, "NumWidth": cols, "NumHeight": rows,
                          "BackIsHidden": False, "UniqueBack": not uniform,
                          "Type": TTS_TYPES.get(comp.shape, 1)}
        sheets.append({"deck": n, "file": name, "back": sheet_back, "cols": cols, "rows": rows,
                       "size_px": [cols * face[0], rows * face[1]], "items": len(chunk),
                       "hidden_slot": cols * rows - 1})
        for slot, d in enumerate(chunk):
            card_id = n * 100 + slot
            cards.append({"item": d.item.id, "copies": d.item.copies, "deck": n, "file": name, "slot": slot,
                          "card_id": card_id})
            names[d.item.id] = str(d.item.fields.get("name") or d.item.id)
            deck_ids.extend([card_id] * d.item.copies)
    if uniform:
        files.append(folder / back_name)
    saved = saved_object(game, comp, custom, [{**c, "name": names[c["item"]]} for c in cards], folder,
                         out / game.id / "tts", base_url)
    fs.stage(saved_path, json_bytes(saved))
    for old in _stale(folder, index_path, {p.name for p in files},
                      lambda old: [f for s in old.get("sheets", []) for f in (s.get("file"), s.get("back"))]):
        fs.drop(old)
    fs.stage(index_path, json_bytes({
        "format": "pnp-tts", "version": FORMAT_VERSION,
        "game": game.id, "component": comp.id, "title": comp.title,
        "shape": comp.shape, "size_mm": list(comp.size), "sideways": comp.size[0] > comp.size[1],
        "face_px": list(face), "pieces": comp.pieces,
        "hidden_face": "back" if uniform else "title",
        "CustomDeck": custom,
        "DeckIDs": deck_ids,
        "sheets": sheets,
        "cards": cards,
    }))
    return Exported(comp, folder, tuple(files), index_path, face)

