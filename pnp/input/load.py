"""load: JSON files -> plain Python values, keeping the line/column of every value so
later stages can say ``file:line:col`` for any JSON path.

Size: one concern, reading a JSON file safely: the file's own checks (a regular file, its
encoding, syntax, duplicate keys, depth, numbers) and the positions of its values, which the
messages about it need; the two scan the same text by the same rules."""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import re
import stat
from array import array
from bisect import bisect_right
from collections.abc import Sequence
from functools import cached_property
from json.decoder import scanstring
from pathlib import Path
from typing import Any

from msgspec import Struct

from pnp.errors import DataError, Diagnostic


class Doc(Struct, frozen=True, dict=True):
    """A loaded JSON file: its data and where each value sits in the text."""

    display: str  # the path shown in messages, relative to the data root where possible
    path: Path
    data: Any
    text: str = ""

    @cached_property
    def _where(self) -> _Positions:
        """Where values sit in the text, found on the first message that needs one (valid files
        never need it)."""
        return _Positions(self.text)

    def locate(self, parts: Sequence[str | int], key: bool = False) -> tuple[int | None, int | None]:
        """1-based (line, col) of the value at ``parts`` (or of its key when ``key``); falls back to
        the nearest enclosing value that exists."""
        return self._where.locate(parts, key)

    def place(self, parts: Sequence[str | int]) -> str:
        """Where the value at ``parts`` is, in words: ``line 12`` (a sheet says ``row 12``)."""
        return f"line {self.locate(parts)[0]}"

    def diag(self, parts: Sequence[str | int], message: str, *, expected: str | None = None,
             hint: str | None = None, key: bool = False, severity: str = "error") -> Diagnostic:
        line, col = self.locate(parts, key=key)
        return Diagnostic(self.display, message, tuple(parts), line, col, expected, hint, severity)


_SPACE = re.compile(r"[ \t\n\r]*")


def _skip(text: str, i: int) -> int:
    """The offset of the first character at or after ``i`` that is not JSON white space."""
    m = _SPACE.match(text, i)
    return m.end() if m else i


def _ignore(token: str) -> None:
    return None


# Skips one value: numbers and constants are not converted (a 5,000-digit integer is no error here).
_SKIP = json.JSONDecoder(parse_float=_ignore, parse_int=_ignore, parse_constant=_ignore)


class _Positions:
    """Offsets of the values of a JSON text that parsed, found on demand: each object or array on
    the way to a path is indexed once (its keys' and children's offsets), the rest of the text is
    skipped by the C decoder. (json-source-map's full map held ~1 KB of objects per value: a 2 MB
    file of a million numbers with one error took 1.3 GB to report it: found beside attack 15's
    borderline of 200,000 unknown keys.)"""

    def __init__(self, text: str) -> None:
        self.text = text
        self._kids: dict[int, dict[str, tuple[int, int]] | list[int]] = {}
        self._lines: array[int] | None = None

    def locate(self, parts: Sequence[str | int], key: bool) -> tuple[int | None, int | None]:
        try:
            at = _skip(self.text, 0)
            if at >= len(self.text):
                return (None, None)
            for n, part in enumerate(parts):
                kids = self._children(at)
                if isinstance(kids, dict):
                    found = kids.get(str(part))
                    if found is None:
                        break
                    if key and n == len(parts) - 1:
                        return self._line_col(found[0])
                    at = found[1]
                else:
                    i = part if isinstance(part, int) else int(part) if str(part).isdigit() else -1
                    if not 0 <= i < len(kids):
                        break
                    at = kids[i]
            return self._line_col(at)
        except (ValueError, IndexError, RecursionError):  # positions are a convenience
            return (None, None)

    def _children(self, start: int) -> dict[str, tuple[int, int]] | list[int]:
        """The children of the object or array at ``start``: key -> (key offset, value offset), or
        the values' offsets ({} or [] for a scalar)."""
        kids = self._kids.get(start)
        if kids is not None:
            return kids
        text, space = self.text, _skip
        opener = text[start]
        if opener == "{":
            keyed: dict[str, tuple[int, int]] = {}
            i = space(text, start + 1)
            while text[i] == '"':
                name, end = scanstring(text, i + 1)
                value = space(text, space(text, end) + 1)
                keyed.setdefault(name, (i, value))
                i = space(text, _SKIP.raw_decode(text, value)[1])
                if text[i] == ",":
                    i = space(text, i + 1)
            kids = keyed
        elif opener == "[":
            offsets: list[int] = []
            i = space(text, start + 1)
            while text[i] != "]":
                offsets.append(i)
                i = space(text, _SKIP.raw_decode(text, i)[1])
                if text[i] == ",":
                    i = space(text, i + 1)
            kids = offsets
        else:
            kids = {}
        self._kids[start] = kids
        return kids

    def _line_col(self, pos: int) -> tuple[int, int]:
        if self._lines is None:  # the offsets where lines start, 8 bytes a line
            self._lines = array("q", [0])
            self._lines.extend(m.end() for m in re.finditer("\n", self.text))
        line = bisect_right(self._lines, pos)
        return line, pos - self._lines[line - 1] + 1


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _DuplicateKey(k)
        out[k] = v
    return out


class _DuplicateKey(ValueError):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


class _NonStandard(ValueError):
    """NaN, Infinity or -Infinity (accepted by Python's json module, but not JSON), or a number too
    large for a float (``1e400``, a 5000-digit integer)."""


def _reject_constant(name: str) -> Any:
    raise _NonStandard(name)


MAX_DEPTH = 64  # nested objects and arrays; bundled data uses at most ~15
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")


def too_large(token: str) -> bool:
    """A JSON number that is not a finite float: it would become inf or overflow later."""
    if len(token) > 400:
        return True
    try:
        return math.isinf(float(token))
    except (OverflowError, ValueError):
        return True


def _parse_float(token: str) -> float:
    if too_large(token):
        raise _NonStandard(token)
    return float(token)


def _parse_int(token: str) -> int:
    if too_large(token):
        raise _NonStandard(token)
    return int(token)


def _depth(data: Any) -> int:
    """Nesting depth of objects and arrays (iterative: safe for any depth). Only containers are
    queued (json gives exactly dict, list, str, int, float, bool and None)."""
    if data.__class__ is not dict and data.__class__ is not list:
        return 0
    deepest, todo = 1, [(data, 1)]
    while todo:
        v, d = todo.pop()
        kids = [x for x in (v.values() if v.__class__ is dict else v) if x.__class__ is dict or x.__class__ is list]
        if kids:
            d += 1
            if d > deepest:
                deepest = d
            todo.extend([(x, d) for x in kids])
    return deepest


def _line_cols(text: str, positions: list[int]) -> dict[int, tuple[int, int]]:
    """(line, column) of each of ``positions`` in ``text``, in one pass over it (a file with
    100,000 duplicate keys or NaNs is reported in time linear in its size, not quadratic)."""
    out: dict[int, tuple[int, int]] = {}
    line, start, at = 1, 0, 0  # the line holding offset `at` starts at offset `start`
    for pos in sorted(set(positions)):
        k = text.count("\n", at, pos)
        if k:
            line += k
            start = text.rfind("\n", at, pos) + 1
        at = pos
        out[pos] = (line, pos - start + 1)
    return out


def _scan_problems(text: str) -> list[tuple[list[str | int], int, str, str, str | None]]:
    """Every duplicate key, non-standard constant and too-large number in ``text``, and the first
    value nested deeper than MAX_DEPTH, each with the JSON path and character offset where it
    occurs (up to the first syntax error, if any)."""
    out: list[tuple[list[str | int], int, str, str, str | None]] = []
    with contextlib.suppress(ValueError, IndexError, AssertionError):  # a syntax error: reported apart
        _scan(text, out)
    return out


def _scan(text: str, out: list[tuple[list[str | int], int, str, str, str | None]]) -> None:
    stack: list[set[str] | None] = []  # per open container: the keys seen (objects) or None (arrays)
    path: list[str | int] = []
    expect_key = False
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            s, end = scanstring(text, i + 1)
            if expect_key:
                keys = stack[-1]
                assert keys is not None
                if s in keys:
                    out.append(([*path[:-1], s], i, f"duplicate key {json.dumps(s)} in one object",
                                "each key once", "remove or rename one of them"))
                keys.add(s)
                path[-1] = s
                expect_key = False
            i = end
            continue
        if ch in "{[" and len(stack) >= MAX_DEPTH:
            out.append((list(path), i, f"JSON nested too deeply (more than {MAX_DEPTH} levels)",
                        f"at most {MAX_DEPTH} levels of nested objects and arrays", "flatten the structure"))
            return
        if ch == "{":
            stack.append(set())
            path.append("")
            expect_key = True
        elif ch == "[":
            stack.append(None)
            path.append(0)
        elif ch in "}]":
            stack.pop()
            path.pop()
        elif ch == ",":
            if stack[-1] is None:
                path[-1] = int(path[-1]) + 1
            else:
                expect_key = True
        elif ch in "NI-":
            for name in ("NaN", "Infinity", "-Infinity"):
                if text.startswith(name, i):
                    out.append((list(path), i, f"{name} is not a JSON number", "a finite number", None))
                    i += len(name) - 1
                    break
        if ch in "-0123456789" and (m := _NUMBER.match(text, i)):
            token = m.group()
            if too_large(token):
                shown = token if len(token) <= 24 else token[:21] + "..."
                out.append((list(path), i, f"number {shown} is too large",
                            "a number of a sensible size, at most about 1e308", None))
            i = m.end()
            continue
        i += 1


class NotRegular(OSError):
    """A path that names a folder, a FIFO, a device or a socket: reading it could block forever
    or never end."""


NAME_MAX = 255  # bytes in one file name (Linux, macOS and Windows file systems)
PATH_MAX = 4096  # bytes in a whole path (Linux)


def name_too_long(path: Path | str) -> str | None:
    """Why the file system would refuse ``path`` before looking (ENAMETOOLONG, which pathlib's
    ``exists`` and ``is_file`` raise rather than answer): "a name in it is longer than 255 bytes"
    or "it is longer than 4096 bytes"; None when it can be looked up. Every file a game's data
    names (a data file, an image, a document, an icon) is checked with this first, so an
    over-long name is an input error, not an OSError."""
    raw = os.fsencode(path)
    if any(len(part) > NAME_MAX for part in raw.split(b"/")):
        return f"a name in it is longer than {NAME_MAX} bytes"
    if len(raw) >= PATH_MAX:
        return f"it is longer than {PATH_MAX} bytes"
    return None


def file_kind(path: Path | str) -> str:
    """What is at ``path``, in words, for a message that refuses it: "a folder", "a named pipe
    (FIFO)", "a link to nothing"... (not followed past the last link; "nothing" when absent)."""
    try:
        st = os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a loop of links"
        return "a link to nothing" if os.path.islink(path) else "nothing"
    mode = st.st_mode
    for test, name in ((stat.S_ISREG, "a regular file"), (stat.S_ISDIR, "a folder"),
                       (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "not a file"


def resolves_inside(path: Path, folder: Path) -> bool:
    """Whether ``path``, its links followed, lies in ``folder``. A path whose links cannot be
    followed (a loop of links: ``Path.resolve`` raises RuntimeError or OSError ELOOP) counts as
    inside: it leads to no file outside, and the caller reports what it is (``file_kind``)."""
    try:
        return path.resolve().is_relative_to(folder.resolve())
    except (RuntimeError, OSError):
        return True


def read_regular(path: Path | str, limit: int | None = None) -> bytes:
    """The bytes of the regular file at ``path``, opened without blocking (a FIFO would block a
    plain open) and checked on the open file itself (no race with a rename). NotRegular for
    anything else, or for a file larger than ``limit`` bytes."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegular(errno.EINVAL, "not a regular file", str(path))
        if limit is not None and st.st_size > limit:
            raise NotRegular(errno.EFBIG, f"larger than {limit} bytes", str(path))
        with os.fdopen(fd, "rb", closefd=False) as f:
            if limit is None:
                return f.read()
            # read(n) makes a buffer of n bytes first: the size the file has, one more to see it grow
            data = f.read(min(st.st_size, limit) + 1)
            return data + f.read(limit + 1 - len(data)) if len(data) > st.st_size else data
    finally:
        os.close(fd)


# A JSON file is parsed whole: 63 MB of numbers took 850 MB, 120 MB ran out of memory (exit 3).
# 32 MiB holds a 100,000-item deck (the most one component has) at 300 bytes an item.
MAX_JSON_BYTES = 32 << 20


def load_json(path: Path, display: str | None = None) -> Doc:
    """Read and parse one JSON file; any problem becomes a DataError naming the file and line."""
    shown = display or str(path)
    if path.exists() and not path.is_file():  # a folder, or a pipe that would block the read forever
        raise DataError([Diagnostic(shown, "not a regular file", expected="a JSON file",
                                    hint="replace it with a JSON file")])
    try:
        raw = read_regular(path, MAX_JSON_BYTES)
    except NotRegular as exc:
        if exc.errno == errno.EFBIG:
            raise DataError([Diagnostic(shown, f"file is larger than {MAX_JSON_BYTES >> 20} MiB",
                                        expected=f"a JSON file of at most {MAX_JSON_BYTES >> 20} MiB",
                                        hint="split the items over several components, or keep them in a "
                                        "sheet (CSV, XLSX, ODS), which is read a row at a time")]) from None
        raise DataError([Diagnostic(shown, "not a regular file", expected="a JSON file",
                                    hint="replace it with a JSON file")]) from None
    except FileNotFoundError:
        raise DataError([Diagnostic(shown, "file not found", hint="check the name in the manifest")]) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise DataError([Diagnostic(shown, "not a regular file: it is a loop of links", expected="a JSON file",
                                        hint="replace the link with the file it should name")]) from None
        raise DataError([Diagnostic(shown, f"cannot read file: {exc.strerror}", expected="a readable file",
                                    hint="check the file's permissions")]) from None
    return parse_json(raw, path, shown)


def refuse_bom(raw: bytes, shown: str, kind: str) -> None:
    """DataError for a file (of ``kind``: "JSON", "TOML") that starts with a UTF-8 byte order
    mark, which neither format allows (their parsers would say "invalid statement" or the like)."""
    if raw.startswith(b"\xef\xbb\xbf"):
        raise DataError([Diagnostic(shown, "file starts with a UTF-8 byte order mark (BOM)", (), 1, 1,
                                    f"plain UTF-8 {kind}", "save the file as UTF-8 without BOM")])


def parse_json(raw: bytes, path: Path, shown: str) -> Doc:
    refuse_bom(raw, shown, "JSON")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        # In characters, like every other column (the line up to the bad byte is valid UTF-8).
        col = len(raw[raw.rfind(b"\n", 0, exc.start) + 1 : exc.start].decode("utf-8")) + 1
        raise DataError([Diagnostic(shown, f"not valid UTF-8 (byte 0x{raw[exc.start]:02x})", (), line, col,
                                    "UTF-8 text", "re-save the file with UTF-8 encoding")]) from None
    if not text.strip():
        raise DataError([Diagnostic(shown, "file is empty", (), 1, 1, "a JSON object")])
    try:
        data = json.loads(text, object_pairs_hook=_reject_duplicates, parse_constant=_reject_constant,
                          parse_float=_parse_float, parse_int=_parse_int)
        if _depth(data) > MAX_DEPTH:
            raise RecursionError  # deeper than any layout needs; the validator would recurse too far
    except (_DuplicateKey, _NonStandard, RecursionError):
        # Report every duplicate key, NaN/Infinity, too-large number and the first too-deep value
        # with its own position, and a syntax error further on too, if any.
        problems = _scan_problems(text)
        where = _line_cols(text, [pos for _, pos, _, _, _ in problems])
        diags = [Diagnostic(shown, msg, tuple(path), *where[pos], expected, hint)
                 for path, pos, msg, expected, hint in problems]
        try:
            json.loads(text, parse_int=float)
        except json.JSONDecodeError as exc:
            diags.append(_syntax_error(shown, text, exc))
        except (RecursionError, ValueError):
            pass
        if not diags:
            diags.append(Diagnostic(shown, f"JSON nested too deeply (more than {MAX_DEPTH} levels)", (), None,
                                    None, f"at most {MAX_DEPTH} levels of nested objects and arrays"))
        raise DataError(diags) from None
    except json.JSONDecodeError as exc:
        raise DataError([_syntax_error(shown, text, exc)]) from None
    doc = Doc(shown, path, data, text)
    # cheap: JSON strings cannot hold C0 controls raw, only as a \u escape; DEL and C1 (U+007F-U+009F,
    # which some terminals read as escape sequences: attack 17) they can
    if _BAD_ESCAPE.search(text) or _RAW_C1.search(text):
        bad = _bad_strings(data)
        if bad:
            raise DataError([doc.diag(p, f"text holds {what}", expected="printable Unicode text",
                                      hint=hint) for p, what, hint in bad])
    return doc


# A lone surrogate (no UTF-8 encoder, so no PDF, can take it: json joins a valid pair into one
# character) or a control character other than tab and line breaks (nothing prints it, and echoed
# in a message or a title it would drive the terminal: ESC starts escape sequences).
_BAD_ESCAPE = re.compile(r"\\u(?:[dD][89a-fA-F]|00[01][0-9a-fA-F]|007[fF]|00[89][0-9a-fA-F])")
_BAD = re.compile("[\ud800-\udfff\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_RAW_C1 = re.compile("[\x7f-\x9f]")
BAD_TEXT = _BAD  # the same check for text read from elsewhere (a sheet's cells)


def bad_text(s: str) -> tuple[str, str] | None:
    """(what, hint) for the first character of ``s`` that ``_BAD`` finds, else None."""
    m = _BAD.search(s)
    if m is None:
        return None
    if "\ud800" <= m.group() <= "\udfff":
        return ("a lone surrogate (an unpaired \\uD800-\\uDFFF escape)",
                "write the character itself, or a surrogate pair")
    return (f"the control character U+{ord(m.group()):04X}", "remove it (\\n and \\t are fine)")


def _bad_strings(value: Any, at: tuple[str | int, ...] = ()) -> list[tuple[tuple[str | int, ...], str, str]]:
    """(JSON path, what, hint) of each string (value or key) holding a character ``_BAD`` finds."""
    found = bad_text
    if isinstance(value, str):
        f = found(value)
        return [(at, *f)] if f else []
    out: list[tuple[tuple[str | int, ...], str, str]] = []
    if isinstance(value, dict):
        for k, v in value.items():
            f = found(k)
            out += [(at + (k,), *f)] if f else _bad_strings(v, at + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _bad_strings(v, at + (i,))
    return out


def _syntax_error(shown: str, text: str, exc: json.JSONDecodeError) -> Diagnostic:
    before = text[: exc.pos].rstrip()
    comma, bracket = len(before) - 1, text[exc.pos : exc.pos + 1]  # Python <= 3.12: pos at the bracket
    if exc.msg.startswith("Illegal trailing comma"):  # Python 3.13: pos at the comma
        comma, after = exc.pos, text[exc.pos + 1 :].lstrip()
        bracket, before = after[:1], text[: exc.pos + 1]
    if bracket in ("]", "}") and before.endswith(","):
        # Point at the comma itself, not at the bracket after it.
        return Diagnostic(shown, f"invalid JSON: trailing comma before '{bracket}'", (),
                          *_line_cols(text, [comma])[comma], "no comma after the last item", "remove the comma")
    msg = exc.msg.removesuffix(" at")
    if msg == "Invalid control character" and text[exc.pos] in "\r\n":
        msg = "unterminated string (a line break inside a string)"
    elif msg == "Unterminated string starting":
        msg = "unterminated string (no closing quote before the end of the file)"
    return Diagnostic(shown, f"invalid JSON: {msg}", (), exc.lineno, exc.colno, _json_expectation(msg))


def _json_expectation(msg: str) -> str | None:
    if "property name" in msg:
        return "a quoted key; no trailing comma before '}'"
    if "Expecting value" in msg:
        return "a value: string, number, object, array, true, false or null (no trailing comma)"
    if "':' delimiter" in msg:
        return "a colon between a key and its value"
    if "delimiter" in msg:
        return "a comma between items, or a closing bracket"
    if "unterminated string" in msg:
        return 'a closing double quote "'
    if "Invalid \\escape" in msg or "Invalid \\uXXXX escape" in msg:
        return "an escape like \\n, \\\", \\\\ or \\uXXXX"
    if "Invalid control character" in msg:
        return "no control characters (tab, NUL...) inside a string: write them as \\t or \\u0000"
    if "Extra data" in msg:
        return "a single JSON value per file"
    return "valid JSON at this position"

