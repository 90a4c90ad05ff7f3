"""Templates that adapt: coordinates relative to the piece, ``rotate``, ``otherwise``, filters,
an image's fit from data and its focus, images into the bleed (layout only; the PDF read-backs
are in tests/render/test_adapt_pdf.py)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from PIL import Image as PILImage

from pnp.errors import DataError
from pnp.input.measures import MeasureError, evaluate, parse
from pnp.layout.fields import MAX_SUBSTITUTED, LayoutError, get_filter, unknown_filter
from pnp.layout.primitives import Image, Line, Rect
from pnp.layout.primitives import Path as PathPrim
from pnp.units import MM
from tests.layout.test_layout import BLEED, item, make_game, plan, texts

# -- measures ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "axis", "value"), [
    ("w", "x", 63), ("h", "y", 88), ("w-6", "x", 57), ("h/2 - 4", "y", 40), ("(w-10)/3", "x", 53 / 3),
    ("50%", "x", 31.5), ("50%", "y", 44), ("-w/2", "x", -31.5), ("2*h/4+1", "y", 45), ("12.5", "x", 12.5),
])
def test_measure_expressions(text: str, axis: str, value: float) -> None:
    assert evaluate(parse(text), axis, 63, 88) == pytest.approx(value)


@pytest.mark.parametrize(("text", "message"), [
    ("w-", "'w-' ends too soon"), ("width", "unknown name 'width' in 'width' (the names are w and h)"),
    ("w$", "unexpected '$' in 'w$'"), ("(w", "'(w' ends too soon"),
    ("w h", "unexpected 'h' in 'w h'"), ("", "empty expression"), ("3 % 2", "unexpected '%' in '3 % 2'"),
])
def test_measure_errors(text: str, message: str) -> None:
    with pytest.raises(MeasureError) as exc:
        parse(text)
    assert str(exc.value) == message


def test_relative_boxes_follow_the_component_size(tmp_path: Path) -> None:
    els = [{"type": "rect", "box": ["w-20", "h/2", 10, "25%"], "fill": "ink"}]
    for size in ([63, 88], [70, 120]):
        root = make_game(tmp_path / str(size[0]), els, [item()], size=size)
        (p,) = plan(root)[0].fronts[0].primitives
        w, h = size
        assert (p.x, p.w, p.h) == (pytest.approx((w - 20) * MM), pytest.approx(10 * MM), pytest.approx(h / 4 * MM))
        assert p.y == pytest.approx((h - h / 2 - h / 4) * MM)


def test_plain_mm_boxes_are_the_same_floats(tmp_path: Path) -> None:
    """Numbers stay numbers: a template without expressions lays out exactly as before."""
    root = make_game(tmp_path, [{"type": "rect", "box": [10.3, 20.1, 30.7, 40.9], "fill": "ink"},
                                {"type": "rect", "box": ["10.3", "20.1", "30.7", "40.9"], "fill": "ink"}], [item()])
    a, b = plan(root)[0].fronts[0].primitives
    assert a == Rect(10.3 * MM, 88 * MM - (20.1 + 40.9) * MM, 30.7 * MM, 40.9 * MM, a.paint)
    assert (b.x, b.y, b.w, b.h) == pytest.approx((a.x, a.y, a.w, a.h))


def test_bad_expression_is_an_error_even_where_nothing_draws(tmp_path: Path) -> None:
    root = make_game(tmp_path, [{"type": "rect", "box": [0, 0, "w+", 5], "fill": "ink",
                                 "when": {"field": "power", "equals": 99}}], [item()])
    with pytest.raises(DataError) as exc:
        plan(root)
    (d,) = exc.value.diagnostics
    assert d.path == ("elements", 0, "box", 2)
    assert d.message == "box: 'w+' ends too soon"
    assert d.expected.startswith("a number of mm, or an expression of the trim width w and height h")


@pytest.mark.parametrize(("value", "path", "message"), [
    # a constant: refused when the template is loaded, on an element no item draws too
    ("9999999999999999999999*9999999999999999999*999999999999999999999", ("elements", 0, "box", 2),
     "box: '9999999999999999999999*9999999999999999999*999999999999999999999' is 1e+62 mm"),
    ("99999*99999", ("elements", 0, "box", 2), "box: '99999*99999' is 9.9998e+09 mm"),
    ("-2000.5", ("elements", 0, "box", 2), "box: '-2000.5' is -2000.5 mm"),
    # relative: refused when worked out for the piece
    ("w*1000", ("elements", 0, "box", 2), "box: 'w*1000' is 63000 mm for a 63 x 88 mm piece"),
])
def test_measure_beyond_the_range_of_a_number_is_an_error(tmp_path: Path, value: str, path: tuple[object, ...],
                                                          message: str) -> None:
    """attack4 F3: a legal expression worth 1e62 mm passed check and stopped the PDF writer."""
    root = make_game(tmp_path, [{"type": "rect", "box": [0, 0, value, 5], "fill": "ink"}], [item()])
    with pytest.raises(DataError) as exc:
        plan(root)
    (d,) = exc.value.diagnostics
    assert d.path == path
    assert d.message.startswith(message), d.message
    assert d.expected == "a value from -2000 to 2000 mm, the range of a plain number in a template"


def test_measure_at_the_limit_lays_out(tmp_path: Path) -> None:
    root = make_game(tmp_path, [{"type": "rect", "box": [0, 0, "1000*2", "w*2000/63"], "fill": "ink"}], [item()])
    (p,) = plan(root)[0].fronts[0].primitives
    assert (p.w, p.h) == (pytest.approx(2000 * MM), pytest.approx(2000 * MM))


def test_relative_points_offsets_and_steps(tmp_path: Path) -> None:
    els = [{"type": "line", "from": [0, "h/2"], "to": ["w", "h/2"], "stroke": "ink"},
           {"type": "group", "offset": ["w/2", 0], "elements": [
               {"type": "repeat", "count": 2, "step": ["10%", 0], "elements": [
                   {"type": "rect", "box": [0, 0, 1, 1], "fill": "ink"}]}]}]
    root = make_game(tmp_path, els, [item()], size=[100, 50])
    line, r1, r2 = plan(root)[0].fronts[0].primitives
    assert isinstance(line, Line) and (line.x2, line.y1) == (pytest.approx(100 * MM), pytest.approx(25 * MM))
    assert (r1.x, r2.x) == (pytest.approx(50 * MM), pytest.approx(60 * MM))


# -- rotate -----------------------------------------------------------------------------------

def _corners(p: PathPrim) -> list[tuple[float, float]]:
    return [(round(v[0] / MM, 6), round(v[1] / MM, 6)) for op, v in p.ops if op in ("M", "L")]


def test_rect_turns_clockwise_about_its_centre(tmp_path: Path) -> None:
    root = make_game(tmp_path, [{"type": "rect", "box": [10, 10, 20, 10], "rotate": 30, "fill": "ink"}], [item()])
    (p,) = plan(root)[0].fronts[0].primitives
    assert isinstance(p, PathPrim)
    # The centre stays; the first corner (bottom-left in PDF, i.e. the card's lower-left corner of
    # the box) turned 30 degrees clockwise as seen on the card (y down): in PDF y up, -30 degrees.
    cx, cy = 20.0, 88 - 15.0
    x0, y0 = 10 - cx, (88 - 20) - cy
    a = math.radians(-30)
    want = (cx + x0 * math.cos(a) - y0 * math.sin(a), cy + x0 * math.sin(a) + y0 * math.cos(a))
    assert _corners(p)[0] == pytest.approx(want)
    xs = [c[0] for c in _corners(p)]
    assert (min(xs) + max(xs)) / 2 == pytest.approx(cx)


def test_quarter_turn_covers_the_box_it_names(tmp_path: Path) -> None:
    """Turned 90 degrees, a text box 5 mm wide and 40 mm tall holds a line along its length."""
    root = make_game(tmp_path, [{"type": "text", "box": [50, 20, 5, 40], "rotate": 90, "text": "{name}",
                                 "style": "body", "wrap": False}], [item(name="Sideways")])
    (t,) = texts(plan(root)[0].fronts[0].primitives)
    assert t.angle == 270  # 90 clockwise on the card is 270 counter-clockwise in PDF
    # The line starts near the top of the box and runs down inside the box's 5 mm strip.
    assert 50 * MM <= t.x <= 55 * MM
    assert t.y == pytest.approx((88 - 20) * MM, abs=1.0)


def test_group_turns_about_the_piece_centre(tmp_path: Path) -> None:
    """The upside-down corner index: a group turned 180 puts its top-left text bottom-right."""
    corner = {"type": "text", "box": [2, 2, 8, 6], "text": "{power|roman}", "style": "body", "wrap": False}
    root = make_game(tmp_path, [corner, {"type": "group", "rotate": 180, "elements": [corner]}], [item(power=4)])
    a, b = texts(plan(root)[0].fronts[0].primitives)
    assert (a.text, b.text) == ("IV", "IV")
    assert (a.angle, b.angle) == (0, 180)
    assert b.x == pytest.approx(63 * MM - a.x)
    assert b.y == pytest.approx(88 * MM - a.y)


def test_rotate_from_data_and_origin(tmp_path: Path) -> None:
    els = [{"type": "line", "from": [10, 10], "to": [20, 10], "stroke": "ink", "rotate": "{power}", "origin": [10, 10]}]
    root = make_game(tmp_path, els, [item(power=90)])
    (p,) = plan(root)[0].fronts[0].primitives
    assert (p.x1 / MM, p.y1 / MM) == pytest.approx((10, 78))
    assert (p.x2 / MM, p.y2 / MM) == pytest.approx((10, 68))  # pointing down the card


# -- otherwise, filters -----------------------------------------------------------------------

def test_otherwise_draws_when_the_condition_fails(tmp_path: Path) -> None:
    els = [{"type": "text", "box": [0, 0, 60, 10], "text": "P{power}", "style": "body",
            "when": {"field": "power", "present": True},
            "otherwise": [{"type": "text", "box": [0, 0, 60, 10], "text": "none", "style": "body"}]}]
    root = make_game(tmp_path, els, [item(id="a", power=2), item(id="b")])
    p = plan(root)[0]
    assert [t.text for t in texts(p.fronts[0].primitives)] == ["P2"]
    assert [t.text for t in texts(p.fronts[1].primitives)] == ["none"]


@pytest.mark.parametrize(("name", "value", "out"), [
    ("roman", 1, "I"), ("roman", 4, "IV"), ("roman", 9, "IX"), ("roman", 14, "XIV"), ("roman", 21, "XXI"),
    ("roman", 1999, "MCMXCIX"), ("roman", 0, "0"), ("roman", "12", "XII"), ("roman_lower", 3, "iii"),
    ("title", "the hanged man", "The Hanged Man"), ("title", "KING'S ransom", "King's Ransom"),
    ("int", 2.5, 3), ("int", -2.5, -3), ("thousands", 1234567, "1,234,567"), ("thousands", 1234.5, "1,234.5"),
    ("percent", 0.25, "25%"), ("ordinal", 1, "1st"), ("ordinal", 12, "12th"), ("ordinal", 23, "23rd"),
    ("fixed2", 3, "3.00"), ("fixed0", 2.6, "3"), ("pad3", 7, "007"), ("roman", None, None),
])
def test_filters(name: str, value: object, out: object) -> None:
    fn = get_filter(name)
    assert fn is not None and fn(value) == out


def test_unknown_filter_hint() -> None:
    e = unknown_filter("roma")
    assert (e.message, e.hint) == ("unknown filter |roma", "did you mean 'roman'?")
    assert "fixed0..fixed6" in (e.expected or "")


def test_unknown_filter_is_an_input_error(tmp_path: Path) -> None:
    root = make_game(tmp_path, [{"type": "text", "box": [0, 0, 60, 10], "text": "{power|romain}", "style": "body"}],
                     [item(power=2)])
    with pytest.raises(DataError) as exc:
        plan(root)
    (d,) = exc.value.diagnostics
    assert d.message == "unknown filter |romain in {power|...}"
    assert "roman" in (d.expected or "") and "fixed2" in (d.expected or "") and "pad3" in (d.expected or "")


def test_numbered_filters_are_known_to_the_static_check(tmp_path: Path) -> None:
    root = make_game(tmp_path, [{"type": "text", "box": [0, 0, 60, 10], "text": "{power|fixed2} {power|pad3}",
                                 "style": "body"}], [item(power=2)])
    assert [t.text for t in texts(plan(root)[0].fronts[0].primitives)] == ["2.00 002"]


def test_filter_on_the_wrong_value_names_the_item(tmp_path: Path) -> None:
    root = make_game(tmp_path, [{"type": "text", "box": [0, 0, 60, 10], "text": "{name|roman}", "style": "body"}],
                     [item(id="odd", name="five")])
    with pytest.raises(DataError) as exc:
        plan(root)
    (d,) = exc.value.diagnostics
    assert d.message == "filter |roman needs a number, got 'five' (game mini, component deck, item odd)"


# -- images: fit from data, focus, bleed -----------------------------------------------------

def _png(root: Path, name: str, size: tuple[int, int]) -> None:
    PILImage.new("RGB", size, "red").save(root / "card_data" / "mini" / name)


def test_fit_from_data_and_focus(tmp_path: Path) -> None:
    fields = {"fit": {"type": "string", "description": "fit"}, "name": {"type": "string", "description": "n"}}
    els = [{"type": "image", "src": "wide.png", "box": [10, 10, 20, 20], "fit": "{fit}", "focus": [0, 0.5]}]
    root = make_game(tmp_path, els, [item(id="a", fit="cover"), item(id="b", fit="contain"),
                                     item(id="c", fit="squash")], fields=fields)
    _png(tmp_path, "wide.png", (400, 200))
    from pnp.input.project import load_game
    from pnp.layout.piece import Context, layout_piece
    from pnp.plan.session import Session

    s = Session(root)
    g = load_game(root, "mini")
    comp = g.components[0]
    tpl = s.store.get("mini/front")
    ctx = Context(s.fonts, g, comp, BLEED)
    (cover,) = layout_piece(tpl, comp.items[0], ctx).primitives
    assert isinstance(cover, Image)
    # cover: 40 x 20 mm, its left edge on the box's left edge (focus x = 0), clipped to the box
    assert (cover.x / MM, cover.w / MM, cover.h / MM) == pytest.approx((10, 40, 20))
    assert cover.clip == pytest.approx((10 * MM, 58 * MM, 20 * MM, 20 * MM))
    (contain,) = layout_piece(tpl, comp.items[1], ctx).primitives
    assert (contain.w / MM, contain.h / MM) == pytest.approx((20, 10)) and contain.clip is None
    with pytest.raises(DataError) as exc:
        layout_piece(tpl, comp.items[2], ctx)
    assert exc.value.diagnostics[0].message == "fit {fit} is 'squash' (game mini, component deck, item c)"


def test_image_bleed_reaches_the_bleed_edge(tmp_path: Path) -> None:
    els = [{"type": "image", "src": "art.png", "box": [0, 0, "w", "h/2"], "fit": "cover", "bleed": True}]
    root = make_game(tmp_path, els, [item()])
    _png(tmp_path, "art.png", (300, 300))
    (p,) = plan(root)[0].fronts[0].primitives
    assert p.clip == pytest.approx((-BLEED, 44 * MM, 63 * MM + 2 * BLEED, 44 * MM + BLEED))


# -- a template per item ----------------------------------------------------------------------

def _per_item_game(tmp_path: Path, template: str, items: list[dict]) -> object:
    fields = {"name": {"type": "string", "description": "n"}, "arcana": {"type": "string", "description": "a"}}
    root = make_game(tmp_path, [{"type": "text", "box": [0, 0, 60, 10], "text": "minor {name}", "style": "body"}],
                     items, fields=fields)
    import json

    (tmp_path / "templates" / "mini" / "major.json").write_text(json.dumps({
        "extends": "mini/front", "remove": [], "elements": [
            {"type": "text", "box": [0, 20, 60, 10], "text": "MAJOR {name|upper}", "style": "body"}]}))
    manifest = root.card_data / "mini" / "game.json"
    data = json.loads(manifest.read_text())
    data["components"][0]["template"] = template
    manifest.write_text(json.dumps(data))
    return root


def test_template_chosen_per_item_from_a_field(tmp_path: Path) -> None:
    root = _per_item_game(tmp_path, "mini/{arcana}", [item(id="fool", name="Fool", arcana="major"),
                                                       item(id="two", name="Two", arcana="front")])
    p = plan(root)[0]
    assert [t.text for t in texts(p.fronts[0].primitives)] == ["minor Fool", "MAJOR FOOL"]
    assert [t.text for t in texts(p.fronts[1].primitives)] == ["minor Two"]


def test_template_per_item_errors_name_the_items(tmp_path: Path) -> None:
    root = _per_item_game(tmp_path, "mini/{arcana}", [item(id="a", arcana="majr"), item(id="b", arcana="majr"),
                                                       item(id="c"), item(id="d", arcana="major")])
    with pytest.raises(DataError) as exc:
        plan(root)
    msgs = [(d.path, d.message, d.hint) for d in exc.value.diagnostics]
    assert msgs == [
        (("components", 0, "template"), "template 'mini/{arcana}' gives template 'mini/majr', which is not found "
         "(component deck, items a, b)", "did you mean 'mini/major'?"),
        (("components", 0, "template"), "template 'mini/{arcana}' gives 'mini/', not a template name "
         "(component deck, item c)", "give the item a value for the field"),
    ]


def test_editing_a_template_chosen_per_item_changes_the_data_version(tmp_path: Path) -> None:
    from pnp.input.project import load_game
    from pnp.plan.digest import data_version
    from pnp.plan.session import Session

    root = _per_item_game(tmp_path, "mini/{arcana}", [item(id="fool", name="Fool", arcana="major")])

    def version() -> str:
        s = Session(root)
        g = load_game(root, "mini")
        return data_version(root, s.store, g, g.components[0])

    before = version()
    major = tmp_path / "templates" / "mini" / "major.json"
    major.write_text(major.read_text().replace("MAJOR", "Major"))
    assert version() != before


@pytest.mark.parametrize("name", ["roman", "roman_lower", "int", "thousands", "percent", "ordinal", "signed",
                                  "fixed0", "fixed2", "fixed6", "pad2", "pad6"])
def test_number_filters_on_a_whole_number_past_a_float(name: str) -> None:
    """A whole number past a float's range (400 digits) overflowed the number filters' floats
    (OverflowError, exit 3: attack 13, F5): each says it needs a number of a sensible size. The
    loaders refuse such numbers; 10**308 and below, which they take, print."""
    fn = get_filter(name)
    assert fn is not None
    for sign in (1, -1):
        with pytest.raises(LayoutError) as exc:
            fn(sign * 10**400)
        assert (exc.value.message, exc.value.expected) == (
            f"filter |{name} needs a number of a sensible size, got a whole number of 401 digits",
            "a number at most about 1e308")
        if name.startswith("roman"):
            continue  # 0 to 3999
        out = str(fn(sign * 10**308))  # |int gives the number itself
        assert out.replace(",", "").count("0") >= 308, out


def test_percent_past_a_float_is_an_error() -> None:
    fn = get_filter("percent")
    assert fn is not None and fn(10**307) == "1" + "0" * 309 + "%"
    with pytest.raises(LayoutError) as exc:  # 1e307 x 100 was printed "inf%"
        fn(1e307)
    assert exc.value.message == "filter |percent needs a fraction of a sensible size, got 1e+307"


def test_field_references_that_make_a_huge_text_stop_before_it_is_made(tmp_path: Path) -> None:
    """20,000 references to a field of 100,000 characters made a text of 2 billion before its
    length was checked (out of memory, exit 3: attack 13, the sibling of F11's errata): the
    references stop at MAX_SUBSTITUTED characters, as each is added. One that a `replace` then
    shortens below MAX_TEXT still prints."""
    long = "b" * 100_000
    root = make_game(tmp_path, [{"type": "text", "box": [0, 0, 60, 10], "text": "{name|upper}" * 20_000,
                                 "style": "body"}], [item(name=long)])
    with pytest.raises(DataError) as exc:
        plan(root)
    (d,) = exc.value.diagnostics
    assert (d.path, d.message, d.expected) == (
        ("elements", 0), f"the field references make a text of more than {MAX_SUBSTITUTED} characters: far more "
        "than a piece can hold (game mini, component deck, item a)", "at most 20000 characters on a piece")
    root = make_game(tmp_path / "ok", [{"type": "text", "box": [0, 0, 60, 10], "text": "{name}" * 9,
                                        "style": "body", "replace": [{"pattern": "b+", "with": "B"}]}],
                     [item(name=long)])
    assert [t.text for t in texts(plan(root)[0].fronts[0].primitives)] == ["B"]
