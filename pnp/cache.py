"""The incremental build cache: what a build of one game was made from, stored beside its PDFs.

``out/<game>/.pnp-build.json`` records, after every successful build:

- ``inputs``: one hash of everything the game's PDFs are made from — every file of the game
  folder, every template file, every font, the build options that change output, and pnp's own
  code (its modules and schemas), so upgrading or editing pnp invalidates the cache. Files enter
  it by path and metadata (size, modification and change times, inode), so the test reads no
  file; any write to a file changes its change time;
- per component: the hash of what that component's PDF is made from (``component_fingerprints``:
  its data file, manifest entry, template chains, images, fonts, options, pnp's code) and the
  SHA-256 of the PDF written;
- the warnings the build printed (so an up-to-date build prints them again, and ``--strict``
  fails again), and each component's preflight figures (for the summary line).

A build first compares ``inputs``: equal, and every PDF on disk still has its recorded hash, means
nothing to do — no data is parsed, nothing is rendered or written. Otherwise (an edit, or only a
touched or copied file) the game is checked in full and only components whose fingerprint — a
hash of file contents — changed (or whose PDF is missing or altered) are rendered. A component
renders alone to the same bytes it renders to in a whole build, so the output stays
byte-identical to a clean build.

This module imports nothing heavy: the up-to-date path must not pay for reportlab or jsonschema."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec import Struct, field
from msgspec.structs import asdict

if TYPE_CHECKING:
    from pnp.figures import ComponentPreflight
    from pnp.pipeline import BuildOptions, GameCheck, RenderedGame, Session
    from pnp.roots import DataRoot

CACHE_NAME = ".pnp-build.json"
FORMAT = "pnp-build-cache"
VERSION = 1
FONT_SUFFIXES = (".ttf", ".otf")
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")

_engine: str | None = None


def _walk(folder: Path, suffixes: tuple[str, ...] | None, skip: tuple[str, ...]) -> list[str]:
    """The paths (plain strings) of every file below ``folder`` with one of ``suffixes``, sorted
    by their parts; folders named in ``skip`` are not entered. Strings, not Paths: the quick
    up-to-date test runs this on every build, and Path objects cost more than the stat calls."""
    top = str(folder)
    if not os.path.isdir(top):
        return []
    files: list[str] = []
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = [d for d in dirnames if d not in skip]
        files += [os.path.join(dirpath, name) for name in filenames
                  if suffixes is None or name.lower().endswith(suffixes)]
    files.sort(key=lambda p: p.split(os.sep))
    return files


def tree_files(folder: Path, suffixes: tuple[str, ...] | None = None, skip: tuple[str, ...] = ()) -> list[Path]:
    """Every file below ``folder`` (with one of ``suffixes``), sorted; folders named in ``skip``
    are not entered."""
    return [Path(p) for p in _walk(folder, suffixes, skip)]


def read_or_empty(p: Path) -> bytes:
    """A file's bytes, or none when it cannot be read (a missing file hashes as empty)."""
    try:
        return p.read_bytes()
    except OSError:
        return b""


# (kind, path, mtime_ns, size) -> digest: images and fonts are needed by the component
# fingerprints and by every component's data version (pnp.version); each file is read once per
# process.
_digests: dict[tuple[str, str, int, int], bytes] = {}


def memo_digest(kind: str, path: Path, make: Any, missing: bytes = b"") -> bytes:
    """``make(path)``, remembered per ``kind`` while the file's mtime and size stay the same;
    ``missing`` when the file is not there."""
    try:
        st = path.stat()
    except OSError:
        return missing
    key = (kind, str(path), st.st_mtime_ns, st.st_size)
    digest = _digests.get(key)
    if digest is None:
        digest = _digests[key] = make(path)
    return digest


def file_digest(path: Path) -> bytes:
    """SHA-256 of a file's bytes (b"" when it cannot be read), remembered while the file's
    mtime and size stay the same."""
    return memo_digest("file", path, lambda p: hashlib.sha256(read_or_empty(p)).digest())


_SFNT = (b"\x00\x01\x00\x00", b"true", b"OTTO")


def font_digest(path: Path) -> bytes:
    """A font file's identity without reading its megabytes: its size, its table directory —
    every table's tag, offset, length and checksum, which font tools write for each table's
    contents — and the head table's ``checkSumAdjustment``, which makes the checksum of the
    whole file come out right (OpenType spec, "Table directory" and "head"). A file that is not
    a TrueType/OpenType font is hashed whole (``file_digest``)."""
    return memo_digest("font", path, _font_identity)


def _font_identity(path: Path) -> bytes:
    try:
        with path.open("rb") as f:
            size = os.fstat(f.fileno()).st_size
            head = f.read(12)
            if len(head) == 12 and head[:4] in _SFNT:
                n = int.from_bytes(head[4:6], "big")
                records = f.read(16 * n)
                if n and len(records) == 16 * n:
                    adjust = b""
                    for i in range(n):
                        if records[16 * i:16 * i + 4] == b"head":
                            f.seek(int.from_bytes(records[16 * i + 8:16 * i + 12], "big") + 8)
                            adjust = f.read(4)
                    return hashlib.sha256(b"sfnt\0%d\0" % size + head + records + adjust).digest()
    except OSError:
        return b""
    return file_digest(path)


def _stat_tree(h: Any, folder: Path, suffixes: tuple[str, ...] | None = None, skip: tuple[str, ...] = ()) -> None:
    """Every file's path (inside ``folder``), size, modification and change times and inode: what
    any write to a file changes (its change time cannot be set back), read without opening it."""
    cut = len(os.path.join(str(folder), ""))
    for p in _walk(folder, suffixes, skip):
        try:
            st = os.stat(p)
            sig = b"%d:%d:%d:%d" % (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
        except OSError:
            sig = b"unreadable"
        h.update(p[cut:].encode() + b"\0" + sig + b"\0")


def engine_digest() -> str:
    """pnp's own code and schemas (not the bundled games, which are inputs), by their files'
    metadata: installing or editing pnp changes it."""
    global _engine
    if _engine is None:
        h = hashlib.sha256()
        # pnp/bundled (an installed copy of the games) holds inputs, hashed as such.
        _stat_tree(h, Path(__file__).resolve().parent, (".py", ".json"), skip=("__pycache__", "bundled"))
        _engine = h.hexdigest()
    return _engine


def options_key(opts: BuildOptions) -> str:
    """The options that change a PDF's bytes (``strict`` does not)."""
    d = {k: v for k, v in sorted(asdict(opts).items()) if k != "strict"}
    return json.dumps(d, sort_keys=True, default=list)


class InputHasher:
    """The inputs of a build, summed up once per run from the files' metadata (paths, sizes, times;
    see ``_stat_tree``): a quick test of "nothing changed since the last build", which reads no
    file. When it says something changed, the components' content fingerprints
    (``component_fingerprints``) decide what is rendered again."""

    def __init__(self, root: DataRoot):
        from pnp.roots import bundled_root  # light module

        self.root = root
        h = hashlib.sha256(engine_digest().encode())
        dirs = {"root": root.path / "templates", "bundled": bundled_root() / "templates"}
        seen: set[Path] = set()
        for label, d in dirs.items():
            if d.is_dir() and d.resolve() not in seen:
                seen.add(d.resolve())
                h.update(b"templates\0" + label.encode())
                _stat_tree(h, d, (".json",))
        for i, d in enumerate(root.font_dirs()):
            h.update(f"fonts{i}\0".encode())
            _stat_tree(h, d, FONT_SUFFIXES)
        self.shared = h.hexdigest()

    def game(self, gid: str, opts: BuildOptions) -> str:
        h = hashlib.sha256(self.shared.encode())
        h.update(options_key(opts).encode())
        _stat_tree(h, self.root.card_data / gid)
        return h.hexdigest()


class Hashes:
    """Each game's input hash (``InputHasher``: file metadata only, a few milliseconds), and the
    fonts' digest (``fonts_digest``), worked out when first asked: a build that renders needs it,
    an up-to-date build does not."""

    def __init__(self, root: DataRoot, gids: Sequence[str], opts: BuildOptions):
        hasher = InputHasher(root)
        self._root = root
        self._inputs = {gid: hasher.game(gid, opts) for gid in gids}
        self._fonts: str | None = None

    def inputs(self) -> dict[str, str]:
        return self._inputs

    def fonts(self) -> str:
        if self._fonts is None:
            self._fonts = fonts_digest(self._root)
        return self._fonts


def fonts_digest(root: DataRoot) -> str:
    """Every font file of the root's font folders: its name and identity (``font_digest``)."""
    h = hashlib.sha256()
    for d in root.font_dirs():
        for p in tree_files(d, FONT_SUFFIXES):
            h.update(p.name.encode() + b"\0" + font_digest(p) + b"\0")
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
        common.update(str(p.relative_to(folder)).encode() + b"\0" + file_digest(p))
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
        from pnp.figures import ComponentPreflight  # light, but an up-to-date build may not need it

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


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
