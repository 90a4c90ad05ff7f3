"""Issue 19, what the fourth attack found in the pipeline (/work/notes/attack.md): a worker killed
with kill -9 hung the build (F7), each worker decoded the game's images again (F3), a tampered
build record's numbers were printed as fact (F9), and the record named files from the working
folder or by absolute path (F2)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from conftest import BAD_INPUTS, TEST_DATA, assert_no_traceback, built_from_anywhere, run_cli, tree

from pnp.pipeline import incremental
from pnp.products import workers


def _png(path: Path, w: int, h: int) -> None:
    """An RGBA PNG of w x h transparent pixels: a few KB on disk, 4 w h bytes decoded."""
    def chunk(t: bytes, d: bytes) -> bytes:
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)

    comp = zlib.compressobj(9)
    row = b"\0" * (4 * w + 1)
    idat = b"".join(comp.compress(row) for _ in range(h)) + comp.flush()
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0))
                     + chunk(b"IDAT", idat) + chunk(b"IEND", b""))


def _mini(root: Path, side: int = 40, decks: int = 1) -> Path:
    """tests/data/mini with an image on every card (``side`` px square) and ``decks`` decks."""
    shutil.copytree(TEST_DATA / "mini", root)
    shutil.copytree(BAD_INPUTS / "image-missing", root, dirs_exist_ok=True)
    (root / "card_data" / "mini" / "art").mkdir()
    _png(root / "card_data" / "mini" / "art" / "sun.png", side, side)
    game = root / "card_data" / "mini" / "game.json"
    d = json.loads(game.read_text())
    d["components"] += [{**d["components"][0], "id": f"deck{i}", "data": f"deck{i}.json"} for i in range(2, decks + 1)]
    game.write_text(json.dumps(d, indent=1))
    data = root / "card_data" / "mini" / "deck.json"
    for i in range(2, decks + 1):
        (data.parent / f"deck{i}.json").write_text(data.read_text().replace('"deck"', f'"deck{i}"', 1))
    return root


# -- F7: a dead worker stops the build ---------------------------------------------------------

_KILL_A_WORKER = """
import os, signal, sys, time
import pnp.products.workers as w
w.RENDER_MEMORY_BUDGET = {budget}
import pnp.pipeline.build as b
real = b._render_task
def render(i):
    if {when}:
        {what}
    return real(i)
b._render_task = render
from pnp.cli import run
sys.argv[0] = "pnp"
run()
"""


def _script(when: str, what: str, budget: int = workers.RENDER_MEMORY_BUDGET) -> str:
    return _KILL_A_WORKER.format(when=when, what=what, budget=budget)


def _run(script: str, args: list[str], cwd: Path, interrupt_after: Path | None = None,
         sig: int = signal.SIGINT) -> tuple[int, str]:
    """pnp in a process of its own (its own session, so a hang is ended with its workers)."""
    proc = subprocess.Popen([sys.executable, "-c", script, *args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        if interrupt_after is not None:  # ``sig`` once a worker has started rendering
            for _ in range(6000):
                if interrupt_after.exists() or proc.poll() is not None:
                    break
                subprocess.run(["sleep", "0.01"], check=False)
            proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)  # a guard against the hang, not a timing
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail("pnp hung")
    return proc.returncode, err.decode()


def test_a_worker_killed_with_kill_9_stops_the_build_with_exit_3_and_old_files_intact(tmp_path: Path) -> None:
    """multiprocessing.Pool replaced the dead worker and waited forever for its task."""
    out = tmp_path / "out"
    assert run_cli("build", "golems", "--out", out, "--jobs", "1", cwd=tmp_path).exit_code == 0
    before = tree(out)
    script = _script(when="i == 0", what="os.kill(os.getpid(), signal.SIGKILL)")
    code, err = _run(script, ["build", "golems", "--out", str(out), "--jobs", "3", "--force"], tmp_path)
    assert code == 3, err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("pnp: a worker process died (killed by signal 9 (SIGKILL))"), err
    assert tree(out) == before  # nothing written, no temporary file left, the record as it was


@pytest.mark.parametrize(("sig", "code", "said"), [(signal.SIGINT, 130, "interrupted"),
                                                  (signal.SIGTERM, 143, "terminated")])
def test_ctrl_c_while_workers_render_exits_130_at_once(tmp_path: Path, sig: int, code: int, said: str) -> None:
    """SIGINT while every worker is busy: the parent ends them and exits 130, old files as they were.
    SIGTERM (a `kill`, `timeout`) alike with exit 143: it killed pnp at once (attack 6, borderline),
    leaving its temporary files."""
    out = tmp_path / "out"
    assert run_cli("build", "golems", "--out", out, "--jobs", "1", cwd=tmp_path).exit_code == 0
    before = tree(out)
    started = tmp_path / "started"
    script = _script(when="True", what=f"open({str(started)!r}, 'a').close(); time.sleep(600)")
    got, err = _run(script, ["build", "golems", "--out", str(out), "--jobs", "2", "--force"], tmp_path,
                    interrupt_after=started, sig=sig)
    assert started.exists()
    assert got == code, err
    assert err.strip().splitlines()[-1] == f"pnp: {said}; nothing more was written"
    assert tree(out) == before


def test_run_pool_names_how_the_worker_died() -> None:
    with pytest.raises(workers.WorkerDied, match=r"killed by signal 9 \(SIGKILL\)"):
        list(workers.run_pool(2, _die_on_one, [0, 1, 2, 3]))
    assert list(workers.run_pool(2, abs, [-1, -2, -3], ordered=True)) == [1, 2, 3]


def _die_on_one(i: int) -> int:
    if i == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    return i


# -- F3: the workers together hold the image budget ---------------------------------------------

def test_the_games_image_budget_leaves_one_worker(tmp_path: Path) -> None:
    """The attack's image (5,792 x 5,792 RGBA, 134 MB decoded, 130 KB on disk) and one of 4,000 x
    4,000: within the game's budget, 540 MB in one process, and each worker decoded them again
    (1.9 GB at the default -j on 2 cores, 4 GB at -j 4). Counted from the headers: one worker."""
    game = tmp_path / "g"
    (game / "art").mkdir(parents=True)
    _png(game / "art" / "scout.png", 5792, 5792)
    _png(game / "art" / "trader.png", 4000, 4000)
    (game / "notes.txt").write_text("not an image")
    os.symlink(game / "art" / "scout.png", game / "link.png")  # not followed: the layout refuses links
    assert workers.decoded_image_bytes(game) == 4 * (5792 * 5792 + 4000 * 4000)
    assert workers.image_jobs(8, [game]) == 1
    assert workers.image_jobs(8, [tmp_path / "nothing"]) == 8


def test_a_png_of_16_bits_a_channel_counts_its_decoded_size(tmp_path: Path) -> None:
    """Attack 7, F8: a 4,096 x 4,096 RGBA PNG of 16 bits a channel (202 KB) peaked at 329 MB in
    one process, but counted as 67 MB (4 bytes a pixel), so --jobs 8 ran 5 workers and 1.3 GB
    together. Pillow decodes its 8 bytes a pixel: counted so, it leaves 2 (~600 MB measured)."""
    import struct
    import zlib

    game = tmp_path / "g"
    game.mkdir()

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    w = h = 4096
    row = b"\x00" + b"\x9c\x40\x00\x00\x00\x00\xff\xff" * w
    z = zlib.compressobj(9)
    data = b"".join(z.compress(row) for _ in range(h)) + z.flush()
    (game / "deep.png").write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 16, 6, 0, 0, 0))
                                    + chunk(b"IDAT", data) + chunk(b"IEND", b""))
    assert workers.decoded_image_bytes(game) == 8 * w * h
    assert workers.image_jobs(8, [game]) == 2
    _png(game / "flat.png", 100, 100)  # 8 bits a channel: 4 bytes a pixel, as before
    assert workers.decoded_image_bytes(game) == 8 * w * h + 4 * 100 * 100


def test_an_image_heavy_game_renders_in_one_process_whatever_jobs(tmp_path: Path) -> None:
    """Each worker decoded the game's images again, so -j 4 held four copies; now the workers are
    as many as RENDER_MEMORY_BUDGET allows (here lowered so that a 2,000 px image leaves one)."""
    root = _mini(tmp_path / "r", side=2000, decks=3)
    budget = 60_000_000  # 16 MB decoded, x IMAGE_MEMORY_FACTOR: one worker
    assert workers.decoded_image_bytes(root / "card_data" / "mini") == 4 * 2000 * 2000
    pids = tmp_path / "pids"
    script = _script(when="True", what=f"open({str(pids)!r}, 'a').write(f'{{os.getpid()}}\\n')", budget=budget)
    code, err = _run(script, ["build", "--data", str(root), "mini", "--out", str(tmp_path / "out"), "--jobs", "4"],
                     tmp_path)
    assert code == 0, err
    assert len(pids.read_text().split()) == 3 and len(set(pids.read_text().split())) == 1


def test_a_game_with_small_images_keeps_its_workers(tmp_path: Path) -> None:
    root = _mini(tmp_path / "r", side=400, decks=3)
    pids = tmp_path / "pids"
    # each task waits (20 s at most) until two processes have started one: one process fails
    wait = (f"open({str(pids)!r}, 'a').write(f'{{os.getpid()}}\\n')\n"
            f"        t = time.monotonic()\n"
            f"        while len(set(open({str(pids)!r}).read().split())) < 2 and time.monotonic() - t < 20:\n"
            f"            time.sleep(0.01)")
    script = _script(when="True", what=wait, budget=60_000_000)
    code, err = _run(script, ["build", "--data", str(root), "mini", "--out", str(tmp_path / "out"), "--jobs", "3"],
                     tmp_path)
    assert code == 0, err
    assert len(set(pids.read_text().split())) > 1  # rendered in several workers


# -- F9: a tampered record's numbers are not printed as fact ------------------------------------

@pytest.mark.parametrize("how", ["pages", "grid", "resealed-pages", "resealed-bytes"])
def test_a_record_whose_numbers_were_edited_is_not_trusted(how: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run_cli("build", "--data", TEST_DATA / "mini", "mini", "--out", out).exit_code == 0
    path = out / "mini" / incremental.CACHE_NAME
    d = json.loads(path.read_text())
    deck = d["components"]["deck"]
    grid = deck["grid"]
    if how == "pages":  # the attacker's sed: the seal no longer matches
        deck["pages"] = 999999999
    elif how == "grid":
        deck["grid"] = "9x9"
    elif how == "resealed-pages":  # sealed again: the figures still disagree
        deck["pages"] = 999999999
        d["seal"] = incremental.seal(d)
    else:  # sealed again, the preflight figures edited too: the file on disk disagrees
        deck["bytes"] = deck["preflight"]["bytes"] = 999999999
        d["seal"] = incremental.seal(d)
    path.write_text(json.dumps(d))
    r = run_cli("build", "-v", "--data", TEST_DATA / "mini", "mini", "--out", out)
    assert r.exit_code == 0, r.output
    assert_no_traceback(r)
    assert "up to date" not in r.stdout and "999999999" not in r.stdout and "9x9" not in r.stdout, r.stdout
    again = json.loads(path.read_text())["components"]["deck"]
    assert (again["pages"], again["grid"], again["bytes"]) == (2, grid, (out / "mini" / "deck.pdf").stat().st_size)
    assert again["pages"] == deck_pages(out / "mini" / "deck.pdf")


def deck_pages(pdf: Path) -> int:
    from pypdf import PdfReader

    return len(PdfReader(pdf).pages)


def test_an_untouched_record_is_still_trusted(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run_cli("build", "--data", TEST_DATA / "mini", "mini", "--out", out).exit_code == 0
    r = run_cli("build", "--data", TEST_DATA / "mini", "mini", "--out", out)
    assert r.exit_code == 0 and "up to date" in r.stdout, r.output


# -- F2: the record is the same bytes wherever the data root lies and whatever the working folder

def test_the_output_folder_is_the_same_bytes_from_two_locations_and_working_folders(tmp_path: Path) -> None:
    """The record named template files relative to the working folder, or by absolute path:
    now relative to the data root. Built from the root, from a folder outside it, from inside
    card_data, then with the root moved elsewhere: every byte of the output folder the same. The
    image at 40 px gives a warning naming its template, kept in the record."""
    trees = built_from_anywhere(_mini(tmp_path / "a" / "root"), tmp_path)
    record = json.loads(trees[0]["mini/.pnp-build.json"])
    assert record["components"]["deck"]["warnings"][0]["file"] == "templates/mini/card.json"
    for t in trees[1:]:
        assert t.keys() == trees[0].keys()
        for name in t:
            assert t[name] == trees[0][name], name


def test_the_record_shows_its_files_from_the_working_folder(tmp_path: Path) -> None:
    """Stored relative to the data root, a warning an up-to-date build prints again names its file
    as a fresh build does: from the working folder."""
    root = _mini(tmp_path / "root")
    out = tmp_path / "out"
    first = run_cli("build", "mini", "--out", out, cwd=root)
    assert first.exit_code == 0
    assert "warning: templates/mini/card.json:" in first.stderr, first.stderr
    again = run_cli("build", "--data", root, "mini", "--out", out, cwd=tmp_path)
    assert "up to date" in again.stdout, again.output
    assert "warning: root/templates/mini/card.json:" in again.stderr, again.stderr
