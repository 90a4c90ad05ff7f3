"""Shared fixtures: a copy of the bundled Golems data in a temporary data root, for tests that
mutate JSON and then run ``pnp check --data ROOT golems`` (CLI) or the library on it; and the
bundled games, loaded, checked and built once per session for the tests that only read them."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from pnp.cli import main
from pnp.input.model import Game
from pnp.input.project import DataRoot, bundled_root, load_game
from pnp.pipeline.build import Written, build_checked
from pnp.plan.options import BuildOptions
from pnp.plan.session import Session
from pnp.qa.check import GameCheck, check

REPO = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent  # the test modules sit in folders below, by package
TEST_DATA = TESTS / "data"
BAD_INPUTS = TESTS / "bad_inputs"
BUNDLED = DataRoot(bundled_root())
GAMES = BUNDLED.game_ids()  # every bundled game: a new one is in every suite that uses this


def run_cli(*args: str | Path, cwd: Path | None = None) -> Result:
    """Invoke the click app in-process, in the folder ``cwd`` (default: the working folder);
    stdout and stderr are kept apart. Messages name files relative to the working folder: the
    fixtures that make a data root run their test in it, as a designer works in their project."""
    try:
        runner = CliRunner(mix_stderr=False)  # click < 8.2
    except TypeError:
        runner = CliRunner()
    argv = [str(a) for a in args]
    with contextlib.chdir(cwd or Path.cwd()):
        return runner.invoke(main, argv)


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
        """``pnp COMMAND --data ROOT ARGS...`` run in ROOT, as a designer runs it in their project
        (so messages name files relative to ROOT): the first arg is the command."""
        cmd, *rest = args
        return run_cli(cmd, "--data", self.path, *rest)

    def check(self, *extra: str) -> Result:
        return self.cli("check", self.game, *extra)


def bundled_copy(tmp_path: Path, game: str = "golems", templates: bool = False) -> DataRootCopy:
    """``tmp_path/root`` holding a copy of a bundled game's ``card_data/<game>`` (and, with
    ``templates``, its ``templates/<game>``); the rest falls back to the bundled files."""
    root = tmp_path / "root"
    shutil.copytree(BUNDLED.card_data / game, root / "card_data" / game)
    if templates:
        shutil.copytree(BUNDLED.templates / game, root / "templates" / game)
    return DataRootCopy(root, game)


def _copy(tmp_path: Path, templates: bool) -> DataRootCopy:
    return bundled_copy(tmp_path, "golems", templates)


# The fixtures below run their test in the data root they make, as a designer works in their
# project: messages name files relative to the working folder, so here relative to the root.


@pytest.fixture
def golems(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> DataRootCopy:
    """``ROOT/card_data/golems`` only: templates come from the bundled fallback."""
    copy = _copy(tmp_path, templates=False)
    monkeypatch.chdir(copy.path)
    return copy


@pytest.fixture
def golems_with_templates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> DataRootCopy:
    """``ROOT/card_data/golems`` and ``ROOT/templates/golems`` (``shared/`` still falls back)."""
    copy = _copy(tmp_path, templates=True)
    monkeypatch.chdir(copy.path)
    return copy


@pytest.fixture
def mini(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> DataRootCopy:
    """A copy of ``tests/data/mini``: a one-deck game (5 cards, 2 rules) with its own templates
    (``mini/base`` <- ``mini/card``, ``mini/back``); fast to check and to build."""
    root = tmp_path / "mini-root"
    shutil.copytree(TEST_DATA / "mini", root)
    monkeypatch.chdir(root)
    return DataRootCopy(root, "mini")


def json_paths(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path of every value in the JSON value ``value`` (``()`` for itself), depth first."""
    out = [at]
    if isinstance(value, dict):
        for k, x in value.items():
            out += json_paths(x, (*at, k))
    elif isinstance(value, list):
        for i, x in enumerate(value):
            out += json_paths(x, (*at, i))
    return out


def diag_lines(text: str) -> list[str]:
    """The diagnostic lines (``file:line:col: $...``) of an error output."""
    return [ln for ln in text.splitlines() if ": $" in ln]


# -- the bundled games, read-only ---------------------------------------------------------------

def game_json(game: str, name: str) -> Any:
    """A bundled game's data file, ``card_data/<game>/<name>``, as JSON."""
    return json.loads((BUNDLED.card_data / game / name).read_text(encoding="utf-8"))


def template_json(game: str, name: str) -> Any:
    """A bundled game's template, ``templates/<game>/<name>.json``, as JSON."""
    return json.loads((BUNDLED.templates / game / f"{name}.json").read_text(encoding="utf-8"))


def rulebook_text(game: str) -> str | None:
    """The text of the document a bundled game transcribes (``shared/seeds/<file>`` beside the
    repository), or None where it is not there (a bare checkout, a worktree)."""
    seed = REPO.parent / "shared" / "seeds" / game_json(game, "game.json")["document"]["file"]
    return seed.read_text(encoding="utf-8") if seed.is_file() else None


class Built:
    """One build of a bundled game: its check and the PDFs written, by component id."""

    def __init__(self, checked: GameCheck, written: list[Written], folder: Path):
        self.checked = checked
        self.written = {w.component.id: w for w in written}
        self.paths = {cid: w.path for cid, w in self.written.items()}
        self.folder = folder


class Bundled:
    """The bundled games, each loaded, checked and built (per set of options) at most once per
    test session. Tests only read what they get here; a test that edits data uses a copy
    (``bundled_copy``)."""

    def __init__(self, tmp: pytest.TempPathFactory):
        self._tmp = tmp
        self._games: dict[str, Game] = {}
        self._checked: dict[tuple[str, BuildOptions], GameCheck] = {}
        self._built: dict[tuple[str, BuildOptions], Built] = {}

    def game(self, gid: str) -> Game:
        if gid not in self._games:
            self._games[gid] = load_game(BUNDLED, gid)
        return self._games[gid]

    def checked(self, gid: str, opts: BuildOptions | None = None) -> GameCheck:
        """``check()`` with every piece laid out (the default options unless given)."""
        key = (gid, opts or BuildOptions())
        if key not in self._checked:
            self._checked[key] = check(BUNDLED, gid, key[1])
        return self._checked[key]

    def built(self, gid: str, opts: BuildOptions | None = None) -> Built:
        """The game built with ``opts`` (default: letter, long-edge duplex, 3 mm bleed)."""
        key = (gid, opts or BuildOptions())
        if key not in self._built:
            out = self._tmp.mktemp(f"built-{gid}")
            s = Session(BUNDLED)
            gc = check(BUNDLED, gid, key[1], s)
            self._built[key] = Built(gc, list(build_checked(BUNDLED, gc, out, s)), out / gid)
        return self._built[key]


@pytest.fixture(scope="session")
def bundled(tmp_path_factory: pytest.TempPathFactory) -> Bundled:
    return Bundled(tmp_path_factory)


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` by its relative name, with its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def built_from_anywhere(root: Path, tmp_path: Path, game: str = "mini") -> list[dict[str, bytes]]:
    """``game`` built four times: from the data root, from a folder outside it, from inside its
    game folder, and with the root moved elsewhere (os.rename: the same files, times and sizes);
    each output folder as ``tree`` reads it. ``root`` is gone afterwards."""
    outs = [tmp_path / f"out{i}" for i in range(4)]
    elsewhere = tmp_path / "else"
    elsewhere.mkdir()
    assert run_cli("build", game, "--out", outs[0], cwd=root).exit_code == 0
    assert run_cli("build", "--data", root, game, "--out", outs[1], cwd=elsewhere).exit_code == 0
    assert run_cli("build", game, "--out", outs[2], cwd=root / "card_data" / game).exit_code == 0
    moved = tmp_path / "somewhere" / "much" / "deeper" / "b"
    moved.parent.mkdir(parents=True)
    os.rename(root, moved)
    assert run_cli("build", "--data", moved, game, "--out", outs[3], cwd=elsewhere).exit_code == 0
    return [tree(o) for o in outs]
