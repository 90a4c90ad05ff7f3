"""`pnp export data`: a component's items -> a CSV or XLSX sheet that reads back as the same
items (``pnp.input.tables`` reads it; the column convention is shared from there): one row per
item as written in the data (a ``series`` stays one row), ``id``, ``copies`` when any item sets
it, every declared field, then the dotted ``source.*`` and ``series.*`` columns."""

from __future__ import annotations

import datetime
import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pnp.errors import DataError, Diagnostic
from pnp.input.load import load_json
from pnp.input.model import Game
from pnp.input.tables import DEFAULT_SEPARATOR, cell_value, sheet_columns

FORMATS = ("csv", "xlsx")


def sheet_rows(shown: str, fields: Mapping[str, Any], items: Sequence[Mapping[str, Any]]) -> list[list[Any]]:
    """The header and one row per item; a value no cell can hold is a DataError naming the item
    and field in ``shown`` (the data file)."""
    cols = sheet_columns(fields, items)
    rows: list[list[Any]] = [cols]
    diags: list[Diagnostic] = []
    for ii, item in enumerate(items):
        row: list[Any] = []
        for col in cols:
            group, _, key = col.partition(".")
            value = (item.get(group) or {}).get(key) if key else item.get(col)
            if value is None:
                row.append(None)
                continue
            spec = fields.get(col) or {}
            kind = spec.get("type", "string") if col in fields else ("integer" if col == "copies" else "value")
            try:
                row.append(cell_value(value, kind, spec.get("separator", DEFAULT_SEPARATOR)))
            except ValueError as exc:
                diags.append(Diagnostic(shown, f"item {item.get('id')!r}: field {col!r} cannot be written to a sheet: "
                                        f"{exc}", ("items", ii, *col.split(".", 1)),
                                        expected="values a sheet cell can hold",
                                        hint="keep this component's data as JSON, or change the value"))
                row.append(None)
        rows.append(row)
    if diags:
        raise DataError(diags)
    return rows


def csv_bytes(rows: list[list[Any]]) -> bytes:
    """UTF-8 with a byte order mark (Excel then shows accents right; pnp and other spreadsheet
    programs read it too), cells quoted where needed, CRLF line ends (RFC 4180)."""
    import csv  # only this export needs it

    buf = io.StringIO(newline="")
    w = csv.writer(buf)
    for row in rows:
        w.writerow(["" if v is None else v for v in row])
    return buf.getvalue().encode("utf-8-sig")


XLSX_DEFAULT_DATE = (2000, 1, 1, 0, 0, 0)  # without SOURCE_DATE_EPOCH: the date the PDFs carry then
ZIP_DATE_MIN = datetime.datetime(1980, 1, 1)  # the range of a zip member's (MS-DOS) date
ZIP_DATE_MAX = datetime.datetime(2107, 12, 31, 23, 59, 58)  # (in steps of 2 seconds)


def xlsx_bytes(rows: list[list[Any]], title: str) -> bytes:
    """One worksheet named ``title``; numbers and text keep their types (text that starts with
    '=' stays text, never a formula). The same rows give the same bytes: the workbook's created
    and modified dates, and every zip member's date, are SOURCE_DATE_EPOCH (UTC) when it is set,
    else 2000-01-01 00:00:00 (as the PDFs). Raises DataError for a malformed SOURCE_DATE_EPOCH."""
    import zipfile

    from openpyxl import Workbook  # only this export needs it
    from openpyxl.writer.excel import ExcelWriter

    from pnp.plan.options import source_date_epoch

    epoch = source_date_epoch()
    when = (datetime.datetime.fromtimestamp(epoch, datetime.UTC).replace(tzinfo=None) if epoch is not None
            else datetime.datetime(*XLSX_DEFAULT_DATE))

    wb = Workbook()
    ws = wb.active
    ws.title = title[:31]
    for r, row in enumerate(rows, 1):
        for c, value in enumerate(row, 1):
            if value is None:
                continue
            cell = ws.cell(row=r, column=c, value=value)
            if isinstance(value, str):
                cell.data_type = "s"
    wb.properties.created = wb.properties.modified = when
    raw = io.BytesIO()
    # openpyxl's save_workbook sets "modified" to now; its writer, used here, keeps the date given
    with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED, allowZip64=True) as archive:
        ExcelWriter(wb, archive).save()
    # ... and zipfile dates each member now: copied into members dated ``when``, held to what a zip
    # (MS-DOS) date can say, 1980-01-01 to 2107-12-31 (SOURCE_DATE_EPOCH goes to 9999)
    stamp = min(max(when, ZIP_DATE_MIN), ZIP_DATE_MAX).timetuple()[:6]
    buf = io.BytesIO()
    with zipfile.ZipFile(raw) as src, zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            member = zipfile.ZipInfo(info.filename, date_time=stamp)
            member.compress_type = zipfile.ZIP_DEFLATED
            member.external_attr = 0o644 << 16
            dst.writestr(member, src.read(info))
    return buf.getvalue()


def component_data(game: Game, cid: str) -> tuple[str, dict[str, Any], list[dict[str, Any]]]:
    """A loaded game's component ``cid`` as its data holds it (before series and errata): the
    data file's name as shown, its fields and its items. Raises DataError for an unknown id."""
    comp = game.component(cid)
    if comp is None:
        known = [c.id for c in game.components]
        raise DataError([Diagnostic(game.manifest_file, f"no component {cid!r} in game {game.id!r}",
                                    expected="one of " + ", ".join(known))])
    doc = comp.sheet
    if doc is None:
        doc = load_json(game.folder / Path(comp.data_file).name, comp.data_file)
    return comp.data_file, doc.data["fields"], doc.data["items"]
