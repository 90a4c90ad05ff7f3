"""Shared fixtures: a copy of the bundled Golems data in a temporary data root, for tests that
mutate JSON and then run ``pnp check --data ROOT golems`` (CLI) or the library on it."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from pnp.cli import main
from pnp.input.model import Game
from pnp.input.project import DataRoot, load_game

REPO = Path(__file__).resolve().parents[1]
TEST_DATA = Path(__file__).resolve().parent / "data"


def run_cli(*args: str | Path) -> Result:
    """Invoke the click app in-process; stdout and stderr are kept apart."""
    try:
        runner = CliRunner(mix_stderr=False)  # click < 8.2
    except TypeError:
        runner = CliRunner()
    return runner.invoke(main, [str(a) for a in args])


def assert_no_traceback(result: Result) -> None:
    """A user never sees a Python traceback: the only exception may be the SystemExit of the exit code."""
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.stdout + result.stderr
    assert "internal error" not in result.stderr


class DataRootCopy:
    """A temporary data root holding one game's ``card_data/<game>`` (and maybe its templates)."""

    def __init__(self, path: Path, game: str = "golems"):
        self.path = path
        self.game = game
        self.game_dir = path / "card_data" / game

    # -- files ---------------------------------------------------------------------------
    def file(self, name: str) -> Path:
        """A file of the game folder (``game.json``) or, with a slash, of the root
        (``templates/golems/coin.json``)."""
        return self.path / name if "/" in name else self.game_dir / name

    def text(self, name: str) -> str:
        return self.file(name).read_text(encoding="utf-8")

    def read(self, name: str) -> Any:
        return json.loads(self.text(name))

    def write(self, name: str, data: Any) -> None:
        """Write JSON with two-space indentation (the layout of the bundled files)."""
        p = self.file(name)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")

    def edit(self, name: str, fn: Callable[[Any], None]) -> None:
        """Load, mutate in place with ``fn``, write back."""
        data = self.read(name)
        fn(data)
        self.write(name, data)

    def replace(self, name: str, old: str, new: str) -> int:
        """Replace the single occurrence of ``old``; returns its 1-based line."""
        text = self.text(name)
        assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {name}"
        self.file(name).write_text(text.replace(old, new), encoding="utf-8")
        return text[: text.index(old)].count("\n") + 1

    def line_of(self, name: str, needle: str) -> int:
        """1-based line of the single occurrence of ``needle``."""
        return self.pos_of(name, needle)[0]

    def pos_of(self, name: str, needle: str, offset: int = 0) -> tuple[int, int]:
        """1-based (line, column) of the character ``offset`` into the single occurrence of ``needle``."""
        text = self.text(name)
        assert text.count(needle) == 1, f"{needle!r} occurs {text.count(needle)} times in {name}"
        i = text.index(needle) + offset
        return text[:i].count("\n") + 1, i - (text.rfind("\n", 0, i) + 1) + 1

    def template(self, name: str, data: dict[str, Any]) -> Path:
        """Write ``templates/<name>.json`` into the root (found before the bundled one)."""
        p = self.path / "templates" / f"{name}.json"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        return p

    # -- running -------------------------------------------------------------------------
    @property
    def root(self) -> DataRoot:
        return DataRoot(self.path)

    def load(self) -> Game:
        return load_game(self.root, self.game)

    def cli(self, *args: str | Path) -> Result:
        """``pnp COMMAND --data ROOT ARGS...``: the first arg is the command."""
        cmd, *rest = args
        return run_cli(cmd, "--data", self.path, *rest)

    def check(self, *extra: str) -> Result:
        return self.cli("check", self.game, *extra)


def _copy(tmp_path: Path, templates: bool) -> DataRootCopy:
    root = tmp_path / "root"
    shutil.copytree(REPO / "card_data" / "golems", root / "card_data" / "golems")
    if templates:
        shutil.copytree(REPO / "templates" / "golems", root / "templates" / "golems")
    return DataRootCopy(root)


@pytest.fixture
def golems(tmp_path: Path) -> DataRootCopy:
    """``ROOT/card_data/golems`` only: templates come from the bundled fallback."""
    return _copy(tmp_path, templates=False)


@pytest.fixture
def golems_with_templates(tmp_path: Path) -> DataRootCopy:
    """``ROOT/card_data/golems`` and ``ROOT/templates/golems`` (``shared/`` still falls back)."""
    return _copy(tmp_path, templates=True)


@pytest.fixture
def mini(tmp_path: Path) -> DataRootCopy:
    """A copy of ``tests/data/mini``: a one-deck game (5 cards, 2 rules) with its own templates
    (``mini/base`` <- ``mini/card``, ``mini/back``); fast to check and to build."""
    root = tmp_path / "mini-root"
    shutil.copytree(TEST_DATA / "mini", root)
    return DataRootCopy(root, "mini")


def diag_lines(text: str) -> list[str]:
    """The diagnostic lines (``file:line:col: $...``) of an error output."""
    return [ln for ln in text.splitlines() if ": $" in ln]
