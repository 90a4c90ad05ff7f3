"""Hostile input, attack 10 (issue 19), F4: every folder pnp writes into under ``--out`` is a
real folder. ``build`` refused ``out/<game>`` as a link, but one level deeper ``export png``
(``out/<g>/png/<component>``), ``export tts`` (``out/<g>/tts/...``), ``preview``
(``out/preview/<g>/...``) and ``--shop`` (``out/<g>/shops/...``) followed the link and wrote
their files wherever it pointed; ``export data`` followed ``out/<g>``. Each now exits 2 naming
the link (``pnp.render.write.check_real_folders``), with nothing written through it."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from conftest import assert_no_traceback, run_cli

from pnp.errors import OutputError
from pnp.render.write import check_real_folders

REMOVE = "pnp writes a game's files only into a real folder inside --out: remove the link"


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``pnp new g``: one 63 x 88 mm deck with a back (a Tabletop Simulator deck, a product of
    every shop)."""
    root = tmp_path_factory.mktemp("links") / "root"
    r = run_cli("new", "g", "--path", root)
    assert r.exit_code == 0, r.output
    return root


def _files(folder: Path) -> list[str]:
    """Every file under ``folder``, links not followed."""
    return sorted(str(Path(d, f).relative_to(folder)) for d, _, fs in os.walk(folder) for f in fs)


COMMANDS = {
    "png": ("export", "png", "g"),
    "png-deck": ("export", "png", "g", "deck"),
    "tts": ("export", "tts", "g"),
    "preview": ("preview", "g", "deck"),
    "preview-item": ("preview", "g", "deck", "scout"),
    "tgc": ("export", "png", "g", "--shop", "thegamecrafter"),
    "dtc": ("build", "g", "--shop", "drivethrucards"),
    "data": ("export", "data", "g", "deck"),
    "build": ("build", "g"),
    "ink-saver": ("build", "g", "--ink-saver"),
}


@pytest.mark.parametrize(("command", "link"), [
    ("png", "g/png"), ("png", "g/png/deck"), ("png-deck", "g/png/deck"),
    ("tts", "g/tts"), ("tts", "g/tts/deck"), ("tts", "g/tts/saved-objects"),
    ("preview", "preview/g"), ("preview-item", "preview/g"), ("preview-item", "preview/g/deck"),
    ("tgc", "g/shops"), ("tgc", "g/shops/thegamecrafter"), ("tgc", "g/shops/thegamecrafter/deck"),
    ("dtc", "g/shops"), ("dtc", "g/shops/drivethrucards"),
    ("data", "g"), ("data", "g/data"),
    ("build", "g"), ("ink-saver", "g/ink-saver"),
])
def test_a_folder_pnp_writes_into_that_is_a_link_is_refused(game: Path, tmp_path: Path, command: str,
                                                            link: str) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("SECRET")
    work = tmp_path / "work"
    (work / "out" / link).parent.mkdir(parents=True)
    os.symlink(victim, work / "out" / link)
    r = run_cli(*COMMANDS[command], "--data", game, "--out", "out", cwd=work)
    assert r.exit_code == 2, r.output
    assert_no_traceback(r)
    assert f"pnp: output folder {Path('out', link)} is a link (to {victim}); {REMOVE}" in r.stderr, r.stderr
    assert _files(victim) == ["keep.txt"] and (victim / "keep.txt").read_text() == "SECRET"
    assert _files(work / "out") == []  # nothing written beside the link either


def test_a_link_that_points_inside_out_is_refused_too(game: Path, tmp_path: Path) -> None:
    """Not only links out of ``--out``: a folder pnp writes into is a real folder, so a game's
    exports never land in another game's (or another export's) folder."""
    (tmp_path / "out" / "g" / "png").mkdir(parents=True)
    (tmp_path / "out" / "h").mkdir()
    os.symlink("../../h", tmp_path / "out" / "g" / "png" / "deck")
    r = run_cli("export", "png", "g", "--data", game, "--out", "out", cwd=tmp_path)
    assert r.exit_code == 2 and f"output folder {Path('out/g/png/deck')} is a link (to ../../h); {REMOVE}" in r.stderr
    assert _files(tmp_path / "out") == []


def test_exports_into_an_out_that_is_itself_a_link_still_work(game: Path, tmp_path: Path) -> None:
    """``--out`` may be a link (an output folder on another disk): only the folders pnp makes
    inside it must be real. Every writer still writes its usual files there."""
    disk = tmp_path / "disk"
    disk.mkdir()
    os.symlink(disk, tmp_path / "out")
    for command in ("png", "tts", "preview", "preview-item", "tgc", "dtc", "data", "build"):
        r = run_cli(*COMMANDS[command], "--data", game, "--out", "out", cwd=tmp_path)
        assert r.exit_code == 0, (command, r.output)
    files = _files(disk)
    for f in ("g/png/deck/index.json", "g/png/deck/scout-front.png", "g/png/deck/back.png",
              "g/tts/deck/deck.json", "g/tts/deck/deck-1.png", "g/tts/saved-objects/g-deck.json",
              "preview/g/deck.png", "preview/g/deck/scout.png",
              "g/shops/thegamecrafter/shop-report.json", "g/shops/thegamecrafter/deck/scout-front.png",
              "g/shops/drivethrucards/shop-report.json", "g/shops/drivethrucards/g-deck.pdf",
              "g/data/deck.csv", "g/deck.pdf"):
        assert f in files, (f, files)


def test_exporting_again_over_real_folders_works(game: Path, tmp_path: Path) -> None:
    """The guard passes existing real folders: a second export rewrites the same files."""
    for _ in range(2):
        for command in ("png", "tts", "preview-item", "tgc"):
            r = run_cli(*COMMANDS[command], "--data", game, "--out", "out", cwd=tmp_path)
            assert r.exit_code == 0, (command, r.output)
    assert "g/tts/deck/deck-1.png" in _files(tmp_path / "out")


def test_check_real_folders(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "g").mkdir(parents=True)
    check_real_folders(out, [out / "g" / "png" / "deck", out / "preview"])  # not made yet: they pass
    with pytest.raises(OutputError, match=r"resolves to .*, outside --out"):  # no link, but a climb out
        check_real_folders(out, [out / "g" / ".." / ".." / "elsewhere"])
    shutil.rmtree(out / "g")
    os.symlink(tmp_path, out / "g")
    with pytest.raises(OutputError, match=re.escape(f"output folder {out / 'g'} is a link")):
        check_real_folders(out, [out / "g" / "png" / "deck"])
    os.symlink(tmp_path / "nowhere", out / "preview")  # a dangling link is refused as well
    with pytest.raises(OutputError, match=re.escape(f"output folder {out / 'preview'} is a link")):
        check_real_folders(out, [out / "preview" / "g"])
