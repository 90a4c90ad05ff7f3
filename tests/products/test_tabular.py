"""`pnp export data`: a component's items as a CSV or XLSX sheet that reads back as the same
items; every bundled game rebuilt from CSV sheets gives byte-identical PDFs."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import msgspec
import pytest
from conftest import BUNDLED, GAMES, DataRootCopy, assert_no_traceback, run_cli

import pnp
from pnp.input.project import DataRoot, load_game


def sheet_root(tmp_path: Path, fmt: str, games: list[str]) -> Path:
    """A data root holding ``games`` with every component's data converted to a ``fmt`` sheet by
    ``pnp export data`` (its fields moved into game.json; the JSON data files removed)."""
    root = tmp_path / f"{fmt}-root"
    for gid in games:
        folder = root / "card_data" / gid
        shutil.copytree(BUNDLED.card_data / gid, folder)
        manifest = json.loads((folder / "game.json").read_text("utf-8"))
        for c in manifest["components"]:
            report = pnp.export_data(gid, c["id"], out=tmp_path / "sheets", fmt=fmt)
            assert report.ok, report.errors
            data = folder / c["data"]
            c["fields"] = json.loads(data.read_text("utf-8"))["fields"]
            data.unlink()
            c["data"] = f"{data.stem}.{fmt}"
            shutil.copy(report.path, folder / c["data"])
        (folder / "game.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    return root


def pdfs(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*.pdf"))}


@pytest.mark.slow
def test_every_bundled_game_from_csv_builds_byte_identical_pdfs(tmp_path: Path) -> None:
    root = sheet_root(tmp_path, "csv", GAMES)
    assert {p.name for p in root.rglob("*.json")} == {"game.json"}
    a = pnp.build(GAMES, out=tmp_path / "json-out", jobs=1)
    b = pnp.build(GAMES, data=root, out=tmp_path / "csv-out", jobs=1)
    assert a.ok and b.ok, b.errors
    json_pdfs, csv_pdfs = pdfs(tmp_path / "json-out"), pdfs(tmp_path / "csv-out")
    assert len(json_pdfs) >= 5 * 2 and json_pdfs.keys() == csv_pdfs.keys()
    assert [k for k in json_pdfs if json_pdfs[k] != csv_pdfs[k]] == []


def test_golems_from_xlsx_builds_byte_identical_pdfs(tmp_path: Path) -> None:
    root = sheet_root(tmp_path, "xlsx", ["golems"])
    a = pnp.build("golems", out=tmp_path / "json-out", jobs=1)
    b = pnp.build("golems", data=root, out=tmp_path / "xlsx-out", jobs=1)
    assert a.ok and b.ok, b.errors
    json_pdfs, xlsx_pdfs = pdfs(tmp_path / "json-out"), pdfs(tmp_path / "xlsx-out")
    assert len(json_pdfs) == 11 and json_pdfs == xlsx_pdfs


def test_export_columns_and_cells(tmp_path: Path) -> None:
    r = run_cli("export", "data", "cauldron", "basic-spells", "--out", tmp_path)
    assert r.exit_code == 0, r.stderr
    path = tmp_path / "cauldron" / "data" / "basic-spells.csv"
    assert r.stdout.startswith(f"pnp: wrote {path} (")
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and b"\r\n" in raw
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"))))
    data = json.loads((BUNDLED.card_data / "cauldron" / "basic-spells.json").read_text("utf-8"))
    assert rows[0][: 1 + len(data["fields"])] == ["id", *data["fields"]] or rows[0][:2] == ["id", "copies"]
    assert len(rows) == 1 + len(data["items"])
    assert [row[0] for row in rows[1:]] == [it["id"] for it in data["items"]]


def test_a_value_no_cell_can_hold_is_an_input_error(mini: DataRootCopy, tmp_path: Path) -> None:
    mini.edit("deck.json", lambda d: d["items"][0].update(name=" padded "))
    r = run_cli("export", "data", "mini", "deck", "--data", mini.path, "--out", tmp_path / "out")
    assert_no_traceback(r)
    assert r.exit_code == 2
    assert ("card_data/mini/deck.json: $.items[0].name: item 'sun-1': field 'name' cannot be written to a sheet: "
            "an empty text or one with spaces at an end (a sheet trims cells)") in r.stderr
    assert not (tmp_path / "out").exists()


def test_unknown_component(tmp_path: Path) -> None:
    r = run_cli("export", "data", "golems", "golem-dek", "--out", tmp_path)
    assert r.exit_code == 2
    assert "no component 'golem-dek' in game 'golems' (expected one of terrain, golem-deck," in r.stderr


def test_a_sheet_exports_as_a_sheet_that_reads_back_the_same(tmp_path: Path) -> None:
    root = tmp_path / "games"
    assert run_cli("new", "mygame", "--path", root, "--csv").exit_code == 0
    before = load_game(DataRoot(root), "mygame").components[0]
    report = pnp.export_data("mygame", "deck", data=root, out=tmp_path / "out", fmt="xlsx")
    assert report.ok and report.columns == ("id", "copies", "name", "text", "source.designed") and report.rows == 3
    folder = root / "card_data" / "mygame"
    shutil.copy(report.path, folder / "deck.xlsx")
    manifest = json.loads((folder / "game.json").read_text("utf-8"))
    entry = manifest["components"][0]
    entry.update(data="deck.xlsx#deck")
    del entry["id_from"], entry["source"]  # the sheet has ids and sources of its own now
    (folder / "game.json").write_text(json.dumps(manifest), encoding="utf-8")
    after = load_game(DataRoot(root), "mygame").components[0]
    assert [msgspec.structs.replace(i, origin=("", ())) for i in after.items] == [
        msgspec.structs.replace(i, origin=("", ())) for i in before.items]
    assert after.items[0].origin[0].endswith("card_data/mygame/deck.xlsx")


def test_xlsx_export_is_byte_identical_and_dated_by_source_date_epoch(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack F4: the workbook said when it was written (docProps/core.xml, and each zip member's
    date), so two exports of the same data differed."""
    import time
    import zipfile

    def export(out: str) -> bytes:
        report = pnp.export_data("golems", "golem-deck", data=BUNDLED, out=tmp_path / out, fmt="xlsx")
        assert report.ok
        return report.path.read_bytes()

    def dates(data: bytes) -> tuple[str, set[tuple[int, ...]]]:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            core = z.read("docProps/core.xml").decode("utf-8")
            return core, {i.date_time for i in z.infolist()}

    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    first = export("a")
    now = time.time
    monkeypatch.setattr(time, "time", lambda: now() + 400 * 86400)  # zipfile dates a member by time.time()
    assert export("b") == first
    monkeypatch.undo()
    core, stamps = dates(first)
    assert core.count(">2000-01-01T00:00:00Z<") == 2 and stamps == {(2000, 1, 1, 0, 0, 0)}
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    dated = export("c")
    core, stamps = dates(dated)
    assert core.count(">2023-11-14T22:13:20Z<") == 2 and stamps == {(2023, 11, 14, 22, 13, 20)}
    assert "dcterms:created" in core and "dcterms:modified" in core
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "soon")
    report = pnp.export_data("golems", "golem-deck", data=BUNDLED, out=tmp_path / "d", fmt="xlsx")
    assert not report.ok and report.errors[0].message == "invalid SOURCE_DATE_EPOCH soon"
    assert not (tmp_path / "d").exists()


@pytest.mark.parametrize(("epoch", "created", "zipped"), [
    ("0", "1970-01-01T00:00:00Z", (1980, 1, 1, 0, 0, 0)),
    ("315532799", "1979-12-31T23:59:59Z", (1980, 1, 1, 0, 0, 0)),
    ("4354819199", "2107-12-31T23:59:59Z", (2107, 12, 31, 23, 59, 58)),
    ("4354819200", "2108-01-01T00:00:00Z", (2107, 12, 31, 23, 59, 58)),
    ("253402300799", "9999-12-31T23:59:59Z", (2107, 12, 31, 23, 59, 58)),
])
def test_xlsx_zip_dates_are_held_to_what_a_zip_can_say(epoch: str, created: str, zipped: tuple[int, ...],
                                                       tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack 3 F1: a SOURCE_DATE_EPOCH after 2107 (zip dates end there) was exit 3, a zipfile
    struct.error. The workbook's own dates say the year; the zip members' dates are clamped."""
    import zipfile

    monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch)
    r = run_cli("export", "data", "--data", BUNDLED.path, "golems", "golem-deck", "--format", "xlsx",
                "--out", tmp_path / "o")
    assert r.exit_code == 0, r.stderr
    assert_no_traceback(r)
    with zipfile.ZipFile(tmp_path / "o" / "golems" / "data" / "golem-deck.xlsx") as z:
        core = z.read("docProps/core.xml").decode("utf-8")
        assert {i.date_time for i in z.infolist()} == {zipped}
        assert z.testzip() is None
    assert core.count(f">{created}<") == 2


def test_cells_that_look_like_formulas_round_trip_as_text(mini: DataRootCopy, tmp_path: Path) -> None:
    """Values starting with =, +, - or @ are written as they are (issue 19, third attack: CSV
    injection). pnp reads its own export back, so the CSV is not defused with a ' prefix (that
    would change the items; docs/data-format.md says how to open such a sheet); the XLSX holds
    them as text, never as formulas."""
    from openpyxl import load_workbook

    names = ["=1+1", "+2 power", "-3", "@SUM(A1)"]
    def edit(d: dict) -> None:  # type: ignore[type-arg]
        d["items"].append({**d["items"][-1], "id": "joker-2"})
        for it, n in zip(d["items"], names, strict=True):
            it["name"] = n
    mini.edit("deck.json", edit)
    before = load_game(mini.root, "mini").components[0].items
    for fmt in ("csv", "xlsx"):
        report = pnp.export_data("mini", "deck", data=mini.path, out=tmp_path / "out", fmt=fmt)
        assert report.ok and report.path is not None, report.errors
        if fmt == "csv":
            rows = list(csv.reader(io.StringIO(report.path.read_bytes().decode("utf-8-sig"))))
            assert [r[rows[0].index("name")] for r in rows[1:]] == names
        else:
            ws = load_workbook(report.path).active
            cells = [c for row in ws.iter_rows(min_row=2) for c in row if c.value in names]
            assert len(cells) == 4 and all(c.data_type == "s" for c in cells), [(c.value, c.data_type) for c in cells]
        manifest = mini.read("game.json")
        entry = manifest["components"][0]
        entry.update(data=f"deck.{fmt}", fields=json.loads(mini.text("deck.json"))["fields"])
        shutil.copy(report.path, mini.file(f"deck.{fmt}"))
        mini.write("game.json", manifest)
        after = load_game(mini.root, "mini").components[0].items
        assert [(i.id, i.fields, i.copies) for i in after] == [(i.id, i.fields, i.copies) for i in before]
        entry.update(data="deck.json")
        del entry["fields"]
        mini.write("game.json", manifest)
