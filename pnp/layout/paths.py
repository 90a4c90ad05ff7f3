"""SVG path-data parser.

``parse_path`` turns an SVG ``d`` attribute into a tuple of absolute drawing
operations using only four operators:

* ``PathOp("M", (x, y))`` move to
* ``PathOp("L", (x, y))`` line to
* ``PathOp("C", (x1, y1, x2, y2, x, y))`` cubic Bezier to
* ``PathOp("Z", ())`` close the current subpath

Every SVG command is accepted (``M m L l H h V v C c S s Q q T t A a Z z``),
including implicitly repeated commands. Quadratic curves become exact cubic
curves, horizontal and vertical lines become lines and elliptical arcs become
cubic approximations of at most 90 degrees each.

The module is pure (stdlib only) and does not depend on any drawing library;
coordinates are returned as they are written (y down, as in SVG).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import NamedTuple


class PathError(ValueError):
    """Malformed path data. ``offset`` is the 0-based character position."""

    def __init__(self, message: str, offset: int | None = None) -> None:
        super().__init__(message)
        self.offset = offset


class PathOp(NamedTuple):
    """One absolute drawing operation: ``op`` is "M", "L", "C" or "Z"."""

    op: str
    pts: tuple[float, ...]


# Number of coordinates each command takes per repetition.
_ARITY: dict[str, int] = {
    "M": 2, "L": 2, "H": 1, "V": 1, "C": 6, "S": 4, "Q": 4, "T": 2, "A": 7, "Z": 0,
}
_COMMANDS = frozenset(_ARITY) | frozenset(c.lower() for c in _ARITY)
_WSP = frozenset(" \t\n\r\f")
_DIGITS = frozenset("0123456789")


class _Scanner:
    """Character-level reader over path data that reports offsets in errors."""

    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0
        self.n = len(text)

    def error(self, expected: str, at: int | None = None) -> PathError:
        pos = self.i if at is None else at
        found = f"found {self.s[pos]!r}" if pos < self.n else "found end of data"
        return PathError(f"at char {pos}: expected {expected}, {found}", pos)

    def skip_ws(self) -> None:
        while self.i < self.n and self.s[self.i] in _WSP:
            self.i += 1

    def skip_sep(self) -> bool:
        """Skip whitespace with at most one comma inside it; True if a comma."""
        self.skip_ws()
        if self.i < self.n and self.s[self.i] == ",":
            self.i += 1
            self.skip_ws()
            return True
        return False

    def at_end(self) -> bool:
        return self.i >= self.n

    def peek(self) -> str:
        return self.s[self.i] if self.i < self.n else ""

    def at_number(self) -> bool:
        c = self.peek()
        return c != "" and (c in _DIGITS or c in "+-.")

    def number(self, what: str) -> float:
        s, n, start = self.s, self.n, self.i
        i = start
        if i < n and s[i] in "+-":
            i += 1
        int_digits = 0
        while i < n and s[i] in _DIGITS:
            i += 1
            int_digits += 1
        frac_digits = 0
        if i < n and s[i] == ".":
            i += 1
            while i < n and s[i] in _DIGITS:
                i += 1
                frac_digits += 1
        if int_digits == 0 and frac_digits == 0:
            raise self.error(what, start)
        if i < n and s[i] in "eE":
            j = i + 1
            if j < n and s[j] in "+-":
                j += 1
            k = j
            while k < n and s[k] in _DIGITS:
                k += 1
            if k > j:  # only a real exponent; "1e" leaves the "e" alone
                i = k
        self.i = i
        value = float(s[start:i])
        if not math.isfinite(value):
            raise PathError(f"at char {start}: number out of range", start)
        return value

    def flag(self, what: str) -> float:
        c = self.peek()
        if c not in ("0", "1"):
            raise self.error(what)
        self.i += 1
        return float(c)


def _fmt_cmd(cmd: str) -> str:
    return f"'{cmd}'"


def parse_path(d: str) -> tuple[PathOp, ...]:
    """Parse SVG path data into absolute M/L/C/Z operations.

    Raises :class:`PathError` (a ``ValueError``) naming the character offset and
    what was expected there. Empty or all-whitespace data gives ``()``.
    """
    if not isinstance(d, str):
        raise PathError(f"path data must be a string, not {type(d).__name__}", None)
    sc = _Scanner(d)
    out: list[PathOp] = []
    cx = cy = 0.0  # current point
    sx = sy = 0.0  # start of the current subpath
    # Last control point of the previous command, for S (cubic) and T (quadratic).
    last_cubic: tuple[float, float] | None = None
    last_quad: tuple[float, float] | None = None

    sc.skip_ws()
    if sc.at_end():
        return ()
    if sc.peek() not in ("M", "m"):
        raise sc.error("a moveto command 'M' or 'm' at the start of the path")

    cmd = ""
    while True:
        sc.skip_ws()
        if sc.at_end():
            break
        start, n_before = sc.i, len(out)
        c = sc.peek()
        if c in _COMMANDS:
            cmd = c
            sc.i += 1
            explicit = True
        elif sc.at_number() and cmd and cmd not in "Zz":
            explicit = False  # implicit repetition of the previous command
            if cmd == "M":
                cmd = "L"
            elif cmd == "m":
                cmd = "l"
        else:
            raise sc.error("a path command letter")

        upper = cmd.upper()
        rel = cmd != upper
        what = f"a number after {_fmt_cmd(cmd)}"

        if upper == "Z":
            out.append(PathOp("Z", ()))
            cx, cy = sx, sy
            last_cubic = last_quad = None
            continue

        if explicit:
            sc.skip_ws()
        args: list[float] = []
        arity = _ARITY[upper]
        for k in range(arity):
            if k:
                sc.skip_sep()
            if upper == "A" and k in (3, 4):
                flag_name = "large-arc" if k == 3 else "sweep"
                args.append(sc.flag(f"a {flag_name} flag (0 or 1) after {_fmt_cmd(cmd)}"))
            else:
                args.append(sc.number(what))
        comma = sc.skip_sep()

        ox, oy = (cx, cy) if rel else (0.0, 0.0)
        if upper == "M":
            cx, cy = args[0] + ox, args[1] + oy
            sx, sy = cx, cy
            out.append(PathOp("M", (cx, cy)))
            last_cubic = last_quad = None
        elif upper in ("L", "H", "V"):
            if upper == "L":
                cx, cy = args[0] + ox, args[1] + oy
            elif upper == "H":
                cx = args[0] + ox
            else:
                cy = args[0] + oy
            out.append(PathOp("L", (cx, cy)))
            last_cubic = last_quad = None
        elif upper in ("C", "S"):
            if upper == "C":
                x1, y1 = args[0] + ox, args[1] + oy
                rest = args[2:]
            else:
                if last_cubic is None:
                    x1, y1 = cx, cy
                else:
                    x1, y1 = 2 * cx - last_cubic[0], 2 * cy - last_cubic[1]
                rest = args
            x2, y2 = rest[0] + ox, rest[1] + oy
            x, y = rest[2] + ox, rest[3] + oy
            out.append(PathOp("C", (x1, y1, x2, y2, x, y)))
            last_cubic, last_quad = (x2, y2), None
            cx, cy = x, y
        elif upper in ("Q", "T"):
            if upper == "Q":
                qx, qy = args[0] + ox, args[1] + oy
                x, y = args[2] + ox, args[3] + oy
            else:
                if last_quad is None:
                    qx, qy = cx, cy
                else:
                    qx, qy = 2 * cx - last_quad[0], 2 * cy - last_quad[1]
                x, y = args[0] + ox, args[1] + oy
            out.append(PathOp("C", _quad_to_cubic(cx, cy, qx, qy, x, y)))
            last_quad, last_cubic = (qx, qy), None
            cx, cy = x, y
        else:  # "A"
            rx, ry, phi, large, sweep = args[:5]
            x, y = args[5] + ox, args[6] + oy
            try:
                arc = _arc_to_cubics(cx, cy, rx, ry, phi, bool(large), bool(sweep), x, y)
            except (OverflowError, ValueError):  # radii or coordinates near float limits
                raise PathError(f"at char {start}: arc out of range", start) from None
            out.extend(arc)
            cx, cy = x, y
            last_cubic = last_quad = None

        for op in out[n_before:]:
            if not all(math.isfinite(v) for v in op.pts):
                raise PathError(f"at char {start}: coordinates out of range", start)

        # A command letter may follow directly; a number repeats the command.
        if comma and not sc.at_number():
            raise sc.error(what)  # a comma must be followed by another number
        if sc.at_end():
            break
        if sc.peek() not in _COMMANDS and not sc.at_number():
            raise sc.error("a number or a path command letter")
    return tuple(out)


def _quad_to_cubic(
    x0: float, y0: float, qx: float, qy: float, x: float, y: float
) -> tuple[float, ...]:
    """Exact cubic form of the quadratic Bezier (x0,y0) -(qx,qy)-> (x,y)."""
    return (
        x0 + 2.0 / 3.0 * (qx - x0),
        y0 + 2.0 / 3.0 * (qy - y0),
        x + 2.0 / 3.0 * (qx - x),
        y + 2.0 / 3.0 * (qy - y),
        x,
        y,
    )


def _angle(ux: float, uy: float, vx: float, vy: float) -> float:
    """Signed angle from vector u to vector v."""
    return math.atan2(ux * vy - uy * vx, ux * vx + uy * vy)


def _arc_to_cubics(
    x1: float,
    y1: float,
    rx: float,
    ry: float,
    phi_deg: float,
    large: bool,
    sweep: bool,
    x2: float,
    y2: float,
) -> list[PathOp]:
    """Elliptical arc (SVG endpoint form) as cubic Beziers of <= 90 degrees.

    Follows the SVG 1.1 implementation notes (F.6.5 and F.6.6): a zero radius
    gives a straight line, coincident endpoints give nothing and radii too small
    to reach the end point are scaled up.
    """
    if x1 == x2 and y1 == y2:
        return []
    rx, ry = abs(rx), abs(ry)
    if rx == 0 or ry == 0:
        return [PathOp("L", (x2, y2))]

    phi = math.radians(phi_deg % 360.0)
    cos_p, sin_p = math.cos(phi), math.sin(phi)
    dx2, dy2 = (x1 - x2) / 2.0, (y1 - y2) / 2.0
    x1p = cos_p * dx2 + sin_p * dy2
    y1p = -sin_p * dx2 + cos_p * dy2

    # Work with the end point in unit-circle terms so that neither tiny nor huge
    # radii overflow: a^2 + b^2 > 1 means the radii are too small (scale them up).
    a, b = x1p / rx, y1p / ry
    scale = math.hypot(a, b)
    if scale == 0.0:  # radii so large that the arc is a straight line
        return [PathOp("L", (x2, y2))]
    if scale >= 1.0:
        rx, ry = rx * scale, ry * scale
        cxp = cyp = 0.0
    else:
        root = math.sqrt(max(0.0, 1.0 - scale * scale))
        if large == sweep:
            root = -root
        cxp = root * (b / scale) * rx
        cyp = -root * (a / scale) * ry
    ccx = cos_p * cxp - sin_p * cyp + (x1 + x2) / 2.0
    ccy = sin_p * cxp + cos_p * cyp + (y1 + y2) / 2.0

    ux, uy = (x1p - cxp) / rx, (y1p - cyp) / ry
    vx, vy = (-x1p - cxp) / rx, (-y1p - cyp) / ry
    theta1 = _angle(1.0, 0.0, ux, uy)
    dtheta = _angle(ux, uy, vx, vy)
    if not sweep and dtheta > 0:
        dtheta -= 2 * math.pi
    elif sweep and dtheta < 0:
        dtheta += 2 * math.pi

    nseg = max(1, math.ceil(abs(dtheta) / (math.pi / 2) - 1e-9))
    delta = dtheta / nseg
    k = 4.0 / 3.0 * math.tan(delta / 4.0)

    def point(t: float) -> tuple[float, float]:
        ex, ey = rx * math.cos(t), ry * math.sin(t)
        return ccx + cos_p * ex - sin_p * ey, ccy + sin_p * ex + cos_p * ey

    def deriv(t: float) -> tuple[float, float]:
        ex, ey = -rx * math.sin(t), ry * math.cos(t)
        return cos_p * ex - sin_p * ey, sin_p * ex + cos_p * ey

    # Round away trigonometric noise (cos(pi/2) is 6e-17, not 0), relative to the size.
    digits = 13 - math.ceil(math.log10(max(rx, ry)))
    ops: list[PathOp] = []
    t0 = theta1
    px, py = x1, y1
    for i in range(nseg):
        t1 = theta1 + (i + 1) * delta
        d0x, d0y = deriv(t0)
        d1x, d1y = deriv(t1)
        if i == nseg - 1:
            ex, ey = x2, y2  # land exactly on the requested end point
        else:
            ex, ey = _clean(point(t1), digits)
        c1 = _clean((px + k * d0x, py + k * d0y), digits)
        c2 = _clean((ex - k * d1x, ey - k * d1y), digits)
        ops.append(PathOp("C", (*c1, *c2, ex, ey)))
        px, py, t0 = ex, ey, t1
    return ops


def _clean(pt: tuple[float, float], digits: int) -> tuple[float, float]:
    """Round a computed arc point to ``digits`` decimals (never to -0.0)."""
    x, y = pt
    if not (math.isfinite(x) and math.isfinite(y)):
        return x, y  # reported by the caller as out of range
    return round(x, digits) + 0.0, round(y, digits) + 0.0


def transform(
    ops: Iterable[PathOp],
    scale_x: float = 1.0,
    scale_y: float = 1.0,
    dx: float = 0.0,
    dy: float = 0.0,
) -> tuple[PathOp, ...]:
    """Scale then translate every point: ``x' = x*scale_x + dx``, same for y.

    A negative ``scale_y`` flips the path vertically (SVG y-down to PDF y-up).
    """
    result: list[PathOp] = []
    for op in ops:
        pts = op.pts
        new = tuple(
            (v * scale_x + dx) if i % 2 == 0 else (v * scale_y + dy)
            for i, v in enumerate(pts)
        )
        result.append(PathOp(op.op, new))
    return tuple(result)


def bbox(ops: Iterable[PathOp]) -> tuple[float, float, float, float]:
    """``(x0, y0, x1, y1)`` over all end and control points.

    The control-point box always contains the curve (it may be a little larger
    than the tight box). Raises ``ValueError`` for a path without points.
    """
    xs: list[float] = []
    ys: list[float] = []
    for op in ops:
        xs.extend(op.pts[0::2])
        ys.extend(op.pts[1::2])
    if not xs:
        raise ValueError("bbox of an empty path")
    return min(xs), min(ys), max(xs), max(ys)


def _num(v: float) -> str:
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return repr(v)


def format_path(ops: Iterable[PathOp]) -> str:
    """SVG path data for ``ops``; ``parse_path(format_path(ops)) == ops``."""
    parts: list[str] = []
    for op in ops:
        if op.op not in ("M", "L", "C", "Z"):
            raise ValueError(f"unknown path operator {op.op!r}")
        parts.append(" ".join([op.op, *(_num(v) for v in op.pts)]))
    return " ".join(parts)

