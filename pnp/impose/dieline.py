"""Die lines: the outline a cutting machine or a print shop's die follows, drawn with
``--die-line`` on every front piece as a stroke in the ``CutContour`` spot colour (the name
Silhouette, Cricut, Roland and print shops' RIPs read as "cut here", not "print this").

The path runs along the piece's trim: a rectangle whose corners are rounded by the component's
``corner_radius`` (mm, in its manifest entry; 0: square corners), the circle of a round piece,
the hexagon of a hex tile. Pure geometry, in page points."""

from __future__ import annotations

import math

from msgspec import Struct

from pnp.impose.hex import hex_outline
from pnp.layout.primitives import PathOps

KAPPA = 4 * (math.sqrt(2) - 1) / 3  # a quarter circle as one cubic Bézier: control points at r x KAPPA
SPOT_NAME = "CutContour"
DIE_WIDTH = 0.25  # pt: a hairline, as cutting software expects (it reads the path, not the ink)


class DieLine(Struct, frozen=True):
    """What a component's die line follows: its ``shape`` and corner ``radius`` (pt)."""

    shape: str
    radius: float = 0.0


def die_path(die: DieLine, x: float, y: float, w: float, h: float) -> PathOps:
    """The die line of a piece whose trim box on the page is (x, y, w, h), as path operations
    (clockwise from the top-left, closed)."""
    if die.shape == "round":
        return _ellipse(x, y, w, h)
    if die.shape == "hex":
        pts = hex_outline(x, y, w, h)
        return (("M", pts[0]), *(("L", p) for p in pts[1:]), ("Z", ()))
    r = min(die.radius, w / 2, h / 2)
    if r <= 0:
        return (("M", (x, y + h)), ("L", (x + w, y + h)), ("L", (x + w, y)), ("L", (x, y)), ("Z", ()))
    k = r * KAPPA
    x2, y2 = x + w, y + h
    return (("M", (x + r, y2)), ("L", (x2 - r, y2)),
            ("C", (x2 - r + k, y2, x2, y2 - r + k, x2, y2 - r)), ("L", (x2, y + r)),
            ("C", (x2, y + r - k, x2 - r + k, y, x2 - r, y)), ("L", (x + r, y)),
            ("C", (x + r - k, y, x, y + r - k, x, y + r)), ("L", (x, y2 - r)),
            ("C", (x, y2 - r + k, x + r - k, y2, x + r, y2)), ("Z", ()))


def _ellipse(x: float, y: float, w: float, h: float) -> PathOps:
    rx, ry = w / 2, h / 2
    cx, cy = x + rx, y + ry
    kx, ky = rx * KAPPA, ry * KAPPA
    return (("M", (cx, cy + ry)),
            ("C", (cx + kx, cy + ry, cx + rx, cy + ky, cx + rx, cy)),
            ("C", (cx + rx, cy - ky, cx + kx, cy - ry, cx, cy - ry)),
            ("C", (cx - kx, cy - ry, cx - rx, cy - ky, cx - rx, cy)),
            ("C", (cx - rx, cy + ky, cx - kx, cy + ry, cx, cy + ry)), ("Z", ()))
