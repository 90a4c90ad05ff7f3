"""ink: CMYK output (``pnp build --color cmyk``) as PDF/X-4.

Every colour the canvas is given passes through :meth:`Cmyk.color` (reportlab's
``enforceColorSpace`` hook, so cut lines, marks, labels and text are caught as well as the
pieces' art): a neutral colour (r = g = b: black text, grey rules) goes on the black plate alone
(K = 1 - grey, no rich black), any other is converted from sRGB to the output profile by
littleCMS (Pillow's ImageCms; relative colorimetric with black-point compensation). Images are
converted the same way (from their embedded ICC profile when they carry one), their alpha kept
as a soft mask.

PDF/X-4 rather than X-1a: templates use opacity and PNG art has alpha, which X-4 keeps live and
X-1a (PDF 1.3, no transparency) would force us to flatten. The file says so the ways ISO 15930-7
asks: PDF 1.6, an ``/OutputIntents`` entry (``/S /GTS_PDFX``) carrying the CMYK profile, the
Info keys ``GTS_PDFXVersion`` and ``Trapped``, XMP metadata with ``pdfxid:GTS_PDFXVersion``, and a
TrimBox and BleedBox on every page (``pnp.render.draw``). The fonts are reportlab's embedded
TrueType subsets.

The profile (``icc/pnp-fogra39l.icc``) is made from the Zlib-licensed FOGRA39L characterisation
data of Debian's ``icc-profiles-free``; ``icc/README.md`` says how and gives the licence."""

from __future__ import annotations

import contextlib
import hashlib
import io
import uuid
from pathlib import Path
from typing import Any

from PIL import Image, ImageCms
from reportlab.lib.colors import CMYKColor, toColor
from reportlab.lib.utils import ImageReader
from reportlab.pdfbase.pdfdoc import XMP, PDFArray, PDFDate, PDFDictionary, PDFInfo, PDFName, PDFStream, PDFString
from reportlab.pdfgen.canvas import Canvas

PROFILE = Path(__file__).with_name("icc") / "pnp-fogra39l.icc"
CONDITION = "FOGRA39"  # the printing condition the profile characterises (ICC registry name)
PDFX_VERSION = "PDF/X-4"
PDF_VERSION = (1, 6)  # PDF/X-4 is based on PDF 1.6


class _CmykImage(ImageReader):
    """A CMYK image for reportlab, its alpha (when it has one) as a soft mask. Its pixels are let
    go once reportlab has taken them as bytes: one copy of a large image, not two."""

    def __init__(self, cmyk: Image.Image, alpha: Image.Image | None, name: str):
        super().__init__(cmyk)
        self.fileName = name
        self._alpha = alpha
        self._transparent: Any = None

    def getRGBData(self) -> bytes:  # reportlab's name: the pixel data, whatever the mode
        if self._data is None:
            self._dataA = ImageReader(self._alpha) if self._alpha is not None else None
            self._alpha = None
            self.mode = "CMYK"
            self.getSize()
            self._transparent = super().getTransparent()
            self._data = self._image.tobytes()
            self._image = None
        return self._data

    def getTransparent(self) -> Any:  # read before the pixels were let go
        return self._transparent


class Cmyk:
    """Colour and image conversion to the output profile, colours remembered."""

    def __init__(self, profile: Path = PROFILE):
        self.profile_bytes = profile.read_bytes()
        self._out = ImageCms.ImageCmsProfile(io.BytesIO(self.profile_bytes))
        self._srgb = ImageCms.createProfile("sRGB")
        self._rgb = self._transform(self._srgb)
        self._colors: dict[tuple[float, float, float, float], CMYKColor] = {}

    def _transform(self, source: Any) -> ImageCms.ImageCmsTransform:
        return ImageCms.buildTransform(source, self._out, "RGB", "CMYK",
                                       renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC,
                                       flags=ImageCms.Flags.BLACKPOINTCOMPENSATION)

    def color(self, c: Any) -> CMYKColor:
        """The CMYK colour for ``c`` (a reportlab colour, as ``enforceColorSpace`` gets it)."""
        if isinstance(c, CMYKColor):
            return c
        tc = toColor(c)
        alpha = tc.alpha if tc.alpha is not None else 1.0
        key = (tc.red, tc.green, tc.blue, alpha)
        out = self._colors.get(key)
        if out is None:
            if tc.red == tc.green == tc.blue:  # neutral: the black plate alone
                out = CMYKColor(0, 0, 0, round(1 - tc.red, 4), alpha=alpha)
            else:
                px = Image.new("RGB", (1, 1), tuple(round(v * 255) for v in key[:3]))
                cmyk = ImageCms.applyTransform(px, self._rgb).getpixel((0, 0))  # type: ignore[union-attr]
                out = CMYKColor(*(round(v / 255, 4) for v in cmyk), alpha=alpha)
            self._colors[key] = out
        return out

    def image(self, src: str) -> _CmykImage:
        """The image file ``src`` converted to CMYK (from its embedded profile, else sRGB). Not
        remembered: the caller draws it once per document and lets it go (a deck of large
        art would otherwise hold every converted image at once). Each intermediate image is
        let go as soon as the next exists."""
        im = Image.open(src)
        try:
            im.load()  # closes the file of a one-frame image
        except BaseException:
            im.close()
            raise
        icc = im.info.get("icc_profile")
        alpha = None
        if im.mode == "PA" or (im.mode == "P" and "transparency" in im.info):
            im = im.convert("RGBA")
        if im.mode in ("RGBA", "LA"):
            alpha = im.getchannel("A")
        rgb = im if im.mode == "RGB" else im.convert("RGB")
        del im  # each image is let go as soon as the next exists: at most two copies at a time
        transform = self._rgb
        if icc:
            # an unreadable embedded profile: the image is taken as sRGB
            with contextlib.suppress(OSError, ValueError, ImageCms.PyCMSError):
                transform = self._transform(ImageCms.ImageCmsProfile(io.BytesIO(icc)))
        cmyk = ImageCms.applyTransform(rgb, transform)
        del rgb
        assert cmyk is not None
        return _CmykImage(cmyk, alpha, f"{src}#cmyk")


_CMYK: Cmyk | None = None


def cmyk() -> Cmyk:
    """The process's converter (the profile is read, and colours converted, once)."""
    global _CMYK
    if _CMYK is None:
        _CMYK = Cmyk()
    return _CMYK


class _PdfxInfo(PDFInfo):
    """reportlab's document Info with the PDF/X version key."""

    def format(self, document: Any) -> bytes:
        return PDFDictionary(_info_dict(self, document)).format(document)


def _info_dict(info: PDFInfo, document: Any) -> dict[str, Any]:
    return {"Title": PDFString(info.title), "Author": PDFString(info.author),
            "CreationDate": PDFDate(ts=document._timeStamp), "ModDate": PDFDate(ts=document._timeStamp),
            "Producer": PDFString(info.producer), "Creator": PDFString(info.creator),
            "Subject": PDFString(info.subject), "Trapped": PDFName("False"),
            "GTS_PDFXVersion": PDFString(PDFX_VERSION)}


def _xmp(title: str, document: Any) -> str:
    y, mo, d, h, mi, s = document._timeStamp.YMDhms
    ts = document._timeStamp
    when = f"{y:04d}-{mo:02d}-{d:02d}T{h:02d}:{mi:02d}:{s:02d}{ts.dhh:+03d}:{ts.dmm:02d}"
    doc_id = uuid.UUID(hashlib.md5(title.encode("utf-8")).hexdigest())
    esc = title.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return f"""<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"
 xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:pdf="http://ns.adobe.com/pdf/1.3/"
 xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/" xmlns:pdfxid="http://www.npes.org/pdfx/ns/id/">
<dc:format>application/pdf</dc:format>
<dc:title><rdf:Alt><rdf:li xml:lang="x-default">{esc}</rdf:li></rdf:Alt></dc:title>
<xmp:CreateDate>{when}</xmp:CreateDate>
<xmp:ModifyDate>{when}</xmp:ModifyDate>
<xmp:MetadataDate>{when}</xmp:MetadataDate>
<xmp:CreatorTool>pnp</xmp:CreatorTool>
<pdf:Producer>pnp (reportlab)</pdf:Producer>
<pdf:Trapped>False</pdf:Trapped>
<xmpMM:DocumentID>uuid:{doc_id}</xmpMM:DocumentID>
<xmpMM:InstanceID>uuid:{doc_id}</xmpMM:InstanceID>
<xmpMM:VersionID>1</xmpMM:VersionID>
<xmpMM:RenditionClass>default</xmpMM:RenditionClass>
<pdfxid:GTS_PDFXVersion>{PDFX_VERSION}</pdfxid:GTS_PDFXVersion>
</rdf:Description>
</rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>"""


def make_pdfx(c: Canvas, conv: Cmyk) -> None:
    """Make the document of canvas ``c`` (made with ``pdfVersion=PDF_VERSION`` and
    ``enforceColorSpace=conv.color``) a PDF/X-4 file: Info keys, XMP metadata, output intent.
    Call before the title and author are set (they go into the replaced Info)."""
    doc = c._doc
    info = _PdfxInfo()
    info.__dict__.update(doc.info.__dict__)
    doc.info = info
    profile = PDFStream(PDFDictionary({"N": 4}), conv.profile_bytes, filters=None)
    intent = PDFDictionary({"Type": PDFName("OutputIntent"), "S": PDFName("GTS_PDFX"),
                            "OutputConditionIdentifier": PDFString(CONDITION),
                            "OutputCondition": PDFString("Offset printing, coated paper (ISO 12647-2)"),
                            "RegistryName": PDFString("http://www.color.org"),
                            "Info": PDFString(ImageCms.getProfileDescription(conv._out).strip()),
                            "DestOutputProfile": doc.Reference(profile)})
    cat = doc.Catalog
    cat.OutputIntents = PDFArray([intent])
    cat.__NoDefault__ = [*cat.__NoDefault__, "OutputIntents"]
    xmp = XMP(creator=lambda document: _xmp(info.title, document).encode("utf-8"))
    xmp.filters = []  # metadata stays readable as plain text
    cat.Metadata = xmp
