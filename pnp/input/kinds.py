"""The registry of physical kinds. Every kind has the same shape: which outlines it allows, how
it is placed on paper, and whether it has backs. Adding a kind is one ``register`` call; the
layout of every kind goes through the same template engine (``pnp.layout``)."""

from __future__ import annotations

from typing import Any

from msgspec import Struct

from pnp.errors import Diagnostic
from pnp.input.load import Doc


class Kind(Struct, frozen=True):
    """A kind of physical piece (card, tile, token, board, mat, track, box, sheet) and how it is printed."""

    name: str
    description: str
    shapes: tuple[str, ...]  # allowed outlines; the first is the default
    placement: str  # "grid": ganged on sheets with bleed and cut lines (tiled when too big)
    #                 "page": one per page, centred, no bleed, no cut lines (reference sheets)
    backs: bool = True  # may have a back template
    bleed: bool = True  # gets bleed
    crop_marks: bool = True  # rectangular cut lines in the margins (False: the template draws its own outline)
    # what it is printed on (the assembly page's advice): "card" 200-250 g/m², "chit" the heaviest card
    # (tiles and tokens), "board" (boards and mats), "box", "paper"; ``--gang`` shares sheets only within one
    stock: str = "card"


KINDS: dict[str, Kind] = {}
# The stocks of ``Kind.stock``, in the assembly page's order, with the words a sheet label uses
STOCKS: dict[str, str] = {"card": "cards", "chit": "tiles and tokens", "board": "boards and mats", "box": "boxes",
                          "paper": "plain paper"}


def register(kind: Kind) -> Kind:
    KINDS[kind.name] = kind
    return kind


register(Kind("card", "playing card, ganged 3x3 and duplexed", ("rounded", "rect"), "grid"))
register(Kind("tile", "square or hex tile", ("square", "hex"), "grid", stock="chit"))
register(Kind("token", "round or square token / chit / coin", ("round", "square"), "grid", stock="chit"))
register(Kind("board", "game board; tiled over several pages with glue overlaps when larger than the paper",
              ("rect",), "grid", backs=False, stock="board"))
register(Kind("mat", "player mat; tiled like a board when larger than the paper", ("rect",), "grid",
              backs=False, stock="board"))
register(Kind("track", "segment of a track (numbered spaces), e.g. cards laid in a row to read as one track",
              ("rounded", "rect"), "grid"))
register(Kind("box", "folding box: a die-cut net whose template draws its own cut outline (solid), fold lines "
              "(dashed) and glue tabs; no rectangular crop marks", ("rect",), "grid", backs=False, bleed=False,
              crop_marks=False, stock="box"))
register(Kind("sheet", "reference or record sheet: one per page, nothing to cut", ("rect",), "page",
              backs=False, bleed=False, stock="paper"))


def get(name: str) -> Kind:
    return KINDS[name]


def stock_of(kind: str) -> str:
    """The stock a kind is printed on (a key of ``STOCKS``)."""
    return KINDS[kind].stock


def check_component(manifest: Doc, index: int, comp: dict[str, Any]) -> list[Diagnostic]:
    path: tuple[str | int, ...] = ("components", index)
    kind = KINDS.get(comp["kind"])
    if kind is None:
        return [manifest.diag(path + ("kind",), f"unknown kind {comp['kind']!r}",
                              expected="one of " + ", ".join(sorted(KINDS)))]
    out = []
    if "shape" in comp and comp["shape"] not in kind.shapes:
        out.append(manifest.diag(path + ("shape",), f"shape {comp['shape']!r} is not a {kind.name} shape",
                                 expected="one of " + ", ".join(kind.shapes)))
    if "back" in comp and not kind.backs:
        out.append(manifest.diag(path + ("back",), f"a {kind.name} has no back",
                                 hint="remove `back`, or use a kind that has backs"))
    return out

