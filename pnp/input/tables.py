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

The readers, which give a sheet's rows one at a time (a sheet is never held whole), are in
``pnp.input.sheetfiles`` (a workbook cell whose text trims to nothing comes as None, an empty
cell); the rows are made items here as they come: a blank row is passed over, and the row after
the MAX_ROWS-th item is the last one read. The text a sheet's cells hold together is at most
MAX_SHEET_TEXT characters, every cell read counted in full (spaces too, before it is trimmed or
looked at) in each row that holds it (an XLSX shared string or an ODS repeated row is one text in
the file, many in the rows); a text cell of more than _READ_ONCE characters is converted once,
every row holding it sharing the one value. A repeated ODS row (given again as the same list)
costs nothing more when its first made no item, and is refused at once when it made one: with its
id cell filled the ids would be the same, empty there would be none.

Size: over 500 lines because it holds the sheet convention both ways (cells -> items with the
messages naming each cell, items -> cells for ``pnp export data``) and the bounds of reading."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

from pnp.errors import DataError, Diagnostic, alternatives, short_repr
from pnp.input.load import BAD_TEXT, Doc, too_large
from pnp.input.sheetfiles import _INTEGER, _NUMBER, MAX_COLUMNS, XLSX_LAST_ROW, _text, column_letter, read_rows
from pnp.input.validate import MAX_LIST, item_validator, validate_items

SHEET_SUFFIXES = (".csv", ".tsv", ".xlsx", ".ods")
WORKBOOK_SUFFIXES = (".xlsx", ".ods")
SOURCE_COLUMNS = ("source.document", "source.external", "source.quote", "source.designed")
SERIES_COLUMNS = ("series.field", "series.from", "series.to")
DEFAULT_SEPARATOR = ";"
MAX_ROWS = 100_000  # items, as in a JSON data file
# The characters of text a sheet's items hold together, a cell's counted each time a row holds it:
# as much as the largest sheet file holds (64 MiB). A workbook's shared string, or an ODS row's
# repeat count, lets a 20-byte cell stand for 19,000 characters (1.4 MB of XLSX held 1.9 billion
# and ran out of memory: attack 14, F1 and F2).
MAX_SHEET_TEXT = 64 * 2**20
_READ_ONCE = 256  # a text cell longer than this is converted once however many rows hold it
_BOOLEANS = {"true": True, "false": False, "yes": True, "no": False, "y": True, "n": False, "1": True, "0": False}


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


# -- cells -> item values ----------------------------------------------------------------------


class _Bad(ValueError):
    def __init__(self, message: str, expected: str, hint: str | None = None, control: bool = False):
        super().__init__(message)
        self.message, self.expected, self.hint, self.control = message, expected, hint, control


def _row_text(raw: Sequence[Any]) -> int:
    """The characters of the text cells of a row, untrimmed (spaces count: they are read too)."""
    return sum([len(c) for c in raw if c.__class__ is str])


def _too_much_text(shown: str, row: int, raw: Sequence[Any], over: int, headers: Sequence[str]) -> DataError:
    """The error for the cell of ``raw`` (sheet row ``row``) whose text takes the sheet's past
    MAX_SHEET_TEXT: the text before the row is ``over`` characters short of the limit's end."""
    col = len(raw)
    for i, c in enumerate(raw, 1):  # the column that passes it
        over += len(c) if c.__class__ is str else 0
        if over > MAX_SHEET_TEXT:
            col = i
            break
    name = headers[col - 1] if col <= len(headers) else ""
    mi = f"{MAX_SHEET_TEXT // 2**20} Mi, " if MAX_SHEET_TEXT % 2**20 == 0 else ""
    return DataError([Diagnostic(shown, f"the sheet's cells hold more than {MAX_SHEET_TEXT} characters of text in "
                                 "all, up to this cell", (), row, col, f"at most {MAX_SHEET_TEXT} characters ({mi}as "
                                 "much as the largest sheet file holds), a shared string or a repeated row's text "
                                 "counted in each cell that holds it", "split the sheet, or shorten its longest texts",
                                 cell=column_letter(col) + (f" ({name})" if name else ""))])


def _filled(value: Any) -> bool:
    """Whether a cell holds a value (its ``_text`` is not empty), told without copying its text."""
    if value.__class__ is str:
        return bool(value) and not value.isspace()  # the spaces str.strip() takes off
    return value is not None and bool(_text(value))


def _read_cell(value: Any, kind: str, separator: str) -> tuple[Any, _Bad | None]:
    """A non-empty cell -> (the field's value, None), or (the value kept, what is wrong with it):
    a control character (nothing prints it, and echoed in a message it would drive the
    terminal: kept with U+FFFD for it, present, not also "missing", its other faults unsaid), or
    what ``convert`` refuses (kept as text)."""
    if isinstance(value, str) and (m := BAD_TEXT.search(value)) is not None:
        return BAD_TEXT.sub("\ufffd", value), _Bad(f"the cell holds the control character U+{ord(m.group()):04X}",
                                                    "printable text", "remove it", control=True)
    try:
        return convert(value, kind, separator), None
    except _Bad as bad:
        return _text(value), bad


def convert(value: Any, kind: str, separator: str = DEFAULT_SEPARATOR) -> Any:
    """One non-empty cell -> the value of a field of type ``kind``; raises ``_Bad``."""
    if kind in ("integer", "number"):
        if isinstance(value, bool):
            raise _Bad(f"{_text(value)} is not a number", "a number")
        if isinstance(value, int | float):
            n = value
            if n.__class__ is int and n.bit_length() > 1000 and too_large(s := _digits(n)):
                # a workbook's number cell of 309 digits or more (an XLSX <v>, read as int): no
                # float holds it, and the number filters and sums would overflow on it (attack 13, F5)
                raise _Bad(f"number {short_repr(s)[1:-1]} is too large",
                           "a number of a sensible size, at most about 1e308")
        else:
            s = _text(value)
            if not _NUMBER.match(s):
                raise _Bad(f"{short_repr(s)} is not a number",
                           "a whole number like 3" if kind == "integer" else "a number like 3 or 1.5",
                           "write digits only (no units or thousands separators), with '.' as the decimal mark")
            if too_large(s):  # past a float's range, or more digits than int() converts (4300)
                raise _Bad(f"number {short_repr(s)[1:-1]} is too large",
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
            raise _Bad(f"{short_repr(s)} is not true or false", "true or false (also yes/no, y/n, 1/0)")
        return _BOOLEANS[s.lower()]
    if kind == "list":
        text = _text(value)
        if text.count(separator) > 2 * MAX_LIST:  # counted before it is split: 30 MB of "ab;" held 500 MB
            raise _Bad(f"a list of {text.count(separator) + 1:,} entries", f"at most {MAX_LIST:,} entries")
        return [part.strip() for part in text.split(separator) if part.strip()]
    return _text(value)


def _digits(n: int) -> str:
    """An int as its decimal digits (``str`` refuses more than 4,300 of them: 401 nines stand for
    any such, which ``too_large`` calls too large all the same)."""
    return str(n) if n.bit_length() < 14_000 else "9" * 401


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
    first = next(rows, None) or []
    text = _row_text(first)  # the characters of text the rows read so far hold, counted before any is trimmed
    if text > MAX_SHEET_TEXT:
        raise _too_much_text(shown, 1, first, 0, ())
    header = [_text(h) for h in first]
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
        if len(raw) >= unnamed[0]:  # a blank row is passed over at once, however many unnamed columns
            filled.update(col for col in unnamed if col not in filled and len(raw) >= col and _filled(raw[col - 1]))

    id_from = entry.get("id_from")
    if unnamed and (("id" not in seen and id_from is None) or (id_from is not None and id_from not in seen)):
        # the header's problems are all said at once: which unnamed columns hold cells
        previous = None
        for n, raw in enumerate(rows, 2):
            if raw is not previous:  # a repeated ODS row is the same row again: nothing new
                note_unnamed(raw)
            previous = raw
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
    # A long text cell converted once (a shared string or a repeated row's cell is one str read
    # again: its trimmed copy, checked once, is every row's), and the text the rows hold counted,
    # every cell's in full as it is read, before any of it is trimmed or looked at.
    once: dict[tuple[str, str, Any], tuple[Any, _Bad | None]] = {}
    previous: Sequence[Any] | None = None
    chars = 0  # the text of the previous row
    made = False  # whether the previous row made an item
    id_cols = [c for c in (seen.get("id"), seen.get(id_from) if isinstance(id_from, str) else None) if c]
    for r, raw in enumerate(rows, 2):
        again = raw is previous  # an ODS row repeated (table:number-rows-repeated): the same row again
        named = next((c for c in id_cols if c <= len(raw) and _filled(raw[c - 1])), None) if again else None
        if named is not None or (again and made):
            col = named or id_cols[0]
            why = ("its id cell too: the items' ids would be the same" if named is not None else
                   "and has no id: each repeat would be an item without one")
            raise DataError([Diagnostic(shown, f"the row repeats row {r - 1} (a repeated row, "
                                        f"table:number-rows-repeated), {why}", (), r, col,
                                        "each item in a row of its own, with its own id",
                                        "save the sheet with an id of its own in each row",
                                        cell=f"{column_letter(col)} ({headers[col - 1]})")])
        if not again:
            chars = _row_text(raw)
        if text + chars > MAX_SHEET_TEXT:
            raise _too_much_text(shown, r, raw, text, headers)
        text += chars
        previous = raw
        if again:
            continue  # a repeated row (ODS) that made no item makes none again: passed over at once
        made = False
        if not any(raw) and 0 not in raw:  # every cell "" or None (0 and False are values): a blank row
            continue
        if unnamed:
            note_unnamed(raw)
        if len(raw) > width and (beyond := [c for c in range(width + 1, len(raw) + 1) if _filled(raw[c - 1])]):
            # cells right of the last header (a separator too many?) would be dropped unread
            n = beyond[-1]
            cell_diags.append(Diagnostic(shown, f"the row has {n} cells and the header row {width}: "
                                         f"{_cells_beyond(raw, beyond)} under no header", (), r, beyond[0],
                                         f"at most {width} cells a row, one under each header",
                                         "remove the extra cells (a separator too many?), or give their column a "
                                         "header (start it with '#' to keep it as notes)",
                                         cell=column_letter(beyond[0])))
        cells = {name: raw[col - 1] for col, name in used.items() if col <= len(raw) and _filled(raw[col - 1])}
        if not cells:
            continue
        if len(items) >= MAX_ROWS:
            raise DataError([Diagnostic(shown, "too many rows", (), r, None, f"at most {MAX_ROWS} items", cell="")])
        ii = len(items)
        item: dict[str, Any] = {}
        for name, value in cells.items():
            path_parts: tuple[str | int, ...] = ("items", ii, *name.split(".", 1))
            spec = fields.get(name) if isinstance(fields.get(name), Mapping) else {}
            separator = spec.get("separator", DEFAULT_SEPARATOR)
            if value.__class__ is str and len(value) > _READ_ONCE:
                key = (value, kinds[name], separator)
                done = once.get(key)
                if done is None:
                    done = once[key] = _read_cell(value, kinds[name], separator)
            else:
                done = _read_cell(value, kinds[name], separator)
            v, bad = done
            if bad is not None:
                col = seen[name]
                cell_diags.append(Diagnostic(shown, bad.message, path_parts, r, col, bad.expected + (
                    "" if bad.control else _about(kinds[name], spec)), bad.hint, cell=f"{column_letter(col)} ({name})"))
                bad_cells.add(path_parts)
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
        made = True
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
    todo: list[tuple[int, Any]] = []
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
        todo.append((ii, item))
    found.extend(d for d in validate_items(doc, todo, v) if d.path not in bad_cells and d.message not in unreported)
    if found:
        raise DataError(sorted(found, key=lambda d: (d.line or 0, d.col or 0)))
    return doc


def _cells_beyond(raw: list[Any], cols: list[int]) -> str:
    """``cell E ('x')`` or ``cells E ('x'), F ('y') and 2 more``: what lies right of the header."""
    shown = [f"{column_letter(c)} ({short_repr(_text(raw[c - 1]))})" for c in cols[:2]]
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
