"""The structural check a font passes before reportlab parses it (pnp.layout.fontcheck): every
bundled font passes; damaged counts and offsets are refused by name; and byte-flipped fonts,
loaded under a 1 GB address-space cap in a child process, end as a usable font or a FontError,
never a MemoryError, another exception or a hang (issue 19, F3)."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pnp.input.project import bundled_root
from pnp.layout.fontcheck import MAX_MAPPED_CHARS, FontDamage, check_font

FONTS = bundled_root() / "fonts"


def _fmt12(raw: bytes) -> int:
    """Where Vollkorn-Bold's format-12 character map (platform 3, encoding 10) starts."""
    (n,) = struct.unpack(">H", raw[4:6])
    cmap = next(struct.unpack(">I", raw[12 + 16 * i + 8:12 + 16 * i + 12])[0]
                for i in range(n) if raw[12 + 16 * i:16 + 16 * i] == b"cmap")
    count = struct.unpack(">H", raw[cmap + 2:cmap + 4])[0]
    for i in range(count):
        platform, enc, off = struct.unpack(">HHI", raw[cmap + 4 + 8 * i:cmap + 12 + 8 * i])
        if (platform, enc) == (3, 10):
            return cmap + off
    raise AssertionError("no format-12 map")


@pytest.mark.parametrize("path", sorted(FONTS.glob("*.ttf")), ids=lambda p: p.stem)
def test_every_bundled_font_passes(path: Path) -> None:
    check_font(path.read_bytes())


def test_a_group_past_unicode_is_refused() -> None:
    raw = bytearray((FONTS / "Vollkorn-Bold.ttf").read_bytes())
    pos = _fmt12(bytes(raw))
    raw[pos + 20] = 0x7F  # group 0's end code, high byte
    with pytest.raises(FontDamage, match=r"maps code 0x7f0000.., past Unicode's last"):
        check_font(bytes(raw))


def test_groups_mapping_too_many_characters_are_refused() -> None:
    """Every group from 0 to 0x10ffff: each legal, together 1.1 million characters per group."""
    raw = bytearray((FONTS / "Vollkorn-Bold.ttf").read_bytes())
    pos = _fmt12(bytes(raw))
    raw[pos + 16:pos + 24] = struct.pack(">II", 0, 0x10FFFF)
    with pytest.raises(FontDamage, match=f"maps more than {MAX_MAPPED_CHARS} characters"):
        check_font(bytes(raw))


def test_a_group_count_past_the_table_is_refused() -> None:
    raw = bytearray((FONTS / "Vollkorn-Bold.ttf").read_bytes())
    pos = _fmt12(bytes(raw))
    raw[pos + 12:pos + 16] = struct.pack(">I", 0x01000000)
    with pytest.raises(FontDamage, match="claims 16777216 groups, more than its"):
        check_font(bytes(raw))


@pytest.mark.parametrize("past", [0, 5000, 0xFFFFFFF0])
def test_a_character_mapped_past_the_last_glyph_is_refused(past: int) -> None:
    """A group's glyphs past the font's (one past the last: reportlab's subset failed with an
    IndexError; far past it: the character had no width, reportlab's `KeyError: 32` said as
    "cannot be read: 32", attack 24 F5): refused, naming the character and the glyph."""
    raw = bytearray((FONTS / "Vollkorn-Bold.ttf").read_bytes())
    pos = _fmt12(bytes(raw))
    (n,) = struct.unpack(">H", raw[4:6])
    maxp = next(struct.unpack(">I", raw[12 + 16 * i + 8:12 + 16 * i + 12])[0]
                for i in range(n) if raw[12 + 16 * i:16 + 16 * i] == b"maxp")
    (glyphs,) = struct.unpack(">H", raw[maxp + 4:maxp + 6])
    first, last = struct.unpack(">II", raw[pos + 16:pos + 24])
    start = past or glyphs - (last - first)  # 0: the group's last glyph one past the font's
    raw[pos + 24:pos + 28] = struct.pack(">I", start)
    with pytest.raises(FontDamage) as exc:
        check_font(bytes(raw))
    assert str(exc.value).startswith("its character map maps U+")
    assert str(exc.value).endswith(f"past its {glyphs} glyphs")


@pytest.mark.parametrize(("edit", "message"), [
    (lambda raw: raw.__setitem__(slice(4, 6), b"\xff\xff"), "claims 65535 tables"),
    (lambda raw: raw.__setitem__(slice(0, 12), b""), "claims 3486 tables"),
    (lambda raw: raw.__setitem__(slice(100, None), b""), "table directory of 17 tables runs past the end"),
    (lambda raw: raw.__setitem__(slice(40000, None), b""), "table \\(bytes .* lies outside the file"),
], ids=["table-count", "no-header", "truncated-directory", "truncated-table"])
def test_a_damaged_directory_is_refused(edit, message: str) -> None:  # type: ignore[no-untyped-def]
    raw = bytearray((FONTS / "Lato-Bold.ttf").read_bytes())
    edit(raw)
    with pytest.raises(FontDamage, match=message):
        check_font(bytes(raw))


CHILD = r"""
import json, random, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
from pnp.layout.fonts import FontError, _register
src, folder, seeds, flips = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4])
raw = open(src, "rb").read()
out = {}
for seed in seeds:
    r = random.Random(seed)
    b = bytearray(raw)
    for _ in range(flips):
        i = r.randrange(len(b))
        b[i] ^= 1 << r.randrange(8)
    path = f"{folder}/f{seed}.ttf"
    open(path, "wb").write(bytes(b))
    try:
        _register(f"F{seed}", path)
        out[seed] = "ok"
    except FontError as exc:
        out[seed] = "error: " + str(exc)
    except BaseException as exc:
        out[seed] = f"crash: {type(exc).__name__}"
print(json.dumps(out))
"""


@pytest.mark.slow
def test_flipped_bytes_under_a_memory_cap(tmp_path: Path) -> None:
    """200 flipped bytes in Vollkorn-Bold, 16 seeds (0-15; the unchecked font exhausted 1 GB for
    seeds 0, 4, 6 and 12 in reportlab's format-12 loop), loaded under a 1 GB RLIMIT_AS."""
    seeds = list(range(16))
    done = subprocess.run([sys.executable, "-c", CHILD, str(FONTS / "Vollkorn-Bold.ttf"), str(tmp_path),
                           json.dumps(seeds), "200"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout)
    assert set(out) == {str(s) for s in seeds}
    crashes = {s: v for s, v in out.items() if not (v == "ok" or v.startswith("error: "))}
    assert not crashes
    assert all("is damaged" in out[str(s)] and "character map" in out[str(s)] for s in (0, 4, 6, 12)), out


def test_a_ctrl_c_while_reportlab_parses_a_font_is_an_interruption_not_a_damaged_font(tmp_path: Path) -> None:
    """reportlab's TrueType parser wraps its reads in a bare ``except:``, so a Ctrl-C landing
    there became "not a usable TrueType font" (exit 2; seen in the start-up Ctrl-C test). The
    parse runs with SIGINT held back: the interruption arrives after it, as itself."""
    import os
    import signal

    from reportlab.pdfbase import ttfonts

    from pnp.layout import fonts

    font = tmp_path / "Interrupted.ttf"
    font.write_bytes((bundled_root() / "fonts" / "Lato-Regular.ttf").read_bytes())
    real = ttfonts.TTFontParser.read_ulong
    sent: list[bool] = []

    def interrupted(self: object) -> int:
        if not sent:  # the first read: the sfnt version, inside reportlab's try/bare except
            sent.append(True)
            os.kill(os.getpid(), signal.SIGINT)  # as a user's Ctrl-C would, mid-parse
        return real(self)

    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(ttfonts.TTFontParser, "read_ulong", interrupted)
            with pytest.raises(KeyboardInterrupt):
                fonts._register("Interrupted-Font", str(font))
    finally:
        signal.signal(signal.SIGINT, old)
        fonts._register.cache_clear()


def _table(raw: bytes, tag: bytes) -> tuple[int, int]:
    """(offset, length) of the font's table ``tag``."""
    (n,) = struct.unpack(">H", raw[4:6])
    for i in range(n):
        entry = raw[12 + 16 * i:28 + 16 * i]
        if entry[:4] == tag:
            return struct.unpack(">II", entry[8:16])
    raise AssertionError(f"no {tag!r} table")


@pytest.mark.parametrize(("table", "edit", "said"), [
    # attack 7: Lato's OS/2 table overwritten with 0xff loads (ascent and descent both -0.5), and
    # laying out text then divided by zero (exit 3 at the build)
    (b"OS/2", lambda raw, at, n: raw.__setitem__(slice(at, at + n), b"\xff" * n),
     r"is damaged: its ascent and descent \(-0.5 and -0.5 thousandths of the size\) leave a line no height"),
    # attack 8 (borderline): the message was "cannot be read: division by zero"
    (b"head", lambda raw, at, n: raw.__setitem__(slice(at + 18, at + 20), b"\x00\x00"),  # unitsPerEm
     r"is damaged: a scale in its tables \(such as its units per em\) is 0"),
    # attack 14, F6: a name table of zeros; the message was reportlab's own AttributeError
    (b"name", lambda raw, at, n: raw.__setitem__(slice(at, at + n), b"\x00" * n),
     r"is damaged: its 'name' table gives no PostScript name \(name ID 6\)"),
    # attack 15, F3: the strings' offset past the table: NULs from elsewhere became the font's
    # PDF name "#0#0#0...", invalid PDF syntax; and a record past the table's end
    (b"name", lambda raw, at, n: raw.__setitem__(slice(at + 4, at + 6), (65000).to_bytes(2, "big")),
     r"is damaged: its 'name' table's strings start at byte 65000, past its end"),
    (b"name", lambda raw, at, n: raw.__setitem__(slice(at + 6 + 10, at + 6 + 12), (65000).to_bytes(2, "big")),
     r"is damaged: its 'name' table's name 1 \(bytes \d+ to \d+\) runs past its end"),
    (b"name", lambda raw, at, n: raw.__setitem__(slice(at + 2, at + 4), b"\xff\xff"),
     r"is damaged: its 'name' table lists 65535 names, more than its \d+ bytes hold"),
])
def test_a_font_with_impossible_metrics_is_refused_as_damaged(tmp_path: Path, table: bytes, edit: Any,
                                                             said: str) -> None:
    """Refused where it is registered, naming the file and what is wrong."""
    from pnp.layout import fonts

    raw = bytearray((FONTS / "Lato-Bold.ttf").read_bytes())
    edit(raw, *_table(bytes(raw), table))
    font = tmp_path / "Damaged.ttf"
    font.write_bytes(bytes(raw))
    try:
        with pytest.raises(fonts.FontError, match=said):
            fonts._register(f"Damaged-{table.decode().strip('/')}", str(font))
    finally:
        fonts._register.cache_clear()


def test_a_truetype_font_reportlab_refuses_gets_no_cff_advice(tmp_path: Path) -> None:
    """A .ttf whose metrics count is 0 is "not a usable TrueType font": the advice is to replace
    it, not the CFF .otf one (attack 17 borderline); a CFF font (OTTO) still gets that."""
    from pnp.layout import fonts

    raw = bytearray((FONTS / "Lato-Bold.ttf").read_bytes())
    at, _ = _table(bytes(raw), b"hhea")
    raw[at + 34:at + 36] = b"\x00\x00"  # numberOfHMetrics 0
    font = tmp_path / "Zero.ttf"
    font.write_bytes(bytes(raw))
    try:
        with pytest.raises(fonts.FontError) as info:
            fonts._register("Zero-Metrics", str(font))
        assert "not a usable TrueType font" in str(info.value)
        assert info.value.hint == "replace the file (a fresh download or another copy)"
    finally:
        fonts._register.cache_clear()


def test_a_font_mapping_more_characters_than_one_subset_holds_is_used(tmp_path: Path) -> None:
    """An intact font mapping 40,000 characters (a format-13 map, as pan-Unicode fonts have) was
    refused as damaged: checking it embeds, pnp subset every character at once, more than
    reportlab's 32,762 ("'H' format requires ...", attack 25 F1). It is checked in parts now."""
    from pnp.layout import fonts

    raw = bytearray((FONTS / "Vollkorn-Bold.ttf").read_bytes())
    pos = _fmt12(bytes(raw))
    raw[pos:pos + 2] = struct.pack(">H", 13)  # every group maps its characters to one glyph
    raw[pos + 16:pos + 28] = struct.pack(">III", 0x20000, 0x20000 + 39_999, 3)
    cmap, _ = _table(bytes(raw), b"cmap")
    for k in range(2):  # the format-4 maps before it made ISO (2, n), which pnp's writer passes over:
        raw[cmap + 4 + 8 * k:cmap + 6 + 8 * k] = struct.pack(">H", 2)  # the format-13 map is the font's only one
    font = tmp_path / "Wide.ttf"
    font.write_bytes(bytes(raw))
    try:
        fonts._register("Wide", str(font))
    finally:
        fonts._register.cache_clear()


def test_a_legacy_windows_character_map_last_is_unsupported_not_damage(tmp_path: Path) -> None:
    """reportlab reads the last Windows (platform 3) character map whatever its encoding: a
    ShiftJIS (3, 2) map after the Unicode one failed in reportlab (IndexError), called damage
    (attack 25, F2). It is named, as a font pnp cannot use."""
    from pnp.layout import fonts

    raw = bytearray((FONTS / "Vollkorn-Bold.ttf").read_bytes())
    cmap, _ = _table(bytes(raw), b"cmap")
    (count,) = struct.unpack(">H", raw[cmap + 2:cmap + 4])
    last = cmap + 4 + 8 * (count - 1)
    assert struct.unpack(">H", raw[last:last + 2])[0] == 3  # the Unicode map reportlab reads
    raw[last + 2:last + 4] = struct.pack(">H", 2)  # now said to be ShiftJIS
    font = tmp_path / "Legacy.ttf"
    font.write_bytes(bytes(raw))
    try:
        with pytest.raises(fonts.FontError, match=r"cannot be used: its last Windows character map, the one "
                           r"pnp's PDF writer reads, is encoded in ShiftJIS \(platform 3, encoding 2\), not Unicode"):
            fonts._register("Legacy", str(font))
    finally:
        fonts._register.cache_clear()


def test_a_glyph_of_too_many_outline_points_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """PDFium rasterises each glyph's outline in time with its points: a font whose "A" was one
    outline of 20,000 points took 40 s to export, counted 1 s (attack 26, F3). check_font gives
    the most points of one glyph (a composite's parts together; the bundled fonts' 100-850), and
    refuses a font past MAX_GLYPH_POINTS, naming the glyph."""
    import pnp.layout.fontcheck as fontcheck

    most = {path.stem: check_font(path.read_bytes())[0] for path in FONTS.glob("*.ttf")}
    assert min(most.values()) >= 100 and max(most.values()) <= 1000, most
    monkeypatch.setattr(fontcheck, "MAX_GLYPH_POINTS", most["Vollkorn-Bold"] - 1)
    with pytest.raises(fontcheck.FontUnsupported, match=rf"has an outline of {most['Vollkorn-Bold']} points, more "
                       rf"than pnp draws \({most['Vollkorn-Bold'] - 1}"):
        check_font((FONTS / "Vollkorn-Bold.ttf").read_bytes())


def test_a_last_resort_map_after_a_fuller_one_is_unsupported() -> None:
    """reportlab reads the last Windows map: a format-13 one (whole ranges of characters to one
    glyph, as a "last resort" font has) after the font's full format-4 map printed every text as
    that glyph, with a warning a character (attack 26, borderline). It is named now."""
    from pnp.layout.fontcheck import FontUnsupported

    raw = bytearray((FONTS / "Vollkorn-Bold.ttf").read_bytes())
    pos = _fmt12(bytes(raw))
    raw[pos:pos + 2] = struct.pack(">H", 13)
    with pytest.raises(FontUnsupported, match="is a format-13 map giving whole ranges of characters one glyph"):
        check_font(bytes(raw))


def test_a_font_of_long_outlines_counts_them_in_the_pixel_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """A glyph of one self-crossing outline of 4,900 points, 2,400 ems long, took 125 ms to
    rasterise at an em of 450 px, counted 1 ms (attack 26, F3): the longest outline of a font's
    glyphs (each contour's control polygon, in ems) past OUTLINE_EMS_FREE counts for every glyph
    of it, at its size and the dpi. The bundled fonts' longest are 8-13 ems: nothing more."""
    from pnp.layout.primitives import Text
    from pnp.render import pixels

    longest = {path.stem: check_font(path.read_bytes())[1] for path in FONTS.glob("*.ttf")}
    assert min(longest.values()) > 5 and max(longest.values()) < pixels.OUTLINE_EMS_FREE, longest
    text = Text(0.0, 0.0, "AAAA", "Zigzag", 27.0, "#000000")  # an em of 450 px at 1,200 dpi
    plain = pixels.prim_art([text])
    monkeypatch.setitem(pixels.GLYPH_OUTLINE, "Zigzag", 2420.0)
    zigzag = pixels.prim_art([text])
    assert plain.outlined == 0 and zigzag.outlined == 4 * 2400 * 27
    extra = zigzag.glyphs_at(1200) - plain.glyphs_at(1200)
    assert extra == pytest.approx(4 * 2400 * 27 * 1200 / 72 * pixels.OUTLINE_PIXELS, rel=1e-6)
    assert extra * pixels.NS_PER_PIXEL / 4 >= 125e6  # ns a glyph: at least the 125 ms measured
