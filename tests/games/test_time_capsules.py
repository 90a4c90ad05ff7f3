"""Time Capsules: component counts, the named artifacts' documented numbers, the capsule box net
(folded in 3-D: every fold joins two equal edges, the tabs sit on the side walls' ends and the net
closes into a box of the stated inner size), and the board and solo card agreeing with their data.
What every bundled game must do (rules passing, quotes found, layout without warnings, mutations
caught, the build read back) is in test_games.py."""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any

import pytest
from conftest import Bundled, game_json, template_json

from pnp.input.model import Game
from pnp.layout.primitives import Text
from pnp.qa.check import GameCheck
from pnp.units import MM

GAME = "time-capsules"
PLAYERS = ["Cyan", "Magenta", "Orange", "Silver"]
EPS = 1e-6


@pytest.fixture(scope="module")
def game(bundled: Bundled) -> Game:
    return bundled.game(GAME)


def items(game: Game, comp: str) -> list[Any]:
    c = game.component(comp)
    assert c is not None, comp
    return list(c.items)


def pieces(game: Game, comp: str, **where: Any) -> int:
    return sum(i.copies for i in items(game, comp) if all(i.get(k) == v for k, v in where.items()))


def template(name: str) -> dict[str, Any]:
    return template_json(GAME, name)


# -- counts -------------------------------------------------------------------------------------------

def test_component_counts(game: Game) -> None:
    assert {c.id: sum(i.copies for i in c.items) for c in game.components} == {
        "artifacts": 100, "bioobjects": 20, "fluctuations": 36, "batteries": 80, "crystals": 40, "breaks": 40,
        "computers": 60, "mats": 4, "track": 1, "score-markers": 4, "capsules": 16, "solo": 1}
    kinds = {c.id: c.kind for c in game.components}
    assert kinds["capsules"] == "box" and kinds["track"] == "board" and kinds["mats"] == "mat"
    assert game.component("fluctuations").size == (44, 63)  # mini cards


def test_two_stacks_by_back_colour(game: Game) -> None:
    arts = items(game, "artifacts")
    assert Counter(i.get("back_colour") for i in arts for _ in range(i.copies)) == {"teal": 50, "violet": 50}
    assert {(i.get("stack"), i.get("back_colour")) for i in arts} == {("I", "teal"), ("II", "violet")}


def test_short_game_sets_2_3_3_3(game: Game) -> None:
    sets = Counter(i.get("set") for i in items(game, "artifacts") for _ in range(i.copies) if i.get("set"))
    assert sets == {1: 2, 2: 3, 3: 3, 4: 3}
    # every set copy is a copy of an artifact that also exists without a set number
    names = {i.get("name") for i in items(game, "artifacts") if not i.get("set")}
    assert {i.get("name") for i in items(game, "artifacts") if i.get("set")} <= names


def test_twenty_artifacts_five_copies_colour_symbols(game: Game) -> None:
    by_name = Counter(i.get("name") for i in items(game, "artifacts") for _ in range(i.copies))
    assert len(by_name) == 20 and set(by_name.values()) == {5}
    icons = template("style")["icons"]
    for colour in ("yellow", "red", "blue", "green"):
        assert f"art-{colour}" in icons  # colour is never the only carrier
    for p in PLAYERS:
        assert f"player-{p.lower()}" in icons


def test_at_most_one_bonus_kind_per_artifact(game: Game) -> None:
    """The template draws one or two bonus icons of one kind in the top row."""
    for it in items(game, "artifacts"):
        bonus = [it.get(f) for f in ("bonus_batteries", "bonus_computers", "bonus_breaks", "bonus_crystals")]
        assert sum(1 for b in bonus if b) <= 1 and max(bonus) <= 2, it.id


def test_token_splits(game: Game) -> None:
    assert {i.get("value"): i.copies for i in items(game, "batteries")} == {1: 50, 3: 20, 5: 10}
    assert {i.get("sides"): i.copies for i in items(game, "computers")} == {6: 30, 8: 18, 12: 12}
    # the starting supply fits a 4-player setup: 4 x (6 batteries-1 + 2 computers-6)
    caps = items(game, "capsules")
    assert sum(c.get("setup_batteries") for c in caps) == 4 * 6 <= pieces(game, "batteries", value=1)
    assert sum(c.get("setup_computers") for c in caps) == 4 * 2 <= pieces(game, "computers", sides=6)


def test_capsules_four_colours_by_four_numbers(game: Game) -> None:
    caps = items(game, "capsules")
    assert sorted((c.get("colour"), c.get("number")) for c in caps) == sorted(
        (p, n) for p in PLAYERS for n in (1, 2, 3, 4))
    assert {m.get("colour") for m in items(game, "mats")} == set(PLAYERS)


def test_bill_of_materials(game: Game) -> None:
    manifest = game_json(GAME, "game.json")
    bom = {b["name"]: b["quantity"] for b in manifest["not_printed"]}
    dice = next(q for n, q in bom.items() if n.startswith("Dice"))
    counts = {int(k): int(v) for v, k in re.findall(r"(\d+) d(\d+)", dice)}
    assert counts == {6: 12, 8: 8, 12: 6} and sum(counts.values()) == 26
    assert any(n.startswith("Bags") and q.startswith("4") for n, q in bom.items())
    assert any(n.startswith("Scoring pawns") and q.startswith("4") for n, q in bom.items())
    assert any(n.startswith("Round pawn") and q == "1" for n, q in bom.items())


# -- the named artifacts and fluctuation cards ------------------------------------------------------

def one(game: Game, comp: str, name: str) -> Any:
    found = [i for i in items(game, comp) if i.get("name") == name]
    assert len(found) == 1, (name, [i.id for i in found])
    assert found[0].provenance.kind == "document"
    return found[0]


def test_named_artifacts_carry_the_documents_numbers(game: Game) -> None:
    md = one(game, "artifacts", "Microfusion Device")
    assert (md.get("cost"), md.get("cost_type"), md.get("vp"), md.get("colour")) == (12, "qubits", 3, "yellow")
    assert md.copies >= 2  # "buy another Microfusion Device"
    assert md.get("ability") == "If you have 2 yellow artifacts: buy an artifact worth 7 or less energy for free"
    rd = one(game, "artifacts", "Recon Drone")
    assert (rd.get("cost"), rd.get("cost_type"), rd.get("vp"), rd.get("bonus_crystals")) == (7, "energy", 4, 1)
    assert rd.get("cost") <= 7  # the Microfusion Device buys it for free
    assert rd.get("ability", document=True).endswith("from the top of your deck into your inactive zone")
    assert rd.get("ability") == ("If you have 2 yellow artifacts: put an artifact from the top of an artifact stack "
                                 "into your inactive zone")  # erratum
    kb = one(game, "artifacts", "Knowledge Base")
    assert kb.get("cost") == 7 and kb.get("ability") == "Receive a break, an upgrade and a fluctuation card"
    cp = one(game, "artifacts", "Capsule Programmer")
    assert cp.get("cost") == 6
    assert cp.get("ability", document=True) == "Pay 4 orbits removes 2 breaks"
    assert cp.get("ability") == "Pay 4 qubits: remove 2 breaks"  # erratum, visible in game.json
    na = [i for i in items(game, "artifacts") if i.get("name") == "Nanoassembler"]
    assert {i.get("colour") for i in na} == {"yellow"}
    assert {i.get("ability") for i in na} == {"If you have 2 yellow artifacts: receive a computer-8"}
    cs = one(game, "artifacts", "Crystal Synthesizer")
    assert "remove 6 breaks" in cs.get("ability").lower()
    # a designed field of a named artifact is declared as designed
    assert "cost_type" in kb.get("designed_fields") and "cost" not in kb.get("designed_fields")


def test_colour_abilities_count_the_artifact_itself(game: Game) -> None:
    for it in items(game, "artifacts"):
        m = re.search(r"2 (\w+) artifacts", it.get("ability"))
        if m:
            assert it.get("colour") == m.group(1), it.id


def test_named_fluctuation_cards(game: Game) -> None:
    fb = one(game, "fluctuations", "Infinite Feedback")
    assert fb.get("cost") == 1
    # the turn example: a computer-8 showing 5 plus batteries 3 + 1 spent on it reaches 13
    assert 5 + (3 + 1) * 2 == 13 and "2 qubits" in fb.get("effect")
    tl = one(game, "fluctuations", "Time Loop")
    assert tl.get("effect").startswith("Repeat the ability of an artifact you already used this turn")
    portal = one(game, "fluctuations", "Portal into unconsciousness")
    assert portal.get("designed_fields") == ["cost", "effect", "copies"]
    assert all(0 <= i.get("cost") <= 3 for i in items(game, "fluctuations"))


def test_bioobjects_have_two_rewards(game: Game) -> None:
    for b in items(game, "bioobjects"):
        assert b.get("active_reward") and b.get("inactive_reward")
        assert b.get("active_reward") != b.get("inactive_reward")


# -- the capsule box net ---------------------------------------------------------------------------------

Pt = tuple[float, float]
V3 = tuple[float, float, float]
# hinge: fold line id -> (parent piece, child piece); the base stays on the table
HINGES = {
    "fold-base-back": ("face-base", "face-back"), "fold-base-front": ("face-base", "face-front"),
    "fold-base-left": ("face-base", "face-left"), "fold-base-right": ("face-base", "face-right"),
    "fold-back-lid": ("face-back", "face-lid"), "fold-lid-tuck": ("face-lid", "flap-tuck"),
    "fold-lid-dust-left": ("face-lid", "flap-dust-left"), "fold-lid-dust-right": ("face-lid", "flap-dust-right"),
    "fold-left-tab-left-back": ("face-left", "tab-left-back"),
    "fold-left-tab-left-front": ("face-left", "tab-left-front"),
    "fold-right-tab-right-back": ("face-right", "tab-right-back"),
    "fold-right-tab-right-front": ("face-right", "tab-right-front"),
}


@pytest.fixture(scope="module")
def net() -> dict[str, Any]:
    tpl = template("capsule")
    els = {e["id"]: e for e in tpl["elements"] if "id" in e}
    polys = {k: [tuple(p) for p in e["points"]] for k, e in els.items()
             if e["type"] == "polygon" and k.startswith(("face-", "flap-", "tab-"))}
    folds = {k: (tuple(e["from"]), tuple(e["to"])) for k, e in els.items() if e["type"] == "line"}
    return {"tpl": tpl, "els": els, "polys": polys, "folds": folds, "cut": [tuple(p) for p in els["cut"]["points"]]}


def edges(poly: list[Pt]) -> list[tuple[Pt, Pt]]:
    return list(zip(poly, poly[1:] + poly[:1], strict=True))


def same(a: Pt, b: Pt) -> bool:
    return math.dist(a, b) < 1e-6


def has_edge(poly: list[Pt], seg: tuple[Pt, Pt]) -> bool:
    return any((same(p, seg[0]) and same(q, seg[1])) or (same(p, seg[1]) and same(q, seg[0])) for p, q in edges(poly))


def area(poly: list[Pt]) -> float:
    return abs(sum(p[0] * q[1] - q[0] * p[1] for p, q in edges(poly))) / 2


def test_net_pieces_and_folds(net: dict[str, Any]) -> None:
    assert set(net["folds"]) == set(HINGES)
    assert set(net["polys"]) == {p for h in HINGES.values() for p in h}
    for fid, (a, b) in HINGES.items():
        seg = net["folds"][fid]
        # the fold joins two equal edges: the same segment is an edge of both pieces
        assert has_edge(net["polys"][a], seg), (fid, a)
        assert has_edge(net["polys"][b], seg), (fid, b)
    for fid in HINGES:
        assert net["els"][fid].get("dash"), f"{fid} is not dashed"
    assert "dash" not in net["els"]["cut"] and net["els"]["cut"]["fill"] == "none"


def test_net_outline_is_the_cut(net: dict[str, Any]) -> None:
    """The solid outline encloses every piece exactly: its area is the pieces' areas added up, every
    piece corner off a fold lies on it, and the whole net fits the component's size."""
    cut = net["cut"]
    assert abs(area(cut) - sum(area(p) for p in net["polys"].values())) < 1e-3
    fold_pts = {p for seg in net["folds"].values() for p in seg}
    for name, poly in net["polys"].items():
        for p in poly:
            assert any(same(p, c) for c in cut) or any(same(p, f) for f in fold_pts), (name, p)
    w, h = net["tpl"]["size"]
    assert all(0 < x < w and 0 < y < h for x, y in cut)


def test_tabs_are_shaded_and_labelled(net: dict[str, Any]) -> None:
    labels = [e for e in net["tpl"]["elements"] if e["type"] == "text" and e["text"].lower() == "glue"]
    for name in (n for n in net["polys"] if n.startswith("tab-")):
        assert net["els"][name]["fill"] == "glue"
        xs = [p[0] for p in net["polys"][name]]
        ys = [p[1] for p in net["polys"][name]]
        assert any(min(xs) <= e["box"][0] and e["box"][0] + e["box"][2] <= max(xs)
                   and min(ys) <= e["box"][1] and e["box"][1] + e["box"][3] <= max(ys) for e in labels), name


def _rotate(p: V3, a: V3, u: V3, ang: float) -> V3:
    """Rotate point p about the axis through a with unit direction u (Rodrigues)."""
    v = (p[0] - a[0], p[1] - a[1], p[2] - a[2])
    c, s = math.cos(ang), math.sin(ang)
    dot = u[0] * v[0] + u[1] * v[1] + u[2] * v[2]
    cross = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
    return tuple(a[i] + v[i] * c + cross[i] * s + u[i] * dot * (1 - c) for i in range(3))  # type: ignore[return-value]


def fold_net(net: dict[str, Any]) -> dict[str, list[V3]]:
    """Fold every hinge 90 degrees towards the unprinted side (+z in the net's own frame: the printed
    side stays outside), children before parents so that each rotation happens in the parent's frame."""
    parent = {child: (fid, par) for fid, (par, child) in HINGES.items()}
    pos: dict[str, list[V3]] = {k: [(x, y, 0.0) for x, y in poly] for k, poly in net["polys"].items()}

    def subtree(piece: str) -> list[str]:
        out = [piece]
        for c, (_, p) in parent.items():
            if p == piece:
                out += subtree(c)
        return out

    def depth(piece: str) -> int:
        return 0 if piece not in parent else 1 + depth(parent[piece][1])

    for child in sorted(parent, key=depth, reverse=True):
        fid = parent[child][0]
        (ax, ay), (bx, by) = net["folds"][fid]
        a: V3 = (ax, ay, 0.0)
        length = math.dist((ax, ay), (bx, by))
        u: V3 = ((bx - ax) / length, (by - ay) / length, 0.0)
        cx = sum(p[0] for p in pos[child]) / len(pos[child])
        cy = sum(p[1] for p in pos[child]) / len(pos[child])
        ang = math.pi / 2
        if _rotate((cx, cy, 0.0), a, u, ang)[2] < 0:
            ang = -ang
        for piece in subtree(child):
            pos[piece] = [_rotate(p, a, u, ang) for p in pos[piece]]
    return pos


def test_net_folds_into_a_closed_box(net: dict[str, Any], game: Game) -> None:
    base = net["polys"]["face-base"]
    x0, y0 = min(p[0] for p in base), min(p[1] for p in base)
    w = max(p[0] for p in base) - x0
    d = max(p[1] for p in base) - y0
    pos = {k: [(x - x0, y - y0, z) for x, y, z in pts] for k, pts in fold_net(net).items()}
    h = max(p[2] for pts in pos.values() for p in pts)

    def box(pts: list[V3]) -> tuple[tuple[float, float], ...]:
        return tuple((round(min(p[i] for p in pts), 6), round(max(p[i] for p in pts), 6)) for i in range(3))

    # each of the six faces of the box [0, w] x [0, d] x [0, h] is covered by exactly one panel
    want = {"face-base": ((0, w), (0, d), (0, 0)), "face-lid": ((0, w), (0, d), (h, h)),
            "face-back": ((0, w), (0, 0), (0, h)), "face-front": ((0, w), (d, d), (0, h)),
            "face-left": ((0, 0), (0, d), (0, h)), "face-right": ((w, w), (0, d), (0, h))}
    for name, b in want.items():
        assert box(pos[name]) == tuple((round(lo, 6), round(hi, 6)) for lo, hi in b), name
    # flaps and tabs end up inside, flat against the wall they tuck into or are glued to
    inside_on = {"flap-tuck": (1, d), "flap-dust-left": (0, 0), "flap-dust-right": (0, w),
                 "tab-left-back": (1, 0), "tab-right-back": (1, 0), "tab-left-front": (1, d), "tab-right-front": (1, d)}
    for name, (axis, value) in inside_on.items():
        pts = pos[name]
        assert all(abs(p[axis] - value) < EPS for p in pts), name
        assert all(-EPS <= p[0] <= w + EPS and -EPS <= p[1] <= d + EPS and -EPS <= p[2] <= h + EPS for p in pts), name
    # the tabs sit on the side walls' ends and reach at most halfway along the front and back walls
    for name in ("tab-left-back", "tab-left-front"):
        assert max(p[0] for p in pos[name]) <= w / 2
    for name in ("tab-right-back", "tab-right-front"):
        assert min(p[0] for p in pos[name]) >= w / 2
    # the stated inner size, and room for 7 objects
    for cap in items(game, "capsules"):
        assert (cap.get("inner_width"), cap.get("inner_depth"), cap.get("inner_height")) == (
            pytest.approx(w), pytest.approx(d), pytest.approx(h))
        assert cap.get("capacity") * cap.get("piece_thickness") <= h
        assert cap.get("piece_size") < min(w, d)
    assert game.component("artifacts").size == (40, 40) and game.component("batteries").size == (20, 20)


# -- the board and the solo card agree with their data ------------------------------------------------

def test_board_special_spaces_match_data(game: Game) -> None:
    board = items(game, "track")[0]
    tpl = template("board")
    vp = next(e for e in tpl["elements"] if e.get("id") == "vp-track")
    assert vp["closed"] is True and vp["first"] == "{vp_first}" and vp["last"] == "{vp_last}"
    conds: dict[str, list[int]] = {}
    for e in vp["elements"]:
        w = e.get("when", {})
        if e.get("type") == "icon" and e.get("name") in ("break", "fluctuation") and "in" in w:
            conds[e["name"]] = w["in"]
    assert conds["break"] == [int(v) for v in board.get("break_spaces")]
    assert conds["fluctuation"] == [int(v) for v in board.get("fluctuation_spaces")]
    assert not set(conds["break"]) & set(conds["fluctuation"])
    assert all(0 < v < 80 for v in conds["break"] + conds["fluctuation"])
    assert not {25, 40, 55} & set(conds["break"] + conds["fluctuation"])
    # the turn example: +3 VPs passes a break space; +4 more stops on one and passes a fluctuation space
    s = 10
    assert any(v in conds["break"] for v in range(s + 1, s + 4))
    assert s + 7 in conds["break"] and any(v in conds["fluctuation"] for v in range(s + 4, s + 7))
    assert sum(v in conds["break"] for v in range(s + 4, s + 8)) == 1


def test_solo_card_maps_every_die_face_once_per_side(game: Game) -> None:
    solo = items(game, "solo")[0]
    for side in ("early", "late"):
        faces = Counter()
        for row in ("i", "ii"):
            for pos in (1, 2, 3):
                v = solo.get(f"{side}_{row}{pos}")
                if v:
                    lo, _, hi = v.partition("-")
                    faces.update(range(int(lo), int(hi or lo) + 1))
        assert faces == {n: 1 for n in range(1, 7)}, side
    assert {solo.get("early_i1"), solo.get("early_ii1")} == {"1-2", "4-5"}  # the document's example


@pytest.fixture(scope="module")
def checked(bundled: Bundled) -> GameCheck:
    return bundled.checked(GAME)


def test_board_layout_shows_the_loop_and_rounds(checked: GameCheck) -> None:
    plan = next(p for p in checked.plans if p.component.id == "track")
    texts = [t for t in plan.fronts[0].primitives if isinstance(t, Text) and t.font == "Comfortaa-Bold"]
    numbers = Counter(t.text for t in texts if t.text.isdigit() or t.text == "0/80")
    assert numbers["0/80"] == 1
    assert all(numbers[str(v)] >= 1 for v in range(1, 80))
    assert not numbers["80"]  # 80 shares the first space with 0
    size = {t.text: t.size for t in texts if t.text.isdigit()}
    assert size["10"] > size["79"]  # round spaces are drawn larger than VP spaces
    plan = next(p for p in checked.plans if p.component.id == "mats")
    assert plan.grid is None  # 300 mm wide: tiled over pages by the engine
    assert plan.fronts[0].width == pytest.approx(300 * MM)


# -- the capsule's bleed and its sheets (issue 20) ----------------------------------------------------

def test_every_printed_piece_of_the_net_bleeds_3_mm(net: dict[str, Any]) -> None:
    """Each face, flap and tab is drawn first (before any piece) as its own polygon stroked 6 mm wide in
    its own colour: with round joins its colour reaches 3 mm past every edge, so past the cut outline;
    that bleed stays inside the piece and clear of the instructions beside the net."""
    els = net["tpl"]["elements"]
    order = {e.get("id"): i for i, e in enumerate(els)}
    for name, poly in net["polys"].items():
        bleed = net["els"][f"bleed-{name}"]
        assert [tuple(p) for p in bleed["points"]] == poly, name
        assert bleed["stroke"] == bleed["fill"] == net["els"][name]["fill"], name
        assert bleed["stroke_width"] / 2 >= 3 * MM - 1e-3, name
        assert order[f"bleed-{name}"] < min(order[n] for n in net["polys"]), name
    cut = net["cut"]
    w, h = net["tpl"]["size"]
    x0, x1 = min(x for x, _ in cut), max(x for x, _ in cut)
    y0, y1 = min(y for _, y in cut), max(y for _, y in cut)
    assert x0 >= 3 and y0 >= 3 and x1 + 3 <= w and y1 + 3 <= h
    # the instructions beside the net start beyond the bleed of every piece at their height
    beside = [e for e in els if "box" in e and e["box"][0] >= x1 - 10 and e["type"] in ("text", "richtext", "rect")]
    assert len(beside) >= 8
    for e in beside:
        bx, by, _, bh = e["box"]
        near = [max(x for x, _ in poly) for poly in net["polys"].values()
                if min(y for _, y in poly) - 3 < by + bh and max(y for _, y in poly) + 3 > by]
        assert near and bx >= max(near) + 3, e["box"]


@pytest.mark.parametrize("paper", ["letter", "a4", "universal"])
def test_four_nets_to_a_sheet_on_every_paper(bundled: Bundled, paper: str) -> None:
    from pnp.plan.options import BuildOptions

    gc = bundled.checked(GAME, BuildOptions(paper=paper))
    plan = next(p for p in gc.plans if p.component.id == "capsules")
    assert plan.grid is not None and plan.grid.cols * plan.grid.rows == 4, paper


@pytest.mark.parametrize("ink_saver", [False, True])
def test_the_bleed_is_the_faces_own_colour_also_with_ink_saver(bundled: Bundled, ink_saver: bool) -> None:
    """Laid out, each 17 pt bleed stroke is exactly its fill's colour, and with --ink-saver that is
    the face's light colour (the same fill as the face drawn on top of it), not the normal one."""
    from pnp.layout.primitives import Path
    from pnp.plan.options import BuildOptions

    gc = bundled.checked(GAME, BuildOptions(ink_saver=ink_saver))
    plan = next(p for p in gc.plans if p.component.id == "capsules")
    prims = plan.fronts[0].primitives
    bleeds = [p for p in prims if isinstance(p, Path) and p.paint.stroke_width > 17]
    assert len(bleeds) == 13
    assert all(p.paint.stroke == p.paint.fill for p in bleeds)
    fills = {p.paint.fill for p in prims if isinstance(p, Path) and p.paint.stroke is None}
    assert {p.paint.stroke for p in bleeds} <= fills
    normal = bundled.checked(GAME).plans
    normal_fills = {p.paint.fill for p in next(q for q in normal if q.component.id == "capsules").fronts[0].primitives
                    if isinstance(p, Path) and p.paint.stroke_width > 17}
    assert ({p.paint.stroke for p in bleeds} == normal_fills) != ink_saver
