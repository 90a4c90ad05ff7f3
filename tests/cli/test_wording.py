"""Every count the commands print goes through one helper (``pnp.errors.counted``): no "1 rules",
"1 PDFs", "1 input problems" or "(2-2 players)" anywhere. This runs every command on a game made
of ones (one component, one card, one rule, one player count) and on a bundled game, and scans
everything printed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import run_cli

from pnp.errors import counted

# Words ending in s after a 1 that are not plurals.
NOT_PLURAL = {"pass", "cross", "class", "bonus", "status", "is", "was", "has", "does", "gas", "this", "its",
              "crosses", "ppi", "players"}


def plural_after_one(text: str) -> list[str]:
    """Every "1 <word>s" (a count of one with a plural noun), and "(N-N players)"."""
    bad = [m.group(0) for m in re.finditer(r"(?<![\d.,x/-])\b1 ([A-Za-z]+s)\b", text)
           if m.group(1).lower() not in NOT_PLURAL]
    bad += [m.group(0) for m in re.finditer(r"\((\d+)-(\d+) players\)", text) if m.group(1) == m.group(2)]
    bad += [m.group(0) for m in re.finditer(r"\b1 players\b", text)]
    return bad


def test_the_scanner_finds_what_it_must() -> None:
    assert plural_after_one("wrote 1 PDFs, 1 rules; 2 rules; (2-2 players); 1 pass") == \
        ["1 PDFs", "1 rules", "(2-2 players)"]
    assert plural_after_one("1.1 pieces, 21 pieces, 3x1 pieces, 1 piece") == []
    assert counted(1, "copy") == "1 copy" and counted(2, "copy") == "2 copies"


@pytest.fixture
def ones(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A game of ones: `pnp new`'s scaffold cut down to one card, one rule, exactly two players."""
    monkeypatch.chdir(tmp_path)
    assert run_cli("new", "one").exit_code == 0
    game = tmp_path / "card_data" / "one"
    manifest = json.loads((game / "game.json").read_text())
    manifest["players"] = {"min": 2, "max": 2}
    manifest["rulebook"][0]["values"][1] = 1
    (game / "game.json").write_text(json.dumps(manifest, indent=2))
    deck = json.loads((game / "deck.json").read_text())
    deck["items"] = deck["items"][:1]
    (game / "deck.json").write_text(json.dumps(deck, indent=2))
    return tmp_path


def _everything(game: str, out: Path) -> list[tuple[tuple[str, ...], str]]:
    runs = [("list",), ("check", game), ("check", game, "-v"), ("check", game, "--format", "github"),
            ("build", game, "--out", str(out)), ("build", game, "--out", str(out)),
            ("build", game, "--out", str(out), "-v"), ("preflight", game),
            ("export", "png", game, "--out", str(out), "--dpi", "36"),
            ("export", "tts", game, "--out", str(out), "--dpi", "36")]
    said = []
    for args in runs:
        r = run_cli(*args)
        assert r.exit_code == 0, (args, r.stdout, r.stderr)
        said.append((args, r.stdout + r.stderr))
    return said


def test_a_game_of_ones_is_counted_in_the_singular(ones: Path) -> None:
    said = _everything("one", ones / "out")
    bad = [(args, plural_after_one(text)) for args, text in said if plural_after_one(text)]
    assert bad == []
    text = "\n".join(t for _, t in said)
    for singular in ("(2 players)", "1 piece", "1 rule,", "1 item", "2 PNGs (1 item)", "1 Tabletop Simulator deck "):
        assert singular in text, singular
    # one input problem, in the singular too
    deck = ones / "card_data" / "one" / "deck.json"
    deck.write_text(deck.read_text().replace('"id": "scout"', '"id": "Scout"'))
    r = run_cli("check", "one")
    assert r.exit_code == 2
    assert "one: 1 input problem\n" in r.stderr
    assert plural_after_one(r.stdout + r.stderr) == []


def test_a_bundled_game_is_counted_right(tmp_path: Path) -> None:
    said = _everything("golems", tmp_path / "out")
    bad = [(args, plural_after_one(text)) for args, text in said if plural_after_one(text)]
    assert bad == []
