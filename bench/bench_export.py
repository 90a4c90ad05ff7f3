"""PNG export benchmark: ``pnp.export_png`` of bundled games at 300 dpi with ``jobs=1`` and with
one process per core, alternated in the same run (so a busy machine slows both alike); prints
PNGs per second for each (the whole call: check, PDFs, images, files) and the ratio, median of
``--repeat`` runs, and checks that both wrote the same bytes (target, issue 20: >= 100 card PNGs
per second at 300 dpi on 2 cores).

    python bench/bench_export.py [--games golems cyberiad] [--repeat 3] [--dpi 300]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import machine

import pnp
from pnp.products.workers import default_jobs


def cpu() -> float:
    """CPU seconds (user + system) of this process and its finished children."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def export(games: list[str], out: Path, dpi: int, jobs: int) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (with the workers') and PNGs written exporting every game in ``games``."""
    t, c = time.perf_counter(), cpu()
    n = 0
    for g in games:
        r = pnp.export_png(g, out=out, dpi=dpi, jobs=jobs)
        assert r.ok, r.errors
        n += sum(len(e.files) for e in r.exported)
    return time.perf_counter() - t, cpu() - c, n


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def child(games: list[str], dpi: int, jobs: int, keep: Path) -> None:
    """One side of ``--against``: warm up, then one timed export into ``keep``; prints JSON."""
    export(games, keep.parent / f"{keep.name}-warm", dpi, 1)
    wall, used, n = export(games, keep, dpi, jobs)
    print(json.dumps({"wall": wall, "cpu": used, "n": n}))


def pixels(folder: Path) -> dict[str, bytes]:
    """Every file's bytes, a PNG's as its decoded pixels (mode, size and dpi included)."""
    from PIL import Image

    out = {}
    for name, data in tree(folder).items():
        if name.endswith(".png"):
            with Image.open(folder / name) as im:
                data = repr((im.mode, im.size, im.info.get("dpi"))).encode() + im.tobytes()
        out[name] = data
    return out


def against(a: argparse.Namespace, jobs: int) -> None:
    sides = {"this": os.environ.get("PYTHONPATH", ""), "against": str(Path(a.against).resolve())}
    walls: dict[tuple[str, int], list[float]] = {}
    cpus: dict[tuple[str, int], list[float]] = {}
    count = 0
    with tempfile.TemporaryDirectory(prefix="pnp-bench-export-") as tmp:
        for r in range(a.repeat):
            for j in (1, jobs):
                for side, path in sides.items():
                    env = {**os.environ, "PYTHONPATH": path} if path else dict(os.environ)
                    keep = Path(tmp) / f"{side}-j{j}-{r}"
                    cmd = [sys.executable, __file__, "--child", str(j), "--keep", str(keep), "--dpi", str(a.dpi),
                           "--games", *a.games]
                    out = json.loads(subprocess.run(cmd, env=env, cwd=tmp, check=True, capture_output=True,
                                                    text=True).stdout.strip().splitlines()[-1])
                    walls.setdefault((side, j), []).append(out["wall"])
                    cpus.setdefault((side, j), []).append(out["cpu"])
                    count = out["n"]
        last = a.repeat - 1
        same = pixels(Path(tmp) / f"this-j{jobs}-{last}") == pixels(Path(tmp) / f"against-j{jobs}-{last}")
        same_bytes = tree(Path(tmp) / f"this-j1-{last}") == tree(Path(tmp) / f"this-j{jobs}-{last}")
    print(f"{' '.join(a.games)}: {count} PNGs at {a.dpi} dpi, median of {a.repeat}, this pnp against {a.against}")
    for j in (1, jobs):
        t, o = statistics.median(walls[("this", j)]), statistics.median(walls[("against", j)])
        ct, co = statistics.median(cpus[("this", j)]), statistics.median(cpus[("against", j)])
        print(f"  --jobs {j}: this {count / t:6.1f} PNGs/s ({ct / count * 1000:5.1f} ms CPU per PNG), "
              f"against {count / o:6.1f} PNGs/s ({co / count * 1000:5.1f} ms); this is {o / t:.2f}x as fast")
    print(f"  load average at the end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"  same pixels as {a.against}: {'yes' if same else 'NO'}; --jobs 1 and {jobs}, same bytes: "
          f"{'yes' if same_bytes else 'NO'}")
    if not (same and same_bytes):
        sys.exit(1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="+", default=["golems", "cyberiad", "capek-golems"])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dpi", type=int, default=300)
    ap.add_argument("--against", metavar="SRC", help="another pnp source tree, run in turn with this one")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--keep", type=Path, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(a.games, a.dpi, a.child, a.keep)
        return
    jobs = default_jobs()
    print(machine())
    if a.against:
        against(a, jobs)
        return
    times: dict[int, list[float]] = {1: [], jobs: []}
    cpus: dict[int, list[float]] = {1: [], jobs: []}
    count = 0
    with tempfile.TemporaryDirectory(prefix="pnp-bench-export-") as tmp:
        export(a.games, Path(tmp) / "warm", a.dpi, 1)  # fonts and imports loaded, disk caches warm
        for r in range(a.repeat):
            for j in (1, jobs):
                out = Path(tmp) / f"j{j}-{r}"
                s, c, count = export(a.games, out, a.dpi, j)
                times[j].append(s)
                cpus[j].append(c)
        same = tree(Path(tmp) / f"j1-{a.repeat - 1}") == tree(Path(tmp) / f"j{jobs}-{a.repeat - 1}")
    one, many = statistics.median(times[1]), statistics.median(times[jobs])
    print(f"{' '.join(a.games)}: {count} PNGs at {a.dpi} dpi, median of {a.repeat}")
    for j, wall in ((1, one), (jobs, many)):
        used = statistics.median(cpus[j])
        print(f"  --jobs {j}: {wall:6.2f} s  {count / wall:6.1f} PNGs/s  ({one / wall:.2f}x)  "
              f"CPU {used:6.2f} s = {used / count * 1000:5.1f} ms per PNG")
    load = os.getloadavg()[0]
    print(f"  load average at the end: {load:.2f} on {os.cpu_count()} cores (other processes slow --jobs {jobs} most)")
    print(f"  same bytes: {'yes' if same else 'NO'}")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
