"""The first hour (issue 21): pnp finds the data root you are in, as git finds its repository;
messages name files from where the command runs; suggested commands work as printed; a build
prints a line per game; every stage's problems come in one run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import REPO, TEST_DATA, DataRootCopy, assert_no_traceback, run_cli

from pnp.api import find_data_root
from pnp.input.project import bundled_root, find_root


def test_the_root_is_the_nearest_folder_with_card_data(tmp_path: Path) -> None:
    root = tmp_path / "games"
    shutil.copytree(TEST_DATA / "mini", root)
    deep = root / "card_data" / "mini" / "notes" / "more"
    deep.mkdir(parents=True)
    assert find_root(deep) == root and find_root(root) == root
    assert find_root(tmp_path) is None
    assert find_data_root(tmp_path).path == bundled_root()  # none above: the bundled games
    # run from deep inside, the game is found without --data, and said so first
    r = run_cli("build", "mini", "--out", tmp_path / "out", cwd=deep)
    assert r.exit_code == 0, r.stderr
    assert r.stdout.splitlines()[0] == f"pnp: data root {root} (found from the working folder)"
    assert (tmp_path / "out" / "mini" / "deck.pdf").is_file()
    r = run_cli("list", cwd=root)
    assert r.stdout.splitlines()[0] == "pnp: data root . (found from the working folder)"
    assert r.stdout.splitlines()[1].startswith("mini: ")


def test_data_and_pnp_data_win_over_the_found_root(mini: DataRootCopy, tmp_path: Path) -> None:
    # mini's root is the working folder; --data and PNP_DATA point at the repository's games
    assert run_cli("check", "golems").exit_code == 2  # not in mini's root
    r = run_cli("check", "golems", "--data", REPO)
    assert r.exit_code == 0, r.stderr
    r = run_cli("list", "--data", REPO)
    assert r.stdout.splitlines()[0] == f"pnp: data root {REPO} (--data)"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PNP_DATA", str(REPO))
        r = run_cli("list")
    assert r.stdout.splitlines()[0] == f"pnp: data root {REPO} (PNP_DATA)"


def test_outside_any_root_the_bundled_games_are_used(tmp_path: Path) -> None:
    r = run_cli("list", cwd=tmp_path)
    assert r.stdout.splitlines()[0].endswith("the bundled games (no card_data/ at or above the working folder)")
    assert "golems: Golems" in r.stdout


def test_messages_name_files_from_the_working_folder(mini: DataRootCopy, tmp_path: Path) -> None:
    mini.edit("deck.json", lambda d: d["items"][0].update(copies="x"))
    inside = run_cli("check", "mini")  # in the root
    assert inside.stderr.startswith("card_data/mini/deck.json:")
    sub = mini.path / "templates"
    below = run_cli("check", "mini", cwd=sub)  # the file is not below the working folder: absolute
    assert below.stderr.startswith(f"{mini.path}/card_data/mini/deck.json:")
    other = run_cli("check", "mini", "--data", mini.path, cwd=tmp_path)  # tmp_path holds the root
    assert other.stderr.startswith("mini-root/card_data/mini/deck.json:")


def test_a_mistyped_game_is_exit_2_with_a_suggestion_everywhere(mini: DataRootCopy) -> None:
    for args in (("check", "mnii"), ("build", "mnii"), ("watch", "mnii"), ("preflight", "mnii"),
                 ("export", "png", "mnii"), ("preview", "mnii", "deck")):
        r = run_cli(*args)
        assert r.exit_code == 2, (args, r.stdout, r.stderr)
        assert_no_traceback(r)
        assert "no game 'mnii'" in r.stderr and "did you mean 'mini'?" in r.stderr, args


def test_mistyped_component_and_item_names_get_a_suggestion(mini: DataRootCopy) -> None:
    r = run_cli("preview", "mini", "dekc")
    assert r.exit_code == 2 and "did you mean 'deck'?" in r.stderr, r.stderr
    r = run_cli("preview", "mini", "deck", "jokr")
    assert r.exit_code == 2 and "did you mean 'joker'?" in r.stderr, r.stderr


def test_new_suggests_commands_that_work_and_never_shadows_silently(tmp_path: Path) -> None:
    r = run_cli("new", "golems", cwd=tmp_path)
    assert r.exit_code == 0
    assert "next: pnp check golems && pnp build golems" in r.stdout
    assert "note: a bundled game is also called 'golems'" in r.stdout
    r = run_cli("check", "golems", cwd=tmp_path)  # the new one: 1 rule, not Golems' 34
    assert r.exit_code == 0 and r.stdout.startswith("golems: 1 rule, 1 pass"), r.stdout
    # elsewhere: --data, as printed
    r = run_cli("new", "other", "--path", tmp_path / "elsewhere", cwd=tmp_path / "card_data")
    line = r.stdout.splitlines()[-1]
    assert line.endswith(f"next: pnp check other --data {tmp_path / 'elsewhere'} && "
                         f"pnp build other --data {tmp_path / 'elsewhere'}"), line
    check = line.split("next: ")[1].split(" && ")[0].split()[1:]
    assert run_cli(*check, cwd=tmp_path / "card_data").exit_code == 0


def test_a_build_prints_a_line_per_game_and_counts_every_file(tmp_path: Path) -> None:
    out = tmp_path / "out"
    r = run_cli("build", "cyberiad", "golems", "--out", out, cwd=REPO)
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 4, lines  # the root, a line per game, the total
    assert lines[1].startswith("cyberiad: wrote 7 PDFs to ") and lines[1].endswith("; preflight ok")
    assert lines[2].startswith("golems:   wrote 11 PDFs to ")
    written = sorted(p.name for p in out.rglob("*.pdf"))
    assert len(written) == 18 and lines[3].startswith("pnp: wrote 18 PDFs to ")
    # up to date: the same order as the manifest's, with -v as after the first build
    first = run_cli("build", "golems", "--out", out / "v", "-v", cwd=REPO).stdout
    again = run_cli("build", "golems", "--out", out / "v", "-v", cwd=REPO).stdout
    order = [ln.split()[0].rsplit("/", 1)[-1] for ln in first.splitlines() if ln.startswith("  ") and ".pdf" in ln]
    assert order == [ln.split()[0].rsplit("/", 1)[-1] for ln in again.splitlines()
                     if ln.startswith("  ") and ".pdf" in ln]
    manifest = json.loads((REPO / "card_data" / "golems" / "game.json").read_text())
    assert order[:-1] == [f"{c['id']}.pdf" for c in manifest["components"]]


def test_every_stage_reports_in_one_run(mini: DataRootCopy) -> None:
    """A data error, a template field typo, a second one and a style typo: all four at once."""
    mini.edit("deck.json", lambda d: d["items"][0].update(copies="x"))
    mini.replace("templates/mini/card.json", '"text": "{name}"', '"text": "{nmae}"')
    mini.replace("templates/mini/card.json", '"Power {power}"', '"Power {pwer}"')
    mini.replace("templates/mini/card.json", '"style": "body"', '"style": "bdy"')
    r = run_cli("check", "mini")
    assert r.exit_code == 2
    problems = [ln for ln in r.stderr.splitlines() if ": $" in ln]
    assert len(problems) == 4, r.stderr
    assert problems[0].startswith("card_data/mini/deck.json:") and "copies" in problems[0]
    assert "unknown field {nmae}" in problems[1] and problems[1].endswith("did you mean 'name'?")
    assert "unknown field {pwer}" in problems[2] and problems[2].endswith("did you mean 'power'?")
    assert "unknown style 'bdy'" in problems[3] and problems[3].endswith("did you mean 'body'?")
    assert "mini: 4 input problems" in r.stderr


def test_provenance_is_optional_unless_the_manifest_asks(mini: DataRootCopy) -> None:
    mini.edit("deck.json", lambda d: [it.pop("source", None) for it in d["items"]])
    r = run_cli("check", "mini", "-v")
    assert r.exit_code == 0, r.stderr
    assert "no source" in r.stdout and "no source = not stated" in r.stdout
    mini.edit("game.json", lambda d: d.update(provenance="required"))
    r = run_cli("check", "mini")
    assert r.exit_code == 2 and "missing required field 'source'" in r.stderr


@pytest.mark.parametrize("game", ["capek-golems", "cauldron", "cyberiad", "golems", "time-capsules"])
def test_the_bundled_games_ask_for_sources(game: str) -> None:
    assert json.loads((REPO / "card_data" / game / "game.json").read_text())["provenance"] == "required"


def test_suggested_commands_carry_the_data_root_given(golems: DataRootCopy, tmp_path: Path) -> None:
    golems.edit("terrain.json", lambda d: d["items"][-1].update(copies=23))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    r = run_cli("build", "golems", "--data", golems.path, "--out", tmp_path / "out", cwd=elsewhere)
    assert r.exit_code == 1
    suggested = r.stderr.split("`")[1]
    assert suggested == f"pnp check golems --data {golems.path}"
    assert run_cli(*suggested.split()[1:], cwd=elsewhere).exit_code == 1  # it runs, and finds the violation


def test_build_and_export_report_progress(tmp_path: Path) -> None:
    import pnp

    seen: list[tuple[int, int]] = []
    report = pnp.build("golems", out=tmp_path / "out", jobs=1, progress=lambda d, t: seen.append((d, t)))
    assert report.ok and seen == [(n, 10) for n in range(1, 11)]  # one call per component rendered
    seen.clear()
    assert pnp.build("golems", out=tmp_path / "out", progress=lambda d, t: seen.append((d, t))).ok
    assert seen == []  # up to date: nothing rendered
    report = pnp.export_png("golems", "wizard", out=tmp_path / "png", dpi=36,
                            progress=lambda d, t: seen.append((d, t)))
    assert report.ok and seen == [(1, 1)]


def test_the_progress_bar_shows_only_on_a_terminal_after_a_second(monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import sys

    from pnp.cli.output import progress_bar

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stderr", io.StringIO())
    with progress_bar("x") as tick:
        assert tick is None  # piped: no bar at all
    err = Tty()
    monkeypatch.setattr(sys, "stderr", err)
    with progress_bar("rendering", after=0.0) as tick:
        assert tick is not None
        for n in range(1, 5):
            tick(n, 5)
    assert "rendering" in err.getvalue()
    quick = Tty()
    monkeypatch.setattr(sys, "stderr", quick)
    with progress_bar("rendering", after=60.0) as tick:
        assert tick is not None
        tick(1, 5)
    assert quick.getvalue() == ""  # under a second: nothing drawn
