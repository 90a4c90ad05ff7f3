"""Conditions on an item's fields: ``holds`` evaluates one, ``fields_read`` lists the fields it reads.

A condition is data (pnp/input/schemas/condition.schema.json, already validated here): a field
test ``{"field": NAME, "equals"/"in"/"present"/"min"/"max"/"matches": ...}`` (every test given
must hold), or ``{"all": [...]}``, ``{"any": [...]}``, ``{"not": {...}}`` of conditions. Template
``when`` and rulebook ``where``/``require`` are conditions; this module is the one place that
walks them. How a name is read (an item's printed or document value, a built-in, a repeat
counter) is the caller's ``read``."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from functools import cache
from typing import Any

JsonPath = tuple[str | int, ...]


@cache
def regex(pattern: str) -> re.Pattern[str]:
    """A pattern (a condition's ``matches``, a text ``replace``), compiled once; a bad pattern is a
    ValueError."""
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"invalid regular expression {pattern!r}: {exc}") from None


def field_test(cond: Mapping[str, Any], value: Any) -> bool:
    """Whether ``value`` passes every test of the field test ``cond``."""
    if "present" in cond and (value not in (None, "", [])) != cond["present"]:
        return False
    if "equals" in cond and value != cond["equals"]:
        return False
    if "in" in cond and value not in cond["in"]:
        return False
    if "matches" in cond and not (isinstance(value, str) and regex(cond["matches"]).fullmatch(value)):
        return False
    is_num = isinstance(value, int | float) and not isinstance(value, bool)
    if "min" in cond and not (is_num and value >= cond["min"]):
        return False
    return not ("max" in cond and not (is_num and value <= cond["max"]))


def holds(cond: Mapping[str, Any], read: Callable[[str], Any]) -> bool:
    """Whether ``cond`` holds when ``read(name)`` gives each field's value. ``all`` and ``any``
    stop at the first condition that decides them, so a field after it is not read. A bad
    ``matches`` pattern raises ValueError; ``read`` may raise for an unknown name."""
    if "all" in cond:
        return all(holds(c, read) for c in cond["all"])
    if "any" in cond:
        return any(holds(c, read) for c in cond["any"])
    if "not" in cond:
        return not holds(cond["not"], read)
    return field_test(cond, read(cond["field"]))


def fields_read(cond: Mapping[str, Any], at: JsonPath = ()) -> Iterator[tuple[str, JsonPath]]:
    """Every field name ``cond`` tests, with the JSON path of its ``field`` key (``at`` is the
    condition's own path), in the order they are written; a name tested twice comes twice."""
    if "field" in cond:
        yield cond["field"], at + ("field",)
    for key in ("all", "any"):
        for i, c in enumerate(cond.get(key, [])):
            yield from fields_read(c, at + (key, i))
    if "not" in cond:
        yield from fields_read(cond["not"], at + ("not",))


def describe(cond: Mapping[str, Any]) -> str:
    """The condition as one line of text, as rule reports show it: ``(suit='sun' and power>=2)``."""
    if "all" in cond:
        return "(" + " and ".join(describe(c) for c in cond["all"]) + ")"
    if "any" in cond:
        return "(" + " or ".join(describe(c) for c in cond["any"]) + ")"
    if "not" in cond:
        return "not " + describe(cond["not"])
    parts = []
    f = cond["field"]
    if "equals" in cond:
        parts.append(f"{f}={cond['equals']!r}")
    if "in" in cond:
        parts.append(f"{f} in {cond['in']!r}")
    if "present" in cond:
        parts.append(f"{f} {'set' if cond['present'] else 'unset'}")
    if "min" in cond:
        parts.append(f"{f}>={cond['min']}")
    if "max" in cond:
        parts.append(f"{f}<={cond['max']}")
    if "matches" in cond:
        parts.append(f"{f} matches /{cond['matches']}/")
    return " and ".join(parts)
