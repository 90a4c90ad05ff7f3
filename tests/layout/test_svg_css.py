"""SVG art's ``<style>`` sheets are bounded before svglib applies them (issue 19, attack 5: F1,
2,000 universal rules over 20,000 rects took 74 s; F2, 700,000 trivial rules took 1.4 GB), while
the class sheets editors write still apply; malformed path data is named, not svglib's words."""

from __future__ import annotations

from pathlib import Path

import pytest

from pnp.layout import svg_css
from pnp.layout.svg import SvgError, svg_art, svg_drawing

RECTS = '<rect class="c1" width="1" height="1"/>' * 5_000
HEAD = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'


def _write(tmp_path: Path, body: str, name: str = "a.svg") -> str:
    p = tmp_path / name
    p.write_text(HEAD + body + "</svg>")
    return str(p)


def _refused(path: str) -> SvgError:
    with pytest.raises(SvgError) as info:
        svg_art(path, "art/a.svg")
    return info.value


def _fills(drawing: object) -> list[object]:
    out, stack = [], [drawing]
    while stack:
        node = stack.pop()
        stack.extend(getattr(node, "contents", []))
        if hasattr(node, "fillColor") and not hasattr(node, "contents"):
            out.append(node.fillColor)
    return out


def test_an_editors_class_sheet_still_applies(tmp_path: Path) -> None:
    """Illustrator's "style elements" export: one `.cls-N` rule a colour, a class on each shape
    (its 884 KB logo: 1,989 rules, 47 KB, 3,698 elements); here 2,000 rules on 4,000 paths."""
    rules = "".join(f".cls-{i}{{fill:#{i % 256:02x}0000;}}" for i in range(2000))
    paths = "".join(f'<path class="cls-{i % 2000}" d="M0 0L1 1L0 1Z"/>' for i in range(4000))
    path = _write(tmp_path, f"<defs><style>{rules}</style></defs>{paths}")
    assert svg_art(path, "art/a.svg") == (7.5, 7.5)
    reds = sorted({round(c.red * 255) for c in _fills(svg_drawing(path))})  # type: ignore[attr-defined]
    assert reds == list(range(256))  # every class's own colour, read back from the drawing


def test_universal_selectors_over_many_elements_are_refused(tmp_path: Path) -> None:
    """F1's form (2,000 `*:not(.qN) *` rules over 20,000 rects) at a tenth of the rules."""
    rules = "".join(f"*:not(.q{i}) *{{fill:#f00}}" for i in range(200))
    path = _write(tmp_path, f"<style>{rules}</style><g>{RECTS}</g>")
    err = _refused(path)
    assert "has a <style> whose 200 selectors would take up to" in err.message
    assert "steps for this file (1,000,000 + 10 a byte)" in err.expected and "PNG" in (err.hint or "")


def test_the_same_rules_keyed_to_a_class_pass(tmp_path: Path) -> None:
    """200 class rules over 5,000 such rects: each rect is tested on its own class's rule only
    (`.qN rect` would be filed under `rect` and tested on every rect: refused)."""
    rules = "".join(f".q{i}{{fill:#f00}}" for i in range(200))
    path = _write(tmp_path, f"<style>{rules}</style><g>{RECTS.replace('c1', 'q7')}</g>")
    assert svg_art(path, "art/a.svg") == (7.5, 7.5)


@pytest.mark.parametrize(("body", "said"), [
    ("<style>" + "rect{fill:red}" * 10_000 + "</style><rect width='5' height='5'/>",
     "has 140,000 bytes of <style> text (line 1)"),
    ("<style>" + ".a," * 11_000 + ".a{fill:red}</style><rect width='5' height='5'/>",
     "has more than 10,000 CSS selectors (line 1)"),
    ("<style>rect{fill:red}\n\nrect</style><rect width='5' height='5'/>",
     "has a CSS rule that cannot be read (line 3): EOF reached before {} block"),
    ("<style>rect:frobnicate{fill:red}</style><rect width='5' height='5'/>",
     "has a CSS selector svglib cannot apply: 'rect:frobnicate' (line 1: Unknown pseudo-class: frobnicate)"),
    # a descendant step costs the tree's depth: 3 rules `.nN * rect` over 100 rects 200 groups deep
    ("<style>.n0 * rect{fill:red}.n1 * rect{fill:red}.n2 * rect{fill:red}</style>"
     + "<g>" * 200 + "<rect width='1' height='1'/>" * 100 + "</g>" * 200, "would take up to"),
    # a sibling step costs the longest row: `.nN ~ rect` over 2,000 rects side by side
    ("<style>" + "".join(f".n{i} ~ rect{{fill:red}}" for i in range(10)) + "</style><g>"
     + "<rect width='1' height='1'/>" * 2000 + "</g>", "would take up to"),
    # tinycss2 and cssselect2 recurse: these overflowed Python's stack (exit 3)
    ("<style>rect" + ":not(" * 5000 + ".a" + ")" * 5000 + "{fill:red}</style><rect width='5' height='5'/>",
     "has a CSS rule nested more than 8 deep"),
    ("<style>rect{fill:" + "(" * 30_000 + "}</style><rect width='5' height='5'/>", "has a CSS rule nested more than 8"),
    ("<style>" + "* " * 20_000 + "rect{fill:red}</style><rect width='5' height='5'/>",
     "has a CSS rule with a selector of more than 200 parts (line 1)"),
], ids=["bytes", "selectors", "parse-error", "unknown-pseudo-class", "descendant-depth", "sibling-row", "not-nested",
        "value-nested", "selector-long"])
def test_a_sheet_over_a_limit_is_refused(body: str, said: str, tmp_path: Path) -> None:
    err = _refused(_write(tmp_path, body))
    assert err.message.startswith("SVG 'art/a.svg' ") and said in err.message, err.message


def test_the_steps_weigh_what_cssselect2_walks(tmp_path: Path) -> None:
    """The estimate, read on small trees: a class rule is tested on its class's elements only; a
    universal one on all; a descendant step costs the depth, `~` the longest row."""
    from cssselect2 import parser
    from lxml import etree

    root = etree.fromstring(HEAD + "<g><g><rect class='a'/><rect/><rect/></g></g></svg>")  # 6 elements, 4 deep
    count, depth, test = 6, 4, svg_css.TEST_STEPS

    def steps(css: str) -> int:
        return svg_css._steps(root, list(parser.parse(css)), 0) - count * depth

    assert steps(".a") == 1 * (test + 2)  # one element has the class; compound 1 + class 1
    assert steps("*") == count * (test + 1)
    assert steps("rect") == 3 * (test + 2)
    assert steps(".b rect") == 3 * (test + 2 + depth * 2)
    assert steps(".b ~ rect") == 3 * (test + 2 + 3 * 2)  # the longest row: 3 rects
    assert svg_css._steps(root, list(parser.parse(".a")), 7) - count * depth == (1 + 7) * (test + 2)  # <use> copies


@pytest.mark.parametrize(("d", "said"), [
    ("M 0 0 L Q Z 1e999", "<path d=...> on line 2 has 'L' without its 2 numbers"),
    ("M 0 0 L 1", "<path d=...> on line 2 has 1 number(s) after 'L', which takes them 2 at a time"),
    ("M0 0 C 1 2 3", "has 3 number(s) after 'C', which takes them 6 at a time"),
    ("M 0 0 X 1", "has 'X' where a path command or a number belongs"),
    # svglib drew these, skipping what it could not read (attack 19: `L nan nan` passed unsaid)
    ("M 0 0 L nan nan L 5 5", "has 'n' where a path command or a number belongs"),
    ("M0 0 L1 1 Z 5 5", "has 2 number(s) after 'Z', which takes none"),
    ("M0 0 L1 1 2", "has 3 number(s) after 'L', which takes them 2 at a time"),
    ("M0 0 L1e 2", "has 'e' where a path command or a number belongs"),
])
def test_malformed_path_data_is_named(d: str, said: str, tmp_path: Path) -> None:
    """svglib's own words were "range() arg 3 must not be zero" or "Path.lineTo() missing 1
    required positional argument", or it drew the art skipping what it could not read."""
    err = _refused(_write(tmp_path, f'<g>\n<path d="{d}"/></g>'))
    assert err.message == f"SVG 'art/a.svg' cannot be drawn: {said}" or said in err.message, err.message
    assert "range()" not in err.message and "positional" not in err.message


def test_well_formed_path_data_is_drawn(tmp_path: Path) -> None:
    """Numbers run together as SVG allows (signs and dots start a new one), exponents, commas,
    implicit commands after M, arcs with packed flags, and points pairs."""
    d = "M10-5.5.5.7L1e1,2E-1 3 4H5V6C1 2 3 4 5 6 7 8 9 10 11 12S1 2 3 4Q1 2 3 4T5 6a1 1 0 0110 10zm1 1z"
    art = _write(tmp_path, f'<path d="{d}" fill="#f00"/><polyline points=" 1,2 3 4 " stroke="#00f"/>')
    assert svg_art(art, "a.svg")[0] > 0


def test_a_style_attribute_svglib_cannot_split_is_named(tmp_path: Path) -> None:
    err = _refused(_write(tmp_path, "<g>\n\n<rect width='1' height='1' style=\"fill:red;font-family:'a:b'\"/></g>"))
    assert err.message == ("SVG 'art/a.svg' cannot be drawn: the style attribute on line 3 has \"font-family:'a:b'\", "
                           "not one 'name: value' (svglib reads no ':' inside a value)"), err.message


def test_a_transform_of_many_functions_is_refused(tmp_path: Path) -> None:
    """svglib parses a transform list in time quadratic in its length: 200,000 functions took
    132 s of check (attack 6, F7). More than MAX_TRANSFORMS in one attribute is refused at once;
    a few still draw."""
    from pnp.layout.svg import MAX_TRANSFORMS

    rect = '<rect width="10" height="10" fill="#ff0000"/>'
    few = _write(tmp_path, f'<g transform="translate(1) scale(1.5) rotate(3)">{rect}</g>', "few.svg")
    assert svg_art(few, "few.svg")[0] > 0  # drawn
    many = _write(tmp_path, f'<g transform="{"translate(0) " * (MAX_TRANSFORMS + 1)}">{rect}</g>', "many.svg")
    assert f"has a transform of more than {MAX_TRANSFORMS} functions" in str(_refused(many))
