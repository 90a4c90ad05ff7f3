"""The shape budget of one command (pnp.layout.cost): a template line that multiplies against
every item is refused by ``check`` before any piece is laid out, what only the data decides is
refused as it is laid out, within the budget, and the budget follows the input's bytes and is
shared by every game of the command (issue 19, attack4 F1 and F2)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import assert_no_traceback, run_cli
from test_layout import item, make_game

import pnp.layout.cost as cost
import pnp.plan.component as component
from pnp.input.templates import TemplateStore
from pnp.layout.cost import TEXT_COST, least_cost

RECTS = {"type": "repeat", "count": 4, "step": [0.1, 0], "elements": [
    {"type": "repeat", "count": 1000, "step": [0, 0.05], "elements": [
        {"type": "rect", "box": [1, 1, 1, 1], "fill": "#000000"}]}]}  # attack4 F1: 4,000 shapes a piece
TRACK_OF_TEXT = {"type": "track", "first": 1, "last": 1000, "path": [[0, 0], [60, 80], [0, 80], [60, 0]],
                 "size": [2, 2], "elements": [{"type": "text", "box": [0, 0, 2, 2], "text": "{value}",
                                               "fit": {"min_size": 1, "step": 0.05}, "size": 400}]}
NAME = {"type": "text", "box": [5, 5, 50, 8], "text": "{name}", "style": "body"}


def game(root: Path, n: int, heavy: dict, gid: str = "mini") -> Path:
    make_game(root, [NAME, heavy], [item(id=f"i{i}", name=f"Card {i}") for i in range(n)])
    if gid != "mini":
        (root / "card_data" / "mini").rename(root / "card_data" / gid)
        manifest = root / "card_data" / gid / "game.json"
        manifest.write_text(manifest.read_text().replace('"id": "mini"', f'"id": "{gid}"'))
    return root


class Layouts:
    """Counts the pieces laid out (fronts, backs, the edge sampler's) while a command runs."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        real = component.layout_piece

        def counted(*args, **kw):
            self.count += 1
            return real(*args, **kw)
        monkeypatch.setattr(component, "layout_piece", counted)


def refused_by_check(root: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Layouts]:
    """`pnp check mini` run in ``root``: exit 2 without a traceback, its first line naming the
    front template; that line, and the layouts counted from then on."""
    monkeypatch.chdir(root)
    layouts = Layouts(monkeypatch)
    r = run_cli("check", "mini")
    assert r.exit_code == 2, r.stderr
    assert_no_traceback(r)
    first = r.stderr.splitlines()[0]
    assert first.startswith("templates/mini/front.json:")
    return first, layouts


def test_least_cost_counts_what_every_piece_is_sure_to_draw(tmp_path: Path) -> None:
    els = [
        RECTS,  # 4 x 1000
        {"type": "rect", "box": [0, 0, 1, 1], "when": {"field": "name", "present": True}},  # not every piece
        {"type": "repeat", "count": "{power}", "step": [1, 0], "elements": [NAME]},  # a count from the data
        {"type": "group", "elements": [NAME, {"type": "text", "box": [0, 0, 9, 9], "text": "Power {power}"}]},
        TRACK_OF_TEXT,  # 1000 texts that are never empty: the track's own numbers
        {"type": "text", "box": [0, 0, 9, 9], "text": "x", "replace": [{"pattern": "x", "with": ""}]},
        {"type": "icon", "box": [0, 0, 9, 9], "name": "coin"},
    ]
    root = make_game(tmp_path, els, [item()])
    tpl = TemplateStore(root).get("mini/front")
    got = [n for _, n in least_cost(tpl)]
    shapes = tpl.icons["coin"]["shapes"]
    assert got == [4000, 0, 0, TEXT_COST, 1000 * TEXT_COST, 0, len(shapes)]


@pytest.mark.parametrize(("n", "heavy", "each"), [(1000, RECTS, "4000 shapes"), (10_000, RECTS, "4000 shapes"),
                                                  (300, TRACK_OF_TEXT, f"{1000 * TEXT_COST} shapes (counting "
                                                   f"{TEXT_COST} for each text it lays out)")],
                         ids=["F1", "F2", "track-of-text"])
def test_check_refuses_a_template_that_multiplies_against_every_item_before_laying_out(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, n: int, heavy: dict, each: str) -> None:
    """attack4 F1 (1,000 items, 64 KB: built in 33 s and 500 MB), F2 (10,000 items: check ran out
    of memory) and the track of 1,000 fitted texts on 300 items (9.4 s): exit 2 at the element,
    naming the budget, before a single piece is laid out."""
    first, layouts = refused_by_check(game(tmp_path / "root", n, heavy), monkeypatch)
    assert ": $.elements[1]: " in first
    assert f"this element draws at least {each} on each of {n} distinct pieces of component deck" in first
    assert "more than pnp's budget of" in first
    assert f"{cost.SHAPES_BASE} plus {cost.SHAPES_PER_BYTE:g} per byte of its games' manifests, data files" in first
    assert layouts.count == 0
    b = run_cli("build", "mini", "--out", tmp_path / "out", "--jobs", "1")
    assert b.exit_code == 2 and first in b.stderr and "nothing was written" in b.stderr
    assert not (tmp_path / "out").exists()
    assert layouts.count == 0


def test_what_the_data_decides_is_refused_as_it_is_laid_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """F2's template with a `when` on the repeat: no floor (some pieces may not draw it), so the
    pieces are charged as they are laid out, and the layout stops once the budget is spent, in
    check and in build alike (with bleed, the edge sampler's pass; without, the drawer's)."""
    monkeypatch.setattr(cost, "SHAPES_BASE", 20_000)  # a few pieces reach it
    heavy = {**RECTS, "when": {"field": "name", "present": True}}
    first, layouts = refused_by_check(game(tmp_path / "root", 200, heavy), monkeypatch)
    assert ": $.elements[1].elements[0].elements[0]: the pieces this command lays out draw more than " in first
    limit = int(first.split("draw more than ")[1].split()[0])
    assert 20_000 < limit < 20_000 + 20_000  # and about 100 bytes an item
    assert layouts.count <= limit // 4000 + 2  # fronts (and one back) up to the one over the budget
    for bleed in ("3", "0"):
        out = tmp_path / f"out{bleed}"
        b = run_cli("build", "mini", "--out", out, "--jobs", "1", "--bleed", bleed)
        assert b.exit_code == 2 and f"draw more than {limit} shapes together" in b.stderr, b.stderr
        assert not out.exists()


def test_the_budget_is_the_command_s_all_games_together(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two games each within the budget alone, over it together: `pnp check` of one passes, of
    both fails (a per-game or per-component allowance would multiply with the games)."""
    monkeypatch.setattr(cost, "SHAPES_BASE", 20_000)
    root = tmp_path / "root"
    game(root, 5, RECTS)  # 20,000 shapes, and about 3,000 bytes
    other = tmp_path / "other"
    game(other, 5, RECTS, gid="maxi")
    shutil.copytree(other / "card_data" / "maxi", root / "card_data" / "maxi")
    monkeypatch.chdir(root)
    assert run_cli("check", "mini").exit_code == 0
    assert run_cli("check", "maxi").exit_code == 0
    r = run_cli("check")
    assert r.exit_code == 2
    assert_no_traceback(r)
    assert r.stderr.count("more than pnp's budget") == 1  # maxi is checked first, and passes
    assert "this element draws at least 4000 shapes on each of 5 distinct pieces of component deck (game mini)" \
        in r.stderr
    assert "the pieces of this command come to at least 40" in r.stderr


def test_the_budget_follows_the_input_s_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same pieces pass once the input is large enough to pay for them: the limit is
    SHAPES_BASE plus SHAPES_PER_BYTE per byte of the manifest, data files and templates."""
    monkeypatch.setattr(cost, "SHAPES_BASE", 10_000)
    root = game(tmp_path / "root", 5, RECTS)  # 20,000 shapes and 5 names
    monkeypatch.chdir(root)
    r = run_cli("check", "mini")
    assert r.exit_code == 2
    files = [root / "card_data/mini/game.json", root / "card_data/mini/deck.json", root / "templates/mini/front.json"]
    size = sum(len(f.read_text()) for f in files)
    limit = 10_000 + int(size * cost.SHAPES_PER_BYTE)
    assert f"more than pnp's budget of {limit} (expected at most {limit} shapes" in r.stderr
    assert f"({size} bytes here)" in r.stderr
    deck = root / "card_data/mini/deck.json"
    data = json.loads(deck.read_text())
    data["description"] = "x" * 60_000  # a longer input pays for them
    deck.write_text(json.dumps(data))
    assert run_cli("check", "mini").exit_code == 0


def test_the_budget_has_a_ceiling(monkeypatch: pytest.MonkeyPatch) -> None:
    """However large the input, one command lays out at most SHAPES_MAX (check holds its layouts)."""
    t = cost.Tally()
    t.allow({"a": 10 ** 9})
    assert t.limit == cost.SHAPES_MAX
    assert cost.Tally().limit == cost.SHAPES_BASE
    assert t.edges.limit == cost.SHAPES_MAX and t.edges is t.edges and t.edges.edges is t.edges
    t.allow({"a": 10 ** 9})  # a file counts once
    assert t.bytes == 10 ** 9


def test_a_game_checked_again_in_one_session_is_charged_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A program (or a test) may check the same game again with one Session: the earlier check's
    charges are dropped, so the budget does not fill up with layouts no longer used."""
    from pnp.input.project import DataRoot
    from pnp.plan.session import Session
    from pnp.qa.check import check

    monkeypatch.setattr(cost, "SHAPES_BASE", 20_000)
    root = DataRoot(game(tmp_path / "root", 5, RECTS))  # 20,000 shapes of the 21,000 or so
    s = Session(root)
    used = []
    for _ in range(3):
        check(root, "mini", session=s)
        used.append(s.tally.used)
    assert used[0] > 20_000 and used == [used[0]] * 3
    assert s.tally.floor == 20_000  # the rectangles, once


def test_a_shape_counts_what_drawing_it_costs() -> None:
    """A square and a line count 1; a circle and a rounded rectangle 4; a path 1 plus 2 for every
    5 segments: 240,000 one-path icons of 39 segments, at 1 each, built in 31 s where as many
    squares took 2 s (docs/performance.md, Shape budget)."""
    from pnp.layout.cost import CURVED, weight
    from pnp.layout.primitives import Ellipse, Line, Paint, Rect
    from pnp.layout.primitives import Path as PathPrim

    paint = Paint(fill="#000000")
    seg = ("L", (1.0, 1.0))
    path = lambda n: PathPrim((("M", (0.0, 0.0)), *[seg] * (n - 1)), paint)  # noqa: E731
    assert weight([Rect(0, 0, 1, 1, paint)]) == 1 and weight([Line(0, 0, 1, 1, paint)]) == 1
    assert weight([Ellipse(0, 0, 1, 1, paint)]) == CURVED == weight([Rect(0, 0, 1, 1, paint, 0.5)]) == 4
    assert [weight([path(n)]) for n in (2, 6, 39)] == [1, 3, 16]
    assert weight([Rect(0, 0, 1, 1, paint), path(39), Ellipse(0, 0, 1, 1, paint)]) == 21


def test_curves_and_paths_are_charged_their_weight(tmp_path: Path) -> None:
    """What a piece is charged is the weight of what it draws: 100 circles count 400."""
    from pnp.input.project import DataRoot
    from pnp.plan.session import Session
    from pnp.qa.check import check

    circles = {"type": "repeat", "count": 100, "step": [0.1, 0], "elements": [
        {"type": "circle", "box": [1, 1, 2, 2], "fill": "#000000"}]}
    rects = {**circles, "elements": [{"type": "rect", "box": [1, 1, 2, 2], "fill": "#000000"}]}
    used = []
    for heavy in (rects, circles):
        root = DataRoot(game(tmp_path / f"r{len(used)}", 1, heavy))
        s = Session(root)
        check(root, "mini", session=s)
        used.append(s.tally.used)
    assert used[1] - used[0] == 300


def test_inline_icons_are_counted_as_they_are_placed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """800 inline uses of an icon of 3,000 polygons made 2.4 million shapes before the per-piece
    cap was looked at: 1.4 GB and exit 3 (attack 6, F10). They are counted as each is placed, so
    the text stops at the first shape over MAX_SHAPES."""
    from pnp.layout import piece

    polys = [{"polygon": [[0, 0], [1, 0], [1, 1]]}] * 3000
    text = {"type": "richtext", "box": [2, 2, 59, 84], "text": "{text}", "style": "body"}
    made = []
    real = piece._Painter.icon

    def icon(self, *args, **kw):  # type: ignore[no-untyped-def]
        made.append(1)
        return real(self, *args, **kw)
    monkeypatch.setattr(piece._Painter, "icon", icon)
    root = make_game(tmp_path / "root", [text], [item(text="{icon:big} " * 800)],
                     extra_tpl={"icons": {"big": {"shapes": polys}}})
    r = run_cli("check", "mini", "--data", root.path)
    assert r.exit_code == 2, r.stderr
    assert "more than 20000 shapes on one piece (the text's inline icons)" in r.stderr
    assert len(made) <= 20_000 // 3000 + 2  # stopped at the 7th icon, not after all 800


def test_elements_left_out_and_groups_reached_are_charged_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack 7: a `repeat` of 1,000 holding a `repeat` of 1,000 of a rectangle shown `when` no
    item matches drew nothing, so was charged nothing: `check` of three cards took 11 s, and a
    build of more cards minutes. An element its `when` leaves out counts 1, and a group or repeat
    each time it is reached: refused once the budget is spent, as for drawn shapes."""
    monkeypatch.setattr(cost, "SHAPES_BASE", 20_000)
    hidden = {"type": "repeat", "count": 1000, "step": [0, 0], "elements": [
        {"type": "repeat", "count": 1000, "step": [0, 0], "elements": [
            {"type": "rect", "box": [1, 1, 1, 1], "fill": "#000000", "when": {"field": "name", "equals": "zzz"}}]}]}
    first, layouts = refused_by_check(game(tmp_path / "root", 3, hidden), monkeypatch)
    assert ": $.elements[1].elements[0].elements[0]: the pieces this command lays out draw more than " in first
    assert "an element its `when` leaves out, and a group or repeat each time it is reached, count 1" in first
    assert layouts.count <= 1  # the first piece already passes 20,000 of its 1,001,001
    few = {**hidden, "count": 2}  # 2,000 left out, the repeats reached 3 times: 2,003 a piece
    monkeypatch.chdir(tmp_path)
    assert run_cli("check", "mini", "--data", game(tmp_path / "ok", 3, few)).exit_code == 0


def test_pattern_steps_are_charged_to_the_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack 8, F2: each piece's `replace` may take up to REGEX_COST steps, and nothing held the
    command: a legal 48 million steps a piece on 3,000 tiny items took 40 s of check. A piece's
    pattern steps are charged to the shape budget, one shape per REGEX_STEPS."""
    monkeypatch.setattr(cost, "SHAPES_BASE", 20_000)
    text = {"type": "text", "box": [5, 20, 50, 40], "text": "x" * 2000 + "{name}", "style": "body",
            "replace": [{"pattern": ".*z|.", "with": "b"}]}
    first, layouts = refused_by_check(game(tmp_path / "root", 200, text), monkeypatch)
    assert ": $.elements[1]: the pieces this command lays out draw more than " in first
    assert f"and a piece's patterns 1 for each {cost.REGEX_STEPS} steps" in first
    assert layouts.count < 200  # stopped well before the last item


FULL_CARD = {"type": "rect", "box": [-3, -3, "w+6", "h+6"], "fill": "#2060a0", "opacity": 0.5}


def test_a_filled_shape_counts_the_area_it_covers() -> None:
    """What pdfium spends on a fill grows with the pixels it covers (a 63 x 88 mm rectangle at
    300 dpi: 406 µs, 1,872 µs seen through, against a square's 8.7 µs of building): a fill counts
    one more for each 120 mm² of its box inside the trim, five times as many with transparency;
    a small shape, a line and a stroke alone count their weight only."""
    from pnp.layout.cost import AREA_PT2, SEE_THROUGH, area, weight
    from pnp.layout.primitives import Image, Line, Paint, Rect
    from pnp.units import MM

    w, h = 63 * MM, 88 * MM
    full = Rect(-3 * MM, -3 * MM, w + 6 * MM, h + 6 * MM, Paint(fill="#2060a0"))
    assert area([full], w, h) == int(w * h / AREA_PT2) == 46  # the part inside the trim
    clear = Rect(0, 0, w, h, Paint(fill="#2060a0", opacity=0.5))
    assert area([clear], w, h) == int(w * h / AREA_PT2 * SEE_THROUGH) == 231
    assert area([Rect(0, 0, w, h, Paint(fill="#2060a080"))], w, h) == 231  # a fill colour with alpha
    assert area([Rect(0, 0, w, h, Paint(stroke="#000000"))], w, h) == 0  # a frame: no fill
    assert area([Rect(0, 0, 10 * MM, 10 * MM, Paint(fill="#000000"))], w, h) == 0  # 100 mm²: its weight
    assert area([Line(0, 0, w, h, Paint(stroke="#000000"))], w, h) == 0
    assert area([Rect(w * 2, 0, w, h, Paint(fill="#000000"))], w, h) == 0  # off the piece
    assert area([Image(0, 0, w, h, "/x.png")], w, h) == 46
    assert weight([full]) == 1  # the weight itself is unchanged


def test_a_wide_stroke_counts_the_band_it_paints() -> None:
    """Attack 15, F1: 1,900 diagonal lines 100 pt wide at opacity 0.5 on one card (a 3 KB input)
    took 13 s a piece to export (19,000: 2 minutes), each charged as one shape: a stroke counts
    its length times its width as a fill counts its area, at most the piece's."""
    from pnp.layout.cost import AREA_PT2, SEE_THROUGH, area
    from pnp.layout.primitives import Line, Paint, Rect
    from pnp.units import MM

    w, h = 63 * MM, 88 * MM
    diagonal = (w * w + h * h) ** 0.5
    wide = Line(0, 0, w, h, Paint(stroke="#ff0000", stroke_width=100, opacity=0.5))
    assert area([wide], w, h) == int(min((diagonal + 100) * 100, w * h) / AREA_PT2 * SEE_THROUGH) == 210
    assert area([Line(0, 0, w, h, Paint(stroke="#ff0000", stroke_width=100))], w, h) == 42
    # a short line of a very wide stroke paints about its width squared (attack 15, F5: an icon's)
    dot = Line(10, 10, 11, 11, Paint(stroke="#ff000080", stroke_width=255))
    assert area([dot], w, h) == int(w * h / AREA_PT2 * SEE_THROUGH)
    endless = Line(-1e6, 0, 1e6, 0, Paint(stroke="#000000", stroke_width=100))
    assert area([endless], w, h) == int(w * h / AREA_PT2)  # no more than the piece
    assert area([Line(0, 0, w, h, Paint(stroke="#000000", stroke_width=0.5))], w, h) == 0  # a rule
    assert area([Rect(0, 0, w, h, Paint(stroke="#000000", stroke_width=0.5))], w, h) == 0  # a frame


def test_check_refuses_a_piece_the_rasteriser_would_take_minutes_for(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack 14, F7: 19 repeats of 1,000 full-card rectangles at opacity 0.5 on one card, within
    the 20,000 shapes a piece may draw, took 7 s to check and 28 s to export as PNG: refused by
    check and build with exit 2 and the budget's message, nothing written."""
    heavy = {"type": "group", "elements": [
        {"type": "repeat", "count": 1000, "step": [0, 0], "elements": [FULL_CARD]} for _ in range(19)]}
    first, _ = refused_by_check(game(tmp_path / "root", 1, heavy), monkeypatch)
    assert ": $.elements[1].elements[" in first and "the pieces this command lays out draw more than" in first
    assert "a filled shape counts 1 more for each 120 mm² it covers of its piece (5 times as many" in first
    b = run_cli("build", "mini", "--out", tmp_path / "out", "--jobs", "1")
    assert b.exit_code == 2 and "draw more than" in b.stderr and not (tmp_path / "out").exists()


def test_a_card_of_a_few_full_bleed_fills_is_well_within_the_budget(tmp_path: Path) -> None:
    """A background, a seen-through wash and a panel on each of 100 distinct cards: about 330
    a card, 33,000 of the 250,000 or so: checked and built."""
    from pnp.input.project import DataRoot
    from pnp.plan.session import Session
    from pnp.qa.check import check

    panel = {"type": "rect", "box": [5, 20, "w-10", 40], "fill": "#e0d0b0"}
    fills = {"type": "group", "elements": [{**FULL_CARD, "opacity": 1}, FULL_CARD, panel]}
    root = DataRoot(game(tmp_path / "root", 100, fills))
    s = Session(root)
    check(root, "mini", session=s)
    assert 100 * (46 + 231) < s.tally.used < s.tally.limit // 5
    r = run_cli("build", "mini", "--data", tmp_path / "root", "--out", tmp_path / "out", "--jobs", "1")
    assert r.exit_code == 0, r.stderr


def test_a_shape_filled_and_stroked_with_transparency_counts_its_grown_box() -> None:
    """Attack 15, F5: PDFium draws a shape both filled and stroked with transparency into a bitmap
    of its own, its box grown by the stroke's width, whatever the page shows (a 1 pt line 255 pt
    wide: 24-28 ms a render at 300 dpi, 3 ms stroked only): it counts GROUPED for each AREA_PT2
    of that box, not capped at the piece; stroked or filled alone it counts as before."""
    from pnp.layout.cost import AREA_PT2, GROUPED, SEE_THROUGH, area
    from pnp.layout.primitives import Line, Paint, Path, Rect
    from pnp.units import MM

    w, h = 63 * MM, 88 * MM
    ops = (("M", (85.0, 125.0)), ("L", (86.0, 124.0)))  # an icon's polyline: filled (fg) and stroked
    blob = Path(ops, Paint(fill="#000000", stroke="#ff000080", stroke_width=255))
    assert area([blob], w, h) == int((1 + 510) * (1 + 510) / AREA_PT2 * GROUPED) > 100 * w * h / AREA_PT2
    assert area([Path(ops, Paint(stroke="#ff000080", stroke_width=255))], w, h) == \
        int(w * h / AREA_PT2 * SEE_THROUGH)  # stroked only: its band, at most the piece
    assert area([Path(ops, Paint(fill="#000000", stroke="#ff0000", stroke_width=255))], w, h) == \
        int(w * h / AREA_PT2)  # opaque: no bitmap of its own
    framed = Rect(0, 0, w, h, Paint(fill="#2060a0", stroke="#000000", stroke_width=0.5, opacity=0.5))
    assert area([framed], w, h) == int((w + 1) * (h + 1) / AREA_PT2 * GROUPED) + int(w * h / AREA_PT2 * SEE_THROUGH)
    line = Line(0, 0, w, h, Paint(fill="#000000", stroke="#ff000080", stroke_width=1))  # a line is not filled
    assert area([line], w, h) == int(((w * w + h * h) ** 0.5 + 1) / AREA_PT2 * SEE_THROUGH) == 1


def svg_lines(n: int, width: float, opacity: str = ' stroke-opacity="0.5"', tag: str = "") -> str:
    """SVG art of ``n`` lines corner to corner (attack 15, F4's make_svg.py, smaller), or of
    ``n`` of the element ``tag``."""
    one = tag or f'<line x1="0" y1="0" x2="635" y2="889" stroke="#ff0000" stroke-width="{width:g}"{opacity}/>'
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="635" height="889" viewBox="0 0 635 889">'
            + one * n + "</svg>")


ART = {"type": "image", "box": [0, 0, "w", "h"], "src": "art.svg", "fit": "stretch"}


@pytest.mark.parametrize("art", [
    svg_lines(1500, 400),  # F4: wide see-through strokes
    svg_lines(1500, 0, tag='<rect width="635" height="889" fill="#ff0000" fill-opacity="0.5"/>'),  # fills
    svg_lines(300, 0, tag='<circle cx="300" cy="400" r="5" fill="#000" stroke="#f00" stroke-width="300" '
              'fill-opacity="0.5"/>'),  # filled and stroked with transparency: its grown box
], ids=["clear-strokes", "clear-fills", "grouped"])
def test_svg_art_counts_the_areas_its_shapes_paint(art: str, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack 15, F4: SVG art of 5,000 lines corner to corner 400 units wide at stroke-opacity 0.5
    (480 KB) took 12 s a piece to export as PNG, charged as its box alone. Each shape of the art
    counts the area it paints at the size the art is drawn, as a template's shapes do: `check`,
    `build` and `export png` refuse it with exit 2 at the image element, nothing written."""
    root = game(tmp_path / "root", 1, ART)
    (root / "card_data" / "mini" / "art.svg").write_text(art)
    first, _ = refused_by_check(root, monkeypatch)
    assert ": $.elements[1]: the pieces this command lays out draw more than" in first
    assert "and the shapes of SVG art so at the size it is drawn" in first
    for cmd in (["build", "mini"], ["export", "png", "mini", "deck"]):
        r = run_cli(*cmd, "--out", tmp_path / "out", "--jobs", "1")
        assert r.exit_code == 2 and "narrower or opaque strokes, in SVG art too" in r.stderr, r.stderr
        assert not (tmp_path / "out").exists()


def test_svg_art_of_thin_strokes_is_taken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same 1,500 lines 1 unit wide, opaque: a few shapes' worth each, checked."""
    root = game(tmp_path / "root", 1, ART)
    (root / "card_data" / "mini" / "art.svg").write_text(svg_lines(1500, 1, opacity=""))
    monkeypatch.chdir(root)
    r = run_cli("check", "mini")
    assert r.exit_code == 0, r.stderr
