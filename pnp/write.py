"""Stage 7, write: bytes -> file, atomically (temporary file in the same folder, fsync, rename),
so an interrupted or failed build never leaves a truncated PDF behind."""

from __future__ import annotations

import contextlib
import os
import tempfile
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


def write_atomic(path: Path, data: bytes) -> None:
    ensure_dir(path.parent)
    fd, tmp = -1, ""
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as f:
            fd = -1
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
        tmp = ""
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror}") from None
    finally:
        if fd >= 0:
            os.close(fd)
        if tmp:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
