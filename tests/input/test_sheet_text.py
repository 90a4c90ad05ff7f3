"""A sheet's whitespace and the text its cells hold (pnp.input.sheetfiles, pnp.input.tables):
a workbook cell whose text trims to nothing is an empty cell, decided once per cell element,
shared string or repeat group (attack 16: an 872-byte ODS of a row of spaces repeated a million
times never finished; 515 KB of XLSX referencing a shared string of a million spaces took 50 s),
and every character of every cell read counts toward MAX_SHEET_TEXT before it is trimmed."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from conftest import DataRootCopy
from test_tables import _cell, _count_rows, _refused, _xlsx_shared, as_sheet, ods

from pnp.errors import DataError

HEADER = "<table:table-row>" + "".join(_cell(h) for h in ("id", "name", "source.designed")) + "</table:table-row>"
ROW_A = "<table:table-row>" + "".join(_cell(v) for v in ("a", "A", "d")) + "</table:table-row>"
ROW_B = "<table:table-row>" + "".join(_cell(v) for v in ("b", "B", "d")) + "</table:table-row>"
_STRING = '<table:table-cell office:value-type="string"'


@pytest.mark.parametrize("cells", [
    f'{_STRING} table:number-columns-repeated="990"><text:p> </text:p></table:table-cell>',  # attack 16, F1
    f'{_STRING} table:number-columns-repeated="16000"><text:p> </text:p></table:table-cell>',  # past column 1000
    _cell('<text:s text:c="60000"/>'),
    _cell("<text:tab/><text:line-break/> <text:span> <text:s/></text:span>\u3000"),
    f"{_STRING}><text:p/><text:p> </text:p><text:p><text:tab/></text:p></table:table-cell>",  # paragraphs
    '<table:table-cell office:value-type="date" office:date-value=" " table:number-columns-repeated="9"/>',
], ids=["a-space-990-columns", "a-space-16000-columns", "text-s-60000", "tab-break-span", "paragraphs", "date"])
def test_an_ods_row_of_whitespace_cells_is_a_blank_row(mini: DataRootCopy, monkeypatch: pytest.MonkeyPatch,
                                                       cells: str) -> None:
    """A row whose cells hold only spaces, tabs or line breaks, repeated (table:number-rows-repeated)
    1,000 times between two items: given as blank rows, as empty cells' are, its text read once
    (each repeat was rebuilt and trimmed cell by cell: a million of them never finished, and 16,000
    columns of a space were "a value past the last column")."""
    as_sheet(mini, "deck.ods")
    ods(mini.file("deck.ods"), HEADER + ROW_A + '<table:table-row table:number-rows-repeated="1000">'
        "<table:table-cell/>" + cells + "</table:table-row>" + ROW_B)
    given = _count_rows(monkeypatch)
    assert [i.id for i in mini.load().components[0].items] == ["a", "b"]
    assert given == [3, 3] + [0] * 1000 + [3]


_SPACES = '<si><t xml:space="preserve">' + " " * 100_000 + "</t></si>"


@pytest.mark.parametrize("strings", [
    [_SPACES],  # attack 16, F2 (a million spaces there)
    ['<si><r><t xml:space="preserve">' + " " * 50_000 + '</t></r><r><rPr><b/></rPr><t xml:space="preserve">'
     + "\t\n" * 25_000 + "</t></r></si>"],  # rich-text runs
    ["<si><t/></si>"],
], ids=["spaces", "rich-text-runs", "empty"])
def test_an_xlsx_whitespace_string_in_many_rows_is_no_value(mini: DataRootCopy, monkeypatch: pytest.MonkeyPatch,
                                                            strings: list[str]) -> None:
    """A shared string of only whitespace (runs of a rich text too) referenced by 200 rows, and an
    inline string of spaces beside it, are empty cells: the rows come blank, the string's
    whitespace read once for the table, not trimmed again for each row (a million spaces in
    100,000 rows: 50 s of CPU), and in a number column of an item's row the cell is absent."""
    inline = '<c r="F{r}" t="inlineStr"><is><t xml:space="preserve">   </t></is></c>'
    rows = ('<row r="2"><c r="A2" t="inlineStr"><is><t>a</t></is></c><c r="B2" t="inlineStr"><is><t>A</t></is></c>'
            '<c r="C2" t="s"><v>0</v></c><c r="D2" t="inlineStr"><is><t>d</t></is></c></row>'
            + "".join(f'<row r="{r}"><c r="C{r}" t="s"><v>0</v></c>{inline.format(r=r)}</row>' for r in range(3, 203))
            + '<row r="203"><c r="A203" t="inlineStr"><is><t>b</t></is></c><c r="B203" t="inlineStr"><is><t>B</t>'
            '</is></c><c r="D203" t="inlineStr"><is><t>d</t></is></c></row>')
    _xlsx_shared(mini, rows, strings, raw=True)
    given = _count_rows(monkeypatch)
    items = mini.load().components[0].items
    assert [(i.id, dict(i.fields)) for i in items] == [("a", {"name": "A"}), ("b", {"name": "B"})]
    assert given == [4, 4] + [0] * 200 + [4]


def test_every_cell_read_counts_toward_the_text_limit(mini: DataRootCopy, monkeypatch: pytest.MonkeyPatch) -> None:
    """The text limit counted only the trimmed cells of the columns read: a shared string of spaces
    and an ``x`` in a notes column, in the header row or past the header was read (and scanned
    for its ``x``) in each row that holds it, uncounted. Every cell read counts now, untrimmed
    (the limit at 20,000 characters here, cells of 1,000)."""
    import pnp.input.tables as tables

    monkeypatch.setattr(tables, "MAX_SHEET_TEXT", 20_000)
    long = " " * 999 + "x"
    rows = "".join(f'<row r="{r}"><c r="A{r}" t="inlineStr"><is><t>a{r}</t></is></c><c r="B{r}" t="inlineStr"><is>'
                   f'<t>A</t></is></c><c r="C{r}" t="s"><v>0</v></c><c r="D{r}" t="inlineStr"><is><t>d</t></is></c>'
                   "</row>" for r in range(2, 102))
    _xlsx_shared(mini, rows, [long], column="# notes")
    # the header's 29 characters, 19 rows of 1,000 and 2 to 4 more before; row 21's notes cell passes
    _refused(mini, "card_data/mini/deck.xlsx:21:C (# notes): the sheet's cells hold more than 20000 characters of "
                   "text in all, up to this cell (expected at most 20000 characters (as much as the largest sheet "
                   "file holds), a shared string or a repeated row's text counted in each cell that holds it); "
                   "split the sheet, or shorten its longest texts")
    as_sheet(mini, "deck.ods")  # a repeated row, past the header: its problem said once, its text counted each time
    ods(mini.file("deck.ods"), HEADER + ROW_A + '<table:table-row table:number-rows-repeated="100">'
        '<table:table-cell table:number-columns-repeated="3"/>' + _cell(long) + "</table:table-row>")
    _refused(mini, "card_data/mini/deck.ods:22:D: the sheet's cells hold more than 20000 characters")
    as_sheet(mini, "deck.csv")
    mini.file("deck.csv").write_text("id,name,source.designed,#" + "n" * 25_000 + "\na,A,d\n", encoding="utf-8")
    _refused(mini, "card_data/mini/deck.csv:1:D: the sheet's cells hold more than 20000 characters")


def test_a_repeated_row_that_makes_no_item_is_passed_over_at_once(mini: DataRootCopy) -> None:
    """An ODS row repeated 1,000 times whose only value is past the header: its problem is said
    once, at its first row (it was said for each repeat, each read cell by cell)."""
    as_sheet(mini, "deck.ods")
    ods(mini.file("deck.ods"), HEADER + ROW_A + '<table:table-row table:number-rows-repeated="1000">'
        '<table:table-cell table:number-columns-repeated="900"/>' + _cell("x") + "</table:table-row>")
    with pytest.raises(DataError) as exc:
        mini.load()
    assert [(d.line, d.cell, d.message) for d in exc.value.diagnostics] == [
        (3, "AHQ", "the row has 901 cells and the header row 3: cell AHQ ('x') under no header")]


def _calls(fn: Any) -> int:
    """How many functions (Python's and builtins such as ``len``) ``fn()`` calls: work counted, not timed."""
    count = [0]

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event in ("call", "c_call"):
            count[0] += 1

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return count[0]


def test_blank_rows_cost_the_same_whatever_the_unnamed_columns(mini: DataRootCopy) -> None:
    """Without an id column, the rows are read for which header-less columns hold cells: each
    blank row was checked against each such column (997 columns and a million blank rows, 872
    bytes of ODS: more than 20 s). 5,000 blank rows here, the same work with 997 columns as with 2."""
    as_sheet(mini, "deck.ods")

    def load(gap: int) -> int:
        header = (f"<table:table-row>{_cell('name')}<table:table-cell table:number-columns-repeated=\"{gap}\"/>"
                  f"{_cell('source.designed')}</table:table-row>")
        ods(mini.file("deck.ods"), header + '<table:table-row table:number-rows-repeated="5000"><table:table-cell/>'
            "</table:table-row>" + "<table:table-row>" + _cell("A") + "</table:table-row>")

        def fails() -> None:
            with pytest.raises(DataError, match="no id column"):
                mini.load()
        return _calls(fails)

    narrow, wide = load(2), load(997)
    assert wide < narrow + 50_000, (narrow, wide)  # 5,000 x 997 checks: more than 5 million calls


def test_a_repeated_row_without_an_id_is_refused_at_its_first_repeat(mini: DataRootCopy,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """An ODS row repeated a million times, its id cell empty and 990 number cells: each repeat
    was an item without an id, read cell by cell (3.5 KB: more than 55 s and 678 MB before the
    100,001st). Its first repeat is refused, as a repeated row with its id is (1,000 repeats here)."""
    as_sheet(mini, "deck.ods")
    ods(mini.file("deck.ods"), HEADER + ROW_A + '<table:table-row table:number-rows-repeated="1000">'
        "<table:table-cell/>" + _cell("N") + _cell("d") + '<table:table-cell office:value-type="float" '
        'office:value="1" table:number-columns-repeated="990"/></table:table-row>')
    given = _count_rows(monkeypatch)
    _refused(mini, "card_data/mini/deck.ods:4:A (id): the row repeats row 3 (a repeated row, "
                   "table:number-rows-repeated), and has no id: each repeat would be an item without one (expected "
                   "each item in a row of its own, with its own id); save the sheet with an id of its own in each row")
    assert given == [3, 3, 993, 993] * 2  # the header, a, the row and its first repeat: the load, then `pnp check`
