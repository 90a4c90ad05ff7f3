"""sheetfiles: a sheet file (``.csv``, ``.tsv``, ``.xlsx``, ``.ods``, a workbook's sheet by
name) -> its rows, one at a time, each a list of cell values (text for CSV and TSV; text,
numbers, booleans, dates or None for workbooks), for ``pnp.input.tables`` to make items of.

Every reader gives rows as they are asked for, and holds about one row: a sheet is never held
whole (attack 10, F6: 20 million empty CSV rows took 1.4 GB; an ODS tree or openpyxl's parser
hundreds of MB). CSV with the standard library's ``csv`` over a line-at-a-time decoder; XLSX
with openpyxl (read-only), through a worksheet parser of its own here that reads a cell at its
end and drops what it has read; ODS with zipfile and ElementTree's ``iterparse``: an ``.ods``
file is a zip holding ``content.xml``, a documented OpenDocument table (cells with
``office:value-type`` and repeat counts), and the few lines here read its values without a
dependency (odfpy, or pyexcel-ods3 on top of it, load a whole document object model to answer
the same question).

Size: over 500 lines because it holds the three readers with their bounds and messages (a
workbook cell that cannot be read is named by its cell)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pnp.errors import DataError, Diagnostic
from pnp.input.load import read_regular

if TYPE_CHECKING:  # the readers' modules are loaded when a sheet is read (every build imports this one)
    from xml.etree.ElementTree import Element

MAX_SHEET_BYTES = 64 * 1024 * 1024  # a sheet file, and any one member of a workbook (a zip) unpacked
MAX_WORKBOOK_UNPACKED = 100 * 1024 * 1024  # a workbook's members unpacked, in all
MAX_WORKBOOK_MEMBERS = 10_000
MAX_WORKBOOK_RATIO = 200  # unpacked / packed, for a member over 1 MiB unpacked (a zip bomb's is ~1000)
MAX_COLUMNS = 1_000
# Spaces an ODS sheet's `<text:s text:c="N"/>` runs may expand to, all its cells together: a few
# bytes each, they are the one way its text grows past its file (999,999,999 ran out of memory).
MAX_ODS_SPACES = 1_000_000
XLSX_LAST_ROW = 1_048_576  # a worksheet's last row (Excel's, LibreOffice's): rows past it are no sheet's
_INTEGER = re.compile(r"[+-]?\d+\Z", re.ASCII)  # ASCII digits, as the number options take (not "１")


def column_letter(col: int) -> str:
    """1 -> A, 26 -> Z, 27 -> AA."""
    s = ""
    while col > 0:
        col, r = divmod(col - 1, 26)
        s = chr(65 + r) + s
    return s


def blank_text(value: Any) -> bool:
    """Whether a workbook's cell value is text that trims to nothing (``""``, spaces, tabs, line
    breaks): no value, as an empty cell is. The readers give None for it, deciding once per cell
    element, shared string or repeat group: a whitespace cell repeated a million times, or a shared
    string of a million spaces in 100,000 rows, was trimmed again each time (attack 16, F1, F2)."""
    return value.__class__ is str and (not value or value.isspace())


def _text(value: Any) -> str:
    """A cell as text: numbers as written (3, not 3.0), dates in ISO form."""
    if value.__class__ is str:
        return value.strip()
    from datetime import date, datetime, time

    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    if isinstance(value, datetime):
        return value.isoformat(sep=" ") if value.time() != time() else value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return str(value).strip()


# -- reading cells ---------------------------------------------------------------------------


def read_rows(path: Path, shown: str, sheet: str | None) -> Generator[Sequence[Any], None, None]:
    """The rows of a sheet file (row 1 first), each a list of cell values: text for CSV and
    TSV; text, numbers, booleans, dates or None for workbooks. The file is checked and opened
    here; its rows are read as they are asked for (a sheet of millions of rows is never held
    whole: ``items_from_rows`` skips the empty ones and stops at MAX_ROWS). Close the iterator
    when done with it (a workbook's stays open until then). A row an ODS sheet repeats
    (``table:number-rows-repeated``) is given again as the same list, so a reader can tell it."""
    try:
        size = path.stat().st_size
    except OSError:
        raise DataError([Diagnostic(shown, "file not found", hint="check the name in the manifest")]) from None
    if not path.is_file():
        raise DataError([Diagnostic(shown, "not a regular file", expected="a sheet file")])
    if size > MAX_SHEET_BYTES:
        raise DataError([Diagnostic(shown, f"sheet file of {size} bytes is too large",
                                    expected=f"at most {MAX_SHEET_BYTES // 2**20} MiB")])
    suffix = path.suffix.lower()
    try:
        if suffix in (".csv", ".tsv"):
            return text_rows(read_regular(path, MAX_SHEET_BYTES), shown, "\t" if suffix == ".tsv" else None)
        if suffix == ".xlsx":
            return _xlsx_rows(path, shown, sheet)
        return _ods_rows(path, shown, sheet)
    except OSError as exc:
        raise DataError([Diagnostic(shown, f"cannot read file: {exc.strerror or exc}", expected="a readable file",
                                    hint="check the file's permissions")]) from None


def text_rows(raw: bytes, shown: str, delimiter: str | None) -> Generator[list[str], None, None]:
    """The rows of CSV or TSV ``raw``, read as they are asked for: the text is checked to be UTF-8
    here (a megabyte at a time) and decoded a line at a time (decoded whole, 64 MiB of text with
    one emoji in it is 256 MB; its rows as lists, more than a gigabyte: attack 10, F6)."""
    import codecs
    import csv
    import io

    # Spreadsheet programs write "CSV UTF-8" with a byte order mark: accepted here.
    check = codecs.getincrementaldecoder("utf-8")()
    step = 2**20
    for start in range(0, len(raw), step):
        try:
            check.decode(raw[start:start + step], final=start + step >= len(raw))
        except UnicodeDecodeError:
            try:  # where: the whole text's decoding stops at the same byte
                raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                line = raw[: exc.start].count(b"\n") + 1
                raise DataError([Diagnostic(shown, f"not valid UTF-8 (byte 0x{raw[exc.start]:02x})", (), line, None,
                                            "UTF-8 text", 'save the sheet as "CSV UTF-8"', cell="")]) from None
    if delimiter is None:
        end = raw.find(b"\n")
        first = raw[: end if end >= 0 else len(raw)]
        # Spreadsheets in locales whose decimal mark is a comma write ';' between cells.
        delimiter = ";" if first.count(b";") > first.count(b",") else ","
    text = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8-sig", newline="")
    return _csv_rows(csv.reader(text, delimiter=delimiter, strict=True), shown, delimiter)


def _csv_rows(reader: Any, shown: str, delimiter: str) -> Generator[list[str], None, None]:
    """``reader``'s rows; its error names the row it was reading (``file:ROW``, as the sheet's
    other messages do) and the line of the file that row starts on (a quoted cell may hold line
    breaks, so rows and lines can differ; an unterminated quote is only noticed at the end)."""
    import csv

    row, start = 1, 1
    try:
        for cells in reader:
            yield cells
            row, start = row + 1, reader.line_num + 1
    except csv.Error as exc:
        message = f"invalid CSV in the row that starts on line {start}: {exc}"
        raise DataError([Diagnostic(shown, message, (), row, None, "cells separated by "
                                    f"{delimiter!r}, quotes doubled inside quoted cells", cell="")]) from None


def _workbook_error(shown: str, exc: BaseException) -> DataError:
    # str() of a MemoryError (and of some openpyxl errors) is empty: the message names the kind then
    why = str(exc) or type(exc).__name__
    return DataError([Diagnostic(shown, f"cannot read the workbook: {why}",
                                 expected="a workbook saved by a spreadsheet program",
                                 hint="save it again, or export the sheet as CSV")])


def check_workbook_zip(path: Path, shown: str) -> None:
    """A workbook (.xlsx and .ods are zips) whose members' declared sizes are within bounds,
    before any reader unpacks one: each member at most MAX_SHEET_BYTES unpacked, all of them at
    most MAX_WORKBOOK_UNPACKED, at most MAX_WORKBOOK_MEMBERS members, and no member over 1 MiB
    unpacked that is more than MAX_WORKBOOK_RATIO times its packed size. zipfile never unpacks
    more than a member's declared size (a larger stream fails its CRC), so the declared sizes
    bound what openpyxl and the ODS reader hold. Raises DataError (a zip bomb, a damaged zip)."""
    import zipfile

    def refuse(message: str, expected: str) -> DataError:
        return DataError([Diagnostic(shown, message, expected=expected,
                                     hint="save the workbook again from a spreadsheet program, or export the "
                                     "sheet as CSV")])

    try:
        with zipfile.ZipFile(path) as z:
            infos = z.infolist()
    except (zipfile.BadZipFile, ValueError, EOFError) as exc:
        raise _workbook_error(shown, exc) from None
    if len(infos) > MAX_WORKBOOK_MEMBERS:
        raise refuse(f"the workbook holds {len(infos)} files", f"at most {MAX_WORKBOOK_MEMBERS} files in its zip")
    total = 0
    for info in infos:
        size = info.file_size
        if size > MAX_SHEET_BYTES:
            raise refuse(f"the workbook's {info.filename!r} unpacks to {size} bytes",
                         f"at most {MAX_SHEET_BYTES // 2**20} MiB unpacked per file in its zip")
        if size > 2**20 and size > MAX_WORKBOOK_RATIO * max(info.compress_size, 1):
            raise refuse(f"the workbook's {info.filename!r} unpacks to {size} bytes from {info.compress_size} "
                         "(a zip bomb?)", f"at most {MAX_WORKBOOK_RATIO} times its packed size")
        total += size
    if total > MAX_WORKBOOK_UNPACKED:
        raise refuse(f"the workbook unpacks to {total} bytes",
                     f"at most {MAX_WORKBOOK_UNPACKED // 2**20} MiB unpacked in all")


def _pick_sheet(shown: str, names: list[str], sheet: str | None) -> str:
    if sheet is None:
        return names[0]
    if sheet in names:
        return sheet
    import difflib

    close = difflib.get_close_matches(sheet, names, n=1, cutoff=0.6)
    raise DataError([Diagnostic(shown, f"no sheet {sheet!r} in the workbook", expected="one of " + ", ".join(names),
                                hint=f"did you mean {close[0]!r}?" if close else None)])


def _cast_number(value: str) -> int | float | str:
    """openpyxl's reading of a number cell, but a whole number of more than 400 digits (past any
    float, and well inside the 4300 digits ``int()`` converts) stays text, for ``convert`` to call
    too large at its cell (openpyxl's own raised a ValueError for the whole workbook), and so does
    a value that is no number (``abc``); ``NaN`` and ``INF`` are floats, for ``convert`` to call
    no finite number at their cell (openpyxl's ``int('NaN')`` failed the workbook: attack 10, F5)."""
    if _INTEGER.match(value):
        return int(value) if len(value) <= 400 else value
    if not _SAVED_NUMBER.match(value):  # `1_000`, Arabic-Indic or fullwidth digits: Python's float() takes
        return value  # them, a spreadsheet writes none; text, refused at its cell as a CSV cell is (attack 25)
    v = float(value)
    return value if _past_float(v, value) else v


# A number as text: ASCII digits, a point, an exponent (a CSV cell's, pnp.input.tables); as a
# spreadsheet saves one (xsd:double), NaN and INF too.
_DECIMAL = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
_NUMBER = re.compile(_DECIMAL + r"\Z", re.ASCII)
_SAVED_NUMBER = re.compile(rf"(?:{_DECIMAL}|[+-]?(?:nan|inf|infinity))\Z", re.ASCII | re.IGNORECASE)


def _past_float(v: float, raw: str) -> bool:
    """Whether ``raw``, read as the float ``v``, is a number past a float's range (``1E+400``),
    not infinity written as such: kept as text, ``convert`` calls it too large (as in CSV)."""
    return math.isinf(v) and raw.strip().lstrip("+-").lower() not in ("inf", "infinity")


MAX_CELL_ELEMENTS = 10_000  # in one worksheet cell: its value, an inline string's rich-text runs


class _CellFault(Exception):
    """A worksheet cell openpyxl cannot read: where it is and what is wrong."""

    def __init__(self, row: int, col: int, message: str, expected: str):
        super().__init__(message)
        self.row, self.col, self.message, self.expected = row, col, message, expected


def _xlsx_parser(shown: str) -> type:
    """openpyxl's worksheet parser, made to say which cell it cannot read and why (it raised
    ``list index out of range`` for a shared string index past the table, naming no cell)."""
    from openpyxl.utils.cell import coordinate_to_tuple
    from openpyxl.worksheet._reader import (
        CELL_TAG,
        DATA_TAG,
        DIMENSION_TAG,
        ROW_TAG,
        VALUE_TAG,
        SheetDimension,
        WorkSheetParser,
        iterparse,
    )

    class Parser(WorkSheetParser):  # type: ignore[misc]
        def __init__(self, src: Any, shared_strings: list[Any], *args: Any, **kwargs: Any):
            """openpyxl's parser, with each shared string that trims to nothing made None in the
            workbook's table, once (``blank_text``): a cell referencing one is an empty cell."""
            for i, s in enumerate(shared_strings):
                if blank_text(s):
                    shared_strings[i] = None
            super().__init__(src, shared_strings, *args, **kwargs)

        def parse_dimensions(self) -> tuple[int, int, int, int] | None:
            """The sheet's <dimension> (it comes before <sheetData>), or None. openpyxl's own
            parsed the whole sheet when there was none, holding every element of it (loading a
            workbook reads each sheet's: a sheet of 15 million ``<c/>``, 1.35 GB)."""
            for event, el in iterparse(self.source, events=("start", "end")):
                if event == "start" and el.tag == DATA_TAG:
                    return None
                if event == "end" and el.tag == DIMENSION_TAG:
                    return SheetDimension.from_tree(el).boundaries  # type: ignore[no-any-return]
            return None

        def parse(self) -> Iterator[tuple[int, list[dict[str, Any]]]]:
            """The rows, each (its number, its cells that hold a value), a cell read at its end and
            dropped, as is every element outside a cell once it ends. openpyxl's own held a row's
            whole tree and every cell of it (one row of 15 million ``<c/>``: 1.35 GB), the
            emptied element of each row read, and a dict of each row's attributes (read-only
            mode uses the rows only)."""
            stack: list[Element] = []
            cells: list[dict[str, Any]] = []
            in_cell = held = 0  # held: the elements of the cell being read, kept until it ends
            for event, el in iterparse(self.source, events=("start", "end")):
                tag = el.tag
                if event == "start":
                    stack.append(el)
                    if in_cell:
                        held += 1
                        if held > MAX_CELL_ELEMENTS:  # 4.3 million rich-text runs held 2 GB (attack 23, F4)
                            row, col = self._place(next(e for e in stack if e.tag == CELL_TAG))
                            raise _CellFault(row, col, f"the cell holds more than {MAX_CELL_ELEMENTS} elements "
                                             "(rich-text runs)", "a cell of text in at most "
                                             f"{MAX_CELL_ELEMENTS} runs, as a spreadsheet program saves it")
                    if tag == CELL_TAG:
                        in_cell += 1
                        if in_cell == 1:
                            held = 0
                    elif tag == ROW_TAG and not in_cell:
                        number = el.get("r")
                        if number is None:
                            self.row_counter += 1
                        elif _INTEGER.match(number.strip()):
                            if int(number) <= self.row_counter:  # openpyxl skipped it without a word
                                raise _CellFault(int(number), 1, f"row {int(number)} comes again after row "
                                                 f"{self.row_counter}", "each row once, in order, as a "
                                                 "spreadsheet program saves them")
                            self.row_counter = int(number)
                        else:
                            raise ValueError(f"{number[:20]!r} is not a valid row number")
                        self.col_counter = 0
                        cells = []
                    continue
                stack.pop()
                if tag == CELL_TAG:
                    in_cell -= 1
                    if not in_cell and not len(el) and el.get("r") is None:
                        self.col_counter += 1  # an empty cell (a value is in a child): as parse_cell counts it
                    elif not in_cell:
                        cell = self.parse_cell(el)
                        if cell["value"] is not None and not blank_text(cell["value"]):  # an inline string too
                            _xlsx_column(shown, cell)
                            if cells and cell["column"] <= cells[-1]["column"]:  # openpyxl kept the last
                                raise _CellFault(self.row_counter, cell["column"], f"the cell "
                                                 f"{column_letter(cell['column'])}{self.row_counter} comes again, or "
                                                 "after a cell right of it", "each cell once, in order, as a "
                                                 "spreadsheet program saves them")
                            cells.append(cell)
                elif tag == ROW_TAG and not in_cell:
                    yield self.row_counter, cells
                    cells = []
                if not in_cell and stack:
                    del stack[-1][-1]  # the element just ended: read, and no longer needed

        def _place(self, element: Element) -> tuple[int, int]:
            """(row, column) of a cell: its "r", else where openpyxl puts a cell without one."""
            row, col = self.row_counter, self.col_counter + 1
            if element.get("r"):
                with suppress(Exception):  # openpyxl's own parse_cell says what is wrong with it
                    row, col = coordinate_to_tuple(element.get("r"))
            return row, col

        def parse_cell(self, element: Element) -> dict[str, Any]:
            kind = element.get("t", "n")
            value = element.findtext(VALUE_TAG, None) or None
            row, col = self._place(element)
            if kind == "s" and value is not None:
                count = len(self.shared_strings)
                table = f"the table's {count} string{'' if count == 1 else 's'}"
                index = value.strip()
                if not _INTEGER.match(index) or len(index) > 20:
                    raise _CellFault(row, col, f"the shared string index {value[:20]!r} is no whole number",
                                     f"an index of {table}, 0 to {count - 1}" if count else "no shared string "
                                     "cell: the workbook has no shared strings")
                if not 0 <= int(index) < count:
                    where = "past" if int(index) >= count else "not in"
                    raise _CellFault(row, col, f"the shared string index {int(index)} is {where} {table}",
                                     f"an index from 0 to {count - 1}" if count else "no shared string cell: "
                                     "the workbook has no shared strings")
            try:
                return super().parse_cell(element)  # type: ignore[no-any-return]
            except (ValueError, TypeError, IndexError, KeyError, OverflowError) as exc:
                what = {"b": "a boolean (t=\"b\")", "d": "a date (t=\"d\")", "e": "an error (t=\"e\")"}.get(
                    kind, f"of type {kind[:20]!r}")
                raise _CellFault(row, col, f"the cell {what} holds {(value or '')[:40]!r}, which cannot be read "
                                 f"({exc or type(exc).__name__})", "a cell saved by a spreadsheet program") from None

    return Parser


class _StringFault(Exception):
    """A shared string (``xl/sharedStrings.xml``) of too many elements: which one."""

    def __init__(self, index: int):
        super().__init__(index)
        self.index = index


def _string_table(src: Any) -> list[str]:
    """The workbook's shared strings, as openpyxl's ``read_string_table`` reads them (the text of
    an ``<si>``'s ``<t>`` and of each rich-text run's ``<t>``, ``_x005F_`` unescaped), each
    ``<si>`` counted as it is read and dropped once read. openpyxl's built every ``<si>`` whole,
    then an object per run: one of a million runs held 520 MB (attack 23, F4), and every ``<si>``
    it had read stayed in the tree. Raises _StringFault past MAX_CELL_ELEMENTS elements in one."""
    from xml.etree.ElementTree import iterparse

    si = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}si"  # openpyxl's STRING_TAG
    strings: list[str] = []
    root: Element | None = None
    depth = held = 0  # depth: inside an <si> (nested ones too); held: its elements so far
    for event, node in iterparse(src, events=("start", "end")):
        tag = node.tag
        if event == "start":
            if depth:
                held += 1
                if held > MAX_CELL_ELEMENTS:
                    raise _StringFault(len(strings))
            elif root is None:
                root = node
            if tag == si:
                held = held if depth else 0
                depth += 1
            continue
        if not depth or tag != si:
            continue
        depth -= 1
        if depth:
            continue
        if len(node) == 1 and _local(node[0].tag) == "t":  # most are one <t>
            text = [node[0].text]
        else:
            text = [t.text for t in node if _local(t.tag) == "t"][-1:]  # the last <t>, as openpyxl takes it
            for run in node:
                if _local(run.tag) == "r":
                    text += [t.text for t in run if _local(t.tag) == "t"][-1:]
        joined = "".join(t for t in text if t is not None)
        strings.append(joined.replace("x005F_", "") if "x005F_" in joined else joined)
        if root is not None:
            root.clear()  # the <si> just read (and any before): no longer needed
    return strings


def _local(tag: str) -> str:
    return tag[tag.rfind("}") + 1:]


def _xlsx_rows(path: Path, shown: str, sheet: str | None) -> Generator[Sequence[Any], None, None]:
    import openpyxl  # only a workbook needs it
    from openpyxl.reader import excel
    from openpyxl.worksheet import _read_only, _reader

    _reader._cast_number = _cast_number  # type: ignore[attr-defined]
    _read_only.WorkSheetParser = _xlsx_parser(shown)  # type: ignore[attr-defined]
    excel.read_string_table = _string_table  # type: ignore[attr-defined]
    check_workbook_zip(path, shown)
    try:
        wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except _StringFault as fault:
        raise DataError([Diagnostic(shown, f"shared string {fault.index} of the workbook (xl/sharedStrings.xml) "
                                    f"holds more than {MAX_CELL_ELEMENTS} elements (rich-text runs)", (), None, None,
                                    f"a text in at most {MAX_CELL_ELEMENTS} runs, as a spreadsheet program saves it",
                                    "save the workbook again from a spreadsheet program, or export the sheet as "
                                    "CSV")]) from None
    except (Exception, MemoryError) as exc:  # openpyxl raises many kinds for a damaged file
        raise _workbook_error(shown, exc) from None
    try:
        ws = wb[_pick_sheet(shown, wb.sheetnames, sheet)]
    except BaseException:
        wb.close()
        raise
    return _xlsx_stream(wb, ws, shown)


def _xlsx_stream(wb: Any, ws: Any, shown: str) -> Generator[Sequence[Any], None, None]:
    """The worksheet's rows, read as asked for; the workbook closed at the end."""
    header: Sequence[Any] = ()
    try:
        # The sheet's <dimension> element is what the file says of itself: read every row, whatever
        # it declares (rows past it were dropped without a word), each as wide as its last value.
        ws.reset_dimensions()
        ws._get_row = _xlsx_row(shown)  # openpyxl's pads every row to the widest
        for n, row in enumerate(ws.iter_rows(values_only=True), 1):
            if n > XLSX_LAST_ROW:
                raise DataError([Diagnostic(shown, f"the sheet has a row numbered past {XLSX_LAST_ROW}", (),
                                            None, None, f"at most {XLSX_LAST_ROW} rows, as in a spreadsheet program",
                                            "save the workbook again from a spreadsheet program, or export the "
                                            "sheet as CSV")])
            if n == 1:
                header = row
            yield row
    except _CellFault as fault:
        name = _text(header[fault.col - 1]) if fault.row > 1 and fault.col <= len(header) else ""
        raise DataError([Diagnostic(shown, fault.message, (), fault.row, fault.col, fault.expected,
                                    "save the workbook again from a spreadsheet program, or export the sheet as CSV",
                                    cell=column_letter(fault.col) + (f" ({name})" if name else ""))]) from None
    except DataError:
        raise
    except (Exception, MemoryError) as exc:
        raise _workbook_error(shown, exc) from None
    finally:
        wb.close()


def _xlsx_column(shown: str, cell: Mapping[str, Any]) -> None:
    """A DataError for a value past column MAX_COLUMNS (once dropped without a word)."""
    col = cell["column"]
    if col > MAX_COLUMNS:
        raise DataError([Diagnostic(shown, f"a value in column {column_letter(col)}, past the last column pnp reads",
                                    (), cell.get("row"), None, f"at most {MAX_COLUMNS} columns",
                                    "remove it, or move it nearer", cell="")])


def _xlsx_row(shown: str) -> Callable[..., list[Any]]:
    """openpyxl's read-only ``_get_row``, made to build a row from its parsed cells only as wide as
    its last value (openpyxl pads each to the widest row: 16,384 columns for one far cell), and to
    refuse a value past column MAX_COLUMNS."""
    def get_row(cells: list[dict[str, Any]], min_col: int = 1, max_col: int | None = None,
                values_only: bool = True) -> list[Any]:
        out: list[Any] = []
        for c in cells:
            value = c["value"]
            if value is None:
                continue
            col = c["column"]
            if col > len(out):
                _xlsx_column(shown, c)
                out.extend([None] * (col - len(out)))
            out[col - 1] = value
        return out
    return get_row


_TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
_OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"


def _ods_rows(path: Path, shown: str, sheet: str | None) -> Generator[Sequence[Any], None, None]:
    import zipfile

    check_workbook_zip(path, shown)
    try:
        z = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, ValueError, EOFError) as exc:
        raise _workbook_error(shown, exc) from None
    try:
        info = z.getinfo("content.xml")
        if info.file_size > MAX_SHEET_BYTES:
            raise DataError([Diagnostic(shown, "the workbook's content is too large",
                                        expected=f"at most {MAX_SHEET_BYTES // 2**20} MiB unpacked")])
        content = z.open(info)
    except DataError:
        z.close()
        raise
    except (zipfile.BadZipFile, KeyError, ValueError, MemoryError) as exc:
        z.close()
        raise _workbook_error(shown, exc) from None
    return _ods_stream(z, content, shown, sheet)


def _ods_stream(z: Any, content: Any, shown: str, sheet: str | None) -> Generator[Sequence[Any], None, None]:
    """The rows of the sheet (the first, or the one named ``sheet``) in ``content`` (content.xml),
    parsed as they are asked for: each cell is read at its end and dropped from the tree, and so is
    every element outside a cell, so what is held is one row's cells (once the whole document's
    tree: 64 MiB of it is gigabytes). Blank rows are held as a count until a row with a value comes
    (trailing ones, often repeated a million times, never are rows)."""
    import zipfile
    from xml.etree import ElementTree

    table_tag, row_tag = f"{{{_TABLE}}}table", f"{{{_TABLE}}}table-row"
    cell_tags = (f"{{{_TABLE}}}table-cell", f"{{{_TABLE}}}covered-table-cell")
    names: list[str] = []
    found = False  # the sheet's table has been read
    reading = False  # inside the sheet's table
    stack: list[Element] = []
    in_cell = held = 0  # cells open (a cell's text is read at its end); the elements of the one read
    cells: list[Any] = []
    pending = 0  # empty cells not yet added to the row
    number = 1  # the sheet row the next row is
    blank = 0  # blank rows not yet given
    spaces = [MAX_ODS_SPACES]  # what `text:s` runs may still add
    try:
        for event, el in ElementTree.iterparse(content, events=("start", "end")):
            tag = el.tag
            if event == "start":
                stack.append(el)
                if in_cell:
                    held += 1  # a cell's elements are held until it ends: 2,500,000 spans took 284 MB
                    if held > MAX_CELL_ELEMENTS:
                        raise _ods_crowded(shown, number + blank if reading else None, len(cells) + pending + 1)
                if tag in cell_tags:
                    in_cell += 1
                    held = held if in_cell > 1 else 0
                elif tag == table_tag:
                    names.append(el.get(f"{{{_TABLE}}}name", ""))
                    reading = not found and (names[-1] == sheet if sheet is not None else len(names) == 1)
                elif tag == row_tag:
                    cells, pending = [], 0
                continue
            stack.pop()
            if tag in cell_tags:
                in_cell -= 1
                if reading and in_cell == 0:
                    repeat = _ods_repeat(el.get(f"{{{_TABLE}}}number-columns-repeated"), shown, "columns",
                                         number + blank)
                    value = _ods_value(el, shown, spaces)
                    if value is None:
                        pending += repeat
                    else:
                        start = len(cells) + pending + 1
                        if start + repeat - 1 > MAX_COLUMNS:  # once dropped without a word
                            col = max(start, MAX_COLUMNS + 1)
                            raise DataError([Diagnostic(shown, f"a value in column {column_letter(col)}, past the "
                                                        "last column pnp reads", (), number + blank, None,
                                                        f"at most {MAX_COLUMNS} columns",
                                                        "remove it, or move it nearer", cell="")])
                        cells.extend([None] * pending + [value] * repeat)
                        pending = 0
            elif reading and tag == row_tag and in_cell == 0:
                repeat = _ods_repeat(el.get(f"{{{_TABLE}}}number-rows-repeated"), shown, "rows", number + blank)
                if not cells:
                    blank += repeat
                else:
                    if number + blank > XLSX_LAST_ROW:
                        raise DataError([Diagnostic(shown, f"the sheet has a value in row {number + blank}, past "
                                                    f"row {XLSX_LAST_ROW}", (), None, None,
                                                    f"at most {XLSX_LAST_ROW} rows, as in a spreadsheet program",
                                                    "save the workbook again from a spreadsheet program, or "
                                                    "export the sheet as CSV")])
                    for _ in range(blank):
                        yield []
                    number += blank
                    blank = 0
                    for _ in range(min(repeat, XLSX_LAST_ROW + 1 - number)):
                        yield cells
                    number += repeat
                    cells = []
            elif tag == table_tag and reading:
                reading, found = False, True
                break  # the rest of the document is not read
            if in_cell == 0 and stack:
                del stack[-1][-1]  # the element just ended: read, and no longer needed
    except (zipfile.BadZipFile, ElementTree.ParseError, ValueError, EOFError, MemoryError) as exc:
        raise _workbook_error(shown, exc) from None
    finally:
        content.close()
        z.close()
    if not found:
        if not names:
            raise _workbook_error(shown, ValueError("no sheet in it"))
        _pick_sheet(shown, names, sheet)  # raises: no such sheet


def _ods_crowded(shown: str, row: int | None, col: int) -> DataError:
    """The DataError for a cell of more than MAX_CELL_ELEMENTS elements (``row`` None: a cell of
    a sheet not read)."""
    return DataError([Diagnostic(shown, f"{'the' if row else 'a'} cell holds more than {MAX_CELL_ELEMENTS} elements "
                                 "(paragraphs, spans)", (), row, col if row else None, "a cell of text in at most "
                                 f"{MAX_CELL_ELEMENTS} elements, as a spreadsheet program saves it",
                                 "save the workbook again from a spreadsheet program, or export the sheet as CSV",
                                 cell=column_letter(col) if row else "")])


MAX_ODS_REPEAT = {"rows": XLSX_LAST_ROW, "columns": 16_384}  # a spreadsheet program's sheet: 1048576 rows, A to XFD


def _ods_repeat(text: str | None, shown: str, what: str, row: int) -> int:
    """A ``number-columns-repeated``/``number-rows-repeated`` count (None: 1) in sheet row ``row``;
    a DataError for one that is no positive whole number, or more than a sheet has (MAX_ODS_REPEAT)."""
    if text is None:
        return 1
    if not text.isascii() or not text.isdigit() or not text.lstrip("0"):
        raise _workbook_error(shown, ValueError(f"a repeat count {text[:20]!r} that is no positive whole number"))
    limit = MAX_ODS_REPEAT[what]
    if len(text.lstrip("0")) > 9 or int(text) > limit:
        raise DataError([Diagnostic(shown, f"a repeat count (table:number-{what}-repeated) of "
                                    f"{text if len(text) <= 20 else text[:17] + '...'} is too large", (), row, None,
                                    f"at most {limit}, the {what} of a spreadsheet program's sheet",
                                    "save the workbook again from a spreadsheet program, or export the sheet as CSV",
                                    cell="")])
    return int(text)


def _ods_value(c: Element, shown: str, spaces: list[int]) -> Any:
    kind = c.get(f"{{{_OFFICE}}}value-type")
    if kind in ("float", "percentage", "currency"):
        raw = c.get(f"{{{_OFFICE}}}value", "nan")
        if not _SAVED_NUMBER.match(raw):  # as _cast_number: `1_000`, non-ASCII digits are text, refused at the cell
            return raw
        v = float(raw)
        if _past_float(v, raw):
            return raw.strip()  # 400 digits, 1E+400
        return int(v) if v.is_integer() and abs(v) < 2**53 else v
    if kind == "boolean":
        return c.get(f"{{{_OFFICE}}}boolean-value") == "true"
    if kind == "date":
        value = c.get(f"{{{_OFFICE}}}date-value")
    else:
        value = "\n".join(["".join(_ods_text(p, shown, spaces)) for p in c.findall(f"{{{_TEXT}}}p")])
    return None if blank_text(value) else value  # decided once for all the cell's repeats, and its row's


def _ods_text(node: Element, shown: str, spaces: list[int]) -> Iterator[str]:
    """A paragraph's text: spans, spaces (``text:s``), tabs and line breaks included. ``spaces``:
    what ``text:s`` runs may still add to the sheet (MAX_ODS_SPACES in all); a DataError past it,
    or for a count that is no positive whole number. Walked with a stack of its own: spans
    nested 5,000 deep ran out of Python's recursion (exit 3, attack 7)."""
    if node.text:
        yield node.text
    stack: list[tuple[Iterator[Element], str | None]] = [(iter(node), None)]  # (children left, tail after)
    while stack:
        children, tail = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            if tail:
                yield tail
            continue
        tag = child.tag
        if tag == f"{{{_TEXT}}}s":
            count = child.get(f"{{{_TEXT}}}c", "1")
            if not (count.isascii() and count.isdigit() and count.lstrip("0")):
                raise _workbook_error(shown, ValueError(f"a run of spaces (text:s) of {count[:20]!r}, no positive "
                                                        "whole number"))
            # more than 9 digits: too many, however many more (not converted: int() refuses 4300 digits)
            spaces[0] -= int(count) if len(count.lstrip("0")) <= 9 else MAX_ODS_SPACES + 1
            if spaces[0] < 0:
                raise DataError([Diagnostic(shown, f"its runs of spaces (text:s) come to more than {MAX_ODS_SPACES} "
                                            "spaces", expected=f"at most {MAX_ODS_SPACES} spaces from text:s runs in "
                                            "a sheet", hint="save the sheet again (a cell's spaces as typed)")])
            yield " " * int(count)
        elif tag == f"{{{_TEXT}}}tab":
            yield "\t"
        elif tag == f"{{{_TEXT}}}line-break":
            yield "\n"
        else:  # a span, a link...: its text, its children, then its tail
            if child.text:
                yield child.text
            stack.append((iter(child), child.tail))
            continue
        if child.tail:
            yield child.tail
