"""Templates that adapt, read back from the PDF: turned text (its text matrix and where its
characters land), relative boxes that re-flow when only the manifest's size changes, and SVG art
drawn as vectors (no image XObject), with errors for SVG files that cannot be used."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pdfplumber
import pytest
from pypdf import PdfReader

from pnp.errors import DataError
from pnp.input.project import DataRoot
from pnp.pipeline.build import build_checked
from pnp.plan.options import BuildOptions
from pnp.plan.session import Session
from pnp.qa.check import check
from pnp.units import MM
from tests.layout.test_layout import item, make_game

ONE = BuildOptions(print_shop=True)  # one piece per page, trim box set: piece coordinates read back simply


def build(root: DataRoot, out: Path) -> Path:
    s = Session(root)
    gc = check(root, "mini", ONE, s)
    (w,) = build_checked(root, gc, out, s)
    return w.path


def trim(path: Path, page: int = 0) -> tuple[float, float, float, float]:
    box = PdfReader(path).pages[page].trimbox
    return float(box.left), float(box.bottom), float(box.width), float(box.height)


def test_turned_text_reads_back_turned(tmp_path: Path) -> None:
    els = [{"type": "text", "box": [50, 20, 6, 50], "rotate": 90, "text": "{name}", "style": "body", "wrap": False},
           {"type": "text", "box": [5, 70, 40, 8], "rotate": 30, "text": "Tilt", "style": "body", "wrap": False}]
    path = build(make_game(tmp_path, els, [item(name="Sideways")]), tmp_path / "out")
    tx, ty, _, th = trim(path)
    with pdfplumber.open(path) as pdf:
        chars = pdf.pages[0].chars
    side = [c for c in chars if c["text"] in "Sideways"][:8]
    assert "".join(c["text"] for c in side) == "Sideways"
    for c in side:
        a, b, cc, d, _, _ = c["matrix"]
        # 90 degrees clockwise on the card: the glyphs' x axis points down the page
        assert (a, b, cc, d) == pytest.approx((0, -1, 1, 0))
        assert not c["upright"]
        # inside the 6 mm strip at x 50..56 mm, and within 20..70 mm from the top
        assert c["x0"] - tx >= 50 * MM - 0.5 and c["x1"] - tx <= 56 * MM + 0.5
    tops = [c["top"] for c in side]
    assert tops == sorted(tops)  # reading down the card
    page_h = float(PdfReader(path).pages[0].mediabox.height)
    assert min(tops) >= page_h - (ty + th) + 20 * MM - 0.5
    assert max(c["bottom"] for c in side) <= page_h - (ty + th) + 70 * MM + 0.5
    tilt = [c for c in chars if c["text"] in "Tilt"][-4:]
    a, b, cc, d, _, _ = tilt[0]["matrix"]
    assert math.degrees(math.atan2(b, a)) == pytest.approx(-30, abs=1e-4)  # 30 clockwise on the card


def _rects(path: Path, page: int = 0) -> list[tuple[float, float, float, float]]:
    """The filled red rectangles of a page in mm from the trim's top-left: (x, y, w, h)."""
    tx, ty, _, th = trim(path, page)
    with pdfplumber.open(path) as pdf:
        p = pdf.pages[page]
        ph = float(p.height)
        out = []
        for r in p.rects:
            if r["non_stroking_color"] and tuple(round(v, 3) for v in r["non_stroking_color"]) == (1, 0, 0):
                y_top = r["top"] - (ph - (ty + th))
                out.append(tuple(round(v / MM, 2) for v in (r["x0"] - tx, y_top, r["width"], r["height"])))
        return out


def test_changing_the_size_in_the_manifest_alone_reflows_the_boxes(tmp_path: Path) -> None:
    els = [{"type": "rect", "box": [3, 3, "w-6", "h/4"], "fill": "#ff0000"},
           {"type": "rect", "box": ["w/2-5", "h-13", 10, 10], "fill": "#ff0000"},
           {"type": "rect", "box": ["75%", "50%", "20%", "10%"], "fill": "#ff0000"}]
    root = make_game(tmp_path / "root", els, [item()])
    poker = _rects(build(root, tmp_path / "a"))
    assert poker == [(3, 3, 57, 22), (26.5, 75, 10, 10), (47.25, 44, 12.6, 8.8)]
    manifest = root.card_data / "mini" / "game.json"
    data = json.loads(manifest.read_text())
    data["components"][0]["size"] = "tarot"  # 70 x 120 mm; nothing else changes
    manifest.write_text(json.dumps(data))
    tarot = _rects(build(DataRoot(root.path), tmp_path / "b"))
    assert tarot == [(3, 3, 64, 30), (30, 107, 10, 10), (52.5, 60, 14, 12)]


SVG = """<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 50" width="100" height="50">
  <rect x="0" y="0" width="100" height="50" fill="#00ff00"/>
  <circle cx="25" cy="25" r="20" fill="#0000ff"/>
  <path d="M 60 10 L 90 10 L 75 40 Z" fill="#ff00ff"/>
</svg>"""


def _svg_game(tmp_path: Path, svg: str, fit: str = "contain") -> DataRoot:
    root = make_game(tmp_path / "root", [{"type": "image", "src": "art.svg", "box": [10, 10, 40, 40], "fit": fit}],
                     [item()])
    (root.card_data / "mini" / "art.svg").write_text(svg, encoding="utf-8")
    return root


def test_svg_is_drawn_as_vectors(tmp_path: Path) -> None:
    path = build(_svg_game(tmp_path, SVG), tmp_path / "out")
    tx, ty, _, th = trim(path)
    page = PdfReader(path).pages[0]
    xobjects = page["/Resources"].get("/XObject", {})
    assert not any(x.get_object().get("/Subtype") == "/Image" for x in xobjects.values())
    assert b"/Helvetica" not in path.read_bytes()  # no unembedded standard font comes with the art
    with pdfplumber.open(path) as pdf:
        p = pdf.pages[0]
        assert p.images == []
        ph = float(p.height)
        green = [r for r in p.rects if tuple(round(v, 3) for v in r["non_stroking_color"] or ()) == (0, 1, 0)]
        assert len(green) == 1
        g = green[0]
        # 100 x 50 art contained in a 40 x 40 mm box: 40 x 20 mm, centred vertically (y 20..40 mm)
        assert (g["x0"] - tx) / MM == pytest.approx(10, abs=0.01)
        assert g["width"] / MM == pytest.approx(40, abs=0.01) and g["height"] / MM == pytest.approx(20, abs=0.01)
        assert (g["top"] - (ph - (ty + th))) / MM == pytest.approx(20, abs=0.01)
        assert any(tuple(round(v, 3) for v in c["non_stroking_color"] or ()) == (0, 0, 1) for c in p.curves)


def test_svg_gradients_are_drawn_from_red_to_blue(tmp_path: Path) -> None:
    """``url(#id)`` (a gradient, in an attribute or a <style>) refers to the file itself and is
    drawn, where any other url() is refused (test_bad_svg_is_an_input_error). svglib draws a
    gradient as a PDF shading, which the art's form XObject must list in its resources: left
    out, each square filled black."""
    import pypdfium2 as pdfium

    svg = ("<svg xmlns='http://www.w3.org/2000/svg' width='100' height='50'><defs><linearGradient id='g'>"
           "<stop offset='0' stop-color='#ff0000'/><stop offset='1' stop-color='#0000ff'/></linearGradient></defs>"
           "<style>.b { fill: url( '#g' ) }</style><rect width='50' height='50' fill='url(#g)'/>"
           "<rect class='b' x='50' width='50' height='50'/></svg>")
    path = build(_svg_game(tmp_path, svg), tmp_path / "out")
    tx, ty, _, th = trim(path)
    scale = 4
    with pdfium.PdfDocument(str(path)) as pdf:
        ph = pdf[0].get_height()
        img = pdf[0].render(scale=scale).to_pil().convert("RGB")
    # the art: 40 x 20 mm at (10, 20) mm from the trim's left and top; two squares of 20 mm
    top = (ph - (ty + th)) + 20 * MM

    def px(x_mm: float) -> tuple[int, int, int]:
        return img.getpixel((round((tx + (10 + x_mm) * MM) * scale), round((top + 10 * MM) * scale)))

    for left in (0, 20):  # each square red at its left edge, blue at its right
        r, g, b = px(left + 1)
        assert r > 200 and b < 60 and g < 40, (left, (r, g, b))
        r, g, b = px(left + 19)
        assert b > 200 and r < 60 and g < 40, (left, (r, g, b))


def test_svg_cover_is_clipped_to_its_box(tmp_path: Path) -> None:
    path = build(_svg_game(tmp_path, SVG, fit="cover"), tmp_path / "out")
    with pdfplumber.open(path) as pdf:
        p = pdf.pages[0]
        green = [r for r in p.rects if tuple(round(v, 3) for v in r["non_stroking_color"] or ()) == (0, 1, 0)]
        assert green[0]["width"] / MM == pytest.approx(80, abs=0.01)  # scaled to cover the 40 mm height
    raw = PdfReader(path).pages[0].get_contents().get_data()
    assert raw.count(b" re W* n") == 2  # the slot's clip, and the art's


@pytest.mark.parametrize(("svg", "message", "hint"), [
    ("<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'><text x='1' y='5'>Hi</text></svg>",
     "SVG 'art.svg' has text (<text> on line 1)", "convert the text to outlines"),
    ("<svg xmlns='http://www.w3.org/2000/svg' xmlns:xlink='http://www.w3.org/1999/xlink' width='10' height='10'>"
     "<image xlink:href='../../../secret.png' width='5' height='5'/></svg>",
     "SVG 'art.svg' refers to another file ('../../../secret.png' on line 1)", "embed the referenced art"),
    # attack 9, borderline: CSS url() and @import passed the href rule (svglib ignored them)
    ("<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'><rect width='5' height='5' "
     "fill='url(file:///etc/passwd#a)'/></svg>",
     "SVG 'art.svg' refers to another file ('file:///etc/passwd#a' on line 1)", "embed the referenced art"),
    ("<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'><rect width='5' height='5' "
     "style='fill: URL( \"../x.svg#g\" )'/></svg>",
     "SVG 'art.svg' refers to another file ('../x.svg#g' on line 1)", "embed the referenced art"),
    ("<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'>\n<style>@import url(/etc/passwd);\n"
     "rect { fill: red }</style><rect width='5' height='5'/></svg>",
     "SVG 'art.svg' refers to another file ('/etc/passwd' on line 2)", "embed the referenced art"),
    ("<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'><style>@import 'other.css';</style>"
     "<rect width='5' height='5'/></svg>",
     "SVG 'art.svg' refers to another file (\"@import 'other.css'\" on line 1)", "embed the referenced art"),
    # attack 17, borderline: CSS escapes spelling url( and @import passed the check
    ("<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'><style>rect{fill:u\\72l(/etc/passwd)}</style>"
     "<rect width='5' height='5'/></svg>",
     "SVG 'art.svg' refers to another file ('/etc/passwd' on line 1)", "embed the referenced art"),
    ("<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'><style>@\\69 mport 'x.css';</style>"
     "<rect width='5' height='5'/></svg>",
     "SVG 'art.svg' refers to another file (\"@import 'x.css'\" on line 1)", "embed the referenced art"),
    ("<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'><rect width='5'</svg>",
     "SVG 'art.svg' cannot be read: ", "open it in an SVG editor"),
    ("<?xml version='1.0'?><!DOCTYPE svg [<!ENTITY a 'aaaa'>]><svg xmlns='http://www.w3.org/2000/svg' "
     "width='10' height='10'>&a;</svg>", "SVG 'art.svg' declares entities in a DOCTYPE", "without a DOCTYPE"),
    ("<html><body/></html>", "SVG 'art.svg' has a <html> root, not <svg>", None),
    ("<svg xmlns='http://www.w3.org/2000/svg'><rect width='5' height='5'/></svg>",
     "SVG 'art.svg' has no usable size", None),
    # attack 9: scaled to its box, a viewBox of next to nothing passed what a PDF holds (exit 3)
    ("<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 1e-30 1e-30'><rect width='1e-31' height='1e-31'/></svg>",
     "SVG 'art.svg' has no usable size", None),
    # numbers the XML holds but a PDF cannot (the second attack: exit 3 at build, check passed)
    ("<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'><path d='M0 0 L 1e999 1'/></svg>",
     "SVG 'art.svg' has a number a PDF cannot hold: inf in a Path's points", "save it again"),
    ("<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'><g transform='scale(1e300)'>"
     "<rect width='5' height='5'/></g></svg>", "SVG 'art.svg' has a number a PDF cannot hold: 1e+300 in a Group's",
     "save it again"),
    ("<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'><rect width='5' height='5' "
     "stroke='black' stroke-width='1e999'/></svg>", "SVG 'art.svg' has a number a PDF cannot hold: inf in a Rect's",
     "save it again"),
    ("<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'><circle cx='5' cy='5' r='nan'/></svg>",
     "SVG 'art.svg' has a number a PDF cannot hold: nan", "save it again"),
    # svglib takes time quadratic in an element's properties (attack 7: 40,000 attributes, 31 s)
    ("<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'><rect width='5' height='5' "
     + " ".join(f"a{i}='1'" for i in range(201)) + "/></svg>",
     "SVG 'art.svg' has an element with more than 200 attributes (<rect> on line 1)", "save it again"),
    ("<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'><rect width='5' height='5' style='"
     + ";".join(f"x{i}:1" for i in range(201)) + "'/></svg>",
     "SVG 'art.svg' has an element with more than 200 declarations in its style attribute (<rect> on line 1)",
     "save it again"),
    ("<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'><style>rect {"
     + ";".join(f"x{i}:1" for i in range(201)) + "}</style><rect width='5' height='5'/></svg>",
     "SVG 'art.svg' has a <style> of more than 200 different properties (line 1)", "simplify the art's <style>"),
])
def test_bad_svg_is_an_input_error(tmp_path: Path, svg: str, message: str, hint: str | None) -> None:
    root = _svg_game(tmp_path, svg)
    with pytest.raises(DataError) as exc:
        build(root, tmp_path / "out")
    (d,) = exc.value.diagnostics
    assert d.message.startswith(message), d.message
    assert d.message.endswith("(game mini, component deck, item a)")
    assert d.path == ("elements", 0, "src")
    assert d.hint is None if hint is None else hint in (d.hint or "")
    assert not (tmp_path / "out" / "mini" / "deck.pdf").exists()


@pytest.mark.parametrize("transform", ["scale(0)", "matrix(0 0 0 0 0 0)", "matrix(1 1 1 1 0 0)", "scale(0,1)",
                                       "scale(1e-200)"])
def test_a_collapsed_group_draws_nothing(tmp_path: Path, transform: str) -> None:
    """A singular transform (attack4 F5: ZeroDivisionError at build, check passed) is legal SVG:
    browsers draw nothing of the group. Here too: its red rect is left out, the green one stays,
    on a group and on a shape alike."""
    svg = ("<svg xmlns='http://www.w3.org/2000/svg' width='100' height='50'>"
           f"<g transform='{transform}'><rect width='10' height='10' fill='#ff0000'/></g>"
           f"<rect width='10' height='10' fill='#ff0000' transform='{transform}'/>"
           "<rect x='50' width='50' height='50' fill='#00ff00'/></svg>")
    path = build(_svg_game(tmp_path, svg), tmp_path / "out")
    with pdfplumber.open(path) as pdf:
        colours = [tuple(round(v, 3) for v in r["non_stroking_color"] or ()) for r in pdf.pages[0].rects]
    assert (0, 1, 0) in colours
    assert (1, 0, 0) not in colours


def test_svg_too_big(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pnp.layout import svg as svgmod

    monkeypatch.setattr(svgmod, "MAX_NODES", 2)
    root = _svg_game(tmp_path, SVG)
    with pytest.raises(DataError) as exc:
        build(root, tmp_path / "out")
    assert exc.value.diagnostics[0].message.startswith("SVG 'art.svg' has more than 2 elements")


def test_editing_svg_art_changes_the_data_version(tmp_path: Path) -> None:
    """The build record's data version covers SVG art like PNGs: editing it rebuilds."""
    from pnp.input.project import load_game
    from pnp.plan.digest import data_version

    root = _svg_game(tmp_path, SVG)

    def version() -> str:
        s = Session(root)
        g = load_game(root, "mini")
        return data_version(root, s.store, g, g.components[0])

    before = version()
    (root.card_data / "mini" / "art.svg").write_text(SVG.replace("#00ff00", "#00ee00"), encoding="utf-8")
    assert version() != before


def _icon_game(tmp_path: Path, svg_name: str = "icons/sun.svg") -> DataRoot:
    els = [{"type": "icon", "name": "sun", "box": [10, 10, 20, 20]},
           {"type": "richtext", "box": [5, 50, 50, 10], "text": "Gain {icon:sun}", "style": "body"}]
    root = make_game(tmp_path / "root", els, [item()], extra_tpl={"icons": {"sun": {"title": "Sun", "svg": svg_name}}})
    (root.templates / "mini" / "icons").mkdir()
    (root.templates / "mini" / "icons" / "sun.svg").write_text(SVG, encoding="utf-8")
    return root


def test_svg_icons_are_drawn_as_vectors_in_their_box_and_inline(tmp_path: Path) -> None:
    root = _icon_game(tmp_path)
    path = build(root, tmp_path / "out")
    tx, ty, _, th = trim(path)
    with pdfplumber.open(path) as pdf:
        p = pdf.pages[0]
        assert p.images == []
        ph = float(p.height)
        green = sorted((r for r in p.rects if tuple(round(v, 3) for v in r["non_stroking_color"] or ()) == (0, 1, 0)),
                       key=lambda r: r["top"])
    assert len(green) == 2  # the icon element, and the icon inline in the text
    icon, inline = green
    # 100 x 50 art in a 20 x 20 mm box: 20 x 10 mm, centred (y 15..25 mm)
    assert ((icon["x0"] - tx) / MM, (icon["top"] - (ph - (ty + th))) / MM) == pytest.approx((10, 15), abs=0.01)
    assert (icon["width"] / MM, icon["height"] / MM) == pytest.approx((20, 10), abs=0.01)
    assert inline["height"] < 5 * MM and (inline["top"] - (ph - (ty + th))) / MM > 50


@pytest.mark.parametrize(("src", "message"), [
    ("icons/moon.svg", "icon 'sun': 'icons/moon.svg' not found (*templates/mini/icons/moon.svg)"),
    ("../../card_data/mini/deck.svg", "icon 'sun': '../../card_data/mini/deck.svg' is outside the templates folder"),
])
def test_svg_icon_file_errors(tmp_path: Path, src: str, message: str) -> None:
    root = _icon_game(tmp_path, src)
    (root.card_data / "mini" / "deck.svg").write_text(SVG, encoding="utf-8")
    with pytest.raises(DataError) as exc:
        build(root, tmp_path / "out")
    (d,) = exc.value.diagnostics
    head, _, tail = message.partition("*")  # (how the path is shown depends on the working folder)
    assert d.message.startswith(head) and d.message.endswith(tail) if tail else d.message == message
    assert d.path == ("icons", "sun", "svg")


def test_editing_an_svg_icon_changes_the_data_version(tmp_path: Path) -> None:
    from pnp.input.project import load_game
    from pnp.plan.digest import data_version

    root = _icon_game(tmp_path)

    def version() -> str:
        s = Session(root)
        g = load_game(root, "mini")
        return data_version(root, s.store, g, g.components[0])

    before = version()
    (root.templates / "mini" / "icons" / "sun.svg").write_text(SVG.replace("#0000ff", "#0000fe"), encoding="utf-8")
    assert version() != before


def test_a_build_after_editing_an_svg_icon_renders_again(tmp_path: Path) -> None:
    """The quick "nothing changed" test sees SVG icon files in the templates folder too."""
    from conftest import run_cli

    root = _icon_game(tmp_path)
    out = tmp_path / "out"
    deck = out / "mini" / "deck.pdf"
    assert run_cli("build", "mini", "--data", root.path, "--out", out).exit_code == 0
    first = deck.read_bytes(), deck.stat().st_mtime_ns
    assert run_cli("build", "mini", "--data", root.path, "--out", out).exit_code == 0
    assert (deck.read_bytes(), deck.stat().st_mtime_ns) == first  # up to date: not written again
    (root.templates / "mini" / "icons" / "sun.svg").write_text(SVG.replace("#0000ff", "#0000fe"), encoding="utf-8")
    edited = run_cli("build", "mini", "--data", root.path, "--out", out)
    assert edited.exit_code == 0, edited.stderr
    assert deck.read_bytes() != first[0]  # the new colour is drawn


def test_empty_text_elements_in_svg_are_dropped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Editors leave empty <text> elements; they draw nothing and are dropped before svglib, which
    would otherwise look a font up for them."""
    import svglib.svglib

    def no_text(*args: object, **kwargs: object) -> None:
        raise AssertionError("svglib converted a <text>")

    monkeypatch.setattr(svglib.svglib.Svg2RlgShapeConverter, "convertText", no_text)
    svg = SVG.replace("</svg>", "<text x='5' y='5'><tspan> </tspan></text></svg>")
    path = build(_svg_game(tmp_path, svg), tmp_path / "out")
    assert b"/Helvetica" not in path.read_bytes()
    with pdfplumber.open(path) as pdf:
        assert pdf.pages[0].chars == []


def test_svg_art_is_read_once_and_drawn_once_per_document(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Five cards with one SVG: svglib converts the file once (the check and the drawing share it)
    and the PDF holds its drawing once, as a form every card refers to (each card drew it anew,
    and each read it anew: 90,000 elements on three cards built in 117 s)."""
    from svglib.svglib import SvgRenderer

    calls = []
    real = SvgRenderer.render
    monkeypatch.setattr(SvgRenderer, "render", lambda self, node: calls.append(1) or real(self, node))
    root = make_game(tmp_path / "root", [{"type": "image", "src": "art.svg", "box": [10, 10, 40, 40]},
                                         {"type": "text", "box": [5, 60, 50, 10], "text": "{name}", "style": "body"}],
                     [item(id=f"c{i}", name=f"Card {i}") for i in range(5)])
    (root.card_data / "mini" / "art.svg").write_text(SVG, encoding="utf-8")
    path = build(root, tmp_path / "out")
    assert len(calls) == 1
    reader = PdfReader(path)
    art_forms = {}  # the forms the pages and the card forms refer to, the art's size: 100 x 50 px = 75 x 37.5 pt

    def walk(res: object) -> None:
        for ref in (res or {}).get("/XObject", {}).values():  # type: ignore[attr-defined]
            x = ref.get_object()
            if [float(v) for v in x.get("/BBox", [])] == [0, 0, 75, 37.5]:
                art_forms[ref.idnum] = x
            walk(x.get("/Resources"))

    for page in reader.pages:
        walk(page.get("/Resources"))
    assert len(art_forms) == 1  # the art's own form, once in the document
    with pdfplumber.open(path) as pdf:
        green = [r for page in pdf.pages for r in page.rects
                 if tuple(round(v, 3) for v in r["non_stroking_color"] or ()) == (0, 1, 0)]
    assert len(green) == 5  # drawn on each of the five cards


@pytest.mark.parametrize(("attrs", "dash", "width"), [
    ('stroke-dasharray="0 0"', [], 1), ('stroke-dasharray="0"', [], 1), ('stroke-dasharray="-1 2"', [], 1),
    ('stroke-dasharray="5 -5"', [], 1), ('stroke-dasharray="3 1"', [3, 1], 1), ('stroke-width="-5"', [], 1),
    ('stroke-width="2" stroke-dasharray="0 0 0"', [], 2),
    ('stroke-dasharray="1e-300 1e-300"', [], 1),  # attack 13, F2: written as "[0 0] 0 d", invalid PDF
    ('stroke-dasharray="1e-7 2e-7"', [], 1),
])
def test_svg_strokes_svg_calls_errors_draw_as_a_browser_draws_them(tmp_path: Path, attrs: str, dash: list[float],
                                                                   width: float) -> None:
    """Attack 7: `stroke-dasharray="0 0"` (or a negative entry) made reportlab raise at the build,
    after `check` passed: exit 3. A browser draws such a line solid, and a negative width as the
    initial 1; so does pnp, read back from the PDF."""
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><path d="M0 0 L50 50" fill="none" '
           f'stroke="#ff0000" {attrs}/></svg>')
    path = build(_svg_game(tmp_path, svg), tmp_path / "out")
    with pdfplumber.open(path) as pdf:
        (line,) = [c for c in pdf.pages[0].curves + pdf.pages[0].lines if c.get("stroking_color") == (1, 0, 0)]
        assert list(line["dash"][0]) == dash
        scale = 40 * MM / 100  # the 100 x 100 art contained in its 40 mm box
        assert line["linewidth"] == pytest.approx(width * scale, rel=1e-3)
