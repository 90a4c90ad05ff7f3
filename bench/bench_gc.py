"""Garbage-collector benchmark: what pnp's collector setting gains on the 10,000-card deck of
bench_scale.py. ``pnp.cli.run`` (the ``pnp`` command) collects the young generation every
10,000 allocations instead of 700 and freezes everything at exit, so the interpreter skips its
final full collection. The same build runs as shipped, without that setting, with each half of it
alone, and with the setting pnp dropped added back (each component drawn with everything alive
before it frozen and the young generation collected every 20,000 allocations). The bare
reportlab floor runs too, for scale. Each variant is patched in its own child process before the
build starts (pnp's files are not touched). The variants run in turn, ``--repeat`` times over:
the median wall time and CPU time (user + system: the steadier figure on a shared machine) of
each, against the build as shipped, and the peak RSS. A setting stays in pnp only if the build
without it is at least 5 % slower (docs/performance.md).

    python bench/bench_gc.py [--cards 10000] [--repeat 15]
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

# Each variant is a child process started as ``python -c CODE build ...``, all in the same way,
# so that launching costs the same for each.
MAIN = "import gc\nfrom pnp.cli import main\n"
DRAWING = """
import contextlib, gc, pnp.pipeline.build as b
assert hasattr(b, "render_component")
plain = b.render_component
def render_component(*args, **kwargs):
    if gc.get_freeze_count():
        return plain(*args, **kwargs)
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(max(thresholds[0], 20_000), *thresholds[1:])
    try:
        return plain(*args, **kwargs)
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
b.render_component = render_component
"""
VARIANTS = {
    "as shipped": "from pnp.cli import run; run()",
    "run()'s setting off": MAIN + "main()",
    "threshold only": MAIN + "gc.set_threshold(10_000, 10, 10)\nmain()",
    "exit freeze only": MAIN + "try:\n    main()\nfinally:\n    gc.freeze()",
    "+ drawing's former": DRAWING + "from pnp.cli import run; run()",
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cards", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=15, help="runs of each variant; the median time is shown")
    a = ap.parse_args()
    compile_bytecode()
    fonts = str(bundled_root() / "fonts")
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        script = floor_script(t / "floor.py")
        root = make_data_root(t / "data", a.cards)
        build = ["build", "bench", "--data", str(root), "--out", str(t / "out"), "--duplex", "none", "--bleed", "0",
                 "--force"]  # --force: every run renders (no cache)
        cmds = {"floor (bare reportlab)": [sys.executable, str(script), str(a.cards), str(t / "floor.pdf"), fonts]}
        cmds |= {name: [sys.executable, "-c", code, *build] for name, code in VARIANTS.items()}
        runs: dict[str, list[tuple[float, float, float]]] = {name: [] for name in cmds}
        for _ in range(a.repeat):  # in turn, so a busy moment of the machine weighs on every variant
            for name, cmd in cmds.items():
                runs[name].append(usage(cmd))
    wall = {name: statistics.median(r[0] for r in rs) for name, rs in runs.items()}
    cpu = {name: statistics.median(r[1] for r in rs) for name, rs in runs.items()}
    mb = {name: max(r[2] for r in rs) for name, rs in runs.items()}
    floor = "floor (bare reportlab)"
    print(f"machine: {machine()}")
    print(f"deck: {a.cards} cards, median of {a.repeat} whole-process runs of each variant, taken in turn")
    print(f"  {'':<24} {'wall s':>7} {'/floor':>7} {'vs shipped':>10}  {'CPU s':>6} {'vs shipped':>10}  {'peak MB':>7}")
    for name in cmds:
        print(f"  {name:<24} {wall[name]:>7.2f} {wall[name] / wall[floor]:>6.2f}x "
              f"{wall[name] / wall['as shipped'] - 1:>+10.1%}  {cpu[name]:>6.2f} "
              f"{cpu[name] / cpu['as shipped'] - 1:>+10.1%}  {mb[name]:>7.0f}")

if __name__ == "__main__":
    main()
