"""Scale benchmark: a synthetic deck of N distinct cards (frame, title, two paragraphs) built by
pnp and drawn with bare reportlab, at several sizes: whole-process time, the ratio, and peak RSS
of each (targets, docs/performance.md: 10,000 cards within 1.5x the floor's time, pnp's peak
RSS at most 150 MB, growth linear).

    python bench/bench_scale.py [--sizes 1000,10000,50000] [--repeat 3] [--bleed 3]

Each size runs floor and pnp alternately ``--repeat`` times: the median wall time, the ratio of the
median CPU times (user + system: steadier than wall time on a busy machine), the largest peak RSS.
pnp builds with ``--bleed 0`` (the floor draws no bleed) unless ``--bleed`` says otherwise: with
bleed, pnp also samples every card's edge colours (pieces of different colours do not share cut
lines), which the targets were not set for.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import compile_bytecode, floor_script, machine, make_data_root, usage

from pnp.input.project import bundled_root


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--repeat", type=int, default=3, help="runs per size and side; the median time is shown")
    ap.add_argument("--bleed", default="0", help="pnp's --bleed in mm (default 0, as the floor; pnp's default is 3)")
    a = ap.parse_args()
    compile_bytecode()
    fonts = str(bundled_root() / "fonts")
    print(f"machine: {machine()}")
    print(f"{'cards':>7} {'floor s':>8} {'pnp s':>8} {'ratio':>6} {'CPU ratio':>9} {'floor MB':>9} {'pnp MB':>7} "
          f"{'pnp us/card':>12}")
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        script = floor_script(t / "floor.py")
        for n in (int(x) for x in a.sizes.split(",")):
            root = make_data_root(t / f"data{n}", n)
            floor_cmd = [sys.executable, str(script), str(n), str(t / f"floor{n}.pdf"), fonts]
            pnp_cmd = [sys.executable, "-m", "pnp", "build", "bench", "--data", str(root), "--out", str(t / f"out{n}"),
                       "--duplex", "none", "--bleed", a.bleed, "--force"]  # --force: every run renders (no cache)
            runs = [(usage(floor_cmd), usage(pnp_cmd)) for _ in range(a.repeat)]  # interleaved
            floor_t = statistics.median(f[0] for f, _ in runs)
            pnp_t = statistics.median(p[0] for _, p in runs)
            cpu_ratio = statistics.median(p[1] for _, p in runs) / statistics.median(f[1] for f, _ in runs)
            floor_mb, pnp_mb = max(f[2] for f, _ in runs), max(p[2] for _, p in runs)
            print(f"{n:>7} {floor_t:>8.2f} {pnp_t:>8.2f} {pnp_t / floor_t:>6.2f} {cpu_ratio:>9.2f} {floor_mb:>9.0f} "
                  f"{pnp_mb:>7.0f} {pnp_t / n * 1e6:>12.0f}")


if __name__ == "__main__":
    main()
