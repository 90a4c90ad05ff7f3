"""Containment: a game's data and templates read only files inside the game's folder, the
templates folders and the font folders, whatever links they hold; output goes only under
``--out``. Links are made at run time (git would store them as links too, but then every checkout
would carry a link to somewhere outside the repository)."""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from conftest import REPO, TEST_DATA, assert_no_traceback, diag_lines, run_cli
from PIL import Image

from pnp.input.project import bundled_root


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of tests/data/mini, plus an ``outside`` folder next to it that nothing may read."""
    r = tmp_path / "root"
    shutil.copytree(TEST_DATA / "mini", r)
    (tmp_path / "outside").mkdir()
    monkeypatch.chdir(r)  # messages name files relative to the working folder
    return r


def outside(root: Path) -> Path:
    return root.parent / "outside"


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (links listed as where they point)."""
    out = {}
    for p in sorted(folder.rglob("*")):
        rel = str(p.relative_to(folder))
        if p.is_symlink():
            out[rel] = b"-> " + os.fsencode(os.readlink(p))
        elif p.is_file():
            out[rel] = p.read_bytes()
    return out


def fails_cleanly(root: Path, fragment: str) -> str:
    """check and build exit 2 with ``fragment`` in a diagnostic that has advice; nothing is written."""
    before = tree(root.parent)
    for args in (("check",), ("build", "--out", root.parent / "out")):
        r = run_cli(args[0], "--data", root, "mini", *args[1:])
        assert r.exit_code == 2, (args, r.exit_code, r.stdout, r.stderr)
        assert_no_traceback(r)
        lines = [ln for ln in diag_lines(r.stderr) if fragment in ln]
        assert lines, r.stderr
        assert " (expected " in lines[0] or "; " in lines[0]
    assert tree(root.parent) == before
    return lines[0]


def add_image(root: Path, src: str) -> None:
    card = root / "templates" / "mini" / "card.json"
    data = json.loads(card.read_text())
    data["elements"].append({"type": "image", "box": [4, 30, 36, 20], "src": src})
    card.write_text(json.dumps(data, indent=1))


def use_font(root: Path, font: str) -> None:
    base = root / "templates" / "mini" / "base.json"
    data = json.loads(base.read_text())
    data["styles"]["title"]["font"] = font
    base.write_text(json.dumps(data, indent=1))


# -- data files ----------------------------------------------------------------------------------

def test_data_file_linked_from_outside(root: Path) -> None:
    deck = root / "card_data" / "mini" / "deck.json"
    shutil.move(deck, outside(root) / "deck.json")
    os.symlink(outside(root) / "deck.json", deck)
    line = fails_cleanly(root, "data file 'deck.json' is a link to a file outside the game folder")
    assert line.startswith("card_data/mini/game.json:13:15: $.components[0].data: ")


def test_manifest_linked_from_outside(root: Path) -> None:
    game = root / "card_data" / "mini" / "game.json"
    shutil.move(game, outside(root) / "game.json")
    os.symlink(outside(root) / "game.json", game)
    line = fails_cleanly(root, "game.json is a link to a file outside the game folder")
    assert line.startswith("card_data/mini/game.json: $: ")


def test_data_file_linked_inside_the_game_folder_is_fine(root: Path) -> None:
    folder = root / "card_data" / "mini"
    shutil.move(folder / "deck.json", folder / "cards.json")
    os.symlink("cards.json", folder / "deck.json")
    assert run_cli("check", "--data", root, "mini").exit_code == 0


def test_data_file_names_cannot_leave_the_game_folder(root: Path) -> None:
    game = root / "card_data" / "mini" / "game.json"
    for bad in ("../../deck.json", "/etc/passwd", "sub/deck.json", "..\\\\deck.json"):
        game.write_text(json.dumps({**json.loads((TEST_DATA / "mini" / "card_data" / "mini" / "game.json")
                                                 .read_text()),
                                    "components": [{**json.loads((TEST_DATA / "mini" / "card_data" / "mini"
                                                                  / "game.json").read_text())["components"][0],
                                                    "data": bad}]}, indent=1))
        fails_cleanly(root, "$.components[0].data: invalid value")


# -- templates -----------------------------------------------------------------------------------

def test_template_linked_from_outside(root: Path) -> None:
    card = root / "templates" / "mini" / "card.json"
    shutil.move(card, outside(root) / "card.json")
    os.symlink(outside(root) / "card.json", card)
    line = fails_cleanly(root, "template 'mini/card' (templates/mini/card.json) is a link to a file outside")
    assert line.startswith("card_data/mini/game.json:14:19: $.components[0].template: ")


def test_parent_template_linked_from_outside(root: Path) -> None:
    """The link is reached through ``extends``: the message points at that ``extends``."""
    base = root / "templates" / "mini" / "base.json"
    shutil.move(base, outside(root) / "base.json")
    os.symlink(outside(root) / "base.json", base)
    line = fails_cleanly(root, "template 'mini/base' (templates/mini/base.json) is a link to a file outside")
    assert line.startswith("templates/mini/back.json:3:14: $.extends: ") or \
        line.startswith("templates/mini/card.json:3:14: $.extends: ")


def test_template_group_folder_linked_from_outside(root: Path) -> None:
    group = root / "templates" / "mini"
    shutil.move(group, outside(root) / "mini")
    os.symlink(outside(root) / "mini", group)
    fails_cleanly(root, "is a link to a file outside")


def test_template_linked_to_a_system_file(root: Path) -> None:
    card = root / "templates" / "mini" / "card.json"
    card.unlink()
    os.symlink("/etc/passwd", card)
    fails_cleanly(root, "template 'mini/card' (templates/mini/card.json) is a link to a file outside")


def test_template_names_cannot_leave_the_templates_folder(root: Path) -> None:
    game = root / "card_data" / "mini" / "game.json"
    text = game.read_text()
    for bad in ("../card_data/mini/deck", "mini/../../x", "/etc/passwd", "mini/card/../../x"):
        game.write_text(text.replace('"template": "mini/card"', f'"template": {json.dumps(bad)}'))
        fails_cleanly(root, f'$.components[0].template: invalid value {json.dumps(bad)}')


# -- images --------------------------------------------------------------------------------------

def test_image_in_a_linked_folder_outside(root: Path) -> None:
    Image.new("RGB", (4, 4)).save(outside(root) / "sun.png")
    os.symlink(outside(root), root / "card_data" / "mini" / "art")
    add_image(root, "art/sun.png")
    fails_cleanly(root, "image 'art/sun.png' is outside the game folder")


@pytest.mark.parametrize("src", ["../../outside/sun.png", "../deck.json/../../../outside/sun.png",
                                 "{name}/../../../../outside/sun.png"])
def test_image_paths_that_climb_out(root: Path, src: str) -> None:
    Image.new("RGB", (4, 4)).save(outside(root) / "sun.png")
    add_image(root, src)
    fails_cleanly(root, "is outside the game folder")


def test_image_inside_the_game_folder_is_fine(root: Path) -> None:
    (root / "card_data" / "mini" / "art").mkdir()
    Image.new("RGB", (4, 4)).save(root / "card_data" / "mini" / "art" / "sun.png")
    add_image(root, "art/sun.png")
    r = run_cli("build", "--data", root, "mini", "--out", root.parent / "out")
    assert r.exit_code == 0, r.stderr


# -- fonts ---------------------------------------------------------------------------------------

def test_font_linked_from_outside_the_fonts_folder(root: Path) -> None:
    """A perfectly good TrueType file, but reached through a link that leaves ``fonts/``."""
    (root / "fonts").mkdir()
    os.symlink(bundled_root() / "fonts" / "Lato-Regular.ttf", root / "fonts" / "Linked-Regular.ttf")
    use_font(root, "Linked-Regular")
    line = fails_cleanly(root, "font 'Linked-Regular'")
    assert "is a link to a file outside its fonts folder" in line
    assert line.endswith("; copy the .ttf into the fonts folder instead of linking to it")


def test_font_linked_to_a_system_file(root: Path) -> None:
    (root / "fonts").mkdir()
    os.symlink("/etc/passwd", root / "fonts" / "Lato-Bold.ttf")
    fails_cleanly(root, "font 'Lato-Bold'")


# -- output --------------------------------------------------------------------------------------

@pytest.mark.parametrize("gid", ["../escape", "..", "/tmp/x", "a/b", "mini/../../escape", "Mini", "-mini", "mini\n"])
def test_game_ids_with_path_characters_are_refused(root: Path, gid: str) -> None:
    before = tree(root.parent)
    for args in (("check", "--", gid), ("build", "--out", root.parent / "out", "--", gid), ("list",)):
        r = run_cli(args[0], "--data", root, *args[1:])
        assert_no_traceback(r)
        if args[0] != "list":
            assert r.exit_code == 2
            assert f"invalid game id {gid!r}" in r.stderr
            assert "(expected lowercase letters, digits and hyphens, no path characters)" in r.stderr
    assert tree(root.parent) == before


def test_a_game_folder_with_a_bad_name_is_not_listed_but_named_as_a_problem(root: Path) -> None:
    """Not a game id, so never a game (nor an output folder); but no longer passed over without a
    word (issue 19): listing every game says what is wrong with it (test_bad_inputs has the rest)."""
    shutil.copytree(root / "card_data" / "mini", root / "card_data" / "Bad Name")
    r = run_cli("list", "--data", root)
    assert r.exit_code == 2
    assert_no_traceback(r)
    assert "Bad Name" not in r.stdout
    assert "folder name 'Bad Name' is not a valid game id" in r.stderr
    assert "rename the folder to 'bad-name'" in r.stderr


@pytest.mark.parametrize("cid", ["../../escape", "/tmp/escape", "deck/../../x", ".hidden", "a b", "DECK"])
def test_component_ids_cannot_escape_the_output_folder(root: Path, cid: str) -> None:
    game = root / "card_data" / "mini" / "game.json"
    text = game.read_text()
    game.write_text(text.replace('"id": "deck"', f'"id": {json.dumps(cid)}'))
    (root / "card_data" / "mini" / "deck.json").write_text(
        (root / "card_data" / "mini" / "deck.json").read_text().replace('"component": "deck"',
                                                                         f'"component": {json.dumps(cid)}'))
    fails_cleanly(root, "$.components[0].id: invalid value")


def test_a_build_writes_only_under_out(root: Path) -> None:
    """Everything a good build creates or changes lies under --out; the data root is untouched."""
    scratch = root.parent
    before = tree(scratch)
    out = scratch / "prints"
    r = run_cli("build", "--data", root, "mini", "--out", out)
    assert r.exit_code == 0, r.stderr
    after = tree(scratch)
    changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
    assert changed and all(k.startswith("prints/mini/") for k in changed), changed
    assert all(k.endswith(".pdf") or k == "prints/mini/.pnp-build.json" for k in changed)


# -- every file a build opens --------------------------------------------------------------------

_OPENED: list[str] | None = None


def _audit(event: str, args: tuple) -> None:
    if _OPENED is not None and event == "open" and isinstance(args[0], str | bytes | os.PathLike):
        _OPENED.append(os.fsdecode(args[0]))


_hook_added = False


@contextmanager
def files_opened() -> Iterator[list[str]]:
    """The paths opened (by open(), io.open, os.open...) inside the block, via an audit hook."""
    global _OPENED, _hook_added
    if not _hook_added:
        sys.addaudithook(_audit)  # cannot be removed: it records only while _OPENED is a list
        _hook_added = True
    _OPENED = []
    try:
        yield _OPENED
    finally:
        _OPENED = None


def test_a_build_reads_only_the_game_templates_and_fonts(tmp_path: Path) -> None:
    """Build golems (every kind of piece, shared icons) and mini (its own templates, an image):
    apart from Python and its libraries, every file opened lies inside the game folder, a
    templates folder, a fonts folder, pnp's own schemas, or the output folder."""
    root = tmp_path / "root"
    shutil.copytree(TEST_DATA / "mini", root)
    shutil.copytree(REPO / "card_data" / "golems", root / "card_data" / "golems")
    (root / "card_data" / "mini" / "art").mkdir()
    Image.new("RGB", (4, 4)).save(root / "card_data" / "mini" / "art" / "sun.png")
    add_image(root, "art/sun.png")
    out = tmp_path / "out"
    with files_opened() as opened:
        r = run_cli("build", "--data", root, "mini", "golems", "--out", out)
    assert r.exit_code == 0, r.stderr
    allowed = [root / "card_data" / "mini", root / "card_data" / "golems", root / "templates",
               bundled_root() / "templates", bundled_root() / "fonts", REPO / "pnp",
               out]
    libraries = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    ignored = ("/dev/", "/proc/", "/sys/", "/etc/localtime", "/usr/share/zoneinfo")
    # reportlab, when a build imports it first, looks for its own settings files in the home
    # folder (~/.reportlab_settings, ~/.reportlab_mods): the library's doing, not a data read
    library_settings = (".reportlab_settings", ".reportlab_mods")
    bad = []
    for p in opened:
        if p.startswith(ignored) or p in ("", ".") or Path(p).name in library_settings:
            continue
        real = Path(p).resolve()
        if any(real.is_relative_to(a.resolve()) for a in allowed) or any(real.is_relative_to(lib) for lib in libraries):
            continue
        if real == out.parent.resolve() and real.is_dir():  # the output lock (pnp.pipeline.guard): a folder,
            continue  # opened for flock while `out` does not exist yet, never read
        if "site-packages" in real.parts or "dist-packages" in real.parts:
            continue
        bad.append(p)
    assert opened, "the audit hook saw no file at all"
    assert any(str(root / "card_data" / "mini" / "art" / "sun.png") in p for p in opened)
    assert not bad, bad


# -- atomicity: a build killed midway ------------------------------------------------------------

# Runs `pnp build` with every fsync slowed down, so that a kill can be timed to land while a PDF's
# temporary file is complete on disk but not yet renamed into place: the moment that matters.
SLOW_FSYNC = """
import os, sys, time
_fsync, _replace = os.fsync, os.replace
def slow_fsync(fd):
    time.sleep(0.4)
    _fsync(fd)
def slow_replace(src, dst):
    time.sleep(0.3)
    _replace(src, dst)
os.fsync, os.replace = slow_fsync, slow_replace
from pnp.cli import main
main(sys.argv[1:], prog_name="pnp")
"""
# A game's files are all staged (written, fsynced) before the first is renamed into place
# (pnp.render.write.write_all), so the moment that matters, some PDFs renamed and the others still
# waiting as complete temporary files, lasts only as long as the renames: they are slowed too.


def _pdf_ok(data: bytes) -> bool:
    from io import BytesIO

    from pypdf import PdfReader

    return data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF") and len(PdfReader(BytesIO(data)).pages) > 0


@pytest.mark.slow
@pytest.mark.parametrize("timing", ["inside-a-write", "after-the-first-pdf"])
def test_a_killed_build_leaves_each_pdf_old_or_complete(tmp_path: Path, timing: str) -> None:
    """Build golems over the output of an earlier (A4) build, SIGKILL it partway: every PDF is the
    earlier one byte for byte or the complete new one (the same bytes as an uninterrupted build),
    and no temporary file is visible as a PDF."""
    import signal
    import subprocess
    import time

    root = tmp_path / "root"
    shutil.copytree(REPO / "card_data" / "golems", root / "card_data" / "golems")
    out, ref = tmp_path / "out", tmp_path / "reference"
    assert run_cli("build", "--data", root, "golems", "--out", out, "--paper", "a4").exit_code == 0
    assert run_cli("build", "--data", root, "golems", "--out", ref).exit_code == 0
    previous, new = tree(out / "golems"), tree(ref / "golems")
    for t in (previous, new):  # the build record is checked below: it must never vouch for a wrong file
        t.pop(".pnp-build.json")
    assert set(previous) == set(new) and len(new) >= 3
    differ = {k for k in new if new[k] != previous[k]}
    assert len(differ) >= 3, "the two builds must differ to tell old from new"
    inodes = {k: (out / "golems" / k).stat().st_ino for k in previous}

    args = ["build", "--data", str(root), "golems", "--out", str(out)]
    cmd = [sys.executable, "-c", SLOW_FSYNC, *args] if timing == "inside-a-write" else \
        [sys.executable, "-m", "pnp", *args]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    folder = out / "golems"
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            replaced = [k for k in inodes if (folder / k).exists() and (folder / k).stat().st_ino != inodes[k]]
            temps = [p for p in folder.iterdir() if p.name.endswith(".tmp")]
            if replaced and (temps or timing == "after-the-first-pdf"):
                break
            time.sleep(0.002)
    finally:
        proc.send_signal(signal.SIGKILL)
        _, err = proc.communicate(timeout=30)
    if timing == "inside-a-write":
        assert proc.returncode == -signal.SIGKILL, err.decode()
    else:
        assert proc.returncode in (0, -signal.SIGKILL), err.decode()

    after = tree(folder)
    visible = {k: v for k, v in after.items() if not k.startswith(".")}
    hidden = sorted(k for k in after if k.startswith("."))
    assert set(visible) == set(previous), "a PDF appeared or vanished"
    # a PDF's or the record's temporary file (the record is staged with the PDFs), or the record
    assert all((k.endswith(".tmp") and (".pdf." in k or k.startswith("..pnp-build.json."))) or k == ".pnp-build.json"
               for k in hidden), hidden
    if ".pnp-build.json" in after:  # a build record left by a kill still tells the truth
        from pnp.pipeline import incremental

        record = incremental.load(folder)
        assert record is not None and record.intact(folder)
    kept = {k for k in visible if visible[k] == previous[k]}
    renewed = {k for k in visible if visible[k] == new[k]}
    assert kept | renewed == set(visible), f"neither old nor new: {set(visible) - kept - renewed}"
    assert renewed & differ, "the kill came before the first new PDF"
    for k, data in visible.items():
        assert _pdf_ok(data), k
    if timing == "inside-a-write":
        assert kept & differ, "the kill came after the last PDF"
        assert hidden, "the kill should have caught a temporary file before its rename"
    # and the next build completes the job
    assert run_cli("build", "--data", root, "golems", "--out", out).exit_code == 0
    assert {k: v for k, v in tree(folder).items() if not k.startswith(".")} == new


def test_a_build_clears_what_a_killed_build_left_half_written(tmp_path: Path) -> None:
    """Temporary files of the files a build writes (``.<name>.<random>.tmp``), left by a build
    killed before renaming them, are removed by the next build once they are old; a fresh one
    (a build writing now) and anything else stay."""
    import time

    from pnp.render.write import STALE_AFTER

    out = tmp_path / "out"
    assert run_cli("build", "--data", TEST_DATA / "mini", "mini", "--out", out).exit_code == 0
    folder = out / "mini"
    old = time.time() - STALE_AFTER - 60
    stale = [folder / ".deck.pdf.k3j9x_2a.tmp", folder / ".mini-contents.pdf.zz99aa11.tmp",
             folder / "..pnp-build.json.q1w2e3r4.tmp"]  # (the record is a dot file)
    fresh = folder / ".deck.pdf.abcdefgh.tmp"
    other = [folder / ".notes.txt.abcdefgh.tmp", folder / "deck.pdf.abcdefgh.tmp", folder / ".deck.pdf.short.tmp"]
    for p in stale + [fresh] + other:
        p.write_bytes(b"%PDF-1.4 half")
    for p in stale + other:
        os.utime(p, (old, old))
    r = run_cli("build", "--data", TEST_DATA / "mini", "mini", "--out", out, "--force")
    assert r.exit_code == 0, r.stderr
    assert [p.name for p in stale if p.exists()] == []
    assert fresh.exists() and all(p.exists() for p in other)


# -- things that are not regular files -----------------------------------------------------------

@pytest.mark.parametrize("what", ["data-pipe", "data-folder", "font-pipe", "font-folder"])
def test_pipes_and_folders_in_place_of_files(root: Path, what: str) -> None:
    """A named pipe would block a read forever: it is refused like a folder, quickly."""
    import subprocess

    if what.startswith("data"):
        target, fragment = root / "card_data" / "mini" / "deck.json", "card_data/mini/deck.json: $: not a regular file"
        target.unlink()
    else:
        (root / "fonts").mkdir()
        target = root / "fonts" / "Lato-Bold.ttf"
        fragment = "fonts/Lato-Bold.ttf) is not a regular file"
    if what.endswith("pipe"):
        os.mkfifo(target)
    else:
        target.mkdir()
    r = subprocess.run([sys.executable, "-m", "pnp", "check", "--data", str(root), "mini"], capture_output=True,
                       text=True, timeout=60, cwd=root.parent)
    assert r.returncode == 2, r.stderr
    assert fragment in r.stderr
    assert "Traceback" not in r.stderr
