"""What layout produces and draw consumes: positioned vector primitives, in points, in piece
coordinates (origin at the trim's bottom-left corner, y up). Pure values; no reportlab here."""

from __future__ import annotations

from msgspec import Struct

PathOps = tuple[tuple[str, tuple[float, ...]], ...]  # ("M", (x, y)), ("L", ...), ("C", ...), ("Z", ())
INK = "#000000"  # text, lines and icons that name no colour
PAPER = "#ffffff"  # the paper, behind everything (a template's "paper" colour unless it names one)


class Paint(Struct, frozen=True):
    fill: str | None = None  # "#rrggbb" or "#rrggbbaa"; None: no fill
    stroke: str | None = None
    stroke_width: float = 0.5  # pt
    opacity: float = 1.0
    dash: tuple[float, float] | None = None
    fill_rule: str = "nonzero"


class Rect(Struct, frozen=True):
    x: float
    y: float
    w: float
    h: float
    paint: Paint
    radius: float = 0.0


class Ellipse(Struct, frozen=True):
    x: float
    y: float
    w: float
    h: float
    paint: Paint


class Path(Struct, frozen=True):
    ops: PathOps
    paint: Paint


class Line(Struct, frozen=True):
    x1: float
    y1: float
    x2: float
    y2: float
    paint: Paint


class Text(Struct, frozen=True):
    x: float  # left end of the baseline
    y: float  # baseline
    text: str
    font: str
    size: float
    color: str
    tracking: float = 0.0
    angle: float = 0.0  # degrees, counter-clockwise about (x, y) (a template's ``rotate``, turned)


class Image(Struct, frozen=True):
    x: float
    y: float
    w: float
    h: float
    src: str  # absolute file path, already checked to be inside the game folder
    clip: tuple[float, float, float, float] | None = None  # x, y, w, h
    # An affine matrix (a, b, c, d, e, f) applied to the image and its clip: a turned element
    matrix: tuple[float, float, float, float, float, float] | None = None


class Vector(Struct, frozen=True):
    """SVG art, drawn as vectors: the file's drawing scaled from its own ``art_w`` x ``art_h``
    (pt) to ``w`` x ``h`` at (x, y)."""

    x: float
    y: float
    w: float
    h: float
    src: str  # absolute file path, already checked (inside its folder, readable, no text or links out)
    art_w: float
    art_h: float
    clip: tuple[float, float, float, float] | None = None
    matrix: tuple[float, float, float, float, float, float] | None = None


Primitive = Rect | Ellipse | Path | Line | Text | Image | Vector

