"""Issue 23's per-piece art: every Golems event and Material card, every Cyberiad deck card
(Machine, Sally, Effect and Action) and every Capek Golems inquiry card has its own designed icon
(``<prefix>-<id>`` in the game's style), no two drawn alike (nor like any other icon of the game
or the shared library), and the list of ids a template draws them for (the rest fall back to
their type's icon) is exactly the set of icons defined."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import game_json, template_json

CASES = [  # game, data file, (field, value) of the items the art is for (None: every item; a value
    # starting with '!': every item whose field differs from it), icon prefix, template, element name
    ("golems", "event-deck.json", None, "event", "event-card", "event-{id}"),
    ("golems", "golem-deck.json", ("type", "Material"), "material", "golem-card", "material-{id}"),
    ("cyberiad", "deck.json", ("type", "Machine"), "machine", "card", "machine-{id}"),
    ("cyberiad", "deck.json", ("type", "Sally"), "sally", "card", "sally-{id}"),
    ("cyberiad", "deck.json", ("type", "Effect"), "effect", "card", "effect-{id}"),
    ("cyberiad", "deck.json", ("type", "Action"), "action", "card", "action-{id}"),
    ("capek-golems", "game-deck.json", ("inquiry", "!Wild"), "card", "game-card", "card-{id}"),
]


def _wanted(item: dict[str, Any], kind: tuple[str, str] | None) -> bool:
    if kind is None:
        return True
    field, value = kind
    return item.get(field) != value[1:] if value.startswith("!") else item.get(field) == value


def _ids_in(cond: Any) -> set[str]:
    """The ids named by an ``{"field": "id", "in": [...]}`` inside a when-condition."""
    if isinstance(cond, dict):
        if cond.get("field") == "id" and "in" in cond:
            return set(cond["in"])
        return set().union(*(_ids_in(v) for v in cond.values())) if cond else set()
    if isinstance(cond, list):
        return set().union(*(_ids_in(v) for v in cond)) if cond else set()
    return set()


@pytest.mark.parametrize(("game", "data", "kind", "prefix", "tmpl", "name"), CASES)
def test_each_piece_has_its_own_icon(game: str, data: str, kind: tuple[str, str] | None, prefix: str,
                                     tmpl: str, name: str) -> None:
    icons = template_json(game, "style")["icons"]
    ids = [i["id"] for i in game_json(game, data)["items"] if _wanted(i, kind)]
    assert len(ids) >= 9
    own = {k[len(prefix) + 1:]: v for k, v in icons.items() if k.startswith(prefix + "-")}
    assert sorted(own) == sorted(ids)
    drawings = [json.dumps(v["shapes"], sort_keys=True) for v in own.values()]
    assert len(set(drawings)) == len(drawings)  # no two alike
    assert all(v["title"].strip() for v in own.values())
    element = [e for e in template_json(game, tmpl)["elements"] if e.get("name") == name]
    assert len(element) == 1 and _ids_in(element[0]["when"]) == set(ids)


@pytest.mark.parametrize("game", ["capek-golems", "cyberiad", "golems"])
def test_no_piece_art_is_drawn_like_another_icon(game: str) -> None:
    """A per-piece picture is not a copy of any other icon of its game or of the shared library
    (a copied drawing would say nothing about its card): Golems' Clockwork, Bone and Iron were
    the shared gear, hardness-hard and hardness-metal until each got its own."""
    prefixes = tuple(c[3] + "-" for c in CASES if c[0] == game)
    icons = {**template_json("shared", "icons")["icons"], **template_json(game, "style")["icons"]}
    drawn: dict[str, list[str]] = {}
    for key, icon in icons.items():
        if "shapes" in icon:
            drawn.setdefault(json.dumps(icon["shapes"], sort_keys=True), []).append(key)
    copies = [keys for keys in drawn.values() if len(keys) > 1 and any(k.startswith(prefixes) for k in keys)]
    assert copies == []
    assert sum(k.startswith(prefixes) for k in icons) >= 36
