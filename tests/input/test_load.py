"""Stage 1, load: every broken JSON file becomes a DataError naming file, 1-based line and
column, and what was expected; Doc.locate maps JSON paths back to positions."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import TEST_DATA, DataRootCopy, assert_no_traceback, diag_lines, json_paths, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from pnp.errors import DataError, Diagnostic
from pnp.input.load import Doc, load_json, parse_json

LOAD = TEST_DATA / "load"


def load_error(name: str) -> tuple[Diagnostic, ...]:
    with pytest.raises(DataError) as info:
        load_json(LOAD / name, f"data/{name}")
    return info.value.diagnostics


def parse_error(raw: bytes) -> tuple[Diagnostic, ...]:
    with pytest.raises(DataError) as info:
        parse_json(raw, Path("x.json"), "x.json")
    return info.value.diagnostics


# -- broken files ---------------------------------------------------------------------------

def test_trailing_comma_in_array_points_at_the_comma() -> None:
    (d,) = load_error("trailing-comma-array.json")
    assert (d.file, d.line, d.col) == ("data/trailing-comma-array.json", 5, 16)
    assert "trailing comma before ']'" in d.message
    assert d.format().startswith("data/trailing-comma-array.json:5:16: $: invalid JSON: trailing comma")
    assert "(expected no comma after the last item)" in d.format()


def test_trailing_comma_in_object_points_at_the_comma() -> None:
    (d,) = load_error("trailing-comma-object.json")
    assert (d.line, d.col) == (3, 18)
    assert "trailing comma before '}'" in d.message


def test_unclosed_string_is_reported_at_the_end_of_its_line() -> None:
    (d,) = load_error("unclosed-string.json")
    assert (d.line, d.col) == (3, 18)
    assert "unterminated string" in d.message
    assert d.expected == 'a closing double quote "'


def test_unclosed_string_at_end_of_file() -> None:
    (d,) = parse_error(b'{\n  "a": "abc')
    assert (d.line, d.col) == (2, 8)  # the opening quote
    assert "unterminated string" in d.message
    assert not d.message.endswith(" at")


def test_byte_order_mark_is_rejected_at_1_1() -> None:
    (d,) = load_error("bom.json")
    assert (d.line, d.col) == (1, 1)
    assert "byte order mark" in d.message
    assert d.hint == "save the file as UTF-8 without BOM"


@pytest.mark.parametrize("raw", [b"", b"  \n\t\n"])
def test_empty_file(raw: bytes) -> None:
    (d,) = parse_error(raw)
    assert (d.line, d.col) == (1, 1)
    assert d.message == "file is empty"
    assert d.expected == "a JSON object"


def test_empty_file_on_disk() -> None:
    (d,) = load_error("empty.json")
    assert d.format() == "data/empty.json:1:1: $: file is empty (expected a JSON object)"


def test_invalid_utf8_names_line_column_and_byte() -> None:
    (d,) = load_error("invalid-utf8.json")
    assert (d.line, d.col) == (3, 16)
    assert "0xe9" in d.message
    assert d.expected == "UTF-8 text"


def test_invalid_utf8_column_counts_characters_not_bytes() -> None:
    # '{"a": "' is 7 characters, then two 2-byte 'é': the bad byte is the 10th character (12th byte).
    (d,) = parse_error('{"a": "éé'.encode() + b'\xff"}')
    assert (d.line, d.col) == (1, 10)


def test_duplicate_keys_are_all_reported_at_the_second_occurrence() -> None:
    dup_min, dup_id = load_error("duplicate-keys.json")
    assert (dup_min.line, dup_min.col, dup_min.path) == (3, 35, ("players", "min"))
    assert dup_min.message == 'duplicate key "min" in one object'
    # "title": "id" holds the string "id" as a value; the duplicate key is on line 5.
    assert (dup_id.line, dup_id.col, dup_id.path) == (5, 3, ("id",))
    assert dup_id.format().startswith("data/duplicate-keys.json:5:3: $.id: duplicate key")


def test_duplicate_key_inside_an_array_element() -> None:
    (d,) = parse_error(b'{\n  "a": {"k": 1},\n  "b": [{"k": 1}, {"k": 1, "k": 2}]\n}')
    assert (d.line, d.col, d.path) == (3, 28, ("b", 1, "k"))


def test_duplicate_key_with_escapes_is_the_same_key() -> None:
    (d,) = parse_error(b'{"a\\u0041": 1, "aA": 2}')
    assert (d.line, d.col, d.path) == (1, 16, ("aA",))


def test_duplicate_key_and_later_syntax_error_are_both_reported() -> None:
    dup, syntax = parse_error(b'{"a": 1, "a": 2}\n{')
    assert (dup.line, dup.col) == (1, 10)
    assert (syntax.line, syntax.col) == (2, 1)
    assert "Extra data" in syntax.message


@pytest.mark.parametrize("const", ["NaN", "Infinity", "-Infinity"])
def test_non_json_numbers_are_rejected(const: str) -> None:
    (d,) = parse_error(f'{{\n  "box": [0, {const}, 1, 1]\n}}'.encode())
    assert (d.line, d.col, d.path) == (2, 14, ("box", 1))
    assert d.message == f"{const} is not a JSON number"


def test_string_nan_is_fine() -> None:
    assert parse_json(b'{"a": "NaN"}', Path("x"), "x").data == {"a": "NaN"}


def test_colon_missing_expects_a_colon() -> None:
    (d,) = parse_error(b'{\n  "a" 1\n}')
    assert (d.line, d.col) == (2, 7)
    assert d.expected == "a colon between a key and its value"


def test_missing_comma_expects_a_comma() -> None:
    (d,) = parse_error(b'[1\n 2]')
    assert (d.line, d.col) == (2, 2)
    assert d.expected == "a comma between items, or a closing bracket"


def test_two_values_in_one_file() -> None:
    (d,) = parse_error(b'{}\n{}')
    assert (d.line, d.col) == (2, 1)
    assert d.expected == "a single JSON value per file"


def test_deep_nesting_is_a_data_error_not_a_crash() -> None:
    (d,) = parse_error(b"[" * 100_000 + b"]" * 100_000)
    assert "nested too deeply" in d.message


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(DataError) as info:
        load_json(tmp_path / "nope.json", "card_data/x/nope.json")
    (d,) = info.value.diagnostics
    assert d.file == "card_data/x/nope.json"
    assert d.message == "file not found"


# -- positions -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def nested() -> Doc:
    return load_json(LOAD / "nested.json", "nested.json")


@pytest.mark.parametrize("parts,key,pos", [
    ((), False, (1, 1)),
    (("id",), False, (2, 9)),
    (("id",), True, (2, 3)),
    (("components", 0), False, (4, 5)),
    (("components", 0, "size"), False, (4, 28)),
    (("components", 0, "size", 1), False, (4, 33)),
    (("components", 1, "size"), False, (7, 15)),
    (("components", 1, "size"), True, (7, 7)),
    (("palettes", "N/A"), True, (10, 16)),  # a key holding '/'
    (("palettes", "a~b"), False, (10, 41)),  # a key holding '~'
])
def test_locate(nested: Doc, parts: tuple, key: bool, pos: tuple[int, int]) -> None:
    assert nested.locate(parts, key=key) == pos


def test_locate_falls_back_to_the_nearest_existing_parent(nested: Doc) -> None:
    # A missing key (e.g. an unknown field reported by path) -> its object; a missing index -> its array.
    assert nested.locate(("components", 0, "nope"), key=True) == (4, 5)
    assert nested.locate(("components", 7)) == (3, 17)
    assert nested.locate(("components", 1, "size", 0)) == (7, 15)


def test_diag_formats_file_line_col_path_message_expected(nested: Doc) -> None:
    d = nested.diag(("components", 1, "size"), "bad size", expected="a name or [w, h]")
    assert d.format() == "nested.json:7:15: $.components[1].size: bad size (expected a name or [w, h])"


# -- through the CLI -----------------------------------------------------------------------

def test_broken_data_file_via_cli_is_exit_2_with_position(golems: DataRootCopy) -> None:
    golems.replace("counters.json", '"copies": 64,', '"copies": 64,,')
    line, col = golems.pos_of("counters.json", "64,,", 3)  # the second comma: a quoted key was expected
    r = golems.check()
    assert r.exit_code == 2
    assert_no_traceback(r)
    (msg,) = diag_lines(r.stderr)
    assert msg.startswith(f"card_data/golems/counters.json:{line}:{col}: $: invalid JSON: Expecting property name")


def test_every_broken_file_is_reported_in_one_run(golems: DataRootCopy) -> None:
    golems.file("mana.json").write_bytes(b"\xef\xbb\xbf" + golems.file("mana.json").read_bytes())
    golems.file("board.json").write_text("")
    r = golems.check()
    assert r.exit_code == 2
    assert set(diag_lines(r.stderr)) == {
        "card_data/golems/mana.json:1:1: $: file starts with a UTF-8 byte order mark (BOM) "
        "(expected plain UTF-8 JSON); save the file as UTF-8 without BOM",
        "card_data/golems/board.json:1:1: $: file is empty (expected a JSON object)",
    }


def test_broken_manifest_via_cli(golems: DataRootCopy) -> None:
    line = golems.replace("game.json", '"title": "Golems",', '"title": "Golems",\n  "title": "Again",')
    r = run_cli("check", "--data", golems.path, "golems")
    assert r.exit_code == 2
    assert_no_traceback(r)
    assert diag_lines(r.stderr) == [f'card_data/golems/game.json:{line + 1}:3: $.title: duplicate key "title" '
                                    "in one object (expected each key once); remove or rename one of them"]


def test_many_problems_are_reported_in_linear_time() -> None:
    """Every duplicate key is reported with its line and column; finding the positions walks the
    text once (it counted the lines from the start for each problem: 200,000 duplicates took
    68 s, now about 2)."""
    import time

    from pnp.input.load import _line_cols

    text = "a\nbb\n\nccc\nd\n"
    lines = text.split("\n")
    naive = {}
    for p in range(len(text)):
        line = text.count("\n", 0, p)
        naive[p] = (line + 1, p - sum(len(x) + 1 for x in lines[:line]) + 1)
    assert _line_cols(text, list(range(len(text)))) == naive
    n = 100_000
    dup = "{" + ",\n".join(f'"k{i % (n // 2)}": {i}' for i in range(n)) + "}"
    start = time.perf_counter()
    with pytest.raises(DataError) as exc:
        parse_json(dup.encode(), Path("x.json"), "x.json")
    elapsed = time.perf_counter() - start
    diags = exc.value.diagnostics
    assert len(diags) == n // 2
    assert (diags[-1].line, diags[-1].col) == (n, 1)
    assert elapsed < 10, elapsed  # quadratic: ~17 s (interpolating 4.3 s at 50,000 and 68 s at 200,000)


# Every value's position, in any layout: the text at (line, col) decodes to that value (and a
# key's position is its quoted name). The positions are found by skipping values with the C
# decoder, indexing only the objects and arrays on the way (a 2 MB file of a million numbers
# with one error once took 1.3 GB to report it).
_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) \
    | st.text(max_size=6)
_JSON = st.recursive(_SCALARS, lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=4), kids,
                                                                                          max_size=4), max_leaves=20)




def _get(value: object, parts: tuple) -> object:
    for p in parts:
        value = value[p]  # type: ignore[index]
    return value


@settings(max_examples=150, deadline=None)
@given(_JSON, st.sampled_from([None, 1, 3]), st.booleans())
def test_locate_any_value_in_any_layout(value: object, indent: int | None, ascii_only: bool) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    doc = Doc("x.json", Path("x.json"), value, text)
    lines = text.split("\n")
    decoder = json.JSONDecoder()
    for parts in json_paths(value):
        line, col = doc.locate(parts)
        assert line is not None and col is not None
        offset = sum(len(s) + 1 for s in lines[:line - 1]) + col - 1
        assert decoder.raw_decode(text, offset)[0] == _get(value, parts)
        if parts and isinstance(parts[-1], str):
            line, col = doc.locate(parts, key=True)
            assert line is not None and col is not None
            offset = sum(len(s) + 1 for s in lines[:line - 1]) + col - 1
            assert decoder.raw_decode(text, offset)[0] == parts[-1]


def _problems(mini: DataRootCopy, change: Callable[[dict], None]) -> list[dict]:
    deck = mini.file("deck.json")
    data = json.loads(deck.read_text(encoding="utf-8"))
    change(data)
    deck.write_text(json.dumps(data), encoding="utf-8")
    r = run_cli("check", "mini", "--format", "json")
    assert r.exit_code == 2, r.output
    assert_no_traceback(r)
    (game,) = json.loads(r.stdout)["games"]
    return [d for d in game["errors"] if d["file"].endswith("deck.json")]


def test_a_million_wrong_values_are_reported_as_the_first_thousand(mini: DataRootCopy) -> None:
    errors = _problems(mini, lambda data: data["items"].extend([0] * 1_000_000))
    assert len(errors) == 1_001
    assert errors[0]["message"].endswith("is too long")
    assert errors[1]["message"] == "wrong type: integer 0" and errors[1]["path"] == "$.items[3]"
    assert errors[-1]["message"] == "more than 1,000 problems here: the first 1,000 are listed"
    # 5,000 unknown fields in one item: the first thousand, each with its place.
    def unknown(data: dict) -> None:
        del data["items"][3:]  # the million zeros gone
        data["items"][0].update({f"k{i}": i for i in range(5_000)})

    errors = _problems(mini, unknown)
    assert len(errors) == 1_001 and errors[-1]["message"].startswith("more than 1,000 problems")
    assert [e["message"] for e in errors[:2]] == ["unknown field 'k0'", "unknown field 'k1'"]
    assert errors[0]["line"] == errors[1]["line"] and errors[0]["column"] < errors[1]["column"]


def test_a_json_file_over_32_mib_is_refused_before_it_is_parsed(mini: DataRootCopy) -> None:
    """A JSON file is parsed whole: 120 MB of numbers ran out of memory (exit 3)."""
    deck = mini.file("deck.json")
    text = deck.read_text(encoding="utf-8")
    deck.write_text(text + " " * (32 << 20), encoding="utf-8")  # valid JSON, one byte too many
    r = run_cli("check", "mini")
    assert r.exit_code == 2 and "deck.json: $: file is larger than 32 MiB (expected a JSON file of at most 32 MiB)" \
        in r.stderr, r.output
    assert_no_traceback(r)
    deck.write_text(text + " " * ((32 << 20) - len(text.encode())), encoding="utf-8")  # exactly 32 MiB
    assert run_cli("check", "mini").exit_code == 0


def test_five_thousand_bad_items_are_reported_as_the_first_thousand(mini: DataRootCopy) -> None:
    """Each item is explained on its own: past 1,000 problems in a file's items the rest are only
    tested (50,000 items with an unknown field each took 24 s to explain)."""
    def bad(data: dict) -> None:
        data["items"] += [{**data["items"][2], "id": f"x{i}", "nme": "x"} for i in range(5_000)]
    errors = _problems(mini, bad)
    assert len(errors) == 1_001
    assert errors[0]["message"] == "more than 1,000 problems in the items: the first 1,000 are listed"
    assert errors[0]["path"] == "$.items"
    assert [e["path"] for e in errors[1:3]] == ["$.items[3].nme", "$.items[4].nme"]


@pytest.mark.parametrize("char", ["\x7f", "\x85", "\x9b"])
def test_raw_del_and_c1_controls_are_refused_like_escaped_ones(char: str) -> None:
    """JSON strings may hold DEL and C1 controls raw (C0 only as \\u escapes): U+009B is the
    8-bit CSI some terminals act on; it passed with a "not in font" warning (attack 17)."""
    (d,) = parse_error(f'{{"title": "Mini {char}31m"}}'.encode())
    assert d.message == f"text holds the control character U+{ord(char):04X}" and d.path == ("title",)
    (d,) = parse_error(f'{{"title": "Mini \\u{ord(char):04x}31m"}}'.encode())
    assert d.message == f"text holds the control character U+{ord(char):04X}"
