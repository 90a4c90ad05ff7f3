"""Write the README's data reference from the JSON Schemas (pnp/schemas/*.schema.json).

The section between ``<!-- schema-reference:start -->`` and ``<!-- schema-reference:end -->`` in
README.md is generated: run this script after changing a schema. ``--check`` changes nothing and
exits 1 when the README is out of date (a test runs it).

    python scripts/schema_reference.py [--check] [README]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pnp.input.validate import SCHEMA_NAMES, schema

START = "<!-- schema-reference:start -->"
END = "<!-- schema-reference:end -->"
README = Path(__file__).resolve().parents[1] / "README.md"


def _cell(text: str) -> str:
    """One table cell: one line, `|` escaped, `<` outside code spans escaped (not a tag)."""
    parts = " ".join(text.split()).replace("|", "\\|").split("`")
    return "`".join(p if i % 2 else p.replace("<", "&lt;") for i, p in enumerate(parts))


def _type(p: Any) -> str:
    """A short type for a property: JSON type, enum values, or the definition it refers to."""
    if p is True:
        return "any"
    if not isinstance(p, dict):
        return ""
    if "$ref" in p:
        ref = p["$ref"]
        file, _, name = ref.partition("#")
        if name.startswith("/$defs/"):
            return name.removeprefix("/$defs/").replace("/", ".")
        return file.removesuffix(".schema.json") or "condition"
    if "enum" in p:
        return " | ".join(f"`{v}`" if isinstance(v, str) else f"`{v!r}`" for v in p["enum"])
    if "const" in p:
        return f"`{p['const']}`"
    t = p.get("type")
    if isinstance(t, list):
        return " or ".join(t)
    if t == "array":
        inner = _type(p.get("items")) if isinstance(p.get("items"), dict) else ""
        return f"array of {inner}" if inner else "array"
    if t:
        return str(t)
    if "oneOf" in p or "anyOf" in p:
        return "one of several forms"
    return "any"


def _target(ref: str, current: str) -> Any:
    """The schema a ``$ref`` points at (in this schema or another shipped one)."""
    file, _, pointer = ref.partition("#")
    node: Any = schema(file.removesuffix(".schema.json") if file else current)
    for part in pointer.strip("/").split("/") if pointer.strip("/") else []:
        node = node.get(part, {}) if isinstance(node, dict) else {}
    return node


_CURRENT = ["game"]  # the schema being rendered, for local $refs


def _doc(p: Any) -> str:
    if not isinstance(p, dict):
        return ""
    parts = [p[k] for k in ("title", "description") if p.get(k)]
    if "$ref" in p and "description" not in p:
        # A reference titled here: its definition's description says the rest.
        target = _target(p["$ref"], _CURRENT[0])
        for _ in range(5):  # a reference to a reference
            if not (isinstance(target, dict) and "$ref" in target and "description" not in target):
                break
            target = _target(target["$ref"], _CURRENT[0])
        if isinstance(target, dict) and target.get("description"):
            parts.append(target["description"])
    return _cell(". ".join(s.rstrip(".") for s in parts) + ("." if parts else ""))


def _table(props: dict[str, Any], required: list[str], skip: set[str] = frozenset()) -> list[str]:  # type: ignore[assignment]
    rows = ["| key | type | required | description |", "|---|---|---|---|"]
    for name, p in props.items():
        if name in skip or p is True:
            continue
        rows.append(f"| `{name}` | {_cell(_type(p))} | {'yes' if name in required else ''} | {_doc(p)} |")
    return rows


def _branch_label(branch: dict[str, Any]) -> str:
    cond = branch.get("if", {}).get("properties", {})
    key, test = next(iter(cond.items()))
    values = [test["const"]] if "const" in test else test.get("enum", [])
    return f"`{key}`: " + ", ".join(f"`{v}`" for v in values)


def _object(title: str, node: dict[str, Any], level: str) -> list[str]:
    out = [f"{level} {title}", ""]
    doc = _cell(node.get("description", "")) if level == "###" else _doc(node)  # the title is the heading
    if doc:
        out += [doc, ""]
    props = node.get("properties")
    if isinstance(props, dict) and props:
        out += [*_table(props, node.get("required", [])), ""]
    for branch in node.get("allOf", []):
        if "then" in branch:
            then = branch["then"]
            extra = {k: v for k, v in then.get("properties", {}).items() if v is not True}
            out += [f"With {_branch_label(branch)}:", ""]
            out += [*_table(extra, then.get("required", [])), ""] if extra else ["(no further keys)", ""]
    for key in ("oneOf", "anyOf"):
        forms = [f for f in node.get(key, []) if isinstance(f, dict) and f.get("properties")]
        for i, form in enumerate(forms, 1):
            out += [f"Form {i}:", "", *_table(form["properties"], form.get("required", [])), ""]
    return out


def render() -> str:
    out: list[str] = []
    for name in SCHEMA_NAMES:
        s = schema(name)
        _CURRENT[0] = name
        out += _object(f"{_cell(s['title'])} — `{name}.schema.json`", s, "###")
        for def_name, d in s.get("$defs", {}).items():
            if not isinstance(d, dict):
                continue
            if d.get("properties") or d.get("allOf") or any(
                    isinstance(f, dict) and f.get("properties") for f in d.get("oneOf", []) + d.get("anyOf", [])):
                out += _object(f"`{name}.{def_name}`", d, "####")
            elif _doc(d) and def_name not in ("common", "paintable"):
                out += [f"#### `{name}.{def_name}`", "", f"{_cell(_type(d))}: {_doc(d)}", ""]
    return "\n".join(out).rstrip() + "\n"


def update(text: str) -> str:
    """``text`` (a README) with the generated section replaced."""
    if START not in text or END not in text:
        raise SystemExit(f"README has no {START} ... {END} markers")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n<!-- generated by scripts/schema_reference.py from pnp/schemas; do not edit -->\n\n" \
           f"{render()}\n{END}{tail}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("readme", nargs="?", type=Path, default=README)
    ap.add_argument("--check", action="store_true", help="exit 1 if the README is out of date; write nothing")
    args = ap.parse_args()
    text = args.readme.read_text("utf-8")
    new = update(text)
    if args.check:
        if new != text:
            print(f"{args.readme}: the schema reference is out of date; run python scripts/schema_reference.py",
                  file=sys.stderr)
            return 1
        return 0
    if new != text:
        args.readme.write_text(new, "utf-8")
        print(f"updated {args.readme}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
