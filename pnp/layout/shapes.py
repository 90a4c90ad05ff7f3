"""The geometry of drawn shapes that is not text: track spaces, hexagons, icons (SVG paths scaled
to a box) and image sizes."""

from __future__ import annotations

import math
import os
import re
import stat
from collections.abc import Mapping
from functools import cache, lru_cache
from itertools import pairwise
from pathlib import Path
from typing import Any

from pnp.input.model import Game
from pnp.layout.paths import PathError, parse_path
from pnp.layout.primitives import Ellipse, Paint, Primitive, Rect
from pnp.layout.primitives import Path as PathPrim

MIN_ICON_STROKE = 0.25  # pt: icon lines scale with the icon but never below this (preflight's threshold)


def track_points(path: list[tuple[float, float]], n: int, closed: bool, spacing: float | None
                 ) -> list[tuple[float, float]] | None:
    """``n`` points along a polyline (mm): evenly from start to end, evenly around a closed
    loop, or ``spacing`` apart from the start (None when they do not fit)."""
    pts = [*path, path[0]] if closed and len(path) > 1 else list(path)
    segs = [(a, b, math.dist(a, b)) for a, b in pairwise(pts)]
    total = sum(s[2] for s in segs)
    if spacing is not None:
        if (n - 1) * spacing > total + 1e-9:
            return None
        dists = [i * spacing for i in range(n)]
    elif n == 1 or total == 0:
        dists = [0.0] * n
    else:
        dists = [total * i / (n if closed else n - 1) for i in range(n)]
    out = []
    for dist in dists:
        for a, b, length in segs:
            if dist <= length + 1e-9 or (a, b, length) == segs[-1]:
                t = min(dist / length, 1.0) if length else 0.0
                out.append((a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t))
                break
            dist -= length
        else:
            out.append(pts[0])
    return out


def hex_points(x: float, y: float, w: float, h: float, orientation: str, grow: float = 0.0
               ) -> list[tuple[float, float]]:
    """A regular-looking hexagon filling the box; ``grow`` pushes every edge out by that distance."""
    cx, cy = x + w / 2, y + h / 2
    if orientation == "pointy":
        rx, ry = w / 2, h / 2
        pts = [(cx, cy + ry), (cx + rx, cy + ry / 2), (cx + rx, cy - ry / 2), (cx, cy - ry),
               (cx - rx, cy - ry / 2), (cx - rx, cy + ry / 2)]
    else:
        rx, ry = w / 2, h / 2
        pts = [(cx - rx, cy), (cx - rx / 2, cy + ry), (cx + rx / 2, cy + ry), (cx + rx, cy),
               (cx + rx / 2, cy - ry), (cx - rx / 2, cy - ry)]
    if grow:
        # Offset each vertex along its bisector so edges move out by `grow` (apothem-based).
        k = grow / math.cos(math.pi / 6)
        pts = [(px + (px - cx) / math.hypot(px - cx, py - cy) * k,
                py + (py - cy) / math.hypot(px - cx, py - cy) * k) for px, py in pts]
    return pts


def _polygon_ops(pts: list[tuple[float, float]]):
    ops = [("M", pts[0])] + [("L", p) for p in pts[1:]] + [("Z", ())]
    return tuple((o, tuple(p)) for o, p in ops)


def icon_primitives(spec: Mapping[str, Any], x: float, y: float, w: float, h: float,
                    fg: str, bg: str, accent: str) -> list[Primitive]:
    """Scale an icon's viewbox (y down) into the box (x, y = bottom-left, pt, y up)."""
    vw, vh = spec.get("viewbox", [100, 100])
    sx, sy = w / vw, h / vh
    s = min(sx, sy)
    yh = y + h
    names = {"fg": fg, "bg": bg, "accent": accent, "none": None}

    out: list[Primitive] = []
    for sh in spec["shapes"]:
        fill = sh.get("fill")
        fill = "fg" if fill is None else fill
        fill = names.get(fill, fill)
        stroke = sh.get("stroke")
        stroke = "none" if stroke is None else stroke
        stroke = names.get(stroke, stroke)
        width = float(sh.get("stroke_width", 6)) * s
        if stroke is not None and 0 < width < MIN_ICON_STROKE:
            width = MIN_ICON_STROKE  # an icon drawn small keeps lines that print
        paint = Paint(fill=fill, stroke=stroke, stroke_width=width, fill_rule=sh.get("fill_rule", "nonzero"))
        if "circle" in sh:
            cx, cy, r = sh["circle"]
            out.append(Ellipse(x + (cx - r) * sx, yh - (cy + r) * sy, 2 * r * sx, 2 * r * sy, paint))
        elif "ellipse" in sh:
            cx, cy, rx, ry = sh["ellipse"]
            out.append(Ellipse(x + (cx - rx) * sx, yh - (cy + ry) * sy, 2 * rx * sx, 2 * ry * sy, paint))
        elif "rect" in sh:
            rx0, ry0, rw, rh = sh["rect"]
            out.append(Rect(x + rx0 * sx, yh - (ry0 + rh) * sy, rw * sx, rh * sy, paint,
                            float(sh.get("radius", 0)) * s))
        elif "polygon" in sh or "polyline" in sh:
            pts = [(x + px * sx, yh - py * sy) for px, py in sh.get("polygon", sh.get("polyline"))]
            ops = [("M", pts[0])] + [("L", p) for p in pts[1:]]
            if "polygon" in sh:
                ops.append(("Z", ()))
            out.append(PathPrim(tuple(ops), paint))
        else:
            pops: list[tuple[str, tuple[float, ...]]] = []
            for op, pts in _parsed(sh["path"]):
                if op == "Z":
                    pops.append(("Z", ()))
                else:
                    conv: list[float] = []
                    for i in range(0, len(pts), 2):
                        conv.append(x + pts[i] * sx)
                        conv.append(yh - pts[i + 1] * sy)
                    pops.append((op, tuple(conv)))
            out.append(PathPrim(tuple(pops), paint))
    return out


@cache
def _parsed(d: str):
    ops = parse_path(d)
    # Like the schema's bounds on circle/rect/polygon numbers: nothing sensible lies further out, and
    # scaled up such numbers would be written into the PDF as hundreds of digits.
    if any(abs(v) > 100000 for op in ops for v in op.pts):
        raise PathError("path coordinates out of range (more than 100000 viewbox units)")
    return ops


MAX_IMAGE_PIXELS = 50_000_000  # ~200 MB decoded as RGBA; 7,000 x 7,000 px, a 59 cm square at 300 ppi
# Decoded bytes of one image as its header declares them (width x height x channels x bits per
# sample / 8): a 16-bit RGBA pixel is 8 bytes. An A3 page at 300 ppi is 70 MB as 8-bit RGBA,
# 104 MB as 16-bit RGB.
MAX_IMAGE_BYTES = 128 << 20
# Pixels of a game's distinct image files together. A PDF holds every image's stream until it
# is written, and pnp decodes each to 4 bytes a pixel (RGB or CMYK, plus alpha) to draw it.
MAX_GAME_IMAGE_PIXELS = 50_000_000
_PNG_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}  # by PNG colour type: grey, RGB, palette, grey+alpha, RGBA
IMAGE_FORMATS = ("PNG", "JPEG")


class _Refused(ValueError):
    """What pnp itself finds wrong with an image (a ValueError like every answer of image_size),
    told apart from the ValueErrors Pillow raises in its own words."""


def image_size(path: str) -> tuple[int, int]:
    """The pixel size of the image file at ``path``, after reading it whole (what drawing it will
    do), so that anything that would fail later fails here, as a ValueError saying why: not a
    regular file, not a PNG or JPEG, more than MAX_IMAGE_PIXELS pixels (checked from the header,
    before decoding), a JPEG of too many scans over its pixels (MAX_JPEG_SCAN_PIXELS), truncated
    or corrupt data. Remembered per file version (size, mtime)."""
    w, h, _ = _image(path)
    return w, h


def image_work(path: str) -> int:
    """What decoding the image file at ``path`` once costs, in pixels of a baseline decode: its
    pixels, times 1 more for every JPEG_SCANS_PER_DECODE scans of a progressive JPEG (libjpeg
    decodes every scan over the whole image: 4.7 ns a pixel baseline, 12 ns in 10 scans,
    measured with Pillow). Checked as ``image_size``."""
    w, h, scans = _image(path)
    return w * h * (1 + scans // JPEG_SCANS_PER_DECODE)


def _image(path: str) -> tuple[int, int, int]:
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise ValueError("is not a regular file")
    return _checked_image(path, st.st_size, st.st_mtime_ns)


# A JPEG's scans (SOS segments) times its pixels, at most: libjpeg decodes every scan over the
# whole coefficient buffer, ~0.6-0.7 ns a pixel a scan. A 156 KB progressive JPEG of 16 million
# pixels whose last scan was repeated 2,000 times took 19 s to check and 64 s to export at 50 dpi
# (attack 24, F2); a camera's or editor's progressive JPEG has about 10 scans (50 million pixels
# in 40 scans fit: ~1.4 s a decode).
MAX_JPEG_SCAN_PIXELS = 2_000_000_000
JPEG_SCANS_PER_DECODE = 5
_JPEG_MARKER = re.compile(rb"\xff+[^\x00\xff\xd0-\xd7]")  # after a scan's data: the next marker


def jpeg_scans(path: str) -> int:
    """The scans (SOS segments) of the JPEG file at ``path``, read segment by segment, each scan's
    entropy-coded data skipped to the marker after it (mapped, not read into memory); a damaged
    file counts what was found before the damage (the decoder says what is wrong)."""
    import mmap

    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size < 4:
            return 0
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
            n, pos, scans = len(m), 2, 0
            while pos + 4 <= n and m[pos] == 0xFF:
                marker = m[pos + 1]
                if marker == 0xFF:  # a fill byte
                    pos += 1
                elif marker == 0xD9:  # end of image
                    break
                elif 0xD0 <= marker <= 0xD7 or marker == 0x01:  # no length
                    pos += 2
                elif marker != 0xDA:
                    pos += 2 + (m[pos + 2] << 8 | m[pos + 3])
                else:
                    scans += 1
                    found = _JPEG_MARKER.search(m, pos + 2 + (m[pos + 2] << 8 | m[pos + 3]))  # type: ignore[call-overload]
                    if found is None:
                        break
                    pos = found.end() - 2
            return scans


@lru_cache(maxsize=256)
def _checked_image(path: str, size: int, mtime_ns: int) -> tuple[int, int, int]:
    import warnings

    from PIL import Image as PILImage

    damaged = png_header_problem(path)  # Pillow takes a PNG with a bad header CRC for no image at all
    if damaged:
        raise _Refused(damaged)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # Pillow's DecompressionBombWarning, truncated-data warnings
            with PILImage.open(path, formats=IMAGE_FORMATS) as im:  # reads the header only
                w, h = im.size
                if w * h > MAX_IMAGE_PIXELS:
                    raise _Refused(f"has {w} x {h} = {w * h} pixels, more than pnp's limit of "
                                   f"{MAX_IMAGE_PIXELS} (checked before decoding)")
                declared = _declared_bytes(im)
                if declared > MAX_IMAGE_BYTES:
                    raise _Refused(f"is {w} x {h} pixels of {declared / (w * h):g} bytes each, {declared} bytes "
                                   f"decoded, more than pnp's limit of {MAX_IMAGE_BYTES} bytes an image (checked "
                                   "before decoding; save it with 8 bits a channel, or smaller)")
                png = im.format == "PNG"
                scans = 0 if png else jpeg_scans(path)
                if scans * w * h > MAX_JPEG_SCAN_PIXELS:
                    raise _Refused(f"is a JPEG of {scans} scans over its {w} x {h} pixels, which decoding goes "
                                   f"through each time: {scans * w * h} scan-pixels, more than pnp's limit of "
                                   f"{MAX_JPEG_SCAN_PIXELS} (checked before decoding; save it again as a baseline "
                                   "JPEG, or a progressive one of the usual 10 scans)")
                im.load()  # decodes every pixel: broken or truncated data fails here, not in the PDF
            if png:
                # Pillow fills the rows a complete but short zlib stream leaves out (transparent
                # black, no error even with LOAD_TRUNCATED_IMAGES off): count them from the file
                short = png_data_short(path)
                if short:
                    raise _Refused(f"is corrupt: {short}")
            return (w, h, scans)
    except _Refused:
        raise
    except ValueError as exc:  # Pillow's own, in its words ("Decompressed data too large for ...")
        if "MAX_TEXT_CHUNK" in str(exc) or "MAX_TEXT_MEMORY" in str(exc):
            icc = _png_chunk_size(path, b"iCCP")  # Pillow says the same of an embedded colour profile
            if icc is not None:
                raise ValueError(f"holds an embedded colour profile (iCCP chunk, {icc:,} bytes packed) that "
                                 "decompresses to more than the decoder's limit of 1 MB; save the image again "
                                 "without its colour profile, or with a small one such as sRGB") from None
            raise ValueError("holds text metadata (tEXt, zTXt or iTXt chunks) that decompresses to more than "
                             "the decoder's limit (1 MB a chunk, 64 MB in all); save the image again without "
                             "its metadata") from None
        raise ValueError(f"cannot be decoded ({exc})") from None
    except (PILImage.DecompressionBombError, PILImage.DecompressionBombWarning):  # Pillow's own limits, at open
        raise ValueError(f"has more pixels than pnp's limit of {MAX_IMAGE_PIXELS} (checked before decoding)") from None
    except PILImage.UnidentifiedImageError:
        with open(path, "rb") as f:  # Pillow says so of a PNG whose chunks after its header are damaged too
            head = f.read(8)
        if head == PNG_SIGNATURE:
            raise ValueError("is a damaged PNG: it starts as one, but the decoder cannot read its chunks "
                             "(save it again)") from None
        raise ValueError("is not a PNG or JPEG file") from None
    except (OSError, SyntaxError, EOFError, Warning, MemoryError) as exc:
        raise ValueError(f"cannot be decoded ({type(exc).__name__}: {exc})") from None


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_ADAM7 = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2))
_INFLATE_STEP = 1 << 22  # bytes inflated at a time while counting: memory stays near this


def _png_chunk_size(path: str, kind: bytes) -> int | None:
    """The length of the first chunk ``kind`` of the PNG at ``path`` (before its image data), or
    None: read from the chunk headers, seeking past their data."""
    import struct

    with open(path, "rb") as f:
        if f.read(8) != PNG_SIGNATURE:
            return None
        while len(head := f.read(8)) == 8:
            length, name = struct.unpack(">I", head[:4])[0], head[4:]
            if name == kind:
                return length
            if name in (b"IDAT", b"IEND"):
                return None
            f.seek(length + 4, os.SEEK_CUR)
    return None


def png_header_problem(path: str) -> str | None:
    """For a file that starts as a PNG: what is wrong with its header chunk (IHDR: first, 13 bytes,
    its CRC right) or, for a palette image (colour type 3), the lack of a palette (PLTE) before its
    image data, in words after "is" ("is a damaged PNG: ..."); None when they are fine, and for a
    file that is no PNG (the decoder says what it is). Reads chunk headers only, seeking past their
    data."""
    import struct
    import zlib

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a file swapped for a pipe cannot block
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return "is not a regular file"
    with os.fdopen(fd, "rb") as f:
        if f.read(8) != PNG_SIGNATURE:
            return None
        first = f.read(25)
        if len(first) < 25 or first[4:8] != b"IHDR" or struct.unpack(">I", first[:4])[0] != 13:
            if len(first) < 25:
                what = "is cut short"
            elif first[4:8] != b"IHDR":
                what = f"is missing: the first chunk is {first[4:8].decode('latin-1')!r}"
            else:
                what = "is not 13 bytes long"
            return f"is a damaged PNG: its header chunk (IHDR) {what}"
        crc = struct.unpack(">I", first[21:25])[0]
        if zlib.crc32(first[4:21]) != crc:
            return ("is a damaged PNG: its header chunk (IHDR) has a bad CRC (the checksum does not match its "
                    "bytes)")
        if first[17] != 3:  # the colour type: not a palette image
            return None
        for _ in range(10_000):  # chunks before the image data; a palette must come before it
            head = f.read(8)
            if len(head) < 8:
                break
            length, kind = struct.unpack(">I4s", head)
            if kind == b"PLTE":
                return None
            if kind in (b"IDAT", b"IEND"):
                break
            f.seek(length + 4, os.SEEK_CUR)
        return "is a damaged PNG: a palette image (colour type 3) without a PLTE chunk, so its colours are unknown"


def png_data_short(path: str) -> str | None:
    """For the PNG file at ``path``: None when its image data (the IDAT chunks, inflated) holds
    every row its header declares, else what it holds, in words ("its image data ends after row
    100 of 3000"). Counts the inflated bytes without keeping them; each row is a filter byte and
    ceil(width x bits a pixel / 8) bytes, per Adam7 pass for an interlaced image."""
    import struct
    import zlib

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a file swapped for a pipe cannot block
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise _Refused("is not a regular file")
    with os.fdopen(fd, "rb") as f:
        if f.read(8) != PNG_SIGNATURE:
            return None  # not a PNG: the decoder said what it is
        ihdr: bytes = b""
        inflater = zlib.decompressobj()
        produced = 0
        try:
            while not inflater.eof:
                head = f.read(8)
                if len(head) < 8:
                    break
                length, kind = struct.unpack(">I4s", head)
                if kind == b"IHDR":
                    ihdr = f.read(min(length, 13))
                    f.seek(length - len(ihdr) + 4, os.SEEK_CUR)
                elif kind == b"IDAT":
                    left = length
                    while left and not inflater.eof:
                        data = f.read(min(left, 1 << 20))
                        if not data:
                            break
                        left -= len(data)
                        while data and not inflater.eof:
                            produced += len(inflater.decompress(data, _INFLATE_STEP))
                            data = inflater.unconsumed_tail
                    f.seek(left + 4, os.SEEK_CUR)
                elif kind == b"IEND":
                    break
                else:
                    f.seek(length + 4, os.SEEK_CUR)
        except zlib.error as exc:
            return f"its image data cannot be inflated ({exc})"
    if len(ihdr) < 13:
        return None  # the decoder read a header: not ours to second-guess
    w, h, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", ihdr)
    bits = _PNG_CHANNELS.get(colour, 4) * depth

    def row(width: int) -> int:
        return 1 + (width * bits + 7) // 8

    if not interlace:
        if produced >= h * row(w):
            return None
        return f"its image data ends after row {produced // row(w)} of {h}"
    passes = [((h - y0 + dy - 1) // dy, (w - x0 + dx - 1) // dx) for x0, y0, dx, dy in _ADAM7]
    need = sum(ph * row(pw) for ph, pw in passes if ph and pw)
    if produced >= need:
        return None
    return f"its image data holds {produced} of the {need} bytes its {w} x {h} interlaced pixels need"


def _declared_bytes(im: Any) -> int:
    """Decoded bytes of the image opened as ``im`` (header read, pixels not), as its header
    declares them: width x height x channels x bits per sample / 8, at least a byte a pixel."""
    w, h = im.size
    if im.format == "PNG":
        fp = im.fp
        pos = fp.tell()
        fp.seek(24)
        depth, colour = fp.read(2)
        fp.seek(pos)
        per_pixel = _PNG_CHANNELS.get(colour, 4) * depth / 8
    else:  # JPEG: 8 bits a sample (12-bit JPEGs Pillow does not open), one byte a band
        per_pixel = len(im.getbands()) * max(8, getattr(im, "bits", 8)) / 8
    return max(w * h, math.ceil(w * h * per_pixel))


def _image_size(path: str) -> tuple[int, int]:
    """``image_size``, or (0, 0) for a file it refuses."""
    try:
        return image_size(path)
    except (OSError, ValueError):
        return (0, 0)


def image_root(game: Game) -> Path:
    return game.folder

