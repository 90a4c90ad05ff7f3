"""How well the pixel budget's cost model of SVG art (pnp.render.pixels.ArtWork, from
pnp.layout.svg_cost.ArtCost and the painting) predicts what PDFium takes to draw it: for each kind of
art, a letter sheet of nine 63 x 88 mm cards each drawing the art over the whole card, rendered at
a dpi with pypdfium2 in this process (CPU, the least of ``--rounds``), less the same sheet drawing
a one-rectangle art; against what `pnp export png` at that dpi counts for the art of those nine
cards (its message past the budget: the pixels counted together, less the images' own), at
NS_PER_PIXEL a counted pixel. ``ratio`` = measured / counted: above 1 the art costs more than it
is charged (the budget lets through that many times its CPU), below 1 less.

    python bench/bench_art_cost.py [--dpi 36,300] [--rounds 3] [--only NAME,...]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

CARDS = 9  # one letter sheet of poker cards
W, H = 63, 88  # the art's viewBox: the card, in mm


def _svg(body: str, defs: str = "") -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}">'
            f"{f'<defs>{defs}</defs>' if defs else ''}{body}</svg>")


def _stops(n: int) -> str:
    return "".join(f'<stop offset="{i / (n - 1):.3f}" stop-color="{("#c03030", "#3050c0")[i % 2]}"/>'
                   for i in range(n))


def _rects(n: int, fill: str, extra: str = "", size: tuple[float, float] | None = None) -> str:
    if size is None:
        return "".join(f'<rect width="{W}" height="{H}" fill="{fill}"{extra}/>' for _ in range(n))
    w, h = size
    cols = max(1, int(W // (w * 1.5)))
    return "".join(f'<rect x="{(i % cols) * w * 1.5:.2f}" y="{(i // cols) * h * 1.5 % H:.2f}" width="{w}" '
                   f'height="{h}" fill="{fill}"{extra}/>' for i in range(n))


def _random_path(n: int, seed: int) -> str:
    rnd = random.Random(seed)
    return "M0 0 " + " ".join(f"L{rnd.uniform(0, W):.2f} {rnd.uniform(0, H):.2f}" for _ in range(n))


def _zigzag(n: int) -> str:
    return "M0 0" + "".join(f" L{W} {H} L0 0" for _ in range(n // 2))


CASES: dict[str, Callable[[], str]] = {
    "opaque-rects-300": lambda: _svg(_rects(300, "#2a6f97")),
    "see-through-rects-100": lambda: _svg(_rects(100, "#2a6f97", ' fill-opacity="0.5"')),
    "small-rects-5000": lambda: _svg(_rects(5000, "#2a6f97", size=(0.5, 0.5))),
    "circles-3000": lambda: _svg("".join(f'<circle cx="{i % 60 + 1}" cy="{i // 60 * 1.7 % H}" r="0.4" fill="#333"/>'
                                         for i in range(3000))),
    "radial-gradient-rects-30": lambda: _svg(_rects(30, "url(#g)"), f'<radialGradient id="g">{_stops(2)}'
                                            "</radialGradient>"),
    "linear-gradient-rects-30": lambda: _svg(_rects(30, "url(#g)"), f'<linearGradient id="g">{_stops(2)}'
                                            "</linearGradient>"),
    "radial-gradient-8-stops-30": lambda: _svg(_rects(30, "url(#g)"), f'<radialGradient id="g">{_stops(8)}'
                                              "</radialGradient>"),
    "tiny-gradient-rects-3000": lambda: _svg(_rects(3000, "url(#g)", size=(0.5, 0.5)),
                                            f'<radialGradient id="g">{_stops(2)}</radialGradient>'),
    "reflected-gradient-rects-30": lambda: _svg(_rects(30, "url(#g)"), '<linearGradient id="g" x2="0.02" '
                                               f'spreadMethod="reflect">{_stops(2)}</linearGradient>'),
    "stroke-zigzag-4000": lambda: _svg(f'<path d="{_zigzag(4000)}" fill="none" stroke="#000" stroke-width="0.3"/>'),
    "fill-random-edges-20000": lambda: _svg(f'<path d="{_random_path(20000, 1)} Z" fill="#000"/>'),
    "evenodd-random-edges-20000": lambda: _svg(f'<path d="{_random_path(20000, 2)} Z" fill="#000" '
                                              'fill-rule="evenodd"/>'),
    "stroked-tiny-joins-20000": lambda: _svg('<path d="M30 40 ' + "l.1 .1 l-.1 -.1 " * 10000 + '" fill="none" '
                                            'stroke="#000" stroke-width="1" stroke-linejoin="round"/>'),
    "dashed-lines-200": lambda: _svg("".join(f'<line x1="0" y1="{i * 0.4}" x2="{W}" y2="{i * 0.4}" stroke="#000" '
                                             'stroke-width="0.1" stroke-dasharray="0.2 0.2"/>' for i in range(200))),
    "curves-5000": lambda: _svg('<path d="M0 0 ' + " ".join(f"C{i % 63} 0 {i % 63} 88 {(i * 7) % 63} {(i * 3) % 88}"
                                                            for i in range(5000)) + '" fill="none" stroke="#000"/>'),
    "clipped-rects-200": lambda: _svg("".join(f'<rect width="{W}" height="{H}" fill="#2a6f97" clip-path="url(#c)"/>'
                                              for _ in range(200)), '<clipPath id="c"><circle cx="31" cy="44" '
                                      'r="30"/></clipPath>'),
}
BASE = _svg('<rect width="1" height="1" fill="#000"/>')


def make_root(root: Path, art: str) -> Path:
    game = root / "card_data" / "art"
    game.mkdir(parents=True, exist_ok=True)
    (root / "templates" / "art").mkdir(parents=True, exist_ok=True)
    manifest = {"id": "art", "title": "Art", "players": {"min": 1}, "document": {"file": "none"},
                "components": [{"id": "deck", "title": "Deck", "kind": "card", "shape": "rect", "size": "poker",
                                "data": "deck.json", "template": "art/card"}], "rulebook": []}
    (game / "game.json").write_text(json.dumps(manifest))
    items = [{"id": f"c{i}", "source": {"designed": "benchmark"}} for i in range(CARDS)]
    (game / "deck.json").write_text(json.dumps({"component": "deck", "fields": {}, "items": items}))
    (game / "art.svg").write_text(art)
    template = {"elements": [{"type": "image", "box": [0, 0, "w", "h"], "src": "art.svg", "fit": "stretch"}]}
    (root / "templates" / "art" / "card.json").write_text(json.dumps(template))
    return root


def counted(root: Path, dpi: int) -> int:
    """What `pnp export png` at ``dpi`` counts for the art of the nine cards, in pixels: its
    message past a budget the cards' own pixels fill (found with a budget of 1)."""
    from click.testing import CliRunner

    from pnp.cli.commands import main
    from pnp.render import pixels

    def said(limit: int) -> str:
        keep, pixels.MAX_COMMAND_PIXELS = pixels.MAX_COMMAND_PIXELS, limit
        try:
            return CliRunner().invoke(main, ["export", "png", "--data", str(root), "art", "--out",
                                             str(root / "png"), "--dpi", str(dpi)]).output
        finally:
            pixels.MAX_COMMAND_PIXELS = keep

    images = re.search(r"of (\d+) pixels together", said(1))
    if images is None:
        raise SystemExit("no budget message")
    together = re.search(r": (\d+) together\)", said(int(images.group(1))))
    return int(together.group(1)) - int(images.group(1)) if together else 0


def drawn(root: Path, dpi: int, rounds: int) -> float:
    """CPU seconds PDFium takes to render the sheet of nine cards at ``dpi``, the least of ``rounds``."""
    import pypdfium2 as pdfium

    from pnp import api

    out = root / "out"
    api.build(["art"], data=root, out=out, duplex="none")
    best = float("inf")
    for _ in range(rounds):
        doc = pdfium.PdfDocument(str(out / "art" / "deck.pdf"))
        try:
            t = time.process_time()
            doc[0].render(scale=dpi / 72)
            best = min(best, time.process_time() - t)
        finally:
            doc.close()
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dpi", default="36,300")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    from pnp.render.pixels import NS_PER_PIXEL

    dpis = [int(d) for d in args.dpi.split(",")]
    names = [n for n in CASES if not args.only or n in args.only.split(",")]
    print(f"{'art':32} {'dpi':>4} {'ms/drawing':>10} {'counted ms':>10} {'ratio':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        base = make_root(Path(tmp) / "base", BASE)
        floor = {d: (drawn(base, d, args.rounds), counted(base, d)) for d in dpis}
        worst = 0.0
        for name in names:
            root = make_root(Path(tmp) / name, CASES[name]())
            for d in dpis:
                t = max(0.0, drawn(root, d, args.rounds) - floor[d][0]) / CARDS
                c = (counted(root, d) - floor[d][1]) / CARDS * NS_PER_PIXEL / 1e9
                ratio = t / c if c > 0 else float("inf")
                worst = max(worst, ratio)
                print(f"{name:32} {d:>4} {t * 1000:>10.1f} {c * 1000:>10.1f} {ratio:>6.2f}", flush=True)
        print(f"highest ratio: {worst:.2f}")


if __name__ == "__main__":
    sys.exit(main())
