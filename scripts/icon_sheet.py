"""Preview sheet for the shared vector icon library.

Reads ``templates/shared/icons.json``, checks every icon against the data
format, draws each one in a labelled grid at 20 mm and 6 mm, in colour
(fg #3b2a1a, accent #d9a441 on paper #f4ead5) and in grayscale (the same
colours by luminance, as a black-and-white printer renders them), writes
``out/icon-sheet.pdf`` and renders it to ``out/icon-sheet.png``.

Usage: python scripts/icon_sheet.py [ICONS_JSON] [--out DIR] [--dpi N]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pnp.layout.paths import PathError, PathOp, bbox, parse_path  # noqa: E402

GEOMETRY_KEYS = ("path", "circle", "ellipse", "rect", "polygon", "polyline")
SHAPE_KEYS = frozenset((*GEOMETRY_KEYS, "fill", "stroke", "stroke_width", "fill_rule", "radius"))
ICON_KEYS = frozenset(("title", "viewbox", "shapes"))
PAINT_ROLES = ("fg", "bg", "accent", "none")
DEFAULT_STROKE_WIDTH = 6.0
MIN_MARGIN = 2.0  # viewbox units of empty space wanted around the drawing

COLOUR = {"fg": "#3b2a1a", "accent": "#d9a441", "bg": "#f4ead5"}
MM = 72.0 / 25.4


class IconError(ValueError):
    """An icon that does not follow the data format."""


# --- geometry -----------------------------------------------------------------


def _n(v: float) -> str:
    return repr(float(v))


def _circle_d(cx: float, cy: float, rx: float, ry: float) -> str:
    return (
        f"M {_n(cx - rx)} {_n(cy)} A {_n(rx)} {_n(ry)} 0 0 1 {_n(cx)} {_n(cy - ry)} "
        f"A {_n(rx)} {_n(ry)} 0 0 1 {_n(cx + rx)} {_n(cy)} "
        f"A {_n(rx)} {_n(ry)} 0 0 1 {_n(cx)} {_n(cy + ry)} "
        f"A {_n(rx)} {_n(ry)} 0 0 1 {_n(cx - rx)} {_n(cy)} Z"
    )


def _rect_d(x: float, y: float, w: float, h: float, r: float) -> str:
    r = max(0.0, min(r, w / 2, h / 2))
    if r == 0:
        return f"M {_n(x)} {_n(y)} H {_n(x + w)} V {_n(y + h)} H {_n(x)} Z"
    a = f"A {_n(r)} {_n(r)} 0 0 1"
    return (
        f"M {_n(x + r)} {_n(y)} H {_n(x + w - r)} {a} {_n(x + w)} {_n(y + r)} "
        f"V {_n(y + h - r)} {a} {_n(x + w - r)} {_n(y + h)} H {_n(x + r)} "
        f"{a} {_n(x)} {_n(y + h - r)} V {_n(y + r)} {a} {_n(x + r)} {_n(y)} Z"
    )


def _points_d(pts: list[list[float]], closed: bool) -> str:
    head, *rest = pts
    d = f"M {_n(head[0])} {_n(head[1])}" + "".join(f" L {_n(p[0])} {_n(p[1])}" for p in rest)
    return d + (" Z" if closed else "")


def shape_ops(shape: dict[str, Any]) -> tuple[PathOp, ...]:
    """The outline of one shape as absolute M/L/C/Z operations (viewbox units)."""
    if "path" in shape:
        return parse_path(shape["path"])
    if "circle" in shape:
        cx, cy, r = shape["circle"]
        return parse_path(_circle_d(cx, cy, r, r))
    if "ellipse" in shape:
        cx, cy, rx, ry = shape["ellipse"]
        return parse_path(_circle_d(cx, cy, rx, ry))
    if "rect" in shape:
        x, y, w, h = shape["rect"]
        return parse_path(_rect_d(x, y, w, h, float(shape.get("radius", 0))))
    if "polygon" in shape:
        return parse_path(_points_d(shape["polygon"], closed=True))
    if "polyline" in shape:
        return parse_path(_points_d(shape["polyline"], closed=False))
    raise IconError("shape has no geometry key")


def _is_num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _check_paint(value: Any, where: str) -> None:
    if value in PAINT_ROLES:
        return
    if (
        isinstance(value, str)
        and len(value) == 7
        and value[0] == "#"
        and all(c in "0123456789abcdefABCDEF" for c in value[1:])
    ):
        return
    raise IconError(f"{where}: paint must be fg, bg, accent, none or #RRGGBB, not {value!r}")


def check_shape(shape: Any, where: str) -> None:
    """Raise IconError unless ``shape`` follows the icon shape format."""
    if not isinstance(shape, dict):
        raise IconError(f"{where}: a shape is an object")
    unknown = sorted(set(shape) - SHAPE_KEYS)
    if unknown:
        raise IconError(f"{where}: unknown keys {unknown}")
    geo = [k for k in GEOMETRY_KEYS if k in shape]
    if len(geo) != 1:
        raise IconError(f"{where}: needs exactly one geometry key of {GEOMETRY_KEYS}, has {geo}")
    kind = geo[0]
    value = shape[kind]
    sizes = {"circle": 3, "ellipse": 4, "rect": 4}
    if kind in sizes:
        if not (isinstance(value, list) and len(value) == sizes[kind]):
            raise IconError(f"{where}: {kind} takes {sizes[kind]} numbers")
        if not all(_is_num(v) for v in value):
            raise IconError(f"{where}: {kind} takes numbers")
        if any(v <= 0 for v in value[2:]):
            raise IconError(f"{where}: {kind} sizes must be positive")
    elif kind in ("polygon", "polyline"):
        need = 3 if kind == "polygon" else 2
        if not (isinstance(value, list) and len(value) >= need):
            raise IconError(f"{where}: {kind} needs at least {need} points")
        for p in value:
            if not (isinstance(p, list) and len(p) == 2 and all(_is_num(v) for v in p)):
                raise IconError(f"{where}: {kind} points are [x, y]")
    elif not isinstance(value, str):
        raise IconError(f"{where}: path is a string of SVG path data")
    if "radius" in shape and (kind != "rect" or not _is_num(shape["radius"])):
        raise IconError(f"{where}: radius is a number, for rect only")
    for key in ("fill", "stroke"):
        if key in shape:
            _check_paint(shape[key], f"{where}.{key}")
    if "stroke_width" in shape and not (_is_num(shape["stroke_width"]) and shape["stroke_width"] > 0):
        raise IconError(f"{where}: stroke_width must be a positive number")
    if shape.get("fill_rule", "nonzero") not in ("nonzero", "evenodd"):
        raise IconError(f"{where}: fill_rule is nonzero or evenodd")
    try:
        ops = shape_ops(shape)
    except PathError as exc:
        raise IconError(f"{where}: path: {exc}") from exc
    if not ops:
        raise IconError(f"{where}: empty path")


def icon_viewbox(icon: dict[str, Any]) -> tuple[float, float]:
    w, h = icon.get("viewbox", [100, 100])
    return float(w), float(h)


def icon_extent(icon: dict[str, Any]) -> tuple[float, float, float, float]:
    """Control-point bbox of everything painted, strokes included."""
    boxes = []
    for shape in icon["shapes"]:
        x0, y0, x1, y1 = bbox(shape_ops(shape))
        if shape.get("stroke", "none") != "none":
            half = float(shape.get("stroke_width", DEFAULT_STROKE_WIDTH)) / 2
            x0, y0, x1, y1 = x0 - half, y0 - half, x1 + half, y1 + half
        boxes.append((x0, y0, x1, y1))
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def check_library(data: Any) -> tuple[list[str], list[str]]:
    """(errors, warnings) for a whole icons.json document."""
    errors: list[str] = []
    warnings: list[str] = []
    if not (isinstance(data, dict) and isinstance(data.get("icons"), dict)):
        return ["top level must be {\"icons\": {name: icon}}"], []
    for name, icon in data["icons"].items():
        where = f"icons.{name}"
        try:
            if not isinstance(icon, dict):
                raise IconError(f"{where}: an icon is an object")
            unknown = sorted(set(icon) - ICON_KEYS)
            if unknown:
                raise IconError(f"{where}: unknown keys {unknown}")
            if not (isinstance(icon.get("title"), str) and icon["title"].strip()):
                raise IconError(f"{where}: needs a title")
            vb = icon.get("viewbox", [100, 100])
            if not (isinstance(vb, list) and len(vb) == 2 and all(_is_num(v) and v > 0 for v in vb)):
                raise IconError(f"{where}: viewbox is [width, height]")
            shapes = icon.get("shapes")
            if not (isinstance(shapes, list) and shapes):
                raise IconError(f"{where}: needs a non-empty shapes list")
            for i, shape in enumerate(shapes):
                check_shape(shape, f"{where}.shapes[{i}]")
        except IconError as exc:
            errors.append(str(exc))
            continue
        w, h = icon_viewbox(icon)
        x0, y0, x1, y1 = icon_extent(icon)
        margin = min(x0, y0, w - x1, h - y1)
        if margin < MIN_MARGIN:
            warnings.append(f"{where}: drawing reaches {margin:.1f} from the viewbox edge")
        off_x, off_y = (x0 + x1) / 2 - w / 2, (y0 + y1) / 2 - h / 2
        if max(abs(off_x), abs(off_y)) > 4:
            warnings.append(f"{where}: bbox centre is off by ({off_x:.1f}, {off_y:.1f})")
    return errors, warnings


# --- drawing --------------------------------------------------------------------


def _gray(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    v = round(0.299 * r + 0.587 * g + 0.114 * b)
    return f"#{v:02x}{v:02x}{v:02x}"


def palettes() -> list[tuple[str, dict[str, str], bool]]:
    """(label, palette, grayscale): the two asked-for colourings, then the reversed one
    (light fg on a dark ground, as the Golems terrain tiles use) to catch icons that
    only work with a dark fg."""
    grey = {k: _gray(v) for k, v in COLOUR.items()}
    reversed_ = {"fg": COLOUR["bg"], "accent": COLOUR["accent"], "bg": COLOUR["fg"]}
    return [("colour", dict(COLOUR), False), ("grayscale", grey, True), ("reversed", reversed_, False)]


def _resolve(paint: str, palette: dict[str, str], grayscale: bool) -> str | None:
    if paint == "none":
        return None
    if paint in palette:
        return palette[paint]
    return _gray(paint) if grayscale else paint


def draw_icon(
    canvas: Any,
    icon: dict[str, Any],
    x: float,
    y: float,
    size: float,
    palette: dict[str, str],
    grayscale: bool = False,
) -> None:
    """Draw ``icon`` fitted into the square (x, y, size) in points (PDF y-up)."""
    from reportlab.lib.colors import HexColor
    from reportlab.pdfgen.canvas import FILL_EVEN_ODD, FILL_NON_ZERO

    w, h = icon_viewbox(icon)
    s = size / max(w, h)
    ox = x + (size - w * s) / 2
    oy = y + (size - h * s) / 2
    canvas.saveState()
    # viewbox origin top-left, y down -> PDF y up: flip about the box's top edge
    canvas.translate(ox, oy + h * s)
    canvas.scale(s, -s)
    canvas.setLineCap(1)
    canvas.setLineJoin(1)
    for shape in icon["shapes"]:
        fill = _resolve(shape.get("fill", "fg"), palette, grayscale)
        stroke = _resolve(shape.get("stroke", "none"), palette, grayscale)
        if fill is None and stroke is None:
            continue
        p = canvas.beginPath()
        for op in shape_ops(shape):
            if op.op == "M":
                p.moveTo(*op.pts)
            elif op.op == "L":
                p.lineTo(*op.pts)
            elif op.op == "C":
                p.curveTo(*op.pts)
            else:
                p.close()
        if fill is not None:
            canvas.setFillColor(HexColor(fill))
        if stroke is not None:
            canvas.setStrokeColor(HexColor(stroke))
            canvas.setLineWidth(float(shape.get("stroke_width", DEFAULT_STROKE_WIDTH)))
        even_odd = shape.get("fill_rule", "nonzero") == "evenodd"
        canvas.drawPath(
            p,
            fill=1 if fill is not None else 0,
            stroke=1 if stroke is not None else 0,
            fillMode=FILL_EVEN_ODD if even_odd else FILL_NON_ZERO,
        )
    canvas.restoreState()


def _font() -> str:
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    ttf = ROOT / "fonts" / "Lato-Regular.ttf"
    if ttf.exists():
        pdfmetrics.registerFont(TTFont("Lato", str(ttf)))
        return "Lato"
    return "Helvetica"


def write_sheet(icons: dict[str, Any], pdf_path: Path, columns: int = 5) -> None:
    from reportlab.lib.colors import HexColor
    from reportlab.pdfgen import canvas as canvas_mod

    big, small, pad = 20 * MM, 6 * MM, 3 * MM
    schemes = palettes()
    cell_w = pad + len(schemes) * (big + pad) + small + pad
    cell_h = 5 * MM + big + pad
    margin = 8 * MM
    names = list(icons)
    rows = max(1, math.ceil(len(names) / columns))
    page_w = 2 * margin + columns * cell_w
    page_h = 2 * margin + 8 * MM + rows * cell_h
    font = _font()
    c = canvas_mod.Canvas(
        str(pdf_path), pagesize=(page_w, page_h), invariant=1, initialFontName=font
    )
    c.setTitle("pnp icon sheet")
    c.setFont(font, 11)
    c.setFillColor(HexColor("#000000"))
    c.drawString(
        margin,
        page_h - margin - 4 * MM,
        f"icons.json: {len(names)} icons at 20 mm and 6 mm: "
        + ", ".join(label for label, _, _ in schemes),
    )
    for i, name in enumerate(names):
        icon = icons[name]
        col, row = i % columns, i // columns
        x = margin + col * cell_w
        top = page_h - margin - 8 * MM - row * cell_h
        c.setFont(font, 8)
        c.setFillColor(HexColor("#000000"))
        c.drawString(x + pad, top - 3.5 * MM, name)
        y = top - 5 * MM - big
        sx = x + pad + len(schemes) * (big + pad)
        step = (big - small) / max(1, len(schemes) - 1)
        for k, (_, pal, grayscale) in enumerate(schemes):
            px = x + pad + k * (big + pad)
            c.setFillColor(HexColor(pal["bg"]))
            c.setStrokeColor(HexColor("#c8c8c8"))
            c.setLineWidth(0.3)
            c.rect(px, y, big, big, fill=1, stroke=1)
            draw_icon(c, icon, px, y, big, pal, grayscale)
            sy = y + big - small - k * step
            c.setFillColor(HexColor(pal["bg"]))
            c.rect(sx - 0.5 * MM, sy - 0.5 * MM, small + MM, small + MM, fill=1, stroke=0)
            draw_icon(c, icon, sx, sy, small, pal, grayscale)
    c.showPage()
    c.save()


def render_png(pdf_path: Path, png_path: Path, dpi: float) -> None:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(pdf_path))
    try:
        page = pdf[0]
        image = page.render(scale=dpi / 72.0).to_pil()
        image.save(png_path)
    finally:
        pdf.close()


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "icons", nargs="?", default=str(ROOT / "templates" / "shared" / "icons.json")
    )
    parser.add_argument("--out", default=str(ROOT / "out"), help="output folder (default out/)")
    parser.add_argument("--dpi", type=float, default=100.0, help="PNG resolution (default 100)")
    parser.add_argument("--only", nargs="*", help="draw only these icon names")
    args = parser.parse_args(list(argv) if argv is not None else None)

    with open(args.icons, encoding="utf-8") as fh:
        data = json.load(fh)
    errors, warnings = check_library(data)
    for w in warnings:
        print(f"warning: {w}", file=sys.stderr)
    for e in errors:
        print(f"error: {e}", file=sys.stderr)
    if errors:
        return 1
    icons = data["icons"]
    if args.only:
        missing = [n for n in args.only if n not in icons]
        if missing:
            print(f"error: no such icons: {missing}", file=sys.stderr)
            return 1
        icons = {n: icons[n] for n in args.only}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    pdf_path, png_path = out / "icon-sheet.pdf", out / "icon-sheet.png"
    write_sheet(icons, pdf_path)
    render_png(pdf_path, png_path, args.dpi)
    print(f"{len(icons)} icons -> {pdf_path}, {png_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
