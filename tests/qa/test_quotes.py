"""Values traced to quotes, and quotes found in the document (pnp.qa.quotes): the bundled
declarations hold; a printed value its quote does not give fails the component's
``<component>-values-in-quotes`` rule naming item, field, value and quote; a quote missing from a
present document is a warning at its line (an error with --strict); an absent document is said so."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import GAMES, Bundled, DataRootCopy, assert_no_traceback, bundled_copy, diag_lines
from hypothesis import given
from hypothesis import strategies as st

from pnp.qa.quotes import document_quotes, find, normalise, written
from pnp.qa.rules import Outcome, check_game


def _failed(root: DataRootCopy) -> dict[str, Outcome]:
    return {o.rule.id: o for o in check_game(root.load()).violations}


def _item(d: dict, iid: str) -> dict:
    return next(i for i in d["items"] if i["id"] == iid)


DECLARED = {
    "golems": {"terrain", "golem-deck", "event-deck", "wizard", "board"},
    "cyberiad": {"deck", "constructors"},
    "capek-golems": {"golem-parts"},
    "time-capsules": {"artifacts", "fluctuations", "crystals", "breaks", "capsules"},
    "cauldron": {"reference", "fields", "ingredients", "characters", "cellars", "basic-potions", "basic-spells",
                 "advanced-spells"},
}


@pytest.mark.parametrize("gid", GAMES)
def test_bundled_values_are_in_their_quotes(bundled: Bundled, gid: str) -> None:
    outcomes = [o for o in check_game(bundled.game(gid)).outcomes if o.rule.check == "quoted"]
    assert {o.rule.id.removesuffix("-values-in-quotes") for o in outcomes} == DECLARED.get(gid, set())
    assert all(o.passed for o in outcomes), [o.details for o in outcomes if not o.passed]


def test_an_event_text_changed_but_not_its_quote(golems: DataRootCopy) -> None:
    text = "Target Small or Medium Golem gets +5 Armor"
    golems.edit("event-deck.json", lambda d: _item(d, "dodge").update(text=text))
    bad = _failed(golems)
    assert set(bad) == {"event-deck-values-in-quotes"}
    line = golems.line_of("event-deck.json", '"id": "dodge"')
    assert bad["event-deck-values-in-quotes"].details == (
        f"event-deck/dodge (card_data/golems/event-deck.json:{line}): text='Target Small or Medium Golem gets +5 "
        "Armor' is not in its quote: 'Dodge B Target Small or Medium Golem gets +7 Armor'",)


def test_a_modifier_written_as_the_document_writes_it(golems: DataRootCopy) -> None:
    """Flyer: 'Flyer S 4 - -1 4' (Force '-' is 0, Armor -1). Force 1 would be '+1', not in the row."""
    golems.edit("golem-deck.json", lambda d: _item(d, "flyer").update(force=1))
    o = _failed(golems)["golem-deck-values-in-quotes"]
    assert o.details[0].endswith("force=1 (written '+1') is not in its quote: 'Flyer S 4 - -1 4'")


def test_a_value_out_of_order_is_not_taken_from_another_column(golems: DataRootCopy) -> None:
    """Flesh 'Flesh M S +1 - 1': Armor 1 ('+1') appears, but only before Force's place."""
    golems.edit("golem-deck.json", lambda d: _item(d, "flesh").update(armor=1))
    o = _failed(golems)["golem-deck-values-in-quotes"]
    assert o.details[0].endswith("armor=1 (written '+1') is not in its quote after what precedes it: "
                                 "'Flesh M S +1 - 1'")


def test_a_cyberiad_fame_value_and_code_changed_together(tmp_path: Path) -> None:
    copy = bundled_copy(tmp_path, "cyberiad")
    copy.edit("deck.json", lambda d: _item(d, "thinking-machine").update(fame="3", ft="3/1"))
    bad = _failed(copy)
    assert set(bad) == {"deck-values-in-quotes"}
    assert bad["deck-values-in-quotes"].details[0].endswith(
        "fame='3' is not in its quote: 'Thinking Machine M4 2/1 Y> Remove 1 TP'")


def test_case_matters_unless_the_field_says_any_case(golems: DataRootCopy) -> None:
    """'Barrier to Movement' retyped 'Barrier to movement' is a difference; the Wizard's 'Small' is
    the quote's 'small' (declared any_case)."""
    golems.edit("terrain.json", lambda d: _item(d, "water").update(notes="Barrier to movement"))
    o = _failed(golems)["terrain-values-in-quotes"]
    assert o.details[0].endswith("notes='Barrier to movement' is not in its quote: 'Water 12 Barrier to Movement'")
    assert golems.read("wizard.json")["quoted"]["fields"]["size"] == {"any_case": True}


def test_errata_do_not_count_as_differences(golems: DataRootCopy) -> None:
    """Juggernaught/Dispell are printed corrected; their quotes keep the document's spelling."""
    game = golems.load()
    assert game.component("golem-deck").items[-1].fields["name"] == "Juggernaut"
    assert "golem-deck-values-in-quotes" not in _failed(golems)


def test_fields_an_item_designed_are_not_looked_for(tmp_path: Path) -> None:
    """Nanoassembler's cost is designed (its designed_fields says so): a changed cost is not a quote
    mismatch; Recon Drone's cost is the document's: a changed one is."""
    copy = bundled_copy(tmp_path, "time-capsules")
    copy.edit("artifacts.json", lambda d: _item(d, "nanoassembler").update(cost=6))
    assert "artifacts-values-in-quotes" not in _failed(copy)
    copy.edit("artifacts.json", lambda d: _item(d, "recon-drone").update(cost=6))
    o = _failed(copy)["artifacts-values-in-quotes"]
    assert len(o.details) == 1 and "recon-drone" in o.details[0] and "cost=6 is not in its quote" in o.details[0]


def test_an_unknown_quoted_field_is_bad_input(golems: DataRootCopy) -> None:
    golems.edit("terrain.json", lambda d: d["quoted"]["fields"].update(nmae={}))
    r = golems.check()
    assert_no_traceback(r)
    assert r.exit_code == 2
    line = golems.line_of("terrain.json", '"nmae"')
    assert (f"card_data/golems/terrain.json:{line}:7: $.quoted.fields.nmae: unknown field 'nmae' in quoted "
            "(expected one of copies, icon, name, notes, recruits, role)") in diag_lines(r.stderr)


def test_written_forms() -> None:
    assert written(0, {"signed": True, "as": {"0": "-"}}) == ["-"]
    assert written(3, {"signed": True}) == ["+3"]
    assert written(-1, {"signed": True}) == ["-1"]
    assert written("Material", {"as": {"Material": "M"}}) == ["M"]
    assert written(["a", "b"], {}) == ["a", "b"]
    assert written(True, {"as": {"true": "yes"}}) == ["yes"]
    assert written(3, {"format": "{}M"}) == ["3M"]
    assert written(0, {"as": {"0": ""}, "format": "{}M"}) == [""]  # not written: nothing to look for
    assert normalise("It\u2019s  a\nFake!") == "it's a fake!"
    assert find("man", "small, soft, man-shaped", 0) == len("small, soft, man")
    assert find("5", "M5 5/5", 0) == 4  # not the 5 of M5
    assert find("5", "M5", 0) is None


# -- quotes in the document ------------------------------------------------------------------------

def _document(root: DataRootCopy) -> str:
    """A document holding every quote of the game, one a paragraph."""
    return "\n\n".join(q for _, _, q in document_quotes(root.load())) + "\n"


def test_no_document_is_said_so(golems: DataRootCopy, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PNP_DOCUMENTS", raising=False)
    r = golems.check()
    assert r.exit_code == 0
    assert r.stdout.splitlines()[1] == ("  document 001_4b074e7ea6cd71f4.txt not found (in the game folder or "
                                        "PNP_DOCUMENTS): quotes not checked against it")


def test_every_quote_found_in_a_document_in_the_game_folder(golems: DataRootCopy) -> None:
    golems.file("001_4b074e7ea6cd71f4.txt").write_text(_document(golems), encoding="utf-8")
    r = golems.check("--strict")
    assert r.exit_code == 0, r.stderr
    n = len(document_quotes(golems.load()))
    assert r.stdout.splitlines()[1] == (f"  document card_data/golems/001_4b074e7ea6cd71f4.txt: {n} of {n} quotes "
                                        "found")


def test_a_quote_not_in_the_document_is_a_warning(tmp_path: Path, golems: DataRootCopy,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "001_4b074e7ea6cd71f4.txt").write_text(_document(golems), encoding="utf-8")
    monkeypatch.setenv("PNP_DOCUMENTS", str(docs))
    golems.replace("event-deck.json", '"document": "Dodge B Target Small or Medium Golem gets +7 Armor"',
                   '"document": "Dodge B Target Small or Medium Golem gets +5 Armor"')
    r = golems.check()
    assert_no_traceback(r)
    assert r.exit_code == 1  # the printed text (+7) is no longer in the item's quote either
    assert "FAIL event-deck-values-in-quotes:" in r.stdout
    line, col = golems.pos_of("event-deck.json", '"document": "Dodge B', len('"document": '))
    assert (f"warning: card_data/golems/event-deck.json:{line}:{col}: $.items[4].source.document: quote not found "
            f"in the document {docs / '001_4b074e7ea6cd71f4.txt'}: 'Dodge B Target Small or Medium Golem gets +5 "
            "Armor'; quote the document verbatim (white space, case and quote marks may differ; leave words out "
            "with ' [...] ')") in r.stderr.splitlines()
    assert golems.check("--strict").exit_code == 2


@given(st.text(alphabet=st.sampled_from(" \t\n\r\x0b\x0c\x85\xa0\u2003\u3000ab.'"), max_size=40))
def test_white_space_is_collapsed_as_before_without_a_match_per_space(text: str) -> None:
    """normalise collapses every run of white space to one space (``\\s+`` -> " "), matching only
    the runs that are not already one space: re.sub kept a piece for each of a document's
    millions of single spaces (a 64 MiB document took 1.8 GB to check)."""
    import re
    import unicodedata

    from pnp.qa.quotes import _QUOTES

    expected = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text).translate(_QUOTES)).strip()
    assert normalise(text, fold=False) == expected
    assert normalise(text) == expected.casefold()
