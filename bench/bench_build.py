"""Whole-build benchmark: the five bundled games built cold (with --jobs 1 and with the default,
one process per core), rebuilt with nothing changed, and rebuilt after editing one card.
Whole-process wall time, median of several runs (targets, docs/performance.md: cold <= 2 s;
nothing changed <= 0.3 s and nothing written; after one edit only that card's component is
rendered).

    python bench/bench_build.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import compile_bytecode, machine

from pnp.input.project import bundled_root
from pnp.pipeline.build import default_jobs


def timed(cmd: list[str]) -> tuple[float, str]:
    t = time.perf_counter()
    r = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return time.perf_counter() - t, r.stdout


def files(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(folder)): (p.stat().st_ino, p.stat().st_mtime_ns)
            for p in folder.rglob("*") if p.is_file()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    compile_bytecode()
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        root = t / "root"
        for sub in ("card_data", "templates"):
            shutil.copytree(bundled_root() / sub, root / sub)
        out = t / "out"
        pnp = [sys.executable, "-m", "pnp", "build", "--data", str(root), "--out", str(out)]
        cold1 = statistics.median(timed(pnp + ["--force", "--jobs", "1"])[0] for _ in range(a.repeat))
        coldn = statistics.median(timed(pnp + ["--force"])[0] for _ in range(a.repeat))
        before = files(out)
        noop_runs = [timed(pnp) for _ in range(a.repeat)]
        noop = statistics.median(x[0] for x in noop_runs)
        untouched = files(out) == before
        deck = root / "card_data" / "golems" / "event-deck.json"
        edits = []
        for i in range(a.repeat):
            d = json.loads(deck.read_text())
            it = d["items"][0]  # the name and the quote it is traced to (pnp check), together
            it["source"]["document"] = it["source"]["document"].replace(it["name"], f"Swoop {i}", 1)
            it["name"] = f"Swoop {i}"
            deck.write_text(json.dumps(d, indent=2))
            before = files(out)
            secs, stdout = timed(pnp + ["-v"])  # -v: a line per file, "(unchanged)" on those reused
            after = files(out)
            changed = sorted(k for k in after if after[k] != before.get(k))
            edits.append((secs, changed, stdout.count("(unchanged)")))
        edit = statistics.median(e[0] for e in edits)
    print(f"machine: {machine()}")
    print(f"five bundled games, whole process, median of {a.repeat}:")
    print(f"  cold, --jobs 1:             {cold1:.2f} s")
    print(f"  cold, --jobs {default_jobs()} (default):   {coldn:.2f} s  (target <= 2 s)")
    print(f"  nothing changed:            {noop:.3f} s, files untouched: {untouched}  "
          "(target <= 0.3 s, nothing written)")
    print(f"  one card edited:            {edit:.2f} s, files written: {', '.join(edits[-1][1])}; "
          f"{edits[-1][2]} PDFs unchanged")


if __name__ == "__main__":
    main()
