"""fits: the ``fits`` rule's geometry. Pieces of one component (or a piece the players supply, given
by its size) fit the spaces an element of another component's template draws, with a clearance.

A space is what a template element with that ``id`` draws for one item (reached through groups,
whose offsets add up, and chosen by its ``when``; a group with the id gives its elements' spaces):
a ``circle`` (a round space of its diameter),
any element with a ``box`` (a rectangle), a ``repeat`` (one space per repetition, the shape of its
first child with a box) or a ``track`` (one space of its ``size`` per number). A piece fits a space
when its width and height plus the clearance on each side are within the space's (a circle's
diameter both ways); a row holds its pieces when the spaces are at least a piece plus the
clearance apart, centre to centre, and every piece lies on the host piece. Coordinates, counts and
spans are worked out by the layout's own functions (pnp.layout.coords) for the host's size, so an
expression (``"w-6"``, ``"50%"``) gives the space that is drawn; one that cannot be worked out is a
SpaceError naming the element. Pure: reads the model and the resolved template."""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterator, Mapping
from functools import lru_cache
from typing import Any, TypeVar

from msgspec import Struct

from pnp.errors import json_path
from pnp.input.conditions import REGEX_SYNTAX, holds
from pnp.input.model import Component
from pnp.input.templates import Element, Template
from pnp.layout.coords import box_mm, point, repeat_count, track_centres, track_span
from pnp.layout.fields import Env, LayoutError

_T = TypeVar("_T")


class Space(Struct, frozen=True):
    """The spaces one element draws on one piece: their shape, size and centres, in mm."""

    shape: str  # "round" | "rect"
    w: float
    h: float
    centres: tuple[tuple[float, float], ...]


class Piece(Struct, frozen=True):
    """What goes on a space: its name, outline size (mm) and shape."""

    name: str
    w: float
    h: float
    shape: str  # "round" | "rect"

    @property
    def label(self) -> str:
        return f"{self.name} ({_mm(self.w)} x {_mm(self.h)} mm{' round' if self.shape == 'round' else ''})"


SPACE = "a circle, a boxed element, a repeat or a track"  # what a `fits` rule's element may be


class SpaceError(Exception):
    """The rule names an element the template does not draw as a space, or one whose space cannot
    be worked out for an item (bad input, not a failure); ``expected`` says what would do."""

    def __init__(self, message: str, expected: str = SPACE):
        super().__init__(message)
        self.expected = expected


def piece_of(comp: Component | None, spec: Mapping[str, Any]) -> Piece:
    """The piece a ``fits`` rule places: a component's pieces or a given size."""
    if comp is not None:
        return Piece(comp.id, comp.size[0], comp.size[1], "round" if comp.shape == "round" else "rect")
    w, h = spec["size"]
    return Piece(spec.get("name", f"{_mm(w)} x {_mm(h)} mm piece"), w, h, spec.get("shape", "rect"))


def spaces(tpl: Template, element_id: str, env: Env) -> list[Space]:
    """The spaces the elements named ``element_id`` draw for ``env``'s item (those whose ``when``
    holds); a group so named gives the spaces of each of its elements. Coordinates are worked out
    as the layout works them out (pnp.layout.coords: expressions of the piece's size, percentages,
    counts from the data); one that cannot be is a SpaceError naming the element."""
    return [sp for el, dx, dy in _find(tpl.elements, element_id, env, 0.0, 0.0) for sp in _spaces(el, env, dx, dy)]


def _kids(el: Element) -> tuple[Element, ...]:
    return tuple(el.child("elements", i) for i in range(len(el.data.get("elements", []))))


def _spaces(el: Element, env: Env, dx: float, dy: float) -> list[Space]:
    if el.data.get("type") != "group":
        return [_at(el, env, lambda: _space(el, env, dx, dy))]
    ox, oy = _offset(el, env)
    merged: dict[tuple[str, float, float], list[tuple[float, float]]] = {}
    for k in _kids(el):
        if _holds(k, env):
            for sp in _spaces(k, env, dx + ox, dy + oy):
                merged.setdefault((sp.shape, sp.w, sp.h), []).extend(sp.centres)
    # Spaces of one shape and size are one set: neighbours are checked across the group's elements.
    return [Space(shape, w, h, tuple(c)) for (shape, w, h), c in merged.items()]


def _at(el: Element, env: Env, work: Callable[[], _T]) -> _T:
    """``work()``, a LayoutError in it a SpaceError naming ``el`` and the item."""
    try:
        return work()
    except LayoutError as exc:
        key = exc.key if isinstance(exc.key, tuple) else (exc.key,) if exc.key else ()
        msg = exc.message.removeprefix(f"{key[0]}: ") if key else exc.message  # "box: division by zero"
        path = (*el.path, *key)
        name = el.data.get("id")
        what = f"element {name!r}" if name else f"{el.data.get('type')} element"
        w, h = env.component.size
        piece = "" if " mm piece" in msg else f"a {_mm(w)} x {_mm(h)} mm piece, "  # a range error names it
        raise SpaceError(f"{what} ({el.doc.display}:{el.doc.locate(path)[0]} {json_path(path)}): {msg} "
                         f"({piece}item {env.item.id})", exc.expected or SPACE) from None


def _offset(el: Element, env: Env) -> tuple[float, float]:
    """A group's ``offset`` in mm."""
    if "offset" not in el.data:
        return 0.0, 0.0
    return _at(el, env, lambda: point(el.data["offset"], "offset", *env.component.size))


def _holds(el: Element, env: Env) -> bool:
    try:
        return "when" not in el.data or _at(el, env, lambda: holds(el.data["when"], env.get))
    except ValueError as exc:  # a `matches` pattern over its budget, as the layout reports it
        raise SpaceError(f"{el.label}: when: {exc} (item {env.item.id})",
                         f"a regular expression in {REGEX_SYNTAX}") from None


def _find(elements: tuple[Element, ...], eid: str, env: Env, dx: float, dy: float
          ) -> Iterator[tuple[Element, float, float]]:
    for el in elements:
        d = el.data
        if not _holds(el, env):
            continue
        if d.get("id") == eid:
            yield el, dx, dy
        elif d.get("type") == "group":
            ox, oy = _offset(el, env)
            yield from _find(_kids(el), eid, env, dx + ox, dy + oy)


def _box_shape(d: Mapping[str, Any], w: float, h: float) -> tuple[str, float, float, float, float]:
    x, y, bw, bh = box_mm(d["box"], w, h)
    if d.get("type") == "circle":
        s = min(bw, bh)
        return "round", x + bw / 2, y + bh / 2, s, s
    return "rect", x + bw / 2, y + bh / 2, bw, bh


def _space(el: Element, env: Env, dx: float, dy: float) -> Space:
    d = el.data
    kind = d.get("type")
    pw, ph = env.component.size
    if kind == "repeat":
        count = repeat_count(d["count"], env.get)
        at = next((i for i, k in enumerate(d.get("elements", [])) if "box" in k), None)
        if at is None:
            raise SpaceError(f"repeat element {d.get('id')!r} has no child with a box to be its space")
        first = el.child("elements", at)
        shape, cx, cy, w, h = _at(first, env, lambda: _box_shape(first.data, pw, ph))
        sx, sy = point(d["step"], "step", pw, ph)
        per_row = d.get("per_row") or max(count, 1)
        rx, ry = point(d["row_step"], "row_step", pw, ph) if "row_step" in d else (0, 0)
        centres = []
        for i in range(count):
            row, col = divmod(i, per_row)
            centres.append((dx + cx + col * sx + row * rx, dy + cy + col * sy + row * ry))
        return Space(shape, w, h, tuple(centres))
    if kind == "track":
        first_value, last = track_span(d, env.get)
        pts = track_centres(d, last - first_value + 1, pw, ph)
        w, h = point(d["size"], "size", pw, ph)
        return Space("rect", w, h, tuple((dx + px, dy + py) for px, py in pts))
    if "box" in d:
        shape, cx, cy, w, h = _box_shape(d, pw, ph)
        return Space(shape, w, h, ((dx + cx, dy + cy),))
    raise SpaceError(f"{kind} element {d.get('id')!r} draws no space ({SPACE})")


def judge(piece: Piece, space: Space, clearance: float, row: int | None, host: tuple[float, float]) -> list[str]:
    """What keeps ``piece`` from fitting ``space`` (empty when it fits), in words with the figures."""
    out = []
    need_w, need_h = piece.w + 2 * clearance, piece.h + 2 * clearance
    name = "circle" if space.shape == "round" else "space"
    size = f"{_mm(space.w)} mm" if space.shape == "round" else f"{_mm(space.w)} x {_mm(space.h)} mm"
    if need_w > space.w + 1e-9 or need_h > space.h + 1e-9:
        out.append(f"{name} {size} is too small: {piece.label} + {_mm(clearance)} mm clearance each side "
                   f"needs {_mm(need_w)} x {_mm(need_h)} mm")
    if row is not None and len(space.centres) < row:
        out.append(f"{len(space.centres)} spaces for a row of {row}")
    if len(space.centres) > 1:
        gap = closest(tuple(space.centres))
        need = max(piece.w, piece.h) + clearance
        if gap < need - 1e-9:
            out.append(f"spaces {_mm(gap)} mm apart (centre to centre): side by side the pieces need {_mm(need)} mm")
    hw, hh = host
    off = [c for c in space.centres if c[0] - piece.w / 2 < -1e-9 or c[0] + piece.w / 2 > hw + 1e-9
           or c[1] - piece.h / 2 < -1e-9 or c[1] + piece.h / 2 > hh + 1e-9]
    if off:
        out.append(f"{len(off)} of the pieces would hang over the edge of the {_mm(hw)} x {_mm(hh)} mm piece")
    return out


@lru_cache(maxsize=256)  # items (and rules) alike give the same spaces: worked out once
def closest(points: tuple[tuple[float, float], ...]) -> float:
    """The smallest distance between two of ``points`` (divide and conquer, O(n log n)): every
    pair was measured, and 6,000 spaces on 40 items made one `fits` rule cost 9 s (attack 8, F5).
    The same pairs are measured with the same ``math.dist``, so the same minimum comes out."""
    def nearest(px: list[tuple[float, float]]) -> tuple[float, list[tuple[float, float]]]:
        """(the smallest distance among ``px``, sorted by x; ``px`` sorted by y)."""
        if len(px) <= 3:
            best = min((math.dist(a, b) for i, a in enumerate(px) for b in px[i + 1:]), default=math.inf)
            return best, sorted(px, key=lambda q: q[1])
        mid = len(px) // 2
        xm = px[mid][0]
        left, by_y_left = nearest(px[:mid])
        right, by_y_right = nearest(px[mid:])
        best = min(left, right)
        by_y = list(heapq.merge(by_y_left, by_y_right, key=lambda q: q[1]))
        strip = [q for q in by_y if abs(q[0] - xm) < best]
        for i, a in enumerate(strip):
            for b in strip[i + 1:]:
                if b[1] - a[1] >= best:
                    break
                best = min(best, math.dist(a, b))
        return best, by_y

    return nearest(sorted(points))[0]


def _mm(v: float) -> str:
    return f"{round(v, 2):g}"
