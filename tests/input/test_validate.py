"""Stage 2, validate: every schema problem of every file, each as
``file:line:col: $.path: what is wrong (expected ...)``, all reported in one run.

Most cases use ``tests/data/mini`` (a 3-item deck whose line numbers are fixed here); a few run
on a copy of the bundled Golems data."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, DataRootCopy, assert_no_traceback, diag_lines, json_paths
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from pnp.errors import DataError, Diagnostic, json_path
from pnp.input.load import Doc, load_json
from pnp.input.validate import item_validator, make_validator, validate_doc, validate_value, validator

DECK = "card_data/mini/deck.json"
GAME = "card_data/mini/game.json"


def errors(root: DataRootCopy) -> list[Diagnostic]:
    with pytest.raises(DataError) as info:
        root.load()
    return list(info.value.diagnostics)


def formatted(root: DataRootCopy) -> list[str]:
    return [d.format() for d in errors(root)]


def test_the_fixture_itself_is_valid(mini: DataRootCopy) -> None:
    game = mini.load()
    assert [(i.id, i.copies) for i in game.components[0].items] == [("sun-1", 2), ("moon-1", 2), ("joker", 1)]


# -- items ---------------------------------------------------------------------------------

def test_wrong_type(mini: DataRootCopy) -> None:
    mini.replace("deck.json", '"name": "Moon One"', '"name": 5')
    assert formatted(mini) == [f"{DECK}:20:15: $.items[1].name: wrong type: integer 5 (expected string)"]


def test_missing_required_field(mini: DataRootCopy) -> None:
    mini.replace("deck.json", '"name": "Joker",\n', "")
    assert formatted(mini) == [f"{DECK}:25:5: $.items[2]: missing required field 'name' "
                               '(expected "name": string, Card name); add it to this object']


def test_missing_source(mini: DataRootCopy) -> None:
    mini.edit("game.json", lambda d: d.update(provenance="required"))  # optional unless the game asks
    mini.replace("deck.json", ',\n      "source": {"designed": "one joker so the deck has an odd count"}', "")
    assert formatted(mini) == [f"{DECK}:25:5: $.items[2]: missing required field 'source' "
                               '(expected "source": where it comes from: {"document": QUOTE}, {"external": REF} '
                               'or {"designed": WHY}); add it to this object']


def test_unknown_field_with_suggestion(mini: DataRootCopy) -> None:
    mini.replace("deck.json", '"name": "Sun One"', '"nmae": "Sun One"')
    ds = errors(mini)
    assert [d.format() for d in ds] == [
        f"{DECK}:9:5: $.items[0]: missing required field 'name' "
        '(expected "name": string, Card name); add it to this object',
        f"{DECK}:12:7: $.items[0].nmae: unknown field 'nmae' "
        "(expected one of copies, id, name, power, series, source, suit); did you mean 'name'?",
    ]
    assert ds[1].hint == "did you mean 'name'?"


def test_unknown_field_far_from_any_name_has_no_suggestion(mini: DataRootCopy) -> None:
    mini.replace("deck.json", '"power": 1,\n      "source": {"document": "Sun One x2"}',
                 '"power": 1,\n      "flavour": "x",\n      "source": {"document": "Sun One x2"}')
    (d,) = errors(mini)
    assert (d.line, d.col, d.path) == (15, 7, ("items", 0, "flavour"))
    assert d.message == "unknown field 'flavour'"
    assert d.hint is None


def test_enum_value(mini: DataRootCopy) -> None:
    mini.replace("deck.json", '"suit": "sun"', '"suit": "stars"')
    assert formatted(mini) == [f'{DECK}:13:15: $.items[0].suit: value "stars" is not allowed '
                               '(expected one of "sun", "moon")']


def test_declared_max(mini: DataRootCopy) -> None:
    mini.replace("deck.json", '"power": 1,\n      "source": {"document": "Moon', '"power": 10,\n      '
                 '"source": {"document": "Moon')
    assert formatted(mini) == [f"{DECK}:22:16: $.items[1].power: number 10 is out of range "
                               "(expected a number <= 9)"]


@pytest.mark.parametrize("value,message,expected", [
    ("0", "number 0 is out of range", "a number >= 1"),
    ("-3", "number -3 is out of range", "a number >= 1"),
    ("1000000000", "number 1000000000 is out of range", "a number <= 10000"),
    ("2.5", "wrong type: number 2.5", "integer"),
    ("2.0", "wrong type: number 2.0", "integer"),  # 2.0 would reach list repetition as a float
    ("true", "wrong type: boolean true", "integer"),
    ('"2"', 'wrong type: string "2"', "integer"),
])
def test_bad_copies(mini: DataRootCopy, value: str, message: str, expected: str) -> None:
    mini.replace("deck.json", '"copies": 2,\n      "name": "Sun One"', f'"copies": {value},\n      "name": "Sun One"')
    (d,) = errors(mini)
    assert (d.file, d.line, d.col, d.path) == (DECK, 11, 17, ("items", 0, "copies"))
    assert (d.message, d.expected) == (message, expected)


@pytest.mark.parametrize("bad", ["Sun-1", "sun 1", "-sun", "sun_1", ""])
def test_bad_item_id(mini: DataRootCopy, bad: str) -> None:
    mini.replace("deck.json", '"id": "sun-1"', f'"id": {json.dumps(bad)}')
    (d,) = errors(mini)
    assert (d.line, d.col, d.path) == (10, 13, ("items", 0, "id"))
    assert d.message == f"invalid value {json.dumps(bad)}"
    assert d.expected == "lowercase letters, digits and hyphens, e.g. golem-deck"


@pytest.mark.parametrize("source,want", [
    # (line, col, path, message) of each diagnostic
    ({"document": "Sun One x2", "designed": "also made up"},
     [(15, 17, ("items", 0, "source"), "combines 'document' and 'designed', which belong to different forms")]),
    ({"document": "Sun One x2", "quote": "q"},
     [(15, 17, ("items", 0, "source"), "combines 'document' and 'quote', which exclude each other")]),
    ({"designed": ""},
     [(15, 30, ("items", 0, "source", "designed"), '"" should be non-empty')]),
    ({"documnet": "Sun One x2"},
     [(15, 17, ("items", 0, "source"), "missing one of the fields 'document', 'external', 'designed'"),
      (15, 18, ("items", 0, "source", "documnet"), "unknown field 'documnet'")]),
    ("Sun One x2",
     [(15, 17, ("items", 0, "source"), 'wrong type: string "Sun One x2"')]),
])
def test_bad_source(mini: DataRootCopy, source: object, want: list[tuple]) -> None:
    mini.replace("deck.json", '"source": {"document": "Sun One x2"}', f'"source": {json.dumps(source)}')
    got = [(d.line, d.col, d.path, d.message) for d in errors(mini)]
    for w in want:
        assert w in got
    assert all(d.file == DECK for d in errors(mini))


def _said(schema_name: str, value: Any) -> list[tuple[str, str, str | None]]:
    """(JSON path, message, expected) of every diagnostic of ``value`` against a shipped schema."""
    doc = Doc("f.json", Path("f.json"), value, json.dumps(value, indent=2))
    return [(json_path(d.path), d.message, d.expected) for d in validate_doc(doc, schema_name)]


# A union (oneOf/anyOf) reports the errors of the form the value has (its discriminating key present,
# no key unknown to it), at the key that has them: not "unknown field" for the keys of that form
# measured against another form (attack 13, F10).
@pytest.mark.parametrize(("cond", "want"), [
    ({"field": "text", "present": "yes"}, [("$.present", 'wrong type: string "yes"', "boolean")]),
    ({"field": "n", "min": "3"}, [("$.min", 'wrong type: string "3"', "number")]),
    ({"field": "role", "in": "Scout"}, [("$.in", 'wrong type: string "Scout"', "array")]),
    ({"field": "name", "matches": 5}, [("$.matches", "wrong type: integer 5", "string")]),
    ({"field": 5, "equals": 1}, [("$.field", "wrong type: integer 5", "string")]),
    ({"field": "a", "present": "yes", "min": "3"},
     [("$.present", 'wrong type: string "yes"', "boolean"), ("$.min", 'wrong type: string "3"', "number")]),
    ({"all": {"field": "a", "present": True}},
     [("$.all", 'wrong type: object {"field": "a", "present": true}', "array")]),
    ({"not": [{"field": "a", "present": True}]},
     [("$.not", 'wrong type: array [{"field": "a", "present": true}]', "object")]),
    ({"any": [{"field": "a", "present": "no"}]}, [("$.any[0].present", 'wrong type: string "no"', "boolean")]),
    ({"all": [{"not": {"field": "a", "max": []}}]}, [("$.all[0].not.max", "wrong type: array []", "number")]),
    ({"field": "a", "present": "yes", "zzz": 1},
     [("$.present", 'wrong type: string "yes"', "boolean"),
      ("$.zzz", "unknown field 'zzz'", "one of equals, field, in, matches, max, min, present")]),
    # a string where a condition belongs: the wrong type alone, not also jsonschema's dump of every form
    ("name=x", [("$", 'wrong type: string "name=x"', "object")]),
    ({"all": [5]}, [("$.all[0]", "wrong type: integer 5", "object")]),
])
def test_a_condition_reports_the_wrong_value_at_its_key(cond: Any, want: list[tuple[str, str, str]]) -> None:
    assert _said("condition", cond) == want


def test_a_condition_with_keys_of_two_forms_or_of_none() -> None:
    (d,) = _said("condition", {"field": "a", "all": []})
    assert d[:2] == ("$", "combines 'field' and 'all', which belong to different forms")
    assert d[2] and d[2].startswith("either 'field' or 'all': Data, never an expression")
    missing, unknown = _said("condition", {"fild": "a", "present": True})
    assert missing[:2] == ("$", "missing one of the fields 'field', 'all', 'any', 'not'")
    assert unknown[:2] == ("$.fild", "unknown field 'fild'")


GAME_RULE = {"id": "g", "title": "G", "players": {"min": 1, "max": 2}, "document": {"file": "r.txt"},
             "components": [{"id": "deck", "title": "Deck", "kind": "card", "size": "mini", "data": "deck.json",
                             "template": "g/card"}]}


def _rule(**kw: Any) -> dict[str, Any]:
    return {**GAME_RULE, "rulebook": [{"id": "r", "description": "d", "quote": "q", **kw}]}


@pytest.mark.parametrize(("value", "want"), [
    ({"pieces": "deck"}, [("$.rulebook[0].values[0].pieces", 'wrong type: string "deck"', "object")]),
    ({"pieces": {"component": 5}}, [("$.rulebook[0].values[0].pieces.component", "wrong type: integer 5", "string")]),
    ({"sum": "x"}, [("$.rulebook[0].values[0].sum", 'wrong type: string "x"', "array")]),
    ({"product": [{"items": "deck"}]},
     [("$.rulebook[0].values[0].product[0].items", 'wrong type: string "deck"', "object")]),
    ({"total": {"component": "deck", "field": "n", "count": "all"}},
     [("$.rulebook[0].values[0].total.count", 'value "all" is not allowed', 'one of "items", "pieces"')]),
    ({"items": {"component": "deck", "where": "name=x"}},
     [("$.rulebook[0].values[0].items.where", 'wrong type: string "name=x"', "object")]),
    ("five", [("$.rulebook[0].values[0]", 'wrong type: string "five"', "number or object")]),
    ({"pieces": {"component": "deck"}, "items": {"component": "deck"}},
     [("$.rulebook[0].values[0]", "combines 'pieces' and 'items', which belong to different forms",
       "either 'pieces' or 'items': A number, or a count/sum/product/field value computed from the data")]),
])
def test_a_rulebook_value_reports_the_wrong_value_at_its_key(value: Any, want: list[tuple[str, str, str]]) -> None:
    assert _said("game", _rule(check="equal", values=[value, 3])) == want


def test_rulebook_conditions_and_forms_valid_twice() -> None:
    each = _rule(check="each", select={"component": "deck", "where": "name=x"}, require={"field": "n", "min": "3"})
    assert _said("game", each) == [("$.rulebook[0].select.where", 'wrong type: string "name=x"', "object"),
                                   ("$.rulebook[0].require.min", 'wrong type: string "3"', "number")]
    # a oneOf the value passes twice: named, not jsonschema's "is valid under each of" and the schema
    unique = _rule(check="unique", select={"component": "deck"}, field="name", fields=["a", "b"])
    assert _said("game", unique) == [("$.rulebook[0]", "combines 'field' and 'fields', which belong to different forms",
                                      "either 'field' or 'fields'")]
    fits = _rule(check="fits", pieces={"component": "deck", "size": [20, 20], "name": "cube"},
                 space={"component": "deck", "element": "e"}, clearance=1)
    ((path, message, expected),) = _said("game", fits)
    assert (path, message) == ("$.rulebook[0].pieces", "combines 'component', 'size' and 'name', which belong to "
                                                        "different forms")
    assert expected and expected.startswith("either 'component' or 'size' with 'name': The pieces placed")


@pytest.mark.parametrize(("schema_name", "value", "at", "want"), [
    ("game", {**_rule(check="equal", values=[1, 1]), "components": [{**GAME_RULE["components"][0], "size": {"w": 1}}]},
     "$.components[0].size", ('wrong type: object {"w": 1}', "string or array")),
    ("template", {"elements": [{"type": "rect", "box": [0, 0, 1, 1], "fill": 5}]},
     "$.elements[0].fill", ("wrong type: integer 5", "string or object")),
    ("template", {"elements": [{"type": "rect", "box": [True, 0, 1, 1]}]},
     "$.elements[0].box[0]", ("wrong type: boolean true", "number or string")),
])
def test_a_type_that_no_form_takes_names_every_type(schema_name: str, value: Any, at: str,
                                                    want: tuple[str, str]) -> None:
    assert _said(schema_name, value) == [(at, *want)]


def test_source_both_document_and_designed_explains_the_forms(mini: DataRootCopy) -> None:
    mini.replace("deck.json", '"source": {"document": "Sun One x2"}',
                 '"source": {"document": "Sun One x2", "designed": "x"}')
    (d,) = errors(mini)
    assert "exactly one of document" in (d.expected or "")


def test_unknown_source_key_suggests_document(mini: DataRootCopy) -> None:
    mini.replace("deck.json", '"source": {"document": "Sun One x2"}', '"source": {"documnet": "Sun One x2"}')
    (unknown,) = [d for d in errors(mini) if d.message.startswith("unknown field")]
    assert unknown.hint == "did you mean 'document'?"


# -- field declarations ----------------------------------------------------------------------

def test_field_declaration_with_bad_type_and_bad_names(mini: DataRootCopy) -> None:
    mini.replace("deck.json", '"suit": {"type": "string", "enum"', '"Suit": {"type": "str", "enum"')
    mini.replace("deck.json", '"power": {"type": "integer"', '"copies": {"type": "integer"')
    assert formatted(mini) == [
        f"{DECK}:5:5: $.fields.Suit: invalid name 'Suit' "
        "(expected lowercase letters, digits and underscores, starting with a letter)",
        f'{DECK}:5:22: $.fields.Suit.type: value "str" is not allowed '
        '(expected one of "string", "text", "integer", "number", "boolean", "list")',
        f"{DECK}:6:5: $.fields.copies: the name 'copies' is reserved "
        "(expected a name other than id, copies, source, series, n, index, row, col)",
    ]


def test_data_file_for_another_component(mini: DataRootCopy) -> None:
    mini.replace("deck.json", '"component": "deck"', '"component": "dekc"')
    assert formatted(mini) == [f"{DECK}:2:16: $.component: file holds component 'dekc' but the manifest "
                               "uses it for 'deck' (expected 'deck')"]


def test_duplicate_item_id_names_the_first(mini: DataRootCopy) -> None:
    mini.replace("deck.json", '"id": "joker"', '"id": "sun-1"')
    assert formatted(mini) == [f"{DECK}:26:13: $.items[2].id: duplicate item id 'sun-1' (first at line 9) "
                               "(expected unique item ids in a file)"]


# -- manifest --------------------------------------------------------------------------------

def test_unknown_component_kind(mini: DataRootCopy) -> None:
    mini.replace("game.json", '"kind": "card"', '"kind": "cardd"')
    assert formatted(mini) == [f"{GAME}:10:15: $.components[0].kind: unknown kind 'cardd' "
                               "(expected one of board, box, card, mat, sheet, tile, token, track)"]


def test_shape_not_allowed_for_the_kind(mini: DataRootCopy) -> None:
    mini.replace("game.json", '"shape": "rect"', '"shape": "hex"')
    assert formatted(mini) == [f"{GAME}:11:16: $.components[0].shape: shape 'hex' is not a card shape "
                               "(expected one of rounded, rect)"]


def test_shape_that_no_kind_has(mini: DataRootCopy) -> None:
    mini.replace("game.json", '"shape": "rect"', '"shape": "oval"')
    (d,) = errors(mini)
    assert (d.line, d.col, d.path) == (11, 16, ("components", 0, "shape"))
    assert d.message == 'value "oval" is not allowed'


def test_back_on_a_kind_without_backs(mini: DataRootCopy) -> None:
    mini.replace("game.json", '"kind": "card"', '"kind": "sheet"')
    mini.replace("game.json", '"shape": "rect",\n', "")
    (d,) = errors(mini)
    assert (d.line, d.col, d.path) == (14, 15, ("components", 0, "back"))
    assert d.message == "a sheet has no back"


def test_unknown_manifest_field_with_suggestion(mini: DataRootCopy) -> None:
    mini.replace("game.json", '"title": "Deck"', '"titel": "Deck"')
    assert formatted(mini) == [
        f"{GAME}:7:5: $.components[0]: missing required field 'title' "
        '(expected "title": Human name of the component (at most 200 characters)); add it to this object',
        f"{GAME}:9:7: $.components[0].titel: unknown field 'titel' (expected one of back, bleed, cache, "
        "corner_radius, data, fields, id, id_from, kind, notes, shape, size, source, template, title); "
        "did you mean 'title'?",
    ]


def test_game_id_must_match_its_folder(mini: DataRootCopy) -> None:
    mini.replace("game.json", '"id": "mini"', '"id": "maxi"')
    assert formatted(mini) == [f"{GAME}:2:9: $.id: game id 'maxi' differs from its folder name 'mini' "
                               "(expected 'mini')"]


def test_missing_data_file(mini: DataRootCopy) -> None:
    mini.replace("game.json", '"data": "deck.json"', '"data": "decks.json"')
    assert formatted(mini) == [f"{GAME}:13:15: $.components[0].data: data file 'decks.json' not found "
                               "(expected a .json file in card_data/mini)"]


@pytest.mark.parametrize("bad", ["../deck.json", "sub/deck.json", "deck.txt"])
def test_data_file_must_be_a_json_file_in_the_game_folder(mini: DataRootCopy, bad: str) -> None:
    mini.replace("game.json", '"data": "deck.json"', f'"data": "{bad}"')
    (d,) = errors(mini)
    assert (d.line, d.col, d.path) == (13, 15, ("components", 0, "data"))
    assert d.expected == ("a .json, .csv, .tsv, .xlsx or .ods file name in the game folder, without folders (a "
                          "workbook's sheet as cards.xlsx#Spells), or the http(s) URL of a published CSV")


def test_size_must_be_positive(mini: DataRootCopy) -> None:
    mini.replace("game.json", '"size": "mini"', '"size": [0, 63]')
    # The union (a name or [w, h]) is explained by the branch for arrays, not "expected a name".
    # The floor is 5 mm (issue 19): smaller pieces cannot be cut, and millions fit on a page.
    assert formatted(mini) == [f"{GAME}:12:16: $.components[0].size[0]: number 0 is out of range "
                               "(expected a number >= 5)"]


def test_unknown_size_name(mini: DataRootCopy) -> None:
    mini.replace("game.json", '"size": "mini"', '"size": "mnii"')
    (d,) = errors(mini)
    assert (d.line, d.col, d.path) == (12, 15, ("components", 0, "size"))
    assert d.message == 'value "mnii" is not allowed'


# -- all at once -------------------------------------------------------------------------------

def test_several_errors_in_several_files_are_all_reported_with_their_own_lines(mini: DataRootCopy) -> None:
    mini.replace("game.json", '"title": "Mini"', '"title": "Mini", "desinger": "me"')
    mini.replace("deck.json", '"copies": 2,\n      "name": "Sun One"', '"copies": 0,\n      "name": "Sun One"')
    mini.replace("deck.json", '"suit": "moon"', '"suit": "Moon"')
    mini.replace("deck.json", '"name": "Joker"', '"name": ["Joker"]')
    assert [(d.file, d.line, d.col, d.path) for d in errors(mini)] == [
        (GAME, 3, 20, ("desinger",)),
        (DECK, 11, 17, ("items", 0, "copies")),
        (DECK, 21, 15, ("items", 1, "suit")),
        (DECK, 27, 15, ("items", 2, "name")),
    ]


def test_all_errors_via_cli_exit_2_and_nothing_else(mini: DataRootCopy) -> None:
    mini.replace("deck.json", '"copies": 2,\n      "name": "Moon One"', '"copies": -1,\n      "name": "Moon One"')
    mini.replace("deck.json", '"id": "joker"', '"id": "Joker"')
    r = mini.check()
    assert r.exit_code == 2
    assert_no_traceback(r)
    assert diag_lines(r.stderr) == [
        f"{DECK}:19:17: $.items[1].copies: number -1 is out of range (expected a number >= 1)",
        f'{DECK}:26:13: $.items[2].id: invalid value "Joker" '
        "(expected lowercase letters, digits and hyphens, e.g. golem-deck)",
    ]
    assert "mini: 2 input problems" in r.stderr
    assert r.stdout == ""


def test_golems_misspelt_field_via_cli(golems: DataRootCopy) -> None:
    golems.replace("golem-deck.json", '"name": "Flesh"', '"nmae": "Flesh"')
    line, col = golems.pos_of("golem-deck.json", '"nmae"')
    r = golems.check()
    assert r.exit_code == 2
    assert_no_traceback(r)
    assert f"card_data/golems/golem-deck.json:{line}:{col}: $.items[0].nmae: unknown field 'nmae'" in r.stderr
    assert "did you mean 'name'?" in r.stderr


def test_golems_errors_in_manifest_and_data_files_in_one_run(golems: DataRootCopy) -> None:
    # A manifest error does not hide the errors of the data files of valid components.
    golems.replace("game.json", '"kind": "tile"', '"kind": "tiles"')
    golems.replace("game.json", '"designer": "Lloyd Krassner"', '"desinger": "Lloyd Krassner"')
    golems.edit("event-deck.json", lambda d: d["items"][3].__setitem__("copies", 10**9))
    golems.edit("counters.json", lambda d: d["items"][0].__setitem__("value", 0))
    got = {(d.file, d.path): d for d in errors(golems)}
    assert set(got) == {
        ("card_data/golems/game.json", ("desinger",)),
        ("card_data/golems/game.json", ("components", 0, "kind")),
        ("card_data/golems/event-deck.json", ("items", 3, "copies")),
        ("card_data/golems/counters.json", ("items", 0, "value")),
    }
    copies = got[("card_data/golems/event-deck.json", ("items", 3, "copies"))]
    assert copies.line == golems.line_of("event-deck.json", '"copies": 1000000000')
    assert copies.expected == "a number <= 10000"
    assert got[("card_data/golems/game.json", ("desinger",))].hint == "did you mean 'designer'?"


# -- pnp's JSON Schema dialect (moved from the removed tests/test_fastcheck.py) ---------------------

@pytest.mark.parametrize(("sch", "value", "valid"), [
    ({"type": "integer"}, 2.0, False),  # pnp: a count must not be a float
    ({"type": "integer"}, True, False),
    ({"type": "integer"}, 2, True),
    ({"type": "number"}, False, False),
    ({"pattern": "^[a-z]*$"}, "deck\n", False),  # pnp: a final $ is the end of the text
    ({"pattern": "^[a-z]*$"}, "deck", True),
    ({"pattern": "^[a-z]*\\$"}, "deck$", True),  # an escaped $ is a dollar sign
    ({"pattern": "b"}, "abc", True),  # re.search, not re.match
    ({"pattern": "^[a-z]*$"}, 5, True),  # a pattern says nothing about other types
    ({"enum": [1]}, True, False), ({"enum": [1]}, 1.0, True), ({"const": [0]}, [False], False),
    ({"const": {"a": [1, "x"]}}, {"a": [1.0, "x"]}, True),
    ({"minLength": 2}, "é", False), ({"maxLength": 1}, "é", True),
])
def test_pnp_dialect(sch: dict[str, Any], value: Any, valid: bool) -> None:
    v = make_validator(sch)
    assert v.is_valid(value) == valid  # jsonschema, as pnp extends it
    assert v.fast.is_valid(value) == valid  # jsonschema-rs, as pnp compiles it: the same verdict


def test_each_shipped_schema_has_one_validator_per_process() -> None:
    assert validator("game") is validator("game")
    assert validator("game") is not validator("template")


def test_item_schema_verdicts() -> None:
    """The schema made from a ``fields`` declaration: declared types, enums and bounds, the reserved
    keys (id, copies, source, series) and no other key."""
    fields = {"n": {"type": "integer", "description": "n", "min": 1, "max": 3},
              "c": {"type": "string", "description": "c", "enum": ["red", "blue"], "required": True},
              "t": {"type": "list", "description": "t"}}
    v = item_validator(fields)
    base = {"id": "x", "c": "red", "source": {"document": "d"}}
    for item, valid in [(base, True), ({**base, "n": 2}, True), ({**base, "n": 4}, False),
                        ({**base, "n": 2.0}, False), ({**base, "t": ["a", 1]}, False),
                        ({**base, "source": {"designed": "d", "quote": "q"}}, False),
                        ({**base, "source": {"document": "d", "quote": "q"}}, False),
                        ({**base, "source": {"external": "e", "quote": "q"}}, True),
                        ({**base, "id": "X"}, False), ({**base, "copies": 0}, False),
                        ({**base, "series": {"field": "n", "from": 1, "to": 3}}, True),
                        ({**base, "series": {"field": "z", "from": 1, "to": 3}}, False),
                        ({**base, "other": 1}, False), ({"id": "x", "source": {"document": "d"}}, False)]:
        assert v.is_valid(item) == valid, item


# -- the bundled games, as they are and mutated -------------------------------------------------------

def _bundled() -> list[tuple[str, Any]]:
    files = sorted((REPO / "card_data").glob("*/*.json")) + sorted((REPO / "templates").glob("*/*.json"))
    return [(str(p.relative_to(REPO)), json.loads(p.read_text("utf-8"))) for p in files]


BUNDLED = _bundled()


def _schema_name(name: str) -> str:
    return "template" if name.startswith("templates/") else "game" if name.endswith("/game.json") else "component"


def _items(data: dict[str, Any]) -> list[Any]:
    """The items as pnp validates them: a series supplies its field (pnp/input/project.py)."""
    out = []
    for item in data["items"]:
        series = item.get("series") if isinstance(item, dict) else None
        if isinstance(series, dict) and isinstance(series.get("field"), str) and series["field"] not in item:
            item = {**item, series["field"]: series.get("from")}
        out.append(item)
    return out


def test_every_bundled_file_and_item_is_valid() -> None:
    assert len(BUNDLED) > 50
    for name, data in BUNDLED:
        assert validator(_schema_name(name)).is_valid(data), name
        if _schema_name(name) == "component":
            v = item_validator(data["fields"])
            assert all(v.is_valid(item) for item in _items(data)), name


SCALARS = [None, True, False, 0, 1, -1, 2.0, 2.5, 10**20, "", "a", "a\n", "Deck", "#fff", "golems/card", "é"]
KEYS = ["a", "type", "field", "designed", "document", "quote", "copies", "source", "series", "id", "size", "fill"]
values = st.recursive(st.sampled_from(SCALARS) | st.integers(-3, 3) | st.text("ab#\n$-", max_size=3),
                      lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.sampled_from(KEYS), kids,
                                                                               max_size=4), max_leaves=12)




@st.composite
def mutated(draw: st.DrawFn, data: Any) -> Any:
    """`data` with 1-3 changes: a value replaced, a key removed, renamed or added, an array item
    removed or repeated."""
    data = copy.deepcopy(data)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(json_paths(data)))
        parent = data
        for p in path[:-1]:
            parent = parent[p]
        target = parent[path[-1]] if path else data
        op = draw(st.sampled_from(["replace", "remove", "rename", "add", "repeat"]))
        if op == "replace" and path:
            parent[path[-1]] = draw(values)
        elif op == "remove" and path:
            del parent[path[-1]]
        elif op == "rename" and path and isinstance(parent, dict):
            parent[path[-1] + draw(st.sampled_from(["s", "_", "x"]))] = parent.pop(path[-1])
        elif op == "add" and isinstance(target, dict):
            target[draw(st.sampled_from(KEYS))] = draw(values)
        elif op == "repeat" and isinstance(target, list) and target:
            target.append(copy.deepcopy(target[draw(st.integers(0, len(target) - 1))]))
    return data


PROPERTY = settings(max_examples=int(os.environ.get("PNP_VALIDATE_EXAMPLES", "100")), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _diagnosed(value: Any, v: Any) -> None:
    """Every invalid value gets at least one diagnostic, each with a message and a path inside the
    value; a valid value gets none."""
    text = json.dumps(value, indent=2)
    doc = Doc("mutated.json", Path("mutated.json"), value, text)
    diags = validate_value(doc, value, v, ())
    assert bool(diags) != v.is_valid(value)
    for d in diags:
        assert d.message and d.file == "mutated.json"
        assert "valid under" not in d.message, d  # jsonschema's union words, which print the schema
        assert d.path in json_paths(value) or d.path[:-1] in json_paths(value)  # a value, or a key of an object


@PROPERTY
@given(st.data())
def test_mutated_bundled_files_are_diagnosed(data: st.DataObject) -> None:
    name, doc = data.draw(st.sampled_from(BUNDLED))
    note(name)
    _diagnosed(data.draw(mutated(doc)), validator(_schema_name(name)))


@PROPERTY
@given(st.data())
def test_mutated_bundled_items_are_diagnosed(data: st.DataObject) -> None:
    name, doc = data.draw(st.sampled_from([(n, d) for n, d in BUNDLED if _schema_name(n) == "component"]))
    items = _items(doc)
    item = data.draw(mutated(items[data.draw(st.integers(0, len(items) - 1))]))
    note(f"{name}: {json.dumps(item)}")
    _diagnosed(item, item_validator(doc["fields"]))


def test_the_compiled_check_decides_validity_and_jsonschema_the_messages(mini: DataRootCopy) -> None:
    """jsonschema-rs answers "valid?"; what it rejects, jsonschema explains. Both hold pnp's rules:
    2.0 is no integer (the draft's would be), a final $ ends the text."""
    v = validator("component")
    good = load_json(mini.file("deck.json"), "deck.json")
    assert v.fast.is_valid(good.data) and v.is_valid(good.data) and validate_value(good, good.data, v, ()) == []
    bad = {**good.data, "items": "none"}
    assert not v.fast.is_valid(bad) and validate_value(good, bad, v, ())
    two = {"id": "a", "copies": 2.0, "source": {"designed": "x"}}
    iv = item_validator({})
    assert not iv.fast.is_valid(two) and iv.fast.is_valid({**two, "copies": 2})
    doc = Doc("d.json", Path("d.json"), {"items": [two]})
    (d,) = validate_value(doc, two, iv, ("items", 0))
    assert d.path == ("items", 0, "copies") and d.expected == "integer"
    either = make_validator({"type": ["integer", "number"]})
    assert either.fast.is_valid(2.0) and make_validator({"type": ["integer", "string"]}).fast.is_valid(2.0) is False
    assert make_validator({"pattern": "^[a-z]+$"}).fast.is_valid("deck\n") is False


def test_ctrl_c_while_a_schema_compiles_is_a_ctrl_c(monkeypatch: pytest.MonkeyPatch) -> None:
    """A SIGINT handled inside the `pnpInteger` keyword class (Python that jsonschema-rs calls
    while compiling) came out as jsonschema_rs.ValidationError: "internal error", exit 3, found by
    sending SIGINT to `pnp build` at 0.62 s. It is held back until the schema is compiled, and
    then raised as the KeyboardInterrupt the command turns into exit 130."""
    import signal

    from pnp.input import validate

    calls = []

    def init(self: object, *args: object) -> None:
        if not calls:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C while Rust calls back into Python
        calls.append(args)

    def interrupted(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(validate._NoFloat, "__init__", init)
    old = signal.signal(signal.SIGINT, interrupted)
    try:
        with pytest.raises(KeyboardInterrupt):
            make_validator({"type": "object", "properties": {"n": {"type": "integer"}}})
    finally:
        signal.signal(signal.SIGINT, old)
    assert calls  # the keyword class ran: the signal came while it did


# -- the free texts printed on the contents sheet and the sheets' labels (attack 13, F9): a 9 MB
# component title passed `check` and took `build` 80 s and 1 GB laying out its labels.
SHEET_TEXTS = [  # (JSON path into the manifest, its cap)
    (("title",), 200), (("subtitle",), 200), (("designer",), 200), (("document", "title"), 200),
    (("components", 0, "title"), 200),
    (("not_printed", 0, "name"), 400), (("not_printed", 0, "quantity"), 400),
]


def _at(data: Any, path: tuple[str | int, ...]) -> Any:
    for p in path[:-1]:
        data = data[p]
    return data


@pytest.mark.parametrize(("path", "cap"), SHEET_TEXTS, ids=[".".join(map(str, p)) for p, _ in SHEET_TEXTS])
def test_a_text_printed_on_the_sheets_is_held_to_its_cap(mini: DataRootCopy, path: tuple[str | int, ...],
                                                         cap: int) -> None:
    def set_text(n: int) -> None:
        def edit(g: Any) -> None:
            g["document"]["title"] = "Mini rules"
            g["not_printed"] = [{"name": "Dice", "quantity": "Two"}]
            _at(g, path)[path[-1]] = ("word " * n)[:n]
        mini.edit("game.json", edit)

    set_text(cap)
    assert mini.check().exit_code == 0
    set_text(1_000_000)
    r = mini.check()
    assert r.exit_code == 2
    assert_no_traceback(r)
    (line,) = [x for x in diag_lines(r.stderr) if "too long" in x]
    shown = "$." + ".".join(f"{p}" if isinstance(p, str) else f"[{p}]" for p in path).replace(".[", "[")
    assert f": {shown}: text of 1,000,000 characters is too long: \"word word" in line
    assert "(expected " in line and f" (at most {cap} characters))" in line
    r = mini.cli("build", "mini", "--out", str(mini.path / "out"))
    assert r.exit_code == 2
    assert not (mini.path / "out").exists()


def test_every_bundled_text_on_the_sheets_is_well_under_its_cap() -> None:
    """Half the cap at most: the caps leave room (the longest today, a not_printed quantity, is 164)."""
    for game in (REPO / "card_data").glob("*/game.json"):
        g = json.loads(game.read_text())
        texts = [(("title",), g.get("title")), (("subtitle",), g.get("subtitle")), (("designer",), g.get("designer")),
                 (("document", "title"), (g.get("document") or {}).get("title"))]
        texts += [(("components", 0, "title"), c["title"]) for c in g["components"]]
        texts += [(("not_printed", 0, k), n[k]) for n in g.get("not_printed", []) for k in ("name", "quantity")]
        caps = dict(SHEET_TEXTS)
        for path, text in texts:
            assert text is None or len(text) <= caps[path] // 2, (game, path, text)


def test_declarations_and_list_values_have_limits_checked_without_walking_them(mini: DataRootCopy) -> None:
    """More than 1,000 fields, enum values or list entries is an error at the value; the
    Python validator looks at one past the limit, not at every field (300,000 took 20 s once)."""
    def edit(data: dict[str, Any]) -> None:
        data["fields"].update({f"f{i}": {"type": "string", "description": "x"} for i in range(20_000)})
        data["fields"]["suit"]["enum"] = [f"s{i}" for i in range(1_001)]
    mini.edit("deck.json", edit)
    got = [(json_path(d.path), d.message.split(" has ")[-1].split(" is ")[-1], d.expected) for d in errors(mini)]
    assert got == [
        ("$.fields", "too many properties", "at most 1000 keys: The fields an item may carry, by name (at most 1,000)"),
        ("$.fields.suit.enum", "too long", "at most 1000 items: Allowed values (at most 1,000)"),
    ]

    def listed(data: dict[str, Any]) -> None:
        data["fields"] = {"name": data["fields"]["name"], "tags": {"type": "list", "description": "Tags"}}
        for item in data["items"]:
            item.pop("suit", None), item.pop("power", None)
        data["items"][0]["tags"] = [f"t{i}" for i in range(100_000)]
    mini.edit("deck.json", listed)
    (d,) = errors(mini)
    assert json_path(d.path) == "$.items[0].tags" and d.message.endswith("is too long")
    assert d.expected == "at most 1000 items"


def test_python_walks_only_the_entries_the_compiled_validator_rejects(monkeypatch: pytest.MonkeyPatch) -> None:
    """jsonschema (Python, ~0.5 ms an element through the element forms) is asked only about the
    entries jsonschema-rs rejects: a template of 20,000 valid elements and one bad one took 11.7 s
    to explain. Should the two ever disagree, the whole value is walked in Python."""
    import pnp.input.validate as validate

    rect = {"type": "rect", "box": [1, 1, 2, 2], "fill": "#ff0000"}
    template = {"elements": [rect] * 2_000 + [{**rect, "fil": "#00ff00"}] + [rect] * 10,
                "colors": {f"c{i}": "#123456" for i in range(500)} | {"bad": "#12"}}
    walked: list[object] = []
    walker = type(validator("template").full)
    descend = walker.descend

    def counted(self: Any, instance: Any, schema: Any, path: Any = None, schema_path: Any = None,
                resolver: Any = None) -> Any:
        if path is not None:
            walked.append(path)
        return descend(self, instance, schema, path, schema_path, resolver)

    monkeypatch.setattr(walker, "descend", counted)
    doc = Doc("t.json", Path("t.json"), template, json.dumps(template))
    said = [(json_path(d.path), d.message) for d in validate_value(doc, template, validator("template"), ())]
    assert said == [("$.elements[2000].fil", "unknown field 'fil'"),
                    ("$.colors.bad", 'invalid value "#12"')], said
    assert 2_000 in walked and 1_999 not in walked and 2_001 not in walked  # not the valid neighbours
    assert 0 < len(walked) < 50, len(walked)
    # The compiled validator trusted blindly would find nothing: then Python walks it all.
    monkeypatch.setattr(validate, "_fast_at", lambda uri: type("AllValid", (), {"is_valid": lambda s, v: True})())
    walked.clear()
    said = [(json_path(d.path), d.message) for d in validate_value(doc, template, validator("template"), ())]
    assert said[0] == ("$.elements[2000].fil", "unknown field 'fil'") and len(walked) > 2_000
