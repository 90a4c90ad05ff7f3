"""model: validated dicts -> frozen msgspec Structs (Game, Component, Item, Rule).

Also applies what the data declares: numbered ``series`` expand into items and errata replace
text in the printed value of a field (the document's text stays in ``Item.document_fields``)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import msgspec
from msgspec import Struct

from pnp.errors import DataError, Diagnostic
from pnp.input import kinds
from pnp.input.load import Doc

NAMED_SIZES: dict[str, tuple[float, float]] = {
    "poker": (63.0, 88.0),
    "poker-us": (63.5, 88.9),
    "bridge": (57.15, 88.9),
    "mini": (44.0, 63.0),
    "mini-us": (41.0, 63.0),
    "tarot": (70.0, 120.0),
    "square": (70.0, 70.0),
}


def frozen_map(d: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(d))


class Provenance(Struct, frozen=True):
    """Where an item comes from: the rulebook (a quote), an external published fact, or design."""

    kind: str  # "document" | "external" | "designed"
    text: str  # the quote, the reference, or the design note
    quote: str | None = None  # an external reference's quote

    @staticmethod
    def from_json(src: Mapping[str, str]) -> Provenance:
        for kind in ("document", "external", "designed"):
            if kind in src:
                return Provenance(kind, src[kind], src.get("quote"))
        raise ValueError(f"source without a kind: {src!r}")  # the schema rules this out


class FieldSpec(Struct, frozen=True):
    """One field a data file declares for its items."""

    name: str
    type: str
    description: str
    required: bool = False
    enum: tuple[Any, ...] | None = None


class Item(Struct, frozen=True):
    """One distinct piece of a component (printed ``copies`` times), with its printed field values."""

    id: str
    copies: int
    fields: Mapping[str, Any]  # printed values (errata applied)
    provenance: Provenance
    document_fields: Mapping[str, Any] = msgspec.field(default_factory=lambda: frozen_map({}))
    errata: tuple[str, ...] = ()
    origin: tuple[str, tuple[str | int, ...]] = ("", ())  # (file, JSON path) for messages

    def get(self, name: str, document: bool = False) -> Any:
        """A field's printed value, or with ``document`` its value as the document has it
        (before errata)."""
        if name == "id":
            return self.id
        if name == "copies":
            return self.copies
        return (self.document_fields if document else self.fields).get(name)


class Component(Struct, frozen=True):
    """One deck, track, tile set, token set, board or mat of a game, with its items."""

    id: str
    title: str
    kind: str
    shape: str
    size: tuple[float, float]  # trim, mm
    template: str
    back: str | None
    data_file: str
    fields: Mapping[str, FieldSpec]
    items: tuple[Item, ...]
    bleed: float | None = None  # mm override
    description: str = ""

    @property
    def pieces(self) -> int:
        return sum(i.copies for i in self.items)


class Rule(Struct, frozen=True):
    """One rulebook rule the checker verifies, with its quote."""

    id: str
    check: str
    description: str
    quote: str
    params: Mapping[str, Any]
    origin: tuple[str, tuple[str | int, ...]] = ("", ())


class Erratum(Struct, frozen=True):
    """A correction applied to a printed value (the rules still judge the document's value)."""

    id: str
    component: str
    field: str
    replace: str
    with_: str
    reason: str
    items: tuple[str, ...] | None = None


class NotPrinted(Struct, frozen=True):
    """Something the game needs that is not printed (dice, a pencil)."""

    name: str
    quantity: str
    provenance: Provenance


class Game(Struct, frozen=True):
    """One game: its manifest facts, components, rules, errata and what else it needs."""

    id: str
    title: str
    subtitle: str
    designer: str
    players: tuple[int, int | None]
    document: Mapping[str, str]
    components: tuple[Component, ...]
    rules: tuple[Rule, ...]
    errata: tuple[Erratum, ...]
    not_printed: tuple[NotPrinted, ...]
    folder: Path
    manifest_file: str
    manifest: Doc | None = None  # the parsed manifest, for messages that point into it

    def component(self, cid: str) -> Component | None:
        for c in self.components:
            if c.id == cid:
                return c
        return None


def build_game(manifest: Doc, data_docs: Mapping[str, Doc], folder: Path) -> Game:
    """Assemble the model from a validated manifest and validated component files
    (``data_docs`` maps component id -> its data Doc). Raises DataError for cross-file problems."""
    m = manifest.data
    diags: list[Diagnostic] = []
    errata = tuple(
        Erratum(e["id"], e["component"], e["field"], e["replace"], e["with"], e["reason"],
                tuple(e["items"]) if "items" in e else None)
        for e in m.get("errata", [])
    )
    used_errata: set[str] = set()
    components = []
    for c in m["components"]:
        doc = data_docs[c["id"]]
        size = NAMED_SIZES[c["size"]] if isinstance(c["size"], str) else (float(c["size"][0]), float(c["size"][1]))
        fields = {
            name: FieldSpec(name, spec["type"], spec["description"], bool(spec.get("required")),
                            tuple(spec["enum"]) if "enum" in spec else None)
            for name, spec in doc.data["fields"].items()
        }
        if doc.data["component"] != c["id"]:
            diags.append(doc.diag(("component",), f"file holds component {doc.data['component']!r} "
                                  f"but the manifest uses it for {c['id']!r}", expected=repr(c["id"])))
        items = _expand_items(doc, diags)
        my_errata = [e for e in errata if e.component == c["id"]]
        items = [_apply_errata(it, my_errata, used_errata) for it in items]
        components.append(Component(
            id=c["id"], title=c["title"], kind=c["kind"],
            shape=c.get("shape", kinds.get(c["kind"]).shapes[0]),
            size=size, template=c["template"], back=c.get("back"), data_file=doc.display,
            fields=frozen_map(fields), items=tuple(items), bleed=c.get("bleed"),
            description=doc.data.get("description", ""),
        ))
    total = sum(comp.pieces for comp in components)
    if total > MAX_GAME_PIECES:  # each component within its limit, but many of them
        diags.append(manifest.diag(("components",), f"{total} pieces in the game's components together",
                                   expected=f"at most {MAX_GAME_PIECES} pieces in one game",
                                   hint="check the `copies` and `series` counts, or split the game"))
    seen: dict[str, int] = {}
    for ci, c in enumerate(m["components"]):
        if c["id"] in seen:
            diags.append(manifest.diag(("components", ci, "id"), f"duplicate component id {c['id']!r}",
                                       expected="unique ids"))
        seen[c["id"]] = ci
        if c["id"] == f"{m['id']}-contents":  # out/<game>/<game>-contents.pdf is the contents sheet
            diags.append(manifest.diag(("components", ci, "id"), f"component id {c['id']!r} is reserved: "
                                       f"{c['id']}.pdf is the game's contents sheet",
                                       expected="another id", hint=f"rename it, e.g. {m['id']}-content-list"))
    for ei, e in enumerate(errata):
        if e.component not in seen:
            diags.append(manifest.diag(("errata", ei, "component"), f"unknown component {e.component!r}",
                                       expected="one of " + ", ".join(seen)))
        elif e.id not in used_errata:
            diags.append(manifest.diag(("errata", ei), f"erratum {e.id!r} does not apply: no item's "
                                       f"{e.field!r} contains {e.replace!r}",
                                       hint="remove it, or fix its component/field/replace"))
    if diags:
        raise DataError(diags)
    rules = tuple(
        Rule(r["id"], r["check"], r["description"], r["quote"],
             frozen_map({k: v for k, v in r.items() if k not in ("id", "check", "description", "quote", "note")}),
             (manifest.display, ("rulebook", ri)))
        for ri, r in enumerate(m["rulebook"])
    )
    players = m["players"]
    return Game(
        id=m["id"], title=m["title"], subtitle=m.get("subtitle", ""), designer=m.get("designer", ""),
        players=(players["min"], players.get("max")), document=frozen_map(m["document"]),
        components=tuple(components), rules=rules, errata=errata,
        not_printed=tuple(NotPrinted(n["name"], n["quantity"], Provenance.from_json(n["source"]))
                          for n in m.get("not_printed", [])),
        folder=folder, manifest_file=manifest.display, manifest=manifest,
    )


MAX_PIECES = 100_000  # per component (copies x series); 10 000 pieces build in about a second
MAX_GAME_PIECES = 200_000  # per game: a few KB of series could otherwise ask for millions of pieces


def _expand_items(doc: Doc, diags: list[Diagnostic]) -> list[Item]:
    pieces = sum(max(raw["series"]["to"] - raw["series"]["from"] + 1, 0) * raw.get("copies", 1)
                 if "series" in raw else raw.get("copies", 1) for raw in doc.data["items"])
    if pieces > MAX_PIECES:
        diags.append(doc.diag(("items",), f"{pieces} pieces in one component",
                              expected=f"at most {MAX_PIECES} pieces (copies x series lengths)",
                              hint="check the `copies` and `series` counts"))
        return []
    out: list[Item] = []
    where: dict[str, tuple[str | int, ...]] = {}
    for ii, raw in enumerate(doc.data["items"]):
        path: tuple[str | int, ...] = ("items", ii)
        base = {k: v for k, v in raw.items() if k not in ("id", "copies", "source", "series")}
        prov = Provenance.from_json(raw["source"])
        copies = raw.get("copies", 1)
        if "series" in raw:
            s = raw["series"]
            if s["to"] < s["from"]:
                diags.append(doc.diag(path + ("series",), f"series runs backwards ({s['from']} to {s['to']})",
                                      expected="from <= to"))
                continue
            expanded = [(f"{raw['id']}-{n}", {**base, s["field"]: n}) for n in range(s["from"], s["to"] + 1)]
        else:
            expanded = [(raw["id"], base)]
        for iid, fields in expanded:
            if iid in where:
                first = doc.locate(where[iid])[0]
                diags.append(doc.diag(path + ("id",), f"duplicate item id {iid!r} (first at line {first})",
                                      expected="unique item ids in a file"))
                continue
            where[iid] = path
            printed = frozen_map(fields)  # read-only: the document's values and, until errata, the printed ones
            out.append(Item(iid, copies, printed, prov, printed, (), (doc.display, path)))
    return out


def _apply_errata(item: Item, errata: list[Erratum], used: set[str]) -> Item:
    if not errata:
        return item
    fields = dict(item.fields)
    applied = []
    for e in errata:
        if e.items is not None and item.id not in e.items:
            continue
        value = fields.get(e.field)
        if isinstance(value, str) and e.replace in value:
            fields[e.field] = value.replace(e.replace, e.with_)
            applied.append(e.id)
            used.add(e.id)
    if not applied:
        return item
    return Item(item.id, item.copies, frozen_map(fields), item.provenance, item.document_fields,
                tuple(applied), item.origin)

