"""Preflight (pnp.preflight, `pnp preflight`, the summary after `pnp build`): each check against a
small fixture that violates it, the exemptions the data may declare, the figures read back from
the PDF, and the bundled games passing every threshold."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from conftest import DataRootCopy, assert_no_traceback
from PIL import Image
from reportlab.pdfgen.canvas import Canvas

from pnp.impose.sheet import CutLine, Edges, Page, Slot
from pnp.input.project import DataRoot, bundled_root
from pnp.plan.component import front_warnings, pages_for
from pnp.plan.options import BuildOptions
from pnp.plan.session import Session
from pnp.qa.check import GameCheck, check
from pnp.qa.figures import Thresholds
from pnp.qa.preflight import Collector, cut_crossings, inspect, preflight_game
from pnp.qa.rasters import page_coverage
from pnp.render.component import render_component
from pnp.units import MM

CARD = "templates/mini/card.json"
BUNDLED = DataRoot(bundled_root())


def preflight(root: DataRootCopy, **opts: object):
    s = Session(root.root)
    gc = check(root.root, root.game, BuildOptions(**opts), s)  # type: ignore[arg-type]
    return gc, s, inspect(s, gc)


def add_element(mini: DataRootCopy, element: dict) -> int:
    """Append an element to the mini card front; returns its index."""
    data = mini.read(CARD)
    data["elements"].append(element)
    mini.write(CARD, data)
    return len(data["elements"]) - 1


def messages(pre) -> list[str]:
    return [d.format() for d in pre.findings]


# --------------------------------------------------------------------------- clean fixture


def test_the_mini_game_passes_and_its_figures_are_right(mini: DataRootCopy) -> None:
    _, _, pre = preflight(mini)
    assert pre.findings == ()
    (c,) = pre.components
    # 5 mini cards (44 x 63 mm; a Letter sheet holds 18, turned): all on one sheet, a front and a back page
    assert (c.pieces, c.per_sheet, c.sheets, c.pages, c.parts) == (5, 5, 1, 2, 1)
    assert c.smallest_text is not None and c.smallest_text.value == 9  # the body style
    assert c.smallest_rules is None  # no style has role rules
    assert c.thinnest_stroke is None and c.images == 0 and c.cut_crossings == 0 and c.outside_safe == 0
    # the margin is the smallest distance from a trim to the paper's edge on the imposed pages
    gc = check(mini.root, "mini", BuildOptions(), Session(mini.root))
    slots = [sl for page in pages_for(gc.plans[0]) for sl in page.slots]
    nearest = min(min(sl.x, sl.y, 612 - sl.x - sl.w, 792 - sl.y - sl.h) for sl in slots) / MM
    assert c.margin_mm == pytest.approx(nearest, abs=0.005) and c.margin_mm > 5


# --------------------------------------------------------------------------- rules text


def test_rules_text_below_8_pt_is_a_warning_naming_element_and_items(mini: DataRootCopy) -> None:
    mini.edit("templates/mini/base.json", lambda d: d["styles"]["body"].update(role="rules", size=7))
    _, _, pre = preflight(mini)
    line = mini.line_of(CARD, '"text": "Power {power}"')
    assert messages(pre) == [
        f"warning: {CARD}:{line}:5: $.elements[3]: rules text at 7 pt, below 8 pt (text element) in game mini, "
        "component deck, 2 items: sun-1, moon-1 (expected rules text of at least 8 pt); enlarge the box, shorten "
        "the text or raise the style's size; or set preflight.rules_text_min_pt with a reason in game.json"]
    assert pre.extreme("smallest_rules").value == 7  # type: ignore[union-attr]


def test_a_game_may_lower_its_rules_text_minimum_with_a_reason(mini: DataRootCopy) -> None:
    mini.edit("templates/mini/base.json", lambda d: d["styles"]["body"].update(role="rules", size=7))
    mini.edit("game.json", lambda d: d.update(preflight={"rules_text_min_pt": 7, "reason": "tiny cards"}))
    _, _, pre = preflight(mini)
    assert pre.findings == ()
    assert pre.thresholds == Thresholds(rules_text_pt=7, reason="tiny cards")


def test_a_lowered_rules_text_minimum_needs_its_reason(mini: DataRootCopy) -> None:
    mini.edit("game.json", lambda d: d.update(preflight={"rules_text_min_pt": 7}))
    r = mini.check()
    assert r.exit_code == 2
    line = mini.line_of("game.json", '"preflight"')
    assert f"card_data/mini/game.json:{line}:16: $.preflight: missing required field 'reason'" in r.stderr


def test_text_of_other_roles_is_not_held_to_the_rules_minimum(mini: DataRootCopy) -> None:
    mini.edit("templates/mini/base.json", lambda d: d["styles"]["body"].update(role="label", size=5))
    _, _, pre = preflight(mini)
    assert pre.findings == ()
    assert pre.extreme("smallest_text").value == 5  # type: ignore[union-attr]


# --------------------------------------------------------------------------- strokes


def test_a_hairline_stroke_is_a_warning(mini: DataRootCopy) -> None:
    i = add_element(mini, {"type": "rect", "box": [10, 30, 20, 5], "stroke": "ink", "stroke_width": 0.1})
    _, _, pre = preflight(mini)
    (msg,) = messages(pre)
    assert f"$.elements[{i}]: a stroke of 0.10 pt, thinner than 0.25 pt (rect element) in game mini, component " \
           "deck, 3 items: sun-1, moon-1, joker" in msg
    assert pre.extreme("thinnest_stroke").value == pytest.approx(0.1)  # type: ignore[union-attr]


def test_a_stroke_of_exactly_the_minimum_passes(mini: DataRootCopy) -> None:
    add_element(mini, {"type": "line", "from": [5, 30], "to": [39, 30], "stroke": "ink", "stroke_width": 0.25})
    _, _, pre = preflight(mini)
    assert pre.findings == ()


def test_icons_drawn_small_keep_strokes_that_print(mini: DataRootCopy) -> None:
    """An icon's stroke scales with it, but never below 0.25 pt."""
    mini.edit("templates/mini/base.json", lambda d: d["icons"].update(
        ring={"shapes": [{"circle": [50, 50, 40], "fill": "none", "stroke": "fg", "stroke_width": 2}]}))
    add_element(mini, {"type": "icon", "name": "ring", "box": [20, 45, 3, 3]})  # 2/100 of 8.5 pt: 0.17 pt
    _, _, pre = preflight(mini)
    assert pre.findings == ()
    assert pre.extreme("thinnest_stroke").value == pytest.approx(0.25)  # type: ignore[union-attr]


# --------------------------------------------------------------------------- images


@pytest.mark.parametrize(("pixels", "warns"), [(20, True), (400, False)])
def test_image_resolution_at_its_printed_size(mini: DataRootCopy, pixels: int, warns: bool) -> None:
    Image.new("RGB", (pixels, pixels), "#808080").save(mini.game_dir / "art.png")
    i = add_element(mini, {"type": "image", "src": "art.png", "box": [12, 20, 20, 20]})
    _, _, pre = preflight(mini)
    ppi = pixels / (20 / 25.4)  # 20 mm wide
    assert pre.extreme("lowest_ppi").value == pytest.approx(ppi)  # type: ignore[union-attr]
    if warns:
        (msg,) = messages(pre)
        # the image is named relative to the game folder: the message (kept in the build record)
        # is the same wherever the data root lies
        assert f"$.elements[{i}]: image art.png prints at 25 ppi, below 200 ppi" in msg
    else:
        assert pre.findings == ()


# --------------------------------------------------------------------------- safe zone


def test_text_outside_the_safe_zone_says_how_far(mini: DataRootCopy) -> None:
    i = add_element(mini, {"type": "text", "box": [1, 52, 42, 8], "text": "EDGE", "style": "body"})
    _, _, pre = preflight(mini)
    (msg,) = messages(pre)
    assert f"$.elements[{i}]: text reaches 2.0 mm outside the safe zone (3 mm inside the trim) (text element) " \
           "in game mini, component deck, 3 items" in msg
    assert pre.components[0].outside_safe == 3  # one per distinct front


def test_an_element_may_be_exempted_from_the_safe_zone_with_a_reason(mini: DataRootCopy) -> None:
    add_element(mini, {"type": "text", "box": [1, 52, 42, 8], "text": "EDGE", "style": "body",
                       "preflight": {"safe_zone": "a bleed label"}})
    _, _, pre = preflight(mini)
    assert pre.findings == ()
    (w,) = pre.waived
    assert (w.check, w.component, w.reason) == ("safe_zone", "deck", "a bleed label")
    assert w.where == f"{CARD} $.elements[4]"


def test_round_pieces_keep_text_inside_the_shrunken_circle(mini: DataRootCopy) -> None:
    def token(d: dict) -> None:
        d["components"][0].update(kind="token", shape="round", size=[30, 30])
        del d["components"][0]["back"]

    mini.edit("game.json", token)
    mini.write(CARD, {"size": [30, 30], "extends": "mini/base", "elements": [
        {"type": "text", "box": [3, 3, 8, 4], "text": "X", "style": "body", "align": "left", "valign": "top"},
        {"type": "text", "box": [10, 12, 10, 6], "text": "OK", "style": "body", "align": "center"}]})
    _, _, pre = preflight(mini, token_cut="circle")
    (msg,) = messages(pre)  # the corner text: inside the square safe zone, outside the circle's
    assert "$.elements[0]: text reaches" in msg
    _, _, pre = preflight(mini, token_cut="square")  # cut square, the piece is a square
    assert pre.findings == ()


# --------------------------------------------------------------------------- margins and cuts


def test_a_piece_closer_than_5_mm_to_the_paper_edge(mini: DataRootCopy) -> None:
    mini.edit("game.json", lambda d: d["components"][0].update(size=[200, 270]))
    for t in ("card", "back"):
        mini.edit(f"templates/mini/{t}.json", lambda d: d.update(size=[200, 270]))
    _, _, pre = preflight(mini, bleed_mm=0)
    (msg,) = messages(pre)
    assert msg.startswith("warning: card_data/mini/game.json:")
    assert "$.components[0]: component deck: a piece comes 4.7 mm from the paper's edge (letter), less than " \
           "5 mm (game mini)" in msg
    mini.edit("game.json", lambda d: d.update(preflight={"margins": {"deck": "a poster"}}))
    _, _, pre = preflight(mini, bleed_mm=0)
    assert pre.findings == ()
    assert [(w.check, w.reason) for w in pre.waived] == [("margin", "a poster")]


def _slot(piece: int, x: float, y: float) -> Slot:
    return Slot(piece, "front", x, y, 100, 100, Edges(0, 0, 0, 0))


def test_a_cut_line_through_a_piece_is_found_on_the_whole_guillotine_line() -> None:
    # two pieces side by side but offset vertically: the top piece's crop mark, extended across
    # the sheet, runs through the middle of the other piece
    page = Page(1, "front", (_slot(0, 100, 500), _slot(1, 250, 450)),
                (CutLine(100, 600, 0, 600), CutLine(0, 500, 50, 500), CutLine(300, 0, 300, 400)))
    assert cut_crossings(page, (612, 792)) == [(1, 1), (2, 1)]  # (cut, slot)


def test_cut_lines_along_shared_edges_cross_nothing() -> None:
    page = Page(1, "front", (_slot(0, 100, 500), _slot(1, 200, 500)),
                (CutLine(200, 0, 200, 400), CutLine(200, 700, 200, 792), CutLine(0, 500, 90, 500)))
    assert cut_crossings(page, (612, 792)) == []


@pytest.mark.slow
def test_imposed_pages_of_every_bundled_game_pass_every_threshold() -> None:
    s = Session(BUNDLED)
    for gid in BUNDLED.game_ids():
        for ink in (False, True):
            gc = check(BUNDLED, gid, BuildOptions(ink_saver=ink), s)
            pre = inspect(s, gc)
            assert [d.format() for d in pre.findings] == [], (gid, ink)
            assert sum(c.cut_crossings for c in pre.components) == 0


# --------------------------------------------------------------------------- coverage


def _pdf(draw) -> bytes:
    buf = io.BytesIO()
    c = Canvas(buf, pagesize=(612, 792))
    draw(c)
    c.showPage()
    c.save()
    return buf.getvalue()


@pytest.mark.parametrize(("colour", "share", "expected"), [
    ((0, 0, 0), 0.5, 0.5),  # black on half the page
    ((1, 0, 0), 1.0, 1.0),  # full red: the magenta and yellow are 100 %
    ((0.5, 0.5, 0.5), 1.0, 0.5),  # mid grey
    ((1, 1, 0), 0.25, 0.25),  # yellow on a quarter
])
def test_coverage_is_the_mean_of_one_minus_the_darkest_channel(colour, share, expected) -> None:
    def draw(c: Canvas) -> None:
        c.setFillColorRGB(*colour)
        c.rect(0, 0, 612, 792 * share, stroke=0, fill=1)

    (cov,) = page_coverage(_pdf(draw), dpi=36)
    assert cov == pytest.approx(expected, abs=0.01)


def test_measure_adds_file_size_and_per_page_coverage(mini: DataRootCopy) -> None:
    gc, s, _ = preflight(mini)
    pre = preflight_game(s, gc)
    (c,) = pre.components
    assert c.bytes and c.bytes > 1000
    assert c.coverage is not None and len(c.coverage) == c.pages
    assert 0 < pre.coverage < 1  # type: ignore[operator]


# --------------------------------------------------------------------------- CLI


def test_preflight_json_report(mini: DataRootCopy) -> None:
    r = mini.cli("preflight", "mini", "--json")
    assert_no_traceback(r)
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    assert (doc["format"], doc["version"]) == ("pnp-preflight", 1)
    (g,) = doc["games"]
    assert (g["id"], g["ok"], g["ink_saver"], g["paper"]) == ("mini", True, False, "letter")
    assert g["thresholds"] == {"rules_text_pt": 8.0, "stroke_pt": 0.25, "image_ppi": 200.0, "margin_mm": 5.0,
                               "safe_zone_mm": 3.0, "reason": None}
    (c,) = g["components"]
    assert (c["id"], c["pieces"], c["per_sheet"], c["sheets"], c["pages"]) == ("deck", 5, 5, 1, 2)
    assert c["smallest_text"] == {"value": 9, "item": "sun-1", "side": "front", "file": CARD,
                                  "path": "$.elements[3]", "element": "text element",
                                  "line": mini.line_of(CARD, '"text": "Power {power}"')}
    assert len(c["coverage_pages"]) == 2 and 0 < c["coverage"] < 100 and c["bytes"] > 0
    assert g["coverage"] == pytest.approx(sum(c["coverage_pages"]) / 2, abs=0.01)


def test_preflight_strict_fails_on_a_warning(mini: DataRootCopy) -> None:
    add_element(mini, {"type": "rect", "box": [10, 30, 20, 5], "stroke": "ink", "stroke_width": 0.1})
    r = mini.cli("preflight", "mini")
    assert r.exit_code == 0 and "thinner than 0.25 pt" in r.stderr and "1 warning" in r.stdout
    r = mini.cli("preflight", "mini", "--strict")
    assert r.exit_code == 2


def test_build_prints_the_preflight_summary_and_strict_refuses_warnings(mini: DataRootCopy, tmp_path: Path) -> None:
    r = mini.cli("build", "-v", "mini", "--out", tmp_path / "ok")
    assert r.exit_code == 0, r.stderr
    assert "  preflight: text >= 9 pt, strokes" not in r.stdout  # the mini deck draws no strokes
    assert "  preflight: text >= 9 pt, no images, margins >= " in r.stdout
    assert "safe zone kept, no cut crosses a piece, 0 warnings (ink coverage: pnp preflight mini --data .)" in r.stdout
    add_element(mini, {"type": "rect", "box": [10, 30, 20, 5], "stroke": "ink", "stroke_width": 0.1})
    r = mini.cli("build", "-v", "mini", "--out", tmp_path / "warn")
    assert r.exit_code == 0 and "warning: templates/mini/card.json" in r.stderr
    r = mini.cli("build", "-v", "mini", "--strict", "--out", tmp_path / "strict")
    assert r.exit_code == 2 and "thinner than 0.25 pt" in r.stderr
    assert not (tmp_path / "strict").exists()


def _summary(stdout: str) -> str:
    (line,) = [ln for ln in stdout.splitlines() if ln.startswith("  preflight: ")]
    return line


def test_an_up_to_date_build_prints_the_recorded_figures_and_strict_still_fails(mini: DataRootCopy,
                                                                                tmp_path: Path) -> None:
    add_element(mini, {"type": "rect", "box": [10, 30, 20, 5], "stroke": "ink", "stroke_width": 0.1})
    first = mini.cli("build", "-v", "mini", "--out", tmp_path)
    assert first.exit_code == 0 and "thinner than 0.25 pt" in first.stderr
    again = mini.cli("build", "-v", "mini", "--out", tmp_path)
    assert "up to date" in again.stdout
    assert _summary(again.stdout) == _summary(first.stdout)
    assert "strokes >= 0.10 pt" in _summary(first.stdout) and "1 warning (" in _summary(first.stdout)
    assert "thinner than 0.25 pt" in again.stderr
    assert mini.cli("build", "-v", "mini", "--out", tmp_path, "--strict").exit_code == 2


def test_worker_processes_report_the_same_figures(golems: DataRootCopy, tmp_path: Path) -> None:
    one = golems.cli("build", "-v", "golems", "--jobs", "1", "--out", tmp_path / "one")
    two = golems.cli("build", "-v", "golems", "--jobs", "2", "--out", tmp_path / "two")
    assert one.exit_code == two.exit_code == 0
    assert _summary(one.stdout) == _summary(two.stdout)
    assert _summary(one.stdout).startswith("  preflight: text >= 5 pt, rules text >= 8 pt (min 8), strokes >= 0.32 pt")


def test_the_contents_sheet_carries_the_preflight_summary(mini: DataRootCopy, tmp_path: Path) -> None:
    """The short report on the contents sheet is the build's summary line; after an edit that
    re-renders nothing but the contents, the recorded figures give the same sheet as a clean build."""
    import pdfplumber

    out = tmp_path / "out"
    r = mini.cli("build", "-v", "mini", "--out", out)
    assert r.exit_code == 0, r.stderr
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("  preflight: ")).removeprefix("  preflight: ")
    line = line.split(" (ink coverage")[0]
    with pdfplumber.open(out / "mini" / "mini-contents.pdf") as pdf:
        text = " ".join((pdf.pages[0].extract_text(x_tolerance=1) or "").split())
    assert "Preflight" in text
    assert " ".join(line.replace(">=", "\u2265").split()) in text, (line, text)
    # Contents bytes from recorded figures (nothing re-rendered) equal a clean build's.
    mini.edit("game.json", lambda d: d["rulebook"][0].update(description="All five cards."))
    again = mini.cli("build", "-v", "mini", "--out", out)
    clean = mini.cli("build", "-v", "mini", "--out", tmp_path / "clean", "--force")
    assert again.exit_code == 0 and clean.exit_code == 0
    assert "deck.pdf" in again.stdout and "(unchanged)" in again.stdout, again.stdout
    assert (out / "mini" / "mini-contents.pdf").read_bytes() == (tmp_path / "clean" / "mini" /
                                                                 "mini-contents.pdf").read_bytes()


def _without_reach(gc):
    """``gc`` with every layout's ``reach`` dropped: preflight then measures every line of text."""
    from msgspec.structs import replace

    def strip(lay):
        return None if lay is None else replace(lay, reach=())

    plans = tuple(replace(p, fronts=tuple(strip(f) for f in p.fronts), backs=tuple(strip(b) for b in p.backs))
                  for p in gc.plans)
    return replace(gc, plans=plans)


@pytest.mark.slow
def test_bounding_text_by_its_fitted_reach_changes_no_figure_and_no_warning(mini: DataRootCopy) -> None:
    # Preflight skips measuring a text's lines when the reach its fitter found (plus a hair) keeps
    # it inside the safe zone; measured or not, every figure and warning is the same. On the
    # mini card (44 mm wide: the safe zone ends at 41 mm, 41.05 mm with the tolerance), texts
    # set flush right from inside the zone to 2 mm past it, some a hair either side of where
    # the tolerance ends; and on the bundled games.
    rights = (40.9, 41.0, 41.0498, 41.0499, 41.0501, 41.06, 43.0)
    for i, right in enumerate(rights):
        add_element(mini, {"type": "text", "box": [right - 30, 8 + 5 * i, 30, 5], "text": "EDGE", "style": "body",
                           "align": "right", "id": f"edge{i}"})
    for root, gid in [(mini.root, "mini")] + [(BUNDLED, gid) for gid in BUNDLED.game_ids()]:
        s = Session(root)
        gc = check(root, gid, BuildOptions(), s)
        assert any(lay.reach for p in gc.plans for lay in p.fronts)
        bounded, measured = inspect(s, gc, lines=True), inspect(s, _without_reach(gc), lines=True)
        assert bounded.as_json() == measured.as_json(), gid
        assert [d.format() for d in bounded.findings] == [d.format() for d in measured.findings], gid
        if gid == "mini":
            flagged = [r for i, r in enumerate(rights)
                       if any(f"element 'edge{i}'" in d.message for d in bounded.findings)]
            assert flagged == [41.0501, 41.06, 43.0]


def test_turned_text_is_measured_turned(mini: DataRootCopy) -> None:
    """A long line turned 90 degrees in a standing strip down the middle of the card is inside the
    safe zone (measured unturned, from its origin to the right, it would reach past the right
    edge); the same line in a strip 1 to 5 mm from the left edge reaches outside the safe zone
    (3 mm), by at most 2 mm. Preflight measures the turned ink."""
    i = add_element(mini, {"type": "text", "box": [20, 12, 4, 46], "rotate": 90, "text": "SIDEWAYS ALONG THE CARD",
                           "style": "body", "wrap": False, "align": "center", "valign": "middle"})
    _, _, pre = preflight(mini)
    assert pre.findings == ()
    data = mini.read(CARD)
    data["elements"][i].update(box=[1, 12, 4, 46])
    mini.write(CARD, data)
    _, _, pre = preflight(mini)
    (msg,) = messages(pre)
    reach = float(msg.split(f"$.elements[{i}]: text reaches ")[1].split(" mm outside the safe zone")[0])
    assert 0 < reach <= 2  # the strip starts 1 mm from the trim, 2 mm short of the safe zone


def _watched(s: Session, gc: GameCheck, full: GameCheck) -> list[tuple[object, ...]]:
    """Per component of a build's plans (``check`` with ``layout=False``): its preflight watched
    while it is drawn and its fronts' warnings, as a build gets them; and the same from the plan
    with every front laid out in item order (``full``), walked after the drawing."""
    out = []
    for plan, ref in zip(gc.plans, full.plans, strict=True):
        watch = Collector(s, gc, plan)
        data, _ = render_component(s, gc.game, plan, gc.opts)
        (c, found), (c_ref, found_ref) = watch.finish(data), Collector(s, full, ref).finish(data)
        out.append((plan.component.id, bool(plan.blocks), c, [d.format() for d in found],
                    [d.format() for d in front_warnings(gc.game, plan)], c_ref, [d.format() for d in found_ref]))
    return out


def test_pieces_drawn_out_of_item_order_are_reported_in_item_order(golems: DataRootCopy) -> None:
    """A plan that sampled its pieces' edges may draw classes of them apart (blocks: the Golems
    deck's Sizes, then its Shapes, then its Materials). Its preflight, watched as the pieces are
    drawn, names the same items as a walk of every front and back in item order (ties go to the
    first item), and its warnings list their items in item order: as when the plan laid every
    front out before drawing. On the bundled Golems and Cyberiad, whose decks are drawn in blocks,
    and on Golems with notes too long for their cards on a Material, a Size and a Shape."""
    data = golems.read("card_data/golems/golem-deck.json")
    long = ("clay", "small", "man")  # drawn: small, man, clay
    for item in data["items"]:
        if item["id"] in long:
            item["note"], item["note_terrain"] = "A note far too long for the card: " * 12, "Water"
    golems.write("card_data/golems/golem-deck.json", data)
    for edited, root, gid in ((True, golems.root, "golems"), (False, BUNDLED, "golems"), (False, BUNDLED, "cyberiad")):
        s = Session(root)
        got = _watched(s, check(root, gid, BuildOptions(), s, layout=False), check(root, gid, BuildOptions(), s))
        assert any(blocks for _, blocks, *_ in got)
        for cid, _, c, found, warned, c_ref, found_ref in got:
            assert (c, found) == (c_ref, found_ref), (gid, cid)
            if edited and cid == "golem-deck":
                assert len(warned) == 1 and "3 items: clay, small, man" in warned[0], warned
            else:
                assert warned == [], (gid, cid)
