"""Colours that meet on the table are told apart (issue 23), measured as CIEDE2000 (ΔE00).

Thresholds: every pair of colours that stand for different things side by side on the table
(player colours, suits, deck backs) differs by at least 15 ΔE00 for normal colour vision: about
three times the ΔE00 of 3-6 by which two inkjets (or one on two papers) render the same colour, so
a pair stays apart after printing. Where the colour is what a player reads at a glance (player
colours, Capek's inquiry colours beside the gold coins and the Outrage red, Time Capsules' players
and artifact colours, the Cyberiad's four card types) every pair also differs by at least 8 ΔE00
as protanopes, deuteranopes and tritanopes see them (Machado et al. 2009, full severity); each of
those also carries a symbol. The Cauldron character colours are held to both (a player finds their
token on the Magik track by its colour; test_cauldron_characters_differ_for_colour_blind_players).
The Cauldron deck backs and ingredient colours are held to the first threshold only: each back
carries its deck's name in large type and its symbol, each ingredient its picture and name. Every
set is also held to the same thresholds after a soft proof through the CMYK output profile
(test_colours_still_differ_after_a_soft_proof): a model of printing, not a print."""

from __future__ import annotations

import itertools
import json

import pytest

from pnp.input.project import bundled_root
from pnp.layout.colours import delta_e, delta_e_cvd
from pnp.qa.softproof import SoftProof

NORMAL = 15.0
CVD = 8.0
ROOT = bundled_root() / "templates"


def style(game: str) -> dict:
    return json.loads((ROOT / game / "style.json").read_text())


def palette(game: str, name: str) -> dict[str, str]:
    return dict(style(game)["palettes"][name])


def backs(game: str, templates: list[str]) -> dict[str, str]:
    return {t: json.loads((ROOT / game / f"{t}.json").read_text())["colors"]["deck-ground"] for t in templates}


SETS: dict[str, tuple[dict[str, str], bool]] = {
    "golems players": (palette("golems", "player"), True),
    "capek inquiries, gold coin, outrage": (
        {**palette("capek-golems", "inquiry"), "gold coin": style("capek-golems")["colors"]["gold"],
         "outrage": style("capek-golems")["colors"]["outrage"]}, True),
    "time-capsules players and artifacts": (
        {**{f"player {k}": v for k, v in palette("time-capsules", "player").items()},
         **{f"artifact {k}": v for k, v in palette("time-capsules", "art").items()}}, True),
    "cauldron deck backs": (backs("cauldron", ["omen-back", "basic-spell-back", "advanced-spell-back",
                                               "basic-potion-back", "advanced-potion-back"]), False),
    "cauldron characters": (palette("cauldron", "character"), False),
    "cauldron ingredients": (palette("cauldron", "ingredient"), False),
    "cyberiad card types": (palette("cyberiad", "card_type"), True),
}


@pytest.mark.parametrize("name", list(SETS))
def test_colours_that_meet_on_the_table_differ(name: str) -> None:
    colours, cvd = SETS[name]
    assert len(colours) >= 4
    close = [f"{a}/{b}: {delta_e(ca, cb):.1f}" for (a, ca), (b, cb) in itertools.combinations(colours.items(), 2)
             if delta_e(ca, cb) < NORMAL]
    assert close == [], f"{name}: pairs under {NORMAL} ΔE00"
    if cvd:
        close = [f"{a}/{b}: {delta_e_cvd(ca, cb):.1f}" for (a, ca), (b, cb)
                 in itertools.combinations(colours.items(), 2) if delta_e_cvd(ca, cb) < CVD]
        assert close == [], f"{name}: pairs under {CVD} ΔE00 for a colour-blind player"


def test_the_fixed_pairs_were_below_the_thresholds() -> None:
    """The colours issue 23 changed, against what they replaced (so the test can fail)."""
    assert delta_e("#E69F00", "#dcaa3a") < 6  # Capek's old amber beside the gold coins
    assert delta_e("#e0612a", "#f08a24") < NORMAL  # Time Capsules' old 'red' artifacts beside orange
    assert delta_e_cvd("#2ec4d6", "#aebbc8") < CVD  # Time Capsules' cyan and old silver players
    assert delta_e("#101f44", "#2a1740") < 10  # the first new Cauldron backs: Omen and Basic Spell
    assert delta_e_cvd("#2c5a9e", "#6e4a94") < CVD  # Cyberiad's Sally cobalt and old Effect violet


# -- issue 23, second round: the Cauldron characters for colour-blind players, and a soft proof ------

CHARACTERS = palette("cauldron", "character")


def test_cauldron_characters_differ_for_colour_blind_players() -> None:
    """A player finds their Character Token on the Magik track by its colour at a glance, so the
    seven character colours are held to the colour-blind threshold too (they were 2.3-6.4 ΔE00 apart
    as protanopes, deuteranopes or tritanopes see them; the token's symbol still carries the same)."""
    close = [f"{a}/{b}: {delta_e_cvd(ca, cb):.1f}" for (a, ca), (b, cb)
             in itertools.combinations(CHARACTERS.items(), 2) if delta_e_cvd(ca, cb) < CVD]
    assert close == [], f"cauldron characters: pairs under {CVD} ΔE00 for a colour-blind player"
    old = {"violet": "#7a3f9f", "blue": "#2f68a8", "green": "#4f8a3c", "red": "#b23a3a"}
    assert delta_e_cvd(old["violet"], old["blue"]) < 3 and delta_e_cvd(old["green"], old["red"]) < 5


PROOF = SoftProof()
PROOFED: dict[str, tuple[dict[str, str], bool]] = {**SETS, "cauldron characters": (CHARACTERS, True)}


@pytest.mark.parametrize("name", list(PROOFED))
def test_colours_still_differ_after_a_soft_proof(name: str) -> None:
    """A soft proof, not a print: every colour goes through the CMYK output profile and back
    (pnp/render/icc/pnp-fogra39l.icc, FOGRA39 coated offset, relative colorimetric with black-point
    compensation out, relative colorimetric back; the profile ``pnp build --color cmyk`` converts
    with), and the pairs must keep the same thresholds as on screen: ΔE00 >= 15, and >= 8 under
    colour-blind simulation where the set is held to it. Nothing was printed on an inkjet."""
    colours, cvd = PROOFED[name]
    proofed = {k: PROOF(v) for k, v in colours.items()}
    assert any(proofed[k] != colours[k] for k in colours)  # the round trip moves colours
    pairs = list(itertools.combinations(proofed.items(), 2))
    close = [f"{a}/{b}: {delta_e(ca, cb):.1f}" for (a, ca), (b, cb) in pairs if delta_e(ca, cb) < NORMAL]
    assert close == [], f"{name}: pairs under {NORMAL} ΔE00 after the soft proof"
    if cvd:
        close = [f"{a}/{b}: {delta_e_cvd(ca, cb):.1f}" for (a, ca), (b, cb) in pairs if delta_e_cvd(ca, cb) < CVD]
        assert close == [], f"{name}: pairs under {CVD} ΔE00 for a colour-blind player after the soft proof"


def test_the_soft_proof_can_fail() -> None:
    """The pairs the soft proof found, before they were mended: apart on screen, not after the proof."""
    assert delta_e("#d94fa8", "#6e7680") > NORMAL and delta_e_cvd("#d94fa8", "#6e7680") > CVD
    assert delta_e_cvd(PROOF("#d94fa8"), PROOF("#6e7680")) < 6  # Time Capsules' old magenta beside silver
    assert delta_e(PROOF("#0a3070"), PROOF("#40125c")) < NORMAL  # Cauldron's old Omen beside Basic Spell
    assert delta_e(PROOF("#F0E442"), PROOF("#dcaa3a")) < NORMAL  # Capek's Parts Machining beside the old gold
