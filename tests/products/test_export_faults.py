"""A full disk during an export (issue 19, third attack): `pnp export png` left 3 of 4 PNGs and
no index.json, `pnp export tts` deck sheets without their saved object, exit 2. Every export set
(png, tts, the shops' PNG and PDF sets with their report) is now all or nothing: the disk filling
at any one file leaves every old file of the set as it was and no temporary file; and what a
killed export left staged is removed by the next one."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import TEST_DATA, assert_no_traceback, run_cli, tree

from pnp.render import write

EXPORTS = {
    "png": ["export", "png", "mini", "--dpi", "36", "--jobs", "1"],
    "png-jobs": ["export", "png", "mini", "--dpi", "36", "--jobs", "2"],
    "tts": ["export", "tts", "mini", "--dpi", "36"],
    "shop-png": ["export", "png", "mini", "--shop", "thegamecrafter", "--jobs", "1"],
    "shop-pdf": ["build", "mini", "--shop", "drivethrucards"],
}


def two_decks(root: Path) -> Path:
    """mini with a second deck, deck2, of poker size (so a PDF shop maps it)."""
    shutil.copytree(TEST_DATA / "mini", root)
    game = root / "card_data" / "mini"
    g = json.loads((game / "game.json").read_text())
    g["components"].append({**g["components"][0], "id": "deck2", "title": "Deck 2", "size": [63.5, 88.9],
                            "data": "deck2.json"})
    (game / "game.json").write_text(json.dumps(g, indent=2))
    (game / "deck2.json").write_text((game / "deck.json").read_text().replace('"component": "deck"',
                                                                              '"component": "deck2"'))
    for name in ("card.json", "back.json", "base.json"):
        t = root / "templates" / "mini" / name
        t.write_text(t.read_text().replace('"size": [44, 63],', ""))
    return root


def edit(root: Path) -> None:
    """New bytes for every image, and an item renamed (its old image is to go with the old set)."""
    game = root / "card_data" / "mini"
    for name in ("deck.json", "deck2.json"):
        (game / name).write_text((game / name).read_text().replace("Sun One", "Sol One"))
    (game / "deck2.json").write_text((game / "deck2.json").read_text().replace('"moon-1"', '"luna-1"'))


def full_disk_at(monkeypatch: pytest.MonkeyPatch, k: int) -> list[str]:
    """Staging the k-th file (counted in this process) writes part of it and fails: the disk is full."""
    real, calls, lock = write._stage, [], threading.Lock()

    def stage(path: Path, data: bytes, staged: list[tuple[str, Path]]) -> None:
        with lock:
            calls.append(path.name)
            n = len(calls)
        if n == k:
            real(path, data[: len(data) // 2], staged)
            raise OSError(errno.ENOSPC, "No space left on device")
        real(path, data, staged)

    monkeypatch.setattr(write, "_stage", stage)
    return calls


@pytest.mark.parametrize("kind", list(EXPORTS))
def test_a_full_disk_at_any_file_leaves_the_old_set(kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, out = two_decks(tmp_path / "root"), tmp_path / "out"
    args: list[str | Path] = [*EXPORTS[kind], "--data", root, "--out", out]
    first = run_cli(*args)
    assert first.exit_code == 0, first.output
    old = tree(out)
    assert len(old) >= 2 and any(n.endswith((".png", ".pdf")) for n in old) and any(n.endswith(".json") for n in old)
    edit(root)
    if kind == "png-jobs":  # the images are staged in worker processes: a file's name says where to fail
        targets: list[Callable[[pytest.MonkeyPatch], object]] = [
            (lambda mp, name=name: fail_on(mp, name)) for name in ("sun-1-front.png", "back.png", "index.json")]
    else:
        targets = [(lambda mp, k=k: full_disk_at(mp, k)) for k in range(1, 40)]
    for fail in targets:
        with monkeypatch.context() as mp:
            calls = fail(mp)
            r = run_cli(*args)
        if r.exit_code == 0:  # past the last file: nothing failed
            assert isinstance(calls, list) and calls, kind
            break
        assert r.exit_code == 2, r.output
        assert_no_traceback(r)
        assert "No space left on device" in r.stderr, r.stderr
        assert tree(out) == old, (kind, calls)  # every old file as it was, and no temporary file
    else:
        assert kind == "png-jobs", "the export never got past its last file"
        r = run_cli(*args)
        assert r.exit_code == 0, r.output
    new = tree(out)
    assert new != old
    if kind in ("png", "png-jobs", "shop-png"):  # the old set's image of the renamed item went with it
        renamed = [n for n in old if "moon-1" in n and "deck2" in n]
        assert renamed and not any(n in new for n in renamed) and any("luna-1" in n for n in new), renamed


def fail_on(mp: pytest.MonkeyPatch, name: str) -> None:
    real = write._stage

    def stage(path: Path, data: bytes, staged: list[tuple[str, Path]]) -> None:
        if path.name == name and path.parent.name == "deck2":
            real(path, data[:10], staged)
            raise OSError(errno.ENOSPC, "No space left on device")
        real(path, data, staged)

    mp.setattr(write, "_stage", stage)


def test_a_first_export_that_fails_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, out = two_decks(tmp_path / "root"), tmp_path / "out"
    for kind in ("png", "tts"):
        with monkeypatch.context() as mp:
            full_disk_at(mp, 6)
            r = run_cli(*EXPORTS[kind], "--data", root, "--out", out)
        assert r.exit_code == 2 and "No space left on device" in r.stderr, r.output
        assert tree(out) == {}, tree(out).keys()
        assert not out.exists()  # nor the folders made for the files (attack 12, B4)


@pytest.mark.parametrize("kind", ["png", "tts", "shop-png"])
def test_an_export_removes_what_a_killed_one_left(kind: str, tmp_path: Path) -> None:
    """A kill -9 between staging and renaming leaves ``.<name>.<random>.tmp`` files: the next
    export into the folder (holding its lock) removes them, whatever their age; files that are
    not an export's temporary files stay."""
    root, out = two_decks(tmp_path / "root"), tmp_path / "out"
    args: list[str | Path] = [*EXPORTS[kind], "--data", root, "--out", out]
    assert run_cli(*args).exit_code == 0
    made = tree(out)
    folders = {(out / n).parent for n in made}
    left = []
    for folder in folders:
        for name in [p.name for p in folder.iterdir() if p.is_file()]:
            tmp = folder / f".{name}.a1b2c3_4.tmp"
            tmp.write_bytes(b"half")
            left.append(tmp)
        (folder / "notes.txt").write_text("mine")
        (folder / ".other.png.a1b2c3d4.tmp").write_text("not one of this export's files")
    assert run_cli(*args).exit_code == 0
    assert not any(p.exists() for p in left), [p for p in left if p.exists()]
    after = tree(out)
    assert all(after[n] == made[n] for n in made)
    assert all((f / "notes.txt").exists() and (f / ".other.png.a1b2c3d4.tmp").exists() for f in folders)


def test_a_real_full_disk(tmp_path: Path) -> None:
    """On a tmpfs of 1.25 times the old set: the new set does not fit beside the old one."""
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    root = two_decks(tmp_path / "root")
    size = 512 * 1024
    if subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mnt)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        out = mnt / "out"
        args: list[str | Path] = ["export", "png", "mini", "--dpi", "300", "--data", root, "--out", out]
        assert run_cli(*args).exit_code == 0
        used = sum(p.stat().st_blocks * 512 for p in out.rglob("*") if p.is_file())
        subprocess.run(["mount", "-o", f"remount,size={used * 5 // 4}", str(mnt)], check=True)
        old = tree(out)
        edit(root)
        r = run_cli(*args)
        assert r.exit_code == 2 and "No space left on device" in r.stderr, r.output
        assert_no_traceback(r)
        assert tree(out) == old
        subprocess.run(["mount", "-o", f"remount,size={used * 3}", str(mnt)], check=True)
        assert run_cli(*args).exit_code == 0 and tree(out) != old
    finally:
        subprocess.run(["umount", str(mnt)], check=False)
        os.sync()


@pytest.mark.parametrize("kind", ["png", "tts"])
def test_ctrl_c_while_a_file_is_written_leaves_the_old_set(kind: str, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C in the middle of writing a file (the index) left that one temporary file behind."""
    root, out = two_decks(tmp_path / "root"), tmp_path / "out"
    args: list[str | Path] = [*EXPORTS[kind], "--data", root, "--out", out]
    assert run_cli(*args).exit_code == 0
    old = tree(out)
    edit(root)
    real = write._stage

    def stage(path: Path, data: bytes, staged: list[tuple[str, Path]]) -> None:
        real(path, data, staged)
        if path.suffix == ".json":
            raise KeyboardInterrupt

    monkeypatch.setattr(write, "_stage", stage)
    r = run_cli(*args)
    assert r.exit_code == 130, r.output
    assert tree(out) == old
