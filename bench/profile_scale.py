"""Where the time of a large build goes: py-spy samples one whole ``pnp build`` of the synthetic
deck of bench_scale.py (10,000 cards by default) and this script sorts the samples into the
stages below, each sample into the first stage whose files appear anywhere on its stack (so text
laid out while a page is drawn counts as text layout, not drawing). Needs py-spy, which is not a
dependency of pnp (``pip install py-spy``; on Linux it may need root or ptrace permission).

    python bench/profile_scale.py [--cards 10000] [--rate 250]
"""

from __future__ import annotations

import argparse
import collections
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import compile_bytecode, machine, make_data_root

# (stage, fragments of a frame's file name or function): checked in this order.
STAGES = [
    ("imports", ("<frozen importlib", "_find_and_load")),
    ("preflight (watching the pieces as drawn)", ("pnp/qa/preflight.py",)),
    ("loading fonts", ("pnp/layout/fonts.py:_register",)),
    ("text layout", ("pnp/layout/text.py", "pnp/layout/fonts.py")),
    ("other layout (fields, shapes, icons, pieces)", ("pnp/layout/",)),
    ("sheet labels and marks", ("pnp/impose/marks.py",)),
    ("data versions and fingerprints", ("pnp/plan/digest.py",)),
    ("reportlab save and compression", ("canvas.py:Canvas.save",)),
    ("drawing the pieces (pnp/render/draw.py, reportlab canvas)", ("pnp/render/", "reportlab/")),
    ("loading and checking the data", ("pnp/input/", "pnp/qa/")),
    ("planning and imposing", ("pnp/plan/", "pnp/impose/")),
    ("contents sheet", ("pnp/products/",)),
]


def stage_of(stack: str) -> str:
    for name, fragments in STAGES:
        if any(f in stack for f in fragments):
            return name
    return "the rest (start-up, CLI, writing, exit)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cards", type=int, default=10_000)
    ap.add_argument("--rate", type=int, default=250, help="samples per second")
    a = ap.parse_args()
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(spy).exists():
        sys.exit("py-spy not found: pip install py-spy")
    compile_bytecode()
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        root = make_data_root(t / "data", a.cards)
        raw = t / "samples.txt"
        subprocess.run([spy, "record", "--full-filenames", "-f", "raw", "-r", str(a.rate), "-o", str(raw), "--",
                        sys.executable, "-m", "pnp", "build", "bench", "--data", str(root), "--out", str(t / "out"),
                        "--duplex", "none", "--bleed", "0", "--force"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        counts: collections.Counter[str] = collections.Counter()
        for line in raw.read_text().splitlines():
            stack, _, n = line.rpartition(" ")
            # py-spy writes "function (file:line)"; "file:function" makes the save fragment above match
            frames = [f"{f.rpartition('(')[2].split(':')[0]}:{f.partition(' ')[0]}" for f in stack.split(";")]
            counts[stage_of(";".join(frames))] += int(n)
    total = sum(counts.values())
    print(f"machine: {machine()}")
    print(f"deck: {a.cards} cards, one pnp build, {total} py-spy samples at {a.rate} a second")
    for name, n in counts.most_common():
        print(f"  {n / total:6.1%}  {name}")


if __name__ == "__main__":
    main()
