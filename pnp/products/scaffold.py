"""`pnp new`: a minimal, valid game to start from.

    ROOT/card_data/GAME/game.json    manifest: one deck, one rulebook rule (a count)
    ROOT/card_data/GAME/deck.json    three cards, each with a designed source (with --csv:
                                     deck.csv, a sheet, its fields in game.json)
    ROOT/templates/GAME/style.json   colours, text styles (extends shared/icons)
    ROOT/templates/GAME/card.json    the card front
    ROOT/templates/GAME/back.json    the card back
    ROOT/schemas/*.schema.json       for editors (every file names its schema)

`pnp check GAME --data ROOT` and `pnp build GAME --data ROOT` accept it as it is."""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

import msgspec

from pnp.errors import DataError, Diagnostic
from pnp.input.project import GAME_ID, MANIFEST, DataRoot, physical_path, reserved_game_id
from pnp.input.validate import schema_bytes
from pnp.render.write import ensure_dir, write_all

GAME_JSON = """\
{
  "$schema": "../../schemas/game.schema.json",
  "id": "@ID@",
  "title": "@TITLE@",
  "designer": "You",
  "players": {"min": 2, "max": 4},
  "document": {"file": "rules.md", "title": "@TITLE@: the rules"},
  "components": [
    {"id": "deck", "title": "Deck", "kind": "card", "size": @SIZE@,
     "data": "deck.json", "template": "@ID@/card", "back": "@ID@/back"}
  ],
  "rulebook": [
    {"id": "deck-3", "check": "equal",
     "description": "The deck has three cards.",
     "quote": "Shuffle the three cards of the deck.",
     "values": [{"pieces": {"component": "deck"}}, 3]}
  ]
}
"""

DECK_JSON = """\
{
  "$schema": "../../schemas/component.schema.json",
  "component": "deck",
  "description": "The deck: three cards to start from (made by pnp new).",
  "fields": {
    "name": {"type": "string", "required": true, "description": "Card name, printed at the top"},
    "text": {"type": "text", "description": "Rules text: **bold**, *italic*, {icon:NAME}"}
  },
  "items": [
    {"id": "scout", "name": "Scout", "text": "Look at the top card of the deck.",
     "source": {"designed": "a starting card made by pnp new"}},
    {"id": "trader", "name": "Trader", "text": "Gain 2 {icon:coin}.",
     "source": {"designed": "a starting card made by pnp new"}},
    {"id": "guard", "name": "Guard", "text": "**Keep** this card in front of you.",
     "source": {"designed": "a starting card made by pnp new"}}
  ]
}
"""

STYLE_JSON = """\
{
  "$schema": "../../schemas/template.schema.json",
  "description": "@TITLE@'s look: colours, text styles and icons shared by its templates.",
  "extends": "shared/icons",
  "colors": {"ink": "#222222", "paper": "#fbf7ee", "accent": "#b03a2e"},
  "styles": {
    "title": {"font": "Lato-Bold", "size": 14, "color": "ink", "align": "center", "valign": "middle"},
    "rules": {"font": "Lato-Regular", "size": 10, "color": "ink", "align": "center", "valign": "middle"},
    "back-title": {"font": "Lato-Bold", "size": 20, "color": "paper", "align": "center", "valign": "middle"}
  },
  "elements": [
    {"id": "background", "type": "rect", "box": [0, 0, "w", "h"], "bleed": true, "fill": "paper"}
  ]
}
"""

CARD_JSON = """\
{
  "$schema": "../../schemas/template.schema.json",
  "description": "Front of a @TITLE@ card.",
  "extends": "@ID@/style",
  "elements": [
    {"id": "frame", "type": "rect", "box": [3, 3, "w-6", "h-6"], "stroke": "accent", "stroke_width": 1.5, "radius": 3},
    {"id": "name", "type": "text", "box": [6, 6, "w-12", 12], "text": "{name}", "style": "title",
     "fit": {"min_size": 9}},
    {"id": "text", "type": "richtext", "box": [8, "h-38", "w-16", 30], "text": "{text}", "style": "rules",
     "fit": {"min_size": 7}, "when": {"field": "text", "present": true}}
  ]
}
"""

BACK_JSON = """\
{
  "$schema": "../../schemas/template.schema.json",
  "description": "Back of a @TITLE@ card.",
  "extends": "@ID@/style",
  "elements": [
    {"id": "background", "type": "rect", "box": [0, 0, "w", "h"], "bleed": true, "fill": "accent"},
    {"id": "title", "type": "text", "box": [6, "h/2-6", "w-12", 12], "text": "{game.title}", "style": "back-title",
     "fit": {"min_size": 9}}
  ]
}
"""


# `pnp new --csv`: the deck's items in a sheet, its fields in the manifest entry
CSV_ENTRY = """\
     "data": "deck.csv", "id_from": "name",
     "source": {"designed": "a starting card made by pnp new"},
     "fields": {
       "name": {"type": "string", "required": true, "description": "Card name, printed at the top"},
       "text": {"type": "text", "description": "Rules text: **bold**, *italic*, {icon:NAME}"}
     },
     "template": "@ID@/card", "back": "@ID@/back"}"""

DECK_CSV = """\
name,copies,text
Scout,1,Look at the top card of the deck.
Trader,1,Gain 2 {icon:coin}.
Guard,1,**Keep** this card in front of you.
"""


def title_of(gid: str) -> str:
    return " ".join(w.capitalize() for w in gid.split("-"))


SCAFFOLD_SIZES = ("poker", "poker-us", "bridge", "mini", "mini-us", "tarot", "square")


def size_json(size: str) -> str:
    """``--size``: a named card size, or ``W,H`` in mm (10 to 600 each), as the manifest's JSON."""
    if size in SCAFFOLD_SIZES:
        return f'"{size}"'
    parts = size.replace("x", ",").split(",")
    plain = all(re.fullmatch(r"\s*[0-9]+(?:\.[0-9]*)?\s*", p) for p in parts)  # float() reads "６３", "1_0"
    try:
        w, h = (float(p) for p in parts) if plain else (-1.0, -1.0)
    except ValueError:
        w = h = -1.0
    if len(parts) != 2 or not (10 <= w <= 600 and 10 <= h <= 600):
        raise DataError([Diagnostic("--size", f"unknown card size {size!r}",
                                    expected="one of " + ", ".join(SCAFFOLD_SIZES) + ", or W,H in mm (10 to 600)")])
    return f"[{w:g}, {h:g}]"


def scaffold(root: Path, gid: str, sheet: bool = False, size: str = "poker") -> list[Path]:
    """Write a new game ``gid`` with cards of ``size`` (see ``size_json``) into the data root
    ``root``; returns the files written. Its templates are relative to the card's size, so the
    manifest's ``size`` alone changes it. With ``sheet`` the deck's items are a CSV sheet
    (``deck.csv``) and its fields are in game.json. Raises DataError for an invalid id or size,
    or a game (or its templates) that already exists."""
    root = physical_path(root)  # root/link/../x: where the system puts it (as --out: attack 13, F1)
    size_text = size_json(size)
    if not GAME_ID.match(gid):
        raise DataError([Diagnostic(gid, f"invalid game id {gid!r}",
                                    expected="lowercase letters, digits and hyphens, at most 64, "
                                    "starting with a letter or digit")])
    reserved = reserved_game_id(gid)
    if reserved is not None:  # no folder to rename yet
        raise DataError([msgspec.structs.replace(reserved, hint=f"choose another id, e.g. {gid}-game")])
    game_dir, tpl_dir = DataRoot(root).card_data / gid, DataRoot(root).templates / gid
    shared = " (the templates every game shares)" if gid == "shared" else ""
    for d, taken in ((game_dir, f"game {gid!r} already exists here"),
                     (tpl_dir, f"the templates folder templates/{gid}/{shared} already exists here")):
        if os.path.lexists(d):
            raise DataError([Diagnostic(str(d), f"{taken}; nothing was written",
                                        expected="a new game id, or another --path")])
    game_json = GAME_JSON.replace('''
     "data": "deck.json", "template": "@ID@/card", "back": "@ID@/back"}''', "\n" + CSV_ENTRY)
    deck = {game_dir / "deck.csv": DECK_CSV} if sheet else {game_dir / "deck.json": DECK_JSON}
    files = {game_dir / MANIFEST: game_json if sheet else GAME_JSON, **deck,
             tpl_dir / "style.json": STYLE_JSON, tpl_dir / "card.json": CARD_JSON, tpl_dir / "back.json": BACK_JSON}
    out = [(path, text.replace("@ID@", gid).replace("@TITLE@", title_of(gid)).replace("@SIZE@", size_text)
            .encode("utf-8")) for path, text in files.items()]
    out += [(root / "schemas" / name, data) for name, data in schema_bytes().items()]
    # all or nothing: the folders made here are removed again when a file cannot be written (a
    # full disk), so that the next `pnp new` does not find a half-made game "already" there
    made: list[Path] = []
    try:
        for folder in dict.fromkeys(p.parent for p, _ in out):
            new = [d for d in (folder, *folder.parents) if not d.exists()]
            ensure_dir(folder, "--path")  # a file or a pipe there is the user's --path (or --data), not --out
            made += reversed(new)
        write_all(out)
    except BaseException:
        for d in reversed(made):  # deepest first
            with contextlib.suppress(OSError):
                d.rmdir()
        raise
    return [p for p, _ in out]

