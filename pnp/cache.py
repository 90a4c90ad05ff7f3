"""The incremental build cache: what a build of one game was made from, stored beside its PDFs.

``out/<game>/.pnp-build.json`` records, after every successful build:

- ``inputs``: one hash of everything the game's PDFs are made from — every file of the game
  folder, every template file, every font, the build options that change output, and pnp's own
  code (its modules and schemas), so upgrading or editing pnp invalidates the cache;
- per component: the hash of what that component's PDF is made from (``component_fingerprints``:
  its data file, manifest entry, template chains, images, fonts, options, pnp's code) and the
  SHA-256 of the PDF written;
- the warnings the build printed (so an up-to-date build prints them again, and ``--strict``
  fails again), and each component's preflight figures (for the summary line).

A build first compares ``inputs``: equal, and every PDF on disk still has its recorded hash, means
nothing to do — no data is parsed, nothing is rendered or written. Otherwise the game is checked
in full and only components whose fingerprint changed (or whose PDF is missing or altered) are
rendered. A component renders alone to the same bytes it renders to in a whole build, so the
output stays byte-identical to a clean build.

This module imports nothing heavy: the up-to-date path must not pay for reportlab or jsonschema."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pnp.pipeline import BuildOptions, GameCheck, Session
    from pnp.roots import DataRoot

CACHE_NAME = ".pnp-build.json"
FORMAT = "pnp-build-cache"
VERSION = 1
FONT_SUFFIXES = (".ttf", ".otf")
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")

_engine: str | None = None

# (path, mtime_ns, size) -> SHA-256 of the file's bytes: fonts are megabytes, and both the input
# hash (hashed in a thread) and every component's data version (pnp.version) need them, so each
# file is read and hashed once per process. One lock per file: the second asker waits for the
# first's result instead of hashing the file again.
_digests: dict[tuple[str, int, int], bytes] = {}
_digest_locks: dict[tuple[str, int, int], threading.Lock] = {}
_locks_lock = threading.Lock()


def file_digest(path: Path) -> bytes:
    """SHA-256 of a file's bytes (b"" when it cannot be read), remembered while the file's
    mtime and size stay the same."""
    try:
        st = path.stat()
    except OSError:
        return b""
    key = (str(path), st.st_mtime_ns, st.st_size)
    digest = _digests.get(key)
    if digest is not None:
        return digest
    with _locks_lock:
        lock = _digest_locks.setdefault(key, threading.Lock())
    with lock:
        digest = _digests.get(key)
        if digest is None:
            digest = _digests[key] = hashlib.sha256(read_or_empty(path)).digest()
    return digest


def tree_files(folder: Path, suffixes: tuple[str, ...] | None = None, skip: tuple[str, ...] = ()) -> list[Path]:
    """Every file below ``folder`` (with one of ``suffixes``), sorted; folders named in ``skip``
    are not entered."""
    if not folder.is_dir():
        return []
    out = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if d not in skip)
        for name in filenames:
            if suffixes is None or name.lower().endswith(suffixes):
                out.append(Path(dirpath) / name)
    return sorted(out)


def read_or_empty(p: Path) -> bytes:
    """A file's bytes, or none when it cannot be read (a missing file hashes as empty)."""
    try:
        return p.read_bytes()
    except OSError:
        return b""


def _hash_tree(h: Any, folder: Path, suffixes: tuple[str, ...] | None = None, skip: tuple[str, ...] = ()) -> None:
    for p in tree_files(folder, suffixes, skip):
        h.update(str(p.relative_to(folder)).encode() + b"\0" + read_or_empty(p) + b"\0")


def engine_digest() -> str:
    """pnp's own code and schemas (not the bundled games, which are inputs)."""
    global _engine
    if _engine is None:
        h = hashlib.sha256()
        # pnp/bundled (an installed copy of the games) holds inputs, hashed as such.
        _hash_tree(h, Path(__file__).resolve().parent, (".py", ".json"), skip=("__pycache__", "bundled"))
        _engine = h.hexdigest()
    return _engine


def options_key(opts: BuildOptions) -> str:
    """The options that change a PDF's bytes (``strict`` does not)."""
    d = {k: v for k, v in sorted(vars(opts).items()) if k != "strict"}
    return json.dumps(d, sort_keys=True, default=list)


class InputHasher:
    """Hashes of the shared inputs (templates, fonts, code) computed once per run."""

    def __init__(self, root: DataRoot):
        from pnp.roots import bundled_root  # light module

        self.root = root
        h = hashlib.sha256(engine_digest().encode())
        # Labels, not paths: the same inputs in another folder or checkout give the same hash.
        dirs = {"root": root.path / "templates", "bundled": bundled_root() / "templates"}
        seen: set[Path] = set()
        for label, d in dirs.items():
            if d.is_dir() and d.resolve() not in seen:
                seen.add(d.resolve())
                h.update(b"templates\0" + label.encode())
                _hash_tree(h, d, (".json",))
        self.fonts = fonts_digest(root)
        h.update(b"fonts\0" + self.fonts.encode())
        self.shared = h.hexdigest()

    def game(self, gid: str, opts: BuildOptions) -> str:
        h = hashlib.sha256(self.shared.encode())
        h.update(options_key(opts).encode())
        _hash_tree(h, self.root.card_data / gid)
        return h.hexdigest()


class Hashes:
    """Each game's input hash and the fonts' digest, computed now or, with ``background``, in a
    thread whose result is waited for when first asked."""

    def __init__(self, root: DataRoot, gids: Sequence[str], opts: BuildOptions, background: bool = False):
        self._result: tuple[dict[str, str], str] | None = None
        self._error: BaseException | None = None

        def work() -> None:
            try:
                hasher = InputHasher(root)
                self._result = ({gid: hasher.game(gid, opts) for gid in gids}, hasher.fonts)
            except BaseException as exc:  # handed to the caller on first use
                self._error = exc

        self._thread = None
        if background:
            import threading

            self._thread = threading.Thread(target=work, name="pnp-input-hash", daemon=True)
            self._thread.start()
        else:
            work()

    def _get(self) -> tuple[dict[str, str], str]:
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._error is not None:
            raise self._error
        assert self._result is not None
        return self._result

    def inputs(self) -> dict[str, str]:
        return self._get()[0]

    def fonts(self) -> str:
        return self._get()[1]


def fonts_digest(root: DataRoot) -> str:
    """Every font file (name and the SHA-256 of its bytes) of the root's font folders."""
    h = hashlib.sha256()
    for d in root.font_dirs():
        for p in tree_files(d, FONT_SUFFIXES):
            h.update(p.name.encode() + b"\0" + file_digest(p) + b"\0")
    return h.hexdigest()


def component_fingerprints(session: Session, gc: GameCheck, salt: str = "",
                           fonts: str | None = None) -> dict[str, str]:
    """Component id -> a hash of everything its PDF is made from: its data file, its manifest
    entry (and the game's title, designer and errata for it), the files of its front and back
    templates' ``extends`` chains, the game folder's images, the fonts (``fonts``: their digest,
    when the caller has it), the options and ``salt``."""
    game, root = gc.game, session.root
    common = hashlib.sha256(salt.encode())
    common.update(options_key(gc.opts).encode())
    manifest = game.manifest.data if game.manifest is not None else {}
    common.update(json.dumps({k: manifest.get(k) for k in ("id", "title", "subtitle", "designer")},
                             sort_keys=True).encode())
    common.update((fonts if fonts is not None else fonts_digest(root)).encode())  # fonts: known already
    folder = root.card_data / game.id
    for p in tree_files(folder, IMAGE_SUFFIXES):
        common.update(str(p.relative_to(folder)).encode() + b"\0" + read_or_empty(p))
    entries = {c.get("id"): c for c in manifest.get("components", []) if isinstance(c, dict)}
    out = {}
    for plan in gc.plans:
        comp = plan.component
        h = common.copy()
        h.update(json.dumps(entries.get(comp.id), sort_keys=True).encode())
        h.update(json.dumps([e for e in manifest.get("errata", []) if e.get("component") == comp.id],
                            sort_keys=True).encode())
        h.update(read_or_empty(root.card_data / game.id / entries.get(comp.id, {}).get("data", "")))
        for name in (comp.template, comp.back):
            if name is None:
                continue
            for link in session.store.get(name).chain:
                h.update(link.encode() + b"\0" + read_or_empty(session.store.doc(link).path))
        out[comp.id] = h.hexdigest()
    return out


def sha256_file(p: Path) -> str | None:
    try:
        return hashlib.sha256(p.read_bytes()).hexdigest()
    except OSError:
        return None


@dataclass(frozen=True)
class CachedFile:
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
    preflight: Mapping[str, Any] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class Record:
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

    def component_current(self, folder: Path, cid: str, fingerprint: str) -> bool:
        f = self.components.get(cid)
        return f is not None and f.fingerprint == fingerprint and sha256_file(folder / f.file) == f.sha256


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
        return dict(vars(c))

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


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
