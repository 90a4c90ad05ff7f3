"""Determinism: building a bundled game twice gives the same bytes in every file.

Each build runs in its own process with a different hash seed, working directory and output
folder, so nothing that varies between runs (set order, time, paths, font registration order)
can leak into the PDFs. Every bundled game is included automatically; a game that does not pass
``pnp check`` yet (one being added) is skipped with the reason."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_cli

from pnp.input.project import DataRoot, bundled_root

GAMES = DataRoot(bundled_root()).game_ids()


def build(gid: str, out: Path, seed: str) -> None:
    out.mkdir(parents=True)
    env = {**os.environ, "PYTHONHASHSEED": seed}
    r = subprocess.run([sys.executable, "-m", "pnp", "build", gid, "--out", str(out)], cwd=out, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr


def files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_there_are_bundled_games() -> None:
    assert "golems" in GAMES


@pytest.mark.slow
@pytest.mark.parametrize("gid", GAMES)
def test_two_builds_are_byte_identical(gid: str, tmp_path: Path) -> None:
    chk = run_cli("check", gid)
    if chk.exit_code != 0:
        first = next((ln for ln in chk.stderr.splitlines() + chk.stdout.splitlines() if ln.strip()), "")
        pytest.skip(f"{gid} does not pass `pnp check` yet (exit {chk.exit_code}): {first}")
    build(gid, tmp_path / "a", seed="1")
    build(gid, tmp_path / "b", seed="2")
    a, b = files(tmp_path / "a"), files(tmp_path / "b")
    assert a, "the build wrote nothing"
    assert sorted(a) == sorted(b)
    # PDFs, and the incremental build's record of what they were made from (deterministic too).
    assert all(name.startswith(f"{gid}/") and (name.endswith(".pdf") or name == f"{gid}/.pnp-build.json")
               for name in a), sorted(a)
    different = [name for name in a if a[name] != b[name]]
    assert not different, f"not byte-identical: {different}"
