"""Preflight: what a print shop checks before printing, measured on pnp's own layouts, pages and
PDFs. ``inspect`` is cheap (laid-out pieces and imposed pages, no drawing; ``pnp build`` runs it
and prints a summary); ``measure`` adds what needs the PDF: file size and ink coverage, from
each page rasterised at ``COVERAGE_DPI``.

Per component and sheet:

* ink coverage: per page, the mean over its pixels of ``1 - min(R, G, B)``, the strongest of the
  cyan, magenta and yellow a naive RGB -> CMY conversion gives (white 0 %, black or any fully
  saturated colour 100 %), as a percentage; a component's and a game's figure is the mean over
  their pages;
* the smallest text (and the smallest *rules* text: text whose style has ``role: rules``), the
  thinnest stroke, the effective ppi of every raster image at its printed size, each with the
  item and template element (file and line) where it occurs;
* text or icons outside the safe zone (``SAFE_MM`` inside the trim; a round piece's circle and a
  hex tile's hexagon shrink by it likewise);
* cut lines that cross a piece: a crop mark in the margin stands for one guillotine cut across
  the whole sheet, so it is extended over the page; a cut along a hex edge is checked as drawn;
* the page margin: the smallest distance from the paper's edge to a piece's trim (what has to
  print; bleed may fall into a printer's unprintable border). Not checked for print-shop pages,
  which are trim + bleed by design;
* pieces per sheet, sheets of paper and pages per component, file size.

Thresholds (``Thresholds``: rules text >= 8 pt, strokes >= 0.25 pt, images >= 200 ppi, margins
>= 5 mm) give warnings (``Diagnostic`` with severity ``warning``), errors with ``--strict``. A
game may lower the rules-text minimum in ``game.json`` (``preflight.rules_text_min_pt``, with a
``reason``)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from PIL import ImageChops, ImageStat

from pnp.errors import Diagnostic, json_path
from pnp.fonts import FontBook
from pnp.impose import EPS, Page, hex_outline
from pnp.inksaver import bbox
from pnp.layout import MM, PieceLayout, _image_size
from pnp.model import Component, Game
from pnp.pipeline import ComponentPlan, GameCheck, Session, pages_for, render_component
from pnp.primitives import Ellipse, Image, Line, Path, Primitive, Rect, Text
from pnp.templates import Element

COVERAGE_DPI = 20  # coverage is an area average: 20 dpi is plenty and fast
SAFE_MM = 3.0
TOLERANCE_MM = 0.05  # how far outside the safe zone still counts as on it
TEXT_TYPES = ("text", "richtext")
SLACK = 1e-3  # rounding: a 0.25 pt stroke scaled from mm is 0.2499999


@dataclass(frozen=True)
class Thresholds:
    rules_text_pt: float = 8.0
    stroke_pt: float = 0.25
    image_ppi: float = 200.0
    margin_mm: float = 5.0
    safe_mm: float = SAFE_MM
    reason: str | None = None  # why the game's rules-text minimum differs from the default

    def as_json(self) -> dict[str, Any]:
        return {"rules_text_pt": self.rules_text_pt, "stroke_pt": self.stroke_pt, "image_ppi": self.image_ppi,
                "margin_mm": self.margin_mm, "safe_zone_mm": self.safe_mm, "reason": self.reason}


def thresholds_for(game: Game) -> Thresholds:
    spec: Mapping[str, Any] = (game.manifest.data.get("preflight", {}) if game.manifest is not None else {})
    if "rules_text_min_pt" in spec:
        return Thresholds(rules_text_pt=float(spec["rules_text_min_pt"]), reason=spec.get("reason"))
    return Thresholds()


@dataclass(frozen=True)
class Where:
    """A piece side and the template element that drew something on it."""

    item: str
    side: str  # "front" | "back"
    element: Element | None

    def text(self) -> str:
        el = f", {self.element.label}" if self.element is not None else ""
        return f"item {self.item} ({self.side}){el}"


@dataclass(frozen=True)
class Extreme:
    value: float
    where: Where

    def as_json(self, unit: str) -> dict[str, Any]:
        el = self.where.element
        line = el.doc.locate(el.path)[0] if el is not None else None
        return {unit: round(self.value, 2), "item": self.where.item, "side": self.where.side,
                "element": el.data.get("id") if el is not None else None,
                "file": el.doc.display if el is not None else None, "line": line}


@dataclass(frozen=True)
class Waiver:
    """A check the data exempts something from: ``check`` (safe_zone, margin), where, and why."""

    check: str
    component: str
    where: str
    reason: str


@dataclass(frozen=True)
class ComponentPreflight:
    component: Component
    pieces: int
    per_sheet: int  # the most pieces one sheet carries (1 for a piece tiled over several pages)
    parts: int  # pages one piece is tiled over (1 when it fits a page)
    sheets: int  # sheets of paper (a duplex front and back page are one sheet)
    pages: int
    smallest_text: Extreme | None
    smallest_rules: Extreme | None
    thinnest_stroke: Extreme | None
    lowest_ppi: Extreme | None
    images: int
    margin_mm: float | None  # smallest paper edge to trim distance; None: print-shop pages
    outside_safe: int  # text and icon elements (per distinct piece side) reaching outside the safe zone
    cut_crossings: int
    findings: tuple[Diagnostic, ...]
    waived: tuple[Waiver, ...] = ()  # what the data exempts from a check, with the reason
    bytes: int | None = None  # filled in by measure()
    coverage: tuple[float, ...] | None = None  # per page, 0..1

    @property
    def mean_coverage(self) -> float | None:
        return sum(self.coverage) / len(self.coverage) if self.coverage else None

    def as_json(self) -> dict[str, Any]:
        def ex(e: Extreme | None, unit: str) -> dict[str, Any] | None:
            return e.as_json(unit) if e is not None else None

        return {
            "id": self.component.id, "pieces": self.pieces, "per_sheet": self.per_sheet, "parts": self.parts,
            "sheets": self.sheets, "pages": self.pages, "bytes": self.bytes,
            "coverage": round(self.mean_coverage * 100, 2) if self.mean_coverage is not None else None,
            "coverage_pages": [round(c * 100, 2) for c in self.coverage] if self.coverage is not None else None,
            "smallest_text": ex(self.smallest_text, "pt"), "smallest_rules_text": ex(self.smallest_rules, "pt"),
            "thinnest_stroke": ex(self.thinnest_stroke, "pt"), "lowest_image_ppi": ex(self.lowest_ppi, "ppi"),
            "images": self.images,
            "margin_mm": round(self.margin_mm, 2) if self.margin_mm is not None else None,
            "outside_safe_zone": self.outside_safe, "cut_crossings": self.cut_crossings,
            "warnings": len(self.findings), "waived": [w.__dict__ for w in self.waived],
        }


@dataclass(frozen=True)
class GamePreflight:
    game: Game
    thresholds: Thresholds
    ink_saver: bool
    components: tuple[ComponentPreflight, ...]
    normal_coverage: float | None = None  # with --ink-saver: the normal build's coverage, to compare

    @property
    def findings(self) -> tuple[Diagnostic, ...]:
        return tuple(d for c in self.components for d in c.findings)

    @property
    def waived(self) -> tuple[Waiver, ...]:
        return tuple(w for c in self.components for w in c.waived)

    @property
    def coverage(self) -> float | None:
        """Mean ink coverage per page over every page of every component (0..1)."""
        pages = [v for c in self.components for v in (c.coverage or ())]
        return sum(pages) / len(pages) if pages else None

    def extreme(self, name: str) -> Extreme | None:
        """The smallest of a per-component extreme (``smallest_text``, ``thinnest_stroke``...)."""
        found = [getattr(c, name) for c in self.components if getattr(c, name) is not None]
        return min(found, key=lambda e: e.value) if found else None

    @property
    def margin_mm(self) -> float | None:
        found = [c.margin_mm for c in self.components if c.margin_mm is not None]
        return min(found) if found else None

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


def _text_box(t: Text, fonts: FontBook) -> tuple[float, float, float, float]:
    w = fonts.width(t.text, t.font, t.size) + t.tracking * max(len(t.text) - 1, 0)
    low = t.y - fonts.descent(t.font, t.size) if any(c in "gjpqyQ,;()[]{}|/" for c in t.text) else t.y
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


def _outside(corners: Iterable[tuple[float, float]], comp: Component, lay: PieceLayout, safe: float) -> float:
    """How far (pt) the farthest corner lies outside the safe zone (<= 0: inside)."""
    w, h = lay.width, lay.height
    worst = -math.inf
    if comp.shape == "round":
        rx, ry = w / 2 - safe, h / 2 - safe
        for x, y in corners:
            dx, dy = x - w / 2, y - h / 2
            dist = math.hypot(dx, dy)
            # distance past the inner ellipse along the ray from the centre (exact for circles)
            r = 1 / math.sqrt((dx / rx) ** 2 + (dy / ry) ** 2) * dist if dist > 0 and rx > 0 and ry > 0 else 0.0
            worst = max(worst, dist - r)
        return worst
    if comp.shape == "hex":
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
    for x, y in corners:
        worst = max(worst, safe - x, safe - y, x - (w - safe), y - (h - safe))
    return worst


@dataclass
class _Found:
    """Worst value and the items where one element falls short of a threshold."""

    value: float
    items: list[str] = field(default_factory=list)


class _Piece:
    """Walks one laid-out side and records extremes and threshold findings."""

    def __init__(self, owner: _Component):
        self.o = owner

    def walk(self, lay: PieceLayout, item: str, side: str) -> None:
        o = self.o
        spans: list[tuple[Element | None, int]] = list(lay.sources)
        if sum(n for _, n in spans) != len(lay.primitives):
            spans = [(None, len(lay.primitives))]
        i = 0
        for el, n in spans:
            prims = lay.primitives[i:i + n]
            i += n
            kind = el.data.get("type") if el is not None else None
            role = o.role(el) if kind in TEXT_TYPES else None
            where = Where(item, side, el)
            for p in prims:
                if isinstance(p, Text) and p.text.strip():
                    o.low("smallest_text", p.size, where)
                    if role == "rules":
                        o.low("smallest_rules", p.size, where)
                        if p.size < o.t.rules_text_pt - SLACK:
                            o.flag("rules", el, item, p.size)
                sw = _stroke(p)
                if sw is not None:
                    o.low("thinnest_stroke", sw, where)
                    if sw < o.t.stroke_pt - SLACK:
                        o.flag("stroke", el, item, sw)
                if isinstance(p, Image):
                    o.images += 1
                    ppi = _ppi(p)
                    o.low("lowest_ppi", ppi, where)
                    if ppi < o.t.image_ppi - SLACK:
                        o.flag("ppi", el, item, ppi, p.src)
            if o.safe and kind in (*TEXT_TYPES, "icon"):
                boxes = [b for b in (_prim_box(p, o.fonts) for p in prims) if b is not None]
                if boxes:
                    x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
                    x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
                    out = _outside(((x0, y0), (x1, y0), (x0, y1), (x1, y1)), o.comp, lay, o.t.safe_mm * MM)
                    if out > TOLERANCE_MM * MM:
                        reason = el.data.get("preflight", {}).get("safe_zone") if el is not None else None
                        if reason:
                            o.waived[(el.doc.display, el.path)] = reason  # type: ignore[union-attr]
                        else:
                            o.outside += 1
                            o.flag("safe", el, item, out / MM, "icon" if kind == "icon" else "text", worst=max)


class _Component:
    def __init__(self, gc: GameCheck, plan: ComponentPlan, t: Thresholds, fonts: FontBook,
                 styles: Mapping[str, Mapping[str, Mapping[str, Any]]]):
        self.gc = gc
        self.plan = plan
        self.comp = plan.component
        self.t = t
        self.fonts = fonts
        self.styles = styles  # template file -> its chain's styles (to read a text's role)
        # A reference sheet is not cut; a box's template draws its own cut outline inside its box.
        self.safe = plan.component.kind not in ("sheet", "box")
        self.waived: dict[tuple[str, tuple[str | int, ...]], str] = {}
        self.extremes: dict[str, Extreme] = {}
        self.images = 0
        self.outside = 0
        self.found: dict[tuple[str, str, tuple[str | int, ...], str], _Found] = {}
        self.elements: dict[tuple[str, tuple[str | int, ...]], Element] = {}

    def role(self, el: Element | None) -> str | None:
        if el is None or "style" not in el.data:
            return None
        for st in self.styles.values():
            if el.data["style"] in st:
                return st[el.data["style"]].get("role")
        return None

    def low(self, name: str, value: float, where: Where) -> None:
        cur = self.extremes.get(name)
        if cur is None or value < cur.value - 1e-9:
            self.extremes[name] = Extreme(value, where)

    def flag(self, check: str, el: Element | None, item: str, value: float, what: str = "",
             worst: Any = min) -> None:
        key = (check, el.doc.display if el is not None else "", el.path if el is not None else (), what)
        if el is not None:
            self.elements[key[1:3]] = el
        f = self.found.get(key)
        if f is None:
            f = self.found[key] = _Found(value)
        f.value = worst(f.value, value)
        if item not in f.items:
            f.items.append(item)

    def findings(self) -> list[Diagnostic]:
        out = []
        g, c, t = self.gc.game, self.comp, self.t
        for (check, file, path, what), f in self.found.items():
            el = self.elements.get((file, path))
            n = len(f.items)
            items = f"item {f.items[0]}" if n == 1 else f"{n} items: {', '.join(f.items[:6])}" + (
                ", ..." if n > 6 else "")
            name = el.data.get("id") if el is not None else None
            label = (f" (element {name!r})" if name else f" ({el.data.get('type')} element)") if el is not None else ""
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
                hint = "move or shrink the element"
            if el is not None:
                out.append(el.doc.diag(el.path, msg, expected=exp, hint=hint, severity="warning"))
            else:
                out.append(Diagnostic(c.data_file, msg, expected=exp, hint=hint, severity="warning"))
        return out


def _sides(plan: ComponentPlan) -> Iterable[tuple[PieceLayout, str, str]]:
    """Each distinct laid-out side once: (layout, item id, side)."""
    i = 0
    seen: set[int] = set()
    for item in plan.component.items:
        for lay, side in ((plan.fronts[i], "front"), (plan.backs[i], "back")):
            if lay is not None and id(lay) not in seen:
                seen.add(id(lay))
                yield lay, item.id, side
        i += item.copies


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


def inspect(gc: GameCheck, session: Session, thresholds: Thresholds | None = None) -> GamePreflight:
    """Everything preflight checks without drawing: texts, strokes, images and the safe zone on
    every distinct piece side; margins, cut lines, pieces per sheet and sheets on the imposed
    pages. Cheap enough for every build."""
    t = thresholds or thresholds_for(gc.game)
    comps = []
    manifest = gc.game.manifest
    ids = [c.id for c in gc.game.components]
    for plan in gc.plans:
        comp = plan.component
        styles = {name: session.store.get(name).styles for name in (comp.template, comp.back) if name}
        c = _Component(gc, plan, t, session.fonts, styles)
        walker = _Piece(c)
        for lay, item, side in _sides(plan):
            walker.walk(lay, item, side)
        pages = pages_for(plan)
        findings = c.findings()
        m = margin(pages, plan)
        where = (manifest, ("components", ids.index(comp.id))) if manifest is not None else None

        def diag(msg: str, expected: str, hint: str | None = None, where: Any = where) -> Diagnostic:
            if where is None:
                return Diagnostic(gc.game.manifest_file, msg, expected=expected, hint=hint, severity="warning")
            return where[0].diag(where[1], msg, expected=expected, hint=hint, severity="warning")

        waived = [Waiver("safe_zone", comp.id, f"{file} {json_path(path)}", why)
                  for (file, path), why in c.waived.items()]
        margin_why = (gc.game.manifest.data.get("preflight", {}).get("margins", {}).get(comp.id)
                      if manifest is not None else None)
        if m is not None and m < t.margin_mm * MM - 1e-6 and margin_why:
            waived.append(Waiver("margin", comp.id, f"{m / MM:.1f} mm on {plan.sheet.paper.name}", margin_why))
        elif m is not None and m < t.margin_mm * MM - 1e-6:
            findings.append(diag(f"component {comp.id}: a piece comes {m / MM:.1f} mm from the paper's edge "
                                 f"({plan.sheet.paper.name}), less than {t.margin_mm:g} mm (game {gc.game.id})",
                                 f"at least {t.margin_mm:g} mm between the paper's edge and every trim",
                                 "many printers cannot print that close to the edge"))
        crossings = 0
        seen: dict[Any, list[tuple[int, int]]] = {}  # full pages repeat one geometry
        for page in pages:
            geometry = (tuple((s.x, s.y, s.w, s.h, s.clip is None) for s in page.slots), page.cuts, page.paper)
            if geometry not in seen:
                seen[geometry] = cut_crossings(page, _page_size(page, plan))
            hits = [(ci, page.slots[k].piece) for ci, k in seen[geometry]]
            crossings += len(hits)
            for _, piece in hits[:1]:
                findings.append(diag(f"component {comp.id}: a cut line on page {page.number} crosses piece "
                                     f"{piece + 1} (game {gc.game.id}; {len(hits)} on that page)",
                                     "cut lines only along trims, never through a piece"))
        fronts = [p for p in pages if p.side == "front"]
        part = next((s.part for p in pages for s in p.slots if s.part is not None), None)
        per_sheet = 1 if part else max((len([s for s in p.slots if s.side == "front"]) for p in fronts), default=0)
        part_count = part.rows * part.cols if part else 1
        comps.append(ComponentPreflight(
            comp, len(plan.fronts), per_sheet, part_count, len(fronts), len(pages),
            c.extremes.get("smallest_text"), c.extremes.get("smallest_rules"), c.extremes.get("thinnest_stroke"),
            c.extremes.get("lowest_ppi"), c.images, m / MM if m is not None else None, c.outside, crossings,
            tuple(findings), tuple(waived)))
    return GamePreflight(gc.game, t, gc.opts.ink_saver, tuple(comps))


def page_coverage(pdf: bytes, dpi: float = COVERAGE_DPI) -> list[float]:
    """Ink coverage (0..1) of each page: the mean of ``1 - min(R, G, B)`` over its pixels."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf)
    try:
        out = []
        for i in range(len(doc)):
            page = doc[i]
            try:
                img = page.render(scale=dpi / 72.0).to_pil().convert("RGB")
            finally:
                page.close()
            r, g, b = img.split()
            low = ImageChops.darker(ImageChops.darker(r, g), b)
            out.append(1.0 - ImageStat.Stat(low).mean[0] / 255.0)
        return out
    finally:
        doc.close()


def measure(session: Session, gc: GameCheck, pre: GamePreflight, dpi: float = COVERAGE_DPI) -> GamePreflight:
    """``pre`` with each component's PDF size and per-page ink coverage (renders in memory; writes nothing)."""
    comps = []
    for plan, c in zip(gc.plans, pre.components, strict=True):
        data, _ = render_component(session, gc.game, plan, gc.opts)
        comps.append(replace(c, bytes=len(data), coverage=tuple(page_coverage(data, dpi))))
    return replace(pre, components=tuple(comps))


def summary(pre: GamePreflight) -> str:
    """One line for the end of a build: the extremes and what falls short, without rasterising."""
    t = pre.thresholds
    parts = []
    text = pre.extreme("smallest_text")
    if text is not None:
        parts.append(f"text >= {text.value:g} pt")
    rules = pre.extreme("smallest_rules")
    if rules is not None:
        parts.append(f"rules text >= {rules.value:g} pt (min {t.rules_text_pt:g})")
    stroke = pre.extreme("thinnest_stroke")
    if stroke is not None:
        parts.append(f"strokes >= {stroke.value:.2f} pt")
    ppi = pre.extreme("lowest_ppi")
    parts.append(f"images >= {ppi.value:.0f} ppi" if ppi is not None else "no images")
    if pre.margin_mm is not None:
        parts.append(f"margins >= {pre.margin_mm:.1f} mm")
    outside = sum(c.outside_safe for c in pre.components)
    parts.append(f"{outside} outside the safe zone" if outside else "safe zone kept")
    cuts = sum(c.cut_crossings for c in pre.components)
    parts.append(f"{cuts} cuts cross pieces" if cuts else "no cut crosses a piece")
    n = len(pre.findings)
    parts.append(f"{n} warning{'s' if n != 1 else ''}")
    return ", ".join(parts)


def contents_line(pre: GamePreflight) -> str:
    """The short report printed on the contents sheet."""
    bits = []
    text = pre.extreme("smallest_text")
    if text is not None:
        bits.append(f"smallest text {text.value:g} pt")
    rules = pre.extreme("smallest_rules")
    if rules is not None:
        bits.append(f"rules text at least {rules.value:g} pt")
    stroke = pre.extreme("thinnest_stroke")
    if stroke is not None:
        bits.append(f"thinnest line {stroke.value:.2f} pt")
    if pre.margin_mm is not None:
        bits.append(f"pieces at least {pre.margin_mm:.1f} mm from the paper's edge")
    n = len(pre.findings)
    bits.append("no warnings" if not n else f"{n} warning{'s' if n != 1 else ''} (run pnp preflight)")
    line = "; ".join(bits)
    return line[:1].upper() + line[1:]
