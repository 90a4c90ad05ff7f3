"""A cheap structural check of a TrueType file before reportlab parses it.

reportlab trusts the counts in a font: one flipped bit in a format-12 ``cmap`` group's end code
makes it build a dict of billions of characters (more than 2 GB before it fails). ``check_font``
reads the table directory and the character map reportlab will choose (the same choice it
makes), and refuses a file whose tables lie outside it, whose counts do not fit their tables, or
whose character map holds more than MAX_MAPPED_CHARS characters. Only headers are read: a
few thousand ``struct`` reads for a large font, linear in its size."""

from __future__ import annotations

import struct

MAX_TABLES = 200  # a real font has 10-30; the directory is 16 bytes a table
# Characters a character map may give a glyph. Unicode has 1,114,112 code points; the largest
# real fonts (CJK, Unifont) map under 120,000, and reportlab keeps ~200 bytes per mapped character.
MAX_MAPPED_CHARS = 200_000
MAX_CODE_POINT = 0x10FFFF


class FontDamage(ValueError):
    """What is wrong with the file, in words (``str(exc)``)."""


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


def _cmap(data: bytes, tables: dict[str, tuple[int, int]]) -> None:
    """The character map reportlab picks (the last platform 3 / platform 0 / Mac Roman entry,
    as ``TTFontFile.extractInfo`` does): inside the ``cmap`` table, its counts inside its
    length, and at most MAX_MAPPED_CHARS characters mapped."""
    base, size = tables["cmap"]
    end = base + size
    version, count = _u16(data, base), _u16(data, base + 2)
    if count == 0 and version != 0:
        count = version
    if 4 + 8 * count > size:
        raise FontDamage(f"its 'cmap' table lists {count} encodings, more than its {size} bytes hold")
    chosen, enc = None, 0
    for n in range(count):
        platform, encoding = _u16(data, base + 4 + 8 * n), _u16(data, base + 6 + 8 * n)
        offset = _u32(data, base + 8 + 8 * n)
        if platform == 3 or (platform == 1 and encoding == 1) or (platform == 0 and encoding != 5):
            chosen, enc = offset, 1
        elif platform == 1 and encoding == 0 and enc != 1:
            chosen, enc = offset, 2
    if chosen is None:
        return  # reportlab says so itself ("could not find a suitable cmap encoding")
    pos = base + chosen
    if pos + 4 > end:
        raise FontDamage(f"its character map starts at byte {pos}, outside its 'cmap' table")
    fmt = _u16(data, pos)
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


def check_font(data: bytes) -> None:
    """Raise FontDamage saying what is wrong with the TrueType file ``data`` (the first font of a
    collection), if its structure would send reportlab past its tables or its counts."""
    if len(data) < 12:
        raise FontDamage(f"it is {len(data)} bytes, too short for a font")
    start = 0
    if data[:4] == b"ttcf":
        if _u32(data, 8) == 0:
            raise FontDamage("it is a font collection of no fonts")
        start = _u32(data, 12)
    if data[start:start + 4] == b"OTTO":
        return  # CFF outlines: reportlab refuses these itself, with its own message
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
    _cmap(data, tables)
    if "name" in tables:
        _names(data, tables)


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
