"""The Cyberiad: the deck is the document's CARD LIST verbatim (78 cards, 12/26/9/31), the
parsing-sensitive cards keep their X values and curly apostrophes, the Polypolice Machine is
reported as a document oddity, and the printed text carries no cryptic notation. What every
bundled game must do (rules passing, quotes found, mutations caught, the build read back) is in
test_games.py."""

from __future__ import annotations

import json
import re
from collections import Counter

import pdfplumber
import pytest
from conftest import Bundled, game_json, rulebook_text, template_json

from pnp.input.model import Game
from pnp.qa.rules import check_game

GAME = "cyberiad"
DECK = game_json(GAME, "deck.json")
CARDS = {c["id"]: c for c in DECK["items"]}
APOSTROPHE = "\u2019"


@pytest.fixture(scope="module")
def game(bundled: Bundled) -> Game:
    return bundled.game(GAME)


@pytest.fixture(scope="module")
def document() -> str:
    text = rulebook_text(GAME)
    if text is None:
        pytest.skip(f"the rulebook text of {GAME} (shared/seeds) is not beside this repository")
    return text


# -- the deck ---------------------------------------------------------------------------------------

def test_78_cards_one_copy_each(game: Game) -> None:
    deck = game.component("deck")
    assert deck is not None
    assert len(deck.items) == 78 == deck.pieces
    assert all(it.copies == 1 for it in deck.items)
    assert len({it.get("name") for it in deck.items}) == 78


def test_counts_per_type(game: Game) -> None:
    deck = game.component("deck")
    assert deck is not None
    assert Counter(it.get("type") for it in deck.items) == {"Sally": 12, "Machine": 26, "Effect": 9, "Action": 31}
    letters = Counter(it.get("tc")[0] for it in deck.items)
    assert letters == {"S": 12, "M": 26, "E": 9, "A": 31}


@pytest.mark.parametrize(("card_id", "name", "tc", "cost", "ft", "fame", "trouble", "notes"), [
    ("altruizine", "Altruizine", "AX", "X", "X/X", "X", "X", "X = Number of cards you discard"),
    ("negotiations", "Negotiations", "AX", "X", "0/0", "0", "0", "Remove X TP"),
    ("its-a-fake", f"It{APOSTROPHE}s a Fake!", "A2", "2", "0/0", "0", "0", "Discard target Machine"),
    ("contact-hpld-civilization", "Contact HPLD Civilization", "A0", "0", "1/2", "1", "2", "Draw 4 cards"),
    ("order-of-the-great-parallax", "Order of the Great Parallax", "E2", "2", "X/0", "X", "0",
     "X = 1 FP per Sally you have completed"),
    ("the-machine-that-wasnt", f"The Machine That Wasn{APOSTROPHE}t", "M2", "2", "2/2", "2", "2",
     "Gain 1 FP every time you play a Machine"),
    ("one-number-5-screw", "One Number 5 Screw", "A0", "0", "0/0", "0", "0", "Worth 3 cards to pay for Machine"),
    ("polypolice-machine", "Polypolice Machine", "A2", "2", "2/0", "2", "0", "Worth 3 cards to pay for Sally"),
    ("nothing-machine", "Nothing Machine", "M5", "5", "5/5", "5", "5", "Y> Gain 5TP + discard 1 card in play"),
    ("juris-consulenta", "Juris Consulenta", "M3", "3", "1/1", "1", "1", "Y> pay 5 GP: Steal 1 random card FOH"),
])
def test_parsing_sensitive_cards(card_id: str, name: str, tc: str, cost: str, ft: str, fame: str,
                                 trouble: str, notes: str) -> None:
    c = CARDS[card_id]
    assert (c["name"], c["tc"], c["cost"], c["ft"], c["fame"], c["trouble"], c["notes"]) == (
        name, tc, cost, ft, fame, trouble, notes)
    assert c["source"] == {"document": f"{name} {tc} {ft} {notes}"}


def test_typographic_apostrophes_are_kept() -> None:
    assert "'" not in json.dumps([c["name"] + c["notes"] for c in DECK["items"]], ensure_ascii=False)
    assert CARDS["spies"]["notes"] == f"Look at Opponent{APOSTROPHE}s hand & Steal 1 card"
    assert CARDS["its-a-fake"]["name"].encode("utf-8") == b"It\xe2\x80\x99s a Fake!"


def test_polypolice_machine_stays_an_action(game: Game) -> None:
    deck = game.component("deck")
    assert deck is not None
    poly = next(it for it in deck.items if it.id == "polypolice-machine")
    assert poly.get("type") == "Action" and poly.get("tc") == "A2"


def test_rows_rebuild_the_document_card_list(document: str) -> None:
    start = document.index("CARD LIST Card Name: T/C F/T Notes: ") + len("CARD LIST Card Name: T/C F/T Notes: ")
    end = document.index(" CONSTRUCTOR LIST")
    rows = [c["source"]["document"] for c in sorted(DECK["items"], key=lambda c: c["number"])]
    assert " ".join(rows) == document[start:end]
    for c in DECK["items"]:
        assert c["source"]["document"] == f"{c['name']} {c['tc']} {c['ft']} {c['notes']}"
        m = re.fullmatch(r"([SMEA])(\d+|X)", c["tc"])
        assert m and {"S": "Sally", "M": "Machine", "E": "Effect", "A": "Action"}[m[1]] == c["type"]
        assert m[2] == c["cost"] and c["ft"] == f"{c['fame']}/{c['trouble']}"


# -- constructors, tokens, reference ----------------------------------------------------------------

def test_trurl_erratum_and_designed_constructors(game: Game) -> None:
    cons = game.component("constructors")
    assert cons is not None
    trurl = next(it for it in cons.items if it.id == "trurl")
    assert trurl.get("name") == "Trurl the Constructor"
    assert trurl.get("name", document=True) == "Turl the Constructor"
    assert trurl.provenance.kind == "document"
    others = [it for it in cons.items if it.id != "trurl"]
    assert len(others) == 3 and all(it.provenance.kind == "designed" for it in others)
    assert any(it.get("name").startswith("Klapaucius") for it in others)


def test_token_totals(game: Game) -> None:
    def total(cid: str) -> int:
        comp = game.component(cid)
        assert comp is not None
        return sum(it.copies * it.get("value") for it in comp.items)

    assert total("fame") == 200 == 50 * 4
    assert total("trouble") == 80 == 20 * 4
    assert total("genius") == 162


def test_reference_numbers(game: Game) -> None:
    ref = game.component("reference")
    assert ref is not None
    it = ref.items[0]
    assert (it.get("win_fame"), it.get("lose_trouble"), it.get("end_sallies"), it.get("hand_limit"),
            it.get("genius_exchange")) == (50, 20, 7, 10, 5)


# -- the printed text -------------------------------------------------------------------------------

def _replaced(text: str, replace: list[dict[str, str]]) -> str:
    for r in replace:
        text = re.sub(r["pattern"], r["with"], text)
    return text


def test_printed_notes_have_no_cryptic_notation() -> None:
    card = template_json(GAME, "card")
    icons = template_json(GAME, "style")["icons"]
    rules = next(e for e in card["elements"] if e.get("id") == "rules")
    assert {"timing-a", "timing-x", "timing-y", "timing-z", "fame", "trouble", "genius", "foh"} <= set(icons)
    for c in DECK["items"]:
        printed = _replaced(c["notes"], rules["replace"])
        assert not re.search(r"\b(FP|TP|GP|FOH)\b|[AXYZ]>", printed), (c["id"], printed)
        for name in re.findall(r"\{icon:([a-z0-9_-]+)\}", printed):
            assert name in icons, (c["id"], name)
        if "timing" in c:
            assert printed.startswith("{icon:timing-" + c["timing"].lower() + "}"), c["id"]
    assert _replaced(CARDS["nothing-machine"]["notes"], rules["replace"]).endswith(
        "Gain 5\u00a0{icon:trouble}\u00a0Trouble + discard 1 card in play")


# -- the checker ------------------------------------------------------------------------------------

def test_polypolice_is_reported_as_a_document_oddity(game: Game) -> None:
    report = check_game(game)
    odd = {o.rule.id: o.oddities for o in report.outcomes if o.oddities}
    assert odd.keys() == {"deck-machine-names-are-machines", "deck-effect-names-are-effects"}
    assert odd["deck-machine-names-are-machines"][0].startswith("deck/polypolice-machine: Document oddity")


def test_reference_sections_are_evenly_spaced(bundled: Bundled) -> None:
    """Issue 23 (ruling gaps even on the reference sheets): on the built player reference, the gap
    from one section's last line of text to the next section's heading, and from the last
    section's text to the row of number tiles, is the same (it was 2.5, 3.5 and 3.9 mm)."""
    mm = 72 / 25.4
    with pdfplumber.open(bundled.built("cyberiad").paths["reference"]) as pdf:
        page = pdf.pages[0]
        bleed = min((r for r in page.rects if abs(r["width"] - 76 * mm) < 0.5), key=lambda r: (r["top"], r["x0"]))
        x0, y0 = bleed["x0"] + 3 * mm, bleed["top"] + 3 * mm
        inside = [c for c in page.chars if x0 <= c["x0"] <= x0 + 70 * mm and y0 <= c["top"] <= y0 + 120 * mm
                  and c["text"].strip()]
        rows: dict[float, list[dict]] = {}
        for c in inside:
            rows.setdefault(round(c["top"], 1), []).append(c)
        lines = [("".join(c["text"] for c in sorted(cs, key=lambda c: c["x0"])), min(c["top"] for c in cs),
                  max(c["bottom"] for c in cs)) for _, cs in sorted(rows.items())]
        tiles = min(c["top"] for c in page.curves  # the tiles are rounded rectangles 13.6 mm wide
                    if abs(c["x1"] - c["x0"] - 13.6 * mm) < 0.3 and y0 < c["top"] < y0 + 120 * mm)
    gaps = []
    for i, (text, top, _) in enumerate(lines):
        if text in ("YOURTURN", "CARDSINPLAY", "GAMEEND"):
            gaps.append((top - lines[i - 1][2]) / mm)
    gaps.append((tiles - max(b for _, t, b in lines if t < tiles)) / mm)
    assert len(gaps) == 4
    assert max(gaps) - min(gaps) < 0.3, gaps
