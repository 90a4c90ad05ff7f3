"""The Cyberiad: the deck is the document's CARD LIST verbatim (78 cards, 12/26/9/31), the
parsing-sensitive cards keep their X values and curly apostrophes, the rulebook rules pass and
catch mutated copies of the data, the printed text carries no cryptic notation, and the build
writes one PDF per component."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, DataRootCopy, assert_no_traceback, run_cli

from pnp.input.model import Game
from pnp.input.project import DataRoot, bundled_root, load_game
from pnp.qa.rules import check_game

GAME_DIR = REPO / "card_data" / "cyberiad"
TEMPLATES = REPO / "templates" / "cyberiad"
MANIFEST = json.loads((GAME_DIR / "game.json").read_text(encoding="utf-8"))
DECK = json.loads((GAME_DIR / "deck.json").read_text(encoding="utf-8"))
CARDS = {c["id"]: c for c in DECK["items"]}
SEED = REPO.parent / "shared" / "seeds" / MANIFEST["document"]["file"]
APOSTROPHE = "\u2019"


@pytest.fixture(scope="module")
def game() -> Game:
    return load_game(DataRoot(bundled_root()), "cyberiad")


@pytest.fixture(scope="module")
def document() -> str:
    if not SEED.is_file():
        pytest.skip(f"rulebook text not available at {SEED}")
    return SEED.read_text(encoding="utf-8")


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


def test_every_quote_is_verbatim(document: str) -> None:
    for rule in MANIFEST["rulebook"]:
        assert rule["quote"] in document, rule["id"]
    for name in ("deck.json", "constructors.json"):
        for it in json.loads((GAME_DIR / name).read_text(encoding="utf-8"))["items"]:
            if "document" in it["source"]:
                assert it["source"]["document"] in document, it["id"]


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
    card = json.loads((TEMPLATES / "card.json").read_text(encoding="utf-8"))
    icons = json.loads((TEMPLATES / "style.json").read_text(encoding="utf-8"))["icons"]
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

def test_every_rule_passes_and_polypolice_is_reported(game: Game) -> None:
    report = check_game(game)
    assert report.ok, [o.rule.id for o in report.violations]
    odd = {o.rule.id: o.oddities for o in report.outcomes if o.oddities}
    assert odd.keys() == {"deck-machine-names-are-machines", "deck-effect-names-are-effects"}
    assert odd["deck-machine-names-are-machines"][0].startswith("deck/polypolice-machine: Document oddity")


@pytest.mark.parametrize("strict", [False, True])
def test_cli_check_exits_0(strict: bool) -> None:
    result = run_cli("check", "cyberiad", *(["--strict"] if strict else []))
    assert_no_traceback(result)
    assert result.exit_code == 0, result.stdout + result.stderr


def _without(card_id: str):
    def fn(d: dict[str, Any]) -> None:
        d["items"] = [c for c in d["items"] if c["id"] != card_id]
    return fn


def _set(card_id: str, **values: Any):
    def fn(d: dict[str, Any]) -> None:
        next(c for c in d["items"] if c["id"] == card_id).update(values)
    return fn


MUTATIONS = {
    "card removed": ("deck.json", _without("gnostotron"), ["deck-total-78", "deck-machine-26"]),
    "type changed": ("deck.json", _set("nothing-machine", type="Action"),
                     ["deck-type-from-tc", "deck-machine-26", "deck-action-31", "deck-notation-only-on-cards-in-play"]),
    "tc does not parse": ("deck.json", _set("altruizine", tc="A?"), ["deck-tc-parses", "deck-cost-from-tc"]),
    "sally fame changed": ("deck.json", _set("king-krool-the-hunter", fame="6", ft="6/0"),
                           ["deck-sally-values-as-printed"]),
    "polypolice made a machine": ("deck.json", _set("polypolice-machine", type="Machine", tc="M2"),
                                  ["deck-machine-names-are-machines", "deck-worth-cards-are-actions"]),
    "copy added": ("deck.json", _set("spies", copies=2), ["deck-total-78", "deck-one-copy-each"]),
    "win threshold changed": ("reference.json", lambda d: d["items"][0].update(win_fame=40),
                              ["reference-win-50-fame", "fame-supply-4-players"]),
    "hand limit changed": ("reference.json", lambda d: d["items"][0].update(hand_limit=7), ["reference-hand-limit-10"]),
}


@pytest.mark.parametrize("label", list(MUTATIONS))
def test_mutation_is_caught(tmp_path: Path, label: str) -> None:
    data_file, mutate, rule_ids = MUTATIONS[label]
    root = DataRootCopy(tmp_path / "root", "cyberiad")
    shutil.copytree(GAME_DIR, root.game_dir)  # templates fall back to the bundled ones
    assert root.check().exit_code == 0
    root.edit(data_file, mutate)
    result = root.check()
    assert_no_traceback(result)
    assert result.exit_code == 1, result.stdout + result.stderr
    for rule_id in rule_ids:
        assert f"FAIL {rule_id}" in result.stdout, (rule_id, result.stdout)


# -- the build --------------------------------------------------------------------------------------

def test_build_writes_one_pdf_per_component(tmp_path: Path) -> None:
    result = run_cli("build", "cyberiad", "--out", tmp_path)
    assert_no_traceback(result)
    assert result.exit_code == 0, result.stdout + result.stderr
    written = {p.name for p in (tmp_path / "cyberiad").glob("*.pdf")}
    components = [c["id"] for c in MANIFEST["components"]]
    assert components == ["deck", "constructors", "reference", "fame", "trouble", "genius"]
    for cid in components:
        pdf = tmp_path / "cyberiad" / f"{cid}.pdf"
        assert pdf.name in written and pdf.read_bytes().startswith(b"%PDF"), cid
