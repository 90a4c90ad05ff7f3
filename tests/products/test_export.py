"""Exports (PNG per piece, Tabletop Simulator sheets, previews) and the contents sheet of a build:
pixel sizes, RGB, the JSON beside the images checked against the images themselves, and the
contents PDF read back."""

from __future__ import annotations

import io
import json
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pdfplumber
import pytest
from click.testing import CliRunner, Result
from PIL import Image, ImageChops, ImageStat
from pypdf import PdfReader

from pnp.cli import main
from pnp.impose.sheet import PAPERS
from pnp.input.project import DataRoot, bundled_root, load_game
from pnp.plan.options import BuildOptions
from pnp.plan.session import Session
from pnp.products.contents import render_contents
from pnp.products.exports import TTS_MAX_PX, tts_grid
from pnp.products.images import px
from pnp.products.preview import PREVIEW_CAPTION, PREVIEW_GAP, PREVIEW_MARGIN, PREVIEW_TITLE
from pnp.qa.check import check

GOLEMS = DataRoot(bundled_root())


def run(*args: str | Path) -> Result:
    try:
        runner = CliRunner(mix_stderr=False)  # click < 8.2
    except TypeError:
        runner = CliRunner()
    result = runner.invoke(main, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def ok(*args: str | Path) -> Result:
    r = run(*args)
    assert r.exit_code == 0, r.stdout + r.stderr
    return r


def load(p: Path) -> Any:
    return json.loads(p.read_text(encoding="utf-8"))


def mean_diff(a: Image.Image, b: Image.Image) -> float:
    return sum(ImageStat.Stat(ImageChops.difference(a, b)).mean) / 3


def blank(img: Image.Image) -> bool:
    lo_hi = img.convert("L").getextrema()
    return lo_hi[1] - lo_hi[0] < 8


def write_game(root: Path, gid: str, size: Any, items: list[dict[str, Any]], bleed_color: str = "#2a6f4e") -> Path:
    """A one-deck data root: ``size`` ("poker-us", [w, h], ...), a front with a bleed-wide fill and
    the card's name, a plain back."""
    game = root / "card_data" / gid
    game.mkdir(parents=True)
    (game / "game.json").write_text(json.dumps({
        "id": gid, "title": f"Test {gid}", "designer": "Tester", "players": {"min": 1, "max": 2},
        "document": {"file": "none.txt"},
        "components": [{"id": "deck", "title": "Deck", "kind": "card", "shape": "rect", "size": size,
                        "data": "deck.json", "template": f"{gid}/front", "back": f"{gid}/back"}],
        "not_printed": [{"name": "Six-sided die", "quantity": "1", "source": {"designed": "test"}}],
        "rulebook": [{"id": "unique", "description": "Names differ.", "quote": "All different.",
                      "check": "unique", "select": {"component": "deck"}, "field": "name"}],
    }), encoding="utf-8")
    (game / "deck.json").write_text(json.dumps({
        "component": "deck",
        "fields": {"name": {"type": "string", "required": True, "description": "Name"}},
        "items": items,
    }), encoding="utf-8")
    tpl = root / "templates" / gid
    tpl.mkdir(parents=True)
    style = {"styles": {"title": {"font": "Lato-Bold", "size": 14, "color": "#ffffff", "align": "center",
                                  "valign": "middle"}}}
    (tpl / "front.json").write_text(json.dumps({**style, "description": "front", "elements": [
        {"type": "rect", "box": [0, 0, 200, 200], "bleed": True, "fill": bleed_color},
        {"type": "text", "box": [2, 10, 30, 10], "text": "{name}", "style": "title"}]}), encoding="utf-8")
    (tpl / "back.json").write_text(json.dumps({**style, "description": "back", "elements": [
        {"type": "rect", "box": [0, 0, 200, 200], "bleed": True, "fill": "#5a2a6f"},
        {"type": "text", "box": [2, 10, 30, 10], "text": "BACK", "style": "title"}]}), encoding="utf-8")
    return root


# -- PNG ------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def golems_png(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("png")
    for comp in ("wizard", "status", "mana"):
        ok("export", "png", "golems", comp, "--out", out)
    return out / "golems" / "png"


def test_png_sizes_rgb_and_files_per_item_and_side(golems_png: Path) -> None:
    game = load_game(GOLEMS, "golems")
    # poker 63 x 88 mm + 3 mm bleed on every side at 300 dpi: 69 x 94 mm = 815 x 1110 px
    expect = {"wizard": (815, 1110), "status": (1110, 815), "mana": (px(26, 300), px(26, 300))}
    assert px(69, 300) == 815 and px(94, 300) == 1110
    for cid, size in expect.items():
        comp = game.component(cid)
        assert comp is not None
        folder = golems_png / cid
        index = load(folder / "index.json")
        assert index["format"] == "pnp-png" and index["size_px"] == list(size) and index["dpi"] == 300
        assert [it["id"] for it in index["items"]] == [i.id for i in comp.items]
        assert sum(it["copies"] for it in index["items"]) == comp.pieces
        names = set()
        for it in index["items"]:
            assert it["front"] == f"{it['id']}-front.png"
            if comp.back is None:
                assert it["back"] is None
            names |= {it["front"]} | ({it["back"]} if it["back"] else set())
        backs = [it["back"] for it in index["items"] if it["back"]]
        if backs:  # one image per distinct back: back.png when all share one, else back-1.png...
            n = len(set(backs))
            assert set(backs) == ({"back.png"} if n == 1 else {f"back-{i}.png" for i in range(1, n + 1)})
        assert {p.name for p in folder.glob("*.png")} == names
        for name in names:
            with Image.open(folder / name) as img:
                assert img.size == size, (cid, name)
                assert img.mode == "RGB"
                assert not blank(img)


def test_png_poker_us_is_the_game_crafter_size(tmp_path: Path) -> None:
    root = write_game(tmp_path / "root", "pokerus", "poker-us", [
        {"id": "ace", "copies": 3, "name": "Ace", "source": {"designed": "test"}},
        {"id": "king", "name": "King", "source": {"designed": "test"}}])
    out = tmp_path / "out"
    ok("export", "png", "--data", root, "pokerus", "--bleed", "3.175", "--out", out)
    folder = out / "pokerus" / "png" / "deck"
    index = load(folder / "index.json")
    assert index["size_px"] == [825, 1125] and index["bleed_mm"] == 3.175
    assert sum(it["copies"] for it in index["items"]) == 4
    assert [it["back"] for it in index["items"]] == ["back.png", "back.png"]
    for name in ("ace-front.png", "back.png", "king-front.png"):
        with Image.open(folder / name) as img:
            assert img.size == (825, 1125) and img.mode == "RGB"
            # the bleed is drawn: the outermost pixels carry the art's fill, not white paper
            want = (0x2A, 0x6F, 0x4E) if "front" in name else (0x5A, 0x2A, 0x6F)
            for xy in ((0, 0), (824, 1124), (412, 0), (0, 562)):
                assert all(abs(a - b) <= 2 for a, b in zip(img.getpixel(xy), want, strict=True)), (name, xy)
    # a renamed item: its old images go (the folder matches index.json); other files stay
    (folder / "notes.txt").write_text("mine")
    data = root / "card_data" / "pokerus" / "deck.json"
    data.write_text(data.read_text().replace('"king"', '"queen"'))
    ok("export", "png", "--data", root, "pokerus", "deck", "--out", out)
    assert sorted(p.name for p in folder.iterdir()) == [
        "ace-front.png", "back.png", "index.json", "notes.txt", "queen-front.png"]


def test_png_one_image_per_distinct_back(tmp_path: Path) -> None:
    """Items that share a back share its image; the index says which one each item uses."""
    out = tmp_path / "out"
    ok("export", "png", "cauldron", "ingredients", "--out", out, "--dpi", "72")
    folder = out / "cauldron" / "png" / "ingredients"
    index = load(folder / "index.json")
    backs = [it["back"] for it in index["items"]]
    assert backs[0] == "back-1.png" and sorted(set(backs)) == [f"back-{i}.png" for i in range(1, len(set(backs)) + 1)]
    fronts = {it["front"] for it in index["items"]}
    assert {p.name for p in folder.glob("*.png")} == fronts | set(backs)
    # the images differ: as many distinct back images as distinct backs
    digests = {(folder / b).read_bytes() for b in set(backs)}
    assert len(digests) == len(set(backs))
    # and old per-item back images of an earlier export are removed (they were listed in its index)
    stale = folder / "old-back.png"
    stale.write_bytes(b"x")
    data = load(folder / "index.json")
    data["items"][0]["back"] = "old-back.png"
    (folder / "index.json").write_text(json.dumps(data))
    ok("export", "png", "cauldron", "ingredients", "--out", out, "--dpi", "72")
    assert not stale.exists()


def test_png_unknown_component_lists_the_valid_ids(tmp_path: Path) -> None:
    r = run("export", "png", "golems", "golem-dekc", "--out", tmp_path)
    assert r.exit_code == 2
    assert "golem-dekc" in r.stderr and "golem-deck" in r.stderr and "terrain" in r.stderr
    assert not (tmp_path / "golems").exists()


# -- Tabletop Simulator ---------------------------------------------------------------------------

def test_tts_grid_choice() -> None:
    assert tts_grid(70, (400, 560)) == (10, 7)
    assert tts_grid(25, (744, 1039)) == (5, 5)
    assert tts_grid(2, (744, 1039)) == (2, 2)  # TTS decks are at least 2 x 2
    for n in range(1, 71):
        cols, rows = tts_grid(n, (500, 700))
        assert 2 <= cols <= 10 and 2 <= rows <= 7 and cols * rows >= n
    with pytest.raises(ValueError):
        tts_grid(71, (500, 700))


def check_tts(folder: Path, cid: str, pieces: int, items: list[str]) -> dict[str, Any]:
    """The JSON agrees with the sheets: sizes, grids, every item once, hidden slot last."""
    deck = load(folder / f"{cid}.json")
    assert deck["format"] == "pnp-tts" and deck["pieces"] == pieces
    fw, fh = deck["face_px"]
    assert [c["item"] for c in deck["cards"]] == items
    assert len(deck["DeckIDs"]) == pieces
    assert sum(c["copies"] for c in deck["cards"]) == pieces
    for sheet in deck["sheets"]:
        cd = deck["CustomDeck"][str(sheet["deck"])]
        cols, rows = cd["NumWidth"], cd["NumHeight"]
        assert (cols, rows) == (sheet["cols"], sheet["rows"])
        assert 2 <= cols <= 10 and 2 <= rows <= 7
        assert cd["FaceURL"] == sheet["file"] and cd["BackIsHidden"] is False
        assert sheet["hidden_slot"] == cols * rows - 1
        on_sheet = [c for c in deck["cards"] if c["deck"] == sheet["deck"]]
        assert len(on_sheet) == sheet["items"]
        assert sorted(c["slot"] for c in on_sheet) == list(range(len(on_sheet)))
        assert all(c["slot"] < cols * rows - 1 and c["card_id"] == sheet["deck"] * 100 + c["slot"]
                   for c in on_sheet)
        for name in {cd["FaceURL"], cd["BackURL"]}:
            with Image.open(folder / name) as img:
                assert img.mode == "RGB"
                assert img.width <= TTS_MAX_PX and img.height <= TTS_MAX_PX
                if name == cd["FaceURL"] or cd["UniqueBack"]:
                    assert img.size == (cols * fw, rows * fh)
                else:
                    assert img.size == (fw, fh)
        with Image.open(folder / sheet["file"]) as img:
            for c in on_sheet + [{"slot": cols * rows - 1}]:
                col, row = c["slot"] % cols, c["slot"] // cols
                assert not blank(img.crop((col * fw, row * fh, (col + 1) * fw, (row + 1) * fh))), c
    ids = [c["card_id"] for c in deck["cards"] for _ in range(c["copies"])]
    assert deck["DeckIDs"] == ids
    return deck


def slot_image(folder: Path, deck: dict[str, Any], item: str) -> Image.Image:
    card = next(c for c in deck["cards"] if c["item"] == item)
    sheet = next(s for s in deck["sheets"] if s["deck"] == card["deck"])
    fw, fh = deck["face_px"]
    col, row = card["slot"] % sheet["cols"], card["slot"] // sheet["cols"]
    with Image.open(folder / sheet["file"]) as img:
        return img.crop((col * fw, row * fh, (col + 1) * fw, (row + 1) * fh))


@pytest.mark.slow
def test_tts_sheets_agree_with_the_json_and_the_png_export(tmp_path: Path, golems_png: Path) -> None:
    ok("export", "tts", "golems", "wizard", "--out", tmp_path)
    ok("export", "tts", "golems", "golem-deck", "--out", tmp_path)
    game = load_game(GOLEMS, "golems")
    for cid in ("wizard", "golem-deck"):
        comp = game.component(cid)
        assert comp is not None
        check_tts(tmp_path / "golems" / "tts" / cid, cid, comp.pieces, [i.id for i in comp.items])
    # the wizards' backs differ by colour: a back sheet per face sheet, the hidden face a title card
    wiz = load(tmp_path / "golems" / "tts" / "wizard" / "wizard.json")
    assert wiz["CustomDeck"]["1"]["UniqueBack"] is True and wiz["hidden_face"] == "title"
    # the golem deck shares one back: back.png, and the hidden slot shows that back
    folder = tmp_path / "golems" / "tts" / "golem-deck"
    deck = load(folder / "golem-deck.json")
    assert deck["CustomDeck"]["1"]["UniqueBack"] is False and deck["hidden_face"] == "back"
    assert (deck["sheets"][0]["cols"], deck["sheets"][0]["rows"]) == (5, 5)  # 24 cards + the hidden face
    fw, fh = deck["face_px"]
    sheet = deck["sheets"][0]
    hidden = sheet["hidden_slot"]
    with Image.open(folder / sheet["file"]) as img, Image.open(folder / "golem-deck-back.png") as back:
        col, row = hidden % sheet["cols"], hidden // sheet["cols"]
        assert mean_diff(img.crop((col * fw, row * fh, (col + 1) * fw, (row + 1) * fh)), back) < 2
    # a slot is the PNG export's trim, resized (the PNG carries 3 mm of bleed round 63 x 88 mm)
    wfolder = tmp_path / "golems" / "tts" / "wizard"
    for item in ("wizard-red", "wizard-black"):
        face = slot_image(wfolder, wiz, item)
        with Image.open(golems_png / "wizard" / f"{item}-front.png") as png:
            bx, by = png.width * 3 / 69, png.height * 3 / 94
            trim = png.resize(face.size, Image.Resampling.LANCZOS, box=(bx, by, png.width - bx, png.height - by))
        assert mean_diff(face, trim) < 6, item
        other = slot_image(wfolder, wiz, "wizard-blue")
        assert mean_diff(other, trim) > 3 * mean_diff(face, trim)  # and not any slot would do


def test_tts_more_than_one_sheet(tmp_path: Path) -> None:
    items = [{"id": "c", "name": "Card {number}", "series": {"field": "number", "from": 1, "to": 75},
              "source": {"designed": "test"}}]
    root = write_game(tmp_path / "root", "many", "mini", items)
    game = root / "card_data" / "many" / "deck.json"
    data = load(game)
    data["fields"]["number"] = {"type": "integer", "description": "n"}
    data["items"][0]["name"] = "Card"
    game.write_text(json.dumps(data), encoding="utf-8")
    # names repeat (the series makes numbers, not names): drop the unique-name rule
    manifest = root / "card_data" / "many" / "game.json"
    m = load(manifest)
    m["rulebook"] = [{"id": "count", "description": "75", "quote": "75 cards", "check": "equal",
                      "values": [{"pieces": {"component": "deck"}}, 75]}]
    manifest.write_text(json.dumps(m), encoding="utf-8")
    ok("export", "tts", "--data", root, "many", "--dpi", "60", "--out", tmp_path / "out")
    folder = tmp_path / "out" / "many" / "tts" / "deck"
    deck = check_tts(folder, "deck", 75, [f"c-{i}" for i in range(1, 76)])
    first = deck["sheets"][0]
    assert (first["cols"], first["rows"], first["items"]) == (10, 7, 69)
    assert deck["sheets"][1]["items"] == 6 and deck["sheets"][1]["cols"] * deck["sheets"][1]["rows"] == 8
    assert sorted(deck["CustomDeck"]) == ["1", "2"]
    assert deck["cards"][69] == {"item": "c-70", "copies": 1, "deck": 2, "file": "deck-2.png", "slot": 0,
                                 "card_id": 200}


def test_tts_faces_at_the_usual_density_for_every_deck(tmp_path: Path) -> None:
    """By default a 63 x 88 mm face is 409 x 572 px (TTS_DPI), for a small deck as for a full
    10 x 7 sheet, which then fills 4096 px across without being scaled down."""
    from pnp.products.exports import TTS_DPI, _tts_scale

    face = (px(63, TTS_DPI), px(88, TTS_DPI))
    assert face == (409, 572)
    assert tts_grid(70, face) == (10, 7) and _tts_scale(10, 7, face) == 1.0
    assert 10 * face[0] <= TTS_MAX_PX and 10 * face[0] > TTS_MAX_PX - 10
    root = write_game(tmp_path / "root", "few", [63, 88], [{"id": n, "name": n.title(), "source": {"designed": "t"}}
                                                            for n in ("ash", "birch", "cedar")])
    ok("export", "tts", "--data", root, "few", "--out", tmp_path / "out")
    deck = load(tmp_path / "out" / "few" / "tts" / "deck" / "deck.json")
    assert deck["face_px"] == [409, 572]
    assert deck["sheets"][0]["size_px"] == [2 * 409, 2 * 572]  # 3 cards + the hidden face


def test_tts_component_without_back_is_an_input_error(tmp_path: Path) -> None:
    r = run("export", "tts", "golems", "board", "--out", tmp_path)
    assert r.exit_code == 2 and "no back" in r.stderr
    assert not (tmp_path / "golems").exists()


# -- preview --------------------------------------------------------------------------------------

def test_preview_one_piece_front_and_back_side_by_side(tmp_path: Path) -> None:
    r = ok("preview", "golems", "golem-deck", "flesh", "--out", tmp_path, "--dpi", "100")
    path = tmp_path / "preview" / "golems" / "golem-deck" / "flesh.png"
    assert r.stdout.strip() == str(path)
    m, g = PREVIEW_MARGIN, PREVIEW_GAP
    with Image.open(path) as img:
        assert img.mode == "RGB"
        width, height = 2 * m + 2 * 63 + g, 2 * m + PREVIEW_TITLE + 88 + PREVIEW_CAPTION  # mm
        assert img.size == (px(width, 100), px(height, 100))
        # front and back: two pieces of 63 mm side by side
        assert math.isclose(img.width / img.height, width / height, rel_tol=0.01)
        left = img.crop((px(m, 100), px(m + PREVIEW_TITLE, 100), px(m + 63, 100), px(m + PREVIEW_TITLE + 88, 100)))
        right = img.crop((px(m + 63 + g, 100), px(m + PREVIEW_TITLE, 100), px(m + 2 * 63 + g, 100),
                          px(m + PREVIEW_TITLE + 88, 100)))
        assert not blank(left) and not blank(right) and mean_diff(left, right) > 10


def test_preview_contact_sheet_and_unknown_ids(tmp_path: Path) -> None:
    ok("preview", "golems", "wizard", "--out", tmp_path, "--dpi", "60")
    with Image.open(tmp_path / "preview" / "golems" / "wizard.png") as img:
        assert img.mode == "RGB" and img.width > img.height  # 4 fronts + 4 backs, laid out landscape
    r = run("preview", "golems", "wizard", "wizard-green", "--out", tmp_path)
    assert r.exit_code == 2
    assert "wizard-green" in r.stderr and "wizard-red, wizard-blue, wizard-yellow, wizard-black" in r.stderr
    r = run("preview", "golems", "wizzard", "--out", tmp_path)
    assert r.exit_code == 2 and "wizard" in r.stderr and "golem-deck" in r.stderr
    assert sorted(p.name for p in (tmp_path / "preview" / "golems").iterdir()) == ["wizard.png"]
    # an item's picture goes in its component's folder: `wizard red` and a component `wizard-red`
    # wrote one file name before (attack 6, F3)
    ok("preview", "golems", "wizard", "wizard-red", "--out", tmp_path, "--dpi", "36")
    assert (tmp_path / "preview" / "golems" / "wizard" / "wizard-red.png").is_file()
    assert (tmp_path / "preview" / "golems" / "wizard.png").is_file()


# -- contents sheet -------------------------------------------------------------------------------

def fonts_of(pdf: Path) -> dict[str, bool]:
    """Base font name -> embedded, over the page and the form XObjects it uses."""
    out: dict[str, bool] = {}

    def walk(res: Any) -> None:
        for f in (res.get("/Font") or {}).values():
            f = f.get_object()
            fd = f.get("/FontDescriptor")
            out[str(f["/BaseFont"])] = bool(fd) and "/FontFile2" in fd.get_object()
        for x in (res.get("/XObject") or {}).values():
            x = x.get_object()
            if "/Resources" in x:
                walk(x["/Resources"])

    for page in PdfReader(pdf).pages:
        walk(page["/Resources"])
    return out


def test_build_writes_the_contents_sheet(tmp_path: Path) -> None:
    ok("build", "golems", "--out", tmp_path, "--paper", "a4")
    pdf = tmp_path / "golems" / "golems-contents.pdf"
    assert pdf.is_file()
    game = load_game(GOLEMS, "golems")
    with pdfplumber.open(pdf) as doc:
        assert len(doc.pages) == 2  # the contents sheet, then the assembly page
        page = doc.pages[0]
        assert (round(page.width), round(page.height)) == (595, 842)  # the build's paper
        text = page.extract_text(x_tolerance=1)  # pnp draws word by word; a space is ~2.5 pt
    for comp in game.components:
        assert comp.title in text and f"{comp.id}.pdf" in text
    assert "Ten-sided dice" in text and "Pencil and eraser" in text
    assert "Golems" in text and "Lloyd Krassner" in text and "2–4 players" in text
    assert "A4" in text and "short edge" not in text and "long edge" in text
    fonts = fonts_of(pdf)
    # Set in the sheet-label font's family only: the contents sheet adds no font to a build.
    assert {name.split("+")[-1] for name in fonts} == {"Lato-Regular", "Lato-Bold"}
    assert all(fonts.values()), fonts


def test_contents_sheet_keeps_many_components_on_one_page(tmp_path: Path) -> None:
    root = GOLEMS
    gc = check(root, "golems", BuildOptions(paper="letter", duplex="none"), Session(root))
    plans = gc.plans * 4  # 40 rows: the sheet shrinks to fit rather than run off the page
    data = render_contents(gc.game, plans, gc.opts)
    path = tmp_path / "c.pdf"
    path.write_bytes(data)
    with pdfplumber.open(path) as doc:
        assert len(doc.pages) == 2  # all 40 rows on the contents sheet; the assembly page follows
        page = doc.pages[0]
        assert (page.width, page.height) == (PAPERS["letter"].width, PAPERS["letter"].height)
        assert all(ch["x0"] >= 0 and ch["x1"] <= page.width and ch["top"] >= 0 and ch["bottom"] <= page.height
                   for ch in page.chars)
        text = page.extract_text(x_tolerance=1)
    assert text.count("Golem status cards") == 4 and "Ten-sided dice" in text and "Single-sided" in text


def test_a_contents_sheet_too_long_for_one_page_goes_on_over_more(tmp_path: Path) -> None:
    """Rows that did not fit one page even at half size ran off its bottom, unprinted (120
    not_printed entries, or 200 components): the sheet now goes on over further pages, each row
    whole on its page, and the assembly page comes last."""
    from msgspec.structs import replace as struct_replace

    root = GOLEMS
    gc = check(root, "golems", BuildOptions(paper="letter", duplex="none"), Session(root))
    extra = tuple(struct_replace(gc.game.not_printed[0], name=f"Thing {i}", quantity=f"{i} of wood")
                  for i in range(120))
    game = struct_replace(gc.game, not_printed=gc.game.not_printed + extra)
    path = tmp_path / "c.pdf"
    path.write_bytes(render_contents(game, gc.plans * 20, gc.opts))
    with pdfplumber.open(path) as doc:
        assert len(doc.pages) >= 4
        texts = [page.extract_text(x_tolerance=1) for page in doc.pages]
        for page in doc.pages:
            assert all(ch["top"] >= 15 * 72 / 25.4 - 1 for ch in page.chars)  # below the top margin
            assert all(ch["bottom"] <= page.height for ch in page.chars)
    body = "\n".join(texts[:-1])
    assert body.count("Golem status cards") == 20
    assert all(f"Thing {i} {i} of wood" in body for i in range(120)), body[-500:]
    assert all("Contents sheet, continued" in t for t in texts[1:-1])
    assert "Scale check" in texts[-1] or "assembly" in texts[-1].lower()


def test_tts_saved_object_is_the_deck_tts_loads(tmp_path: Path) -> None:
    root = write_game(tmp_path / "root", "pokerus", "poker-us", [
        {"id": "ace", "copies": 3, "name": "Ace", "source": {"designed": "test"}},
        {"id": "king", "name": "King", "source": {"designed": "test"}}])
    out = tmp_path / "out"
    r = ok("export", "tts", "--data", root, "pokerus", "--dpi", "60", "--out", out)
    assert "saved objects in" in r.output
    tts = out / "pokerus" / "tts"
    index = load(tts / "deck" / "deck.json")  # the pnp JSON stays as it was
    save = load(tts / "saved-objects" / "pokerus-deck.json")
    (deck,) = save["ObjectStates"]
    assert deck["Name"] == "DeckCustom" and deck["Nickname"] == "Deck"
    assert deck["DeckIDs"] == index["DeckIDs"] == [100, 100, 100, 101]
    assert deck["Transform"]["rotZ"] == 180 and deck["Transform"]["scaleX"] == round(88.9 / 88, 4)
    (key,) = deck["CustomDeck"]
    entry = deck["CustomDeck"][key]
    for field in ("NumWidth", "NumHeight", "BackIsHidden", "UniqueBack", "Type"):
        assert entry[field] == index["CustomDeck"][key][field]
    for field in ("FaceURL", "BackURL"):  # local files TTS can open
        assert entry[field].startswith("file:///")
        assert Path(unquote(urlparse(entry[field]).path)) == (tts / "deck" / index["CustomDeck"][key][field]).resolve()
    cards = deck["ContainedObjects"]
    assert [c["CardID"] for c in cards] == deck["DeckIDs"]
    assert [c["Nickname"] for c in cards] == ["Ace", "Ace", "Ace", "King"]
    assert all(c["Name"] == "Card" and list(c["CustomDeck"]) == [str(c["CardID"] // 100)] for c in cards)
    assert len({deck["GUID"], *(c["GUID"] for c in cards)}) == 3  # per deck, per item
    # hosted: the URLs are the base URL + the path inside DIR/<game>/tts/
    ok("export", "tts", "--data", root, "pokerus", "--dpi", "60", "--out", out, "--base-url", "https://e.org/t/")
    entry = load(tts / "saved-objects" / "pokerus-deck.json")["ObjectStates"][0]["CustomDeck"][key]
    assert entry["FaceURL"] == "https://e.org/t/deck/deck-1.png"
    assert entry["BackURL"] == "https://e.org/t/deck/deck-back.png"


def test_tts_saved_object_of_one_piece_is_a_card(tmp_path: Path) -> None:
    root = write_game(tmp_path / "root", "one", "poker-us", [{"id": "ace", "name": "Ace", "source": {"designed": "t"}}])
    ok("export", "tts", "--data", root, "one", "--dpi", "60", "--out", tmp_path / "out")
    (card,) = load(tmp_path / "out" / "one" / "tts" / "saved-objects" / "one-deck.json")["ObjectStates"]
    assert card["Name"] == "Card" and card["CardID"] == 100 and "DeckIDs" not in card
    assert list(card["CustomDeck"]) == ["1"]


def _rename_deck(root: Path, gid: str, cid: str, second: str) -> None:
    """Give the one deck of ``write_game`` the id ``cid`` and add a second deck, ``second``."""
    game = root / "card_data" / gid
    manifest = load(game / "game.json")
    first = manifest["components"][0]
    first["id"] = cid
    manifest["components"].append({**first, "id": second, "data": "deck2.json"})
    manifest["rulebook"][0]["select"]["component"] = cid
    (game / "game.json").write_text(json.dumps(manifest), encoding="utf-8")
    deck = load(game / "deck.json")
    (game / "deck.json").write_text(json.dumps({**deck, "component": cid}), encoding="utf-8")
    (game / "deck2.json").write_text(json.dumps({**deck, "component": second}), encoding="utf-8")


def test_tts_saved_objects_is_a_reserved_component_id(tmp_path: Path) -> None:
    """Attack 3 F5: in game 'saved', the saved object of component 'objects' and the description
    of component 'saved-objects' were both tts/saved-objects/saved-objects.json (one overwrote the
    other), and that component's sheets went into the folder copied into TTS."""
    items = [{"id": "ace", "name": "Ace", "source": {"designed": "t"}}]
    root = write_game(tmp_path / "root", "saved", "poker-us", items)
    _rename_deck(root, "saved", "objects", "saved-objects")
    for command in (("check",), ("export", "tts"), ("build",)):
        r = run(*command, "--data", root, "saved", *(("--out", tmp_path / "out") if command != ("check",) else ()))
        assert r.exit_code == 2, r.output
        assert ("game.json:1:" in r.stderr and "$.components[1].id: component id 'saved-objects' is reserved: "
                "`pnp export tts` writes the game's Tabletop Simulator saved objects to tts/saved-objects/"
                in r.stderr), r.stderr
        assert "rename it, e.g. saved-object-cards" in r.stderr
    assert not (tmp_path / "out").exists()
    # renamed as the hint says: every deck has its saved object, and the folder holds nothing else
    root = write_game(tmp_path / "root2", "saved", "poker-us", items)
    _rename_deck(root, "saved", "objects", "saved-object-cards")
    ok("export", "tts", "--data", root, "saved", "--dpi", "60", "--out", tmp_path / "out")
    tts = tmp_path / "out" / "saved" / "tts"
    assert sorted(p.name for p in (tts / "saved-objects").iterdir()) == [
        "saved-objects.json", "saved-saved-object-cards.json"]
    for name in ("saved-objects.json", "saved-saved-object-cards.json"):
        assert load(tts / "saved-objects" / name)["ObjectStates"][0]["Name"] == "Card"
    for cid in ("objects", "saved-object-cards"):
        assert load(tts / cid / f"{cid}.json")["format"] == "pnp-tts"


# -- big pieces: bounded memory (issue 19) ------------------------------------------------------

def test_a_banded_png_is_the_whole_render_up_to_anti_aliasing(monkeypatch: pytest.MonkeyPatch) -> None:
    """A big image is rendered in bands (memory bounded); its pixels are those of one render of
    the whole page, but for a few whose anti-aliasing rounds otherwise near a band's edge."""
    import io

    import pypdfium2 as pdfium

    from pnp.impose.sheet import paper_named
    from pnp.layout.fonts import FontBook
    from pnp.products import images
    from pnp.products.calibrate import calibration_pdf
    from pnp.render.draw import BackCorrection

    data = calibration_pdf(paper_named("letter"), "long", FontBook(DataRoot(bundled_root()).font_dirs()),
                           BackCorrection())
    doc = pdfium.PdfDocument(data)
    size = (850, 1100)
    whole = images.raster(doc, 0, size)
    one_band = Image.open(io.BytesIO(images.banded_png(doc, 0, size, 100)))
    assert one_band.size == size and one_band.mode == "RGB"
    assert one_band.info["dpi"] == pytest.approx((100, 100), abs=0.05)
    assert ImageChops.difference(whole, one_band).getbbox() is None  # one band: the very same pixels
    monkeypatch.setattr(images, "BAND_PIXELS", 850 * 37)  # bands of 37 rows
    banded = Image.open(io.BytesIO(images.banded_png(doc, 0, size, 100))).convert("RGB")
    diff = ImageChops.difference(whole, banded).convert("L")
    w = size[0]
    rows = [y for y in range(size[1]) if diff.crop((0, y, w, y + 1)).getbbox() is not None]
    # the same pixels but near a band's edge, where a hairline's anti-aliasing may round otherwise
    assert rows and all(min(y % 37, 37 - y % 37) <= 4 for y in rows), rows
    assert w * size[1] - diff.histogram()[0] < w * size[1] // 1000  # pixels that differ at all


def test_an_export_image_above_the_pixel_limit_is_exit_2_before_any_file(tmp_path: Path) -> None:
    import shutil

    root = tmp_path / "root"
    shutil.copytree(Path(__file__).resolve().parents[1] / "data" / "mini", root)
    game = root / "card_data" / "mini" / "game.json"
    game.write_text(game.read_text().replace('"size": "mini"', '"size": [1900, 1900]'))
    for t in ("card", "back"):
        p = root / "templates" / "mini" / f"{t}.json"
        p.write_text(p.read_text().replace('"size": [44, 63],', ""))
    r = CliRunner().invoke(main, ["export", "png", "mini", "--data", str(root), "--out", str(tmp_path / "out"),
                                  "--dpi", "300"])
    assert r.exit_code == 2, r.output
    assert "pixels, more than pnp's limit of 250000000" in r.output and "lower --dpi" in r.output
    assert not (tmp_path / "out").exists()


def test_a_big_preview_is_rendered_in_bands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Above BAND_PIXELS a preview is rendered in bands: the same size, and the same picture but
    for anti-aliasing near the bands' edges."""
    import pnp
    from pnp.products import preview

    whole = pnp.preview("golems", "golem-deck", "flesh", out=tmp_path / "whole", dpi=100)
    assert whole.ok
    monkeypatch.setattr(preview, "BAND_PIXELS", 20_000)
    banded = pnp.preview("golems", "golem-deck", "flesh", out=tmp_path / "banded", dpi=100)
    assert banded.ok
    a, b = Image.open(whole.path).convert("RGB"), Image.open(banded.path).convert("RGB")
    assert a.size == b.size and a.size[0] * a.size[1] > 20_000
    diff = ImageChops.difference(a, b).convert("L")
    assert a.size[0] * a.size[1] - diff.histogram()[0] < a.size[0] * a.size[1] // 100


@pytest.mark.parametrize("band", [False, True])
def test_png_export_same_bytes_whatever_the_job_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      band: bool) -> None:
    """Two worker processes write exactly the files one process writes (banded images too), and
    the workers are really used."""
    import pnp.products.exports as exports

    banded: list[int] = []
    if band:  # every image above 20,000 px: rendered in bands, in the workers as in one process
        monkeypatch.setattr(exports, "BAND_PIXELS", 20_000)
        real_band = exports.banded_png
        monkeypatch.setattr(exports, "banded_png", lambda *a: banded.append(1) or real_band(*a))
    pools: list[int] = []
    real = exports.run_pool
    monkeypatch.setattr(exports, "run_pool", lambda jobs, *a, **k: pools.append(jobs) or real(jobs, *a, **k))
    trees = []
    for jobs in ("1", "2"):
        out = tmp_path / jobs
        ok("export", "png", "cyberiad", "--out", out, "--dpi", "100", "--jobs", jobs)
        trees.append({str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()})
    assert pools == [2, 2]  # the PDFs, then the images
    assert len([n for n in trees[0] if n.endswith(".png")]) > 20
    assert trees[0] == trees[1]
    assert bool(banded) == band  # (counted in this process: the --jobs 1 run)


@pytest.mark.parametrize("command", [("export", "png"), ("export", "tts"), ("preview",)])
def test_a_costly_image_is_rendered_in_a_worker_with_the_same_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   command: tuple[str, ...]) -> None:
    """An image charged more than ISOLATED_PIXELS is rendered in a forked worker (which Ctrl-C
    ends at once, where PDFium inside one costly drawing would not stop: attack 23, F3), a cheaper
    one here, step by step; the files are the same either way."""
    import pnp.products.images as images
    import pnp.products.workers as workers

    pids: list[int] = []
    real = workers.run_pool
    monkeypatch.setattr(workers, "run_pool", lambda jobs, *a, **k: pids.append(jobs) or real(jobs, *a, **k))
    import pnp.products.exports as exports

    monkeypatch.setattr(exports, "run_pool", workers.run_pool)
    trees = []
    for limit in (images.ISOLATED_PIXELS, 0):
        monkeypatch.setattr(images, "ISOLATED_PIXELS", limit)
        out = tmp_path / str(limit)
        ok(*command, "cyberiad", *(["constructors"] if command == ("preview",) else []), "--out", out, "--dpi", "60",
           *(["--jobs", "1"] if command == ("export", "png") else []))
        trees.append({str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*"))
                      if p.is_file() and "saved-objects" not in p.parts})
        assert pids == ([] if limit else [1] * len(pids)) and (limit or pids), (limit, pids)
    assert trees[0] == trees[1] and trees[0]


def test_png_export_encodes_fast_with_the_same_pixels(golems_png: Path) -> None:
    """export png writes its PNGs unfiltered at zlib level 2 (faster than Pillow's per-row filters
    at level 6, files about as large): the exported bytes are that encoding of the pixels, which
    decode the same as Pillow's, with the same dpi."""
    from PIL import Image

    from pnp.products.images import png_bytes

    path = next(iter(sorted(golems_png.rglob("*-front.png"))))
    with Image.open(path) as im:
        im.load()
        dpi = round(im.info["dpi"][0])
        assert path.read_bytes() == png_bytes(im, dpi, fast=True) != png_bytes(im, dpi)
        for data in (png_bytes(im, dpi), png_bytes(im, dpi, fast=True)):
            with Image.open(io.BytesIO(data)) as again:
                assert round(again.info["dpi"][0]) == dpi
                assert again.mode == im.mode and again.size == im.size and again.tobytes() == im.tobytes()


# --------------------------------------------------------------------------- the pixel budget


def _tiles(tmp_path: Path, n: int, size: Any = (400, 400)) -> Path:
    """A data root whose deck holds ``n`` distinct pieces of ``size`` mm, one back for all."""
    return write_game(tmp_path / "root", "big", list(size), [{"id": f"t{i}", "name": f"T{i}",
                                                              "source": {"designed": "test"}} for i in range(n)])


def test_an_export_over_the_command_pixel_budget_is_exit_2_before_anything(tmp_path: Path) -> None:
    """Each image under the per-image cap, but 20 tiles of 400 mm and their back at 900 dpi are
    21 x 14386 x 14386 = 4.35 billion pixels: refused before anything is rendered (the output folder
    is not even made), naming the limit, the total and the highest --dpi that fits."""
    from pnp.render.pixels import MAX_COMMAND_PIXELS

    root = _tiles(tmp_path, 20)
    side = px(400 + 2 * 3, 900)
    assert side * side < 250_000_000 and side == 14386
    r = run("export", "png", "big", "--data", root, "--out", tmp_path / "out", "--dpi", "900", "--jobs", "1")
    assert r.exit_code == 2, r.stdout + r.stderr
    total = 21 * side * side
    fits = max(d for d in range(36, 900) if 21 * px(406, d) ** 2 <= MAX_COMMAND_PIXELS)
    assert (f"`pnp export png` would render 21 images of {total} pixels together ({total // 1_000_000} million), "
            f"more than pnp's limit of {MAX_COMMAND_PIXELS} pixels") in r.stderr
    assert f"lower --dpi (--dpi {fits} fits), or fewer distinct items in the component" in r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "out").exists()


def test_the_pixel_budget_counts_what_the_export_renders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The total counted up front is the pixels the export writes: at that very limit the PNG and
    TTS exports go through, one pixel below it they are refused, and the old files stay as they were."""
    from pnp.render import pixels

    monkeypatch.setattr(pixels, "PAINTED_PER_PIXEL", 10**18)  # the painting of fills aside: its own test
    monkeypatch.setattr(pixels, "GLYPH_PIXELS", 0)  # and the glyphs: theirs
    monkeypatch.setattr(pixels, "GLYPH_EM_PIXELS", 10**30)

    root = write_game(tmp_path / "root", "few", "poker-us", [{"id": n, "name": n.title(), "source": {"designed": "t"}}
                                                             for n in ("ash", "birch", "cedar")])
    for kind, dpi in (("png", "100"), ("tts", "80")):
        out = tmp_path / kind
        ok("export", kind, "--data", root, "few", "--out", out, "--dpi", dpi)
        written = sorted(out.rglob("*.png"))
        total = 0
        for f in written:
            with Image.open(f) as img:
                total += img.width * img.height
        before = {f: f.read_bytes() for f in written}
        monkeypatch.setattr(pixels, "MAX_COMMAND_PIXELS", total)
        ok("export", kind, "--data", root, "few", "--out", out, "--dpi", dpi)
        monkeypatch.setattr(pixels, "MAX_COMMAND_PIXELS", total - 1)
        for f in written:
            f.write_bytes(b"old")
        r = run("export", kind, "--data", root, "few", "--out", out, "--dpi", dpi)
        assert r.exit_code == 2, r.stdout + r.stderr
        assert f"`pnp export {kind}` would render {len(written)} images of {total} pixels together" in r.stderr
        assert f"more than pnp's limit of {total - 1} pixels" in r.stderr
        assert sorted(out.rglob("*.png")) == written and all(f.read_bytes() == b"old" for f in written)
        assert before  # the first run wrote them


def test_tts_over_the_pixel_budget_names_a_dpi_that_fits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """TTS sheets: 75 cards are two sheets (10 x 7 and 4 x 2 faces of 409 x 572 at the default
    165 dpi) and the back; the message names the highest --dpi whose sheets fit the limit."""
    from pnp.products.exports import _tts_geometry
    from pnp.render import pixels

    monkeypatch.setattr(pixels, "PAINTED_PER_PIXEL", 10**18)  # the painting of fills aside: its own test
    monkeypatch.setattr(pixels, "GLYPH_PIXELS", 0)  # and the glyphs: theirs
    monkeypatch.setattr(pixels, "GLYPH_EM_PIXELS", 10**30)

    items = [{"id": f"c{i}", "name": f"C{i}", "source": {"designed": "t"}} for i in range(75)]
    root = write_game(tmp_path / "root", "many", [63, 88], items)
    monkeypatch.setattr(pixels, "MAX_COMMAND_PIXELS", 10_000_000)
    r = run("export", "tts", "--data", root, "many", "--out", tmp_path / "out")
    assert r.exit_code == 2, r.stdout + r.stderr
    total = 10 * 409 * 7 * 572 + 4 * 409 * 2 * 572 + 409 * 572
    assert f"`pnp export tts` would render 3 images of {total} pixels together" in r.stderr
    import re

    fits = int(re.search(r"--dpi (\d+) fits", r.stderr).group(1))  # type: ignore[union-attr]
    s = Session(DataRoot(root))
    plan = check(s.root, "many", BuildOptions(print_shop=True), s).plans[0]
    assert _tts_geometry(plan, fits).pixels <= 10_000_000 < _tts_geometry(plan, fits + 1).pixels
    assert not (tmp_path / "out").exists()
    # or the user raises the budget, knowing the time it takes: the megapixels named are enough
    need = -(-total // 1_000_000)
    assert f"raise the limit with --max-megapixels {need}" in r.stderr
    r = run("export", "tts", "--data", root, "many", "--out", tmp_path / "out", "--max-megapixels", str(need - 1))
    assert r.exit_code == 2 and f"pnp's limit of {(need - 1) * 1_000_000} pixels" in r.stderr
    r = run("export", "tts", "--data", root, "many", "--out", tmp_path / "out", "--max-megapixels", str(need))
    assert r.exit_code == 0, r.stdout + r.stderr
    assert len(list((tmp_path / "out" / "many" / "tts").rglob("*.png"))) == 3


def test_a_png_shop_over_the_pixel_budget_does_not_say_lower_dpi(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A shop sets the dpi, so the message does not ask for a lower one."""
    from pnp.render import pixels

    monkeypatch.setattr(pixels, "MAX_COMMAND_PIXELS", 1_000_000)
    r = run("export", "png", "golems", "--shop", "thegamecrafter", "--out", tmp_path / "out")
    assert r.exit_code == 2, r.stdout + r.stderr
    assert "more than pnp's limit of 1000000 pixels" in r.stderr and "--dpi" not in r.stderr
    assert "export one component at a time (`pnp export png golems COMPONENT`)" in r.stderr
    assert not (tmp_path / "out").exists()
    # --max-megapixels reaches a shop's export too
    r = run("export", "png", "golems", "--shop", "thegamecrafter", "--out", tmp_path / "out", "--max-megapixels", "2")
    assert r.exit_code == 2 and "more than pnp's limit of 2000000 pixels" in r.stderr, r.stderr


def _exported_with_art(tmp_path: Path, command: tuple[str, ...], name: str,
                       write: Callable[[Path], object]) -> tuple[list[Any], int]:
    """Three cards whose front draws the art file ``name`` (made by ``write``), exported by
    ``command`` at 40 dpi into tmp_path/out: (the command's arguments, the PNGs' pixels)."""
    root = write_game(tmp_path / "root", "art", "poker-us", [{"id": n, "name": n.title(), "source": {"designed": "t"}}
                                                             for n in ("ash", "birch", "cedar")])
    (root / "card_data" / "art" / "img").mkdir()
    write(root / "card_data" / "art" / "img" / name)
    front = root / "templates" / "art" / "front.json"
    tpl = load(front)
    tpl["elements"].insert(1, {"type": "image", "src": f"img/{name}", "box": [5, 5, 20, 20]})
    front.write_text(json.dumps(tpl), encoding="utf-8")
    args = [*command, "--data", root, "art", *(["deck"] if command == ("preview",) else []), "--dpi", "40"]
    out = tmp_path / "out"
    ok(*args, "--out", out)
    rendered = 0
    for f in sorted(out.rglob("*.png")):
        with Image.open(f) as img:
            rendered += img.width * img.height
    return args, rendered


@pytest.mark.parametrize("command", [("export", "png"), ("export", "tts"), ("preview",)])
def test_the_pixel_budget_counts_the_image_files_each_image_draws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   command: tuple[str, ...]) -> None:
    """PDFium decodes an image file each time a page draws it, so a small export of many pieces
    that each draw a big file is costly: the budget counts the file's pixels (one in
    DECODED_PER_PIXEL) for every drawing. Three fronts drawing a 1000 x 1000 PNG: 3,000,000
    pixels decoded (the back draws none), 750,000 counted; at exactly the rendered pixels plus
    those the command runs, one pixel less and it is refused, naming the art."""
    from pnp.render import pixels

    monkeypatch.setattr(pixels, "PAINTED_PER_PIXEL", 10**18)  # the painting of fills aside: its own test
    monkeypatch.setattr(pixels, "GLYPH_PIXELS", 0)  # and the glyphs: theirs
    monkeypatch.setattr(pixels, "GLYPH_EM_PIXELS", 10**30)

    args, rendered = _exported_with_art(tmp_path, command, "a.png", lambda path: Image.new(
        "RGB", (1000, 1000), "#806040").save(path))
    assert pixels.DECODED_PER_PIXEL == 4
    monkeypatch.setattr(pixels, "MAX_COMMAND_PIXELS", rendered + 750_000)
    ok(*args, "--out", tmp_path / "again")
    monkeypatch.setattr(pixels, "MAX_COMMAND_PIXELS", rendered + 749_999)
    r = run(*args, "--out", tmp_path / "refused")
    assert r.exit_code == 2, r.stdout + r.stderr
    assert (f"of {rendered} pixels together (0 million) and decode 3000000 pixels of image files for them "
            f"(counted a file's pixel 1 in 4: {rendered + 750_000} together), more than pnp's limit of "
            f"{rendered + 749_999}"
            ) in r.stderr
    assert "scale the art to the resolution it prints at" in r.stderr
    assert not (tmp_path / "refused").exists()


@pytest.mark.parametrize("command", [("export", "png"), ("export", "tts"), ("preview",)])
def test_the_pixel_budget_counts_the_svg_art_each_image_draws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              command: tuple[str, ...]) -> None:
    """PDFium parses and draws SVG art's shapes again each time a page draws it (attack 6, F2:
    49,000 small paths on 300 cards, `export png` at 36 dpi took 55 s within 0.4 % of the pixel
    budget). Three fronts drawing 500 squares and 100 circles (each counting 2): 2,100 shapes
    drawn, each counted as PIXELS_PER_SHAPE pixels; at exactly that the command runs, one
    pixel less and it is refused, saying what to simplify."""
    from pnp.render import pixels

    monkeypatch.setattr(pixels, "PAINTED_PER_PIXEL", 10**18)  # the painting of fills aside: its own test
    monkeypatch.setattr(pixels, "GLYPH_PIXELS", 0)  # and the glyphs: theirs
    monkeypatch.setattr(pixels, "GLYPH_EM_PIXELS", 10**30)

    shapes = "".join(f'<rect x="{i % 30}" y="{i // 30}" width="1" height="1"/>' for i in range(500))
    shapes += "".join(f'<circle cx="{i}" cy="20" r="0.5"/>' for i in range(100))
    args, rendered = _exported_with_art(tmp_path, command, "a.svg", lambda path: path.write_text(
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 30">{shapes}</svg>', encoding="utf-8"))
    counted = 3 * 700 * pixels.PIXELS_PER_SHAPE
    monkeypatch.setattr(pixels, "MAX_COMMAND_PIXELS", rendered + counted)
    ok(*args, "--out", tmp_path / "again")
    monkeypatch.setattr(pixels, "MAX_COMMAND_PIXELS", rendered + counted - 1)
    r = run(*args, "--out", tmp_path / "refused")
    assert r.exit_code == 2, r.stdout + r.stderr
    assert (f"of {rendered} pixels together (0 million) and draw 2100 shapes of SVG art for them (counted a "
            f"shape as {pixels.PIXELS_PER_SHAPE} pixels: {rendered + counted} together)") in r.stderr
    assert "simplify the SVG art (fewer shapes, nodes and dashes), or export it as a PNG" in r.stderr
    assert "scale the art" not in r.stderr
    assert not (tmp_path / "refused").exists()


@pytest.mark.parametrize("command", [("export", "png"), ("preview",)])
def test_the_pixel_budget_counts_the_dashes_of_svg_art_as_drawn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                command: tuple[str, ...]) -> None:
    """PDFium cuts a dashed stroke into dashes each time it draws it (attack 14, F3: 100 lines
    of 2,000,000 units dashed 0.1, 2.9 s of `export` for a 9 KB SVG): each dash drawn counts,
    SVG_DASHES_PER_SHAPE a shape, where the art is drawn large enough that PDFium dashes it.
    Ten lines of 1,000 units dashed 0.5 (1,000 dashes each) count 500 shapes a drawing; ten
    dashed 2**-16 (32 million dashes each) are drawn solid at a 20 mm box, and count as lines."""
    from pnp.layout.svg_cost import STROKE_SHAPES_PER_SIDE, SVG_DASHES_PER_SHAPE
    from pnp.render import pixels

    monkeypatch.setattr(pixels, "PAINTED_PER_PIXEL", 10**18)  # the painting of fills aside: its own test
    monkeypatch.setattr(pixels, "GLYPH_PIXELS", 0)  # and the glyphs: theirs
    monkeypatch.setattr(pixels, "GLYPH_EM_PIXELS", 10**30)

    line = '<line x1="0" y1="{y}" x2="1000" y2="{y}" stroke="#000" stroke-width="0.2" stroke-dasharray="{d}"/>'
    body = "".join(line.format(y=i, d="0.5") for i in range(10))
    body += "".join(line.format(y=20 + i, d="0.0000152587890625") for i in range(10))
    args, rendered = _exported_with_art(tmp_path, command, "a.svg", lambda path: path.write_text(
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 30">{body}</svg>', encoding="utf-8"))
    runs = int(1000 / math.sqrt(100 * 30) * STROKE_SHAPES_PER_SIDE)  # each line runs 18 of the art's sides
    shapes = 3 * (20 * (2 + runs) + 10 * 1000 // SVG_DASHES_PER_SHAPE)
    counted = shapes * pixels.PIXELS_PER_SHAPE
    monkeypatch.setattr(pixels, "MAX_COMMAND_PIXELS", rendered + counted)
    ok(*args, "--out", tmp_path / "again")
    monkeypatch.setattr(pixels, "MAX_COMMAND_PIXELS", rendered + counted - 1)
    r = run(*args, "--out", tmp_path / "refused")
    assert r.exit_code == 2, r.stdout + r.stderr
    assert f"and draw {shapes} shapes of SVG art for them" in r.stderr
    assert "simplify the SVG art (fewer shapes, nodes and dashes), or export it as a PNG" in r.stderr
    assert not (tmp_path / "refused").exists()


@pytest.mark.parametrize("url", ["javascript:alert(1)", "ftp://example.org/t", "https://example.org/a b",
                                 "https://example.org/\x1b[31m", "example.org/t", ""])
def test_a_base_url_that_is_not_http_is_refused_before_anything(tmp_path: Path, url: str) -> None:
    """--base-url is written into every saved object for TTS to fetch: only an http(s) URL of
    printable characters (attack 5 took `javascript:alert(1)` as it was)."""
    r = run("export", "tts", "golems", "--out", tmp_path / "out", "--base-url", url)
    assert r.exit_code == 2, r.stdout + r.stderr
    assert "--base-url: $: " in r.stderr and "is not an http:// or https:// URL" in r.stderr
    assert "\x1b" not in r.stderr and not (tmp_path / "out").exists()


def test_rasterising_text_is_charged_by_its_glyphs(tmp_path: Path) -> None:
    """PDFium draws every glyph of a text that reaches the image, a line running off it too:
    a repeat of 200 unwrapped texts of 5,000 characters at 30 pt (the 1,000,000 characters a
    piece may measure) took 44 s to export 20 cards and 90 s to preflight, uncharged (attack 24,
    F3). Each glyph now counts, the more the larger its em at the dpi: the export is refused up
    front naming them, and preflight reports the component unmeasured, in a fraction of a second."""
    import random
    import string

    root = write_game(tmp_path / "root", "words", "poker-us", [{"id": f"i{k}", "name": f"N{k}",
                                                                "source": {"designed": "t"}} for k in range(5)])
    front = root / "templates" / "words" / "front.json"
    tpl = load(front)
    line = "".join(random.Random(1).choice(string.ascii_letters) for _ in range(2000))
    tpl["elements"].append({"type": "repeat", "count": 400, "step": [0, 0.1], "elements": [
        {"type": "text", "box": [2, 20, 59, 5], "text": line, "style": "title", "size": 30, "wrap": False}]})
    front.write_text(json.dumps(tpl), encoding="utf-8")
    r = run("export", "png", "--data", root, "words", "--out", tmp_path / "out")
    assert r.exit_code == 2, r.stdout + r.stderr
    drawn = re.search(r"and draw (\d+) glyphs of text", r.stderr)
    assert drawn is not None and int(drawn.group(1)) >= 5 * 400 * 2000, r.stderr
    assert "shorter texts, or fewer of them (every character drawn counts" in r.stderr
    assert not (tmp_path / "out").exists()
    r = run("preflight", "--data", root, "words")
    assert r.exit_code == 0, r.stderr
    assert "ink coverage and shared cut lines not measured" in r.stderr and "glyphs of text" in r.stderr


@pytest.mark.parametrize("command", [("export", "png"), ("export", "tts"), ("preview",)])
def test_the_pixel_budget_counts_painting_at_the_export_dpi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            command: tuple[str, ...]) -> None:
    """A fill or stroke is painted over every pixel it covers at the --dpi: 300 see-through
    full-card rectangles a card, within the layout's shape budget (calibrated at 300 dpi), took
    31 s to export at 1,200 dpi. The budget counts the painting at the command's dpi: 20 such
    rectangles on three cards export at 100 dpi within a 30-million-pixel budget, and are
    refused at 600 dpi, naming the painting and a dpi that fits."""
    from pnp.layout.paints import AREA_PT2
    from pnp.render import pixels

    root = write_game(tmp_path / "root", "wash", "poker-us", [{"id": n, "name": n.title(), "source": {"designed": "t"}}
                                                              for n in ("ash", "birch", "cedar")])
    front = root / "templates" / "wash" / "front.json"
    tpl = load(front)
    tpl["elements"].append({"type": "repeat", "count": 20, "step": [0, 0], "elements": [
        {"type": "rect", "box": [0, 0, "w", "h"], "fill": "#ff0000", "opacity": 0.5}]})
    front.write_text(json.dumps(tpl), encoding="utf-8")
    args = [*command, "--data", root, "wash", *(["deck"] if command == ("preview",) else [])]
    monkeypatch.setattr(pixels, "MAX_COMMAND_PIXELS", 30_000_000)
    ok(*args, "--out", tmp_path / "low", "--dpi", "100")
    r = run(*args, "--out", tmp_path / "high", "--dpi", "600")
    assert r.exit_code == 2, r.stdout + r.stderr
    m = re.search(r"and paint (\d+) pixels of fills and strokes \(see-through ones 5 times\) for them "
                  r"\(counted a painted pixel 1 in 25: \d+ together\)", r.stderr)
    assert m, r.stderr
    # the painting is the layouts' area charge at 600 dpi: at least 20 full-card see-through
    # rectangles on each of three fronts
    card = 63.5 * 88.9 * (72 / 25.4) ** 2  # poker-us, pt²
    assert int(m.group(1)) >= 3 * 20 * int(card / AREA_PT2 * 5) * AREA_PT2 * (600 / 72) ** 2 * 0.99
    assert "fewer or smaller fills and strokes (shorter outlines), opaque rather than see-through" in r.stderr
    fits = re.search(r"--dpi (\d+) fits", r.stderr)
    assert (fits and 100 <= int(fits.group(1)) < 600) or command == ("preview",), r.stderr
    assert not (tmp_path / "high").exists()
    needed = re.search(r"raise the limit with --max-megapixels (\d+)", r.stderr)  # every command takes it
    assert needed is not None, r.stderr
    ok(*args, "--out", tmp_path / "high", "--dpi", "600", "--max-megapixels", needed.group(1))


def test_the_pixel_budget_counts_the_edges_of_thin_strokes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """PDFium builds cells along both sides of a stroke at the dpi, however thin: 1,000 lines
    0.3 mm wide down a card took about 65 ms a card at 300 dpi, where the area they paint counted
    4 ms. The budget counts a pixel of edge EDGE_WEIGHT painted pixels: such lines on three cards
    export at 100 dpi within a 30-million-pixel budget and are refused at 600 dpi (they passed
    it, counted by their area alone), naming the painting and a dpi that fits."""
    from pnp.render import pixels

    root = write_game(tmp_path / "root", "thin", "poker-us", [{"id": n, "name": n.title(), "source": {"designed": "t"}}
                                                              for n in ("ash", "birch", "cedar")])
    front = root / "templates" / "thin" / "front.json"
    tpl = load(front)
    tpl["elements"].append({"type": "repeat", "count": 1000, "step": [0.06, 0], "elements": [
        {"type": "line", "from": [0, 0], "to": [6, 88], "stroke": "#000000", "stroke_width": 0.85}]})
    front.write_text(json.dumps(tpl), encoding="utf-8")
    monkeypatch.setattr(pixels, "MAX_COMMAND_PIXELS", 30_000_000)
    ok("export", "png", "--data", root, "thin", "--out", tmp_path / "low", "--dpi", "100")
    r = run("export", "png", "--data", root, "thin", "--out", tmp_path / "high", "--dpi", "600")
    assert r.exit_code == 2, r.stdout + r.stderr
    m = re.search(r"and paint (\d+) pixels of fills and strokes", r.stderr)
    assert m, r.stderr
    edge = 2 * 1000 * math.hypot(6, 88) * 72 / 25.4  # pt: both sides of each line
    assert int(m.group(1)) >= 3 * edge * 600 / 72 * pixels.EDGE_WEIGHT * 0.99
    fits = re.search(r"--dpi (\d+) fits", r.stderr)
    assert fits and 100 <= int(fits.group(1)) < 600, r.stderr
    assert not (tmp_path / "high").exists()


def test_the_pixel_budget_counts_the_gradients_svg_art_shades(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """PDFium shades a gradient pixel by pixel each time it draws the art: 300 card-sized
    rectangles of a radial gradient took 6 s a drawing (attack 19, F1: 194 s for 30 cards, 17 KB
    of SVG). Their area counts GRADIENT_WEIGHT times an opaque fill's painting at the dpi: the
    painting said for the gradients is that many times the painting of the same solid fills."""
    from pnp.render import pixels

    def art(fill: str) -> Callable[[Path], object]:
        rects = "".join(f'<rect width="100" height="100" fill="{fill}"/>' for _ in range(20))
        grad = ('<defs><radialGradient id="g"><stop offset="0" stop-color="#f00"/><stop offset="1" '
                'stop-color="#00f"/></radialGradient></defs>')
        return lambda path: path.write_text(f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">'
                                            f'{grad}{rects}</svg>', encoding="utf-8")

    monkeypatch.setattr(pixels, "MAX_COMMAND_PIXELS", 70_000)  # the images (65,000) fit, with their art none does
    painted = {}
    for name, fill in (("solid", "#0f0"), ("grad", "url(#g)")):
        with pytest.raises(AssertionError) as info:
            _exported_with_art(tmp_path / name, ("export", "png"), "a.svg", art(fill))
        m = re.search(r"and paint (\d+) pixels of fills and strokes", str(info.value))
        assert m, str(info.value)
        painted[name] = int(m.group(1))
        assert not (tmp_path / name / "out").exists()
    # the cards' own painting and the rectangles' edges are in both; on each of the three fronts the
    # gradients add 25 times the area of the 20 rectangles (the art's 20 mm box each, at 40 dpi)
    # where a solid fill counts it once
    box = 3 * 20 * (20 * 72 / 25.4 * 40 / 72) ** 2  # pixels
    extra = painted["grad"] - painted["solid"]
    assert 0.95 * box * (pixels.GRADIENT_WEIGHT - 1) < extra < 1.05 * box * pixels.GRADIENT_WEIGHT, extra
