"""Realistic editing mistakes, made on a temporary copy of a bundled game, are each caught by
``pnp check``: exit 1 with the named rules listed as FAIL (or exit 2 for input the loader refuses).
The mistakes were written for issue 22 apart from the bundled data's own rule tests: a value changed
while its quote still says the old one, a card dropped, an id duplicated, quotes swapped, a size
changed, a colour repeated, a count edited."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from conftest import DataRootCopy, assert_no_traceback, bundled_copy


def item(d: dict[str, Any], iid: str) -> dict[str, Any]:
    return next(i for i in d["items"] if i["id"] == iid)


def drop(iid: str) -> Callable[[dict[str, Any]], None]:
    def fn(d: dict[str, Any]) -> None:
        d["items"].remove(item(d, iid))
    return fn


def swap_sources(a: str, b: str) -> Callable[[dict[str, Any]], None]:
    def fn(d: dict[str, Any]) -> None:
        item(d, a)["source"], item(d, b)["source"] = item(d, b)["source"], item(d, a)["source"]
    return fn


def size(cid: str, mm: float) -> Callable[[dict[str, Any]], None]:
    def fn(m: dict[str, Any]) -> None:
        next(c for c in m["components"] if c["id"] == cid)["size"] = [mm, mm]
    return fn


def template_size(old: float, new: float, *names: str) -> Callable[[DataRootCopy], None]:
    """Scale templates (their size and every top-level box) from ``old`` to ``new`` mm."""
    def fn(root: DataRootCopy) -> None:
        for name in names:
            tpl = root.read(f"templates/{name}.json")
            k = new / old
            tpl["size"] = [new, new]
            for el in tpl["elements"]:
                if "box" in el:
                    el["box"] = [round(v * k, 2) for v in el["box"]]
            root.write(f"templates/{name}.json", tpl)
    return fn


class Mistake(NamedTuple):
    name: str
    game: str
    file: str
    edit: Callable[[Any], Any]
    caught_by: set[str]  # rules that fail (exit 1); empty: the loader refuses it (exit 2)
    template: Callable[[DataRootCopy], None] | None = None
    message: str = ""  # with exit 2: a line of the error output


MISTAKES = [
    Mistake("event value changed, quote kept", "golems", "event-deck.json",
            lambda d: item(d, "dodge").update(text="Target Small or Medium Golem gets +5 Armor"),
            {"event-deck-values-in-quotes"}),
    Mistake("material force changed", "golems", "golem-deck.json", lambda d: item(d, "stone").update(force=4),
            {"golem-hardness-determines-stats", "golem-deck-values-in-quotes"}),
    Mistake("size card hits changed", "golems", "golem-deck.json", lambda d: item(d, "medium").update(hits=3),
            {"golem-deck-values-in-quotes"}),
    Mistake("wizard hits changed", "golems", "wizard.json", lambda d: item(d, "wizard-red").update(hits=4),
            {"wizard-stats", "wizard-values-in-quotes"}),
    Mistake("event dropped", "golems", "event-deck.json", drop("maul"), {"events-23", "events-46", "events-battle-12"}),
    Mistake("two event quotes swapped", "golems", "event-deck.json", swap_sources("swoop", "maul"),
            {"event-deck-values-in-quotes"}),
    Mistake("terrain note typed wrong", "golems", "terrain.json",
            lambda d: item(d, "quarry").update(notes="Needed to recruit Stone Golem"), {"terrain-values-in-quotes"}),
    Mistake("terrain name typed wrong", "golems", "terrain.json", lambda d: item(d, "quarry").update(name="Quary"),
            set(), message="palette 'terrain' has no colour for name='Quary'"),
    Mistake("water tile count edited", "golems", "terrain.json", lambda d: item(d, "water").update(copies=11),
            {"terrain-total-64", "terrain-non-corner-60", "terrain-water-12", "terrain-values-in-quotes"}),
    Mistake("id duplicated", "golems", "event-deck.json",
            lambda d: d["items"].append({**item(d, "maul"), "name": "Maul Two"}), set(),
            message="duplicate item id 'maul'"),
    Mistake("counters made 13 mm", "golems", "game.json", size("counters", 13), {"counters-fit-wizard",
                                                                                  "counters-fit-status"},
            template_size(10, 13, "golems/counter")),
    Mistake("terrain tiles made as big as the squares", "golems", "game.json", size("terrain", 38),
            {"terrain-fits-board"}, template_size(37, 38, "golems/terrain", "golems/terrain-back")),
    Mistake("card note retyped", "cyberiad", "deck.json",
            lambda d: item(d, "adding-machine").update(notes="Y> Draw 2 cards + Opponent gains 1 FP"),
            {"deck-values-in-quotes"}),
    Mistake("fame and its code changed together", "cyberiad", "deck.json",
            lambda d: item(d, "gold-making-machine").update(fame="3", ft="3/2"), {"deck-values-in-quotes"}),
    Mistake("card dropped", "cyberiad", "deck.json", drop("spies"),
            {"deck-total-78", "deck-action-31"}),
    Mistake("a status card colour dropped", "golems", "status.json", drop("status-red"), {"status-per-colour"}),
    Mistake("damage counters cut to 40", "golems", "counters.json", lambda d: d["items"][0].update(copies=40),
            {"counters-enough-damage"}),
    Mistake("mana coins recounted", "golems", "mana.json", lambda d: item(d, "mana-1").update(copies=10),
            {"mana-bank"}),
    Mistake("board corner edited", "golems", "board.json", lambda d: item(d, "map").update(corner="Water"),
            {"board-corners-towers", "board-values-in-quotes"}),
    Mistake("board quote edited", "golems", "board.json",
            lambda d: item(d, "map")["source"].update(document="Use a Chessboard. The corner spaces are Water."),
            {"board-values-in-quotes"}),
    Mistake("a note's case changed", "golems", "terrain.json",
            lambda d: item(d, "water").update(notes="Barrier to movement"), {"terrain-values-in-quotes"}),
    Mistake("one summary card for two players", "capek-golems", "summary.json",
            lambda d: d["items"][0].update(copies=1), {"summary-one-per-player"}),
    Mistake("solo back side relabelled", "time-capsules", "solo.json", lambda d: d["items"][0].update(back_side="6-9"),
            {"solo-card-sides"}),
    Mistake("constructor ability retyped", "cyberiad", "constructors.json",
            lambda d: item(d, "trurl").update(ability="Once on your turn you may gain 1 TP to draw 2 cards."),
            {"constructors-values-in-quotes"}),
    Mistake("artifact cost edited", "time-capsules", "artifacts.json",
            lambda d: item(d, "recon-drone").update(cost=8), {"artifacts-values-in-quotes"}),
    Mistake("field cost edited on the reference", "cauldron", "reference.json",
            lambda d: item(d, "reference").update(field_cost=4), {"reference-values-in-quotes", "cost-field-3"}),
    Mistake("example part card's colour changed", "capek-golems", "golem-parts.json",
            lambda d: item(d, "torso").update(set_b_inquiry="Brain Surgery"),
            {"golem-parts-values-in-quotes", "golem-parts-document-example"}),
    Mistake("one colour twice on a part card", "capek-golems", "golem-parts.json",
            lambda d: item(d, "head").update(set_b_inquiry="Brain Surgery"), {"golem-parts-two-colours"}),
    Mistake("two part cards needing as many resources", "capek-golems", "golem-parts.json",
            lambda d: item(d, "head").update(set_a_size=3, set_b_size=3),
            {"golem-parts-resources-differ"}),
    Mistake("a field type one short", "cauldron", "fields.json", lambda d: d["items"][0].update(copies=7),
            {"fields-44", "common-fields-8", "three-tokens-per-field"}),
    Mistake("capsule numbered twice", "time-capsules", "capsules.json", lambda d: item(d, "cyan-2").update(number=1),
            {"capsules-colour-number-unique", "capsules-numbered-1-4"}),
    Mistake("track printed twice", "time-capsules", "track.json", lambda d: d["items"][0].update(copies=2),
            {"vp-round-track-one"}),
]


@pytest.mark.parametrize("m", MISTAKES, ids=[m.name for m in MISTAKES])
def test_an_editing_mistake_is_caught(tmp_path: Path, m: Mistake) -> None:
    copy = bundled_copy(tmp_path, m.game, templates=m.template is not None)
    copy.edit(m.file, m.edit)
    if m.template is not None:
        m.template(copy)
    r = copy.check()
    assert_no_traceback(r)
    if not m.caught_by:
        assert r.exit_code == 2, r.stdout
        assert m.message in r.stderr
        return
    assert r.exit_code == 1, r.stdout + r.stderr
    failed = {ln.split()[1].rstrip(":") for ln in r.stdout.splitlines() if ln.startswith("  FAIL ")}
    assert m.caught_by <= failed, (m.caught_by - failed, failed)
