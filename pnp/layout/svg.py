"""SVG art: an ``image`` (or an icon) may be an ``.svg`` file, drawn as vectors. svglib reads the
file into a reportlab Drawing (maintained, pure Python over lxml, and its output is reportlab's
own drawing operations, so the art stays vector and lands in the same PDF stream as everything
else); the renderer draws that Drawing scaled into the element's box.

Checked before svglib sees the file, with the same kind of message as a bad PNG: at most
``MAX_BYTES`` and ``MAX_NODES`` elements; well-formed XML with an ``<svg>`` root; no entity
declarations (a DOCTYPE with an internal subset: "billion laughs"); no reference to another file
(``href`` other than ``#id``): the art must be self-contained, as an image inside the game folder
is; no embedded raster image (``data:`` URLs: svglib cannot draw them); at most
``MAX_PATH_CHARS`` characters of path data; no ``<text>``: svglib would set it in a standard PDF font
that is not embedded (print shops reject those), so text must be converted to outlines."""

from __future__ import annotations

import logging
import math
import os
from functools import lru_cache
from typing import Any

MAX_BYTES = 10 * 1024 * 1024  # 10 MB of SVG is far more than card art needs
MAX_NODES = 100_000  # elements; each becomes at least one drawing operation on every piece
MAX_PATH_CHARS = 1_000_000  # of path data (d, points) in all: a 1,000,000-segment path took minutes and GBs
TEXT_TAGS = frozenset(("text", "tspan", "textPath", "flowRoot", "flowPara"))
EXPECTED = "a self-contained SVG file (an <svg> root, shapes and paths, text converted to outlines)"


class SvgError(Exception):
    def __init__(self, message: str, expected: str = EXPECTED, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.expected = expected
        self.hint = hint
        self.key = "src"


def is_svg(path: str) -> bool:
    return path.lower().endswith(".svg")


def svg_art(path: str, shown: str) -> tuple[float, float]:
    """The width and height (pt) of the SVG file at ``path`` (``shown``: its name in messages),
    after the checks above; SvgError when it fails one."""
    st = os.stat(path)
    return _art(path, st.st_mtime_ns, st.st_size, shown)[1:]  # type: ignore[return-value]


def svg_drawing(path: str) -> Any:
    """The checked file's reportlab Drawing (read once per file version)."""
    st = os.stat(path)
    return _art(path, st.st_mtime_ns, st.st_size, os.path.basename(path))[0]


@lru_cache(maxsize=64)
def _art(path: str, mtime: int, size: int, shown: str) -> tuple[Any, float, float]:
    if size > MAX_BYTES:
        raise SvgError(f"SVG {shown!r} is {size / 1e6:.1f} MB", expected=f"at most {MAX_BYTES // 1024 // 1024} MB",
                       hint="simplify the art, or export it as a PNG")
    from lxml import etree  # only SVG art needs them

    parser = etree.XMLParser(resolve_entities=False, no_network=True, remove_comments=True, huge_tree=False)
    try:
        doc = etree.parse(path, parser)
    except (etree.XMLSyntaxError, OSError) as exc:
        raise SvgError(f"SVG {shown!r} cannot be read: {exc}",
                       hint="open it in an SVG editor and save it again") from None
    root = doc.getroot()
    if doc.docinfo.internalDTD is not None:
        raise SvgError(f"SVG {shown!r} declares entities in a DOCTYPE",
                       hint="save it again without a DOCTYPE (SVG editors do not need one)")
    if etree.QName(root).localname != "svg":
        raise SvgError(f"SVG {shown!r} has a <{etree.QName(root).localname}> root, not <svg>")
    count = 0
    empty = []  # text elements without text (editors leave them): dropped, so svglib never looks up a font
    path_chars = [0]  # path data read so far
    for node in root.iter():
        if not isinstance(node.tag, str):
            continue  # processing instructions
        count += 1
        if count > MAX_NODES:
            raise SvgError(f"SVG {shown!r} has more than {MAX_NODES} elements",
                           expected=f"at most {MAX_NODES} elements", hint="simplify the art, or export it as a PNG")
        name = etree.QName(node).localname
        if name in TEXT_TAGS:
            if "".join(node.itertext()).strip():
                raise SvgError(f"SVG {shown!r} has text (<{name}> on line {node.sourceline})",
                               hint="convert the text to outlines (Inkscape: Path > Object to Path; Illustrator: "
                               "Type > Create Outlines): its font would not be embedded in the PDF")
            empty.append(node)
        for attr, value in node.attrib.items():
            if etree.QName(attr).localname == "href":
                v = value.strip()
                if v.startswith("data:"):
                    # svglib cannot draw an embedded raster image (it failed deep in the drawing)
                    raise SvgError(f"SVG {shown!r} embeds a raster image (line {node.sourceline})",
                                   hint="use an image element for the raster image, and SVG for vector art only")
                if not v.startswith("#"):
                    raise SvgError(f"SVG {shown!r} refers to another file ({v[:60]!r} on line {node.sourceline})",
                                   hint="embed the referenced art in the SVG file itself")
            elif etree.QName(attr).localname in ("d", "points"):
                path_chars[0] += len(value)
                if path_chars[0] > MAX_PATH_CHARS:
                    raise SvgError(f"SVG {shown!r} has more than {MAX_PATH_CHARS} characters of path data",
                                   hint="simplify the paths (fewer nodes), or export the art as a PNG")
    for node in empty:
        if node.getparent() is not None:
            node.getparent().remove(node)
    from svglib.svglib import SvgRenderer

    log = logging.getLogger("svglib.svglib")
    quiet, log.disabled = log.disabled, True  # svglib logs unsupported features; the art is drawn without them
    try:
        drawing = SvgRenderer(path, external_reference_root=os.path.dirname(path)).render(root)
    except Exception as exc:  # svglib raises what its parsing meets; any of it means the file is unusable
        raise SvgError(f"SVG {shown!r} cannot be drawn: {exc}",
                       hint="open it in an SVG editor and save it as plain SVG") from None
    finally:
        log.disabled = quiet
    w, h = float(drawing.width or 0), float(drawing.height or 0)
    if not (math.isfinite(w) and math.isfinite(h)) or w <= 0 or h <= 0 or w > 1e5 or h > 1e5:
        raise SvgError(f"SVG {shown!r} has no usable size ({w:g} x {h:g})",
                       expected="an <svg> with a width and height, or a viewBox")
    return drawing, w, h
