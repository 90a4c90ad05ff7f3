"""The click layer: exit codes 0 (good) / 1 (rulebook violations) / 2 (bad input), messages
without tracebacks, nothing written by a build that fails, JSON output, help texts."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import Result
from conftest import REPO, DataRootCopy, assert_no_traceback, diag_lines, run_cli

from pnp.cli import main


def files_under(p: Path) -> list[Path]:
    return sorted(x for x in p.rglob("*") if x.is_file()) if p.exists() else []


def expected_counts(data: dict) -> tuple[int, int]:
    """(pieces, distinct items) of a component, from its JSON, independently of pnp.model."""
    pieces = distinct = 0
    for it in data["items"]:
        s = it.get("series")
        n = s["to"] - s["from"] + 1 if s else 1
        distinct += n
        pieces += n * it.get("copies", 1)
    return pieces, distinct


# -- list ------------------------------------------------------------------------------------------

def test_list_shows_every_golems_component_with_kind_size_and_count() -> None:
    r = run_cli("list")
    assert r.exit_code == 0, r.stderr
    assert_no_traceback(r)
    folder = REPO / "card_data" / "golems"
    manifest = json.loads((folder / "game.json").read_text())
    lines = r.stdout.splitlines()
    start = lines.index(next(ln for ln in lines if ln.startswith("golems: ")))
    end = next((i for i in range(start + 1, len(lines)) if lines[i] and not lines[i].startswith("  ")), len(lines))
    lines = lines[start:end]  # the golems section (other bundled games may come before or after)
    total = 0
    for c in manifest["components"]:
        pieces, distinct = expected_counts(json.loads((folder / c["data"]).read_text()))
        total += pieces
        w, h = (63, 88) if c["size"] == "poker" else c["size"]
        kind = c["kind"] + (f" {c['shape']}" if c.get("shape", "rect") != "rect" else "")
        want = [c["id"], *kind.split(), f"{w:g}", "x", f"{h:g}", "mm", str(pieces),
                "piece" if pieces == 1 else "pieces", f"({distinct}", "distinct)"]
        assert any(ln.split() == want for ln in lines), want
    assert lines[0] == f"golems: Golems (2-4 players) — {total} pieces"
    # columns line up, however long an id or a size: kind, size and "(N distinct)" each start
    # at one place on every line
    rows = lines[1:1 + len(manifest["components"])]
    for start in (lambda ln: ln.index(" " + ln.split()[1] + " ", len(ln.split()[0]) + 2),
                  lambda ln: ln.index(" x ") - len(ln.split(" x ")[0].split()[-1]), lambda ln: ln.index("(")):
        assert len({start(ln) for ln in rows}) == 1, rows
    listed = [m.group(1) for ln in lines
              if (m := re.match(r"  (\S+) +(card|tile|token|board|mat|track|sheet)\b", ln))]
    assert listed == [c["id"] for c in manifest["components"]]
    assert "kinds: card (rounded/rect), tile (square/hex), token (round/square)" in r.stdout


def test_list_known_counts() -> None:
    out = run_cli("list").stdout
    assert "  terrain     tile square   37 x 37 mm    64 pieces  (20 distinct)" in out
    assert "  golem-deck  card rounded  63 x 88 mm    48 pieces  (24 distinct)" in out
    assert "  chits       token round   16 x 16 mm    64 pieces  (64 distinct)" in out
    assert "  board       board         320 x 320 mm    1 piece  (1 distinct)" in out


def test_list_with_a_broken_game_exits_2(mini: DataRootCopy) -> None:
    mini.replace("deck.json", '"copies": 2,\n      "name": "Sun One"', '"copies": 0,\n      "name": "Sun One"')
    r = mini.cli("list")
    assert r.exit_code == 2
    assert_no_traceback(r)
    assert "mini: cannot be loaded (1 problem; see below)" in r.stdout


# -- check ------------------------------------------------------------------------------------------

def test_check_exit_codes_0_1_2(mini: DataRootCopy) -> None:
    assert mini.check().exit_code == 0
    mini.replace("deck.json", '"id": "joker",\n      "name": "Joker"',
                 '"id": "joker",\n      "copies": 2,\n      "name": "Joker"')
    r1 = mini.check()
    assert r1.exit_code == 1
    assert "FAIL deck-5: Five cards in all." in r1.stdout
    mini.replace("deck.json", '"copies": 2,\n      "name": "Joker"', '"copies": "2",\n      "name": "Joker"')
    r2 = mini.check()
    assert r2.exit_code == 2
    assert_no_traceback(r2)
    assert diag_lines(r2.stderr) == ['card_data/mini/deck.json:27:17: $.items[2].copies: wrong type: string "2" '
                                     "(expected integer)"]


def test_check_json_all_good(golems: DataRootCopy) -> None:
    r = golems.check("--json")
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["format"] == "pnp-check"
    assert doc["version"] == 1
    (game,) = doc["games"]
    assert (game["id"], game["ok"], game["errors"]) == ("golems", True, [])
    assert len(game["rules"]) == 47
    for rule in game["rules"]:
        assert set(rule) == {"id", "check", "description", "passed", "expected", "actual", "details", "oddities",
                             "quote"}
        assert rule["passed"] is True
        assert rule["quote"]
    prov = {p["component"]: p for p in game["provenance"]}
    assert prov["chits"] == {"component": "chits", "document": 0, "external": 0, "designed": 64,
                             "items": 64, "pieces": 64, "unstated": 0}


def test_check_json_with_a_violation(golems: DataRootCopy) -> None:
    golems.edit("event-deck.json", lambda d: d["items"][0].update(copies=1))
    r = golems.check("--json")
    assert r.exit_code == 1
    game = json.loads(r.stdout)["games"][0]
    assert game["ok"] is False
    bad = {x["id"]: x for x in game["rules"] if not x["passed"]}
    assert set(bad) == {"events-two-copies", "events-46"}
    assert bad["events-two-copies"]["details"] == ["event-deck/swoop (card_data/golems/event-deck.json:40): copies=1"]
    assert bad["events-two-copies"]["expected"] == "every selected item (23) meets copies=2"
    assert bad["events-two-copies"]["quote"] == "The Event deck contains 2 copies of each card listed."


def test_check_json_with_bad_input(mini: DataRootCopy) -> None:
    mini.replace("deck.json", '"suit": "sun"', '"suit": "stars"')
    r = mini.check("--json")
    assert r.exit_code == 2
    (game,) = json.loads(r.stdout)["games"]
    assert game["ok"] is False
    assert game["rules"] == []
    assert game["errors"] == [{
        "severity": "error", "file": "card_data/mini/deck.json", "line": 13, "column": 15,
        "path": "$.items[0].suit", "message": 'value "stars" is not allowed',
        "expected": 'one of "sun", "moon"', "hint": None, "cell": None,
    }]


def test_check_text_shows_the_first_hundred_problems(mini: DataRootCopy) -> None:
    """250 problems: the first 100 as text, then how many more and the command listing them all;
    the count and the JSON report keep all 250."""
    mini.edit("deck.json", lambda d: d["items"][0].update({f"extra{i}": i for i in range(250)}))
    r = mini.check()
    assert r.exit_code == 2
    lines = diag_lines(r.stderr)
    assert len(lines) == 100 and "extra0" in lines[0]
    assert "... and 150 more (`pnp check --format json --data .` lists every one reported)" in r.stderr
    assert "mini: 250 input problems" in r.stderr
    assert len(json.loads(mini.check("--json").stdout)["games"][0]["errors"]) == 250


def test_check_every_game_of_a_root_by_default(mini: DataRootCopy) -> None:
    r = run_cli("check", "--data", mini.path)
    assert r.exit_code == 0
    assert r.stdout.startswith("mini: 2 rules, 2 pass, 0 fail")


def test_check_worst_exit_code_over_several_games(mini: DataRootCopy) -> None:
    # A second game (a broken copy of mini) makes the run exit 2 while mini itself still reports.
    other = mini.path / "card_data" / "other"
    other.mkdir()
    for f in (mini.game_dir).iterdir():
        (other / f.name).write_text(f.read_text().replace('"id": "mini"', '"id": "other"'))
    (other / "deck.json").write_text((other / "deck.json").read_text().replace('"suit": "sun"', '"suit": "x"'))
    r = run_cli("check", "--data", mini.path)
    assert r.exit_code == 2
    assert "mini: 2 rules, 2 pass, 0 fail" in r.stdout
    assert "card_data/other/deck.json:13:15: $.items[0].suit" in r.stderr


# -- build ------------------------------------------------------------------------------------------

def test_build_writes_one_pdf_per_component(mini: DataRootCopy, tmp_path: Path) -> None:
    out = tmp_path / "out"
    r = mini.cli("build", "mini", "--out", out)
    assert r.exit_code == 0, r.stderr
    assert files_under(out) == [out / "mini" / ".pnp-build.json", out / "mini" / "deck.pdf",
                                out / "mini" / "mini-contents.pdf"]
    assert (out / "mini" / "deck.pdf").read_bytes().startswith(b"%PDF-")
    assert f"pnp: wrote 2 PDFs to {out}/" in r.stdout  # the deck and the contents sheet


def test_a_game_named_twice_is_one_game(mini: DataRootCopy, tmp_path: Path) -> None:
    """Attack 13, F8: `build g1 g1` checked, built and wrote the game twice ("wrote 4 PDFs"), and
    5,000 repeats took two minutes and 600 MB."""
    import pnp.api
    from pnp.input.project import DataRoot

    out = tmp_path / "out"
    r = mini.cli("build", *["mini"] * 3000, "--out", out)
    assert r.exit_code == 0, r.stderr
    assert f"pnp: wrote 2 PDFs to {out}/" in r.stdout
    r = mini.cli("check", *["mini"] * 3000)
    assert r.exit_code == 0 and r.stdout.count("mini: 2 rules") == 1, r.stdout
    assert pnp.api.game_ids(DataRoot(mini.path), ["mini", "x", "mini"]) == ["mini", "x"]


def test_build_golems_writes_ten_pdfs(tmp_path: Path) -> None:
    out = tmp_path / "x"
    r = run_cli("build", "golems", "--out", out, "--duplex", "none", "-v")
    assert r.exit_code == 0, r.stderr
    manifest = json.loads((REPO / "card_data" / "golems" / "game.json").read_text())
    assert [p.name for p in files_under(out)] == sorted(
        [f"{c['id']}.pdf" for c in manifest["components"]] + ["golems-contents.pdf", ".pnp-build.json"])
    assert len(files_under(out)) == 12  # ten components, the contents sheet and the build record
    # One piece, one page in the singular; the rest in the plural, again when nothing changed.
    for stdout in (r.stdout, run_cli("build", "golems", "--out", out, "--duplex", "none", "-v").stdout):
        assert f"{out / 'golems' / 'reference.pdf'}  1 piece, 1 page, " in stdout, stdout
        assert f"{out / 'golems' / 'board.pdf'}  1 piece, 4 pages, " in stdout, stdout
        assert f"{out / 'golems' / 'golem-deck.pdf'}  48 pieces, 7 pages, 3x3 per sheet, " in stdout, stdout


def test_build_with_violations_exits_1_and_writes_nothing(golems: DataRootCopy, tmp_path: Path) -> None:
    golems.edit("terrain.json", lambda d: d["items"][-1].update(copies=23))
    out = tmp_path / "out"
    r = golems.cli("build", "golems", "--out", out)
    assert r.exit_code == 1
    assert_no_traceback(r)
    assert "FAIL terrain-wasteland-24" in r.stdout
    assert "nothing was rendered" in r.stderr
    assert not out.exists()


def test_build_with_bad_input_exits_2_and_writes_nothing(mini: DataRootCopy, tmp_path: Path) -> None:
    mini.replace("templates/mini/card.json", '"style": "title"', '"style": "titel"')
    out = tmp_path / "out"
    out.mkdir()
    r = mini.cli("build", "mini", "--out", out)
    assert r.exit_code == 2
    assert_no_traceback(r)
    assert diag_lines(r.stderr)[0].startswith("templates/mini/card.json:7:86: $.elements[1].style: unknown style")
    assert r.stderr.rstrip().endswith("pnp: 1 problem in the input; nothing was written.")
    assert list(out.iterdir()) == []


def test_build_refuses_all_games_if_one_is_bad(mini: DataRootCopy, tmp_path: Path) -> None:
    other = mini.path / "card_data" / "other"
    other.mkdir()
    for f in mini.game_dir.iterdir():
        (other / f.name).write_text(f.read_text().replace('"id": "mini"', '"id": "other"'))
    (other / "deck.json").write_text((other / "deck.json").read_text().replace('"copies": 2', '"copies": 0', 1))
    out = tmp_path / "out"
    r = run_cli("build", "--data", mini.path, "--out", out)
    assert r.exit_code == 2
    assert not out.exists()  # not even the good game's PDFs


def test_build_out_under_a_file_is_exit_2_without_traceback(mini: DataRootCopy, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    r = mini.cli("build", "mini", "--out", blocker / "out")
    assert r.exit_code == 2
    assert_no_traceback(r)
    assert f"pnp: cannot create output folder {blocker / 'out' / 'mini'}: Not a directory; choose another with --out" \
        in r.stderr


def test_build_into_an_unwritable_folder(mini: DataRootCopy, tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):
            pytest.skip("running with privileges that ignore folder permissions (root)")
        r = mini.cli("build", "mini", "--out", locked)
        assert r.exit_code == 2
        assert_no_traceback(r)
        assert "cannot create output folder" in r.stderr or "is not writable" in r.stderr
        assert files_under(locked) == []
    finally:
        locked.chmod(0o700)


# -- game ids and data roots -----------------------------------------------------------------------

@pytest.mark.parametrize("command", ["check", "build"])
@pytest.mark.parametrize("gid", ["../etc", "golems/../golems", "Golems", "/etc", "a b"])
def test_invalid_game_id(command: str, gid: str, tmp_path: Path) -> None:
    r = run_cli(command, gid, *(["--out", tmp_path / "out"] if command == "build" else []))
    assert r.exit_code == 2
    assert_no_traceback(r)
    assert f"invalid game id {gid!r}" in r.stderr
    assert "(expected lowercase letters, digits and hyphens, no path characters)" in r.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", ["new", "check", "build"])
@pytest.mark.parametrize("gid", ["x\n", "x\ny", "x\tz", "x\x1b[31m"])
def test_a_game_id_with_control_characters_is_shown_escaped_on_one_line(command: str, gid: str,
                                                                        tmp_path: Path) -> None:
    """A line feed or tab in a typed game id is escaped where the message names it, as an escape
    character is: no message line starts with the tail of the name (attack 5, observation 6)."""
    r = run_cli(command, gid, *(["--out", tmp_path / "out"] if command == "build" else []), cwd=tmp_path)
    assert r.exit_code == 2, r.stderr
    assert_no_traceback(r)
    lines = r.stderr.splitlines()
    problem = next(ln for ln in lines if "invalid game id" in ln)
    assert problem.startswith("x\\x"), problem  # x\x0a, x\x09, x\x1b: escaped, on the same line
    assert "\x1b" not in r.stderr and "\t" not in r.stderr
    assert all(ln.startswith(("x\\x", "pnp:")) for ln in lines if ln), lines
    assert list(tmp_path.iterdir()) == []  # nothing made


def test_unknown_game_lists_the_known_ones() -> None:
    r = run_cli("check", "golem")
    assert r.exit_code == 2
    assert "no game 'golem'" in r.stderr
    known = sorted(d.name for d in (REPO / "card_data").iterdir() if (d / "game.json").is_file())
    assert "golems" in known
    assert f"(expected one of: {', '.join(known)}); did you mean 'golems'?" in r.stderr
    r = run_cli("check", "zzz")
    assert "; `pnp list` lists the games" in r.stderr


def test_data_root_without_card_data(tmp_path: Path) -> None:
    r = run_cli("check", "--data", tmp_path, "golems")
    assert r.exit_code == 2
    assert_no_traceback(r)
    assert f"{tmp_path}: $: not a pnp data root: no card_data/ folder" in r.stderr


def test_data_root_uses_its_own_game(golems: DataRootCopy) -> None:
    # The same id in another root: the copy's data is used, not the bundled one.
    golems.edit("event-deck.json", lambda d: d["items"][0].update(copies=1))
    assert golems.check().exit_code == 1
    assert run_cli("check", "golems", cwd=REPO).exit_code == 0  # the repository's own card_data
    assert run_cli("check", "golems").exit_code == 1  # run in the copy: found without --data


# -- help ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("command", sorted(main.commands))
def test_every_command_has_help_with_an_example(command: str) -> None:
    r: Result = run_cli(command, "--help")
    assert r.exit_code == 0
    assert r.stdout.startswith(f"Usage: main {command} ") or r.stdout.startswith(f"Usage: pnp {command} ")
    assert "Example" in r.stdout
    assert f"pnp {command}" in r.stdout  # the example runs this very command


def test_top_level_help_lists_every_command() -> None:
    r = run_cli("--help")
    assert r.exit_code == 0
    assert "Examples:" in r.stdout
    for command in main.commands:
        assert f"  {command} " in r.stdout


def test_python_dash_m_pnp_help() -> None:
    r = subprocess.run([sys.executable, "-m", "pnp", "--help"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("Usage: python -m pnp [OPTIONS] COMMAND [ARGS]...")
    assert "pnp check golems" in r.stdout


def test_closed_stdout_is_not_an_internal_error() -> None:
    # `pnp list | head -1`: the reader goes away before pnp writes.
    p = subprocess.Popen([sys.executable, "-m", "pnp", "list"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.stdout is not None and p.stderr is not None
    p.stdout.close()
    err = p.stderr.read().decode()
    p.wait(timeout=60)
    assert "internal error" not in err
    assert "Traceback" not in err
    assert p.returncode in (0, 1)
