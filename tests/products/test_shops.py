"""Print-shop presets (issue 20, part 2: ``--shop NAME``): the presets file against its schema,
page and pixel sizes read back from the files a shop gets (page boxes with the bleed, PNG pixels),
the page order, file names, the report, a component that maps to nothing, an unknown shop."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from conftest import assert_no_traceback, run_cli
from PIL import Image
from pypdf import PdfReader

from pnp.errors import DataError
from pnp.products.images import px
from pnp.products.scaffold import scaffold
from pnp.products.shops import load_shops, ordered, shop_named
from pnp.units import MM_PER_INCH

PT = 72 / MM_PER_INCH  # points per mm


def run(*args: str | Path) -> Result:
    r = run_cli(*args)
    assert_no_traceback(r)
    return r


def load(p: Path) -> Any:
    return json.loads(p.read_text(encoding="utf-8"))


@pytest.fixture
def shopgame(tmp_path: Path) -> Path:
    """A new game (``pnp new``: poker 63 x 88 mm cards whose templates adapt), plus a component of
    20 mm tokens (DriveThruCards sells none), one of 63 x 88 mm cards whose template is fixed at its
    own size (centred on 2.5 x 3.5 in) and one of 64 x 89 mm cards fixed at theirs (larger than
    2.5 x 3.5 in: the shop's cut would fall inside it)."""
    root = tmp_path / "data"
    scaffold(root, "demo")
    game = root / "card_data" / "demo"
    manifest = load(game / "game.json")
    deck = load(game / "deck.json")
    fixed = load(root / "templates" / "demo" / "card.json")
    fixed["size"] = [63, 88]
    (root / "templates" / "demo" / "fixed.json").write_text(json.dumps(fixed), encoding="utf-8")
    fixed["size"] = [64, 89]
    (root / "templates" / "demo" / "small.json").write_text(json.dumps(fixed), encoding="utf-8")
    for cid, kind, size, tpl in (("chips", "token", [20, 20], "demo/card"), ("old", "card", "poker", "demo/fixed"),
                                 ("odd", "card", [64, 89], "demo/small")):
        (game / f"{cid}.json").write_text(json.dumps({**deck, "component": cid}), encoding="utf-8")
        manifest["components"].append({"id": cid, "title": cid.title(), "kind": kind, "size": size,
                                       "data": f"{cid}.json", "template": tpl, "back": "demo/back"})
    (game / "game.json").write_text(json.dumps(manifest), encoding="utf-8")
    return root


def mm(v: Any) -> float:
    return float(v) / PT


def test_the_presets_are_valid_and_every_figure_says_where_it_comes_from() -> None:
    shops = load_shops()
    assert set(shops) == {"drivethrucards", "thegamecrafter", "makeplayingcards", "printerstudio"}
    for s in shops.values():
        assert s.bleed["figure"] in ("published", "chosen") and s.bleed["said"]
        assert all(p.figure in ("published", "chosen") and p.said for p in s.products)
        assert (s.output == "pdf") == (s.command == "build")
    # the figures found published (docs/printing.md cites them); the others are chosen
    assert shops["drivethrucards"].products[0].figure == "published"
    assert shops["thegamecrafter"].products[0].figure == "published"
    assert all(p.figure == "chosen" for k in ("makeplayingcards", "printerstudio") for p in shops[k].products)


def test_a_broken_presets_file_is_an_input_error_naming_the_key(tmp_path: Path) -> None:
    bad = load(Path(__file__).resolve().parents[2] / "pnp" / "products" / "shops.json")
    bad["shops"]["thegamecrafter"]["bleed_mm"] = "1/8 in"
    p = tmp_path / "shops.json"
    p.write_text(json.dumps(bad, indent=2), encoding="utf-8")
    with pytest.raises(DataError) as exc:
        load_shops(p)
    d = exc.value.diagnostics[0]
    assert d.path == ("shops", "thegamecrafter", "bleed_mm") and d.line is not None


def test_drivethrucards_gets_a_pdf_per_deck_back_first_trim_and_bleed_in_the_page_boxes(shopgame: Path,
                                                                                      tmp_path: Path) -> None:
    out = tmp_path / "out"
    r = run("build", "demo", "--shop", "drivethrucards", "--data", shopgame, "--out", out)
    assert r.exit_code == 0, r.stdout + r.stderr
    folder = out / "demo" / "shops" / "drivethrucards"
    assert sorted(p.name for p in folder.iterdir()) == ["demo-deck.pdf", "demo-old.pdf", "shop-report.json"]
    assert "deck: 63 x 88 mm -> poker 2.5 x 3.5 in (laid out again at 2.5 x 3.5 in): demo-deck.pdf (6 pages)" \
        in r.stdout
    assert "old: 63 x 88 mm -> poker 2.5 x 3.5 in (centred, 0.25 x 0.45 mm of bleed shows): demo-old.pdf (6 pages)" \
        in r.stdout
    pdf = PdfReader(folder / "demo-deck.pdf")
    assert len(pdf.pages) == 6  # 3 cards, back and front each
    for page in [*pdf.pages, *PdfReader(folder / "demo-old.pdf").pages]:
        trim = [mm(v) for v in page.trimbox]
        bleed = [mm(v) for v in page.bleedbox]
        media = [mm(v) for v in page.mediabox]
        assert trim[2] - trim[0] == pytest.approx(63.5, abs=1e-3)  # 2.5 in
        assert trim[3] - trim[1] == pytest.approx(88.9, abs=1e-3)  # 3.5 in
        assert trim[0] == pytest.approx(3.175, abs=1e-3) and trim[1] == pytest.approx(3.175, abs=1e-3)  # 1/8 in
        assert bleed == pytest.approx(media, abs=1e-3)
        assert media[2] == pytest.approx(69.85, abs=1e-3) and media[3] == pytest.approx(95.25, abs=1e-3)
    # back of card 1 first, then its front: the back is the same on every card, the fronts differ
    texts = [p.extract_text() for p in pdf.pages]
    assert texts[0] == texts[2] == texts[4] and "Scout" in texts[1] and "Trader" in texts[3]
    # CMYK PDF/X: the output intent
    intents = pdf.trailer["/Root"]["/OutputIntents"]
    assert intents[0].get_object()["/S"] == "/GTS_PDFX"
    rep = load(folder / "shop-report.json")
    assert rep["format"] == "pnp-shop" and rep["page_order"] == ["back", "front"]
    assert {m["component"]: (m["how"], m["trim_mm"], m["files"]) for m in rep["mapped"]} == {
        "deck": ("adapted", [63.5, 88.9], ["demo-deck.pdf"]), "old": ("centred", [63.5, 88.9], ["demo-old.pdf"])}
    old = next(m for m in rep["mapped"] if m["component"] == "old")
    assert old["bleed_shows_mm"] == [0.25, 0.45] and old["safe_zone"] == "inside the shop's safe area"
    reasons = {u["component"]: u["reason"] for u in rep["not_mapped"]}
    assert set(reasons) == {"chips", "odd"}
    assert "no product of DriveThruCards fits: it has none for a token" in reasons["chips"]
    assert "templates are drawn for 64 x 89 mm" in reasons["odd"] and "small.json:" in reasons["odd"]
    assert "is larger than poker 63.5 x 88.9 mm, so it cannot be centred on it" in reasons["odd"]
    # each component that does not map is a clear line, not a traceback, not silence
    assert "not mapped: chips (token, 20 x 20 mm): no product of DriveThruCards fits" in r.stderr
    assert "not mapped: odd (card, 64 x 89 mm)" in r.stderr
    assert "2 components not mapped" in r.stdout


@pytest.mark.parametrize(("shop", "size"), [("thegamecrafter", (825, 1125)), ("makeplayingcards", (822, 1122)),
                                             ("printerstudio", (822, 1122))])
def test_png_shops_get_one_image_per_side_at_their_pixel_size(shopgame: Path, tmp_path: Path, shop: str,
                                                              size: tuple[int, int]) -> None:
    out = tmp_path / "out"
    r = run("export", "png", "demo", "--shop", shop, "--data", shopgame, "--out", out, "--jobs", "1")
    assert r.exit_code == 0, r.stdout + r.stderr
    preset = shop_named(shop)
    # the pixels follow from the preset: (2.5 in + 2 x bleed) at 300 dpi
    assert size == (px(63.5 + 2 * preset.bleed_mm, preset.dpi), px(88.9 + 2 * preset.bleed_mm, preset.dpi))
    folder = out / "demo" / "shops" / shop / "deck"
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["back.png", "guard-front.png", "index.json", "scout-front.png", "trader-front.png"]
    with Image.open(out / "demo" / "shops" / shop / "old" / "back.png") as img:
        assert img.size == size  # the fixed-size card, centred: the same image size
    for n in (n for n in names if n.endswith(".png")):
        with Image.open(folder / n) as img:
            assert img.size == size and img.mode == "RGB"
            # the card's colour runs to the image's edge: the bleed is filled
            assert img.getpixel((0, 0)) == img.getpixel((2, 2))
    assert not (out / "demo" / "png").exists()  # a shop's files stay in its folder
    assert load(out / "demo" / "shops" / shop / "shop-report.json")["dpi"] == 300


def test_a_component_no_longer_mapped_leaves_no_file_behind(shopgame: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run("build", "demo", "--shop", "drivethrucards", "--data", shopgame, "--out", out).exit_code == 0
    folder = out / "demo" / "shops" / "drivethrucards"
    (folder / "notes.txt").write_text("mine", encoding="utf-8")
    manifest = shopgame / "card_data" / "demo" / "game.json"
    m = load(manifest)
    m["components"][0]["id"] = "cards"
    manifest.write_text(json.dumps(m).replace('"component": "deck"', '"component": "cards"'), encoding="utf-8")
    deck = shopgame / "card_data" / "demo" / "deck.json"
    deck.write_text(deck.read_text(encoding="utf-8").replace('"component": "deck"', '"component": "cards"'),
                    encoding="utf-8")
    r = run("build", "demo", "--shop", "drivethrucards", "--data", shopgame, "--out", out)
    assert r.exit_code == 0, r.stdout + r.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["demo-cards.pdf", "demo-old.pdf", "notes.txt",
                                                        "shop-report.json"]


def test_an_unknown_shop_is_exit_2_with_the_nearest_name(shopgame: Path, tmp_path: Path) -> None:
    r = run("build", "demo", "--shop", "drivethrucard", "--data", shopgame, "--out", tmp_path / "out")
    assert r.exit_code == 2
    assert "unknown shop 'drivethrucard'" in r.stderr and "did you mean 'drivethrucards'?" in r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "out").exists()


def test_a_png_shop_asked_of_build_says_which_command(shopgame: Path, tmp_path: Path) -> None:
    r = run("build", "demo", "--shop", "The Game Crafter", "--data", shopgame, "--out", tmp_path / "out")
    assert r.exit_code == 2
    assert "pnp export png GAME --shop thegamecrafter" in r.stderr and not (tmp_path / "out").exists()


def test_a_game_with_nothing_that_maps_writes_nothing_and_names_every_component(tmp_path: Path) -> None:
    # the bundled Time Capsules: mini and 120 x 70 mm cards, tiles, tokens, mats, a board, a box
    out = tmp_path / "out"
    r = run("build", "time-capsules", "--shop", "drivethrucards", "--out", out)
    assert r.exit_code == 2
    assert "no component of time-capsules maps to a DriveThruCards product; nothing was written" in r.stderr
    for cid in ("artifacts", "bioobjects", "fluctuations", "batteries", "crystals", "breaks", "computers", "mats",
                "track", "score-markers", "capsules", "solo"):
        assert f"component {cid} (" in r.stderr
    assert "Traceback" not in r.stderr and not out.exists()


def _render(pdf: Path, index: int, dpi: float) -> tuple[Any, Any]:
    """Page ``index`` of ``pdf`` as a PIL image, and its trim box (pt, PDF coordinates)."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf)
    try:
        page = doc[index]
        return page.render(scale=dpi / 72).to_pil().convert("RGB"), page.get_trimbox()
    finally:
        doc.close()


def _relative_chars(pdf: Path, index: int) -> list[tuple[str, float, float]]:
    """Each character of page ``index`` and its position (pt) from the centre of the page's TrimBox."""
    import pdfplumber

    with pdfplumber.open(pdf) as doc:
        page = doc.pages[index]
        x0, y0, x1, y1 = (float(v) for v in PdfReader(pdf).pages[index].trimbox)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        return [(c["text"], round(c["x0"] - cx, 2), round(c["y0"] - cy, 2)) for c in page.chars]


def test_a_bundled_poker_deck_is_centred_on_drivethrucards_poker_card_its_bleed_to_the_edge(tmp_path: Path) -> None:
    # Golems' cards are drawn for 63 x 88 mm (templates with a size): centred on 2.5 x 3.5 in
    out = tmp_path / "out"
    r = run("build", "golems", "--shop", "drivethrucards", "--out", out)
    assert r.exit_code == 0, r.stdout + r.stderr
    assert "golem-deck: 63 x 88 mm -> poker 2.5 x 3.5 in (centred, 0.25 x 0.45 mm of bleed shows)" in r.stdout
    assert "status: 88 x 63 mm -> poker 3.5 x 2.5 in (centred, 0.45 x 0.25 mm of bleed shows)" in r.stdout
    pdf = out / "golems" / "shops" / "drivethrucards" / "golems-golem-deck.pdf"
    reader = PdfReader(pdf)
    for page in reader.pages:  # the product's boxes: trim 2.5 x 3.5 in, 1/8 in of bleed round it
        trim = [mm(v) for v in page.trimbox]
        assert trim == pytest.approx([3.175, 3.175, 3.175 + 63.5, 3.175 + 88.9], abs=1e-3)
        assert [mm(v) for v in page.bleedbox] == pytest.approx([0, 0, 69.85, 95.25], abs=1e-3)
    # the piece is centred on the product's trim: its text sits where it sits on the card's own
    # print-shop page (--one-per-page, trim 63 x 88 mm), measured from the trim's centre
    plain = tmp_path / "plain"
    assert run("build", "golems", "--one-per-page", "--out", plain).exit_code == 0
    own = plain / "golems" / "golem-deck.pdf"
    assert [mm(v) for v in PdfReader(own).pages[0].trimbox][2:] == pytest.approx([3 + 63, 3 + 88], abs=1e-3)
    centred = _relative_chars(pdf, 1)  # DriveThruCards: back 1, front 1, ...
    assert centred and centred == _relative_chars(own, 0)
    # colour reaches the bleed edge: every corner pixel of every side is the card's ink, not paper
    for index in (0, 1):
        img, _ = _render(pdf, index, 150)
        w, h = img.size
        assert (w, h) == pytest.approx((69.85 / 25.4 * 150, 95.25 / 25.4 * 150), abs=1)  # 2.75 x 3.75 in
        for x, y in ((0, 0), (w - 1, 0), (0, h - 1), (w - 1, h - 1)):
            pixel = img.getpixel((x, y))
            assert min(pixel) < 230, (index, x, y, pixel)  # not white paper
            assert pixel == img.getpixel((min(max(x, 3), w - 4), min(max(y, 3), h - 4)))  # the bleed's colour


def test_a_bundled_poker_deck_through_a_png_shop_fills_the_image_to_its_edges(tmp_path: Path) -> None:
    out = tmp_path / "out"
    r = run("export", "png", "golems", "golem-deck", "--shop", "thegamecrafter", "--out", out, "--jobs", "1")
    assert r.exit_code == 0, r.stdout + r.stderr
    assert "golem-deck: 63 x 88 mm -> poker 2.5 x 3.5 in (centred, 0.25 x 0.45 mm of bleed shows): golem-deck/: " \
        "25 PNGs, 825 x 1125 px" in r.stdout
    folder = out / "golems" / "shops" / "thegamecrafter" / "golem-deck"
    pngs = sorted(folder.glob("*.png"))
    assert len(pngs) == 25  # 24 distinct fronts, one back
    for p in pngs:
        with Image.open(p) as img:
            assert img.size == (825, 1125) and img.mode == "RGB"
            w, h = img.size
            edge = [img.getpixel((x, y)) for x in range(0, w, 25) for y in (0, h - 1)] + \
                   [img.getpixel((x, y)) for y in range(0, h, 25) for x in (0, w - 1)]
            assert all(min(px_) < 230 for px_ in edge), p.name  # no white paper on any edge


def test_a_mini_deck_is_centred_on_the_game_crafters_mini_card(tmp_path: Path) -> None:
    out = tmp_path / "out"
    r = run("export", "png", "time-capsules", "fluctuations", "--shop", "thegamecrafter", "--out", out, "--jobs", "1")
    assert r.exit_code == 0, r.stdout + r.stderr
    assert "fluctuations: 44 x 63 mm -> mini 1.75 x 2.5 in (centred, 0.225 x 0.25 mm of bleed shows)" in r.stdout
    for p in (out / "time-capsules" / "shops" / "thegamecrafter" / "fluctuations").glob("*.png"):
        with Image.open(p) as img:
            assert img.size == (600, 825)  # 1.75 x 2.5 in and 1/8 in of bleed round it, at 300 dpi


def test_tokens_larger_than_a_chit_are_not_centred_on_it(tmp_path: Path) -> None:
    r = run("export", "png", "time-capsules", "batteries", "--shop", "thegamecrafter", "--out", tmp_path / "out")
    assert r.exit_code == 2
    assert "is larger than medium-circle-chit 19.05 x 19.05 mm, so it cannot be centred on it" in r.stderr


def test_a_safe_zone_outside_the_shops_is_said() -> None:
    from pnp.products.shops import Product, _safe_check

    poker = Product("poker", "Poker", ("card",), (63.5, 88.9), "published", "", safe_mm=3.175)
    assert _safe_check(0.25, 0.45, poker) is None  # 3.25 and 3.45 mm from the cut: inside 3.175
    said = _safe_check(0.1, 0.45, poker)
    assert said is not None and "reaches 0.075 mm into the shop's 3.175 mm margin" in said
    assert "not known" in (_safe_check(0.25, 0.45, replace_safe(poker)) or "")


def replace_safe(p: Any) -> Any:
    from msgspec.structs import replace

    return replace(p, safe_mm=None)


def test_other_build_options_given_with_shop_are_named_as_ignored(shopgame: Path, tmp_path: Path) -> None:
    r = run("build", "demo", "--shop", "drivethrucards", "--bleed", "1", "--paper", "a4", "--data", shopgame,
            "--out", tmp_path / "out")
    assert r.exit_code == 0
    assert "ignoring --paper, --bleed" in r.stderr


def test_page_order_back_first_keeps_pieces_together() -> None:
    from pnp.impose.grid import print_shop
    from pnp.impose.sheet import PieceSpec, SheetOptions, paper_named

    pages = print_shop(3, PieceSpec(100, 200), SheetOptions(paper=paper_named("letter"), bleed=9.0))
    got = [(p.number, p.slots[0].piece, p.side) for p in ordered(pages, ("back", "front"))]
    assert got == [(1, 0, "back"), (2, 0, "front"), (3, 1, "back"), (4, 1, "front"), (5, 2, "back"), (6, 2, "front")]
    assert ordered(pages, ("front", "back")) == pages


def test_the_library_reports_mapped_and_unmapped_components(shopgame: Path, tmp_path: Path) -> None:
    import pnp

    r = pnp.export_shop("demo", "drivethrucards", data=shopgame, out=tmp_path / "out")
    assert r.exit_code == 0 and r.shop is not None
    got = [(m.component.id, m.how, m.plan.component.size) for m in r.shop.mapped]
    assert got == [("deck", "adapted", (63.5, 88.9)), ("old", "centred", (63.5, 88.9))]
    assert sorted(u.component.id for u in r.shop.unmapped) == ["chips", "odd"]
    bad = pnp.export_shop("demo", "printstudio", data=shopgame, out=tmp_path / "out")
    assert bad.exit_code == 2 and "did you mean 'printerstudio'?" in (bad.errors[0].hint or "")
