"""Measures relative to the piece: a template coordinate is a number of mm, or a short expression
of the piece's trim width ``w`` and height ``h`` (mm) with ``+ - * /``, parentheses and
percentages: ``"w-6"``, ``"h/2 - 4"``, ``"(w-10)/3"``, ``"50%"`` (of the width for x and width
values, of the height for y and height values). So changing a component's ``size`` in the
manifest alone re-flows a template written this way.

Parsed here (a template's expressions are checked when it is loaded, every element, drawn or
not); evaluated by the layout for each component's size. Data, never ``eval``."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import Any

# The keys that hold coordinates, and how: a box [x, y, w, h]; a point [x, y] (also offsets,
# steps and a track space's [w, h]); a list of points.
BOX_KEYS = ("box",)
POINT_KEYS = ("offset", "step", "row_step", "from", "to", "origin", "size")
POINTS_KEYS = ("points", "path")
AXES = ("x", "y", "x", "y")  # which dimension a percentage of each position in a box is of
EXPECTED = 'a number of mm, or an expression of the trim width w and height h: "w-6", "h/2", "(w-10)/3", "50%"'
MAX_LENGTH = 80
LIMIT = 2000.0  # mm either way: the range of a plain number in a template (template.schema.json's "num")
RANGE = f"a value from {-LIMIT:g} to {LIMIT:g} mm, the range of a plain number in a template"
_TOKEN = re.compile(r"\s*(?:(\d+(?:\.\d*)?|\.\d+)(%?)|([wh])\b|([-+*/()]))")

Expr = tuple[Any, ...]  # ("n", value) | ("%", value) | ("w",) | ("h",) | (op, left, right) | ("neg", e)


class MeasureError(ValueError):
    """A coordinate expression that cannot be read (or worked out): ``expected`` says what would do."""

    def __init__(self, message: str, expected: str = EXPECTED):
        super().__init__(message)
        self.expected = expected


@lru_cache(maxsize=1024)
def parse(text: str) -> Expr:
    """``text`` as an expression tree; MeasureError says what is wrong and where."""
    if len(text) > MAX_LENGTH:
        raise MeasureError(f"expression longer than {MAX_LENGTH} characters")
    tokens: list[tuple[str, Any]] = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if m is None:
            rest = text[pos:].lstrip()
            word = re.match(r"[A-Za-z_]\w*", rest)
            if word:
                raise MeasureError(f"unknown name {word.group(0)!r} in {text!r} (the names are w and h)")
            raise MeasureError(f"unexpected {rest[0]!r} in {text!r}")
        if m.group(1) is not None:
            tokens.append(("%" if m.group(2) else "n", float(m.group(1))))
        elif m.group(3):
            tokens.append((m.group(3), None))
        else:
            tokens.append((m.group(4), None))
        pos = m.end()
    if not tokens:
        raise MeasureError("empty expression")
    at = 0

    def peek() -> str | None:
        return tokens[at][0] if at < len(tokens) else None

    def take() -> tuple[str, Any]:
        nonlocal at
        if at >= len(tokens):
            raise MeasureError(f"{text!r} ends too soon")
        at += 1
        return tokens[at - 1]

    def expr() -> Expr:
        left = term()
        while peek() in ("+", "-"):
            op = take()[0]
            left = (op, left, term())
        return left

    def term() -> Expr:
        left = unary()
        while peek() in ("*", "/"):
            op = take()[0]
            left = (op, left, unary())
        return left

    def unary() -> Expr:
        if peek() == "-":
            take()
            return ("neg", unary())
        if peek() == "+":
            take()
            return unary()
        kind, value = take()
        if kind in ("n", "%"):
            return (kind, value)
        if kind in ("w", "h"):
            return (kind,)
        if kind == "(":
            inner = expr()
            if take()[0] != ")":
                raise MeasureError(f"missing ')' in {text!r}")
            return inner
        raise MeasureError(f"unexpected {kind!r} in {text!r}")

    tree = expr()
    if at != len(tokens):
        raise MeasureError(f"unexpected {tokens[at][0] if tokens[at][0] not in 'n%' else tokens[at][1]!r} "
                           f"in {text!r}")
    return tree


def evaluate(tree: Expr, axis: str, w: float, h: float) -> float:
    kind = tree[0]
    if kind == "n":
        return tree[1]
    if kind == "%":
        return tree[1] / 100.0 * (w if axis == "x" else h)
    if kind == "w":
        return w
    if kind == "h":
        return h
    if kind == "neg":
        return -evaluate(tree[1], axis, w, h)
    a, b = evaluate(tree[1], axis, w, h), evaluate(tree[2], axis, w, h)
    if kind == "+":
        return a + b
    if kind == "-":
        return a - b
    if kind == "*":
        return a * b
    if b == 0:
        raise MeasureError("division by zero")
    return a / b


def measure(value: Any, axis: str, w: float, h: float) -> Any:
    """A coordinate in mm: numbers as they are (so templates in plain mm draw exactly as before),
    expressions evaluated for a ``w`` x ``h`` mm piece."""
    if isinstance(value, str):
        return bounded(value, evaluate(parse(value), axis, w, h), f" for a {w:g} x {h:g} mm piece")
    return value


def bounded(text: str, v: float, context: str = "") -> float:
    """``v``, the value of expression ``text``, when it lies in +-LIMIT mm (as a plain number
    must); MeasureError otherwise: ``"9999999999*9999999999"`` passed the pattern and the parser,
    then stopped the PDF writer ("number too large", exit 3)."""
    if not (math.isfinite(v) and abs(v) <= LIMIT):
        raise MeasureError(f"{text!r} is {v:g} mm{context}", expected=RANGE)
    return v


def relative(data: Mapping[str, Any]) -> bool:
    """Whether an element's own coordinates hold any expression (else they are plain mm)."""
    for key in BOX_KEYS + POINT_KEYS:
        v = data.get(key)
        if isinstance(v, list) and any(isinstance(x, str) for x in v):
            return True
    for key in POINTS_KEYS:
        v = data.get(key)
        if isinstance(v, list) and any(isinstance(p, list) and any(isinstance(x, str) for x in p) for p in v):
            return True
    return False


def expressions(data: Mapping[str, Any]) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """Every expression among an element's own coordinates, with its path inside the element."""
    for key in BOX_KEYS + POINT_KEYS:
        v = data.get(key)
        if isinstance(v, list):
            for i, x in enumerate(v):
                if isinstance(x, str):
                    yield (key, i), x
    for key in POINTS_KEYS:
        v = data.get(key)
        if isinstance(v, list):
            for i, p in enumerate(v):
                if isinstance(p, list):
                    for j, x in enumerate(p):
                        if isinstance(x, str):
                            yield (key, i, j), x


def problems(data: Mapping[str, Any]) -> Iterator[tuple[tuple[str | int, ...], str, str]]:
    """Each expression of an element's coordinates that cannot be read, or is a constant out of
    range: (path, message, expected)."""
    for path, text in expressions(data):
        try:
            tree = parse(text)
            if not _relative(tree):  # a constant: its value is known now, whatever the piece
                bounded(text, evaluate(tree, "x", 0.0, 0.0))
        except MeasureError as exc:
            yield path, str(exc), exc.expected


def _relative(tree: Expr) -> bool:
    """Whether an expression depends on the piece's size (w, h or a percentage)."""
    if tree[0] in ("w", "h", "%"):
        return True
    return any(isinstance(t, tuple) and _relative(t) for t in tree[1:])
