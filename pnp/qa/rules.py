"""rules: model + rulebook rules -> outcomes (passed, or a violation with expected and actual). Pure.

Rules judge the data as the document has it (before errata), since they quote the document.

Rules are data (``rulebook`` in game.json), each with the quote it comes from. A reference to
an unknown component, item or field is an input error (exit 2), not a failed rule.

What the rules do is bounded: what they read is charged to the command's shape budget (a
selection or a `match` side several rules name alike is read once), and a failed rule keeps its
first MAX_DETAILS details and counts the rest.

Size: one Checker with a method per check kind, which share the value evaluator (with its
overflow bounds and the tolerance of ``equal``), the way failures name items, the shared
selections and the budget; split, each part would import the others' private helpers."""

from __future__ import annotations

import json
import math
import sys
from collections import Counter, defaultdict
from collections.abc import Mapping
from itertools import islice
from typing import Any

from msgspec import Struct
from msgspec.structs import replace

from pnp.errors import DataError, Diagnostic
from pnp.input.conditions import REGEX_SYNTAX, PatternError, describe, fields_read, holds, matches_steps
from pnp.input.model import Component, Game, Item, Rule
from pnp.input.project import DataRoot
from pnp.input.templates import TemplateStore
from pnp.layout.cost import REGEX_STEPS, Tally, input_files
from pnp.layout.fields import Env
from pnp.qa.fits import SpaceError, judge, piece_of, spaces
from pnp.qa.quotes import traced


class Outcome(Struct, frozen=True):
    """The result of one rulebook rule: what it expected, what the data has, and why."""

    rule: Rule
    passed: bool
    expected: str
    actual: str
    details: tuple[str, ...] = ()
    oddities: tuple[str, ...] = ()  # the rule's declared exceptions, reported, not failed

    def as_json(self) -> dict[str, Any]:
        return {"id": self.rule.id, "check": self.rule.check, "description": self.rule.description,
                "passed": self.passed, "expected": self.expected, "actual": self.actual,
                "details": list(self.details), "oddities": list(self.oddities), "quote": self.rule.quote}


class ProvenanceSummary(Struct, frozen=True):
    """How many of a component's items come from the document, an external fact, or design."""

    component: str
    document: int
    external: int
    designed: int
    items: int
    pieces: int
    unstated: int = 0  # items without a source (a game that does not ask for them)


class Report(Struct, frozen=True):
    """Every rule's outcome for one game, and its provenance summary."""

    game: Game
    outcomes: tuple[Outcome, ...]
    provenance: tuple[ProvenanceSummary, ...]

    @property
    def ok(self) -> bool:
        return all(o.passed for o in self.outcomes)

    @property
    def violations(self) -> tuple[Outcome, ...]:
        return tuple(o for o in self.outcomes if not o.passed)


class _RefError(Exception):
    def __init__(self, path: tuple[str | int, ...], message: str, expected: str):
        super().__init__(message)
        self.path, self.message, self.expected = path, message, expected


class _OverBudget(_RefError):
    """The rules' patterns are past the command's budget: no further rule is run."""


# Spaces a game's `fits` rules may judge together (each rule, each selected item, each space of
# its element): six 1,000-space repeats on 40 items under 30 rules, 11 KB, took 244 s before the
# closest pair was found in O(n log n) and alike spaces judged once (attack 8, F5); this bounds the
# rest (about 5 ms a 1,000 distinct spaces).
MAX_FITS_POINTS = 2_000_000

# The details (mismatches, duplicates, inconsistencies ...) a rule keeps: the first MAX_DETAILS,
# the rest only counted (one last line says how many). Ten `match` rules of 200,000 mismatches
# each, every one naming ten items, took 77 s and 1.2 GB to write out, though `check` prints 20 a
# rule (attack 13, F13). A `groups` rule's outcome lists at most MAX_GROUPS groups.
MAX_DETAILS = 100
MAX_GROUPS = 50
# What the rules read is charged to the command's shape budget: one shape for each RULE_READS
# items a rule selects or values it looks up (a selection or a `match` side read once is shared
# by the rules that name it again); a shape is ~3 µs of `check`, an item read ~0.3 µs.
RULE_READS = 10


class _Details:
    """A rule's details: every one counted, the first MAX_DETAILS kept (``room`` says whether the
    next is; a caller makes its text only then)."""

    __slots__ = ("kept", "n")

    def __init__(self) -> None:
        self.kept: list[str] = []
        self.n = 0

    def room(self) -> bool:
        """Count one more detail; whether it is to be kept (then ``add`` it)."""
        self.n += 1
        return self.n <= MAX_DETAILS

    def add(self, text: str) -> None:
        self.kept.append(text)

    def __len__(self) -> int:
        return self.n

    def out(self) -> tuple[str, ...]:
        more = self.n - len(self.kept)
        return (*self.kept, f"and {more:,} more (the first {len(self.kept)} are listed)") if more else tuple(self.kept)


class Checker:
    def __init__(self, game: Game, templates: TemplateStore | None = None, tally: Tally | None = None):
        self.game = game
        self._templates = templates
        self.fits_points = 0  # spaces judged by `fits` rules so far (at most MAX_FITS_POINTS)
        self.skip: frozenset[tuple[str, str]] = frozenset()  # (component, item) excepted by the rule
        # The `matches` tests of the rules' conditions (and of the templates' `when` a `fits` rule
        # reads) are charged to the command's shape budget as a piece's patterns are: one shape
        # for each REGEX_STEPS steps (pnp.layout.cost). Without the command's tally, one of the
        # game's own: its manifest's and data files' bytes.
        if tally is None:
            tally = Tally()
            for comp in game.components:
                tally.allow(input_files(game, comp, []))
        self.tally = tally
        self.steps = 0  # pattern steps charged to the rules so far
        self._seen = matches_steps()  # this thread's pattern steps already counted
        self.reads = 0  # items and values the rules have read so far (charged one shape a RULE_READS)
        # Read once, shared by the rules: selections by (component, skip, where), a `match` side's
        # values and their index by the selection and its fields, a component's items by id.
        self._selections: dict[tuple[Any, ...], list[Item]] = {}
        self._sides: dict[tuple[Any, ...], tuple[list[tuple[Item, Any]], dict[Any, list[Item]]]] = {}
        self._by_id: dict[str, dict[str, Item]] = {}

    def items(self, sel: Mapping[str, Any], path: tuple[str | int, ...]) -> list[Item]:
        comp = self.game.component(sel["component"])
        if comp is None:
            raise _RefError(path + ("component",), f"unknown component {sel['component']!r}",
                            "one of " + ", ".join(c.id for c in self.game.components))
        key = self._selection_key(sel)
        items = self._selections.get(key)
        if items is None:
            items = [it for it in comp.items if (comp.id, it.id) not in self.skip]
            if "where" in sel:
                self._check_fields(sel["where"], comp.fields, path + ("where",))
                self.read(len(items), path + ("where",))
                items = [it for it in items if self._test(sel["where"], it, path + ("where",))]
            self._selections[key] = items
        self.read(len(items), path)  # what the rule does with them: at least read each once
        return items

    def _selection_key(self, sel: Mapping[str, Any]) -> tuple[Any, ...]:
        where = json.dumps(sel["where"], sort_keys=True) if "where" in sel else None
        return sel["component"], self.skip, where

    def item(self, comp: Component, iid: str) -> Item | None:
        """The component's (first) item with id ``iid``."""
        by = self._by_id.get(comp.id)
        if by is None:
            by = self._by_id[comp.id] = {}
            for it in comp.items:
                by.setdefault(it.id, it)
        return by.get(iid)

    def _past_budget(self, before: int, after: int, per: int) -> bool:
        """Charge the shapes a count going from ``before`` to ``after`` owes (one each ``per``)
        to the command's budget; whether the command is now past it."""
        owed = after // per - before // per
        if owed:
            self.tally.charge(self.game.id, owed)
        return self.tally.used > self.tally.limit

    def read(self, n: int, path: tuple[str | int, ...]) -> None:
        """Charge ``n`` more items or values read by the rules to the command's budget; over it, an
        input error at ``path``."""
        before, self.reads = self.reads, self.reads + n
        if self._past_budget(before, self.reads, RULE_READS):
            raise _OverBudget(path, f"the rules of game {self.game.id} have read {self.reads:,} items and values "
                              f"so far: with the pieces laid out, the command is past its budget of "
                              f"{self.tally.limit:,} shapes (one for each {RULE_READS} items a rule selects or "
                              "values it looks up)",
                              "fewer rules over large selections (a `where` narrows one; rules that select the same "
                              f"items or `match` the same side share the reading), or smaller components; "
                              f"{self.tally.expected()}")

    def selected(self, sel: Mapping[str, Any],
                 path: tuple[str | int, ...]) -> tuple[Component, list[Item]]:
        """The component a selection names and its selected items."""
        items = self.items(sel, path)
        comp = self.game.component(sel["component"])
        assert comp is not None  # self.items has checked it
        return comp, items

    def _check_fields(self, cond: Mapping[str, Any], fields: Mapping[str, Any], path: tuple[str | int, ...]) -> None:
        for name, at in fields_read(cond, path):
            self._field(name, fields, at)

    def _field(self, name: str, fields: Mapping[str, Any], path: tuple[str | int, ...]) -> None:
        if name not in fields and name not in ("id", "copies"):
            raise _RefError(path, f"unknown field {name!r}",
                            "one of " + ", ".join(["id", "copies", *sorted(fields)]))

    def _test(self, cond: Mapping[str, Any], item: Item, at: tuple[str | int, ...]) -> bool:
        """Whether ``cond`` (at JSON path ``at`` in the rule) holds for the item as the document
        has it (before errata); each `matches` test is charged (``charge``)."""
        try:
            return holds(cond, lambda name: item.get(name, document=True), at, self.charge)
        except PatternError as exc:
            raise _RefError(exc.path, str(exc), f"a regular expression in {REGEX_SYNTAX}") from None

    def charge(self, path: tuple[str | int, ...]) -> None:
        """Charge the pattern steps taken since the last charge to the command's budget; over it,
        an input error at ``path`` (the `matches`, or what read the template's `when`)."""
        now = matches_steps()
        spent, self._seen = now - self._seen, now
        if spent <= 0:
            return
        before, self.steps = self.steps, self.steps + spent
        if self._past_budget(before, self.steps, REGEX_STEPS):
            raise _OverBudget(path, f"the `matches` patterns of game {self.game.id}'s rules cost {self.steps:,} steps "
                              f"so far: with the pieces laid out, the command is past its budget of "
                              f"{self.tally.limit:,} shapes (one for each {REGEX_STEPS:,} steps of patterns)",
                              "fewer or smaller patterns in the rules' conditions (each test costs its pattern's "
                              "instructions x the characters it reads; counted repetitions such as `.{0,100}` copy "
                              f"what they repeat), or shorter field values; {self.tally.expected()}")

    def value(self, v: Any, path: tuple[str | int, ...]) -> float:
        if isinstance(v, int | float):
            return v
        if "pieces" in v:
            return sum(i.copies for i in self.items(v["pieces"], path + ("pieces",)))
        if "items" in v:
            return len(self.items(v["items"], path + ("items",)))
        if "sum" in v:
            acc: float = 0
            for i, x in enumerate(v["sum"]):
                acc = _bounded(acc + self.value(x, path + ("sum", i)), path, v)
            return acc
        if "total" in v:
            t = v["total"]
            sel = {k: t[k] for k in ("component", "where") if k in t}
            comp, items = self.selected(sel, path + ("total",))
            self._field(t["field"], comp.fields, path + ("total", "field"))
            total = 0.0
            for it in items:
                x = it.get(t["field"], document=True)
                if x is None:
                    continue
                if isinstance(x, bool) or not isinstance(x, int | float):
                    raise _RefError(path + ("total", "field"), f"{comp.id}/{it.id}.{t['field']} is {x!r}", "a number")
                total = _bounded(total + _bounded(x * (it.copies if t.get("count") == "pieces" else 1), path, v),
                                 path, v)
            return total
        if "product" in v:
            out: float = 1  # an int while the factors are: counts multiply exactly
            for i, x in enumerate(v["product"]):
                out = _bounded(out * self.value(x, path + ("product", i)), path, v)
            return out
        ref = v["value"]
        comp = self.game.component(ref["component"])
        if comp is None:
            raise _RefError(path + ("value", "component"), f"unknown component {ref['component']!r}",
                            "one of " + ", ".join(c.id for c in self.game.components))
        item = self.item(comp, ref["item"])
        if item is None:
            raise _RefError(path + ("value", "item"), f"unknown item {ref['item']!r} in {comp.id}",
                            "an item id of " + comp.id)
        self._field(ref["field"], comp.fields, path + ("value", "field"))
        x = item.get(ref["field"], document=True)
        if isinstance(x, bool) or not isinstance(x, int | float):
            raise _RefError(path + ("value",), f"{comp.id}/{item.id}.{ref['field']} is {x!r}", "a number")
        return x

    def run(self, rule: Rule) -> Outcome:
        exceptions = rule.params.get("exceptions", [])
        if not exceptions:
            return self._run(rule)
        for i, e in enumerate(exceptions):
            comp = self.game.component(e["component"])
            if comp is None or self.item(comp, e["item"]) is None:
                raise _RefError(("exceptions", i), f"unknown item {e['component']}/{e['item']}",
                                "an existing component and item id")
        self.skip = frozenset((e["component"], e["item"]) for e in exceptions)
        try:
            out = self._run(rule)
        finally:
            self.skip = frozenset()
        notes = tuple(f"{e['component']}/{e['item']}: {e['reason']}" for e in exceptions)
        if self._run(rule).passed:
            # Without the exceptions the rule holds too: they no longer describe the data.
            return replace(out, passed=False, oddities=notes, details=out.details + tuple(
                "exception no longer needed: " + n for n in notes))
        return replace(out, oddities=notes)

    def _run(self, rule: Rule) -> Outcome:
        return getattr(self, "check_" + rule.check)(rule, rule.params)

    def templates(self) -> TemplateStore:
        if self._templates is None:
            self._templates = TemplateStore(DataRoot(self.game.folder.parent.parent))
        return self._templates

    def check_fits(self, rule: Rule, p: Mapping[str, Any]) -> Outcome:
        pc = p["pieces"]
        comp = None
        if "component" in pc:
            comp = self.game.component(pc["component"])
            if comp is None:
                raise _RefError(("pieces", "component"), f"unknown component {pc['component']!r}",
                                "one of " + ", ".join(c.id for c in self.game.components))
        piece = piece_of(comp, pc)
        host, items = self.selected(p["space"], ("space",))
        try:
            tpl = self.templates().get(host.template)
        except DataError as exc:
            raise _RefError(("space", "component"), exc.diagnostics[0].message, "a component with a template") from None
        eid, clearance, row = p["space"]["element"], p["clearance"], p.get("row")
        details, found = _Details(), 0
        for it in items:
            try:
                got = spaces(tpl, eid, Env(it, host, self.game))
            except SpaceError as exc:
                raise _RefError(("space", "element"), f"template {host.template!r}: {exc}", exc.expected) from None
            self.charge(("space", "element"))  # the `when` patterns of the template read for it
            found += bool(got)
            for sp in got:
                self.fits_points += len(sp.centres)
                if self.fits_points > MAX_FITS_POINTS:
                    raise _RefError(("space", "element"), f"the `fits` rules of game {self.game.id} judge more than "
                                    f"{MAX_FITS_POINTS:,} spaces together ({len(sp.centres):,} of {eid!r} on item "
                                    f"{it.id})", f"at most {MAX_FITS_POINTS:,} spaces across a game's `fits` rules")
                for why in judge(piece, sp, clearance, row, host.size):
                    if details.room():
                        details.add(f"{self.at(host.id, it)} {eid}: {why}")
        if items and not found:
            raise _RefError(("space", "element"), f"no element with id {eid!r} in template {host.template!r} "
                            f"for any selected item of {host.id}", "the id of an element of " + host.template)
        rows = f", {row} side by side" if row else ""
        actual = _count(len(details), "problem", "problems") if details else f"fits on all {len(items)}"
        return Outcome(rule, not details, f"{piece.label} fits {host.id} {eid} with {_fmt(clearance)} mm "
                       f"clearance{rows}", actual, details.out())

    def at(self, cid: str, it: Item) -> str:
        """An item as failures name it: ``deck/sun-2 (card_data/g/deck.json:14)``."""
        return f"{cid}/{it.id} ({self.game.locate(it)})"

    def named(self, cid: str, items: list[Item], limit: int = 12) -> str:
        """Items (with their copies) and where they are, at most ``limit`` of them."""
        shown = [self.at(cid, it) + (f" x{it.copies}" if it.copies != 1 else "") for it in items[:limit]]
        more = f" and {len(items) - limit} more" if len(items) > limit else ""
        return ", ".join(shown) + more if items else "no items"

    def counted(self, v: Any, path: tuple[str | int, ...]) -> list[str]:
        """For each selection a value counts (pieces or items), the items it counted."""
        if isinstance(v, int | float):
            return []
        if "pieces" in v or "items" in v:
            key = "pieces" if "pieces" in v else "items"
            comp, items = self.selected(v[key], path + (key,))
            return [f"{_describe(v)} = {_fmt(self.value(v, path))}: {self.named(comp.id, items)}"]
        for key in ("sum", "product"):
            if key in v:
                return [d for i, x in enumerate(v[key]) for d in self.counted(x, path + (key, i))]
        return []

    # -- checks ------------------------------------------------------------------------
    def check_equal(self, rule: Rule, p: Mapping[str, Any]) -> Outcome:
        vals = [self.value(v, ("values", i)) for i, v in enumerate(p["values"])]
        passed = all(_same(v, vals[0]) for v in vals)
        shown = " = ".join(_fmt(v) for v in vals)
        if not passed and any(_fmt(a) == _fmt(b) and not _same(a, b) for a in vals for b in vals):
            shown = " = ".join(_exact(v) for v in vals)  # rounded, two different values would look equal
        details = () if passed else tuple(d for i, v in enumerate(p["values"]) for d in self.counted(v, ("values", i)))
        return Outcome(rule, passed, "all equal: " + " = ".join(_describe(v) for v in p["values"]), shown, details)

    def check_each(self, rule: Rule, p: Mapping[str, Any]) -> Outcome:
        comp, items = self.selected(p["select"], ("select",))
        self._check_fields(p["require"], comp.fields, ("require",))
        bad = _Details()
        for it in items:
            if not self._test(p["require"], it, ("require",)) and bad.room():
                bad.add(f"{self.at(comp.id, it)}: {_fields_in(p['require'], it)}")
        return Outcome(rule, not bad, f"every selected item ({len(items)}) meets {describe(p['require'])}",
                       f"{len(bad)} do not" if bad else "all do", bad.out())

    def check_match(self, rule: Rule, p: Mapping[str, Any]) -> Outcome:
        def side(key: str) -> tuple[str, list[tuple[Item, Any]], dict[Any, list[Item]]]:
            """A side's component, its values (with the item of each) and the items by value."""
            s = p[key]
            comp, items = self.selected(s["select"], (key, "select"))
            self._field(s["field"], comp.fields, (key, "field"))
            also = s.get("and_field")
            if also is not None:
                self._field(also, comp.fields, (key, "and_field"))
            ck = (*self._selection_key(s["select"]), s["field"], also)
            got = self._sides.get(ck)
            if got is None:
                vals: list[tuple[Item, Any]] = []
                by: dict[Any, list[Item]] = defaultdict(list)
                for it in items:
                    v = it.get(s["field"], document=True)
                    for x in v if isinstance(v, list) else [v]:
                        if x not in (None, ""):
                            x = x if also is None else (x, it.get(also, document=True))
                            vals.append((it, x))
                            by[x].append(it)
                got = self._sides[ck] = (vals, dict(by))
            return comp.id, got[0], got[1]

        fid, fvals, fby = side("from")
        tid, tvals, tby = side("to")
        details = _Details()
        exactly = p.get("exactly_one")

        def look(key: str, cid: str, field: str, vals: list[tuple[Item, Any]], oid: str, ofield: str,
                 other: dict[Any, list[Item]]) -> None:
            self.read(len(vals), (key, "field"))  # each value looked up in the other side's index
            for it, v in vals:
                found = other.get(v, ())
                if (not found or (exactly and len(found) != 1)) and details.room():
                    where = f": {self.named(oid, list(found))}" if found else ""
                    details.add(f"{self.at(cid, it)} {field}={v!r}: found {len(found)} in {oid}.{ofield}{where}")

        fname, tname = _side_name(p["from"]), _side_name(p["to"])
        look("from", fid, fname, fvals, tid, tname, tby)
        if p.get("both_ways"):
            look("to", tid, tname, tvals, fid, fname, fby)
        how = "exactly one" if p.get("exactly_one") else "at least one"
        both = " and back" if p.get("both_ways") else ""
        return Outcome(rule, not details,
                       f"each {fid}.{fname} has {how} {tid}.{tname}{both}",
                       _count(len(details), "mismatch", "mismatches") if details else "all match", details.out())

    def check_groups(self, rule: Rule, p: Mapping[str, Any]) -> Outcome:
        comp, items = self.selected(p["select"], ("select",))
        self._field(p["by"], comp.fields, ("by",))
        counts: dict[Any, int] = defaultdict(int)
        members: dict[Any, list[Item]] = defaultdict(list)
        for it in items:
            key = it.get(p["by"], document=True)
            counts[key] += it.copies if p.get("count") == "pieces" else 1
            members[key].append(it)
        details = _Details()
        for k, n in counts.items():
            if n != p["each"] and details.room():
                details.add(f"{p['by']}={k!r}: {n}: {self.named(comp.id, members[k])}")
        if "groups" in p:
            want = set(p["groups"])
            for g in p["groups"]:
                if g not in counts and details.room():
                    details.add(f"missing group {g!r}: no item of {comp.id} has {p['by']}={g!r}")
            for g in counts:
                if g not in want and details.room():
                    details.add(f"unexpected group {g!r}: {self.named(comp.id, members[g])}")
        unit = "pieces" if p.get("count") == "pieces" else "items"
        actual = ", ".join(f"{k}: {n}" for k, n in islice(counts.items(), MAX_GROUPS))
        if len(counts) > MAX_GROUPS:
            actual += f" and {len(counts) - MAX_GROUPS:,} more groups"
        groups = f" in groups {', '.join(map(str, p['groups']))}" if "groups" in p else ""
        return Outcome(rule, not details, f"{p['each']} {unit} per {p['by']}{groups}", actual, details.out())

    def check_determines(self, rule: Rule, p: Mapping[str, Any]) -> Outcome:
        comp, items = self.selected(p["select"], ("select",))
        self._field(p["by"], comp.fields, ("by",))
        for i, f in enumerate(p["fields"]):
            self._field(f, comp.fields, ("fields", i))
        expected: Mapping[str, Mapping[str, Any]] = p.get("values", {})
        seen: dict[Any, tuple[Item, dict[str, Any]]] = {}
        details = _Details()
        for it in items:
            key = it.get(p["by"], document=True)
            vals = {f: it.get(f, document=True) for f in p["fields"]}
            want = expected.get(str(key))
            if want is not None:
                diff = {f: v for f, v in vals.items() if f in want and want[f] != v}
                if diff and details.room():
                    details.add(f"{self.at(comp.id, it)} ({p['by']}={key}): {diff} but expected "
                                   f"{ {f: want[f] for f in diff} }")
            # With declared values those are the reference; comparing with the first item seen would
            # also blame correct items when the first one is wrong.
            if want is None and key in seen and seen[key][1] != vals and details.room():
                details.add(f"{self.at(comp.id, it)} ({p['by']}={key}): {vals} differs from "
                               f"{seen[key][0].id}: {seen[key][1]}")
            seen.setdefault(key, (it, vals))
        return Outcome(rule, not details, f"{p['by']} fixes {', '.join(p['fields'])}",
                       _count(len(details), "inconsistency", "inconsistencies") if details else "consistent",
                       details.out())

    def check_unique(self, rule: Rule, p: Mapping[str, Any]) -> Outcome:
        comp, items = self.selected(p["select"], ("select",))
        if "within" in p:
            for i, f in enumerate(p["within"]):
                self._field(f, comp.fields, ("within", i))
            names = p["within"]
            bad = _Details()
            for it in items:
                vals = [it.get(f, document=True) for f in names]
                c = Counter(_hashable(v) for v in vals if v not in (None, ""))
                if any(n > 1 for n in c.values()) and bad.room():
                    shown = ", ".join(f"{f}={v!r}" for f, v in zip(names, vals, strict=True))
                    bad.add(f"{self.at(comp.id, it)}: {shown}")
            return Outcome(rule, not bad, f"{', '.join(names)} differ on every item",
                           f"{len(bad)} items repeat a value" if bad else f"all {len(items)} differ", bad.out())
        if "sum" in p:
            for i, f in enumerate(p["sum"]):
                self._field(f, comp.fields, ("sum", i))
            label = " + ".join(p["sum"])

            def key(it: Item) -> Any:
                vals = [it.get(f, document=True) for f in p["sum"]]
                for f, v in zip(p["sum"], vals, strict=True):
                    if isinstance(v, bool) or not isinstance(v, int | float):
                        raise _RefError(("sum",), f"{comp.id}/{it.id}.{f} is {v!r}", "a number")
                acc: float = 0
                for v in vals:
                    acc = _bounded(acc + v, ("sum",), f"the sum ({label})", f" on {comp.id}/{it.id}")
                return acc
        elif "fields" in p:
            for i, f in enumerate(p["fields"]):
                self._field(f, comp.fields, ("fields", i))
            label = "(" + ", ".join(p["fields"]) + ")"

            def key(it: Item) -> Any:
                return tuple(_hashable(it.get(f, document=True)) for f in p["fields"])
        else:
            self._field(p["field"], comp.fields, ("field",))
            label = p["field"]

            def key(it: Item) -> Any:
                return _hashable(it.get(p["field"], document=True))
        by: dict[Any, list[Item]] = defaultdict(list)
        for it in items:
            by[key(it)].append(it)
        dup = _Details()
        for k, v in by.items():
            if len(v) > 1 and dup.room():
                dup.add(f"{label}={k!r} used by {len(v)} items: {self.named(comp.id, v)}")
        return Outcome(rule, not dup, f"no two items share {label}",
                       f"{len(dup)} repeated" if dup else f"{len(by)} distinct", dup.out())

def _hashable(v: Any) -> Any:
    return tuple(v) if isinstance(v, list) else v


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


# The largest magnitude a rule computes with: a double's (about 1.8e308). Beyond it a float is inf
# (and inf - inf is nan), so two different values would compare equal or a true rule would fail.
LIMIT = sys.float_info.max


def _bounded(x: float, path: tuple[str | int, ...], v: Any, on: str = "") -> float:
    """``x``, one step of the value ``v`` at ``path`` (or of what the text ``v`` names), or an input
    error when it is out of range: overflow must never make a rule pass or fail."""
    # an int is compared with the float exactly (Python does not round it); a float is inf or nan
    if abs(x) > LIMIT if isinstance(x, int) else not math.isfinite(x):
        what = v if isinstance(v, str) else ("the sum " if "sum" in v else "the product " if "product" in v
                                              else "the ") + _describe(v)
        raise _RefError(path, f"{what}{on} overflows: it reaches beyond the largest number "
                        "a rule computes with (about 1.8e308)", "a result below about 1e308 in magnitude")
    return x


def _same(a: float, b: float) -> bool:
    """Equal as rules compare: counts (ints) exactly, anything with a float in it within a relative
    1e-9 (absolute 1e-12 near zero), so that 0.1 + 0.2 equals 0.3."""
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def _fmt(v: float) -> str:
    if abs(v) >= 1e16:  # 1e+300, not its 301 digits (_exact gives them where they tell values apart)
        return repr(v) if isinstance(v, float) else f"{v:.6g}"
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


def _exact(v: float) -> str:
    """A value with every digit that tells it apart from its neighbours."""
    return str(v) if isinstance(v, int) else repr(v)


def _describe(v: Any) -> str:
    if isinstance(v, int | float):
        return _fmt(v)
    if "pieces" in v:
        return "pieces(" + _sel(v["pieces"]) + ")"
    if "items" in v:
        return "items(" + _sel(v["items"]) + ")"
    if "sum" in v:
        return "(" + _terms(v["sum"], " + ") + ")"
    if "total" in v:
        t = v["total"]
        return f"total {t['field']} of " + _sel(t) + (" per piece" if t.get("count") == "pieces" else "")
    if "product" in v:
        return "(" + _terms(v["product"], " x ") + ")"
    r = v["value"]
    return f"{r['component']}/{r['item']}.{r['field']}"


TERMS_SHOWN = 12  # of a sum or product in a rule's description (100,000 terms printed 1.5 MB: attack 17)


def _terms(xs: list[Any], sep: str) -> str:
    """The terms ``xs`` described, joined by ``sep``: the first TERMS_SHOWN and how many more."""
    shown = [_describe(x) for x in xs[:TERMS_SHOWN]]
    if len(xs) > TERMS_SHOWN:
        shown.append(f"... {len(xs) - TERMS_SHOWN:,} more")
    return sep.join(shown)


def _sel(s: Mapping[str, Any]) -> str:
    return s["component"] + (" where " + describe(s["where"]) if "where" in s else "")


def _fields_in(c: Mapping[str, Any], it: Item) -> str:
    """The values of the fields a condition reads, each once: ``suit='moon', power=1``."""
    names = dict.fromkeys(name for name, _ in fields_read(c))
    return ", ".join(f"{n}={it.get(n, document=True)!r}" for n in names)


def check_game(game: Game, templates: TemplateStore | None = None, tally: Tally | None = None) -> Report:
    """Run every rule. Bad references inside rules raise DataError (exit 2). ``templates``: where
    ``fits`` rules find their spaces (default: the game's data root); ``tally``: the command's
    shape budget, charged the rules' pattern steps (default: a budget of this game's own)."""
    checker = Checker(game, templates, tally)
    outcomes = []
    diags: list[Diagnostic] = []
    for rule in game.rules:
        try:
            outcomes.append(checker.run(rule))
        except _RefError as exc:
            file, base = rule.origin
            line = col = None
            if game.manifest is not None:
                line, col = game.manifest.locate(base + exc.path)
            diags.append(Diagnostic(file, f"rule {rule.id!r}: {exc.message}", base + exc.path, line, col,
                                    exc.expected))
            if isinstance(exc, _OverBudget):
                break
    if diags:
        raise DataError(diags)
    for qrule, problems in traced(game):
        comp = game.component(qrule.id.removesuffix("-values-in-quotes"))
        assert comp is not None
        n = sum(it.provenance.kind == "document" for it in comp.items)
        missing = _Details()
        for it, p in problems:
            if missing.room():
                missing.add(f"{checker.at(comp.id, it)}: {p}")
        outcomes.append(Outcome(qrule, not problems, f"each of the {n} document items' quote gives its values",
                                _count(len(problems), "value missing", "values missing") if problems else "all given",
                                missing.out()))
    prov = []
    for c in game.components:
        k = Counter(i.provenance.kind for i in c.items)
        prov.append(ProvenanceSummary(c.id, k["document"], k["external"], k["designed"], len(c.items), c.pieces,
                                      k["unstated"]))
    return Report(game, tuple(outcomes), tuple(prov))


def _side_name(side: Mapping[str, Any]) -> str:
    """A ``match`` side's field, or its pair of fields (``and_field``: both must match)."""
    also = side.get("and_field")
    return side["field"] if also is None else f"({side['field']}, {also})"
