"""Templates as data: the `extends` chain merges parent first (colours, palettes, icons by name,
styles key by key, elements replaced in place by id, `remove`), and every template problem is a
DataError naming the template file, the line and the element path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import DataRootCopy, assert_no_traceback, diag_lines

from pnp.errors import DataError, Diagnostic
from pnp.input.project import DataRoot
from pnp.input.templates import TemplateStore
from pnp.qa.check import check

CARD = "templates/mini/card.json"


def write(root: Path, name: str, data: dict) -> None:
    p = root / "templates" / f"{name}.json"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(data, indent=1) + "\n")


def store_error(store: TemplateStore, name: str) -> tuple[Diagnostic, ...]:
    with pytest.raises(DataError) as info:
        store.get(name)
    return info.value.diagnostics


@pytest.fixture(autouse=True)
def in_the_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Messages name files relative to the working folder: run where the data root is."""
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def chain(tmp_path: Path) -> TemplateStore:
    """t/base <- t/mid <- t/child."""
    write(tmp_path, "t/base", {
        "size": [63, 88],
        "colors": {"a": "#aaaaaa", "b": "#bbbbbb"},
        "palettes": {"p": {"x": "#000001"}, "q": {"x": "#000002"}},
        "styles": {"title": {"font": "Lato-Bold", "size": 12, "color": "a", "align": "center"}},
        "icons": {"dot": {"shapes": [{"circle": [50, 50, 10]}]}},
        "elements": [
            {"id": "bg", "type": "rect", "box": [0, 0, 63, 88], "fill": "a"},
            {"id": "band", "type": "rect", "box": [0, 0, 63, 10], "fill": "b"},
            {"id": "title", "type": "text", "box": [3, 1, 57, 8], "text": "{name}", "style": "title"},
        ],
    })
    write(tmp_path, "t/mid", {
        "extends": "t/base",
        "colors": {"b": "#b0b0b0"},
        "palettes": {"p": {"y": "#000003"}},
        "styles": {"title": {"size": 14}},
        "elements": [
            {"id": "band", "type": "rect", "box": [0, 0, 63, 20], "fill": "b"},
            {"id": "mid-only", "type": "circle", "box": [1, 1, 5, 5]},
        ],
    })
    write(tmp_path, "t/child", {
        "extends": "t/mid",
        "colors": {"c": "#cccccc"},
        "styles": {"body": {"extends": "title", "size": 9, "align": "left"}},
        "remove": ["title"],
        "elements": [{"id": "child-only", "type": "line", "from": [0, 0], "to": [1, 1]}],
    })
    return TemplateStore(DataRoot(tmp_path))


# -- merging -------------------------------------------------------------------------------------

def test_chain_is_named_child_first(chain: TemplateStore) -> None:
    assert chain.get("t/child").chain == ("t/child", "t/mid", "t/base")


def test_colors_child_wins_by_name(chain: TemplateStore) -> None:
    assert dict(chain.get("t/child").colors) == {"a": "#aaaaaa", "b": "#b0b0b0", "c": "#cccccc"}


def test_palettes_are_replaced_whole_by_name(chain: TemplateStore) -> None:
    pal = chain.get("t/child").palettes
    assert dict(pal["p"]) == {"y": "#000003"}  # the child's palette, not a merge of the two
    assert dict(pal["q"]) == {"x": "#000002"}


def test_styles_merge_key_by_key_and_resolve_extends(chain: TemplateStore) -> None:
    st = chain.get("t/child").styles
    assert dict(st["title"]) == {"font": "Lato-Bold", "size": 14, "color": "a", "align": "center"}
    assert dict(st["body"]) == {"font": "Lato-Bold", "size": 9, "color": "a", "align": "left"}


def test_icons_and_size_are_inherited(chain: TemplateStore) -> None:
    tpl = chain.get("t/child")
    assert set(tpl.icons) == {"dot"}
    assert tpl.size == (63.0, 88.0)


def test_elements_replaced_in_place_removed_and_appended(chain: TemplateStore) -> None:
    els = chain.get("t/child").elements
    assert [e.data.get("id") for e in els] == ["bg", "band", "mid-only", "child-only"]
    band = els[1]
    assert band.data["box"] == [0, 0, 63, 20]  # mid's version, at base's position
    assert band.doc.path.name == "mid.json"
    assert band.path == ("elements", 0)
    assert els[0].doc.path.name == "base.json"


def test_parent_alone_is_unchanged(chain: TemplateStore) -> None:
    base = chain.get("t/base")
    assert [e.data.get("id") for e in base.elements] == ["bg", "band", "title"]
    assert base.colors["b"] == "#bbbbbb"


def test_remove_of_an_unknown_id(tmp_path: Path) -> None:
    write(tmp_path, "t/base", {"elements": [{"id": "bg", "type": "rect", "box": [0, 0, 1, 1]}]})
    write(tmp_path, "t/child", {"extends": "t/base", "remove": ["bg", "gb"]})
    (d,) = store_error(TemplateStore(DataRoot(tmp_path)), "t/child")
    assert (d.file, d.line, d.col, d.path) == ("templates/t/child.json", 5, 3, ("remove", 1))
    assert d.message == "no inherited element with id 'gb' to remove"


# -- cycles and unknown names ---------------------------------------------------------------------

def test_extends_cycle_names_the_chain(tmp_path: Path) -> None:
    write(tmp_path, "t/a", {"extends": "t/b"})
    write(tmp_path, "t/b", {"extends": "t/c"})
    write(tmp_path, "t/c", {"extends": "t/a"})
    (d,) = store_error(TemplateStore(DataRoot(tmp_path)), "t/a")
    assert d.message == "`extends` cycle: t/a -> t/b -> t/c -> t/a"
    assert (d.file, d.line, d.col, d.path) == ("templates/t/c.json", 2, 13, ("extends",))


def test_template_extending_itself(tmp_path: Path) -> None:
    write(tmp_path, "t/a", {"description": "loops", "extends": "t/a"})
    (d,) = store_error(TemplateStore(DataRoot(tmp_path)), "t/a")
    assert d.message == "`extends` cycle: t/a -> t/a"
    assert (d.file, d.line) == ("templates/t/a.json", 3)


def test_unknown_template_with_suggestion(chain: TemplateStore) -> None:
    (d,) = store_error(chain, "t/chlid")
    assert d.message == "template 't/chlid' not found (templates/t/chlid.json)"
    assert d.hint == "did you mean 't/child'?"


def test_unknown_parent_is_reported_at_the_extends_line(tmp_path: Path) -> None:
    write(tmp_path, "t/base", {})
    write(tmp_path, "t/child", {"description": "x", "extends": "t/bsae"})
    (d,) = store_error(TemplateStore(DataRoot(tmp_path)), "t/child")
    assert (d.file, d.line, d.col, d.path) == ("templates/t/child.json", 3, 13, ("extends",))
    assert d.hint == "did you mean 't/base'?"


def test_style_extends_cycle_and_unknown_parent_style(tmp_path: Path) -> None:
    write(tmp_path, "t/s", {"styles": {"a": {"extends": "b"}, "b": {"extends": "a"}, "c": {"extends": "nope"}}})
    msgs = {d.message for d in store_error(TemplateStore(DataRoot(tmp_path)), "t/s")}
    assert "style `extends` cycle: a -> b -> a" in msgs
    assert "style 'c' extends unknown style 'nope'" in msgs


def test_a_style_chain_deeper_than_python_recursion_resolves(tmp_path: Path) -> None:
    """3,000 styles, each extending the previous: worked out without recursion (it was a
    RecursionError, exit 3, attack 13 F6), each key from the nearest style that sets it."""
    styles = {"s0": {"font": "Lato-Bold", "size": 12, "color": "ink"}}
    styles |= {f"s{i}": {"extends": f"s{i - 1}"} for i in range(1, 3000)}
    styles["s1500"] = {"extends": "s1499", "size": 9}
    write(tmp_path, "t/s", {"styles": styles})
    got = TemplateStore(DataRoot(tmp_path)).get("t/s").styles
    assert list(got) == list(styles)
    assert dict(got["s2999"]) == {"font": "Lato-Bold", "size": 9, "color": "ink"}
    assert dict(got["s1499"]) == {"font": "Lato-Bold", "size": 12, "color": "ink"}


def test_a_style_cycle_is_reported_once_where_it_closes(tmp_path: Path) -> None:
    """Styles leading into a cycle or an unknown parent are not reported again, each problem once,
    at the `extends` that breaks the chain, in the template that wrote it."""
    write(tmp_path, "t/base", {"styles": {"a": {"extends": "b"}, "b": {"extends": "c"}, "c": {"extends": "a"}}})
    write(tmp_path, "t/s", {"extends": "t/base", "styles": {"d": {"extends": "a"}, "e": {"extends": "d"},
                                                          "f": {"extends": "nope"}}})
    diags = store_error(TemplateStore(DataRoot(tmp_path)), "t/s")
    assert [(d.file, d.line, d.path, d.message) for d in diags] == [
        ("templates/t/base.json", 10, ("styles", "c", "extends"), "style `extends` cycle: a -> b -> c -> a"),
        ("templates/t/s.json", 11, ("styles", "f", "extends"), "style 'f' extends unknown style 'nope'")]


def test_unknown_template_in_the_manifest(mini: DataRootCopy) -> None:
    mini.replace("game.json", '"template": "mini/card"', '"template": "mini/crad"')
    r = mini.check()
    assert r.exit_code == 2
    assert_no_traceback(r)
    assert diag_lines(r.stderr) == [
        "card_data/mini/game.json:14:19: $.components[0].template: template 'mini/crad' not found "
        "(templates/mini/crad.json) (expected an existing template name); did you mean 'mini/card'?"]


def test_template_schema_error_with_suggestion(mini: DataRootCopy) -> None:
    mini.replace(CARD, '"box": [3, 2, 38, 8]', '"bx": [3, 2, 38, 8]')
    r = mini.check()
    assert r.exit_code == 2
    assert diag_lines(r.stderr) == [
        f"{CARD}:7:5: $.elements[1]: missing required field 'box' "
        '(expected "box": [x, y, width, height] in mm from the trim\'s top-left, or expressions of the piece\'s '
        "w and h); add it to this object",
        f"{CARD}:7:37: $.elements[1].bx: unknown field 'bx' (expected one of align, box, color, fit, font, id, "
        "origin, otherwise, preflight, replace, rotate, size, style, text, type, valign, when, wrap); "
        "did you mean 'box'?",
    ]


# -- references that do not resolve --------------------------------------------------------------

def layout_errors(root: DataRootCopy) -> list[Diagnostic]:
    with pytest.raises(DataError) as info:
        check(root.root, root.game)
    return list(info.value.diagnostics)


def test_unknown_style(mini: DataRootCopy) -> None:
    mini.replace(CARD, '"style": "title"', '"style": "titel"')
    (d,) = layout_errors(mini)
    # found with the template's other static problems, before any piece is laid out
    assert d.format() == (f"{CARD}:7:86: $.elements[1].style: unknown style 'titel' (component deck) "
                          "(expected one of body, title); did you mean 'title'?")


def test_unknown_colour(mini: DataRootCopy) -> None:
    mini.replace(CARD, '"fg": "ink"', '"fg": "inc"')
    (d,) = layout_errors(mini)
    assert (d.file, d.line, d.path) == (CARD, 8, ("elements", 2, "fg"))
    assert d.message == "unknown colour 'inc' (did you mean 'ink'?) (game mini, component deck, item sun-1)"
    assert d.expected == "#RRGGBB, none, or a name from `colors`: ink, paper"


def test_unknown_palette(mini: DataRootCopy) -> None:
    mini.replace(CARD, '"palette": "suit"', '"palette": "suits"')
    (d,) = layout_errors(mini)
    assert (d.file, d.line, d.col, d.path) == (CARD, 6, 67, ("elements", 0, "fill"))
    assert d.message.startswith("unknown palette 'suits'")
    assert d.expected == "one of suit"


def test_palette_without_a_colour_for_the_value(mini: DataRootCopy) -> None:
    mini.replace(CARD, ', "default": "#cccccc"', "")
    (d,) = layout_errors(mini)
    assert (d.line, d.path) == (6, ("elements", 0, "fill"))
    # The joker has no suit: a palette lookup with no entry and no default is an error, not black.
    assert d.message == "palette 'suit' has no colour for suit=None (game mini, component deck, item joker)"


def test_unknown_icon_in_an_inherited_set(mini: DataRootCopy) -> None:
    mini.replace("templates/mini/base.json", '"moon-mark"', '"moon-mrk"')
    (d,) = layout_errors(mini)
    assert (d.file, d.line, d.col, d.path) == (CARD, 8, 67, ("elements", 2, "name"))
    assert d.message == "unknown icon 'moon-mark' (did you mean 'moon-mrk'?) (game mini, component deck, item moon-1)"
    assert d.expected == "an icon defined in the template chain (mini/card, mini/base)"


def test_reference_to_a_missing_field(mini: DataRootCopy) -> None:
    mini.replace(CARD, '"text": "{name}"', '"text": "{nmae}"')
    (d,) = layout_errors(mini)
    assert (d.file, d.line, d.col, d.path) == (CARD, 7, 67, ("elements", 1, "text"))
    assert d.message == "unknown field {nmae} (component deck)"
    assert "name" in (d.expected or "").split(", ")


def test_condition_on_a_missing_field(mini: DataRootCopy) -> None:
    mini.replace(CARD, '"when": {"field": "power"', '"when": {"field": "pwr"')
    (d,) = layout_errors(mini)
    assert (d.line, d.path) == (11, ("elements", 3, "when", "field"))
    assert d.message == "unknown field 'pwr' (component deck)"


def test_missing_field_in_an_element_no_item_draws_is_still_an_error(mini: DataRootCopy) -> None:
    # No item has power > 100, so the element never renders; its reference is still checked.
    mini.replace(CARD, '"text": "Power {power}"', '"text": "Power {powr}"')
    mini.replace(CARD, '"when": {"field": "power", "present": true}', '"when": {"field": "power", "min": 100}')
    (d,) = layout_errors(mini)
    assert (d.line, d.path) == (10, ("elements", 3, "text"))


def test_template_size_must_match_the_component(mini: DataRootCopy) -> None:
    mini.replace(CARD, '"size": [44, 63]', '"size": [63, 88]')
    (d,) = layout_errors(mini)
    assert d.format() == (f"{CARD}:4:11: $.size: template mini/card is drawn for 63 x 88 mm but component deck "
                          "is 44 x 63 mm (expected the component's size)")


def test_errors_of_front_and_back_templates_are_reported_together(mini: DataRootCopy) -> None:
    mini.replace(CARD, '"size": [44, 63]', '"size": [63, 88]')
    mini.replace("templates/mini/back.json", '"size": [44, 63]', '"size": [44, 64]')
    assert [d.file for d in layout_errors(mini)] == [CARD, "templates/mini/back.json"]


def test_template_errors_via_cli_exit_2(mini: DataRootCopy) -> None:
    mini.replace(CARD, '"style": "title"', '"style": "titel"')
    r = mini.check()
    assert r.exit_code == 2
    assert_no_traceback(r)
    (line,) = diag_lines(r.stderr)
    assert line.startswith(f"{CARD}:7:86: $.elements[1].style: unknown style 'titel'")


# -- data roots: own templates first, bundled ones as a fallback ------------------------------------

def test_root_template_overrides_the_bundled_one(golems_with_templates: DataRootCopy) -> None:
    g = golems_with_templates
    g.replace("templates/golems/counter.json", '"fill": "#8e2f25"', '"fill": "blood"')
    line, col = g.pos_of("templates/golems/counter.json", '"blood"')
    r = g.check()
    assert r.exit_code == 2
    assert_no_traceback(r)
    (msg,) = diag_lines(r.stderr)
    assert msg.startswith(f"templates/golems/counter.json:{line}:{col}: $.elements[0].fill: unknown colour 'blood'")


def test_parent_templates_fall_back_to_the_bundled_ones(golems_with_templates: DataRootCopy) -> None:
    # The root has templates/golems/ but no templates/shared/: golems/style extends shared/icons.
    assert not (golems_with_templates.path / "templates" / "shared").exists()
    r = golems_with_templates.check()
    assert r.exit_code == 0, r.stderr


def test_unknown_template_suggestion_includes_bundled_names(golems: DataRootCopy) -> None:
    golems.replace("game.json", '"template": "golems/golem-card"', '"template": "golems/golem-crad"')
    line, col = golems.pos_of("game.json", '"golems/golem-crad"')
    r = golems.check()
    assert r.exit_code == 2
    assert diag_lines(r.stderr) == [
        f"card_data/golems/game.json:{line}:{col}: $.components[1].template: template 'golems/golem-crad' not found "
        "(templates/golems/golem-crad.json) (expected an existing template name); did you mean 'golems/golem-card'?"]


def test_an_element_id_twice_in_one_template_is_an_error(tmp_path: Path) -> None:
    """Within one template, a second element with an id would replace the first unseen (the
    replace-by-id rule is for inherited elements): Cauldron's omen had two 'emblem's, the
    first never drawn."""
    write(tmp_path, "t/a", {"elements": [{"id": "x", "type": "rect", "box": [0, 0, 1, 1]},
                                         {"id": "y", "type": "rect", "box": [0, 0, 1, 1]},
                                         {"id": "x", "type": "rect", "box": [1, 1, 1, 1]}]})
    (d,) = store_error(TemplateStore(DataRoot(tmp_path)), "t/a")
    lines = (tmp_path / "templates" / "t" / "a.json").read_text().splitlines()
    x_lines = [n for n, ln in enumerate(lines, 1) if '"id": "x"' in ln]
    objects = [n for n, ln in enumerate(lines, 1) if ln.strip() == "{"][1:]  # each element's opening line
    assert (d.file, d.path, d.line) == ("templates/t/a.json", ("elements", 2, "id"), x_lines[1])
    assert d.message == (f"duplicate element id 'x' in one template (first at line {objects[0]}): the later would "
                         "replace the earlier unseen")
    # the same id in a child template replaces the inherited element, as before
    write(tmp_path, "t/b", {"extends": "t/a2", "elements": [{"id": "x", "type": "rect", "box": [2, 2, 1, 1]}]})
    write(tmp_path, "t/a2", {"elements": [{"id": "x", "type": "rect", "box": [0, 0, 1, 1]}]})
    assert [e.data["box"] for e in TemplateStore(DataRoot(tmp_path)).get("t/b").elements] == [[2, 2, 1, 1]]


def test_an_icon_stroke_wider_than_its_viewbox_is_refused(tmp_path: Path) -> None:
    """Attack 15, F5: an icon's 1-unit line 300 units wide in a 1-unit viewbox, drawn in a 0.3 mm
    box, is a 90 mm stroke over the whole card; 190 of them took 16 s to export as PNG. A stroke
    wider than its viewbox's larger side is refused where it is written; as wide is taken."""
    write(tmp_path, "t/base", {"icons": {
        "blob": {"viewbox": [1, 1], "shapes": [{"polyline": [[0, 0], [1, 1]], "stroke": "#ff000080",
                                                "stroke_width": 300}]},
        "fat": {"viewbox": [100, 50], "shapes": [{"circle": [50, 25, 10], "stroke": "fg", "stroke_width": 100}]}}})
    (d,) = store_error(TemplateStore(DataRoot(tmp_path)), "t/base")
    assert (d.file, d.path) == ("templates/t/base.json", ("icons", "blob", "shapes", 0, "stroke_width"))
    assert d.message == "icon 'blob': a stroke 300 units wide in a viewbox of 1"
    assert d.expected == "a stroke_width of at most the viewbox's larger side (1 units)"
    assert d.hint is not None and "viewbox units" in d.hint
