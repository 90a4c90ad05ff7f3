"""Reading item fields in templates: ``{name|filter}`` references, the filters, the built-in names,
and the per-item environment a layout evaluates them in."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

import msgspec
from msgspec import Struct

from pnp.errors import did_you_mean
from pnp.input.conditions import holds
from pnp.input.model import MAX_TEXT, Component, Game, Item

# characters a template string may make with its field references, checked as they are added: a
# text element holds MAX_TEXT after its `replace` rewrites, which may shorten it first
MAX_SUBSTITUTED = 1_000_000

MINUS = "\u2212"
EN_DASH = "\u2013"
BUILTINS = ("id", "copies", "game.title", "game.subtitle", "game.designer", "component.title",
            "component.id", "token_cut", "provenance")
REPEAT_VARS = ("n", "index", "row", "col")
TRACK_VARS = ("n", "index", "value")
# --token-cut: round pieces in abutting square cut boxes (the default), or each cut round
DEFAULT_TOKEN_CUT = "square"
TOKEN_CUTS = (DEFAULT_TOKEN_CUT, "circle")
_REF = re.compile(r"\{\{|\}\}|\{(?!icon:)([a-z_][a-z0-9_.]*)((?:\|[a-z_][a-z0-9_]*)*)\}")


class LayoutError(Exception):
    def __init__(self, message: str, expected: str | None = None, key: str | tuple[str | int, ...] | None = None,
                 hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.expected = expected
        self.key = key
        self.hint = hint


FILTERS: dict[str, Callable[[Any], Any]] = {}
# Number formats with a digit: |fixed0 ... |fixed6 (decimal places), |pad2 ... |pad6 (zero-padded)
_NUMBERED = re.compile(r"fixed[0-6]|pad[2-6]")


def _filter(name: str) -> Callable[[Callable[[Any], Any]], Callable[[Any], Any]]:
    def deco(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
        FILTERS[name] = fn
        return fn

    return deco


@_filter("upper")
def _upper(v: Any) -> Any:
    return str(v).upper()


@_filter("lower")
def _lower(v: Any) -> Any:
    return str(v).lower()


@_filter("slug")
def _slug(v: Any) -> Any:
    return re.sub(r"[^a-z0-9]+", "-", str(v).lower()).strip("-")


def _sized(v: int | float, fname: str) -> None:
    """A LayoutError for a whole number past a float's range (about 1.8e308): the filters work
    through floats, which overflowed on it (exit 3, attack 13, F5). The loaders refuse such
    numbers; this holds for any other way one may come."""
    if isinstance(v, int) and v.bit_length() > 1000:
        try:
            float(v)
        except OverflowError:
            digits = len(str(abs(v))) if v.bit_length() < 14_000 else "thousands of"  # str() takes 4,300 at most
            raise LayoutError(f"filter |{fname} needs a number of a sensible size, got a whole number of {digits} "
                              "digits", expected="a number at most about 1e308") from None


@_filter("signed")
def _signed(v: Any) -> Any:
    """+3, −1 (a true minus sign), 0."""
    if isinstance(v, bool) or not isinstance(v, int | float):
        return v
    _sized(v, "signed")
    if v > 0:
        return f"+{_num(v)}"
    if v < 0:
        return f"{MINUS}{_num(-v)}"
    return "0"


@_filter("dash_zero")
def _dash_zero(v: Any) -> Any:
    """0 (or "0") prints as an en dash, as rulebooks write "-" for no modifier."""
    return EN_DASH if v in (0, "0", 0.0) else v


@_filter("letter")
def _letter(v: Any) -> Any:
    """1 -> A, 2 -> B ... 26 -> Z (board coordinates)."""
    if isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 26:
        return chr(ord("A") + v - 1)
    return v


@_filter("title")
def _title(v: Any) -> Any:
    """Each word capitalised ("the high priestess" -> "The High Priestess"); apostrophes stay
    inside words ("king's" -> "King's", where ``str.title`` gives "King'S")."""
    return re.sub(r"[^\W_]+(?:['’][^\W_]+)*", lambda m: m.group(0)[:1].upper() + m.group(0)[1:].lower(), str(v))


def _number(v: Any, fname: str, whole: bool = False) -> int | float | None:
    """A filter's number: ints and floats as they are, text that reads as a number converted;
    None (an absent field) stays None. Anything else is an error naming the filter."""
    if v is None or v == "":
        return None
    if isinstance(v, bool):
        raise LayoutError(f"filter |{fname} needs a number, got {v!r}", expected="a number")
    if isinstance(v, str):
        try:
            v = float(v.strip().replace(MINUS, "-"))
        except ValueError:
            raise LayoutError(f"filter |{fname} needs a number, got {v!r}", expected="a number") from None
    if not isinstance(v, int | float) or v != v or v in (math.inf, -math.inf):
        raise LayoutError(f"filter |{fname} needs a number, got {v!r}", expected="a number")
    _sized(v, fname)
    if whole:
        if not float(v).is_integer():
            raise LayoutError(f"filter |{fname} needs a whole number, got {v!r}", expected="a whole number")
        return int(v)
    return v


_ROMAN = ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"), (40, "XL"),
          (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"))


@_filter("roman")
def _roman(v: Any) -> Any:
    """1 -> I, 4 -> IV, 21 -> XXI, 1999 -> MCMXCIX; 0 -> 0 (the Fool has no numeral in Roman
    notation: printed as 0, as tarot decks do)."""
    n = _number(v, "roman", whole=True)
    if n is None:
        return None
    if n == 0:
        return "0"
    if not 1 <= n <= 3999:
        raise LayoutError(f"filter |roman needs a whole number from 0 to 3999, got {v!r}",
                          expected="a whole number from 0 to 3999")
    out = []
    for value, numeral in _ROMAN:
        while n >= value:
            out.append(numeral)
            n -= value
    return "".join(out)


@_filter("roman_lower")
def _roman_lower(v: Any) -> Any:
    """1 -> i, 4 -> iv."""
    try:
        r = _roman(v)
    except LayoutError as exc:  # named as written
        raise LayoutError(exc.message.replace("|roman ", "|roman_lower ", 1), exc.expected) from None
    return r.lower() if isinstance(r, str) else r


@_filter("int")
def _int(v: Any) -> Any:
    """Rounded to a whole number, halves away from zero (2.5 -> 3, -2.5 -> -3)."""
    n = _number(v, "int")
    if n is None or n.__class__ is int:  # a whole number as it is (through a float, 10**17 + 1 lost its 1)
        return n
    return math.floor(abs(n) + 0.5) * (1 if n >= 0 else -1)


@_filter("thousands")
def _thousands(v: Any) -> Any:
    """1234567 -> 1,234,567 (decimals kept: 1234.5 -> 1,234.5)."""
    n = _number(v, "thousands")
    if n is None:
        return None
    if float(n).is_integer():
        return f"{int(n):,}"
    return f"{n:,.10f}".rstrip("0").rstrip(".")


@_filter("percent")
def _percent(v: Any) -> Any:
    """A fraction as a percentage: 0.25 -> 25%, 0.125 -> 12.5%."""
    n = _number(v, "percent")
    if n is None:
        return None
    p = round(n * 100, 10)
    if isinstance(p, float) and not math.isfinite(p):  # 1e307 x 100 is past a float's range ("inf%")
        raise LayoutError(f"filter |percent needs a fraction of a sensible size, got {v!r}",
                          expected="a number at most about 1e306 (100 times it is printed)")
    return f"{_num(p)}%"


@_filter("ordinal")
def _ordinal(v: Any) -> Any:
    """1 -> 1st, 2 -> 2nd, 3 -> 3rd, 11 -> 11th, 22 -> 22nd."""
    n = _number(v, "ordinal", whole=True)
    if n is None:
        return None
    suffix = "th" if 10 <= abs(n) % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(abs(n) % 10, "th")
    return f"{n}{suffix}"


def _fixed(places: int) -> Callable[[Any], Any]:
    def fn(v: Any) -> Any:
        n = _number(v, f"fixed{places}")
        if n.__class__ is int:  # its digits as they are (a float format rounds past 2**53)
            return f"{n}.{'0' * places}" if places else str(n)
        return None if n is None else f"{n:.{places}f}"

    return fn


def _pad(width: int) -> Callable[[Any], Any]:
    def fn(v: Any) -> Any:
        n = _number(v, f"pad{width}", whole=True)
        return None if n is None else f"{n:0{width}d}" if n >= 0 else f"-{-n:0{width}d}"

    return fn


for _n in range(7):
    FILTERS[f"fixed{_n}"] = _fixed(_n)
for _n in range(2, 7):
    FILTERS[f"pad{_n}"] = _pad(_n)


def get_filter(name: str) -> Callable[[Any], Any] | None:
    """The filter called ``name``, or None."""
    return FILTERS.get(name)


def filter_names() -> list[str]:
    """The filters' names as a message lists them."""
    return sorted(n for n in FILTERS if not _NUMBERED.fullmatch(n)) + ["fixed0..fixed6", "pad2..pad6"]


def unknown_filter(name: str) -> LayoutError:
    """The error for ``|name`` when no filter has that name, with the nearest name as a hint."""
    known = [n for n in FILTERS if not _NUMBERED.fullmatch(n)] + ["fixed2", "pad2"]
    return LayoutError(f"unknown filter |{name}", expected="one of " + ", ".join(filter_names()),
                       hint=_hint(name, known))


def _hint(name: str, known: Any) -> str:
    import difflib  # only a message needs it

    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f"did you mean {close[0]!r}?" if close else "filters are written {field|name}, e.g. {number|roman}"


def _suggest(name: str, known: Any) -> str:
    close = did_you_mean(name, known)
    return f" ({close})" if close else ""


def _num(v: float) -> str:
    if v.__class__ is int:  # as it is: float() overflows past 1.8e308 (|percent of 1e307)
        return str(v)
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


def field_refs(text: str) -> list[tuple[str, list[str]]]:
    """The ``{field|filter}`` references in a template string."""
    out = []
    for m in _REF.finditer(text):
        if m.group(1):
            out.append((m.group(1), [f for f in m.group(2).split("|") if f]))
    return out


class Env(Struct):
    """Names visible to one element: the item's fields, built-ins, and repeat counters."""

    item: Item
    component: Component
    game: Game
    extra: dict[str, Any] = msgspec.field(default_factory=dict)
    token_cut: str = DEFAULT_TOKEN_CUT  # the build's --token-cut, readable as the built-in {token_cut}

    def has(self, name: str) -> bool:
        return (name in self.extra or name in self.component.fields or name in BUILTINS)

    def get(self, name: str) -> Any:
        if name in self.extra:
            return self.extra[name]
        if name in self.component.fields:
            return self.item.fields.get(name)
        if name == "id":
            return self.item.id
        if name == "copies":
            return self.item.copies
        if name == "token_cut":
            return self.token_cut
        if name == "provenance":  # where the item comes from: document, external, designed (or unstated)
            return self.item.provenance.kind
        if name.startswith("game."):
            return getattr(self.game, name[5:])
        if name.startswith("component."):
            return getattr(self.component, name[10:])
        # a sheet's fields are declared in the manifest's entry, a JSON file's in the file
        where = (f"the manifest's entry for {self.component.id}" if self.component.sheet is not None
                 else self.component.data_file)
        raise LayoutError(f"unknown field {{{name}}}",
                          expected="a field declared in " + where + " ("
                          + ", ".join(sorted(self.component.fields)) + ") or a built-in")

    def sub(self, text: str) -> str:
        parts = _compiled(text)
        if parts.__class__ is str:
            return parts  # type: ignore[return-value]
        out: list[str] = []
        size = 0
        for p in parts:  # type: ignore[union-attr]
            v = p if p.__class__ is str else self.value(*p)  # type: ignore[misc]
            size += len(v)
            if size > MAX_SUBSTITUTED:  # before the text is joined: 20,000 references to a field of
                # 100,000 characters made 2 billion (out of memory, attack 13: a sibling of F11)
                raise LayoutError(f"the field references make a text of more than {MAX_SUBSTITUTED} characters: "
                                  "far more than a piece can hold", expected=f"at most {MAX_TEXT} characters on a "
                                  "piece", hint="check how often the text names a field, and how long the fields are")
            out.append(v)
        return "".join(out)

    def value(self, name: str, filters: tuple[str, ...]) -> str:
        """One ``{name|filter...}`` reference as text."""
        value = self.get(name)
        for f in filters:
            fn = FILTERS.get(f)
            if fn is None:
                raise unknown_filter(f)
            value = fn(value)
        if value.__class__ is str:
            return value
        if value is None:
            return ""
        if isinstance(value, list):
            return ", ".join(str(v) for v in value)
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, float):
            return _num(value)
        return str(value)

    def test(self, cond: Mapping[str, Any]) -> bool:
        """Whether a ``when`` condition holds for this item (pnp.input.conditions)."""
        return holds(cond, self.get)


@lru_cache(maxsize=4096)
def _compiled(text: str) -> str | tuple[str | tuple[str, tuple[str, ...]], ...]:
    """A template string split once into literal text and ``(field, filters)`` references (the
    text itself when it has none), so that substituting is a join, not a regex pass."""
    parts: list[str | tuple[str, tuple[str, ...]]] = []
    pos = 0
    for m in _REF.finditer(text):
        if m.start() > pos:
            parts.append(text[pos:m.start()])
        g = m.group(0)
        if g == "{{":
            parts.append("{")
        elif g == "}}":
            parts.append("}")
        else:
            parts.append((m.group(1), tuple(f for f in m.group(2).split("|") if f)))
        pos = m.end()
    if not parts:
        return text
    if pos < len(text):
        parts.append(text[pos:])
    if all(p.__class__ is str for p in parts):
        return "".join(parts)  # type: ignore[arg-type]
    return tuple(parts)
