"""Errata held to the text a piece can hold as each is applied (attack 13, F11)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import DataRootCopy, assert_no_traceback

from pnp.errors import DataError
from pnp.input.model import MAX_ERRATA_TEXT, MAX_TEXT


def _errata(mini: DataRootCopy, errata: list[dict[str, Any]]) -> None:
    mini.edit("game.json", lambda m: m.update(errata=errata))


def _erratum(i: int, replace: str, with_: str, field: str = "name") -> dict[str, Any]:
    return {"id": f"e{i}", "component": "deck", "field": field, "replace": replace, "with": with_, "reason": "typo"}


def test_chained_errata_that_multiply_a_text_stop_at_the_first_past_the_cap(mini: DataRootCopy,
                                                                          tmp_path: Path) -> None:
    """Ten errata each making "n" 20 of them grew "Sun One" to 20^10 characters before any length
    check (out of memory, exit 3). The fourth, which would make 320,005, is refused before its
    text is made, naming it; the errata after it are not judged (no "does not apply")."""
    _errata(mini, [_erratum(i, "n", "n" * 20) for i in range(10)])
    line = mini.line_of("game.json", '"e3"') - 1  # its object's opening brace, a line above its id
    with pytest.raises(DataError) as exc:
        mini.load()
    assert [d.format() for d in exc.value.diagnostics] == [
        f"card_data/mini/game.json:{line}:5: $.errata[3]: erratum 'e3' makes the "
        "'name' of item 'sun-1' 320005 characters long (16000 times 'n' made 20 characters, on the text of the "
        f"errata before it): far more than a piece can hold (expected at most {MAX_TEXT} characters after the "
        "errata); an erratum corrects a few words: check its `replace` and `with`, and those of the errata on the "
        "same field before it"]
    out = tmp_path / "out"
    r = mini.cli("build", "mini", "--out", out)
    assert_no_traceback(r)
    assert r.exit_code == 2 and "$.errata[3]: erratum 'e3' makes the 'name'" in r.stderr and not out.exists()


def test_an_erratum_may_keep_a_long_text_long_but_not_grow_it(mini: DataRootCopy) -> None:
    """A field longer than the cap in the data (printed nowhere, say) may be corrected, not grown."""
    long = "x" * (MAX_TEXT + 10) + " Sun"
    mini.edit("deck.json", lambda d: d["items"][0].update(name=long))
    _errata(mini, [_erratum(0, "Sun", "Son")])
    assert mini.load().components[0].items[0].fields["name"] == long[:-3] + "Son"
    _errata(mini, [_erratum(0, "Sun", "Sunn")])
    with pytest.raises(DataError) as exc:
        mini.load()
    assert exc.value.diagnostics[0].message.startswith(
        f"erratum 'e0' makes the 'name' of item 'sun-1' {len(long) + 1} characters long (1 times 'Sun' made 4 "
        "characters): far more than a piece can hold")


def test_the_text_all_errata_make_is_bounded(mini: DataRootCopy) -> None:
    """Each text within the cap, but 300 items of 19,982 characters each (the erratum making each
    1,000 characters twenty times longer) would be 6 million characters: refused at the item
    that passes MAX_ERRATA_TEXT. The items of a series share one text (counted once)."""
    def many(d: dict[str, Any]) -> None:
        d["items"] = [{"id": f"c{i}", "name": "a" * 999 + str(i), "source": {"designed": "x"}} for i in range(300)]
        d["items"].append({"id": "s", "name": "a" * 999, "series": {"field": "power", "from": 1, "to": 9},
                           "source": {"designed": "x"}})
    mini.edit("deck.json", many)
    _errata(mini, [_erratum(0, "a", "a" * 20)])
    with pytest.raises(DataError) as exc:
        mini.load()
    over = MAX_ERRATA_TEXT // 19_982  # items made before it
    assert [d.format().split(": ", 1)[1] for d in exc.value.diagnostics] == [
        f"$.errata[0]: the errata up to 'e0' make more than {MAX_ERRATA_TEXT} characters of printed text in all (at "
        f"item 'c{over}') (expected at most {MAX_ERRATA_TEXT} characters made by a game's errata (each item's "
        "corrected fields, counted once per distinct text)); an erratum corrects a few words: check its `replace` "
        "and `with`, and those of the errata on the same field before it"]
    mini.edit("deck.json", lambda d: d.update(items=d["items"][over - 5:]))  # the series and 105 others: taken
    items = mini.load().components[0].items
    assert len(items) == 105 + 9 and len(items[-1].fields["name"]) == 19_980
    assert items[-1].fields["name"] is items[-9].fields["name"]
