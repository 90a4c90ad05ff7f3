"""Layout stage: template + item -> primitives in points (no PDF involved)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pnp.errors import DataError
from pnp.input.project import DataRoot, load_game
from pnp.layout.fields import MINUS
from pnp.layout.piece import Context, layout_piece
from pnp.layout.primitives import Ellipse, Rect, Text
from pnp.layout.primitives import Path as PathPrim
from pnp.layout.shapes import hex_points
from pnp.plan.component import plan_component
from pnp.plan.options import BuildOptions
from pnp.plan.session import Session
from pnp.qa.check import check
from pnp.units import MM

BLEED = 3 * MM


@pytest.fixture(autouse=True)
def in_the_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Messages name files relative to the working folder: run where make_game's root is."""
    monkeypatch.chdir(tmp_path)


def make_game(root: Path, elements: list[dict], items: list[dict], fields: dict | None = None,
              size: list[float] | None = None, kind: str = "card", extra_tpl: dict | None = None) -> DataRoot:
    """A one-component game in a temporary data root."""
    game = root / "card_data" / "mini"
    game.mkdir(parents=True)
    (root / "templates" / "mini").mkdir(parents=True)
    fields = fields or {"name": {"type": "string", "description": "name"},
                        "power": {"type": "integer", "description": "power"},
                        "text": {"type": "text", "description": "rules"}}
    comp = {"id": "deck", "title": "Deck", "kind": kind, "size": size or [63, 88], "data": "deck.json",
            "template": "mini/front"}
    manifest = {"id": "mini", "title": "Mini", "players": {"min": 1}, "document": {"file": "none.txt"},
                "components": [comp], "rulebook": []}
    (game / "game.json").write_text(json.dumps(manifest, indent=1))
    (game / "deck.json").write_text(json.dumps({"component": "deck", "fields": fields, "items": items}, indent=1))
    tpl = {"extends": "shared/icons", "colors": {"ink": "#112233"},
           "styles": {"body": {"font": "Lato-Regular", "size": 10, "color": "ink"}},
           "elements": elements, **(extra_tpl or {})}
    (root / "templates" / "mini" / "front.json").write_text(json.dumps(tpl, indent=1))
    return DataRoot(root)


def item(**fields: object) -> dict:
    return {"id": str(fields.pop("id", "a")), "source": {"designed": "test"}, **fields}


def plan(root: DataRoot):
    s = Session(root)
    g = load_game(root, "mini")
    return plan_component(s, g, g.components[0], BuildOptions())


def texts(prims) -> list[Text]:
    return [p for p in prims if isinstance(p, Text)]


def test_rect_box_converts_mm_top_left_to_points_bottom_left(tmp_path: Path) -> None:
    root = make_game(tmp_path, [{"type": "rect", "box": [10, 20, 30, 40], "fill": "ink"}], [item()])
    (p,), _ = plan(root)[0].fronts[0].primitives, None
    assert isinstance(p, Rect)
    assert p.x == pytest.approx(10 * MM)
    assert p.y == pytest.approx((88 - 20 - 40) * MM)  # y up from the bottom of the trim
    assert (p.w, p.h) == (pytest.approx(30 * MM), pytest.approx(40 * MM))
    assert p.paint.fill == "#112233"


def test_bleed_grows_only_edges_on_the_trim(tmp_path: Path) -> None:
    root = make_game(tmp_path, [{"type": "rect", "box": [0, 0, 63, 88], "bleed": True, "fill": "#ff0000"},
                                {"type": "rect", "box": [0, 10, 20, 20], "bleed": True, "fill": "#00ff00"}],
                     [item()])
    full, side = plan(root)[0].fronts[0].primitives
    assert (full.x, full.y) == (pytest.approx(-BLEED), pytest.approx(-BLEED))
    assert full.w == pytest.approx(63 * MM + 2 * BLEED)
    assert full.h == pytest.approx(88 * MM + 2 * BLEED)
    assert side.x == pytest.approx(-BLEED)  # touches the left trim edge only
    assert side.w == pytest.approx(20 * MM + BLEED)
    assert side.h == pytest.approx(20 * MM)


def test_fields_filters_and_conditions(tmp_path: Path) -> None:
    els = [{"type": "text", "box": [0, 0, 63, 10], "text": "{name|upper} {power|signed}", "style": "body"},
           {"type": "text", "box": [0, 10, 63, 10], "text": "zero={power|signed|dash_zero}", "style": "body",
            "when": {"field": "power", "equals": 0}},
           {"type": "text", "box": [0, 20, 63, 10], "text": "strong", "style": "body",
            "when": {"field": "power", "min": 3}}]
    root = make_game(tmp_path, els, [item(id="a", name="Ogre", power=3), item(id="b", name="Imp", power=-1),
                                     item(id="c", name="Nil", power=0)])
    p = plan(root)[0]
    a, b, c = (" ".join(t.text for t in texts(f.primitives)) for f in p.fronts)
    assert a == "OGRE +3 strong"
    assert b == f"IMP {MINUS}1"
    assert c == "NIL 0 zero=\u2013"


def test_provenance_is_a_built_in_for_text_and_conditions(tmp_path: Path) -> None:
    """An item's source kind reads as {provenance} and in ``when`` (issue 23: designed pieces say so)."""
    els = [{"type": "text", "box": [0, 0, 63, 10], "text": "{name} ({provenance})", "style": "body"},
           {"type": "text", "box": [0, 10, 63, 10], "text": "designed", "style": "body",
            "when": {"field": "provenance", "equals": "designed"}}]
    root = make_game(tmp_path, els, [item(id="a", name="Ours"),
                                     {"id": "b", "name": "Theirs", "source": {"document": "Theirs"}}])
    a, b = (" ".join(t.text for t in texts(f.primitives)) for f in plan(root)[0].fronts)
    assert a == "Ours (designed) designed"
    assert b == "Theirs (document)"


def test_repeat_count_from_field_and_step(tmp_path: Path) -> None:
    els = [{"type": "repeat", "count": "{power}", "step": [6, 0], "per_row": 3, "row_step": [0, 7],
            "elements": [{"type": "circle", "box": [5, 5, 5, 5], "fill": "ink"}]}]
    root = make_game(tmp_path, els, [item(power=5)])
    circles = [p for p in plan(root)[0].fronts[0].primitives if isinstance(p, Ellipse)]
    assert len(circles) == 5
    xs = sorted({round(c.x / MM, 6) for c in circles})
    assert xs == [5, 11, 17]
    ys = sorted({round(88 - c.y / MM - 5, 6) for c in circles})
    assert ys == [5, 12]


def test_text_shrinks_to_fit_within_limits(tmp_path: Path) -> None:
    long = "word " * 40
    els = [{"type": "text", "box": [5, 5, 53, 20], "text": "{text}", "style": "body", "fit": {"min_size": 5}}]
    root = make_game(tmp_path, els, [item(text=long)])
    p, warnings = plan(root)
    sizes = {t.size for t in texts(p.fronts[0].primitives)}
    assert len(sizes) == 1
    size = sizes.pop()
    assert 5 <= size < 10
    assert warnings == []
    lines = {round(t.y, 3) for t in texts(p.fronts[0].primitives)}
    assert len(lines) * size * 1.2 <= 20 * MM + 1e-6  # the lines fit the box height


def test_text_that_cannot_fit_warns_naming_game_component_item_element(tmp_path: Path) -> None:
    els = [{"type": "text", "id": "rules", "box": [5, 5, 20, 5], "text": "{text}", "style": "body",
            "fit": {"min_size": 8}}]
    root = make_game(tmp_path, els, [item(id="wordy", text="far too many words for this tiny box " * 3)])
    _, warnings = plan(root)
    assert len(warnings) == 1
    w = warnings[0]
    assert w.severity == "warning"
    assert "does not fit even at 8 pt" in w.message
    assert "game mini" in w.message and "component deck" in w.message and "item wordy" in w.message
    assert "element 'rules'" in w.message
    assert w.file == "templates/mini/front.json" and w.line is not None


def test_richtext_bold_and_inline_icon(tmp_path: Path) -> None:
    els = [{"type": "richtext", "box": [5, 5, 53, 20], "text": "Gain **3** {icon:coin} now", "style": "body"}]
    root = make_game(tmp_path, els, [item()])
    prims = plan(root)[0].fronts[0].primitives
    t = texts(prims)
    assert [x.text for x in t] == ["Gain", "3", "now"]
    assert t[1].font == "Lato-Bold" and t[0].font == "Lato-Regular"
    icon_parts = [p for p in prims if not isinstance(p, Text)]
    assert icon_parts, "the coin icon is drawn as vector primitives"
    xs = [getattr(p, "x", None) for p in icon_parts if isinstance(p, Rect | Ellipse)]
    assert all(t[1].x < x < t[2].x for x in xs if x is not None)  # between "3" and "now"


def test_single_line_text_shrinks_width(tmp_path: Path) -> None:
    els = [{"type": "text", "box": [0, 0, 15, 10], "text": "{name}", "style": "body", "wrap": False,
            "fit": {"min_size": 4}}]
    root = make_game(tmp_path, els, [item(name="Extraordinarily")])
    s = Session(root)
    t = texts(plan(root)[0].fronts[0].primitives)
    assert len(t) == 1
    assert s.fonts.width(t[0].text, t[0].font, t[0].size) <= 15 * MM + 1e-6
    assert t[0].size < 10


def test_image_outside_game_folder_is_an_error(tmp_path: Path) -> None:
    els = [{"type": "image", "box": [0, 0, 10, 10], "src": "../../../etc/passwd"}]
    root = make_game(tmp_path, els, [item()])
    with pytest.raises(DataError) as exc:
        plan(root)
    d = exc.value.diagnostics[0]
    assert "outside the game folder" in d.message
    assert d.path[-1] == "src" and d.file == "templates/mini/front.json"


def test_missing_image_and_unknown_icon_are_errors(tmp_path: Path) -> None:
    els = [{"type": "image", "box": [0, 0, 10, 10], "src": "art/none.png"}]
    root = make_game(tmp_path, els, [item()])
    with pytest.raises(DataError, match=r"image 'art/none\.png' not found"):
        plan(root)


def test_unknown_icon_names_the_item(tmp_path: Path) -> None:
    els = [{"type": "icon", "box": [0, 0, 10, 10], "name": "nope-{name}"}]
    root = make_game(tmp_path, els, [item(id="x1", name="a")])
    with pytest.raises(DataError) as exc:
        plan(root)
    msg = exc.value.diagnostics[0].format()
    assert "unknown icon 'nope-a'" in msg and "item x1" in msg


def test_hex_points_regular_and_grown() -> None:
    pts = hex_points(0, 0, 100, 100, "pointy")
    assert pts[0] == (50, 100) and pts[3] == (50, 0)
    grown = hex_points(0, 0, 100, 100, "pointy", grow=10)
    # Every vertex moves outward; the top vertex by grow / cos(30 deg).
    assert grown[0][1] == pytest.approx(100 + 10 / (3 ** 0.5 / 2))


def test_golems_every_piece_lays_out_without_warnings() -> None:
    from pnp.input.project import bundled_root

    gc = check(DataRoot(bundled_root()), "golems")
    assert gc.warnings == ()
    assert sum(len(p.fronts) for p in gc.plans) == sum(c.pieces for c in gc.game.components)
    assert any(isinstance(x, PathPrim) for p in gc.plans for x in p.fronts[0].primitives)


def test_replace_rewrites_printed_text_only(tmp_path: Path) -> None:
    els = [{"type": "richtext", "box": [5, 5, 53, 20], "text": "{text}", "style": "body",
            "replace": [{"pattern": r"(\d+)\s*TP", "with": r"\1 {icon:coin}"}, {"pattern": "Y>", "with": "**Y:**"}]}]
    root = make_game(tmp_path, els, [item(text="Y> Gain 5TP now")])
    prims = plan(root)[0].fronts[0].primitives
    t = texts(prims)
    assert [x.text for x in t] == ["Y:", "Gain 5", "now"]  # one run per stretch of a line in one font
    assert t[0].font == "Lato-Bold"
    assert any(isinstance(p, Ellipse) for p in prims)  # the coin icon
    assert load_game(root, "mini").components[0].items[0].fields["text"] == "Y> Gain 5TP now"


def test_track_points_even_closed_and_spaced() -> None:
    from pnp.layout.shapes import track_points

    assert track_points([(0, 0), (10, 0)], 3, False, None) == [(0, 0), (5, 0), (10, 0)]
    # Around a 10 x 10 square loop (perimeter 40), 4 spaces sit on the 4 corners.
    loop = track_points([(0, 0), (10, 0), (10, 10), (0, 10)], 4, True, None)
    assert loop == [(0, 0), (10, 0), (10, 10), (0, 10)]
    # Turning a corner: 7 mm along a path that turns after 5 mm.
    assert track_points([(0, 0), (5, 0), (5, 10)], 2, False, 7) == [(0, 0), (5, 2)]
    assert track_points([(0, 0), (5, 0)], 3, False, 3) is None  # 6 mm of spacing on a 5 mm path


def test_track_spans_pieces_with_per_space_marks(tmp_path: Path) -> None:
    """Two segment cards of one 0..11 track: each shows its own spaces; space 11 is marked."""
    fields = {"first": {"type": "integer", "description": "first space"},
              "last": {"type": "integer", "description": "last space"}}
    els = [{"type": "track", "first": "{first}", "last": "{last}", "path": [[8, 44], [55, 44]], "size": [7, 7],
            "elements": [{"type": "rect", "box": [0, 0, 7, 7], "fill": "#ffffff", "stroke": "ink"},
                         {"type": "text", "box": [0, 0, 7, 7], "text": "{value}", "style": "body"},
                         {"type": "circle", "box": [0, 0, 7, 7], "fill": "#ff0000",
                          "when": {"field": "value", "equals": 11}}]}]
    root = make_game(tmp_path, els, [item(id="a", first=0, last=5), item(id="b", first=6, last=11)],
                     fields=fields, kind="track")
    p = plan(root)[0]
    a, b = ([t.text for t in texts(f.primitives)] for f in p.fronts)
    assert a == ["0", "1", "2", "3", "4", "5"] and b == ["6", "7", "8", "9", "10", "11"]
    rects = [r for r in p.fronts[0].primitives if isinstance(r, Rect)]
    centres = [round((r.x + r.w / 2) / MM, 6) for r in rects]
    assert centres == [8, 17.4, 26.8, 36.2, 45.6, 55]  # evenly from the path's start to its end
    assert [e for e in p.fronts[0].primitives if isinstance(e, Ellipse)] == []
    assert len([e for e in p.fronts[1].primitives if isinstance(e, Ellipse)]) == 1


def test_track_with_reversed_range_is_an_error(tmp_path: Path) -> None:
    fields = {"first": {"type": "integer", "description": "f"}, "last": {"type": "integer", "description": "l"}}
    els = [{"type": "track", "first": "{first}", "last": "{last}", "path": [[0, 0], [50, 0]], "size": [5, 5],
            "elements": []}]
    root = make_game(tmp_path, els, [item(id="r", first=9, last=3)], fields=fields)
    with pytest.raises(DataError, match="track runs from 9 to 3"):
        plan(root)


def test_a_character_missing_from_the_font_is_reported(tmp_path: Path) -> None:
    els = [{"type": "text", "box": [5, 5, 53, 10], "text": "{name}", "style": "body"}]
    root = make_game(tmp_path, els, [item(id="star", name="Advanced \u2605 potion")])
    _, warnings = plan(root)
    assert len(warnings) == 1
    w = warnings[0]
    assert "character '\u2605' (U+2605) is not in font Lato-Regular" in w.message
    assert "item star" in w.message and w.severity == "warning"
    assert "icon" in (w.hint or "")


def test_words_in_one_font_are_one_run_placed_where_the_words_would_be(tmp_path: Path) -> None:
    """Merging words into one Text per line must not move a glyph: the merged run's width
    equals the words' widths plus the font's spaces."""
    els = [{"type": "text", "box": [5, 5, 40, 40], "text": "{text}", "style": "body", "fit": {"min_size": 6}}]
    root = make_game(tmp_path, els, [item(text="alpha beta gamma delta epsilon zeta eta theta iota kappa")])
    s = Session(root)
    t = texts(plan(root)[0].fronts[0].primitives)
    assert 1 < len(t) < 10  # merged per line, several lines
    for run in t:
        assert s.fonts.width(run.text, run.font, run.size) <= 40 * MM + 1e-6
    assert " ".join(r.text for r in t) == "alpha beta gamma delta epsilon zeta eta theta iota kappa"


def test_what_a_component_works_out_once_never_leaks_from_one_item_into_another(tmp_path: Path) -> None:
    """Layout keeps styles, constant shapes, icons and fitted texts per component (issue 8):
    every piece must still be exactly what it is when laid out on its own, and the warnings too."""
    fields = {"name": {"type": "string", "description": "name"}, "power": {"type": "integer", "description": "p"},
              "text": {"type": "text", "description": "rules"}, "kind": {"type": "string", "description": "k"},
              "mark": {"type": "string", "description": "icon"}}
    els = [{"type": "rect", "box": [0, 0, 63, 88], "bleed": True, "fill": {"palette": "kind", "by": "kind"}},
           {"type": "rect", "box": [2, 2, 59, 84], "stroke": "ink", "stroke_width": 1},
           {"type": "text", "box": [4, 4, 55, 10], "text": "{name}", "style": "title", "fit": {"min_size": 6}},
           {"type": "richtext", "box": [5, 18, 53, 30], "text": "{text}", "style": "body", "fit": {"min_size": 6}},
           {"type": "icon", "box": [5, 60, 8, 8], "name": "{mark}", "fg": "{kind}"},
           {"type": "repeat", "count": "{power}", "step": [6, 0],
            "elements": [{"type": "circle", "box": [5, 75, 5, 5], "fill": "ink"},
                         {"type": "text", "box": [5, 75, 5, 5], "text": "{n}", "style": "body"}]}]
    tpl = {"palettes": {"kind": {"fire": "#aa2200", "ice": "#2266aa"}},
           "colors": {"ink": "#112233", "fire": "#ff0000", "ice": "#00ffff"},
           "styles": {"body": {"font": "Lato-Regular", "size": 8, "color": "ink"},
                      "title": {"font": "Lato-Bold", "size": 12, "color": "{kind}", "align": "center"}}}
    rules = ["Gain **3** {icon:coin} now.", "Draw *two* cards.\n\nThen discard one.", "Gain **3** {icon:coin} now.",
             "A \u2605 is not in the font.", "Supercalifragilisticexpialidocious " * 3]
    items = [item(id=f"i{n}", name=["Golem", "Clay Golem", "Golem"][n % 3], power=n % 4, text=rules[n % 5],
                  kind=["fire", "ice"][n % 2], mark=["coin", "star", "gear"][n % 3]) for n in range(12)]
    root = make_game(tmp_path, els, items, fields=fields, extra_tpl=tpl)
    together = plan(root)[0]
    game = load_game(root, "mini")
    comp = game.components[0]
    front = Session(root).store.get(comp.template)
    for n, it in enumerate(comp.items):
        alone = layout_piece(front, it, Context(Session(root).fonts, game, comp, BLEED))
        assert repr(together.fronts[n].primitives) == repr(alone.primitives), it.id
        assert together.fronts[n].warnings == alone.warnings, it.id
    assert any(w for lay in together.fronts for w in lay.warnings)  # the star and the long word


def test_a_command_s_shapes_together_are_bounded(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Each piece is held to MAX_SHAPES, and all the pieces of a command together to the shape
    budget of pnp.layout.cost (issue 19: one series item of 100,000 pieces of 20,000 shapes each
    would draw for days; tests/layout/test_cost.py has the rest). Lowered here to nothing, so
    that mini's few pieces reach it."""
    from conftest import TEST_DATA, assert_no_traceback, run_cli

    import pnp.layout.cost as cost

    ok = run_cli("check", "--data", TEST_DATA / "mini", "mini")
    assert ok.exit_code == 0
    monkeypatch.setattr(cost, "SHAPES_BASE", 0)
    monkeypatch.setattr(cost, "SHAPES_PER_BYTE", 0)
    r = run_cli("check", "--data", TEST_DATA / "mini", "mini")
    assert r.exit_code == 2
    assert_no_traceback(r)
    assert "more than pnp's budget of 0 (expected at most 0 shapes across the pieces one command lays out" in r.stderr
    b = run_cli("build", "--data", TEST_DATA / "mini", "mini", "--out", tmp_path / "out", "--jobs", "1")
    assert b.exit_code == 2 and "more than pnp's budget of 0" in b.stderr and "nothing was written" in b.stderr
    assert not (tmp_path / "out").exists()
