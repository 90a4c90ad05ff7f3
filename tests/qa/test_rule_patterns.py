"""pnp.qa.rules: the `matches` tests of rulebook conditions (`select.where`, `require`, an `items`
value's `where`) are charged to the command's shape budget, as a piece's patterns are (attack 10,
F2: 100 `each` rules of a 3,452-instruction pattern on 240 KB of text took 85 s of `check`)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from conftest import DataRootCopy, assert_no_traceback, diag_lines

from pnp.errors import DataError
from pnp.input.conditions import regex
from pnp.layout import cost
from pnp.layout.cost import REGEX_STEPS, Tally
from pnp.qa.rules import Checker, check_game

TEXT_LEN = 3_000


def _heavy(tag: str) -> str:
    """A pattern of about 3,450 instructions that never matches random a/b text (`c` + tag last)."""
    return f"(?s:.*a.{{490}}b.*)c{tag}"


def _with_text(mini: DataRootCopy) -> list[str]:
    """Give mini's deck a `text` field (not drawn) of TEXT_LEN random a/b characters on each item."""
    rng = random.Random(4)
    texts: list[str] = []

    def edit(d: dict[str, Any]) -> None:
        d["fields"]["text"] = {"type": "string", "description": "long text"}
        for it in d["items"]:
            it["text"] = "".join(rng.choice("ab") for _ in range(TEXT_LEN))
            texts.append(it["text"])

    mini.edit("deck.json", edit)
    return texts


def _rules(mini: DataRootCopy, rules: list[dict[str, Any]]) -> None:
    mini.edit("game.json", lambda m: m["rulebook"].extend(
        {"id": f"p{i}", "description": "d", "quote": "q", **r} for i, r in enumerate(rules)))


def _each_not(pattern: str) -> dict[str, Any]:
    return {"check": "each", "select": {"component": "deck"},
            "require": {"not": {"field": "text", "matches": pattern}}}


def test_rule_patterns_past_the_budget_are_refused_at_the_matches_that_crossed_it(
        mini: DataRootCopy, monkeypatch: pytest.MonkeyPatch) -> None:
    """Six rules of a heavy pattern on three 3,000-character texts, with the budget's base at
    nothing (so the limit is the input's bytes' worth, ~6,000 shapes): exit 2 at the first rule
    whose pattern passes the budget, naming its `matches` (file, line, JSON path), and no later
    rule is run; with the budget as it is, the same rules pass."""
    _with_text(mini)
    _rules(mini, [_each_not(_heavy(f"budget{i}")) for i in range(6)])
    with monkeypatch.context() as m:
        m.setattr(cost, "SHAPES_BASE", 0)
        r = mini.check()
    assert_no_traceback(r)
    assert r.exit_code == 2
    (line,) = diag_lines(r.stderr)
    k = int(line.split("$.rulebook[", 1)[1].split("]", 1)[0])
    assert 2 <= k < 8  # mini's own two rules have no patterns: one of the six
    at, _ = mini.pos_of("game.json", f'"matches": "{_heavy(f"budget{k - 2}")}"'.replace("\\", "\\\\"))
    assert line.startswith(f"card_data/mini/game.json:{at}:")
    assert f"$.rulebook[{k}].require.not.matches: rule 'p{k - 2}': the `matches` patterns of game mini's rules" in line
    assert "past its budget of" in line and f"one for each {REGEX_STEPS:,} steps of patterns" in line
    assert "expected fewer or smaller patterns in the rules' conditions" in line
    assert "mini: 1 input problem" in r.stderr
    # (first refused: the answers a run has given are remembered, and not charged again)
    ok = mini.check()
    assert ok.exit_code == 0, ok.stderr
    assert "8 rules, 8 pass, 0 fail" in ok.stdout


def test_a_where_pattern_is_charged_to_the_tally_given(mini: DataRootCopy) -> None:
    """An `equal` rule counting items `where` a pattern matches: charged to the command's tally
    (here already full), refused at that `where`'s `matches`."""
    _with_text(mini)
    _rules(mini, [{"check": "equal", "values": [
        {"items": {"component": "deck", "where": {"field": "text", "matches": _heavy("where")}}}, 0]}])
    game = mini.load()
    tally = Tally()
    tally.charge("other", tally.limit)
    with pytest.raises(DataError) as info:
        check_game(game, tally=tally)
    (d,) = info.value.diagnostics
    assert d.path == ("rulebook", 2, "values", 0, "items", "where", "matches")
    assert d.file == "card_data/mini/game.json" and d.line is not None
    assert "past its budget" in d.message
    assert tally.by_game["mini"][0] > 0  # the rule's steps were charged to the game


def test_what_a_legal_rule_set_is_charged_is_its_steps(mini: DataRootCopy) -> None:
    """Each test is charged its pattern's instructions x (characters + 1) (an answer already
    given is not charged again), one shape for each REGEX_STEPS steps; the rule passes."""
    texts = _with_text(mini)
    pattern = _heavy("legal")
    _rules(mini, [_each_not(pattern), _each_not(pattern)])  # the second rule: answers remembered
    game = mini.load()
    tally = Tally()
    tally.allow({"data": 10**6})
    checker = Checker(game, tally=tally)
    outcomes = [checker.run(r) for r in game.rules if r.id.startswith("p")]
    assert all(o.passed for o in outcomes)
    want = sum(regex(pattern).size * (len(t) + 1) for t in texts)
    assert checker.steps == want
    assert tally.used == want // REGEX_STEPS > 0


def test_a_bad_pattern_in_a_rule_is_named_at_its_matches(mini: DataRootCopy) -> None:
    bad = {"any": [{"field": "suit", "equals": "sun"}, {"field": "name", "matches": "(unclosed"}]}
    _rules(mini, [{"check": "each", "select": {"component": "deck"}, "require": bad}])
    r = mini.check()
    assert_no_traceback(r)
    assert r.exit_code == 2
    (line,) = diag_lines(r.stderr)
    at, _ = mini.pos_of("game.json", '"matches": "(unclosed"')
    assert line.startswith(f"card_data/mini/game.json:{at}:")
    assert "$.rulebook[2].require.any[1].matches: rule 'p0': invalid regular expression '(unclosed'" in line
    assert "expected a regular expression in RE2 syntax" in line
