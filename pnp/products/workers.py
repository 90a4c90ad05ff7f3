"""Worker processes shared by the build and the exports: forked (the parent's state is inherited,
so a task is a few indices), ignoring Ctrl-C (the parent's to handle) and dying with the parent."""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pnp.errors import WorkerDied, interrupts_held

T = TypeVar("T")
R = TypeVar("R")


def worker_start(parent: int) -> None:
    """A worker process dies quietly with its parent: Ctrl-C is the parent's to handle (it stops
    the pool and exits 130; a worker would print a KeyboardInterrupt traceback), and on Linux the
    kernel sends the worker SIGTERM when the parent dies, even by kill -9."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the parent's raises Terminated (pnp.errors)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(1)


def default_jobs() -> int:
    """One worker per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def can_fork() -> bool:
    return hasattr(os, "fork")


def _signal_name(code: int | None) -> str:
    if code is None:
        return "for an unknown reason"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = "an unknown signal"
        return f"killed by signal {-code} ({name})"
    return f"exit status {code}"


def run_pool(jobs: int, fn: Callable[[T], R], tasks: Sequence[T], *, ordered: bool = False,
             chunksize: int = 1) -> Iterator[R]:
    """``fn`` over ``tasks`` in ``jobs`` forked workers (started by ``worker_start``): results as
    they come (``ordered``: in the order of ``tasks``). A worker that dies stops the run: the
    other workers are ended and ``WorkerDied`` raised, naming how it died (``multiprocessing.Pool``
    would start a replacement and wait for the lost task forever). Ctrl-C, or leaving the loop
    early, ends every worker too."""
    import multiprocessing as mp  # only when there is something to share out
    from concurrent.futures import FIRST_COMPLETED, InvalidStateError, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    ex = ProcessPoolExecutor(jobs, mp_context=mp.get_context("fork"), initializer=worker_start,
                             initargs=(os.getpid(),))
    procs: list[Any] = []
    finished = False
    try:
        if ordered:
            it = ex.map(fn, tasks, chunksize=chunksize)
            procs = list(getattr(ex, "_processes", {}).values())  # forked by the first submit
            yield from it
        else:
            futures = {ex.submit(fn, t): k for k, t in enumerate(tasks)}
            procs = list(getattr(ex, "_processes", {}).values())
            pending = set(futures)
            while pending:  # each result as it comes (waiting for the first exception waited for all
                # of them: 46 PDFs of 27 MB were held at once, 1.2 GB, attack 7 F2)
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in sorted(done, key=futures.__getitem__):
                    del futures[f]  # and its result with it, once yielded
                    yield f.result()
        finished = True
    except BrokenProcessPool:
        for p in procs:
            p.join(2)
        codes = [p.exitcode for p in procs]
        # the dead one first: the others were ended by the pool with SIGTERM after it died
        dead = [c for c in codes if c not in (None, 0, -signal.SIGTERM)] or [c for c in codes if c not in (None, 0)]
        raise WorkerDied(f"a worker process died ({_signal_name(dead[0] if dead else None)}) and the run was "
                         "stopped: nothing more was written, the files already there stand (out of memory? "
                         "try fewer --jobs)") from None
    finally:
        if finished:  # every task done: the workers and the pool's thread end (before another fork)
            ex.shutdown(wait=True)
        else:  # a worker died, Ctrl-C, or the caller stopped early: no worker outlives the run
            # Seeing its workers gone, the pool's thread may set an error on a future already
            # cancelled, and CPython lets that InvalidStateError out as a traceback of the thread
            # (attack 8, F3: a full disk in `export png -j 2`): said nothing of, from here on.
            # Ctrl-C again meanwhile waits until the workers are ended (five Ctrl-C 10 ms apart
            # broke off this cleanup: that traceback, or a 9-12 s wait; attack 26, F2).
            hook = threading.excepthook
            threading.excepthook = lambda args: None if args.exc_type is InvalidStateError else hook(args)
            held = interrupts_held()
            held.__enter__()
            try:
                procs += [p for p in (getattr(ex, "_processes", None) or {}).values() if p not in procs]
                for p in procs:
                    with contextlib.suppress(Exception):
                        p.terminate()
                for p in procs:
                    with contextlib.suppress(Exception):
                        p.join(5)
                # A worker ended while it sent a result leaves part of it in the results pipe, and
                # the pool's thread waited for the rest for ever, as this process holds the pipe's
                # writing end too (a Ctrl-C to the whole process group hung the build, attack 7):
                # with that end closed, the read ends once the workers are gone.
                with contextlib.suppress(Exception):
                    ex._result_queue._writer.close()  # type: ignore[attr-defined]
                # then the pool's own thread, which sees its workers gone, is waited for: left
                # running, it would write to closed pipes at exit ("OSError: Bad file descriptor")
                ex.shutdown(wait=True, cancel_futures=True)
            finally:
                threading.excepthook = hook
                held.__exit__(None, None, None)


_CALL: list[Callable[[], Any]] = []  # what ``isolated``'s worker runs, inherited by the fork


def _call(_: int) -> Any:
    return _CALL[-1]()


def isolated(fn: Callable[[], R]) -> R:
    """``fn()`` in one forked worker (``run_pool``), its result pickled back; here where the
    platform cannot fork. For a render PDFium cannot break off: it pauses only between page
    objects, and one costly drawing (a polygon of 120,000 vertices at 1,200 dpi) is one object, so
    Ctrl-C waited ~5 s for it (attack 23, F3). Ctrl-C or SIGTERM now ends the worker at once.
    ``fn`` reaches the worker by the fork, not by pickling: it may hold a whole PDF."""
    if not can_fork():
        return fn()
    _CALL.append(fn)
    try:
        results = list(run_pool(1, _call, [0]))
    finally:
        _CALL.pop()
    return results[0]


# Each worker decodes the images of the components it draws for itself: the games' image budget
# (pnp.layout.shapes.MAX_GAME_IMAGE_PIXELS, ~200 MB decoded) holds per process, not for the whole
# process tree, so an image-heavy game runs in fewer workers. A process drawing a component peaks
# at about IMAGE_MEMORY_FACTOR times the decoded bytes of its game's images (measured: 198 MB of
# RGBA, 540 MB); the workers together stay within RENDER_MEMORY_BUDGET.
RENDER_MEMORY_BUDGET = 1 << 30
IMAGE_MEMORY_FACTOR = 3
_RASTER = (".png", ".jpg", ".jpeg")


def decoded_image_bytes(folder: Path) -> int:
    """The decoded size (4 bytes a pixel, 8 for a PNG of 16 bits a channel, which Pillow decodes
    as such before it is cut to 8: a 16-bit RGBA PNG peaked at 329 MB in one process where 4 bytes
    a pixel counted 67 MB, attack 7 F8) of every PNG and JPEG file in a game's folder, from the
    files' headers (nothing is decoded): an upper bound of what drawing one component can decode,
    as images must lie inside the game folder. Links and files that are not regular are skipped
    (the layout refuses them); an unreadable header counts nothing (the layout reports it)."""
    import warnings

    from PIL import Image as PILImage

    total = 0
    for top, _dirs, names in os.walk(folder):  # links to folders are not followed
        for name in names:
            if not name.lower().endswith(_RASTER):
                continue
            path = os.path.join(top, name)
            try:
                if not stat.S_ISREG(os.lstat(path).st_mode):
                    continue
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    with PILImage.open(path, formats=("PNG", "JPEG")) as im:  # the header only
                        w, h = im.size
                        deep = any(";16" in str(t[3]) for t in im.tile)  # 16 bits a channel
            except Exception:  # any damage: the layout names it
                continue
            total += (8 if deep else 4) * w * h
    return total


def image_jobs(jobs: int, folders: Iterable[Path]) -> int:
    """``jobs`` lowered so that that many workers, each drawing a component of the most
    image-heavy of these game folders, stay within RENDER_MEMORY_BUDGET (at least 1)."""
    worst = max((decoded_image_bytes(f) for f in folders), default=0)
    if worst == 0:
        return jobs
    return max(1, min(jobs, RENDER_MEMORY_BUDGET // (IMAGE_MEMORY_FACTOR * worst)))
