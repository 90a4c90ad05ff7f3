"""validate: loaded JSON -> the same data, or every problem as a Diagnostic.

JSON Schema Draft 2020-12 schemas ship in ``pnp/input/schemas``; jsonschema checks every value
against them and finds the errors, which ``_explain`` words. Items of a component are checked
against a schema generated from the component file's own ``fields`` declaration, so an item
with a misspelt field name fails with "unknown field" and a suggestion.

pnp changes two rules of the draft: ``integer`` excludes 2.0, and a final ``$`` in a
``pattern`` is the very end of the text. Each shipped schema's validator is made once per
process; an item validator once per component file.

Size: over 500 lines because the wording of jsonschema's errors (``_explain``) and the choice,
in a oneOf/anyOf, of the alternative a value was meant as (its errors, at the keys that have
them) read the same error tree and are worded together."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import cache, cached_property
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jsonschema_rs

from pnp.errors import Diagnostic, alternatives, counted, did_you_mean, interrupts_held
from pnp.input.load import Doc

if TYPE_CHECKING:  # jsonschema is loaded when there is an error to word (see Schema)
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator
    from referencing import Registry

SCHEMA_NAMES = ("game", "component", "template", "condition")
# the package pnp.schemas, read as plain files beside the modules (pnp is installed as files, so
# importlib.resources would only add the cost of importing its zip support)
SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"
ITEM_ID = "https://pnp.invalid/schemas/item.schema.json"  # the base an item schema's $refs resolve against
RESERVED_ITEM_KEYS = ("id", "copies", "source", "series")
MAX_COPIES = 10_000
MAX_SERIES = 10_000
MAX_LIST = 1_000  # strings in one item's list field (2.5 million in one item held 290 MB)
# Problems explained for one value validated (a file, an item): a 2 MB array of a million wrong
# values made a million jsonschema errors (1.4 GB, exit 3); nobody reads past the first thousand.
MAX_PROBLEMS = 1_000

_PATTERN_WORDS = {
    "^[a-z0-9][a-z0-9-]*$": "lowercase letters, digits and hyphens, e.g. golem-deck",
    "^[a-z0-9][a-z0-9_-]*/[a-z0-9][a-z0-9_-]*$": "a template name like golems/golem-card",
    "^[^/\\\\]+\\.json$": "a .json file name in the game folder, without folders",
    "^(?:[^/\\\\#]+\\.(?:json|csv|tsv)|[^/\\\\#]+\\.(?:xlsx|ods)(?:#[^/\\\\]+)?|https?://[^\\s]+)$":
        "a .json, .csv, .tsv, .xlsx or .ods file name in the game folder, without folders (a workbook's sheet as "
        "cards.xlsx#Spells), or the http(s) URL of a published CSV",
    "^[^/\\\\#]+\\.csv$": "a .csv file name in the game folder, without folders",
    "^[a-z][a-z0-9_]*$": "lowercase letters, digits and underscores, starting with a letter",
}


def _is_integer(checker: Any, instance: Any) -> bool:
    # JSON Schema counts 2.0 as an integer; pnp does not: a count like `"copies": 2.0` would reach
    # range() and list repetition as a float.
    return isinstance(instance, int) and not isinstance(instance, bool)


@cache
def strict_pattern(pattern: str) -> re.Pattern[str]:
    """A schema ``pattern`` with pnp's meaning, compiled once: Python's `$` also matches before a
    final newline, so "deck\\n" would pass "^[a-z0-9-]*$" and become a file name with a line
    break in it; a final `$` must be the very end of the text (`\\Z`)."""
    return re.compile(pattern[:-1] + r"\Z" if pattern.endswith("$") and not pattern.endswith("\\$") else pattern)


def _pattern(validator: Any, pattern: str, instance: Any, schema: dict[str, Any]) -> Iterator[ValidationError]:
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "string"):
        return
    if not strict_pattern(pattern).search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


@cache
def pnp_draft() -> type[Validator]:
    """jsonschema's Draft 2020-12 with pnp's ``integer`` and ``pattern``."""
    from jsonschema import Draft202012Validator, validators

    base = {**Draft202012Validator.VALIDATORS, "items": _items, "additionalProperties": _additional}
    walkers = {k: _cut_to_limit(base[k], "maxItems", list) for k in _ARRAY_WALKERS}
    walkers |= {k: _cut_to_limit(base[k], "maxProperties", dict) for k in _OBJECT_WALKERS}
    return validators.extend(Draft202012Validator, validators={"pattern": _pattern, **walkers},
                             type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer))


_ARRAY_WALKERS = ("items", "prefixItems", "contains", "unevaluatedItems")
_OBJECT_WALKERS = ("additionalProperties", "propertyNames", "patternProperties", "unevaluatedProperties")


@cache
def _places() -> dict[int, str]:
    """Every object of the shipped schemas (by ``id``: jsonschema's registry holds these very
    dicts) -> its URI, ``$id#/json/pointer``."""
    out: dict[int, str] = {}
    for name in SCHEMA_NAMES:
        todo: list[tuple[Any, str]] = [(schema(name), "")]
        base = schema(name)["$id"]
        while todo:
            node, pointer = todo.pop()
            if isinstance(node, dict):
                out[id(node)] = f"{base}#{pointer}"
                todo += [(v, f"{pointer}/{k.replace('~', '~0').replace('/', '~1')}") for k, v in node.items()]
            elif isinstance(node, list):
                todo += [(v, f"{pointer}/{i}") for i, v in enumerate(node)]
    return out


@cache
def _fast_at(uri: str) -> Any:
    return jsonschema_rs.Draft202012Validator({"$ref": uri}, registry=compiled_registry(),
                                              keywords={"pnpInteger": _NoFloat})


_SKIP_VALID = [True]  # False: walk every entry in Python (validate_value, when the walk found nothing)


def _fast(sub: Any) -> Any:
    """jsonschema-rs's validator of ``sub``, a part of a shipped schema (None for another)."""
    uri = _places().get(id(sub)) if isinstance(sub, dict) and _SKIP_VALID[0] else None
    return None if uri is None else _fast_at(uri)


def _items(validator: Any, items: Any, instance: Any, sch: Any) -> Any:
    """jsonschema's ``items`` (2020-12), asking jsonschema-rs first: an entry it finds valid is
    not walked in Python. The errors of a template of 20,000 valid elements and one bad one took
    11.7 s to find (~0.5 ms an element through the element forms)."""
    from jsonschema._keywords import items as walk

    fast = _fast(items)
    if fast is None or not isinstance(instance, list):
        yield from walk(validator, items, instance, sch)
        return
    for index in range(len(sch.get("prefixItems", [])), len(instance)):
        if not fast.is_valid(instance[index]):
            yield from validator.descend(instance=instance[index], schema=items, path=index)


def _additional(validator: Any, extra: Any, instance: Any, sch: Any) -> Any:
    """jsonschema's ``additionalProperties``, asking jsonschema-rs first (as ``_items``)."""
    from jsonschema._keywords import additionalProperties as walk
    from jsonschema._utils import find_additional_properties

    fast = _fast(extra)
    if fast is None or not isinstance(instance, dict):
        yield from walk(validator, extra, instance, sch)
        return
    for key in find_additional_properties(instance, sch):
        if not fast.is_valid(instance[key]):
            yield from validator.descend(instance[key], extra, path=key)


def _cut_to_limit(keyword: Any, limit_key: str, kind: type) -> Any:
    """jsonschema's ``keyword`` (one that looks at every entry of an array or object), looking at
    no more entries than one past the schema's own ``limit_key``: the limit's error says the value
    is too big, and 2.5 million strings in a list field of at most 1,000 were each checked in
    Python all the same (14 s; 300,000 fields of at most 1,000, 20 s)."""
    def check(validator: Any, value: Any, instance: Any, sch: Any) -> Any:
        limit = sch.get(limit_key) if isinstance(sch, dict) else None
        if isinstance(limit, int) and isinstance(instance, kind) and len(instance) > limit + 1:
            instance = instance[:limit + 1] if kind is list else dict(islice(instance.items(), limit + 1))
        return keyword(validator, value, instance, sch)

    return check


@cache
def schema(name: str) -> dict[str, Any]:
    return json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text("utf-8"))


def schema_bytes() -> dict[str, bytes]:
    """The shipped schema files, by file name (``game.schema.json`` ...), byte for byte."""
    return {f"{n}.schema.json": (SCHEMA_DIR / f"{n}.schema.json").read_bytes() for n in SCHEMA_NAMES}


@cache
def registry() -> Registry:
    """The shipped schemas, by ``$id`` and by file name (their ``$ref``s use both)."""
    from referencing import Registry, Resource

    reg: Registry = Registry()
    for name in SCHEMA_NAMES:
        s = schema(name)
        res = Resource.from_contents(s)
        reg = reg.with_resource(s["$id"], res).with_resource(f"{name}.schema.json", res)
    return reg


class _NoFloat:
    """jsonschema-rs keyword ``pnpInteger``, set beside every ``"type": "integer"`` of the schemas it
    compiles: pnp's integer excludes 2.0 there too (``_is_integer``)."""

    def __init__(self, parent_schema: Any, value: Any, schema_path: Any):
        pass

    def validate(self, instance: Any) -> None:
        if isinstance(instance, float):
            raise ValueError("a number like 2.0 is not an integer for pnp")


def _compiled_form(node: Any) -> Any:
    """``node`` with ``pnpInteger`` beside each type that admits integers but not other numbers."""
    if isinstance(node, list):
        return [_compiled_form(x) for x in node]
    if not isinstance(node, dict):
        return node
    out = {k: _compiled_form(v) for k, v in node.items()}
    t = node.get("type")
    types = [t] if isinstance(t, str) else t if isinstance(t, list) else []
    if "integer" in types and "number" not in types:
        out["pnpInteger"] = True
    return out


@cache
def compiled_registry() -> jsonschema_rs.Registry:
    """The shipped schemas for jsonschema-rs, by ``$id`` (relative ``$ref``s resolve against it)."""
    return jsonschema_rs.Registry([(schema(n)["$id"], _compiled_form(schema(n))) for n in SCHEMA_NAMES])


class Schema:
    """One JSON Schema, checked by two libraries that read it alike. jsonschema-rs compiles it
    (in Rust) and answers "valid?" for every value, about 200 times faster than jsonschema; a
    value it rejects goes to jsonschema, which finds every error with its path for the messages
    (``_explain``): jsonschema is loaded then, so valid data never needs it. Both read pnp's two
    rules: a final ``$`` in a pattern is the very end of the text (Rust's regex reads it so;
    ``strict_pattern`` for jsonschema), and 2.0 is no integer (``_NoFloat`` for jsonschema-rs;
    ``_is_integer`` for jsonschema)."""

    def __init__(self, sch: dict[str, Any]):
        self.schema = sch
        # an item schema has no $id of its own: it refers to the shipped schemas by file name
        compiled = {"$id": ITEM_ID, **_compiled_form(sch)}
        # a Ctrl-C inside _NoFloat (Python called from Rust) came out as jsonschema_rs's
        # ValidationError, "internal error", exit 3: held back until the schema is compiled
        with interrupts_held():
            self.fast = jsonschema_rs.Draft202012Validator(compiled, registry=compiled_registry(),
                                                           keywords={"pnpInteger": _NoFloat})

    @cached_property
    def full(self) -> Validator:
        return pnp_draft()(self.schema, registry=registry())

    def iter_errors(self, value: Any) -> Iterator[ValidationError]:
        return self.full.iter_errors(value)

    def is_valid(self, value: Any) -> bool:
        """jsonschema's verdict, with pnp's rules (2.0 is not an integer)."""
        return self.full.is_valid(value)


def make_validator(sch: dict[str, Any]) -> Schema:
    """A validator of ``sch`` (which may ``$ref`` the shipped schemas)."""
    return Schema(sch)


@cache
def validator(name: str) -> Schema:
    """The validator of a shipped schema, made once."""
    return make_validator(schema(name))


def validate_doc(doc: Doc, schema_name: str) -> list[Diagnostic]:
    """All schema errors of ``doc`` against a shipped schema."""
    return validate_value(doc, doc.data, validator(schema_name), ())


def validate_value(doc: Doc, value: Any, v: Schema, prefix: tuple[str | int, ...]) -> list[Diagnostic]:
    """All errors of ``value`` (found at ``prefix`` in ``doc``) against validator ``v``."""
    if v.fast.is_valid(value):
        return []
    errs = list(islice(v.iter_errors(value), MAX_PROBLEMS + 1))
    if not errs:  # the two libraries disagree on a part: walk it all in Python (never seen so far)
        _SKIP_VALID[0] = False
        try:
            errs = list(islice(v.iter_errors(value), MAX_PROBLEMS + 1))
        finally:
            _SKIP_VALID[0] = True
    out = _explain_all(doc, errs[:MAX_PROBLEMS], prefix, v.schema)
    # In reading order, top to bottom.
    out = sorted(_dedupe(out), key=lambda d: (d.line or 0, d.col or 0))
    if len(errs) > MAX_PROBLEMS or len(out) > MAX_PROBLEMS:
        out = out[:MAX_PROBLEMS]
        out.append(_more_than_listed(doc, prefix, "here"))
    return out


def _more_than_listed(doc: Doc, at: tuple[str | int, ...], where: str) -> Diagnostic:
    """The problem that says more than MAX_PROBLEMS were found ``where`` and the first are listed."""
    return doc.diag(at, f"more than {MAX_PROBLEMS:,} problems {where}: the first {MAX_PROBLEMS:,} are listed",
                    hint="fix these and check again")


def validate_items(doc: Doc, items: list[tuple[int, Any]], v: Schema) -> list[Diagnostic]:
    """The problems of a data file's ``items`` ((index, item) pairs) against the item validator
    ``v``: at most MAX_PROBLEMS explained, then one that says there are more (50,000 items with
    an unknown field each took 24 s to explain, 1.6 s/MB)."""
    out: list[Diagnostic] = []
    for n, (ii, item) in enumerate(items):
        if len(out) >= MAX_PROBLEMS:
            if any(not v.fast.is_valid(rest) for _, rest in items[n:]):
                out = [_more_than_listed(doc, ("items",), "in the items"), *out[:MAX_PROBLEMS]]
            break
        out.extend(validate_value(doc, item, v, ("items", ii)))
    return out


def _explain_all(doc: Doc, errs: list[ValidationError], prefix: tuple[str | int, ...],
                 root: dict[str, Any] | None, outer: str | None = None) -> list[Diagnostic]:
    """The words for ``errs``, in path order. A ``oneOf`` that the value passes more than once
    (jsonschema's "is valid under each of", which prints the schema) is left out when another
    error names the same value, and so is any union beside a wrong type: a string where a condition
    object belongs passes every form's ``required`` and ``additionalProperties`` (they test objects
    only) and fails a form's ``not`` of them, and the wrong type says it all. Too many values in an
    array fail ``maxItems`` and ``items: false``: one message says it."""
    named = {tuple(e.absolute_path) for e in errs if not _many_forms(e)}
    typed = {tuple(e.absolute_path) for e in errs if e.validator == "type"}
    too_long = {tuple(e.absolute_path) for e in errs if e.validator == "maxItems"}
    out: list[Diagnostic] = []
    for err in sorted(errs, key=lambda e: [str(p) for p in e.absolute_path]):
        at = tuple(err.absolute_path)
        if (_many_forms(err) and at in named) or (err.validator in ("oneOf", "anyOf") and at in typed):
            continue
        if not (err.validator == "items" and err.validator_value is False and at in too_long):
            out.extend(_explain(doc, err, prefix, root, outer))
    return out


def _many_forms(err: ValidationError) -> bool:
    """``err`` is a ``oneOf`` the value passes more than once (no form failed: no context)."""
    return err.validator == "oneOf" and not err.context


def _dedupe(diags: list[Diagnostic]) -> list[Diagnostic]:
    seen: set[tuple[object, ...]] = set()
    out = []
    for d in diags:
        k = (d.path, d.message)
        if k not in seen:
            seen.add(k)
            out.append(d)
    return out


def _type_name(value: Any) -> str:
    return {bool: "boolean", int: "integer", float: "number", str: "string", list: "array",
            dict: "object", type(None): "null"}.get(type(value), type(value).__name__)


def _explain(doc: Doc, err: ValidationError, prefix: tuple[str | int, ...],
             root: dict[str, Any] | None = None, outer: str | None = None) -> list[Diagnostic]:
    """The words for one jsonschema error (``outer``: the description of the union whose form
    ``err`` belongs to, for a form that has none of its own)."""
    path = prefix + tuple(err.absolute_path)
    kind = err.validator
    if "propertyNames" in err.relative_schema_path and isinstance(err.instance, str):
        # A bad key: jsonschema reports it at the object, with the key as the instance.
        name = err.instance
        if kind == "not":
            reserved = err.validator_value.get("enum", []) if isinstance(err.validator_value, dict) else []
            return [doc.diag(path + (name,), f"the name {name!r} is reserved", key=True,
                             expected="a name other than " + ", ".join(reserved))]
        if kind == "pattern":
            words = _PATTERN_WORDS.get(err.validator_value, f"text matching {err.validator_value}")
            return [doc.diag(path + (name,), f"invalid name {name!r}", key=True, expected=words)]
    if kind in ("oneOf", "anyOf") and err.context:
        by_branch: dict[Any, list[ValidationError]] = {}  # each form's errors, by its index
        for e in err.context:
            by_branch.setdefault(e.relative_schema_path[0], []).append(e)
        branches = set(by_branch)
        missing = {e.relative_schema_path[0]: e.message.split("'")[1] for e in err.context
                   if e.validator == "required" and not e.relative_path and "'" in e.message}
        if len(branches) > 1 and set(missing) == branches:
            # Every form needs a different key and none is there: name them all, not just the first.
            names = ", ".join(repr(m) for m in dict.fromkeys(missing.values()))
            return [doc.diag(path, f"missing one of the fields {names}", expected=_describe(err.schema)),
                    *_unknown_to_all(doc, path, err)]
        # Unions (conditions, rulebook values, sizes, colours): the errors of the form the value
        # was meant to have. Forms for another JSON type say nothing useful; of the others, the
        # one whose keys the value has (its discriminating key there, no key unknown to it) is
        # meant, and its own errors (a wrong type at one of its keys) are the problem.
        type_errs = [e for e in err.context if e.validator == "type" and not e.relative_path]
        wrong_type = {e.relative_schema_path[0] for e in type_errs}
        if wrong_type == branches:
            # No form takes this JSON type: name every type the forms take.
            types = [t for e in type_errs
                     for t in ([e.validator_value] if isinstance(e.validator_value, str) else e.validator_value)]
            return [doc.diag(path, f"wrong type: {_type_name(err.instance)} {_short(err.instance)}",
                             expected=alternatives(list(dict.fromkeys(types))))]
        misfit = {b: sum(_misfit(e) for e in es) for b, es in by_branch.items() if b not in wrong_type}
        best = [b for b, n in misfit.items() if n == min(misfit.values())]
        if len(best) == 1:
            return _explain_all(doc, by_branch[best[0]], prefix, root, _describe(err.schema))
        if clash := _clash(doc, path, err, best, root):
            return clash
        same_type = [e for e in err.context if e.relative_schema_path[0] not in wrong_type]
        from jsonschema.exceptions import best_match

        inner = best_match(same_type or err.context)
        if inner is None or inner.validator == "not":
            return [doc.diag(path, "does not match any allowed form", expected=_describe(err.schema))]
        return _explain(doc, inner, prefix, root)
    if _many_forms(err):
        # Valid under more than one form (jsonschema gives no branch errors, only the schema).
        forms = [b for b, f in enumerate(err.validator_value)
                 if isinstance(err.instance, dict) and all(k in err.instance for k in _required(f, root))]
        if clash := _clash(doc, path, err, forms, root):
            return clash
        return [doc.diag(path, "matches more than one of the allowed forms", expected=_describe(err.schema))]
    if kind == "additionalProperties" or kind == "unevaluatedProperties":
        allowed = sorted((err.schema.get("properties") or {}).keys()) if isinstance(err.schema, dict) else []
        extras = [k for k in err.instance if k not in allowed] if isinstance(err.instance, dict) else []
        out = []
        for key in extras[:MAX_PROBLEMS + 1]:  # enough to say there are too many
            hint = did_you_mean(key, allowed)
            out.append(doc.diag(path + (key,), f"unknown field {key!r}",
                                expected="one of " + ", ".join(allowed) if allowed else None,
                                hint=hint, key=True))
        return out
    if kind == "required":
        missing = err.message.split("'")[1] if "'" in err.message else err.message
        props = err.schema.get("properties", {}) if isinstance(err.schema, dict) else {}
        prop = _deref(props.get(missing), root)
        desc = prop.get("x-field") or _describe(prop) if isinstance(prop, dict) else None
        return [doc.diag(path, f"missing required field {missing!r}",
                         expected=f'"{missing}"' + (f": {desc}" if desc else ""), hint="add it to this object")]
    if kind == "type":
        want = err.validator_value
        want_s = " or ".join(want) if isinstance(want, list) else str(want)
        return [doc.diag(path, f"wrong type: {_type_name(err.instance)} {_short(err.instance)}",
                         expected=want_s)]
    if kind == "enum":
        opts = ", ".join(json.dumps(o) for o in err.validator_value)
        return [doc.diag(path, f"value {_short(err.instance)} is not allowed", expected=f"one of {opts}")]
    if kind == "const":
        return [doc.diag(path, f"value {_short(err.instance)} is not allowed",
                         expected=json.dumps(err.validator_value))]
    if kind == "pattern":
        words = _PATTERN_WORDS.get(err.validator_value, f"text matching {err.validator_value}")
        return [doc.diag(path, f"invalid value {_short(err.instance)}", expected=words)]
    if kind in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        sym = {"minimum": ">=", "exclusiveMinimum": ">", "maximum": "<=", "exclusiveMaximum": "<"}[kind]
        return [doc.diag(path, f"number {_short(err.instance)} is out of range",
                         expected=f"a number {sym} {err.validator_value}")]
    if kind in ("minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"):
        n = err.validator_value
        unit = {"Items": "item", "Length": "character", "Properties": "key"}[kind[3:]]
        want = f"{'at least' if kind.startswith('min') else 'at most'} {counted(n, unit)}"
        desc = _describe(err.schema)
        if desc and want in desc:  # the description says the limit (and why): not twice
            want, desc = desc, None
        message = err.message.replace(repr(err.instance), _short(err.instance))
        if kind == "maxLength" and isinstance(err.instance, str):
            message = f"text of {len(err.instance):,} characters is too long: {_short(err.instance[:60])}"
        return [doc.diag(path, message, expected=want + (f": {desc}" if desc else ""))]
    if kind == "not":
        keys = _excluded_keys(err)
        return [doc.diag(path, f"combines {_and(keys)}, which exclude each other" if len(keys) > 1
                         else "combines keys that exclude each other",
                         expected=_describe(err.schema) or outer or "one of the documented forms, not both")]
    if kind == "propertyNames":
        return [doc.diag(path, f"invalid name: {err.message}", expected=_describe(err.schema) or "a valid name")]
    if kind == "items" and err.validator_value is False:
        n = len(err.schema.get("prefixItems", [])) if isinstance(err.schema, dict) else 0
        desc = _describe(err.schema)
        return [doc.diag(path, "too many values", expected=f"{n} values" + (f": {desc}" if desc else ""))]
    return [doc.diag(path, err.message, expected=_describe(err.schema)
                     or "a value of the form docs/data-format.md and docs/templates.md describe")]


def _misfit(e: ValidationError) -> int:
    """How far the value is from the union form that ``e`` (an error of that form) belongs to:
    each key the form requires and the value lacks, each key of the value the form does not
    know, a `not` or `const` the form sets apart. Errors inside the value (a key's wrong type)
    do not count: they are what to report once the form is chosen."""
    if e.relative_path:
        return 1 if e.validator == "const" and len(e.relative_path) == 1 else 0
    if e.validator in ("required", "not"):
        return 1
    if e.validator in ("additionalProperties", "unevaluatedProperties") and isinstance(e.instance, dict):
        known = (e.schema.get("properties") or {}) if isinstance(e.schema, dict) else {}
        return sum(k not in known for k in e.instance)
    return 0


def _unknown_to_all(doc: Doc, path: tuple[str | int, ...], err: ValidationError) -> list[Diagnostic]:
    """The keys of ``err``'s value that no form of the union knows, when every form lists its keys
    (``additionalProperties: false``): ``{"fild": "x", "present": true}`` as a condition."""
    extra: dict[Any, set[str]] = {}
    known: set[str] = set()  # the keys some form has
    for e in err.context:
        if e.validator == "additionalProperties" and not e.relative_path and isinstance(e.schema, dict):
            props = e.schema.get("properties") or {}
            known |= set(props)
            extra[e.relative_schema_path[0]] = {k for k in e.instance if k not in props}
    if not extra or set(extra) != {e.relative_schema_path[0] for e in err.context}:
        return []
    unknown, allowed = set.intersection(*extra.values()), sorted(known)
    return [doc.diag(path + (k,), f"unknown field {k!r}", expected="one of " + ", ".join(allowed),
                     hint=did_you_mean(k, allowed), key=True) for k in err.instance if k in unknown]


def _and(names: list[str]) -> str:
    return ", ".join(repr(n) for n in names[:-1]) + f" and {names[-1]!r}" if len(names) > 1 else repr(names[0])


def _excluded_keys(err: ValidationError) -> list[str]:
    """The keys of ``err``'s value that its ``not`` sets against each other: those its schema
    requires and those the ``not`` forbids (``{"document": …, "quote": …}`` as a source)."""
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            found.extend(k for k in node.get("required", []) if isinstance(k, str))
            for sub in node.get("anyOf", []) + node.get("oneOf", []) + node.get("allOf", []):
                walk(sub)

    walk(err.schema)
    walk(err.validator_value)
    return [k for k in dict.fromkeys(found) if isinstance(err.instance, dict) and k in err.instance]


def _required(form: Any, root: dict[str, Any] | None) -> list[str]:
    f = _deref(form, root)
    return [k for k in f.get("required", []) if isinstance(k, str)] if isinstance(f, dict) else []


def _clash(doc: Doc, path: tuple[str | int, ...], err: ValidationError, forms: list[Any],
           root: dict[str, Any] | None) -> list[Diagnostic] | None:
    """The value has the keys of several forms of a union (``{"field": …, "fields": …}``,
    ``{"pieces": …, "items": …}``): say so, naming them, when they are at least two."""
    if not isinstance(err.instance, dict) or not isinstance(err.validator_value, list):
        return None
    groups = [g for b in forms if (g := [k for k in _required(err.validator_value[b], root) if k in err.instance])]
    if len(groups) < 2:
        return None
    listed = _and(list(dict.fromkeys(k for g in groups for k in g)))
    desc = err.schema.get("description", "").rstrip(".") if isinstance(err.schema, dict) else ""
    forms = alternatives([" with ".join(repr(k) for k in g) for g in groups])
    return [doc.diag(path, f"combines {listed}, which belong to different forms",
                     expected=("either " if len(groups) == 2 else "one of ") + forms + (f": {desc}" if desc else ""))]


def _deref(sch: Any, root: dict[str, Any] | None) -> Any:
    """Follow a ``$ref`` to a ``$defs`` entry of this schema or another shipped one."""
    ref = sch.get("$ref") if isinstance(sch, dict) and not {"description", "x-field"} & set(sch) else None
    if not isinstance(ref, str) or "#/$defs/" not in ref:
        return sch
    file, _, name = ref.partition("#/$defs/")
    base = schema(file.removesuffix(".schema.json")) if file else root
    return (base or {}).get("$defs", {}).get(name, sch)


def _short(value: Any) -> str:
    s = json.dumps(value, ensure_ascii=False)
    return s if len(s) <= 60 else s[:57] + "..."


def _describe(sch: Any) -> str | None:
    if isinstance(sch, dict):
        if "description" in sch:
            return sch["description"].rstrip(".")
        if "oneOf" in sch:
            return "one of the documented forms"
    return None


# -- items --------------------------------------------------------------------------------

_TYPE_SCHEMA: dict[str, dict[str, Any]] = {
    "string": {"type": "string"},
    "text": {"type": "string"},
    "integer": {"type": "integer"},
    "number": {"type": "number"},
    "boolean": {"type": "boolean"},
    "list": {"type": "array", "items": {"type": "string"}, "maxItems": MAX_LIST},
}


def item_schema(fields: dict[str, Any], require_source: bool = True) -> dict[str, Any]:
    """The JSON Schema of one item, from a component file's ``fields`` declaration
    (``require_source``: the game's manifest says ``"provenance": "required"``)."""
    props: dict[str, Any] = {
        "id": {"type": "string", "pattern": "^[a-z0-9][a-z0-9-]*$", "maxLength": 80,
               "x-field": "the item's id, unique in the file: lowercase letters, digits and hyphens"},
        "copies": {"type": "integer", "minimum": 1, "maximum": MAX_COPIES},
        "source": {"$ref": "game.schema.json#/$defs/source",
                   "x-field": 'where it comes from: {"document": QUOTE}, {"external": REF} or {"designed": WHY}'},
        "series": {
            "type": "object", "additionalProperties": False, "required": ["field", "from", "to"],
            "properties": {"field": {"enum": sorted(fields) or ["-"]},
                           "from": {"type": "integer", "minimum": -MAX_SERIES, "maximum": MAX_SERIES},
                           "to": {"type": "integer", "minimum": -MAX_SERIES, "maximum": MAX_SERIES}},
        },
    }
    required = ["id", "source"] if require_source else ["id"]
    for name, spec in fields.items():
        # "x-field" (ignored by the validator) names the field in a "missing required field" message.
        s = {**_TYPE_SCHEMA[spec["type"]], "x-field": f'{spec["type"]}, {spec["description"]}'}
        if "enum" in spec:
            s["enum"] = spec["enum"]
        if "min" in spec:
            s["minimum"] = spec["min"]
        if "max" in spec:
            s["maximum"] = spec["max"]
        if "max_length" in spec:
            s["maxLength"] = spec["max_length"]
        props[name] = s
        if spec.get("required"):
            required.append(name)
    return {"type": "object", "additionalProperties": False, "required": required, "properties": props}


def item_validator(fields: dict[str, Any], require_source: bool = True) -> Schema:
    """The validator of one item of a component file with this ``fields`` declaration."""
    return make_validator(item_schema(fields, require_source))

