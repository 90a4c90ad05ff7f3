"""model: validated dicts -> frozen msgspec Structs (Game, Component, Item, Rule).

Also applies what the data declares: numbered ``series`` expand into items and errata replace
text in the printed value of a field (the document's text stays in ``Item.document_fields``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

import msgspec
from msgspec import Struct

from pnp.errors import DataError, Diagnostic, short_repr
from pnp.input import kinds
from pnp.input.load import Doc
from pnp.input.tables import SheetDoc

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

    kind: str  # "document" | "external" | "designed" | "unstated" (no source given)
    text: str  # the quote, the reference, or the design note
    quote: str | None = None  # an external reference's quote

    @staticmethod
    def from_json(src: Mapping[str, str] | None) -> Provenance:
        if src is None:  # a game whose manifest does not ask for sources
            return Provenance("unstated", "")
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
    min: float | None = None
    max: float | None = None


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
    sheet: Doc | None = None  # the items' sheet, when the data is one (pnp.input.tables), for the data version
    quoted: Mapping[str, Any] | None = None  # which values the items' document quotes give (pnp.qa.quotes)
    corner_radius: float = 0.0  # mm: the cut's rounded corners (the die line follows them)

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
    data_docs: Mapping[str, Doc] = msgspec.field(default_factory=lambda: frozen_map({}))  # component id -> its file

    def manifest_diag(self, message: str, component: str | None = None, path: tuple[str | int, ...] = (),
                      **kw: Any) -> Diagnostic:
        """A problem located in the manifest: at ``path`` below the entry of ``component`` (or at
        ``path`` from its top), or naming the manifest file alone when it or the entry is not
        there to point into. ``kw``: ``expected``, ``hint``, ``severity``."""
        m = self.manifest
        if m is not None and component is not None:
            entries = m.data.get("components", []) if isinstance(m.data, dict) else []
            ci = next((i for i, c in enumerate(entries) if isinstance(c, dict) and c.get("id") == component), None)
            path = ("components", ci, *path) if ci is not None else ()
            if ci is None:
                m = None
        if m is None:
            return Diagnostic(self.manifest_file, message, **kw)
        return m.diag(path, message, **kw)

    def doc_for(self, file: str) -> Doc | None:
        """The manifest or data file shown as ``file``."""
        if self.manifest is not None and self.manifest.display == file:
            return self.manifest
        return next((d for d in self.data_docs.values() if d.display == file), None)

    def locate(self, item: Item) -> str:
        """``file:line`` of an item in its data file (just the file when the line is unknown)."""
        file, path = item.origin
        doc = self.doc_for(file)
        line = doc.locate((*path, "id"))[0] if doc is not None and path else None
        return f"{file}:{line}" if line is not None else file

    def component(self, cid: str) -> Component | None:
        for c in self.components:
            if c.id == cid:
                return c
        return None


def _corner_radius(manifest: Doc, ci: int, c: Mapping[str, Any], size: tuple[float, float],
                   diags: list[Diagnostic]) -> float:
    """The entry's ``corner_radius`` (mm), checked against its shape and size."""
    r = float(c.get("corner_radius", 0))
    shape = c.get("shape", kinds.get(c["kind"]).shapes[0])
    if r and shape in ("round", "hex"):
        diags.append(manifest.diag(("components", ci, "corner_radius"),
                                   f"corner_radius is for rectangular pieces, not a {shape} one",
                                   expected="no corner_radius (a round or hex piece's outline is its shape)"))
    elif r > min(size) / 2:
        diags.append(manifest.diag(("components", ci, "corner_radius"),
                                   f"corner_radius {r:g} mm is more than half the shorter side "
                                   f"({min(size):g} mm)", expected=f"at most {min(size) / 2:g}"))
    return r


def build_game(manifest: Doc, data_docs: Mapping[str, Doc], folder: Path, skip: frozenset[int] = frozenset(),
               skip_items: Mapping[int, set[int]] | None = None) -> Game:
    """Assemble the model from a validated manifest and validated component files
    (``data_docs`` maps component id -> its data Doc). Raises DataError for cross-file problems.
    ``skip`` (manifest indices) and ``skip_items`` (manifest index -> item indices) leave out the
    parts already found invalid, for a check that goes on with the rest."""
    skip_items = skip_items or {}
    m = manifest.data
    diags: list[Diagnostic] = []
    errata = tuple(
        Erratum(e["id"], e["component"], e["field"], e["replace"], e["with"], e["reason"],
                tuple(e["items"]) if "items" in e else None)
        for e in m.get("errata", [])
    )
    used_errata: set[str] = set()
    run = _ErrataRun()
    components = []
    partial = {c["id"] for ci, c in enumerate(m["components"]) if ci in skip_items and isinstance(c, dict)}
    # The game's pieces counted from copies and series lengths before any series is expanded: 40
    # components of 100,000 pieces each (180 KB of series) were expanded first, 1.4 GB (attack 13, F12).
    total = sum(n for ci, c in enumerate(m["components"]) if ci not in skip
                and (n := _pieces(_items_left(data_docs[c["id"]], skip_items.get(ci, set())))) <= MAX_PIECES)
    too_many = total > MAX_GAME_PIECES
    for ci, c in enumerate(m["components"]):
        if ci in skip:
            continue
        doc = data_docs[c["id"]]
        size = NAMED_SIZES[c["size"]] if isinstance(c["size"], str) else (float(c["size"][0]), float(c["size"][1]))
        fields = {
            name: FieldSpec(name, spec["type"], spec["description"], bool(spec.get("required")),
                            tuple(spec["enum"]) if "enum" in spec else None, spec.get("min"), spec.get("max"))
            for name, spec in doc.data["fields"].items()
        }
        if doc.data["component"] != c["id"]:
            diags.append(doc.diag(("component",), f"file holds component {doc.data['component']!r} "
                                  f"but the manifest uses it for {c['id']!r}", expected=repr(c["id"])))
        items = [] if too_many else _expand_items(doc, diags, skip_items.get(ci, set()))
        my_errata = [(ei, e) for ei, e in enumerate(errata) if e.component == c["id"]]
        items = [_apply_errata(it, my_errata, used_errata, manifest, diags, run) for it in items]
        components.append(Component(
            id=c["id"], title=c["title"], kind=c["kind"],
            shape=c.get("shape", kinds.get(c["kind"]).shapes[0]),
            size=size, template=c["template"], back=c.get("back"), data_file=doc.display,
            fields=frozen_map(fields), items=tuple(items), bleed=c.get("bleed"),
            description=doc.data.get("description", ""), quoted=doc.data.get("quoted"),
            sheet=doc if isinstance(doc, SheetDoc) else None,
            corner_radius=_corner_radius(manifest, ci, c, size, diags),
        ))
    if too_many:  # each component within its limit, but many of them
        diags.append(manifest.diag(("components",), f"{total} pieces in the game's components together",
                                   expected=f"at most {MAX_GAME_PIECES} pieces in one game",
                                   hint="check the `copies` and `series` counts, or split the game"))
    seen: dict[str, int] = {}
    for ci, c in enumerate(m["components"]):
        if ci in skip:
            continue
        if c["id"] in seen:
            diags.append(manifest.diag(("components", ci, "id"), f"duplicate component id {c['id']!r}",
                                       expected="unique ids"))
        seen[c["id"]] = ci
        # out/<game>/<game>-contents.pdf is the contents sheet, <game>-ganged.pdf the ganged sheets
        for suffix, what, instead in (("contents", "contents sheet", "content-list"),
                                      ("ganged", "ganged sheets (--gang)", "ganged-deck")):
            if c["id"] == f"{m['id']}-{suffix}":
                diags.append(manifest.diag(("components", ci, "id"), f"component id {c['id']!r} is reserved: "
                                           f"{c['id']}.pdf is the game's {what}",
                                           expected="another id", hint=f"rename it, e.g. {m['id']}-{instead}"))
        if c["id"] == SAVED_OBJECTS:
            diags.append(manifest.diag(("components", ci, "id"), f"component id {c['id']!r} is reserved: "
                                       f"`pnp export tts` writes the game's Tabletop Simulator saved objects "
                                       f"to tts/{SAVED_OBJECTS}/, and each component's sheets to tts/<component>/",
                                       expected="another id", hint="rename it, e.g. saved-object-cards"))
    for ei, e in enumerate(errata):
        if (skip and e.component not in seen) or e.component in partial:
            continue  # its component, or some of its items, were left out: nothing to say here
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
        not_printed=tuple(NotPrinted(n["name"], n["quantity"], Provenance.from_json(n.get("source")))
                          for n in m.get("not_printed", [])),
        folder=folder, manifest_file=manifest.display, manifest=manifest, data_docs=frozen_map(data_docs),
    )


# out/<game>/tts/saved-objects/ holds every deck's Tabletop Simulator saved object (the folder a
# user copies into TTS); out/<game>/tts/<component>/ each deck's sheets: a component of this id
# would put its sheets there and its description on a saved object's name (pnp.products.tts_save)
SAVED_OBJECTS = "saved-objects"
MAX_TEXT = 20_000  # characters of one text on a piece (a dense tarot card holds about 2,000): what a text
# element lays out at most (pnp.layout.piece), and what an erratum may make a field's text
MAX_ERRATA_TEXT = 4_000_000  # characters a game's errata make in all (16 MB at most); the bundled games' 134 at most
MAX_PIECES = 100_000  # per component (copies x series); 10 000 pieces build in about a second
MAX_GAME_PIECES = 200_000  # per game: a few KB of series could otherwise ask for millions of pieces
# per command (the games one check or build lays out together): a build holds every game it
# renders until all are written (all or nothing), about 200 MB per 200,000 pieces
MAX_RUN_PIECES = 400_000


def run_pieces_problem(games: Sequence[Game], where: str) -> Diagnostic | None:
    """The error when ``games``, checked or built by one command, hold more than MAX_RUN_PIECES
    pieces together (each game may be within MAX_GAME_PIECES); ``where``: the folder named."""
    counts = [(g.id, sum(c.pieces for c in g.components)) for g in games]
    total = sum(n for _, n in counts)
    if total <= MAX_RUN_PIECES:
        return None
    each = ", ".join(f"{gid} {n}" for gid, n in counts)
    return Diagnostic(where, f"{total} pieces in the {len(counts)} games of one command ({each})",
                      expected=f"at most {MAX_RUN_PIECES} pieces across the games one command checks or builds",
                      hint="check or build fewer games at a time (name them: `pnp build GAME`)")


def _items_left(doc: Doc, skip: set[int] | frozenset[int]) -> list[tuple[int, dict[str, Any]]]:
    return [(ii, raw) for ii, raw in enumerate(doc.data["items"]) if ii not in skip]


def _pieces(raws: Sequence[tuple[int, dict[str, Any]]]) -> int:
    """The pieces the items ``raws`` make: copies times series lengths, nothing expanded."""
    return sum(max(raw["series"]["to"] - raw["series"]["from"] + 1, 0) * raw.get("copies", 1)
               if "series" in raw else raw.get("copies", 1) for _, raw in raws)


def _expand_items(doc: Doc, diags: list[Diagnostic], skip: set[int] | frozenset[int] = frozenset()) -> list[Item]:
    raws = _items_left(doc, skip)
    pieces = _pieces(raws)
    if pieces > MAX_PIECES:
        diags.append(doc.diag(("items",), f"{pieces} pieces in one component",
                              expected=f"at most {MAX_PIECES} pieces (copies x series lengths)",
                              hint="check the `copies` and `series` counts"))
        return []
    out: list[Item] = []
    where: dict[str, tuple[str | int, ...]] = {}
    for ii, raw in raws:
        path: tuple[str | int, ...] = ("items", ii)
        base = {k: v for k, v in raw.items() if k not in ("id", "copies", "source", "series")}
        prov = Provenance.from_json(raw.get("source"))
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
                diags.append(doc.diag(path + ("id",), f"duplicate item id {iid!r} (first at {doc.place(where[iid])})",
                                      expected="unique item ids in a file"))
                continue
            where[iid] = path
            printed = frozen_map(fields)  # read-only: the document's values and, until errata, the printed ones
            out.append(Item(iid, copies, printed, prov, printed, (), (doc.display, path)))
    return out


class _ErrataRun:
    """What the errata of one game have made so far: each result once per (erratum, text), so the
    items of a series share it (100,000 items of one text made 100,000 copies), and the
    characters made in all, held to MAX_ERRATA_TEXT; the errata refused, each named once."""

    def __init__(self) -> None:
        self.made: dict[tuple[int, str], str] = {}
        self.size = 0
        self.refused: set[int] = set()
        self.over = False  # past MAX_ERRATA_TEXT: no further erratum is applied


def _apply_errata(item: Item, errata: list[tuple[int, Erratum]], used: set[str], manifest: Doc,
                  diags: list[Diagnostic], run: _ErrataRun) -> Item:
    """``item`` with ``errata`` (each with its index in the manifest) applied in turn. An erratum
    that would make a field's text longer than MAX_TEXT characters (or than the text was, when
    longer) is refused before its result is made, with a Diagnostic in ``diags``: chained errata
    multiplying "a" by 20 each grew a 1.7 KB manifest's text to 20^10 characters (out of memory,
    attack 13, F11). So is one that would bring the text the game's errata make past
    MAX_ERRATA_TEXT characters (many items each grown to MAX_TEXT)."""
    if not errata or run.over:
        return item
    fields = dict(item.fields)
    applied = []
    applied_fields: set[str] = set()
    refused: set[str] = set()  # fields an erratum was refused on: the errata after it are not judged
    for ei, e in errata:
        if e.items is not None and item.id not in e.items:
            continue
        if e.field in refused or run.over:
            used.add(e.id)  # not "does not apply": it would work on a text its erratum before did not make
            continue
        value = fields.get(e.field)
        if not isinstance(value, str) or e.replace not in value:
            continue
        used.add(e.id)
        done = run.made.get((ei, value))
        if done is None:
            found = value.count(e.replace)
            length = len(value) + found * (len(e.with_) - len(e.replace))  # before the text is made
            problem = None
            if length > max(MAX_TEXT, len(value)):
                problem = (f"erratum {e.id!r} makes the {e.field!r} of item {item.id!r} {length} characters long "
                           f"({found} times {short_repr(e.replace)} made {len(e.with_)} characters"
                           f"{', on the text of the errata before it' if e.field in applied_fields else ''}): "
                           "far more than a piece can hold", f"at most {MAX_TEXT} characters after the errata")
            elif run.size + length > MAX_ERRATA_TEXT:
                problem = (f"the errata up to {e.id!r} make more than {MAX_ERRATA_TEXT} characters of printed text "
                           f"in all (at item {item.id!r})", f"at most {MAX_ERRATA_TEXT} characters made by a "
                           "game's errata (each item's corrected fields, counted once per distinct text)")
                run.over = True
            if problem is not None:
                if ei not in run.refused:  # once, at its first item
                    run.refused.add(ei)
                    diags.append(manifest.diag(("errata", ei), problem[0], expected=problem[1],
                                               hint="an erratum corrects a few words: check its `replace` and "
                                                    "`with`, and those of the errata on the same field before it"))
                refused.add(e.field)
                continue
            done = run.made[(ei, value)] = value.replace(e.replace, e.with_)
            run.size += len(done)
        fields[e.field] = done
        applied_fields.add(e.field)
        applied.append(e.id)
    if not applied:
        return item
    return Item(item.id, item.copies, frozen_map(fields), item.provenance, item.document_fields,
                tuple(applied), item.origin)

