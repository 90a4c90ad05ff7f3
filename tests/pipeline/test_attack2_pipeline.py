"""Issue 19, what the second attack found in the pipeline (/work/notes/attack2.md): the build
record named the template of a safe-zone waiver by absolute path (F5)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import TEST_DATA, assert_no_traceback, built_from_anywhere, run_cli

from pnp.input.project import DataRoot
from pnp.pipeline import incremental


def _waived_root(root: Path) -> Path:
    """tests/data/mini with a text 0.5 mm from the card's edge, exempted from the safe zone."""
    shutil.copytree(TEST_DATA / "mini", root)
    card = root / "templates" / "mini" / "card.json"
    t = json.loads(card.read_text())
    t["elements"].append({"id": "edge", "type": "text", "box": [0.5, 55, 20, 5], "text": "{name}",
                          "style": "body", "preflight": {"safe_zone": "an edge mark, by design"}})
    card.write_text(json.dumps(t, indent=1))
    return root


# -- F5: a waiver's template is kept relative to the data root ---------------------------------

def test_a_waivers_file_is_the_same_bytes_from_any_working_folder_and_location(tmp_path: Path) -> None:
    """The waiver's ``where`` ("<template> <JSON path>") was the displayed path: relative to the
    working folder, or absolute from outside the root. Built from the root, from a folder
    outside it, from inside card_data, then with the root moved: the same bytes each time."""
    trees = built_from_anywhere(_waived_root(tmp_path / "a" / "root"), tmp_path)
    waived = json.loads(trees[0]["mini/.pnp-build.json"])["components"]["deck"]["preflight"]["waived"]
    assert waived and waived[0]["file"] == "templates/mini/card.json", waived
    assert waived[0]["where"].startswith("$.elements["), waived
    for t in trees[1:]:
        assert t.keys() == trees[0].keys()
        for name in t:
            assert t[name] == trees[0][name], name


def test_a_recorded_waiver_reads_back_as_a_fresh_build_shows_it(tmp_path: Path) -> None:
    """Read back, the waiver names its template from the working folder again, as the preflight
    figures of a fresh build do; and the record is still trusted (an up-to-date build)."""
    root = _waived_root(tmp_path / "root")
    out = tmp_path / "out"
    assert run_cli("build", "mini", "--out", out, cwd=root).exit_code == 0
    again = run_cli("build", "--data", root, "mini", "--out", out, cwd=tmp_path)
    assert "up to date" in again.stdout, again.output
    record = incremental.load(out / "mini", DataRoot(root))
    assert record is not None
    where = record.figures("deck").waived[0].where  # type: ignore[union-attr]
    shown = DataRoot(root).display(root / "templates" / "mini" / "card.json")
    assert where.startswith(shown + " $.elements["), where


# -- F2: many games at the per-game cap: a cap on the pieces of one command ---------------------

def _big_games(root: Path, n: int, copies: int) -> Path:
    """A data root of ``n`` games, each 2 decks of 10 items x ``copies`` (a few hundred bytes of
    JSON a game; the attack's make.sh with ``copies`` 10000 is 200,000 pieces a game)."""
    for k in range(1, n + 1):
        g = f"g{k}"
        assert run_cli("new", g, "--path", root).exit_code == 0
        folder = root / "card_data" / g
        deck = json.loads((folder / "deck.json").read_text())
        deck["items"] = [{"id": f"c{i}", "name": "N", "copies": copies} for i in range(10)]
        for d in (0, 1):
            (folder / f"deck{d}.json").write_text(json.dumps({**deck, "component": f"deck{d}"}))
        (folder / "deck.json").unlink()
        m = json.loads((folder / "game.json").read_text())
        m["rulebook"] = []
        c = m["components"][0]
        m["components"] = [{**c, "id": f"deck{d}", "data": f"deck{d}.json"} for d in (0, 1)]
        (folder / "game.json").write_text(json.dumps(m))
    return root


def test_check_and_build_refuse_more_pieces_than_one_command_may_hold(tmp_path: Path) -> None:
    """3 games of 140,000 pieces, each within the per-game cap: 420,000 together is over the
    400,000 of one command. check and build say so (exit 2, the total, each game, the limit)
    and build writes nothing; two of the games (280,000) pass check (printed without backs)."""
    root = _big_games(tmp_path / "root", 3, 7000)
    for args in (("check",), ("build", "--out", tmp_path / "out")):
        r = run_cli(*args, "--data", root)
        assert r.exit_code == 2, r.output
        assert_no_traceback(r)
        assert "420000 pieces in the 3 games of one command (g1 140000, g2 140000, g3 140000)" in r.stderr, r.stderr
        assert "at most 400000 pieces across the games one command checks or builds" in r.stderr
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*.pdf"))
    # (fronts only: with backs their 62,224 pages are over the page budget, pnp.plan.budget)
    r = run_cli("check", "--data", root, "g1", "g2", "--duplex", "none")
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize("error", [MemoryError(), OSError(12, "Cannot allocate memory", "json_source_map")],
                         ids=["MemoryError", "ENOMEM"])
def test_running_out_of_memory_is_a_message_not_a_bug_report(tmp_path: Path, monkeypatch, error: Exception) -> None:
    """A MemoryError (an address-space limit, a machine too small) exits 3 with what happened and
    what to try, never "internal error ... this is a bug"; so does an OSError ENOMEM, which an
    import or a file opened with no memory left raises (attack 11, F3: "internal error: OSError:
    [Errno 12]")."""
    def no_memory(*a: object, **k: object) -> None:
        raise error

    monkeypatch.setattr("pnp.api.build", no_memory)
    r = run_cli("build", "--data", TEST_DATA / "mini", "mini", "--out", tmp_path / "out")
    assert r.exit_code == 3, r.output
    assert_no_traceback(r)
    assert "pnp: out of memory" in r.stderr and "fewer games" in r.stderr and "--jobs 1" in r.stderr, r.stderr
    assert "internal error" not in r.stderr and "bug" not in r.stderr
