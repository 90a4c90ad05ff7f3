"""`pnp serve` in a real browser: Debian's headless Chromium (installed by .ci/run) loads the
game page and sees every piece picture load, then a data file of a temporary copy of the game
is edited and the open page changes by itself (no reload), an input error appears beside the
last good pictures, and fixing it clears it. Screenshots of each step are kept in the test's
temporary folder (and in $PNP_SCREENSHOTS when set) for a person to look at."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from cdp import Browser, chromium
from conftest import DataRootCopy, bundled_copy

from pnp import api
from pnp.serve.gallery import GameView
from pnp.serve.server import Server, serve

pytestmark = pytest.mark.slow

if chromium() is None and not os.environ.get("PNP_BROWSER_TESTS"):  # .ci/run installs it and sets this
    pytest.skip("no chromium on this machine (apt-get install chromium)", allow_module_level=True)

PIECES = "[...document.querySelectorAll('main figure img')]"
ALL_LOADED = f"{PIECES}.length > 0 && {PIECES}.every(i => i.complete)"
FLESH_FRONT = "document.querySelector('figure[data-item=\"flesh\"] img[data-side=\"front\"]')"


@pytest.fixture
def golems_served(tmp_path: Path) -> Iterator[tuple[Server, DataRootCopy]]:
    game = bundled_copy(tmp_path, "golems")
    view = GameView(api.watch("golems", data=game.path, out=tmp_path / "out", jobs=1))
    server = serve([view], port=0, interval=0.2, log=lambda line: None)
    try:
        yield server, game
    finally:
        server.close()


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    b = Browser(tmp_path / "chromium-profile")
    try:
        yield b
    finally:
        b.close()


def shot(browser: Browser, tmp_path: Path, name: str) -> None:
    path = tmp_path / f"{name}.png"
    browser.screenshot(path)
    if os.environ.get("PNP_SCREENSHOTS"):
        Path(os.environ["PNP_SCREENSHOTS"]).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(os.environ["PNP_SCREENSHOTS"]) / path.name)


def test_page_loads_every_piece_and_follows_edits_without_reload(
        golems_served: tuple[Server, DataRootCopy], browser: Browser, tmp_path: Path) -> None:
    server, game = golems_served
    view = server.views["golems"]
    browser.navigate(server.url + "game/golems")
    browser.wait_for(ALL_LOADED)
    loaded = browser.evaluate(f"{PIECES}.map(i => [i.alt, i.naturalWidth, i.naturalHeight])")
    expected = sum(len(p.sides) for c in view.components for p in c.pieces)
    assert len(loaded) == expected == 283  # 141 distinct items, most with a back
    assert [alt for alt, w, h in loaded if not (w > 0 and h > 0)] == []
    assert browser.wait_for("document.getElementById('live-status').textContent === 'live'")
    shot(browser, tmp_path, "1-golems")

    # A mark a reload would wipe out, and the flesh card's picture before the edit.
    browser.evaluate("window.notReloaded = true")
    before = browser.evaluate(f"{FLESH_FRONT}.src")

    game.edit("golem-deck.json", lambda d: d["items"][0].update(name="Mud Flesh"))  # item 0 is flesh
    assert game.read("golem-deck.json")["items"][0]["id"] == "flesh"
    browser.wait_for(f"{FLESH_FRONT}.src !== {json.dumps(before)}")
    browser.wait_for(ALL_LOADED)
    assert browser.evaluate("window.notReloaded === true")
    assert browser.evaluate(f"{FLESH_FRONT}.naturalWidth") > 0
    assert browser.evaluate(f"[{PIECES}.length, {PIECES}.every(i => i.naturalWidth > 0)]") == [283, True]
    browser.evaluate(f"{FLESH_FRONT}.scrollIntoView()")
    shot(browser, tmp_path, "2-edited")

    # An input error: the page shows it in `pnp check`'s words beside the last good pictures.
    game.replace("golem-deck.json", '"name": "Mud Flesh"', '"name": 7')
    # (the edit truncates, then writes: a poll between the two sees an empty file and says so,
    # and the next poll the real error, as with an editor that saves in place)
    text = browser.wait_for("document.querySelector('section.errors') && "
                            "document.querySelector('section.errors pre').textContent.includes('$.items[0].name') && "
                            "document.querySelector('section.errors pre').textContent")
    # named from the server's working folder (here outside the data root: an absolute path)
    assert text.split(":")[0].endswith("card_data/golems/golem-deck.json") and "$.items[0].name" in text
    assert browser.evaluate(f"[{PIECES}.length, {PIECES}.every(i => i.naturalWidth > 0)]") == [283, True]
    assert browser.evaluate("window.notReloaded === true")
    browser.evaluate("window.scrollTo(0, 0)")
    shot(browser, tmp_path, "3-error")

    game.replace("golem-deck.json", '"name": 7', '"name": "Flesh"')
    browser.wait_for("document.querySelector('section.errors') === null")
    browser.wait_for(f"{FLESH_FRONT}.src === {json.dumps(before)}")  # the same picture, the same URL
    assert browser.evaluate("window.notReloaded === true")


def test_item_page_and_sheets_load(golems_served: tuple[Server, DataRootCopy], browser: Browser,
                                   tmp_path: Path) -> None:
    server, _ = golems_served
    browser.navigate(server.url + "game/golems/golem-deck/flesh")
    browser.wait_for(ALL_LOADED)
    # a poker card, 63 mm wide, at 110 dpi: 272.8 px
    assert browser.evaluate(f"{PIECES}.map(i => i.naturalWidth)") == [273, 273]
    assert "card_data/golems/golem-deck.json:" in browser.evaluate("document.querySelector('code.where').textContent")
    shot(browser, tmp_path, "4-item")
    browser.navigate(server.url + "game/golems")
    sheets = "[...document.querySelectorAll('.sheets img')]"
    browser.evaluate(f"{sheets}.forEach(i => i.loading = 'eager')")
    browser.wait_for(f"{sheets}.length > 0 && {sheets}.every(i => i.complete)")
    assert browser.evaluate(f"{sheets}.filter(i => !(i.naturalWidth > 0)).map(i => i.alt)") == []
    assert browser.evaluate(f"{sheets}.length") == sum(c.pages for c in server.views["golems"].components)
