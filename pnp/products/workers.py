"""Worker processes shared by the build and the exports: forked (the parent's state is inherited,
so a task is a few indices), ignoring Ctrl-C (the parent's to handle) and dying with the parent."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from multiprocessing.pool import Pool


def worker_start(parent: int) -> None:
    """A worker process dies quietly with its parent: Ctrl-C is the parent's to handle (it stops
    the pool and exits 130; a worker would print a KeyboardInterrupt traceback), and on Linux the
    kernel sends the worker SIGTERM when the parent dies, even by kill -9."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
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


def fork_pool(jobs: int) -> Pool:
    """A pool of ``jobs`` forked workers started by ``worker_start`` (use it as a context manager)."""
    import multiprocessing as mp  # only when there is something to share out

    return mp.get_context("fork").Pool(jobs, initializer=worker_start, initargs=(os.getpid(),))
