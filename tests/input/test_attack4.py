"""Issue 19, the independent attack (/work/notes/attack.md): the findings about input files.

- F1: run from ``/``, every path in messages and in the build record lost its first two characters.
- F4: the game's document (``rules.md``) was read through a link out of the data root, or by a
  name climbing out of the game folder; its "quotes found" count told what the file holds.
- F5: a game folder that is a link to a folder outside the data root was accepted.
- F6: a template that is a named pipe was reported as "not found ... did you mean" itself.
- F8: a PNG whose complete zlib stream holds 100 of its 3000 rows passed check and build.
- F10: games named ``preview`` and ``schemas`` shared out/preview/ and out/schemas/ with the
  `pnp preview` and `pnp schema` commands.

The catalogue in tests/bad_inputs covers each once more, as check and build see it; these tests
add the variants (links that stay inside, PNP_DOCUMENTS, other PNG layouts, ``pnp new``)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from conftest import TEST_DATA, assert_no_traceback, run_cli
from PIL import Image

from pnp.input.project import RESERVED_GAME_IDS, shown_path
from pnp.layout.shapes import image_size, png_data_short

QUOTES = "The deck has 5 cards. Every card is different.\n"  # the two quotes of mini's rules


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of tests/data/mini, worked on from inside it; ``outside`` beside it."""
    r = tmp_path / "root"
    shutil.copytree(TEST_DATA / "mini", r)
    (tmp_path / "outside").mkdir()
    monkeypatch.chdir(r)
    monkeypatch.delenv("PNP_DOCUMENTS", raising=False)
    return r


def refused(root: Path, fragment: str, game: str = "mini") -> str:
    """check and build exit 2 with ``fragment`` in the first message line; build writes nothing."""
    out = root.parent / "out"
    for args in (("check", game), ("build", game, "--out", out)):
        r = run_cli(args[0], "--data", root, *args[1:])
        assert r.exit_code == 2, (args, r.exit_code, r.stdout, r.stderr)
        assert_no_traceback(r)
        assert fragment in r.stderr, r.stderr
    assert not out.exists()
    return r.stderr


# -- F1: the working folder is the root of the file system ----------------------------------------

def test_shown_path_from_the_root_keeps_every_character(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir("/")
    assert shown_path("/work/attack/repro") == "/work/attack/repro"
    assert shown_path(Path("/tmp/x.json")) == "/tmp/x.json"
    assert shown_path("/") == "."


def test_shown_path_elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "ab").mkdir()
    (tmp_path / "abc").mkdir()
    monkeypatch.chdir(tmp_path / "ab")
    assert shown_path(tmp_path / "ab" / "card_data" / "x.json") == "card_data/x.json"
    assert shown_path(tmp_path / "abc" / "x.json") == str(tmp_path / "abc" / "x.json")  # a sibling, not inside
    assert shown_path(tmp_path / "ab") == "."


def test_messages_and_the_build_record_from_the_root(root: Path) -> None:
    deck = root / "card_data" / "mini" / "deck.json"
    good = deck.read_text()
    deck.write_text(good.replace('"copies": 2', '"copies": -1', 1))
    assert '"copies": -1' in deck.read_text()
    r = run_cli("check", "--data", root, "mini", cwd=Path("/"))
    assert r.exit_code == 2
    assert r.stderr.startswith(f"{root}/card_data/mini/deck.json:"), r.stderr
    deck.write_text(good)
    out = root.parent / "out"
    r = run_cli("build", "--data", root, "mini", "--out", out, cwd=Path("/"))
    assert r.exit_code == 0, r.stderr
    record = json.loads((out / "mini" / ".pnp-build.json").read_text())
    smallest = record["components"]["deck"]["preflight"]["smallest_text"]
    # kept relative to the data root (whole, not cut by the length of "/"), shown from the working folder
    assert (smallest["file"], smallest["in_root"]) == ("templates/mini/card.json", True)
    from pnp.input.project import DataRoot
    from pnp.pipeline import incremental

    with contextlib.chdir("/"):
        loaded = incremental.load(out / "mini", DataRoot(root))
    assert loaded is not None
    assert loaded.components["deck"].preflight["smallest_text"]["file"] == f"{root}/templates/mini/card.json"


# -- F4: the game's document ----------------------------------------------------------------------

@pytest.mark.parametrize("target", ["outside", "/etc/passwd"])
def test_document_linked_out_of_the_root_is_not_read(root: Path, target: str) -> None:
    secret = root.parent / "outside" / "secret.txt"
    secret.write_text(QUOTES)
    os.symlink(secret if target == "outside" else target, root / "card_data" / "mini" / "mini.txt")
    err = refused(root, "card_data/mini/game.json:5:24: $.document.file: document 'mini.txt' "
                  "(card_data/mini/mini.txt) is a link to a file outside the game folder")
    assert "quotes found" not in err


@pytest.mark.parametrize("name", ["../../../outside/secret.txt", "/etc/passwd", "../deck.json",
                                  "../../../../../nothing/here.txt"])  # nothing there: still named outside
def test_document_names_that_leave_the_game_folder(root: Path, name: str) -> None:
    (root.parent / "outside" / "secret.txt").write_text(QUOTES)
    (root / "card_data" / "deck.json").write_text(QUOTES)  # in card_data/, beside the game folder
    game = root / "card_data" / "mini" / "game.json"
    game.write_text(game.read_text().replace('"file": "mini.txt"', f'"file": {json.dumps(name)}'))
    refused(root, "names a file outside the game folder")


def test_document_linked_inside_the_game_folder_is_read(root: Path) -> None:
    folder = root / "card_data" / "mini"
    (folder / "docs").mkdir()
    (folder / "docs" / "rules.txt").write_text(QUOTES)
    os.symlink("docs/rules.txt", folder / "mini.txt")
    r = run_cli("check", "--data", root, "mini")
    assert r.exit_code == 0, r.stderr
    assert "document card_data/mini/mini.txt: 2 of 4 quotes found" in r.stdout


def test_document_in_pnp_documents(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A PNP_DOCUMENTS folder is held to the same rule: the file in it, not a link out of it."""
    docs = root.parent / "docs"
    docs.mkdir()
    monkeypatch.setenv("PNP_DOCUMENTS", str(docs))
    (docs / "mini.txt").write_text(QUOTES)
    r = run_cli("check", "--data", root, "mini")
    assert r.exit_code == 0, r.stderr
    assert f"document {docs}/mini.txt: 2 of 4 quotes found" in r.stdout
    (docs / "mini.txt").unlink()
    (root.parent / "outside" / "secret.txt").write_text(QUOTES)
    os.symlink(root.parent / "outside" / "secret.txt", docs / "mini.txt")
    refused(root, f"is a link to a file outside its PNP_DOCUMENTS folder {docs}")


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_document_that_is_not_a_regular_file(root: Path, kind: str) -> None:
    """A named pipe would block the read forever; "not found" would hide what is there."""
    path = root / "card_data" / "mini" / "mini.txt"
    os.mkfifo(path) if kind == "fifo" else path.mkdir()
    r = subprocess.run([sys.executable, "-m", "pnp", "check", "--data", str(root), "mini"], capture_output=True,
                       text=True, timeout=60, cwd=root)
    assert r.returncode == 2, r.stderr
    what = "a named pipe (FIFO)" if kind == "fifo" else "a folder"
    assert f"document 'mini.txt' (card_data/mini/mini.txt) is not a regular file: it is {what}" in r.stderr
    assert "Traceback" not in r.stderr


# -- F5: game, templates and fonts folders linked out of the root -----------------------------------

@pytest.mark.parametrize("rel", ["card_data/mini", "card_data", "templates"])
def test_folders_linked_out_of_the_root_are_refused(root: Path, rel: str) -> None:
    away = root.parent / "outside" / Path(rel).name
    shutil.move(root / rel, away)
    os.symlink(away, root / rel)
    what = "templates folder" if rel == "templates" else "game folder"
    shown = "templates" if rel == "templates" else "card_data/mini"
    how = "lies behind a link, in a folder" if rel == "card_data" else "is a link to a folder"
    real = away / "mini" if rel == "card_data" else away
    refused(root, f"{shown}: $: the {what} {how} outside the data root ({real})")


def test_fonts_folder_linked_out_of_the_root_is_refused(root: Path) -> None:
    (root.parent / "outside" / "fonts").mkdir()
    os.symlink(root.parent / "outside" / "fonts", root / "fonts")
    refused(root, "fonts: $: the fonts folder is a link to a folder outside the data root")


def test_a_game_folder_linked_inside_the_root_is_fine(root: Path) -> None:
    (root / "games").mkdir()
    shutil.move(root / "card_data" / "mini", root / "games" / "mini")
    os.symlink("../games/mini", root / "card_data" / "mini")
    r = run_cli("build", "--data", root, "mini", "--out", root.parent / "out")
    assert r.exit_code == 0, r.stderr
    assert (root.parent / "out" / "mini" / "deck.pdf").is_file()


# -- F6: templates that are not regular files ------------------------------------------------------

@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_template_that_is_not_a_regular_file(root: Path, kind: str) -> None:
    card = root / "templates" / "mini" / "card.json"
    card.unlink()
    os.mkfifo(card) if kind == "fifo" else card.mkdir()
    what = "a named pipe (FIFO)" if kind == "fifo" else "a folder"
    err = refused(root, f"template 'mini/card' (templates/mini/card.json) is not a regular file: it is {what}")
    assert "not found" not in err and "did you mean" not in err


# -- F8: PNG data that ends early -------------------------------------------------------------------

def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _png(w: int, h: int, raw: bytes, depth: int = 8, colour: int = 6, interlace: int = 0,
         idat_parts: int = 1) -> bytes:
    """A PNG with valid CRCs whose zlib stream (complete) holds ``raw``, split over IDAT chunks."""
    z = zlib.compress(raw)
    step = -(-len(z) // idat_parts)
    idats = b"".join(_chunk(b"IDAT", z[i:i + step]) for i in range(0, len(z), step))
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, colour, 0, 0, interlace))
            + idats + _chunk(b"IEND", b""))


def test_the_attack_png_is_refused(tmp_path: Path) -> None:
    """4000 x 3000 RGBA, 100 rows in the stream: Pillow loads it without a word."""
    path = tmp_path / "scout.png"
    path.write_bytes(_png(4000, 3000, (b"\x00" + b"\x80" * 16000) * 100, idat_parts=3))
    with Image.open(path) as im:
        im.load()  # what made it pass: the missing rows become transparent black
    assert png_data_short(str(path)) == "its image data ends after row 100 of 3000"
    with pytest.raises(ValueError, match="is corrupt: its image data ends after row 100 of 3000"):
        image_size(str(path))


@pytest.mark.parametrize("mode", ["1", "L", "P", "RGB", "RGBA", "LA", "I;16"])
def test_complete_pngs_are_complete(tmp_path: Path, mode: str) -> None:
    """Every colour type and depth Pillow writes (1 to 16 bits, odd widths) counts as whole."""
    path = tmp_path / "ok.png"
    Image.effect_noise((37, 23), 60).convert(mode).save(path)
    assert png_data_short(str(path)) is None
    assert image_size(str(path)) == (37, 23)


@pytest.mark.parametrize("size", [(1, 1), (3, 2), (9, 9), (37, 23)])
def test_complete_interlaced_pngs_are_complete(tmp_path: Path, size: tuple[int, int]) -> None:
    """Adam7: 7 passes, the empty ones without rows; the bytes counted per pass."""
    w, h = size
    raw = b""
    for x0, y0, dx, dy in ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
                           (0, 1, 1, 2)):
        pw, ph = len(range(x0, w, dx)), len(range(y0, h, dy))
        if pw and ph:
            raw += (b"\x00" + b"\x7f" * 3 * pw) * ph
    path = tmp_path / "adam7.png"
    path.write_bytes(_png(w, h, raw, colour=2, interlace=1))
    assert png_data_short(str(path)) is None
    with Image.open(path) as im:
        im.load()
        assert im.getpixel((w - 1, h - 1)) == (127, 127, 127)
    path.write_bytes(_png(w, h, raw[:-1], colour=2, interlace=1))
    short = png_data_short(str(path))
    assert short is not None and f"holds {len(raw) - 1} of the {len(raw)} bytes" in short


def test_a_truncated_jpeg_is_still_refused(tmp_path: Path) -> None:
    buf = io.BytesIO()
    Image.effect_noise((300, 200), 60).convert("RGB").save(buf, "JPEG")
    path = tmp_path / "cut.jpg"
    path.write_bytes(buf.getvalue()[: len(buf.getvalue()) // 2])
    with pytest.raises(ValueError, match="cannot be decoded"):
        image_size(str(path))


# -- F10: game ids that share another command's output folder -----------------------------------

@pytest.mark.parametrize("gid", sorted(RESERVED_GAME_IDS))
def test_reserved_game_ids(root: Path, gid: str) -> None:
    game = root / "card_data" / "mini"
    (game / "game.json").write_text((game / "game.json").read_text().replace('"id": "mini"', f'"id": "{gid}"'))
    game.rename(root / "card_data" / gid)
    err = refused(root, f"card_data/{gid}: $: game id {gid!r} is reserved: out/{gid}/ is where", game=gid)
    assert f"rename the game's folder and its manifest's id, e.g. to {gid}-game" in err
    r = run_cli("check", "--data", root)  # every game: the reserved one is reported, not skipped
    assert r.exit_code == 2 and f"game id {gid!r} is reserved" in r.stderr


@pytest.mark.parametrize("gid", sorted(RESERVED_GAME_IDS))
def test_pnp_new_refuses_reserved_game_ids(tmp_path: Path, gid: str) -> None:
    r = run_cli("new", gid, "--path", tmp_path / "proj")
    assert r.exit_code == 2, r.stdout + r.stderr
    assert_no_traceback(r)
    assert f"game id {gid!r} is reserved" in r.stderr
    assert f"choose another id, e.g. {gid}-game" in r.stderr  # there is no folder to rename yet
    assert not (tmp_path / "proj" / "card_data" / gid).exists()


# -- the printer profiles' config file (the attack's borderline notes) ------------------------------

def test_a_config_file_that_is_a_named_pipe(tmp_path: Path) -> None:
    """``./pnp.toml`` as a named pipe was "no printer profile 'office'" (and could block the read)."""
    os.mkfifo(tmp_path / "pnp.toml")
    r = subprocess.run([sys.executable, "-m", "pnp", "calibrate", "--printer", "office", "--out", str(tmp_path / "o")],
                       capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert "pnp.toml: $: not a regular file: it is a named pipe (FIFO)" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    assert not (tmp_path / "o").exists()


def test_completion_does_not_block_on_a_named_pipe(root: Path) -> None:
    """Shell completion reads game.json straight (no validation): a named pipe there blocked it."""
    game = root / "card_data" / "mini" / "game.json"
    game.unlink()
    os.mkfifo(game)
    env = {**os.environ, "_PNP_COMPLETE": "bash_complete", "COMP_WORDS": "pnp preview mini d", "COMP_CWORD": "3"}
    r = subprocess.run([sys.executable, "-c", "from pnp.cli import main; main(prog_name='pnp')"],
                       capture_output=True, text=True, timeout=60, cwd=root, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "" and "Traceback" not in r.stderr  # no game.json to read: nothing to offer


def test_an_item_without_an_id_beside_a_null_item_is_an_input_error(tmp_path: Path) -> None:
    """`"items": [{}, null]`: the null failed the file's schema, so the other items were not checked
    against the fields, and `{}` reached the model without an id (KeyError, exit 3; found by the
    JSON mutation fuzz test)."""
    root = tmp_path / "r"
    shutil.copytree(TEST_DATA / "mini", root)
    deck = root / "card_data" / "mini" / "deck.json"
    d = json.loads(deck.read_text())
    d["items"] = [{}, None, *d["items"]]
    deck.write_text(json.dumps(d))
    r = run_cli("check", "--data", root, "mini")
    assert r.exit_code == 2, r.output
    assert_no_traceback(r)
    assert "$.items[0]: missing required field 'id'" in r.stderr and "$.items[1]" in r.stderr, r.stderr
