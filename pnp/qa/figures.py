"""Preflight figures as plain values (see pnp.preflight, which measures them): kept in a light
module because the build cache stores them and an up-to-date build prints its summary from them
without loading the rendering stages."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from msgspec import Struct
from msgspec.structs import asdict

from pnp.errors import counted

SAFE_MM = 3.0
EXTREMES = ("smallest_text", "smallest_rules", "thinnest_stroke", "lowest_ppi")


class Thresholds(Struct, frozen=True):
    """The preflight limits a game is held to (its game.json may lower the rules text one)."""

    rules_text_pt: float = 8.0
    stroke_pt: float = 0.25
    image_ppi: float = 200.0
    margin_mm: float = 5.0
    safe_mm: float = SAFE_MM
    reason: str | None = None  # why the game's rules-text minimum differs from the default

    def as_json(self) -> dict[str, Any]:
        return {"rules_text_pt": self.rules_text_pt, "stroke_pt": self.stroke_pt, "image_ppi": self.image_ppi,
                "margin_mm": self.margin_mm, "safe_zone_mm": self.safe_mm, "reason": self.reason}


class Where(Struct, frozen=True):
    """A piece side and the template element that drew something on it (plain values: results
    travel from worker processes and into the build cache)."""

    item: str
    side: str  # "front" | "back"
    file: str | None = None  # the template file of the element
    path: str = ""  # its JSON path
    element: str | None = None  # its id, or "<type> element"
    line: int | None = None  # filled in only when a report shows it (finding a line costs a parse)

    def text(self) -> str:
        if self.file is None:
            return f"item {self.item} ({self.side})"
        at = f"{self.file}:{self.line}" if self.line else f"{self.file} {self.path}"
        return f"item {self.item} ({self.side}), {self.element} ({at})"


class Extreme(Struct, frozen=True):
    """The lowest value of one preflight figure, and where it was found."""

    value: float
    where: Where

    def as_json(self) -> dict[str, Any]:
        return {"value": round(self.value, 3), **asdict(self.where)}

    @staticmethod
    def from_json(d: Mapping[str, Any] | None) -> Extreme | None:
        if d is None:
            return None
        return Extreme(float(d["value"]), Where(**{k: v for k, v in d.items() if k != "value"}))


class Waiver(Struct, frozen=True):
    """Something the data exempts from a check (``safe_zone``, ``margin``), where, and why."""

    check: str
    component: str
    where: str
    reason: str


class ComponentPreflight(Struct, frozen=True):
    """One component's preflight figures (what ``pnp preflight`` and the build summary show)."""

    component: str  # id
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
    warnings: int  # how many preflight warnings the component raised
    rules_text_pt: float = 8.0  # the minimum it was held to
    waived: tuple[Waiver, ...] = ()
    bytes: int | None = None
    coverage: tuple[float, ...] | None = None  # per page, 0..1 (pnp preflight)
    # shared cut lines where a 0.5 mm miscut shows a neighbour's different colour (pnp preflight;
    # None where not measured: a build does not rasterise)
    miscut_seams: int | None = None

    @property
    def mean_coverage(self) -> float | None:
        return sum(self.coverage) / len(self.coverage) if self.coverage else None

    def as_json(self) -> dict[str, Any]:
        """Every figure, JSON-ready (the ``pnp preflight --json`` component, and what the build
        cache keeps so an unchanged component's figures need no layout)."""
        cov = self.mean_coverage
        return {
            "id": self.component, "pieces": self.pieces, "per_sheet": self.per_sheet, "parts": self.parts,
            "sheets": self.sheets, "pages": self.pages, "bytes": self.bytes,
            "coverage": round(cov * 100, 2) if cov is not None else None,
            "coverage_pages": [round(c * 100, 2) for c in self.coverage] if self.coverage is not None else None,
            **{name: e.as_json() if (e := getattr(self, name)) is not None else None for name in EXTREMES},
            "images": self.images, "margin_mm": round(self.margin_mm, 2) if self.margin_mm is not None else None,
            "outside_safe_zone": self.outside_safe, "cut_crossings": self.cut_crossings,
            "warnings": self.warnings, "rules_text_pt": self.rules_text_pt,
            "waived": [asdict(w) for w in self.waived], "miscut_seams": self.miscut_seams,
        }

    @staticmethod
    def from_json(d: Mapping[str, Any]) -> ComponentPreflight:
        return ComponentPreflight(
            d["id"], d["pieces"], d["per_sheet"], d["parts"], d["sheets"], d["pages"],
            *(Extreme.from_json(d.get(name)) for name in EXTREMES), d["images"], d["margin_mm"],
            d["outside_safe_zone"], d["cut_crossings"], d["warnings"], d.get("rules_text_pt", 8.0),
            tuple(Waiver(**w) for w in d.get("waived", ())), d.get("bytes"),
            tuple(c / 100 for c in d["coverage_pages"]) if d.get("coverage_pages") is not None else None,
            d.get("miscut_seams"))


def lowest(components: Iterable[ComponentPreflight], name: str) -> Extreme | None:
    found = [e for c in components if (e := getattr(c, name)) is not None]
    return min(found, key=lambda e: e.value) if found else None


def summary(components: Sequence[ComponentPreflight]) -> str:
    """One line for the end of a build: the extremes and what falls short (no rasterising)."""
    parts = []
    text = lowest(components, "smallest_text")
    if text is not None:
        parts.append(f"text >= {text.value:g} pt")
    rules = lowest(components, "smallest_rules")
    if rules is not None:
        floor = min(c.rules_text_pt for c in components)
        parts.append(f"rules text >= {rules.value:g} pt (min {floor:g})")
    stroke = lowest(components, "thinnest_stroke")
    if stroke is not None:
        parts.append(f"strokes >= {stroke.value:.2f} pt")
    ppi = lowest(components, "lowest_ppi")
    parts.append(f"images >= {ppi.value:.0f} ppi" if ppi is not None else "no images")
    margins = [c.margin_mm for c in components if c.margin_mm is not None]
    if margins:
        parts.append(f"margins >= {min(margins):.1f} mm")
    outside = sum(c.outside_safe for c in components)
    parts.append(f"{outside} outside the safe zone" if outside else "safe zone kept")
    cuts = sum(c.cut_crossings for c in components)
    parts.append((f"{counted(cuts, 'cut')} {'crosses a piece' if cuts == 1 else 'cross pieces'}") if cuts
                 else "no cut crosses a piece")
    n = sum(c.warnings for c in components)
    parts.append(counted(n, "warning"))
    return ", ".join(parts)

