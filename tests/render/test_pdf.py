"""Read the built Golems PDFs back: sizes, cut lines, duplex positions, boxes, determinism, opacity.
(Every bundled game's PDFs are read back for what all must do, fonts among it, in tests/games/test_games.py.)"""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pdfplumber
import pytest
from conftest import Bundled
from pypdf import PdfReader

from pnp.impose.sheet import PAPERS
from pnp.input.project import DataRoot, bundled_root
from pnp.pipeline.build import build_checked
from pnp.plan.component import pages_for
from pnp.plan.options import BuildOptions
from pnp.plan.session import Session
from pnp.qa.check import check
from pnp.units import MM

ROOT = DataRoot(bundled_root())


def _build(out: Path, opts: BuildOptions) -> dict[str, Path]:
    s = Session(ROOT)
    gc = check(ROOT, "golems", opts, s)
    return {w.component.id: w.path for w in build_checked(ROOT, gc, out, s)}


@pytest.fixture(scope="module")
def letter(bundled: Bundled) -> dict[str, Path]:
    return bundled.built("golems").paths


@pytest.fixture(scope="module")
def a4(bundled: Bundled) -> dict[str, Path]:
    return bundled.built("golems", BuildOptions(paper="a4", duplex="short")).paths


@pytest.fixture(scope="module")
def short(bundled: Bundled) -> dict[str, Path]:
    """Letter, short-edge duplex: the wizards sit upright (3 and 1 with gutters, their edges
    differ in colour); on A4 they are turned."""
    return bundled.built("golems", BuildOptions(duplex="short")).paths


def cut_lines(page) -> list[dict]:
    return [ln for ln in page.lines if abs(ln["linewidth"] - 0.25) < 1e-6]


@pytest.mark.parametrize("fixture,paper", [("letter", "letter"), ("a4", "a4")])
def test_page_size(fixture: str, paper: str, request: pytest.FixtureRequest) -> None:
    paths = request.getfixturevalue(fixture)
    r = PdfReader(paths["golem-deck"])
    for page in r.pages:
        assert float(page.mediabox.width) == pytest.approx(PAPERS[paper].width, abs=0.01)
        assert float(page.mediabox.height) == pytest.approx(PAPERS[paper].height, abs=0.01)


@pytest.mark.parametrize("fixture", ["letter", "a4"])
def test_poker_cards_are_63_by_88_mm_between_cut_lines(fixture: str, request: pytest.FixtureRequest) -> None:
    """A sheet of cards; the cut lines read back from the PDF are exactly 63 and 88 mm apart."""
    path = request.getfixturevalue(fixture)["golem-deck"]
    with pdfplumber.open(path) as pdf:
        page = pdf.pages[0]
        lines = cut_lines(page)
        xs = sorted({round(ln["x0"], 4) for ln in lines if abs(ln["x0"] - ln["x1"]) < 1e-6})
        ys = sorted({round(ln["top"], 4) for ln in lines if abs(ln["top"] - ln["bottom"]) < 1e-6})
    widths = {round((b - a) / MM, 2) for a, b in pairwise(xs)}
    heights = {round((b - a) / MM, 2) for a, b in pairwise(ys)}
    # Letter: the first sheet holds cards whose edges match, abutting 3 x 3; A4: the cards' edges
    # differ, and 8 fit turned with gutters (2 across, 4 down)
    w, h, cols, rows = (63.0, 88.0, 3, 3) if fixture == "letter" else (88.0, 63.0, 2, 4)
    assert w in widths and h in heights
    assert widths <= {w, 6.0} and heights <= {h, 6.0}  # trims, or the 2 x 3 mm gutter
    assert len([x for x in (b - a for a, b in pairwise(xs)) if abs(x / MM - w) < 0.01]) == cols
    assert len([y for y in (b - a for a, b in pairwise(ys)) if abs(y / MM - h) < 0.01]) == rows


def test_card_panel_reads_back_at_its_template_size(letter: dict[str, Path]) -> None:
    """The golem card's inner panel is [3.5, 3.5, 56, 81] mm in the template."""
    with pdfplumber.open(letter["golem-deck"]) as pdf:
        page = pdf.pages[0]
        sizes = [(round(c["width"] / MM, 3), round(c["height"] / MM, 3)) for c in page.curves + page.rects]
    assert sizes.count((56.0, 81.0)) == 9


@pytest.mark.slow
def test_cut_lines_never_touch_a_piece_or_its_bleed(letter: dict[str, Path]) -> None:
    s = Session(ROOT)
    gc = check(ROOT, "golems", BuildOptions(), s)
    for plan in gc.plans:
        pages = pages_for(plan)
        with pdfplumber.open(letter[plan.component.id]) as pdf:
            for page, imposed in zip(pdf.pages, pages, strict=True):
                h = float(page.height)
                boxes = [(sl.x - sl.bleed.left, sl.y - sl.bleed.bottom, sl.x + sl.w + sl.bleed.right,
                          sl.y + sl.h + sl.bleed.top) for sl in imposed.slots]
                lines = cut_lines(page)
                assert len(lines) == len(imposed.cuts)
                for ln in lines:
                    x0, x1 = sorted((ln["x0"], ln["x1"]))
                    y0, y1 = sorted((h - ln["top"], h - ln["bottom"]))
                    for bx0, by0, bx1, by1 in boxes:
                        assert x1 < bx0 or x0 > bx1 or y1 < by0 or y0 > by1, (plan.component.id, ln)


def _title_centres(page, words: set[str]) -> list[tuple[float, float]]:
    out = []
    for w in page.extract_words():
        if w["text"] in words:
            out.append(((w["x0"] + w["x1"]) / 2, (w["top"] + w["bottom"]) / 2))
    return out


Centres = dict[str, tuple[float, float]]


def _wizard_positions(path: Path) -> tuple[float, float, Centres, Centres]:
    """Front card centres of the four Wizards (in item order: Red, Blue, Yellow, Black, placed
    row by row from the top-left) and the centres of the player names on their backs."""
    with pdfplumber.open(path) as pdf:
        front, back = pdf.pages[0], pdf.pages[1]
        w, h = float(front.width), float(front.height)
        titles = sorted(_title_centres(front, {"Wizard"}), key=lambda p: (round(p[1]), p[0]))
        names = {}
        for name in ("RED", "BLUE", "YELLOW", "BLACK"):  # "<NAME> WIZARD", letter-spaced
            spaced = r"\s*".join(name + " WIZARD")
            found = back.search(spaced) or back.search(r"\s*".join(reversed(name + " WIZARD")))  # turned 180
            (m,) = found
            names[name] = ((m["x0"] + m["x1"]) / 2, (m["top"] + m["bottom"]) / 2)
    fronts = dict(zip(["RED", "BLUE", "YELLOW", "BLACK"], titles, strict=True))
    return w, h, fronts, names


def test_long_edge_backs_land_behind_their_fronts(letter: dict[str, Path]) -> None:
    w, _, fronts, backs = _wizard_positions(letter["wizard"])
    assert set(backs) == set(fronts)
    # Long-edge flip of a portrait page: x_back = page_w - x_front; rows unchanged.
    for player, (fx, _) in fronts.items():
        bx, _ = backs[player]
        assert bx == pytest.approx(w - fx, abs=0.5), player
    rows_f = [fronts[p][1] for p in ("RED", "BLACK")]
    rows_b = [backs[p][1] for p in ("RED", "BLACK")]
    assert rows_b[1] - rows_b[0] == pytest.approx(rows_f[1] - rows_f[0], abs=0.5)  # Black stays a row below


def test_short_edge_backs_land_behind_their_fronts(short: dict[str, Path]) -> None:
    """Short-edge backs sit at y-mirrored positions and are turned 180 degrees, so a cut card
    turned over like a book page shows its back upright."""
    with pdfplumber.open(short["wizard"]) as pdf:
        turned = [c for c in pdf.pages[1].chars if c["text"] == "R"]
    assert turned and all(c["matrix"][0] < 0 and c["matrix"][3] < 0 for c in turned)
    _, _, fronts, backs = _wizard_positions(short["wizard"])
    # Short-edge flip: x unchanged, y mirrored: the Black card (second row on the front) is
    # above the Red one on the back, by the same distance.
    for player, (fx, _) in fronts.items():
        assert backs[player][0] == pytest.approx(fx, abs=0.5), player
    dy_front = fronts["BLACK"][1] - fronts["RED"][1]
    dy_back = backs["BLACK"][1] - backs["RED"][1]
    assert dy_front > 0 and dy_back == pytest.approx(-dy_front, abs=0.5)


def test_reference_sheet_has_trim_box(letter: dict[str, Path]) -> None:
    page = PdfReader(letter["reference"]).pages[0]
    assert float(page.trimbox.width) == pytest.approx(180 * MM, abs=0.01)
    assert float(page.trimbox.height) == pytest.approx(250 * MM, abs=0.01)


def test_board_is_tiled_with_labels(letter: dict[str, Path]) -> None:
    with pdfplumber.open(letter["board"]) as pdf:
        assert len(pdf.pages) == 4
        labels = [p.extract_text() for p in pdf.pages]
    for r in (1, 2):
        for c in (1, 2):
            assert any(f"Part row {r}, column {c} of 2 x 2" in t for t in labels)


def test_identical_input_gives_identical_bytes(tmp_path: Path, letter: dict[str, Path]) -> None:
    again = _build(tmp_path, BuildOptions())
    for cid, p in letter.items():
        assert again[cid].read_bytes() == p.read_bytes(), cid


def test_opacity_survives_inside_forms(letter: dict[str, Path]) -> None:
    """The rune ring on golem cards is drawn at 13% opacity inside a form XObject (26 mm on the
    Material cards, which also name their terrain)."""
    import pypdfium2 as pdfium

    with pdfplumber.open(letter["golem-deck"]) as pp:  # the first sheet of Material cards
        k = next(i for i, p in enumerate(pp.pages) if "Control the" in (p.extract_text() or ""))
        page = pp.pages[k]
        pdf = pdfium.PdfDocument(letter["golem-deck"])
        img = pdf[k].render(scale=2).to_pil().convert("RGB")
        ring = [c for c in page.curves if abs(c["width"] / MM - 26 * 0.92) < 1.0]
    assert ring, "the rune ring's outer circle is present"
    c = ring[0]
    # Sample the stroke of the outer circle at its leftmost point.
    x, y = int(c["x0"] * 2 + 1), int(c["top"] + c["bottom"])
    r, g, b = img.getpixel((x, y))
    assert min(r, g, b) > 150, (r, g, b)  # faint on the parchment, not ink-dark
