"""The bad-input catalogue: one small fixture per case in ``tests/bad_inputs/<case>/``, each holding
only the files that differ from ``tests/data/mini`` (the test copies mini and lays the case over
it). For every case, ``pnp check`` and ``pnp build`` must

- exit 2 with no traceback,
- report the exact class of message at the exact file, line, column and JSON path,
- say what to do about it (an ``expected`` or a ``hint``), and
- write nothing: no output folder appears, and an output folder from an earlier build keeps
  every byte.

Cases that need something git cannot hold (a symlink pointing out of the game folder, an output
path under a regular file, a game id with path characters) set it up at run time."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import Result
from conftest import BAD_INPUTS, TEST_DATA, assert_no_traceback, run_cli
from PIL import Image

from pnp.input.project import bundled_root

CASES_DIR = BAD_INPUTS
DECK = "card_data/mini/deck.json"
GAME = "card_data/mini/game.json"
CARD = "templates/mini/card.json"
BASE = "templates/mini/base.json"
BACK = "templates/mini/back.json"

# file:line:col: $.path: message (expected ...); hint
DIAG = re.compile(r"^(?:warning: )?(?P<file>[^:]+)(?::(?P<line>\d+))?(?::(?P<col>\d+))?: (?P<path>\$\S*): "
                  r"(?P<message>.*)$")


@dataclass(frozen=True)
class Case:
    name: str  # the folder in tests/bad_inputs (or a run-time case)
    where: str  # "file:line:col" (or "file:line", or just "file") of the first diagnostic
    path: str  # its JSON path
    fragment: str  # a stable part of its message: the class of problem
    setup: Callable[[Path, Path], None] | None = None  # (data root, scratch folder) -> None
    game: str = "mini"
    strict: bool = False  # a warning that only --strict turns into an error
    options: tuple[str, ...] = ()  # given to check and build alike (e.g. --one-per-page)


def _png_outside_via_symlink(root: Path, scratch: Path) -> None:
    """``card_data/mini/art/sun.png`` is a link to a valid PNG outside the game folder."""
    outside = scratch / "elsewhere"
    outside.mkdir()
    Image.new("RGB", (4, 4), "red").save(outside / "sun.png")
    (root / "card_data" / "mini" / "art").mkdir(parents=True)
    os.symlink(outside / "sun.png", root / "card_data" / "mini" / "art" / "sun.png")


def _png(w: int, h: int, idat: bytes, depth: int = 8, colour: int = 2) -> bytes:
    """A PNG file with valid chunk CRCs around whatever ``idat`` holds."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, colour, 0, 0, 0))
            + chunk(b"IDAT", idat) + chunk(b"IEND", b""))


def _art(root: Path) -> Path:
    art = root / "card_data" / "mini" / "art"
    art.mkdir(parents=True, exist_ok=True)
    return art / "sun.png"


_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'


def _svg_css_cost(root: Path, scratch: Path) -> None:
    """200 universal rules over 2,000 elements (13 KB): the attack's 2,000 over 20,000 (0.8 MB)
    took 74 s of CPU in svglib and was accepted."""
    rules = "".join(f"*:not(.q{i}) *{{fill:#f00}}" for i in range(200))
    rects = '<rect width="1" height="1"/>' * 2000
    _art(root).with_suffix(".svg").write_text(f"{_SVG}<style>{rules}</style>{rects}</svg>")


def _svg_wide_strokes(root: Path, scratch: Path) -> None:
    """Attack 15, F4 (smaller): 2,000 lines corner to corner, 8 units wide in a 10-unit art, at
    stroke-opacity 0.5, each painting the whole art, and 300 dots filled and stroked 8 wide at
    fill-opacity 0.5 (PDFium draws each into a bitmap of its box grown by the stroke), 210 KB:
    charged as the art's box alone before."""
    line = '<line x1="0" y1="0" x2="10" y2="10" stroke="#f00" stroke-width="8" stroke-opacity="0.5"/>'
    dot = '<circle cx="5" cy="5" r="1" fill="#000" fill-opacity="0.5" stroke="#f00" stroke-width="8"/>'
    _art(root).with_suffix(".svg").write_text(_SVG + line * 2000 + dot * 300 + "</svg>")


def _svg_css_bytes(root: Path, scratch: Path) -> None:
    """140 KB of trivial rules: 700,000 of them (9.8 MB) took 1.4 GB in svglib."""
    _art(root).with_suffix(".svg").write_text(_SVG + "<style>" + "rect{fill:red}" * 10_000 + "</style>"
                                              '<rect width="5" height="5"/></svg>')


def _svg_path_malformed(root: Path, scratch: Path) -> None:
    """svglib said "range() arg 3 must not be zero"."""
    _art(root).with_suffix(".svg").write_text(_SVG + '<g>\n<path d="M 0 0 L Q Z 1e999"/></g></svg>')


def _bomb(root: Path, scratch: Path) -> None:
    """30,000 x 30,000 one-bit pixels (900 Mpx, 110 MB decoded) in a ~110 KB file."""
    z = zlib.compressobj(9)
    row = b"\x00" * (1 + 30000 // 8)
    _art(root).write_bytes(_png(30000, 30000, b"".join(z.compress(row) for _ in range(30000)) + z.flush(), 1, 0))


def _text_bomb(root: Path, scratch: Path) -> None:
    """A 4 x 4 PNG whose zTXt chunk inflates to 2 MB (Pillow's limit is 1 MB a chunk): Pillow's
    own words ("Decompressed data too large for PngImagePlugin.MAX_TEXT_CHUNK") were the message."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    png = _png(4, 4, zlib.compress(b"\x00" * (1 + 4 * 3) * 4))
    ztxt = chunk(b"zTXt", b"Comment\x00\x00" + zlib.compress(b"a" * (2 << 20), 9))
    _art(root).write_bytes(png[:33] + ztxt + png[33:])  # after IHDR (8 + 25 bytes)


def _icc_bomb(root: Path, scratch: Path) -> None:
    """A 4 x 4 PNG whose colour profile (iCCP) inflates to 2 MB: Pillow says the same as of a
    text chunk, and the message named text metadata the file does not have (attack 8, F4)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    png = _png(4, 4, zlib.compress(b"\x00" * (1 + 4 * 3) * 4))
    iccp = chunk(b"iCCP", b"profile\x00\x00" + zlib.compress(b"a" * (2 << 20), 9))
    _art(root).write_bytes(png[:33] + iccp + png[33:])


def _palette_without_plte(root: Path, scratch: Path) -> None:
    """A 40 x 30 palette PNG (colour type 3) with no PLTE chunk: Pillow opened it as grey."""
    _art(root).write_bytes(_png(40, 30, zlib.compress(b"\x00" * 41 * 30), colour=3))


def _header_bad_crc(root: Path, scratch: Path) -> None:
    """A valid PNG whose IHDR CRC has one bit flipped: Pillow called it no image at all."""
    data = bytearray(_png(40, 30, zlib.compress(b"\x00" * 121 * 30)))
    data[32] ^= 1  # the IHDR's CRC: its last byte (8 signature + 4 length + 4 type + 13 data + 4 CRC)
    _art(root).write_bytes(bytes(data))


def _damaged_chunk_name(root: Path, scratch: Path) -> None:
    """A valid PNG whose image data chunk's name is damaged: Pillow calls it no image at all
    (attack 16: "is not a PNG or JPEG file")."""
    data = _png(40, 30, zlib.compress(b"\x00" * 121 * 30))
    at = data.index(b"IDAT")
    _art(root).write_bytes(data[:at] + b"IDAX" + data[at + 4:])


def _corrupt_stream(root: Path, scratch: Path) -> None:
    """Every chunk's CRC is right; the image data is not a zlib stream."""
    _art(root).write_bytes(_png(40, 30, b"\x78\x9c" + bytes(range(200))))


def _truncated_jpeg(root: Path, scratch: Path) -> None:
    buf = io.BytesIO()
    Image.new("RGB", (300, 200), (10, 200, 30)).save(buf, "JPEG")
    _art(root).write_bytes(buf.getvalue()[:600])


def _damaged_font(root: Path, scratch: Path) -> None:
    """The bundled Lato-Bold with one byte of its character map changed (found by fuzzing):
    reportlab loads it, and failed only when embedding its subset in the PDF (IndexError: exit 3
    after a clean check); the glyph it maps a character to lies past the font's last."""
    raw = bytearray((bundled_root() / "fonts" / "Lato-Bold.ttf").read_bytes())
    raw[13642] = 224
    (root / "fonts").mkdir(exist_ok=True)
    (root / "fonts" / "Lato-Bold.ttf").write_bytes(bytes(raw))


def _sfnt_table(raw: bytes, tag: bytes) -> tuple[int, int, int]:
    """(directory record position, offset, length) of the table ``tag`` of a TrueType file."""
    for i in range(struct.unpack(">H", raw[4:6])[0]):
        rec = 12 + 16 * i
        if raw[rec:rec + 4] == tag:
            offset, length = struct.unpack(">II", raw[rec + 8:rec + 16])
            return rec, offset, length
    raise AssertionError(f"no {tag!r} table")


def _cmap_huge_font(root: Path, scratch: Path) -> None:
    """Vollkorn-Bold (as Lato-Bold, the font the mini title uses) with the end code of its
    format-12 character map's first group at 0x0f00000d: one byte changed. Unchecked, reportlab
    maps 251 million characters, more than 2 GB (issue 19, F3)."""
    raw = bytearray((bundled_root() / "fonts" / "Vollkorn-Bold.ttf").read_bytes())
    _, cmap, _ = _sfnt_table(bytes(raw), b"cmap")
    subtables = [struct.unpack(">HHI", raw[cmap + 4 + 8 * i:cmap + 12 + 8 * i])
                 for i in range(struct.unpack(">H", raw[cmap + 2:cmap + 4])[0])]
    fmt12 = cmap + next(off for platform, enc, off in subtables if (platform, enc) == (3, 10))
    assert struct.unpack(">H", raw[fmt12:fmt12 + 2])[0] == 12
    raw[fmt12 + 20] = 0x0F  # the first group's end code: high byte
    (root / "fonts").mkdir(exist_ok=True)
    (root / "fonts" / "Lato-Bold.ttf").write_bytes(bytes(raw))


def _table_outside_font(root: Path, scratch: Path) -> None:
    """Lato-Bold whose table directory gives 'glyf' a length past the end of the file."""
    raw = bytearray((bundled_root() / "fonts" / "Lato-Bold.ttf").read_bytes())
    rec, _, _ = _sfnt_table(bytes(raw), b"glyf")
    raw[rec + 12:rec + 16] = struct.pack(">I", 10_000_000)
    (root / "fonts").mkdir(exist_ok=True)
    (root / "fonts" / "Lato-Bold.ttf").write_bytes(bytes(raw))


def _deep_png(root: Path, scratch: Path) -> None:
    """4,200 x 4,000 pixels of 16-bit RGBA: 16.8 Mpx (under the pixel limit), 134.4 MB decoded as
    declared (over the byte limit), in a ~130 KB file (issue 19, F2)."""
    z = zlib.compressobj(9)
    row = b"\x00" * (1 + 4200 * 8)
    _art(root).write_bytes(_png(4200, 4000, b"".join(z.compress(row) for _ in range(4000)) + z.flush(), 16, 6))


def _two_big_pngs(root: Path, scratch: Path) -> None:
    """Two one-bit images of 5,100 x 5,000 pixels: each within the limits, 51 Mpx together."""
    z = zlib.compressobj(9)
    row = b"\x00" * (1 + 5100 // 8 + 1)
    data = _png(5100, 5000, b"".join(z.compress(row) for _ in range(5000)) + z.flush(), 1, 0)
    _art(root).write_bytes(data)
    (_art(root).parent / "moon.png").write_bytes(data)


def _fifo(root: Path, scratch: Path) -> None:
    """A named pipe where the image should be: opening it for reading would block forever."""
    os.mkfifo(_art(root))


def _style_chain_cycle(root: Path, scratch: Path) -> None:
    """2,000 styles in base.json, each extending the next, the last extending the first: a chain
    far deeper than Python's recursion limit, closed into a cycle (attack 13, F6)."""
    base = root / BASE
    data = json.loads(base.read_text())
    data["styles"].update({f"s{i}": {"extends": f"s{(i - 1) % 2000}"} for i in range(2000)})
    base.write_text(json.dumps(data, indent=1) + "\n")


def _long_component_title(root: Path, scratch: Path) -> None:
    """A 2 MB component title (attack 13, F9: it passed `check`, and `build` took ~9 s and ~160 MB
    a MB laying out the sheets' labels and the contents sheet)."""
    game = root / GAME
    game.write_text(game.read_text().replace('"title": "Deck"', '"title": "' + "word " * 400_000 + '"'))


# -- issue 19, the independent attack (F4, F5, F6, F8, F10): set up at run time

QUOTES = "The deck has 5 cards. Every card is different.\n"  # what mini's rules quote


def _document_link_out(root: Path, scratch: Path) -> None:
    """The game's document is a link to a file outside the data root holding the quotes (F4)."""
    (scratch / "secret.txt").write_text(QUOTES)
    os.symlink(scratch / "secret.txt", root / "card_data" / "mini" / "mini.txt")


def _document_fifo(root: Path, scratch: Path) -> None:
    os.mkfifo(root / "card_data" / "mini" / "mini.txt")


def _document_too_large(root: Path, scratch: Path) -> None:
    from pnp.qa.check import MAX_DOCUMENT_BYTES

    assert MAX_DOCUMENT_BYTES == 4 << 20  # docs/data-format.md gives this cap and its measured worst case
    unit = QUOTES.encode() + b"word " * 1000 + b"\n"
    (root / "card_data" / "mini" / "mini.txt").write_bytes((unit * (MAX_DOCUMENT_BYTES // len(unit) + 1))
                                                          [:MAX_DOCUMENT_BYTES + 1])


def _document_outside(root: Path, scratch: Path) -> None:
    """The file ``document.file`` names by climbing out of the game folder exists."""
    (scratch / "outside.txt").write_text(QUOTES)


def _template_fifo(root: Path, scratch: Path) -> None:
    card = root / "templates" / "mini" / "card.json"
    card.unlink()
    os.mkfifo(card)


def _link_loop(rel: str) -> Callable[[Path, Path], None]:
    """``rel`` is a link to itself: following it is a loop (Path.resolve raises RuntimeError)."""
    def setup(root: Path, scratch: Path) -> None:
        (root / rel).unlink()
        os.symlink(Path(rel).name, root / rel)
    return setup


def _manifest_fifo(root: Path, scratch: Path) -> None:
    manifest = root / "card_data" / "mini" / "game.json"
    manifest.unlink()
    os.mkfifo(manifest)


def _folder_linked_out(rel: str) -> Callable[[Path, Path], None]:
    def setup(root: Path, scratch: Path) -> None:
        (scratch / "elsewhere").mkdir()
        shutil.move(root / rel, scratch / "elsewhere" / Path(rel).name)
        os.symlink(scratch / "elsewhere" / Path(rel).name, root / rel)
    return setup


def _short_png(interlace: int) -> Callable[[Path, Path], None]:
    """A 400 x 300 RGB PNG whose complete zlib stream holds the first 10 rows only (F8); interlaced,
    10 rows of the first Adam7 pass (50 pixels wide, 151 bytes a row with its filter byte)."""
    def setup(root: Path, scratch: Path) -> None:
        rows = [b"\x00" * 151] * 10 if interlace else [b"\x00" + bytes([i]) * 1200 for i in range(10)]
        data = _png(400, 300, zlib.compress(b"".join(rows)))
        if interlace:  # the IHDR's last byte, and its CRC
            ihdr = data[12:29][:-1] + b"\x01"
            data = data[:8] + struct.pack(">I", 13) + ihdr + struct.pack(">I", zlib.crc32(ihdr)) + data[33:]
        _art(root).write_bytes(data)
    return setup


def _game_named_preview(root: Path, scratch: Path) -> None:
    """mini renamed ``preview``: `pnp preview` writes out/preview/ (F10)."""
    game = root / "card_data" / "mini"
    (game / "game.json").write_text((game / "game.json").read_text().replace('"id": "mini"', '"id": "preview"'))
    game.rename(root / "card_data" / "preview")


CASES = [
    # -- invalid JSON: syntax, encoding, non-standard or absurd numbers, depth
    Case("json-trailing-comma", f"{DECK}:15:43", "$", "invalid JSON: trailing comma before '}'"),
    Case("json-unclosed-string", f"{DECK}:20:25", "$", "invalid JSON: unterminated string"),
    Case("json-bom", f"{DECK}:1:1", "$", "file starts with a UTF-8 byte order mark (BOM)"),
    Case("json-empty-file", f"{DECK}:1:1", "$", "file is empty"),
    Case("json-not-utf8", f"{DECK}:27:19", "$", "not valid UTF-8 (byte 0xe9)"),
    Case("json-duplicate-key", f"{DECK}:22:7", "$.items[1].suit", 'duplicate key "suit" in one object'),
    Case("json-nan", f"{DECK}:22:16", "$.items[1].power", "NaN is not a JSON number"),
    Case("json-huge-number", f"{DECK}:6:51", "$.fields.power.max", "number 1e999 is too large"),
    Case("json-nested-too-deep", f"{CARD}:9:502", "$.elements[2].when" + ".not" * 61,
         "JSON nested too deeply (more than 64 levels)"),
    # -- wrong types
    Case("wrong-type-item-field", f"{DECK}:14:16", "$.items[0].power", 'wrong type: string "1"'),
    Case("wrong-type-manifest", f"{GAME}:4:22", "$.players.min", 'wrong type: string "one"'),
    Case("wrong-type-template-box", f"{CARD}:7:44", "$.elements[1].box", 'wrong type: string "3, 2, 38, 8"'),
    # -- missing required fields
    Case("missing-item-field", f"{DECK}:25:5", "$.items[2]", "missing required field 'name'"),
    Case("missing-manifest-field", f"{GAME}:1:1", "$", "missing required field 'title'"),
    Case("missing-component-template", f"{GAME}:7:5", "$.components[0]", "missing required field 'template'"),
    # -- unknown fields (typos), with a suggestion
    Case("unknown-item-field", f"{DECK}:14:7", "$.items[0].powr", "unknown field 'powr'"),
    Case("unknown-manifest-field", f"{GAME}:11:7", "$.components[0].shpae", "unknown field 'shpae'"),
    Case("unknown-template-key", f"{CARD}:6:59", "$.elements[0].fil", "unknown field 'fil'"),
    # a dash length that rounds to 0 wrote an invalid PDF dash array "[0 0]" (attack 13, F2)
    Case("dash-too-fine", f"{CARD}:7:36", "$.elements[0].dash[0]", "number 1e-300 is out of range"),
    Case("enum-value", f"{DECK}:21:15", "$.items[1].suit", 'value "star" is not allowed'),
    # -- copies and absurd sizes
    Case("copies-negative", f"{DECK}:11:17", "$.items[0].copies", "number -2 is out of range"),
    Case("copies-zero", f"{DECK}:11:17", "$.items[0].copies", "number 0 is out of range"),
    Case("items-empty", f"{DECK}:24:12", "$.items", "[] should be non-empty"),
    Case("copies-fraction", f"{DECK}:11:17", "$.items[0].copies", "wrong type: number 2.5"),
    Case("copies-billion", f"{DECK}:11:17", "$.items[0].copies", "number 1000000000 is out of range"),
    Case("size-zero", f"{GAME}:12:16", "$.components[0].size[0]", "number 0 is out of range"),
    Case("size-ten-metres", f"{GAME}:12:16", "$.components[0].size[0]", "number 10000 is out of range"),
    Case("font-size-zero", f"{BASE}:6:44", "$.styles.title.size", "number 0 is out of range"),
    Case("icon-number-huge", f"{BASE}:10:65", "$.icons.sun-mark.shapes[0].circle[2]", "number 1e+300 is out of range"),
    Case("pieces-too-many", f"{DECK}:8:12", "$.items", "1000003 pieces in one component"),
    Case("shapes-too-many", f"{CARD}:14:9", "$.elements[4].elements[0].elements[0]",
         "more than 20000 shapes on one piece"),
    Case("shapes-budget", f"{CARD}:12:5", "$.elements[4]", "this element draws at least 90000 shapes (counting "
         "3 for each text it lays out) on each of 3 distinct pieces of component deck (game mini): the pieces of "
         "this command come to at least 270010 shapes, more than pnp's budget of"),
    # -- identities and references
    Case("duplicate-item-id", f"{DECK}:18:13", "$.items[1].id", "duplicate item id 'sun-1' (first at line 9)"),
    Case("game-id-mismatch", f"{GAME}:2:9", "$.id", "game id 'maxi' differs from its folder name 'mini'"),
    Case("data-file-missing", f"{GAME}:13:15", "$.components[0].data", "data file 'decks.json' not found"),
    Case("data-file-path", f"{GAME}:13:15", "$.components[0].data", 'invalid value "../../deck.json"'),
    Case("corner-radius-too-big", f"{GAME}:16:24", "$.components[0].corner_radius",
         "corner_radius 30 mm is more than half the shorter side (44 mm)"),
    Case("unknown-template", f"{GAME}:14:19", "$.components[0].template", "template 'mini/crad' not found"),
    Case("extends-unknown", f"{BACK}:3:14", "$.extends", "template 'mini/bsae' not found"),
    Case("extends-cycle", f"{BASE}:3:14", "$.extends", "`extends` cycle: mini/card -> mini/base -> mini/card"),
    Case("component-title-too-long", f"{GAME}:9:16", "$.components[0].title",
         "text of 2,000,000 characters is too long", setup=_long_component_title),
    Case("style-extends-deep-cycle", f"{BASE}:30:15", "$.styles.s1.extends",
         "style `extends` cycle: s0 -> s1999 -> s1998 -> s1997 -> s1996 -> s1995 -> ... (1989 more) -> s5 -> s4 "
         "-> s3 -> s2 -> s1 -> s0", setup=_style_chain_cycle),
    Case("unknown-element-type", f"{CARD}:6:28", "$.elements[0].type", 'value "rectangle" is not allowed'),
    Case("unknown-icon", f"{CARD}:8:67", "$.elements[2].name", "unknown icon 'sun-icon'"),
    Case("unknown-style", f"{CARD}:7:86", "$.elements[1].style", "unknown style 'heading'"),
    Case("unknown-colour", f"{CARD}:8:88", "$.elements[2].fg", "unknown colour 'inc'"),
    Case("field-ref-missing", f"{CARD}:10:54", "$.elements[3].text", "unknown field {pwr}"),
    Case("filter-unknown", f"{CARD}:7:67", "$.elements[1].text", "unknown filter |shout"),
    Case("when-field-missing", f"{CARD}:11:24", "$.elements[3].when.field", "unknown field 'powers'"),
    # a wrong value inside one form of a union (a condition, a rulebook value): named at its key, not
    # as "unknown field" against another form (attack 13, F10)
    Case("condition-wrong-type", f"{CARD}:9:43", "$.elements[2].when.present", 'wrong type: string "yes"'),
    Case("condition-not-an-object", f"{GAME}:24:60", "$.rulebook[0].values[0].pieces.where",
         'wrong type: string "suit=sun"'),
    Case("rule-value-wrong-type", f"{GAME}:24:29", "$.rulebook[0].values[0].pieces", 'wrong type: string "deck"'),
    Case("rule-forms-combined", f"{GAME}:26:5", "$.rulebook[1]",
         "combines 'field' and 'fields', which belong to different forms"),
    Case("rule-unknown-component", f"{GAME}:24:43", "$.rulebook[0].values[0].pieces.component",
         "rule 'deck-5': unknown component 'decks'"),
    # a rule's arithmetic beyond a double's range (issue 19, F8): inf = inf passed, inf - inf failed as nan
    Case("rule-product-overflow", f"{GAME}:24:18", "$.rulebook[0].values[0]",
         "rule 'deck-5': the product (1e+300 x 1e+300) overflows: it reaches beyond the largest number"),
    Case("rule-product-overflow-int", f"{GAME}:24:18", "$.rulebook[0].values[0]",
         "rule 'deck-5': the product (1e+300 x 1e+300 x 1e+300) overflows"),
    Case("rule-sum-overflow", f"{GAME}:24:27", "$.rulebook[0].values[0].sum[0]",
         "rule 'deck-5': the product (1e+308 x 10) overflows"),
    # -- fonts
    Case("font-missing", f"{CARD}:7:5", "$.elements[1]", "font 'Lato-Bolt' not found"),
    Case("font-not-truetype", f"{CARD}:7:5", "$.elements[1]", "font 'Notes-Regular' ("),
    Case("font-cff-otf", f"{CARD}:7:5", "$.elements[1]", "postscript outlines are not supported"),
    # -- images
    Case("image-missing", f"{CARD}:12:54", "$.elements[4].src", "image 'art/sun.png' not found"),
    Case("image-corrupt", f"{CARD}:12:54", "$.elements[4].src", "image 'art/sun.png' cannot be read"),
    Case("image-escape-relative", f"{CARD}:12:54", "$.elements[4].src",
         "image '../../../../../../etc/passwd' is outside the game folder"),
    Case("image-escape-absolute", f"{CARD}:12:54", "$.elements[4].src",
         "image '/etc/passwd' is outside the game folder"),
    Case("image-symlink-out", f"{CARD}:12:54", "$.elements[4].src", "image 'art/sun.png' is outside the game folder",
         setup=_png_outside_via_symlink),
    # -- hostile input, round two (issue 19): bounded resources, patterns, regular files, exit 2
    Case("game-pieces-too-many", f"{GAME}:11:17", "$.components", "240000 pieces in the game's components together"),
    # the page budget (pnp.plan.budget): what the pieces become with the options given
    Case("pages-tiled-boards", f"{GAME}:7:5", "$.components[0]",
         "component deck of game mini would print 26664 pages, each piece tiled over several pages, with these "
         "options (303 pieces)"),
    Case("pages-one-per-page", f"{GAME}:7:5", "$.components[0]",
         "component deck of game mini would print 25202 pages with these options (12601 pieces)",
         options=("--one-per-page",)),
    Case("size-below-floor", f"{GAME}:12:20", "$.components[0].size[1]", "number 2 is out of range"),
    Case("image-svg-css-cost", f"{CARD}:12:54", "$.elements[4].src",
         "SVG 'art/sun.svg' has a <style> whose 200 selectors would take up to", setup=_svg_css_cost),
    Case("image-svg-wide-strokes", f"{CARD}:12:5", "$.elements[4]",
         "the pieces this command lays out draw more than", setup=_svg_wide_strokes),
    Case("icon-stroke-too-wide", f"{BASE}:10:120", "$.icons.sun-mark.shapes[0].stroke_width",
         "icon 'sun-mark': a stroke 300 units wide in a viewbox of 100"),
    Case("image-svg-css-bytes", f"{CARD}:12:54", "$.elements[4].src",
         "SVG 'art/sun.svg' has 140,000 bytes of <style> text (line 1)", setup=_svg_css_bytes),
    Case("image-svg-path-malformed", f"{CARD}:12:54", "$.elements[4].src",
         "SVG 'art/sun.svg' cannot be drawn: <path d=...> on line 2 has 'L' without its 2 numbers",
         setup=_svg_path_malformed),
    Case("image-bomb", f"{CARD}:12:54", "$.elements[4].src", "more pixels than pnp's limit of 50000000",
         setup=_bomb),
    Case("image-text-bomb", f"{CARD}:12:54", "$.elements[4].src",
         "image 'art/sun.png' cannot be read: it holds text metadata (tEXt, zTXt or iTXt chunks) that decompresses "
         "to more than the decoder's limit", setup=_text_bomb),
    Case("image-icc-bomb", f"{CARD}:12:54", "$.elements[4].src",
         "image 'art/sun.png' cannot be read: it holds an embedded colour profile (iCCP chunk, ", setup=_icc_bomb),
    Case("image-corrupt-stream", f"{CARD}:12:54", "$.elements[4].src", "cannot be decoded", setup=_corrupt_stream),
    Case("image-palette-without-plte", f"{CARD}:12:54", "$.elements[4].src",
         "image 'art/sun.png' cannot be read: it is a damaged PNG: a palette image (colour type 3) without a PLTE "
         "chunk", setup=_palette_without_plte),
    Case("image-header-bad-crc", f"{CARD}:12:54", "$.elements[4].src",
         "image 'art/sun.png' cannot be read: it is a damaged PNG: its header chunk (IHDR) has a bad CRC",
         setup=_header_bad_crc),
    Case("image-chunk-name-damaged", f"{CARD}:12:54", "$.elements[4].src",
         "image 'art/sun.png' cannot be read: it is a damaged PNG: it starts as one, but the decoder cannot read "
         "its chunks", setup=_damaged_chunk_name),
    Case("image-truncated-jpeg", f"{CARD}:12:54", "$.elements[4].src", "cannot be decoded", setup=_truncated_jpeg),
    Case("image-fifo", f"{CARD}:12:54", "$.elements[4].src", "image 'art/sun.png' is not a regular file",
         setup=_fifo),
    Case("font-damaged", f"{CARD}:7:5", "$.elements[1]", "Lato-Bold.ttf) is damaged: its character map maps U+1F80 "
         "to glyph 59969, past its 3026 glyphs", setup=_damaged_font),
    Case("font-cmap-huge", f"{CARD}:7:5", "$.elements[1]",
         "Lato-Bold.ttf) is damaged: its character map maps code 0xf00000d, past Unicode's last",
         setup=_cmap_huge_font),
    Case("font-table-outside", f"{CARD}:7:5", "$.elements[1]",
         "Lato-Bold.ttf) is damaged: its 'glyf' table (bytes", setup=_table_outside_font),
    Case("image-bytes-over-limit", f"{CARD}:12:54", "$.elements[4].src",
         "134400000 bytes decoded, more than pnp's limit of 134217728 bytes an image", setup=_deep_png),
    Case("images-over-game-budget", f"{CARD}:13:54", "$.elements[5].src",
         "to 51000000 pixels together, more than pnp's budget of 50000000 a game", setup=_two_big_pngs),
    Case("text-lone-surrogate", f"{DECK}:12:15", "$.items[0].name", "text holds a lone surrogate"),
    Case("text-control-character", f"{GAME}:3:12", "$.title", "text holds the control character U+001B"),
    Case("regex-backreference-nested", f"{CARD}:8:30", "$.elements[1].replace[0].pattern",
         "alternatives (|) (it could take exponential time)"),
    # RE2 is linear in the text, but its factor is the compiled program's size, and a search may
    # read to the end of the text once per match: patterns are held to a size and a cost per piece.
    Case("regex-program-too-large", f"{CARD}:8:30", "$.elements[1].replace[0].pattern",
         "compiles to 18005 instructions (more than 5000)"),
    Case("regex-cost-over-budget", f"{CARD}:10:74", "$.elements[1].replace[5].pattern",
         "on a text of 7168 characters brings this piece's `replace` patterns to more than 50000000 steps"),
    # Fitting a text measures it at each size tried: a piece's texts together are held to FIT_WORK
    # characters (here a `repeat` of 100 texts of 1,799 characters shrinking from 400 pt by 0.05).
    Case("fit-work-over-budget", f"{CARD}:14:15", "$.elements[4].elements[0].fit",
         "laying out this piece's texts measures more than 1000000 characters (each size tried measures "
         "a whole text: this one, 1799 characters, 12 times)"),
    Case("regex-lookaround-nested", f"{CARD}:9:14", "$.elements[2].when",
         "a repetition inside a repeated group (it could take exponential time)"),
    Case("regex-group-name-twice", f"{CARD}:9:14", "$.elements[2].when",
         "invalid regular expression '(?P<s>sun)|(?P<s>moon)': group name 's' is used twice (groups 1 and 2)"),
    Case("replace-with-escape-control", f"{CARD}:8:45", "$.elements[1].replace[0].with",
         "the replacement '\\\\1\\\\x1b[31m' inserts the control character U+001B"),
    Case("replace-with-escape-surrogate", f"{CARD}:8:43", "$.elements[1].replace[0].with",
         "the replacement '\\\\ud800' inserts a lone surrogate"),
    Case("image-name-too-long", f"{CARD}:12:54", "$.elements[4].src",
         "name too long: a name in it is longer than 255 bytes"),
    Case("image-path-too-long", f"{CARD}:12:54", "$.elements[4].src", "name too long: it is longer than 4096 bytes"),
    Case("data-file-name-too-long", f"{GAME}:13:15", "$.components[0].data",
         "data file name too long: a name in it is longer than 255 bytes"),
    Case("component-id-reserved", f"{GAME}:8:13", "$.components[0].id",
         "component id 'mini-contents' is reserved: mini-contents.pdf is the game's contents sheet"),
    # -- issue 19, the independent attack: only regular files, only inside the root; no collisions
    Case("document-link-out", f"{GAME}:5:24", "$.document.file",
         "document 'mini.txt' (card_data/mini/mini.txt) is a link to a file outside the game folder",
         setup=_document_link_out),
    Case("document-fifo", f"{GAME}:5:24", "$.document.file",
         "document 'mini.txt' (card_data/mini/mini.txt) is not a regular file: it is a named pipe (FIFO)",
         setup=_document_fifo),
    Case("document-too-large", f"{GAME}:5:24", "$.document.file",
         "document card_data/mini/mini.txt is larger than 4194304 bytes", setup=_document_too_large),
    Case("document-path-climbs", f"{GAME}:5:24", "$.document.file",
         "/outside.txt) names a file outside the game folder",
         setup=_document_outside),
    Case("template-fifo", f"{GAME}:14:19", "$.components[0].template",
         "template 'mini/card' (templates/mini/card.json) is not a regular file: it is a named pipe (FIFO)",
         setup=_template_fifo),
    Case("data-file-link-loop", f"{GAME}:13:15", "$.components[0].data",
         "data file 'deck.json' (card_data/mini/deck.json) is not a regular file: it is a loop of links",
         setup=_link_loop(DECK)),
    Case("template-link-loop", f"{GAME}:14:19", "$.components[0].template",
         "template 'mini/card' (templates/mini/card.json) is not a regular file: it is a loop of links",
         setup=_link_loop(CARD)),
    # -- a legal measure expression whose value no piece can hold (attack4 F3: exit 3 at build)
    Case("measure-huge", f"{CARD}:6:50", "$.elements[0].box[2]",
         "'9999999999999999999999*9999999999999999999*999999999999999999999' is 1e+62 mm"),
    Case("measure-far-beyond-piece", f"{CARD}:6:50", "$.elements[0].box[2]", "'99999*99999' is 9.9998e+09 mm"),
    Case("measure-huge-relative", f"{CARD}:6:54", "$.elements[0].box[3]",
         "'h*1000' is 63000 mm for a 44 x 63 mm piece"),
    Case("manifest-fifo", GAME, "$", "game.json is not a regular file: it is a named pipe (FIFO)",
         setup=_manifest_fifo),
    Case("game-folder-link-out", "card_data/mini", "$", "the game folder is a link to a folder outside the data root",
         setup=_folder_linked_out("card_data/mini")),
    Case("templates-folder-link-out", "templates", "$",
         "the templates folder is a link to a folder outside the data root", setup=_folder_linked_out("templates")),
    Case("image-rows-missing", f"{CARD}:12:54", "$.elements[4].src",
         "image 'art/sun.png' cannot be read: it is corrupt: its image data ends after row 10 of 300",
         setup=_short_png(0)),
    Case("image-rows-missing-interlaced", f"{CARD}:12:54", "$.elements[4].src",
         "it is corrupt: its image data holds 1510 of the 360563 bytes its 400 x 300 interlaced pixels need",
         setup=_short_png(1)),
    Case("game-id-reserved", "card_data/preview", "$",
         "game id 'preview' is reserved: out/preview/ is where `pnp preview` writes its PNGs",
         game="preview", setup=_game_named_preview),
    # -- a game id with path characters (given on the command line)
    Case("game-id-parent", "../mini", "$", "invalid game id '../mini'", game="../mini"),
    Case("game-id-absolute", "/etc", "$", "invalid game id '/etc'", game="/etc"),
    Case("game-id-nested", "mini/../mini", "$", "invalid game id 'mini/../mini'", game="mini/../mini"),
    # -- text that cannot fit even at its minimum size: a warning, an error with --strict
    Case("text-does-not-fit", f"{CARD}:7:5", "$.elements[1]", "text does not fit even at 11 pt", strict=True),
]


def test_the_catalogue_is_complete() -> None:
    """Every fixture folder is a case and every fixture-backed case has its folder."""
    folders = {p.name for p in CASES_DIR.iterdir() if p.is_dir()}
    with_fixture = {c.name for c in CASES if c.game == "mini"}
    assert folders == with_fixture
    assert len(CASES) >= 30


def make_root(case: Case, scratch: Path) -> Path:
    root = scratch / "root"
    shutil.copytree(TEST_DATA / "mini", root)
    if (CASES_DIR / case.name).is_dir():
        shutil.copytree(CASES_DIR / case.name, root, dirs_exist_ok=True)
    if case.setup:
        case.setup(root, scratch)
    return root


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def previous_build(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The output of a good build of mini: what a failed build must leave untouched."""
    out = tmp_path_factory.mktemp("previous")
    r = run_cli("build", "--data", TEST_DATA / "mini", "mini", "--out", out)
    assert r.exit_code == 0, r.stderr
    files = snapshot(out)
    assert "mini/deck.pdf" in files
    return {**files, "mini/notes.txt": b"my own notes, next to the PDFs\n"}


def first_diagnostic(result: Result) -> re.Match[str]:
    lines = [ln for ln in result.stderr.splitlines() if DIAG.match(ln)]
    assert lines, result.stderr
    m = DIAG.match(lines[0])
    assert m
    return m


def assert_reported(result: Result, case: Case) -> None:
    """Exit 2, no traceback, and the case's diagnostic first, where the table says, with advice."""
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    assert_no_traceback(result)
    m = first_diagnostic(result)
    where = ":".join(x for x in (m["file"], m["line"], m["col"]) if x)
    assert (where, m["path"]) == (case.where, case.path), m.group(0)
    assert case.fragment in m["message"], m.group(0)
    assert " (expected " in m["message"] or "; " in m["message"], f"no advice: {m.group(0)}"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input(case: Case, tmp_path: Path, previous_build: dict[str, bytes],
                   monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_root(case, tmp_path)
    monkeypatch.chdir(root)  # messages name files relative to the working folder
    extra = (("--strict",) if case.strict else ()) + case.options

    # check: the message, as text ...
    r = run_cli("check", "--data", root, case.game, *extra)
    assert_reported(r, case)
    # ... and as JSON, where every error carries its advice
    j = run_cli("check", "--data", root, case.game, "--json", *extra)
    assert j.exit_code == 2
    assert_no_traceback(j)
    (game,) = json.loads(j.stdout)["games"]
    problems = game["errors"] or game["warnings"]
    assert problems
    first = problems[0]
    where = ":".join(str(x) for x in (first["file"], first["line"], first["column"]) if x is not None)
    assert (where, first["path"]) == (case.where, case.path)
    assert case.fragment in first["message"]
    for e in problems:
        assert e["expected"] or e["hint"], f"no advice in {e}"

    # build into a folder that does not exist: it must not appear
    fresh = tmp_path / "fresh-out"
    b = run_cli("build", "--data", root, case.game, "--out", fresh, *extra)
    assert_reported(b, case)
    assert "nothing was written" in b.stderr
    assert not fresh.exists()

    # build over the output of an earlier good build: every byte stays
    out = tmp_path / "out"
    for rel, data in previous_build.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_bytes(data)
    b2 = run_cli("build", "--data", root, case.game, "--out", out, *extra)
    assert_reported(b2, case)
    assert snapshot(out) == previous_build


def test_text_that_does_not_fit_is_only_a_warning_without_strict(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    case = next(c for c in CASES if c.name == "text-does-not-fit")
    root = make_root(case, tmp_path)
    monkeypatch.chdir(root)
    r = run_cli("check", "--data", root, "mini")
    assert r.exit_code == 0
    assert_no_traceback(r)
    m = first_diagnostic(r)
    assert m.group(0).startswith(f"warning: {CARD}:7:5: $.elements[1]: text does not fit even at 11 pt")
    assert "in game mini, component deck, 3 items: sun-1, moon-1, joker" in m["message"]
    assert m["message"].endswith("; shorten the text, enlarge the box or lower fit.min_size")
    b = run_cli("build", "--data", root, "mini", "--out", tmp_path / "out")
    assert b.exit_code == 0
    assert (tmp_path / "out" / "mini" / "deck.pdf").is_file()
    # the strict error is reported once, not once as a warning and again as the error
    s = run_cli("build", "--data", root, "mini", "--out", tmp_path / "strict-out", "--strict")
    assert s.exit_code == 2
    assert s.stderr.count("text does not fit") == 1


# -- folders of card_data/ that look like games and are none: checked when every game is ---------

ESC = "\x1b"


@pytest.mark.parametrize(("folder", "manifest", "expected"), [
    ("Mini", "copy", "card_data/Mini: $: folder name 'Mini' is not a valid game id, so the game in it is not checked "
     "or built (expected a game id: lowercase letters, digits and hyphens, a letter or digit first, at most 64 "
     "characters); rename the folder (and set its manifest's id to match)"),
    (f"Old {ESC}[31mDeck", "copy", "card_data/Old \\x1b[31mDeck: $: folder name 'Old \\x1b[31mDeck' is not a valid "
     "game id, so the game in it is not checked or built (expected a game id: lowercase letters, digits and "
     "hyphens, a letter or digit first, at most 64 characters); rename the folder to 'old-31mdeck' (and set its "
     "manifest's id to match)"),
    ("other", "fifo", "card_data/other/game.json: $: game.json is not a regular file: it is a named pipe (FIFO) "
     "(expected the game's manifest, a JSON file); replace it with a JSON file"),
    ("other", "folder", "card_data/other/game.json: $: game.json is not a regular file: it is a folder (expected the "
     "game's manifest, a JSON file); replace it with a JSON file"),
])
def test_a_folder_that_looks_like_a_game_and_is_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, folder: str,
                                                     manifest: str, expected: str) -> None:
    """A folder of card_data/ holding a game.json under a name that is no game id, or a game.json
    that is not a regular file, was skipped without a word: `pnp check` said all was well (or "no
    games found"). Run on every game, check, build and list name it, exit 2 and write nothing; the
    folder's escape character is shown escaped. Named on the command line, the other games are
    checked as before; folders without a game.json (notes, art) are not games and pass unmentioned."""
    root = tmp_path / "root"
    shutil.copytree(TEST_DATA / "mini", root)
    monkeypatch.chdir(root)
    (root / "card_data" / "notes").mkdir()  # no game.json: not a game, nothing to say
    (root / "card_data" / "Notes Too").mkdir()
    stray = root / "card_data" / folder
    stray.mkdir()
    if manifest == "copy":
        shutil.copy(root / "card_data" / "mini" / "game.json", stray / "game.json")
    elif manifest == "fifo":
        os.mkfifo(stray / "game.json")
    else:
        (stray / "game.json").mkdir()
    out = tmp_path / "out"
    for args in (("check",), ("build", "--out", out), ("list",)):
        r = run_cli(*args, "--data", root)
        assert r.exit_code == 2, (args, r.stdout, r.stderr)
        assert_no_traceback(r)
        assert r.stderr.splitlines() == [expected, "pnp: 1 problem in the input; nothing was written."], args
        assert ESC not in r.stdout + r.stderr
    assert not out.exists()
    named = run_cli("check", "--data", root, "mini")
    assert named.exit_code == 0, named.stderr
    if manifest == "fifo":  # named, it is that game's problem: not "no game 'other'"
        r = run_cli("check", "--data", root, "other")
        assert r.exit_code == 2
        assert expected in r.stderr
    shutil.rmtree(stray)
    assert run_cli("check", "--data", root).exit_code == 0


# -- output folders that cannot be written ------------------------------------------------------

def _output_case(tmp_path: Path, out: Path) -> Result:
    r = run_cli("build", "--data", TEST_DATA / "mini", "mini", "--out", out)
    assert r.exit_code == 2, (r.exit_code, r.stderr)
    assert_no_traceback(r)
    return r


def test_output_folder_under_a_regular_file(tmp_path: Path) -> None:
    """``--out some_file/sub``: the folder cannot be created (root can write anywhere, so this is
    the unwritable folder a test can make)."""
    blocker = tmp_path / "some_file"
    blocker.write_bytes(b"not a folder\n")
    r = _output_case(tmp_path, blocker / "sub")
    assert f"pnp: cannot create output folder {blocker / 'sub' / 'mini'}: Not a directory" in r.stderr
    assert "choose another with --out" in r.stderr
    assert blocker.read_bytes() == b"not a folder\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["some_file"]


def test_output_folder_that_is_a_file(tmp_path: Path) -> None:
    blocker = tmp_path / "out"
    blocker.write_bytes(b"x")
    r = _output_case(tmp_path, blocker)
    assert "cannot create output folder" in r.stderr and "choose another with --out" in r.stderr
    assert blocker.read_bytes() == b"x"


def test_output_pdf_path_that_is_a_folder(tmp_path: Path) -> None:
    """``out/mini/deck.pdf`` is a folder: the write fails cleanly, no temporary file is left."""
    out = tmp_path / "out"
    (out / "mini" / "deck.pdf").mkdir(parents=True)
    r = _output_case(tmp_path, out)
    assert f"pnp: cannot write {out / 'mini' / 'deck.pdf'}" in r.stderr
    assert [p.relative_to(out).as_posix() for p in out.rglob("*")] == ["mini", "mini/deck.pdf"]


def test_a_game_with_too_many_pieces_is_refused_before_its_series_expand(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack 13, F12: the game-wide piece cap was checked on the expanded items, so 40 components
    of 100,000 series pieces each (180 KB of data) took 17 s and ran out of memory first."""
    from pnp.input import model

    root = tmp_path / "root"
    shutil.copytree(TEST_DATA / "mini", root)
    shutil.copytree(CASES_DIR / "game-pieces-too-many", root, dirs_exist_ok=True)
    expanded: list[str] = []
    real = model._expand_items
    monkeypatch.setattr(model, "_expand_items", lambda doc, *a: expanded.append(doc.display) or real(doc, *a))
    for cmd in (["check", "mini"], ["list"]):
        r = run_cli(*cmd, "--data", root)
        assert r.exit_code == 2, r.output
        assert "$.components: 240000 pieces in the game's components together" in r.stderr
    assert expanded == []
