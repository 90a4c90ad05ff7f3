"""Shared pieces of the benchmarks: a synthetic deck as pnp data, the same deck drawn with bare
reportlab (the floor), and whole-process timing with peak memory of a child process."""

from __future__ import annotations

import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from words import paragraph


def make_data_root(root: Path, cards: int) -> Path:
    """A one-deck game: every card distinct (title + two wrapped paragraphs), no backs."""
    game = root / "card_data" / "bench"
    game.mkdir(parents=True, exist_ok=True)
    (root / "templates" / "bench").mkdir(parents=True, exist_ok=True)
    manifest = {"id": "bench", "title": "Bench", "players": {"min": 1}, "document": {"file": "none"},
                "components": [{"id": "deck", "title": "Deck", "kind": "card", "shape": "rect", "size": "poker",
                                "data": "deck.json", "template": "bench/card"}], "rulebook": []}
    (game / "game.json").write_text(json.dumps(manifest))
    items = [{"id": f"c{i}", "title": f"Card {i}", "a": paragraph(i, 18), "b": paragraph(i + 1, 14),
              "source": {"designed": "benchmark"}} for i in range(cards)]
    fields = {k: {"type": "string", "description": k} for k in ("title", "a", "b")}
    (game / "deck.json").write_text(json.dumps({"component": "deck", "fields": fields, "items": items}))
    template = {"styles": {"title": {"font": "Lato-Bold", "size": 12, "align": "center", "valign": "middle"},
                           "body": {"font": "Lato-Regular", "size": 8.5, "leading": 1.2}},
                "elements": [
                    {"type": "rect", "box": [2, 2, 59, 84], "fill": "none", "stroke": "#000000", "stroke_width": 1},
                    {"type": "text", "box": [4, 4, 55, 10], "text": "{title}", "style": "title"},
                    {"type": "text", "box": [5, 18, 53, 30], "text": "{a}", "style": "body"},
                    {"type": "text", "box": [5, 50, 53, 30], "text": "{b}", "style": "body"}]}
    (root / "templates" / "bench" / "card.json").write_text(json.dumps(template))
    return root


FLOOR = r'''
import sys
from reportlab.lib.pagesizes import letter
from reportlab.lib.units import mm
from reportlab.lib.utils import simpleSplit
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas
sys.path.insert(0, {bench!r})
from words import paragraph
n, out, fonts = int(sys.argv[1]), sys.argv[2], sys.argv[3]
pdfmetrics.registerFont(TTFont("Lato-Regular", fonts + "/Lato-Regular.ttf"))
pdfmetrics.registerFont(TTFont("Lato-Bold", fonts + "/Lato-Bold.ttf"))
c = Canvas(out, pagesize=letter, invariant=1, initialFontName="Lato-Regular", pageCompression=1)
W, H = 63 * mm, 88 * mm
x0, y0 = (letter[0] - 3 * W) / 2, (letter[1] - 3 * H) / 2
for i in range(n):
    k = i % 9
    if k == 0 and i:
        c.showPage()
    x, y = x0 + (k % 3) * W, y0 + (2 - k // 3) * H
    if k == 0:  # crop marks: the 4 x 4 trim lines, in the margins
        c.setLineWidth(0.25)
        for j in range(4):
            c.line(x0 + j * W, 0, x0 + j * W, y0 - 3)
            c.line(x0 + j * W, y0 + 3 * H + 3, x0 + j * W, letter[1])
            c.line(0, y0 + j * H, x0 - 3, y0 + j * H)
            c.line(x0 + 3 * W + 3, y0 + j * H, letter[0], y0 + j * H)
    c.setLineWidth(1)
    c.rect(x + 2 * mm, y + 2 * mm, 59 * mm, 84 * mm)
    c.setFont("Lato-Bold", 12)
    c.drawCentredString(x + W / 2, y + H - 10 * mm, f"Card {{i}}")
    for text, top in ((paragraph(i, 18), 18), (paragraph(i + 1, 14), 50)):
        c.setFont("Lato-Regular", 8.5)
        yy = y + H - top * mm - 8.5
        for line in simpleSplit(text, "Lato-Regular", 8.5, 53 * mm):
            c.drawString(x + 5 * mm, yy, line)
            yy -= 8.5 * 1.2
c.showPage()
c.save()
'''


def floor_script(path: Path) -> Path:
    path.write_text(FLOOR.format(bench=str(Path(__file__).resolve().parent)))
    return path


def run(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall time (s) and CPU time (user + system, s) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env={**os.environ, **(env or {})})
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def usage(cmd: list[str]) -> tuple[float, float, float]:
    """Wall time (s), CPU time (user + system, s) and peak RSS (MB) of one fresh child process,
    measured in a wrapper process that runs only that child (its RUSAGE_CHILDREN is that child's)."""
    wrapper = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, "
               "stdout=subprocess.DEVNULL); r = resource.getrusage(resource.RUSAGE_CHILDREN); "
               "print(r.ru_utime + r.ru_stime, r.ru_maxrss)")
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", wrapper, *cmd], check=True, capture_output=True, text=True)
    wall = time.perf_counter() - t
    cpu, rss = out.stdout.split()
    return wall, float(cpu), int(rss) / 1024


def peak_rss_mb(cmd: list[str]) -> float:
    """Peak RSS (MB) of one fresh child process."""
    return usage(cmd)[2]


def median_times(cmds: list[list[str]], repeat: int) -> list[tuple[float, float]]:
    """The median wall time and median CPU time of each command, the commands run in turn (one of
    each, ``repeat`` times over), so that a machine slowing down or speeding up mid-run weighs on
    all alike."""
    times: list[list[tuple[float, float]]] = [[] for _ in cmds]
    for _ in range(repeat):
        for ts, cmd in zip(times, cmds, strict=True):
            ts.append(run(cmd))
    return [(statistics.median(w for w, _ in ts), statistics.median(c for _, c in ts)) for ts in times]


def compile_bytecode() -> None:
    """Compile pnp's modules to bytecode first, as `pip install .` does: reportlab and the other
    libraries on both sides of a benchmark load from bytecode, so pnp should too (with
    PYTHONDONTWRITEBYTECODE set, an editable checkout would otherwise compile every module on
    every run)."""
    import compileall

    import pnp

    compileall.compile_dir(str(Path(pnp.__file__).resolve().parent), quiet=1)


def machine() -> str:
    return (f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"{platform.platform(terse=True)}")
