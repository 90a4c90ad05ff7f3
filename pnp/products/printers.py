"""Printer profiles: per-printer duplex corrections kept in a small TOML file, so a user
measures a printer once (``pnp calibrate``) and builds with ``--printer NAME``.

Looked up, first found wins: ``./pnp.toml`` (the project), then
``$XDG_CONFIG_HOME/pnp/config.toml`` (default ``~/.config/pnp/config.toml``)::

    [printers.office]
    back_offset = [0.8, -1.2]   # mm: DX (right), DY (up) as seen on the back page
    back_scale = 1.0            # or [SX, SY]
    paper = "a4"                # optional defaults for build / calibrate
    duplex = "long"
    bleed = 3
"""

from __future__ import annotations

import datetime
import errno
import json
import os
import re
import tomllib
from pathlib import Path
from typing import Any

from msgspec import Struct

from pnp.errors import DataError, Diagnostic, alternatives
from pnp.impose.sheet import DUPLEX_MODES, MAX_BLEED_MM, PAPERS
from pnp.input.load import NotRegular, file_kind, read_regular, refuse_bom
from pnp.input.project import shown_path
from pnp.plan.options import BACK_OFFSET_MM, BACK_SCALE
from pnp.units import to_micrometre

KEYS = {"back_offset", "back_scale", "paper", "duplex", "bleed"}


class Profile(Struct, frozen=True):
    """A printer profile from pnp.toml: paper, duplex and back alignment for one printer."""

    name: str
    source: str
    back_offset: tuple[float, float] | None = None  # mm
    back_scale: tuple[float, float] | None = None
    paper: str | None = None
    duplex: str | None = None
    bleed: float | None = None


MAX_CONFIG_BYTES = 1 << 20  # a config file holds a few printer profiles


def config_paths(cwd: Path | None = None) -> list[Path]:
    cwd = cwd or Path.cwd()
    xdg = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return [cwd / "pnp.toml", Path(xdg) / "pnp" / "config.toml"]


def toml_value(value: Any) -> str:
    """``value`` as TOML writes it, for a message: strings quoted with every control character
    escaped, dates as dates (not Python's ``datetime.date(...)``), a table as ``{...}``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{...}"
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, int) and abs(value) >= 10**30:  # tomllib reads at most 4,300 digits: str() can too
        return f"a whole number of {len(str(abs(value)))} digits"
    return repr(value)  # a number: nan, inf and 1e+300 as TOML reads them


def _pair(given: Any, name: str, where: Where, scale: bool) -> tuple[float, float]:
    value = given  # messages show the value as written: a scale of 2 is "2", not "[2, 2]"
    if scale and isinstance(value, int | float) and not isinstance(value, bool):
        value = [value, value]
    ok = (isinstance(value, list) and len(value) == 2
          and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value))
    if ok and any(isinstance(v, int) and abs(v) >= 10**30 for v in value):  # float() overflows
        raise where.error(name, f"{name} {toml_value(given)} is out of range", expected="numbers of a sensible size")
    if not ok:
        raise where.error(name, f"{name} is {toml_value(given)}",
                          expected="a number or [X, Y]" if scale else "[X, Y] in mm")
    x, y = float(value[0]) + 0.0, float(value[1]) + 0.0  # + 0.0: a -0 reads as 0
    lo, hi = BACK_SCALE
    if scale and not (lo <= x <= hi and lo <= y <= hi):
        raise where.error(name, f"{name} {toml_value(given)} is out of range", expected=f"{lo:g} to {hi:g}")
    if not scale and not (abs(x) <= BACK_OFFSET_MM and abs(y) <= BACK_OFFSET_MM):
        raise where.error(name, f"{name} {toml_value(given)} is out of range",
                          expected=f"{-BACK_OFFSET_MM:g} to {BACK_OFFSET_MM:g} mm")
    if not scale:  # lengths to the micrometre, as the command line reads them: 1e-320 is 0
        x, y = to_micrometre(x), to_micrometre(y)
    return x, y


class Where:
    """A printer profile in its file, for messages: the file as ``shown_path`` names it, the
    profile's table, and the line of a key in it (found in the text: tomllib gives no positions;
    None for a profile written as an inline table or dotted keys)."""

    def __init__(self, path: Path, text: str, name: str):
        self.file, self.name, self.lines = shown_path(path), name, text.splitlines()
        quoted = "|".join(re.escape(q) for q in (name, f'"{name}"', f"'{name}'"))
        header = re.compile(rf"\s*\[\s*printers\s*\.\s*(?:{quoted})\s*\]\s*(?:#.*)?$")
        self.header = next((i for i, line in enumerate(self.lines) if header.fullmatch(line)), None)

    def line(self, key: str | None) -> int | None:
        if self.header is None or key is None:
            return None if self.header is None else self.header + 1
        found = re.compile(rf"\s*(?:{re.escape(key)}|\"{re.escape(key)}\"|'{re.escape(key)}')\s*=")
        for i in range(self.header + 1, len(self.lines)):
            if self.lines[i].lstrip().startswith("["):
                break
            if found.match(self.lines[i]):
                return i + 1
        return self.header + 1

    def error(self, key: str | None, message: str, expected: str | None = None) -> DataError:
        """The problem at ``key`` of the profile (None: the profile), at its line and TOML path."""
        path = ("printers", self.name) if key is None else ("printers", self.name, key)
        return DataError([Diagnostic(self.file, message, path, self.line(key), expected=expected)])


MAX_KEY_PARTS = 32  # of a dotted key: `printers.office.bleed` has 3
_PART = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\\n]|\\.)*"|'[^'\n]*')"""
# A key before `=` (at a line's start, or after `{` or `,` in an inline table) or in a [table] header.
_KEY = re.compile(rf"(?:^|[{{,])[ \t]*\[?\[?[ \t]*({_PART}(?:[ \t]*\.[ \t]*{_PART})*)[ \t]*(?:=|\]\]?)", re.M)


def _refuse_long_keys(text: str, shown: str) -> None:
    """DataError for a dotted key of more than MAX_KEY_PARTS parts: tomllib keeps a path for each
    prefix of a dotted key, so one of 20,000 parts (40 KB) took 1.6 GB (attack 16, F4)."""
    for m in _KEY.finditer(text):
        parts = len(re.findall(rf"{_PART}", m.group(1)))
        if parts > MAX_KEY_PARTS:
            line = text.count("\n", 0, m.start(1)) + 1
            raise DataError([Diagnostic(shown, f"invalid TOML: a key of {parts:,} dotted parts", (), line,
                                        expected=f"keys of at most {MAX_KEY_PARTS} parts, "
                                        "as in printers.office.bleed")])


def load_profile(name: str, paths: list[Path] | None = None) -> Profile:
    """The named profile from the first config file that has a [printers] table holding it."""
    searched = paths or config_paths()
    known: list[str] = []
    for path in searched:
        if not os.path.lexists(path) or (os.path.islink(path) and not path.exists()):
            continue
        try:
            raw = read_regular(path, MAX_CONFIG_BYTES)
            refuse_bom(raw, shown_path(path), "TOML")  # tomllib would say "Invalid statement"
            _refuse_long_keys(raw.decode("utf-8"), shown_path(path))
            data = tomllib.loads(raw.decode("utf-8"))
        except NotRegular as exc:  # a named pipe would block the read; a folder, a device...
            what = (f"not a regular file: it is {file_kind(path)}" if exc.errno == errno.EINVAL
                    else f"larger than {MAX_CONFIG_BYTES} bytes")
            expected = f"a TOML file of at most {MAX_CONFIG_BYTES} bytes"
            raise DataError([Diagnostic(shown_path(path), what, expected=expected)]) from None
        except OSError as exc:
            raise DataError([Diagnostic(shown_path(path), f"cannot read file: {exc.strerror}",
                                        expected="a readable TOML file",
                                        hint="check the file's permissions")]) from None
        except tomllib.TOMLDecodeError as exc:  # "... (at line 3, column 7)": the position as pnp gives it
            m = re.fullmatch(r"(.*) \(at line (\d+), column (\d+)\)", str(exc), re.S)
            msg, line, col = (m.group(1), int(m.group(2)), int(m.group(3))) if m else (str(exc), None, None)
            if not m and msg.endswith(" (at end of document)"):  # a last line without a line feed
                msg, line = msg.removesuffix(" (at end of document)"), raw.count(b"\n") + 1
            raise DataError([Diagnostic(shown_path(path), f"invalid TOML: {msg}", (), line, col,
                                        expected="a TOML file")]) from None
        except UnicodeDecodeError as exc:
            raise DataError([Diagnostic(shown_path(path), f"invalid TOML: {exc}", expected="a TOML file")]) from None
        except ValueError:  # tomllib's int() of more than 4,300 digits (attack 9: exit 3)
            raise DataError([Diagnostic(shown_path(path), "invalid TOML: a whole number of more than 4,300 digits",
                                        expected="numbers of a sensible size")]) from None
        except RecursionError:  # tomllib parses nested arrays and inline tables recursively
            raise DataError([Diagnostic(shown_path(path), "invalid TOML: nested too deeply",
                                        expected="a TOML file with arrays and tables nested a few levels")]) from None
        printers = data.get("printers", {})
        if not isinstance(printers, dict):
            raise DataError([Diagnostic(shown_path(path), "printers must be a table of profiles", ("printers",))])
        known += list(printers)
        if name not in printers:
            continue
        entry = printers[name]
        where = Where(path, raw.decode("utf-8"), name)
        if not isinstance(entry, dict):
            raise where.error(None, "a profile must be a table")
        # every bad key of the profile at once, as a data file's problems are
        problems = [where.error(key, f"unknown key {toml_value(key)}", expected="one of " + ", ".join(sorted(KEYS)))
                    for key in sorted(set(entry) - KEYS)]
        paper, duplex, bleed = entry.get("paper"), entry.get("duplex"), entry.get("bleed")
        if paper is not None and (not isinstance(paper, str) or paper not in PAPERS):  # a TOML list is unhashable
            problems.append(where.error("paper", f"paper {toml_value(paper)}", expected=alternatives(list(PAPERS))))
        if duplex is not None and (not isinstance(duplex, str) or duplex not in DUPLEX_MODES):
            problems.append(where.error("duplex", f"duplex {toml_value(duplex)}", expected=alternatives(DUPLEX_MODES)))
        if bleed is not None and not (isinstance(bleed, int | float) and not isinstance(bleed, bool)
                                      and 0 <= bleed <= MAX_BLEED_MM):
            problems.append(where.error("bleed", f"bleed {toml_value(bleed)}", expected=f"0 to {MAX_BLEED_MM:g} mm"))
        pairs: dict[str, tuple[float, float]] = {}
        for key in ("back_offset", "back_scale"):
            try:
                if key in entry:
                    pairs[key] = _pair(entry[key], key, where, key == "back_scale")
            except DataError as exc:
                problems.append(exc)
        if problems:
            raise DataError([d for exc in problems for d in exc.diagnostics])
        return Profile(
            name, str(path), pairs.get("back_offset"), pairs.get("back_scale"),
            paper, duplex, to_micrometre(float(bleed)) if bleed is not None else None,
        )
    files = ", ".join(shown_path(p) for p in searched)
    raise DataError([Diagnostic(files, f"no printer profile {name!r}",
                                expected="one of " + ", ".join(sorted(set(known))) if known
                                else "a [printers." + name + "] table in one of these files",
                                hint="see `pnp calibrate --help`")])

