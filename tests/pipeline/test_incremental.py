"""Incremental builds, parallel rendering and streamed layouts (issue 8): a rebuild with nothing
changed writes nothing and loads no rendering code; after an edit only the touched component is
rendered; the bytes always equal a clean build's, whatever --jobs says; a build holds only a few
pages of layouts at a time."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, DataRootCopy, assert_no_traceback, run_cli

from pnp.input.project import DataRoot, bundled_root
from pnp.pipeline import incremental
from pnp.plan import digest
from pnp.plan.component import LazyPieces
from pnp.plan.options import BuildOptions
from pnp.plan.session import Session
from pnp.qa.check import check
from pnp.render.component import render_component


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def stamps(folder: Path) -> dict[str, tuple[int, int]]:
    """(inode, mtime_ns) of every file: a rewrite changes one or the other."""
    return {str(p.relative_to(folder)): (p.stat().st_ino, p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}


def rendered(stdout: str) -> set[str]:
    """Component ids a build rendered (lines without '(unchanged)')."""
    out = set()
    for line in stdout.splitlines():
        if line.startswith("  ") and re.search(r" \d+ pieces?, \d+ pages?", line) and "(unchanged)" not in line:
            out.add(Path(line.split()[0]).stem)
    return out


def test_a_rebuild_with_nothing_changed_writes_nothing(golems: DataRootCopy, tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = golems.cli("build", "-v", "golems", "--out", out)
    assert first.exit_code == 0, first.stderr
    before, files = stamps(out), tree(out)
    again = golems.cli("build", "-v", "golems", "--out", out)
    assert again.exit_code == 0, again.stderr
    assert_no_traceback(again)
    assert stamps(out) == before and tree(out) == files
    assert "golems: up to date" in again.stdout
    assert "pnp: wrote 0 PDFs" in again.stdout and "11 unchanged" in again.stdout
    assert rendered(again.stdout) == set()


def test_an_up_to_date_build_reads_no_data_and_renders_nothing(tmp_path: Path, monkeypatch: Any) -> None:
    """The up-to-date path hashes the files' contents and reads the record: no data file is parsed,
    nothing is laid out or drawn (that is what makes it fast)."""
    import pnp.input.project
    import pnp.render.component

    mini = REPO / "tests" / "data" / "mini"
    out = tmp_path / "out"
    assert run_cli("build", "-v", "mini", "--data", mini, "--out", out).exit_code == 0

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("an up-to-date build must not get here")

    monkeypatch.setattr(pnp.input.project, "load_json", forbidden)
    monkeypatch.setattr(pnp.render.component, "render", forbidden)
    r = run_cli("build", "-v", "mini", "--data", mini, "--out", out)
    assert r.exit_code == 0, r.stdout + r.stderr
    assert "mini: up to date" in r.stdout
    monkeypatch.undo()
    monkeypatch.setattr(pnp.render.component, "render", forbidden)
    r = run_cli("build", "-v", "mini", "--data", mini, "--out", out, "--force")
    assert r.exit_code == 3 and "must not get here" in r.stderr  # the patch does bite


def test_a_build_defines_no_dataclass(tmp_path: Path) -> None:
    """Every ``pnp`` process pays at import for each frozen dataclass it defines (CPython 3.11
    compiles six generated methods, ~0.45 ms a class, against ~0.01 ms for a msgspec Struct), and
    pnp has one value-type system: every value type, the game model and PieceLayout included, is
    a msgspec Struct (docs/architecture.md, "Value types"). A dataclass on the build path would
    show here before it shows in bench/bench_floor.py."""
    script = ("import dataclasses, sys\nmade = []\nreal = dataclasses._process_class\n"
              "def record(cls, *a, **k):\n    made.append(cls.__module__ + '.' + cls.__qualname__)\n"
              "    return real(cls, *a, **k)\n"
              "dataclasses._process_class = record\nfrom pnp.cli import main\ntry:\n"
              "    main(sys.argv[1:], prog_name='pnp')\nexcept SystemExit as e:\n    code = e.code\n"
              "print(sorted(m for m in made if m.startswith('pnp.')), code)")
    r = subprocess.run([sys.executable, "-c", script, "build", "mini", "--data", str(REPO / "tests" / "data" / "mini"),
                        "--out", str(tmp_path / "out"), "--jobs", "1"], capture_output=True, text=True, check=True)
    assert r.stdout.strip().splitlines()[-1] == "[] 0", r.stdout + r.stderr


def test_after_one_edit_only_that_component_is_rendered(golems: DataRootCopy, tmp_path: Path) -> None:
    out, clean = tmp_path / "out", tmp_path / "clean"
    assert golems.cli("build", "-v", "golems", "--out", out).exit_code == 0
    before = stamps(out / "golems")
    def edit(d: dict) -> None:  # the name and its quote together (pnp check traces one to the other)
        it = d["items"][0]
        it["source"]["document"] = it["source"]["document"].replace(it["name"], it["name"] + " Edited", 1)
        it["name"] += " Edited"

    golems.edit("event-deck.json", edit)
    r = golems.cli("build", "-v", "golems", "--out", out)
    assert r.exit_code == 0, r.stderr
    assert rendered(r.stdout) == {"event-deck"}, r.stdout
    after = stamps(out / "golems")
    changed = {k for k in after if after[k] != before.get(k)}
    # (the contents sheet lists each component's data version, so it is rewritten too)
    assert changed == {"event-deck.pdf", "golems-contents.pdf", ".pnp-build.json"}, changed
    # Byte-identical to a clean build of the edited data.
    assert golems.cli("build", "-v", "golems", "--out", clean, "--force").exit_code == 0
    assert tree(out) == tree(clean)


def test_a_touched_file_leaves_the_build_up_to_date_and_the_record_as_it_was(golems: DataRootCopy,
                                                                            tmp_path: Path) -> None:
    """The input hash goes by file contents, never by stat data: a file touched (its modification
    and change times moved) without a change is still up to date, nothing is written, and a clean
    build after the touch writes the same record, byte for byte."""
    out, clean = tmp_path / "out", tmp_path / "clean"
    assert golems.cli("build", "-v", "golems", "--out", out).exit_code == 0
    before, files = stamps(out / "golems"), tree(out)
    deck = golems.file("event-deck.json")
    st = deck.stat()
    os.utime(deck, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    assert deck.stat().st_mtime_ns != st.st_mtime_ns
    r = golems.cli("build", "-v", "golems", "--out", out)
    assert r.exit_code == 0, r.stderr
    assert "golems: up to date" in r.stdout and rendered(r.stdout) == set(), r.stdout
    assert stamps(out / "golems") == before
    assert golems.cli("build", "golems", "--out", clean, "--force").exit_code == 0
    assert tree(clean) == files  # the record included


def _copy_with_other_stat_data(src: Path, dest: Path) -> None:
    """A copy of a folder whose files have new inodes and change times and other modification
    times than ``src``'s (as a checkout or a ``cp -a`` on another day gives)."""
    shutil.copytree(src, dest)
    for i, p in enumerate(sorted(dest.rglob("*"), reverse=True)):
        os.utime(p, ns=(1_600_000_000_000_000_000 + i, 1_600_000_000_000_000_000 + 7_000_000_000 * i))


def test_two_copies_of_a_root_give_byte_identical_outputs_records_included(mini: DataRootCopy,
                                                                           tmp_path: Path) -> None:
    """docs/printing.md: the record is an output like the PDFs, the same bytes wherever the data
    root lies; its hashes come from file contents and names only (attack 5, F5)."""
    other = tmp_path / "elsewhere" / "deeper" / "root"
    _copy_with_other_stat_data(mini.path, other)
    a_file, b_file = mini.file("deck.json"), other / "card_data" / "mini" / "deck.json"
    assert a_file.stat().st_ino != b_file.stat().st_ino and a_file.stat().st_mtime_ns != b_file.stat().st_mtime_ns
    out_a, out_b = tmp_path / "out-a", tmp_path / "out-b"
    assert run_cli("build", "mini", "--data", mini.path, "--out", out_a).exit_code == 0
    assert run_cli("build", "mini", "--data", other, "--out", out_b, cwd=other).exit_code == 0
    a, b = tree(out_a), tree(out_b)
    assert "mini/.pnp-build.json" in a
    assert a == b, [k for k in a if a[k] != b.get(k)]
    # the record built in one copy is up to date in the other (output folders swapped)
    shutil.rmtree(out_b)
    shutil.copytree(out_a, out_b)
    r = run_cli("build", "mini", "--data", other, "--out", out_b)
    assert r.exit_code == 0 and "mini: up to date" in r.stdout, r.stdout


def test_the_input_hash_follows_contents_not_stat_data(mini: DataRootCopy, tmp_path: Path) -> None:
    """The input hash is the same for a copy with other inodes and times, and changes when a
    template or a data file of the game changes by a byte (same size)."""
    other = tmp_path / "copy"
    _copy_with_other_stat_data(mini.path, other)

    def inputs(root: Path) -> str:
        return digest.InputHasher(DataRoot(root)).game("mini", BuildOptions())

    first = inputs(mini.path)
    assert inputs(other) == first
    for name in ("card_data/mini/deck.json", "templates/mini/card.json"):
        p = other / name
        data = p.read_bytes()
        assert b"  " in data
        p.write_bytes(data.replace(b"  ", b" \t", 1))  # a byte of white space changed, the size kept
        assert inputs(other) != first, name
        p.write_bytes(data)
        assert inputs(other) == first


def test_a_same_size_edit_with_its_old_time_put_back_is_still_seen(golems: DataRootCopy, tmp_path: Path) -> None:
    """An edit that keeps the file's size and has its modification time set back still changes
    the file's change time, which the quick test includes."""
    import os

    out = tmp_path / "out"
    assert golems.cli("build", "-v", "golems", "--out", out).exit_code == 0
    deck = golems.file("event-deck.json")
    st = deck.stat()
    text = deck.read_text(encoding="utf-8")
    name = golems.read("event-deck.json")["items"][0]["name"]
    edited = name[:-1] + ("x" if name[-1] != "x" else "y")  # same length, same size in bytes
    assert text.count(f'"{name}"') == 1
    assert text.count(f'"{name} ') == 1  # its quote, which pnp check traces the name to, starts with it
    deck.write_text(text.replace(f'"{name}"', f'"{edited}"').replace(f'"{name} ', f'"{edited} '), encoding="utf-8")
    os.utime(deck, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert deck.stat().st_size == st.st_size and deck.stat().st_mtime_ns == st.st_mtime_ns
    r = golems.cli("build", "-v", "golems", "--out", out)
    assert r.exit_code == 0, r.stderr
    assert rendered(r.stdout) == {"event-deck"}, r.stdout


def test_a_changed_or_missing_pdf_is_rendered_again(golems: DataRootCopy, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert golems.cli("build", "-v", "golems", "--out", out).exit_code == 0
    files = tree(out)
    (out / "golems" / "mana.pdf").write_bytes(b"%PDF-1.4 scribbled over")
    (out / "golems" / "chits.pdf").unlink()
    r = golems.cli("build", "-v", "golems", "--out", out)
    assert r.exit_code == 0, r.stderr
    assert rendered(r.stdout) == {"mana", "chits"}, r.stdout
    assert tree(out) == files


def test_other_options_render_everything_again(golems: DataRootCopy, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert golems.cli("build", "-v", "golems", "--out", out).exit_code == 0
    r = golems.cli("build", "-v", "golems", "--out", out, "--paper", "a4")
    assert r.exit_code == 0, r.stderr
    assert len(rendered(r.stdout)) == 10
    r = golems.cli("build", "-v", "golems", "--out", out, "--paper", "a4", "--strict")  # strict: same bytes
    assert r.exit_code == 0 and "up to date" in r.stdout


def test_a_damaged_record_is_ignored(golems: DataRootCopy, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert golems.cli("build", "-v", "golems", "--out", out).exit_code == 0
    files = tree(out / "golems")
    (out / "golems" / incremental.CACHE_NAME).write_text("{not json")
    r = golems.cli("build", "-v", "golems", "--out", out)
    assert r.exit_code == 0, r.stderr
    assert len(rendered(r.stdout)) == 10  # nothing trusted
    assert tree(out / "golems") == files


def test_a_record_that_is_a_link_is_not_read_and_is_replaced(golems: DataRootCopy, tmp_path: Path) -> None:
    """A build record that is a link to a file elsewhere (attack 16 borderline: it was read and
    trusted, and left in place) is ignored: everything is checked again, and the new record is
    a file of its own; the file the link named is untouched."""
    out = tmp_path / "out"
    assert golems.cli("build", "golems", "--out", out).exit_code == 0
    record = out / "golems" / incremental.CACHE_NAME
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_bytes(record.read_bytes())
    record.unlink()
    record.symlink_to(elsewhere)
    files = {k: v for k, v in tree(out / "golems").items() if k != incremental.CACHE_NAME}
    r = golems.cli("build", "-v", "golems", "--out", out)
    assert r.exit_code == 0, r.stderr
    assert len(rendered(r.stdout)) == 10  # nothing trusted
    assert not record.is_symlink() and record.read_bytes() == elsewhere.read_bytes()
    assert {k: v for k, v in tree(out / "golems").items() if k != incremental.CACHE_NAME} == files


def test_cached_warnings_are_repeated_and_strict_still_fails(mini: DataRootCopy, tmp_path: Path) -> None:
    """A build that warned (text too long) records its warnings: an up-to-date rebuild prints them
    again, and --strict fails on them without writing anything."""
    mini.edit("deck.json", lambda d: d["items"][2].update(name="An extremely long joker name that cannot fit"))
    out = tmp_path / "out"
    first = mini.cli("build", "-v", "mini", "--out", out)
    assert first.exit_code == 0, first.stderr
    warning = [ln for ln in first.stderr.splitlines() if "does not fit" in ln]
    assert warning
    before = stamps(out)
    again = mini.cli("build", "-v", "mini", "--out", out)
    assert again.exit_code == 0 and "up to date" in again.stdout
    assert [ln for ln in again.stderr.splitlines() if "does not fit" in ln] == warning
    strict = mini.cli("build", "-v", "mini", "--out", out, "--strict")
    assert strict.exit_code == 2
    assert_no_traceback(strict)
    assert warning[0] in strict.stderr and "nothing was written" in strict.stderr
    assert stamps(out) == before


@pytest.mark.parametrize("gid", ["golems", "cauldron"])
def test_jobs_do_not_change_a_byte(gid: str, tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    r1 = run_cli("build", "-v", gid, "--out", one, "--jobs", "1")
    r2 = run_cli("build", "-v", gid, "--out", two, "--jobs", "2")
    assert r1.exit_code == 0 and r2.exit_code == 0, r1.stderr + r2.stderr
    assert tree(one) == tree(two)
    assert rendered(r1.stdout) == rendered(r2.stdout)


def test_layout_errors_found_while_drawing_stop_the_build_with_nothing_written(mini: DataRootCopy,
                                                                               tmp_path: Path) -> None:
    """Fronts are laid out while they are drawn; a bad item further down still stops the whole
    build before anything is written (here: a palette without a colour for the last item)."""
    tpl = mini.read("templates/mini/card.json")
    tpl["palettes"] = {**tpl.get("palettes", {}), "suits": {"sun": "#ff0000", "moon": "#0000ff"}}
    tpl["elements"].append({"type": "rect", "box": [1, 1, 2, 2], "fill": {"palette": "suits", "by": "suit"}})
    mini.write("templates/mini/card.json", tpl)
    out = tmp_path / "out"
    r = mini.cli("build", "-v", "mini", "--out", out)
    assert_no_traceback(r)
    assert r.exit_code == 2 and "nothing was written" in r.stderr
    assert "palette 'suits' has no colour for suit=" in r.stderr and "item joker" in r.stderr, r.stderr
    assert not out.exists()


def test_streamed_fronts_keep_only_a_few_layouts(tmp_path: Path) -> None:
    """A lazily planned component lays each item out when drawn and keeps at most CACHE of them,
    and renders to the same bytes as the fully laid out plan."""
    root = DataRoot(bundled_root())
    s = Session(root)
    lazy = check(root, "golems", BuildOptions(), s, layout=False)
    full = check(root, "golems", BuildOptions(), s)
    for lp, fp in zip(lazy.plans, full.plans, strict=True):
        assert isinstance(lp.fronts, LazyPieces)
        assert len(lp.fronts) == len(fp.fronts)
        a, _ = render_component(s, lazy.game, lp, lazy.opts)
        b, _ = render_component(s, full.game, fp, full.opts)
        assert a == b, lp.component.id
        assert len(lp.fronts._cache) <= LazyPieces.CACHE
    terrain = next(p for p in lazy.plans if p.component.id == "terrain")
    assert len({terrain.fronts.key(i) for i in range(len(terrain.fronts))}) == len(terrain.component.items)


def test_the_record_names_every_pdf_with_its_hash(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run_cli("build", "-v", "golems", "--out", out).exit_code == 0
    record = json.loads((out / "golems" / incremental.CACHE_NAME).read_text())
    assert record["format"] == "pnp-build-cache"
    names = {c["file"] for c in record["components"].values()} | {record["contents"]["file"]}
    assert names == {p.name for p in (out / "golems").glob("*.pdf")}
    loaded = incremental.load(out / "golems")
    assert loaded is not None and loaded.intact(out / "golems")


def test_input_errors_in_pieces_come_before_rule_violations(golems: DataRootCopy, tmp_path: Path) -> None:
    """Found by the fuzz test: an item that breaks its own layout (an empty name makes the icon
    name 'shape-') and a rule (the deck's names) at once. `pnp check`, which lays out every
    piece, reports the input error (exit 2); a build, which lays fronts out only while drawing
    and draws nothing when rules fail, must report the same, not the rule violation."""

    def empty_name(d: dict) -> None:
        next(i for i in d["items"] if i["id"] == "beast")["name"] = ""

    golems.edit("golem-deck.json", empty_name)
    chk = golems.check()
    out = tmp_path / "out"
    b = golems.cli("build", "-v", "golems", "--out", out)
    assert_no_traceback(b)
    assert chk.exit_code == b.exit_code == 2, (chk.exit_code, b.exit_code, b.stderr)
    assert "unknown icon 'shape-'" in chk.stderr and "unknown icon 'shape-'" in b.stderr
    assert "nothing was written" in b.stderr and not out.exists()


def test_every_file_of_the_game_folder_counts_even_in_a_folder_named_bundled(golems: DataRootCopy,
                                                                            tmp_path: Path) -> None:
    """Only pnp's own package skips a bundled/ folder when hashed; a game's files are all inputs."""
    extra = golems.game_dir / "bundled" / "notes.txt"
    extra.parent.mkdir()
    extra.write_text("one")
    out = tmp_path / "out"
    assert golems.cli("build", "-v", "golems", "--out", out).exit_code == 0
    extra.write_text("two")
    again = golems.cli("build", "-v", "golems", "--out", out)
    assert again.exit_code == 0 and "up to date" not in again.stdout, again.stdout


# --------------------------------------------------------------------------- font identity


def _table_checksum(data: bytes) -> int:
    """OpenType's table checksum: the sum of the big-endian uint32 words, zero-padded."""
    data += b"\0" * (-len(data) % 4)
    return sum(int.from_bytes(data[i:i + 4], "big") for i in range(0, len(data), 4)) & 0xFFFFFFFF


def _edited_font(src: Path, dest: Path, table: bytes = b"name") -> None:
    """A copy of ``src`` with one byte of ``table`` changed and that table's checksum in the
    table directory rewritten, as a font editor saves it."""
    data = bytearray(src.read_bytes())
    n = int.from_bytes(data[4:6], "big")
    for i in range(n):
        rec = 12 + 16 * i
        if bytes(data[rec:rec + 4]) == table:
            off = int.from_bytes(data[rec + 8:rec + 12], "big")
            length = int.from_bytes(data[rec + 12:rec + 16], "big")
            data[off + length - 1] ^= 0x01
            data[rec + 4:rec + 8] = _table_checksum(bytes(data[off:off + length])).to_bytes(4, "big")
            break
    else:
        raise AssertionError(f"no {table!r} table")
    dest.write_bytes(bytes(data))


def test_font_identity_tells_fonts_apart_and_follows_edits(tmp_path: Path) -> None:
    fonts = sorted((bundled_root() / "fonts").rglob("*.ttf"))
    ids = {digest.font_digest(p) for p in fonts}
    assert len(fonts) >= 10 and len(ids) == len(fonts)  # every bundled font its own
    lato = next(p for p in fonts if p.name == "Lato-Regular.ttf")
    copy = tmp_path / "copy" / "Lato-Regular.ttf"
    copy.parent.mkdir()
    copy.write_bytes(lato.read_bytes())
    assert digest.font_digest(copy) == digest.font_digest(lato)  # the same font anywhere
    for table in (b"name", b"glyf", b"cmap"):
        edited = tmp_path / f"edited-{table.decode()}.ttf"
        _edited_font(lato, edited, table)
        assert digest.font_digest(edited) != digest.font_digest(lato), table
    # a file that is not a TrueType font is hashed whole
    junk = tmp_path / "junk.ttf"
    junk.write_bytes(b"not a font at all" * 100)
    assert digest.font_digest(junk) == digest.file_digest(junk)


def test_an_edited_font_renders_again(golems: DataRootCopy, tmp_path: Path) -> None:
    """A font in the data root's fonts folder, saved again by a font editor, changes every
    component's fingerprint (and data version): everything is rendered again."""
    out = tmp_path / "out"
    fonts = golems.path / "fonts"
    fonts.mkdir()
    (fonts / "Lato-Regular.ttf").write_bytes((bundled_root() / "fonts" / "Lato-Regular.ttf").read_bytes())
    assert golems.cli("build", "-v", "golems", "--out", out).exit_code == 0
    again = golems.cli("build", "-v", "golems", "--out", out)
    assert "golems: up to date" in again.stdout
    _edited_font(bundled_root() / "fonts" / "Lato-Regular.ttf", fonts / "Lato-Regular.ttf", b"name")
    r = golems.cli("build", "-v", "golems", "--out", out)
    assert r.exit_code == 0, r.stderr
    assert rendered(r.stdout) == {c["id"] for c in golems.read("game.json")["components"]}, r.stdout


def test_the_ganged_file_is_in_the_record(tmp_path: Path) -> None:
    """--gang's file is recorded like the component PDFs: a rebuild is up to date and says again
    what it saved; a deleted ganged file is made again; a build without --gang removes the one
    the last build wrote, never a file someone changed since."""
    import hashlib

    import pnp

    first = pnp.build("capek-golems", out=tmp_path, jobs=1, gang=True)
    assert first.ok and first.games[0].ganged is not None
    path, report = first.games[0].ganged
    rec = json.loads((tmp_path / "capek-golems" / incremental.CACHE_NAME).read_text())
    assert rec["ganged"]["file"] == "capek-golems-ganged.pdf" == path.name
    assert rec["ganged"]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert rec["gang"] == {"components": list(report.components), "before": 9, "after": 7}
    again = pnp.build("capek-golems", out=tmp_path, jobs=1, gang=True)
    assert again.games[0].up_to_date and again.games[0].ganged == (path, report) and again.written == ()
    path.unlink()
    third = pnp.build("capek-golems", out=tmp_path, jobs=1, gang=True)
    assert not third.games[0].up_to_date and path in third.written and path.exists()
    plain = pnp.build("capek-golems", out=tmp_path, jobs=1)
    assert plain.ok and not path.exists() and plain.games[0].ganged is None
    assert "ganged" not in json.loads((tmp_path / "capek-golems" / incremental.CACHE_NAME).read_text())
    pnp.build("capek-golems", out=tmp_path, jobs=1, gang=True)
    path.write_bytes(b"my own notes")  # changed since: not pnp's to remove
    pnp.build("capek-golems", out=tmp_path, jobs=1)
    assert path.read_bytes() == b"my own notes"


@pytest.mark.parametrize("entry", ["ganged", "contents"])
def test_a_record_naming_another_pdf_as_its_ganged_file_is_ignored(tmp_path: Path, entry: str) -> None:
    """Attack 10 F3: a record (re-sealed) whose ganged entry named mini's deck.pdf, with that
    file's hash, had the next build without --gang delete deck.pdf as the old ganged file, and
    report the deck unchanged. The ganged file and the contents sheet must be the game's own
    ``<game>-ganged.pdf`` and ``<game>-contents.pdf``: anything else and the record is ignored,
    the game built again, every PDF there."""
    import hashlib

    import pnp

    data = Path(__file__).parents[1] / "data" / "mini"
    first = pnp.build(data=data, out=tmp_path, jobs=1)
    assert first.ok
    folder = tmp_path / "mini"
    deck = folder / "deck.pdf"
    deck_bytes = deck.read_bytes()
    rec_path = folder / incremental.CACHE_NAME
    rec = json.loads(rec_path.read_text())
    own = {"file": "deck.pdf", "sha256": hashlib.sha256(deck.read_bytes()).hexdigest(), "bytes": deck.stat().st_size,
           "pages": 0, "pieces": 0, "grid": "", "warnings": [], "preflight": {}}
    if entry == "ganged":
        rec["ganged"], rec["gang"] = own, {"components": ["deck"], "before": 2, "after": 1}
    else:
        rec["contents"] = {**rec["contents"], "file": "deck.pdf", "sha256": own["sha256"]}
    rec["seal"] = incremental.seal(rec)
    rec_path.write_text(json.dumps(rec))
    assert incremental.load(folder) is not None  # a record pnp could have written, but for its names
    assert incremental.load(folder, game="mini") is None
    again = pnp.build(data=data, out=tmp_path, jobs=1)
    assert again.ok and not again.games[0].up_to_date  # built again: the same bytes, all there
    assert deck.read_bytes() == deck_bytes and (folder / "mini-contents.pdf").exists()
    fixed = incremental.load(folder, game="mini")
    assert fixed is not None and fixed.ganged is None and fixed.contents.file == "mini-contents.pdf"
