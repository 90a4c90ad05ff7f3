"""Cauldron: the published counts (seven decks, 44 hex Fields, 132 Ingredient tokens, 7 characters
and tokens, 10 Used tokens, 5 d6), the named cards' documented content, the Cobweb / Spider Web
erratum, the Fields' hexagon geometry read back from the layout primitives, the purchase costs as
printed, and the Magik track template against its data. What every bundled game must do (rules
passing, quotes found, glyphs present, mutations caught, the build read back) is in test_games.py."""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any

import pytest
from conftest import Bundled, game_json, rulebook_text, template_json

from pnp.layout.primitives import Path as PathPrim
from pnp.layout.primitives import Text
from pnp.plan import component
from pnp.qa import check
from pnp.units import MM

GAME = "cauldron"
MANIFEST = game_json(GAME, "game.json")
ING = ["Frog Legs", "Toadstool", "Cobweb", "Mandrake Root", "Blood Crystal", "Dragon Egg", "Snake Skin"]
RARE = ING[3:]


def data(name: str) -> dict[str, Any]:
    return game_json(GAME, f"{name}.json")


def template(name: str) -> dict[str, Any]:
    return template_json(GAME, name)


@pytest.fixture(scope="module")
def checked(bundled: Bundled) -> check.GameCheck:
    return bundled.checked(GAME)


def plan(checked: check.GameCheck, cid: str) -> component.ComponentPlan:
    return next(p for p in checked.plans if p.component.id == cid)


def printed(prims: Any) -> str:
    """The words a piece prints, in drawing order, one space apart."""
    return re.sub(r"\s+", " ", " ".join(p.text for p in prims if isinstance(p, Text))).strip()


def items_of(checked: check.GameCheck, cid: str) -> dict[str, Any]:
    return {it.id: it for it in plan(checked, cid).component.items}


# -- counts -----------------------------------------------------------------------------------------

def test_published_counts(checked: check.GameCheck) -> None:
    pieces = {p.component.id: len(p.fronts) for p in checked.plans}
    assert pieces == {"omens": 46, "basic-potions": 35, "advanced-potions": 22, "basic-spells": 50,
                      "advanced-spells": 37, "cellars": 12, "characters": 7, "fields": 44, "ingredients": 132,
                      "character-tokens": 7, "magik-track": 1, "used-tokens": 10, "reference": 1}
    game = checked.game
    easy = [it for it in game.component("basic-potions").items if it.get("easy")]
    assert sum(it.copies for it in easy) == 6
    fields = Counter({it.get("ingredient"): it.copies for it in game.component("fields").items})
    assert fields == {i: 5 if i in RARE else 8 for i in ING}
    tokens = Counter({it.get("ingredient"): it.copies for it in game.component("ingredients").items})
    assert tokens == {i: 15 if i in RARE else 24 for i in ING}
    dice = [n for n in game.not_printed if "d6" in n.name]
    assert len(dice) == 1 and dice[0].quantity.startswith("5")
    assert MANIFEST["players"] == {"min": 2, "max": 5}


def test_every_card_has_a_back_and_decks_repeat_cards() -> None:
    cards = [c for c in MANIFEST["components"] if c["kind"] == "card"]
    assert len(cards) == 8 and all("back" in c for c in cards)  # seven decks + the reference card
    assert len({c["back"] for c in cards}) == 8
    for deck in ("omens", "basic-spells", "advanced-spells", "basic-potions", "advanced-potions"):
        assert any(it.get("copies", 1) > 1 for it in data(deck)["items"]), deck


# -- the named cards --------------------------------------------------------------------------------

def test_named_cards_carry_their_documented_content(checked: check.GameCheck) -> None:
    game = checked.game
    oil = next(it for it in game.component("basic-potions").items if it.get("name") == "Oil of Earthquakes")
    assert oil.get("ingredients") == ["Cobweb", "Cobweb", "Cobweb", "Dragon Egg"]
    assert (oil.get("magik"), oil.get("quick"), oil.get("any"), oil.provenance.kind) == (6, True, None, "document")
    sight = next(it for it in game.component("advanced-potions").items if it.get("name") == "Potion of Piercing Sight")
    assert (sight.get("magik"), sight.get("spell"), sight.get("any")) == (7, True, 1)
    assert sight.provenance.kind == "designed" and "anatomy diagram" in sight.provenance.text
    fizzle = next(it for it in game.component("basic-spells").items if it.get("name") == "Fizzle")
    assert fizzle.get("instant") is True and fizzle.get("text") == "Cancel the effect of the last Spell played."
    dome = next(it for it in game.component("advanced-spells").items if it.get("name") == "Magik Dome")
    assert dome.get("instant") is True
    assert "No further Spells may be cast for the rest of the season" in dome.get("text")
    assert "cannot be cancelled" in dome.get("text")
    chars = {it.get("name"): it for it in game.component("characters").items}
    assert sorted(chars) == sorted(f"The {n}" for n in
                                   ("Alchemist", "Druid", "Shaman", "Occulist", "Trickster", "Witch", "Wizard"))
    witch = chars["The Witch"]
    assert (witch.get("ability1_name"), witch.get("ability1_use")) == ("Little Helpers", "Replaces Harvest")
    assert "two available Ingredient Tokens" in witch.get("ability1_text")
    assert witch.provenance.kind == "document"
    assert all(it.provenance.kind == "designed" for n, it in chars.items() if n != "The Witch")


def test_cobweb_tile_prints_cobweb_through_the_erratum(checked: check.GameCheck) -> None:
    cobweb = items_of(checked, "fields")["cobweb"]
    assert cobweb.get("name", document=True) == "Spider Web"
    assert cobweb.get("name") == "Cobweb" and cobweb.errata == ("spider-web-field",)
    p = plan(checked, "fields")
    i = [it.id for it in p.component.items for _ in range(it.copies)].index("cobweb")
    words = printed(p.fronts[i].primitives)
    assert "Cobweb" in words and "Spider" not in words


def test_potion_yields_follow_one_formula() -> None:
    for deck in ("basic-potions", "advanced-potions"):
        for it in data(deck)["items"]:
            ings, anyn = it["ingredients"], it.get("any", 0)
            n = len(ings) + anyn
            want = sum(2 if i in RARE else 1 for i in ings) + anyn + max(0, n - 3) - (1 if it.get("spell") else 0)
            assert it["magik"] == want, it["name"]


# -- hex geometry -----------------------------------------------------------------------------------

def _hexagons(prims: Any) -> list[list[tuple[float, float]]]:
    out = []
    for p in prims:
        if isinstance(p, PathPrim) and [o for o, _ in p.ops] == ["M", "L", "L", "L", "L", "L", "Z"]:
            out.append([(xy[0] / MM, xy[1] / MM) for _, xy in p.ops[:6]])
    return out


def test_fields_are_regular_hexagons_of_the_stated_size(checked: check.GameCheck) -> None:
    p = plan(checked, "fields")
    across = {it.get("across_flats") for it in p.component.items}
    assert across == {50}
    w, h = p.component.size
    assert abs(w - 50) < 0.01 and abs(h - 50 * 2 / math.sqrt(3)) < 0.01
    for piece in {id(f): f for f in p.fronts}.values():
        # the hexagons drawn by `hex` elements: centred on the piece (icon drawings are not)
        hexes = [pts for pts in _hexagons(piece.primitives)
                 if abs(sum(x for x, _ in pts) / 6 - w / 2) < 0.01 and abs(sum(y for _, y in pts) / 6 - h / 2) < 0.01]
        assert len(hexes) == 4  # bleed ground, two inner borders, cut outline
        for pts in hexes:
            sides = [math.dist(pts[i], pts[(i + 1) % 6]) for i in range(6)]
            assert max(sides) - min(sides) < 0.01, sides
            angles = [math.degrees(math.atan2(pts[(i + 1) % 6][1] - pts[i][1], pts[(i + 1) % 6][0] - pts[i][0]))
                      for i in range(6)]
            turns = [(angles[(i + 1) % 6] - angles[i]) % 360 for i in range(6)]
            assert all(abs(t - turns[0]) < 0.01 for t in turns), turns
            assert abs(min(turns[0], 360 - turns[0]) - 60) < 0.01  # every inside angle 120 degrees
        across_flats = sorted(min(sides_apart(pts)) for pts in hexes)
        bleed = piece.bleed / MM
        assert any(abs(a - 50) < 0.01 for a in across_flats), across_flats  # the trim: the stated size
        assert abs(across_flats[-1] - (50 + 2 * bleed)) < 0.01  # the bleed: grown by the bleed on every side


def sides_apart(pts: list[tuple[float, float]]) -> list[float]:
    """Distances between the three pairs of opposite sides (point-to-line distance)."""
    out = []
    for i in range(3):
        (x1, y1), (x2, y2) = pts[i], pts[(i + 1) % 6]
        px, py = pts[i + 3]
        out.append(abs((x2 - x1) * (y1 - py) - (x1 - px) * (y2 - y1)) / math.dist((x1, y1), (x2, y2)))
    return out


# -- icons and colours ------------------------------------------------------------------------------

def test_field_and_token_show_the_same_icon(checked: check.GameCheck) -> None:
    style = template("style")
    for name in ING:
        icon = style["icons"]["ing-" + name.lower().replace(" ", "-")]
        assert icon["shapes"][0]["fill"] == style["palettes"]["ingredient"][name]
    assert "ing-any" in style["icons"]
    fields, tokens = plan(checked, "fields"), plan(checked, "ingredients")

    def icon_fills(pl: component.ComponentPlan, ingredient: str) -> list[str | None]:
        i = [it.get("ingredient") for it in pl.component.items for _ in range(it.copies)].index(ingredient)
        return [p.paint.fill for p in pl.fronts[i].primitives if hasattr(p, "paint")]

    for name in ING:
        disc = style["palettes"]["ingredient"][name]
        icon_colours = [s.get("fill") for s in style["icons"]["ing-" + name.lower().replace(" ", "-")]["shapes"]]
        for pl in (fields, tokens):
            fills = icon_fills(pl, name)
            assert disc in fills
            # the icon's own colours appear in order at the end of the piece's fills
            assert all(c in fills for c in icon_colours if c and c.startswith("#"))


# -- costs as printed -------------------------------------------------------------------------------

DOC_COSTS = ["Cellars: 1st Cellar \u2013 3M, 2nd cellar \u2013 4M",
             "Field \u2013 3M (and take a corresponding ingredient)",
             "Basic Spell \u2013 1M", "Advanced Spell \u2013 3M",
             "Basic Potion \u2013 Cost equal to current number of Basic Potions",
             "Advanced Potion \u2013 Cost equal to current number of all Potions + 2"]


def test_reference_card_prints_the_costs_as_the_document_gives_them(checked: check.GameCheck) -> None:
    text = rulebook_text(GAME)
    if text is not None:
        doc = re.sub(r"\s+", " ", text)
        assert all(c in doc for c in DOC_COSTS)
    back = printed(plan(checked, "reference").backs[0].primitives)
    for cost in DOC_COSTS:
        assert cost in back, cost
    assert "first player to reach 35 Magik" in back


def test_character_backs_agree_with_the_reference_costs(checked: check.GameCheck) -> None:
    ref = data("reference")["items"][0]
    back = printed(plan(checked, "characters").backs[0].primitives)
    for phrase in (f"Field {ref['field_cost']}M", f"Basic Spell {ref['basic_spell_cost']}M",
                   f"Advanced Spell {ref['advanced_spell_cost']}M",
                   f"all your Potions + {ref['advanced_potion_extra']}",
                   f"Cellar {ref['first_cellar_cost']}M, second cellar {ref['second_cellar_cost']}M",
                   f"{ref['win']} Magik wins"):
        assert phrase in back, phrase


# -- the Magik track --------------------------------------------------------------------------------

def test_track_template_follows_its_data(checked: check.GameCheck) -> None:
    track = data("magik-track")["items"][0]
    el = next(e for e in template("magik-track")["elements"] if e["type"] == "track")
    zones = [e["when"] for e in el["elements"] if "when" in e]
    assert {z.get("max") for z in zones} - {None} == {track["enthusiasm_max"]}
    assert {z.get("min") for z in zones} - {None} == {track["alchemy_min"]}
    assert (el["first"], el["last"]) == ("{first}", "{last}")
    words = printed(plan(checked, "magik-track").fronts[0].primitives).split()
    # one on the Start space, one on the Start pad beside it and one in each of its five spots
    assert words.count("START") == 1 + 1 + 5 and words.count("WIN!") == 1
    numbers = [w for w in words if w.isdigit()]
    for v in range(track["first"], track["last"] + 1):
        assert str(v) in numbers
    effects = [(track[f"fx{k}_space"], track[f"fx{k}_name"]) for k in range(1, 11)]
    assert len({s for s, _ in effects}) == 10 and ("Rituals of Power" in {n for _, n in effects})
    assert all(track["start"] < s < track["win"] for s, _ in effects)


def test_start_pad_holds_every_players_token() -> None:
    """The Start pad has a spot for each player's Character Token (issue 23), held by a fits rule."""
    rule = next(r for r in MANIFEST["rulebook"] if r["id"] == "character-tokens-fit-start")
    assert rule["row"] == MANIFEST["players"]["max"] == 5
    assert (rule["pieces"], rule["space"]) == ({"component": "character-tokens"},
                                               {"component": "magik-track", "element": "start-spaces"})
    pad = next(e for e in template("magik-track")["elements"] if e.get("id") == "start-spaces")
    assert pad["count"] == rule["row"]
