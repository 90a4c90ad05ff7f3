"""What svglib reads in SVG art but does not draw (markers, masks, filters, pattern fills, gradient
strokes, element opacity): the art is drawn without it, and `pnp check` says so, once per image
element and feature, naming the file's line (attack 23 saw a huge <marker> and a zero-size
<pattern> pass in silence)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pnp.layout.svg import svg_left_out
from tests.products.test_export import load, ok, write_game

HEAD = '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100" viewBox="0 0 100 100">\n'


def _svg(tmp_path: Path, body: str) -> str:
    path = tmp_path / "a.svg"
    path.write_text(HEAD + body + "\n</svg>", encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(("body", "left"), [
    ('<rect width="100" height="100" fill="#123456" stroke="black" opacity="1"/>', ()),
    ('<linearGradient id="g"><stop offset="0" stop-color="red" stop-opacity="0.5"/></linearGradient>\n'
     '<rect width="100" height="100" fill="url(#g)" fill-opacity="0.5"/>', ()),
    ('<marker id="m"><rect width="5" height="5"/></marker>\n<path d="M0 0 L9 9" stroke="red" marker-end="url(#m)"/>',
     (("a marker", 3),)),
    ('<rect width="9" height="9" style="mask: url(#k)"/>\n<mask id="k"><rect width="5" height="5"/></mask>',
     (("a mask", 2),)),
    ('<rect width="9" height="9" filter="url(#f)"/>', (("a filter", 2),)),
    ('<pattern id="p" width="4" height="4"><rect width="2" height="2"/></pattern>\n'
     '<rect width="9" height="9" fill="url(#p)" stroke="url(#p)"/>', (("a pattern fill", 3), ("a pattern stroke", 3))),
    ('<rect width="9" height="9" stroke="url(#g)"/>\n<radialGradient id="g"><stop offset="0"/></radialGradient>',
     (("a gradient stroke", 2),)),
    ('<g opacity="50%"><rect width="9" height="9"/></g>', (("the opacity of an element", 2),)),
    ('<switch><foreignObject width="9" height="9"><p xmlns="http://www.w3.org/1999/xhtml">Hi</p></foreignObject>\n'
     '<rect width="9" height="9"/></switch>', (("a <foreignObject>", 2),)),
])
def test_what_svglib_does_not_draw_is_found_with_its_line(tmp_path: Path, body: str,
                                                          left: tuple[tuple[str, int], ...]) -> None:
    assert svg_left_out(_svg(tmp_path, body)) == left


def test_check_warns_once_per_feature_of_the_art(tmp_path: Path) -> None:
    root = write_game(tmp_path / "root", "art", "poker-us", [{"id": n, "name": n.title(), "source": {"designed": "t"}}
                                                             for n in ("ash", "birch")])
    (root / "card_data" / "art" / "a.svg").write_text(
        HEAD + '<marker id="m"><rect width="5" height="5"/></marker>\n'
        '<path d="M0 0 L9 9" stroke="red" marker-end="url(#m)" marker-start="url(#m)"/>\n</svg>', encoding="utf-8")
    front = root / "templates" / "art" / "front.json"
    tpl = load(front)
    tpl["elements"].append({"type": "image", "src": "a.svg", "box": [5, 5, 20, 20]})
    front.write_text(json.dumps(tpl), encoding="utf-8")
    r = ok("check", "--data", root, "art")
    said = [line for line in r.stderr.splitlines() if "not drawn by pnp" in line]
    assert said == [f"warning: {root / 'templates/art/front.json'}:1:309: $.elements[2]: SVG 'a.svg': a marker "
                    "(line 3) is not drawn by pnp and is left out in game art, component deck, 2 items: ash, birch "
                    "(expected SVG art of shapes and paths, filled with colours or gradients, clipped by clip paths); "
                    "flatten it in an SVG editor (Inkscape: Path > Object to Path, Stroke to Path), or export the "
                    "art as a PNG"], r.stderr


def test_an_svg_icon_is_warned_about_on_the_element_that_draws_it(tmp_path: Path) -> None:
    """The same for an SVG icon: on the `icon` element, and on a rich text drawing it inline."""
    root = write_game(tmp_path / "root", "art", "poker-us", [{"id": "ash", "name": "Ash", "source": {"designed": "t"}}])
    icons = root / "templates" / "art" / "icons"
    icons.mkdir()
    (icons / "m.svg").write_text(HEAD + '<g opacity="0.4"><rect width="50" height="50"/></g>\n</svg>', encoding="utf-8")
    front = root / "templates" / "art" / "front.json"
    tpl = load(front)
    tpl["icons"] = {"m": {"svg": "icons/m.svg"}}
    tpl["elements"] += [{"type": "icon", "name": "m", "box": [5, 5, 10, 10]},
                        {"type": "richtext", "box": [5, 20, 40, 10], "text": "Pay {icon:m} {icon:m}.",
                         "style": "title"}]
    front.write_text(json.dumps(tpl), encoding="utf-8")
    r = ok("check", "--data", root, "art")
    said = [line.split(": SVG ")[0].rsplit(": ", 1)[1] + ": " + line.split(": SVG ")[1].split(" in game")[0]
            for line in r.stderr.splitlines() if "not drawn by pnp" in line]
    told = "'icons/m.svg': the opacity of an element (line 2) is not drawn by pnp and is left out"
    assert said == [f"$.elements[2]: {told}", f"$.elements[3]: {told}"]
