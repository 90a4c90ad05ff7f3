"""--color cmyk: PDF/X-4 files, read back with pypdf (an independent reader): output intent,
version keys, XMP, page boxes, and not one RGB colour operator or RGB image left."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageCms
from pypdf import PdfReader
from pypdf.generic import ContentStream

from pnp.impose.sheet import Edges, Page, Paper, Slot
from pnp.input.project import DataRoot, bundled_root
from pnp.layout.piece import PieceLayout
from pnp.layout.primitives import Image, Paint, Rect, Text
from pnp.plan.digest import options_key
from pnp.plan.options import BuildOptions
from pnp.plan.session import Session
from pnp.render import ink
from pnp.render.draw import DocInfo, render

ROOT = DataRoot(bundled_root())
RGB_OPS = {b"rg", b"RG"}  # DeviceRGB fill/stroke; sc/scn only follow a cs set below


def _pdf(tmp_path: Path, color: str) -> bytes:
    png = tmp_path / "art.png"
    im = PILImage.new("RGBA", (8, 8), (30, 120, 200, 255))
    im.putpixel((0, 0), (255, 0, 0, 0))  # one transparent pixel: the alpha must survive as a soft mask
    im.save(png)
    fonts = Session(ROOT).fonts
    fonts.ensure("Lato-Regular")
    prims = (Rect(0, 0, 100, 100, Paint(fill="#c81e3c")),
             Rect(10, 10, 20, 20, Paint(fill="#808080", stroke="#0000ff80", stroke_width=1)),
             Image(40, 40, 30, 30, str(png)),
             Text(5, 5, "Black text", "Lato-Regular", 9, "#000000"))
    lay = PieceLayout(100, 100, 0.0, prims)
    paper = Paper("t", 200, 200)
    pages = [Page(1, "front", (Slot(0, "front", 50, 50, 100, 100, Edges(0.0, 0.0, 0.0, 0.0)),), ()),
             Page(2, "front", (Slot(0, "front", 20, 20, 100, 100, Edges(0.0, 0.0, 0.0, 0.0)),
                               Slot(0, "front", 90, 90, 100, 100, Edges(0.0, 0.0, 0.0, 0.0))), ())]
    info = DocInfo("Test & <title>", "me", "subject", "Lato-Regular", color=color)
    return render(pages, paper, [lay], [None], fonts, info, page_boxes=True)


def _streams(reader: PdfReader) -> list[tuple[Any, Any]]:
    """(content, resources) of every page and every form XObject they use."""
    out, seen = [], set()

    def forms(res: Any) -> None:
        for x in (res.get("/XObject") or {}).values():
            obj = x.get_object()
            if obj["/Subtype"] == "/Form" and id(obj) not in seen:
                seen.add(id(obj))
                out.append((obj, obj.get("/Resources") or {}))
                forms(obj.get("/Resources") or {})

    for p in reader.pages:
        out.append((p.get_contents(), p["/Resources"]))
        forms(p["/Resources"])
    return out


def _ops(reader: PdfReader) -> list[tuple[list[Any], bytes]]:
    return [(list(args), op) for content, _ in _streams(reader)
            for args, op in ContentStream(content, reader).operations]


def _images(reader: PdfReader) -> list[Any]:
    return [x.get_object() for _, res in _streams(reader) for x in (res.get("/XObject") or {}).values()
            if x.get_object()["/Subtype"] == "/Image"]


def test_cmyk_is_pdfx4_with_the_output_intent(tmp_path: Path) -> None:
    data = _pdf(tmp_path, "cmyk")
    assert data.startswith(b"%PDF-1.6")
    r = PdfReader(io.BytesIO(data))
    root = r.trailer["/Root"]
    (intent,) = [i.get_object() for i in root["/OutputIntents"]]
    assert intent["/S"] == "/GTS_PDFX"
    assert intent["/OutputConditionIdentifier"] == "FOGRA39"
    profile = intent["/DestOutputProfile"].get_object()
    assert profile["/N"] == 4
    assert profile.get_data() == ink.PROFILE.read_bytes()
    info = r.trailer["/Info"]
    assert info["/GTS_PDFXVersion"] == "PDF/X-4"
    assert info["/Trapped"] == "/False"
    assert info["/Title"] == "Test & <title>"
    xmp = root["/Metadata"].get_object().get_data().decode("utf-8")
    assert "<pdfxid:GTS_PDFXVersion>PDF/X-4</pdfxid:GTS_PDFXVersion>" in xmp
    assert "Test &amp; &lt;title&gt;" in xmp
    assert "/ID" in r.trailer
    for p in r.pages:  # every page: both boxes, within the media box
        assert [float(v) for v in p.trimbox] and [float(v) for v in p.bleedbox]
        assert "/TrimBox" in p and "/BleedBox" in p
    assert [float(v) for v in r.pages[0].trimbox] == [50, 50, 150, 150]  # one piece: its trim
    assert [float(v) for v in r.pages[1].trimbox] == [0, 0, 200, 200]  # a sheet: the sheet


def test_cmyk_leaves_no_rgb_and_black_text_is_k_only(tmp_path: Path) -> None:
    r = PdfReader(io.BytesIO(_pdf(tmp_path, "cmyk")))
    ops = _ops(r)
    assert not [op for _, op in ops if op in RGB_OPS]
    assert not [args for args, op in ops if op in (b"cs", b"CS") and args[0] == "/DeviceRGB"]
    fills = {tuple(round(float(a), 4) for a in args) for args, op in ops if op == b"k"}
    strokes = {tuple(round(float(a), 4) for a in args) for args, op in ops if op == b"K"}
    assert (0.0, 0.0, 0.0, 1.0) in fills  # the black text: K alone, no rich black
    assert (0.0, 0.0, 0.0, round(1 - 0x80 / 255, 4)) in fills  # grey: the black plate alone
    # the red fill: what littleCMS makes of sRGB #c81e3c with the profile, asked independently
    t = ImageCms.buildTransform(ImageCms.createProfile("sRGB"), ImageCms.ImageCmsProfile(str(ink.PROFILE)),
                                "RGB", "CMYK", renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC,
                                flags=ImageCms.Flags.BLACKPOINTCOMPENSATION)
    px = ImageCms.applyTransform(PILImage.new("RGB", (1, 1), (0xC8, 0x1E, 0x3C)), t).getpixel((0, 0))
    assert tuple(round(v / 255, 4) for v in px) in fills
    assert len(strokes) == 1 and next(iter(strokes))[2] == 0.0  # the blue stroke: no yellow
    (img,) = {id(i): i for i in _images(r)}.values()
    assert img["/ColorSpace"] == "/DeviceCMYK"
    smask = img["/SMask"].get_object()
    assert smask["/ColorSpace"] == "/DeviceGray"
    assert smask.get_data()[0] == 0 and smask.get_data()[1] == 255  # the transparent pixel, then opaque
    fonts = [f.get_object() for _, res in _streams(r) for f in (res.get("/Font") or {}).values()]
    assert fonts and all("/FontFile2" in f["/FontDescriptor"] for f in fonts)  # embedded, no base-14 font


def test_rgb_is_untouched(tmp_path: Path) -> None:
    data = _pdf(tmp_path, "rgb")
    assert data.startswith(b"%PDF-1.4")
    r = PdfReader(io.BytesIO(data))
    assert "/OutputIntents" not in r.trailer["/Root"]
    assert b"k" not in {op for _, op in _ops(r)}


def test_color_is_an_option_that_keys_builds() -> None:
    assert "color" not in options_key(BuildOptions())  # RGB build records stay as they were
    assert options_key(BuildOptions(color="cmyk")) != options_key(BuildOptions())
    with pytest.raises(ValueError, match="color must be one of rgb, cmyk, not 'cmky'"):
        BuildOptions(color="cmky")


def test_an_edited_image_is_converted_again(tmp_path: Path) -> None:
    """Nothing is remembered between calls (the drawer asks once per document; a process-wide
    cache held every converted image, issue 19 F2): the same file gives equal bytes, a new object,
    and an edited file its new pixels."""
    png = tmp_path / "a.png"
    PILImage.new("RGB", (2, 2), (255, 0, 0)).save(png)
    conv = ink.Cmyk()
    first = conv.image(str(png)).getRGBData()
    again = conv.image(str(png)).getRGBData()
    assert again == first and again is not first
    PILImage.new("RGB", (2, 2), (0, 0, 255)).save(png)
    os.utime(png, ns=(1, 1))  # a different modification time, whatever the clock's resolution
    assert conv.image(str(png)).getRGBData() != first
