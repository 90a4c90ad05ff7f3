"""The incremental build record: what each PDF of a game was made from (``out/<game>/.pnp-
build.json``), read before a build to skip what is current and written after it."""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec import Struct, field
from msgspec.structs import asdict

from pnp.pipeline.build import CACHE_NAME
from pnp.plan.digest import digest

if TYPE_CHECKING:
    from pnp.pipeline.build import RenderedGame
    from pnp.qa.figures import ComponentPreflight


FORMAT = "pnp-build-cache"
VERSION = 1


def sha256_file(p: Path) -> str | None:
    try:
        return hashlib.sha256(p.read_bytes()).hexdigest()
    except OSError:
        return None


class CachedFile(Struct, frozen=True):
    """One PDF a build wrote: its name, hash, and what the build summary says about it."""

    file: str  # name inside the game's output folder
    sha256: str
    fingerprint: str = ""  # components only
    pages: int = 0
    pieces: int = 0
    grid: str = ""  # "3x3", or "" when the component is not on a grid
    bytes: int = 0
    warnings: tuple[str, ...] = ()  # what laying out its pieces warned, as printed
    # its preflight figures (pnp.preflight.ComponentPreflight.as_json), so an unchanged
    # component's figures need no layout
    preflight: Mapping[str, Any] = field(default_factory=dict)


class Record(Struct, frozen=True):
    """What one game's last build was made from and wrote (``.pnp-build.json``)."""

    inputs: str
    components: Mapping[str, CachedFile]
    contents: CachedFile
    warnings: tuple[str, ...] = ()
    not_printed: tuple[str, ...] = ()

    def intact(self, folder: Path) -> bool:
        """Every PDF the record names is on disk with its recorded bytes."""
        files: Iterable[CachedFile] = [*self.components.values(), self.contents]
        return all(sha256_file(folder / f.file) == f.sha256 for f in files)

    def figures(self, cid: str) -> ComponentPreflight | None:
        """The preflight figures recorded for component ``cid`` (None: none recorded)."""
        from pnp.qa.figures import ComponentPreflight  # light, but an up-to-date build may not need it

        f = self.components.get(cid)
        return ComponentPreflight.from_json(f.preflight) if f is not None and f.preflight else None

    def component_current(self, folder: Path, cid: str, fingerprint: str) -> bool:
        f = self.components.get(cid)
        return f is not None and f.fingerprint == fingerprint and sha256_file(folder / f.file) == f.sha256


def warning_text(g: RenderedGame, previous: Record | None) -> dict[str, list[str]]:
    """Component id -> the warnings laying out its pieces gave, as printed: a rendered
    component's own, a reused one's as ``previous`` recorded them."""
    out: dict[str, list[str]] = {}
    for f in g.files:
        cid = f.plan.component.id
        if f.data is not None:
            out[cid] = [w.format() for w in f.warnings]
        else:
            cf = previous.components.get(cid) if previous is not None else None
            out[cid] = list(cf.warnings) if cf is not None else []
    return out


def record_for(g: RenderedGame, inputs: str, prints: Mapping[str, str], warnings: Mapping[str, Sequence[str]],
               previous: Record | None) -> Record:
    """The record of a rendered game (written beside its PDFs once they are): ``inputs`` is the
    game's input hash, ``prints`` the components' fingerprints, ``warnings`` as ``warning_text``
    gives them. A reused component (not rendered now) keeps the figures ``previous`` recorded;
    its bytes are read from disk."""
    comps = {}
    for f in g.files:
        cid = f.plan.component.id
        data = f.data if f.data is not None else f.path.read_bytes()
        grid = f"{f.plan.grid.cols}x{f.plan.grid.rows}" if f.plan.grid else ""
        if f.data is not None and f.preflight is not None:
            figures = f.preflight.as_json()
        else:
            cf = previous.components.get(cid) if previous is not None else None
            figures = dict(cf.preflight) if cf is not None else {}
        comps[cid] = CachedFile(f.path.name, digest(data), prints[cid], f.pages, len(f.plan.fronts), grid,
                                len(data), tuple(warnings[cid]), figures)
    check_warn = tuple(w.format() for w in g.checked.warnings)
    not_printed = tuple(f"{n.name} ({n.quantity})" for n in g.checked.game.not_printed)
    return Record(inputs, comps, CachedFile(g.contents_path.name, digest(g.contents)),
                  check_warn + tuple(w for ws in warnings.values() for w in ws), not_printed)


def load(folder: Path) -> Record | None:
    """The record of the last build into ``folder``, or None (missing, unreadable, other format:
    a cache is never trusted when in doubt)."""
    try:
        d = json.loads((folder / CACHE_NAME).read_text(encoding="utf-8"))
        if d.get("format") != FORMAT or d.get("version") != VERSION:
            return None
        comps = {k: CachedFile(**{**v, "warnings": tuple(v.get("warnings", ()))}) for k, v in d["components"].items()}
        return Record(d["inputs"], comps, CachedFile(**d["contents"]), tuple(d.get("warnings", ())),
                      tuple(d.get("not_printed", ())))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def dump(record: Record) -> bytes:
    def f(c: CachedFile) -> dict[str, Any]:
        return asdict(c)

    d = {"format": FORMAT, "version": VERSION, "inputs": record.inputs,
         "components": {k: f(v) for k, v in record.components.items()}, "contents": f(record.contents),
         "warnings": list(record.warnings), "not_printed": list(record.not_printed)}
    return (json.dumps(d, indent=1, sort_keys=True) + "\n").encode()


def remove(folder: Path) -> None:
    """Forget a folder's record (before writing new PDFs, so a crash never leaves a record that
    vouches for files it did not see written). Not being able to is harmless: a record is only
    trusted when every file it names still has its recorded hash."""
    with contextlib.suppress(OSError):
        (folder / CACHE_NAME).unlink()

