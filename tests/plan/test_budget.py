"""The page budget (pnp.plan.budget): pages counted without imposing them agree with the imposed
pages for every kind of placement; a component or a command over its cap is refused by check
and build alike, before anything is written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import DataRootCopy, assert_no_traceback, run_cli

from pnp.input import kinds
from pnp.input.project import DataRoot, bundled_root
from pnp.pipeline.watch import Watch
from pnp.plan import budget
from pnp.plan.budget import page_count, run_pages
from pnp.plan.options import BuildOptions
from pnp.plan.session import Session
from pnp.qa.check import check

OPTION_SETS = [
    BuildOptions(),
    BuildOptions(paper="a4", duplex="short", token_cut="circle"),
    BuildOptions(duplex="fold"),
    BuildOptions(duplex="none", bleed_mm=0),
    BuildOptions(print_shop=True),
    BuildOptions(paper="universal", ink_saver=True),
]


@pytest.mark.parametrize("opts", OPTION_SETS, ids=lambda o: f"{o.paper}-{o.duplex}-{o.print_shop}-{o.token_cut}")
def test_counted_pages_are_the_imposed_pages_of_every_bundled_component(opts: BuildOptions) -> None:
    root = DataRoot(bundled_root())
    s = Session(root)
    placements, tiled, blocks = set(), 0, 0
    for gid in root.game_ids():
        gc = check(root, gid, opts, s, layout=False)
        for plan in gc.plans:
            assert page_count(plan) == len(plan.pages), (gid, plan.component.id)
            placements.add(plan.placement)
            tiled += any(slot.part is not None for page in plan.pages for slot in page.slots)
            blocks += bool(plan.blocks)
    # the sets reach what they are meant to: sheets, one-per-page kinds or print-shop pages, tiles
    assert placements >= ({"print-shop"} if opts.print_shop else {"grid", "page"})
    assert tiled or opts.print_shop


def _mini_with(mini: DataRootCopy, size: list[float] | str, copies: int, shape: str = "rect",
               kind: str = "card") -> DataRoot:
    def comp(g: dict[str, Any]) -> None:
        g["components"][0].update(size=size, shape=shape, kind=kind)
        if not kinds.get(kind).backs:
            del g["components"][0]["back"]

    mini.edit("game.json", comp)
    mini.edit("deck.json", lambda d: d["items"][0].update(copies=copies))
    for name in ("card", "back"):
        p = mini.path / "templates" / "mini" / f"{name}.json"
        t = json.loads(p.read_text())
        t["size"] = size
        p.write_text(json.dumps(t))
    return mini.root


@pytest.mark.parametrize(("size", "shape", "kind", "opts"), [
    ([600, 600], "rect", "board", BuildOptions()),  # tiled boards
    ([600, 600], "rect", "board", BuildOptions(paper="a4", duplex="none")),
    ([300, 200], "rect", "mat", BuildOptions(duplex="fold")),  # too big for a fold: tiles
    ([40, 46.19], "hex", "tile", BuildOptions()),  # a honeycomb
    ([46.19, 40], "hex", "tile", BuildOptions(duplex="short")),  # flat hexes
    ([44, 63], "rect", "card", BuildOptions(duplex="fold")),  # gutterfold
    ([400, 300], "rect", "card", BuildOptions()),  # cards too big for the page: tiled, no backs
    ([180, 250], "rect", "sheet", BuildOptions()),  # one per page
    ([600, 300], "rect", "sheet", BuildOptions(paper="a4")),  # one per page, tiled
    ([44, 63], "rect", "card", BuildOptions(print_shop=True)),
])
def test_counted_pages_agree_for_tiles_honeycombs_and_folds(mini: DataRootCopy, size: list[float], shape: str,
                                                             kind: str, opts: BuildOptions) -> None:
    root = _mini_with(mini, size, 37, shape, kind)
    gc = check(root, "mini", opts, layout=False)
    (plan,) = gc.plans
    assert len(plan.pages) > 1
    assert page_count(plan) == len(plan.pages)


def test_ganged_file_counts_as_its_sheets_again(mini: DataRootCopy) -> None:
    gc = check(mini.root, "mini", BuildOptions(gang=True), layout=False)
    (plan,) = gc.plans
    assert run_pages([("mini", gc.plans, True)]) == [("mini", 2 * len(plan.pages))]
    assert run_pages([("mini", gc.plans, False)]) == [("mini", len(plan.pages))]


def test_a_command_over_the_run_budget_is_refused_by_check_and_build(mini: DataRootCopy, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # mini's 5 cards take 2 pages with backs; with --gang the ganged file counts 2 more
    monkeypatch.setattr(budget, "MAX_RUN_PAGES", 3)
    ok = run_cli("check", "mini")
    assert ok.exit_code == 0, ok.stderr
    for cmd in (("check", "mini", "--gang"), ("build", "mini", "--gang", "--out", tmp_path / "out")):
        r = run_cli(*cmd)
        assert r.exit_code == 2
        assert_no_traceback(r)
        assert ("card_data: $: 4 pages in the PDFs of one command (mini 4) (--gang's ganged files counted as their "
                "sheets again) (expected at most 3 pages across the games one command checks or builds); "
                "build fewer games at a time (name them: `pnp build GAME`), without --gang, or print fewer "
                "pieces") in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()


def test_the_component_cap_names_component_pages_and_limit(mini: DataRootCopy, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "MAX_COMPONENT_PAGES", 9)
    mini.edit("deck.json", lambda d: d["items"][0].update(copies=100))  # 103 cards: 7 sheets, 14 pages
    for cmd in (("check", "mini"), ("build", "mini", "--out", tmp_path / "out"), ("preflight", "mini")):
        r = run_cli(*cmd)
        assert r.exit_code == 2, (cmd, r.stderr)
        assert_no_traceback(r)
        assert ("card_data/mini/game.json:7:5: $.components[0]: component deck of game mini would print 14 pages "
                "with these options (103 pieces) (expected at most 9 pages in one component's PDF); fewer pieces "
                "(fewer `copies`, a shorter `series`); or split the component in two") in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()
    # the PNG export draws each distinct item once: no page budget there
    png = run_cli("export", "png", "mini", "--out", tmp_path / "png", "--dpi", "36")
    assert png.exit_code in (0, 1), png.stderr  # 1: its rule of 5 cards fails, after the check
    assert "would print" not in png.stderr


def test_watch_holds_a_game_to_the_run_budget(mini: DataRootCopy, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A watch renders one game and holds its PDFs until all are written, as a build does."""
    monkeypatch.setattr(budget, "MAX_RUN_PAGES", 1)
    w = Watch(mini.root, "mini", tmp_path / "out")
    lines = w.poll()
    assert w.errors and "2 pages in the PDFs of one command (mini 2)" in w.errors[0].message, lines
    assert not (tmp_path / "out").exists()


def test_edge_colours_past_their_budget_are_refused_by_check_and_build(mini: DataRootCopy, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Grouping pieces by edge colour is held to EDGE_BUDGET comparisons (attack 7 F10: 3,000
    cards in random colours took 75 s to check): past it, exit 2 naming the component, the
    way out in the message, nothing written; with no bleed the edges are not judged."""
    from pnp.layout import edges

    monkeypatch.setattr(edges, "EDGE_BUDGET", 3)
    _refused_at_the_component(tmp_path, "its 3 items' edges, in too many different colours, take more than 3 edge "
                              "colour comparisons to find which pieces may share a cut line (expected fewer distinct "
                              "edge colours (a shared border colour), or --bleed 0 (no shared cut lines judged))")


def _refused_at_the_component(tmp_path: Path, said: str) -> None:
    """check and build of mini exit 2 at its deck's manifest entry saying ``said``, and write
    nothing; with no bleed the edges are not judged, and check passes."""
    for cmd in (("check", "mini"), ("build", "mini", "--out", tmp_path / "out")):
        r = run_cli(*cmd)
        assert r.exit_code == 2, (cmd, r.stderr)
        assert_no_traceback(r)
        assert "card_data/mini/game.json:7:5: $.components[0]: component deck: " + said in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()
    assert run_cli("check", "mini", "--bleed", "0").exit_code in (0, 1)


def test_the_images_of_all_games_are_held_to_a_command_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack 12 F1: the image budget was per game only: ten games of one 42 MP image each (1.5 MB
    of PNGs) passed check and took 20 s to build. The games one command lays out are held to
    MAX_COMMAND_IMAGE_PIXELS together: the file past it is refused (an input error at its `src`,
    saying to build a few games at a time); a file counted already costs nothing again."""
    from pnp.layout.fields import LayoutError
    from pnp.plan import session

    monkeypatch.setattr(session, "MAX_COMMAND_IMAGE_PIXELS", 100)
    s = Session(DataRoot(bundled_root()))
    a, b = s.images.setdefault("a", {}), s.images.setdefault("b", {})
    assert s.images.setdefault("a", {}) is a
    a["/x.png"] = 60
    a["/x.png"] = 60  # the same file again
    b["/y.png"] = 40  # 100: at the budget
    with pytest.raises(LayoutError) as e:
        b["/z.png"] = 1
    assert e.value.key == "src" and "brings the image files of the games this command lays out (2) to 101 " \
        "pixels together, more than pnp's budget of 100 a command" in e.value.message
    assert "a few at a time" in (e.value.hint or "") and "/z.png" not in b


def test_shapes_along_the_edges_past_the_sampling_budget_are_refused(mini: DataRootCopy, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack 15, F2: sampling the edges costs more for a shape along an edge than the shape
    budget charges for it (2 KB of template took 3 s to sample). Past the sampler's budget
    (SAMPLE_BUDGET, plus SAMPLE_PER_PIECE a piece), check and build exit 2 naming the component
    and the way out, and write nothing; with no bleed the edges are not sampled."""
    from pnp.layout import edges

    monkeypatch.setattr(edges, "SAMPLE_BUDGET", 100_000)
    monkeypatch.setattr(edges, "SAMPLE_PER_PIECE", 0)
    assert run_cli("check", "mini").exit_code in (0, 1)  # the cards as they are: well within it
    lines = {"type": "repeat", "count": 300, "step": [0.001, 0], "elements": [
        {"type": "line", "from": [0.1, 0], "to": [0.1, 63], "stroke": "#000000", "stroke_width": 1}]}
    mini.edit("templates/mini/card.json", lambda t: t["elements"].append(lines))
    _refused_at_the_component(tmp_path, "its 3 items draw so many shapes along their edges that their edge colours "
                              "take more than 100,000 steps of edge sampling to find which pieces may share a cut "
                              "line (expected fewer shapes reaching within 0.5 mm of the trim (one background shape "
                              "under the edge), or --bleed 0 (no shared cut lines judged))")
