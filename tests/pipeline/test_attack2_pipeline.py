"""Issue 19, what the second attack found in the pipeline (/work/notes/attack2.md): the build
record named the template of a safe-zone waiver by absolute path (F5)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from conftest import TEST_DATA, run_cli

from pnp.input.project import DataRoot
from pnp.pipeline import incremental


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


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
    root = _waived_root(tmp_path / "a" / "root")
    outs = [tmp_path / f"out{i}" for i in range(4)]
    elsewhere = tmp_path / "else"
    elsewhere.mkdir()
    assert run_cli("build", "mini", "--out", outs[0], cwd=root).exit_code == 0
    assert run_cli("build", "--data", root, "mini", "--out", outs[1], cwd=elsewhere).exit_code == 0
    assert run_cli("build", "mini", "--out", outs[2], cwd=root / "card_data" / "mini").exit_code == 0
    moved = tmp_path / "somewhere" / "deeper" / "b"
    moved.parent.mkdir(parents=True)
    os.rename(root, moved)  # the same files (times, sizes): the same up-to-date stamp
    assert run_cli("build", "--data", moved, "mini", "--out", outs[3], cwd=elsewhere).exit_code == 0
    trees = [_tree(o) for o in outs]
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
