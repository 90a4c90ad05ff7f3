"""Stage 8, check: the Golems rulebook rules pass on the bundled data, and each kind of mistake
fails exactly the rules that describe it, with expected and actual values and the quote.
A rule that names an unknown component, item or field is bad input (exit 2), not a failed rule."""

from __future__ import annotations

import json

import pytest
from conftest import REPO, DataRootCopy, assert_no_traceback, diag_lines

from pnp.errors import DataError
from pnp.input.project import DataRoot, bundled_root, load_game
from pnp.qa.rules import Outcome, Report, check_game

MANIFEST_RULES = json.loads((REPO / "card_data" / "golems" / "game.json").read_text())["rulebook"]


def report(root: DataRootCopy) -> Report:
    return check_game(root.load())


def failed(root: DataRootCopy) -> dict[str, Outcome]:
    return {o.rule.id: o for o in report(root).violations}


def at(root: DataRootCopy, file: str, iid: str) -> str:
    """An item as failures name it: ``component/id (card_data/golems/FILE:LINE)``."""
    comp = root.read(file)["component"]
    line = root.line_of(file, '"id": "' + iid + '"')
    return f"{comp}/{iid} (card_data/{root.game}/{file}:{line})"


# -- the bundled game ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def bundled() -> Report:
    return check_game(load_game(DataRoot(bundled_root()), "golems"))


def test_every_golems_rule_passes(bundled: Report) -> None:
    assert bundled.ok
    assert [o.rule.id for o in bundled.outcomes if not o.passed] == []


def test_every_manifest_rule_is_run_once_in_order(bundled: Report) -> None:
    ids = [o.rule.id for o in bundled.outcomes if o.rule.check != "quoted"]
    assert ids == [r["id"] for r in MANIFEST_RULES]
    assert len(ids) == len(set(ids)) == 42
    # Then the values-in-quotes rule of each component that declares one, in component order.
    assert [o.rule.id for o in bundled.outcomes][42:] == [
        "terrain-values-in-quotes", "golem-deck-values-in-quotes", "event-deck-values-in-quotes",
        "wizard-values-in-quotes", "board-values-in-quotes"]


def test_each_check_kind_is_exercised(bundled: Report) -> None:
    assert {o.rule.check for o in bundled.outcomes} == {"equal", "each", "match", "groups", "determines", "unique",
                                                        "fits", "quoted"}


def test_outcome_carries_quote_expected_and_actual(bundled: Report) -> None:
    o = next(o for o in bundled.outcomes if o.rule.id == "events-46")
    assert o.rule.quote == "The Event deck contains 2 copies of each card listed."
    assert o.expected == "all equal: pieces(event-deck) = (items(event-deck) x 2) = 46"
    assert o.actual == "46 = 46 = 46"


def test_provenance_summary(bundled: Report) -> None:
    prov = {p.component: (p.document, p.external, p.designed, p.items, p.pieces) for p in bundled.provenance}
    assert prov == {
        "terrain": (20, 0, 0, 20, 64),
        "golem-deck": (24, 0, 0, 24, 48),
        "event-deck": (23, 0, 0, 23, 46),
        "wizard": (4, 0, 0, 4, 4),
        "board": (1, 0, 0, 1, 1),
        "chits": (0, 0, 64, 64, 64),
        "mana": (0, 0, 3, 3, 80),
        "counters": (0, 0, 1, 1, 64),
        "status": (0, 0, 4, 4, 32),
        "reference": (0, 0, 1, 1, 1),
    }
    # Every item is counted in exactly one provenance class.
    assert all(p.document + p.external + p.designed == p.items for p in bundled.provenance)


def test_provenance_counts_follow_the_data(golems: DataRootCopy) -> None:
    golems.edit("wizard.json", lambda d: d["items"][0].__setitem__("source", {"external": "a reference"}))
    golems.edit("mana.json", lambda d: d["items"][0].__setitem__("source", {"document": "a quote"}))
    prov = {p.component: (p.document, p.external, p.designed) for p in report(golems).provenance}
    assert prov["wizard"] == (3, 1, 0)
    assert prov["mana"] == (1, 0, 2)


# -- mutations fail exactly the rules that describe them --------------------------------------------

def test_one_wasteland_tile_less(golems: DataRootCopy) -> None:
    golems.edit("terrain.json", lambda d: next(i for i in d["items"] if i["id"] == "wasteland").update(copies=23))
    bad = failed(golems)
    # The copies are in the tile's quote too ('Wasteland 24').
    assert set(bad) == {"terrain-total-64", "terrain-non-corner-60", "terrain-wasteland-24", "terrain-values-in-quotes"}
    assert bad["terrain-total-64"].actual == "63 = 63 = 64 = 64"
    assert bad["terrain-wasteland-24"].actual == "23 = 24"
    assert bad["terrain-wasteland-24"].rule.quote == "Wasteland 24"


def test_one_tower_less(golems: DataRootCopy) -> None:
    golems.edit("terrain.json", lambda d: d["items"][0].update(copies=3))
    assert set(failed(golems)) == {"terrain-total-64", "terrain-towers-4-corners", "terrain-towers-per-player",
                                   "terrain-values-in-quotes"}


def test_an_event_with_one_copy(golems: DataRootCopy) -> None:
    golems.edit("event-deck.json", lambda d: d["items"][0].update(copies=1))
    bad = failed(golems)
    assert set(bad) == {"events-two-copies", "events-46"}
    assert bad["events-two-copies"].details == (at(golems, "event-deck.json", "swoop") + ": copies=1",)
    assert bad["events-two-copies"].actual == "1 do not"
    assert bad["events-46"].actual == "45 = 46 = 46"


def test_an_extra_event(golems: DataRootCopy) -> None:
    def add(d: dict) -> None:
        d["items"].append({**d["items"][0], "id": "swoop-two", "name": "Swoop Two"})

    golems.edit("event-deck.json", add)
    bad = failed(golems)
    # The copy's name is not in the quote it copied.
    assert set(bad) == {"events-23", "events-46", "events-battle-12", "event-deck-values-in-quotes"}
    assert bad["events-23"].actual == "24 = 23"


def test_recruiting_terrain_naming_the_wrong_material(golems: DataRootCopy) -> None:
    def rename(d: dict) -> None:
        (tile,) = [i for i in d["items"] if i.get("recruits") == "Clay"]
        tile["recruits"] = "Stone"

    golems.edit("terrain.json", rename)
    bad = failed(golems)
    assert set(bad) == {"material-terrain-match"}
    # The rule matches (name, terrain) pairs: Clay's pair is gone, Stone's still found once (the
    # Quarry), and the Mud Flats' new pair names no card.
    assert bad["material-terrain-match"].details == (
        at(golems, "golem-deck.json", "clay")
        + " (name, terrain)=('Clay', 'Mud Flats'): found 0 in terrain.(recruits, name)",
        at(golems, "terrain.json", "mud-flats")
        + " (recruits, name)=('Stone', 'Mud Flats'): found 0 in golem-deck.(name, terrain)",
    )


def test_material_card_printing_another_terrain(golems: DataRootCopy) -> None:
    """A Material card prints the terrain it needs (issue 23): the pair is checked both ways."""
    golems.edit("golem-deck.json", lambda d: d["items"][0].update(terrain="Quarry"))  # flesh: Village
    bad = failed(golems)
    assert set(bad) == {"material-terrain-match"}
    assert bad["material-terrain-match"].expected == (
        "each golem-deck.(name, terrain) has exactly one terrain.(recruits, name) and back")
    assert bad["material-terrain-match"].details == (
        at(golems, "golem-deck.json", "flesh")
        + " (name, terrain)=('Flesh', 'Quarry'): found 0 in terrain.(recruits, name)",
        at(golems, "terrain.json", "village")
        + " (recruits, name)=('Flesh', 'Village'): found 0 in golem-deck.(name, terrain)",
    )


def test_material_with_another_hardness(golems: DataRootCopy) -> None:
    golems.edit("golem-deck.json", lambda d: d["items"][0].update(hardness="Hard"))  # flesh: Soft -> Hard
    bad = failed(golems)
    assert set(bad) == {"golem-hardness-classes", "golem-hardness-determines-stats", "golem-deck-values-in-quotes"}
    assert bad["golem-hardness-classes"].actual == "Hard: 5, Soft: 3, Rock: 4, Metal: 4"
    # Each wrong group names its items, with file:line.
    def items(*ids: str) -> str:
        return ", ".join(at(golems, "golem-deck.json", i) for i in ids)

    assert set(bad["golem-hardness-classes"].details) == {
        "hardness='Hard': 5: " + items("flesh", "ice", "bone", "wood", "clockwork"),
        "hardness='Soft': 3: " + items("clay", "sand", "salt")}
    assert bad["golem-hardness-determines-stats"].details == (
        items("flesh") + " (hardness=Hard): {'force': 1, 'armor': 0} but expected {'force': 2, 'armor': 1}",)
    assert bad["golem-deck-values-in-quotes"].details == (
        items("flesh") + ": hardness='Hard' (written 'H') is not in its quote: 'Flesh M S +1 - 1'",)


def test_material_with_wrong_force(golems: DataRootCopy) -> None:
    golems.edit("golem-deck.json", lambda d: d["items"][2].update(force=9))  # stone: Rock, force 3
    bad = failed(golems)
    assert set(bad) == {"golem-hardness-determines-stats", "golem-deck-values-in-quotes"}
    # Only the wrong card is blamed, not the other Rock cards that differ from it.
    assert bad["golem-hardness-determines-stats"].details == (
        at(golems, "golem-deck.json", "stone") + " (hardness=Rock): {'force': 9} but expected {'force': 3}",)
    assert bad["golem-hardness-determines-stats"].actual == "1 inconsistency"


def test_two_wizards_of_one_colour(golems: DataRootCopy) -> None:
    golems.edit("wizard.json", lambda d: d["items"][1].update(player=d["items"][0]["player"]))
    assert {"wizard-one-per-player", "chits-colour-per-player"} <= set(failed(golems))


def test_rules_judge_the_document_text_not_the_errata(golems: DataRootCopy) -> None:
    # The erratum prints 'Juggernaut', but the rule quotes the document's 'Juggernaught' group.
    game = golems.load()
    jug = next(i for i in game.component("golem-deck").items if i.id == "juggernaught")
    assert jug.fields["name"] == "Juggernaut"
    assert jug.get("name", document=True) == "Juggernaught"
    assert check_game(game).ok


# -- rules that cannot be evaluated ----------------------------------------------------------------

def test_rule_with_unknown_component_is_input_error_at_the_manifest_line(golems: DataRootCopy) -> None:
    golems.edit("game.json", lambda m: m["rulebook"][7]["values"][0]["pieces"].update(component="terain"))
    line, col = golems.pos_of("game.json", '"terain"')
    r = golems.check()
    assert r.exit_code == 2
    assert_no_traceback(r)
    assert diag_lines(r.stderr) == [
        f"card_data/golems/game.json:{line}:{col}: $.rulebook[7].values[0].pieces.component: "
        "rule 'terrain-monolith-8': unknown component 'terain' (expected one of terrain, golem-deck, event-deck, "
        "wizard, board, chits, mana, counters, status, reference)"]
    assert r.stdout == ""  # no report when the rules cannot be evaluated


def test_rules_with_unknown_fields_and_items_are_all_reported(golems: DataRootCopy) -> None:
    def break_rules(m: dict) -> None:
        m["rulebook"][8]["values"][0]["pieces"]["where"]["field"] = "rol"
        m["rulebook"][20]["fields"][1] = "armour"
        m["rulebook"][2]["values"][1]["value"]["item"] = "towr"

    golems.edit("game.json", break_rules)
    with pytest.raises(DataError) as info:
        check_game(golems.load())
    got = [(d.line, d.path, d.message, d.expected) for d in info.value.diagnostics]
    assert got == [
        (golems.line_of("game.json", '"towr"'), ("rulebook", 2, "values", 1, "value", "item"),
         "rule 'terrain-towers-4-corners': unknown item 'towr' in terrain", "an item id of terrain"),
        (golems.line_of("game.json", '"rol"'), ("rulebook", 8, "values", 0, "pieces", "where", "field"),
         "rule 'terrain-water-12': unknown field 'rol'", "one of id, copies, icon, name, notes, recruits, role"),
        (golems.line_of("game.json", '"armour"'), ("rulebook", 20, "fields", 1),
         "rule 'golem-hardness-determines-stats': unknown field 'armour'",
         "one of id, copies, armor, force, hardness, hits, move, name, note, note_terrain, terrain, type"),
    ]
    assert all(d.file == "card_data/golems/game.json" for d in info.value.diagnostics)


def test_rule_with_unknown_check_kind_is_a_schema_error(mini: DataRootCopy) -> None:
    mini.replace("game.json", '"check": "unique"', '"check": "uniq"')
    r = mini.check()
    assert r.exit_code == 2
    (msg,) = diag_lines(r.stderr)
    assert msg.startswith('card_data/mini/game.json:30:16: $.rulebook[1].check: value "uniq" is not allowed')


def test_rule_with_a_misspelt_parameter(mini: DataRootCopy) -> None:
    mini.replace("game.json", '"field": "name"', '"feild": "name"')
    r = mini.check()
    assert r.exit_code == 2
    lines = diag_lines(r.stderr)
    assert "card_data/mini/game.json:26:5: $.rulebook[1]: missing one of the fields 'field', 'fields', 'sum', " \
           "'within' (expected one of the documented forms)" in lines
    assert any(ln.startswith("card_data/mini/game.json:32:7: $.rulebook[1].feild: unknown field 'feild'")
               and ln.endswith("did you mean 'field'?") for ln in lines)


def test_determines_without_declared_values_compares_with_the_first_item(mini: DataRootCopy) -> None:
    def add_rule(m: dict) -> None:
        m["rulebook"].append({"id": "suit-fixes-power", "description": "A suit fixes the power.",
                              "quote": "Every sun card has the same power.", "check": "determines",
                              "select": {"component": "deck", "where": {"field": "suit", "present": True}},
                              "by": "suit", "fields": ["power"]})

    mini.edit("game.json", add_rule)
    assert report(mini).ok
    mini.replace("deck.json", '"id": "joker",\n      "name": "Joker"',
                 '"id": "sun-2",\n      "name": "Sun Two",\n      "suit": "sun",\n      "power": 2')
    bad = failed(mini)
    assert set(bad) == {"suit-fixes-power"}
    assert bad["suit-fixes-power"].details == ("deck/sun-2 (card_data/mini/deck.json:26) (suit=sun): {'power': 2} "
                                                 "differs from sun-1: {'power': 1}",)


def test_matches_condition_and_exceptions_report_oddities(golems) -> None:
    """A rule with a `matches` condition; an excepted item is reported as a document oddity,
    and an exception that the data no longer needs fails the rule."""
    import json

    from pnp.qa.rules import check_game

    manifest = golems.path / "card_data" / "golems" / "game.json"
    data = json.loads(manifest.read_text())
    rule = {"id": "names-capitalised", "check": "each", "description": "Names start with a capital letter.",
            "quote": "Juggernaught", "select": {"component": "golem-deck"},
            "require": {"field": "name", "matches": "[A-Z][a-z]+"},
            "exceptions": [{"component": "golem-deck", "item": "flesh", "reason": "test oddity"}]}
    data["rulebook"].append(rule)
    manifest.write_text(json.dumps(data))
    deck = golems.path / "card_data" / "golems" / "golem-deck.json"
    deck.write_text(deck.read_text().replace('"name": "Flesh"', '"name": "flesh"'))
    out = {o.rule.id: o for o in check_game(golems.load()).outcomes}["names-capitalised"]
    assert out.passed and out.oddities == ("golem-deck/flesh: test oddity",)
    deck.write_text(deck.read_text().replace('"name": "flesh"', '"name": "Flesh"'))
    out = {o.rule.id: o for o in check_game(golems.load()).outcomes}["names-capitalised"]
    assert not out.passed
    assert out.details == ("exception no longer needed: golem-deck/flesh: test oddity",)


def test_total_sums_a_field_over_a_selection(golems) -> None:
    import json

    from pnp.qa.rules import check_game

    manifest = golems.path / "card_data" / "golems" / "game.json"
    data = json.loads(manifest.read_text())
    # Materials: Force 1x4 (Soft) + 2x4 (Hard) + 3x4 (Rock) + 4x4 (Metal) = 40; Sizes x4 copies: (0+1+2+3) x 4 = 24.
    data["rulebook"] += [
        {"id": "material-force-40", "check": "equal", "description": "d", "quote": "q",
         "values": [{"total": {"component": "golem-deck", "where": {"field": "type", "equals": "Material"},
                               "field": "force"}}, 40]},
        {"id": "size-force-pieces-24", "check": "equal", "description": "d", "quote": "q",
         "values": [{"total": {"component": "golem-deck", "where": {"field": "type", "equals": "Size"},
                               "field": "force", "count": "pieces"}}, 24]},
        {"id": "type-matches", "check": "each", "description": "d", "quote": "q",
         "select": {"component": "golem-deck"}, "require": {"field": "type", "matches": "M.*"}},
    ]
    manifest.write_text(json.dumps(data))
    out = {o.rule.id: o for o in check_game(golems.load()).outcomes}
    assert out["material-force-40"].passed and out["size-force-pieces-24"].passed
    assert out["material-force-40"].expected == ("all equal: total force of golem-deck where type='Material' = 40")
    assert not out["type-matches"].passed
    assert "type matches /M.*/" in out["type-matches"].expected


# -- arithmetic: a rule passes or fails on the data, never on float rounding or overflow (issue 19) --

def _equal_rule(rid: str, *values: object) -> dict:
    return {"id": rid, "check": "equal", "description": "d", "quote": "q", "values": list(values)}


def test_float_sums_compare_within_a_tolerance_and_counts_exactly(mini: DataRootCopy) -> None:
    mini.edit("game.json", lambda m: m["rulebook"].extend([
        _equal_rule("tenths", {"sum": [0.1, 0.2]}, 0.3),  # 0.30000000000000004 = 0.3
        _equal_rule("tenths-off", {"sum": [0.1, 0.2]}, 0.31),
        _equal_rule("big-counts", {"sum": [10**17, 1]}, 10**17),  # ints: no tolerance
    ]))
    out = {o.rule.id: o for o in report(mini).outcomes}
    assert out["tenths"].passed
    assert (out["tenths-off"].passed, out["tenths-off"].actual) == (False, "0.3 = 0.31")
    assert (out["big-counts"].passed, out["big-counts"].actual) == (False, "100000000000000001 = 100000000000000000")


def test_a_long_sum_is_described_by_its_first_terms(mini: DataRootCopy) -> None:
    """A sum of 100,000 terms printed a 1.5 MB description (attack 17): the first 12 and a count."""
    mini.edit("game.json", lambda m: m["rulebook"].append(_equal_rule("long", {"sum": [1] * 1_000}, 1_000)))
    out = {o.rule.id: o for o in report(mini).outcomes}
    assert out["long"].passed
    assert out["long"].expected == "all equal: (" + " + ".join(["1"] * 12) + " + ... 988 more) = 1000"


def test_a_failed_rule_never_shows_two_values_that_look_equal(mini: DataRootCopy) -> None:
    """Rounded to six digits, 1.0000001 and 1 both read "1": a failure then shows every digit."""
    mini.edit("game.json", lambda m: m["rulebook"].append(_equal_rule("near", {"sum": [1.0000001]}, 1, 2)))
    (bad,) = report(mini).violations
    assert bad.actual == "1.0000001 = 1 = 2"


def test_overflow_in_totals_and_unique_sums_is_an_input_error(mini: DataRootCopy) -> None:
    def weigh(d: dict) -> None:
        d["fields"]["weight"] = {"type": "number", "description": "Weight"}
        for it in d["items"]:
            it["weight"] = 1e308

    mini.edit("deck.json", weigh)
    mini.edit("game.json", lambda m: m["rulebook"].extend([
        _equal_rule("heavy", {"total": {"component": "deck", "field": "weight"}}, 1),
        {"id": "weights-unique", "check": "unique", "description": "d", "quote": "q",
         "select": {"component": "deck"}, "sum": ["weight", "weight"]},
    ]))
    with pytest.raises(DataError) as info:
        report(mini)
    heavy, unique = info.value.diagnostics
    assert (heavy.path, unique.path) == (("rulebook", 2, "values", 0), ("rulebook", 3, "sum"))
    assert heavy.message == ("rule 'heavy': the total weight of deck overflows: it reaches beyond the largest "
                             "number a rule computes with (about 1.8e308)")
    assert unique.message.startswith("rule 'weights-unique': the sum (weight + weight) on deck/sun-1 overflows")
    assert heavy.expected == "a result below about 1e308 in magnitude"


@pytest.mark.parametrize("cid", ["aux", "con", "com1", "lpt9"])
def test_a_component_id_windows_keeps_for_a_device_builds_with_a_warning(mini: DataRootCopy, cid: str) -> None:
    """`aux.pdf` is a device on Windows: it cannot be created there, or copied from a Linux build
    (attack 6, borderline). An id that works here is not an error; the check warns."""
    from conftest import run_cli

    for name in ("game.json", "deck.json"):
        mini.write(name, json.loads(mini.text(name).replace('"id": "deck"', f'"id": "{cid}"')
                                    .replace('"component": "deck"', f'"component": "{cid}"')))
    r = run_cli("check", "mini")
    assert r.exit_code == 0, r.stderr
    assert (f"$.components[0].id: component id '{cid}' is a device name on Windows: {cid}.pdf cannot be created "
            "or copied there (expected an id Windows can use as a file name)") in r.stderr
    assert "device name" not in run_cli("check", "golems").stderr


def test_texts_the_label_fonts_lack_are_warned_of(mini: DataRootCopy) -> None:
    """The contents sheet and the sheets' labels print the manifest's titles and not-printed
    entries in pnp's own fonts: a Japanese title left a blank row on the contents sheet with no
    word (attack 22, F3). Each such text is a warning naming its JSON path and the characters
    (exit 0; with --strict, 2); the bundled games have none."""
    from conftest import run_cli

    game = mini.read("game.json")
    game["components"][0]["title"] = "魔法の大釜"
    # invisible by design (a word joiner, a zero-width space, a variation selector): no warning
    game["not_printed"] = [{"name": "Di\u2060ce\u200b\ufe0f", "quantity": "２個", "source": {"designed": "t"}}]
    mini.write("game.json", game)
    r = run_cli("check", "mini")
    assert r.exit_code == 0, r.stderr
    assert ("$.components[0].title: this text has 5 characters pnp's label fonts (Lato-Regular, Lato-Bold) lack "
            "('の' (U+306E), '大' (U+5927), '法' (U+6CD5), '釜' (U+91DC), '魔' (U+9B54)): they would print as "
            "nothing on the contents sheet and the sheets' labels") in r.stderr
    assert "$.not_printed[0].quantity: this text has 2 characters" in r.stderr
    assert "$.not_printed[0].name" not in r.stderr
    assert run_cli("check", "mini", "--strict").exit_code == 2
    from pnp.input.project import bundled_root

    bundled = run_cli("check", "--data", bundled_root())
    assert bundled.exit_code == 0 and "label fonts" not in bundled.stderr, bundled.stderr
