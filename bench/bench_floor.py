"""Floor benchmark: the same deck (frame, title, two wrapped paragraphs, 9-up on Letter, crop
marks) drawn with bare reportlab calls and built by pnp from JSON data and a template.
Whole-process wall time (Python start-up included for both), median of several runs, and PDF
size; prints the ratios pnp / floor (and that of the CPU times, user + system: steadier than
wall time on a busy machine). Targets (docs/performance.md): time <= 2.0x, size <= 2x.

    python bench/bench_floor.py [--cards 54] [--repeat 5]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import compile_bytecode, floor_script, machine, make_data_root, median_times, peak_rss_mb, run

from pnp.input.project import bundled_root


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cards", type=int, default=54)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    compile_bytecode()
    fonts = str(bundled_root() / "fonts")
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        script = floor_script(t / "floor.py")
        floor_pdf = t / "floor.pdf"
        floor_cmd = [sys.executable, str(script), str(a.cards), str(floor_pdf), fonts]
        root = make_data_root(t / "data", a.cards)
        pnp_cmd = [sys.executable, "-m", "pnp", "build", "bench", "--data", str(root), "--out", str(t / "out"),
                   "--duplex", "none", "--bleed", "0", "--force"]  # --force: every run renders (no cache)
        run(floor_cmd), run(pnp_cmd)  # once each untimed: both sides' files in the page cache
        (floor, floor_cpu), (pnp, pnp_cpu) = median_times([floor_cmd, pnp_cmd], a.repeat)
        floor_size = floor_pdf.stat().st_size
        pnp_size = (t / "out" / "bench" / "deck.pdf").stat().st_size
        floor_rss, pnp_rss = peak_rss_mb(floor_cmd), peak_rss_mb(pnp_cmd)
    print(f"machine: {machine()}")
    print(f"deck: {a.cards} cards, 9-up on Letter, median of {a.repeat} whole-process runs each, taken in turn")
    print(f"floor (bare reportlab): {floor:.3f} s, {floor_size / 1024:.0f} KB, peak RSS {floor_rss:.0f} MB")
    print(f"pnp (JSON + template):  {pnp:.3f} s, {pnp_size / 1024:.0f} KB, peak RSS {pnp_rss:.0f} MB")
    print(f"ratio time {pnp / floor:.2f}x (target <= 2.0x), size {pnp_size / floor_size:.2f}x (target <= 2x); "
          f"CPU time {pnp_cpu / floor_cpu:.2f}x")


if __name__ == "__main__":
    main()
