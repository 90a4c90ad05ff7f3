"""Incremental builds: render only what changed since the last build into the same folder,
write it all or nothing, and record what each PDF was made from.

``out/<game>/.pnp-build.json`` (the build record) holds one hash of every input of the game
taken from the files' contents and names (``digest.InputHasher``: no stat data), per component the
fingerprint of what its PDF is made from (``digest.component_fingerprints``: file contents) and
the SHA-256 of the PDF written, the warnings printed and each component's preflight figures.
``build_games`` compares the input hash first: equal, and every PDF still has its recorded
bytes, means nothing is parsed, rendered or written. Otherwise the game is checked in full and
only components whose fingerprint changed, or whose PDF is missing or altered, are rendered; a
component renders alone to the same bytes as in a whole build. The record is removed before new
files are written and written last, so it never vouches for files it did not see.

The record is an output like the PDFs: the same bytes wherever the data root lies and whatever
the working folder (file names in its warnings and figures are kept relative to the data root
and shown, once read, as messages show paths; its hashes come from file contents, never from
modification times or inodes, so two copies of a root give the same record). It is also
untrusted input: it is sealed with a SHA-256 of its own contents (``seal``), so an edited
record is ignored and the game built again, and what an up-to-date build prints about a PDF
(its bytes) is checked against the file.
``render_changed`` and ``record_game`` are the steps ``pnp.pipeline.watch`` shares.

Size: over 500 lines because the record is both an output and untrusted input: its format, its
seal, its root-relative file names and its validation stay beside the build that writes and
reads it, one file format in one module."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec
from msgspec import Struct, field
from msgspec.structs import asdict, replace

from pnp.errors import DataError, Diagnostic
from pnp.input.load import read_regular
from pnp.input.model import run_pieces_problem
from pnp.input.project import DataRoot, check_game_id
from pnp.pipeline.build import CACHE_NAME, RenderedGame, commit, default_jobs, render_games
from pnp.pipeline.guard import check_output, output_lock
from pnp.plan.budget import run_pages_problem
from pnp.plan.digest import Hashes, component_fingerprints, digest, engine_digest
from pnp.plan.options import BuildOptions, output_folder
from pnp.plan.session import Session
from pnp.qa.check import GameCheck, check, layout_errors
from pnp.qa.figures import ComponentPreflight, summary
from pnp.render.ganged import GangReport

FORMAT = "pnp-build-cache"
VERSION = 2  # 2: sealed; warnings as diagnostics; file names relative to the data root


def sha256_file(p: Path) -> str | None:
    """SHA-256 of a regular file (None: missing, unreadable, a FIFO, a device...)."""
    try:
        return hashlib.sha256(read_regular(p)).hexdigest()
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
    warnings: tuple[Diagnostic, ...] = ()  # what laying out its pieces warned
    # its preflight figures (pnp.preflight.ComponentPreflight.as_json), so an unchanged
    # component's figures need no layout
    preflight: Mapping[str, Any] = field(default_factory=dict)


class Record(Struct, frozen=True):
    """What one game's last build was made from and wrote (``.pnp-build.json``)."""

    inputs: str
    components: Mapping[str, CachedFile]
    contents: CachedFile
    warnings: tuple[Diagnostic, ...] = ()
    not_printed: tuple[str, ...] = ()
    ganged: CachedFile | None = None  # --gang: <game>-ganged.pdf, when one was written
    gang: GangReport | None = None  # and what it saved

    def intact(self, folder: Path) -> bool:
        """Every PDF the record names is on disk with its recorded bytes (and size: the size an
        up-to-date build prints is the file's)."""
        files: Iterable[CachedFile] = [*self.components.values(), self.contents,
                                       *([self.ganged] if self.ganged is not None else [])]
        return all(sha256_file(folder / f.file) == f.sha256
                   and (f is self.contents or _size(folder / f.file) == f.bytes) for f in files)

    def figures(self, cid: str) -> ComponentPreflight | None:
        """The preflight figures recorded for component ``cid`` (None: none recorded)."""
        f = self.components.get(cid)
        return ComponentPreflight.from_json(f.preflight) if f is not None and f.preflight else None

    def component_current(self, folder: Path, cid: str, fingerprint: str) -> bool:
        f = self.components.get(cid)
        return f is not None and f.fingerprint == fingerprint and sha256_file(folder / f.file) == f.sha256


def _size(p: Path) -> int:
    try:
        return p.stat().st_size
    except OSError:
        return -1


def warning_text(g: RenderedGame, previous: Record | None) -> dict[str, list[Diagnostic]]:
    """Component id -> the warnings laying out its pieces gave: a rendered component's own, a
    reused one's as ``previous`` recorded them."""
    out: dict[str, list[Diagnostic]] = {}
    for f in g.files:
        cid = f.plan.component.id
        if f.data is not None:
            out[cid] = list(f.warnings)
        else:
            cf = previous.components.get(cid) if previous is not None else None
            out[cid] = list(cf.warnings) if cf is not None else []
    return out


def record_for(g: RenderedGame, inputs: str, prints: Mapping[str, str], warnings: Mapping[str, Sequence[Diagnostic]],
               previous: Record | None) -> Record:
    """The record of a rendered game (written beside its PDFs once they are): ``inputs`` is the
    game's input hash, ``prints`` the components' fingerprints, ``warnings`` as ``warning_text``
    gives them. A reused component (not rendered now) keeps the figures ``previous`` recorded;
    its bytes are read from disk."""
    comps = {}
    for f in g.files:
        cid = f.plan.component.id
        data = f.data if f.data is not None else f.path.read_bytes()
        if f.data is not None and f.preflight is not None:
            figures = f.preflight.as_json()
        else:
            cf = previous.components.get(cid) if previous is not None else None
            figures = dict(cf.preflight) if cf is not None else {}
        comps[cid] = CachedFile(f.path.name, digest(data), prints[cid], f.pages, len(f.plan.fronts), f.grid_text,
                                len(data), tuple(warnings[cid]), figures)
    check_warn = tuple(g.checked.warnings)
    ganged = CachedFile(g.ganged[0].name, digest(g.ganged[1]), bytes=len(g.ganged[1])) if g.ganged else None
    return Record(inputs, comps, CachedFile(g.contents_path.name, digest(g.contents)),
                  check_warn + tuple(w for ws in warnings.values() for w in ws), g.not_printed,
                  ganged, g.ganged[2] if g.ganged else None)


def load(folder: Path, root: DataRoot | None = None, game: str | None = None) -> Record | None:
    """The record of the last build into ``folder``, or None (missing, unreadable, other format,
    seal broken: a cache is never trusted when in doubt). With ``root``, the file names the
    record keeps relative to the data root are shown as messages show paths."""
    if os.path.islink(folder / CACHE_NAME):  # a record is a file pnp wrote there, never a link to one elsewhere
        return None
    try:
        d = json.loads(read_regular(folder / CACHE_NAME, MAX_RECORD_BYTES).decode("utf-8"),
                       parse_constant=_no_constant)
        if d.get("format") != FORMAT or d.get("version") != VERSION or d.get("seal") != seal(d):
            return None
        lists = [d.get("warnings", []), d.get("not_printed", [])]
        lists += [v.get("warnings", []) for v in d["components"].values()]
        if not all(isinstance(x, list) for x in lists):  # a dict's keys would pass for texts
            return None

        def cached(v: dict[str, Any]) -> CachedFile:
            return CachedFile(**{**v, "warnings": tuple(_diagnostic(w, root) for w in v.get("warnings", ())),
                                 "preflight": _figures_shown(v.get("preflight", {}), root)})

        comps = {k: cached(v) for k, v in d["components"].items()}
        order = d.get("order")  # the manifest's order (the keys above are sorted)
        if isinstance(order, list) and sorted(order) == sorted(comps):
            comps = {k: comps[k] for k in order}
        ganged, gang = d.get("ganged"), d.get("gang")
        if (ganged is None) != (gang is None) or (gang is not None and not isinstance(gang.get("components"), list)):
            return None
        record = Record(d["inputs"], comps, cached(d["contents"]),
                        tuple(_diagnostic(w, root) for w in d.get("warnings", ())), tuple(d.get("not_printed", ())),
                        cached(ganged) if ganged is not None else None,
                        GangReport(tuple(gang["components"]), gang["before"], gang["after"])
                        if gang is not None else None)
        return record if _trusted(record, game) else None
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError, msgspec.ValidationError):
        return None


def seal(d: Mapping[str, Any]) -> str:
    """SHA-256 of a record's contents but its seal (canonical JSON): a record edited by hand, or
    by anything but pnp, no longer matches it and is ignored. No secret is involved: whoever
    recomputes it can make pnp trust a record, as whoever writes the PDFs decides what is printed;
    it keeps a record from passing off numbers no build wrote."""
    body = {k: v for k, v in d.items() if k != "seal"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=True).encode()).hexdigest()


# File names in the record: relative to the data root (a record is an output, the same bytes
# wherever the root lies and whatever the working folder), shown again as messages show paths.
_IN_ROOT = "in_root"


def _root_relative(shown: str, root: DataRoot | None) -> str | None:
    """``shown`` (a path as a message shows it) relative to the data root, with / between its
    parts; None when it is not a path inside the root (a bundled template, a game id)."""
    if root is None or not shown:
        return None
    full, base = os.path.abspath(shown), os.path.abspath(root.path)
    if not full.startswith(base.rstrip(os.sep) + os.sep):
        return None
    return Path(full[len(base.rstrip(os.sep)) + 1:]).as_posix()


def _shown(rel: str, root: DataRoot | None) -> str:
    if root is None or rel.startswith("/") or ".." in rel.split("/"):
        return rel  # a tampered record: shown as it is (a text, never opened)
    return root.display(root.path / rel)


def _diagnostic_on_disk(w: Diagnostic, root: DataRoot | None) -> dict[str, Any]:
    d = msgspec.to_builtins(w)
    rel = _root_relative(w.file, root)
    if rel is not None:
        d["file"], d[_IN_ROOT] = rel, True
    return d


def _diagnostic(d: Any, root: DataRoot | None) -> Diagnostic:
    """A warning as the record keeps it (a Diagnostic's fields), its file shown again."""
    if not isinstance(d, dict):
        raise TypeError("a warning is not an object")
    d = dict(d)
    in_root = d.pop(_IN_ROOT, False) is True
    w = msgspec.convert(d, type=Diagnostic)
    return replace(w, file=_shown(w.file, root)) if in_root else w


def _waiver_on_disk(w: Any, root: DataRoot | None) -> Any:
    """A waiver whose ``where`` is "<template file> <JSON path>" (pnp.qa.preflight) keeps the
    file relative to the data root in ``file`` and the JSON path alone in ``where``."""
    if not isinstance(w, dict) or not isinstance(where := w.get("where"), str):
        return w
    at = where.find(" $")
    while at >= 0:  # the first split whose file part lies in the root (a file name may hold " $")
        if (rel := _root_relative(where[:at], root)) is not None:
            return {**w, "where": where[at + 1:], "file": rel, _IN_ROOT: True}
        at = where.find(" $", at + 1)
    return w


def _waiver_shown(w: Any, root: DataRoot | None) -> Any:
    if not isinstance(w, dict) or _IN_ROOT not in w:
        return w
    rest = {a: b for a, b in w.items() if a not in (_IN_ROOT, "file")}
    if isinstance(file := w.get("file"), str) and isinstance(where := w.get("where"), str):
        rest["where"] = f"{_shown(file, root)} {where}"
    return rest


def _figures_on_disk(figures: Mapping[str, Any], root: DataRoot | None) -> dict[str, Any]:
    out = dict(figures)
    for k, v in figures.items():
        if isinstance(v, dict) and isinstance(v.get("file"), str) and (rel := _root_relative(v["file"], root)):
            out[k] = {**v, "file": rel, _IN_ROOT: True}
    if isinstance(waived := figures.get("waived"), list):
        out["waived"] = [_waiver_on_disk(w, root) for w in waived]
    return out


def _figures_shown(figures: Any, root: DataRoot | None) -> Any:
    if not isinstance(figures, dict):
        return figures
    out = dict(figures)
    for k, v in figures.items():
        if isinstance(v, dict) and _IN_ROOT in v:
            v = {a: b for a, b in v.items() if a != _IN_ROOT}
            out[k] = {**v, "file": _shown(v["file"], root)} if isinstance(v.get("file"), str) else v
    if isinstance(waived := figures.get("waived"), list):
        out["waived"] = [_waiver_shown(w, root) for w in waived]
    return out


MAX_RECORD_BYTES = 64 << 20
_FILE = re.compile(r"[a-z0-9][a-z0-9-]*\.pdf")  # <component id>.pdf, <game id>-contents.pdf
_GRID = re.compile(r"(?:[1-9][0-9]{0,2}x[1-9][0-9]{0,2})?")  # "3x3", or "" off a grid
_HEX = re.compile(r"[0-9a-f]{64}")
_SAFE_TEXT = re.compile(r"[^\x00-\x08\x0b-\x1f\x7f-\x9f]*")  # no control characters but tab and line feed


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} in a build record")  # pnp writes no NaN or Infinity


def _plain(v: Any, depth: int = 0) -> bool:
    """A JSON value of finite numbers of a sensible size and safe texts, a few levels deep (the
    preflight figures a record keeps, printed again by an up-to-date build)."""
    if v is None or isinstance(v, bool):
        return True
    if isinstance(v, int | float):
        return abs(v) <= 1e12
    if isinstance(v, str):
        return len(v) <= 100_000 and _SAFE_TEXT.fullmatch(v) is not None
    if depth >= 8:
        return False
    if isinstance(v, list):
        return all(_plain(x, depth + 1) for x in v)
    return isinstance(v, dict) and all(_plain(k, depth + 1) and _plain(x, depth + 1) for k, x in v.items())


def _figures(d: dict[str, Any]) -> bool:
    """Whether ``d`` reads as preflight figures of the right types (a count that is None or a
    string would fail when the summary adds them up)."""
    try:
        msgspec.convert(msgspec.to_builtins(ComponentPreflight.from_json(d)), type=ComponentPreflight)
    except (msgspec.ValidationError, KeyError, TypeError, ValueError, AttributeError):
        return False
    return True


def _trusted(r: Record, game: str | None = None) -> bool:
    """Whether a record read from disk is one pnp could have written: anyone can write the file,
    so its names stay inside the output folder (plain ``<id>.pdf`` names, no path), its hashes are
    hashes, its numbers whole and in range, and its texts, which an up-to-date build prints again,
    hold no terminal escape sequences; each component's entry names its own ``<component>.pdf`` (an
    entry added under another key, re-sealed, listed deck.pdf twice: attack 8, F1); and, for
    ``game``, its contents sheet and ganged file are ``<game>-contents.pdf`` and
    ``<game>-ganged.pdf`` (a ganged entry naming deck.pdf, re-sealed, had the next build without
    --gang delete deck.pdf as the old ganged file and report it unchanged: attack 10, F3). A
    record that is not is ignored (the game is rebuilt)."""
    def text(v: Any) -> bool:
        return isinstance(v, str) and len(v) <= 100_000 and _SAFE_TEXT.fullmatch(v) is not None

    def number(v: Any) -> bool:
        return type(v) is int and 0 <= v <= 1 << 40

    def diagnostic(w: Any) -> bool:
        return (isinstance(w, Diagnostic) and text(w.format()) and w.severity == "warning"
                and all(v is None or number(v) for v in (w.line, w.col)))

    def cached(f: Any, component: bool) -> bool:
        return (isinstance(f, CachedFile) and isinstance(f.file, str) and _FILE.fullmatch(f.file) is not None
                and isinstance(f.sha256, str) and _HEX.fullmatch(f.sha256) is not None
                and (not component or _HEX.fullmatch(str(f.fingerprint)) is not None)
                and all(number(v) for v in (f.pages, f.pieces, f.bytes))
                and isinstance(f.grid, str) and _GRID.fullmatch(f.grid) is not None
                and isinstance(f.warnings, tuple | list) and all(diagnostic(w) for w in f.warnings)
                and isinstance(f.preflight, dict) and _plain(f.preflight)
                and (not f.preflight or (_figures(f.preflight) and agree(f))))

    def agree(f: CachedFile) -> bool:  # the figures say what the record says
        p = f.preflight
        return p.get("pages") == f.pages and p.get("pieces") == f.pieces and p.get("bytes") in (None, f.bytes)

    return (isinstance(r.inputs, str) and _HEX.fullmatch(r.inputs) is not None
            and isinstance(r.components, dict)
            and all(isinstance(k, str) and cached(v, True) and v.file == f"{k}.pdf"  # a component's own file
                    for k, v in r.components.items())
            and cached(r.contents, False) and (game is None or r.contents.file == f"{game}-contents.pdf")
            and all(diagnostic(w) for w in r.warnings) and all(text(w) for w in r.not_printed)
            and (r.ganged is None or (cached(r.ganged, False)
                                      and (game is None or r.ganged.file == f"{game}-ganged.pdf")))
            and (r.gang is None or (all(text(c) for c in r.gang.components)
                                    and number(r.gang.before) and number(r.gang.after))))


def dump(record: Record, root: DataRoot | None = None) -> bytes:
    """The record as written, sealed; with ``root``, file names relative to it."""
    def f(c: CachedFile) -> dict[str, Any]:
        return {**asdict(c), "warnings": [_diagnostic_on_disk(w, root) for w in c.warnings],
                "preflight": _figures_on_disk(c.preflight, root)}

    d: dict[str, Any] = {"format": FORMAT, "version": VERSION, "inputs": record.inputs,
                         "components": {k: f(v) for k, v in record.components.items()},
                         "order": list(record.components), "contents": f(record.contents),
                         "warnings": [_diagnostic_on_disk(w, root) for w in record.warnings],
                         "not_printed": list(record.not_printed)}
    if record.ganged is not None and record.gang is not None:  # only then: other records stay as they were
        d["ganged"] = f(record.ganged)
        d["gang"] = {"components": list(record.gang.components), "before": record.gang.before,
                     "after": record.gang.after}
    d = json.loads(json.dumps(d))  # as it reads back (tuples as lists), so the seal is the one load computes
    d["seal"] = seal(d)
    return (json.dumps(d, indent=1, sort_keys=True) + "\n").encode()


def remove_file_if(path: Path, sha256: str) -> None:
    """Delete ``path`` if it still holds the bytes of SHA-256 ``sha256`` (a file pnp wrote and no
    one changed since); anything else stays."""
    if sha256_file(path) == sha256:
        with contextlib.suppress(OSError):
            path.unlink()


def remove(folder: Path) -> None:
    """Forget a folder's record (before writing new PDFs, so a crash never leaves a record that
    vouches for files it did not see written). Not being able to is harmless: a record is only
    trusted when every file it names still has its recorded hash."""
    with contextlib.suppress(OSError):
        (folder / CACHE_NAME).unlink()



# --------------------------------------------------------------------------- the incremental build


def render_changed(session: Session, checked: Sequence[GameCheck], out: Path,
                   records: Mapping[str, Record | None], fonts: str, jobs: int = 1,
                   progress: Callable[[int, int], None] | None = None,
                   ) -> tuple[list[RenderedGame], dict[str, dict[str, str]]]:
    """Render, in memory, the components of ``checked`` games whose fingerprint differs from
    the one their game's record (``records``, by game id) holds, or whose PDF is missing or
    altered; the others are reused, with the preflight figures recorded for them. ``fonts`` is
    the fonts' digest. Returns the rendered games and each game's component fingerprints.
    Raises DataError with every component's layout errors."""
    salt = engine_digest()
    prints = {gc.game.id: component_fingerprints(session, gc.game, gc.opts, gc.plans, salt, fonts)
              for gc in checked}

    def reuse(gc: GameCheck, plan: Any) -> bool:
        rec = records.get(gc.game.id)
        return rec is not None and rec.component_current(output_folder(out, gc.game.id, gc.opts),
                                                         plan.component.id, prints[gc.game.id][plan.component.id])

    def recorded(gc: GameCheck, plan: Any) -> Any:
        rec = records.get(gc.game.id)
        return rec.figures(plan.component.id) if rec is not None else None

    rendered = render_games(session.root, checked, out, session, jobs=jobs, reuse=reuse, reused_figures=recorded,
                            progress=progress)
    return rendered, prints


def record_game(g: RenderedGame, inputs: str, prints: Mapping[str, str], previous: Record | None) -> Record:
    """The record of a rendered game once its files are written (``record_for`` with the
    warnings as ``warning_text`` gives them)."""
    return record_for(g, inputs, prints, warning_text(g, previous), previous)


class BuiltFile(Struct, frozen=True):
    """One component PDF of a build: where it is, what it holds, and whether it was rendered now."""

    component: str
    path: Path
    pieces: int
    pages: int
    grid: str  # "3x3", or "" when the component is not on a grid
    bytes: int
    rendered: bool  # False: current on disk, reused (unchanged)


class GameBuild(Struct, frozen=True):
    """One game of a build: its component PDFs, its contents sheet, what else the game needs."""

    id: str
    folder: Path
    files: tuple[BuiltFile, ...]
    contents: Path
    not_printed: tuple[str, ...]  # "name (quantity)"
    preflight: str | None  # the one-line preflight summary (pnp.qa.figures.summary)
    title: str | None = None  # None when the game was up to date (nothing was loaded)
    preflight_warnings: int | None = None  # None: not known (no figures recorded)
    ganged: tuple[Path, GangReport] | None = None  # --gang, when rendered: the file and its sheets saved

    @property
    def up_to_date(self) -> bool:
        return self.title is None


class BuildReport(Struct, frozen=True):
    """What a build did. Nothing was written unless ``ok``.

    ``errors``: input problems (data, templates, fonts, layout), nothing written; ``failed``: the
    checked games whose rulebook rules fail, nothing rendered; ``warnings`` (Diagnostics, or text
    as a previous build recorded them): with ``strict`` they fail the build, nothing written."""

    opts: BuildOptions
    out: Path
    games: tuple[GameBuild, ...] = ()
    written: tuple[Path, ...] = ()
    warnings: tuple[Diagnostic | str, ...] = ()
    errors: tuple[Diagnostic, ...] = ()
    failed: tuple[GameCheck, ...] = ()

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    @property
    def exit_code(self) -> int:
        """0 built; 1 rulebook violations; 2 invalid input, or warnings with ``strict``."""
        if self.errors or (self.opts.strict and self.warnings):
            return 2
        return 1 if self.failed else 0


def _from_rendered(g: RenderedGame) -> GameBuild:
    files = tuple(BuiltFile(f.plan.component.id, f.path, len(f.plan.fronts), f.pages, f.grid_text, f.size,
                            f.data is not None) for f in g.files)
    figures = [f.preflight for f in g.files if f.preflight is not None]  # rendered now, or as recorded
    game = g.checked.game
    return GameBuild(game.id, g.folder, files, g.contents_path, g.not_printed,
                     summary(figures) if figures else None, game.title,
                     sum(f.warnings for f in figures) if figures else None,
                     (g.ganged[0], g.ganged[2]) if g.ganged is not None else None)


def _from_record(gid: str, folder: Path, rec: Record) -> GameBuild:
    files = tuple(BuiltFile(cid, folder / cf.file, cf.pieces, cf.pages, cf.grid, cf.bytes, False)
                  for cid, cf in rec.components.items())
    figures = [p for cid in rec.components if (p := rec.figures(cid)) is not None]
    ganged = (folder / rec.ganged.file, rec.gang) if rec.ganged is not None and rec.gang is not None else None
    return GameBuild(gid, folder, files, folder / f"{gid}-contents.pdf", rec.not_printed,
                     summary(figures) if figures else None, None, sum(f.warnings for f in figures) if figures else None,
                     ganged)


def build_games(root: DataRoot, gids: Sequence[str], out: Path, opts: BuildOptions, *, force: bool = False,
                jobs: int | None = None, progress: Callable[[int, int], None] | None = None) -> BuildReport:
    """Build games ``gids`` into ``out`` incrementally (``force``: ignore the build records):
    check the games whose inputs changed, render the components whose fingerprint changed, and
    write them all with their records, or, on any problem, nothing. ``progress(done, total)``
    is called as each component is rendered."""
    report = BuildReport(opts, out)
    try:
        for gid in gids:
            check_game_id(root, gid)
    except DataError as exc:
        return replace(report, errors=tuple(exc.diagnostics))
    folders = {gid: output_folder(out, gid, opts) for gid in gids}
    check_output(root, folders.values(), out)
    with output_lock(out):  # another build into `out` waits: no mix of two builds' files and records
        return _build_locked(root, gids, out, opts, report, folders, force, jobs, progress)


def _build_locked(root: DataRoot, gids: Sequence[str], out: Path, opts: BuildOptions, report: BuildReport,
                  folders: dict[str, Path], force: bool, jobs: int | None,
                  progress: Callable[[int, int], None] | None) -> BuildReport:
    records = {gid: None if force else load(folders[gid], root, gid) for gid in gids}
    hashes = Hashes(root, gids, opts)
    current = {gid for gid in gids if (r := records[gid]) is not None and r.inputs == hashes.inputs()[gid]
               and r.intact(folders[gid])}
    recorded_warnings = [w for gid in gids if gid in current for w in records[gid].warnings]  # type: ignore[union-attr]
    stale = [gid for gid in gids if gid not in current]
    if not stale:
        games = tuple(_from_record(gid, folders[gid], records[gid]) for gid in gids)  # type: ignore[arg-type]
        return replace(report, games=() if opts.strict and recorded_warnings else games,
                       warnings=tuple(recorded_warnings))
    session = Session(root)
    checked: list[GameCheck] = []
    errors: list[Diagnostic] = []
    for gid in stale:
        try:
            checked.append(check(root, gid, opts, session, layout=False))
        except DataError as exc:
            errors.extend(exc.diagnostics)
    where = root.display(root.card_data)
    too_many = run_pieces_problem([gc.game for gc in checked], where) \
        or run_pages_problem([(gc.game.id, gc.plans, opts.gang) for gc in checked], where)
    if too_many is not None:
        errors.append(too_many)  # the games rendered together are held until all are written
    if errors:
        return replace(report, errors=tuple(errors))
    failed = tuple(gc for gc in checked if not gc.report.ok)
    if failed:
        # Nothing will be drawn, so the pieces' own errors would go unseen: they come first.
        return replace(report, errors=tuple(d for gc in checked for d in layout_errors(gc)), failed=failed)
    try:
        rendered, prints = render_changed(session, checked, out, records, hashes.fonts(), jobs or default_jobs(),
                                           progress)
    except DataError as exc:
        return replace(report, errors=tuple(exc.diagnostics))
    warnings: list[Diagnostic | str] = [w for gc in checked for w in gc.warnings]
    warnings += recorded_warnings
    warnings += [w for g in rendered for w in g.warnings]
    warn_text = {g.checked.game.id: warning_text(g, records.get(g.checked.game.id)) for g in rendered}
    warnings += [w for g in rendered for f in g.files if f.data is None
                 for w in warn_text[g.checked.game.id][f.plan.component.id]]
    if opts.strict and warnings:
        return replace(report, warnings=tuple(warnings))

    def record(g: RenderedGame) -> tuple[Path, bytes]:
        gid = g.checked.game.id
        return g.folder / CACHE_NAME, dump(record_for(g, hashes.inputs()[gid], prints[gid], warn_text[gid],
                                                      records.get(gid)), root)

    # Each game's PDFs and record are written together: all staged first (a full disk leaves the
    # old files and the old record), then the old record removed and the files renamed into
    # place, the new record last (a build killed among the renames leaves no record at all).
    written = commit(rendered, before_writing=lambda g: remove(g.folder), last=record)
    for g in rendered:  # a ganged file the last build wrote and this one does not (no --gang, nothing to gang)
        old = records.get(g.checked.game.id)
        if old is not None and old.ganged is not None and (g.ganged is None or g.ganged[0].name != old.ganged.file):
            remove_file_if(g.folder / old.ganged.file, old.ganged.sha256)
    done = {g.checked.game.id: _from_rendered(g) for g in rendered}
    games = tuple(done[gid] if gid in done else _from_record(gid, folders[gid], records[gid])  # type: ignore[arg-type]
                  for gid in gids)
    return replace(report, games=games, written=tuple(written), warnings=tuple(warnings))
