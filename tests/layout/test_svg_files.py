"""SVG art files as files: a compressed one (an .svgz named .svg) is refused before it is parsed.
libxml2 unpacks a gzip file it is given by name, and the size and element limits looked at the
file on disk: 272 KB of gzip holding 4,000,000 <rect/> took 2.4 GB, and under a 1.5 GB limit
said "unknown error" (attack 24, F4)."""

from __future__ import annotations

import gzip
import lzma
from pathlib import Path

import pytest

from pnp.layout.svg import SvgError, svg_art

SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="5" height="5"/></svg>'


@pytest.mark.parametrize(("pack", "kind"), [(gzip.compress, "gzip"), (lzma.compress, "xz")])
def test_a_compressed_svg_is_refused_before_it_is_parsed(tmp_path: Path, pack, kind: str) -> None:  # type: ignore[no-untyped-def]
    plain = tmp_path / "plain.svg"
    plain.write_bytes(SVG)
    assert svg_art(str(plain), "plain.svg") == (7.5, 7.5)  # px to pt
    packed = tmp_path / "art.svg"
    packed.write_bytes(pack(SVG.replace(b"</svg>", b'<rect width="1" height="1"/>' * 100_000 + b"</svg>")))
    with pytest.raises(SvgError) as exc:
        svg_art(str(packed), "art.svg")
    assert exc.value.message == f"SVG 'art.svg' is compressed ({kind}: an .svgz file)"
    assert exc.value.expected == "a plain, uncompressed SVG file"


def test_an_svg_that_is_no_regular_file_is_refused(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "art.svg"
    os.mkfifo(fifo)
    with pytest.raises(SvgError, match=r"SVG .art\.svg. cannot be read: not a regular file"):
        svg_art(str(fifo), "art.svg")


def test_a_parse_error_is_one_line_without_lxmls_string_name(tmp_path: Path) -> None:
    """lxml's message for an EBCDIC declaration held a line break and "(<string>, line 1)"
    (attack 25, borderline): one line now, naming the line and column."""
    art = tmp_path / "e.svg"
    art.write_bytes(b'<?xml version="1.0" encoding="cp037"?><svg/>')
    with pytest.raises(SvgError) as exc:
        svg_art(str(art), "e.svg")
    assert "\n" not in exc.value.message and "<string>" not in exc.value.message
    assert exc.value.message.startswith("SVG 'e.svg' cannot be read: Unsupported encoding")
