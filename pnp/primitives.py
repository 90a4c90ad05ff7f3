"""What layout produces and draw consumes: positioned vector primitives, in points, in piece
coordinates (origin at the trim's bottom-left corner, y up). Pure values; no reportlab here."""

from __future__ import annotations

from dataclasses import dataclass

PathOps = tuple[tuple[str, tuple[float, ...]], ...]  # ("M", (x, y)), ("L", ...), ("C", ...), ("Z", ())


@dataclass(frozen=True)
class Paint:
    fill: str | None = None  # "#rrggbb" or "#rrggbbaa"; None: no fill
    stroke: str | None = None
    stroke_width: float = 0.5  # pt
    opacity: float = 1.0
    dash: tuple[float, float] | None = None
    fill_rule: str = "nonzero"


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float
    paint: Paint
    radius: float = 0.0


@dataclass(frozen=True)
class Ellipse:
    x: float
    y: float
    w: float
    h: float
    paint: Paint


@dataclass(frozen=True)
class Path:
    ops: PathOps
    paint: Paint


@dataclass(frozen=True)
class Line:
    x1: float
    y1: float
    x2: float
    y2: float
    paint: Paint


@dataclass(frozen=True, init=False)
class Text:
    x: float  # left end of the baseline
    y: float  # baseline
    text: str
    font: str
    size: float
    color: str
    tracking: float = 0.0

    def __init__(self, x: float, y: float, text: str, font: str, size: float, color: str,
                 tracking: float = 0.0) -> None:
        # What the generated __init__ does, a third of the time: a frozen dataclass sets each
        # field through object.__setattr__, and layout makes one Text per line of every card.
        # (Setting attributes afterwards still raises FrozenInstanceError.)
        d = self.__dict__
        d["x"] = x
        d["y"] = y
        d["text"] = text
        d["font"] = font
        d["size"] = size
        d["color"] = color
        d["tracking"] = tracking


@dataclass(frozen=True)
class Image:
    x: float
    y: float
    w: float
    h: float
    src: str  # absolute file path, already checked to be inside the game folder
    clip: tuple[float, float, float, float] | None = None  # x, y, w, h


Primitive = Rect | Ellipse | Path | Line | Text | Image
