"""The low-ink variant (`pnp build --ink-saver`, pnp.inksaver): light palettes for fills, no
full-bleed fills, outline backs, symbols kept, re-inked text, output beside the normal build, and
the saving measured on every bundled game."""

from __future__ import annotations

from pathlib import Path

import pdfplumber
import pypdfium2 as pdfium
import pytest
from conftest import DataRootCopy

from pnp.input.project import DataRoot, bundled_root, load_game
from pnp.input.templates import TemplateStore
from pnp.layout.inksaver import FULL_BLEED, contrast, is_full_bleed
from pnp.layout.piece import PieceLayout
from pnp.layout.primitives import Ellipse, Paint, Rect, Text
from pnp.layout.primitives import Path as PathPrim
from pnp.plan.options import BuildOptions
from pnp.plan.session import Session
from pnp.qa.check import check
from pnp.qa.preflight import preflight_game

BASE = "templates/mini/base.json"
CARD = "templates/mini/card.json"
BACK = "templates/mini/back.json"
LIGHT = {"colors": {"paper": "#fbf9f4"}, "palettes": {"suit": {"sun": "#f8ecd2", "moon": "#dde3f0"}}}
BUNDLED = DataRoot(bundled_root())


def with_light(mini: DataRootCopy) -> None:
    mini.edit(BASE, lambda d: d.update(light=LIGHT))


def layouts(mini: DataRootCopy, ink_saver: bool) -> tuple[list[PieceLayout], list[PieceLayout | None]]:
    gc = check(mini.root, "mini", BuildOptions(ink_saver=ink_saver), Session(mini.root))
    (plan,) = gc.plans
    return list(plan.fronts), list(plan.backs)


def by_element(lay: PieceLayout, eid: str) -> list:
    out, i = [], 0
    for el, n in lay.sources:
        if el.data.get("id") == eid:
            out.extend(lay.primitives[i:i + n])
        i += n
    return out


def test_fills_take_the_light_variant_and_symbols_keep_their_colours(mini: DataRootCopy) -> None:
    with_light(mini)
    normal, _ = layouts(mini, False)
    light, _ = layouts(mini, True)
    sun, moon = 0, 2  # copies: sun-1 x2, moon-1 x2, joker
    assert [p.paint.fill for p in by_element(normal[sun], "band")] == ["#e0a020"]
    assert [p.paint.fill for p in by_element(light[sun], "band")] == ["#f8ecd2"]
    assert [p.paint.fill for p in by_element(light[moon], "band")] == ["#dde3f0"]
    # the suit's symbol is drawn as before, in the same colour
    assert by_element(light[sun], "mark") == by_element(normal[sun], "mark") != []
    assert by_element(light[moon], "mark") == by_element(normal[moon], "mark") != []
    # the dark title text on the now pale band reads: it keeps its colour
    assert {p.color for p in by_element(light[moon], "title")} == {"#111111"}


def test_full_bleed_fills_are_dropped(mini: DataRootCopy, tmp_path: Path) -> None:
    with_light(mini)
    normal, _ = layouts(mini, False)
    light, _ = layouts(mini, True)
    (bg,) = by_element(normal[0], "background")
    assert is_full_bleed(bg, normal[0]) and bg.paint.fill == "#f5f0e6"
    (gone,) = by_element(light[0], "background")  # the primitive stays (so `sources` stays true) but paints nothing
    assert gone.paint.fill is None and gone.paint.stroke is None
    # read back: a point inside the trim, below the band, is the paper colour normally and white in the variant
    for flag, folder in (("", "n"), ("--ink-saver", "i")):
        args = ["build", "-v", "mini", "--out", tmp_path / folder] + ([flag] if flag else [])
        assert mini.cli(*args).exit_code == 0
    n = pdfium.PdfDocument(tmp_path / "n" / "mini" / "deck.pdf")
    i = pdfium.PdfDocument(tmp_path / "i" / "mini" / "ink-saver" / "deck.pdf")
    img_n, img_i = n[0].render(scale=1).to_pil().convert("RGB"), i[0].render(scale=1).to_pil().convert("RGB")
    from pnp.plan.component import pages_for
    gc = check(mini.root, "mini", BuildOptions(), Session(mini.root))
    slot = pages_for(gc.plans[0])[0].slots[0]  # turned 90 degrees: the card's bottom faces the page's right
    x, y = slot.x + slot.w - 8, 792 - (slot.y + slot.h / 2)  # 8 pt in from the card's bottom edge
    assert img_n.getpixel((int(x), int(y))) == (245, 240, 230)
    assert img_i.getpixel((int(x), int(y))) == (255, 255, 255)


def test_light_text_that_no_longer_reads_is_reinked(mini: DataRootCopy) -> None:
    with_light(mini)
    mini.edit(CARD, lambda d: d["elements"][1].update(color="#ffffff"))  # white title on the band
    normal, _ = layouts(mini, False)
    light, _ = layouts(mini, True)
    assert {p.color for p in by_element(normal[2], "title")} == {"#ffffff"}
    assert {p.color for p in by_element(light[2], "title")} == {"#111111"}  # the ink, on the pale band
    assert contrast("#111111", "#dde3f0") > contrast("#ffffff", "#dde3f0")


def test_backs_become_outline_patterns(mini: DataRootCopy) -> None:
    mini.edit(BACK, lambda d: d["elements"].insert(0, {"id": "disc", "type": "circle", "box": [12, 21, 20, 20],
                                                       "fill": "#3050a0"}))
    _, normal = layouts(mini, False)
    _, light = layouts(mini, True)
    assert normal[0] is not None and light[0] is not None
    (disc,) = by_element(light[0], "disc")
    assert isinstance(disc, Ellipse)
    assert disc.paint == Paint(fill=None, stroke="#3050a0", stroke_width=0.6)
    assert [p.paint.fill for p in by_element(normal[0], "background")] == ["#f5f0e6"]
    assert [(p.paint.fill, p.paint.stroke) for p in by_element(light[0], "background")] == [(None, None)]
    assert [p.text for p in light[0].primitives if isinstance(p, Text)] == ["MINI"]
    # every card's back is the same outline, so the PDF still holds it once (as a form)
    assert len({b.primitives for b in light if b is not None}) == 1


def test_full_bleed_means_most_of_the_bleed_box() -> None:
    lay = PieceLayout(100, 100, 10, ())
    big = Rect(-10, -10, 120, 120 * FULL_BLEED, Paint(fill="#000000"))
    small = Rect(-10, -10, 120, 120 * FULL_BLEED - 1, Paint(fill="#000000"))
    outline = Rect(-10, -10, 120, 120, Paint(stroke="#000000"))
    hexagon = PathPrim((("M", (-10, -10)), ("L", (110, -10)), ("L", (110, 110)), ("Z", ())), Paint(fill="#123456"))
    assert [is_full_bleed(p, lay) for p in (big, small, outline, hexagon)] == [True, False, False, True]


def test_a_child_redefining_a_colour_drops_the_inherited_light_variant(mini: DataRootCopy) -> None:
    with_light(mini)
    mini.edit(CARD, lambda d: d.update(colors={"paper": "#eeeeee"}))
    store = TemplateStore(mini.root)
    assert store.get("mini/back").light_colors == {"paper": "#fbf9f4"}
    assert dict(store.get("mini/card").light_colors) == {}
    assert store.get("mini/card").light_palettes["suit"]["moon"] == "#dde3f0"


def test_ink_saver_build_sits_beside_the_normal_one_and_the_contents_say_so(mini: DataRootCopy,
                                                                            tmp_path: Path) -> None:
    assert mini.cli("build", "-v", "mini", "--out", tmp_path).exit_code == 0
    r = mini.cli("build", "-v", "mini", "--ink-saver", "--out", tmp_path)
    assert r.exit_code == 0, r.stderr
    assert f"{tmp_path / 'mini' / 'ink-saver' / 'mini-contents.pdf'}  what was printed" in r.stdout
    assert "bleed 3 mm, ink saver)" in r.stdout
    for name in ("deck.pdf", "mini-contents.pdf"):
        assert (tmp_path / "mini" / name).is_file() and (tmp_path / "mini" / "ink-saver" / name).is_file()
    with pdfplumber.open(tmp_path / "mini" / "ink-saver" / "mini-contents.pdf") as pdf:
        text = " ".join(pdf.pages[0].extract_text().split())
    assert "Variant Ink saver: the game's light colours, no full-bleed colour fills, backs as outline patterns" in text


def test_every_bundled_palette_used_for_fills_has_a_light_variant() -> None:
    """"Palettes define one": every palette a bundled front template fills with has a light entry
    for each value (backs keep their colours: they become outlines)."""
    store = TemplateStore(BUNDLED)
    fronts = {c.template for gid in BUNDLED.game_ids() for c in load_game(BUNDLED, gid).components}
    missing = []
    for name in sorted(fronts):
        tpl = store.get(name)

        def walk(el: dict, name: str = name, tpl=tpl) -> None:
            for key in ("fill", "bg"):
                v = el.get(key)
                if isinstance(v, dict):
                    pal = v["palette"]
                    lacking = set(tpl.palettes[pal]) - set(tpl.light_palettes.get(pal, {}))
                    if lacking:
                        missing.append((name, pal, sorted(lacking)))
            for child in el.get("elements", []):
                walk(child)

        for el in tpl.elements:
            walk(dict(el.data))
    assert missing == []


@pytest.mark.slow
@pytest.mark.parametrize("gid", BUNDLED.game_ids())
def test_the_variant_needs_at_most_half_the_ink(gid: str) -> None:
    s = Session(BUNDLED)
    cov = {}
    for ink in (False, True):
        gc = check(BUNDLED, gid, BuildOptions(ink_saver=ink), s)
        cov[ink] = preflight_game(s, gc, dpi=12, lines=False).coverage
    assert cov[True] <= 0.5 * cov[False], cov
