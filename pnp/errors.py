"""Diagnostics shared by every stage: one message names file, line, column, JSON path and
what was expected, so a designer can fix data without reading code."""

from __future__ import annotations

import contextlib
import signal
import threading
import time
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from msgspec import Struct


class Terminated(KeyboardInterrupt):
    """SIGTERM (`kill`, `timeout`, a cancelled CI job), raised in the main thread once the command
    runs (``terminate_as_interrupt``): pnp stops as on a Ctrl-C, every file written all or none
    and temporary files removed, with one line and exit 143 (128 + SIGTERM)."""


REPEAT_SECONDS = 2.0  # a Ctrl-C (or SIGTERM) this soon after the one that stops pnp is the same stop


def terminate_as_interrupt() -> None:
    """From now on SIGTERM raises ``Terminated`` in the main thread (worker processes set it back
    to the default: the pool ends them with it), and Ctrl-C KeyboardInterrupt as before, each once:
    another within REPEAT_SECONDS of the first is the same stop, not a second interruption of the
    cleanup it started (five Ctrl-C 10 ms apart broke into a pool's shutdown and printed
    tracebacks: attack 26, F2). Later ones raise again (a stop swallowed somewhere cannot leave
    pnp deaf to Ctrl-C). SIGINT ignored when pnp starts (a background job) stays ignored."""
    first: list[float] = []

    def once(error: type[BaseException]) -> Any:
        def handler(signum: int, frame: object) -> None:
            now = time.monotonic()
            if first and now - first[0] < REPEAT_SECONDS:
                return
            first[:] = [now]
            raise error

        return handler

    signal.signal(signal.SIGTERM, once(Terminated))
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, once(KeyboardInterrupt))


@contextlib.contextmanager
def interrupts_held() -> Iterator[None]:
    """SIGINT and SIGTERM held back while the block runs (in the main thread; elsewhere they cannot
    arrive): a Ctrl-C then stops pnp after the block, not inside it (a file half renamed into
    place, or a Python callback of a compiled library, which would report the interruption as its
    own error)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def json_path(parts: Sequence[str | int]) -> str:
    """``("items", 3, "name")`` -> ``$.items[3].name`` (keys that are not identifiers quoted)."""
    out = "$"
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        elif p.replace("_", "a").replace("-", "a").isalnum() and not p[:1].isdigit():
            out += f".{p}"
        else:
            out += "[" + repr(p).replace("'", '"') + "]"
    return out


def alternatives(words: Sequence[str]) -> str:
    """``letter, a4 or universal``: the choices a message offers, the last after "or"."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``1 piece``, ``2 pieces``, ``1 copy``, ``3 copies``: a count and its noun, plural unless
    one. Every count a message prints goes through this (tests/cli/test_wording.py holds them
    to it)."""
    if n == 1:
        return f"{n} {noun}"
    return f"{n} {plural or _PLURALS.get(noun) or noun + 's'}"


MAX_SHOWN = 100  # problems shown as text per game or command; `pnp check --format json` lists every one


def shown_lines(diags: Sequence[Diagnostic | str], full: str) -> list[str]:
    """The first MAX_SHOWN problems as lines of text (a Diagnostic, or a message as printed
    before), then how many more there are and ``full``, the pnp command that lists them all: a
    file with 200,000 unknown keys is fixed from its first lines, not by scrolling through them."""
    lines = [d if isinstance(d, str) else d.format() for d in diags[:MAX_SHOWN]]
    if len(diags) > MAX_SHOWN:
        lines.append(f"... and {len(diags) - MAX_SHOWN} more (`{full}` lists every one reported)")
    return lines


_PLURALS = {"copy": "copies", "sheet of paper": "sheets of paper", "die": "dice", "index": "indexes"}


def did_you_mean(name: str, known: Iterable[str]) -> str | None:
    """``did you mean 'golems'?`` for the known name closest to a mistyped one (None: none is
    close). Every lookup of a name the user typed words its miss with this."""
    import difflib  # only a message needs it

    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f"did you mean {close[0]!r}?" if close else None


class Diagnostic(Struct, frozen=True):
    """One problem found in the input. ``line``/``col`` are 1-based (None when unknown)."""

    file: str
    message: str
    path: tuple[str | int, ...] = ()
    line: int | None = None
    col: int | None = None
    expected: str | None = None
    hint: str | None = None
    severity: str = "error"  # "error" | "warning"
    # A spreadsheet's cell, named by column letter and header ("C (cost)"); "" for a whole row.
    # Set for sheets only: their messages say file:ROW:COLUMN and no JSON path.
    cell: str | None = None

    @property
    def where(self) -> str:
        """``file:line:col``, or a sheet's ``file:row:C (header)``, on one line: a line feed or tab
        in the file's name (a game id typed as ``$'x\\n'``) is written as an escape, as
        ``terminal_text`` writes the other control characters, so a message never starts a line
        with a name's tail."""
        where = one_line(self.file)
        if self.line is not None:
            where += f":{self.line}"
            if self.cell:
                where += f":{self.cell}"
            elif self.col is not None and self.cell is None:
                where += f":{self.col}"
        return where

    def format(self) -> str:
        # a sheet's cell is named by row and column: no JSON path
        text = f"{self.where}: " + (f"{json_path(self.path)}: " if self.cell is None else "") + self.message
        if self.expected:
            text += f" (expected {self.expected})"
        if self.hint:
            text += f"; {self.hint}"
        if self.severity == "warning":
            text = "warning: " + text
        return text

    def as_json(self) -> dict[str, object]:
        return {
            "severity": self.severity,
            "file": self.file,
            "line": self.line,
            "column": self.col,
            "path": json_path(self.path),
            "message": self.message,
            "expected": self.expected,
            "hint": self.hint,
            "cell": self.cell,
        }


class DataError(Exception):
    """Invalid input: carries every diagnostic found, not just the first."""

    def __init__(self, diagnostics: Iterable[Diagnostic]):
        self.diagnostics: tuple[Diagnostic, ...] = tuple(diagnostics)
        super().__init__("\n".join(d.format() for d in self.diagnostics))


class OutputError(Exception):
    """The output could not be written (permissions, disk); nothing partial is left behind."""


class WorkerDied(RuntimeError):
    """A worker process ended without returning its task (killed by a signal, the kernel's
    out-of-memory killer, a crash): the other workers were ended and nothing of the run was
    written. Not bad input and not a bug in pnp: the command says so and exits 3."""


_UNSAFE = frozenset(("Cc", "Cf", "Cs", "Zl", "Zp"))


def one_line(name: str) -> str:
    """A name (a file, a game id as typed) to print inside a line: a line feed or tab in it is
    written as an escape (``\\x0a``), as ``terminal_text`` writes the other control characters."""
    if "\n" in name or "\t" in name:
        return name.replace("\t", "\\x09").replace("\n", "\\x0a")
    return name


def short_repr(text: str) -> str:
    """``text`` quoted for a message, its first 37 characters and "..." when over 40."""
    return repr(text if len(text) <= 40 else text[:37] + "...")


def terminal_text(text: str) -> str:
    """``text`` with every control, format (bidi overrides such as U+202E, zero-width marks),
    surrogate and line/paragraph-separator character but tab and line feed written as an escape
    (``\\u202e``): data and build-record text printed to a terminal can neither send escape
    sequences nor reorder what is shown."""
    if text.isprintable():
        return text
    return "".join(ch if ch in "\t\n" or unicodedata.category(ch) not in _UNSAFE
                   else f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}" for ch in text)
