"""A fast, conservative JSON Schema (Draft 2020-12) checker, so valid data never needs jsonschema.

Each schema is compiled once into nested Python closures. A compiled check answers, for a JSON
value (what ``json.loads`` returns), one of three things:

- ``VALID``: jsonschema (with pnp's two changes: ``integer`` excludes 2.0, a final ``$`` in a
  pattern is the very end of the text) reports no error;
- ``INVALID``: it reports at least one error;
- ``UNSURE``: not decided here (a keyword this module does not implement, an unresolvable
  ``$ref``, a value that is not JSON...).

It never answers VALID where jsonschema finds an error, nor INVALID where it finds none
(tests/test_fastcheck.py compares the two with generated schemas and mutated game data).
pnp/validate.py uses it only to skip jsonschema on valid input: on anything but VALID it runs
jsonschema exactly as before, which stays the single source of every message. INVALID exists
because ``not``, ``oneOf`` and ``if`` need to know when a subschema certainly fails.

Why hand-written: importing jsonschema (with referencing, rpds, attrs) cost ~31 ms of a ~290 ms
54-card build, and its per-item validation ~0.4 ms per item (0.8 s of a 2,000-card build).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote, urljoin

Check = Callable[[Any], int]

INVALID, UNSURE, VALID = 0, 1, 2

DIALECT = "https://json-schema.org/draft/2020-12/schema"
_NONE = type(None)
_JSON_TYPES = frozenset({dict, list, str, int, float, bool, _NONE})
_TYPE_NAMES: dict[str, tuple[type, ...]] = {
    "object": (dict,), "array": (list,), "string": (str,), "integer": (int,), "number": (int, float),
    "boolean": (bool,), "null": (_NONE,),
}
# Keywords jsonschema does not validate with (annotations); `then`/`else` are read by `if`.
_IGNORED = frozenset({"title", "description", "$comment", "default", "examples", "deprecated", "readOnly",
                      "writeOnly", "$schema", "$defs", "then", "else"})
_OBJECT_KEYS = frozenset({"properties", "required", "additionalProperties", "minProperties", "maxProperties",
                          "propertyNames"})
_ARRAY_KEYS = frozenset({"prefixItems", "items", "minItems", "maxItems"})
_STRING_KEYS = frozenset({"minLength", "maxLength", "pattern"})
_NUMBER_KEYS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"})


def strict_pattern(pattern: str) -> str:
    """pnp's pattern semantics: Python's `$` also matches before a final newline, so "deck\\n"
    would pass "^[a-z0-9-]*$"; a final `$` must be the very end of the text (`\\Z`)."""
    return pattern[:-1] + r"\Z" if pattern.endswith("$") and not pattern.endswith("\\$") else pattern


def _valid(x: Any) -> int:
    return VALID


def _invalid(x: Any) -> int:
    return INVALID


def _unsure(x: Any) -> int:
    return UNSURE


def _is_num(v: Any) -> bool:
    return type(v) is int or type(v) is float


def _is_count(v: Any) -> bool:
    return type(v) is int and v >= 0


def is_json(x: Any) -> bool:
    """Only the types json.loads makes, all the way down (str keys)."""
    t = type(x)
    if t is dict:
        return all(type(k) is str and is_json(v) for k, v in x.items())
    if t is list:
        return all(is_json(v) for v in x)
    return t in _JSON_TYPES


def json_equal(a: Any, b: Any) -> bool:
    """jsonschema's `equal` on JSON values: True is not 1, 1 is 1.0, containers compared deeply."""
    if a is b:
        return True
    ta, tb = type(a), type(b)
    if ta is str or tb is str:
        return a == b
    if ta is list and tb is list:
        return len(a) == len(b) and all(json_equal(p, q) for p, q in zip(a, b, strict=True))
    if ta is dict and tb is dict:
        return len(a) == len(b) and all(k in b and json_equal(v, b[k]) for k, v in a.items())
    if ta is bool or tb is bool:
        return ta is tb and a == b
    return bool(a == b)


class _Resource:
    """A schema document: its root, the base URI its relative references resolve against, and its
    compiled ``$ref`` targets (by JSON pointer)."""

    def __init__(self, root: Any, base: str):
        self.root = root
        self.base = base
        self.targets: dict[str, Check] = {}


class Compiler:
    """Compiles schemas that may ``$ref`` each other; ``resources`` maps each URI a reference may
    name (a ``$id``, or a short name like ``game.schema.json``) to its schema document."""

    def __init__(self, resources: dict[str, Any] | None = None):
        self._by_uri: dict[str, _Resource] = {}
        shared: dict[int, _Resource] = {}
        for uri, doc in (resources or {}).items():
            res = shared.get(id(doc))
            if res is None:
                base = doc.get("$id", uri) if isinstance(doc, dict) and isinstance(doc.get("$id", uri), str) else uri
                res = shared[id(doc)] = _Resource(doc, base)
            self._by_uri[uri] = res

    def compile(self, schema: Any) -> Check:
        """The check of a root schema (its ``$id``, if any, is the base of its references)."""
        for res in self._by_uri.values():
            if res.root is schema:
                return self._compile(schema, res)
        base = schema.get("$id", "") if isinstance(schema, dict) else ""
        return self._compile(schema, _Resource(schema, base if isinstance(base, str) else ""))

    # -- one (sub)schema --------------------------------------------------------------------
    def _compile(self, s: Any, res: _Resource) -> Check:
        if s is True:
            return _valid
        if s is False:
            return _invalid
        if type(s) is not dict:
            return _unsure  # jsonschema raises on such a schema: let it
        if s.get("$schema", DIALECT) != DIALECT or ("$id" in s and s is not res.root):
            return _unsure  # another dialect, or a nested resource (a new base URI)
        checks: list[Check] = []
        keys = set(s)
        typ = s.get("type")
        single = typ if isinstance(typ, str) and typ in _TYPE_NAMES else None
        folded = False  # the type check is done inside a keyword group
        if keys & _OBJECT_KEYS or single == "object":
            folded |= single == "object"
            checks.append(self._object(s, res, single == "object"))
        if keys & _ARRAY_KEYS or single == "array":
            folded |= single == "array"
            checks.append(self._array(s, res, single == "array"))
        if keys & _STRING_KEYS or single == "string":
            folded |= single == "string"
            checks.append(_string(s, single == "string"))
        if keys & _NUMBER_KEYS or single in ("number", "integer"):
            folded |= single in ("number", "integer")
            checks.append(_number(s, single))
        if "type" in s and not folded:
            checks.append(_type(typ))
        for key in keys - _OBJECT_KEYS - _ARRAY_KEYS - _STRING_KEYS - _NUMBER_KEYS - _IGNORED - {"type"}:
            v = s[key]
            if key == "$id" or key.startswith("x-"):
                continue
            if key == "enum":
                checks.append(_enum(v))
            elif key == "const":
                checks.append(_const(v))
            elif key in ("allOf", "anyOf", "oneOf") and type(v) is list and v:
                subs = [self._compile(sub, res) for sub in v]
                if key == "allOf":
                    checks.append(_all(subs) if (tag := _tagged(v)) is None else
                                  _dispatch(tag[0], tag[1], [self._compile(sub["then"], res) for sub in v], subs))
                else:
                    checks.append(_any(subs) if key == "anyOf" else _one(subs))
            elif key == "not":
                checks.append(_not(self._compile(v, res)))
            elif key == "if":
                checks.append(_if(self._compile(v, res),
                                  self._compile(s["then"], res) if "then" in s else _valid,
                                  self._compile(s["else"], res) if "else" in s else _valid))
            elif key == "$ref" and isinstance(v, str):
                checks.append(self._ref(v, res))
            else:
                checks.append(_unsure)  # not implemented here (patternProperties, format, ...)
        return _all(checks)

    def _ref(self, ref: str, res: _Resource) -> Check:
        uri, _, frag = ref.partition("#")
        if uri:
            target = self._by_uri.get(urljoin(res.base, uri))
            if target is None:
                return _unsure
            res = target
        frag = unquote(frag)
        if frag in res.targets:
            return res.targets[frag]
        cell: list[Check] = []

        def resolve() -> Check:
            node: Any = res.root
            if frag and not frag.startswith("/"):
                return _unsure  # an anchor
            for part in frag.split("/")[1:]:
                part = part.replace("~1", "/").replace("~0", "~")
                if isinstance(node, dict) and part in node:
                    node = node[part]
                elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                    node = node[int(part)]
                else:
                    return _unsure
            return self._compile(node, res)

        def check(x: Any) -> int:
            # Compiled on first use: references may be recursive, and most are never reached.
            if not cell:
                cell.append(resolve())
            return cell[0](x)

        res.targets[frag] = check
        return check

    def _object(self, s: dict[str, Any], res: _Resource, strict: bool) -> Check:
        props_s = s.get("properties", {})
        required = s.get("required", [])
        ap_s = s.get("additionalProperties", True)
        min_p, max_p = s.get("minProperties", 0), s.get("maxProperties")
        if (type(props_s) is not dict or type(required) is not list or not all(type(r) is str for r in required)
                or not _is_count(min_p) or not (max_p is None or _is_count(max_p))):
            return _unsure
        props = {k: self._compile(v, res) for k, v in props_s.items()}
        if "patternProperties" in s:
            ap_s = True  # extras depend on the patterns, which are not implemented here (UNSURE below)
        ap: Check | None = None if ap_s is True else self._compile(ap_s, res)
        names = self._compile(s["propertyNames"], res) if "propertyNames" in s else None
        req = tuple(required)
        wrong = INVALID if strict else VALID
        max_n = max_p if max_p is not None else float("inf")

        if ap is None and names is None:
            # Only the listed properties are checked: look them up (an `if` on one key of a large object).
            listed = tuple(props.items())

            def check_listed(x: Any) -> int:
                if type(x) is not dict:
                    return wrong if type(x) in _JSON_TYPES else UNSURE
                for k in req:
                    if k not in x:
                        return INVALID
                if not min_p <= len(x) <= max_n:
                    return INVALID
                r = VALID
                for k, f in listed:
                    if k in x:
                        n = f(x[k])
                        if n != VALID:
                            if n == INVALID:
                                return INVALID
                            r = UNSURE
                return r

            return check_listed

        def check(x: Any) -> int:
            if type(x) is not dict:
                return wrong if type(x) in _JSON_TYPES else UNSURE
            for k in req:
                if k not in x:
                    return INVALID
            if not min_p <= len(x) <= max_n:
                return INVALID
            r = VALID
            for k, v in x.items():
                if names is not None:
                    n = names(k)
                    if n != VALID:
                        if n == INVALID:
                            return INVALID
                        r = UNSURE
                f = props.get(k, ap)
                if f is None:
                    continue
                n = f(v)
                if n != VALID:
                    if n == INVALID:
                        return INVALID
                    r = UNSURE
            return r

        return check

    def _array(self, s: dict[str, Any], res: _Resource, strict: bool) -> Check:
        prefix_s = s.get("prefixItems", [])
        items_s = s.get("items", True)
        min_i, max_i = s.get("minItems", 0), s.get("maxItems")
        if (type(prefix_s) is not list or type(items_s) not in (dict, bool) or not _is_count(min_i)
                or not (max_i is None or _is_count(max_i))):
            return _unsure
        prefix = tuple(self._compile(p, res) for p in prefix_s)
        n_prefix = len(prefix)
        items = None if items_s is True else self._compile(items_s, res)
        wrong = INVALID if strict else VALID
        max_n = max_i if max_i is not None else float("inf")

        def check(x: Any) -> int:
            if type(x) is not list:
                return wrong if type(x) in _JSON_TYPES else UNSURE
            if not min_i <= len(x) <= max_n:
                return INVALID
            r = VALID
            for f, v in zip(prefix, x, strict=False):
                n = f(v)
                if n != VALID:
                    if n == INVALID:
                        return INVALID
                    r = UNSURE
            if items is not None:
                for i in range(n_prefix, len(x)):
                    n = items(x[i])
                    if n != VALID:
                        if n == INVALID:
                            return INVALID
                        r = UNSURE
            return r

        return check


# -- keyword groups that need no references ------------------------------------------------------

def _string(s: dict[str, Any], strict: bool) -> Check:
    min_l, max_l, pattern = s.get("minLength", 0), s.get("maxLength"), s.get("pattern")
    if not _is_count(min_l) or not (max_l is None or _is_count(max_l)) or not (pattern is None or
                                                                              type(pattern) is str):
        return _unsure
    try:
        rx = re.compile(strict_pattern(pattern)) if pattern is not None else None
    except re.error:
        return _unsure  # jsonschema raises on it: let it
    search = rx.search if rx is not None else None
    wrong = INVALID if strict else VALID
    max_n = max_l if max_l is not None else float("inf")

    def check(x: Any) -> int:
        if type(x) is not str:
            return wrong if type(x) in _JSON_TYPES else UNSURE
        if not min_l <= len(x) <= max_n:
            return INVALID
        if search is not None and search(x) is None:
            return INVALID
        return VALID

    return check


def _number(s: dict[str, Any], single: str | None) -> Check:
    lo, hi = s.get("minimum"), s.get("maximum")
    xlo, xhi = s.get("exclusiveMinimum"), s.get("exclusiveMaximum")
    if not all(b is None or _is_num(b) for b in (lo, hi, xlo, xhi)):
        return _unsure
    ints_only = single == "integer"
    wrong = INVALID if single in ("number", "integer") else VALID

    def check(x: Any) -> int:
        t = type(x)
        if t is not int and (ints_only or t is not float):
            return wrong if t in _JSON_TYPES else UNSURE
        if lo is not None and x < lo:
            return INVALID
        if hi is not None and x > hi:
            return INVALID
        if xlo is not None and x <= xlo:
            return INVALID
        if xhi is not None and x >= xhi:
            return INVALID
        return VALID

    return check


def _type(typ: Any) -> Check:
    names = [typ] if isinstance(typ, str) else typ
    if type(names) is not list or not names or not all(isinstance(n, str) and n in _TYPE_NAMES for n in names):
        return _unsure  # jsonschema raises on an unknown type: let it
    allowed = frozenset(t for n in names for t in _TYPE_NAMES[n])

    def check(x: Any) -> int:
        t = type(x)
        if t in allowed:
            return VALID
        return INVALID if t in _JSON_TYPES else UNSURE

    return check


def _enum(values: Any) -> Check:
    if type(values) is not list or not is_json(values):
        return _unsure
    if all(type(v) is str for v in values):
        strings = frozenset(values)

        def check_str(x: Any) -> int:
            if type(x) is str:
                return VALID if x in strings else INVALID
            return INVALID if type(x) in _JSON_TYPES else UNSURE  # no string equals a non-string

        return check_str

    def check(x: Any) -> int:
        if not is_json(x):
            return UNSURE
        return VALID if any(json_equal(v, x) for v in values) else INVALID

    return check


def _const(value: Any) -> Check:
    if not is_json(value):
        return _unsure
    if type(value) is str:
        return _enum([value])

    def check(x: Any) -> int:
        if not is_json(x):
            return UNSURE
        return VALID if json_equal(value, x) else INVALID

    return check


# -- combinators -------------------------------------------------------------------------------

def _tagged(branches: list[Any]) -> tuple[str, list[frozenset[str]]] | None:
    """``allOf`` of ``{"if": {"properties": {KEY: {"const" or "enum": strings}}}, "then": ...}``
    (one branch per element type): the key and each branch's tag values, else None."""
    key, tags = None, []
    for b in branches:
        if type(b) is not dict or set(b) != {"if", "then"}:
            return None
        if type(b["if"]) is not dict or set(b["if"]) != {"properties"}:
            return None
        props = b["if"]["properties"]
        if type(props) is not dict or len(props) != 1:
            return None
        (k, cond), = props.items()
        if key not in (None, k) or type(cond) is not dict or len(cond) != 1:
            return None
        key = k
        vals = [cond["const"]] if "const" in cond else cond.get("enum")
        if type(vals) is not list or not vals or not all(type(v) is str for v in vals):
            return None
        tags.append(frozenset(vals))
    return (key, tags) if key is not None else None


def _dispatch(key: str, tags: list[frozenset[str]], thens: list[Check], branches: list[Check]) -> Check:
    """The ``allOf`` that ``_tagged`` recognised: when the object's KEY is a string, only the
    branches tagged with it apply (every other ``if`` certainly fails, so its ``then`` is moot);
    otherwise every branch is checked as usual."""
    table: dict[str, tuple[Check, ...]] = {}
    for tag, then in zip(tags, thens, strict=True):
        for t in tag:
            table[t] = (*table.get(t, ()), then)
    generic = _all(branches)

    def check(x: Any) -> int:
        if type(x) is dict and type(tag := x.get(key)) is str:
            r = VALID
            for f in table.get(tag, ()):
                n = f(x)
                if n != VALID:
                    if n == INVALID:
                        return INVALID
                    r = UNSURE
            return r
        return generic(x)

    return check


def _all(checks: list[Check]) -> Check:
    """Every check holds (the keywords of one schema, or allOf)."""
    checks = [c for c in checks if c is not _valid]
    if not checks:
        return _valid
    if len(checks) == 1:
        return checks[0]
    if _invalid in checks:
        return _invalid
    fs = tuple(checks)

    def check(x: Any) -> int:
        r = VALID
        for f in fs:
            n = f(x)
            if n != VALID:
                if n == INVALID:
                    return INVALID
                r = UNSURE
        return r

    return check


def _any(checks: list[Check]) -> Check:
    fs = tuple(checks)

    def check(x: Any) -> int:
        r = INVALID
        for f in fs:
            n = f(x)
            if n == VALID:
                return VALID
            if n == UNSURE:
                r = UNSURE
        return r

    return check


def _one(checks: list[Check]) -> Check:
    fs = tuple(checks)

    def check(x: Any) -> int:
        valid, unsure = 0, False
        for f in fs:
            n = f(x)
            if n == VALID:
                valid += 1
                if valid > 1:
                    return INVALID
            elif n == UNSURE:
                unsure = True
        if unsure:
            return UNSURE
        return VALID if valid == 1 else INVALID

    return check


def _not(f: Check) -> Check:
    def check(x: Any) -> int:
        return VALID + INVALID - f(x)

    return check


def _if(cond: Check, then: Check, else_: Check) -> Check:
    def check(x: Any) -> int:
        c = cond(x)
        if c == VALID:
            return then(x)
        if c == INVALID:
            return else_(x)
        t = then(x)
        return t if t == else_(x) else UNSURE

    return check

