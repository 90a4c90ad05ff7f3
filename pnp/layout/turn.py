"""Turning laid-out primitives: a template element's ``rotate`` (degrees, clockwise on the card,
any angle) about a point. The result is ordinary primitives, so everything that reads a layout
(drawing, preflight's safe zone and strokes, the ink saver) sees the turned geometry itself:
rectangles and ellipses become paths through their turned outline, lines and paths turn their
points, texts turn their baseline origin and carry the angle, images and SVG art carry a matrix.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from msgspec.structs import replace

from pnp.layout.primitives import Ellipse, Image, Line, Path, PathOps, Primitive, Rect, Text, Vector

KAPPA = 0.5522847498307936  # a quarter ellipse as one cubic Bezier: control points at 4/3 (sqrt 2 - 1)
Matrix = tuple[float, float, float, float, float, float]


def quarter(degrees: float) -> bool:
    """A quarter turn (90 or 270 degrees, either way): the element is laid out in its box with
    width and height exchanged, so that turned it covers the box it names."""
    return degrees % 180 == 90


def rotation(degrees: float, cx: float, cy: float) -> Matrix:
    """The PDF matrix (y up) of a turn by ``degrees`` clockwise as seen on the card, about (cx, cy)."""
    a = math.radians(-degrees)
    cos, sin = _clean(math.cos(a)), _clean(math.sin(a))
    return (cos, sin, -sin, cos, cx - cos * cx + sin * cy, cy - sin * cx - cos * cy)


def _clean(v: float) -> float:
    """cos 90 is 6e-17, not 0: round such values so quarter turns stay exact."""
    r = round(v)
    return float(r) if abs(v - r) < 1e-12 else v


def compose(m: Matrix, n: Matrix | None) -> Matrix:
    """``m`` after ``n`` (a point goes through ``n`` first)."""
    if n is None:
        return m
    a, b, c, d, e, f = m
    a2, b2, c2, d2, e2, f2 = n
    return (a * a2 + c * b2, b * a2 + d * b2, a * c2 + c * d2, b * c2 + d * d2,
            a * e2 + c * f2 + e, b * e2 + d * f2 + f)


def apply(m: Matrix, x: float, y: float) -> tuple[float, float]:
    a, b, c, d, e, f = m
    return (a * x + c * y + e, b * x + d * y + f)


def turn(prims: Sequence[Primitive], degrees: float, cx: float, cy: float) -> list[Primitive]:
    """``prims`` turned ``degrees`` clockwise (as seen on the card) about (cx, cy), in pt."""
    if degrees % 360 == 0:
        return list(prims)
    m = rotation(degrees, cx, cy)
    return [_turn_one(p, m, -degrees) for p in prims]


def _points(ops: PathOps, m: Matrix) -> PathOps:
    out = []
    for op, pts in ops:
        conv: list[float] = []
        for i in range(0, len(pts), 2):
            conv.extend(apply(m, pts[i], pts[i + 1]))
        out.append((op, tuple(conv)))
    return tuple(out)


def rect_ops(x: float, y: float, w: float, h: float, r: float = 0.0) -> PathOps:
    """A rectangle's outline (corners rounded by ``r``) as path operations, counter-clockwise."""
    if r <= 0:
        return (("M", (x, y)), ("L", (x + w, y)), ("L", (x + w, y + h)), ("L", (x, y + h)), ("Z", ()))
    r = min(r, w / 2, h / 2)
    k = r * (1 - KAPPA)
    x1, y1 = x + w, y + h
    return (("M", (x + r, y)), ("L", (x1 - r, y)), ("C", (x1 - k, y, x1, y + k, x1, y + r)),
            ("L", (x1, y1 - r)), ("C", (x1, y1 - k, x1 - k, y1, x1 - r, y1)),
            ("L", (x + r, y1)), ("C", (x + k, y1, x, y1 - k, x, y1 - r)),
            ("L", (x, y + r)), ("C", (x, y + k, x + k, y, x + r, y)), ("Z", ()))


def ellipse_ops(x: float, y: float, w: float, h: float) -> PathOps:
    """The ellipse in the box as four cubic Beziers."""
    rx, ry = w / 2, h / 2
    cx, cy = x + rx, y + ry
    kx, ky = rx * KAPPA, ry * KAPPA
    return (("M", (cx + rx, cy)), ("C", (cx + rx, cy + ky, cx + kx, cy + ry, cx, cy + ry)),
            ("C", (cx - kx, cy + ry, cx - rx, cy + ky, cx - rx, cy)),
            ("C", (cx - rx, cy - ky, cx - kx, cy - ry, cx, cy - ry)),
            ("C", (cx + kx, cy - ry, cx + rx, cy - ky, cx + rx, cy)), ("Z", ()))


def _turn_one(p: Primitive, m: Matrix, angle: float) -> Primitive:
    if type(p) is Text:
        x, y = apply(m, p.x, p.y)
        return replace(p, x=x, y=y, angle=(p.angle + angle) % 360)
    if type(p) is Rect:
        return Path(_points(rect_ops(p.x, p.y, p.w, p.h, p.radius), m), p.paint)
    if type(p) is Ellipse:
        return Path(_points(ellipse_ops(p.x, p.y, p.w, p.h), m), p.paint)
    if type(p) is Path:
        return Path(_points(p.ops, m), p.paint)
    if type(p) is Line:
        x1, y1 = apply(m, p.x1, p.y1)
        x2, y2 = apply(m, p.x2, p.y2)
        return Line(x1, y1, x2, y2, p.paint)
    if type(p) is Image or type(p) is Vector:
        return replace(p, matrix=compose(m, p.matrix))
    raise TypeError(f"cannot turn {type(p).__name__}")


def corners(x0: float, y0: float, x1: float, y1: float, m: Matrix | None) -> tuple[float, float, float, float]:
    """The upright bounding box of the box (x0, y0)-(x1, y1) after ``m``."""
    if m is None:
        return (x0, y0, x1, y1)
    pts = [apply(m, x, y) for x, y in ((x0, y0), (x1, y0), (x0, y1), (x1, y1))]
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return (min(xs), min(ys), max(xs), max(ys))


def text_matrix(angle: float, x: float, y: float) -> Matrix:
    """The text matrix of a line whose baseline starts at (x, y), turned ``angle`` degrees
    counter-clockwise."""
    a = math.radians(angle)
    cos, sin = _clean(math.cos(a)), _clean(math.sin(a))
    return (cos, sin, -sin, cos, x, y)
