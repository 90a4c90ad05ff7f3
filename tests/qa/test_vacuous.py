"""Rules that cannot fail (pnp.qa.vacuous): each kind is found with the reason, ``pnp check``
warns at the rule's line (exit 0; exit 2 with --strict), a rule that can fail is not reported,
and no bundled game keeps one."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import GAMES, Bundled, DataRootCopy, assert_no_traceback

from pnp.qa.vacuous import vacuous_rules


def _add(root: DataRootCopy, **rule: Any) -> None:
    rule = {"id": "added", "description": "An added rule.", "quote": "Event: Type Notes:", **rule}
    root.edit("game.json", lambda m: m["rulebook"].append(rule))


def _reasons(root: DataRootCopy) -> dict[str, str]:
    return {v.rule.id: v.reason for v in vacuous_rules(root.load())}


@pytest.mark.parametrize("gid", GAMES)
def test_no_bundled_rule_is_vacuous(bundled: Bundled, gid: str) -> None:
    assert [(v.rule.id, v.reason) for v in vacuous_rules(bundled.game(gid))] == []
    assert not [w for w in bundled.checked(gid).warnings if "cannot fail" in w.message]


VACUOUS = [
    ({"check": "unique", "select": {"component": "event-deck"}, "field": "id"},
     "item ids are already unique in a data file (the loader rejects a duplicate id)"),
    ({"check": "each", "select": {"component": "event-deck"}, "require": {"field": "type", "in": ["Spell", "Battle"]}},
     "the data file's field declarations already guarantee it: type's enum ['Battle', 'Spell'] is within "
     "['Spell', 'Battle']"),
    ({"check": "each", "select": {"component": "golem-deck"},
      "require": {"all": [{"field": "force", "present": True}, {"field": "copies", "min": 1}]}},
     "the data file's field declarations already guarantee it: force is required; copies has min 1 >= 1"),
    ({"check": "each", "select": {"component": "event-deck", "where": {"field": "type", "equals": "Spell"}},
      "require": {"field": "type", "equals": "Spell"}},
     "its condition is part of its own selection (`select.where`)"),
    ({"check": "equal", "values": [46, 46]}, "it compares numbers only, not the data"),
    ({"check": "equal", "values": [{"pieces": {"component": "event-deck"}}, {"pieces": {"component": "event-deck"}}]},
     "it compares a value with itself"),
    ({"check": "match", "from": {"select": {"component": "wizard"}, "field": "player"},
      "to": {"select": {"component": "wizard"}, "field": "player"}}, "it matches a side with itself"),
    ({"check": "groups", "select": {"component": "event-deck"}, "by": "id", "each": 1},
     "every id is its own group of one item (the loader rejects a duplicate id)"),
    ({"check": "determines", "select": {"component": "event-deck"}, "by": "id", "fields": ["name"]},
     "every id is one item, so it fixes its own fields (the loader rejects a duplicate id)"),
]


@pytest.mark.parametrize("rule,reason", VACUOUS, ids=[f"{r['check']}-{i}" for i, (r, _) in enumerate(VACUOUS)])
def test_a_rule_that_cannot_fail_is_found(golems: DataRootCopy, rule: dict[str, Any], reason: str) -> None:
    _add(golems, **rule)
    assert _reasons(golems) == {"added": reason}


NOT_VACUOUS = [
    # an optional field may be absent; a string may be empty; a pattern is not judged
    {"check": "each", "select": {"component": "golem-deck"}, "require": {"field": "hardness", "present": True}},
    {"check": "each", "select": {"component": "event-deck"}, "require": {"field": "name", "present": True}},
    {"check": "each", "select": {"component": "event-deck"}, "require": {"field": "type", "in": ["Battle"]}},
    {"check": "each", "select": {"component": "golem-deck"}, "require": {"field": "copies", "min": 2}},
    {"check": "equal", "values": [{"pieces": {"component": "event-deck"}}, 46]},
    {"check": "unique", "select": {"component": "event-deck"}, "field": "name"},
    {"check": "groups", "select": {"component": "event-deck"}, "by": "id", "each": 1, "count": "pieces"},
    {"check": "determines", "select": {"component": "event-deck"}, "by": "id", "fields": ["name"],
     "values": {"swoop": {"name": "Swoop"}}},
]


@pytest.mark.parametrize("rule", NOT_VACUOUS, ids=[f"{r['check']}-{i}" for i, r in enumerate(NOT_VACUOUS)])
def test_a_rule_that_can_fail_is_not_reported(golems: DataRootCopy, rule: dict[str, Any]) -> None:
    _add(golems, **rule)
    assert _reasons(golems) == {}


def test_pnp_check_warns_at_the_rule_and_strict_makes_it_an_error(golems: DataRootCopy) -> None:
    _add(golems, check="unique", select={"component": "event-deck"}, field="id")
    line = golems.line_of("game.json", '"id": "added"') - 1  # the rule's opening brace
    r = golems.check()
    assert_no_traceback(r)
    assert r.exit_code == 0
    assert (f"warning: card_data/golems/game.json:{line}:5: $.rulebook[42]: rule 'added' cannot fail: item ids are "
            "already unique in a data file (the loader rejects a duplicate id); remove it, or make it state what "
            "the schema and loader do not") in r.stderr.splitlines()
    assert golems.check("--strict").exit_code == 2


def test_conditions_of_an_each_that_cannot_fail_are_named(golems: DataRootCopy) -> None:
    """`golem-deck.force` is a required integer and `type`'s enum is the three types: those two
    conditions of the rule cannot fail; `hardness` (optional) can."""
    _add(golems, check="each", select={"component": "golem-deck"},
         require={"all": [{"field": "force", "present": True}, {"field": "hardness", "present": True},
                          {"field": "type", "in": ["Material", "Size", "Shape"]}]})
    (v,) = vacuous_rules(golems.load())
    assert (v.rule.id, v.part) == ("added", True)
    assert v.reason == ("the data file's field declarations guarantee require.all[0]: force is required; "
                        "require.all[2]: type's enum ['Material', 'Size', 'Shape'] is within ['Material', 'Size', "
                        "'Shape']")
    r = golems.check()
    assert r.exit_code == 1  # the hardness condition fails on Size and Shape cards
    assert any("rule 'added' has parts that cannot fail: the data file's field declarations guarantee "
               "require.all[0]: force is required" in ln for ln in r.stderr.splitlines())


def test_a_count_the_field_declarations_make_equal_to_another_is_named(golems: DataRootCopy) -> None:
    """items(event-deck where type in the whole enum) is items(event-deck), whatever the data."""
    _add(golems, check="equal", values=[{"items": {"component": "event-deck"}},
                                        {"items": {"component": "event-deck",
                                                   "where": {"field": "type", "in": ["Battle", "Spell"]}}}, 23])
    (v,) = vacuous_rules(golems.load())
    assert (v.part, v.reason) == (True, "values[1] always equals values[0]: its `where` holds for every item, as "
                                        "the data file's field declarations guarantee")
    # With only the two selections left, the whole rule cannot fail.
    golems.edit("game.json", lambda m: m["rulebook"][-1]["values"].pop())
    (v,) = vacuous_rules(golems.load())
    assert (v.part, v.reason) == (False, "it compares a value with itself")
