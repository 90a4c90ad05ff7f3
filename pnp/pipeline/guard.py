"""Output folders kept apart from the data and from other builds: ``check_output`` refuses an
output folder inside (or holding) the folders pnp reads, ``output_lock`` serialises builds into
one output folder.

The lock is ``flock`` on the output folder itself (a directory can be locked on Linux and macOS),
so no lock file joins the outputs. A folder that does not exist yet cannot be locked: its nearest
existing parent is, and, once that is held, every folder on the way that another build created
meanwhile; so two first builds into new folders under one parent wait for each other too. Where
``fcntl`` does not exist (Windows) there is no lock, and two builds into one folder can still mix
their files; on network file systems ``flock`` may be local to each machine."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from pnp.errors import OutputError
from pnp.input.project import DataRoot, find_root
from pnp.render.write import check_real_folders

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]


def _overlap(a: Path, b: Path) -> bool:
    return a == b or a.is_relative_to(b) or b.is_relative_to(a)


def check_output(root: DataRoot, folders: Iterable[Path], out: Path | None = None) -> None:
    """OutputError when one of ``folders`` (a game's output folder) lies inside, or holds, a folder
    pnp reads (the data root's card_data/ and templates/, every font folder): a build would write
    its PDFs and record among the inputs, and each build would change the inputs of the next.
    Also when a game's output folder, or one between it and ``out`` (the ``--out`` folder; None:
    the folder's parent, or its grandparent for ``out/<game>/ink-saver``), is a link
    (``pnp.render.write.check_real_folders``): the files would be written wherever it points.
    The data root's fonts/ and templates/ count even before they exist: a game named ``fonts``
    built with ``--out`` at the data root would otherwise create fonts/ among the inputs."""
    read = [p.resolve() for p in (root.card_data, root.templates, root.fonts, *root.template_dirs(),
                                  *root.font_dirs())]
    for folder in folders:
        # out/<game> (or out/<game>/ink-saver) as a link: the files would land wherever it points
        top = out if out is not None else folder.parent.parent if folder.name == "ink-saver" else folder.parent
        check_real_folders(top, [folder])
        f = folder.resolve()
        for r in read:
            if _overlap(f, r):
                given = f" (--out {out})" if out is not None and out != folder else ""
                raise OutputError(f"output folder {folder}{given} overlaps {r}, which pnp reads as input; "
                                  "choose another with --out (outside card_data/, templates/ and fonts/)")


def check_standalone_output(root: DataRoot, out: Path) -> None:
    """``check_output`` for a command's output that belongs to no game (the calibration sheet,
    the schemas): against the data root it was given, and against the data root ``out`` itself
    lies in (``find_root``: ``calibrate --out project/card_data/`` wrote into a tree pnp reads
    when run from elsewhere, attack 12 B5). That root's card_data/, templates/ and fonts/ only:
    its pnp.toml is not read for a command that does not build it."""
    check_output(root, [out])
    near = find_root(out)
    if near is None or near.resolve() == root.path.resolve():
        return
    f = out.resolve()
    for r in (near / "card_data", near / "templates", near / "fonts"):
        if _overlap(f, r.resolve()):
            raise OutputError(f"output folder {out} lies in {r}, which pnp reads as input; choose "
                              "another with --out (outside card_data/, templates/ and fonts/)")


def _nearest_existing(p: Path) -> Path:
    # os.path.isdir: False for a name too long or any other OSError (Path.is_dir raised them)
    while not os.path.isdir(p) and p != p.parent:
        p = p.parent
    return p


@contextlib.contextmanager
def output_lock(out: Path) -> Iterator[bool]:
    """Hold the lock of output folder ``out`` (see the module docstring) while the block runs;
    yields whether it is held (False without ``flock``: then another pnp may write there too)."""
    if fcntl is None:
        yield False
        return
    target = Path(os.path.abspath(out))
    fds: list[int] = []
    held: set[Path] = set()
    locked = False
    try:
        while True:
            d = _nearest_existing(target)
            if d in held:
                break
            try:
                fd = os.open(d, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
            except OSError:
                break  # cannot be opened (permissions): the build's own write reports the folder
            fds.append(fd)
            held.add(d)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
            except OSError:  # a file system without locks (ENOLCK): build unlocked, as on Windows
                locked = False
                break
            locked = True
        yield locked
    finally:
        for fd in reversed(fds):
            os.close(fd)  # closing releases the lock
