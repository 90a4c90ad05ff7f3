"""Component data from sheets (pnp.input.tables): CSV, TSV, XLSX and ODS read into the same items
a JSON data file gives, cells converted by the fields' types, and every problem named by its
cell (``deck.csv:3:C (power)``), all at once, exit 2, nothing written."""

from __future__ import annotations

import csv
import io
import json
import os
import zipfile
from pathlib import Path
from typing import Any

import pytest
from conftest import TEST_DATA, DataRootCopy, assert_no_traceback, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pnp
from pnp.errors import DataError
from pnp.input.sheetfiles import column_letter
from pnp.input.tables import slug

FIELDS = {
    "name": {"type": "string", "required": True, "description": "Card name"},
    "suit": {"type": "string", "enum": ["sun", "moon"], "description": "Suit"},
    "power": {"type": "integer", "min": 0, "max": 9, "description": "Power"},
    "weight": {"type": "number", "description": "Weight"},
    "wild": {"type": "boolean", "description": "Wild card"},
    "tags": {"type": "list", "description": "Tags"},
    "words": {"type": "list", "separator": "|", "description": "Words"},
}


def as_sheet(mini: DataRootCopy, data: str, **entry: Any) -> None:
    """Point the mini game's deck at ``data`` with the fields above (and ``entry``'s keys)."""
    def edit(m: dict[str, Any]) -> None:
        m["components"][0].update({"data": data, "fields": FIELDS, **entry})
        m["rulebook"] = [r for r in m["rulebook"] if r["id"] != "deck-5"]
        m["provenance"] = "required"  # as the bundled games say: a row without a source is an error
    mini.edit("game.json", edit)
    mini.file("deck.json").unlink(missing_ok=True)


CSV = (
    "id,name,suit,power,weight,wild,tags,words,copies,# notes,source.designed\n"
    "sun-1,Sun One,sun,1,1.5,yes,a; b,x|y z,2,ignored,made for a test\n"
    ",,,,,,,,,,\n"
    "moon-1,Moon One,moon, 3 ,2,FALSE,,,,,made for a test\n"
)


def test_csv_items_convert_by_field_type(mini: DataRootCopy) -> None:
    as_sheet(mini, "deck.csv")
    mini.file("deck.csv").write_text(CSV, encoding="utf-8")
    deck = mini.load().components[0]
    assert [i.id for i in deck.items] == ["sun-1", "moon-1"]  # the blank row is skipped
    sun, moon = deck.items
    assert dict(sun.fields) == {"name": "Sun One", "suit": "sun", "power": 1, "weight": 1.5, "wild": True,
                                "tags": ["a", "b"], "words": ["x", "y z"]}
    assert sun.copies == 2 and moon.copies == 1
    assert dict(moon.fields) == {"name": "Moon One", "suit": "moon", "power": 3, "weight": 2, "wild": False}
    assert isinstance(moon.fields["weight"], int)  # "2" is the integer 2, as in JSON
    assert sun.provenance.kind == "designed" and sun.provenance.text == "made for a test"
    assert deck.data_file == "card_data/mini/deck.csv"


def test_ids_from_a_column_and_a_default_source(mini: DataRootCopy) -> None:
    as_sheet(mini, "deck.csv", id_from="name", source={"designed": "all cards designed"})
    mini.file("deck.csv").write_text("name,power\nSun One,1\nÉlan Vital!,2\n", encoding="utf-8")
    items = mini.load().components[0].items
    assert [i.id for i in items] == ["sun-one", "elan-vital"]
    assert {i.provenance.text for i in items} == {"all cards designed"}


def test_tsv_semicolon_csv_and_byte_order_mark(mini: DataRootCopy) -> None:
    as_sheet(mini, "deck.tsv", id_from="name", source={"designed": "d"})
    mini.file("deck.tsv").write_text("name\tpower\nSun, One\t1\n", encoding="utf-8")
    assert [dict(i.fields) for i in mini.load().components[0].items] == [{"name": "Sun, One", "power": 1}]
    as_sheet(mini, "deck.csv", id_from="name", source={"designed": "d"})
    mini.file("deck.csv").write_bytes("name;power;weight\nSun;1;2.5\n".encode("utf-8-sig"))
    assert dict(mini.load().components[0].items[0].fields) == {"name": "Sun", "power": 1, "weight": 2.5}


def test_every_cell_error_at_once_named_by_row_and_column(mini: DataRootCopy) -> None:
    as_sheet(mini, "deck.csv")
    mini.file("deck.csv").write_text(
        "id,name,suit,power,wild,source.designed\n"
        "a,A,sun,three,maybe,d\n"
        "b,,star,12,no,d\n"
        "c,C,moon,2.5,1,\n", encoding="utf-8")
    with pytest.raises(DataError) as exc:
        mini.load()
    assert [d.format() for d in exc.value.diagnostics] == [
        "card_data/mini/deck.csv:2:D (power): 'three' is not a number (expected a whole number like 3; integer "
        "field: Power); write digits only (no units or thousands separators), with '.' as the decimal mark",
        "card_data/mini/deck.csv:2:E (wild): 'maybe' is not true or false (expected true or false (also yes/no, "
        "y/n, 1/0); boolean field: Wild card)",
        "card_data/mini/deck.csv:3: missing required field 'name' (expected string, Card name); fill in column "
        "B (name) in this row",
        "card_data/mini/deck.csv:3:C (suit): value \"star\" is not allowed (expected one of \"sun\", \"moon\")",
        "card_data/mini/deck.csv:3:D (power): number 12 is out of range (expected a number <= 9)",
        "card_data/mini/deck.csv:4: missing required field 'source' (expected where it comes from: {\"document\": "
        "QUOTE}, {\"external\": REF} or {\"designed\": WHY}); fill in a source.designed cell (or source.document "
        "with the quote), or give the component a default \"source\" in game.json",
        "card_data/mini/deck.csv:4:D (power): 2.5 is not a whole number (expected a whole number like 3; integer "
        "field: Power)",
    ]
    assert exc.value.diagnostics[0].as_json()["cell"] == "D (power)"


def test_header_problems_with_suggestions(mini: DataRootCopy) -> None:
    as_sheet(mini, "deck.csv")
    mini.file("deck.csv").write_text("id,nmae,power,id,,source.designed\na,A,1,b,x,d\nb,B,12,c,y,d\n",
                                     encoding="utf-8")
    with pytest.raises(DataError) as exc:
        mini.load()
    lines = [d.format() for d in exc.value.diagnostics]
    # The header's problems and the rows' (read from the columns that are known), all at once; the
    # missing required column once, not once per row.
    assert lines[0] == ("card_data/mini/deck.csv:1: no column 'name', a required field (expected a column named "
                        "'name' for the string field: Card name); is 'nmae' meant to be 'name'?")
    assert lines[1].startswith("card_data/mini/deck.csv:1:B (nmae): unknown column 'nmae' (expected one of name, "
                               "suit, power, weight, wild, tags, words, id, copies, source.document")
    assert lines[1].endswith("; did you mean 'name'?")
    assert lines[2] == ("card_data/mini/deck.csv:1:D (id): column 'id' appears twice (first in column A) "
                        "(expected each field in one column)")
    assert lines[3].startswith("card_data/mini/deck.csv:1:E: a column with cells but no header")
    assert lines[4:] == ["card_data/mini/deck.csv:3:C (power): number 12 is out of range (expected a number <= 9)"]


def test_no_id_column_and_duplicate_ids(mini: DataRootCopy) -> None:
    as_sheet(mini, "deck.csv")
    mini.file("deck.csv").write_text("name,source.designed\nA,d\n", encoding="utf-8")
    with pytest.raises(DataError) as exc:
        mini.load()
    assert exc.value.diagnostics[0].format().startswith("card_data/mini/deck.csv:1: no id column (expected an "
                                                        "`id` column, or `id_from`")
    as_sheet(mini, "deck.csv", id_from="name")
    mini.file("deck.csv").write_text("name,source.designed\nSun One,d\nsun one,d\n", encoding="utf-8")
    with pytest.raises(DataError) as exc:
        mini.load()
    assert [d.format() for d in exc.value.diagnostics] == [
        "card_data/mini/deck.csv:3: duplicate item id 'sun-one' (first at row 2) (expected unique item ids in a file)"]


def test_sheet_keys_belong_to_sheets_and_fields_to_the_manifest(mini: DataRootCopy) -> None:
    mini.edit("game.json", lambda m: m["components"][0].update(id_from="name"))
    with pytest.raises(DataError) as exc:
        mini.load()
    assert exc.value.diagnostics[0].message == "'id_from' is for a component whose data is a sheet"
    mini.edit("game.json", lambda m: (m["components"][0].pop("id_from"), m["components"][0].update(data="deck.csv")))
    mini.file("deck.csv").write_text("id,name\na,A\n", encoding="utf-8")
    with pytest.raises(DataError) as exc:
        mini.load()
    assert exc.value.diagnostics[0].message == "a component whose data is a sheet declares its fields in game.json"


def test_bad_input_exits_2_and_writes_nothing(mini: DataRootCopy, tmp_path: Path) -> None:
    as_sheet(mini, "deck.csv")
    mini.file("deck.csv").write_bytes(b"id,name,source.designed\na,\xff\xfe,d\n")
    r = mini.cli("build", "mini", "--out", tmp_path / "out")
    assert_no_traceback(r)
    assert r.exit_code == 2
    assert "card_data/mini/deck.csv:2: not valid UTF-8 (byte 0xff)" in r.stderr
    assert not (tmp_path / "out").exists()


def test_a_csv_error_names_the_row_and_the_line_it_starts_on(mini: DataRootCopy, tmp_path: Path) -> None:
    as_sheet(mini, "deck.csv")
    # row 2 holds a line break in a quoted cell; row 4's quote is never closed (found at the end)
    mini.file("deck.csv").write_text('id,name,source.designed\na,"A\nB",d\nb,B,d\nc,"C,d\nx,y,z\n',
                                     encoding="utf-8")
    r = mini.cli("build", "mini", "--out", tmp_path / "out")
    assert_no_traceback(r)
    assert r.exit_code == 2
    assert ("card_data/mini/deck.csv:4: invalid CSV in the row that starts on line 5: unexpected end of data"
            " (expected cells separated by ',', quotes doubled inside quoted cells)") in r.stderr
    assert not (tmp_path / "out").exists()
    mini.file("deck.csv").write_text('id,name,source.designed\na,A,d\nb,"B"x,d\n', encoding="utf-8")
    r = mini.cli("check", "mini")
    assert r.exit_code == 2
    assert "card_data/mini/deck.csv:3: invalid CSV in the row that starts on line 3: " in r.stderr


def test_xlsx_and_its_sheets(mini: DataRootCopy) -> None:
    from openpyxl import Workbook

    wb = Workbook()
    wb.active.title = "Notes"
    wb.active.append(["nothing here"])
    ws = wb.create_sheet("Cards")
    ws.append(["id", "name", "power", "weight", "wild", "source.designed"])
    ws.append(["a", "Alpha", 3, 2.0, True, "d"])
    ws.append([None, None, None, None, None, None])
    ws.append(["b", 42, 4.0, 0.25, False, "d"])
    wb.save(mini.file("cards.xlsx"))
    as_sheet(mini, "cards.xlsx#Cards")
    a, b = mini.load().components[0].items
    assert dict(a.fields) == {"name": "Alpha", "power": 3, "weight": 2, "wild": True}
    assert dict(b.fields) == {"name": "42", "power": 4, "weight": 0.25, "wild": False}
    as_sheet(mini, "cards.xlsx#cards")
    with pytest.raises(DataError) as exc:
        mini.load()
    assert exc.value.diagnostics[0].format() == ("card_data/mini/cards.xlsx: $: no sheet 'cards' in the workbook "
                                                 "(expected one of Notes, Cards); did you mean 'Cards'?")


def ods(path: Path, rows_xml: str, name: str = "Cards") -> None:
    """A minimal OpenDocument spreadsheet, as LibreOffice writes one (repeat counts included)."""
    content = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2">'
        f'<office:body><office:spreadsheet><table:table table:name="{name}">{rows_xml}</table:table>'
        "</office:spreadsheet></office:body></office:document-content>")
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet")
        z.writestr("content.xml", content)


def _cell(v: str, kind: str = "string") -> str:
    if kind == "float":
        return f'<table:table-cell office:value-type="float" office:value="{v}"><text:p>{v}</text:p></table:table-cell>'
    return f'<table:table-cell office:value-type="string"><text:p>{v}</text:p></table:table-cell>'


def test_ods_with_repeated_cells_and_rows(mini: DataRootCopy) -> None:
    header = "".join(_cell(h) for h in ("id", "name", "power", "source.designed"))
    row = _cell("a") + _cell("A<text:s text:c=\"2\"/>B") + _cell("2", "float") + _cell("d")
    empty = '<table:table-cell table:number-columns-repeated="1020"/>'
    ods(mini.file("deck.ods"),
        f"<table:table-row>{header}{empty}</table:table-row>"
        f"<table:table-row>{row}{empty}</table:table-row>"
        '<table:table-row table:number-rows-repeated="3"><table:table-cell/></table:table-row>'
        f"<table:table-row>{_cell('b')}{_cell('B')}<table:table-cell table:number-columns-repeated=\"1\"/>"
        f"{_cell('d')}</table:table-row>"
        '<table:table-row table:number-rows-repeated="1048570"><table:table-cell/></table:table-row>')
    as_sheet(mini, "deck.ods")
    a, b = mini.load().components[0].items
    assert (a.id, dict(a.fields)) == ("a", {"name": "A  B", "power": 2})
    assert (b.id, dict(b.fields)) == ("b", {"name": "B"})
    assert b.origin == ("card_data/mini/deck.ods", ("items", 1))


def test_editing_the_sheet_rebuilds_its_component(mini: DataRootCopy, tmp_path: Path) -> None:
    as_sheet(mini, "deck.csv")
    mini.file("deck.csv").write_text(CSV, encoding="utf-8")
    out = tmp_path / "out"
    first = pnp.build("mini", data=mini.path, out=out)
    assert first.ok and [f.rendered for f in first.games[0].files] == [True]
    again = pnp.build("mini", data=mini.path, out=out)
    assert again.games[0].up_to_date
    mini.file("deck.csv").write_text(CSV.replace("Moon One", "Moon Two"), encoding="utf-8")
    third = pnp.build("mini", data=mini.path, out=out)
    assert not third.games[0].up_to_date and [f.rendered for f in third.games[0].files] == [True]


def test_helpers() -> None:
    assert [column_letter(n) for n in (1, 3, 26, 27, 52, 703)] == ["A", "C", "Z", "AA", "AZ", "AAA"]
    assert slug("  Fire Bolt! ") == "fire-bolt" and slug("Ünïcode — names") == "unicode-names"
    assert json.loads(json.dumps(FIELDS)) == FIELDS


def test_cache_is_for_urls_and_links_out_of_the_game_folder_are_refused(mini: DataRootCopy, tmp_path: Path) -> None:
    as_sheet(mini, "deck.csv", cache="copy.csv")
    mini.file("deck.csv").write_text(CSV, encoding="utf-8")
    with pytest.raises(DataError) as exc:
        mini.load()
    assert [d.format() for d in exc.value.diagnostics] == [
        "card_data/mini/game.json:59:16: $.components[0].cache: 'cache' is for a published sheet (data an http(s) "
        "URL) (expected no 'cache': the sheet 'deck.csv' is read as it is)"]
    as_sheet(mini, "deck.csv")
    outside = tmp_path / "outside.csv"
    outside.write_text(CSV, encoding="utf-8")
    mini.file("deck.csv").unlink()
    mini.file("deck.csv").symlink_to(outside)
    with pytest.raises(DataError) as exc:
        mini.load()
    assert exc.value.diagnostics[0].message == "data file 'deck.csv' is a link to a file outside the game folder"


_CELL = st.one_of(st.text(max_size=12), st.sampled_from(["", " ", "1", "-2", "2.5", "1e400", "nan", "yes", "a;b",
                                                           "sun", "moon", "#x", "id", "=1+1", '"', "\r\n"]))


@settings(max_examples=int(os.environ.get("PNP_FUZZ_EXAMPLES", "30")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(header=st.lists(st.sampled_from(["id", "name", "power", "suit", "wild", "weight", "tags", "copies",
                                        "source.designed", "series.from", "# n", "", "nmae"]), min_size=1, max_size=8),
       rows=st.lists(st.lists(_CELL, max_size=9), max_size=6), raw=st.binary(max_size=40))
def test_any_sheet_loads_or_is_an_input_error(mini: DataRootCopy, header: list[str], rows: list[list[str]],
                                              raw: bytes) -> None:
    """Whatever the cells hold, a sheet gives items or DataErrors that name a row, never another
    exception; the same for bytes that are no CSV, no workbook and no ODS."""
    as_sheet(mini, "deck.csv", id_from="name")
    buf = io.StringIO()
    csv.writer(buf).writerows([header, *rows])
    for name, data in (("deck.csv", buf.getvalue().encode("utf-8")), ("deck.csv", raw), ("deck.xlsx", raw),
                       ("deck.ods", raw)):
        as_sheet(mini, name, id_from="name")
        mini.file(name).write_bytes(data)
        try:
            mini.load()
        except DataError as exc:
            assert exc.diagnostics and all(d.file.startswith("card_data/mini/") for d in exc.diagnostics)
            assert all(d.cell is not None or d.line is None or d.file.endswith("game.json")
                       for d in exc.diagnostics), [d.format() for d in exc.diagnostics]


@pytest.mark.parametrize("name", ["cards.csv", "cards.ods", "cards.xlsx", "cards.ods#cards", "cards.xlsx#cards"])
def test_the_same_sheet_saved_by_libreoffice(mini: DataRootCopy, name: str) -> None:
    """tests/data/sheets: one sheet as CSV and as LibreOffice Calc saved it in ODS and XLSX."""
    file = name.partition("#")[0]
    mini.file(file).write_bytes((TEST_DATA / "sheets" / file).read_bytes())
    as_sheet(mini, name, fields={**FIELDS, "text": {"type": "text", "description": "Rules text"}})
    sun, moon = mini.load().components[0].items
    assert (sun.id, dict(sun.fields)) == ("sun-1", {
        "name": "Sun Öne", "power": 1, "weight": 1.5, "wild": True, "tags": ["a", "b"],
        "text": "Line one\nline two  **bold**"})
    assert (moon.id, dict(moon.fields)) == ("moon-1", {
        "name": "Moon", "power": 3, "weight": 2, "wild": False, "text": "Gain 2 {icon:coin}."})
    assert isinstance(moon.fields["weight"], int)
    assert sun.provenance.text == "made in LibreOffice"


def test_no_source_anywhere_is_one_problem(mini: DataRootCopy) -> None:
    as_sheet(mini, "deck.csv")
    mini.file("deck.csv").write_text("id,name\na,A\nb,B\nc,C\n", encoding="utf-8")
    with pytest.raises(DataError) as exc:
        mini.load()
    assert [d.format() for d in exc.value.diagnostics] == [
        "card_data/mini/deck.csv:1: no source column and no default source (expected a source.designed column (or "
        "source.document with the quote), or a default \"source\" in the component's entry in game.json); "
        "e.g. \"source\": {\"designed\": \"our own cards\"}"]


def test_sources_are_optional_unless_the_manifest_requires_them(mini: DataRootCopy) -> None:
    as_sheet(mini, "deck.csv")
    mini.edit("game.json", lambda m: m.pop("provenance"))
    mini.file("deck.csv").write_text("id,name\na,A\nb,B\n", encoding="utf-8")
    assert [i.provenance.kind for i in mini.load().components[0].items] == ["unstated", "unstated"]


def test_a_control_character_in_a_cell_is_named_by_its_cell(tmp_path: Path) -> None:
    """An escape character in a cell (it would drive the terminal when a message echoes it) is
    an input error at its cell, as in a JSON string."""
    from pnp.input.project import DataRoot, load_game

    root = tmp_path
    game = root / "card_data" / "g"
    game.mkdir(parents=True)
    (game / "cards.csv").write_text("id,name,power\nace,Ace\x1b]0;pwned\x07,1\nt\x00wo,Two,\x072\n",
                                    encoding="utf-8")
    (game / "game.json").write_text(json.dumps({
        "id": "g", "title": "G", "players": {"min": 1}, "document": {"file": "none"},
        "components": [{"id": "deck", "title": "Deck", "kind": "card", "size": "poker", "data": "cards.csv",
                        "template": "g/front",
                        "fields": {"name": {"type": "string", "description": "Name", "required": True},
                                   "power": {"type": "integer", "description": "Power"}}}],
        "rulebook": []}), encoding="utf-8")
    with pytest.raises(DataError) as exc:
        load_game(DataRoot(root), "g")
    # one message a cell: a required cell is not also "missing", an id not also a bad id, a
    # number not also "not an integer" (attack 6, borderline)
    assert [(d.message, d.line, d.cell) for d in exc.value.diagnostics] == [
        ("the cell holds the control character U+001B", 2, "B (name)"),
        ("the cell holds the control character U+0000", 3, "A (id)"),
        ("the cell holds the control character U+0007", 3, "C (power)")]


def _padded(path: Path, member: str, spaces: int) -> None:
    """Rewrite the workbook at ``path`` with ``spaces`` spaces after ``member``'s XML declaration
    (valid XML still): a zip bomb, as small packed as the spaces compress."""
    with zipfile.ZipFile(path) as z:
        members = [(i.filename, z.read(i)) for i in z.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members:
            if name != member:
                z.writestr(name, data)
                continue
            decl, _, rest = data.partition(b"?>")
            with z.open(name, "w", force_zip64=True) as f:
                f.write(decl + b"?>")
                block = b" " * 2**20
                for _ in range(spaces // len(block)):
                    f.write(block)
                f.write(rest)


def _small_workbook(mini: DataRootCopy, kind: str) -> tuple[str, str]:
    """A one-row workbook (``kind`` xlsx or ods) as the deck's data: its file name and sheet member."""
    if kind == "ods":
        ods(mini.file("cards.ods"), "<table:table-row>" + "".join(_cell(h) for h in ("id", "name", "source.designed"))
            + "</table:table-row><table:table-row>" + _cell("a") + _cell("A") + _cell("d") + "</table:table-row>")
        as_sheet(mini, "cards.ods")
        return "cards.ods", "content.xml"
    from openpyxl import Workbook

    wb = Workbook()
    wb.active.append(["id", "name", "source.designed"])
    wb.active.append(["a", "A", "d"])
    wb.save(mini.file("cards.xlsx"))
    as_sheet(mini, "cards.xlsx")
    return "cards.xlsx", "xl/worksheets/sheet1.xml"


@pytest.mark.parametrize("kind", ["xlsx", "ods"])
@pytest.mark.parametrize(("mib", "reason"), [
    (65, " bytes (expected at most 64 MiB unpacked per file in its zip); save the workbook again"),
    (2, " (a zip bomb?) (expected at most 200 times its packed size); save the workbook again")])
def test_a_workbook_zip_bomb_is_an_input_error_before_it_is_read(mini: DataRootCopy, kind: str, mib: int,
                                                                  reason: str) -> None:
    """A workbook that unpacks far beyond its size (attack F3: 1.4 MB -> 1.5 GB held 1.5 GB of
    memory) is refused from its zip's directory: exit 2 naming the file, the member and the limit."""
    name, member = _small_workbook(mini, kind)
    assert [i.id for i in mini.load().components[0].items] == ["a"]
    _padded(mini.file(name), member, mib * 2**20)
    assert mini.file(name).stat().st_size < 300_000
    r = run_cli("check", "mini", "--data", mini.path)
    assert_no_traceback(r)
    assert r.exit_code == 2
    (line,) = [ln for ln in r.stderr.splitlines() if ln.startswith(f"card_data/mini/{name}: $: the workbook's")]
    with zipfile.ZipFile(mini.file(name)) as z:
        size = z.getinfo(member).file_size
    assert size > mib * 2**20
    assert f"the workbook's {member!r} unpacks to {size}" in line and reason in line, line


@pytest.mark.parametrize("kind", ["xlsx", "ods"])
def test_a_workbook_over_the_total_or_member_count_is_an_input_error(mini: DataRootCopy, kind: str,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import pnp.input.sheetfiles as sheetfiles

    name, _ = _small_workbook(mini, kind)
    with zipfile.ZipFile(mini.file(name), "a") as z:
        for i in range(3):
            z.writestr(f"extra{i}.bin", os.urandom(400_000))  # ratio 1: only the total is over
        total = sum(i.file_size for i in z.infolist())
    monkeypatch.setattr(sheetfiles, "MAX_WORKBOOK_UNPACKED", 2**20)
    with pytest.raises(DataError) as exc:
        mini.load()
    assert [(d.file, d.message, d.expected) for d in exc.value.diagnostics] == [
        (f"card_data/mini/{name}", f"the workbook unpacks to {total} bytes", "at most 1 MiB unpacked in all")]
    monkeypatch.setattr(sheetfiles, "MAX_WORKBOOK_UNPACKED", 10**9)
    monkeypatch.setattr(sheetfiles, "MAX_WORKBOOK_MEMBERS", 4)
    with pytest.raises(DataError) as exc:
        mini.load()
    assert [(d.message, d.expected) for d in exc.value.diagnostics] == [
        (f"the workbook holds {5 if kind == 'ods' else 12} files", "at most 4 files in its zip")]


def test_a_workbook_error_without_text_names_its_kind(mini: DataRootCopy, monkeypatch: pytest.MonkeyPatch) -> None:
    """A MemoryError's text is empty: the message said "cannot read the workbook: " and nothing."""
    import openpyxl

    _small_workbook(mini, "xlsx")

    def no_memory(*args: Any, **kwargs: Any) -> None:
        raise MemoryError

    monkeypatch.setattr(openpyxl, "load_workbook", no_memory)
    with pytest.raises(DataError) as exc:
        mini.load()
    assert exc.value.diagnostics[0].message == "cannot read the workbook: MemoryError"


def test_a_row_longer_than_its_header_is_an_input_error(mini: DataRootCopy) -> None:
    """Cells right of the last header were dropped unread (issue 19): each row that has any is
    named with its counts; empty cells there (trailing separators) are fine."""
    as_sheet(mini, "deck.csv")
    mini.file("deck.csv").write_text("id,name,source.designed\na,A,d,,\nb,B,d,x\nc,C,d,,y,z,w\n", encoding="utf-8")
    with pytest.raises(DataError) as exc:
        mini.load()
    assert [d.format() for d in exc.value.diagnostics] == [
        "card_data/mini/deck.csv:3:D: the row has 4 cells and the header row 3: cell D ('x') under no header "
        "(expected at most 3 cells a row, one under each header); remove the extra cells (a separator too many?), "
        "or give their column a header (start it with '#' to keep it as notes)",
        "card_data/mini/deck.csv:4:E: the row has 7 cells and the header row 3: cells E ('y'), F ('z') and 1 more "
        "under no header (expected at most 3 cells a row, one under each header); remove the extra cells (a "
        "separator too many?), or give their column a header (start it with '#' to keep it as notes)"]
    r = mini.cli("check", "mini")
    assert r.exit_code == 2
    assert_no_traceback(r)


@pytest.mark.parametrize("kind", ["xlsx", "ods"])
def test_a_workbook_row_longer_than_its_header_row_is_an_input_error(mini: DataRootCopy, kind: str) -> None:
    if kind == "xlsx":
        from openpyxl import Workbook

        wb = Workbook()
        for row in (["id", "name", "source.designed"], ["a", "A", "d"], ["b", "B", "d", None, 7]):
            wb.active.append(row)
        wb.save(mini.file("deck.xlsx"))
    else:
        ods(mini.file("deck.ods"), "".join(
            "<table:table-row>" + "".join(_cell(v) for v in row) + "</table:table-row>"
            for row in (["id", "name", "source.designed"], ["a", "A", "d"], ["b", "B", "d", "", "7"])))
    as_sheet(mini, f"deck.{kind}")
    with pytest.raises(DataError) as exc:
        mini.load()
    (d,) = exc.value.diagnostics
    assert d.where == f"card_data/mini/deck.{kind}:3:E"
    assert d.message.startswith("the row has 5 cells and the header row 3: cell E (")


def _with_dimension(path: Path, ref: str, extra_rows: str = "") -> None:
    """Rewrite the first worksheet of the workbook at ``path``: its <dimension> says ``ref``, and
    ``extra_rows`` (row XML) follow its rows."""
    import re

    with zipfile.ZipFile(path) as z:
        members = [(i, z.read(i.filename)) for i in z.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for info, data in members:
            if info.filename == "xl/worksheets/sheet1.xml":
                xml = re.sub(r'<dimension ref="[^"]*"/>', f'<dimension ref="{ref}"/>', data.decode())
                data = xml.replace("</sheetData>", extra_rows + "</sheetData>").encode()
            z.writestr(info, data)


def test_xlsx_rows_outside_the_declared_dimension_are_read(mini: DataRootCopy) -> None:
    """A crafted workbook whose <dimension> says A1:B2 while it holds four rows of three cells:
    openpyxl (read-only) stopped at the declared size, and the rows past it were never items."""
    from openpyxl import Workbook

    wb = Workbook()
    for row in (["id", "name", "source.designed"], ["a", "A", "d"], ["b", "B", "d"], ["c", "C", "d"]):
        wb.active.append(row)
    wb.save(mini.file("deck.xlsx"))
    _with_dimension(mini.file("deck.xlsx"), "A1:B2",
                    '<row r="9"><c r="A9" t="inlineStr"><is><t>z</t></is></c>'
                    '<c r="B9" t="inlineStr"><is><t>Zed</t></is></c>'
                    '<c r="C9" t="inlineStr"><is><t>d</t></is></c></row>')
    as_sheet(mini, "deck.xlsx")
    deck = mini.load().components[0]
    assert [(i.id, i.fields["name"]) for i in deck.items] == [("a", "A"), ("b", "B"), ("c", "C"), ("z", "Zed")]


def test_an_xlsx_cell_of_too_many_rich_text_runs_is_an_input_error(mini: DataRootCopy) -> None:
    """A cell's elements are held until it ends: an inline string of 4.3 million rich-text runs
    (a 5.6 MB workbook) held 2 GB and took 32 s before check refused it (attack 23, F4). Past
    MAX_CELL_ELEMENTS the cell is refused as it is read, naming it; a few runs are one text."""
    from openpyxl import Workbook

    from pnp.input.sheetfiles import MAX_CELL_ELEMENTS

    wb = Workbook()
    for row in (["id", "name", "source.designed"], ["a", "A", "d"]):
        wb.active.append(row)
    wb.save(mini.file("deck.xlsx"))
    as_sheet(mini, "deck.xlsx")
    runs = "".join(f"<r><t>{ch}</t></r>" for ch in "Zed")
    _with_dimension(mini.file("deck.xlsx"), "A1:C3", f'<row r="3"><c r="A3" t="inlineStr"><is><t>z</t></is></c>'
                    f'<c r="B3" t="inlineStr"><is>{runs}</is></c><c r="C3" t="inlineStr"><is><t>d</t></is></c></row>')
    assert [(i.id, i.fields["name"]) for i in mini.load().components[0].items] == [("a", "A"), ("z", "Zed")]
    wb.save(mini.file("deck.xlsx"))
    runs = "<r><t>x</t></r>" * (MAX_CELL_ELEMENTS // 2 + 1)
    _with_dimension(mini.file("deck.xlsx"), "A1:C3", f'<row r="3"><c r="B3" t="inlineStr"><is>{runs}</is></c></row>')
    with pytest.raises(DataError) as exc:
        mini.load()
    assert [d.format() for d in exc.value.diagnostics] == [
        f"card_data/mini/deck.xlsx:3:B (name): the cell holds more than {MAX_CELL_ELEMENTS} elements (rich-text "
        f"runs) (expected a cell of text in at most {MAX_CELL_ELEMENTS} runs, as a spreadsheet program saves it); "
        "save the workbook again from a spreadsheet program, or export the sheet as CSV"]


def test_xlsx_value_past_the_last_column_or_row_is_an_input_error(mini: DataRootCopy) -> None:
    from openpyxl import Workbook

    wb = Workbook()
    for row in (["id", "name", "source.designed"], ["a", "A", "d"]):
        wb.active.append(row)
    wb.save(mini.file("deck.xlsx"))
    as_sheet(mini, "deck.xlsx")
    _with_dimension(mini.file("deck.xlsx"), "A1:C2", '<row r="5"><c r="XFD5" t="n"><v>1</v></c></row>')
    with pytest.raises(DataError) as exc:
        mini.load()
    assert [d.format() for d in exc.value.diagnostics] == [
        "card_data/mini/deck.xlsx:5: a value in column XFD, past the last column pnp reads (expected at most 1000 "
        "columns); remove it, or move it nearer"]
    wb.save(mini.file("deck.xlsx"))
    _with_dimension(mini.file("deck.xlsx"), "A1:C2",
                    '<row r="2000000"><c r="A2000000" t="inlineStr"><is><t>z</t></is></c></row>')
    with pytest.raises(DataError) as exc:
        mini.load()
    assert exc.value.diagnostics[0].message == "the sheet has a row numbered past 1048576"


def test_ods_value_past_the_last_column_and_a_bad_repeat_count_are_input_errors(mini: DataRootCopy) -> None:
    """A value past column 1000 was dropped without a word; a repeat count that is no number was
    a ValueError (exit 3)."""
    as_sheet(mini, "deck.ods")
    header = "<table:table-row>" + "".join(_cell(h) for h in ("id", "name", "source.designed")) + "</table:table-row>"
    for row, message in (
            (_cell("a") + '<table:table-cell table:number-columns-repeated="4998"/>' + _cell("far"),
             "card_data/mini/deck.ods:2: a value in column GJH, past the last column pnp reads (expected at most "
             "1000 columns); remove it, or move it nearer"),
            ('<table:table-cell office:value-type="string" table:number-columns-repeated="1200"><text:p>x</text:p>'
             "</table:table-cell>", "card_data/mini/deck.ods:2: a value in column ALM, past the last column"),
            (_cell("a") + '<table:table-cell table:number-columns-repeated="1e3"/>',
             "card_data/mini/deck.ods: $: cannot read the workbook: a repeat count '1e3' that is no positive whole "
             "number")):
        ods(mini.file("deck.ods"), header + f"<table:table-row>{row}</table:table-row>")
        with pytest.raises(DataError) as exc:
            mini.load()
        assert exc.value.diagnostics[0].format().startswith(message)


@pytest.mark.parametrize(("runs", "message"), [
    ('<text:s text:c="999999999"/>', "its runs of spaces (text:s) come to more than 1000000 spaces"),
    ('<text:s text:c="600000"/>x<text:s text:c="600000"/>', "its runs of spaces (text:s) come to more than"),
    ('<text:s text:c="' + "9" * 40 + '"/>', "its runs of spaces (text:s) come to more than 1000000 spaces"),
    ('<text:s text:c="1000000000"/>', "its runs of spaces (text:s) come to more than 1000000 spaces (expected at "
     "most 1000000 spaces from text:s runs in a sheet)"),
    ('<text:s text:c="-3"/>', "cannot read the workbook: a run of spaces (text:s) of '-3', no positive"),
])
def test_ods_runs_of_spaces_are_bounded(mini: DataRootCopy, runs: str, message: str) -> None:
    """``<text:s text:c="N"/>``, N spaces in a few bytes, was expanded as written: 999,999,999 ran
    out of memory and 40 digits overflowed (exit 3, attack 6 F5 and F6)."""
    as_sheet(mini, "deck.ods")
    header = "<table:table-row>" + "".join(_cell(h) for h in ("id", "name", "source.designed")) + "</table:table-row>"
    ods(mini.file("deck.ods"), header + f"<table:table-row>{_cell('a')}{_cell('A' + runs)}{_cell('d')}"
        "</table:table-row>")
    with pytest.raises(DataError) as exc:
        mini.load()
    assert exc.value.diagnostics[0].format().startswith("card_data/mini/deck.ods: $: " + message)


def test_ods_text_nested_thousands_of_spans_deep_is_read(mini: DataRootCopy) -> None:
    """A cell whose text sits in spans nested 5,000 deep (12 KB packed) ran out of Python's
    recursion (exit 3, attack 7): the text is read in order, spaces and tails included."""
    as_sheet(mini, "deck.ods")
    header = "<table:table-row>" + "".join(_cell(h) for h in ("id", "name", "source.designed")) + "</table:table-row>"
    deep = "<text:span>" * 5000 + 'A<text:s text:c="2"/>B' + "</text:span>C" * 5000
    ods(mini.file("deck.ods"), header + f"<table:table-row>{_cell('a')}{_cell(deep)}{_cell('d')}</table:table-row>")
    (a,) = mini.load().components[0].items
    assert a.fields["name"] == "A  B" + "C" * 5000


def test_digits_of_other_scripts_are_no_number(mini: DataRootCopy) -> None:
    """A fullwidth "１" read as 1 in a number cell, and "６３" in `pnp new --size`, where the number
    options refuse them and the docs say digits (attack 7, borderline): ASCII digits only."""
    from pnp.products.scaffold import size_json

    as_sheet(mini, "deck.csv")
    mini.file("deck.csv").write_text("id,name,power,copies,source.designed\na,A,\uff13,1,d\nb,B,2,\uff11,d\n",
                                     encoding="utf-8")
    with pytest.raises(DataError) as exc:
        mini.load()
    assert [(d.cell, d.message) for d in exc.value.diagnostics] == [("C (power)", "'\uff13' is not a number"),
                                                                   ("D (copies)", "'\uff11' is not a number")]
    with pytest.raises(DataError, match="unknown card size"):
        size_json("\uff16\uff13,88")
    assert size_json("63,88") == "[63, 88]" and size_json("63.5x88") == "[63.5, 88]"


def _xlsx_members(mini: DataRootCopy, column: str) -> dict[str, bytes]:
    """The members of an XLSX openpyxl saves: rows (id, name, ``column``, source.designed) and
    (a, A, 1, d)."""
    from openpyxl import Workbook

    wb = Workbook()
    for row in (["id", "name", column, "source.designed"], ["a", "A", 1, "d"]):
        wb.active.append(row)
    wb.save(mini.file("deck.xlsx"))
    with zipfile.ZipFile(mini.file("deck.xlsx")) as z:
        return {n: z.read(n) for n in z.namelist()}


def _write_members(mini: DataRootCopy, members: dict[str, bytes]) -> None:
    """deck.xlsx made of ``members``, the deck's data."""
    with zipfile.ZipFile(mini.file("deck.xlsx"), "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    as_sheet(mini, "deck.xlsx")


def test_a_number_of_thousands_of_digits_is_too_large_at_its_cell(mini: DataRootCopy) -> None:
    """5000 digits in an integer or number column, or in ``series.to``: Python's int() refuses more
    than 4300 (a ValueError that was exit 3); XLSX's number cell failed the whole workbook with
    Python's message. Each is now the cell's own input error, as JSON's ``number ... is too large``."""
    big = "9" * 5000
    as_sheet(mini, "deck.csv")
    mini.file("deck.csv").write_text(
        "id,name,power,weight,copies,series.field,series.from,series.to,source.designed\n"
        f"a,A,{big},{big},{big},name,1,{big},d\n", encoding="utf-8")
    with pytest.raises(DataError) as exc:
        mini.load()
    shown = "number " + "9" * 37 + "... is too large"
    assert [(d.format().split(": ")[0], d.message) for d in exc.value.diagnostics] == [
        ("card_data/mini/deck.csv:2:C (power)", shown), ("card_data/mini/deck.csv:2:D (weight)", shown),
        ("card_data/mini/deck.csv:2:E (copies)", shown), ("card_data/mini/deck.csv:2:H (series.to)", shown)]
    members = _xlsx_members(mini, "copies")
    sheet = members["xl/worksheets/sheet1.xml"].decode()
    assert '<c r="C2" t="n"><v>1</v></c>' in sheet
    members["xl/worksheets/sheet1.xml"] = sheet.replace('<c r="C2" t="n"><v>1</v>',
                                                        f'<c r="C2" t="n"><v>{big}</v>').encode()
    _write_members(mini, members)
    with pytest.raises(DataError) as exc:
        mini.load()
    assert [(d.format().split(": ")[0], d.message) for d in exc.value.diagnostics] == [
        ("card_data/mini/deck.xlsx:2:C (copies)", shown)]


# -- attack 10: F5 (workbook errors that said nothing of what is wrong), F6 (sheets held whole) --


def _refused(mini: DataRootCopy, message: str) -> None:
    """The game's load fails, its first problem starting with ``message``, and `pnp check` says
    it with exit 2 and no traceback."""
    with pytest.raises(DataError) as exc:
        mini.load()
    assert exc.value.diagnostics[0].format().startswith(message), exc.value.diagnostics[0].format()
    r = mini.cli("check", "mini")
    assert_no_traceback(r)
    assert r.exit_code == 2 and message.split(" (expected")[0] in r.stderr


@pytest.mark.parametrize(("row", "message"), [
    ('<table:table-row table:number-rows-repeated="1000000000">' + _cell("a") + _cell("A") + _cell("d")
     + "</table:table-row>",
     "card_data/mini/deck.ods:2: a repeat count (table:number-rows-repeated) of 1000000000 is too large (expected "
     "at most 1048576, the rows of a spreadsheet program's sheet); save the workbook again"),
    ("<table:table-row>" + _cell("a") + '<table:table-cell table:number-columns-repeated="1000000000"/>'
     "</table:table-row>",
     "card_data/mini/deck.ods:2: a repeat count (table:number-columns-repeated) of 1000000000 is too large "
     "(expected at most 16384, the columns of a spreadsheet program's sheet)"),
    ('<table:table-row table:number-rows-repeated="' + "9" * 40 + '">' + _cell("a") + "</table:table-row>",
     "card_data/mini/deck.ods:2: a repeat count (table:number-rows-repeated) of 99999999999999999... is too large"),
    ('<table:table-row table:number-rows-repeated="0">' + _cell("a") + "</table:table-row>",
     "card_data/mini/deck.ods: $: cannot read the workbook: a repeat count '0' that is no positive whole number"),
])
def test_an_ods_repeat_count_past_a_sheet_is_too_large(mini: DataRootCopy, row: str, message: str) -> None:
    """A repeat count of 1,000,000,000 was "no positive whole number" (attack 10, F5): it is one,
    too large, and the message says so, with the limit and the row."""
    as_sheet(mini, "deck.ods")
    header = "<table:table-row>" + "".join(_cell(h) for h in ("id", "name", "source.designed")) + "</table:table-row>"
    ods(mini.file("deck.ods"), header + row)
    _refused(mini, message)


def _xlsx_cells(mini: DataRootCopy, cells: str, strings: int = 1) -> None:
    """deck.xlsx: a header row (id, name, power, source.designed), then row 2 of ``cells`` (XML),
    with a shared string table of ``strings`` strings."""
    _xlsx_shared(mini, f'<row r="2">{cells}</row>', ["s"] * strings)


def _xlsx_shared(mini: DataRootCopy, rows: str, strings: list[str], column: str = "power", raw: bool = False) -> None:
    """deck.xlsx: a header row (id, name, ``column``, source.designed), then ``rows`` (XML), with a
    shared string table of ``strings`` (each an ``<si>`` element's XML if ``raw``)."""
    members = _xlsx_members(mini, column)
    sheet = members["xl/worksheets/sheet1.xml"].decode()
    start, end = sheet.index('<row r="2"'), sheet.index("</sheetData>")
    members["xl/worksheets/sheet1.xml"] = (sheet[:start] + rows + sheet[end:]).encode()
    members["xl/sharedStrings.xml"] = (
        '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
        + "".join(s if raw else f'<si><t xml:space="preserve">{s}</t></si>' for s in strings) + "</sst>").encode()
    rels = members["xl/_rels/workbook.xml.rels"].decode()  # openpyxl writes inline strings: the table added
    members["xl/_rels/workbook.xml.rels"] = rels.replace("</Relationships>", (
        '<Relationship Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" '
        'Target="sharedStrings.xml" Id="rId9"/></Relationships>')).encode()
    types = members["[Content_Types].xml"].decode()
    members["[Content_Types].xml"] = types.replace("</Types>", (
        '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.'
        'spreadsheetml.sharedStrings+xml"/></Types>')).encode()
    _write_members(mini, members)


_A2 = '<c r="A2" t="inlineStr"><is><t>a</t></is></c>'
_B2 = '<c r="B2" t="inlineStr"><is><t>A</t></is></c>'
_D2 = '<c r="D2" t="inlineStr"><is><t>d</t></is></c>'


def test_an_ods_cell_of_too_many_elements_is_an_input_error(mini: DataRootCopy) -> None:
    """An ODS cell's elements are held until it ends, as an XLSX cell's: 2,500,000 spans took
    3.5 s and 284 MB (attack 23). Past MAX_CELL_ELEMENTS the cell is refused as it is read, named
    by its row and column; a few spans are one text."""
    from pnp.input.sheetfiles import MAX_CELL_ELEMENTS

    as_sheet(mini, "deck.ods")
    header = "<table:table-row>" + "".join(_cell(h) for h in ("id", "name", "source.designed")) + "</table:table-row>"
    spans = "".join(f"<text:span>{ch}</text:span>" for ch in "Zed")
    ods(mini.file("deck.ods"), header + f"<table:table-row>{_cell('z')}{_cell(spans)}{_cell('d')}</table:table-row>")
    assert [(i.id, i.fields["name"]) for i in mini.load().components[0].items] == [("z", "Zed")]
    spans = "<text:span>x</text:span>" * MAX_CELL_ELEMENTS
    ods(mini.file("deck.ods"), header + f"<table:table-row>{_cell('z')}{_cell(spans)}{_cell('d')}</table:table-row>")
    _refused(mini, f"card_data/mini/deck.ods:2:B: the cell holds more than {MAX_CELL_ELEMENTS} elements (paragraphs, "
             f"spans) (expected a cell of text in at most {MAX_CELL_ELEMENTS} elements, as a spreadsheet program "
             "saves it)")


def test_an_xlsx_row_or_cell_given_twice_is_an_input_error(mini: DataRootCopy) -> None:
    """A row number used again after a later row was skipped without a word, and a cell given
    twice in its row kept the last (attack 24, borderline): a spreadsheet program writes neither,
    and each is now refused, naming it."""
    _xlsx_shared(mini, f'<row r="2">{_A2}{_B2}{_D2}</row><row r="3">{_A2.replace("A2", "A3").replace(">a<", ">b<")}'
                 f'{_B2.replace("B2", "B3")}{_D2.replace("D2", "D3")}</row><row r="2">{_A2}</row>', ["s"])
    _refused(mini, "card_data/mini/deck.xlsx:2:A (id): row 2 comes again after row 3 (expected each row once, in "
             "order, as a spreadsheet program saves them)")
    _xlsx_cells(mini, _A2 + _B2 + _B2.replace(">A<", ">Z<") + _D2)
    _refused(mini, "card_data/mini/deck.xlsx:2:B (name): the cell B2 comes again, or after a cell right of it "
             "(expected each cell once, in order, as a spreadsheet program saves them)")


@pytest.mark.parametrize("raw", ["1_000", "\u0661\u0662", "\uff11\uff12"])
def test_a_number_cell_of_what_no_spreadsheet_writes_is_not_a_number(mini: DataRootCopy, raw: str) -> None:
    """XLSX and ODS number cells were read with Python's float(), which takes `1_000` and
    Arabic-Indic or fullwidth digits; a CSV cell of the same text is refused (attack 25, F6).
    Now they are text, refused at their cell as the CSV cell is."""
    members = _xlsx_members(mini, "power")
    sheet = members["xl/worksheets/sheet1.xml"].decode()
    cell = f'<c r="C2" t="n"><v>{raw}</v>'
    members["xl/worksheets/sheet1.xml"] = sheet.replace('<c r="C2" t="n"><v>1</v>', cell).encode()
    _write_members(mini, members)
    _refused(mini, f"card_data/mini/deck.xlsx:2:C (power): {raw!r} is not a number")
    as_sheet(mini, "deck.ods")
    names = ("id", "name", "power", "source.designed")
    header = "<table:table-row>" + "".join(_cell(h) for h in names) + "</table:table-row>"
    ods(mini.file("deck.ods"), header + "<table:table-row>" + _cell("a") + _cell("A") + _cell(raw, "float")
        + _cell("d") + "</table:table-row>")
    _refused(mini, f"card_data/mini/deck.ods:2:C (power): {raw!r} is not a number")


def test_a_shared_string_of_too_many_rich_text_runs_is_an_input_error(mini: DataRootCopy) -> None:
    """The runs of attack 23's F4 in ``xl/sharedStrings.xml``: openpyxl read the table whole, an
    object per run (one string of a million runs: 520 MB, 5 s). pnp's reader counts each string's
    elements as it reads them and refuses one past MAX_CELL_ELEMENTS, naming it; a few runs are
    one text."""
    from pnp.input.sheetfiles import MAX_CELL_ELEMENTS

    rows = '<row r="2">' + _A2 + '<c r="B2" t="s"><v>1</v></c>' + _D2 + "</row>"
    few = "<si>" + "".join(f"<r><rPr><b/></rPr><t>{ch}</t></r>" for ch in "Zed") + "</si>"
    _xlsx_shared(mini, rows, ["<si><t>s</t></si>", few], raw=True)
    assert [(i.id, i.fields["name"]) for i in mini.load().components[0].items] == [("a", "Zed")]
    many = "<si>" + "<r><t>x</t></r>" * (MAX_CELL_ELEMENTS // 2 + 1) + "</si>"
    _xlsx_shared(mini, rows, ["<si><t>s</t></si>", many], raw=True)
    _refused(mini, "card_data/mini/deck.xlsx: $: shared string 1 of the workbook (xl/sharedStrings.xml) holds "
             f"more than {MAX_CELL_ELEMENTS} elements (rich-text runs) (expected a text in at most "
             f"{MAX_CELL_ELEMENTS} runs, as a spreadsheet program saves it)")


@pytest.mark.parametrize("table", [
    '<si><t>a</t></si><si><r><t>b</t></r><r><rPr><b/></rPr><t xml:space="preserve"> c </t></r></si><si><t/></si>'
    '<si><t>x</t><t>y</t></si><si><t>p</t><rPh sb="0" eb="1"><t>ph</t></rPh></si><si><t>_x005F_x0041_</t></si>'
    "<si/><si><t>plain</t><r><t>run</t></r></si>",
    '<x:si xmlns:x="urn:other"><x:t>ns</x:t></x:si><si><r><t>r1</t></r><r><t>r2</t></r></si>',
])
def test_shared_strings_read_as_openpyxl_reads_them(table: str) -> None:
    """pnp's streaming reader of ``xl/sharedStrings.xml`` gives the strings openpyxl's gives."""
    from openpyxl.reader.strings import read_string_table

    from pnp.input.sheetfiles import _string_table

    xml = f'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">{table}</sst>'.encode()
    assert _string_table(io.BytesIO(xml)) == read_string_table(io.BytesIO(xml))


@pytest.mark.parametrize(("cells", "message"), [
    (_A2 + _B2 + '<c r="C2"><v>NaN</v></c>' + _D2,
     "card_data/mini/deck.xlsx:2:C (power): nan is not a finite number (expected a number"),
    (_A2 + _B2 + '<c r="C2"><v>-INF</v></c>' + _D2,
     "card_data/mini/deck.xlsx:2:C (power): -inf is not a finite number"),
    (_A2 + _B2 + '<c r="C2"><v>abc</v></c>' + _D2, "card_data/mini/deck.xlsx:2:C (power): 'abc' is not a number"),
    ('<c r="A2" t="s"><v>99999</v></c>',
     "card_data/mini/deck.xlsx:2:A (id): the shared string index 99999 is past the table's 1 string (expected an "
     "index from 0 to 0); save the workbook again from a spreadsheet program, or export the sheet as CSV"),
    (_A2 + '<c r="B2" t="s"><v>-1</v></c>',
     "card_data/mini/deck.xlsx:2:B (name): the shared string index -1 is not in the table's 1 string"),
    (_A2 + '<c r="B2" t="s"><v>x</v></c>',
     "card_data/mini/deck.xlsx:2:B (name): the shared string index 'x' is no whole number"),
    (_A2 + _B2 + '<c r="D2" t="b"><v>maybe</v></c>',
     "card_data/mini/deck.xlsx:2:D (source.designed): the cell a boolean (t=\"b\") holds 'maybe', which cannot "
     "be read"),
])
def test_an_xlsx_cell_that_cannot_be_read_is_named(mini: DataRootCopy, cells: str, message: str) -> None:
    """``<v>NaN</v>`` was "invalid literal for int() with base 10: 'NaN'" and a shared string index
    past the table "list index out of range", for the whole workbook (attack 10, F5): each is its
    cell's problem, said as a CSV's is."""
    _xlsx_cells(mini, cells)
    _refused(mini, message)


def _peak(fn: Any) -> int:
    """The most memory Python held while ``fn()`` ran (tracemalloc: counted, not timed)."""
    import tracemalloc

    tracemalloc.start()
    try:
        fn()
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


def test_a_csv_of_millions_of_empty_rows_is_read_a_row_at_a_time(mini: DataRootCopy,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """20 million empty rows (60 MB, within the 64 MiB limit) took more than 1.4 GB and ended out
    of memory (attack 10, F6): the rows were a list before the empty ones were skipped. 2 million
    here 300,000 (900 KB): the load holds little more than the file's bytes."""
    import pnp.input.sheetfiles as sheetfiles

    monkeypatch.setattr(sheetfiles, "MAX_SHEET_BYTES", 2**20)  # the file is read whole: a buffer of the limit
    as_sheet(mini, "deck.csv")
    body = b"id,name,source.designed\na,A,d\n" + b",,\n" * 300_000 + b"b,B,d\n"
    mini.file("deck.csv").write_bytes(body)
    items: list[Any] = []
    peak = _peak(lambda: items.extend(mini.load().components[0].items))
    assert [i.id for i in items] == ["a", "b"]
    assert peak < 8 * 2**20, peak  # 2.1 MB; as a list of rows (and a StringIO): 34 MB


def _count_rows(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A list to which each row the sheet readers give adds its length, from now on."""
    import pnp.input.tables as tables

    given: list[int] = []
    read_rows = tables.read_rows

    def counted(*args: Any) -> Any:
        inner = read_rows(*args)
        try:
            for row in inner:
                given.append(len(row))
                yield row
        finally:
            inner.close()

    monkeypatch.setattr(tables, "read_rows", counted)
    return given


@pytest.mark.parametrize("kind", ["csv", "ods", "xlsx"])
def test_reading_stops_at_the_row_past_the_row_limit(mini: DataRootCopy, kind: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """5 million rows were read whole (1.2 GB) before "too many rows" (attack 10, F6): the reader
    gives rows one at a time, and the one after the last item allowed is the last one asked for."""
    import pnp.input.tables as tables

    monkeypatch.setattr(tables, "MAX_ROWS", 50)
    rows = [["id", "name", "source.designed"]] + [[f"a{i}", "A", "d"] for i in range(5000)]
    if kind == "csv":
        mini.file("deck.csv").write_text("".join(",".join(r) + "\n" for r in rows), encoding="utf-8")
    elif kind == "ods":
        ods(mini.file("deck.ods"), "".join("<table:table-row>" + "".join(_cell(v) for v in r) + "</table:table-row>"
                                           for r in rows))
    else:
        from openpyxl import Workbook

        wb = Workbook()
        for r in rows:
            wb.active.append(r)
        wb.save(mini.file("deck.xlsx"))
    as_sheet(mini, f"deck.{kind}")
    given = _count_rows(monkeypatch)
    with pytest.raises(DataError) as exc:
        mini.load()
    assert [(d.message, d.line, d.expected) for d in exc.value.diagnostics] == [
        ("too many rows", 52, "at most 50 items")]
    assert len(given) == 52  # the header, 50 items, the one too many


def test_an_ods_or_xlsx_sheet_is_not_held_whole(mini: DataRootCopy) -> None:
    """An ODS content.xml was parsed into one tree (64 MiB of rows: gigabytes), and openpyxl held a
    row's every element (one XLSX row of 15 million empty cells: 1.35 GB, loading alone): both
    read a cell at a time now. 60,000 blank ODS rows and an XLSX row of 200,000 empty cells."""
    as_sheet(mini, "deck.ods")
    header = "<table:table-row>" + "".join(_cell(h) for h in ("id", "name", "source.designed")) + "</table:table-row>"
    data = "<table:table-row>" + "".join(_cell(v) for v in ("a", "A", "d")) + "</table:table-row>"
    ods(mini.file("deck.ods"), header + "<table:table-row><table:table-cell/></table:table-row>" * 60_000 + data)
    items: list[Any] = []
    peak = _peak(lambda: items.extend(mini.load().components[0].items))
    assert [(i.id, i.origin) for i in items] == [("a", ("card_data/mini/deck.ods", ("items", 0)))]
    assert peak < 8 * 2**20, peak  # 0.3 MB; as one tree: 20 MB
    _xlsx_cells(mini, '<c r="A2" t="inlineStr"><is><t>a</t></is></c><c r="B2" t="inlineStr"><is><t>A</t></is></c>'
                + "<c/>" * 200_000 + '<c r="D2" t="inlineStr"><is><t>d</t></is></c>')
    items.clear()
    peak = _peak(lambda: items.extend(mini.load().components[0].items))
    assert [(i.id, dict(i.fields)) for i in items] == [("a", {"name": "A"})]
    assert peak < 8 * 2**20, peak  # 1.9 MB; openpyxl's parser: 61 MB


# -- attack 13: F5 (a workbook's number cell past a float's range) --


@pytest.mark.parametrize(("column", "value"), [("power", "9" * 309), ("power", "9" * 400), ("weight", "9" * 400),
                                              ("weight", "1E+400"), ("power", "-1e999")])
def test_a_workbook_number_cell_past_a_float_is_too_large(mini: DataRootCopy, tmp_path: Path, column: str,
                                                          value: str) -> None:
    """An XLSX number cell of 309 to 400 digits was read as an int, passed, and overflowed the
    number filters (``{power|thousands}``: OverflowError, exit 3). It is too large at its cell, as
    the same number in JSON or CSV is (1E+400 too, which was "inf is not a finite number"); 308
    digits (below 1.8e308) still load."""
    members = _xlsx_members(mini, column)
    sheet = members["xl/worksheets/sheet1.xml"].decode()
    members["xl/worksheets/sheet1.xml"] = sheet.replace('<c r="C2" t="n"><v>1</v>',
                                                        f'<c r="C2" t="n"><v>{value}</v>').encode()
    _write_members(mini, members)
    shown = value if len(value) <= 40 else value[:37] + "..."
    _refused(mini, f"card_data/mini/deck.xlsx:2:C ({column}): number {shown} is too large (expected a number "
                   "of a sensible size, at most about 1e308")
    out = tmp_path / "out"
    r = mini.cli("build", "mini", "--out", out)
    assert r.exit_code == 2 and not out.exists()
    if column != "weight":
        return  # power is at most 9
    members["xl/worksheets/sheet1.xml"] = sheet.replace('<c r="C2" t="n"><v>1</v>',
                                                        f'<c r="C2" t="n"><v>{"9" * 308}</v>').encode()
    _write_members(mini, members)
    assert mini.load().components[0].items[0].fields[column] == int("9" * 308)


def test_an_ods_number_cell_past_a_float_is_refused(mini: DataRootCopy) -> None:
    """The same in ODS (a float cell, read as inf): too large, as in CSV, not "inf"."""
    as_sheet(mini, "deck.ods")
    header = "<table:table-row>" + "".join(_cell(h) for h in ("id", "name", "power", "source.designed"))
    ods(mini.file("deck.ods"), header + "</table:table-row><table:table-row>" + _cell("a") + _cell("A")
        + _cell("9" * 400, "float") + _cell("d") + "</table:table-row>")
    _refused(mini, f"card_data/mini/deck.ods:2:C (power): number {'9' * 37}... is too large (expected a number of "
                   "a sensible size, at most about 1e308")  # was "inf is not a finite number"


# -- attack 14: F1, F2 (a sheet's rows referencing more text than its file holds) --


def _shared_rows(n: int) -> str:
    """XLSX rows 2 to n + 1: id a2, a3, ..., each row's name shared string 0, its source string 1."""
    return "".join(f'<row r="{r}"><c r="A{r}" t="inlineStr"><is><t>a{r}</t></is></c><c r="B{r}" t="s"><v>0</v></c>'
                   f'<c r="D{r}" t="s"><v>1</v></c></row>' for r in range(2, n + 2))


@pytest.mark.parametrize("trail", [" ", ""])
def test_a_shared_string_in_every_row_is_read_once(mini: DataRootCopy, trail: str) -> None:
    """99,990 rows of one shared string of 19,000 characters and a space (1.4 MB of XLSX) made a
    trimmed copy a row, 1.9 GB, and ran out of memory (attack 14, F1): the cell is converted once,
    every row's item holds the one text. 1,000 rows of 20,000 characters here: 20 MB as copies."""
    _xlsx_shared(mini, _shared_rows(1000), ["x" * 20_000 + trail, "d"])
    items: list[Any] = []
    peak = _peak(lambda: items.extend(mini.load().components[0].items))
    assert len(items) == 1000 and items[-1].id == "a1001"
    assert len({id(i.fields["name"]) for i in items}) == 1 and items[0].fields["name"] == "x" * 20_000
    assert peak < 8 * 2**20, peak  # 2.6 MB; a copy a row: 21 MB


@pytest.mark.parametrize("kind", ["xlsx", "ods", "csv"])
def test_the_text_a_sheets_cells_hold_together_is_bounded(mini: DataRootCopy, kind: str,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing bounded the text a sheet's rows hold together, a shared string or an ODS repeated
    row's counted each time a cell holds it (1.4 MB of XLSX, 839 bytes of ODS stood for 1.9
    billion characters: attack 14, F1 and F2): past MAX_SHEET_TEXT it is an input error at the
    cell that passes it (the limit at 20,000 characters here, rows of 1,000)."""
    import pnp.input.tables as tables

    monkeypatch.setattr(tables, "MAX_SHEET_TEXT", 20_000)
    long = "x" * 999 + " "
    if kind == "xlsx":
        _xlsx_shared(mini, _shared_rows(100), [long, "d"])
        row = 21  # 19 rows of 1,000 characters, an id and 'd' before: 19,000 and 76; this row's 1,000 pass
    elif kind == "ods":  # (a repeated row's text: tests/input/test_sheet_text.py)
        as_sheet(mini, "deck.ods")
        header = "<table:table-row>" + "".join(_cell(h) for h in ("id", "name", "source.designed"))
        ods(mini.file("deck.ods"), header + "</table:table-row>" + "".join(
            f"<table:table-row>{_cell(f'a{r}')}{_cell(long)}{_cell('d')}</table:table-row>" for r in range(2, 102)))
        row = 21  # as in the XLSX
    else:  # a CSV holds no more than its file: the same limit, met with distinct texts
        as_sheet(mini, "deck.csv")
        mini.file("deck.csv").write_text("id,name,source.designed\n" + "".join(
            f"a{r},{'x' * 989}{r:09d},d\n" for r in range(2, 102)), encoding="utf-8")
        row = 21  # 19 rows of 998 characters, an id and 'd' before
    _refused(mini, f"card_data/mini/deck.{kind}:{row}:B (name): the sheet's cells hold more than 20000 characters "
                   "of text in all, up to this cell (expected at most 20000 characters (as much as the largest "
                   "sheet file holds), a shared string or a repeated row's text counted in each cell that "
                   "holds it); split the sheet, or shorten its longest texts")


def test_an_ods_row_repeated_with_its_id_is_refused_at_once(mini: DataRootCopy, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """An 839-byte ODS of one row repeated 100,000 times (table:number-rows-repeated) read every
    repeat before 99,999 "duplicate item id" problems (attack 14, F2): a repeated row whose id
    cell (or ``id_from`` cell) is filled gives the same id again, refused at its first repeat."""
    header = "<table:table-row>" + "".join(_cell(h) for h in ("id", "name", "source.designed"))
    ods(mini.file("deck.ods"), header + '</table:table-row><table:table-row table:number-rows-repeated="100000">'
        + _cell("a") + _cell("A") + _cell("d") + "</table:table-row>")
    given = _count_rows(monkeypatch)
    for entry, cell in (({}, "A (id)"), ({"id_from": "name"}, "A (id)")):
        as_sheet(mini, "deck.ods", **entry)
        given.clear()
        _refused(mini, f"card_data/mini/deck.ods:3:{cell}: the row repeats row 2 (a repeated row, "
                       "table:number-rows-repeated), its id cell too: the items' ids would be the same (expected "
                       "each item in a row of its own, with its own id); save the sheet with an id of its own in "
                       "each row")
        assert given == [3] * 6  # the header, the row, its first repeat: in the load, then in `pnp check`
    ods(mini.file("deck.ods"), header.replace(_cell("id"), _cell("power")) + "</table:table-row>"
        '<table:table-row table:number-rows-repeated="3">' + _cell("1", "float") + _cell("A") + _cell("d")
        + "</table:table-row>")
    _refused(mini, "card_data/mini/deck.ods:3:B (name): the row repeats row 2")
    out = tmp_path / "out"
    r = mini.cli("build", "mini", "--out", out)
    assert r.exit_code == 2 and not out.exists()


@pytest.mark.parametrize("value", ["", " ", "\u3000\x1c\x85", " a ", "\u200b", None, 0, False, 1.5])
def test_a_cell_is_filled_as_its_trimmed_text_says(value: Any) -> None:
    """``_filled`` (no copy of the text) agrees with ``_text`` (the trimmed copy it replaced)."""
    from pnp.input.sheetfiles import _text
    from pnp.input.tables import _filled

    assert _filled(value) == bool(_text(value))


def test_a_list_cell_of_too_many_entries_is_refused_before_it_is_split(mini: DataRootCopy) -> None:
    """A list field holds at most 1,000 entries: a cell of 3,000 is refused at the cell (30 MB of
    "ab;" once held 500 MB split), one of 1,001 by the field's limit."""
    as_sheet(mini, "deck.csv")
    head = "id,name,tags,source.designed\n"
    mini.file("deck.csv").write_text(head + "sun-1,Sun," + "ab;" * 3_000 + ",test\n", encoding="utf-8")
    with pytest.raises(DataError) as info:
        mini.load()
    (d,) = info.value.diagnostics
    assert d.format() == ("card_data/mini/deck.csv:2:C (tags): a list of 3,001 entries "
                          "(expected at most 1,000 entries; list field: Tags)"), d.format()
    mini.file("deck.csv").write_text(head + "sun-1,Sun," + "ab;" * 1_001 + ",test\n", encoding="utf-8")
    with pytest.raises(DataError) as info:
        mini.load()
    (d,) = info.value.diagnostics
    assert d.expected == "at most 1000 items" and "C (tags)" in d.format()
    mini.file("deck.csv").write_text(head + "sun-1,Sun," + "ab;" * 1_000 + ",test\n", encoding="utf-8")
    assert len(mini.load().components[0].items[0].fields["tags"]) == 1_000
