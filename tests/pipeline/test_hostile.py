"""Hostile input, round two (issue 19), what the build pipeline must hold: the same bytes from
any absolute path of the data root, SOURCE_DATE_EPOCH as reproducible-builds.org defines it, and
a build record that is untrusted input."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import zlib
from pathlib import Path

import pytest
from conftest import BAD_INPUTS, TEST_DATA, assert_no_traceback, run_cli
from PIL import Image


def _mini_with_image(root: Path) -> Path:
    shutil.copytree(TEST_DATA / "mini", root)
    shutil.copytree(BAD_INPUTS / "image-missing", root, dirs_exist_ok=True)
    (root / "card_data" / "mini" / "art").mkdir()
    Image.new("RGBA", (40, 30), (200, 30, 30, 128)).save(root / "card_data" / "mini" / "art" / "sun.png")
    return root


def test_the_same_bytes_from_two_absolute_paths_of_the_data_root(tmp_path: Path) -> None:
    """reportlab names an image XObject by an MD5 of what it is given: the file's path before
    (so the bytes depended on where the data root lay), its pixels now."""
    outs = []
    for where in (tmp_path / "a", tmp_path / "somewhere" / "else" / "b"):
        root = _mini_with_image(where)
        # run in the root, as a designer does (messages, and the warnings the record keeps, name
        # files from the working folder)
        r = run_cli("build", "--data", root, "mini", "--out", where / "out", cwd=root)
        assert r.exit_code == 0, r.stderr
        outs.append(where / "out" / "mini")
    for name in ("deck.pdf", "mini-contents.pdf"):
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes(), name
    pdf = (outs[0] / "deck.pdf").read_bytes()
    # stored once (the image and its alpha mask) though drawn on each of the three items' faces
    assert pdf.count(b"/Subtype /Image") == 2
    streams = [zlib.decompress(m.group(1)) for m in re.finditer(rb"stream\n(.*?)endstream", pdf, re.S)
               if m.group(1)[:1] == b"x"]
    images = {int(n) for n, body in re.findall(rb"(\d+) 0 obj\n<<(.*?)>>", pdf, re.S) if b"/Subtype /Image" in body}
    names = {name for name, n in re.findall(rb"/(FormXob\.[0-9a-f]{32}) (\d+) 0 R", pdf) if int(n) in images}
    assert names  # the image's name (its mask is named by the image, not drawn)
    assert sum(s.count(b"/" + n + b" Do") for s in streams for n in names) >= 3
    # the ppi warning the record keeps names the image relative to the game folder
    rec = [json.loads((o / ".pnp-build.json").read_text()) for o in outs]
    assert rec[0]["components"]["deck"]["warnings"] == rec[1]["components"]["deck"]["warnings"]
    assert "image art/sun.png prints at" in rec[0]["components"]["deck"]["warnings"][0]["message"]


@pytest.mark.parametrize("value", ["abc", "-1", "1.5", " 12", "12 ", "0x10", "99999999999999999999", "１２"])
def test_a_malformed_source_date_epoch_is_exit_2_and_writes_nothing(value: str, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", value)
    r = run_cli("build", "--data", TEST_DATA / "mini", "mini", "--out", tmp_path / "out")
    assert r.exit_code == 2
    assert_no_traceback(r)
    assert "SOURCE_DATE_EPOCH: $: invalid SOURCE_DATE_EPOCH" in r.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("epoch", "pdf_date", "xmp_date"), [
    ("0", "19700101000000", "1970-01-01T00:00:00"),
    ("315532799", "19791231235959", "1979-12-31T23:59:59"),
    ("4354819200", "21080101000000", "2108-01-01T00:00:00"),
    ("253402300799", "99991231235959", "9999-12-31T23:59:59"),
])
def test_the_extremes_of_source_date_epoch_date_every_pdf(epoch: str, pdf_date: str, xmp_date: str, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack 3 F1 (the XLSX export's zip dates ended in 2107): every date a PDF carries, the
    Info dictionary's and (PDF/X, --color cmyk) the XMP metadata's, says any year 1970 to 9999."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch)
    for color in ("rgb", "cmyk"):
        out = tmp_path / color
        r = run_cli("build", "--data", TEST_DATA / "mini", "mini", "--out", out, "--color", color)
        assert r.exit_code == 0, r.stderr
        for name in ("deck.pdf", "mini-contents.pdf"):
            pdf = (out / "mini" / name).read_bytes()
            assert pdf.count(f"/CreationDate (D:{pdf_date}+00'00')".encode()) == 1, (color, name)
            assert pdf.count(f"/ModDate (D:{pdf_date}+00'00')".encode()) == 1, (color, name)
            xmp = re.findall(rb"<xmp:(?:Create|Modify|Metadata)Date>([^<]*)<", pdf)
            assert xmp == ([f"{xmp_date}+00:00".encode()] * 3 if color == "cmyk" else []), (color, name)


def test_source_date_epoch_sets_the_creation_date_and_counts_as_an_option(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    assert run_cli("build", "--data", TEST_DATA / "mini", "mini", "--out", out).exit_code == 0
    assert b"/CreationDate (D:20000101000000+00'00')" in (out / "mini" / "deck.pdf").read_bytes()
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "")  # empty: as unset
    r = run_cli("build", "--data", TEST_DATA / "mini", "mini", "--out", out)
    assert r.exit_code == 0 and "up to date" in r.stdout, r.stdout
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    r = run_cli("build", "--data", TEST_DATA / "mini", "mini", "--out", out)
    assert r.exit_code == 0 and "up to date" not in r.stdout, r.stdout
    assert b"/CreationDate (D:20231114221320+00'00')" in (out / "mini" / "deck.pdf").read_bytes()


def _tamper(out: Path, fn) -> None:  # type: ignore[no-untyped-def]
    """Edit the record and seal it again, as anyone can (the seal is no secret): only what the
    record says may make it untrusted."""
    from pnp.pipeline.incremental import seal

    p = out / "mini" / ".pnp-build.json"
    d = json.loads(p.read_text())
    fn(d)
    d.pop("seal", None)
    d["seal"] = seal(d)
    p.write_text(json.dumps(d))


@pytest.mark.parametrize("how", ["path-outside", "absolute-path", "escape-in-warning", "not-a-hash", "negative",
                                 "fifo-name", "nan-figure", "huge-figure", "escape-in-figure", "none-count",
                                 "another-component"])
def test_a_tampered_build_record_is_ignored_never_followed_or_echoed(how: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run_cli("build", "--data", TEST_DATA / "mini", "mini", "--out", out).exit_code == 0
    secret = tmp_path / "secret.pdf"
    secret.write_bytes(b"not yours")
    if how == "fifo-name":
        os.mkfifo(out / "mini" / "pipe.pdf")

    def edit(d: dict) -> None:  # type: ignore[type-arg]
        deck = d["components"]["deck"]
        if how == "path-outside":
            deck["file"] = "../../secret.pdf"
        elif how == "absolute-path":
            deck["file"] = str(secret)
        elif how == "escape-in-warning":
            d["warnings"] = ["\x1b]0;owned\x07\x1b[2J"]
        elif how == "not-a-hash":
            deck["fingerprint"] = "x"
        elif how == "negative":
            deck["pages"] = -1
        elif how == "nan-figure":  # an up-to-date build prints the figures: "margins >= nan mm"
            deck["preflight"]["margin_mm"] = float("nan")
        elif how == "huge-figure":
            deck["preflight"]["smallest_text"]["value"] = 1e308
        elif how == "none-count":  # found by the record fuzz test: the summary added None to an int
            deck["preflight"]["warnings"] = None
        elif how == "escape-in-figure":
            deck["preflight"]["smallest_text"]["element"] = "\x1b]0;owned\x07"
        elif how == "another-component":  # attack 8, F1: it listed deck.pdf twice, "3 PDFs"
            d["components"]["zzz"] = dict(deck)
            d["order"].append("zzz")
        else:
            deck["file"] = "pipe.pdf"

    _tamper(out, edit)
    r = run_cli("build", "--data", TEST_DATA / "mini", "mini", "--out", out)
    assert r.exit_code == 0, r.stderr
    assert_no_traceback(r)
    assert "up to date" not in r.stdout  # the record was not trusted: the game was built again
    assert "\x1b" not in r.stdout + r.stderr
    assert secret.read_bytes() == b"not yours"
    assert json.loads((out / "mini" / ".pnp-build.json").read_text())["components"]["deck"]["file"] == "deck.pdf"


# -- no collisions (class 4) --------------------------------------------------------------------

@pytest.mark.parametrize("inside", ["card_data", "card_data/mini", "templates/x", "fonts"])
def test_an_output_folder_among_the_inputs_is_refused(inside: str, tmp_path: Path) -> None:
    root = tmp_path / "root"
    shutil.copytree(TEST_DATA / "mini", root)
    (root / "fonts").mkdir()
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    r = run_cli("build", "--data", root, "mini", "--out", root / inside)
    assert r.exit_code == 2
    assert_no_traceback(r)
    assert "which pnp reads as input; choose another with --out" in r.stderr
    # the folder it would write, and the --out the user gave (attack 24: only the first was named)
    assert f"output folder {root / inside / 'mini'} (--out {root / inside}) overlaps" in r.stderr, r.stderr
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before


@pytest.mark.parametrize("command", [("export", "png", "mini"), ("export", "tts", "mini"), ("preview", "mini", "deck"),
                                     ("watch", "mini")])
def test_exports_among_the_inputs_are_refused(command: tuple[str, ...], tmp_path: Path) -> None:
    """PNGs written into the game folder would become its images (and change its data version);
    a watch refuses before its first poll."""
    root = tmp_path / "root"
    shutil.copytree(TEST_DATA / "mini", root)
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    r = run_cli(*command, "--data", root, "--out", root / "card_data")
    assert r.exit_code == 2
    assert_no_traceback(r)
    assert "which pnp reads as input; choose another with --out" in r.stderr
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before


@pytest.mark.parametrize("inside", ["card_data", "templates/mini"])
def test_a_calibration_sheet_among_the_inputs_is_refused(inside: str, tmp_path: Path) -> None:
    """`pnp calibrate --out templates/mini`, run in a data root, wrote among the inputs with exit 0
    (second independent attack, F6); the root it guards is the one the command finds from here."""
    root = tmp_path / "root"
    shutil.copytree(TEST_DATA / "mini", root)
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    r = run_cli("calibrate", "--out", inside, cwd=root)
    assert r.exit_code == 2
    assert_no_traceback(r)
    assert "which pnp reads as input; choose another with --out" in r.stderr
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before
    assert run_cli("calibrate", "--out", "out", cwd=root).exit_code == 0


def test_the_data_root_itself_may_hold_the_output(tmp_path: Path) -> None:
    """out/<game>/ beside card_data/ and templates/ overlaps neither."""
    root = tmp_path / "root"
    shutil.copytree(TEST_DATA / "mini", root)
    r = run_cli("build", "--data", root, "mini", "--out", root)
    assert r.exit_code == 0, r.stderr
    assert (root / "mini" / "deck.pdf").is_file()


@pytest.mark.parametrize("exists", [True, False])
def test_a_second_build_into_one_folder_waits_for_the_first(exists: bool, tmp_path: Path) -> None:
    """A build holding the lock (here: the test, by flock on the folder, or on its parent when
    the folder does not exist yet) makes another build into that folder wait."""
    import fcntl
    import threading

    import pnp

    out = tmp_path / "out"
    if exists:
        out.mkdir()
    fd = os.open(out if exists else tmp_path, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    result: list[object] = []
    t = threading.Thread(target=lambda: result.append(pnp.build("mini", data=TEST_DATA / "mini", out=out, jobs=1)))
    t.start()
    t.join(1.5)
    assert t.is_alive() and not (out / "mini").exists()  # waiting, nothing written
    os.close(fd)  # releases the lock
    t.join(60)
    assert not t.is_alive()
    (report,) = result
    assert report.ok  # type: ignore[attr-defined]
    assert (out / "mini" / "deck.pdf").is_file()


# -- faults (class 7) ---------------------------------------------------------------------------

def test_a_full_disk_leaves_the_old_files_and_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    from pnp.render import write

    root = tmp_path / "root"
    shutil.copytree(TEST_DATA / "mini", root)
    out = tmp_path / "out"
    assert run_cli("build", "--data", root, "mini", "--out", out).exit_code == 0
    old = {p.name: p.read_bytes() for p in (out / "mini").iterdir()}
    deck = root / "card_data" / "mini" / "deck.json"
    deck.write_text(deck.read_text().replace('"Sun One"', '"Sol One"'))
    real = write._stage
    calls = []

    def stage(path: Path, data: bytes, staged: list[tuple[str, Path]]) -> None:
        calls.append(path.name)
        if len(calls) == 2:  # the first file fitted; the disk is full in the middle of the second
            real(path, data[:10], staged)
            raise OSError(errno.ENOSPC, "No space left on device")
        real(path, data, staged)

    monkeypatch.setattr(write, "_stage", stage)
    r = run_cli("build", "--data", root, "mini", "--out", out)
    assert r.exit_code == 2
    assert_no_traceback(r)
    assert "No space left on device" in r.stderr
    assert len(calls) == 2
    assert {p.name: p.read_bytes() for p in (out / "mini").iterdir()} == old  # no temporary file either
    monkeypatch.setattr(write, "_stage", real)
    r = run_cli("build", "--data", root, "mini", "--out", out)
    assert r.exit_code == 0 and "up to date" not in r.stdout  # the old record does not vouch for the new data


def test_a_first_build_on_a_full_disk_leaves_no_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack 12, borderline B4: the failed build left out/mini (and out) behind, empty; a
    folder that was there before stays."""
    import errno

    from pnp.render import write

    def full(path: Path, data: bytes, staged: list[tuple[str, Path]]) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(write, "_stage", full)
    out = tmp_path / "a" / "out"
    for args in (["build", "--data", TEST_DATA / "mini", "mini"], ["calibrate"]):
        r = run_cli(*args, "--out", out)
        assert r.exit_code == 2 and "No space left on device" in r.stderr, r.output
        assert not (tmp_path / "a").exists()
    out.mkdir(parents=True)
    r = run_cli("build", "--data", TEST_DATA / "mini", "mini", "--out", out)
    assert r.exit_code == 2
    assert out.is_dir() and not any(out.iterdir())


def test_ctrl_c_exits_130_with_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import pnp.api

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(pnp.api, "build", interrupted)
    r = run_cli("build", "--data", TEST_DATA / "mini", "mini", "--out", tmp_path / "out")
    assert r.exit_code == 130
    assert r.stderr == "pnp: interrupted; nothing more was written\n"


def test_a_worker_ignores_ctrl_c_and_dies_with_its_parent(tmp_path: Path) -> None:
    """The middle process forks a worker (as the pool does), which runs the pool's initializer;
    the middle process is then killed with SIGKILL: the worker must not outlive it."""
    import signal
    import subprocess
    import sys
    import time

    script = (
        "import os, signal, sys, time\n"
        "from pnp.pipeline.build import _worker_start\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    _worker_start(os.getppid())\n"
        "    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN\n"
        "    time.sleep(60)\n"
        "    os._exit(0)\n"
        "print(pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert p.stdout is not None
    worker = int(p.stdout.readline())
    time.sleep(0.5)  # the worker has run its initializer
    assert Path(f"/proc/{worker}").exists()
    p.send_signal(signal.SIGKILL)
    p.wait()
    deadline = time.time() + 5
    while time.time() < deadline and Path(f"/proc/{worker}").exists():
        with open(f"/proc/{worker}/stat") as f:
            if f.read().split()[2] == "Z":  # a zombie: dead, waiting for init to reap it
                break
        time.sleep(0.05)
    else:
        assert not Path(f"/proc/{worker}").exists()


# -- only regular files, only inside the root (class 3) -----------------------------------------

def test_unreferenced_fifos_and_links_out_of_the_root_are_never_opened(tmp_path: Path) -> None:
    """A FIFO blocks whoever opens it for reading: a build that finishes opened none of them —
    in the game folder, in the fonts folder, behind a link out of the root, or as the record."""
    import subprocess
    import sys

    root = tmp_path / "root"
    shutil.copytree(TEST_DATA / "mini", root)
    outside = tmp_path / "outside"
    outside.mkdir()
    os.mkfifo(outside / "pipe")
    game = root / "card_data" / "mini"
    os.mkfifo(game / "pipe.png")
    (root / "fonts").mkdir()
    os.mkfifo(root / "fonts" / "pipe.ttf")
    os.symlink(outside / "pipe", game / "leak.png")
    os.symlink(outside / "pipe", root / "fonts" / "leak.ttf")
    os.symlink(outside, game / "linked-folder")
    out = tmp_path / "out"
    (out / "mini").mkdir(parents=True)
    os.mkfifo(out / "mini" / ".pnp-build.json")
    for _ in range(2):  # a first build, then the up-to-date test over its record
        r = subprocess.run([sys.executable, "-m", "pnp", "build", "--data", str(root), "mini", "--out", str(out)],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
    assert "up to date" in r.stdout
    assert (out / "mini" / ".pnp-build.json").is_file()


def test_a_game_folder_nested_1100_deep_builds(tmp_path: Path) -> None:
    """The input hash walks the game folder; os.walk recursed once per level (Python 3.11), so
    1,100 nested folders (past the default recursion limit of 1,000) were a RecursionError (exit 3)."""
    root = tmp_path / "root"
    shutil.copytree(TEST_DATA / "mini", root)
    fds = [os.open(root / "card_data" / "mini", os.O_RDONLY)]
    try:
        for _ in range(1100):
            os.mkdir("a", dir_fd=fds[-1])
            fds.append(os.open("a", os.O_RDONLY, dir_fd=fds[-1]))
        for _ in range(2):  # the first build, then the up-to-date test
            r = run_cli("build", "--data", root, "mini", "--out", tmp_path / "out")
            assert r.exit_code == 0, r.stderr
        assert "up to date" in r.stdout
    finally:
        # shutil.rmtree recurses too: pytest's clean-up of old temporary folders would fail on
        # this one in a later run, so it goes now, innermost first
        while fds:
            fd = fds.pop()
            with contextlib.suppress(OSError):
                os.rmdir("a", dir_fd=fd)
            os.close(fd)


SLOW_FSYNC = """
import os, sys, time
_fsync = os.fsync
def slow_fsync(fd):
    time.sleep(0.3)
    _fsync(fd)
os.fsync = slow_fsync
from pnp.cli import run
sys.argv[0] = "pnp"
run()
"""


@pytest.mark.slow
def test_ctrl_c_while_writing_leaves_the_old_files_and_exits_130(tmp_path: Path) -> None:
    """SIGINT while a game's files are being staged (fsync slowed so it lands there): exit 130,
    one line, every old file and the old record as they were, no temporary file left."""
    import signal
    import subprocess
    import sys
    import time

    from pnp.pipeline import incremental

    out = tmp_path / "out"
    assert run_cli("build", "--data", TEST_DATA / "mini", "mini", "--out", out, "--paper", "a4").exit_code == 0
    folder = out / "mini"
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    proc = subprocess.Popen([sys.executable, "-c", SLOW_FSYNC, "build", "--data", str(TEST_DATA / "mini"), "mini",
                             "--out", str(out), "--paper", "letter"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any(p.name.endswith(".tmp") for p in folder.iterdir()):
        time.sleep(0.005)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err.decode()
    assert err.decode().strip().splitlines()[-1] == "pnp: interrupted; nothing more was written"
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    record = incremental.load(folder)
    assert record is not None and record.intact(folder)


@pytest.mark.parametrize("name", ["x" * 300, "x" * 200 + "/" + "y" * 5000])
def test_an_output_path_too_long_is_exit_2(name: str, tmp_path: Path) -> None:
    """The lock looks for the nearest existing folder of `--out`: a name too long for the file
    system is not one (Path.is_dir raised ENAMETOOLONG: exit 3), and the build says it cannot
    create the folder."""
    r = run_cli("build", "--data", TEST_DATA / "mini", "mini", "--out", tmp_path / name)
    assert r.exit_code == 2
    assert_no_traceback(r)
    assert "pnp: cannot create output folder" in r.stderr


@pytest.mark.parametrize("command", [("preflight", "mini"), ("export", "png", "mini"), ("preview", "mini", "deck"),
                                     ("calibrate",)])
def test_a_malformed_source_date_epoch_is_exit_2_for_every_command_that_draws(
        command: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every PDF goes through reportlab's Canvas, which reads SOURCE_DATE_EPOCH (preflight, which
    renders in memory, exited 3)."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "abc")
    data = () if command == ("calibrate",) else ("--data", TEST_DATA / "mini")
    out = () if command[0] == "preflight" else ("--out", tmp_path / "out")
    r = run_cli(*command, *data, *out)
    assert r.exit_code == 2, r.stderr
    assert_no_traceback(r)
    assert "invalid SOURCE_DATE_EPOCH abc" in r.stderr
    assert not (tmp_path / "out").exists()


def test_export_data_never_writes_among_the_inputs(tmp_path: Path) -> None:
    root = _mini_with_image(tmp_path / "a")
    r = run_cli("export", "data", "mini", "deck", "--data", root, "--out", root / "card_data", cwd=root)
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert not (root / "card_data" / "mini" / "data").exists()


# -- found by the independent attack (issue 19) ----------------------------------------------------

def _image_at(root: Path, src: str) -> None:
    card = root / "templates" / "mini" / "card.json"
    card.write_text(card.read_text().replace('"art/sun.png"', json.dumps(src)))


def test_a_loop_of_links_as_an_image_is_exit_2(tmp_path: Path) -> None:
    root = _mini_with_image(tmp_path / "r")
    art = root / "card_data" / "mini" / "art"
    os.symlink("loop2.png", art / "loop1.png")
    os.symlink("loop1.png", art / "loop2.png")
    _image_at(root, "art/loop1.png")
    for cmd in ("check", "build"):
        r = run_cli(cmd, "--data", root, "mini", *(("--out", tmp_path / "out") if cmd == "build" else ()), cwd=root)
        assert r.exit_code == 2 and "Traceback" not in r.output and "internal error" not in r.output, r.output
        assert "cannot be followed to a file" in r.stderr
    assert not (tmp_path / "out").exists()


def test_a_game_output_folder_that_is_a_link_is_refused(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "deck.pdf").write_text("SECRET")
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(victim, out / "mini")
    r = run_cli("build", "--data", TEST_DATA / "mini", "mini", "--out", out)
    assert r.exit_code == 2 and "is a link" in r.stderr, r.output
    assert (victim / "deck.pdf").read_text() == "SECRET" and sorted(p.name for p in victim.iterdir()) == ["deck.pdf"]


def test_an_out_with_a_link_and_dot_dot_is_read_as_the_system_reads_it(tmp_path: Path) -> None:
    """Attack 13, F1: --out root/link/../templates was checked at the real folder (beside the
    link's target) but its temporary files were made at root/templates/<game>, among the inputs
    (Python's abspath drops `link/..`), and the message named the input folder."""
    root = tmp_path / "root"
    shutil.copytree(TEST_DATA / "mini", root)
    (tmp_path / "else" / "sub").mkdir(parents=True)
    os.symlink(tmp_path / "else" / "sub", root / "l")
    before = sorted(p for p in (root / "templates").rglob("*"))
    for cmd in (["build", "mini"], ["export", "png", "mini", "--dpi", "36"], ["preview", "mini", "deck"]):
        r = run_cli(*cmd, "--data", root, "--out", root / "l" / ".." / "templates", cwd=tmp_path)
        assert r.exit_code == 0, r.output
        assert sorted(p for p in (root / "templates").rglob("*")) == before  # nothing among the inputs
        assert "root/templates" not in r.stdout + r.stderr
    assert (tmp_path / "else" / "templates" / "mini" / "deck.pdf").is_file()
    assert "to else/templates/mini/" in r.stdout or "else/templates" in r.stdout
    # a lexical folder that does not exist: the build goes where the system puts it
    r = run_cli("build", "mini", "--data", root, "--out", root / "l" / ".." / "zzz", cwd=tmp_path)
    assert r.exit_code == 0, r.output
    assert (tmp_path / "else" / "zzz" / "mini" / "deck.pdf").is_file() and not (root / "zzz").exists()
    # --out through the link into the inputs is refused: ../../root/templates from else/sub
    r = run_cli("build", "mini", "--data", root, "--out", root / "l" / ".." / ".." / "root" / "templates", cwd=tmp_path)
    assert r.exit_code == 2 and "which pnp reads as input" in r.stderr, r.output


def test_a_line_feed_in_out_is_shown_escaped_on_one_line(tmp_path: Path) -> None:
    """Attack 13, borderline: `--out $'/tmp/n\\nl'` printed "wrote 2 PDFs to /tmp/n" and
    "l/mini/" on the next line (other control characters were escaped)."""
    out = tmp_path / "n\nl"
    for cmd in (["build", "mini"], ["export", "png", "mini", "--dpi", "36"], ["export", "tts", "mini", "--dpi", "36"]):
        r = run_cli(*cmd, "--data", TEST_DATA / "mini", "--out", out, cwd=tmp_path)
        assert r.exit_code == 0, r.output
        assert "n\\x0al/mini/" in r.stdout, r.stdout
        assert not any(line.startswith("l/") for line in r.stdout.splitlines()), r.stdout
    assert (out / "mini" / "deck.pdf").is_file()


def test_file_names_that_are_not_utf8_are_fingerprinted_by_their_bytes(tmp_path: Path) -> None:
    """Attack 14, F8: an unused file named x<0xff>.json (a Latin-1 name from an old zip) in a game,
    templates or fonts folder passed check, then build and preflight exited 3 (the fingerprints
    encoded every name as UTF-8), and watch never built."""
    root = tmp_path / "root"
    shutil.copytree(TEST_DATA / "mini", root)
    odd = "x\udcff"  # the byte 0xff, as Python names it
    (root / "card_data" / "mini" / f"{odd}.json").write_text("{}")
    (root / "card_data" / "mini" / f"{odd}.png").write_bytes(b"not read")
    (root / "templates" / "mini" / f"{odd}.json").write_text("{}")
    (root / "fonts").mkdir(exist_ok=True)
    (root / "fonts" / f"{odd}.ttf").write_bytes(b"not a font")
    out = tmp_path / "out"
    for cmd in (["build", "mini"], ["preflight", "mini"], ["build", "mini", "--gang"], ["build", "mini", "--gang"]):
        r = run_cli(*cmd, "--data", root, "--out", out) if cmd[0] == "build" else run_cli(*cmd, "--data", root)
        assert_no_traceback(r)
        assert r.exit_code == 0, (cmd, r.output)
    assert "up to date" in r.stdout
    (root / "templates" / "mini" / f"{odd}.json").write_text('{"changed": 1}')
    r = run_cli("build", "mini", "--data", root, "--out", out)
    assert r.exit_code == 0 and "up to date" not in r.stdout  # the file is part of the template folder's print


def test_the_ganged_file_name_is_reserved(tmp_path: Path) -> None:
    root = tmp_path / "r"
    shutil.copytree(TEST_DATA / "mini", root)
    g = root / "card_data" / "mini" / "game.json"
    g.write_text(g.read_text().replace('"id": "deck"', '"id": "mini-ganged"'))
    d = root / "card_data" / "mini" / "deck.json"
    d.write_text(d.read_text().replace('"component": "deck"', '"component": "mini-ganged"'))
    r = run_cli("check", "--data", root, "mini", cwd=root)
    assert r.exit_code == 2 and "component id 'mini-ganged' is reserved" in r.stderr, r.output


def test_svg_with_an_embedded_raster_or_huge_paths_is_refused_at_check(tmp_path: Path) -> None:
    root = _mini_with_image(tmp_path / "r")
    art = root / "card_data" / "mini" / "art"
    (art / "emb.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
                                 'width="10" height="10"><image width="10" height="10" '
                                 'xlink:href="data:image/png;base64,iVBORw0KGgo="/></svg>')
    (art / "big.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><path d="M0 0'
                                 + " L1 1" * 250_000 + '"/></svg>')
    # an <image> naming an element of the file passed check, then build exited 3 (attack 21, F4)
    (art / "ref.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">\n'
                                 '<image href="#a" width="5" height="5"/></svg>')
    for name, said in (("emb.svg", "embeds a raster image"), ("big.svg", "characters of path data"),
                       ("ref.svg", "has an <image> (line 2): SVG art is drawn as vectors only")):
        _image_at(root, f"art/{name}")
        r = run_cli("check", "--data", root, "mini", cwd=root)
        assert r.exit_code == 2 and said in r.stderr and "Traceback" not in r.output, r.output
        card = root / "templates" / "mini" / "card.json"
        card.write_text(card.read_text().replace(json.dumps(f"art/{name}"), '"art/sun.png"'))


def test_alternatives_in_a_row_beside_a_lookahead_cannot_hang() -> None:
    """(?=a)(?:a|a|a|a)...b: RE2 cannot run the lookahead, and in Python's re each group in a row
    multiplies the backtracking by four (17 groups took over 30 s): alternatives are refused there."""
    import time

    from pnp.input.conditions import regex

    pattern = "(?=a)" + "(?:a|a|a|a)" * 17 + "b"
    t = time.perf_counter()
    with pytest.raises(ValueError, match=r"alternatives \(\|\)"):
        regex(pattern).fullmatch("a" * 40 + "!")
    assert time.perf_counter() - t < 1


@pytest.mark.parametrize("pattern", ["(?=(a?){26}a{26})", "(?=((a?){5}){6})a", "(?<=x)(?:a?b?){13}c"])
def test_a_fixed_count_of_a_choice_beside_a_lookahead_is_counted(pattern: str) -> None:
    """(?=(a?){26}a{26}) on 26 a's took 36 s of check, time doubling with each a (attack 21, F3):
    a group repeated a fixed number of times holds that many choices in a row, so it counts that
    many repetitions, and the pattern is refused on such a text before it runs; on a text of no
    character it still runs."""
    from pnp.input.conditions import regex

    compiled = regex(pattern)
    assert compiled._repeats is not None and compiled._repeats >= 25
    with pytest.raises(ValueError, match="would take more than 10000000 steps"):
        compiled.fullmatch("a" * 26)
    assert compiled.fullmatch("") is False  # runs, and does not match


def test_replace_rules_that_double_a_text_stop_at_the_text_limit(tmp_path: Path) -> None:
    """13 `replace` rules each doubling the text, on four elements: check took 168 s before. The
    text stops growing either at the text limit or, first, at the patterns' cost budget (`(.)`
    searches once per character)."""
    import time

    root = tmp_path / "r"
    shutil.copytree(TEST_DATA / "mini", root)
    card = root / "templates" / "mini" / "card.json"
    tpl = json.loads(card.read_text())
    tpl["elements"].append({"type": "text", "box": [2, 2, 40, 20], "text": "ab cd ef g", "style": "body",
                            "replace": [{"pattern": "(.)", "with": "\\1\\1"}] * 13})
    card.write_text(json.dumps(tpl))
    t = time.perf_counter()
    r = run_cli("check", "--data", root, "mini", cwd=root)
    assert time.perf_counter() - t < 10
    assert r.exit_code == 2 and "replace` patterns to more than 50000000 steps" in r.stderr, r.output


def test_a_record_whose_warnings_are_not_a_list_is_ignored(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run_cli("build", "--data", TEST_DATA / "mini", "mini", "--out", out).exit_code == 0
    rec = out / "mini" / ".pnp-build.json"
    d = json.loads(rec.read_text())
    d["warnings"] = {"a": "x"}
    rec.write_text(json.dumps(d))
    r = run_cli("build", "--data", TEST_DATA / "mini", "mini", "--out", out, "--strict")
    assert r.exit_code == 0 and "up to date" not in r.stdout, r.output  # ignored: built again, no 'a'


# -- round three (issue 19: what the second independent attack still found) --------------------

def _deep_use_svg(levels: int) -> str:
    """Each level a group of two <use> of the level below: 2 KB for 29 levels, 2**29 elements drawn out."""
    body = ['<path id="l0" d="M0 0L1 1"/>']
    body += [f'<g id="l{i}"><use xlink:href="#l{i - 1}"/><use xlink:href="#l{i - 1}" x="1"/></g>'
             for i in range(1, levels + 1)]
    return ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" '
            f'height="10"><defs>{"".join(body)}</defs><use xlink:href="#l{levels}"/></svg>')


@pytest.mark.parametrize(("svg", "said"), [
    (_deep_use_svg(29), "needs more than 10000 elements copied to draw out its <use> references"),
    ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10">'
     '<g id="a"><rect width="1" height="1"/><use xlink:href="#a"/></g></svg>',
     "has a <use> or url(#...) that contains itself"),
    ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10">'
     '<defs><rect id="l0" width="1" height="1"/>' + "".join(f'<g id="l{i}"><use xlink:href="#l{i - 1}"/></g>'
                                                          for i in range(1, 20))
     + '</defs><use xlink:href="#l19"/></svg>', "nests <use> more than 16 deep"),
    ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10">'
     '<defs><path id="p" d="M0 0' + " L1 1" * 2000 + '"/></defs>'
     + '<use xlink:href="#p"/>' * 200 + "</svg>", "characters of path data with each <use> drawn out"),
    # attack 11: svglib draws a clip path, or a gradient's stops, again for every shape naming it
    # by url(#id): 23 KB (300 rects clipping 300 rects) took 54 s, 410 KB of stops 17 s and 490 MB
    ('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><defs><clipPath id="c">'
     + '<rect width="1" height="1"/>' * 300 + '</clipPath></defs>'
     + '<rect width="10" height="10" clip-path="url(#c)"/>' * 300 + "</svg>",
     "needs more than 10000 elements copied to draw out its <use> references (and clip paths, gradients"),
    ('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><defs><linearGradient id="g">'
     + '<stop offset="0" stop-color="red"/>' * 500 + '</linearGradient></defs>'
     + '<rect width="10" height="10" style="fill: url( #g )"/>' * 100 + "</svg>",
     "needs more than 10000 elements copied"),
    ('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><style>rect { fill: url(#g) }</style><defs>'
     '<linearGradient id="g">' + '<stop offset="0" stop-color="red"/>' * 500 + '</linearGradient></defs>'
     + '<rect width="10" height="10"/>' * 100 + "</svg>", "needs more than 10000 elements copied"),
    ('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><defs><clipPath id="c"><path d="M0 0'
     + " L1 1" * 2000 + '"/></clipPath></defs>' + '<rect width="10" height="10" clip-path="url(#c)"/>' * 200
     + "</svg>", "characters of path data with each <use> drawn out"),
    ('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><defs><clipPath id="c">'
     + '<rect width="1" height="1"/>' * 600 + '</clipPath></defs><rect width="10" height="10" clip-path="url(#c)"/>'
     "</svg>", "has a clip path of more than 500 elements (line 1)"),
], ids=["doubling-29-deep", "self-reference", "chain-20-deep", "path-used-200-times", "clip-300-by-300",
        "gradient-500-stops-100-uses", "gradient-by-style-sheet", "clip-path-used-200-times", "clip-of-600"])
def test_svg_use_expansion_is_bounded_at_check(svg: str, said: str, tmp_path: Path) -> None:
    """2 KB of <use> doubling 29 levels deep built in 6.9 s; now refused at check, before svglib."""
    root = _mini_with_image(tmp_path / "r")
    (root / "card_data" / "mini" / "art" / "use.svg").write_text(svg)
    _image_at(root, "art/use.svg")
    for cmd in ("check", "build"):
        r = run_cli(cmd, "--data", root, "mini", *(("--out", tmp_path / "out") if cmd == "build" else ()), cwd=root)
        assert r.exit_code == 2 and said in r.stderr and "'art/use.svg'" in r.stderr, r.output
        assert_no_traceback(r)
    assert not (tmp_path / "out").exists()


def test_svg_use_within_the_bounds_still_draws(tmp_path: Path) -> None:
    root = _mini_with_image(tmp_path / "r")
    (root / "card_data" / "mini" / "art" / "use.svg").write_text(_deep_use_svg(6))  # 127 elements drawn out, 642 copied
    _image_at(root, "art/use.svg")
    r = run_cli("check", "--data", root, "mini", cwd=root)
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize("where", ["record", "data"])
def test_format_characters_never_reach_the_terminal(where: str, tmp_path: Path) -> None:
    """U+202E (right-to-left override) and other format or control characters, in a tampered
    record's warning or in the data (a game's title), are printed as escapes."""
    root = tmp_path / "r"
    shutil.copytree(TEST_DATA / "mini", root)
    out = tmp_path / "out"
    evil = "gpj.\u202eexe\u2066\u200f"
    if where == "data":
        g = root / "card_data" / "mini" / "game.json"
        g.write_text(g.read_text().replace('"title": "Mini"', json.dumps({"title": evil})[1:-1]))
        r = run_cli("list", "--data", root)
    else:
        assert run_cli("build", "--data", root, "mini", "--out", out).exit_code == 0

        from pnp.pipeline.incremental import seal

        def edit(d: dict) -> None:  # type: ignore[type-arg]
            d["warnings"] = [{"file": "x", "message": evil, "severity": "warning"}]
            d["seal"] = seal(d)  # sealed again, as pnp would have written it
        _tamper(out, edit)
        r = run_cli("build", "--data", root, "mini", "--out", out)
        assert "up to date" in r.stdout  # the record is trusted (it is well-formed) and its warning echoed
    assert r.exit_code == 0, r.output
    shown = r.stdout + r.stderr
    assert not any(ch in shown for ch in "\u202e\u2066\u200f"), shown
    assert "gpj.\\u202eexe\\u2066\\u200f" in shown


def test_a_game_named_like_an_input_folder_cannot_create_it_in_the_data_root(tmp_path: Path) -> None:
    """A game ``fonts`` built with --out at the data root would have created fonts/ (read as
    the data root's font folder) on its first run."""
    root = tmp_path / "r"
    shutil.copytree(TEST_DATA / "mini", root)
    (root / "card_data" / "mini").rename(root / "card_data" / "fonts")
    g = root / "card_data" / "fonts" / "game.json"
    g.write_text(g.read_text().replace('"id": "mini"', '"id": "fonts"'))
    r = run_cli("build", "--data", root, "fonts", "--out", root)
    assert r.exit_code == 2 and "which pnp reads as input; choose another with --out" in r.stderr, r.output
    assert not (root / "fonts").exists()


def test_check_takes_the_sheet_options_build_would_refuse(tmp_path: Path) -> None:
    """A piece too big for half a page passed `check` and was refused by `build --duplex fold`."""
    root = tmp_path / "r"
    shutil.copytree(TEST_DATA / "mini", root)
    g = root / "card_data" / "mini" / "game.json"
    g.write_text(g.read_text().replace('"size": "mini"', '"size": [150, 200]'))
    for name in ("card.json", "back.json", "base.json"):
        t = root / "templates" / "mini" / name
        t.write_text(t.read_text().replace('"size": [44, 63],', ""))
    assert run_cli("check", "--data", root, "mini").exit_code == 0
    r = run_cli("check", "--data", root, "mini", "--duplex", "fold")
    assert r.exit_code == 2 and "does not fit half a letter page for --duplex fold" in r.stderr, r.output
    b = run_cli("build", "--data", root, "mini", "--duplex", "fold", "--out", tmp_path / "out")
    assert b.exit_code == 2 and r.stderr.splitlines()[0] in b.stderr, b.output


@pytest.mark.parametrize("kind", ["png", "tts"])
def test_an_export_waits_for_the_lock_of_its_output_folder(kind: str, tmp_path: Path) -> None:
    import fcntl
    import threading

    import pnp

    out = tmp_path / "out"
    out.mkdir()
    fd = os.open(out, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    result: list[object] = []
    run = (lambda: pnp.export_png("mini", data=TEST_DATA / "mini", out=out, jobs=1)) if kind == "png" \
        else (lambda: pnp.export_tts("mini", data=TEST_DATA / "mini", out=out))
    t = threading.Thread(target=lambda: result.append(run()))
    t.start()
    t.join(1.5)
    assert t.is_alive() and not (out / "mini").exists()  # waiting, nothing written
    os.close(fd)
    t.join(120)
    assert not t.is_alive()
    (report,) = result
    assert report.ok, report  # type: ignore[attr-defined]
    assert (out / "mini" / kind).is_dir()


def test_a_cmyk_build_keeps_no_converted_image_after_drawing_it(tmp_path: Path) -> None:
    """The process's CMYK converter held every converted image (4 bytes a pixel, plus alpha and
    the raw bytes) for the life of the process: two 49 Mpx images took 1.4 GB. It keeps none now,
    and the image still reaches the PDF in CMYK with its soft mask."""
    from pypdf import PdfReader

    from pnp.render import ink

    root = _mini_with_image(tmp_path / "r")
    r = run_cli("build", "--data", root, "mini", "--out", tmp_path / "out", "--color", "cmyk", "--jobs", "1")
    assert r.exit_code == 0, r.output
    assert not hasattr(ink.cmyk(), "_images")
    page = PdfReader(tmp_path / "out" / "mini" / "deck.pdf").pages[0]
    images = [x.get_object() for x in page["/Resources"]["/XObject"].values()
              if x.get_object().get("/Subtype") == "/Image"]
    forms = [x.get_object() for x in page["/Resources"]["/XObject"].values()
             if x.get_object().get("/Subtype") == "/Form"]
    for f in forms:
        images += [x.get_object() for x in f.get("/Resources", {}).get("/XObject", {}).values()
                   if x.get_object().get("/Subtype") == "/Image"]
    assert images and all(im["/ColorSpace"] == "/DeviceCMYK" and "/SMask" in im for im in images)


def test_written_files_follow_the_umask(tmp_path: Path) -> None:
    """Files were chmod 0644 whatever the umask: under umask 077 (a private machine's setting)
    they were readable by everyone (second independent attack, borderline)."""
    import subprocess
    import sys

    out = tmp_path / "out"
    code = "import os, sys; os.umask(0o077); from pnp.cli import run; sys.argv[0] = 'pnp'; run()"
    proc = subprocess.run([sys.executable, "-c", code, "build", "--data", str(TEST_DATA / "mini"), "mini", "--out",
                           str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    modes = {p.name: p.stat().st_mode & 0o777 for p in (out / "mini").iterdir()}
    assert modes and set(modes.values()) == {0o600}, modes


def test_a_build_whose_pdfs_pass_what_it_may_hold_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A build renders every PDF before it writes the first (all or nothing), so they are held in
    memory together: one 27 MB image drawn in 46 components was 1.2 GB of PDFs, and the build
    died past 1 GB (attack 7, F2). Past MAX_HELD_BYTES it stops at the component that passed it,
    exit 2, nothing written; the worker pool hands each PDF over as it is done (it waited for
    all of them before the first)."""
    from pnp.pipeline import build

    out = tmp_path / "out"
    assert run_cli("build", "--data", TEST_DATA / "mini", "mini", "--out", out, "--jobs", "1").exit_code == 0
    size = (out / "mini" / "deck.pdf").stat().st_size
    monkeypatch.setattr(build, "MAX_HELD_BYTES", size - 1)
    r = run_cli("build", "--data", TEST_DATA / "mini", "mini", "--out", tmp_path / "again", "--jobs", "1")
    assert r.exit_code == 2, r.stderr
    assert_no_traceback(r)
    assert (f"$.components[0]: the PDFs this build renders come to more than {(size - 1) / 2**20:g} MB "
            f"({size / 2**20:.1f} MB with component deck of game mini), which pnp holds until all are written"
            ) in r.stderr
    assert not (tmp_path / "again").exists()
    monkeypatch.setattr(build, "MAX_HELD_BYTES", size)
    assert run_cli("build", "--data", TEST_DATA / "mini", "mini", "--out", tmp_path / "fits").exit_code == 0
    # in worker processes: golems' 11 PDFs (about 800 KB) against 200 KB, stopped at once
    monkeypatch.setattr(build, "MAX_HELD_BYTES", 200_000)
    r = run_cli("build", "golems", "--out", tmp_path / "golems", "--jobs", "2")
    assert r.exit_code == 2 and "the PDFs this build renders come to more than 0.190735 MB (" in r.stderr, r.stderr
    assert not (tmp_path / "golems").exists()
