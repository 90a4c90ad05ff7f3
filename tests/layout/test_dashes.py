"""Dashed strokes cost their dashes (attack 14, F3): PDFium cuts a dashed stroke into dashes each
time it draws it, even where the piece clips it away, so a template's dashed line is charged to
the shape budget by its length over the dash's period (pnp.layout.cost.DASHES_PER_SHAPE), and
SVG art's dashed strokes to the pixel budget as drawn (pnp.layout.svg_cost.ArtCost)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from conftest import assert_no_traceback, run_cli
from test_layout import item, make_game

from pnp.layout.cost import DASHES_PER_SHAPE, weight
from pnp.layout.primitives import Ellipse, Line, Paint, Rect
from pnp.layout.primitives import Path as PathPrim
from pnp.layout.svg import svg_art, svg_cost, svg_shapes
from pnp.layout.svg_cost import MIN_DASH_PERIOD, STROKE_SHAPES_PER_SIDE, STROKED_VERTEX_SHAPES, SVG_DASHES_PER_SHAPE

DASHED = Paint(stroke="#000000", stroke_width=0.3, dash=(0.1, 0.1))
# attack 14, F3: 1,000 lines of 4 m, each dashed [0.1, 0.1] pt, on a 63 mm card: 13 s of CPU a piece
# in `export png` (113 million dashes) where `check` charged 1,000 shapes
F3 = {"type": "repeat", "count": 1000, "step": [0, 0.05], "elements": [
    {"type": "line", "from": [-2000, 5], "to": [2000, 5], "stroke": "ink", "stroke_width": 0.3, "dash": [0.1, 0.1]}]}
NAME = {"type": "text", "box": [5, 5, 50, 8], "text": "{name}", "style": "body"}


def test_a_dashed_stroke_counts_its_length_over_its_period() -> None:
    """A line 1 plus one for each DASHES_PER_SHAPE dashes; a rectangle and an ellipse by their
    box's outline, a path by its segments (a curve by its control polygon); a dash drawn by no
    stroke (no colour, or width 0) costs nothing; a short dashed line nothing more than a line."""
    assert DASHES_PER_SHAPE == 40
    assert weight([Line(0, 0, 4000, 0, DASHED)]) == 1 + 20_000 // 40  # 4000 pt / 0.2
    assert weight([Line(0, 0, 3000, 4000, DASHED)]) == 1 + 25_000 // 40  # 5000 pt long, slanted
    assert weight([Line(0, 0, 7.9, 0, DASHED)]) == 1  # 39 dashes
    assert weight([Line(0, 0, 4000, 0, Paint(stroke=None, dash=(0.1, 0.1)))]) == 1
    assert weight([Line(0, 0, 4000, 0, Paint(stroke="#000000", stroke_width=0, dash=(0.1, 0.1)))]) == 1
    assert weight([Line(0, 0, 4000, 0, Paint(stroke="#000000", stroke_width=0.3))]) == 1  # solid
    assert weight([Rect(0, 0, 1000, 1000, DASHED)]) == 1 + 20_000 // 40
    assert weight([Ellipse(0, 0, 1000, 1000, DASHED)]) == 4 + 20_000 // 40
    square = PathPrim((("M", (0.0, 0.0)), ("L", (1000.0, 0.0)), ("C", (1000.0, 500.0, 1000.0, 500.0, 1000.0, 1000.0)),
                       ("L", (0.0, 1000.0)), ("Z", ())), DASHED)
    assert weight([square]) == 1 + 2 * 5 // 5 + 20_000 // 40


def _check(root: Path, monkeypatch: pytest.MonkeyPatch, *args: str):
    monkeypatch.chdir(root)
    r = run_cli(*args)
    assert_no_traceback(r)
    return r


def test_check_refuses_a_template_whose_dashes_would_choke_the_rasteriser(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """F3's template: `check` and `build` stop at the line with exit 2, within the budget's
    usual message saying what a dash costs; nothing is written."""
    root = tmp_path / "root"
    make_game(root, [NAME, F3], [item(name="Scout")])
    r = _check(root, monkeypatch, "check", "mini")
    assert r.exit_code == 2, r.stderr
    first = r.stderr.splitlines()[0]
    assert first.startswith("templates/mini/front.json:")
    assert ": $.elements[1].elements[0]: the pieces this command lays out draw more than " in first
    assert f"a dashed stroke 1 more for each {DASHES_PER_SHAPE} dashes (its length over the dash's period)" in first
    assert "shorter dashed strokes or longer dashes" in first
    out = tmp_path / "out"
    b = _check(root, monkeypatch, "build", "mini", "--out", str(out))
    assert b.exit_code == 2 and "shapes together (pnp's budget)" in b.stderr, b.stderr
    assert not out.exists()


@pytest.mark.parametrize("line", [
    {**F3["elements"][0], "dash": None},  # the same 1,000 lines solid
    {**F3["elements"][0], "from": [3, 5], "to": [60, 5]},  # dashed across the card
])
def test_lines_that_draw_few_dashes_pass(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line: dict) -> None:
    line = {k: v for k, v in line.items() if v is not None}
    root = tmp_path / "root"
    make_game(root, [NAME, {**F3, "elements": [line]}], [item(name="Scout")])
    r = _check(root, monkeypatch, "check", "mini")
    assert r.exit_code == 0, r.stderr


def _svg(path: Path, body: str) -> str:
    path.write_text(f'<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100" viewBox="0 0 100 100">{body}'
                    '</svg>', encoding="utf-8")
    svg_art(str(path), path.name)
    return str(path)


def test_svg_dashes_count_where_the_rasteriser_dashes_them(tmp_path: Path) -> None:
    """Each dashed stroke counts its dashes (length over period, an odd dash list repeated),
    SVG_DASHES_PER_SHAPE a shape, where its period drawn is at least MIN_DASH_PERIOD pt (PDFium
    strokes a finer dash solid), its groups' transforms counted. (Each 1,000-unit line in the
    100-unit art also runs 10 of the art's sides: STROKE_SHAPES_PER_SIDE shapes each.)"""
    run = 10 * STROKE_SHAPES_PER_SIDE
    assert SVG_DASHES_PER_SHAPE == 20 and 0.004 < MIN_DASH_PERIOD < 0.005
    solid = _svg(tmp_path / "solid.svg", '<line x1="0" y1="5" x2="1000" y2="5" stroke="#000" stroke-width="1"/>')
    assert svg_cost(solid).at(None) == svg_cost(solid).at(1.0) == 2 + run  # a stroked shape
    dashed = _svg(tmp_path / "dashed.svg",
                  '<line x1="0" y1="5" x2="1000" y2="5" stroke="#000" stroke-width="1" stroke-dasharray="0.5"/>')
    assert svg_cost(dashed).at(1.0) == svg_cost(dashed).at(None) == 2 + run + 1000 // 20  # period 1: 1,000 dashes
    assert svg_cost(dashed).at(0.004) == 2 + run  # drawn at 0.004 pt a unit: a period of 0.004 pt, solid to PDFium
    fine = _svg(tmp_path / "fine.svg", '<g transform="scale(1000)"><line x1="0" y1="0.005" x2="1" y2="0.005" '
                'stroke="#000" stroke-width="0.001" stroke-dasharray="0.0000152587890625"/></g>')  # 2**-16
    assert svg_cost(fine).at(1.0) == 2 + run + 32_768 // 20  # a period of 2**-15 x 750 = 0.023 pt a unit: dashed
    assert svg_cost(fine).at(0.1) == 2 + run and svg_cost(fine).at(None) == 2 + run + 32_768 // 20
    unstroked = _svg(tmp_path / "unstroked.svg", '<rect x="0" y="0" width="100" height="100" stroke-dasharray="0.1"/>')
    assert svg_cost(unstroked).at(1.0) == 1 + 4 * STROKE_SHAPES_PER_SIDE  # no dashes; its fill's outline runs 4 sides


def test_svg_strokes_count_the_lengths_they_run(tmp_path: Path) -> None:
    """PDFium strokes a path at 10-16 µs for each length of the art's side it runs, at any dpi
    (attack 17, F1: one path of 54,000 arcs took 0.9-1.4 s a drawing and counted 45 ms): a
    stroke counts STROKE_SHAPES_PER_SIDE shapes for each side's length, in the time a drawing
    costs (``ArtCost.at``), not in what a rasteriser holds (``svg_shapes``); a fill's outline as much."""
    zigzag = "".join(" L100 100 L0 0" for _ in range(500))  # 1,000 diagonals of 141 units
    stroked = _svg(tmp_path / "zig.svg", f'<path d="M0 0{zigzag}" stroke="#000" stroke-width="1" fill="none"/>')
    runs = int(1000 * 100 * 2 ** 0.5 / 100 * STROKE_SHAPES_PER_SIDE)
    joins = 1001 * STROKED_VERTEX_SHAPES  # and a join at each vertex (the move and 1,000 lines)
    assert svg_cost(stroked).at(1.0) == svg_cost(stroked).at(None) == svg_shapes(stroked) + runs + joins
    filled = _svg(tmp_path / "fill.svg", f'<path d="M0 0{zigzag}" fill="#000"/>')
    assert svg_cost(filled).at(1.0) - svg_shapes(filled) == runs  # its outline (attack 18, F1: 120,000 edges)
    both = _svg(tmp_path / "both.svg", f'<path d="M0 0{zigzag}" fill="#000" stroke="#000" stroke-width="1"/>')
    assert svg_cost(both).at(1.0) - svg_shapes(both) >= 2 * runs + joins  # filled and stroked: both


def test_a_stroked_path_counts_a_join_at_every_vertex(tmp_path: Path) -> None:
    """PDFium builds a join at every vertex of a stroke (attack 18, F1: 120,000 segments of 0.14
    units stroked 3 wide with round joins, ~0.6 s a drawing, counted 20,000 shapes): each vertex
    counts STROKED_VERTEX_SHAPES in the time a drawing costs; the same path filled does not."""
    tiny = "l.1 .1 l-.1 -.1 " * 500  # 1,000 vertices, 141 units of outline in all
    stroked = _svg(tmp_path / "s.svg", f'<path d="M50 50 {tiny}" fill="none" stroke="#000" stroke-width="3"/>')
    joins = svg_cost(stroked).at(1.0) - svg_shapes(stroked) - int(1000 * 0.1 * 2 ** 0.5 / 100 * STROKE_SHAPES_PER_SIDE)
    assert joins == 1001 * STROKED_VERTEX_SHAPES  # the move and 1,000 lines
    filled = _svg(tmp_path / "f.svg", f'<path d="M50 50 {tiny}" fill="#000"/>')
    assert svg_cost(filled).at(1.0) - svg_shapes(filled) < 1001


@pytest.mark.parametrize("stops", [2, 8])
def test_a_gradient_fill_counts_its_shading(tmp_path: Path, stops: int) -> None:
    """PDFium sets up a shading for every shape a gradient fills, whatever its size (3,000
    half-unit rectangles of a radial gradient: 78 ms a drawing at any dpi, 26-34 µs a fill, where
    they counted 2 shapes, 5 µs): each counts GRADIENT_SHAPES and one a stop more in the time a
    drawing costs (``ArtCost.at``), not in what a rasteriser holds (``svg_shapes``); the same
    rectangles in a solid colour count nothing more."""
    from pnp.layout.svg_cost import GRADIENT_SHAPES

    grad = "".join(f'<stop offset="{i / (stops - 1)}" stop-color="{("#00f", "#f00")[i % 2]}"/>' for i in range(stops))
    defs = f'<defs><radialGradient id="g">{grad}</radialGradient><linearGradient id="h">{grad}</linearGradient></defs>'

    def rects(fill: str) -> str:
        return "".join(f'<rect x="{i % 60}" y="{i // 60}" width=".5" height=".5" fill="{fill}"/>' for i in range(300))
    solid = _svg(tmp_path / "solid.svg", defs + rects("#0f0"))
    for name, fill in (("radial", "url(#g)"), ("linear", "url(#h)")):
        shaded = _svg(tmp_path / f"{name}.svg", defs + rects(fill))
        extra = (svg_cost(shaded).at(1.0) - svg_shapes(shaded)) - (svg_cost(solid).at(1.0) - svg_shapes(solid))
        assert extra == 300 * (GRADIENT_SHAPES + stops), (fill, extra)


def test_svg_edges_are_a_fills_outline_and_a_strokes_two_sides(tmp_path: Path) -> None:
    """PDFium builds cells along every edge its rasteriser is given, at the dpi, however thin the
    stroke (1,000 random segments stroked 0.3 mm wide: 173 ms a card at 600 dpi, where the area
    they paint counted a few ms): ``ArtCost.edges_at`` is a fill's outline once, a stroke's twice, and a
    round join's outline at every vertex of a stroked path, in the art's pt."""

    zigzag = "".join(" L100 100 L0 0" for _ in range(500))  # 1,000 diagonals
    filled = _svg(tmp_path / "fill.svg", f'<path d="M0 0{zigzag}" fill="#000"/>')
    unit = svg_art(filled, "fill.svg")[0] / 100  # pt a unit (svglib reads the file's 100 px as 75 pt)
    diagonals = 1000 * 100 * 2 ** 0.5 * unit
    assert svg_cost(filled).edges_at(None) == pytest.approx(diagonals)
    stroked = _svg(tmp_path / "s.svg", f'<path d="M0 0{zigzag}" fill="none" stroke="#000" stroke-width="0.5"/>')
    joins = 1001 * math.pi * 0.5 * unit  # the move and 1,000 lines
    assert svg_cost(stroked).edges_at(None) == pytest.approx(2 * diagonals + joins)
    rects = _svg(tmp_path / "r.svg", "".join('<rect x="1" y="1" width="10" height="5" fill="#f00"/>' for _ in range(7)))
    assert svg_cost(rects).edges_at(None) == pytest.approx(7 * 30 * unit)


def test_template_edges_count_at_the_export_dpi(tmp_path: Path) -> None:
    """A template's thin strokes cost their edges too (1,000 lines 0.3 mm wide down a card: about
    65 ms a card at 300 dpi, where their area counted 4 ms): ``pnp.layout.cost.edges`` is a
    stroke's two sides and a fill's outline, and the budget counts them at the dpi
    (``ArtWork.painted_at``: EDGE_WEIGHT weighted painted pixels a pixel of edge)."""
    from pnp.layout.cost import edges
    from pnp.render.pixels import EDGE_WEIGHT, ArtWork

    thin = Paint(stroke="#000000", stroke_width=0.85)
    lines = [Line(i * 0.17, 0, i * 0.17 + 17, 249, thin) for i in range(1000)]
    length = 1000 * math.hypot(17, 249)
    assert edges(lines) == pytest.approx(2 * length)
    assert edges([Rect(0, 0, 10, 20, Paint(fill="#ff0000"))]) == pytest.approx(60)
    assert edges([Rect(0, 0, 10, 20, Paint(fill="#ff0000", stroke="#000000", stroke_width=1))]) == pytest.approx(180)
    art = ArtWork(edged=int(edges(lines)))
    assert abs(art.painted_at(300) - 2 * length * 300 / 72 * EDGE_WEIGHT) <= 300 / 72 * EDGE_WEIGHT + 1
    assert art.painted_at(600) == pytest.approx(2 * art.painted_at(300), rel=1e-6)  # linear in the dpi


def test_a_dashs_ends_count_as_edges(tmp_path: Path) -> None:
    """Each dash of a wide stroke has two ends a width long, and caps (attack 21: SVG dashes of
    round caps 60 units wide cost 8-18 times their count, template lines 100 pt wide dashed
    [0.1, 0.1] 16-200 times): a dash adds DASH_END_WIDTHS widths of edge, where it is drawn as a
    dash (a period under MIN_DASH_PERIOD as drawn is a solid line to PDFium)."""
    from pnp.layout.cost import dashes, edges
    from pnp.layout.svg_cost import DASH_END_WIDTHS

    wide = Paint(stroke="#000000", stroke_width=100, dash=(0.1, 0.1))
    line = Line(0, 0, 300, 400, wide)
    assert dashes(line) == 2500
    assert edges([line]) == pytest.approx(2 * 500 + 2500 * DASH_END_WIDTHS * 100)
    art = _svg(tmp_path / "d.svg", '<path d="M0 50 L100 50" fill="none" stroke="#000" stroke-width="20" '
               'stroke-dasharray="1 1" stroke-linecap="round"/>')
    unit = svg_art(art, "d.svg")[0] / 100
    sides = 2 * 100 * unit + 2 * math.pi * 20 * unit  # and a join at each of its two points
    assert svg_cost(art).edges_at(1.0) == pytest.approx(sides + 50 * DASH_END_WIDTHS * 20 * unit)
    assert svg_cost(art).edges_at(MIN_DASH_PERIOD / 10) == pytest.approx(sides)  # drawn so small the dashes are solid


def test_svg_edges_outside_the_art_are_not_counted(tmp_path: Path) -> None:
    """The art is a form whose box clips it, and the rasteriser clips each edge to the box before
    it builds cells: a stray point at 1e6 units counted its whole way there (attack 21: art with
    far-off points counted 10^5 times what it took). An edge counts the part of it in the box."""

    square = _svg(tmp_path / "in.svg", '<path d="M10 10 L90 10 L90 90 L10 90 Z" fill="#000"/>')
    unit = svg_art(square, "in.svg")[0] / 100
    assert svg_cost(square).edges_at(None) == pytest.approx(320 * unit)
    stray = _svg(tmp_path / "out.svg", '<path d="M10 10 L90 10 L1000000 90 L10 90 Z" fill="#000"/>')
    # top 80, to the box's right side 10, back along the bottom from it 90, up the left 80
    assert svg_cost(stray).edges_at(None) == pytest.approx((80 + 10.0003 + 90 + 80) * unit, rel=1e-4)
    out = _svg(tmp_path / "half.svg", '<circle cx="100" cy="50" r="20" fill="#000"/>'
               '<line x1="-50" y1="50" x2="150" y2="50" stroke="#000"/>')
    # half the circle's box; the line's part, 2 sides
    assert svg_cost(out).edges_at(None) == pytest.approx((80 + 2 * 100) * unit)


def test_a_dash_array_of_many_entries_counts_every_dash(tmp_path: Path) -> None:
    """`0.01 0.01 ...` of 1,000 entries is 500 dashes a period of 10 units; it counted as one, the
    same as `0.01 9.99` (attack 22, F1: 30 cards took 44 s, counted "about 0 s")."""
    one = _svg(tmp_path / "one.svg", '<path d="M0 50 L100 50" fill="none" stroke="#000" stroke-width="3" '
               'stroke-dasharray="0.01 9.99"/>')
    many = _svg(tmp_path / "many.svg", '<path d="M0 50 L100 50" fill="none" stroke="#000" stroke-width="3" '
                f'stroke-dasharray="{" ".join(["0.01"] * 1000)}"/>')
    odd = _svg(tmp_path / "odd.svg", '<path d="M0 50 L100 50" fill="none" stroke="#000" stroke-width="3" '
               'stroke-dasharray="1 2 3"/>')  # repeats to 1 2 3 1 2 3: 3 dashes a period of 12
    from pnp.layout.svg_cost import DASH_END_WIDTHS

    unit = svg_art(one, "one.svg")[0] / 100
    end = DASH_END_WIDTHS * 3 * unit  # a dash's ends
    # 100 units: 10 periods of 500 dashes against 10 of one; each dash counted by its ends
    base = svg_cost(one).edges_at(1.0)
    assert svg_cost(many).edges_at(1.0) - base == pytest.approx((5000 - 10) * end, rel=1e-3)
    assert svg_cost(odd).edges_at(1.0) - base == pytest.approx((int(100 / 12 * 3) - 10) * end, rel=1e-3)
