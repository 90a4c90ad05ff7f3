"""pnp.input.conditions: the one evaluator (``holds``) and the one walker (``fields_read``) of the
condition data behind template ``when`` and rulebook ``where``/``require``; and the three places
that use them (layout, the template's static field check, the rulebook checker)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from conftest import DataRootCopy

from pnp.errors import DataError
from pnp.input.conditions import describe, field_test, fields_read, holds, regex, replacement_literals
from pnp.layout.primitives import Text
from pnp.qa.check import check
from pnp.qa.rules import check_game

CARD = "templates/mini/card.json"
ITEM = {"name": "Sun One", "suit": "sun", "power": 1, "tags": ["a", "b"], "blank": "", "none": []}


def read(item: dict[str, Any]) -> Any:
    return item.get


# -- field tests -----------------------------------------------------------------------------

@pytest.mark.parametrize(("cond", "want"), [
    ({"field": "suit", "equals": "sun"}, True),
    ({"field": "suit", "equals": "moon"}, False),
    ({"field": "power", "equals": 1.0}, True),  # Python equality: 1 == 1.0
    ({"field": "tags", "equals": ["a", "b"]}, True),
    ({"field": "suit", "in": ["moon", "sun"]}, True),
    ({"field": "suit", "in": ["moon"]}, False),
    ({"field": "suit", "present": True}, True),
    ({"field": "suit", "present": False}, False),
    ({"field": "blank", "present": False}, True),  # "" counts as absent
    ({"field": "none", "present": False}, True),  # so does []
    ({"field": "power", "min": 1}, True),
    ({"field": "power", "min": 2}, False),
    ({"field": "power", "max": 1}, True),
    ({"field": "power", "max": 0.5}, False),
    ({"field": "name", "min": 0}, False),  # min/max need a number
    ({"field": "name", "matches": "Sun .*"}, True),
    ({"field": "name", "matches": "Sun"}, False),  # the whole text must match
    ({"field": "power", "matches": "1"}, False),  # matches needs text
    ({"field": "power", "min": 1, "max": 3, "in": [1, 2]}, True),  # every test given must hold
    ({"field": "power", "min": 1, "max": 3, "in": [2, 3]}, False),
])
def test_each_field_test(cond: dict[str, Any], want: bool) -> None:
    assert holds(cond, read(ITEM)) is want
    assert field_test(cond, ITEM.get(cond["field"])) is want


def test_a_boolean_is_not_a_number() -> None:
    assert not field_test({"field": "x", "min": 0}, True)
    assert not field_test({"field": "x", "max": 1}, False)
    assert field_test({"field": "x", "equals": True}, True)


@pytest.mark.parametrize(("cond", "want"), [
    ({"field": "gone", "present": False}, True),
    ({"field": "gone", "present": True}, False),
    ({"field": "gone", "equals": None}, True),
    ({"field": "gone", "equals": ""}, False),
    ({"field": "gone", "min": 0}, False),
    ({"field": "gone", "max": 0}, False),
    ({"field": "gone", "matches": ".*"}, False),
    ({"not": {"field": "gone", "in": ["x"]}}, True),
])
def test_a_missing_field_reads_as_none(cond: dict[str, Any], want: bool) -> None:
    assert holds(cond, read(ITEM)) is want


# -- all / any / not --------------------------------------------------------------------------

SUN = {"field": "suit", "equals": "sun"}
MOON = {"field": "suit", "equals": "moon"}
STRONG = {"field": "power", "min": 5}


@pytest.mark.parametrize(("cond", "want"), [
    ({"all": [SUN, {"field": "power", "equals": 1}]}, True),
    ({"all": [SUN, STRONG]}, False),
    ({"all": []}, True),
    ({"any": [MOON, STRONG]}, False),
    ({"any": [MOON, SUN]}, True),
    ({"any": []}, False),
    ({"not": SUN}, False),
    ({"not": {"not": SUN}}, True),
    ({"all": [{"any": [MOON, {"not": STRONG}]}, {"not": {"all": [SUN, STRONG]}}]}, True),
    ({"any": [{"all": [SUN, STRONG]}, {"all": [MOON, {"not": STRONG}]}]}, False),
])
def test_all_any_not_and_nesting(cond: dict[str, Any], want: bool) -> None:
    assert holds(cond, read(ITEM)) is want


def test_all_and_any_stop_at_the_deciding_condition() -> None:
    reads: list[str] = []

    def counting(name: str) -> Any:
        reads.append(name)
        if name == "boom":
            raise KeyError(name)
        return ITEM.get(name)

    assert holds({"any": [SUN, {"field": "boom", "present": True}]}, counting)
    assert not holds({"all": [MOON, {"field": "boom", "present": True}]}, counting)
    assert reads == ["suit", "suit"]
    with pytest.raises(KeyError):
        holds({"all": [SUN, {"field": "boom", "present": True}]}, counting)


def test_a_bad_pattern_is_a_value_error() -> None:
    with pytest.raises(ValueError, match=r"^invalid regular expression '\(': "):
        holds({"field": "name", "matches": "("}, read(ITEM))
    with pytest.raises(ValueError):
        regex("[a-")
    assert regex("a+") is regex("a+")  # compiled once


def test_a_named_backreference_runs_as_a_numbered_one_does() -> None:
    """``(?P=name)`` is Python's syntax for a backreference, as the docs promise; RE2 refuses it
    naming only "(?P", which was passed on as the error (issue 19, fourth attack)."""
    assert regex(r"(?P<n>\d+)=(?P=n)").fullmatch("12=12")
    assert not regex(r"(?P<n>\d+)=(?P=n)").fullmatch("12=13")
    with pytest.raises(ValueError, match="exponential"):  # and within the same subset as \1
        regex(r"(?P<n>(a+)+)(?P=n)")
    with pytest.raises(ValueError, match=r"^invalid regular expression"):  # RE2's (?P> ...: Python has none
        regex(r"(?P>n)")


def test_optional_atoms_count_as_repetitions() -> None:
    """``a?`` thirty times, ``a`` thirty times and a lookahead has no alternative and no nested
    repetition, yet backtracks 2**30 ways on 30 a's: 34 s of `check` (attack 6, F1). Each ``?``
    (a count with a choice) counts in the step estimate, so it is refused at once."""
    pattern = "a?" * 30 + "a" * 30 + "(?=b)"
    with pytest.raises(ValueError, match="would take more than"):
        regex(pattern).fullmatch("a" * 30)
    assert regex("colou?r(?=s)s").fullmatch("colours")  # one of them is cheap
    assert regex("(x)a{3}\\1").fullmatch("xaaax")  # a count without a choice is no repetition


# -- the walker --------------------------------------------------------------------------------

@pytest.mark.parametrize(("pattern", "twice"), [
    ("(?P<a>x)(?P<a>y)", "group name 'a' is used twice (groups 1 and 2)"),
    ("(?<a>x)|(?<a>y)", "group name 'a' is used twice (groups 1 and 2)"),
    (r"(x)[(?P<b>](?:y)(?P<b>z)\((?P<b>w)", "group name 'b' is used twice (groups 2 and 3)"),
    (r"(\d+)=\1(?P<n>x)(?P<n>y)", "redefinition of group name 'n'"),  # Python's re: it refused them already
])
def test_a_group_name_used_twice_is_a_value_error(pattern: str, twice: str) -> None:
    """RE2 compiled a pattern naming two groups alike (and kept the first); Python's re refuses it:
    so does pnp, for `matches` and `replace` alike (issue 19)."""
    with pytest.raises(ValueError, match=re.escape(twice)):
        regex(pattern)


@pytest.mark.parametrize(("pattern", "text"), [
    ("(?P<a>x)(?P<b>y)", "xy"),
    (r"[[:alpha:]](?P<a>x)[]a(?P<a>](?P<b>y)", "qx(y"),  # inside classes: no groups
    (r"\Q(?P<a>\E(?P<a>y)", "(?P<a>y"),  # \Q...\E: literal text
])
def test_a_group_name_seen_twice_outside_groups_is_fine(pattern: str, text: str) -> None:
    assert regex(pattern).fullmatch(text)


def test_fields_read_names_each_field_with_its_path_in_written_order() -> None:
    cond = {"all": [{"field": "suit", "equals": "sun"},
                    {"any": [{"field": "power", "min": 2}, {"not": {"field": "name", "present": True}}]},
                    {"not": {"all": [{"field": "suit", "in": ["moon"]}]}}]}
    assert list(fields_read(cond, ("elements", 3, "when"))) == [
        ("suit", ("elements", 3, "when", "all", 0, "field")),
        ("power", ("elements", 3, "when", "all", 1, "any", 0, "field")),
        ("name", ("elements", 3, "when", "all", 1, "any", 1, "not", "field")),
        ("suit", ("elements", 3, "when", "all", 2, "not", "all", 0, "field")),
    ]


def test_fields_read_of_a_field_test_and_of_empty_lists() -> None:
    assert list(fields_read({"field": "x", "present": True})) == [("x", ("field",))]
    assert list(fields_read({"any": []}, ("where",))) == []
    assert list(fields_read({"not": {"all": []}})) == []


def test_describe() -> None:
    assert describe({"field": "power", "min": 1, "max": 3}) == "power>=1 and power<=3"
    assert describe({"all": [SUN, {"not": {"any": [{"field": "tags", "in": ["a"]}, {"field": "x", "present": False}]}},
                             {"field": "name", "matches": "S.*"}]}) == \
        "(suit='sun' and not (tags in ['a'] or x unset) and name matches /S.*/)"


# -- where they are used ---------------------------------------------------------------------------

def layout_errors(root: DataRootCopy) -> list[Any]:
    with pytest.raises(DataError) as info:
        check(root.root, root.game)
    return list(info.value.diagnostics)


def test_template_when_with_nesting_decides_what_is_drawn(mini: DataRootCopy) -> None:
    # The power line is drawn for a sun card with power, or for any card without a suit.
    mini.replace(CARD, '"when": {"field": "power", "present": true}',
                 '"when": {"any": [{"all": [{"field": "suit", "equals": "sun"}, {"field": "power", "present": true}]},'
                 ' {"not": {"field": "suit", "present": true}}]}')
    gc = check(mini.root, mini.game)
    comp, plan = gc.game.components[0], gc.plans[0]
    ids = [it.id for it in comp.items for _ in range(it.copies)]
    drawn = {i: [p.text for p in f.primitives if isinstance(p, Text)] for i, f in zip(ids, plan.fronts, strict=True)}
    assert "Power 1" in drawn["sun-1"]
    assert not any(t.startswith("Power") for t in drawn["moon-1"])
    assert "Power" in drawn["joker"]


def test_every_unknown_field_of_a_nested_when_is_reported_at_its_path(mini: DataRootCopy) -> None:
    mini.replace(CARD, '"when": {"field": "power", "present": true}',
                 '"when": {"all": [{"field": "pwr", "present": true}, {"not": {"field": "siut", "equals": "sun"}}]}')
    got = [(d.path, d.message) for d in layout_errors(mini)]
    assert got == [(("elements", 3, "when", "all", 0, "field"), "unknown field 'pwr' (component deck)"),
                   (("elements", 3, "when", "all", 1, "not", "field"), "unknown field 'siut' (component deck)")]


def _add_rule(mini: DataRootCopy, rule: dict[str, Any]) -> None:
    mini.edit("game.json", lambda m: m["rulebook"].append(
        {"id": "r", "description": "d", "quote": "q", **rule}))


def test_rule_where_and_require(mini: DataRootCopy) -> None:
    _add_rule(mini, {"check": "each",
                     "select": {"component": "deck", "where": {"not": {"field": "suit", "present": False}}},
                     "require": {"any": [{"field": "suit", "equals": "sun"}, {"field": "power", "min": 2}]}})
    (out,) = [o for o in check_game(mini.load()).outcomes if o.rule.id == "r"]
    assert not out.passed
    assert out.expected == "every selected item (2) meets (suit='sun' or power>=2)"
    assert out.details == ("deck/moon-1 (card_data/mini/deck.json:18): suit='moon', power=1",)


def test_rule_where_with_an_unknown_nested_field_is_an_input_error(mini: DataRootCopy) -> None:
    _add_rule(mini, {"check": "equal", "values": [
        {"items": {"component": "deck", "where": {"all": [SUN, {"not": {"field": "pwoer", "min": 1}}]}}}, 0]})
    with pytest.raises(DataError) as info:
        check_game(mini.load())
    (d,) = info.value.diagnostics
    assert d.message == "rule 'r': unknown field 'pwoer'"
    assert d.path == ("rulebook", 2, "values", 0, "items", "where", "all", 1, "not", "field")


@pytest.mark.parametrize("depth", [600, 5000])
def test_deeply_nested_groups_are_an_error_or_an_answer(depth: int) -> None:
    """RE2 takes 5,000 nested groups; with a backreference the pattern goes to Python's parser,
    which recursed into a RecursionError at 600 (and 5,000 groups make a program larger than
    MAX_PROGRAM). The schemas hold data patterns to 200 characters, so only a library caller could
    get there."""
    from pnp.input.conditions import MAX_PROGRAM, regex

    if depth * 2 < MAX_PROGRAM:
        assert regex("(" * depth + "a" + ")" * depth).fullmatch("a")
    else:
        with pytest.raises(ValueError, match=rf"compiles to \d+ instructions \(more than {MAX_PROGRAM}\)"):
            regex("(" * depth + "a" + ")" * depth)
    with pytest.raises(ValueError, match="nested too deeply"):
        regex("(" * depth + "a" + ")" * depth + "\\1")


def test_replacement_literals_decode_escapes_as_the_engines_do() -> None:
    """The literal pieces of a ``replace[].with``, decoded as RE2's wrapper and Python's re decode
    them (what the template loader checks for control characters): group references drop out,
    ``\\ddd`` is an octal escape before it is a group, each piece decodes alone."""
    assert replacement_literals(r"\1-\g<name>-\g<2>") == "--"
    assert replacement_literals(r"a\x1bb") == "a\x1bb"
    assert replacement_literals(r"\101") == "A"  # octal, not group 10 then "1"
    assert replacement_literals(r"\N{NULL}\ud800") == "\x00\ud800"
    assert replacement_literals(r"\\1") == "\\1"  # a backslash, then the digit
    assert replacement_literals("’ \\t") == "’ \t"  # non-ASCII kept as itself
    with pytest.raises(ValueError, match="truncated"):
        replacement_literals(r"\x0\1a")  # "\x0" decodes alone (RE2's wrapper fails on it the same)
    with pytest.raises(ValueError):
        replacement_literals("ends with \\")
    # and what the engine really inserts agrees
    assert regex("S").sub(r"\x1b", "S") == replacement_literals(r"\x1b")
    assert regex("(S)").sub(r"[\1]\u00e9", "S") == "[S]" + replacement_literals(r"\u00e9")


def test_a_pattern_is_charged_its_size_times_the_characters_left_per_search() -> None:
    """RE2 searches afresh after each match and a search may read to the end (``.*z|.``): `sub`
    charges every search the pattern's size x the characters left, and stops at the budget."""
    from pnp.input.conditions import REGEX_COST, RegexCostError, regex

    rx = regex(".*z|.")
    out, steps = rx.sub_counted("a", "bcd", 10**9)
    assert out == "aaa" and steps == rx.size * (4 + 3 + 2 + 1)
    with pytest.raises(RegexCostError, match="more than 100 steps"):
        rx.sub_counted("a", "b" * 50, 100)
    with pytest.raises(RegexCostError, match=f"more than {REGEX_COST} steps"):
        regex("(?:.{0,40}){1}" * 10 + "x").fullmatch("a" * (REGEX_COST // 1000))


def test_at_most_max_compiled_patterns_are_kept_and_one_compiled_again_is_charged() -> None:
    """Every compiled RE2 keeps a DFA cache (up to 1 MiB with its programs): 500 distinct rule
    patterns held 1.4 GB (attack 10, F2). So only the MAX_COMPILED last used are kept; a pattern
    compiled again after it was dropped is charged RECOMPILE_STEPS a instruction (a piece or a
    rulebook cycling through more patterns pays for the compiling), a kept one nothing."""
    from pnp.input import conditions as c

    first = regex("keep-first-[a-z]+")
    c.reset_matches_steps()
    assert regex("keep-first-[a-z]+") is first and c.matches_steps() == 0  # kept: not compiled again
    for i in range(c.MAX_COMPILED):
        regex(f"keep-other-{i}-[a-z]+")
    assert len(c._COMPILED) == c.MAX_COMPILED and "keep-first-[a-z]+" not in c._COMPILED
    c.reset_matches_steps()
    again = regex("keep-first-[a-z]+")
    assert again is not first and again.fullmatch("keep-first-abc")
    assert c.matches_steps() == again.size * c.RECOMPILE_STEPS + again.cost("keep-first-abc")
    c.reset_matches_steps()


def test_a_pattern_whose_dfa_runs_out_of_memory_answers_right_and_prints_nothing() -> None:
    """`(?s:.*a.{490}b.*)c0` (3,452 instructions) on random a/b text fills the 1 MiB a compiled
    pattern may use: RE2 falls back to its NFA, answers as Python's re does, and its C++ logger
    prints no "DFA out of memory" line on stderr (it would, were log_errors left on)."""
    import subprocess
    import sys

    code = ("import random, re\n"
            "from pnp.input.conditions import regex\n"
            "rng = random.Random(4)\n"
            "p = '(?s:.*a.{490}b.*)c0'\n"
            "for tail in ('', 'c0', 'ac0'):\n"
            "    t = ''.join(rng.choice('ab') for _ in range(4000)) + tail\n"
            "    print(regex(p).fullmatch(t) == (re.fullmatch(p, t) is not None))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True", "True"]
    assert out.stderr == ""
