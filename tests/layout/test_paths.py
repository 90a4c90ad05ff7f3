"""Tests for the SVG path-data parser in pnp.paths."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pnp.layout.paths import PathError, PathOp, bbox, format_path, parse_path, transform

M, L, C, Z = "M", "L", "C", "Z"


def ops(*items: tuple) -> tuple[PathOp, ...]:
    return tuple(PathOp(op, tuple(float(v) for v in pts)) for op, *pts in items)


def approx_ops(got: tuple[PathOp, ...], want: tuple[PathOp, ...], tol: float = 1e-9) -> None:
    assert [o.op for o in got] == [o.op for o in want]
    for g, w in zip(got, want, strict=True):
        assert g.pts == pytest.approx(w.pts, abs=tol), (g, w)


def cubic_point(p0: tuple[float, float], c: tuple[float, ...], t: float) -> tuple[float, float]:
    x1, y1, x2, y2, x3, y3 = c
    u = 1 - t
    x = u**3 * p0[0] + 3 * u * u * t * x1 + 3 * u * t * t * x2 + t**3 * x3
    y = u**3 * p0[1] + 3 * u * u * t * y1 + 3 * u * t * t * y2 + t**3 * y3
    return x, y


# --- command families ---------------------------------------------------------


def test_empty_path() -> None:
    assert parse_path("") == ()
    assert parse_path("  \n\t ") == ()


def test_pathop_fields() -> None:
    (op,) = parse_path("M 1 2")
    assert op.op == "M" and op.pts == (1.0, 2.0)
    assert op == PathOp("M", (1.0, 2.0))


def test_move_line_close_absolute() -> None:
    assert parse_path("M 10 20 L 30 40 L 50 60 Z") == ops(
        (M, 10, 20), (L, 30, 40), (L, 50, 60), (Z,)
    )


def test_move_line_relative() -> None:
    assert parse_path("m 10 20 l 5 5 l -10 0 z") == ops(
        (M, 10, 20), (L, 15, 25), (L, 5, 25), (Z,)
    )


def test_implicit_lineto_after_moveto() -> None:
    assert parse_path("M 1 2 3 4 5 6") == ops((M, 1, 2), (L, 3, 4), (L, 5, 6))
    assert parse_path("m 1 2 3 4 5 6") == ops((M, 1, 2), (L, 4, 6), (L, 9, 12))


def test_implicit_repeat_of_other_commands() -> None:
    assert parse_path("M0 0 L1 1 2 2") == ops((M, 0, 0), (L, 1, 1), (L, 2, 2))
    assert parse_path("M0 0 h 1 2 v 3 4") == ops(
        (M, 0, 0), (L, 1, 0), (L, 3, 0), (L, 3, 3), (L, 3, 7)
    )
    assert parse_path("M0 0 C1 1 2 2 3 3 4 4 5 5 6 6") == ops(
        (M, 0, 0), (C, 1, 1, 2, 2, 3, 3), (C, 4, 4, 5, 5, 6, 6)
    )


def test_horizontal_vertical() -> None:
    assert parse_path("M 10 10 H 20 V 30 H 5 V 0") == ops(
        (M, 10, 10), (L, 20, 10), (L, 20, 30), (L, 5, 30), (L, 5, 0)
    )
    assert parse_path("M 10 10 h 20 v 30 h -5 v -40") == ops(
        (M, 10, 10), (L, 30, 10), (L, 30, 40), (L, 25, 40), (L, 25, 0)
    )


def test_cubic_absolute_and_relative() -> None:
    assert parse_path("M 0 0 C 10 0 20 10 20 20") == ops((M, 0, 0), (C, 10, 0, 20, 10, 20, 20))
    assert parse_path("M 5 5 c 10 0 20 10 20 20") == ops((M, 5, 5), (C, 15, 5, 25, 15, 25, 25))


def test_smooth_cubic_reflects_previous_control_point() -> None:
    assert parse_path("M 0 0 C 0 10 10 10 10 0 S 20 -10 20 0") == ops(
        (M, 0, 0), (C, 0, 10, 10, 10, 10, 0), (C, 10, -10, 20, -10, 20, 0)
    )
    assert parse_path("M 0 0 C 0 10 10 10 10 0 s 10 -10 10 0") == ops(
        (M, 0, 0), (C, 0, 10, 10, 10, 10, 0), (C, 10, -10, 20, -10, 20, 0)
    )


def test_smooth_cubic_without_previous_cubic_uses_current_point() -> None:
    assert parse_path("M 5 5 S 10 10 20 5") == ops((M, 5, 5), (C, 5, 5, 10, 10, 20, 5))
    # a line in between breaks the reflection
    assert parse_path("M 0 0 C 1 1 2 2 3 3 L 4 4 S 5 5 6 6") == ops(
        (M, 0, 0), (C, 1, 1, 2, 2, 3, 3), (L, 4, 4), (C, 4, 4, 5, 5, 6, 6)
    )


def test_quadratic_becomes_exact_cubic() -> None:
    # control points at 2/3 of the way to the quadratic control point
    assert parse_path("M 0 0 Q 30 60 60 0") == ops((M, 0, 0), (C, 20, 40, 40, 40, 60, 0))
    assert parse_path("M 0 0 q 30 60 60 0") == ops((M, 0, 0), (C, 20, 40, 40, 40, 60, 0))


def test_smooth_quadratic() -> None:
    assert parse_path("M 0 0 Q 30 60 60 0 T 120 0") == ops(
        (M, 0, 0), (C, 20, 40, 40, 40, 60, 0), (C, 80, -40, 100, -40, 120, 0)
    )
    assert parse_path("M 0 0 Q 30 60 60 0 t 60 0") == parse_path("M 0 0 Q 30 60 60 0 T 120 0")
    # T without a previous quadratic is a straight (degenerate) curve
    assert parse_path("M 0 0 T 30 0") == ops((M, 0, 0), (C, 0, 0, 10, 0, 30, 0))


def test_close_returns_to_subpath_start() -> None:
    got = parse_path("M 10 10 L 20 10 Z l 0 5 M 50 50 l 1 1 z l 2 2")
    assert got == ops(
        (M, 10, 10), (L, 20, 10), (Z,), (L, 10, 15), (M, 50, 50), (L, 51, 51), (Z,), (L, 52, 52)
    )


def test_relative_moveto_after_close() -> None:
    assert parse_path("M 10 10 l 5 0 z m 1 1") == ops((M, 10, 10), (L, 15, 10), (Z,), (M, 11, 11))


def test_first_relative_moveto_is_absolute() -> None:
    assert parse_path("m 3 4") == ops((M, 3, 4))


# --- number syntax ------------------------------------------------------------


@pytest.mark.parametrize(
    ("d", "want"),
    [
        ("M1e-3 2E2", (0.001, 200.0)),
        ("M-.5.5", (-0.5, 0.5)),
        ("M1.5.5", (1.5, 0.5)),
        ("M+1-2", (1.0, -2.0)),
        ("M 1,2", (1.0, 2.0)),
        ("M1 , 2", (1.0, 2.0)),
        ("M\t1\n2\r", (1.0, 2.0)),
        ("M1.e1 2", (10.0, 2.0)),
        ("M3e+1-4e-1", (30.0, -0.4)),
    ],
)
def test_number_forms(d: str, want: tuple[float, float]) -> None:
    assert parse_path(d) == (PathOp("M", want),)


def test_compact_everything() -> None:
    assert parse_path("M0,0L10-10h5v.5z") == ops(
        (M, 0, 0), (L, 10, -10), (L, 15, -10), (L, 15, -9.5), (Z,)
    )


def test_exponent_letter_is_not_a_command() -> None:
    # "e" is never a path command, but "1e" without digits is a malformed path
    with pytest.raises(PathError):
        parse_path("M 1e 2")


# --- arcs ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("d", "end"),
    [
        ("M 0 0 A 10 10 0 0 1 10 10", (10, 10)),
        ("M 0 0 A 10 10 0 1 1 10 10", (10, 10)),
        ("M 0 0 A 10 10 0 0 0 10 10", (10, 10)),
        ("M 0 0 A 10 10 0 1 0 10 10", (10, 10)),
        ("M 3 7 A 25 10 30 1 1 41.5 -12.25", (41.5, -12.25)),
        ("M 3 7 a 25 10 -30 0 0 41.5 -12.25", (44.5, -5.25)),
        ("M 0.1 0.7 A 3 3 0 1 1 0.3 0.9", (0.3, 0.9)),
        ("M 0 0 A 1 1 0 0 1 100 0", (100, 0)),  # radii too small: scaled up
    ],
)
def test_arc_lands_exactly_on_endpoint(d: str, end: tuple[float, float]) -> None:
    got = parse_path(d)
    assert got[0].op == "M"
    assert len(got) > 1 and all(o.op == "C" for o in got[1:])
    assert got[-1].pts[-2:] == end  # exact, not approximate


def test_arc_segments_are_at_most_90_degrees() -> None:
    # a 270 degree arc of a circle of radius 10 centred at the origin
    got = parse_path("M 10 0 A 10 10 0 1 1 0 -10")
    assert len(got) == 1 + 3
    half = parse_path("M 10 0 A 10 10 0 0 1 -10 0")
    assert len(half) == 1 + 2
    quarter = parse_path("M 10 0 A 10 10 0 0 1 0 10")
    assert len(quarter) == 1 + 1


def test_quarter_circle_arc_exact_controls() -> None:
    k = 4 / 3 * math.tan(math.pi / 8) * 10  # 5.5228...
    got = parse_path("M 10 0 A 10 10 0 0 1 0 10")
    approx_ops(got, ops((M, 10, 0), (C, 10, k, k, 10, 0, 10)))


@pytest.mark.parametrize("r", [1.0, 10.0, 44.0, 1000.0])
def test_quarter_circle_midpoint_within_tenth_of_a_percent(r: float) -> None:
    got = parse_path(f"M {r} 0 A {r} {r} 0 0 1 0 {r}")
    (_, curve) = got
    mx, my = cubic_point((r, 0.0), curve.pts, 0.5)
    assert abs(math.hypot(mx, my) - r) <= 0.001 * r
    # and the midpoint is at 45 degrees
    assert mx == pytest.approx(my)


def test_full_circle_from_two_arcs_stays_on_circle() -> None:
    r = 30.0
    got = parse_path(f"M {50 - r} 50 A {r} {r} 0 1 0 {50 + r} 50 A {r} {r} 0 1 0 {50 - r} 50 Z")
    assert len(got) == 1 + 4 + 1
    p = got[0].pts
    for op in got[1:-1]:
        for i in range(1, 10):
            x, y = cubic_point(p, op.pts, i / 10)
            assert abs(math.hypot(x - 50, y - 50) - r) <= 0.001 * r
        p = op.pts[-2:]


def test_arc_sweep_flag_picks_side() -> None:
    # from (0,0) to (20,0) on radius 10: a half circle either below (sweep=1,
    # y down) or above (sweep=0)
    below = parse_path("M 0 0 A 10 10 0 0 0 20 0")
    above = parse_path("M 0 0 A 10 10 0 0 1 20 0")
    mid_below = cubic_point((0, 0), below[1].pts, 1.0)
    mid_above = cubic_point((0, 0), above[1].pts, 1.0)
    assert mid_below == pytest.approx((10, 10))
    assert mid_above == pytest.approx((10, -10))


def test_rotated_ellipse_arc_points_lie_on_ellipse() -> None:
    # ellipse rx=20, ry=10 rotated 30 degrees about (0, 0)
    phi = math.radians(30)

    def on(t: float) -> tuple[float, float]:
        ex, ey = 20 * math.cos(t), 10 * math.sin(t)
        return ex * math.cos(phi) - ey * math.sin(phi), ex * math.sin(phi) + ey * math.cos(phi)

    (x0, y0), (x1, y1) = on(0.2), on(2.4)
    got = parse_path(f"M {x0!r} {y0!r} A 20 10 30 0 1 {x1!r} {y1!r}")
    p = got[0].pts
    for op in got[1:]:
        for i in range(11):
            x, y = cubic_point(p, op.pts, i / 10)
            # back into the ellipse frame
            u = x * math.cos(phi) + y * math.sin(phi)
            v = -x * math.sin(phi) + y * math.cos(phi)
            assert math.hypot(u / 20, v / 10) == pytest.approx(1.0, abs=1e-3)
        p = op.pts[-2:]


def test_arc_degenerate_cases() -> None:
    # zero radius: straight line
    assert parse_path("M 0 0 A 0 5 0 0 1 10 10") == ops((M, 0, 0), (L, 10, 10))
    # same end point as start: omitted
    assert parse_path("M 5 5 A 5 5 0 0 1 5 5") == ops((M, 5, 5))
    # negative radii are taken as absolute values
    assert parse_path("M 0 0 A -10 -10 0 0 1 10 10") == parse_path("M 0 0 A 10 10 0 0 1 10 10")


def test_arc_compact_flags() -> None:
    # flags need no separator: "a10 10 0 0110 10" == flags 0,1 then 10 10
    assert parse_path("M0 0a10 10 0 0110 10") == parse_path("M0 0 a 10 10 0 0 1 10 10")


def test_arc_relative() -> None:
    assert parse_path("M 10 10 a 10 10 0 0 1 10 10") == transform(
        parse_path("M 0 0 A 10 10 0 0 1 10 10"), 1, 1, 10, 10
    )


# --- errors -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("d", "offset", "message"),
    [
        ("M 1 2 L", 7, "at char 7: expected a number after 'L'"),
        ("M 1 2 L 3 x", 10, "at char 10: expected a number after 'L'"),
        ("L 1 2", 0, "at char 0: expected a moveto command 'M' or 'm'"),
        ("  10 10", 2, "at char 2: expected a moveto command"),
        ("M 1 2 C 1 2 3 4 5", 17, "at char 17: expected a number after 'C'"),
        ("M 1 2 X 3 4", 6, "at char 6: expected a number or a path command letter"),
        ("M 1 2 #", 6, "at char 6: expected a number or a path command letter"),
        ("M 1 2 Z 3 4", 8, "at char 8: expected a path command letter"),
        ("M 1,,2", 4, "at char 4: expected a number after 'M'"),
        ("M 1 2,", 6, "at char 6: expected a number after 'M'"),
        ("M 1 2, L 3 4", 7, "at char 7: expected a number after 'M'"),
        ("M 0 0 A 5 5 0 2 1 3 3", 14, "at char 14: expected a large-arc flag (0 or 1)"),
        ("M 0 0 A 5 5 0 1 x 3 3", 16, "at char 16: expected a sweep flag (0 or 1)"),
        ("M 0 0 a 5 5", 11, "at char 11: expected a number after 'a'"),
        ("M .", 2, "at char 2: expected a number after 'M'"),
        ("M -", 2, "at char 2: expected a number after 'M'"),
    ],
)
def test_errors_name_offset_and_expectation(d: str, offset: int, message: str) -> None:
    with pytest.raises(PathError) as info:
        parse_path(d)
    assert str(info.value).startswith(message)
    assert info.value.offset == offset


def test_path_error_is_value_error() -> None:
    assert issubclass(PathError, ValueError)
    with pytest.raises(ValueError, match="at char"):
        parse_path("M 1")


def test_error_says_what_was_found() -> None:
    with pytest.raises(PathError, match="found end of data"):
        parse_path("M 1 2 L 3")
    with pytest.raises(PathError, match="found 'x'"):
        parse_path("M 1 2 L x")


def test_non_string_rejected() -> None:
    with pytest.raises(PathError):
        parse_path(None)  # type: ignore[arg-type]


# --- transform and bbox ---------------------------------------------------------


def test_transform_scales_then_translates() -> None:
    src = parse_path("M 0 0 L 10 20 C 1 2 3 4 5 6 Z")
    assert transform(src, 2, -1, 100, 50) == ops(
        (M, 100, 50), (L, 120, 30), (C, 102, 48, 106, 46, 110, 44), (Z,)
    )
    assert transform(src, 1, 1, 0, 0) == src
    assert transform(iter(src)) == src


def test_bbox_covers_control_points() -> None:
    assert bbox(parse_path("M 10 20 L 30 5 C 0 50 40 60 25 25 Z")) == (0, 5, 40, 60)
    assert bbox(parse_path("M 1 1")) == (1, 1, 1, 1)
    with pytest.raises(ValueError):
        bbox(())


def test_bbox_follows_transform() -> None:
    src = parse_path("M 0 0 L 100 100")
    assert bbox(transform(src, 0.1, -0.1, 5, 20)) == pytest.approx((5, 10, 15, 20))


# --- property: round trip -------------------------------------------------------

coords = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)
point = st.tuples(coords, coords)


@st.composite
def absolute_paths(draw: st.DrawFn) -> tuple[str, tuple[PathOp, ...]]:
    """A random path of absolute M/L/C/Z commands, as text and expected ops."""
    parts: list[str] = []
    want: list[PathOp] = []
    seps = st.sampled_from([" ", ",", " , ", "\n", "  "])
    gaps = st.sampled_from(["", " ", "\t"])  # no comma right after a command
    for _ in range(draw(st.integers(min_value=1, max_value=4))):  # subpaths
        x, y = draw(point)
        parts.append(f"M{draw(gaps)}{x!r}{draw(seps)}{y!r}")
        want.append(PathOp("M", (x, y)))
        for _ in range(draw(st.integers(min_value=0, max_value=6))):
            if draw(st.booleans()):
                x, y = draw(point)
                parts.append(f"L {x!r}{draw(seps)}{y!r}")
                want.append(PathOp("L", (x, y)))
            else:
                pts = draw(st.tuples(coords, coords, coords, coords, coords, coords))
                parts.append("C " + draw(seps).join(repr(v) for v in pts))
                want.append(PathOp("C", pts))
        if draw(st.booleans()):
            parts.append("Z")
            want.append(PathOp("Z", ()))
    return " ".join(parts), tuple(want)


@given(absolute_paths())
def test_random_absolute_paths_round_trip(case: tuple[str, tuple[PathOp, ...]]) -> None:
    text, want = case
    got = parse_path(text)
    assert got == want
    assert parse_path(format_path(got)) == got


@given(absolute_paths(), coords, coords)
def test_bbox_moves_with_translation(
    case: tuple[str, tuple[PathOp, ...]], dx: float, dy: float
) -> None:
    _, want = case
    x0, y0, x1, y1 = bbox(want)
    tx0, ty0, tx1, ty1 = bbox(transform(want, 1, 1, dx, dy))
    assert (tx0, ty0, tx1, ty1) == pytest.approx((x0 + dx, y0 + dy, x1 + dx, y1 + dy))


@given(st.text(alphabet="MmLlHhVvCcSsQqTtAaZz0123456789.,-+eE \n", max_size=60))
def test_any_text_parses_or_raises_path_error(text: str) -> None:
    try:
        got = parse_path(text)
    except PathError as exc:
        assert str(exc).startswith("at char ")
        assert exc.offset is not None and 0 <= exc.offset <= len(text)
    else:
        assert all(op.op in "MLCZ" for op in got)
        assert all(len(op.pts) == {"M": 2, "L": 2, "C": 6, "Z": 0}[op.op] for op in got)
        assert all(math.isfinite(v) for op in got for v in op.pts)


small = st.floats(min_value=-1000, max_value=1000, allow_nan=False, allow_infinity=False)
# zero (a straight line) or a sane radius: a radius near 1e-308 against an end point 1
# unit away scales the other radius past the float range, which is reported as an error
radius = st.just(0.0) | st.floats(min_value=1e-3, max_value=1000)


@given(small, small, radius, radius, small, st.booleans(), st.booleans(), small, small)
def test_random_arcs_end_exactly_in_at_most_four_pieces(
    x0: float,
    y0: float,
    rx: float,
    ry: float,
    rot: float,
    large: bool,
    sweep: bool,
    x1: float,
    y1: float,
) -> None:
    d = f"M {x0!r} {y0!r} A {rx!r} {ry!r} {rot!r} {int(large)} {int(sweep)} {x1!r} {y1!r}"
    got = parse_path(d)
    assert got[0] == PathOp("M", (x0, y0))
    if (x0, y0) == (x1, y1):
        assert len(got) == 1
        return
    assert 2 <= len(got) <= 5
    assert got[-1].pts[-2:] == (x1, y1)
    assert all(math.isfinite(v) for op in got for v in op.pts)


@pytest.mark.parametrize(
    ("d", "message"),
    [
        ("M 0 0 L 1e308 0 l 1e308 0", "at char 16: coordinates out of range"),
        ("M 1e999 0", "at char 2: number out of range"),
        ("M 1e308 0 A 5 5 0 0 1 -1e308 0", "at char 10: arc out of range"),
    ],
)
def test_out_of_range_numbers(d: str, message: str) -> None:
    with pytest.raises(PathError, match=message):
        parse_path(d)
