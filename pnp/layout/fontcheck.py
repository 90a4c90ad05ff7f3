"""A cheap structural check of a TrueType file before reportlab parses it.

reportlab trusts the counts in a font: one flipped bit in a format-12 ``cmap`` group's end code
makes it build a dict of billions of characters (more than 2 GB before it fails). ``check_font``
reads the table directory and the character map reportlab will choose (the same choice it
makes), and refuses a file whose tables lie outside it, whose counts do not fit their tables, or
whose character map holds more than MAX_MAPPED_CHARS characters or glyphs past the last. It
refuses as unusable (``FontUnsupported``) an intact font reportlab would misread (a legacy or
"last resort" Windows map last) or PDFium rasterise slowly (a glyph of more than
MAX_GLYPH_POINTS points), and gives each font's longest glyph outline for the pixel budget
(``glyph_outlines``). Linear in the font's size: ~40 ms for Lato."""

from __future__ import annotations

import math
import struct
from collections.abc import Iterator

MAX_TABLES = 200  # a real font has 10-30; the directory is 16 bytes a table
# Characters a character map may give a glyph. Unicode has 1,114,112 code points; the largest
# real fonts (CJK, Unifont) map under 120,000, and reportlab keeps ~200 bytes per mapped character.
MAX_MAPPED_CHARS = 200_000
MAX_CODE_POINT = 0x10FFFF


class FontDamage(ValueError):
    """What is wrong with the file, in words (``str(exc)``)."""


class FontUnsupported(FontDamage):
    """An intact font pnp's PDF writer (reportlab) cannot use, and why (``str(exc)``)."""


# Windows encodings (platform 3) that are no Unicode: reportlab reads the last platform-3 map
# whatever its encoding, and would take its codes for Unicode (a (3,2) format-2 map after the
# (3,1) one failed in reportlab with an IndexError, called damage: attack 25, F2)
_LEGACY = {2: "ShiftJIS", 3: "PRC", 4: "Big5", 5: "Wansung", 6: "Johab"}


def _u16(data: bytes, pos: int) -> int:
    if pos < 0 or pos + 2 > len(data):
        raise FontDamage(f"a field at byte {pos} lies past the end of the file ({len(data)} bytes)")
    return int.from_bytes(data[pos:pos + 2], "big")


def _u32(data: bytes, pos: int) -> int:
    if pos < 0 or pos + 4 > len(data):
        raise FontDamage(f"a field at byte {pos} lies past the end of the file ({len(data)} bytes)")
    return int.from_bytes(data[pos:pos + 4], "big")


def _tables(data: bytes, start: int) -> dict[str, tuple[int, int]]:
    """The table directory of the font at ``start``: tag -> (offset, length), each checked to lie
    inside the file."""
    num = _u16(data, start + 4)
    if num == 0 or num > MAX_TABLES:
        raise FontDamage(f"its table directory claims {num} tables (expected 1 to {MAX_TABLES})")
    if start + 12 + 16 * num > len(data):
        raise FontDamage(f"its table directory of {num} tables runs past the end of the file")
    tables: dict[str, tuple[int, int]] = {}
    for i in range(num):
        rec = start + 12 + 16 * i
        tag = data[rec:rec + 4].decode("latin-1")
        offset, length = struct.unpack(">II", data[rec + 8:rec + 16])
        if offset + length > len(data):
            raise FontDamage(f"its {tag!r} table (bytes {offset} to {offset + length}) lies outside the "
                             f"file ({len(data)} bytes)")
        tables[tag] = (offset, length)
    return tables


def _need(tables: dict[str, tuple[int, int]], tag: str, size: int, what: str) -> int:
    offset, length = tables[tag]
    if size > length:
        raise FontDamage(f"its {tag!r} table is {length} bytes, too short for {what} ({size} bytes)")
    return offset


def _cmap(data: bytes, tables: dict[str, tuple[int, int]], glyphs: int) -> None:
    """The character map reportlab picks (the last platform 3 / platform 0 / Mac Roman entry,
    as ``TTFontFile.extractInfo`` does): inside the ``cmap`` table, its counts inside its
    length, at most MAX_MAPPED_CHARS characters mapped, each to one of the font's ``glyphs``
    (one past them left a character without a width: reportlab's ``KeyError: 32``, said as
    "cannot be read: 32", attack 24 F5)."""
    base, size = tables["cmap"]
    end = base + size
    version, count = _u16(data, base), _u16(data, base + 2)
    if count == 0 and version != 0:
        count = version
    if 4 + 8 * count > size:
        raise FontDamage(f"its 'cmap' table lists {count} encodings, more than its {size} bytes hold")
    chosen, enc, which = None, 0, (0, 0)
    fuller = False  # a Windows map before the chosen one maps characters to glyphs of their own
    for n in range(count):
        platform, encoding = _u16(data, base + 4 + 8 * n), _u16(data, base + 6 + 8 * n)
        offset = _u32(data, base + 8 + 8 * n)
        if platform == 3 or (platform == 1 and encoding == 1) or (platform == 0 and encoding != 5):
            if chosen is not None and which[0] == 3 and base + chosen + 2 <= end:
                fuller = fuller or _u16(data, base + chosen) != 13
            chosen, enc, which = offset, 1, (platform, encoding)
        elif platform == 1 and encoding == 0 and enc != 1:
            chosen, enc, which = offset, 2, (platform, encoding)
    if chosen is None:
        return  # reportlab says so itself ("could not find a suitable cmap encoding")
    if which[0] == 3 and which[1] in _LEGACY:
        raise FontUnsupported(f"its last Windows character map, the one pnp's PDF writer reads, is encoded in "
                              f"{_LEGACY[which[1]]} (platform 3, encoding {which[1]}), not Unicode")
    pos = base + chosen
    if pos + 4 > end:
        raise FontDamage(f"its character map starts at byte {pos}, outside its 'cmap' table")
    fmt = _u16(data, pos)
    if fmt == 13 and which[0] == 3 and fuller:  # a "last resort" map after a real one (attack 26)
        raise FontUnsupported("its last Windows character map, the one pnp's PDF writer reads, is a format-13 "
                              "map giving whole ranges of characters one glyph, after a fuller one: every text "
                              "would print as that glyph")
    long_header = fmt in (8, 10, 12, 13)
    length = _u32(data, pos + 4) if long_header else _u16(data, pos + 2)
    if pos + length > end and fmt != 4:  # a format-4 map over 64 KB wraps its length: bounds below
        raise FontDamage(f"its format-{fmt} character map ({length} bytes at byte {pos}) runs past the end "
                         "of its 'cmap' table")

    def fits(n_bytes: int, what: str) -> None:
        if n_bytes > length:
            raise FontDamage(f"its format-{fmt} character map claims {what}, more than its {length} bytes hold")

    mapped = 0
    if fmt == 4:
        seg = _u16(data, pos + 6) // 2
        if pos + 16 + 8 * seg > end:
            raise FontDamage(f"its format-4 character map claims {seg} segments, more than its 'cmap' table holds")
        for n in range(seg):
            last, first = _u16(data, pos + 14 + 2 * n), _u16(data, pos + 16 + 2 * seg + 2 * n)
            mapped += max(0, last - first + 1)
    elif fmt == 6:
        n = _u16(data, pos + 8)
        fits(10 + 2 * n, f"{n} characters")
        mapped = n
    elif fmt == 10:
        n = _u32(data, pos + 16)
        fits(20 + 2 * n, f"{n} characters")
        mapped = n
    elif fmt in (12, 13):
        groups = _u32(data, pos + 12)
        fits(16 + 12 * groups, f"{groups} groups")
        for n in range(groups):
            first, last = struct.unpack(">II", data[pos + 16 + 12 * n:pos + 24 + 12 * n])
            if last > MAX_CODE_POINT:
                raise FontDamage(f"its character map maps code {last:#x}, past Unicode's last ({MAX_CODE_POINT:#x})")
            mapped += max(0, last - first + 1)
            if mapped > MAX_MAPPED_CHARS:
                break
    elif fmt == 2:
        keys = [_u16(data, pos + 6 + 2 * i) for i in range(256)]
        subheaders = max(keys) + 1
        fits(518 + 8 * subheaders, f"{subheaders} subheaders")
        for k in range(subheaders):
            entries = _u16(data, pos + 518 + 8 * k + 2)
            if entries > 256:
                raise FontDamage(f"its format-2 character map has a subheader of {entries} entries (at most 256)")
    if mapped > MAX_MAPPED_CHARS:
        raise FontDamage(f"its character map maps more than {MAX_MAPPED_CHARS} characters")
    for char, glyph in _mapped(data, pos, fmt, end):
        if glyph >= glyphs:
            raise FontDamage(f"its character map maps U+{char:04X} to glyph {glyph}, past its {glyphs} glyphs")


def _mapped(data: bytes, pos: int, fmt: int, end: int) -> Iterator[tuple[int, int]]:
    """(character, glyph) of each character the format-``fmt`` map at ``pos`` gives a glyph
    (glyph 0, "missing", left out; entries outside the table skipped, as the counts were checked)."""
    if fmt == 0:
        for char in range(256):
            if pos + 6 + char < end and data[pos + 6 + char]:
                yield char, data[pos + 6 + char]
    elif fmt == 4:
        seg = _u16(data, pos + 6) // 2
        for n in range(seg):
            last, first = _u16(data, pos + 14 + 2 * n), _u16(data, pos + 16 + 2 * seg + 2 * n)
            delta = _u16(data, pos + 16 + 4 * seg + 2 * n)
            at = pos + 16 + 6 * seg + 2 * n
            offset = _u16(data, at)
            for char in range(first, min(last, 0xFFFE) + 1):  # 0xFFFF: the last segment's end mark
                if offset == 0:
                    glyph = (char + delta) & 0xFFFF
                else:
                    where = at + offset + 2 * (char - first)
                    glyph = _u16(data, where) if where + 2 <= end else 0
                    glyph = (glyph + delta) & 0xFFFF if glyph else 0
                if glyph:
                    yield char, glyph
    elif fmt in (6, 10):
        wide = fmt == 10
        first = _u32(data, pos + 12) if wide else _u16(data, pos + 6)
        count = _u32(data, pos + 16) if wide else _u16(data, pos + 8)
        base = pos + (20 if wide else 10)
        for n in range(count):
            if base + 2 * n + 2 <= end and (glyph := _u16(data, base + 2 * n)):
                yield first + n, glyph
    elif fmt in (12, 13):
        for n in range(_u32(data, pos + 12)):
            at = pos + 16 + 12 * n
            if at + 12 > end:
                break
            first, last, glyph = struct.unpack(">III", data[at:at + 12])
            if last >= first:  # the group's highest glyph (13: one glyph for all)
                yield last, glyph + (last - first if fmt == 12 else 0)


def check_font(data: bytes) -> tuple[int, float]:
    """Raise FontDamage saying what is wrong with the TrueType file ``data`` (the first font of a
    collection), if its structure would send reportlab past its tables or its counts. Returns the
    most points one glyph's outline has and the longest outline of one glyph, in ems
    (``glyph_outlines``)."""
    if len(data) < 12:
        raise FontDamage(f"it is {len(data)} bytes, too short for a font")
    start = 0
    if data[:4] == b"ttcf":
        if _u32(data, 8) == 0:
            raise FontDamage("it is a font collection of no fonts")
        start = _u32(data, 12)
    if data[start:start + 4] == b"OTTO":
        return 0, 0.0  # CFF outlines: reportlab refuses these itself, with its own message
    tables = _tables(data, start)
    missing = [t for t in ("head", "hhea", "maxp", "hmtx", "loca", "cmap", "post") if t not in tables]
    if missing:
        raise FontDamage(f"it has no {', '.join(repr(t) for t in missing)} table")
    head = _need(tables, "head", 54, "its header")
    loca_long = _u16(data, head + 50)
    glyphs = _u16(data, _need(tables, "maxp", 6, "the glyph count") + 4)
    metrics = _u16(data, _need(tables, "hhea", 36, "its header") + 34)
    if metrics > glyphs:
        raise FontDamage(f"it claims {metrics} horizontal metrics for {glyphs} glyphs")
    _need(tables, "hmtx", 4 * metrics + 2 * (glyphs - metrics), f"{glyphs} glyphs' metrics")
    _need(tables, "loca", (glyphs + 1) * (4 if loca_long else 2), f"{glyphs} glyphs' locations")
    _cmap(data, tables, glyphs)
    if "name" in tables:
        _names(data, tables)
    return glyph_outlines(data, tables, glyphs, bool(loca_long))


# A glyph's outline points at most (a composite's, its parts' together): PDFium rasterises each
# glyph's outline, and a font whose "A" was one self-crossing outline of 20,000 points took 40 s
# to export where the budget said 1 s (attack 26, F3). Real fonts' glyphs have tens to a few
# hundred (Lato: at most ~150; the most complex CJK ideographs under 1,000).
MAX_GLYPH_POINTS = 5_000


def glyph_outlines(data: bytes, tables: dict[str, tuple[int, int]], glyphs: int,
                   loca_long: bool) -> tuple[int, float]:
    """(the most points of one glyph's outline, the longest outline of one glyph in ems: each
    contour's control polygon, at least the curve PDFium rasterises; a composite's parts
    together); FontUnsupported past MAX_GLYPH_POINTS."""
    if "glyf" not in tables:
        return 0, 0.0
    glyf, size = tables["glyf"]
    loca, _ = tables["loca"]
    units = _u16(data, tables["head"][0] + 18) or 1000

    def where(i: int) -> tuple[int, int]:
        a = _u32(data, loca + 4 * i) if loca_long else 2 * _u16(data, loca + 2 * i)
        b = _u32(data, loca + 4 * (i + 1)) if loca_long else 2 * _u16(data, loca + 2 * (i + 1))
        return a, b

    memo: dict[int, tuple[int, float]] = {}

    def outline(at: int, stop: int, contours: int, n: int) -> float:
        """The control polygons' length (font units) of a simple glyph of ``n`` points at ``at``."""
        ends = [_u16(data, at + 10 + 2 * c) for c in range(contours)]
        pos = at + 10 + 2 * contours
        pos += 2 + _u16(data, pos)  # the instructions
        flags: list[int] = []
        while len(flags) < n and pos < stop:
            f = data[pos]
            pos += 1
            flags.append(f)
            if f & 8 and pos < stop:  # repeated
                flags += [f] * data[pos]
                pos += 1
        flags = flags[:n]
        coords = []
        for short, same in ((2, 0x10), (4, 0x20)):
            v, out = 0, []
            for f in flags:
                if f & short and pos < stop:
                    v += data[pos] if f & same else -data[pos]
                    pos += 1
                elif not f & same and pos + 2 <= stop:
                    v += struct.unpack(">h", data[pos:pos + 2])[0]
                    pos += 2
                out.append(v)
            coords.append(out)
        xs, ys = coords
        length, first = 0.0, 0
        for last in ends:
            ring = list(range(first, min(last, len(xs) - 1) + 1))
            for k, j in zip(ring, ring[1:] + ring[:1], strict=True):
                length += math.hypot(xs[j] - xs[k], ys[j] - ys[k])
            first = last + 1
        return length

    def measure(i: int, depth: int) -> tuple[int, float]:
        if i >= glyphs or depth > 8:
            return 0, 0.0
        if i in memo:
            return memo[i]
        a, b = where(i)
        n, length = 0, 0.0
        if b > a and a + 10 <= size and b <= size:
            at = glyf + a
            contours = struct.unpack(">h", data[at:at + 2])[0]
            if contours > 0 and at + 12 + 2 * contours <= glyf + b:
                n = _u16(data, at + 10 + 2 * (contours - 1)) + 1
                if n <= MAX_GLYPH_POINTS:
                    length = outline(at, glyf + b, contours, n)
            elif contours < 0:
                pos, more = at + 10, True
                while more and pos + 4 <= glyf + b:
                    flags, part = _u16(data, pos), _u16(data, pos + 2)
                    pn, pl = measure(part, depth + 1)
                    n, length = n + pn, length + pl
                    transform = 2 if flags & 8 else 4 if flags & 0x40 else 8 if flags & 0x80 else 0
                    pos += 4 + (4 if flags & 1 else 2) + transform
                    more = bool(flags & 0x20)
        memo[i] = n, length
        return n, length

    most, which, longest = 0, 0, 0.0
    for i in range(glyphs):
        n, length = measure(i, 0)
        longest = max(longest, length)
        if n > most:
            most, which = n, i
    if most > MAX_GLYPH_POINTS:
        raise FontUnsupported(f"its glyph {which} has an outline of {most} points, more than pnp draws "
                              f"({MAX_GLYPH_POINTS}: rasterising it is slow in proportion)")
    return most, longest / units


def _names(data: bytes, tables: dict[str, tuple[int, int]]) -> None:
    """The 'name' table's records and their strings inside it: a string offset past its end made
    reportlab read NUL bytes from elsewhere as the PostScript name, written into the PDF as the
    invalid name `#0#0...` (attack 15, F3)."""
    pos = _need(tables, "name", 6, "its header")
    length = tables["name"][1]
    count, strings = _u16(data, pos + 2), _u16(data, pos + 4)
    if 6 + 12 * count > length:
        raise FontDamage(f"its 'name' table lists {count} names, more than its {length} bytes hold")
    if strings > length:
        raise FontDamage(f"its 'name' table's strings start at byte {strings}, past its end ({length} bytes)")
    for i in range(count):
        rec = pos + 6 + 12 * i
        size, at = _u16(data, rec + 8), _u16(data, rec + 10)
        if strings + at + size > length:
            raise FontDamage(f"its 'name' table's name {i + 1} (bytes {strings + at} to {strings + at + size}) "
                             f"runs past its end ({length} bytes)")
