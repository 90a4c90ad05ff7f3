"""Conditions on an item's fields: ``holds`` evaluates one, ``fields_read`` lists the fields it reads.

A condition is data (pnp/input/schemas/condition.schema.json, already validated here): a field
test ``{"field": NAME, "equals"/"in"/"present"/"min"/"max"/"matches": ...}`` (every test given
must hold), or ``{"all": [...]}``, ``{"any": [...]}``, ``{"not": {...}}`` of conditions. Template
``when`` and rulebook ``where``/``require`` are conditions; this module is the one place that
walks them. How a name is read (an item's printed or document value, a built-in, a repeat
counter) is the caller's ``read``."""

from __future__ import annotations

import codecs
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from functools import lru_cache
from typing import Any

import re2

JsonPath = tuple[str | int, ...]

# RE2 runs in time linear in the text whatever the pattern (no backtracking), so a pattern in the
# data cannot hang a build; a pattern that would compile to a huge program exceeds its memory budget.
# What RE2 cannot run at all (backreferences, lookaround: the bundled Cauldron track compares two
# numbers with ``^(\d+)=\1$``) runs in Python's re, but only a validated subset, with a budget:
# no repetition inside a repeated group and no alternatives at all (the shapes that backtrack
# exponentially), and (text length + 1) ** (repetitions + 2) at most REGEX_BUDGET steps.
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # its C++ logger would print to stderr ("DFA out of memory: ...")
# Bytes for one compiled pattern: its programs and the DFA cache it keeps between searches. RE2's
# default, 8 MiB, let each distinct pattern keep about 2.8 MB (`(?s:.*a.{490}b.*)c0` on random
# a/b text), so 500 rules of such patterns ran out of memory (attack 10, F2); at 1 MiB a pattern
# keeps at most about a third of a MiB, and one whose DFA runs out falls back to the NFA, whose
# cost, size x characters, is what every search is charged anyway. 1 MiB still compiles a
# program of MAX_PROGRAM instructions both ways (the reverse program gets a third of it).
_RE2_OPTIONS.max_mem = 1 << 20
_SIZING = re2.Options()  # only to tell how large a pattern too large for _RE2_OPTIONS is
_SIZING.log_errors = False
_SIZING.max_mem = 8 << 20
# Compiled patterns kept at once (least recently used dropped first), so their DFA caches are
# bounded whatever the number of distinct patterns (google-re2 keeps its own 128 most recent
# too: at most 2 x 128 x 1 MiB in all). A pattern compiled again after it was dropped is charged
# RECOMPILE_STEPS steps per instruction (compiling costs about a pass over 1,000 characters:
# 0.8 ms for 3,452 instructions), so a piece or a rulebook cycling through more patterns than
# are kept pays for it within its budget; the first compile of a pattern is not charged.
MAX_COMPILED = 128
RECOMPILE_STEPS = 1_000

REGEX_SYNTAX = ("RE2 syntax (Python's; backreferences and lookaround only without nested repetition "
                "or alternatives)")
MAX_REPLACED = 100_000  # characters a text may grow to by its `replace` rewrites
REGEX_BUDGET = 10**7  # backtracking steps allowed to a pattern RE2 cannot run
MAX_REPETITIONS = 64  # counted, at most: past it no text of a character is within REGEX_BUDGET
# RE2 is linear in the text, but the factor is the compiled program's size when its DFA runs out of
# memory and it falls back to the NFA: counted repetitions (``(?:.{0,1000}){1}`` seven times, 127
# characters) compile to 62,005 instructions and took 1.6 s CPU on one 19,000-character text. So a
# program may have at most MAX_PROGRAM instructions (the bundled games' largest has 137; ``\pL+``
# has 1,201), and one application of a pattern is charged its size x (text length + 1) steps, at
# most REGEX_COST per application and per piece (pnp/layout/piece.py adds up a piece's `replace`).
MAX_PROGRAM = 5_000
REGEX_COST = 5 * 10**7
_SPENT = threading.local()  # steps charged to `matches` on this thread since reset_matches_steps()


def matches_steps() -> int:
    """Steps charged to ``matches`` tests (answers not remembered) since ``reset_matches_steps``."""
    return getattr(_SPENT, "steps", 0)


def reset_matches_steps() -> None:
    _SPENT.steps = 0


class _Regex:
    """A compiled pattern: ``fullmatch`` (answers remembered: field values repeat) and ``sub``."""

    __slots__ = ("_re", "_repeats", "fullmatch", "pattern", "size")

    def __init__(self, pattern: str, compiled: Any, repeats: int | None = None):
        self.pattern = pattern
        self._re = compiled
        self._repeats = repeats  # None: RE2 (linear); else Python's re with this many repetitions
        # RE2's program size (instructions), the cost of each text character (1: Python's re, held
        # to REGEX_BUDGET instead)
        self.size = max(compiled.programsize, compiled.reverseprogramsize) if repeats is None else 1

        def full(text: str) -> bool:
            _SPENT.steps = matches_steps() + self._budget(text)
            return compiled.fullmatch(text) is not None

        self.fullmatch = lru_cache(maxsize=4096)(full)

    def cost(self, text: str) -> int:
        """The steps this pattern is charged for one pass over ``text`` (see REGEX_COST)."""
        return self.size * (len(text) + 1)

    def _budget(self, text: str, budget: int = REGEX_COST) -> int:
        """The steps one pass over ``text`` is charged (RegexCostError above ``budget``); ValueError
        for a backreference or lookaround pattern beyond its own budget."""
        steps = self.cost(text)
        if steps > budget:
            raise RegexCostError(self, text, steps, budget)
        if self._repeats is not None and (len(text) + 1) ** (self._repeats + 2) > REGEX_BUDGET:
            raise ValueError(f"regular expression {self.pattern!r} (backreference or lookaround) on a text of "
                             f"{len(text)} characters would take more than {REGEX_BUDGET} steps")
        return steps

    def sub(self, repl: str, text: str) -> str:
        """``text`` with every match replaced by ``repl`` (``\\1``, ``\\g<name>``); a bad group
        reference, a result longer than MAX_REPLACED characters, or more than REGEX_COST steps, is a
        ValueError."""
        return self.sub_counted(repl, text, REGEX_COST)[0]

    def sub_counted(self, repl: str, text: str, budget: int) -> tuple[str, int]:
        """``sub``, and the steps it was charged, at most ``budget`` (else RegexCostError). RE2 looks
        for each match afresh from the end of the last, and a search may read to the end of the
        text before it settles on a short match (``.*z|a`` on 20,000 characters: 0.46 s), so each
        search is charged the pattern's size x the characters left: the bound whatever RE2 does."""
        if self._repeats is not None:
            steps = self._budget(text, budget)
            return self._sub(repl, text), steps
        if not repl.isascii():
            # google-re2 reads a replacement's literal parts with Python's unicode_escape codec,
            # which takes a str's characters for Latin-1 bytes ("’" came out as "â\x80\x99"):
            # give it every other character as the escape that codec decodes back to it.
            repl = "".join(ch if ch.isascii() else f"\\U{ord(ch):08x}" for ch in repl)
        pieces: list[str] = []
        steps = end = made = 0
        size = self.size
        matches = self._re.finditer(text)
        left = len(text)  # characters from where the next search starts
        try:
            while True:
                steps += size * (left + 1)
                if steps > budget:
                    raise RegexCostError(self, text, steps, budget)
                m = next(matches, None)
                if m is None:
                    break
                pieces.append(text[end:m.start()])
                pieces.append(m.expand(repl))
                made += m.start() - end + len(pieces[-1])
                end = m.end()
                left = len(text) - end - (m.start() == end)  # an empty match: the next search starts one further
                if made > MAX_REPLACED:  # too long already: _checked says so
                    break
        except (IndexError, ValueError, re.error) as exc:  # a group the pattern lacks; a trailing backslash
            if isinstance(exc, RegexCostError):
                raise
            raise ValueError(f"replacement {repl!r} for {self.pattern!r}: {exc}") from None
        pieces.append(text[end:])
        return self._checked("".join(pieces)), steps

    def _sub(self, repl: str, text: str) -> str:
        try:
            out = self._re.sub(repl, text)
        except (IndexError, ValueError, re.error) as exc:  # a group the pattern lacks; a trailing backslash
            raise ValueError(f"replacement {repl!r} for {self.pattern!r}: {exc}") from None
        return self._checked(out)

    def _checked(self, out: str) -> str:
        if len(out) > MAX_REPLACED:
            raise ValueError(f"replacing {self.pattern!r} makes the text {len(out)} characters long "
                             f"(more than {MAX_REPLACED})")
        return out


class RegexCostError(ValueError):
    """A pattern's work on a text exceeds its budget (see REGEX_COST)."""

    def __init__(self, rx: _Regex, text: str, steps: int, budget: int):
        super().__init__(f"regular expression {rx.pattern!r} ({rx.size} instructions) on a text of {len(text)} "
                         f"characters: more than {budget} steps")
        self.steps = steps
        self.budget = budget


# A replacement's group references (RE2's wrapper and Python's re read ``\ddd`` as an octal escape
# first) and the literal pieces between them, which both decode as escapes (``\x1b``, ``\u0000``).
_REPL_GROUP = re.compile(r"\\[0-7]{3}|(\\[1-9][0-9]?|\\g<\w+>)|\\.", re.DOTALL)


def replacement_literals(repl: str) -> str:
    """The text a replacement ``repl`` inserts besides its groups: its literal pieces with their
    escapes decoded as the engines decode them (``\x00`` is NUL, ``\ud800`` a lone surrogate), for
    the same check as any other text; ValueError for an escape that cannot be decoded."""
    pieces: list[str] = []
    start = 0
    for m in _REPL_GROUP.finditer(repl):
        if m.group(1) is not None:  # a group reference ends the piece
            pieces.append(repl[start:m.start()])
            start = m.end()
    pieces.append(repl[start:])
    out = []
    for piece in pieces:
        escaped = "".join(ch if ch.isascii() else f"\\U{ord(ch):08x}" for ch in piece)
        try:
            out.append(codecs.decode(escaped, "unicode_escape"))
        except UnicodeDecodeError as exc:
            raise ValueError(f"replacement {repl!r}: {exc.reason}") from None
    return "".join(out)


def _repetitions(parsed: Any, inside_repeat: bool = False) -> int:
    """How many repetitions (a count with a choice: ``*``, ``+``, ``{2,5}``, and ``?`` too, whose
    n in a row backtrack 2**n ways) the parsed pattern holds, a group repeated a fixed count of
    times holding that many copies of its own (``(a?){26}`` is 26 of them in a row: attack 21,
    F3), at most MAX_REPETITIONS; ValueError for one inside a repeated group, or for
    alternatives."""
    from re import _constants as c

    n = 0
    for op, av in parsed:
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            lo, hi, sub = av
            if hi > lo:
                if inside_repeat:
                    raise ValueError("a repetition inside a repeated group")
                n += 1 + _repetitions(sub, True)
            else:
                n += lo * _repetitions(sub, inside_repeat)
        elif op is c.BRANCH:
            # Alternatives in a row multiply the ways to backtrack ((a|a)(a|a)... : 2**n), which
            # the budget below does not count: none at all in a pattern RE2 cannot run.
            raise ValueError("alternatives (|)")
        elif op is c.SUBPATTERN:
            n += _repetitions(av[-1], inside_repeat)
        elif op in (c.ASSERT, c.ASSERT_NOT):
            n += _repetitions(av[1], inside_repeat)
        elif op is c.GROUPREF_EXISTS:
            n += sum(_repetitions(b, inside_repeat) for b in av[1:] if b is not None)
        elif op is c.ATOMIC_GROUP:
            n += _repetitions(av, inside_repeat)
    return min(n, MAX_REPETITIONS)


_NAMED_GROUP = re.compile(r"\(\?P?<(\w+)>")


def _duplicate_group_name(pattern: str, groups: int) -> tuple[str, int, int] | None:
    r"""(name, first group, second group) for a group name ``pattern`` (which RE2 compiled, with
    ``groups`` capturing groups) gives twice, else None. A scan of the pattern: escapes, ``\Q...\E``
    and character classes skipped, every ``(`` not followed by ``?`` and every ``(?P<name>`` or
    ``(?<name>`` counted as a group; a count that differs from RE2's is not trusted (None)."""
    seen: dict[str, int] = {}
    found: tuple[str, int, int] | None = None
    n = i = 0
    end = len(pattern)
    while i < end:
        ch = pattern[i]
        if ch == "\\":
            if pattern.startswith("\\Q", i):  # literal text up to \E (or the end)
                close = pattern.find("\\E", i + 2)
                i = end if close < 0 else close + 2
            else:
                i += 2
            continue
        if ch == "[":  # a character class: ']' first is a literal; '[:alpha:]' inside one
            i += 1
            if pattern.startswith("^", i):
                i += 1
            if pattern.startswith("]", i):
                i += 1
            while i < end and pattern[i] != "]":
                if pattern[i] == "\\":
                    i += 2
                elif pattern.startswith("[:", i) and (close := pattern.find(":]", i + 2)) >= 0:
                    i = close + 2
                else:
                    i += 1
            i += 1
            continue
        if ch == "(":
            m = _NAMED_GROUP.match(pattern, i)
            if m is not None or not pattern.startswith("(?", i):
                n += 1
            if m is not None:
                if m.group(1) in seen and found is None:
                    found = (m.group(1), seen[m.group(1)], n)
                seen.setdefault(m.group(1), n)
        i += 1
    return found if n == groups else None


_COMPILED: OrderedDict[str, _Regex] = OrderedDict()  # pattern -> compiled, least recently used first
_DROPPED: set[str] = set()  # patterns dropped from _COMPILED (compiling one again is charged)
_LOCK = threading.Lock()


def regex(pattern: str) -> _Regex:
    """A pattern (a condition's ``matches``, a text ``replace``), compiled: with RE2, or, for one
    RE2 cannot run, with Python's re within the validated subset above; anything else (bad
    syntax, nested repetition with a backreference, too large) is a ValueError. The last
    MAX_COMPILED patterns used are kept compiled (with the answers they gave)."""
    with _LOCK:
        rx = _COMPILED.get(pattern)
        if rx is not None:
            _COMPILED.move_to_end(pattern)
            return rx
    rx = _compile(pattern)
    with _LOCK:
        if pattern in _DROPPED:
            _SPENT.steps = matches_steps() + rx.size * RECOMPILE_STEPS
        _COMPILED[pattern] = rx
        while len(_COMPILED) > MAX_COMPILED:
            _DROPPED.add(_COMPILED.popitem(last=False)[0])
    return rx


def _compile(pattern: str) -> _Regex:
    try:
        try:
            compiled = re2.compile(pattern, _RE2_OPTIONS)
        except re2.error as exc:
            if "pattern too large" not in str(exc):
                raise
            # over 1 MiB: larger than MAX_PROGRAM, and how much larger the message says
            compiled = re2.compile(pattern, _SIZING)
        twice = _duplicate_group_name(pattern, compiled.groups)
        if twice is not None:
            # RE2 keeps the first group of a name and ignores the second (Python's re refuses both)
            raise ValueError(f"invalid regular expression {pattern!r}: group name {twice[0]!r} is used twice "
                             f"(groups {twice[1]} and {twice[2]})")
        size = max(compiled.programsize, compiled.reverseprogramsize)
        if compiled.reverseprogramsize < 0:  # its reverse program is over a third of 1 MiB: how much?
            compiled = re2.compile(pattern, _SIZING)
            size = max(compiled.programsize, compiled.reverseprogramsize)
        if size > MAX_PROGRAM:
            raise ValueError(f"regular expression {pattern[:60]!r}{'...' if len(pattern) > 60 else ''} compiles to "
                             f"{size} instructions (more than {MAX_PROGRAM}): counted repetitions such as "
                             "`.{0,1000}` are copied once per count")
        return _Regex(pattern, compiled)
    except re2.error as exc:
        msg = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
    except UnicodeEncodeError:  # a lone surrogate: the loader refuses them, a library caller may not
        raise ValueError(f"invalid regular expression {pattern!r}: not valid Unicode") from None
    # (RE2 says just "(?P" for a named backreference "(?P=name)")
    if not msg.startswith(("invalid escape sequence: \\", "invalid perl operator: (?<", "invalid perl operator: (?=",
                           "invalid perl operator: (?!", "invalid perl operator: (?P")):
        raise ValueError(f"invalid regular expression {pattern!r}: {msg}")
    from re import _parser

    try:
        repeats = _repetitions(_parser.parse(pattern))
        compiled = re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"invalid regular expression {pattern!r}: {exc}") from None
    except RecursionError:  # Python's parser recurses once per nested group
        raise ValueError(f"regular expression {pattern[:40]!r}... has a backreference or lookaround and groups "
                         "nested too deeply") from None
    except ValueError as exc:
        raise ValueError(f"regular expression {pattern!r} has a backreference or lookaround and {exc} "
                         "(it could take exponential time)") from None
    return _Regex(pattern, compiled, repeats)


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


class PatternError(ValueError):
    """A ``matches`` test that failed (bad pattern, over its budget), with the JSON path of its
    ``matches`` key (``holds`` with ``at``)."""

    def __init__(self, message: str, path: JsonPath):
        super().__init__(message)
        self.path = path


def holds(cond: Mapping[str, Any], read: Callable[[str], Any], at: JsonPath | None = None,
          tested: Callable[[JsonPath], None] | None = None) -> bool:
    """Whether ``cond`` holds when ``read(name)`` gives each field's value. ``all`` and ``any``
    stop at the first condition that decides them, so a field after it is not read. A bad
    ``matches`` pattern raises ValueError; ``read`` may raise for an unknown name. With ``at``
    (the condition's JSON path) that ValueError is a PatternError naming its ``matches``, and
    ``tested`` is called with that path after each ``matches`` test (to charge its steps)."""
    if "all" in cond:
        return all(holds(c, read, _at(at, "all", i), tested) for i, c in enumerate(cond["all"]))
    if "any" in cond:
        return any(holds(c, read, _at(at, "any", i), tested) for i, c in enumerate(cond["any"]))
    if "not" in cond:
        return not holds(cond["not"], read, _at(at, "not"), tested)
    if at is None or "matches" not in cond:
        return field_test(cond, read(cond["field"]))
    value = read(cond["field"])
    try:
        ok = field_test(cond, value)
    except ValueError as exc:
        raise PatternError(str(exc), at + ("matches",)) from None
    if tested is not None:
        tested(at + ("matches",))
    return ok


def _at(at: JsonPath | None, *keys: str | int) -> JsonPath | None:
    return None if at is None else at + keys


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
