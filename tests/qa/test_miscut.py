"""Pieces of different colours never share a cut line (pnp.layout.edges, plan_component), read back
from the PDF: gutters between them, each piece's colour past its own cut, cut lines clear of every
piece; and `pnp preflight` naming where a 0.5 mm miscut would show a neighbour's colour."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pdfplumber
import pypdfium2 as pdfium
import pytest
from conftest import TEST_DATA, DataRootCopy, run_cli

from pnp.pipeline.build import build_checked
from pnp.plan.options import BuildOptions
from pnp.plan.session import Session
from pnp.qa.check import check
from pnp.qa.miscut import shared_lines
from pnp.qa.preflight import preflight_game
from pnp.units import MM

CARD = "templates/mini/card.json"
SUN, MOON = (0xE0, 0xA0, 0x20), (0x20, 0x40, 0xA0)


def coloured(mini: DataRootCopy, moon: str = "#2040a0") -> None:
    """The mini cards on a full-bleed background by suit (sun, moon; the joker, with no suit, as a
    sun) instead of the coloured band at their top."""
    def edit(tpl: dict) -> None:
        tpl["elements"] = [el for el in tpl["elements"] if el.get("id") != "band"]  # its suit colours reach the edges
        tpl["elements"].insert(0, {"type": "rect", "box": [0, 0, 44, 63], "bleed": True,
                                   "fill": {"by": "suit", "palette": "ground", "default": "#e0a020"}})
        tpl.setdefault("palettes", {})["ground"] = {"sun": "#e0a020", "moon": moon}
    mini.edit(CARD, edit)


def build(mini: DataRootCopy, out: Path, **opts: object) -> Path:
    s = Session(mini.root)
    gc = check(mini.root, "mini", BuildOptions(**opts), s)  # type: ignore[arg-type]
    (deck,) = [w.path for w in build_checked(mini.root, gc, out, s) if w.component.id == "deck"]
    return deck


def cuts(path: Path) -> tuple[list[float], list[float], float]:
    """x of the vertical and y (from the top) of the horizontal cut lines on page 1, and its height."""
    with pdfplumber.open(path) as pdf:
        page = pdf.pages[0]
        lines = [ln for ln in page.lines if abs(ln["linewidth"] - 0.25) < 1e-6]
        xs = sorted({round(ln["x0"], 3) for ln in lines if abs(ln["x0"] - ln["x1"]) < 1e-6})
        ys = sorted({round(ln["top"], 3) for ln in lines if abs(ln["top"] - ln["bottom"]) < 1e-6})
        return xs, ys, float(page.height)


def test_differently_coloured_cards_get_gutters_and_their_own_bleed(mini: DataRootCopy, tmp_path: Path) -> None:
    coloured(mini)
    deck = build(mini, tmp_path)
    xs, ys, ph = cuts(deck)
    # mini cards (44 x 63 mm) turned on Letter: between two trims a 6 mm gutter (3 mm of bleed each)
    gaps = {round((b - a) / MM, 2) for a, b in pairwise(xs)} | {round((b - a) / MM, 2) for a, b in pairwise(ys)}
    assert gaps == {63.0, 44.0, 6.0}
    assert sum(abs((b - a) / MM - 6) < 0.01 for a, b in pairwise(xs)) == 2  # 3 across, 2 gutters
    img = pdfium.PdfDocument(deck)[0].render(scale=300 / 72).to_pil().convert("RGB")
    px = 300 / 72
    trims_x = [(a, b) for a, b in pairwise(xs) if abs((b - a) / MM - 63) < 0.01]
    trims_y = [(a, b) for a, b in pairwise(ys) if abs((b - a) / MM - 44) < 0.01]
    seen = set()
    for x0, x1 in trims_x:
        for y0, y1 in trims_y:
            cy = (y0 + y1) / 2 * px
            inside = img.getpixel((int((x0 + 10 * MM) * px), int(cy)))
            if inside not in (SUN, MOON):
                continue  # an empty cell of the last row
            seen.add(inside)
            # 1.5 mm past each of its cut lines, in the gutter or the margin: still its own colour
            for x in (x0 - 1.5 * MM, x1 + 1.5 * MM):
                assert img.getpixel((int(x * px), int(cy))) == inside
            cx = (x0 + x1) / 2 * px
            for y in (y0 - 1.5 * MM, y1 + 1.5 * MM):
                assert img.getpixel((int(cx), int(y * px))) == inside
    assert seen == {SUN, MOON}
    # the cut lines stay in the margins: none reaches a piece's bleed box
    boxes = [(a - 3 * MM, c - 3 * MM, b + 3 * MM, d + 3 * MM) for a, b in trims_x for c, d in trims_y]
    with pdfplumber.open(deck) as pdf:
        for ln in pdf.pages[0].lines:
            for bx0, by0, bx1, by1 in boxes:
                assert ln["x1"] < bx0 or ln["x0"] > bx1 or ln["bottom"] < by0 or ln["top"] > by1
    assert ph > 0


def test_cards_of_one_colour_still_abut(mini: DataRootCopy, tmp_path: Path) -> None:
    coloured(mini, moon="#e0a020")  # every card the same colour: one cut line between neighbours
    xs, ys, _ = cuts(build(mini, tmp_path))
    gaps = {round((b - a) / MM, 2) for a, b in pairwise(xs)} | {round((b - a) / MM, 2) for a, b in pairwise(ys)}
    assert gaps == {63.0, 44.0}


def test_preflight_names_the_seams_where_cards_of_different_colours_share_a_cut(mini: DataRootCopy) -> None:
    """With no bleed (--bleed 0) pieces always share their cut lines: preflight names the game,
    component, sheet and the two pieces where a 0.5 mm miscut shows the neighbour's colour."""
    coloured(mini)
    s = Session(mini.root)
    gc = check(mini.root, "mini", BuildOptions(bleed_mm=0), s)
    pre = preflight_game(s, gc, coverage=False)
    (c,) = pre.components
    assert c.miscut_seams and c.miscut_seams > 0 and c.warnings == len(pre.findings) == 1
    (msg,) = [d.message for d in pre.findings]
    assert "a 0.5 mm miscut shows a neighbour's colour" in msg
    assert "game mini, component deck, sheet 1 front (page 1)" in msg
    assert "pieces 1 (sun-1) and 2 (sun-1)" not in msg  # two suns match: not a seam
    assert ("(sun-1)" in msg and "(moon-1)" in msg) or ("(moon-1)" in msg and "(joker)" in msg)
    # with the default bleed the same cards sit apart: nothing to report
    gc = check(mini.root, "mini", BuildOptions(), s)
    pre = preflight_game(s, gc, coverage=False)
    assert pre.findings == () and pre.components[0].miscut_seams == 0
    assert not any(shared_lines(p) for p in gc.plans[0].pages)


def test_preflight_checks_shared_cut_lines_of_matching_cards_and_passes(mini: DataRootCopy) -> None:
    coloured(mini, moon="#e0a020")
    s = Session(mini.root)
    gc = check(mini.root, "mini", BuildOptions(), s)
    assert any(shared_lines(p) for p in gc.plans[0].pages)  # they abut ...
    pre = preflight_game(s, gc, coverage=False)
    assert pre.findings == () and pre.components[0].miscut_seams == 0  # ... and show nothing


def test_preflight_command_reports_the_seams(mini: DataRootCopy) -> None:
    coloured(mini)
    r = run_cli("preflight", "--bleed", "0")
    assert r.exit_code == 0, r.stderr
    assert "shared cut lines (0.5 mm miscut): " in r.stdout and "would show a neighbour's different colour" in r.stdout
    assert "component deck, sheet 1 front" in r.stderr
    r = run_cli("preflight", "--json", "--bleed", "0")
    assert '"miscut_seams": ' in r.stdout


@pytest.mark.parametrize("paper", ["letter", pytest.param("a4", marks=pytest.mark.slow),
                                   pytest.param("universal", marks=pytest.mark.slow)])
def test_the_bundled_games_show_no_seam(paper: str) -> None:
    from pnp.input.project import DataRoot, bundled_root

    root = DataRoot(bundled_root())
    s = Session(root)
    for gid in root.game_ids():
        gc = check(root, gid, BuildOptions(paper=paper), s)
        pre = preflight_game(s, gc, coverage=False, lines=False)
        assert [c.miscut_seams for c in pre.components] == [0] * len(pre.components), (paper, gid)


def test_without_bleed_edges_are_not_sampled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With --bleed 0 a gutter would be 0 mm: pieces share cut lines whatever their edges, so the
    plan does not lay every item's front out once more to sample them (a 10,000-card deck took
    2.4x the floor's time with it, 1.2x without, bench_scale.py); the preflight still reports seams."""
    from pnp.plan import component

    def never(*a: object, **k: object) -> None:
        raise AssertionError("edges sampled with no bleed")

    monkeypatch.setattr(component, "matching_edges", never)
    r = run_cli("build", "--data", TEST_DATA / "mini", "mini", "--out", tmp_path / "out", "--bleed", "0")
    assert r.exit_code == 0, r.output


def test_a_strip_of_one_colour_where_the_samples_fall_gives_what_sampling_gives(mini: DataRootCopy) -> None:
    """seam_difference's shortcut (0 where the strip has one colour around every sample) against
    sampling every strip, on every shared cut line of the coloured mini cards with no bleed (seams
    and matching neighbours) and of the first sheet of the bundled golems' (art near the edges)."""
    from pnp.input.project import DataRoot, bundled_root
    from pnp.qa.miscut import lines_of, seam_difference
    from pnp.render.component import render_component

    coloured(mini)
    quick = differing = 0
    for root, gid in ((mini.root, "mini"), (DataRoot(bundled_root()), "golems")):
        s = Session(root)
        gc = check(root, gid, BuildOptions(bleed_mm=0), s)
        for plan in gc.plans[:1]:
            pages = plan.pages[:2] if gid == "mini" else plan.pages[:1]
            found = lines_of(pages)
            if not any(found):
                continue
            data, _ = render_component(s, gc.game, plan, gc.opts)
            doc = pdfium.PdfDocument(data)
            for k, lines in enumerate(found):
                paper = pages[k].paper or plan.sheet.paper
                for _, _, seg in lines:
                    fast = seam_difference(doc[k], seg, (paper.width, paper.height))
                    full = seam_difference(doc[k], seg, (paper.width, paper.height), quick=False)
                    assert fast == full, (gid, k, seg)
                    quick += fast == 0
                    differing += fast > 0
            doc.close()
    assert quick > 0 and differing > 0  # both ways taken


@pytest.mark.parametrize("at_mm", [0.0, 0.1, 0.3, 0.45, 0.5, 0.55, 0.6, 0.8, 1.5])
@pytest.mark.parametrize("vertical", [True, False])
def test_a_stripe_beside_a_cut_line_is_sampled_wherever_it_is(at_mm: float, vertical: bool) -> None:
    """Two pieces of one colour sharing a cut line, one with a 0.1 mm stripe of another colour
    ``at_mm`` from it: the shortcut gives what sampling the strip gives, the stripe among the
    samples (0.15 and 0.4 mm deep, 2 pixels either way) or past them."""
    import io

    from reportlab.pdfgen.canvas import Canvas

    from pnp.qa.miscut import seam_difference

    buf = io.BytesIO()
    c = Canvas(buf, pagesize=(200, 200))
    c.setFillColorRGB(0.2, 0.4, 0.6)
    c.rect(40, 40, 120, 120, stroke=0, fill=1)
    c.setFillColorRGB(0.9, 0.7, 0.1)
    at, wide = 100 + at_mm * MM, 0.1 * MM
    c.rect(at, 40, wide, 120, stroke=0, fill=1) if vertical else c.rect(40, at, 120, wide, stroke=0, fill=1)
    c.showPage()
    c.save()
    doc = pdfium.PdfDocument(buf.getvalue())
    seg = ((100.0, 50.0), (100.0, 150.0)) if vertical else ((50.0, 100.0), (150.0, 100.0))
    fast = seam_difference(doc[0], seg, (200, 200))
    full = seam_difference(doc[0], seg, (200, 200), quick=False)
    doc.close()
    assert fast == full
    if at_mm == 0.3:
        assert full > 0  # the stripe at a sampled depth on one side only: a seam
    if at_mm >= 0.8:
        assert full == 0  # past every sample
