"""Shell completion (click's): commands and options, and the names the commands take: game ids
of the data root in use, component ids of the game, item ids of the component."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import REPO, DataRootCopy

from pnp.cli import main


def complete(line: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> list[str]:
    """What bash completion offers for the last word of ``line`` (as `pnp` itself answers it)."""
    words = line.split(" ")
    runner = CliRunner()
    with contextlib.chdir(cwd or Path.cwd()):
        r = runner.invoke(main, [], prog_name="pnp", env={"_PNP_COMPLETE": "bash_complete",
                                                           "COMP_WORDS": line, "COMP_CWORD": str(len(words) - 1),
                                                           **(env or {})})
    return [ln.split(",", 1)[1] for ln in r.output.splitlines() if "," in ln]


def test_commands_and_options() -> None:
    assert "build" in complete("pnp b") and "check" not in complete("pnp b")
    assert "--paper" in complete("pnp build --pa")


def test_game_component_and_item_names() -> None:
    assert complete("pnp check gol", cwd=REPO) == ["golems"]
    assert complete("pnp build cyberiad gol", cwd=REPO) == ["golems"]  # several games
    assert complete("pnp export png golems e", cwd=REPO) == ["event-deck"]
    assert complete("pnp preview golems golem-deck fl", cwd=REPO) == ["flesh", "flyer"]
    assert complete("pnp preview golems nope ", cwd=REPO) == []
    assert complete("pnp watch cau", cwd=REPO) == ["cauldron"]


def test_names_come_from_the_data_root_in_use(mini: DataRootCopy, tmp_path: Path) -> None:
    # run in the mini root (the fixture's working folder): its games, found without --data
    assert complete("pnp check ") == ["mini"]
    assert complete("pnp preview mini deck ") == ["sun-1", "moon-1", "joker"]
    assert complete("pnp preview mini deck j") == ["joker"]
    # --data and PNP_DATA name another root
    assert complete(f"pnp check --data {REPO} gol", cwd=tmp_path) == ["golems"]
    assert complete("pnp check gol", cwd=tmp_path, env={"PNP_DATA": str(REPO)}) == ["golems"]


def test_a_broken_game_still_completes_nothing_quietly(mini: DataRootCopy) -> None:
    (mini.game_dir / "game.json").write_text("{ not json")
    assert complete("pnp export png mini ") == []


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_documented_activation_scripts_exist(shell: str) -> None:
    r = CliRunner().invoke(main, [], prog_name="pnp", env={"_PNP_COMPLETE": f"{shell}_source"})
    assert r.exit_code == 0 and "_PNP_COMPLETE" in r.output
    assert f"_PNP_COMPLETE={shell}_source pnp" in (REPO / "README.md").read_text()


def test_serve_completes_games_too() -> None:
    assert complete("pnp serve gol", cwd=REPO) == ["golems"]
