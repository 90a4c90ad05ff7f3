"""Templates as data: load ``templates/<group>/<name>.json``, validate it, and resolve its
``extends`` chain (with cycle detection) into one flat Template.

Merging, parent first: colours, palettes and icons by name (the child wins), and so the light
variant's colours and palette entries (``light``, for ``--ink-saver``; a colour or palette a
child redefines loses the light variant it inherited); styles by name, key by key; elements in
order, where a child element with the id of an inherited one replaces it in place and ``remove``
drops inherited ids."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from pnp.errors import DataError, Diagnostic, did_you_mean
from pnp.input.conditions import replacement_literals
from pnp.input.load import NAME_MAX, PATH_MAX, Doc, bad_text, file_kind, load_json, name_too_long, resolves_inside
from pnp.input.measures import problems as measure_problems
from pnp.input.model import frozen_map
from pnp.input.project import DataRoot
from pnp.input.validate import validate_doc


class Element(Struct, frozen=True):
    """One element dict and where it was written (for messages)."""

    data: Mapping[str, Any]
    doc: Doc
    path: tuple[str | int, ...]

    @property
    def label(self) -> str:
        name = self.data.get("id")
        line = self.doc.locate(self.path)[0]
        what = f"element {name!r}" if name else f"{self.data.get('type')} element"
        return f"{what} ({self.doc.display}:{line})"

    def child(self, key: str, index: int) -> Element:
        return Element(self.data[key][index], self.doc, (*self.path, key, index))


class Template(Struct, frozen=True):
    """A template resolved through its ``extends`` chain: elements, styles, colours, icons."""

    name: str
    chain: tuple[str, ...]  # this template first, then its ancestors
    doc: Doc
    size: tuple[float, float] | None
    colors: Mapping[str, str]
    palettes: Mapping[str, Mapping[str, str]]
    styles: Mapping[str, Mapping[str, Any]]
    icons: Mapping[str, Mapping[str, Any]]
    elements: tuple[Element, ...]
    # The light variant (``--ink-saver``): colours and palette entries that replace the normal ones
    # where they fill a shape or an icon's background (pnp.layout, Context.light).
    light_colors: Mapping[str, str] = field(default_factory=lambda: frozen_map({}))
    light_palettes: Mapping[str, Mapping[str, str]] = field(default_factory=lambda: frozen_map({}))


TEMPLATE_SUFFIX = ".json"  # template "golems/card" is the file golems/card.json in a templates folder


class TemplateStore:
    def __init__(self, root: DataRoot):
        self.root = root
        self._docs: dict[str, Doc] = {}
        self._resolved: dict[str, Template] = {}

    def path_of(self, name: str) -> Path | None:
        """The file of template ``name``: in the first templates folder that has anything of that
        name (a FIFO or a folder there is refused by ``doc``, not passed over for a bundled one)."""
        for d in self.root.template_dirs():
            p = d / f"{name}{TEMPLATE_SUFFIX}"
            if os.path.lexists(p):
                return p
        return None

    def doc(self, name: str, referrer: tuple[Doc, tuple[str | int, ...]] | None = None) -> Doc:
        if name in self._docs:
            return self._docs[name]
        path = self.path_of(name)
        if path is None:
            where = self.root.display(self.root.templates / f"{name}{TEMPLATE_SUFFIX}")
            msg = f"template {name!r} not found ({where})"
            if referrer is not None:
                raise DataError([referrer[0].diag(referrer[1], msg, expected="an existing template name",
                                                  hint=self._suggest(name))])
            raise DataError([Diagnostic(where, msg, expected="an existing template name",
                                        hint=self._suggest(name))])
        folder = next(d for d in self.root.template_dirs() if path.is_relative_to(d))  # where it was found
        if not resolves_inside(path, folder):
            # Only files inside the templates folders are read: a link must not reach anywhere else.
            msg = f"template {name!r} ({self.root.display(path)}) is a link to a file outside {folder}"
            fix = dict(expected="a template file inside the templates folder",
                       hint="copy the file into the templates folder instead of linking to it")
            raise DataError([referrer[0].diag(referrer[1], msg, **fix) if referrer is not None
                             else Diagnostic(self.root.display(path), msg, **fix)])
        if not path.is_file():  # a named pipe would block the read; a loop of links, a folder, a device...
            kind = file_kind(path)
            msg = f"template {name!r} ({self.root.display(path)}) is not a regular file: it is {kind}"
            fix = dict(expected="a template JSON file", hint="replace it with a JSON file")
            raise DataError([referrer[0].diag(referrer[1], msg, **fix) if referrer is not None
                             else Diagnostic(self.root.display(path), msg, **fix)])
        doc = load_json(path, self.root.display(path))
        diags = validate_doc(doc, "template")
        if diags:
            raise DataError(diags)
        self._docs[name] = doc
        return doc

    def _suggest(self, name: str) -> str | None:
        known = []
        for d in self.root.template_dirs():
            known += [str(p.relative_to(d).with_suffix("")) for p in d.glob(f"*/*{TEMPLATE_SUFFIX}")]
        return did_you_mean(name, known)

    def get(self, name: str, referrer: tuple[Doc, tuple[str | int, ...]] | None = None) -> Template:
        if name in self._resolved:
            return self._resolved[name]
        chain: list[str] = []
        seen: set[str] = set()
        docs: list[Doc] = []
        cur: str | None = name
        ref = referrer
        while cur is not None:
            if cur in seen:
                cycle = " -> ".join([*chain, cur])
                raise DataError([docs[-1].diag(("extends",), f"`extends` cycle: {cycle}",
                                               expected="a chain that ends in a template without `extends`")])
            chain.append(cur)
            seen.add(cur)
            d = self.doc(cur, ref)
            docs.append(d)
            cur = d.data.get("extends")
            ref = (d, ("extends",))
        tpl = self._merge(name, chain, docs, self._icon_files(docs))
        self._resolved[name] = tpl
        return tpl

    def icon_file(self, doc: Doc, icon: str, src: str) -> Path:
        """The SVG file an icon of ``doc`` names: relative to the template's file, inside the
        templates folder the template was found in (DataError otherwise)."""
        folder = next((d for d in self.root.template_dirs() if doc.path.is_relative_to(d)), doc.path.parent)
        path = doc.path.parent / src
        where = ("icons", icon, "svg")
        too_long = name_too_long(path)
        if too_long is not None:
            raise DataError([doc.diag(where, f"icon {icon!r}: name too long: {too_long}",
                                      expected=f"an SVG file name of at most {NAME_MAX} bytes ({PATH_MAX} in all)")])
        if not resolves_inside(path, folder):
            raise DataError([doc.diag(where, f"icon {icon!r}: {src!r} is outside the templates folder",
                                      expected="an SVG file inside " + self.root.display(folder))])
        if not path.is_file():
            what = "not found" if not os.path.lexists(path) else f"is not a regular file: it is {file_kind(path)}"
            raise DataError([doc.diag(where, f"icon {icon!r}: {src!r} {what} ({self.root.display(path)})",
                                      expected="an SVG file beside the template, or below its folder")])
        return path.resolve()

    def _icon_files(self, docs: list[Doc]) -> dict[str, Path]:
        """Per doc display name and icon: the SVG files icons name (``"svg": "art/sword.svg"``)."""
        out: dict[str, Path] = {}
        for doc in docs:
            for icon, spec in doc.data.get("icons", {}).items():
                if "svg" in spec:
                    out[f"{doc.display}\0{icon}"] = self.icon_file(doc, icon, spec["svg"])
        return out

    def _merge(self, name: str, chain: list[str], docs: list[Doc], files: dict[str, Path] | None = None) -> Template:
        colors: dict[str, str] = {}
        palettes: dict[str, Mapping[str, str]] = {}
        styles: dict[str, dict[str, Any]] = {}
        style_docs: dict[str, Doc] = {}
        icons: dict[str, Mapping[str, Any]] = {}
        light_colors: dict[str, str] = {}
        light_palettes: dict[str, dict[str, str]] = {}
        elements: list[Element] = []
        size = None
        diags: list[Diagnostic] = []
        for doc in reversed(docs):  # root ancestor first
            d = doc.data
            colors.update(d.get("colors", {}))
            palettes.update(d.get("palettes", {}))
            for icon, spec in d.get("icons", {}).items():
                diags.extend(_icon_strokes(doc, icon, spec))
                # an SVG icon carries its file's absolute path (``file``), checked above
                svg = files is not None and "svg" in spec
                icons[icon] = {**spec, "file": str(files[f"{doc.display}\0{icon}"])} if svg else spec  # type: ignore[index]
            # A colour or palette redefined here drops the light variant inherited for it.
            for cname in d.get("colors", {}):
                light_colors.pop(cname, None)
            for pname in d.get("palettes", {}):
                light_palettes.pop(pname, None)
            light = d.get("light", {})
            light_colors.update(light.get("colors", {}))
            for pname, pal in light.get("palettes", {}).items():
                light_palettes[pname] = {**light_palettes.get(pname, {}), **pal}
            for sname, st in d.get("styles", {}).items():
                styles[sname] = {**styles.get(sname, {}), **st}
                if "extends" in st:
                    style_docs[sname] = doc  # where the style's `extends` was written (for messages)
            if "size" in d:
                size = (float(d["size"][0]), float(d["size"][1]))
            for ri, rid in enumerate(d.get("remove", [])):
                before = len(elements)
                elements = [e for e in elements if e.data.get("id") != rid]
                if len(elements) == before:
                    diags.append(doc.diag(("remove", ri), f"no inherited element with id {rid!r} to remove",
                                          expected="an id of an element in a parent template"))
            own: dict[str, int] = {}  # ids of this template's own elements: each at most once
            for ei, el in enumerate(d.get("elements", [])):
                diags.extend(_measures(doc, el, ("elements", ei)))
                diags.extend(_replacements(doc, el, ("elements", ei)))
                new = Element(el, doc, ("elements", ei))
                eid = el.get("id")
                if isinstance(eid, str) and eid in own:
                    first = doc.locate(("elements", own[eid]))[0]
                    diags.append(doc.diag(("elements", ei, "id"), f"duplicate element id {eid!r} in one template "
                                          f"(first at line {first}): the later would replace the earlier unseen",
                                          expected="a different id (the same id replaces an inherited element only)"))
                    continue
                if isinstance(eid, str):
                    own[eid] = ei
                idx = next((i for i, e in enumerate(elements) if eid and e.data.get("id") == eid), None)
                if idx is None:
                    elements.append(new)
                else:
                    elements[idx] = new
        resolved, broken = _resolve_styles(styles)
        resolved_styles = {sname: frozen_map(st) for sname, st in resolved.items()}
        for sname, msg in broken:
            diags.append(style_docs[sname].diag(("styles", sname, "extends"), msg,
                                                expected="`extends` naming another style, without a cycle"))
        if diags:
            raise DataError(diags)
        return Template(name, tuple(chain), docs[0], size, frozen_map(colors), frozen_map(palettes),
                        frozen_map(resolved_styles), frozen_map(icons), tuple(elements),
                        frozen_map(light_colors), frozen_map(light_palettes))


def _icon_strokes(doc: Doc, icon: str, spec: Mapping[str, Any]) -> list[Diagnostic]:
    """An icon shape's ``stroke_width`` wider than its icon's viewbox: the stroke would paint far
    beyond the icon's box, and PDFium's work grows with the square of the width (attack 15, F5:
    300 units in a 1-unit viewbox, a 90 mm stroke from a 0.3 mm icon; the bundled icons' widest
    is a fifth of their viewbox)."""
    vb = spec.get("viewbox", [100, 100])
    most = max(vb) if isinstance(vb, list) and vb and all(isinstance(v, int | float) for v in vb) else 100
    return [doc.diag(("icons", icon, "shapes", i, "stroke_width"),
                     f"icon {icon!r}: a stroke {sh['stroke_width']:g} units wide in a viewbox of {most:g}",
                     expected=f"a stroke_width of at most the viewbox's larger side ({most:g} units)",
                     hint="stroke_width is in viewbox units: a line a tenth of the icon wide is "
                     f"{most / 10:g}")
            for i, sh in enumerate(spec.get("shapes", []) if isinstance(spec.get("shapes"), list) else [])
            if isinstance(sh, Mapping) and isinstance(sh.get("stroke_width"), int | float)
            and sh["stroke_width"] > most]


def _measures(doc: Doc, data: Mapping[str, Any], path: tuple[str | int, ...]) -> list[Diagnostic]:
    """Coordinate expressions (pnp.input.measures) that cannot be read, in an element and the
    elements inside it, whether or not any item draws them."""
    return [doc.diag(where + sub, f"{sub[0]}: {msg}", expected=expected)
            for el, where in _nested(data, path) for sub, msg, expected in measure_problems(el)]


JsonPath = tuple[str | int, ...]


def _nested(data: Mapping[str, Any], path: JsonPath) -> Iterator[tuple[Mapping[str, Any], JsonPath]]:
    """An element and the elements inside it (``elements``, ``otherwise``), each with its path."""
    yield data, path
    for key in ("elements", "otherwise"):
        kids = data.get(key)
        if isinstance(kids, list):
            for i, kid in enumerate(kids):
                if isinstance(kid, dict):
                    yield from _nested(kid, (*path, key, i))


def _replacements(doc: Doc, data: Mapping[str, Any], path: tuple[str | int, ...]) -> list[Diagnostic]:
    """Each ``replace[].with`` (in an element and the elements inside it) whose escapes decode to a
    control character or a lone surrogate (``\\x1b``, ``\\ud800``), or cannot be decoded: the same
    guard as text written literally, which the loader applies."""
    out = []
    for el, el_path in _nested(data, path):
        out.extend(_replacement_problems(doc, el, el_path))
    return out


def _replacement_problems(doc: Doc, data: Mapping[str, Any], path: tuple[str | int, ...]) -> list[Diagnostic]:
    out = []
    for ri, r in enumerate(data.get("replace") or []):
        if not (isinstance(r, dict) and isinstance(r.get("with"), str)):
            continue
        where = (*path, "replace", ri, "with")
        try:
            bad = bad_text(replacement_literals(r["with"]))
        except ValueError as exc:
            out.append(doc.diag(where, str(exc), expected="a replacement whose escapes decode (\\1 for a group)"))
            continue
        if bad is not None:  # (escapes decode one by one: \\ud83d\\ude00 is two lone surrogates)
            hint = "write the character itself, or \\U and 8 hex digits" if "surrogate" in bad[0] else bad[1]
            out.append(doc.diag(where, f"the replacement {r['with']!r} inserts {bad[0]}",
                                expected="printable Unicode text (\\1, \\g<name> for groups)", hint=hint))
    return out


def _resolve_styles(styles: Mapping[str, Mapping[str, Any]]) -> tuple[dict[str, dict[str, Any]], list[tuple[str, str]]]:
    """Each style with its ``extends`` chain worked out (the parent's keys first, the style's own
    win), and the problems: (the style whose ``extends`` breaks the chain, message), one for each
    cycle or unknown parent (the styles that lead into it are left out, not reported again).
    Iterative, each style worked out once: a chain of any depth takes time in proportion to its
    length (a recursion 1,000 styles deep was a RecursionError)."""
    done: dict[str, dict[str, Any] | None] = {}  # None: its chain is broken
    broken: list[tuple[str, str]] = []
    for name in styles:
        path: list[str] = []  # the styles followed from ``name``, not yet worked out
        on_path: set[str] = set()
        cur = name
        base: dict[str, Any] | None
        while True:
            if cur in done:
                base = done[cur]
                break
            if cur in on_path:
                cycle = path[path.index(cur):] + [cur]
                broken.append((path[-1], f"style `extends` cycle: {_chain(cycle)}"))
                base = None
                break
            if cur not in styles:
                broken.append((path[-1], f"style {path[-1]!r} extends unknown style {cur!r}"))
                base = None
                break
            path.append(cur)
            on_path.add(cur)
            parent = styles[cur].get("extends")
            if parent is None:
                base = {}
                break
            cur = parent
        for sname in reversed(path):  # the deepest first, each on top of its parent
            if base is not None:
                own = {k: v for k, v in styles[sname].items() if k != "extends"}
                base = {**base, **own}
            done[sname] = base
    return {k: done[k] for k in styles if done[k] is not None}, broken  # in the styles' order


def _chain(names: list[str], most: int = 12) -> str:
    """``a -> b -> a``; a long chain with its middle left out."""
    if len(names) <= most:
        return " -> ".join(names)
    return " -> ".join(names[:most // 2]) + f" -> ... ({len(names) - most} more) -> " + " -> ".join(names[-most // 2:])
