"""tables: a component's items from a spreadsheet (``.csv``, ``.tsv``, ``.xlsx``, ``.ods``, a
workbook's sheet as ``cards.xlsx#Spells``, or a published CSV's URL, read from its cached copy)
-> a ``SheetDoc``: the same ``{"component", "fields", "items"}`` value a JSON data file holds,
whose messages name the cell (``cards.csv:12:C (cost)``).

The sheet's first row names the columns: ``id``, ``copies``, the fields the manifest entry
declares (``fields``, as in a JSON data file), and the dotted columns of the nested keys,
``source.document``, ``source.external``, ``source.quote``, ``source.designed``,
``series.field``, ``series.from``, ``series.to``. A column whose header starts with ``#`` is a
note and is skipped. One row per item; an empty cell is an absent field; a row with every cell
empty is skipped. A cell is converted by its field's type (``integer``, ``number``,
``boolean``, ``list`` split on the field's ``separator``, default ``;``); text keeps its markup.
Without an ``id`` column, the entry's ``id_from`` names the field ids are made from
(``Fire Bolt`` -> ``fire-bolt``); the entry's ``source`` is the source of rows without one.

Readers: ``csv`` (standard library); openpyxl (read-only, with a worksheet parser of its own
here that holds one row's cells at a time) for XLSX; ODS is read with the standard library's
zipfile and ElementTree's ``iterparse``: an ``.ods`` file is a zip holding ``content.xml``, a
documented OpenDocument table (cells with ``office:value-type`` and repeat counts), and the few
lines here read its values without a dependency (odfpy, or pyexcel-ods3 on top of it, load a
whole document object model to answer the same question). Every reader gives rows one at a
time: a sheet is never held whole (attack 10, F6).

Size: over 500 lines because it holds the four readers, the header and cell conversion with
their messages, and the column convention the writer (``pnp.products.tabular``) shares."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from contextlib import closing, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pnp.errors import DataError, Diagnostic, alternatives
from pnp.input.load import BAD_TEXT, Doc, read_regular, too_large
from pnp.input.validate import item_validator, validate_value

if TYPE_CHECKING:  # the readers' modules are loaded when a sheet is read (every build imports this one)
    from xml.etree.ElementTree import Element

SHEET_SUFFIXES = (".csv", ".tsv", ".xlsx", ".ods")
WORKBOOK_SUFFIXES = (".xlsx", ".ods")
SOURCE_COLUMNS = ("source.document", "source.external", "source.quote", "source.designed")
SERIES_COLUMNS = ("series.field", "series.from", "series.to")
DEFAULT_SEPARATOR = ";"
MAX_SHEET_BYTES = 64 * 1024 * 1024  # a sheet file, and any one member of a workbook (a zip) unpacked
MAX_WORKBOOK_UNPACKED = 100 * 1024 * 1024  # a workbook's members unpacked, in all
MAX_WORKBOOK_MEMBERS = 10_000
MAX_WORKBOOK_RATIO = 200  # unpacked / packed, for a member over 1 MiB unpacked (a zip bomb's is ~1000)
MAX_ROWS = 100_000  # items, as in a JSON data file
MAX_COLUMNS = 1_000
# Spaces an ODS sheet's `<text:s text:c="N"/>` runs may expand to, all its cells together: a few
# bytes each, they are the one way its text grows past its file (999,999,999 ran out of memory).
MAX_ODS_SPACES = 1_000_000
XLSX_LAST_ROW = 1_048_576  # a worksheet's last row (Excel's, LibreOffice's): rows past it are no sheet's
_BOOLEANS = {"true": True, "false": False, "yes": True, "no": False, "y": True, "n": False, "1": True, "0": False}
_INTEGER = re.compile(r"[+-]?\d+\Z", re.ASCII)  # ASCII digits, as the number options take (not "１")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\Z", re.ASCII)


def is_url(data: str) -> bool:
    return data.startswith(("https://", "http://"))


def is_sheet(data: str) -> bool:
    """Whether a manifest entry's ``data`` names a sheet (or a published sheet's URL)."""
    return is_url(data) or data.partition("#")[0].lower().endswith(SHEET_SUFFIXES)


def cache_name(entry: Mapping[str, Any]) -> str:
    """The file in the game folder that holds a published sheet's cached copy."""
    return entry.get("cache") or f"{entry['id']}.published.csv"


def shares_cache(entry: Mapping[str, Any], others: Iterable[Any]) -> Mapping[str, Any] | None:
    """The first of ``others`` (manifest component entries; ``entry`` itself is passed over)
    whose data file or published sheet's cached copy is the file ``entry`` reads, when either of
    the two is a published sheet: `pnp fetch` would overwrite the other's file. None when there
    is none."""
    def name(e: Mapping[str, Any]) -> str:
        return file_name(e) if is_sheet(e["data"]) else e["data"]

    mine = name(entry)
    return next((other for other in others if other is not entry and isinstance(other, Mapping)
                 and isinstance(other.get("data"), str) and name(other) == mine
                 and (is_url(entry["data"]) or is_url(other["data"]))), None)


def shared_cache_message(entry: Mapping[str, Any], other: Mapping[str, Any]) -> tuple[str, str]:
    """The message and what was expected, for ``shares_cache``'s answer."""
    what = "cached copy" if is_url(other["data"]) else "data file"
    return (f"{file_name(entry)!r} is also the {what} of component {other.get('id')!r}: fetching one would "
            "overwrite the other", "a cache file of each published sheet's own (`cache`), read by no other component")


def file_name(entry: Mapping[str, Any]) -> str:
    """The file in the game folder the component's data is read from (a workbook without its
    ``#sheet``; a URL's cached copy)."""
    data = entry["data"]
    return cache_name(entry) if is_url(data) else data.partition("#")[0]


def equivalent_entry(entry: Mapping[str, Any]) -> dict[str, Any]:
    """The manifest entry of the JSON data file a sheet is equivalent to: ``data`` names
    ``<stem>.json``, and what only a sheet has (``fields``, ``id_from``, ``source``, ``cache``)
    is left out, as it is in the sheet's data. A sheet made from a JSON data file with ``pnp
    export data`` therefore prints the same data version."""
    out = {k: v for k, v in entry.items() if k not in ("fields", "id_from", "source", "cache")}
    out["data"] = Path(file_name(entry)).stem + ".json"
    return out


def column_letter(col: int) -> str:
    """1 -> A, 26 -> Z, 27 -> AA."""
    s = ""
    while col > 0:
        col, r = divmod(col - 1, 26)
        s = chr(65 + r) + s
    return s


def slug(text: str) -> str:
    """An item id made from a cell: ``Fire Bolt!`` -> ``fire-bolt``, ``Élan`` -> ``elan``."""
    import unicodedata

    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")[:80].strip("-")


class SheetDoc(Doc, frozen=True, dict=True):
    """A component's items read from a sheet: ``data`` as a JSON data file has it; positions are
    (row, column) of the sheet, and messages name the cell by column letter and header."""

    headers: tuple[str, ...] = ()
    rows: tuple[int, ...] = ()  # the sheet row of each item

    def locate(self, parts: Sequence[str | int], key: bool = False) -> tuple[int | None, int | None]:
        if len(parts) < 2 or parts[0] != "items" or not isinstance(parts[1], int) or parts[1] >= len(self.rows):
            return (1, None) if parts[:1] == ("fields",) else (None, None)
        row = self.rows[parts[1]]
        if len(parts) < 3:
            return (row, None)
        name = str(parts[2])
        if name in ("source", "series") and len(parts) > 3:
            name = f"{name}.{parts[3]}"
        return (row, self.headers.index(name) + 1) if name in self.headers else (row, None)

    def label(self, col: int) -> str:
        return f"{column_letter(col)} ({self.headers[col - 1]})" if col <= len(self.headers) else column_letter(col)

    def place(self, parts: Sequence[str | int]) -> str:
        return f"row {self.locate(parts)[0]}"

    def diag(self, parts: Sequence[str | int], message: str, *, expected: str | None = None,
             hint: str | None = None, key: bool = False, severity: str = "error") -> Diagnostic:
        row, col = self.locate(parts, key=key)
        if message.startswith("missing required field "):
            name = message.split("'")[1]
            if name == "source":
                hint = ("fill in a source.designed cell (or source.document with the quote), or give the "
                        'component a default "source" in game.json')
            elif name in self.headers:
                hint = f"fill in column {self.label(self.headers.index(name) + 1)} in this row"
            else:
                hint = f"add a column {name!r}"
            expected = expected.partition(": ")[2] or expected if expected else None
        return Diagnostic(self.display, message, tuple(parts), row, col, expected, hint, severity,
                          cell=self.label(col) if col else "")


# -- reading cells ---------------------------------------------------------------------------


def read_rows(path: Path, shown: str, sheet: str | None) -> Generator[Sequence[Any], None, None]:
    """The rows of a sheet file (row 1 first), each a list of cell values: text for CSV and
    TSV; text, numbers, booleans, dates or None for workbooks. The file is checked and opened
    here; its rows are read as they are asked for (a sheet of millions of rows is never held
    whole: ``items_from_rows`` skips the empty ones and stops at MAX_ROWS). Close the iterator
    when done with it (a workbook's stays open until then)."""
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


def _csv_rows(reader: Iterator[list[str]], shown: str, delimiter: str) -> Generator[list[str], None, None]:
    import csv

    try:
        yield from reader
    except csv.Error as exc:
        raise DataError([Diagnostic(shown, f"invalid CSV: {exc}", expected="cells separated by "
                                    f"{delimiter!r}, quotes doubled inside quoted cells")]) from None


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
    try:
        return float(value)
    except ValueError:
        return value


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
            in_cell = 0
            for event, el in iterparse(self.source, events=("start", "end")):
                tag = el.tag
                if event == "start":
                    stack.append(el)
                    if tag == CELL_TAG:
                        in_cell += 1
                    elif tag == ROW_TAG and not in_cell:
                        number = el.get("r")
                        if number is None:
                            self.row_counter += 1
                        elif _INTEGER.match(number.strip()):
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
                        if cell["value"] is not None:
                            _xlsx_column(shown, cell)
                            cells.append(cell)
                elif tag == ROW_TAG and not in_cell:
                    yield self.row_counter, cells
                    cells = []
                if not in_cell and stack:
                    del stack[-1][-1]  # the element just ended: read, and no longer needed

        def parse_cell(self, element: Element) -> dict[str, Any]:
            kind = element.get("t", "n")
            value = element.findtext(VALUE_TAG, None) or None
            row, col = self.row_counter, self.col_counter + 1  # where openpyxl puts a cell without "r"
            if element.get("r"):
                with suppress(Exception):  # openpyxl's own call below says what is wrong with it
                    row, col = coordinate_to_tuple(element.get("r"))
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


def _xlsx_rows(path: Path, shown: str, sheet: str | None) -> Generator[Sequence[Any], None, None]:
    import openpyxl  # only a workbook needs it
    from openpyxl.worksheet import _read_only, _reader

    _reader._cast_number = _cast_number  # type: ignore[attr-defined]
    _read_only.WorkSheetParser = _xlsx_parser(shown)  # type: ignore[attr-defined]
    check_workbook_zip(path, shown)
    try:
        wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
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
    in_cell = 0  # cells open (a cell's text is read at its end)
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
                if tag in cell_tags:
                    in_cell += 1
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
        v = float(c.get(f"{{{_OFFICE}}}value", "nan"))
        return int(v) if v.is_integer() and abs(v) < 2**53 else v
    if kind == "boolean":
        return c.get(f"{{{_OFFICE}}}boolean-value") == "true"
    if kind == "date":
        return c.get(f"{{{_OFFICE}}}date-value")
    paragraphs = ["".join(_ods_text(p, shown, spaces)) for p in c.findall(f"{{{_TEXT}}}p")]
    text = "\n".join(paragraphs)
    return text if text else None


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


# -- cells -> item values ----------------------------------------------------------------------


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


class _Bad(ValueError):
    def __init__(self, message: str, expected: str, hint: str | None = None):
        super().__init__(message)
        self.message, self.expected, self.hint = message, expected, hint


def convert(value: Any, kind: str, separator: str = DEFAULT_SEPARATOR) -> Any:
    """One non-empty cell -> the value of a field of type ``kind``; raises ``_Bad``."""
    if kind in ("integer", "number"):
        if isinstance(value, bool):
            raise _Bad(f"{_text(value)} is not a number", "a number")
        if isinstance(value, int | float):
            n = value
        else:
            s = _text(value)
            if not _NUMBER.match(s):
                raise _Bad(f"{_quoted(s)} is not a number",
                           "a whole number like 3" if kind == "integer" else "a number like 3 or 1.5",
                           "write digits only (no units or thousands separators), with '.' as the decimal mark")
            if too_large(s):  # past a float's range, or more digits than int() converts (4300)
                raise _Bad(f"number {_quoted(s)[1:-1]} is too large",
                           "a number of a sensible size, at most about 1e308")
            n = int(s) if _INTEGER.match(s) else float(s)
        if isinstance(n, float) and not math.isfinite(n):
            raise _Bad(f"{_text(value)} is not a finite number", "a number")
        if kind == "integer" and isinstance(n, float):
            if not n.is_integer():
                raise _Bad(f"{_text(value)} is not a whole number", "a whole number like 3")
            n = int(n)
        return n
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        s = _text(value)
        if s.lower() not in _BOOLEANS:
            raise _Bad(f"{_quoted(s)} is not true or false", "true or false (also yes/no, y/n, 1/0)")
        return _BOOLEANS[s.lower()]
    if kind == "list":
        return [part.strip() for part in _text(value).split(separator) if part.strip()]
    return _text(value)


def _quoted(s: str) -> str:
    return repr(s if len(s) <= 40 else s[:37] + "...")


def _column_kinds(fields: Mapping[str, Any]) -> dict[str, str]:
    kinds = {name: spec.get("type", "string") for name, spec in fields.items() if isinstance(spec, Mapping)}
    kinds.update({"id": "string", "copies": "integer"})
    kinds.update({c: "string" for c in SOURCE_COLUMNS})
    kinds.update({"series.field": "string", "series.from": "integer", "series.to": "integer"})
    return kinds


def load_sheet(folder: Path, entry: Mapping[str, Any], shown: str, manifest: Doc,
               at: tuple[str | int, ...], require_source: bool = True) -> SheetDoc:
    """The component ``entry`` (found at ``at`` in ``manifest``) read from its sheet, validated
    against its ``fields`` (``require_source``: the manifest says ``"provenance": "required"``):
    every problem as one DataError."""
    data = entry["data"]
    sheet = None if is_url(data) else (data.partition("#")[2] or None)
    path = folder / file_name(entry)
    if is_url(data) and not path.exists():
        raise DataError([manifest.diag(at + ("data",), f"no cached copy of the published sheet ({file_name(entry)})",
                                       expected="a copy fetched once while online",
                                       hint=f"run `pnp fetch {folder.name}` (or `pnp build --refresh`)")])
    if "cache" in entry and not is_url(data):
        raise DataError([manifest.diag(at + ("cache",), "'cache' is for a published sheet (data an http(s) URL)",
                                       expected=f"no 'cache': the sheet {file_name(entry)!r} is read as it is")])
    fields = entry.get("fields")
    if not isinstance(fields, dict):
        raise DataError([manifest.diag(at, "a component whose data is a sheet declares its fields in game.json",
                                       expected='"fields": {NAME: {"type": ..., "description": ...}}, as in a JSON '
                                       "data file", hint="add a \"fields\" object to this component")])
    with closing(read_rows(path, shown, sheet)) as rows:
        return items_from_rows(rows, shown, path, entry, manifest, at, require_source)


def items_from_rows(rows: Iterable[Sequence[Any]], shown: str, path: Path, entry: Mapping[str, Any],
                    manifest: Doc, at: tuple[str | int, ...], require_source: bool = True) -> SheetDoc:
    """The items of a sheet's ``rows`` (row 1 the header), read one row at a time: an empty row
    is passed over as it comes, and the row after the MAX_ROWS-th item is the last one read."""
    fields: dict[str, Any] = entry["fields"]
    kinds = _column_kinds(fields)
    diags: list[Diagnostic] = []
    rows = iter(rows)
    header = [_text(h) for h in next(rows, None) or []]
    while header and not header[-1]:
        header.pop()
    headers = tuple(header)

    def at_header(col: int, message: str, expected: str | None = None, hint: str | None = None) -> Diagnostic:
        label = f"{column_letter(col)} ({headers[col - 1]})" if headers[col - 1] else column_letter(col)
        return Diagnostic(shown, message, (), 1, col, expected, hint, cell=label)

    if not headers:
        raise DataError([Diagnostic(shown, "the sheet has no header row", (), 1, None,
                                    "field names in the first row: id, copies, " + ", ".join(fields), cell="")])
    if len(headers) > MAX_COLUMNS:
        raise DataError([Diagnostic(shown, f"{len(headers)} columns", (), 1, None, f"at most {MAX_COLUMNS} columns",
                                    cell="")])
    used: dict[int, str] = {}  # column -> its header, for the columns read
    seen: dict[str, int] = {}
    unnamed: list[int] = []  # columns without a header: an error if a row has a cell in one
    filled: set[int] = set()  # those of them a row read so far has a cell in
    allowed = list(kinds)
    for col, name in enumerate(headers, 1):
        if name.startswith("#"):
            continue
        if not name:
            unnamed.append(col)
            continue
        if name in seen:
            diags.append(at_header(col, f"column {name!r} appears twice (first in column {column_letter(seen[name])})",
                                   "each field in one column"))
            continue
        seen[name] = col
        if name not in kinds:
            import difflib

            close = difflib.get_close_matches(name, allowed, n=1, cutoff=0.6)
            hint = f"did you mean {close[0]!r}?" if close else (
                "declare it in the component's fields in game.json, or start its header with '#' to keep it as notes")
            diags.append(at_header(col, f"unknown column {name!r}",
                                   "one of " + ", ".join(allowed), hint))
            continue
        used[col] = name

    def unnamed_filled() -> list[Diagnostic]:
        return [at_header(col, "a column with cells but no header", "a field name in row 1",
                          "name the column, or start its header with '#' to keep it as notes")
                for col in unnamed if col in filled]

    def note_unnamed(raw: Sequence[Any]) -> None:
        filled.update(col for col in unnamed if col not in filled and len(raw) >= col and _text(raw[col - 1]))

    id_from = entry.get("id_from")
    if unnamed and (("id" not in seen and id_from is None) or (id_from is not None and id_from not in seen)):
        # the header's problems are all said at once: which unnamed columns hold cells
        for n, raw in enumerate(rows, 2):
            note_unnamed(raw)
            if len(filled) == len(unnamed) or n > XLSX_LAST_ROW:
                break
        diags = sorted(diags + unnamed_filled(), key=lambda d: d.col or 0)
    if "id" not in seen and id_from is None:
        raise DataError([*diags, Diagnostic(shown, "no id column", (), 1, None,
                                            "an `id` column, or `id_from` in the component's entry in game.json "
                                            "naming the column ids are made from", 'e.g. "id_from": "name"',
                                            cell="")])
    if id_from is not None and id_from not in seen:
        raise DataError([*diags, manifest.diag(at + ("id_from",), f"id_from names column {id_from!r}, which the "
                                               "sheet lacks", expected="one of " + ", ".join(n for n in seen
                                                                                              if n in fields))])
    # Other header problems are reported with the rows' problems: the columns read are known.
    default_source = entry.get("source")
    items: list[dict[str, Any]] = []
    row_numbers: list[int] = []
    bad_cells: set[tuple[str | int, ...]] = set()
    cell_diags: list[Diagnostic] = []
    width = len(headers)
    for r, raw in enumerate(rows, 2):
        if not any(raw) and 0 not in raw:  # every cell "" or None (0 and False are values): a blank row
            continue
        if unnamed:
            note_unnamed(raw)
        if len(raw) > width and (beyond := [c for c in range(width + 1, len(raw) + 1) if _text(raw[c - 1])]):
            # cells right of the last header (a separator too many?) would be dropped unread
            n = beyond[-1]
            cell_diags.append(Diagnostic(shown, f"the row has {n} cells and the header row {width}: "
                                         f"{_cells_beyond(raw, beyond)} under no header", (), r, beyond[0],
                                         f"at most {width} cells a row, one under each header",
                                         "remove the extra cells (a separator too many?), or give their column a "
                                         "header (start it with '#' to keep it as notes)",
                                         cell=column_letter(beyond[0])))
        cells = {name: raw[col - 1] for col, name in used.items() if col <= len(raw) and _text(raw[col - 1])}
        if not cells:
            continue
        if len(items) >= MAX_ROWS:
            raise DataError([Diagnostic(shown, "too many rows", (), r, None, f"at most {MAX_ROWS} items", cell="")])
        ii = len(items)
        item: dict[str, Any] = {}
        for name, value in cells.items():
            path_parts: tuple[str | int, ...] = ("items", ii, *name.split(".", 1))
            spec = fields.get(name) if isinstance(fields.get(name), Mapping) else {}
            if isinstance(value, str) and (m := BAD_TEXT.search(value)) is not None:
                # nothing prints it, and echoed in a message it would drive the terminal
                col = seen[name]
                cell_diags.append(Diagnostic(shown, f"the cell holds the control character U+{ord(m.group()):04X}",
                                             path_parts, r, col, "printable text", "remove it",
                                             cell=f"{column_letter(col)} ({name})"))
                bad_cells.add(path_parts)
                v = BAD_TEXT.sub("\ufffd", value)  # present (not also "missing"), its other faults unsaid
            else:
                try:
                    v = convert(value, kinds[name], spec.get("separator", DEFAULT_SEPARATOR))
                except _Bad as bad:
                    col = seen[name]
                    cell_diags.append(Diagnostic(shown, bad.message, path_parts, r, col,
                                                 bad.expected + _about(kinds[name], spec), bad.hint,
                                                 cell=f"{column_letter(col)} ({name})"))
                    bad_cells.add(path_parts)
                    v = _text(value)
            if "." in name:
                item.setdefault(name.split(".")[0], {})[name.split(".", 1)[1]] = v
            else:
                item[name] = v
        if "id" not in item and id_from is not None and isinstance(item.get(id_from), str):
            made = slug(item[id_from])
            if made:
                item = {"id": made, **item}
        if "source" not in item and default_source is not None:
            item["source"] = default_source
        items.append(item)
        row_numbers.append(r)
    diags = sorted(diags + unnamed_filled(), key=lambda d: d.col or 0)
    doc_data = {"component": entry["id"], "fields": fields, "items": items}
    doc = SheetDoc(shown, path, doc_data, "", headers=headers, rows=tuple(row_numbers))
    if not items:
        raise DataError([*diags, Diagnostic(shown, "the sheet has no rows below its header", (), 2, None,
                                            "one row per item", cell="")])
    # A required column the sheet lacks is one problem, not one per row.
    absent = [f for f, spec in fields.items() if isinstance(spec, Mapping) and spec.get("required") and f not in seen]
    for f in absent:
        close = difflib_close(f, [n for n in headers if n not in kinds])
        diags.append(Diagnostic(shown, f"no column {f!r}, a required field", (), 1, None,
                                f"a column named {f!r} for the {fields[f].get('type')} field: "
                                f"{fields[f].get('description')}",
                                f"is {close!r} meant to be {f!r}?" if close else f"add a column {f!r}", cell=""))
    if require_source and default_source is None and not any(c in seen for c in SOURCE_COLUMNS):
        absent.append("source")
        diags.append(Diagnostic(shown, "no source column and no default source", (), 1, None,
                                "a source.designed column (or source.document with the quote), or a default "
                                '"source" in the component\'s entry in game.json',
                                'e.g. "source": {"designed": "our own cards"}', cell=""))
    unreported = {f"missing required field {f!r}" for f in absent}
    v = item_validator(fields, require_source)
    found = diags + cell_diags
    for ii, item in enumerate(items):
        if "id" not in item and id_from is not None:
            if id_from not in item and (fields.get(id_from) or {}).get("required"):
                item["id"] = f"row-{row_numbers[ii]}"  # the missing cell is reported as such
            else:
                found.append(doc.diag(("items", ii, id_from), f"no id: the {id_from!r} cell makes none",
                                      expected="a cell with letters or digits, or an id column"))
                item["id"] = f"row-{row_numbers[ii]}"
        series = item.get("series")
        if isinstance(series, dict) and isinstance(series.get("field"), str) and series["field"] not in item:
            item = {**item, series["field"]: series.get("from")}
        found.extend(d for d in validate_value(doc, item, v, ("items", ii))
                     if d.path not in bad_cells and d.message not in unreported)
    if found:
        raise DataError(sorted(found, key=lambda d: (d.line or 0, d.col or 0)))
    return doc


def _cells_beyond(raw: list[Any], cols: list[int]) -> str:
    """``cell E ('x')`` or ``cells E ('x'), F ('y') and 2 more``: what lies right of the header."""
    shown = [f"{column_letter(c)} ({_quoted(_text(raw[c - 1]))})" for c in cols[:2]]
    more = f" and {len(cols) - 2} more" if len(cols) > 2 else ""
    return ("cell " if len(cols) == 1 else "cells ") + ", ".join(shown) + more


def difflib_close(word: str, choices: list[str]) -> str | None:
    import difflib

    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return close[0] if close else None


def _about(kind: str, spec: Mapping[str, Any]) -> str:
    desc = spec.get("description") if isinstance(spec, Mapping) else None
    return f"; {kind} field: {desc}" if desc else ""


# -- item values -> cells (the writer's side of the convention) ---------------------------------


def sheet_columns(fields: Mapping[str, Any], items: Sequence[Mapping[str, Any]]) -> list[str]:
    """The columns a sheet of ``items`` needs: id, copies (when any item sets it), every
    declared field, then the source and series columns the items use."""
    cols = ["id"]
    if any("copies" in it for it in items):
        cols.append("copies")
    cols += list(fields)
    for group, names in (("source", SOURCE_COLUMNS), ("series", SERIES_COLUMNS)):
        cols += [c for c in names if any(c.split(".")[1] in (it.get(group) or {}) for it in items)]
    return cols


def cell_value(value: Any, kind: str, separator: str = DEFAULT_SEPARATOR) -> Any:
    """An item's value as the sheet cell that reads back as it (``convert``); raises ValueError
    for a value no cell can hold (an empty text or list, which a sheet reads as absent; a list
    entry holding the separator; text with spaces at either end, which a sheet trims)."""
    if kind == "list":
        if not value:
            raise ValueError("an empty list (an empty cell means the field is absent)")
        for part in value:
            if separator in part or part != part.strip() or not part:
                raise ValueError(f"list entry {part!r} holds the separator {separator!r}, is empty or has "
                                 "spaces at an end")
        return separator.join(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        if not value or value != value.strip():
            raise ValueError("an empty text or one with spaces at an end (a sheet trims cells)")
        return value
    return value


def check_fields_not_in_json(manifest: Doc, at: tuple[str | int, ...], entry: Mapping[str, Any]) -> list[Diagnostic]:
    """What a manifest entry of a JSON data file may not carry: the keys only a sheet uses."""
    extra = [k for k in ("fields", "id_from", "source", "cache") if k in entry]
    return [manifest.diag(at + (k,), f"{k!r} is for a component whose data is a sheet",
                          expected=f"{alternatives([f'.{s[1:]}' for s in SHEET_SUFFIXES])} data, or no {k!r}",
                          hint="a JSON data file declares its fields itself") for k in extra]
