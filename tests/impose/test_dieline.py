"""Die lines: the path runs along the trim, its corners rounded by the corner radius."""

from __future__ import annotations

import math

import pytest

from pnp.impose.dieline import KAPPA, DieLine, die_path
from pnp.impose.hex import hex_outline


def _points(ops: tuple) -> list[tuple[float, float]]:
    return [(pts[i], pts[i + 1]) for op, pts in ops for i in range(0, len(pts), 2)]


def _bezier(p0: tuple, p1: tuple, p2: tuple, p3: tuple, t: float) -> tuple[float, float]:
    u = 1 - t
    return tuple(u ** 3 * a + 3 * u * u * t * b + 3 * u * t * t * c + t ** 3 * d  # type: ignore[return-value]
                 for a, b, c, d in zip(p0, p1, p2, p3, strict=True))


def test_square_corners_are_the_trim_box() -> None:
    ops = die_path(DieLine("rect"), 10, 20, 100, 50)
    assert [op for op, _ in ops] == ["M", "L", "L", "L", "Z"]
    assert set(_points(ops)) == {(10, 70), (110, 70), (110, 20), (10, 20)}


@pytest.mark.parametrize("r", [3.0, 8.5, 25.0])
def test_rounded_corners_keep_to_the_trim_and_the_radius(r: float) -> None:
    x, y, w, h = 10.0, 20.0, 100.0, 50.0
    ops = die_path(DieLine("rounded", r), x, y, w, h)
    assert [op for op, _ in ops] == ["M", "L", "C", "L", "C", "L", "C", "L", "C", "Z"]
    pts = _points(ops)
    assert min(p[0] for p in pts) == x and max(p[0] for p in pts) == x + w
    assert min(p[1] for p in pts) == y and max(p[1] for p in pts) == y + h
    # every corner arc stays within 0.03 % of r from its centre (the cubic's known error)
    start = (x + r, y + h)
    centres = [(x + w - r, y + h - r), (x + w - r, y + r), (x + r, y + r), (x + r, y + h - r)]
    arcs = [pts for op, pts in ops if op == "C"]
    lines_end = [pts for op, pts in ops if op == "L"]
    assert len(arcs) == 4 and len(lines_end) == 4
    prev = lines_end[0]
    for i, (arc, centre) in enumerate(zip(arcs, centres, strict=True)):
        p0 = prev
        p1, p2, p3 = (arc[0], arc[1]), (arc[2], arc[3]), (arc[4], arc[5])
        for t in (0.0, 0.25, 0.5, 0.75, 1.0):
            px, py = _bezier(p0, p1, p2, p3, t)
            assert abs(math.hypot(px - centre[0], py - centre[1]) - r) < r * 3e-4, (i, t)
        if i + 1 < len(lines_end):
            prev = lines_end[i + 1]
    assert ops[0][1] == start


def test_radius_is_clamped_to_half_the_shorter_side() -> None:
    ops = die_path(DieLine("rounded", 100), 0, 0, 40, 60)
    pts = _points(ops)
    assert (20.0, 60.0) in pts and (40.0, 40.0) in pts  # r = 20: the short sides are all arc


def test_round_and_hex() -> None:
    circle = die_path(DieLine("round"), 0, 0, 20, 20)
    assert [op for op, _ in circle].count("C") == 4
    assert circle[1][1][:2] == (10 + 10 * KAPPA, 20)
    hexagon = die_path(DieLine("hex"), 0, 0, 30, 34)
    assert _points(hexagon) == list(hex_outline(0, 0, 30, 34))
