"""pnp.qa.rules: what the rules read is bounded. A rule keeps its first MAX_DETAILS details and
counts the rest, a `groups` outcome lists MAX_GROUPS groups, and the items and values the rules
read are charged to the command's shape budget (attack 13, F13: ten `match` rules over two
100,000-item components took 77 s and 1.2 GB of `check`, writing 200,000 mismatches each)."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import DataRootCopy, assert_no_traceback, diag_lines

from pnp.errors import DataError
from pnp.layout import cost
from pnp.layout.cost import Tally
from pnp.qa import rules
from pnp.qa.rules import MAX_DETAILS, MAX_GROUPS, Checker, check_game

PER_ITEM = 100  # each of mini's three items becomes this many (num 1..PER_ITEM): 300 items


def _series(mini: DataRootCopy) -> None:
    def edit(d: dict[str, Any]) -> None:
        d["fields"]["num"] = {"type": "integer", "description": "n"}
        for it in d["items"]:
            it["series"] = {"field": "num", "from": 1, "to": PER_ITEM}

    mini.edit("deck.json", edit)


def _rules(mini: DataRootCopy, rules_: list[dict[str, Any]]) -> None:
    mini.edit("game.json", lambda m: m["rulebook"].extend(
        {"id": f"w{i}", "description": "d", "quote": "q", **r} for i, r in enumerate(rules_)))


MATCH = {"check": "match", "from": {"select": {"component": "deck"}, "field": "num"},
         "to": {"select": {"component": "deck", "where": {"field": "power", "min": 0}}, "field": "num"},
         "exactly_one": True, "both_ways": True}


def test_a_match_keeps_its_first_mismatches_and_counts_the_rest(mini: DataRootCopy) -> None:
    """Every num is on three items (two with a power): 300 + 200 mismatches; the first MAX_DETAILS
    are listed, then one line counts the others; `actual` has them all."""
    _series(mini)
    _rules(mini, [MATCH])
    report = check_game(mini.load())
    (out,) = [o for o in report.outcomes if o.rule.id == "w0"]
    assert not out.passed and out.actual == "500 mismatches"
    assert len(out.details) == MAX_DETAILS + 1
    assert out.details[-1] == f"and {500 - MAX_DETAILS} more (the first {MAX_DETAILS} are listed)"
    assert out.details[0].startswith("deck/sun-1-1 (card_data/mini/deck.json:")
    assert out.details[0].endswith(" num=1: found 2 in deck.num: deck/sun-1-1 (card_data/mini/deck.json:30) x2, "
                                   "deck/moon-1-1 (card_data/mini/deck.json:45) x2")


@pytest.mark.parametrize(("rule", "actual", "n"), [
    ({"check": "each", "select": {"component": "deck"}, "require": {"field": "num", "max": 0}},
     "300 do not", 300),
    ({"check": "unique", "select": {"component": "deck"}, "field": "num"}, "100 repeated", 100),
    ({"check": "unique", "select": {"component": "deck"}, "within": ["num", "num"]}, "300 items repeat a value", 300),
    ({"check": "determines", "select": {"component": "deck"}, "by": "num", "fields": ["name"]},
     "200 inconsistencies", 200),
    ({"check": "groups", "select": {"component": "deck"}, "by": "num", "each": 1}, None, 100),
])
def test_every_check_keeps_its_first_details(mini: DataRootCopy, monkeypatch: pytest.MonkeyPatch,
                                             rule: dict[str, Any], actual: str | None, n: int) -> None:
    _series(mini)
    _rules(mini, [rule])
    monkeypatch.setattr(rules, "MAX_DETAILS", 3)
    report = check_game(mini.load())
    (out,) = [o for o in report.outcomes if o.rule.id == "w0"]
    assert not out.passed
    if actual is not None:
        assert out.actual == actual
    assert len(out.details) == 4 and out.details[-1] == f"and {n - 3} more (the first 3 are listed)"


def test_a_groups_outcome_lists_its_first_groups(mini: DataRootCopy) -> None:
    _series(mini)
    _rules(mini, [{"check": "groups", "select": {"component": "deck"}, "by": "num", "each": 3}])
    report = check_game(mini.load())
    (out,) = [o for o in report.outcomes if o.rule.id == "w0"]
    assert out.passed
    shown = ", ".join(f"{k}: 3" for k in range(1, MAX_GROUPS + 1))
    assert out.actual == f"{shown} and {PER_ITEM - MAX_GROUPS} more groups"


def test_what_the_rules_read_is_charged_to_the_tally_given(mini: DataRootCopy) -> None:
    """Each rule is charged one shape for each RULE_READS items it selects (or a `where` tests) or
    values it looks up;
    past the limit, the rule that crossed it is refused at the selection it was reading."""
    _series(mini)
    _rules(mini, [MATCH])
    game = mini.load()
    tally = Tally()
    checker = Checker(game, tally=tally)
    (rule,) = [r for r in game.rules if r.id == "w0"]
    assert not checker.run(rule).passed
    # both sides selected (300 + 200 items, the 300 tested by the `where`), 500 values looked up
    assert checker.reads == 300 + 300 + 200 + 500
    assert tally.by_game["mini"][0] == checker.reads // rules.RULE_READS
    full = Tally()
    full.charge("other", full.limit)
    with pytest.raises(DataError) as info:
        check_game(game, tally=full)
    (d,) = info.value.diagnostics
    # mini's first rule counts the deck's pieces: the first read crosses the budget
    assert d.path == ("rulebook", 0, "values", 0, "pieces")
    assert d.file == "card_data/mini/game.json" and d.line is not None
    assert "the rules of game mini have read 300 items and values so far" in d.message
    assert "past its budget of" in d.message


def test_rules_past_the_budget_are_refused(mini: DataRootCopy, monkeypatch: pytest.MonkeyPatch) -> None:
    """Forty `match` rules over 300 items, each read charged a shape and the budget's base at
    nothing: exit 2 at the rule that crossed the budget, naming it; no later rule is run."""
    _series(mini)
    _rules(mini, [MATCH] * 40)
    monkeypatch.setattr(cost, "SHAPES_BASE", 0)
    monkeypatch.setattr(cost, "AREA_PT2", float("inf"))  # the cards' fills not charged by area: they pass
    monkeypatch.setattr(rules, "RULE_READS", 1)
    r = mini.check()
    assert_no_traceback(r)
    assert r.exit_code == 2, r.stdout
    (line,) = diag_lines(r.stderr)
    assert line.startswith("card_data/mini/game.json:")
    assert "rule 'w" in line and "items and values so far: with the pieces laid out, the command is past " \
        "its budget of" in line
    assert "expected fewer rules over large selections" in line
    assert "mini: 1 input problem" in r.stderr
