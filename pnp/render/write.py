"""write: bytes -> file, atomically (temporary file in the same folder, fsync, rename),
so an interrupted or failed build never leaves a truncated PDF behind."""

from __future__ import annotations

import contextlib
import math
import os
import re
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from pnp.errors import OutputError, interrupts_held


def ensure_dir(folder: Path, option: str = "--out") -> list[Path]:
    """Make ``folder`` (and its parents), or an OutputError naming the ``option`` that chose it.
    Returns the folders made, outermost first, for ``remove_empty`` when nothing is written into
    them after all (a full disk: attack 12, B4 left empty folders behind)."""
    missing: list[Path] = []
    part = folder
    while not os.path.lexists(part) and part.parent != part:
        missing.append(part)
        part = part.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        remove_empty(missing[::-1])
        raise OutputError(f"cannot create output folder {folder}: {exc.strerror}; "
                          f"choose another with {option}") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"output folder {folder} is not writable; choose another with {option}")
    return missing[::-1]


def remove_empty(made: Sequence[Path]) -> None:
    """Remove the folders of ``made`` (as ``ensure_dir`` returns them, outermost first) that are
    empty, innermost first; one holding anything stays, and so do those around it."""
    for folder in reversed(made):
        with contextlib.suppress(OSError):
            os.rmdir(folder)


def _is_link(p: Path) -> bool:
    # os.path.islink: False for a name too long or any other OSError (Path.is_symlink raised them);
    # a junction (Windows, Python 3.12+) is followed as a link is
    return os.path.islink(p) or bool(getattr(os.path, "isjunction", lambda _: False)(p))


def check_real_folders(top: Path, folders: Iterable[Path]) -> None:
    """OutputError, before anything is written, when one of ``folders`` (each inside ``top``, the
    ``--out`` folder), or a folder between it and ``top``, is a link, or resolves outside ``top``:
    the files, and the temporary files swept before writing, would land wherever it points. ``top``
    itself may be a link (``--out`` on another disk); folders that do not exist yet pass (pnp makes
    them real). The one guard of every writer into ``--out``: a game's folder
    (``pnp.pipeline.guard.check_output``), and each folder an export, preview or shop writes into
    (``out/<game>/png/<component>``, ``.../tts/saved-objects``, ``out/preview/<game>/<component>``,
    ``out/<game>/shops/<shop>/<component>``...)."""
    real_top = os.path.realpath(top)
    seen: set[Path] = set()
    for folder in folders:
        part = top
        for name in folder.relative_to(top).parts:
            part = part / name
            if part in seen:
                continue
            seen.add(part)
            if _is_link(part):
                raise OutputError(f"output folder {part} is a link (to {os.readlink(part)}); pnp writes a game's "
                                  "files only into a real folder inside --out: remove the link")
        real = os.path.realpath(folder)
        try:
            inside = os.path.commonpath([real_top, real]) == real_top
        except ValueError:  # another drive (Windows)
            inside = False
        if not inside:
            raise OutputError(f"output folder {folder} resolves to {real}, outside --out {top}; pnp writes a game's "
                              "files only into a real folder inside --out")


STALE_AFTER = 600.0  # s: a temporary file this old was left by a build that was killed


def remove_stale_temps(folder: Path, names: Iterable[str], now: float | None = None,
                       min_age: float = STALE_AFTER) -> list[Path]:
    """Remove the temporary files ``write_atomic`` leaves when a build is killed between writing
    and renaming (``.<name>.<random>.tmp``) for the files ``names`` of ``folder``, once they are
    older than ``min_age`` (default ``STALE_AFTER``: a build writing now renames its own within
    milliseconds; 0 when the caller holds the folder's lock, so no other pnp writes there). Returns
    what was removed; a file that cannot be removed stays."""
    names = list(names)
    if not names or not folder.is_dir():
        return []
    now = time.time() if now is None else now
    wanted = re.compile("|".join(r"\." + re.escape(n) + r"\.[A-Za-z0-9_]{8}\.tmp" for n in names))
    removed = []
    for entry in os.scandir(folder):
        if entry.name.startswith(".") and entry.name.endswith(".tmp") and wanted.fullmatch(entry.name):
            with contextlib.suppress(OSError):
                age = now - entry.stat(follow_symlinks=False).st_mtime
                if entry.is_file(follow_symlinks=False) and age >= min_age:
                    os.unlink(entry.path)
                    removed.append(Path(entry.path))
    return removed


def remove_leftovers(folder: Path, names: Iterable[str], locked: bool) -> None:
    """The temporary files a killed run left for ``names`` in ``folder``: any when the caller
    holds the output folder's lock (``pnp.pipeline.guard.output_lock``: no other pnp writes
    there), else those older than STALE_AFTER."""
    remove_stale_temps(folder, names, min_age=-math.inf if locked else STALE_AFTER)


def write_atomic(path: Path, data: bytes) -> None:
    write_all([(path, data)])


def _read_umask() -> int:
    """The process's umask, read once at import, before pnp starts threads: reading it means
    setting it and setting it back, and a file another thread made in between would get 022."""
    mask = os.umask(0o22)
    os.umask(mask)
    return mask


_UMASK = _read_umask()


def _stage(path: Path, data: bytes, staged: list[tuple[str, Path]]) -> None:
    """``data`` in a new temporary file beside ``path``, written and flushed to disk. The file is
    listed in ``staged`` as it is made, with Ctrl-C held back in between, so whatever stops the
    staging, the caller knows every temporary file there is to remove."""
    with interrupts_held():
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        staged.append((tmp, path))
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.chmod(tmp, 0o666 & ~_UMASK)  # as open() would make it (mkstemp makes it 0600)


class FileSet:
    """Files written all or none, like ``write_all`` but staged one at a time, from threads or
    (``adopt``) from worker processes: ``stage`` writes a file's bytes to a temporary file beside
    it, flushed to disk; ``commit`` removes the old files ``drop`` named and renames every staged
    file into place, in order, with Ctrl-C held back; leaving the ``with`` block without a commit
    (a full disk, an error, Ctrl-C) removes every temporary file, and the old files stay as they
    were. ``expect`` names files a worker process stages, so their temporary files are removed
    too when the worker could not say (it was killed)."""

    def __init__(self) -> None:
        self.staged: list[tuple[str, Path]] = []
        self.dropped: list[Path] = []
        self.expected: set[Path] = set()
        self.made: list[Path] = []  # folders made for the set's files: removed again if left empty
        self._lock = threading.Lock()

    def __enter__(self) -> FileSet:
        return self

    def __exit__(self, *exc: object) -> None:
        self.discard()

    def stage(self, path: Path, data: bytes) -> None:
        staged: list[tuple[str, Path]] = []
        try:
            self.make(path.parent)
            _stage(path, data, staged)
        except BaseException as exc:  # a full disk, or Ctrl-C while the file is written
            for tmp, _ in staged:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
            if isinstance(exc, OSError):
                raise OutputError(f"cannot write {path}: {exc.strerror}") from None
            raise
        self.adopt(staged)

    def make(self, folder: Path) -> None:
        """Make ``folder`` for the set's files (or for files others stage: worker processes,
        ``adopt``): removed again with the set's files when it is left empty."""
        made = ensure_dir(folder)
        with self._lock:
            self.made += made

    def adopt(self, staged: Iterable[tuple[str, Path]]) -> None:
        """Temporary files another process staged (``stage_files``), as (temporary, final) paths."""
        with self._lock:
            self.staged.extend((str(tmp), Path(path)) for tmp, path in staged)

    def expect(self, paths: Iterable[Path]) -> None:
        self.expected.update(paths)

    def drop(self, path: Path) -> None:
        """Remove ``path`` (a file of the old set the new one does not have) when committing."""
        self.dropped.append(path)

    def commit(self) -> None:
        with interrupts_held():
            path = Path()
            try:
                for path in self.dropped:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(path)
                while self.staged:
                    tmp, path = self.staged[0]
                    os.replace(tmp, path)
                    self.staged.pop(0)
            except OSError as exc:
                raise OutputError(f"cannot write {path}: {exc.strerror}") from None
            self.dropped, self.expected, self.made = [], set(), []

    def discard(self) -> None:
        """Remove every temporary file of the set, and the folders made for them that are left
        empty (nothing after a commit)."""
        with self._lock:
            staged, self.staged = self.staged, []
            made, self.made = self.made, []
        for tmp, _ in staged:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        folders: dict[Path, list[str]] = {}
        for p in self.expected:
            folders.setdefault(p.parent, []).append(p.name)
        for folder, names in folders.items():  # what a worker staged and could not hand over
            remove_stale_temps(folder, names, min_age=-math.inf)
        remove_empty(sorted(set(made), key=lambda p: len(p.parts)))


def stage_files(files: Iterable[tuple[Path, bytes]]) -> list[tuple[str, Path]]:
    """Stage ``files`` (in a worker process) for a ``FileSet`` of the parent to ``adopt``: the
    (temporary, final) paths; on a failure, the temporary files staged so far are removed and
    OutputError names the file."""
    with FileSet() as fs:
        for path, data in files:
            fs.stage(path, data)
        staged, fs.staged = fs.staged, []
    return staged


def write_all(files: Sequence[tuple[Path, bytes]], before_renames: Callable[[], None] | None = None) -> None:
    """Write ``files`` all or none: each first to a temporary file beside it, written and flushed
    to disk; only when every one is (a full disk fails here) are they renamed over the old files,
    in order, with Ctrl-C held back until the last rename (``before_renames()`` runs just before
    the first). A failure while staging removes the temporary files and leaves every old file as
    it was. OutputError names the file."""
    with FileSet() as fs:
        for path, data in files:
            fs.stage(path, data)
        with interrupts_held():
            if fs.staged and before_renames is not None:
                try:
                    before_renames()
                except OSError as exc:
                    raise OutputError(f"cannot write {fs.staged[0][1]}: {exc.strerror}") from None
            fs.commit()
