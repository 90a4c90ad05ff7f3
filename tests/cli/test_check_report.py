"""`pnp check`'s report on the Golems rulebook (the rules themselves: tests/qa/test_check.py):
exit 1 with each failed rule's description, expected and actual values, details and quote; exit 0
with every rule and the provenance summary under -v."""

from __future__ import annotations

from conftest import DataRootCopy, assert_no_traceback


def test_violation_via_cli_exit_1_names_rule_expected_actual_and_quote(golems: DataRootCopy) -> None:
    golems.edit("event-deck.json", lambda d: d["items"][0].update(copies=1))
    r = golems.check()
    assert r.exit_code == 1
    assert_no_traceback(r)
    out = r.stdout
    assert "golems: 47 rules, 45 pass, 2 fail" in out
    block = out[out.index("FAIL events-two-copies"):]
    assert block.splitlines()[:5] == [
        "FAIL events-two-copies: Every event appears twice in the Event deck.",
        "       expected: every selected item (23) meets copies=2",
        "       actual:   1 do not",
        "         - event-deck/swoop (card_data/golems/event-deck.json:40): copies=1",
        '       rulebook: "The Event deck contains 2 copies of each card listed."',
    ]
    assert "FAIL events-46:" in out
    assert "PASS" not in out  # passing rules are listed only with -v


def test_all_good_via_cli_exit_0_with_provenance(golems: DataRootCopy) -> None:
    r = golems.check("-v")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.startswith("golems: 47 rules, 47 pass, 0 fail\n")
    assert r.stdout.count("  PASS ") == 47
    assert "  chits         64 pieces,  64 items: 64 designed\n" in r.stdout
    assert "  terrain       64 pieces,  20 items: 20 document\n" in r.stdout
    assert "  board           1 piece,    1 item: 1 document\n" in r.stdout
    assert "(items' sources: document = quoted from the rulebook, external = a published fact from elsewhere, " \
           "designed = made to fill a gap)" in r.stdout
