"""The ``fits`` rule (pnp.qa.fits): the bundled games' fits hold; each way a piece can fail its space
(too big for it, too close to its neighbour, too few spaces for the row, over the host's edge) is a
failed rule naming the item, the element and the figures; a rule naming an element the template
does not have is bad input (exit 2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import GAMES, Bundled, DataRootCopy, assert_no_traceback, bundled_copy, diag_lines, game_json
from hypothesis import given, settings
from hypothesis import strategies as st

from pnp.errors import DataError
from pnp.input.project import DataRoot, bundled_root, load_game
from pnp.qa.fits import Piece, Space, judge
from pnp.qa.rules import Outcome, check_game

FITS = [(gid, r["id"]) for gid in GAMES for r in game_json(gid, "game.json")["rulebook"] if r["check"] == "fits"]


def test_every_game_with_pieces_on_spaces_declares_its_fits() -> None:
    assert {gid for gid, _ in FITS} == {"golems", "capek-golems", "cauldron", "time-capsules"}
    assert len(FITS) == 10


@pytest.mark.parametrize("gid,rule", FITS, ids=[f"{g}:{r}" for g, r in FITS])
def test_bundled_fits_hold(bundled: Bundled, gid: str, rule: str) -> None:
    o = next(o for o in check_game(bundled.game(gid)).outcomes if o.rule.id == rule)
    assert o.passed, o.details
    assert o.actual.startswith("fits on all ")


def _failed(root: DataRootCopy) -> dict[str, Outcome]:
    return {o.rule.id: o for o in check_game(root.load()).violations}


def test_larger_counters_do_not_fit_the_damage_circles(golems: DataRootCopy) -> None:
    """13 mm counters on the Wizard's 12.6 mm circles (12.9 mm apart) and the status cards' 13 mm ones."""
    golems.edit("game.json", lambda m: next(c for c in m["components"] if c["id"] == "counters")
                .update(size=[13, 13]))
    bad = _failed(golems)
    assert set(bad) == {"counters-fit-wizard", "counters-fit-status"}
    o = bad["counters-fit-wizard"]
    assert o.expected == "counters (13 x 13 mm round) fits wizard damage with 0.3 mm clearance, 5 side by side"
    assert o.actual == "8 problems"  # two per Wizard: circle 12.6 mm < 13.6 mm, and 12.9 mm apart < 13.3 mm
    at = golems.line_of("wizard.json", '"id": "wizard-red"')
    assert o.details[0] == (f"wizard/wizard-red (card_data/golems/wizard.json:{at}) damage: circle 12.6 mm is too "
                            "small: counters (13 x 13 mm round) + 0.3 mm clearance each side needs 13.6 x 13.6 mm")


def test_a_tile_as_big_as_its_square_fails(golems: DataRootCopy) -> None:
    golems.edit("game.json", lambda m: next(c for c in m["components"] if c["id"] == "terrain")
                .update(size=[38, 38]))
    bad = _failed(golems)
    assert set(bad) == {"terrain-fits-board"}
    assert bad["terrain-fits-board"].details[0].endswith(
        "squares: space 38 x 38 mm is too small: terrain (38 x 38 mm) + 0.5 mm clearance each side needs 39 x 39 mm")


def test_a_row_longer_than_the_repeat_fails(golems: DataRootCopy) -> None:
    golems.edit("game.json", lambda m: next(r for r in m["rulebook"] if r["id"] == "counters-fit-wizard")
                .update(row=6))
    o = _failed(golems)["counters-fit-wizard"]
    assert all(d.endswith("damage: 5 spaces for a row of 6") for d in o.details) and len(o.details) == 4


def test_research_circles_as_they_were_fail_for_8mm_cubes(tmp_path: Path) -> None:
    copy = bundled_copy(tmp_path, "capek-golems", templates=True)
    text = copy.text("templates/capek-golems/part-card.json")
    copy.file("templates/capek-golems/part-card.json").write_text(
        text.replace('"box": [\n        0,\n        0,\n        9,\n        9\n       ]',
                     '"box": [\n        0,\n        0,\n        8.6,\n        8.6\n       ]'), encoding="utf-8")
    bad = _failed(copy)
    assert set(bad) == {"markers-fit-research"}
    assert len(bad["markers-fit-research"].details) == 6  # the six part cards
    assert "circle 8.6 mm is too small: marker cube (8 x 8 mm) + 0.5 mm clearance each side needs 9 x 9 mm" \
        in bad["markers-fit-research"].details[0]


def test_an_unknown_element_is_bad_input(golems: DataRootCopy) -> None:
    golems.edit("game.json", lambda m: next(r for r in m["rulebook"] if r["id"] == "counters-fit-wizard")
                ["space"].update(element="damage-row"))
    r = golems.check()
    assert_no_traceback(r)
    assert r.exit_code == 2
    assert any("rule 'counters-fit-wizard': no element with id 'damage-row' in template 'golems/wizard-card' for "
               "any selected item of wizard" in ln for ln in diag_lines(r.stderr))


def test_pnp_check_exit_1_lists_the_fit_failure(golems: DataRootCopy) -> None:
    golems.edit("game.json", lambda m: next(r for r in m["rulebook"] if r["id"] == "terrain-fits-board")
                .update(clearance=1))
    r = golems.check()
    assert r.exit_code == 1
    assert "FAIL terrain-fits-board:" in r.stdout
    assert "squares: space 38 x 38 mm is too small: terrain (37 x 37 mm) + 1 mm clearance each side needs 39 x 39 mm" \
        in r.stdout


# -- the geometry, on its own -----------------------------------------------------------------------

CASES: list[tuple[dict[str, Any], list[str]]] = [
    ({}, []),
    ({"w": 9.6, "h": 9.6}, ["circle 9.6 mm is too small: c (9 x 9 mm round) + 0.5 mm clearance each side needs "
                           "10 x 10 mm"]),
    ({"centres": ((10, 10), (19.5, 10))}, []),
    ({"centres": ((10, 10), (19.4, 10))},
     ["spaces 9.4 mm apart (centre to centre): side by side the pieces need 9.5 mm"]),
    ({"centres": ((10, 10), (60, 10))}, ["1 of the pieces would hang over the edge of the 63 x 88 mm piece"]),
]


@pytest.mark.parametrize("change,problems", CASES)
def test_judge(change: dict[str, Any], problems: list[str]) -> None:
    space = Space("round", **{"w": 10.0, "h": 10.0, "centres": ((10.0, 10.0),), **change})
    assert judge(Piece("c", 9, 9, "round"), space, 0.5, None, (63, 88)) == problems


def test_a_group_named_as_the_space_gives_all_its_squares(bundled: Bundled) -> None:
    """The Map's light and dark squares are four repeats in a group "squares": one set of 64 spaces,
    38 mm apart, so neighbours across the repeats are checked too."""
    from pnp.input.project import DataRoot, bundled_root
    from pnp.input.templates import TemplateStore
    from pnp.layout.fields import Env
    from pnp.qa.fits import spaces

    tpl = TemplateStore(DataRoot(bundled_root())).get("golems/board")
    game = bundled.game("golems")
    board = game.component("board")
    assert board is not None
    (sp,) = spaces(tpl, "squares", Env(board.items[0], board, game))
    assert (sp.shape, sp.w, sp.h, len(sp.centres), len(set(sp.centres))) == ("rect", 38, 38, 64, 64)
    xs = sorted({x for x, _ in sp.centres})
    assert xs == [8 + 19 + 38 * i for i in range(8)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), min_size=2, max_size=80),
       st.sampled_from([0.5, 0.25, 1.0]))
def test_the_closest_pair_is_the_pairwise_minimum(cells: list[tuple[int, int]], step: float) -> None:
    """Attack 8, F5: every pair of spaces was measured (6,000 spaces on 40 items: 9 s a rule).
    The divide-and-conquer search gives exactly the pairwise minimum: duplicates, columns, grids."""
    import math

    from pnp.qa.fits import closest

    pts = tuple((x * step, y * step) for x, y in cells)
    assert closest(pts) == min(math.dist(a, b) for i, a in enumerate(pts) for b in pts[i + 1:])


def test_a_games_fits_rules_judge_a_bounded_number_of_spaces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past MAX_FITS_POINTS spaces across a game's `fits` rules, the rule is an input error at its
    `space.element`, naming the figure (attack 8, F5: 30 rules of 6,000 spaces on 40 items, 244 s)."""
    from pnp.qa import rules

    report = check_game(load_game(DataRoot(bundled_root()), "golems"))
    judged = [o for o in report.outcomes if o.rule.check == "fits"]
    assert judged and all(o.passed for o in judged)
    monkeypatch.setattr(rules, "MAX_FITS_POINTS", 1)
    with pytest.raises(DataError) as exc:
        check_game(load_game(DataRoot(bundled_root()), "golems"))
    d = exc.value.diagnostics[0]
    assert d.path[-2:] == ("space", "element")
    assert "the `fits` rules of game golems judge more than 1 spaces" in d.message


# -- spaces written as expressions of the piece's size (attack 13, F3, F4) -------------------------
# Each space twice on the 44 x 63 mm mini card: with expressions ("w-6", "50%", "w/4" in boxes,
# steps, row steps, offsets, track paths and sizes) and in plain mm. They are the same space: the
# expressions are worked out as the layout works them out (they were a Python TypeError, or exit 3).

EXPRESSED: list[tuple[dict[str, Any], dict[str, Any]]] = [
    ({"type": "rect", "box": [3, 3, "w-6", "h-6"]}, {"type": "rect", "box": [3, 3, 38, 57]}),
    ({"type": "circle", "box": ["w/2-5", 20, 10, 10]}, {"type": "circle", "box": [17, 20, 10, 10]}),
    ({"type": "hex", "box": ["50%", "10%", "25%", "20%"]}, {"type": "hex", "box": [22, 6.3, 11, 12.6]}),
    ({"type": "repeat", "count": 6, "per_row": 3, "step": ["w/4", 0], "row_step": [0, "h/4"],
      "elements": [{"type": "circle", "box": [0, 0, "w/5", "w/5"]}]},
     {"type": "repeat", "count": 6, "per_row": 3, "step": [11, 0], "row_step": [0, 15.75],
      "elements": [{"type": "circle", "box": [0, 0, 8.8, 8.8]}]}),
    ({"type": "group", "offset": ["w/4", "25%"], "elements": [{"type": "rect", "box": [0, 0, "w/4", 10]}]},
     {"type": "group", "offset": [11, 15.75], "elements": [{"type": "rect", "box": [0, 0, 11, 10]}]}),
    ({"type": "track", "first": 1, "last": 3, "path": [["w/4", 30], ["3*w/4", "h/2"]], "size": ["w/8", "w/8"],
      "elements": [{"type": "rect", "box": [0, 0, 5, 5]}]},
     {"type": "track", "first": 1, "last": 3, "path": [[11, 30], [33, 31.5]], "size": [5.5, 5.5],
      "elements": [{"type": "rect", "box": [0, 0, 5, 5]}]}),
]


def _with_space(mini: DataRootCopy, element: dict[str, Any], rule: dict[str, Any] | None = None) -> None:
    """The mini card with ``element`` as its space "s" and a `fits` rule on it."""
    mini.edit("templates/mini/card.json", lambda t: t["elements"].append({"id": "s", **element}))
    mini.edit("game.json", lambda m: m["rulebook"].append(
        {"id": "cube-fits", "description": "A cube fits the space.", "quote": "The deck has 5 cards.",
         "check": "fits", "pieces": {"size": [5, 5], "name": "cube"}, "space": {"component": "deck", "element": "s"},
         "clearance": 0.25, **(rule or {})}))


@pytest.mark.parametrize("expressed,plain", EXPRESSED, ids=[e["type"] for e, _ in EXPRESSED])
def test_a_space_written_as_expressions_is_the_space_the_layout_draws(mini: DataRootCopy, expressed: dict[str, Any],
                                                                       plain: dict[str, Any]) -> None:
    from pnp.input.templates import TemplateStore
    from pnp.layout.fields import Env
    from pnp.qa.fits import spaces

    _with_space(mini, expressed)
    game = mini.load()
    deck = game.component("deck")
    assert deck is not None and deck.size == (44, 63)
    env = Env(deck.items[0], deck, game)
    got = spaces(TemplateStore(mini.root).get("mini/card"), "s", env)
    mini.edit("templates/mini/card.json", lambda t: t["elements"][-1].update(plain))
    want = spaces(TemplateStore(mini.root).get("mini/card"), "s", env)
    assert [(s.shape, len(s.centres)) for s in got] == [(s.shape, len(s.centres)) for s in want]
    for g, w in zip(got, want, strict=True):
        assert (g.w, g.h) == pytest.approx((w.w, w.h))
        assert [c for xy in g.centres for c in xy] == pytest.approx([c for xy in w.centres for c in xy])
    r = mini.check()
    assert_no_traceback(r)
    assert r.exit_code == 0, r.stderr
    assert "3 rules, 3 pass, 0 fail" in r.stdout


def test_a_piece_too_big_for_an_expressed_space_fails_with_its_figures(mini: DataRootCopy) -> None:
    """Attack 13, F4: a track whose spaces are ["w/8", "w/8"] exited 3 (TypeError in the figures)."""
    _with_space(mini, EXPRESSED[-1][0], {"pieces": {"size": [6, 6], "name": "cube"}})
    r = mini.check()
    assert_no_traceback(r)
    assert r.exit_code == 1
    assert "FAIL cube-fits:" in r.stdout
    assert ("s: space 5.5 x 5.5 mm is too small: cube (6 x 6 mm) + 0.25 mm clearance each side needs 6.5 x 6.5 mm"
            in r.stdout)


def test_a_piece_given_by_size_is_at_most_a_metre(mini: DataRootCopy) -> None:
    """fixfits13's note: a rule's pieces.size had no maximum; [1e308, 1e308] printed "inf"."""
    _with_space(mini, EXPRESSED[-1][0], {"pieces": {"size": [1e308, 5], "name": "cube"}})
    r = mini.check()
    assert_no_traceback(r)
    assert r.exit_code == 2
    assert "$.rulebook[2].pieces.size[0]: number 1e+308 is out of range (expected a number <= 1000)" in r.stderr
    assert "inf" not in r.stdout + r.stderr


def test_a_space_that_cannot_be_worked_out_names_the_rule_and_the_element(mini: DataRootCopy) -> None:
    """A repeat drawn 0 times has its children's boxes never worked out by the layout; the rule,
    which takes its space's shape from the first, finds "w/(w-w)" and says so: exit 2 at the rule,
    naming the element's file and line, the key and the piece; nothing written."""
    _with_space(mini, {"type": "repeat", "count": 0, "step": [10, 0],
                       "elements": [{"type": "circle", "box": [0, 0, "w/(w-w)", 10]}]})
    for args in (("check", "mini"), ("build", "mini", "--out", str(mini.path / "out"))):
        r = mini.cli(*args)
        assert_no_traceback(r)
        assert r.exit_code == 2
        line = mini.line_of("templates/mini/card.json", '"w/(w-w)"')
        want = ("$.rulebook[2].space.element: rule 'cube-fits': template 'mini/card': circle element "
                f"(templates/mini/card.json:{line} $.elements[4].elements[0].box[2]): division by zero "
                "(a 44 x 63 mm piece, item ")
        assert any(ln.startswith("card_data/mini/game.json:") and want in ln
                   and ln.endswith("(expected an expression that can be worked out)")
                   for ln in diag_lines(r.stderr)), r.stderr
    assert not (mini.path / "out").exists()


UNWORKABLE: list[tuple[dict[str, Any], str, str]] = [
    ({"type": "rect", "box": [0, 0, "w*100", 5]}, "$.elements[4].box[2]): 'w*100' is 4400 mm for a 44 x 63 mm piece "
     "(item ", "a value from -2000 to 2000 mm, the range of a plain number in a template"),
    ({"type": "rect", "box": [0, 0, "w-50", 5]}, "$.elements[4].box): box [0, 0, 'w-50', 5] is -6 x 5 mm on a 44 x 63 "
     "mm piece (item ", "a width and height of 0 mm or more"),
    ({"type": "group", "offset": [0, "h/(w-44)"], "elements": [{"type": "rect", "box": [0, 0, 9, 9]}]},
     "$.elements[4].offset[1]): division by zero (a 44 x 63 mm piece, item ", "an expression that can be worked out"),
    ({"type": "repeat", "count": "{name}", "step": [10, 0], "elements": [{"type": "circle", "box": [0, 0, 5, 5]}]},
     "$.elements[4].count): repeat count {name} is ", "a whole number from 0 to 1000"),
    ({"type": "track", "first": 1, "last": 4, "spacing": 100, "path": [[0, 0], ["w", 0]], "size": [5, 5],
      "elements": []}, "$.elements[4].spacing): 4 spaces 100 mm apart do not fit on the path",
     "a longer path or a smaller spacing"),
]


@pytest.mark.parametrize("element,message,expected", UNWORKABLE,
                         ids=["range", "negative", "offset", "count", "spacing"])
def test_a_rule_on_a_space_the_layout_refuses_is_bad_input(mini: DataRootCopy, element: dict[str, Any], message: str,
                                                           expected: str) -> None:
    """What the layout refuses for the piece (the same functions, pnp.layout.coords) the rule refuses
    too, at its `space.element`, with the layout's words: no Python error text (attack 13, F3)."""
    _with_space(mini, element)
    with pytest.raises(DataError) as exc:
        check_game(mini.load())
    (d,) = exc.value.diagnostics
    assert d.path[-2:] == ("space", "element")
    assert d.message.startswith("rule 'cube-fits': template 'mini/card': element 's' (templates/mini/card.json:")
    assert message in d.message and d.expected == expected
