"""The data version printed on every sheet: a short hash of everything a component's pieces are
made from, so a printed sheet can be matched to the data it came from.

``data_version`` hashes (SHA-256, first 10 hex digits), in this order:

* the game's title, subtitle and designer, the component's manifest entry and its errata;
* the component's data file (a sheet: the JSON data file it is equivalent to, so a sheet made by
  ``pnp export data`` prints the version its JSON printed; ``pnp.input.tables.equivalent_entry``);
* every template file of the front's and the back's ``extends`` chains (by name);
* the image files in the game's folder (by path inside the folder);
* every font file of the data root's font folders and the bundled ones (by file name), each by
  its identity (``pnp.plan.digest.font_digest``: size, table directory with every table's checksum,
  and the head table's whole-file checksum adjustment — not the megabytes of glyphs).

JSON is hashed as parsed data, re-serialised with sorted keys, so re-indenting a file or a
checkout with CRLF line endings gives the same version; what never prints is left out (``$schema``,
the ``description`` of a data or template file, of a field declaration and of the manifest
entry, a data file's ``quoted``), so editing a description changes neither the version nor the PDFs. Binary files are
hashed as bytes (images; a file that is not a TrueType font in a fonts folder). Paths
enter only relative to their folder, so the version is the same on every machine and in every
run. Sheet options (paper, duplex, bleed, token cut) and the pnp version are not part of it:
they change where pieces sit, not what they show; the contents sheet records them."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import weakref
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec.structs import asdict

from pnp.input import tables
from pnp.input.load import MAX_JSON_BYTES, read_regular
from pnp.input.model import Component, Game
from pnp.input.project import DataRoot, bundled_root
from pnp.input.templates import TEMPLATE_SUFFIX, TemplateStore
from pnp.layout.fonts import FONT_SUFFIXES
from pnp.plan.component import ComponentPlan, side_templates
from pnp.plan.options import source_date_epoch

if TYPE_CHECKING:
    from pnp.input.project import DataRoot
    from pnp.plan.options import BuildOptions
    from pnp.plan.session import Session


LENGTH = 10  # hex digits shown

def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _printable(data: Any) -> Any:
    """A data or template file without what never prints: ``$schema``, the file's own
    ``description``, a data file's ``quoted`` (what ``pnp check`` traces to the quotes) and each
    field declaration's ``description``."""
    if not isinstance(data, dict):
        return data
    out = {k: v for k, v in data.items() if k not in ("$schema", "description", "quoted")}
    if isinstance(out.get("fields"), dict):
        # a list's separator (sheets only) never prints either: the values it splits do
        out["fields"] = {name: ({k: v for k, v in spec.items() if k not in ("description", "separator")}
                                if isinstance(spec, dict)
                                else spec) for name, spec in out["fields"].items()}
    return out


def _json_file(path: Path) -> bytes:
    """SHA-256 of a JSON file's printable data (:func:`_printable`), re-serialised canonically
    (remembered like fonts; b"?" for a missing or unreadable file)."""
    return memo_digest("json", path, _json_digest, missing=b"?")


def _json_digest(path: Path) -> bytes:
    try:
        data = _printable(json.loads(read_regular(path, MAX_JSON_BYTES).decode("utf-8-sig")))
    except (OSError, ValueError):
        return b"?"  # unreadable: pnp check reports it; the version just stays defined
    return hashlib.sha256(_canonical(data)).digest()


def _files(folder: Path, suffixes: tuple[str, ...]) -> Iterable[Path]:
    """The regular files below ``folder`` with one of ``suffixes``, sorted; links to folders are not
    followed, and a link is taken only when it leads to a regular file inside ``folder`` (a link
    out of the data root is never read, referenced or not)."""
    if not folder.is_dir():
        return []
    top = os.path.realpath(folder)
    out = []
    for p in _walk(folder, suffixes, ()):
        try:
            st = os.lstat(p)
            if stat.S_ISLNK(st.st_mode):
                real = os.path.realpath(p)
                if os.path.commonpath([top, real]) != top:
                    continue
                st = os.stat(real)
        except (OSError, ValueError):
            continue
        if stat.S_ISREG(st.st_mode):
            out.append(Path(p))
    return sorted(out, key=lambda p: p.relative_to(folder).as_posix())


def _update(h: Any, tag: str, data: bytes) -> None:
    # a file name that is not UTF-8 (x<0xff>.json from an old zip) enters as its bytes (was exit 3)
    h.update(tag.encode("utf-8", "surrogateescape") + b"\0" + len(data).to_bytes(8, "big") + data)


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
    if comp.sheet is not None:  # the version of the JSON data file the sheet is equivalent to
        entry = tables.equivalent_entry(entry)
    _update(h, "entry", _canonical({k: v for k, v in entry.items() if k != "description"}))
    _update(h, "errata", _canonical([e for e in manifest.get("errata", [])
                                     if isinstance(e, dict) and e.get("component") == comp.id]))
    folder = root.card_data / game.id
    if comp.sheet is not None:
        _update(h, "data", hashlib.sha256(_canonical(_printable(comp.sheet.data))).digest())
    elif isinstance(entry.get("data"), str):
        _update(h, "data", _json_file(folder / entry["data"]))
    for side, key in (("front", "template"), ("back", "back")):
        for name in template_names(store, game, comp, key):
            for link in store.get(name).chain:
                _update(h, f"{side}:{link}", _json_file(store.doc(link).path))
                for icon, path in _svg_icons(store, link):
                    _update(h, f"{side}:{link}:{icon}", file_digest(path))
    _update(h, "images and fonts", _shared_for(root, store, game))
    return h.hexdigest()[:LENGTH]
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".svg")  # art a template may draw: a change to one rebuilds
TEMPLATE_FILES = (TEMPLATE_SUFFIX, ".svg")  # in the templates folders: templates and their SVG icons

_engine: str | None = None


def _walk(folder: Path, suffixes: tuple[str, ...] | None, skip: tuple[str, ...]) -> list[str]:
    """The paths (plain strings) of every file below ``folder`` with one of ``suffixes``, sorted
    by their parts; folders named in ``skip`` are not entered. Strings, not Paths: the quick
    up-to-date test runs this on every build, and Path objects cost more than the stat calls."""
    top = str(folder)
    if not os.path.isdir(top):
        return []
    # os.walk's walk, without its recursion (Python 3.11's os.walk recursed once per level: 1,500
    # nested folders in a game folder were a RecursionError): a link to a folder is listed with
    # the folders and never entered, as os.walk does without followlinks.
    files: list[str] = []
    todo = [top]
    while todo:
        try:
            entries = os.scandir(todo.pop())
        except OSError:
            continue
        with entries:
            for e in entries:
                try:
                    is_dir = e.is_dir()
                except OSError:
                    is_dir = False
                if is_dir:
                    if e.name not in skip and not e.is_symlink():
                        todo.append(e.path)
                elif suffixes is None or e.name.lower().endswith(suffixes):
                    files.append(e.path)
    files.sort(key=lambda p: p.split(os.sep))
    return files


def tree_files(folder: Path, suffixes: tuple[str, ...] | None = None, skip: tuple[str, ...] = ()) -> list[Path]:
    """Every file below ``folder`` (with one of ``suffixes``), sorted; folders named in ``skip``
    are not entered."""
    return [Path(p) for p in _walk(folder, suffixes, skip)]


def read_or_empty(p: Path) -> bytes:
    """A file's bytes, or none when it cannot be read (a missing file hashes as empty)."""
    try:
        return read_regular(p)
    except OSError:  # missing, unreadable, or not a regular file (a FIFO would block the read)
        return b""


# (kind, path, mtime_ns, ctime_ns, inode, size) -> digest: images and fonts are needed by the
# component fingerprints and every component's data version (pnp.version); each
# file is read once per process while its stat data stays the same. The stat data is this
# in-memory key only: no digest depends on it.
_digests: dict[tuple[str, str, int, int, int, int], bytes] = {}


def memo_digest(kind: str, path: Path, make: Any, missing: bytes = b"") -> bytes:
    """``make(path)``, remembered per ``kind`` while the file's stat data (modification and
    change times, inode, size) stays the same; ``missing`` when the file is not there."""
    try:
        st = path.stat()
    except OSError:
        return missing
    key = (kind, str(path), st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_size)
    digest = _digests.get(key)
    if digest is None:
        digest = _digests[key] = make(path)
    return digest


def contents_digest(path: str) -> bytes:
    """SHA-256 of a regular file's bytes, read in 1 MB pieces; b"unreadable" for anything else (a
    FIFO, a folder, a file that cannot be read), so it differs from an empty file. Plain strings
    and no memo: the input hash runs this on every file of a game at every build."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except (OSError, ValueError):
        return b"unreadable"
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # checked on the open file: no race with a rename
            return b"unreadable"
        h = hashlib.sha256()
        while chunk := os.read(fd, 1 << 20):  # to the end (a short read is not taken for it)
            h.update(chunk)
        return h.digest()
    except OSError:
        return b"unreadable"
    finally:
        os.close(fd)


def file_digest(path: Path) -> bytes:
    """SHA-256 of a file's bytes (b"" when it cannot be read), remembered while the file's
    stat data stays the same (``memo_digest``)."""
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
        if not path.is_file():  # a FIFO would block the open
            return b""
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


def _content_tree(h: Any, folder: Path, suffixes: tuple[str, ...] | None = None, skip: tuple[str, ...] = (),
                  inside: Path | None = None, identity: Any = None) -> None:
    """Every file below ``folder``: its name inside ``folder`` and a digest of its contents
    (``identity(path)``, a plain string; default ``contents_digest``). Nothing of a file's stat
    data enters ``h``: a copy of the folder elsewhere, or a file touched without a change, gives
    the same bytes. A link whose target leaves ``inside`` (default: ``folder``) is never read (it
    enters as such; the check refuses it if it is used), nor is anything but a regular file (a
    FIFO would block the read)."""
    cut = len(os.path.join(str(folder), ""))
    top = os.path.realpath(inside if inside is not None else folder)
    for p in _walk(folder, suffixes, skip):
        if os.path.islink(p) and os.path.commonpath([top, os.path.realpath(p)]) != top:
            sig = b"link out"
        else:
            sig = (identity or contents_digest)(p) or b"unreadable"
        h.update(os.fsencode(p[cut:]) + b"\0" + sig + b"\0")  # a name not UTF-8: its bytes (was exit 3)


def engine_digest() -> str:
    """pnp's own code and schemas (not the bundled games, which are inputs), by their files'
    contents: installing another pnp or editing this one changes it, two installs of the same
    code agree."""
    global _engine
    if _engine is None:
        h = hashlib.sha256()
        # pnp/bundled (an installed copy of the games) holds inputs, hashed as such.
        _content_tree(h, Path(__file__).resolve().parents[1], (".py", ".json"), skip=("__pycache__", "bundled"))
        _engine = h.hexdigest()
    return _engine


def options_key(opts: BuildOptions) -> str:
    """The options that change a PDF's bytes (``strict`` does not). ``color``, ``die_line`` and
    ``gang`` enter only when they are not their defaults, so the keys of builds without them stay
    what they were before they existed."""
    d = {k: v for k, v in sorted(asdict(opts).items())
         if k != "strict" and (k, v) not in (("color", "rgb"), ("die_line", False), ("gang", False))}
    epoch = source_date_epoch()  # the PDFs' creation date: a build with another one is not up to date
    if epoch is not None:
        d["source_date_epoch"] = epoch
    return json.dumps(d, sort_keys=True, default=list)


class InputHasher:
    """The inputs of a build, summed up once per run from the files' contents and their names
    inside their folders (``_content_tree``; fonts by their identity, ``font_digest``), never from
    their stat data: the value a build record keeps (``inputs``), the same for a copy of the data
    root anywhere and for a file touched without a change. Equal to the record's, and every PDF
    intact, means nothing changed since the last build; otherwise the components' content
    fingerprints (``component_fingerprints``) decide what is rendered again."""

    def __init__(self, root: DataRoot):
        self.root = root
        h = hashlib.sha256(engine_digest().encode())
        bundled = DataRoot(bundled_root())
        dirs = {"root": (root.templates, root.path), "bundled": (bundled.templates, bundled.path)}
        seen: set[Path] = set()
        for label, (d, inside) in dirs.items():
            if d.is_dir() and d.resolve() not in seen:
                seen.add(d.resolve())
                h.update(b"templates\0" + label.encode())
                _content_tree(h, d, TEMPLATE_FILES, inside=inside)
        for i, d in enumerate(root.font_dirs()):
            h.update(f"fonts{i}\0".encode())
            _content_tree(h, d, FONT_SUFFIXES, identity=lambda p: font_digest(Path(p)))
        self.shared = h.hexdigest()

    def game(self, gid: str, opts: BuildOptions) -> str:
        h = hashlib.sha256(self.shared.encode())
        h.update(options_key(opts).encode())
        _content_tree(h, self.root.card_data / gid, inside=self.root.path)
        return h.hexdigest()


class Hashes:
    """Each game's input hash (``InputHasher``: file contents, a few milliseconds), and the
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
        for p in _files(d, FONT_SUFFIXES):  # regular files, no link out of the folder
            h.update(os.fsencode(p.name) + b"\0" + font_digest(p) + b"\0")
    return h.hexdigest()


def component_fingerprints(session: Session, game: Game, opts: BuildOptions, plans: Sequence[ComponentPlan],
                           salt: str = "",
                           fonts: str | None = None) -> dict[str, str]:
    """Component id -> a hash of everything its PDF is made from: its data file, its manifest
    entry (and the game's title, designer and errata for it), the files of its front and back
    templates' ``extends`` chains, the game folder's images, the fonts (``fonts``: their digest,
    when the caller has it), the options and ``salt``."""
    root = session.root
    common = hashlib.sha256(salt.encode())
    common.update(options_key(opts).encode())
    manifest = game.manifest.data if game.manifest is not None else {}
    common.update(json.dumps({k: manifest.get(k) for k in ("id", "title", "subtitle", "designer")},
                             sort_keys=True).encode())
    common.update((fonts if fonts is not None else fonts_digest(root)).encode())  # fonts: known already
    folder = root.card_data / game.id
    for p in _files(folder, IMAGE_SUFFIXES):  # regular files, no link out of the game folder
        common.update(os.fsencode(p.relative_to(folder)) + b"\0" + file_digest(p))
    entries = {c.get("id"): c for c in manifest.get("components", []) if isinstance(c, dict)}
    out = {}
    for plan in plans:
        comp = plan.component
        h = common.copy()
        h.update(json.dumps(entries.get(comp.id), sort_keys=True).encode())
        h.update(json.dumps([e for e in manifest.get("errata", []) if e.get("component") == comp.id],
                            sort_keys=True).encode())
        entry = entries.get(comp.id, {})
        data = tables.file_name(entry) if isinstance(entry.get("data"), str) else ""
        h.update(read_or_empty(root.card_data / game.id / data))
        for name in (*template_names(session.store, game, comp, "template"),
                     *template_names(session.store, game, comp, "back")):
            for link in session.store.get(name).chain:
                h.update(link.encode() + b"\0" + read_or_empty(session.store.doc(link).path))
                for icon, path in _svg_icons(session.store, link):
                    h.update(icon.encode() + b"\0" + file_digest(path))
        out[comp.id] = h.hexdigest()
    return out


def _svg_icons(store: TemplateStore, link: str) -> list[tuple[str, Path]]:
    """The SVG files a template's own icons name (none for most templates)."""
    doc = store.doc(link)
    return [(icon, store.icon_file(doc, icon, spec["svg"])) for icon, spec in doc.data.get("icons", {}).items()
            if isinstance(spec, dict) and "svg" in spec]


def template_names(store: TemplateStore, game: Game, comp: Component, side: str) -> list[str]:
    """The templates one side ("template" or "back") of a component uses: its name, or the
    distinct names its items choose (pnp.plan.component.side_templates)."""
    name = comp.template if side == "template" else comp.back
    if name is None:
        return []
    if "{" not in name:
        return [name]
    return list(dict.fromkeys(t.name for t in side_templates(store, game, comp, side)[1]))


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()

