"""What `pnp serve` shows of one game, kept current: a ``Watch`` (the files a build writes, the
last good checked game, the input problems), each distinct piece side as a PNG, and the pages of
each PDF the build wrote as PNGs, rendered again only when what they show changed.

Piece images are content-addressed. A side is keyed by what it draws (its laid-out primitives,
the digests of the image files they name and of the fonts), so after an edit only the sides
whose drawing changed are rasterised (in one PDF per component); each PNG is named by the hash
of its bytes, so a changed picture gets a new URL and an unchanged one keeps its URL and the
browser's copy. Sheet images are rasterised on request from the PDF the build wrote, keyed by
that PDF's SHA-256 in the build record. Everything goes through pnp's own renderer
(``pnp.render.draw.render``, rasterised by PDFium as the exports are)."""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
from msgspec import Struct

from pnp.errors import DataError, Diagnostic, counted, shown_lines
from pnp.impose.sheet import Edges, Page, Paper, Slot
from pnp.input.conditions import holds
from pnp.input.load import load_json, read_regular
from pnp.input.model import Item
from pnp.layout.fonts import UI_FONT, FontBook
from pnp.layout.piece import PieceLayout
from pnp.layout.primitives import Image
from pnp.pipeline.watch import CHECK_JSON, Watch
from pnp.plan.component import ComponentPlan, pages_for
from pnp.plan.digest import file_digest, fonts_digest
from pnp.plan.options import output_folder
from pnp.plan.session import Session
from pnp.products.images import distinct, png_bytes, px, raster
from pnp.qa.check import GameCheck
from pnp.qa.figures import ComponentPreflight
from pnp.qa.rules import Outcome
from pnp.render.draw import DocInfo, render
from pnp.render.pixels import Held, art_work, check_held, check_total, held, too_many
from pnp.units import MM

PIECE_DPI = 110  # a poker card is 275 x 385 px: sharp at the gallery's size, quick to make
SHEET_DPI = 40  # a sheet as it prints, small enough to see a component's sheets side by side

# PDFium is not thread-safe: every rasterisation (the poller's and the handlers') holds this.
RENDER_LOCK = threading.Lock()


class Side(Struct, frozen=True):
    """One side of a distinct item as the gallery shows it: ``/png/<png>.png``, ``size`` px."""

    side: str  # "front" | "back"
    png: str
    size: tuple[int, int]


class Piece(Struct, frozen=True):
    item: Item
    sides: tuple[Side, ...]


class ComponentView(Struct, frozen=True):
    """One component: its plan, its distinct pieces' pictures, and the PDF the build wrote."""

    plan: ComponentPlan
    pieces: tuple[Piece, ...]
    pdf: str | None = None  # the PDF's name in the game's output folder (None: none written)
    pdf_sha: str | None = None
    pages: int = 0
    figures: ComponentPreflight | None = None


Key = tuple[Any, ...]


class GameView:
    """One game being served: ``refresh`` (the poller's thread) replaces its state whole, the
    pages read it."""

    def __init__(self, watch: Watch):
        self.watch = watch
        self.id = watch.game
        self.pngs: dict[str, bytes] = {}  # name -> PNG bytes
        self._sides: dict[Key, tuple[str, tuple[int, int]]] = {}  # what a side draws -> (PNG name, size)
        self.components: tuple[ComponentView, ...] = ()
        self.checked: GameCheck | None = None  # the last good check (kept while the input is broken)
        self.errors: tuple[Diagnostic, ...] = ()
        self.rendered = 0  # piece sides the last refresh rasterised
        self.watch_log: list[str] = []
        self.version = 0  # bumped by every refresh that changed something
        self.sheets: dict[str, bytes] = {}  # "<pdf sha>-<page>" -> PNG
        # Held while the state above is replaced, and by a page while it reads it.
        self.lock = threading.RLock()

    @property
    def folder(self) -> Path:
        return output_folder(self.watch.out, self.id, self.watch.opts)

    def refresh(self) -> bool:
        """Poll the watch (which rebuilds the PDFs that changed); when anything changed, rasterise
        the piece sides whose drawing is new. True when what the pages show changed."""
        lines = self.watch.poll()
        if not lines:
            return False
        self.watch_log = lines
        gc = self.watch.checked
        if gc is None or (self.watch.errors and gc is self.checked):
            with self.lock:  # broken input: the last good pictures stay
                self.errors, self.version = self.watch.errors, self.version + 1
            return True
        session = Session(self.watch.root)
        salt = fonts_digest(self.watch.root)
        sides: dict[Key, tuple[str, tuple[int, int]]] = {}
        pngs: dict[str, bytes] = {}
        views = []
        self.rendered = 0
        rec = self.watch.record
        planned = []
        owners: dict[Key, tuple[Item, str, str, PieceLayout]] = {}  # side to rasterise -> its item, side, component
        for plan in gc.plans:
            ds = distinct(plan)
            keyed = [[(side, lay, _key(lay, salt)) for side, lay in (("front", d.front), ("back", d.back))
                      if lay is not None] for d in ds]
            todo: dict[Key, PieceLayout] = {}  # sides drawn as never before: rasterised below
            for d, xs in zip(ds, keyed, strict=True):
                for side, lay, k in xs:
                    if k in sides or k in todo or any(k in t for *_, t in planned):
                        continue
                    old = self._sides.get(k)
                    if old is not None:
                        sides[k], pngs[old[0]] = old, self.pngs[old[0]]
                    else:
                        todo[k] = lay
                        owners[k] = (d.item, side, plan.component.id, lay)
            planned.append((plan, ds, keyed, todo))
        try:  # the sides to rasterise within the exports' pixel budget, or the last good pictures stay
            new = [lay for *_, todo in planned for lay in todo.values()]
            check_total(self.id, "pnp serve", len(new), sum(_size(lay)[0] * _size(lay)[1] for lay in new),
                        PIECE_DPI, None, "fewer distinct pieces", art_work(new))
            for item, side, cid, lay in owners.values():  # each within what PDFium may hold to render it
                check_held(gc.game, [item], "pnp serve", f"the {side} of item {item.id!r} of component {cid}", [lay])
        except DataError as exc:
            with self.lock:
                self.errors, self.version = tuple(exc.diagnostics), self.version + 1
            return True
        for plan, ds, keyed, todo in planned:
            for k, (data, size) in zip(todo, rasterise(plan, list(todo.values()), session.fonts, gc), strict=True):
                name = hashlib.sha256(data).hexdigest()[:20]
                pngs[name], sides[k] = data, (name, size)
            self.rendered += len(todo)
            pieces = tuple(Piece(d.item, tuple(Side(side, *sides[k]) for side, _, k in xs))
                           for d, xs in zip(ds, keyed, strict=True))
            cid = plan.component.id
            cf = rec.components.get(cid) if rec is not None else None
            views.append(ComponentView(plan, pieces, cf.file if cf else None, cf.sha256 if cf else None,
                                       cf.pages if cf else 0, rec.figures(cid) if rec is not None else None))
        current = {f"{v.pdf_sha}-" for v in views}
        with self.lock:
            self.pngs, self._sides, self.components, self.checked = pngs, sides, tuple(views), gc
            self.errors, self.version = self.watch.errors, self.version + 1
            self.sheets = {k: v for k, v in self.sheets.items() if k[:k.rindex("-") + 1] in current}
        return True

    # ------------------------------------------------------------------ what the pages ask

    def watch_lines(self) -> list[str]:
        """What the last refresh that changed something said, as `pnp watch` prints it."""
        return list(self.watch_log)

    def output_pdf(self, name: str) -> bytes | None:
        """A PDF of the game's output folder, by a name the build record lists (a component's
        or the contents sheet), and only the bytes the build wrote there: read as a regular file
        without following a link or blocking on a FIFO, and served only if its SHA-256 is the
        record's (a link planted in --out served /etc/hostname, a FIFO held a thread for good:
        attack 14, F5); None otherwise."""
        rec = self.watch.record
        files = {f.file: f for f in (*rec.components.values(), rec.contents)} if rec is not None else {}
        entry = files.get(name)
        if entry is None:
            return None
        try:
            if os.path.islink(self.folder) or os.path.islink(self.folder / name):
                return None
            data = read_regular(self.folder / name, entry.bytes or None)
        except OSError:
            return None
        return data if hashlib.sha256(data).hexdigest() == entry.sha256 else None

    def component(self, cid: str) -> ComponentView | None:
        return next((c for c in self.components if c.plan.component.id == cid), None)

    def problem_lines(self) -> list[str]:
        """The input problems as `pnp check` prints them (the first MAX_SHOWN, then the count)."""
        if not self.errors:
            return []
        return shown_lines(self.errors, CHECK_JSON) + [f"{self.id}: {counted(len(self.errors), 'input problem')}"]

    def rule_lines(self) -> list[str]:
        """The rulebook report of the last good check as `pnp check` prints it (passing rules
        left out, as without ``-v``): the summary line, each failing rule and each oddity."""
        gc = self.checked
        if gc is None:
            return []
        r = gc.report
        passed = sum(o.passed for o in r.outcomes)
        out = [f"{gc.game.id}: {len(r.outcomes)} rules, {passed} pass, {len(r.outcomes) - passed} fail"]
        for o in r.outcomes:
            if o.passed and not o.oddities:
                continue
            out.append(f"  {'PASS' if o.passed else 'FAIL'} {o.rule.id}: {o.rule.description}")
            if not o.passed:
                out += [f"       expected: {o.expected}", f"       actual:   {o.actual}"]
                out += [f"         - {d}" for d in o.details[:20]]
                out.append(f"       rulebook: \"{o.rule.quote}\"")
            out += [f"       document oddity (excepted): {odd}" for odd in o.oddities]
        return out

    def warning_lines(self) -> list[str]:
        return shown_lines(self.checked.warnings, CHECK_JSON) if self.checked is not None else []

    def item_where(self, item: Item) -> str:
        """``file:line:col`` of the item in its data file."""
        file, path = item.origin
        try:
            line, col = load_json(self.watch.root.path / file, file).locate(path)
        except Exception:  # the file changed or broke since the last good check: the file alone
            return file
        return f"{file}:{line}:{col}" if line is not None else file

    def rules_naming(self, cid: str, item: Item) -> list[Outcome]:
        """The rules whose selectors name ``item``: a ``{"component": cid}`` reference with the
        item's id, or without an item and with a ``where`` the item meets (or none)."""
        if self.checked is None:
            return []
        return [o for o in self.checked.report.outcomes if any(_names(ref, cid, item) for ref in _refs(o.rule.params))]

    def sheet_png(self, cid: str, page: int) -> bytes | None:
        """Page ``page`` (1-based) of the component's PDF in the output folder, as a PNG; None
        when there is no such page."""
        with self.lock:
            view = self.component(cid)
            if view is None or view.pdf is None or not 1 <= page <= view.pages:
                return None
            key = f"{view.pdf_sha}-{page}"
            cached = self.sheets.get(key)
            if cached is not None:
                return cached
        try:  # a FIFO planted under the PDF's name would block the read (attack 14, F5)
            data = read_regular(self.folder / view.pdf)
        except OSError:
            return None
        if hashlib.sha256(data).hexdigest() != view.pdf_sha:
            return None  # rewritten since: the page asks again with the new hash
        if too_many("pnp serve", "a sheet", _sheet_held(view, page)) is not None:
            return None  # more shapes than PDFium may hold to render it: the sheet's PDF is linked beside
        with RENDER_LOCK:
            doc = pdfium.PdfDocument(data)
            try:
                if page > len(doc):
                    return None
                w, h = doc[page - 1].get_size()
                img = raster(doc, page - 1, (px(w / MM, SHEET_DPI), px(h / MM, SHEET_DPI)))
            finally:
                doc.close()
        png = png_bytes(img, SHEET_DPI)
        with self.lock:
            self.sheets[key] = png
        return png


def _sheet_held(view: ComponentView, page: int) -> Held:
    """What PDFium holds to render page ``page`` (1-based) of the component's PDF
    (``pnp.render.pixels.held``): the pieces the plan puts on it, or the most any page of the plan
    holds when the PDF's pages are not the plan's."""
    plan = view.plan
    pages = pages_for(plan)
    chosen = [pages[page - 1]] if len(pages) == view.pages else pages
    return max((held([plan.fronts[s.piece] if p.side == "front" else plan.backs[s.piece] for s in p.slots])
                for p in chosen), key=lambda h: h.shapes, default=Held())


def _key(lay: PieceLayout, salt: str) -> Key:
    images = tuple(file_digest(Path(p.src)) for p in lay.primitives if isinstance(p, Image))
    return (salt, images, lay.width, lay.height, lay.primitives)


def _size(lay: PieceLayout) -> tuple[int, int]:
    """A side's picture, px: its trim at PIECE_DPI."""
    return px(lay.width / MM, PIECE_DPI), px(lay.height / MM, PIECE_DPI)


def rasterise(plan: ComponentPlan, layouts: Sequence[PieceLayout], fonts: FontBook,
              gc: GameCheck) -> Iterator[tuple[bytes, tuple[int, int]]]:
    """Each layout at its trim, rasterised at ``PIECE_DPI``: one PDF of one page per layout
    (``pnp.render.draw.render``), each page rendered straight into its pixel size."""
    if not layouts:
        return
    papers = [Paper("piece", lay.width, lay.height) for lay in layouts]
    pages = [Page(i + 1, "front", (Slot(i, "front", 0.0, 0.0, p.width, p.height, Edges(0.0, 0.0, 0.0, 0.0)),), (),
                  paper=p) for i, p in enumerate(papers)]
    info = DocInfo(title=f"{gc.game.title} — {plan.component.title}", author=gc.game.designer,
                   subject=f"pnp serve: {gc.game.id}/{plan.component.id}", ui_font=UI_FONT)
    sizes = [_size(lay) for lay in layouts]
    with RENDER_LOCK:
        data = render(pages, papers[0], list(layouts), [None] * len(layouts), fonts, info)
        doc = pdfium.PdfDocument(data)
        try:
            images = [png_bytes(raster(doc, i, size), PIECE_DPI) for i, size in enumerate(sizes)]
        finally:
            doc.close()
    yield from zip(images, sizes, strict=True)


def _refs(v: Any) -> Iterator[Mapping[str, Any]]:
    """Every mapping inside a rule's parameters that names a component."""
    if isinstance(v, Mapping):
        if isinstance(v.get("component"), str):
            yield v
        for x in v.values():
            yield from _refs(x)
    elif isinstance(v, list | tuple):
        for x in v:
            yield from _refs(x)


def _names(ref: Mapping[str, Any], cid: str, item: Item) -> bool:
    if ref["component"] != cid:
        return False
    if "item" in ref:
        return ref["item"] == item.id
    where = ref.get("where")
    if not isinstance(where, Mapping):
        return True
    try:
        return holds(where, lambda name: item.get(name, document=True))
    except Exception:  # a condition the rules checker reports itself
        return False

