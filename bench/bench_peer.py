"""Peer benchmark: the same deck built by pnp and by decksmith (a pip-installable card generator:
a YAML layout + a CSV of card data -> one raster PNG per card, then `decksmith export` lays the
PNGs 9-up on A4 pages of a PDF). Whole-process wall time of each tool, median of several runs,
in the same run; prints the ratio decksmith / pnp. Target (docs/performance.md): pnp at least 20x
faster.

decksmith is not a dependency of pnp: the script installs it with pip into its own venv
(bench/.venv-decksmith, git-ignored, reused by later runs).

The cards: the deck of bench/common.py (title "Card N" and two paragraphs from paragraph(),
in Lato Bold 12 pt / Lato Regular 8.5 pt with 1.2 leading, a 1 pt frame 2 mm inside a
63 x 88 mm card), drawn by decksmith at 300 dpi (744 x 1039 px) in the same fonts, sizes and
places. What differs, as decksmith allows: it rasterises (pnp writes vector text and lines);
its text wraps greedily on word widths (pnp's line breaking, but the same words); its title is
centred on its own box; its export prints only the cards, no crop marks, on A4 (its only page
size: pnp is run with --paper a4 here), in file-name order (card_1, card_10, card_11 ...) from the
bottom row of each page up.

    python bench/bench_peer.py [--cards 54] [--repeat 3] [--keep DIR]
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import compile_bytecode, machine, make_data_root, paragraph

from pnp.input.project import bundled_root

DECKSMITH = "decksmith==0.9.9"
VENV = Path(__file__).resolve().parent / ".venv-decksmith"
DPI = 300


def px(mm: float) -> int:
    return round(mm / 25.4 * DPI)


def pt(points: float) -> int:
    return round(points / 72 * DPI)


def decksmith_venv(requirement: str) -> Path:
    """bench/.venv-decksmith with decksmith installed (made once, then reused)."""
    exe = VENV / "bin" / "decksmith"
    marker = VENV / "installed.txt"
    if not exe.exists() or not marker.exists() or marker.read_text() != requirement:
        print(f"installing {requirement} into {VENV} ...", file=sys.stderr)
        venv.create(VENV, with_pip=True, clear=True)
        subprocess.run([str(VENV / "bin" / "python"), "-m", "pip", "install", "-q", requirement], check=True)
        marker.write_text(requirement)
    return exe


def write_decksmith_deck(folder: Path, cards: int) -> tuple[Path, Path]:
    """deck.yaml + deck.csv: the cards of bench/common.py make_data_root() at 300 dpi.

    decksmith's `position` is the top-left corner of an element (or, with `anchor`, the named
    point of its box); `width` wraps text to that many pixels; `line_spacing` is the extra space
    between lines in pixels."""
    fonts = bundled_root() / "fonts"
    body = pt(8.5)
    text = {"type": "text", "font_path": str(fonts / "Lato-Regular.ttf"), "font_size": body,
            "line_spacing": round(body * 0.2), "width": px(53), "color": [0, 0, 0]}
    spec = {
        "id": "canvas", "width": px(63), "height": px(88), "background_color": [255, 255, 255],
        "elements": [
            {"id": "frame", "type": "rectangle", "position": [px(2), px(2)], "size": [px(59), px(84)],
             "outline_color": [0, 0, 0], "outline_width": pt(1)},
            {"id": "title", "type": "text", "text": "%title%", "font_path": str(fonts / "Lato-Bold.ttf"),
             "font_size": pt(12), "position": [px(4 + 55 / 2), px(4 + 10 / 2)], "anchor": "center",
             "align": "center", "color": [0, 0, 0]},
            {"id": "a", **text, "text": "%a%", "position": [px(5), px(18)]},
            {"id": "b", **text, "text": "%b%", "position": [px(5), px(50)]},
        ],
    }
    yaml_path = folder / "deck.yaml"
    yaml_path.write_text(json.dumps(spec, indent=2))  # JSON is YAML
    csv_path = folder / "deck.csv"
    with csv_path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, delimiter=";")
        w.writerow(["title", "a", "b"])
        for i in range(cards):
            w.writerow([f"Card {i}", paragraph(i, 18), paragraph(i + 1, 14)])
    return yaml_path, csv_path


def timed(cmd: list[str], cwd: Path) -> float:
    """Wall time (s) of one child process."""
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, cwd=cwd)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cards", type=int, default=54)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--decksmith", default=DECKSMITH, help=f"pip requirement (default {DECKSMITH})")
    ap.add_argument("--keep", type=Path, help="copy both PDFs and one card PNG of decksmith here")
    a = ap.parse_args()
    compile_bytecode()
    exe = decksmith_venv(a.decksmith)
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        root = make_data_root(t / "data", a.cards)
        pnp_cmd = [sys.executable, "-m", "pnp", "build", "bench", "--data", str(root), "--out", str(t / "out"),
                   "--paper", "a4", "--duplex", "none", "--bleed", "0", "--force"]  # --force: every run renders
        ds = t / "decksmith"
        ds.mkdir()
        spec, data = write_decksmith_deck(ds, a.cards)

        # Two processes, as decksmith's README builds a deck: the PNGs, then the PDF. Run in their own
        # folder: decksmith writes decksmith.log into the working directory.
        ds_build = [str(exe), "build", "--output", str(ds / "png"), "--spec", str(spec), "--data", str(data)]
        ds_export = [str(exe), "export", str(ds / "png"), "--output", str(ds / "deck.pdf"), "--page-size", "A4",
                     "--width", "63", "--height", "88", "--gap", "0"]
        pnp_times, ds_times = [], []
        for _ in range(a.repeat):  # interleaved, so a busy moment of the machine hits both
            shutil.rmtree(ds / "png", ignore_errors=True)  # cold for both: nothing of the last run reused
            pnp_times.append(timed(pnp_cmd, t))
            ds_times.append(timed(ds_build, ds) + timed(ds_export, ds))
        pngs = sorted((ds / "png").glob("*.png"))
        if len(pngs) != a.cards:
            sys.exit(f"decksmith made {len(pngs)} PNGs, expected {a.cards}")
        pnp_pdf, ds_pdf = t / "out" / "bench" / "deck.pdf", ds / "deck.pdf"
        if a.keep:
            a.keep.mkdir(parents=True, exist_ok=True)
            shutil.copy(pnp_pdf, a.keep / "pnp.pdf")
            shutil.copy(ds_pdf, a.keep / "decksmith.pdf")
            shutil.copy(ds / "png" / "card_1.png", a.keep / "decksmith-card_1.png")
        pnp_t, ds_t = statistics.median(pnp_times), statistics.median(ds_times)
        pnp_kb, ds_kb = pnp_pdf.stat().st_size / 1024, ds_pdf.stat().st_size / 1024
    version = subprocess.run([str(VENV / "bin" / "python"), "-c", "import importlib.metadata as m; "
                              "print(m.version('decksmith'))"], capture_output=True, text=True).stdout.strip()
    print(f"machine: {machine()}")
    print(f"deck: {a.cards} cards, 9-up on A4, median of {a.repeat} whole-process runs")
    print(f"pnp (JSON + template, vector PDF):          {pnp_t:.3f} s, {pnp_kb:.0f} KB")
    print(f"decksmith {version} (YAML + CSV, PNGs + PDF): {ds_t:.3f} s, {ds_kb:.0f} KB")
    print(f"ratio decksmith / pnp: {ds_t / pnp_t:.1f}x (target >= 20x)")


if __name__ == "__main__":
    main()
