"""The data version printed on every sheet: a short hash of everything a component's pieces are
made from, so a printed sheet can be matched to the data it came from.

``data_version`` hashes (SHA-256, first 10 hex digits), in this order:

* the game's title, subtitle and designer, the component's manifest entry and its errata;
* the component's data file;
* every template file of the front's and the back's ``extends`` chains (by name);
* the image files in the game's folder (by path inside the folder);
* every font file of the data root's font folders and the bundled ones (by file name), each by
  its identity (``pnp.cache.font_digest``: size, table directory with every table's checksum,
  and the head table's whole-file checksum adjustment — not the megabytes of glyphs).

JSON is hashed as parsed data, re-serialised with sorted keys, so re-indenting a file or a
checkout with CRLF line endings gives the same version; what never prints is left out (``$schema``,
the ``description`` of a data or template file, of a field declaration and of the manifest
entry), so editing a description changes neither the version nor the PDFs. Binary files are
hashed as bytes (images; a file that is not a TrueType font in a fonts folder). Paths
enter only relative to their folder, so the version is the same on every machine and in every
run. Sheet options (paper, duplex, bleed, token cut) and the pnp version are not part of it:
they change where pieces sit, not what they show; the contents sheet records them."""

from __future__ import annotations

import hashlib
import json
import weakref
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pnp.cache import IMAGE_SUFFIXES, file_digest, font_digest, memo_digest
from pnp.model import Component, Game
from pnp.project import DataRoot
from pnp.templates import TemplateStore

LENGTH = 10  # hex digits shown
FONT_SUFFIXES = (".ttf",)

def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _printable(data: Any) -> Any:
    """A data or template file without what never prints: ``$schema``, the file's own
    ``description`` and each field declaration's ``description``."""
    if not isinstance(data, dict):
        return data
    out = {k: v for k, v in data.items() if k not in ("$schema", "description")}
    if isinstance(out.get("fields"), dict):
        out["fields"] = {name: ({k: v for k, v in spec.items() if k != "description"} if isinstance(spec, dict)
                                else spec) for name, spec in out["fields"].items()}
    return out


def _json_file(path: Path) -> bytes:
    """SHA-256 of a JSON file's printable data (:func:`_printable`), re-serialised canonically
    (remembered like fonts; b"?" for a missing or unreadable file)."""
    return memo_digest("json", path, _json_digest, missing=b"?")


def _json_digest(path: Path) -> bytes:
    try:
        data = _printable(json.loads(path.read_bytes().decode("utf-8-sig")))
    except (OSError, ValueError):
        return b"?"  # unreadable: pnp check reports it; the version just stays defined
    return hashlib.sha256(_canonical(data)).digest()


def _files(folder: Path, suffixes: tuple[str, ...]) -> Iterable[Path]:
    if not folder.is_dir():
        return []
    return sorted((p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() in suffixes),
                  key=lambda p: p.relative_to(folder).as_posix())


def _update(h: Any, tag: str, data: bytes) -> None:
    h.update(tag.encode("utf-8") + b"\0" + len(data).to_bytes(8, "big") + data)


def _shared(root: DataRoot, game: Game) -> bytes:
    """Digest of what every component of the game shares: its images and the fonts."""
    h = hashlib.sha256()
    folder = root.card_data / game.id
    for p in _files(folder, IMAGE_SUFFIXES):
        _update(h, "image:" + p.relative_to(folder).as_posix(), file_digest(p))
    for i, d in enumerate(root.font_dirs()):
        for p in _files(d, FONT_SUFFIXES):
            _update(h, f"font{i}:{p.relative_to(d).as_posix()}", font_digest(p))
    return h.digest()


# (id of the session's TemplateStore, game id) -> (the store, weakly; _shared's digest): the
# folders are walked once per session and game, not once per component
_shared_memo: dict[tuple[int, str], tuple[weakref.ref[TemplateStore], bytes]] = {}


def _shared_for(root: DataRoot, store: TemplateStore, game: Game) -> bytes:
    key = (id(store), game.id)
    hit = _shared_memo.get(key)
    if hit is not None and hit[0]() is store:
        return hit[1]
    for k in [k for k, (ref, _) in _shared_memo.items() if ref() is None]:
        del _shared_memo[k]
    digest = _shared(root, game)
    _shared_memo[key] = (weakref.ref(store), digest)
    return digest


def data_version(root: DataRoot, store: TemplateStore, game: Game, comp: Component) -> str:
    """The component's data version: ``LENGTH`` hex digits (see the module docstring). Images
    and fonts are read once per template store (one session) and game."""
    h = hashlib.sha256()
    manifest = game.manifest.data if game.manifest is not None else {}
    _update(h, "game", _canonical({k: manifest.get(k) for k in ("id", "title", "subtitle", "designer")}))
    entries = {c.get("id"): c for c in manifest.get("components", []) if isinstance(c, dict)}
    entry = entries.get(comp.id) or {}
    _update(h, "entry", _canonical({k: v for k, v in entry.items() if k != "description"}))
    _update(h, "errata", _canonical([e for e in manifest.get("errata", [])
                                     if isinstance(e, dict) and e.get("component") == comp.id]))
    folder = root.card_data / game.id
    if isinstance(entry.get("data"), str):
        _update(h, "data", _json_file(folder / entry["data"]))
    for side, name in (("front", comp.template), ("back", comp.back)):
        if name is None:
            continue
        for link in store.get(name).chain:
            _update(h, f"{side}:{link}", _json_file(store.doc(link).path))
    _update(h, "images and fonts", _shared_for(root, store, game))
    return h.hexdigest()[:LENGTH]
