"""What PDFium holds to rasterise one image (pnp.render.pixels.held, MAX_IMAGE_SHAPES): SVG art
is one form in the PDF, but PDFium parses it again for every time a page draws it (attack 16,
F5: a 5,000-shape icon drawn 400 times on a card took 1.4 GB and aborted in native code, exit
134, under a 1.5 GB limit). Each rendered image is held to the cap before anything is rendered
or written: `export png` a piece side, `export tts` a sheet of faces, `preview` its one picture."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.products.test_export import load, ok, run, write_game

SQUARES = 50  # in the SVG art
TIMES = 10  # drawn on each front


def _root(tmp_path: Path) -> Path:
    """Three cards whose front draws a 50-square SVG 10 times through a `repeat`."""
    root = write_game(tmp_path / "root", "art", "poker-us", [{"id": n, "name": n.title(), "source": {"designed": "t"}}
                                                             for n in ("ash", "birch", "cedar")])
    img = root / "card_data" / "art" / "img"
    img.mkdir()
    squares = "".join(f'<rect x="{i % 10}" y="{i // 10}" width="1" height="1"/>' for i in range(SQUARES))
    (img / "a.svg").write_text(f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">{squares}</svg>',
                               encoding="utf-8")
    front = root / "templates" / "art" / "front.json"
    tpl = load(front)
    tpl["elements"].append({"type": "repeat", "count": TIMES, "step": [1, 1], "elements": [
        {"type": "image", "src": "img/a.svg", "box": [5, 5, 20, 20]}]})
    front.write_text(json.dumps(tpl), encoding="utf-8")
    return root


# Each front: its bleed rectangle and the art's squares each time (its text is not counted); the
# back: one rectangle. A TTS sheet: the three fronts and the back in the hidden slot; the
# contact sheet the same.
FRONT = 1 + SQUARES * TIMES


@pytest.mark.parametrize(("command", "held", "what", "times"), [
    (("export", "png"), FRONT, "the front of item 'ash' of component deck", TIMES),
    (("export", "tts"), 3 * FRONT + 1, "Tabletop Simulator sheet 1 of component deck", 3 * TIMES),
    (("preview",), 3 * FRONT + 1, "the preview of component deck", 3 * TIMES),
])
def test_an_image_holding_more_shapes_than_the_cap_is_refused_before_rendering(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: tuple[str, ...], held: int, what: str,
        times: int) -> None:
    """At exactly the shapes the image holds the command runs; one fewer and it exits 2 at the
    item in its data file, naming the art, how often it is drawn and the shapes in all, and writes
    nothing."""
    from pnp.render import pixels

    root = _root(tmp_path)
    args = [*command, "--data", root, "art", *(["deck"] if command == ("preview",) else []), "--dpi", "40"]
    monkeypatch.setattr(pixels, "MAX_IMAGE_SHAPES", held)
    ok(*args, "--out", tmp_path / "fits")
    monkeypatch.setattr(pixels, "MAX_IMAGE_SHAPES", held - 1)
    r = run(*args, "--out", tmp_path / "refused")
    assert r.exit_code == 2, r.stdout + r.stderr
    line = next(ln for ln in r.stderr.splitlines() if "SVG art" in ln)
    assert re.match(re.escape(str(root / "card_data/art/deck.json")) + r":\d+:\d+: \$\.items\[0\]: ", line), line
    assert (f"{what} draws SVG art '{root / 'card_data/art/img/a.svg'}' ({SQUARES} shapes) {times} times: "
            f"{held} shapes in all, more than `pnp {' '.join(command)}` "
            f"may hold at once to render one image (expected at most {held - 1} shapes in one rendered image, "
            "SVG art's counted each time it is drawn: PDFium holds about 500 bytes a shape); draw the art fewer "
            "times on a piece (a smaller `repeat` count, fewer inline `{icon:...}` in the text)") in line
    assert "Traceback" not in r.stderr
    assert not (tmp_path / "refused").exists()


def test_inline_icons_in_rich_text_count_each_time_they_are_drawn(tmp_path: Path) -> None:
    """Attack 16, F5 in little, at pnp's own cap: a 1,000-square icon written 251 times inline in a
    card's rich text is 251,000 shapes on the card, more than MAX_IMAGE_SHAPES; `pnp build`
    draws it (the PDF holds the icon once), `export png` refuses the card at its item."""
    from pnp.render.pixels import MAX_IMAGE_SHAPES

    assert MAX_IMAGE_SHAPES == 250_000
    root = write_game(tmp_path / "root", "art", "poker-us", [
        {"id": "ash", "name": "Ash", "text": "{icon:big}" * 251, "source": {"designed": "t"}}])
    deck = root / "card_data" / "art" / "deck.json"
    data = load(deck)
    data["fields"]["text"] = {"type": "text", "description": "Rules text"}
    deck.write_text(json.dumps(data), encoding="utf-8")
    icons = root / "templates" / "art" / "icons"
    icons.mkdir()
    squares = "".join(f'<rect x="{i % 40}" y="{i // 40}" width="1" height="1"/>' for i in range(1000))
    (icons / "big.svg").write_text(f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 25">{squares}</svg>',
                                   encoding="utf-8")
    front = root / "templates" / "art" / "front.json"
    tpl = load(front)
    tpl["icons"] = {"big": {"svg": "icons/big.svg"}}
    tpl["styles"]["rules"] = {"font": "Lato-Regular", "size": 10, "color": "#000000"}
    tpl["elements"].append({"type": "richtext", "box": [3, 3, "w-6", "h-6"], "text": "{text}", "style": "rules",
                            "fit": {"min_size": 2}})
    front.write_text(json.dumps(tpl), encoding="utf-8")
    ok("build", "--data", root, "art", "--out", tmp_path / "built")
    r = run("export", "png", "--data", root, "art", "--out", tmp_path / "refused")
    assert r.exit_code == 2, r.stdout + r.stderr
    assert re.search(r"/card_data/art/deck\.json:\d+:\d+: \$\.items\[0\]: the front of item 'ash' of component "
                     r"deck draws SVG art '[^']*icons/big\.svg' \(1000 shapes\) 251 times: 251001 shapes in all, "
                     r"more than `pnp export png` may hold at once", r.stderr), r.stderr
    assert not (tmp_path / "refused").exists()
