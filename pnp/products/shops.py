"""Print-shop presets (``--shop NAME``): a game's components as the files a print-on-demand shop
takes, in a folder a user uploads as it is.

The shops are data (``pnp/products/shops.json``, checked against ``shops.schema.json``): per shop
its file format (a PDF per component with one piece side per page, or a PNG set), bleed, colour,
resolution, page order and products (card sizes). Adding a shop is adding an entry.

Each component is mapped to a product of the shop, or said not to map:

* **as is**: its trim is the product's (either way round);
* **adapted**: its trim is within ``adapt_within_mm`` of the product's on each side and its
  templates adapt (no ``size`` of their own, coordinates relative to ``w``/``h``): it is laid out
  again at the product's size (a metric poker card, 63 x 88 mm, becomes a 2.5 x 3.5 in one);
* **centred**: its templates are drawn for its own size, and its trim is smaller than the
  product's by at most ``centre_within_mm`` on each side, never larger. The piece is drawn with a
  bleed that reaches the product's bleed edge (the shop's bleed plus the difference) and centred on
  the product's trim, so the shop cuts inside the piece's bleed: a 63 x 88 mm card on a 2.5 x 3.5 in
  product shows 0.25 mm of its bleed left and right and 0.45 mm top and bottom. Its safe zone
  (``SAFE_MM`` inside its trim, which preflight holds text and icons to) is checked to lie inside the
  product's safe area; where it does not, the mapping says so;
* **not mapped**, with the reason: no product of its kind and about its size, or a template drawn
  for its own size and not within the centring tolerance (or larger than the product). Never
  silently left out: the command prints it and the report lists it."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from msgspec import Struct
from msgspec.structs import replace

from pnp.errors import DataError, Diagnostic, did_you_mean
from pnp.impose.sheet import Page
from pnp.input.load import load_json
from pnp.input.model import Component
from pnp.input.validate import validate_doc
from pnp.layout.fonts import UI_FONT
from pnp.layout.piece import PieceLayout
from pnp.layout.primitives import Image, Line, Primitive, Text, Vector
from pnp.layout.primitives import Path as PathPrim
from pnp.plan.component import ComponentPlan, pages_for, plan_component
from pnp.plan.options import BuildOptions, sheet_for
from pnp.plan.session import Session
from pnp.qa.check import GameCheck
from pnp.qa.figures import SAFE_MM
from pnp.render.draw import DocInfo, render
from pnp.render.write import FileSet, check_real_folders, remove_leftovers
from pnp.units import MM

PRESETS = Path(__file__).resolve().parent / "shops.json"
REPORT = "shop-report.json"
FORMAT_VERSION = 1
SAME_MM = 0.01  # trims this close are the same size


class Product(Struct, frozen=True):
    id: str
    title: str
    kinds: tuple[str, ...]
    trim_mm: tuple[float, float]  # portrait
    figure: str  # "published" | "chosen"
    said: str
    safe_mm: float | None = None
    shapes: tuple[str, ...] = ()  # the component shapes it can be; empty: any

    def describe(self) -> str:
        return f"{self.id} {self.trim_mm[0]:g} x {self.trim_mm[1]:g} mm"

    def size_text(self, size: tuple[float, float] | None = None) -> str:
        """``size`` (the trim by default) in inches when both sides are whole eighths of an inch
        (``2.5 x 3.5 in``), else in mm."""
        w, h = size or self.trim_mm
        eighths = (w / 25.4 * 8, h / 25.4 * 8)
        if all(abs(e - round(e)) < 1e-3 for e in eighths):
            return f"{w / 25.4:g} x {h / 25.4:g} in"
        return f"{w:g} x {h:g} mm"


class Shop(Struct, frozen=True):
    id: str
    title: str
    command: str  # "build" | "export png"
    output: str  # "pdf" | "png"
    bleed_mm: float
    bleed: dict[str, str]
    color: str
    products: tuple[Product, ...]
    dpi: int = 300
    page_order: tuple[str, str] = ("front", "back")
    file_name: str = "{component}.pdf"
    notes: tuple[str, ...] = ()
    adapt_within_mm: float = 2.0
    centre_within_mm: float = 1.0

    def options(self) -> BuildOptions:
        """The build options of this shop's files: print-shop pages with its bleed and colour."""
        return BuildOptions(print_shop=True, bleed_mm=self.bleed_mm, color=self.color)


@cache
def load_shops(path: Path = PRESETS) -> dict[str, Shop]:
    """The shop presets by id, checked against their schema (a broken file is a DataError naming
    the line and key)."""
    doc = load_json(path, path.name)
    problems = validate_doc(doc, "shops")
    if problems:
        raise DataError(problems)
    data = doc.data
    within, centre = float(data["adapt_within_mm"]), float(data["centre_within_mm"])
    shops = {}
    for sid, s in data["shops"].items():
        products = tuple(Product(p["id"], p["title"], tuple(p["kinds"]), tuple(p["trim_mm"]), p["figure"], p["said"],
                                 p.get("safe_mm"), tuple(p.get("shapes", ()))) for p in s["products"])
        shops[sid] = Shop(sid, s["title"], s["command"], s["output"], float(s["bleed_mm"]), dict(s["bleed"]),
                          s["color"], products, int(s.get("dpi", 300)), tuple(s.get("page_order", ("front", "back"))),
                          s.get("file_name", "{component}.pdf"), tuple(s.get("notes", ())), within, centre)
    return shops


def shop_named(name: str, command: str | None = None) -> Shop:
    """The preset ``name`` (case and spaces ignored: ``"The Game Crafter"`` works); an unknown
    name is a DataError with the nearest known one. With ``command``, a shop another command
    serves is a DataError saying which (``pnp build --shop`` of a shop that takes PNGs)."""
    shops = load_shops()
    key = "".join(name.lower().split())
    shop = shops.get(key)
    if shop is None:
        known = sorted(shops)
        raise DataError([Diagnostic("--shop", f"unknown shop {name!r}", expected=f"one of: {', '.join(known)}",
                                    hint=did_you_mean(key, known) or "`pnp build --help` lists the shops")])
    if command is not None and shop.command != command:
        raise DataError([Diagnostic("--shop", f"{shop.title} takes {shop.output.upper()} files, which "
                                    f"`pnp {shop.command}` makes, not `pnp {command}`",
                                    expected=f"a shop whose files `pnp {command}` makes",
                                    hint=f"pnp {shop.command} GAME --shop {shop.id}")])
    return shop


# --------------------------------------------------------------------------- mapping


class Mapped(Struct, frozen=True):
    """A component as the shop gets it: ``how`` is "as is", "adapted" or "centred"."""

    component: Component  # as in the game (its own size)
    product: Product
    how: str
    plan: ComponentPlan  # at the product's size, with the shop's bleed
    # centred: how much of the piece's bleed shows inside the product's trim on each side (x, y), mm
    shows_mm: tuple[float, float] = (0.0, 0.0)
    safe: str | None = None  # centred: where the piece's safe zone leaves the product's (None: inside)

    def how_text(self) -> str:
        """How the component became the product, in words: "as is", "laid out again at 2.5 x 3.5
        in", "centred, 0.25 x 0.45 mm of bleed shows"."""
        if self.how == "adapted":
            return f"laid out again at {self.product.size_text(self.plan.component.size)}"
        if self.how == "centred":
            x, y = self.shows_mm
            text = f"centred, {x:.3g} x {y:.3g} mm of bleed shows"
            return f"{text}; {self.safe}" if self.safe else text
        return self.how


class Unmapped(Struct, frozen=True):
    component: Component
    reason: str


def _turned(comp: Component, product: Product) -> tuple[float, float]:
    """The product's trim the way round the component is (a landscape card keeps landscape)."""
    w, h = product.trim_mm
    return (max(w, h), min(w, h)) if comp.size[0] > comp.size[1] else (min(w, h), max(w, h))


def _nearest(comp: Component, shop: Shop) -> tuple[Product | None, float]:
    """The product of the component's kind nearest its size, and the larger side difference (mm)."""
    best: tuple[Product | None, float] = (None, float("inf"))
    for p in shop.products:
        if comp.kind not in p.kinds or (p.shapes and comp.shape not in p.shapes):
            continue
        w, h = _turned(comp, p)
        off = max(abs(w - comp.size[0]), abs(h - comp.size[1]))
        if off < best[1]:
            best = (p, off)
    return best


def _products_text(shop: Shop, kind: str | None = None) -> str:
    ps = [p for p in shop.products if kind is None or kind in p.kinds]
    return ", ".join(p.describe() for p in ps) if ps else "none"


def map_component(session: Session, gc: GameCheck, plan: ComponentPlan, shop: Shop) -> Mapped | Unmapped:
    """One component mapped to the shop's product (see the module's docstring), or why it is not."""
    comp = plan.component
    size = f"{comp.size[0]:g} x {comp.size[1]:g} mm"
    product, off = _nearest(comp, shop)
    if product is None:
        return Unmapped(comp, f"no product of {shop.title} fits: it has none for a {comp.kind} (its products: "
                              f"{_products_text(shop)})")
    if off > shop.adapt_within_mm:
        return Unmapped(comp, f"no product of {shop.title} fits: {size} is not within {shop.adapt_within_mm:g} mm "
                              f"of any {comp.kind} product ({_products_text(shop, comp.kind)})")
    how = "as is" if off <= SAME_MM else "adapted"
    target = replace(comp, size=_turned(comp, product) if how == "adapted" else comp.size, bleed=shop.bleed_mm)
    try:
        mapped, _ = plan_component(session, gc.game, target, shop.options())
    except DataError as exc:
        first = exc.diagnostics[0]
        at = f" ({first.file}{':' + str(first.line) if first.line else ''})"
        centred = _centred(session, gc, comp, product, shop)
        if isinstance(centred, Mapped):
            return centred
        return Unmapped(comp, f"no product of {shop.title} fits: its templates are drawn for {size}{at} and it "
                              f"{centred}; a template without its own `size`, its coordinates relative to w and h, "
                              "adapts (docs/templates.md)")
    return Mapped(comp, product, how, mapped)


def _centred(session: Session, gc: GameCheck, comp: Component, product: Product, shop: Shop) -> Mapped | str:
    """A component drawn for its own size, centred on ``product`` (see the module's docstring), or
    why it cannot be (its trim larger than the product's, or smaller by more than
    ``centre_within_mm`` on a side)."""
    pw, ph = _turned(comp, product)
    dx, dy = (pw - comp.size[0]) / 2, (ph - comp.size[1]) / 2
    if min(dx, dy) < -SAME_MM / 2:
        return (f"is larger than {product.describe()}, so it cannot be centred on it (the shop's cut would fall "
                "inside the piece)")
    if max(dx, dy) > shop.centre_within_mm + 1e-9:
        return (f"centred on {product.describe()} would show {max(dx, dy):.3g} mm of its bleed on a side, more than "
                f"the {shop.centre_within_mm:g} mm pnp allows")
    dx, dy = max(dx, 0.0), max(dy, 0.0)
    reach = shop.bleed_mm + max(dx, dy)  # the piece's bleed reaches the product's bleed edge on every side
    drawn, _ = plan_component(session, gc.game, replace(comp, bleed=reach),
                              BuildOptions(print_shop=True, bleed_mm=reach, color=shop.color))
    target = replace(comp, size=(pw, ph), bleed=shop.bleed_mm)
    moved: dict[int, PieceLayout] = {}  # copies share one layout object: they keep sharing one

    def move(lay: PieceLayout) -> PieceLayout:
        if id(lay) not in moved:
            moved[id(lay)] = shifted(lay, dx * MM, dy * MM, pw * MM, ph * MM, shop.bleed_mm * MM)
        return moved[id(lay)]

    plan = ComponentPlan(target, tuple(move(f) for f in drawn.fronts),
                         tuple(None if b is None else move(b) for b in drawn.backs), None,
                         sheet_for(target, shop.options()), "print-shop")
    return Mapped(comp, product, "centred", plan, (round(dx, 4), round(dy, 4)), _safe_check(dx, dy, product))


def _safe_check(dx: float, dy: float, product: Product) -> str | None:
    """None when the piece's safe zone (SAFE_MM inside its trim), centred with (dx, dy) mm of its
    bleed showing, lies inside the product's safe area; else what reaches outside it."""
    if product.safe_mm is None:
        return "the shop's safe area is not known, so the piece's safe zone was not checked against it"
    short = product.safe_mm - (min(dx, dy) + SAFE_MM)
    if short <= 1e-6:
        return None
    return (f"its safe zone ({SAFE_MM:g} mm inside its trim) reaches {short:.2g} mm into the shop's "
            f"{product.safe_mm:g} mm margin: keep text and icons {product.safe_mm - min(dx, dy):.3g} mm inside "
            "its trim")


def _moved(p: Primitive, dx: float, dy: float) -> Primitive:
    """``p`` moved by (dx, dy) pt."""
    if isinstance(p, Image | Vector):
        if p.matrix is not None:  # drawn under its matrix: move the matrix
            a, b, c, d, e, f = p.matrix
            return replace(p, matrix=(a, b, c, d, e + dx, f + dy))
        clip = None if p.clip is None else (p.clip[0] + dx, p.clip[1] + dy, p.clip[2], p.clip[3])
        return replace(p, x=p.x + dx, y=p.y + dy, clip=clip)
    if isinstance(p, Line):
        return replace(p, x1=p.x1 + dx, y1=p.y1 + dy, x2=p.x2 + dx, y2=p.y2 + dy)
    if isinstance(p, PathPrim):
        return replace(p, ops=tuple((op, tuple(v + (dx if i % 2 == 0 else dy) for i, v in enumerate(vs)))
                                    for op, vs in p.ops))
    if isinstance(p, Text):
        return replace(p, x=p.x + dx, y=p.y + dy)
    return replace(p, x=p.x + dx, y=p.y + dy)  # Rect, Ellipse


def shifted(lay: PieceLayout, dx: float, dy: float, width: float, height: float, bleed: float) -> PieceLayout:
    """``lay`` as a piece of ``width`` x ``height`` pt with ``bleed``, its drawing moved by (dx, dy)
    pt (a piece centred on a larger trim)."""
    return replace(lay, width=width, height=height, bleed=bleed,
                   primitives=tuple(_moved(p, dx, dy) for p in lay.primitives))


def unmapped_diag(gc: GameCheck, u: Unmapped) -> Diagnostic:
    """A component that maps to no product, as a message at its manifest entry."""
    comp = u.component
    ids = [c.id for c in gc.game.components]
    path: tuple[str | int, ...] = ("components", ids.index(comp.id)) if comp.id in ids else ()
    where = gc.game.manifest.diag(path, "") if gc.game.manifest is not None else None
    return Diagnostic(gc.game.manifest_file, f"component {comp.id} ({comp.kind}, {comp.size[0]:g} x "
                      f"{comp.size[1]:g} mm) not mapped: {u.reason}", path,
                      where.line if where else None, where.col if where else None, severity="warning")


def map_game(session: Session, gc: GameCheck, shop: Shop) -> list[Mapped | Unmapped]:
    return [map_component(session, gc, p, shop) for p in gc.plans]


# --------------------------------------------------------------------------- files


class ShopFile(Struct, frozen=True):
    component: str
    path: Path
    pages: int = 0  # a PDF's pages
    size_px: tuple[int, int] | None = None  # a PNG set's image size


class ShopReport(Struct, frozen=True):
    """What ``export_shop`` wrote for one game: the folder, each component mapped or not, the files."""

    shop: Shop
    folder: Path
    mapped: tuple[Mapped, ...]
    unmapped: tuple[Unmapped, ...]
    files: tuple[ShopFile, ...]
    report: Path


def ordered(pages: Sequence[Page], order: tuple[str, str]) -> tuple[Page, ...]:
    """Print-shop pages (front 1, back 1, front 2, ...) with each piece's sides in ``order``,
    renumbered."""
    if tuple(order) == ("front", "back"):
        return tuple(pages)
    rank = {side: i for i, side in enumerate(order)}
    out = sorted(pages, key=lambda p: (p.slots[0].piece, rank[p.side]))
    return tuple(replace(p, number=i) for i, p in enumerate(out, start=1))


def _pdf(session: Session, gc: GameCheck, m: Mapped, shop: Shop) -> tuple[bytes, int]:
    plan = m.plan
    pages = ordered(pages_for(plan), shop.page_order)
    info = DocInfo(title=f"{gc.game.title} — {plan.component.title}", author=gc.game.designer,
                   subject=f"pnp {shop.title} file: {gc.game.id}/{plan.component.id}", ui_font=UI_FONT,
                   duplex="simplex", color=shop.color)
    return render(pages, plan.sheet.paper, plan.fronts, plan.backs, session.fonts, info, page_boxes=True), len(pages)


def shop_folder(out: Path, gid: str, shop: Shop) -> Path:
    return out / gid / "shops" / shop.id


def export_shop(session: Session, gc: GameCheck, out: Path, shop: Shop, component: str | None = None,
                png: Callable[[GameCheck, Path, float, FileSet], list[tuple[str, tuple[Path, ...], tuple[int, int]]]]
                | None = None, locked: bool = False) -> ShopReport:
    """Write ``out/<game>/shops/<shop>/``: the files of every component that maps to the shop's
    products (PDFs, or PNGs made by ``png(gc, folder, dpi, files)``, staged in ``files``), and
    ``shop-report.json`` saying which component became which product, how, and which did not map
    and why. Nothing is written when no component maps (a DataError naming each and why). All or
    nothing (``pnp.render.write.FileSet``): a full disk leaves the old files and report as they
    were. ``gc`` should come from a check with ``shop.options()``; ``locked``: the caller holds
    the output folder's lock (``pnp.products.exports.export_png``)."""
    plans = [p for p in gc.plans if component is None or p.component.id == component]
    # no link on the way (a PNG shop's component folders: ``png`` checks them before it writes)
    check_real_folders(out, [shop_folder(out, gc.game.id, shop)])
    results = [map_component(session, gc, p, shop) for p in plans]
    mapped = tuple(r for r in results if isinstance(r, Mapped))
    unmapped = tuple(r for r in results if isinstance(r, Unmapped))
    if not mapped:
        raise DataError([Diagnostic(gc.game.manifest_file, f"no component of {gc.game.id} maps to a {shop.title} "
                                    "product; nothing was written",
                                    expected=f"components the size of: {_products_text(shop)}"),
                         *(unmapped_diag(gc, u) for u in unmapped)])
    folder = shop_folder(out, gc.game.id, shop)
    files: list[ShopFile] = []
    with FileSet() as fs:
        if shop.output == "pdf":
            names = [shop.file_name.format(game=gc.game.id, component=m.component.id) for m in mapped]
            remove_leftovers(folder, [*names, REPORT], locked)
            for m, name in zip(mapped, names, strict=True):
                data, n = _pdf(session, gc, m, shop)
                fs.stage(folder / name, data)
                files.append(ShopFile(m.component.id, folder / name, pages=n))
        else:
            assert png is not None, "a PNG shop needs the PNG exporter"
            remove_leftovers(folder, [REPORT], locked)
            sub = replace(gc, plans=tuple(m.plan for m in mapped))
            for comp_id, paths, size in png(sub, folder, shop.dpi, fs):
                files.extend(ShopFile(comp_id, p, size_px=size) for p in paths)
        report = folder / REPORT
        for old in _stale(folder, {f.path for f in files}):
            fs.drop(old)
        fs.stage(report, (json.dumps(report_json(gc, shop, mapped, unmapped, files, folder), indent=2,
                                     ensure_ascii=False) + "\n").encode("utf-8"))
        fs.commit()
    return ShopReport(shop, folder, mapped, unmapped, tuple(files), report)


def _stale(folder: Path, kept: set[Path]) -> list[Path]:
    """The files the last report in ``folder`` lists and this export does not write (a component
    renamed or no longer mapped), to remove with the new set so the folder holds only what is to
    be uploaded. Only plain relative names inside the folder; an unreadable report: none."""
    try:
        old = json.loads((folder / REPORT).read_text(encoding="utf-8"))
        names = [n for m in old.get("mapped", []) for n in m.get("files", [])]
    except (OSError, ValueError, AttributeError, TypeError):
        return []
    stale = []
    for name in names:
        if not isinstance(name, str) or not name or name.startswith("/") or ".." in Path(name).parts:
            continue
        path = folder / name
        if path not in kept and path.is_file():
            stale.append(path)
    return stale


def report_json(gc: GameCheck, shop: Shop, mapped: Sequence[Mapped], unmapped: Sequence[Unmapped],
                files: Sequence[ShopFile], folder: Path) -> dict[str, Any]:
    """The shop report: the shop's figures (published or chosen), each component's product or
    reason, the files."""
    by_comp: dict[str, list[str]] = {}
    for f in files:
        by_comp.setdefault(f.component, []).append(f.path.relative_to(folder).as_posix())
    return {
        "format": "pnp-shop", "version": FORMAT_VERSION,
        "game": gc.game.id, "shop": shop.id, "title": shop.title, "output": shop.output,
        "bleed_mm": shop.bleed_mm, "bleed": shop.bleed, "color": shop.color,
        **({"dpi": shop.dpi} if shop.output == "png" else {"page_order": list(shop.page_order)}),
        "notes": list(shop.notes),
        "mapped": [{"component": m.component.id, "size_mm": list(m.component.size), "how": m.how,
                    "how_text": m.how_text(), "product": m.product.id, "trim_mm": list(m.plan.component.size),
                    **({"bleed_shows_mm": list(m.shows_mm), "safe_zone": m.safe or "inside the shop's safe area"}
                       if m.how == "centred" else {}),
                    "figure": m.product.figure, "files": by_comp.get(m.component.id, [])} for m in mapped],
        "not_mapped": [{"component": u.component.id, "size_mm": list(u.component.size), "kind": u.component.kind,
                        "reason": u.reason} for u in unmapped],
    }
