"""Preflight: what a print shop checks before printing, measured on pnp's own layouts, pages and
PDFs. A ``Collector`` watches one component while it is rendered (its fronts as they are laid
out, its backs, its imposed pages, its PDF's size), so every build gets the figures at no extra
layout cost, in worker processes too; ``pnp.qa.rasters`` rasterises a PDF for ``pnp preflight``.

Per component and sheet:

* ink coverage: per page, the mean over its pixels of ``1 - min(R, G, B)``, the strongest of the
  cyan, magenta and yellow a naive RGB -> CMY conversion gives (white 0 %, black or any fully
  saturated colour 100 %), as a percentage; a component's and a game's figure is the mean over
  their pages (``pnp preflight`` only: pages rasterised at ``COVERAGE_DPI``);
* the smallest text (and the smallest *rules* text: text whose style has ``role: rules``), the
  thinnest stroke, the effective ppi of every raster image at its printed size, each with the
  item and template element where it occurs;
* text or icons outside the safe zone (``SAFE_MM`` inside the trim; a round piece's circle and a
  hex tile's hexagon shrink by it likewise); not checked on reference sheets (not cut) and box
  nets (their template draws its own cut outline);
* cut lines that cross a piece: a crop mark in the margin stands for one guillotine cut across
  the whole sheet, so it is extended over the page; a cut along a hex edge is checked as drawn;
* the page margin: the smallest distance from the paper's edge to a piece's trim (what has to
  print; bleed may fall into a printer's unprintable border). Not checked for print-shop pages,
  which are trim + bleed by design;
* pieces per sheet, sheets of paper and pages per component, file size.

Thresholds (``Thresholds``: rules text >= 8 pt, strokes >= 0.25 pt, images >= 200 ppi, margins
>= 5 mm) give warnings (``Diagnostic`` with severity ``warning``), errors with ``--strict``. A
game may lower its rules-text minimum (``game.json`` ``preflight.rules_text_min_pt``, with a
``reason``) and exempt components from the margin (``preflight.margins``); an element may be
exempt from the safe zone (``"preflight": {"safe_zone": reason}``). Exemptions are reported.

Size: over 500 lines because every check above is measured here, on the same walk of a
component's layouts and pages; the figures themselves are values in ``pnp.qa.figures``."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from msgspec import Struct, field
from msgspec.structs import replace
from reportlab.pdfbase import pdfmetrics

from pnp.errors import Diagnostic, counted, json_path
from pnp.impose.hex import hex_outline
from pnp.impose.sheet import EPS, Page, Slot
from pnp.input.model import Component, Game, Item
from pnp.input.templates import Element
from pnp.layout.edges import MISCUT_MM
from pnp.layout.fonts import FontBook
from pnp.layout.inksaver import bbox
from pnp.layout.piece import TEXT_TYPES, PieceLayout
from pnp.layout.primitives import Ellipse, Image, Line, Path, Primitive, Rect, Text
from pnp.layout.shapes import _image_size
from pnp.layout.turn import corners, rotation
from pnp.plan.component import ComponentPlan, LazyPieces, pages_for
from pnp.plan.digest import template_names
from pnp.plan.session import Session
from pnp.qa.check import GameCheck
from pnp.qa.figures import EXTREMES, ComponentPreflight, Extreme, Thresholds, Waiver, Where, lowest
from pnp.qa.miscut import Seam, find_seams
from pnp.qa.rasters import COVERAGE_DPI, Budget, edge_art, measuring_cost, page_coverage
from pnp.render.component import render_component
from pnp.render.pixels import NO_ART, ArtWork, Held, art_work, held, too_many
from pnp.units import MM

TOLERANCE_MM = 0.05  # how far outside the safe zone still counts as on it
SLACK = 1e-3  # rounding: a 0.25 pt stroke scaled from mm is 0.2499999
REACH_SLACK = 1e-3  # pt: far more than the rounding between a line's width fitted and measured
BOXED_TYPES = TEXT_TYPES | {"icon"}  # kept inside the safe zone


def _spec(game: Game) -> Mapping[str, Any]:
    return game.manifest.data.get("preflight", {}) if game.manifest is not None else {}


def thresholds_for(game: Game) -> Thresholds:
    spec = _spec(game)
    if "rules_text_min_pt" in spec:
        return Thresholds(rules_text_pt=float(spec["rules_text_min_pt"]), reason=spec.get("reason"))
    return Thresholds()


class GamePreflight(Struct, frozen=True):
    game: Game
    thresholds: Thresholds
    ink_saver: bool
    components: tuple[ComponentPreflight, ...]
    findings: tuple[Diagnostic, ...] = ()
    normal_coverage: float | None = None  # with --ink-saver: the normal build's coverage, to compare

    @property
    def coverage(self) -> float | None:
        """Mean ink coverage per page over every page of every component (0..1)."""
        pages = [v for c in self.components for v in (c.coverage or ())]
        return sum(pages) / len(pages) if pages else None

    def extreme(self, name: str) -> Extreme | None:
        """The lowest of a per-component extreme (``smallest_text``, ``thinnest_stroke``...)."""
        return lowest(self.components, name)

    @property
    def margin_mm(self) -> float | None:
        found = [c.margin_mm for c in self.components if c.margin_mm is not None]
        return min(found) if found else None

    @property
    def waived(self) -> tuple[Waiver, ...]:
        return tuple(w for c in self.components for w in c.waived)

    def as_json(self) -> dict[str, Any]:
        cov = self.coverage
        return {
            "id": self.game.id, "ink_saver": self.ink_saver, "thresholds": self.thresholds.as_json(),
            "coverage": round(cov * 100, 2) if cov is not None else None,
            "normal_coverage": round(self.normal_coverage * 100, 2) if self.normal_coverage is not None else None,
            "components": [c.as_json() for c in self.components],
            "warnings": [d.as_json() for d in self.findings],
        }


# --------------------------------------------------------------------------- pieces


_DESCENDERS = frozenset("gjpqyQ,;()[]{}|/")


def _text_box(t: Text, fonts: FontBook) -> tuple[float, float, float, float]:
    w = pdfmetrics.stringWidth(t.text, t.font, t.size) + t.tracking * max(len(t.text) - 1, 0)
    low = t.y if _DESCENDERS.isdisjoint(t.text) else t.y - fonts.descent(t.font, t.size)
    if t.angle:  # a turned line: the upright box around its turned ink box
        return corners(t.x, low, t.x + w, t.y + fonts.cap_height(t.font, t.size), rotation(-t.angle, t.x, t.y))
    return (t.x, low, t.x + w, t.y + fonts.cap_height(t.font, t.size))


def _prim_box(p: Primitive, fonts: FontBook) -> tuple[float, float, float, float] | None:
    if isinstance(p, Text):
        return _text_box(p, fonts) if p.text.strip() else None
    b = bbox(p)
    if b is None:
        return None
    paint = getattr(p, "paint", None)
    if paint is not None and paint.fill is None and (paint.stroke is None or paint.stroke_width <= 0):
        return None  # draws nothing
    return b


def _stroke(p: Primitive) -> float | None:
    if not isinstance(p, Rect | Ellipse | Path | Line):
        return None
    s = p.paint
    return s.stroke_width if s.stroke is not None and s.stroke_width > 0 else None


def _ppi(p: Image) -> float:
    iw, ih = _image_size(p.src)
    return min(iw / (p.w / 72.0), ih / (p.h / 72.0)) if p.w > 0 and p.h > 0 else math.inf


def _outside(x0: float, y0: float, x1: float, y1: float, shape: str, lay: PieceLayout, safe: float) -> float:
    """How far (pt) the farthest corner of the box (x0, y0)-(x1, y1) lies outside the safe zone
    of a piece cut to ``shape`` (<= 0: inside)."""
    w, h = lay.width, lay.height
    worst = -math.inf
    corners = ((x0, y0), (x1, y0), (x0, y1), (x1, y1))
    if shape == "round":
        rx, ry = w / 2 - safe, h / 2 - safe
        for x, y in corners:
            dx, dy = x - w / 2, y - h / 2
            dist = math.hypot(dx, dy)
            # distance past the inner ellipse along the ray from the centre (exact for circles)
            r = 1 / math.sqrt((dx / rx) ** 2 + (dy / ry) ** 2) * dist if dist > 0 and rx > 0 and ry > 0 else 0.0
            worst = max(worst, dist - r)
        return worst
    if shape == "hex":
        poly = hex_outline(0.0, 0.0, w, h)
        cx, cy = w / 2, h / 2
        for x, y in corners:
            for (ax, ay), (bx, by) in zip(poly, poly[1:] + poly[:1], strict=True):
                nx, ny = by - ay, ax - bx
                n = math.hypot(nx, ny)
                nx, ny = nx / n, ny / n
                if (cx - ax) * nx + (cy - ay) * ny > 0:  # normal points outwards
                    nx, ny = -nx, -ny
                worst = max(worst, (x - ax) * nx + (y - ay) * ny + safe)
        return worst
    w, h = w - safe, h - safe  # a rectangle: the eight values of the four corners, inline
    return max(safe - x0, safe - y0, x1 - w, y1 - h, safe - x1, safe - y1, x0 - w, y0 - h)


class _Found(Struct):
    """Worst value and the items where one element falls short of a threshold."""

    el: Element | None
    value: float
    items: list[str] = field(default_factory=list)


class _Record(Struct):
    """What walking one front found, kept to be replayed in item order (``Collector``): per
    extreme, each value lower than all before it in the walk, with its side and element (no
    other value of the walk could ever become the extreme, whatever came before); the findings,
    waivers and counts."""

    lows: dict[str, list[tuple[float, str, Element | None]]] = field(default_factory=dict)
    found: dict[tuple[str, str, tuple[str | int, ...], str], tuple[_Found, Any]] = field(default_factory=dict)
    waived: dict[tuple[str, tuple[str | int, ...]], str] = field(default_factory=dict)
    images: int = 0
    outside: int = 0


class Collector:
    """Preflight of one component while it is rendered. A lazy plan's fronts are watched as the
    drawing lays them out (``LazyPieces.observers``), so no piece is laid out twice; anything not
    seen (a plan laid out in full, or the first item laid out before the watch began) is walked
    in ``finish``, which also reads the backs and the imposed pages. ``lines``: look up the
    template line of each extreme (a report shows them; a build does not need them).

    A plan that keeps item order (``LazyPieces.item_order``: it sampled its pieces' edges, and
    its blocks may draw the pieces out of order) is walked as if every front were walked in item
    order, each followed by its back: a front the drawing lays out is walked into a ``_Record``,
    replayed once every item before it has been, so ties go to the same items whatever the order
    of the drawing."""

    def __init__(self, session: Session, gc: GameCheck, plan: ComponentPlan, thresholds: Thresholds | None = None,
                 lines: bool = False, measure: bool = False):
        self.gc, self.plan, self.comp = gc, plan, plan.component
        self.t = thresholds or thresholds_for(gc.game)
        self.fonts: FontBook = session.fonts
        self.lines = lines
        comp = self.comp
        self.styles = [session.store.get(name).styles for side in ("template", "back")
                       for name in template_names(session.store, gc.game, comp, side)]
        # A reference sheet is not cut; a box's template draws its own cut outline inside its box.
        self.safe = comp.kind not in ("sheet", "box")
        # the cut outline: a round token cut square (--token-cut square) is a square piece
        self.shape = "rect" if comp.shape == "round" and getattr(gc.opts, "token_cut", "circle") == "square" \
            else comp.shape
        self.extremes: dict[str, tuple[float, Where, Element | None]] = {}
        self.images = 0
        self.outside = 0
        self.found: dict[tuple[str, str, tuple[str | int, ...], str], _Found] = {}
        self.waived: dict[tuple[str, tuple[str | int, ...]], str] = {}
        self.seen: set[str] = set()  # items whose front was walked (or recorded)
        # with ``measure`` (pnp preflight), what each front draws of image files and SVG art, by
        # item, and each back, by its identity: what rendering the pages to measure them costs
        # (and what of it comes near the trim, ``edge_art``)
        self.arts: dict[str | int, tuple[ArtWork, ArtWork, Held]] | None = {} if measure else None
        self._names: Callable[[int], str] | None = None
        self._roles: dict[str | None, str | None] = {}
        self._metrics: dict[tuple[str, float], tuple[Any, float, float]] = {}
        # item order (see the class): the records waiting, the walk into one, how far the items
        # (and the piece of each: its back) have been walked, the backs walked
        self._ordered = isinstance(plan.fronts, LazyPieces) and plan.fronts.item_order
        self._records: dict[str, _Record] = {}
        self._rec: _Record | None = None
        self._next = self._piece = 0
        self._backs: set[int] = set()
        if self._ordered and comp.items:
            # the first front was laid out by the plan, before this watch (still cached)
            first = comp.items[0]
            self.seen.add(first.id)
            self.walk(plan.fronts.first(), first.id, "front")  # type: ignore[arg-type]
            self._advance()
        if isinstance(plan.fronts, LazyPieces):
            plan.fronts.observers.append(self.front)

    # -- pieces ------------------------------------------------------------------------
    def front(self, lay: PieceLayout, item: Item) -> None:
        if item.id in self.seen:
            return
        self.seen.add(item.id)
        if not self._ordered or (self._next < len(self.comp.items) and self.comp.items[self._next].id == item.id):
            self.walk(lay, item.id, "front")  # (in item order: the next item's, walked now)
            if self._ordered:
                self._advance()
            return
        saved = (self.extremes, self.found, self.waived, self.images, self.outside)
        rec = self._rec = _Record()
        self.extremes, self.found, self.waived, self.images, self.outside = {}, {}, {}, 0, 0
        try:
            self.walk(lay, item.id, "front")
        finally:
            rec.waived, rec.images, rec.outside = self.waived, self.images, self.outside
            self.extremes, self.found, self.waived, self.images, self.outside = saved
            self._rec = None
        self._records[item.id] = rec
        self._advance()

    def _replay(self, rec: _Record, item: str) -> None:
        """Walk a front again from its record: the same calls its walk would make now, but for
        values that could change nothing."""
        for name, lows in rec.lows.items():
            for value, side, el in lows:
                self.low(name, value, item, side, el)
        for (check, _, _, what), (f, worst) in rec.found.items():
            self.flag(check, f.el, item, f.value, what, worst)
        self.waived.update(rec.waived)
        self.images += rec.images
        self.outside += rec.outside

    def _advance(self, final: bool = False) -> None:
        """Walk the items in order, each front (replayed from its record, or in ``finish`` laid
        out again if no walk saw it) then its back if not walked yet, as far as fronts are in."""
        items, plan = self.comp.items, self.plan
        while self._next < len(items):
            item = items[self._next]
            rec = self._records.pop(item.id, None)
            if rec is not None:
                self._replay(rec, item.id)
            elif item.id not in self.seen:
                if not final:
                    return
                self.seen.add(item.id)
                self.walk(plan.fronts[self._piece], item.id, "front")
            back = plan.backs[self._piece]
            if back is not None and id(back) not in self._backs:
                self._backs.add(id(back))
                self.walk(back, item.id, "back")
            self._piece += item.copies
            self._next += 1

    def role(self, el: Element) -> str | None:
        name = el.data.get("style")
        if name not in self._roles:
            self._roles[name] = next((st[name].get("role") for st in self.styles if name in st), None)
        return self._roles[name]

    def low(self, name: str, value: float, item: str, side: str, el: Element | None) -> None:
        if self._rec is not None:  # kept if lower than all before it (exactly: see _Record)
            lows = self._rec.lows.setdefault(name, [])
            if not lows or value < lows[-1][0]:
                lows.append((value, side, el))
            return
        cur = self.extremes.get(name)
        if cur is None or value < cur[0] - 1e-9:
            self.extremes[name] = (value, _where(item, side, el), el)

    def _shown(self, src: str) -> str:
        """An image's path as messages show it: relative to the game folder, so that a message
        (and the build record that keeps it) does not depend on where the data root lies."""
        folder = str(self.gc.game.folder.resolve())
        return src[len(folder) + 1:] if src.startswith(folder + os.sep) else src

    def flag(self, check: str, el: Element | None, item: str, value: float, what: str = "",
             worst: Any = min) -> None:
        key = (check, el.doc.display if el is not None else "", el.path if el is not None else (), what)
        f = self.found.get(key)
        if f is None:
            f = self.found[key] = _Found(el, value)
        f.value = worst(f.value, value)
        if item not in f.items:
            f.items.append(item)
        if self._rec is not None:
            self._rec.found[key] = (f, worst)

    def walk(self, lay: PieceLayout, item: str, side: str) -> None:
        t = self.t
        if self.arts is not None:
            self.arts[item if side == "front" else id(lay)] = (art_work([lay]), edge_art(lay), held([lay]))
        prims_all = lay.primitives
        spans: list[tuple[Element | None, int]] = list(lay.sources)
        if sum(n for _, n in spans) != len(prims_all):
            spans = [(None, len(prims_all))]
        reach = lay.reach if len(lay.reach) == len(spans) else ()
        extremes = self.extremes
        metrics = self._metrics
        rules_min = t.rules_text_pt - SLACK
        safe = t.safe_mm * MM
        i = 0
        for si, (el, n) in enumerate(spans):
            prims = prims_all[i:i + n]
            i += n
            kind = el.data.get("type") if el is not None else None
            role = self.role(el) if el is not None and kind in TEXT_TYPES else None
            # The element's ink box, for the safe zone: text is one measured line box per Text
            # (_text_box). Measuring is the costly part, so texts first give only what is cheap
            # (left end, top, and the bottom as if every line had descenders); see ``_ink``.
            boxed = self.safe and el is not None and kind in BOXED_TYPES
            x0 = y0 = low = math.inf
            x1 = y1 = -math.inf
            texts = False  # whether the element has text to measure
            tracked = True  # and none of it has negative tracking (an ink narrower than its letters)
            for p in prims:
                if type(p) is Text:
                    if not p.text.strip():
                        continue
                    cur = extremes.get("smallest_text")
                    if cur is None or p.size < cur[0] - 1e-9:  # else ``low`` would change nothing
                        self.low("smallest_text", p.size, item, side, el)
                    if role == "rules":
                        self.low("smallest_rules", p.size, item, side, el)
                        if p.size < rules_min:
                            self.flag("rules", el, item, p.size)
                    if boxed and p.angle:  # a turned line: its turned box, measured now
                        b = _text_box(p, self.fonts)
                        x0, y0, x1, y1 = min(x0, b[0]), min(y0, b[1]), max(x1, b[2]), max(y1, b[3])
                    elif boxed:
                        m = metrics.get((p.font, p.size))
                        if m is None:
                            m = self._font_metrics(p.font, p.size)
                        texts = True
                        if p.x < x0:
                            x0 = p.x
                        v = p.y - m[1] if m[1] > 0 else p.y
                        if v < low:
                            low = v
                        v = p.y + m[2]
                        if v > y1:
                            y1 = v
                        if p.tracking < 0:
                            tracked = False
                    continue
                sw = _stroke(p)
                if sw is not None:
                    self.low("thinnest_stroke", sw, item, side, el)
                    if sw < t.stroke_pt - SLACK:
                        self.flag("stroke", el, item, sw)
                if isinstance(p, Image):
                    self.images += 1
                    ppi = _ppi(p)
                    self.low("lowest_ppi", ppi, item, side, el)
                    if ppi < t.image_ppi - SLACK:
                        self.flag("ppi", el, item, ppi, self._shown(p.src))
                if boxed:
                    b = _prim_box(p, self.fonts)
                    if b is not None:
                        x0, y0, x1, y1 = min(x0, b[0]), min(y0, b[1]), max(x1, b[2]), max(y1, b[3])
            if not boxed or x0 == math.inf:
                continue
            if texts:
                right = reach[si] if reach else None
                # The lines' reach as fitted is their ink's right end up to rounding: when the
                # box it bounds is inside the safe zone, so is the ink (the test is convex).
                if right is not None and tracked and self.shape != "round" and \
                        _outside(x0, min(y0, low), max(x1, right + REACH_SLACK), y1, self.shape, lay, safe) \
                        <= TOLERANCE_MM * MM:
                    continue
                for p in prims:  # _text_box, inline
                    if type(p) is Text and p.text.strip() and not p.angle:
                        m = metrics[(p.font, p.size)]
                        text = p.text
                        v = p.y if _DESCENDERS.isdisjoint(text) else p.y - m[1]
                        if v < y0:
                            y0 = v
                        v = p.x + (m[0](text, p.size) + p.tracking * max(len(text) - 1, 0))
                        if v > x1:
                            x1 = v
            out = _outside(x0, y0, x1, y1, self.shape, lay, safe)
            if out > TOLERANCE_MM * MM:
                reason = el.data.get("preflight", {}).get("safe_zone")  # type: ignore[union-attr]
                if reason:
                    self.waived[(el.doc.display, el.path)] = reason  # type: ignore[union-attr]
                else:
                    self.outside += 1
                    self.flag("safe", el, item, out / MM, "icon" if kind == "icon" else "text", worst=max)

    def _font_metrics(self, font: str, size: float) -> tuple[Any, float, float]:
        """What ``_text_box`` needs of a font at a size: its width function, descent and cap height."""
        m = self._metrics[(font, size)] = (pdfmetrics.getFont(font).stringWidth, self.fonts.descent(font, size),
                                           self.fonts.cap_height(font, size))
        return m

    def art_of(self, page: Page, slot: Slot, edge: bool = False) -> ArtWork:
        """What the piece in ``slot`` draws of image files and SVG art (with ``measure``); with
        ``edge``, only what comes near its trim (``pnp.qa.rasters.edge_art``)."""
        arts, plan = self.arts, self.plan
        assert arts is not None, "a Collector made with measure=True"
        if page.side == "back":
            back = plan.backs[slot.piece]
            if back is None:
                return NO_ART
            if id(back) not in arts:
                arts[id(back)] = (art_work([back]), edge_art(back), held([back]))
            return arts[id(back)][edge]
        if self._names is None:
            self._names = item_names(plan)
        return arts.get(self._names(slot.piece), (NO_ART, NO_ART, Held()))[edge]

    def held_of(self, page: Page) -> Held:
        """What PDFium holds to rasterise ``page`` (``pnp.render.pixels.held``), whole or a strip of
        it: it parses the whole page either way."""
        arts, plan = self.arts, self.plan
        assert arts is not None, "a Collector made with measure=True"
        out = Held()
        for slot in page.slots:
            if page.side == "back":
                self.art_of(page, slot)  # measured once
                back = plan.backs[slot.piece]
                out += arts[id(back)][2] if back is not None else Held()
            else:
                if self._names is None:
                    self._names = item_names(plan)
                out += arts.get(self._names(slot.piece), (NO_ART, NO_ART, Held()))[2]
        return out

    # -- the component -----------------------------------------------------------------
    def finish(self, data: bytes | None = None) -> tuple[ComponentPreflight, list[Diagnostic]]:
        """The component's figures and its preflight warnings (``data``: its PDF, for the size)."""
        plan, comp, t = self.plan, self.comp, self.t
        self._advance(final=True)
        findings = self._piece_findings()
        pages = pages_for(plan)
        m = margin(pages, plan)
        game = self.gc.game

        def diag(msg: str, expected: str, hint: str | None = None) -> Diagnostic:
            return component_warning(game, comp, msg, expected, hint)

        waived = [Waiver("safe_zone", comp.id, f"{file} {json_path(path)}", why)
                  for (file, path), why in self.waived.items()]
        if m is not None and m < t.margin_mm * MM - 1e-6:
            why = _spec(game).get("margins", {}).get(comp.id)
            if why:
                waived.append(Waiver("margin", comp.id, f"{m / MM:.1f} mm on {plan.sheet.paper.name}", why))
            else:
                findings.append(diag(f"component {comp.id}: a piece comes {m / MM:.1f} mm from the paper's edge "
                                     f"({plan.sheet.paper.name}), less than {t.margin_mm:g} mm (game {game.id})",
                                     f"at least {t.margin_mm:g} mm between the paper's edge and every trim",
                                     "many printers cannot print that close to the edge"))
        crossings = 0
        seen: dict[Any, list[tuple[int, int]]] = {}  # full pages repeat one geometry
        for page in pages:
            geometry = (tuple((s.x, s.y, s.w, s.h, s.clip is None) for s in page.slots), page.cuts, page.paper)
            if geometry not in seen:
                seen[geometry] = cut_crossings(page, _page_size(page, plan))
            hits = seen[geometry]
            crossings += len(hits)
            if hits:
                findings.append(diag(f"component {comp.id}: a cut line on page {page.number} crosses piece "
                                     f"{page.slots[hits[0][1]].piece + 1} (game {game.id}; {len(hits)} on that page)",
                                     "cut lines only along trims, never through a piece"))
        fronts = [p for p in pages if p.side == "front"]
        part = next((s.part for p in pages for s in p.slots if s.part is not None), None)
        per_sheet = 1 if part else max((len([s for s in p.slots if s.side == "front"]) for p in fronts), default=0)
        ext = {name: self._extreme(name) for name in EXTREMES}
        return ComponentPreflight(
            comp.id, len(plan.fronts), per_sheet, part.rows * part.cols if part else 1, len(fronts), len(pages),
            ext["smallest_text"], ext["smallest_rules"], ext["thinnest_stroke"], ext["lowest_ppi"], self.images,
            round(m / MM, 2) if m is not None else None, self.outside, crossings, len(findings), t.rules_text_pt,
            tuple(waived), len(data) if data is not None else None), findings

    def _extreme(self, name: str) -> Extreme | None:
        found = self.extremes.get(name)
        if found is None:
            return None
        value, where, el = found
        if self.lines and el is not None:
            where = replace(where, line=el.doc.locate(el.path)[0])
        return Extreme(value, where)

    def _piece_findings(self) -> list[Diagnostic]:
        out = []
        g, c, t = self.gc.game, self.comp, self.t
        for (check, _, _, what), f in self.found.items():
            el = f.el
            n = len(f.items)
            items = f"item {f.items[0]}" if n == 1 else f"{n} items: {', '.join(f.items[:6])}" + (
                ", ..." if n > 6 else "")
            label = f" ({_label(el)})" if el is not None else ""
            ctx = f" in game {g.id}, component {c.id}, {items}"
            if check == "rules":
                msg = f"rules text at {f.value:g} pt, below {t.rules_text_pt:g} pt{label}{ctx}"
                exp = f"rules text of at least {t.rules_text_pt:g} pt"
                hint = ("enlarge the box, shorten the text or raise the style's size; or set preflight."
                        "rules_text_min_pt with a reason in game.json")
            elif check == "stroke":
                msg = f"a stroke of {f.value:.2f} pt, thinner than {t.stroke_pt:g} pt{label}{ctx}"
                exp = f"strokes of at least {t.stroke_pt:g} pt (thinner lines may not print)"
                hint = "raise stroke_width"
            elif check == "ppi":
                msg = f"image {what} prints at {f.value:.0f} ppi, below {t.image_ppi:g} ppi{label}{ctx}"
                exp = f"images of at least {t.image_ppi:g} ppi at their printed size"
                hint = "use a larger image or print it smaller"
            else:
                msg = (f"{what} reaches {f.value:.1f} mm outside the safe zone ({t.safe_mm:g} mm inside the trim)"
                       f"{label}{ctx}")
                exp = f"text and icons at least {t.safe_mm:g} mm inside the trim"
                hint = 'move or shrink the element, or exempt it: "preflight": {"safe_zone": "why"}'
            if el is not None:
                out.append(el.doc.diag(el.path, msg, expected=exp, hint=hint, severity="warning"))
            else:
                out.append(Diagnostic(c.data_file, msg, expected=exp, hint=hint, severity="warning"))
        return out


def _label(el: Element) -> str:
    name = el.data.get("id")
    return f"element {name!r}" if name else f"{el.data.get('type')} element"


def _where(item: str, side: str, el: Element | None) -> Where:
    if el is None:
        return Where(item, side)
    return Where(item, side, el.doc.display, json_path(el.path), _label(el))


# --------------------------------------------------------------------------- pages


def _page_size(page: Page, plan: ComponentPlan) -> tuple[float, float]:
    paper = page.paper or plan.sheet.paper
    return paper.width, paper.height


def margin(pages: Sequence[Page], plan: ComponentPlan) -> float | None:
    """Smallest distance (pt) from the paper's edge to any piece's trim on any page."""
    if plan.placement == "print-shop":
        return None
    best: float | None = None
    for page in pages:
        pw, ph = _page_size(page, plan)
        for s in page.slots:
            m = min(s.x, s.y, pw - s.x - s.w, ph - s.y - s.h)
            best = m if best is None else min(best, m)
    return best


def _trim_polygon(s: Any, hexes: bool) -> list[tuple[float, float]]:
    if hexes and s.clip is not None:
        return list(hex_outline(s.x, s.y, s.w, s.h))
    return [(s.x, s.y), (s.x + s.w, s.y), (s.x + s.w, s.y + s.h), (s.x, s.y + s.h)]


def _crosses(poly: list[tuple[float, float]], a: tuple[float, float], b: tuple[float, float], eps: float) -> bool:
    """Whether segment a-b passes through a convex polygon's inside, more than ``eps`` from its
    edges (Cyrus-Beck clipping against each edge's inward half-plane)."""
    xs = [p[0] for p in poly]
    ys = [p[1] for p in poly]
    if max(a[0], b[0]) <= min(xs) + eps or min(a[0], b[0]) >= max(xs) - eps or \
            max(a[1], b[1]) <= min(ys) + eps or min(a[1], b[1]) >= max(ys) - eps:
        return False
    n = len(poly)
    cx, cy = sum(xs) / n, sum(ys) / n
    lo, hi = 0.0, 1.0
    dx, dy = b[0] - a[0], b[1] - a[1]
    for (ax, ay), (bx, by) in zip(poly, poly[1:] + poly[:1], strict=True):
        nx, ny = by - ay, ax - bx
        length = math.hypot(nx, ny)
        if length == 0:
            continue
        nx, ny = nx / length, ny / length
        if (cx - ax) * nx + (cy - ay) * ny < 0:
            nx, ny = -nx, -ny  # inward
        # inside when (p - edge) . n > eps, p = a + t * d
        start = (a[0] - ax) * nx + (a[1] - ay) * ny - eps
        rate = dx * nx + dy * ny
        if abs(rate) < 1e-12:
            if start <= 0:
                return False
        elif rate > 0:
            lo = max(lo, -start / rate)
        else:
            hi = min(hi, -start / rate)
        if lo >= hi:
            return False
    return True


def cut_crossings(page: Page, paper: tuple[float, float]) -> list[tuple[int, int]]:
    """(cut index, slot index) for every cut that runs through the inside of a piece's trim on this page.
    An axis-parallel cut that starts at the paper's edge is a crop mark for one guillotine cut
    across the sheet, so it is extended over the whole page; any other cut is checked as drawn."""
    pw, ph = paper
    out: list[tuple[int, int]] = []
    eps = 0.01
    rects = [(k, s.x, s.y, s.x + s.w, s.y + s.h) for k, s in enumerate(page.slots) if s.clip is None]
    polys = [(k, _trim_polygon(s, True)) for k, s in enumerate(page.slots) if s.clip is not None]
    for ci, cut in enumerate(page.cuts):
        x1, y1, x2, y2 = cut.x1, cut.y1, cut.x2, cut.y2
        at_edge = min(x1, x2) <= EPS or min(y1, y2) <= EPS or max(x1, x2) >= pw - EPS or max(y1, y2) >= ph - EPS
        vertical, horizontal = abs(x1 - x2) <= EPS, abs(y1 - y2) <= EPS
        if vertical and at_edge:
            y1, y2 = 0.0, ph
        elif horizontal and at_edge:
            x1, x2 = 0.0, pw
        lo_x, hi_x, lo_y, hi_y = min(x1, x2), max(x1, x2), min(y1, y2), max(y1, y2)
        for k, rx0, ry0, rx1, ry1 in rects:
            if vertical:
                hit = rx0 + eps < x1 < rx1 - eps and lo_y < ry1 - eps and hi_y > ry0 + eps
            elif horizontal:
                hit = ry0 + eps < y1 < ry1 - eps and lo_x < rx1 - eps and hi_x > rx0 + eps
            else:
                hit = _crosses([(rx0, ry0), (rx1, ry0), (rx1, ry1), (rx0, ry1)], (x1, y1), (x2, y2), eps)
            if hit:
                out.append((ci, k))
        for k, poly in polys:
            if _crosses(poly, (x1, y1), (x2, y2), eps):
                out.append((ci, k))
    return out


# --------------------------------------------------------------------------- the report


def item_names(plan: ComponentPlan) -> Callable[[int], str]:
    """The id of the item whose copy is piece ``n`` of the plan, as a function of ``n``."""
    items = plan.component.items
    key = getattr(plan.fronts, "key", None)
    if key is not None:
        return lambda n: items[key(n)].id
    ids = [item.id for item in items for _ in range(item.copies)]
    return ids.__getitem__


def miscut_seams(gc: GameCheck, plan: ComponentPlan, data: bytes) -> list[Diagnostic]:
    """A warning for each page of the component's PDF ``data`` with a shared cut line where a
    miscut of ``MISCUT_MM`` shows a neighbour's different colour (``pnp.qa.miscut``), naming the
    sheet and the two pieces."""
    if not plan.sheet.crop_marks:  # a box net's template draws its own cut outline inside its box
        return []
    pages = pages_for(plan)
    seams = find_seams(data, pages, [_page_size(p, plan) for p in pages])
    if not seams:
        return []
    game, comp = gc.game, plan.component
    name = item_names(plan)
    sheet_of: dict[int, int] = {}
    n = 0
    for p in pages:
        n += p.side == "front"
        sheet_of[p.number] = n
    by_page: dict[int, list[Seam]] = {}
    for seam in seams:
        by_page.setdefault(seam.page, []).append(seam)
    out = []
    for number, found in by_page.items():
        first = found[0]
        page = pages[number - 1]
        a, b = page.slots[first.a].piece, page.slots[first.b].piece
        more = f"; {counted(len(found) - 1, 'more cut line')} on that page" if len(found) > 1 else ""
        msg = (f"a {MISCUT_MM:g} mm miscut shows a neighbour's colour (ΔE00 {max(s.delta_e for s in found):.0f}) "
               f"in game {game.id}, component {comp.id}, sheet {sheet_of[number]} {first.side} (page {number}): "
               f"pieces {a + 1} ({name(a)}) and {b + 1} ({name(b)}) share a cut line{more}")
        exp = f"pieces that share a cut line to match in colour within {MISCUT_MM:g} mm of it"
        hint = "give the pieces bleed (a gutter keeps each one's colour past its own cut), or matching edges"
        out.append(component_warning(game, comp, msg, exp, hint))
    return out


def component_warning(game: Game, comp: Component, msg: str, expected: str, hint: str | None = None) -> Diagnostic:
    """A preflight warning about a component, located at its entry in the game's manifest."""
    return game.manifest_diag(msg, comp.id, expected=expected, hint=hint, severity="warning")


def inspect(session: Session, gc: GameCheck, lines: bool = False) -> GamePreflight:
    """Preflight without drawing, for a game checked with every piece laid out (``check`` with
    ``layout=True``): figures and warnings, no file sizes, no coverage."""
    t = thresholds_for(gc.game)
    comps: list[ComponentPreflight] = []
    findings: list[Diagnostic] = []
    for plan in gc.plans:
        c, found = Collector(session, gc, plan, t, lines=lines).finish()
        comps.append(c)
        findings.extend(found)
    return GamePreflight(gc.game, t, gc.opts.ink_saver, tuple(comps), tuple(findings))


def preflight_game(session: Session, gc: GameCheck, coverage: bool = True, dpi: float = COVERAGE_DPI,
                   lines: bool = True, budget: Budget | None = None) -> GamePreflight:
    """Render every component of a checked game in memory (nothing is written) and collect its
    preflight: figures, warnings, file sizes and, with ``coverage``, per-page ink coverage.
    What is measured on rasterised pages (coverage, shared cut lines) is held to ``budget``
    (the command's: ``pnp.qa.rasters``); a component past it is not measured, with a warning."""
    t = thresholds_for(gc.game)
    comps: list[ComponentPreflight] = []
    findings: list[Diagnostic] = []
    budget = Budget() if budget is None else budget
    for plan in gc.plans:
        col = Collector(session, gc, plan, t, lines=lines, measure=True)
        data, _ = render_component(session, gc.game, plan, gc.opts)
        c, found = col.finish(data)
        pages = pages_for(plan)
        worst = max((col.held_of(p) for p in pages), key=lambda h: h.shapes, default=Held())
        over = too_many("pnp preflight", f"a sheet of component {plan.component.id}", worst)  # one render's memory
        if over is None:  # and the command's time
            spent = budget.take(measuring_cost(pages, [_page_size(p, plan) for p in pages], col.art_of, coverage,
                                               bool(plan.sheet.crop_marks), dpi))
            if spent is not None:
                over = (spent[0], "the pages' measuring renders within the command's pixel budget", spent[1])
        if over is not None:  # measured without them: the rest of the report stands
            what = "ink coverage and shared cut lines" if coverage else "shared cut lines"
            found.append(component_warning(gc.game, plan.component, f"component {plan.component.id}: {what} "
                                           f"not measured: {over[0]}", over[1], over[2]))
            c = replace(c, warnings=c.warnings + 1)
        else:
            if coverage:
                c = replace(c, coverage=tuple(page_coverage(data, dpi)))
            seams = miscut_seams(gc, plan, data)
            c = replace(c, miscut_seams=len(seams), warnings=c.warnings + len(seams))
            found.extend(seams)
        comps.append(c)
        findings.extend(found)
    return GamePreflight(gc.game, t, gc.opts.ink_saver, tuple(comps), tuple(findings))

