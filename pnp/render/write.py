"""write: bytes -> file, atomically (temporary file in the same folder, fsync, rename),
so an interrupted or failed build never leaves a truncated PDF behind."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from pnp.errors import OutputError


def ensure_dir(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create output folder {folder}: {exc.strerror}; "
                          "choose another with --out") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"output folder {folder} is not writable; choose another with --out")


STALE_AFTER = 600.0  # s: a temporary file this old was left by a build that was killed


def remove_stale_temps(folder: Path, names: Iterable[str], now: float | None = None) -> list[Path]:
    """Remove the temporary files ``write_atomic`` leaves when a build is killed between writing
    and renaming (``.<name>.<random>.tmp``) for the files ``names`` of ``folder``, once they are
    older than ``STALE_AFTER`` (a build writing now renames its own within milliseconds). Returns
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
                if entry.is_file(follow_symlinks=False) and age > STALE_AFTER:
                    os.unlink(entry.path)
                    removed.append(Path(entry.path))
    return removed


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
    with _no_interrupt():
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        staged.append((tmp, path))
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.chmod(tmp, 0o666 & ~_UMASK)  # as open() would make it (mkstemp makes it 0600)


@contextlib.contextmanager
def _no_interrupt() -> Iterator[None]:
    """SIGINT held back while the block runs (in the main thread; elsewhere it cannot arrive)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def write_all(files: Sequence[tuple[Path, bytes]], before_renames: Callable[[], None] | None = None) -> None:
    """Write ``files`` all or none: each first to a temporary file beside it, written and flushed
    to disk; only when every one is (a full disk fails here) are they renamed over the old files,
    in order, with Ctrl-C held back until the last rename (``before_renames()`` runs just before
    the first). A failure while staging removes the temporary files and leaves every old file as
    it was. OutputError names the file."""
    staged: list[tuple[str, Path]] = []
    path = files[0][0] if files else Path()
    try:
        for path, data in files:
            ensure_dir(path.parent)
            _stage(path, data, staged)
        with _no_interrupt():
            if staged and before_renames is not None:
                before_renames()
            while staged:
                tmp, path = staged[0]
                os.replace(tmp, path)
                staged.pop(0)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror}") from None
    finally:
        for tmp, _ in staged:
            with contextlib.suppress(OSError):
                os.unlink(tmp)

