"""Aether Captains: Capek Golems: the 54-card deck (12 golem parts + 39 game cards + 3 track cards),
the document's example card, the marker arithmetic, and the track reading as one continuous track
across the three cards (laid out, and read back from the print-shop PDF). What every bundled game
must do (rules passing, mutations caught, the build read back) is in test_games.py."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise
from pathlib import Path
from typing import Any

import pdfplumber
import pytest
from conftest import Bundled

from pnp.input.model import Game
from pnp.layout.primitives import Ellipse, Text
from pnp.plan.options import BuildOptions
from pnp.qa.check import GameCheck
from pnp.units import MM

GAME = "capek-golems"
INQUIRIES = {"Parts Machining", "Organ Replacement", "Steam Engine Dynamics", "Ventilation Systems Integration",
             "Aetheric Sublimation", "Brain Surgery"}
PITCH = 88 / 9  # mm between track spaces (template capek-golems/track)
SPACE = 8.4  # mm, diameter of a track space


@pytest.fixture(scope="module")
def game(bundled: Bundled) -> Game:
    return bundled.game(GAME)


@pytest.fixture(scope="module")
def checked(bundled: Bundled) -> GameCheck:
    return bundled.checked(GAME)


def items(game: Game, comp: str) -> list[Any]:
    c = game.component(comp)
    assert c is not None
    return list(c.items)


def pieces(game: Game, comp: str) -> int:
    return sum(i.copies for i in items(game, comp))


# -- counts and the document's example ------------------------------------------------------------

def test_deck_is_12_plus_39_plus_3(game: Game) -> None:
    assert pieces(game, "golem-parts") == 12
    assert pieces(game, "game-deck") == 39
    assert pieces(game, "track") == 3
    assert pieces(game, "golem-parts") + pieces(game, "game-deck") + pieces(game, "track") == 54


def test_game_cards_six_colours_of_six_and_three_wilds(game: Game) -> None:
    deck = items(game, "game-deck")
    by_colour = Counter(i.get("inquiry") for i in deck for _ in range(i.copies))
    assert by_colour == {**{k: 6 for k in INQUIRIES}, "Wild": 3}
    assert {i.get("colour") for i in deck if i.get("inquiry") == "Parts Machining"} == {"yellow"}
    assert {i.get("colour") for i in deck if i.get("inquiry") == "Ventilation Systems Integration"} == {"blue"}
    wilds = [i for i in deck if i.get("inquiry") == "Wild"]
    assert {i.get("colour") for i in wilds} == {"dark gray"}
    assert "The Engineer" in {i.get("character") for i in wilds}
    assert {i.get("value") for i in wilds} <= {1, 2}
    assert all(1 <= i.get("gold") <= 3 for i in deck)
    assert any(i.get("outrage") < 0 for i in deck), "the document says outrage may be negative"


def test_six_parts_per_player_identical_golems(game: Game) -> None:
    parts = items(game, "golem-parts")
    assert sorted(i.get("part") for i in parts) == sorted(
        ["Head", "Torso", "Left Arm", "Right Arm", "Left Leg", "Right Leg"])
    assert all(i.copies == 2 for i in parts)


def test_document_example_is_a_part_card(game: Game) -> None:
    """'mark 3 Field Research resources ... a set of 3 ... blue (Ventilation Systems Integration) OR
    yellow (Parts Machining)'."""
    example = [i for i in items(game, "golem-parts")
               if i.get("field_research") == 3 and i.get("set_a_size") == 3 and i.get("set_b_size") == 3
               and {i.get("set_a_inquiry"), i.get("set_b_inquiry")} == {"Ventilation Systems Integration",
                                                                       "Parts Machining"}]
    assert len(example) == 1
    assert example[0].provenance.kind == "document"


def test_marker_arithmetic(game: Game) -> None:
    """40 markers = 20 per player = Field Research circles + one set marker per card; at most 6 a card;
    every card needs a different number of resources."""
    parts = items(game, "golem-parts")
    per_player = sum(i.get("field_research") for i in parts) + len(parts)
    assert per_player == 20
    assert sum((i.get("field_research") + 1) * i.copies for i in parts) == 40
    assert max(i.get("field_research") + 1 for i in parts) <= 6
    totals = [i.get("field_research") + i.get("set_a_size") for i in parts]
    assert len(set(totals)) == len(totals)
    assert all(i.get("set_a_inquiry") != i.get("set_b_inquiry") for i in parts)
    colours = Counter(c for i in parts for c in (i.get("set_a_inquiry"), i.get("set_b_inquiry")))
    assert colours == {k: 2 for k in INQUIRIES}


def test_balance_described(game: Game) -> None:
    """Gold, research and outrage totals that the data's description explains."""
    deck = items(game, "game-deck")
    assert sum(i.get("gold") for i in deck) == 78
    assert sum(i.get("field_research") for i in deck) == 58
    assert sum(i.get("outrage") for i in deck if i.get("field_research") > 0) == 48


# -- the track: three cards, one continuous track ---------------------------------------------------

def space_centres(checked: GameCheck) -> list[list[tuple[float, str]]]:
    """Per track card, the track spaces as (x centre in mm, number printed in it), left to right."""
    plan = next(p for p in checked.plans if p.component.id == "track")
    out = []
    for piece in plan.fronts:
        circles = [p for p in piece.primitives if isinstance(p, Ellipse)
                   and abs(p.w - SPACE * MM) < 0.01 and abs(p.h - SPACE * MM) < 0.01]
        texts = [p for p in piece.primitives if isinstance(p, Text)]
        row = []
        for c in sorted(circles, key=lambda c: c.x):
            inside = [t.text for t in texts if c.x <= t.x <= c.x + c.w and c.y <= t.y <= c.y + c.h]
            row.append(((c.x + c.w / 2) / MM, "".join(inside)))
        out.append(row)
    return out


def test_track_numbers_run_0_to_25_across_the_cards(checked: GameCheck) -> None:
    cards = space_centres(checked)
    assert [len(c) for c in cards] == [9, 9, 8]
    assert [n for card in cards for _, n in card] == [str(v) for v in range(26)]


def test_track_pitch_is_the_same_across_the_seams(checked: GameCheck) -> None:
    """Laid side by side (each card 88 mm wide), the spaces continue at the same spacing."""
    cards = space_centres(checked)
    row = [x + 88 * k for k, card in enumerate(cards) for x, _ in card]
    gaps = [b - a for a, b in pairwise(row)]
    assert gaps == pytest.approx([PITCH] * 25, abs=0.01)
    seams = [(88 - cards[k][-1][0]) + cards[k + 1][0][0] for k in range(2)]
    assert seams == pytest.approx([PITCH, PITCH], abs=0.01)


@pytest.fixture(scope="module")
def built(bundled: Bundled) -> dict[str, Path]:
    return bundled.built(GAME, BuildOptions(print_shop=True, bleed_mm=0)).paths


def test_track_pdf_read_back(built: dict[str, Path]) -> None:
    """The built print-shop PDF (one card per page, no bleed: page = trim): the space circles read back
    with pdfplumber are PITCH apart within a card and across the seam of two cards laid side by side."""
    with pdfplumber.open(built["track"]) as pdf:
        fronts = pdf.pages[0::2]
        assert len(fronts) == 3
        rows = []
        for page in fronts:
            assert page.width / MM == pytest.approx(88, abs=0.01)
            xs = sorted((c["x0"] + c["x1"]) / 2 / MM for c in page.curves
                        if abs((c["x1"] - c["x0"]) / MM - SPACE) < 0.05
                        and abs((c["bottom"] - c["top"]) / MM - SPACE) < 0.05)
            rows.append(xs)
    assert [len(r) for r in rows] == [9, 9, 8]
    strip = [x + 88 * k for k, r in enumerate(rows) for x in r]
    assert [b - a for a, b in pairwise(strip)] == pytest.approx([PITCH] * 25, abs=0.02)
    assert rows[0][0] == pytest.approx(PITCH / 2, abs=0.02)  # half a pitch from the outer edge
