"""Stage 1, load: JSON files -> plain Python values, keeping the line/column of every value so
later stages can say ``file:line:col`` for any JSON path."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import json_source_map

from pnp.errors import DataError, Diagnostic


@dataclass(frozen=True)
class Doc:
    """A loaded JSON file: its data and where each value sits in the text."""

    display: str  # the path shown in messages, relative to the data root where possible
    path: Path
    data: Any
    _values: dict[str, tuple[int, int]] = field(default_factory=dict, repr=False)
    _keys: dict[str, tuple[int, int]] = field(default_factory=dict, repr=False)

    def locate(self, parts: Sequence[str | int], key: bool = False) -> tuple[int | None, int | None]:
        """1-based (line, col) of the value at ``parts`` (or of its key when ``key``); falls back to
        the nearest enclosing value that exists."""
        parts = list(parts)
        while True:
            pointer = "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)
            if key and pointer in self._keys:
                return self._keys[pointer]
            if pointer in self._values:
                return self._values[pointer]
            if not parts:
                return (None, None)
            parts.pop()
            key = False

    def diag(self, parts: Sequence[str | int], message: str, *, expected: str | None = None,
             hint: str | None = None, key: bool = False, severity: str = "error") -> Diagnostic:
        line, col = self.locate(parts, key=key)
        return Diagnostic(self.display, message, tuple(parts), line, col, expected, hint, severity)


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


def load_json(path: Path, display: str | None = None) -> Doc:
    """Read and parse one JSON file; any problem becomes a DataError naming the file and line."""
    shown = display or str(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise DataError([Diagnostic(shown, "file not found", hint="check the name in the manifest")]) from None
    except OSError as exc:
        raise DataError([Diagnostic(shown, f"cannot read file: {exc.strerror}")]) from None
    return parse_json(raw, path, shown)


def parse_json(raw: bytes, path: Path, shown: str) -> Doc:
    if raw.startswith(b"\xef\xbb\xbf"):
        raise DataError([Diagnostic(shown, "file starts with a UTF-8 byte order mark (BOM)", (), 1, 1,
                                    "plain UTF-8 JSON", "save the file as UTF-8 without BOM")])
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise DataError([Diagnostic(shown, f"not valid UTF-8 (byte 0x{raw[exc.start]:02x})", (), line, col,
                                    "UTF-8 text", "re-save the file with UTF-8 encoding")]) from None
    if not text.strip():
        raise DataError([Diagnostic(shown, "file is empty", (), 1, 1, "a JSON object")])
    try:
        data = json.loads(text, object_pairs_hook=_reject_duplicates)
    except _DuplicateKey as exc:
        # Find the second occurrence for the position.
        needle = json.dumps(exc.key)
        first = text.find(needle)
        second = text.find(needle, first + 1)
        pos = second if second >= 0 else max(first, 0)
        line = text.count("\n", 0, pos) + 1
        col = pos - (text.rfind("\n", 0, pos) + 1) + 1
        raise DataError([Diagnostic(shown, f"duplicate key {needle} in one object", (), line, col,
                                    "each key once", "remove or rename one of them")]) from None
    except json.JSONDecodeError as exc:
        raise DataError([Diagnostic(shown, f"invalid JSON: {exc.msg}", (), exc.lineno, exc.colno,
                                    _json_expectation(exc.msg))]) from None
    except RecursionError:
        raise DataError([Diagnostic(shown, "JSON nested too deeply", (), None, None,
                                    "at most a few hundred levels")]) from None
    try:
        smap = json_source_map.calculate(text)
    except Exception:
        smap = {}
    values = {p: (e.value_start.line + 1, e.value_start.column + 1) for p, e in smap.items()}
    keys = {p: (e.key_start.line + 1, e.key_start.column + 1) for p, e in smap.items() if e.key_start}
    return Doc(shown, path, data, values, keys)


def _json_expectation(msg: str) -> str | None:
    if "property name" in msg:
        return "a quoted key; no trailing comma before '}'"
    if "Unterminated string" in msg:
        return 'a closing double quote "'
    if "Expecting value" in msg:
        return "a value: string, number, object, array, true, false or null (no trailing comma)"
    if "delimiter" in msg:
        return "a comma between items, or a closing bracket"
    if "Extra data" in msg:
        return "a single JSON value per file"
    return None
