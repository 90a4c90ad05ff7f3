"""vacuous: rulebook rules that cannot fail, given what the schema and the loader already enforce.

A rule that restates a guarantee gives false assurance: it passes whatever the data says. Each
finding names the rule and why it cannot fail; ``pnp check`` reports it as a warning (an error
with ``--strict``). Pure: reads the model only.

What is known to hold before any rule runs:
- item ids are unique in a data file (the loader rejects a duplicate), so ``unique`` on ``id``,
  ``groups`` by ``id`` of one item each and ``determines`` by ``id`` cannot fail;
- a field declared ``required`` is present on every item, its ``enum`` bounds its values and its
  ``min``/``max`` its numbers (the item schema generated from ``fields``); ``copies`` is 1 to
  10 000; so an ``each`` whose condition follows from these cannot fail;
- an ``each`` whose condition is part of its own selection cannot fail;
- ``equal`` of numbers only, or of the same value written twice and nothing else, and a ``match``
  of a side with itself, cannot fail."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from msgspec import Struct

from pnp.input.model import Component, FieldSpec, Game, Rule

COPIES = FieldSpec("copies", "integer", "copies", True, None, 1, 10_000)


class Vacuous(Struct, frozen=True):
    """A rule that cannot fail (or, with ``part``, some conditions of an ``each`` rule's ``all``
    that cannot), and why."""

    rule: Rule
    reason: str
    part: bool = False


def vacuous_rules(game: Game) -> list[Vacuous]:
    """Every rule of the game that cannot fail, or that has conditions which cannot, in rulebook order."""
    out = []
    for rule in game.rules:
        reason = why_vacuous(game, rule)
        if reason is not None:
            out.append(Vacuous(rule, reason))
            continue
        part = why_partly_vacuous(game, rule)
        if part is not None:
            out.append(Vacuous(rule, part, part=True))
    return out


def why_partly_vacuous(game: Game, rule: Rule) -> str | None:
    """Which conditions of an ``each`` rule's ``require.all`` the field declarations guarantee, or
    which values of an ``equal`` rule they make equal."""
    p = rule.params
    if rule.check == "equal" and not p.get("exceptions"):
        return why_partly_vacuous_equal(game, rule)
    if rule.check != "each" or "all" not in p["require"] or p.get("exceptions"):
        return None
    comp = game.component(p["select"]["component"])
    if comp is None:
        return None
    whys = [(i, _guaranteed(c, comp)) for i, c in enumerate(p["require"]["all"])]
    found = [f"require.all[{i}]: {w}" for i, w in whys if w]
    return "the data file's field declarations guarantee " + "; ".join(found) if found else None


def why_vacuous(game: Game, rule: Rule) -> str | None:
    p = rule.params
    if p.get("exceptions"):
        return None  # a rule with exceptions fails when they stop being needed
    if rule.check == "equal":
        return _equal(p["values"], game)
    if rule.check == "match":
        if _same(p["from"], p["to"]):
            return "it matches a side with itself"
        return None
    comp = game.component(p["select"]["component"]) if "select" in p else None
    if comp is None:
        return None  # an unknown component is reported as bad input by the checker
    if rule.check == "unique" and p.get("field") == "id":
        return "item ids are already unique in a data file (the loader rejects a duplicate id)"
    if rule.check == "groups" and p["by"] == "id" and p["each"] == 1 and p.get("count", "items") == "items" \
            and "groups" not in p:
        return "every id is its own group of one item (the loader rejects a duplicate id)"
    if rule.check == "determines" and p["by"] == "id" and not p.get("values"):
        return "every id is one item, so it fixes its own fields (the loader rejects a duplicate id)"
    if rule.check == "each":
        where = p["select"].get("where")
        if where is not None and _implied_by_selection(p["require"], where):
            return "its condition is part of its own selection (`select.where`)"
        why = _guaranteed(p["require"], comp)
        if why is not None:
            return f"the data file's field declarations already guarantee it: {why}"
    return None


def _equal(values: list[Any], game: Game | None = None) -> str | None:
    if all(isinstance(v, int | float) for v in values):
        return "it compares numbers only, not the data"
    if game is not None:
        values = [_plain(v, game) for v in values]
    distinct: list[Any] = []
    for v in values:
        if not any(_same(v, d) for d in distinct):
            distinct.append(v)
    if len(distinct) == 1:
        return "it compares a value with itself"
    return None


def _plain(v: Any, game: Game) -> Any:
    """A value with each selection's ``where`` dropped where the field declarations make it hold
    for every item (it then selects what the bare selection does)."""
    if isinstance(v, list):
        return [_plain(x, game) for x in v]
    if not isinstance(v, Mapping):
        return v
    out = {k: _plain(x, game) for k, x in v.items()}
    if "component" in out and "where" in out:
        comp = game.component(out["component"])
        if comp is not None and _guaranteed(out["where"], comp) is not None:
            del out["where"]
    return out


def why_partly_vacuous_equal(game: Game, rule: Rule) -> str | None:
    """Two values of an ``equal`` rule that are equal whatever the data (a selection's ``where``
    that the field declarations make hold for every item)."""
    vals = rule.params["values"]
    plain = [_plain(v, game) for v in vals]
    for i in range(len(vals)):
        for j in range(i):
            if not isinstance(vals[i], int | float) and _same(plain[i], plain[j]) and not _same(vals[i], vals[j]):
                return (f"values[{i}] always equals values[{j}]: its `where` holds for every item, "
                        "as the data file's field declarations guarantee")
    return None


def _same(a: Any, b: Any) -> bool:
    return bool(a == b)


def _implied_by_selection(require: Mapping[str, Any], where: Mapping[str, Any]) -> bool:
    conjuncts = where.get("all", [where])
    wanted = require.get("all", [require])
    return all(any(_same(w, c) for c in conjuncts) for w in wanted)


def _spec(name: str, comp: Component) -> FieldSpec | None:
    if name == "copies":
        return COPIES
    return comp.fields.get(name)


def _guaranteed(cond: Mapping[str, Any], comp: Component) -> str | None:
    """Why ``cond`` holds for every item the field declarations allow, or None."""
    if "all" in cond:
        whys = [_guaranteed(c, comp) for c in cond["all"]]
        return "; ".join(w for w in whys if w) if all(whys) else None
    if "any" in cond:
        return next((w for w in (_guaranteed(c, comp) for c in cond["any"]) if w), None)
    if "not" in cond or cond.get("field") == "id":
        return None
    spec = _spec(cond["field"], comp)
    if spec is None or not spec.required:
        return None  # an optional field may be absent, and an absent value fails every test but present: false
    reasons = []
    name = spec.name
    for key in ("present", "equals", "in", "min", "max", "matches"):
        if key not in cond:
            continue
        why = _test_guaranteed(key, cond[key], spec)
        if why is None:
            return None
        reasons.append(why.format(name=name))
    return ", ".join(reasons) if reasons else None


def _test_guaranteed(key: str, want: Any, spec: FieldSpec) -> str | None:
    if key == "present":
        # A required string may still be "" and a required list [], which count as not present.
        never_empty = spec.type in ("integer", "number", "boolean") or (
            spec.enum is not None and "" not in spec.enum and [] not in spec.enum)
        return "{name} is required" if want is True and never_empty else None
    if key == "equals":
        return f"{{name}} is required with the one enum value {want!r}" if spec.enum == (want,) else None
    if key == "in":
        if spec.enum is not None and set(spec.enum) <= set(want):
            return "{name}'s enum " + repr(list(spec.enum)) + " is within " + repr(list(want))
        return None
    if key == "min":
        return f"{{name}} has min {spec.min:g} >= {want:g}" if spec.min is not None and spec.min >= want else None
    if key == "max":
        return f"{{name}} has max {spec.max:g} <= {want:g}" if spec.max is not None and spec.max <= want else None
    return None  # a pattern is not judged
