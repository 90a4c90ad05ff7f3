"""Issue 23's per-piece art: every Golems event and Material card and every Cyberiad Machine has
its own designed icon (``<prefix>-<id>`` in the game's style), no two drawn alike, and the list
of ids a template draws them for (the rest fall back to their type's icon) is exactly the set
of icons defined."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import game_json, template_json

CASES = [  # game, data file, type the art is for (None: every item), icon prefix, template, element name
    ("golems", "event-deck.json", None, "event", "event-card", "event-{id}"),
    ("golems", "golem-deck.json", "Material", "material", "golem-card", "material-{id}"),
    ("cyberiad", "deck.json", "Machine", "machine", "card", "machine-{id}"),
]


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
def test_each_piece_has_its_own_icon(game: str, data: str, kind: str | None, prefix: str, tmpl: str,
                                     name: str) -> None:
    icons = template_json(game, "style")["icons"]
    ids = [i["id"] for i in game_json(game, data)["items"] if kind is None or i.get("type") == kind]
    assert len(ids) >= 16
    own = {k[len(prefix) + 1:]: v for k, v in icons.items() if k.startswith(prefix + "-")}
    assert sorted(own) == sorted(ids)
    drawings = [json.dumps(v["shapes"], sort_keys=True) for v in own.values()]
    assert len(set(drawings)) == len(drawings)  # no two alike
    assert all(v["title"].strip() for v in own.values())
    element = [e for e in template_json(game, tmpl)["elements"] if e.get("name") == name]
    assert len(element) == 1 and _ids_in(element[0]["when"]) == set(ids)
