"""Sheets that explain themselves (issue 11): universal paper, sheet labels and scale marks read
back from the PDFs, the viewer preferences, square or circle token cuts, the data version, the
assembly page."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pdfplumber
import pypdfium2 as pdfium
import pytest
from conftest import REPO, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st
from pypdf import PdfReader

from pnp.impose.grid import plan_grid
from pnp.impose.marks import ROOM_SLACK, find_spot, free_length
from pnp.impose.sheet import PAPERS, PieceSpec, SheetOptions
from pnp.input.project import DataRoot, bundled_root
from pnp.layout.primitives import Ellipse, Rect
from pnp.pipeline.build import build_checked
from pnp.plan.component import pages_for
from pnp.plan.digest import data_version
from pnp.plan.options import BuildOptions
from pnp.plan.session import Session
from pnp.qa.check import check
from pnp.render.component import furnished_pages
from pnp.units import MM

ROOT = DataRoot(bundled_root())
GAMES = ROOT.game_ids()
SESSION = Session(ROOT)


def _check(gid: str, **opts: object):
    return check(ROOT, gid, BuildOptions(**opts), SESSION)  # type: ignore[arg-type]


def _plan(gid: str, cid: str, **opts: object):
    return next(p for p in _check(gid, **opts).plans if p.component.id == cid)


def _inside(box: tuple[float, float, float, float], x0: float, y0: float, x1: float, y1: float) -> bool:
    bx, by, bw, bh = box
    return bx >= x0 - 1e-6 and by >= y0 - 1e-6 and bx + bw <= x1 + 1e-6 and by + bh <= y1 + 1e-6


# --------------------------------------------------------------------------- universal paper


def test_universal_is_the_a4_letter_intersection() -> None:
    u, a4, letter = PAPERS["universal"], PAPERS["a4"], PAPERS["letter"]
    assert (u.width, u.height) == (a4.width, letter.height) == pytest.approx((210 * MM, 279.4 * MM))
    assert u.width <= min(a4.width, letter.width) and u.height <= min(a4.height, letter.height)


def test_universal_fits_3x3_poker_cards_with_5_mm_margins() -> None:
    plan = _plan("golems", "golem-deck", paper="universal")
    assert (plan.grid.cols, plan.grid.rows) == (3, 3)
    page = furnished_pages(SESSION, _check("golems", paper="universal").game, plan)[0]
    u = PAPERS["universal"]
    for s in page.slots:
        assert _inside(s.bleed_box, 5 * MM, 5 * MM, u.width - 5 * MM, u.height - 5 * MM)
    ys = [s.bleed_box[1] for s in page.slots] + [s.bleed_box[1] + s.bleed_box[3] for s in page.slots]
    # 3 x 88 mm + 2 x 2.7 mm of outer bleed = 269.4 mm: exactly 5 mm above and below
    assert min(ys) == pytest.approx(5 * MM) and max(ys) == pytest.approx(u.height - 5 * MM)
    assert {round(s.bleed.top / MM, 3) for s in page.slots[:3]} == {2.7}
    assert {round(s.bleed.left / MM, 3) for s in page.slots[::3]} == {3.0}  # the sides keep the full bleed


def test_outer_bleed_shrinks_only_when_it_wins_a_row_and_never_below_the_floor() -> None:
    poker = PieceSpec(63 * MM, 88 * MM)
    tight = SheetOptions(PAPERS["universal"], margin=5 * MM)
    g = plan_grid(poker, tight)
    assert g.cols * g.rows == 8  # 3 rows need 270 mm of the 269.4 mm: 2 x 4 turned is the best
    grid = plan_grid(poker, SheetOptions(PAPERS["universal"], margin=5 * MM, min_outer_bleed=2 * MM))
    assert (grid.cols, grid.rows, grid.rotated) == (3, 3, False)
    assert grid.outer_y == pytest.approx(2.7 * MM) and grid.outer_x is None
    us = PieceSpec(63.5 * MM, 88.9 * MM)  # 3 x 88.9 = 266.7 mm leaves 1.35 mm: below the 2 mm floor
    g = plan_grid(us, SheetOptions(PAPERS["universal"], margin=5 * MM, min_outer_bleed=2 * MM))
    assert g.cols * g.rows == 8 and g.outer_x is None and g.outer_y is None


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("duplex", ["long", "short"])
def test_universal_pages_centred_on_a4_and_letter_print_inside_and_backs_land_behind(paper: str,
                                                                                       duplex: str) -> None:
    """Printed at actual size a page is centred on the sheet. On both papers every piece, label and
    scale mark lands at least 5 mm inside the sheet, and each back, once the sheet is turned over
    its flip edge, covers exactly its front."""
    sheet, u = PAPERS[paper], PAPERS["universal"]
    ox, oy = (sheet.width - u.width) / 2, (sheet.height - u.height) / 2
    gc = _check("golems", paper="universal", duplex=duplex)
    for plan in gc.plans:
        pages = furnished_pages(SESSION, gc.game, plan)
        for i, page in enumerate(pages):
            boxes = [s.bleed_box for s in page.slots] + [f.box for f in page.furniture]
            for x, y, w, h in boxes:
                assert _inside((x + ox, y + oy, w, h), 5 * MM, 5 * MM, sheet.width - 5 * MM,
                               sheet.height - 5 * MM), (plan.component.id, page.number)
            if page.side != "back":
                continue
            fronts = {s.piece: s for s in pages[i - 1].slots}
            for b in page.slots:
                f = fronts[b.piece]
                bx, by = b.x + ox, b.y + oy
                if duplex == "long":  # turned over its vertical axis
                    bx = sheet.width - bx - b.w
                else:
                    by = sheet.height - by - b.h
                assert (bx, by) == pytest.approx((f.x + ox, f.y + oy), abs=1e-6)


def test_every_paper_keeps_each_grid_in_place_on_every_sheet() -> None:
    """Sheets of one component stack: page k's slots are the first slots of page 1, fronts and
    backs alike (a partial last page keeps the full grid's positions). A component imposed in
    blocks (pieces whose edges match abutting, the rest with gutters) has one grid per block at
    most, each page on one of them."""
    for paper in ("letter", "a4", "universal"):
        for gid in GAMES:
            for plan in _check(gid, paper=paper).plans:
                pages = pages_for(plan)
                if any(s.part is not None for p in pages for s in p.slots):
                    continue  # a board's parts: each page is another part
                for side in ("front", "back"):
                    same = [p for p in pages if p.side == side]
                    if not same:
                        continue
                    grids: list[list[tuple[float, float, float, float]]] = []
                    for p in same:
                        pos = [(s.x, s.y, s.w, s.h) for s in p.slots]
                        k = next((i for i, g in enumerate(grids) if g[: len(pos)] == pos[: len(g)]), None)
                        if k is None:
                            grids.append(pos)
                        elif len(pos) > len(grids[k]):
                            grids[k] = pos
                    assert len(grids) <= max(1, len(plan.blocks)), (paper, gid, plan.component.id, side)
                    if not plan.blocks:
                        first = [(s.x, s.y, s.w, s.h) for s in same[0].slots]
                        for p in same[1:]:
                            assert [(s.x, s.y, s.w, s.h) for s in p.slots] == first[: len(p.slots)], \
                                (paper, gid, plan.component.id, p.number)


def test_build_universal_writes_pages_of_the_universal_size(tmp_path: Path) -> None:
    r = run_cli("build", "cyberiad", "--paper", "universal", "--out", tmp_path)
    assert r.exit_code == 0, r.stderr
    assert "paper universal" in r.stdout
    for pdf in (tmp_path / "cyberiad").glob("*.pdf"):
        for page in PdfReader(pdf).pages:
            assert (float(page.mediabox.width), float(page.mediabox.height)) == pytest.approx(
                (210 * MM, 792.0), abs=0.01), pdf.name


# --------------------------------------------------------------------------- labels and scale marks


@pytest.fixture(scope="module")
def golems_letter(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("golems")
    gc = _check("golems")
    return {w.component.id: w.path for w in build_checked(ROOT, gc, out, SESSION)}


def _cut_lines(page) -> list[tuple[float, float, float, float]]:
    h = float(page.height)
    return [(min(ln["x0"], ln["x1"]), h - max(ln["top"], ln["bottom"]), max(ln["x0"], ln["x1"]),
             h - min(ln["top"], ln["bottom"])) for ln in page.lines if abs(ln["linewidth"] - 0.25) < 1e-6]


def _chars_in(page, box: tuple[float, float, float, float]) -> str:
    x, y, w, h = box
    ph = float(page.height)
    return "".join(c["text"] for c in page.chars
                   if c["x0"] >= x - 0.5 and c["x1"] <= x + w + 0.5 and ph - c["bottom"] >= y - 0.5
                   and ph - c["top"] <= y + h + 0.5)


@pytest.mark.slow
def test_every_sheet_reads_back_its_label_clear_of_pieces_and_cut_lines(golems_letter: dict[str, Path]) -> None:
    gc = _check("golems")
    for plan in gc.plans:
        version = data_version(ROOT, SESSION.store, gc.game, plan.component)
        pages = furnished_pages(SESSION, gc.game, plan)
        fronts = sum(p.side == "front" for p in pages)
        with pdfplumber.open(golems_letter[plan.component.id]) as pdf:
            assert len(pdf.pages) == len(pages)
            sheet = 0
            for page, imposed in zip(pdf.pages, pages, strict=True):
                sheet += imposed.side == "front"
                labels = [f for f in imposed.furniture if f.kind == "label"]
                assert labels, (plan.component.id, imposed.number)
                text = " ".join(_chars_in(page, f.box) for f in labels)
                for part in ("Golems", plan.component.title, imposed.side, f"sheet {sheet} of {fronts}",
                             f"data {version}"):
                    assert part in text, (plan.component.id, imposed.number, part, text)
                cuts = _cut_lines(page)
                assert len(cuts) == len(imposed.cuts)
                for f in imposed.furniture:
                    x, y, w, h = f.box
                    for cx0, cy0, cx1, cy1 in cuts:  # read back from the PDF
                        assert cx1 < x or cx0 > x + w or cy1 < y or cy0 > y + h, (plan.component.id, f.text)
                    for s in imposed.slots:
                        bx, by, bw, bh = s.bleed_box
                        assert bx + bw <= x or bx >= x + w or by + bh <= y or by >= y + h, (plan.component.id, f.text)
                    # every character of the label lies inside its box: none strays onto a piece
                    assert _chars_in(page, f.box).replace(" ", "") == "".join(
                        ch for p in f.prims if hasattr(p, "text") for ch in p.text).replace(" ", "")


def test_scale_squares_and_bars_are_exact_in_the_pdf(golems_letter: dict[str, Path]) -> None:
    """The back of the mana tokens' partly filled last sheet has room for both squares (its front's
    free room is crossed by the cut lines, which run across the whole sheet: a bar there); a full
    sheet of poker cards only for a bar, whose outline is 1 in long and whose dark part is 1 cm."""
    with pdfplumber.open(golems_letter["mana"]) as pdf:
        page = pdf.pages[3]  # the second back: 10 of the 80 tokens (70 to a sheet with gutters)
        sizes = {(round(r["width"] / MM, 3), round(r["height"] / MM, 3)) for r in page.rects}
        text = page.extract_text()
    assert (25.4, 25.4) in sizes and (10.0, 10.0) in sizes
    assert "1 in" in text and "1 cm" in text and "actual size" in text
    with pdfplumber.open(golems_letter["golem-deck"]) as pdf:
        page = pdf.pages[0]
        sizes = {tuple(sorted((round(r["width"] / MM, 3), round(r["height"] / MM, 3)))) for r in page.rects}
        chars = "".join(c["text"] for c in page.chars)
    assert (1.2, 25.4) in sizes and (1.2, 10.0) in sizes
    assert (25.4, 25.4) not in sizes
    assert "print at 100 %" in chars


def test_every_bundled_sheet_gets_a_label_inside_the_margin_on_every_paper() -> None:
    """Every page of every bundled component on every paper has its label, and everything
    printed outside the pieces stays inside the paper's margin (5 mm on universal). Scale marks
    go where they fit: on at least one sheet of every component PDF."""
    for paper in ("letter", "a4", "universal"):
        for gid in GAMES:
            gc = _check(gid, paper=paper)
            for plan in gc.plans:
                pw = plan.sheet.paper
                m = plan.sheet.margin
                pages = furnished_pages(SESSION, gc.game, plan)
                assert any(f.kind.startswith("scale") for p in pages for f in p.furniture), (paper, gid, plan)
                for page in pages:
                    assert any(f.kind == "label" for f in page.furniture), (paper, gid, plan.component.id)
                    for f in page.furniture:
                        assert _inside(f.box, m, m, pw.width - m, pw.height - m), (paper, gid, plan.component.id)


def test_find_spot_avoids_obstacles_and_prefers_the_anchor() -> None:
    bounds = (0.0, 0.0, 100.0, 50.0)
    wall = [(40.0, 0.0, 60.0, 50.0)]  # a full-height obstacle in the middle
    assert find_spot(30, 10, wall, bounds, (50.0, 0.0)) in [(10.0, 0.0), (60.0, 0.0)]
    assert find_spot(30, 10, wall, bounds, (100.0, 50.0)) == (70.0, 40.0)
    assert find_spot(45, 10, wall, bounds, (50.0, 0.0)) is None
    shelf = [(0.0, 0.0, 100.0, 20.0)]
    assert find_spot(100, 30, shelf, bounds, (50.0, 0.0)) == (0.0, 20.0)
    # an obstacle beyond the right bound ends no gap past it: the box stays inside the bounds
    beyond = [(0.0, 10.0, 80.0, 50.0), (120.0, 0.0, 130.0, 50.0)]
    assert find_spot(30, 10, beyond, bounds, (100.0, 0.0)) == (70.0, 0.0)
    assert find_spot(30, 20, beyond, bounds, (100.0, 0.0)) is None


_BOX = st.tuples(st.floats(-20, 120), st.floats(-20, 70), st.floats(0, 60), st.floats(0, 40)).map(
    lambda t: (t[0], t[1], t[0] + t[2], t[1] + t[3]))


@settings(max_examples=300, deadline=None)
@given(st.lists(_BOX, max_size=12), st.floats(4.5, 40), st.booleans(), st.tuples(st.floats(0, 100), st.floats(0, 50)))
def test_free_stretches_never_refuse_a_box_find_spot_places(obstacles: list[tuple[float, float, float, float]],
                                                            thick: float, flat: bool,
                                                            anchor: tuple[float, float]) -> None:
    """The label search's shortcut (_no_room: a box longer than every free stretch of its
    thickness fits nowhere) never turns away a box that the full search places, down to the
    longest box of that thickness the search places (found by halving)."""
    bounds = (0.0, 0.0, 100.0, 50.0)

    def placed(length: float) -> bool:
        return find_spot(*((length, thick) if flat else (thick, length)), obstacles, bounds, anchor) is not None

    lo, hi = thick, 101.0
    if not placed(lo):
        return
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if placed(mid) else (lo, mid)
    assert lo - 2 * ROOM_SLACK <= free_length(obstacles, bounds, flat, thick) <= 100.0 + 1e-9


def test_the_pdfs_ask_for_actual_size_and_preselect_the_flip_edge(golems_letter: dict[str, Path],
                                                                  tmp_path: Path) -> None:
    def prefs(path: Path) -> dict[str, str]:
        vp = PdfReader(path).trailer["/Root"]["/ViewerPreferences"]
        return {k: str(v) for k, v in vp.items()}

    assert prefs(golems_letter["golem-deck"]) == {"/PrintScaling": "/None", "/Duplex": "/DuplexFlipLongEdge"}
    assert prefs(golems_letter["board"]) == {"/PrintScaling": "/None", "/Duplex": "/Simplex"}  # no backs
    contents = golems_letter["golem-deck"].parent / "golems-contents.pdf"
    assert prefs(contents)["/PrintScaling"] == "/None"
    r = run_cli("build", "golems", "--duplex", "short", "--out", tmp_path)
    assert r.exit_code == 0, r.stderr
    assert prefs(tmp_path / "golems" / "wizard.pdf")["/Duplex"] == "/DuplexFlipShortEdge"


# --------------------------------------------------------------------------- token cut

ROUND = [(g, p.component.id) for g in GAMES for p in _check(g).plans if p.component.shape == "round"]


def test_all_four_games_with_round_tokens_are_covered() -> None:
    assert {g for g, _ in ROUND} == {"cauldron", "cyberiad", "golems", "time-capsules"}
    assert len(ROUND) == 14  # time-capsules gained its +80 score markers


@pytest.mark.parametrize("gid,cid", ROUND)
def test_square_cut_fills_the_cut_box_and_circle_cut_keeps_the_disc(gid: str, cid: str) -> None:
    square, circle = _plan(gid, cid), _plan(gid, cid, token_cut="circle")
    assert square.sheet.abut and not square.sheet.cut_circles
    assert not circle.sheet.abut and circle.sheet.cut_circles
    for plan, shape in ((square, Rect), (circle, Ellipse)):
        for lay in {id(x): x for x in (*plan.fronts, *(b for b in plan.backs if b))}.values():
            bg = lay.primitives[0]  # every bundled round token starts with its background disc
            assert isinstance(bg, shape), (gid, cid)
            b = lay.bleed
            assert (bg.x, bg.y, bg.w, bg.h) == pytest.approx((-b, -b, lay.width + 2 * b, lay.height + 2 * b))
            assert bg.paint.fill is not None


def _pixel(pdf: Path, page: int, x: float, y: float, scale: float = 4.0) -> tuple[int, int, int]:
    doc = pdfium.PdfDocument(pdf)
    try:
        pg = doc[page]
        img = pg.render(scale=scale).to_pil().convert("RGB")
        return img.getpixel((round(x * scale), round((pg.get_height() - y) * scale)))
    finally:
        doc.close()


@pytest.mark.slow
def test_square_cut_corners_carry_the_token_colour_circle_cut_leaves_paper(tmp_path: Path) -> None:
    """A point in the corner of the 20 mm mana coin's cut box (0.3 mm and 0.9 mm in from the
    corner, 13.3 mm from the centre, off the diagonal guide tick): the coin's copper when cut
    square, bare paper (white) when cut round (it lies outside the 13 mm bleed ring)."""
    for cut in ("square", "circle"):
        out = tmp_path / cut
        r = run_cli("build", "golems", "--token-cut", cut, "--out", out)
        assert r.exit_code == 0, r.stderr
        plan = _plan("golems", "mana", token_cut=cut)
        slot = pages_for(plan)[0].slots[0]  # a copper coin, value 1
        px = _pixel(out / "golems" / "mana.pdf", 0, slot.x + 0.3 * MM, slot.y + 0.9 * MM)
        if cut == "square":
            assert px == pytest.approx((0xB8, 0x73, 0x33), abs=40) and px != (255, 255, 255)
        else:
            assert px == (255, 255, 255)


@pytest.mark.slow
def test_circle_cut_draws_punch_guides_outside_the_trim(tmp_path: Path) -> None:
    r = run_cli("build", "cyberiad", "--token-cut", "circle", "--out", tmp_path)
    assert r.exit_code == 0, r.stderr
    plan = _plan("cyberiad", "fame", token_cut="circle")
    page = pages_for(plan)[0]
    assert [m.kind for m in page.marks].count("punch") == len(page.slots)
    with pdfplumber.open(tmp_path / "cyberiad" / "fame.pdf") as pdf:
        pg = pdf.pages[0]
        ticks = [ln for ln in pg.lines if abs(ln["linewidth"] - 0.3) < 1e-6]
        assert len(ticks) == 4 * len(page.slots)
        h = float(pg.height)
        for ln in ticks:  # in the corners of a bleed box, outside its trim
            x, y = (ln["x0"] + ln["x1"]) / 2, h - (ln["top"] + ln["bottom"]) / 2
            assert any(s.bleed_box[0] <= x <= s.bleed_box[0] + s.bleed_box[2] and s.bleed_box[1] <= y
                       <= s.bleed_box[1] + s.bleed_box[3] and not (s.x <= x <= s.x + s.w and s.y <= y <= s.y + s.h)
                       for s in page.slots)


def test_token_cut_is_a_builtin_templates_can_test() -> None:
    """Time Capsules' tokens draw their light cut-guide circle only when cut round."""
    for cut, expected in (("square", 0), ("circle", 1)):
        lay = _plan("time-capsules", "crystals", token_cut=cut).fronts[0]
        guides = [p for p in lay.primitives if isinstance(p, Ellipse) and p.paint.fill is None
                  and (p.x, p.y, p.w, p.h) == pytest.approx((0, 0, lay.width, lay.height))]
        assert len(guides) == expected


# --------------------------------------------------------------------------- data version


def _copy_golems(dest: Path) -> DataRoot:
    shutil.copytree(REPO / "card_data" / "golems", dest / "card_data" / "golems")
    return DataRoot(dest)


def _versions(root: DataRoot) -> dict[str, str]:
    s = Session(root)
    gc = check(root, "golems", BuildOptions(), s)
    return {p.component.id: data_version(root, s.store, gc.game, p.component) for p in gc.plans}


def test_data_version_is_the_same_anywhere_and_ignores_formatting(tmp_path: Path) -> None:
    bundled = _versions(ROOT)
    assert all(len(v) == 10 and all(c in "0123456789abcdef" for c in v) for v in bundled.values())
    assert len(set(bundled.values())) == len(bundled)  # one per component
    root = _copy_golems(tmp_path / "elsewhere")
    assert _versions(root) == bundled
    deck = root.card_data / "golems" / "golem-deck.json"
    data = json.loads(deck.read_text(encoding="utf-8"))
    deck.write_bytes((json.dumps(data, indent=4, ensure_ascii=False) + "\n").replace("\n", "\r\n").encode())
    assert _versions(root) == bundled
    data["description"] = "Reworded: descriptions never print."
    deck.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    assert _versions(root) == bundled
    del data["quoted"]  # what pnp check traces to the quotes never prints either
    deck.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    assert _versions(root) == bundled


def test_data_version_changes_with_the_data_of_that_component_only(tmp_path: Path) -> None:
    bundled = _versions(ROOT)
    root = _copy_golems(tmp_path / "edited")
    deck = root.card_data / "golems" / "golem-deck.json"
    data = json.loads(deck.read_text(encoding="utf-8"))
    first = data["items"][0]
    first["name"] = first["name"] + "!"
    deck.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    edited = _versions(root)
    assert edited["golem-deck"] != bundled["golem-deck"]
    assert {k: v for k, v in edited.items() if k != "golem-deck"} == \
        {k: v for k, v in bundled.items() if k != "golem-deck"}


def test_data_version_changes_when_a_font_is_saved_again_by_a_font_editor(tmp_path: Path) -> None:
    from test_incremental import _edited_font

    bundled = _versions(ROOT)
    root = _copy_golems(tmp_path / "fonts-edited")
    (root.path / "fonts").mkdir()
    src = next(p for d in ROOT.font_dirs() for p in d.rglob("Lato-Regular.ttf"))
    (root.path / "fonts" / "Lato-Regular.ttf").write_bytes(src.read_bytes())
    same_font = _versions(root)
    _edited_font(src, root.path / "fonts" / "Lato-Regular.ttf", b"glyf")
    edited = _versions(root)
    assert all(edited[k] != same_font[k] for k in bundled)


# --------------------------------------------------------------------------- assembly page


@pytest.mark.slow
def test_contents_pdf_has_the_assembly_page_with_scale_squares(tmp_path: Path) -> None:
    r = run_cli("build", "time-capsules", "--duplex", "fold", "--token-cut", "circle", "--out", tmp_path)
    assert r.exit_code == 0, r.stderr
    gc = _check("time-capsules")
    with pdfplumber.open(tmp_path / "time-capsules" / "time-capsules-contents.pdf") as pdf:
        assert len(pdf.pages) == 2
        contents = pdf.pages[0].extract_text(x_tolerance=1)
        page = pdf.pages[1]
        text = page.extract_text(x_tolerance=1)
        sizes = {(round(r["width"] / MM, 3), round(r["height"] / MM, 3)) for r in page.rects}
    for p in gc.plans:  # the contents sheet lists each component's data version
        assert f"data {data_version(ROOT, SESSION.store, gc.game, p.component)}" in contents
    assert (25.4, 25.4) in sizes and (10.0, 10.0) in sizes
    for words in ("Print at 100 %", "Gutterfold", "fold each sheet on the dashed line", "circle punch",
                  "corner ticks", "Part row R, column C", "glue under the next part", "score every dashed fold",
                  "VP and round track", "Player mats", "Cut order", "Paper: Letter"):
        assert words.lower() in " ".join(text.split()).lower(), words


def test_assembly_page_says_what_each_kind_needs() -> None:
    from pnp.products.assembly import sections

    def said(gid: str, **opts: object) -> str:
        gc = _check(gid, **opts)
        o = gc.opts
        return " ".join(p for s in sections(gc.game, gc.plans, o.duplex, PAPERS[o.paper], o.print_shop,
                                            o.token_cut) for p in s.paragraphs)

    golems = said("golems")
    assert "flipped on the long edge" in golems and "square cut boxes" in golems and "2 x 2 parts" in golems
    assert "Hex" not in golems and "Gutterfold" not in golems and "Boxes" not in golems
    cauldron = said("cauldron", duplex="short", paper="universal")
    assert "flipped on the short edge" in cauldron and "Hex tiles (Fields)" in cauldron
    assert "210 x 279.4 mm" in cauldron and "8.8 mm" in cauldron and "2.9 mm" in cauldron
    assert "Fronts only" in said("cyberiad", duplex="none")


def _count_searches(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """From now on, the count of find_spot's full searches (in "n")."""
    import pnp.impose.marks as sheetmarks

    searches = {"n": 0}
    search = sheetmarks.find_spot

    def counted(*args: object) -> object:
        searches["n"] += 1
        return search(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(sheetmarks, "find_spot", counted)
    return searches


class _Forgetful(dict):  # type: ignore[type-arg]
    def __setitem__(self, key: object, value: object) -> None:
        pass


@pytest.mark.parametrize("opts", [{}, {"duplex": "fold"}, {"paper": "universal", "token_cut": "circle"}])
def test_furnish_memo_places_every_sheet_as_a_fresh_search_would(opts: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    """furnish reuses each page geometry's obstacles and each find_spot answer across a PDF's
    pages: every bundled sheet gets exactly the furniture a search from scratch gives it."""
    import pnp.impose.marks as sheetmarks

    plans = [(gc.game, plan) for gid in GAMES for gc in [_check(gid, **opts)] for plan in gc.plans]
    searches = _count_searches(monkeypatch)
    remembered = [furnished_pages(SESSION, game, plan) for game, plan in plans]
    with_memo = searches["n"]

    class Fresh(sheetmarks._Memo):
        def __init__(self) -> None:
            self.obstacles, self.spots, self.room = _Forgetful(), _Forgetful(), _Forgetful()

    monkeypatch.setattr(sheetmarks, "_Memo", Fresh)
    # and every search made in full, none answered by the free stretches (_no_room)
    monkeypatch.setattr(sheetmarks._Placer, "_no_room", lambda *args: False)
    searches["n"] = 0
    fresh = [furnished_pages(SESSION, game, plan) for game, plan in plans]
    assert fresh == remembered
    assert sum(len(pages) for pages in remembered) > 100
    assert with_memo < searches["n"] / 2  # the memo answered most searches


def test_a_label_with_no_room_costs_few_full_searches(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Letter sheet full of 12 mm cards (abutting bleed boxes, crop marks every 18 mm) has room
    for no label: every size and split is tried, and the free stretches answer most of those
    tries without a full search (40,000 such cards: 32 s of CPU before). The sheet comes out the
    same either way, without a label."""
    import pnp.impose.marks as sheetmarks
    from pnp.impose.grid import impose
    from pnp.layout.fonts import UI_FONT

    options = SheetOptions(PAPERS["letter"], duplex="none", abut_lr=False, abut_tb=False)
    pages = impose(165, PieceSpec(12 * MM, 12 * MM, has_back=False), options)
    assert len(pages) == 1 and len(pages[0].slots) == 165  # full
    text = sheetmarks.SheetText("A game with a long title", "A deck of little cards", "0123456789")
    searches = _count_searches(monkeypatch)
    quick = sheetmarks.furnish(pages, options, text, SESSION.fonts, UI_FONT)
    with_room = searches["n"]
    monkeypatch.setattr(sheetmarks._Placer, "_no_room", lambda *args: False)
    searches["n"] = 0
    full = sheetmarks.furnish(pages, options, text, SESSION.fonts, UI_FONT)
    assert quick == full
    assert not [f for f in full[0].furniture if f.kind == "label"]
    assert with_room * 4 < searches["n"], (with_room, searches["n"])


def test_titles_too_long_for_any_room_are_cut_and_the_label_stays() -> None:
    """A title of 200 characters (the most a component's may have) fits in no margin of a full
    sheet of poker cards, and the label was left off every front (attack 24, F1). The titles are
    cut shorter with an ellipsis until it fits; the side, the sheet and the data version stay whole."""
    import pnp.impose.marks as sheetmarks
    from pnp.impose.grid import impose
    from pnp.layout.fonts import UI_FONT

    options = SheetOptions(PAPERS["letter"], duplex="none")
    pages = impose(9, PieceSpec(63 * MM, 88 * MM, has_back=False), options)
    assert len(pages) == 1 and len(pages[0].slots) == 9  # full
    short = sheetmarks.SheetText("Chronicles of the Shattered Realms", "Deck", "0123456789")
    long = sheetmarks.SheetText(short.game, " ".join(["Word"] * 40)[:200], "0123456789")
    texts = []
    for text in (short, long):
        (page,) = sheetmarks.furnish(pages, options, text, SESSION.fonts, UI_FONT)
        labels = [f for f in page.furniture if f.kind == "label"]
        assert labels, text
        texts.append(" · ".join(f.text for f in labels))
    assert texts[0] == "Chronicles of the Shattered Realms · Deck · front · sheet 1 of 1 · data 0123456789"
    game, title, rest = texts[1].split(" · ", 2)
    assert game == short.game and title.endswith("\u2026") and len(title) <= max(sheetmarks.LABEL_CUTS)
    assert long.component.startswith(title[:-1]) and rest == "front · sheet 1 of 1 · data 0123456789"
    assert sheetmarks._cut("Word Word Word", 12) == "Word Word\u2026"
    assert sheetmarks._cut("Wordwordword", 8) == "Wordwor\u2026" and sheetmarks._cut("Short", 8) == "Short"


def test_a_title_without_break_on_a_full_sheet_of_small_tokens_keeps_the_label() -> None:
    """A full Letter sheet of 20 mm tokens has room between its cut lines for a few words at a
    time: a title of one 25-letter word fitted in none, and the front had no label at all
    (attack 25, F4). The titles are cut further (to 16, then 10 characters), and last dropped."""
    import pnp.impose.marks as sheetmarks
    from pnp.impose.grid import impose
    from pnp.layout.fonts import UI_FONT

    options = SheetOptions(PAPERS["letter"], duplex="none")
    pages = impose(130, PieceSpec(20 * MM, 20 * MM, has_back=False), options)
    assert len(pages) == 1 and len(pages[0].slots) == 130  # full
    for title in ("\u00dcberraschungsmomentkarten", "W" * 200, "Word " * 40):
        text = sheetmarks.SheetText("Tg", title.strip(), "0123456789")
        (page,) = sheetmarks.furnish(pages, options, text, SESSION.fonts, UI_FONT)
        labels = [f.text for f in page.furniture if f.kind == "label"]
        assert labels and "front" in " ".join(labels) and labels[-1].endswith("data 0123456789"), (title, labels)


def test_a_sheet_with_room_for_nothing_draws_no_label_across_its_cut_lines(tmp_path: Path) -> None:
    """A sheet with room for no label and no scale mark drew its own label (a ganged sheet's
    components) centred at the bottom in 8 pt, whatever its length: 1,750 pt wide on a 612 pt
    page, across every cut line (attack 25, F3). Such a page is marked furnished with nothing
    (``UNLABELLED``) and draws none."""
    import pnp.impose.marks as sheetmarks
    from pnp.impose.grid import impose
    from pnp.layout.fonts import UI_FONT
    from pnp.layout.piece import PieceLayout
    from pnp.render.draw import DocInfo, render

    options = SheetOptions(PAPERS["letter"], duplex="none", abut_lr=False, abut_tb=False)
    (page,) = impose(165, PieceSpec(12 * MM, 12 * MM, has_back=False), options)
    from msgspec.structs import replace

    page = replace(page, label="W" * 200 + " + x")
    text = sheetmarks.SheetText("A game", "A deck", "0123456789")
    (furnished,) = sheetmarks.furnish([page], options, text, SESSION.fonts, UI_FONT)
    assert furnished.furniture == (sheetmarks.UNLABELLED,)
    piece = PieceLayout(12 * MM, 12 * MM, 0.0, ())
    data = render([furnished], PAPERS["letter"], [piece] * 165, [None] * 165, SESSION.fonts,
                  DocInfo(title="A game", author="", subject="", ui_font=UI_FONT))
    doc = pdfium.PdfDocument(data)
    assert "WWW" not in doc[0].get_textpage().get_text_range()


@pytest.mark.parametrize(("count", "size_mm"), [(5, (63, 88)), (30, (41, 63)), (7, (20, 20))])
def test_a_label_keeps_clear_of_cut_lines_across_the_whole_sheet(count: int, size_mm: tuple[float, float]) -> None:
    """A guillotine cut runs across the whole sheet, not only along its crop marks: on a partly
    filled sheet the label was set below the pieces straight across the cut lines (5 poker cards
    on Letter and a 35-character title; 89 of the bundled games' 670 labels on the three papers:
    attack 26, F1). No label box now lies across the line of any cut."""
    import pnp.impose.marks as sheetmarks
    from pnp.impose.grid import impose
    from pnp.layout.fonts import UI_FONT

    options = SheetOptions(PAPERS["letter"])
    pages = impose(count, PieceSpec(size_mm[0] * MM, size_mm[1] * MM, has_back=True), options)
    text = sheetmarks.SheetText("Supercalifragilistic Expialidocious", "Supercalifragilistic Expialidocious deck",
                                "0123456789")
    for page in sheetmarks.furnish(pages, options, text, SESSION.fonts, UI_FONT):
        xs = {c.x1 for c in page.cuts if c.x1 == c.x2}
        ys = {c.y1 for c in page.cuts if c.y1 == c.y2}
        labels = [f for f in page.furniture if f.kind == "label"]
        assert labels, page.number
        for f in page.furniture:
            x, y, w, h = f.box
            assert not [cx for cx in xs if x < cx < x + w] and not [cy for cy in ys if y < cy < y + h], (f.text, xs, ys)
