"""The drawer's own fast paths give exactly the bytes of reportlab's plain calls."""

from __future__ import annotations

import io

import pytest
from reportlab.pdfgen.canvas import Canvas
from reportlab.pdfgen.textobject import PDFTextObject

from pnp.input.project import DataRoot, bundled_root
from pnp.layout.primitives import Text
from pnp.plan.session import Session
from pnp.render import draw

ROOT = DataRoot(bundled_root())


def _texts() -> list[Text]:
    latin_ext = "".join(chr(c) for c in range(0x100, 0x17F))  # with ASCII: more than one 256-code subset
    lines = ["Golem — hits 3 · move 2", "a\u00a0b no-break", "\u4e00 not in Lato", "", "Golem — hits 3 · move 2",
             latin_ext[:60], "(escaped) \\ back", latin_ext, "x" * 3, latin_ext[::-1], "Golem"]
    out = []
    for i, s in enumerate(lines * 2):  # the second round: every character already has its code
        font = "Lato-Bold" if i % 3 == 0 else "Lato-Regular"
        out.append(Text(10.0 + i, 700.0 - 12 * i, s, font, 8.5 + (i % 2), "#202020", tracking=0.3 if i == 4 else 0.0))
    return out


def _pdf(texts: list[Text]) -> bytes:
    fonts = Session(ROOT).fonts
    for name in ("Lato-Regular", "Lato-Bold"):
        fonts.ensure(name)
    buf = io.BytesIO()
    c = Canvas(buf, invariant=1, initialFontName="Lato-Regular", pageCompression=0)
    d = draw._Drawer(c, fonts)
    d.draw(texts[: len(texts) // 2])
    c.showPage()
    d.draw(texts[len(texts) // 2:])
    c.showPage()
    c.save()
    return buf.getvalue()


def test_text_fast_path_gives_reportlabs_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = _texts()
    calls = {"n": 0}
    original = PDFTextObject._formatText

    def counted(self: PDFTextObject, text: str) -> str:
        calls["n"] += 1
        return original(self, text)

    monkeypatch.setattr(PDFTextObject, "_formatText", counted)
    fast = _pdf(texts)
    fast_calls = calls["n"]
    calls["n"] = 0
    monkeypatch.setattr(draw, "_codes_for", lambda doc, name: None)
    plain = _pdf(texts)
    assert calls["n"] == len(texts)
    assert fast_calls <= len(texts) - 8  # the repeated lines whose characters all have codes took the fast path
    assert fast == plain


def test_marks_shared_by_sheets_are_stored_once_and_labels_stay_on_each_page(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Cut lines and scale marks that repeat from sheet to sheet are one form XObject (drawn
    from every such page); each page keeps its own label ("sheet i of n")."""
    import pdfplumber
    from conftest import run_cli
    from pypdf import PdfReader

    assert run_cli("build", "golems", "--out", tmp_path, "--force").exit_code == 0
    pdf = tmp_path / "golems" / "golem-deck.pdf"
    pages = PdfReader(pdf).pages
    sheet_forms = [[k for k in (p["/Resources"].get("/XObject") or {}) if k.startswith("/FormXob.sheet")]
                   for p in pages]
    shared = [f for f in sheet_forms if f]
    assert len(pages) >= 8 and len(shared) >= len(pages) - 2, sheet_forms  # all but a last odd sheet
    assert len({f[0] for f in shared}) <= 4  # a few distinct sheets (fronts, backs), not one per page
    with pdfplumber.open(pdf) as doc:
        # a label that reads upwards along an edge comes out reversed
        labels = [" ".join(w["text"] for w in p.extract_words()) for p in doc.pages]
        cuts = [sorted((round(ln["x0"], 2), round(ln["top"], 2), round(ln["x1"], 2), round(ln["bottom"], 2))
                       for ln in p.lines if abs(ln["linewidth"] - draw.CUT_WIDTH) < 1e-6) for p in doc.pages]
    n = len(pages) // 2
    for i in range(n):  # each front page names its own sheet
        label = f"front · sheet {i + 1} of {n}"
        assert label in labels[2 * i] or label[::-1] in labels[2 * i], labels[2 * i]
    assert cuts[0] and cuts[0] == cuts[2]  # the shared marks read back on every page that draws them


def test_a_drawn_document_is_let_go() -> None:
    """Each font's codes are remembered per document in a WeakKeyDictionary, whose value held the
    document: every PDF drawn stayed in memory with its images (26 MB a component for a 27 MB
    PNG, attack 7 F2). Once drawn and dropped, nothing of it is left."""
    import gc
    import weakref

    fonts = Session(ROOT).fonts
    fonts.ensure("Lato-Regular")
    fonts.ensure("Lato-Bold")
    buf = io.BytesIO()
    c = Canvas(buf, invariant=1, initialFontName="Lato-Regular")
    draw._Drawer(c, fonts).draw(_texts()[:3])
    c.showPage()
    c.save()
    doc = weakref.ref(c._doc)
    assert doc() in draw._CODES
    del c
    gc.collect()
    assert doc() is None and len(draw._CODES) == 0


def _jpeg_page(fonts, src: str) -> bytes:  # type: ignore[no-untyped-def]
    buf = io.BytesIO()
    c = Canvas(buf, invariant=1, initialFontName="Lato-Regular")
    d = draw._Drawer(c, fonts)
    d.image(src, 10, 10, 100, 100)
    d.image(src, 200, 10, 100, 100)  # the second draw refers to the stored image
    c.showPage()
    c.save()
    return buf.getvalue()


def test_a_drawn_jpeg_is_let_go_without_the_cycle_collector(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """reportlab's reader of a JPEG refers to itself, so its file bytes, decoded image and pixels
    waited for the cycle collector, which large bytes do not wake: a 25 MP JPEG drawn by 5
    components of one build kept 1.2 GB alive (attack 10, F7). With the collector off, each
    document drawing the JPEG leaves nothing of it behind: what is traced stays below one copy
    of the pixels however many documents drew it."""
    import gc
    import os
    import tracemalloc

    from PIL import Image as PILImage

    src = tmp_path / "a.jpg"
    side = 600  # 1.08 MB of pixels
    PILImage.frombytes("RGB", (side, side), os.urandom(side * side * 3)).save(src, "JPEG", quality=90)
    fonts = Session(ROOT).fonts
    fonts.ensure("Lato-Regular")
    _jpeg_page(fonts, str(src))  # fonts, modules and reportlab's own caches warmed up
    gc.collect()
    gc.disable()
    try:
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        sizes = []
        for _ in range(6):
            pdf = _jpeg_page(fonts, str(src))
            assert pdf.count(b"/DCTDecode") == 1  # stored once per document
            del pdf
            sizes.append(tracemalloc.get_traced_memory()[0] - base)
        tracemalloc.stop()
    finally:
        gc.enable()
    assert max(sizes) < side * side * 3 // 2, sizes  # not a copy of the pixels per document (6.5 MB)


def test_a_jpegs_reader_is_freed_once_drawn(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """The reader of every image a document draws is gone as soon as it is drawn (reference
    counting alone: the collector is off), JPEG and PNG alike."""
    import gc
    import weakref

    from PIL import Image as PILImage

    readers: list[weakref.ref[object]] = []

    class Watched(draw.ImageReader):  # type: ignore[misc]
        def __init__(self, name: str) -> None:
            super().__init__(name)
            readers.append(weakref.ref(self))

    monkeypatch.setattr(draw, "ImageReader", Watched)
    fonts = Session(ROOT).fonts
    fonts.ensure("Lato-Regular")
    for fmt in ("JPEG", "PNG"):
        src = tmp_path / f"a.{fmt.lower()}"
        PILImage.new("RGB", (64, 48), "#3060a0").save(src, fmt)
        gc.disable()
        try:
            _jpeg_page(fonts, str(src))
            assert readers and all(r() is None for r in readers), fmt
        finally:
            gc.enable()
        readers.clear()


def _plain_page(src: str) -> bytes:
    """What reportlab's own drawImage makes of the draws of ``_jpeg_page``."""
    from reportlab.lib.utils import ImageReader

    buf = io.BytesIO()
    c = Canvas(buf, invariant=1, initialFontName="Lato-Regular")
    c.drawImage(ImageReader(src), 10, 10, 100, 100, mask="auto")
    c.drawImage(ImageReader(src), 200, 10, 100, 100, mask="auto")
    c.showPage()
    c.save()
    return buf.getvalue()


def _smooth(path, mode: str, size: tuple[int, int]):  # type: ignore[no-untyped-def]
    from PIL import Image as PILImage

    im = PILImage.linear_gradient("L").resize(size)
    if mode != "L":
        im = PILImage.merge("RGB", (im, im.transpose(PILImage.Transpose.FLIP_LEFT_RIGHT), im)).convert(mode)
    im.save(path, "JPEG", quality=85)
    return path


def test_jpegs_named_by_bands_give_drawimages_bytes(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """A JPEG's XObject name, hashed a band of rows at a time (many bands here) or remembered
    from an earlier document, is reportlab's: the same PDF bytes as drawImage's, for grey, RGB
    and CMYK JPEGs, drawn first and drawn again."""
    from collections import OrderedDict

    monkeypatch.setattr(draw, "HASH_BAND_BYTES", 5000)
    monkeypatch.setattr(draw, "_JPEG_NAMES", OrderedDict())
    fonts = Session(ROOT).fonts
    fonts.ensure("Lato-Regular")
    for mode in ("L", "RGB", "CMYK"):
        src = str(_smooth(tmp_path / f"{mode}.jpg", mode, (301, 203)))
        plain = _plain_page(src)
        assert b"/DCTDecode" in plain
        assert _jpeg_page(fonts, src) == plain, mode  # named by hashing
        assert _jpeg_page(fonts, src) == plain, mode  # remembered
    assert len(draw._JPEG_NAMES) == 3


def test_a_jpeg_is_decoded_once_and_the_names_kept_are_bounded(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """Documents drawing a JPEG that an earlier one drew copy its bytes without decoding it;
    the names remembered stay within JPEG_NAMES_MAX, the least recently drawn going first."""
    from collections import OrderedDict

    from PIL import JpegImagePlugin

    monkeypatch.setattr(draw, "_JPEG_NAMES", OrderedDict())
    monkeypatch.setattr(draw, "JPEG_NAMES_MAX", 2)
    loads = {"n": 0}
    original = JpegImagePlugin.JpegImageFile.load

    def counted(self):  # type: ignore[no-untyped-def]
        loads["n"] += bool(self.tile)  # still to be decoded (a loaded image's load() returns at once)
        return original(self)

    monkeypatch.setattr(JpegImagePlugin.JpegImageFile, "load", counted)
    fonts = Session(ROOT).fonts
    fonts.ensure("Lato-Regular")
    srcs = [str(_smooth(tmp_path / f"{i}.jpg", "RGB", (64 + i, 48))) for i in range(4)]
    for _ in range(3):
        _jpeg_page(fonts, srcs[0])
    assert loads["n"] == 1
    for src in srcs[1:]:
        _jpeg_page(fonts, src)
    assert loads["n"] == 4 and len(draw._JPEG_NAMES) == 2
    _jpeg_page(fonts, srcs[3])  # still remembered
    _jpeg_page(fonts, srcs[0])  # dropped: decoded again
    assert loads["n"] == 5 and len(draw._JPEG_NAMES) == 2


def test_naming_a_jpeg_holds_no_copy_of_its_pixels(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """drawImage names an image by an MD5 of its pixels as bytes joined to its mask: two copies
    of the pixels besides the decoded image (225 MB for a 25 MP JPEG). Hashed a band at a time,
    the traced peak of drawing a JPEG stays under one copy."""
    import tracemalloc
    from collections import OrderedDict

    monkeypatch.setattr(draw, "_JPEG_NAMES", OrderedDict())
    monkeypatch.setattr(draw, "HASH_BAND_BYTES", 64 << 10)
    side = 1000  # 3 MB of pixels; the file is small (a gradient)
    src = str(_smooth(tmp_path / "a.jpg", "RGB", (side, side)))
    fonts = Session(ROOT).fonts
    fonts.ensure("Lato-Regular")
    _jpeg_page(fonts, str(_smooth(tmp_path / "warm.jpg", "RGB", (8, 8))))
    tracemalloc.start()
    try:
        _jpeg_page(fonts, src)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < side * side * 3 // 2, peak
