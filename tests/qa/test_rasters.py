"""`pnp preflight`'s measuring renders (pnp.qa.rasters) held to the command's pixel budget: the
pages it rasterises for ink coverage and the strips along shared cut lines, with the image files
and SVG art every render draws, counted as the exports count them; past the budget a component
is reported unmeasured, with a warning, and the rest of the report stands."""

from __future__ import annotations

import json
import re

import pytest
from conftest import DataRootCopy, run_cli
from PIL import Image

from pnp.plan.options import BuildOptions
from pnp.plan.session import Session
from pnp.qa.check import check
from pnp.qa.miscut import shared_lines

CARD = "templates/mini/card.json"
PNG = (1000, 800)  # pixels


def with_art(mini: DataRootCopy, box: list[float], svg: bool = False) -> None:
    """Every mini front draws one picture in ``box`` (mm): a PNG of PNG pixels, or with ``svg``
    an SVG of 3,000 squares (one shape each)."""
    folder = mini.root.path / "card_data" / "mini" / "img"
    folder.mkdir()
    if svg:
        squares = "".join(f'<rect x="{i % 60}" y="{i // 60}" width="1" height="1"/>' for i in range(3000))
        (folder / "a.svg").write_text(f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 60 50">{squares}</svg>',
                                      encoding="utf-8")
    else:
        Image.new("RGB", PNG, "#806040").save(folder / "a.png")

    def edit(tpl: dict) -> None:
        tpl["elements"].append({"type": "image", "src": "img/a.svg" if svg else "img/a.png", "box": box,
                                **({"bleed": True} if box[0] == 0 else {})})
    mini.edit(CARD, edit)


def placed(mini: DataRootCopy, bleed: float) -> tuple[int, int]:
    """(fronts on the pages, shared cut lines on front pages) of the mini deck at ``bleed``."""
    gc = check(mini.root, "mini", BuildOptions(bleed_mm=bleed), Session(mini.root))
    pages = [p for p in gc.plans[0].pages if p.side == "front"]
    return sum(len(p.slots) for p in pages), sum(len(shared_lines(p)) for p in pages)


NOT_MEASURED = re.compile(r"component deck: ink coverage and shared cut lines not measured: `pnp preflight` would "
                          r"render (\d+) images of (\d+) pixels together \(\d+ million\) and (decode|draw) (\d+) ")


@pytest.mark.parametrize(("box", "svg"), [([5, 20, 30, 20], False), ([0, 0, 44, 63], False), ([5, 20, 30, 20], True)],
                         ids=["inset-png", "full-bleed-png", "inset-svg"])
def test_measuring_renders_count_the_art_they_draw(mini: DataRootCopy, box: list[float], svg: bool) -> None:
    """Attack 6, F4: one 62 KB PNG of 49 million pixels on 1,000 cards made `pnp preflight` take
    50 s: PDFium decodes it for every card each page render draws. The coverage renders draw
    every front; a miscut strip the two pieces' art that comes near their trim (full-bleed art,
    not art inset from the edges). Past --max-megapixels the component is reported unmeasured
    (exit 0, the other figures stand; --strict: exit 2); at the megapixels the message names,
    it is measured."""
    with_art(mini, box, svg)
    fronts, lines = placed(mini, 0)
    assert lines > 0  # with no bleed the cards abut
    drawings = fronts + (2 * lines if box[0] == 0 else 0)
    art = drawings * 3000 if svg else drawings * PNG[0] * PNG[1]
    r = run_cli("preflight", "mini", "--bleed", "0", "--max-megapixels", "1")
    assert r.exit_code == 0, r.stderr
    m = NOT_MEASURED.search(r.stderr)
    assert m is not None, r.stderr
    assert m.group(3) == ("draw" if svg else "decode") and int(m.group(4)) == art
    assert "(expected the pages' measuring renders within the command's pixel budget)" in r.stderr
    assert ("simplify the SVG art" if svg else "scale the art to the resolution it prints at") in r.stderr
    assert "ink coverage:" not in r.stdout and "shared cut lines (0.5 mm miscut)" not in r.stdout
    assert "smallest text:" in r.stdout and "1 warning" in r.stdout  # the rest of the report stands
    report = json.loads(run_cli("preflight", "mini", "--bleed", "0", "--max-megapixels", "1", "--json").stdout)
    (deck,) = report["games"][0]["components"]
    assert deck["coverage"] is None and deck["miscut_seams"] is None
    assert run_cli("preflight", "mini", "--bleed", "0", "--max-megapixels", "1", "--strict").exit_code == 2
    needed = re.search(r"raise the limit with --max-megapixels (\d+)", r.stderr)
    assert needed is not None
    r = run_cli("preflight", "mini", "--bleed", "0", "--max-megapixels", needed.group(1))
    assert r.exit_code == 0 and "not measured" not in r.stderr, r.stderr
    assert "ink coverage:" in r.stdout and "shared cut lines (0.5 mm miscut)" in r.stdout


def test_the_bundled_games_are_measured_within_the_default_budget() -> None:
    r = run_cli("preflight")
    assert r.exit_code == 0, r.stderr
    assert "not measured" not in r.stderr and r.stdout.count("ink coverage:") == 5


def test_a_sheet_holding_more_shapes_than_the_cap_is_not_measured(mini: DataRootCopy,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack 16, F5: PDFium parses SVG art again for every time a page draws it, and holds every
    shape, whatever part of the page it renders. A sheet whose pieces hold more than
    MAX_IMAGE_SHAPES together is not rasterised (each front draws 3,000 squares: a sheet of
    several is past a cap of 6,000), and the component is reported unmeasured, naming the art and
    how often the fullest sheet draws it; exit 0, the other figures stand."""
    from pnp.render import pixels

    with_art(mini, [5, 20, 30, 20], svg=True)
    gc = check(mini.root, "mini", BuildOptions(bleed_mm=0), Session(mini.root))
    most = max(len(p.slots) for p in gc.plans[0].pages if p.side == "front")
    assert most > 2
    monkeypatch.setattr(pixels, "MAX_IMAGE_SHAPES", 6000)
    r = run_cli("preflight", "mini", "--bleed", "0")
    assert r.exit_code == 0, r.stderr
    assert (f"component deck: ink coverage and shared cut lines not measured: a sheet of component deck draws SVG "
            f"art 'card_data/mini/img/a.svg' (3000 shapes) {most} times: ") in r.stderr, r.stderr
    assert ("more than `pnp preflight` may hold at once to render one image (expected at most 6000 shapes in one "
            "rendered image") in r.stderr
    assert "ink coverage:" not in r.stdout and "smallest text:" in r.stdout
    monkeypatch.setattr(pixels, "MAX_IMAGE_SHAPES", 250_000)
    r = run_cli("preflight", "mini", "--bleed", "0")
    assert "not measured" not in r.stderr and "ink coverage:" in r.stdout


GRADIENT = ('<defs><radialGradient id="g"><stop offset="0" stop-color="#f00"/><stop offset="1" stop-color="#00f"/>'
            '</radialGradient></defs>')


def painted_by_fill(mini: DataRootCopy, rect: str) -> dict[str, int]:
    """The painting `pnp preflight --bleed 0` names past a 1-megapixel budget when every front
    draws 20 rectangles ``rect`` (attributes) in a 44 x 63 art, in a solid colour and in a
    radial gradient."""
    painted = {}
    for fill in ("#0f0", "url(#g)"):
        rects = "".join(f'<rect {rect} fill="{fill}"/>' for _ in range(20))
        (mini.root.path / "card_data" / "mini" / "img" / "a.svg").write_text(
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 44 63">{GRADIENT}{rects}</svg>', encoding="utf-8")
        r = run_cli("preflight", "mini", "--bleed", "0", "--max-megapixels", "1")
        assert r.exit_code == 0, r.stderr
        m = re.search(r"not measured: .* and paint (\d+) pixels of fills and strokes", r.stderr)
        painted[fill] = int(m.group(1)) if m else 0
    return painted


def test_measuring_renders_count_the_gradients_they_shade(mini: DataRootCopy) -> None:
    """Attack 19, F1: 300 card-sized rectangles of a radial gradient on 30 cards made `pnp
    preflight` take 35 s, 33 of them in the 600-dpi strips along shared cut lines: PDFium shades
    a gradient pixel by pixel at each render's dpi, over the pixels of the render it covers. The
    budget counts it as the exports do (GRADIENT_WEIGHT times an opaque fill's area, at the
    dpi): each front whole at COVERAGE_DPI, and in a strip the part of the art within the
    strip's reach of the trim (STRIP_PAD), along the side that holds most, at the strip's dpi.
    Against the same art in a solid colour, the gradients add exactly that; at the megapixels the
    message names, the component is measured."""
    from pnp.qa.miscut import DPI, STRIP_PAD
    from pnp.qa.rasters import COVERAGE_DPI
    from pnp.render.pixels import GRADIENT_WEIGHT

    box = [0, 0, 44, 63]  # mm: the whole card, drawn in both strips along each of its shared edges
    with_art(mini, box, svg=True)
    fronts, lines = placed(mini, 0)
    assert lines > 0
    painted = painted_by_fill(mini, 'width="44" height="63"')
    mm = 72 / 25.4
    shaded = 20 * box[2] * mm * box[3] * mm * GRADIENT_WEIGHT  # pt² a drawing, weighted
    band = STRIP_PAD / (min(box[2], box[3]) * mm)  # the art within reach of the trim, along a long side
    expected = shaded * (fronts * (COVERAGE_DPI / 72) ** 2 + 2 * lines * band * (DPI / 72) ** 2)
    assert abs(painted["url(#g)"] - painted["#0f0"] - expected) < 0.01 * expected, (painted, expected)
    whole = shaded * 2 * lines * (DPI / 72) ** 2  # had the strips counted the art whole
    assert painted["url(#g)"] < whole / 5
    r = run_cli("preflight", "mini", "--bleed", "0", "--max-megapixels", "1")
    assert "opaque rather than see-through" in r.stderr or "simplify the SVG art" in r.stderr
    needed = re.search(r"raise the limit with --max-megapixels (\d+)", r.stderr)
    assert needed is not None, r.stderr
    r = run_cli("preflight", "mini", "--bleed", "0", "--max-megapixels", needed.group(1))
    assert r.exit_code == 0 and "not measured" not in r.stderr, r.stderr
    assert "shared cut lines (0.5 mm miscut)" in r.stdout


def test_a_strip_counts_the_art_near_the_trim_where_it_lies(mini: DataRootCopy) -> None:
    """Gradients in a band along one side of the card all lie in the strips along that side
    (300 gradient rectangles 1.2 mm tall along the top edge, on 30 cards: preflight took 2.3
    times its count when a strip counted the art's gradients by the share of the art box it
    covers). A strip counts what lies within its reach of the trim, along the side that holds
    most: all 20 rectangles 1 mm tall at the top, at the strip's dpi, in every strip."""
    from pnp.qa.miscut import DPI
    from pnp.qa.rasters import COVERAGE_DPI
    from pnp.render.pixels import GRADIENT_WEIGHT

    with_art(mini, [0, 0, 44, 63], svg=True)
    fronts, lines = placed(mini, 0)
    painted = painted_by_fill(mini, 'width="44" height="1"')
    mm = 72 / 25.4
    shaded = 20 * 44 * mm * 1 * mm * GRADIENT_WEIGHT  # pt² a drawing, weighted
    expected = shaded * (fronts * (COVERAGE_DPI / 72) ** 2 + 2 * lines * (DPI / 72) ** 2)
    assert abs(painted["url(#g)"] - painted["#0f0"] - expected) < 0.01 * expected, (painted, expected)


def test_a_long_path_counts_its_edges_where_its_pieces_lie(mini: DataRootCopy) -> None:
    """One path's box says little about where its length lies: 2,000 strokes zigzagging within
    1 mm of the top edge, then one line to the foot of the card, has the whole card as its box.
    Its pieces of PART_POINTS points are placed one by one, so a strip along the top counts about
    what it counts for the zigzag alone (not a 63rd of it, the box's share)."""
    with_art(mini, [0, 0, 44, 63], svg=True)
    zigzag = " ".join(f"L{i * 0.022:.3f} {i % 2}" for i in range(1, 2001))
    painted = {}
    for name, tail in (("alone", ""), ("with a foot", " L44 63")):
        (mini.root.path / "card_data" / "mini" / "img" / "a.svg").write_text(
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 44 63"><path d="M0 0 {zigzag}{tail}" '
            'fill="none" stroke="#000" stroke-width="0.1"/></svg>', encoding="utf-8")
        r = run_cli("preflight", "mini", "--bleed", "0", "--max-megapixels", "1")
        m = re.search(r"not measured: .* and paint (\d+) pixels of fills and strokes", r.stderr)
        assert m is not None, r.stderr
        painted[name] = int(m.group(1))
    assert 0.9 < painted["with a foot"] / painted["alone"] < 1.2, painted
