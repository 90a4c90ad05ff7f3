"""Every bundled game's rulebook catches mistakes in a copy of its data: one more copy of an item
fails every rule that states its component's piece count (in every game, found from the rulebook),
and each game's own table of mutations fails the rules it names, through the checker and, where
marked, through ``pnp check`` (exit 1, each rule listed as FAIL)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from conftest import GAMES, Bundled, assert_no_traceback, bundled_copy, game_json

from pnp.qa.rules import check_game

Mutate = Callable[[dict[str, Any]], Any]


# -- mutations: a broken count ------------------------------------------------------------------

def _pinned_counts() -> list[tuple[str, str, str, list[str]]]:
    """(game, component, data file, rules) for each component whose piece count an ``equal`` rule
    states outright (``{"pieces": {"component": C}}`` among its values)."""
    out = []
    for gid in GAMES:
        manifest = game_json(gid, "game.json")
        for comp in manifest["components"]:
            pinned = {"pieces": {"component": comp["id"]}}
            rules = [r["id"] for r in manifest["rulebook"] if r["check"] == "equal" and pinned in r["values"]]
            if rules:
                out.append((gid, comp["id"], comp["data"], rules))
    return out


PINNED = _pinned_counts()


@pytest.mark.parametrize("gid", GAMES)
def test_the_rulebook_pins_a_piece_count(gid: str) -> None:
    """Else the broken-count mutations below have nothing to break in this game."""
    assert any(p[0] == gid for p in PINNED)


def _one_more_copy(d: dict[str, Any]) -> None:
    d["items"][0]["copies"] = d["items"][0].get("copies", 1) + 1


@pytest.mark.parametrize("gid,cid,data,rules", PINNED, ids=[f"{p[0]}:{p[1]}" for p in PINNED])
def test_one_copy_more_fails_the_count_rules(tmp_path: Path, bundled: Bundled, gid: str, cid: str, data: str,
                                             rules: list[str]) -> None:
    """One more copy of the first item: every rule that states the component's piece count fails,
    expecting pieces(<component>) and finding one more."""
    pieces = bundled.game(gid).component(cid).pieces
    copy = bundled_copy(tmp_path, gid)
    copy.edit(data, _one_more_copy)
    failed = {o.rule.id: o for o in check_game(copy.load()).violations}
    manifest = {r["id"]: r for r in game_json(gid, "game.json")["rulebook"]}
    for rule in rules:
        assert rule in failed, (rule, sorted(failed))
        o = failed[rule]
        assert f"pieces({cid})" in o.expected, o.expected
        at = manifest[rule]["values"].index({"pieces": {"component": cid}})
        assert o.actual.split(" = ")[at] == str(pieces + 1), o.actual


FIRST_PINNED = {gid: next(p for p in PINNED if p[0] == gid) for gid in GAMES if any(p[0] == gid for p in PINNED)}


@pytest.mark.parametrize("gid", list(FIRST_PINNED))
def test_a_broken_count_makes_pnp_check_exit_1(tmp_path: Path, gid: str) -> None:
    _, cid, data, rules = FIRST_PINNED[gid]
    copy = bundled_copy(tmp_path, gid)
    copy.edit(data, _one_more_copy)
    result = copy.check()
    assert_no_traceback(result)
    assert result.exit_code == 1, result.stdout + result.stderr
    for rule in rules:
        block = result.stdout[result.stdout.index(f"FAIL {rule}:"):].splitlines()
        assert block[1].strip().startswith("expected:") and f"pieces({cid})" in block[1], block[:3]
        assert block[2].strip().startswith("actual:"), block[:3]


# -- mutations: each game's own ------------------------------------------------------------------

class Mutation(NamedTuple):
    file: str  # in card_data/<game>/
    mutate: Mutate
    rules: frozenset[str]  # the rules it fails
    exact: bool = False  # and no other rule
    cli: bool = False  # `pnp check` too: exit 1, each rule listed as FAIL


def mut(file: str, mutate: Mutate, *rules: str, exact: bool = False, cli: bool = False) -> Mutation:
    return Mutation(file, mutate, frozenset(rules), exact, cli)


def _by_id(d: dict[str, Any], item: str) -> dict[str, Any]:
    return next(i for i in d["items"] if i["id"] == item)


def set_item(item: str, **values: Any) -> Mutate:
    return lambda d: _by_id(d, item).update(values)


def set_first(**values: Any) -> Mutate:
    return lambda d: d["items"][0].update(values)


def drop(item: str) -> Mutate:
    return lambda d: d["items"].remove(_by_id(d, item))


def drop_at(index: int) -> Mutate:
    return lambda d: d["items"].pop(index)


def drop_field(item: str, field: str) -> Mutate:
    return lambda d: _by_id(d, item).pop(field)


def both(*fns: Mutate) -> Mutate:
    return lambda d: [f(d) for f in fns]


MISSPELT = ["Frog Leg", "Toadstool", "Cobweb", "Mandrake Root", "Blood Crystal"]
MUTATIONS: dict[str, dict[str, Mutation]] = {
    "capek-golems": {
        "game card removed": mut("game-deck.json", drop_at(7), "deck-54", "game-cards-39", "inquiry-colours-6",
                                 cli=True),
        "golem part removed": mut("golem-parts.json", drop_at(-1), "deck-54", "golem-parts-12",
                                  "golem-parts-six-parts", "golem-markers-20-per-player", cli=True),
        "gold 4": mut("game-deck.json", set_item("brain-surgery-c", gold=4), "gold-1-to-3", cli=True),
        "track gap": mut("track.json", set_item("left", last=7), "track-contiguous", "track-26-spaces", cli=True),
        "track ends at 24": mut("track.json", set_item("right", last=24), "track-ends-at-25", "track-26-spaces",
                                cli=True),
        "auction lots": mut("track.json", set_item("middle", auction_low=3), "auction-4-lots",
                            "auction-prices-descend", cli=True),
        "document example changed": mut("golem-parts.json", set_item("torso", set_b_inquiry="Brain Surgery"),
                                        "golem-parts-document-example", cli=True),
        "too many markers": mut("golem-parts.json", set_item("head", field_research=6),
                                "golem-markers-20-per-player", "golem-markers-40", "golem-markers-at-most-6",
                                cli=True),
        "gold 4, only that rule": mut("game-deck.json", set_item("parts-machining-a", gold=4), "gold-1-to-3",
                                      exact=True),
    },
    "cauldron": {
        "omen removed": mut("omens.json", drop("dry-spell"), "omens-46"),
        "easy potion unmarked, oil recipe changed": mut(
            "basic-potions.json",
            both(set_item("swamp-tonic", easy=False), set_item("oil-of-earthquakes", ingredients=["Cobweb",
                                                                                                  "Dragon Egg"])),
            "easy-potions-6", "oil-of-earthquakes", cli=True),
        "misspelt ingredient": mut("advanced-potions.json", set_item("grand-elixir", ingredients=MISSPELT),
                                   "advanced-potions-ingredients-exist"),
        "too few cobweb fields": mut("fields.json", set_item("cobweb", copies=5), "fields-44", "common-fields-8",
                                     "starting-fields-enough", "three-tokens-per-field", cli=True),
        "field of another size": mut("fields.json", set_item("dragon-egg", across_flats=45), "fields-one-size"),
        "token type missing": mut("ingredients.json", drop("snake-skin"), "ingredients-132", "rare-ingredients-15",
                                  "field-token-types"),
        "character token missing": mut("character-tokens.json", drop("witch"), "characters-7",
                                       "character-token-per-card"),
        "witch harvests one": mut("characters.json",
                                  set_item("witch", ability1_text="When you Harvest, take one Ingredient Token."),
                                  "witch-little-helpers"),
        "fizzle not instant": mut("basic-spells.json", set_item("fizzle", instant=False), "fizzle"),
        "track start, zones and rituals changed": mut(
            "magik-track.json", set_first(start=3, enthusiasm_max=12, alchemy_min=24, fx5_name="Rite of Power"),
            "track-start-2", "track-enthusiasm-10", "track-alchemy-25", "rituals-of-power", cli=True),
        "used tokens short": mut("used-tokens.json", set_item("used", copies=9), "used-tokens-10"),
        "costs changed": mut("reference.json", set_item("reference", field_cost=2, second_cellar_cost=5),
                             "cost-field-3", "cost-second-cellar-4", cli=True),
    },
    "cyberiad": {
        "card removed": mut("deck.json", drop("gnostotron"), "deck-total-78", "deck-machine-26", cli=True),
        "type changed": mut("deck.json", set_item("nothing-machine", type="Action"), "deck-type-from-tc",
                            "deck-machine-26", "deck-action-31", "deck-notation-only-on-cards-in-play", cli=True),
        "tc does not parse": mut("deck.json", set_item("altruizine", tc="A?"), "deck-tc-parses", "deck-cost-from-tc",
                                 cli=True),
        "sally fame changed": mut("deck.json", set_item("king-krool-the-hunter", fame="6", ft="6/0"),
                                  "deck-sally-values-as-printed", cli=True),
        "polypolice made a machine": mut("deck.json", set_item("polypolice-machine", type="Machine", tc="M2"),
                                         "deck-machine-names-are-machines", "deck-worth-cards-are-actions", cli=True),
        "copy added": mut("deck.json", set_item("spies", copies=2), "deck-total-78", "deck-one-copy-each", cli=True),
        "win threshold changed": mut("reference.json", set_first(win_fame=40), "reference-win-50-fame",
                                     "fame-supply-4-players", cli=True),
        "hand limit changed": mut("reference.json", set_first(hand_limit=7), "reference-hand-limit-10", cli=True),
    },
    "time-capsules": {
        "artifact removed": mut("artifacts.json", drop("rift-cannon"), "artifacts-100", "artifacts-two-stacks",
                                "artifacts-four-colours", exact=True),
        "microfusion cost": mut("artifacts.json", set_item("microfusion-device", cost=11), "microfusion-device",
                                "artifacts-values-in-quotes", exact=True),
        "microfusion one copy": mut("artifacts.json", set_item("microfusion-device", copies=1), "microfusion-device",
                                    "artifacts-100", "artifacts-two-stacks", "artifacts-four-colours",
                                    "artifacts-5-copies", "named-artifacts-present", exact=True),
        "recon drone vp": mut("artifacts.json", set_item("recon-drone", vp=3), "recon-drone",
                              "artifacts-values-in-quotes", exact=True),
        "knowledge base cost": mut("artifacts.json", set_item("knowledge-base", cost=8), "knowledge-base",
                                   "artifacts-values-in-quotes", exact=True),
        "set number dropped": mut("artifacts.json", drop_field("quantum-lens-set1", "set"), "short-game-set-1",
                                  "short-game-four-sets", exact=True),
        "back colour": mut("artifacts.json", set_item("rift-cannon", back_colour="teal"), "artifacts-two-stacks",
                           "artifacts-stack-back-colour", "artifacts-back-colour-stack", exact=True),
        "colour condition": mut("artifacts.json", set_item("spore-archive", colour="blue"),
                                "artifacts-colour-condition-counts-itself", "artifacts-four-colours", exact=True),
        "infinite feedback cost": mut("fluctuations.json", set_item("infinite-feedback", cost=2), "infinite-feedback",
                                      exact=True),
        "time loop removed": mut("fluctuations.json", drop("time-loop"), "fluctuations-36",
                                 "named-fluctuations-present", exact=True),
        "bioobjects": mut("bioobjects.json", set_item("star-seed", copies=3), "bioobjects-20", exact=True),
        "batteries": mut("batteries.json", set_item("battery-5", copies=9), "batteries-80", exact=True),
        "battery supply": mut("batteries.json", both(set_item("battery-1", copies=20),
                                                     set_item("battery-3", copies=50)),
                              "supply-batteries-1", exact=True),
        "computer supply": mut("computers.json", both(set_item("computer-6", copies=7),
                                                      set_item("computer-8", copies=41)),
                               "supply-computers-6", exact=True),
        "crystals": mut("crystals.json", set_item("chronocrystal", copies=39), "crystals-40",
                        "crystals-values-in-quotes", exact=True),
        "breaks": mut("breaks.json", set_item("temporal-break", copies=41), "breaks-40",
                      "breaks-values-in-quotes", exact=True),
        "mat action": mut("mats.json", set_item("orange", action_5="Spend **4X qubits** to receive X VPs"),
                          "mats-standard-actions", exact=True),
        "mat removed": mut("mats.json", drop("silver"), "mats-4", "mats-one-per-colour",
                           "capsules-colours-are-players", exact=True),
        "capsule removed": mut("capsules.json", drop("magenta-4"), "capsules-16", "capsules-4-per-colour",
                               "capsules-numbered-1-4", "setup-per-player", "setup-computers-per-player",
                               "setup-total-batteries", "setup-total-computers", exact=True),
        "capsule too low": mut("capsules.json", set_item("cyan-2", inner_height=12), "capsule-holds-7", exact=True),
        "capsule setup": mut("capsules.json", set_item("silver-3", setup_computers=0), "capsule-setup",
                             "setup-computers-per-player", "setup-total-computers", exact=True),
        "vp track end": mut("track.json", set_first(vp_last=80), "vp-track-0-80-loop", exact=True),
        "round track end": mut("track.json", set_first(round_last=12), "round-track-1-10", exact=True),
        "short game round": mut("track.json", set_first(short_game_round=2), "short-game-round-3", exact=True),
        "solo start": mut("track.json", set_first(solo_normal=45), "solo-start-spaces", exact=True),
        "solo sides": mut("solo.json", set_first(front_side="6-10"), "solo-card-sides", exact=True),
        "microfusion vp": mut("artifacts.json", set_item("microfusion-device", vp=4), "microfusion-device", cli=True),
        "capsule orange-1 removed": mut("capsules.json", drop("orange-1"), "capsules-16", cli=True),
        "vp loop": mut("track.json", set_first(vp_loop=100), "vp-track-0-80-loop", cli=True),
    },
}
CASES = [(gid, label) for gid, rows in MUTATIONS.items() for label in rows]


@pytest.mark.parametrize("gid,label", CASES, ids=[f"{gid}:{label}" for gid, label in CASES])
def test_mutation_fails_its_rules(tmp_path: Path, gid: str, label: str) -> None:
    """The checker fails the rules the mutation breaks (only those, where ``exact``); through
    ``pnp check`` (``cli``) it exits 1 and lists each of them as FAIL."""
    m = MUTATIONS[gid][label]
    copy = bundled_copy(tmp_path, gid)
    copy.edit(m.file, m.mutate)
    failed = {o.rule.id for o in check_game(copy.load()).violations}
    if m.exact:
        assert failed == m.rules
    else:
        assert m.rules <= failed, sorted(m.rules - failed)
    if m.cli:
        result = copy.check()
        assert_no_traceback(result)
        assert result.exit_code == 1, result.stdout + result.stderr
        for rule in sorted(m.rules):
            assert f"FAIL {rule}" in result.stdout, (rule, result.stdout)
