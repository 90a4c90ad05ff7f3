"""Reading item fields in templates: ``{name|filter}`` references, the filters, the built-in names,
and the per-item environment a layout evaluates them in."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

import msgspec
from msgspec import Struct

from pnp.errors import did_you_mean
from pnp.input.conditions import holds
from pnp.input.model import Component, Game, Item

MINUS = "\u2212"
EN_DASH = "\u2013"
BUILTINS = ("id", "copies", "game.title", "game.subtitle", "game.designer", "component.title",
            "component.id", "token_cut")
REPEAT_VARS = ("n", "index", "row", "col")
TRACK_VARS = ("n", "index", "value")
# --token-cut: round pieces in abutting square cut boxes (the default), or each cut round
DEFAULT_TOKEN_CUT = "square"
TOKEN_CUTS = (DEFAULT_TOKEN_CUT, "circle")
_REF = re.compile(r"\{\{|\}\}|\{(?!icon:)([a-z_][a-z0-9_.]*)((?:\|[a-z_]+)*)\}")
FILTERS: dict[str, Callable[[Any], Any]] = {}


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


@_filter("signed")
def _signed(v: Any) -> Any:
    """+3, −1 (a true minus sign), 0."""
    if isinstance(v, bool) or not isinstance(v, int | float):
        return v
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


def _suggest(name: str, known: Any) -> str:
    close = did_you_mean(name, known)
    return f" ({close})" if close else ""


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


def field_refs(text: str) -> list[tuple[str, list[str]]]:
    """The ``{field|filter}`` references in a template string."""
    out = []
    for m in _REF.finditer(text):
        if m.group(1):
            out.append((m.group(1), [f for f in m.group(2).split("|") if f]))
    return out


class LayoutError(Exception):
    def __init__(self, message: str, expected: str | None = None, key: str | None = None):
        super().__init__(message)
        self.message = message
        self.expected = expected
        self.key = key


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
        if name.startswith("game."):
            return getattr(self.game, name[5:])
        if name.startswith("component."):
            return getattr(self.component, name[10:])
        raise LayoutError(f"unknown field {{{name}}}",
                          expected="a field declared in " + self.component.data_file + " ("
                          + ", ".join(sorted(self.component.fields)) + ") or a built-in")

    def sub(self, text: str) -> str:
        parts = _compiled(text)
        if parts.__class__ is str:
            return parts  # type: ignore[return-value]
        return "".join([p if p.__class__ is str else self.value(*p) for p in parts])  # type: ignore[misc]

    def value(self, name: str, filters: tuple[str, ...]) -> str:
        """One ``{name|filter...}`` reference as text."""
        value = self.get(name)
        for f in filters:
            if f not in FILTERS:
                raise LayoutError(f"unknown filter |{f}", expected="one of " + ", ".join(sorted(FILTERS)))
            value = FILTERS[f](value)
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
