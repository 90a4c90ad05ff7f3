"""A Tabletop Simulator saved object for one exported deck: the JSON TTS itself writes to
``Saves/Saved Objects/`` (``ObjectStates`` holding one ``DeckCustom``, or one ``Card`` when the
component has a single piece), so copying the file there makes the deck appear under Objects >
Saved Objects, ready to place.

Each card of the deck is a ``Card`` in ``ContainedObjects`` with its ``CardID`` (deck number x
100 + slot on that deck's sheet, as in ``CustomDeck``) and the item's name as its nickname;
``DeckIDs`` lists every copy in data order. Image URLs are ``file://`` URLs of the exported
sheets (TTS loads local files; to share a table, host the images and export with a base URL, or
upload them with TTS's Cloud Manager). Cards are scaled so a poker card (88 mm tall) is TTS's
standard card: a 63 x 88 mm card is scale 1, a 44 x 63 mm one 0.716."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

from pnp.errors import DataError, Diagnostic
from pnp.input.model import Component, Game

POKER_HEIGHT_MM = 88.0  # TTS's standard card is a poker card: its long side at scale 1


_BASE_URL = re.compile(r"https?://[!-~]+")  # printable ASCII, no spaces: a URL TTS will fetch


def check_base_url(base_url: str | None) -> None:
    """DataError unless ``base_url`` (``--base-url``) is None or an http(s) URL: it is written into
    every saved object, and Tabletop Simulator fetches the sheets from it."""
    if base_url is not None and not _BASE_URL.fullmatch(base_url):
        raise DataError([Diagnostic("--base-url", f"{base_url[:80]!r} is not an http:// or https:// URL",
                                    expected="where the sheets will be hosted, e.g. https://example.org/golems-tts "
                                    "(printable characters, no spaces)")])


def image_url(path: Path, tts_root: Path, base_url: str | None) -> str:
    """``base_url`` + the path inside ``tts_root`` (URL-quoted), or the file's ``file://`` URL."""
    if base_url:
        return base_url.rstrip("/") + "/" + quote(path.relative_to(tts_root).as_posix())
    return path.resolve().as_uri()


def _guid(*parts: str) -> str:
    """A stable 6-hex-digit GUID, as TTS writes them (TTS replaces clashing ones on load)."""
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:6]


def _transform(scale: float) -> dict[str, float]:
    # face down (rotZ 180), facing the player who loads it (rotY 180), resting on the table
    return {"posX": 0.0, "posY": 1.0, "posZ": 0.0, "rotX": 0.0, "rotY": 180.0, "rotZ": 180.0,
            "scaleX": scale, "scaleY": 1.0, "scaleZ": scale}


def saved_object(game: Game, comp: Component, custom: dict[str, dict[str, Any]], cards: list[dict[str, Any]],
                 folder: Path, tts_root: Path, base_url: str | None) -> dict[str, Any]:
    """The saved object for a deck: ``custom`` is the export's CustomDeck (file names relative to
    ``folder``), ``cards`` its cards (item, name, copies, deck, card_id) in data order."""
    decks = {key: {**entry, "FaceURL": image_url(folder / entry["FaceURL"], tts_root, base_url),
                   "BackURL": image_url(folder / entry["BackURL"], tts_root, base_url)}
             for key, entry in custom.items()}
    scale = round(max(comp.size) / POKER_HEIGHT_MM, 4)
    sideways = comp.size[0] > comp.size[1]
    base: dict[str, Any] = {"Description": "", "GMNotes": "", "ColorDiffuse": {"r": 0.713, "g": 0.713, "b": 0.713},
                            "Locked": False, "Grid": True, "Snap": True, "IgnoreFoW": False, "Autoraise": True,
                            "Sticky": True, "Tooltip": True, "GridProjection": False, "Hands": True,
                            "SidewaysCard": sideways, "LuaScript": "", "LuaScriptState": "", "XmlUI": ""}
    contained = []
    deck_ids = []
    for card in cards:
        deck = str(card["deck"])
        obj = {"GUID": _guid(game.id, comp.id, card["item"]), "Name": "Card", "Transform": _transform(scale),
               "Nickname": card["name"], **base, "CardID": card["card_id"], "CustomDeck": {deck: decks[deck]}}
        for _ in range(card["copies"]):
            contained.append(obj)
            deck_ids.append(card["card_id"])
    if len(contained) == 1:  # TTS decks hold two cards or more: one piece is a card
        state = {**contained[0], "Nickname": comp.title}
    else:
        state = {"GUID": _guid(game.id, comp.id), "Name": "DeckCustom", "Transform": _transform(scale),
                 "Nickname": comp.title, **base, "HideWhenFaceDown": True, "DeckIDs": deck_ids,
                 "CustomDeck": decks, "ContainedObjects": contained}
    return {"SaveName": f"{game.title} — {comp.title}", "Date": "", "VersionNumber": "", "GameMode": "",
            "GameType": "", "GameComplexity": "", "Tags": [], "Gravity": 0.5, "PlayArea": 0.5, "Table": "",
            "Sky": "", "Note": "", "TabStates": {}, "LuaScript": "", "LuaScriptState": "", "XmlUI": "",
            "ObjectStates": [state]}
