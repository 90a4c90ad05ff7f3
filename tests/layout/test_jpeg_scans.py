"""A progressive JPEG's scans: libjpeg decodes every scan over the whole image, so a 156 KB JPEG
of 16 million pixels whose last scan was repeated 2,000 times took 19 s to check and 64 s to
export at 50 dpi (attack 24, F2). Scans times pixels are held to MAX_JPEG_SCAN_PIXELS before
decoding, and the pixel budget counts a decode of many scans as more than one."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from pnp.layout.shapes import JPEG_SCANS_PER_DECODE, MAX_JPEG_SCAN_PIXELS, image_size, image_work, jpeg_scans


def _jpeg(path: Path, size: tuple[int, int], progressive: bool, repeat: int = 0) -> None:
    """A JPEG of ``size``; with ``repeat``, its last scan repeated that many more times."""
    b = io.BytesIO()
    Image.new("RGB", size, "#806040").save(b, "JPEG", progressive=progressive, quality=60)
    d = b.getvalue()
    last = d[d.rindex(b"\xff\xda"):len(d) - 2]  # the last scan, to the end-of-image marker
    path.write_bytes(d[:len(d) - 2] + last * repeat + b"\xff\xd9")


def test_scans_are_counted_segment_by_segment(tmp_path: Path) -> None:
    base, prog, many = tmp_path / "base.jpg", tmp_path / "prog.jpg", tmp_path / "many.jpg"
    _jpeg(base, (300, 200), False)
    _jpeg(prog, (300, 200), True)
    _jpeg(many, (300, 200), True, repeat=40)
    assert jpeg_scans(str(base)) == 1
    assert 6 <= jpeg_scans(str(prog)) <= 12  # libjpeg's progression
    assert jpeg_scans(str(many)) == jpeg_scans(str(prog)) + 40
    assert image_size(str(many)) == (300, 200)  # decodes
    assert image_work(str(base)) == 300 * 200
    assert image_work(str(many)) == 300 * 200 * (1 + jpeg_scans(str(many)) // JPEG_SCANS_PER_DECODE)


def test_a_jpeg_of_too_many_scans_is_refused_before_decoding(tmp_path: Path) -> None:
    art = tmp_path / "art.jpg"
    _jpeg(art, (2000, 2000), True, repeat=600)
    scans = jpeg_scans(str(art))
    assert scans * 4_000_000 > MAX_JPEG_SCAN_PIXELS
    with pytest.raises(ValueError) as exc:
        image_size(str(art))
    assert str(exc.value).startswith(f"is a JPEG of {scans} scans over its 2000 x 2000 pixels, which decoding goes "
                                     f"through each time: {scans * 4_000_000} scan-pixels, more than pnp's limit")
