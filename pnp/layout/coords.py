"""coords: an element's coordinates and counts worked out for one piece, once for the painter
(pnp.layout.piece), which draws them, and for a ``fits`` rule (pnp.qa.fits), which judges the spaces
they make: coordinates in mm, expressions of the piece's trim size evaluated (pnp.input.measures:
``"w-6"``, ``"50%"``), a repeat's count and a track's first and last read from the item. A value
that cannot be worked out is a LayoutError naming its key."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pnp.input.measures import EXPECTED, POINT_KEYS, MeasureError, measure
from pnp.layout.fields import LayoutError
from pnp.layout.shapes import track_points

Get = Callable[[str], Any]  # a field's value by name (pnp.layout.fields.Env.get)


def coord(value: Any, axis: str, w: float, h: float, key: str, index: int | None = None) -> float:
    """A coordinate in mm on a ``w`` x ``h`` mm piece: a number, or an expression of the piece's
    size, at ``key`` (``[index]``) of the element."""
    try:
        return measure(value, axis, w, h)
    except MeasureError as exc:
        expected = "an expression that can be worked out" if exc.expected == EXPECTED else exc.expected
        raise LayoutError(f"{key}: {exc}", key=key if index is None else (key, index),
                          expected=expected) from None


def box_mm(box: list[Any], w: float, h: float) -> tuple[float, float, float, float]:
    """A ``box`` [x, y, width, height] in mm; its width and height 0 or more."""
    x, y, bw, bh = (coord(v, a, w, h, "box", i) for i, (v, a) in enumerate(zip(box, "xyxy", strict=True)))
    if bw < 0 or bh < 0:
        raise LayoutError(f"box {box} is {bw:g} x {bh:g} mm on a {w:g} x {h:g} mm piece",
                          key="box", expected="a width and height of 0 mm or more")
    return x, y, bw, bh


def point(p: list[Any], key: str, w: float, h: float) -> tuple[float, float]:
    """A point (or an offset, a step, a track space's size) in mm."""
    x, y = p
    if x.__class__ is str or y.__class__ is str:
        at = (0, 1) if key in POINT_KEYS else (None, None)  # [x, y] itself; not a point of a list
        return coord(x, "x", w, h, key, at[0]), coord(y, "y", w, h, key, at[1])
    return x, y


def repeat_count(count: Any, get: Get) -> int:
    """A repeat's ``count``: a whole number, or a {field} holding one (none or empty: 0)."""
    if isinstance(count, str):
        raw = get(count[1:-1])
        if raw in (None, ""):
            return 0
        if isinstance(raw, bool) or not isinstance(raw, int | float) or raw < 0 or raw > 1000:
            raise LayoutError(f"repeat count {count} is {raw!r}", key="count",
                              expected="a whole number from 0 to 1000")
        return int(raw)
    return count


def whole(raw: Any, get: Get, key: str, lo: int, hi: int) -> int:
    """A whole number from ``lo`` to ``hi``, or a {field} holding one."""
    v = get(raw[1:-1]) if isinstance(raw, str) else raw
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise LayoutError(f"{key} is {v!r}", key=key, expected=f"a whole number from {lo} to {hi}")
    return v


def track_span(d: Any, get: Get) -> tuple[int, int]:
    """A track's ``first`` and ``last`` values: at most 1000 spaces, last not before first."""
    first = whole(d["first"], get, "first", -100000, 100000)
    last = whole(d["last"], get, "last", -100000, 100000)
    if last < first or last - first >= 1000:
        raise LayoutError(f"track runs from {first} to {last}", key="last",
                          expected="last >= first, at most 1000 spaces")
    return first, last


def track_centres(d: Any, n: int, w: float, h: float) -> list[tuple[float, float]]:
    """The centres (mm) of a track's ``n`` spaces along its ``path``."""
    points = track_points([point(p, "path", w, h) for p in d["path"]], n, bool(d.get("closed")), d.get("spacing"))
    if points is None:
        raise LayoutError(f"{n} spaces {d.get('spacing')} mm apart do not fit on the path", key="spacing",
                          expected="a longer path or a smaller spacing")
    return points
