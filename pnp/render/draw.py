"""draw: imposed pages + piece layouts -> PDF bytes. The only module that uses reportlab's
canvas.

Each distinct piece layout (a card face, a back) is drawn once as a form XObject and placed on
the page with ``doForm`` under a clip of the slot's bleed box, so copies and shared backs cost
one reference each. ``invariant=1`` makes identical input give identical bytes.

Size: over 500 lines because everything that touches the canvas is here, by design: the piece
drawer, the form cache, back corrections, cut lines, marks and labels share the canvas and the
fast path's use of reportlab's private state (guarded by the draw tests), which stays in one file."""

from __future__ import annotations

import hashlib
import io
import math
import threading
import weakref
from collections import Counter, OrderedDict
from collections.abc import Callable, Sequence
from typing import Any
from weakref import WeakKeyDictionary

from msgspec import Struct
from msgspec.structs import replace
from reportlab import rl_config
from reportlab.lib.colors import CMYKColorSep, Color
from reportlab.lib.rl_accel import escapePDF, fp_str
from reportlab.lib.utils import ImageReader
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.pdfdoc import PDFDocument, PDFImageXObject, PDFResourceDictionary
from reportlab.pdfgen.canvas import FILL_EVEN_ODD, FILL_NON_ZERO, Canvas
from reportlab.pdfgen.textobject import PDFTextObject

from pnp.impose.dieline import DIE_WIDTH, SPOT_NAME, DieLine, die_path
from pnp.impose.marks import LABEL_COLOR, MARK_COLOR
from pnp.impose.sheet import Furniture, Mark, Page, Paper, Slot, slot_matrix
from pnp.layout.fonts import FontBook
from pnp.layout.piece import PieceLayout
from pnp.layout.primitives import Ellipse, Image, Line, Paint, Path, Primitive, Rect, Text, Vector
from pnp.layout.svg import svg_drawing
from pnp.layout.turn import text_matrix
from pnp.plan.options import source_date_epoch
from pnp.render import ink

# Streams are Flate-compressed binary: ASCII85 on top makes them a quarter larger and slower.
rl_config.useA85 = 0

CUT_WIDTH = 0.25  # pt, crop marks



def rl_path(c: Any, ops: Any) -> Any:
    """A reportlab path object of ``ops`` (("M"|"L"|"C"|"Z", points) pairs: move, line, curve, close)."""
    path = c.beginPath()
    for op, pts in ops:
        if op == "M":
            path.moveTo(*pts)
        elif op == "L":
            path.lineTo(*pts)
        elif op == "C":
            path.curveTo(*pts)
        else:
            path.close()
    return path

class DocInfo(Struct, frozen=True):
    title: str
    author: str
    subject: str
    ui_font: str  # a bundled TrueType font for labels on the sheet (never Helvetica)
    duplex: str | None = None  # "long" | "short" | "simplex": the viewer's preselected duplex mode
    color: str = "rgb"  # "cmyk": a PDF/X-4 file, every colour and image in CMYK (pnp.render.ink)


# /ViewerPreferences /Duplex for each mode (a hint for the print dialog; PDF 1.7)
VIEWER_DUPLEX = {"long": "DuplexFlipLongEdge", "short": "DuplexFlipShortEdge", "simplex": "Simplex"}


_COLORS: dict[str, Color] = {}


def _color(hex_: str) -> Color:
    col = _COLORS.get(hex_)
    if col is None:
        h = hex_.lstrip("#")
        r, g, b = (int(h[i:i + 2], 16) / 255.0 for i in (0, 2, 4))
        a = int(h[6:8], 16) / 255.0 if len(h) == 8 else 1.0
        col = _COLORS[hex_] = Color(r, g, b, alpha=a)
    return col


class _Codes:
    """The one-byte codes reportlab has given characters of one TrueType font in one document
    (its first 256-code subset), as a ``str.translate`` table."""

    def __init__(self, font: Any, doc: PDFDocument):
        # the document weakly: this is a value of _CODES, whose key it is, and a strong reference
        # kept every document alive with its images (26 MB a component for a 27 MB PNG, attack 7)
        self.font, self._doc = font, weakref.ref(doc)
        self.table: dict[int, int] = {}
        self.known: set[str] = set()

    @property
    def doc(self) -> PDFDocument | None:
        return self._doc()

    def learn(self, text: str) -> None:
        state = self.font.state.get(self.doc)
        if state is None:
            return
        glyphs = self.font.face.charToGlyph
        for ch in set(text) - self.known:
            code = ord(ch)
            if code == 0xA0:  # reportlab sets a no-break space as a space
                code = 32
            n = state.assignments.get(code)
            if n is None:
                if code in glyphs:
                    continue  # not given a code yet
                n = 0  # no glyph: code 0 (.notdef), for good
            if n < 256:
                self.table[ord(ch)] = n
                self.known.add(ch)


# per document: font name -> its codes so far
_CODES: WeakKeyDictionary[PDFDocument, dict[str, _Codes]] = WeakKeyDictionary()


def _codes_for(doc: PDFDocument, name: str) -> _Codes | None:
    """The codes of font ``name`` in ``doc``; None for a font ``_text_out`` leaves to reportlab
    (not TrueType, or shaped)."""
    fonts = _CODES.get(doc)
    if fonts is None:
        fonts = _CODES[doc] = {}
    if name not in fonts:
        font = pdfmetrics.getFont(name)
        fonts[name] = _Codes(font, doc) if font._dynamicFont and not getattr(font, "shapable", False) else None
    return fonts[name]


def _text_out(t: PDFTextObject, text: str, codes: _Codes | None) -> None:
    """``t.textOut(text)`` for a TrueType font (``codes``: its codes), giving the same bytes
    without reportlab's per-character loop once every character of ``text`` has its code
    (reportlab assigns the codes, in the order it meets characters: any text with a new one goes
    through it). The text cursor is not advanced: every line sets its own origin."""
    if codes is None:
        t.textOut(text)
        return
    if not text or not codes.known.issuperset(text):
        t.textOut(text)
        codes.learn(text)
        return
    run = f"({escapePDF(text.translate(codes.table).encode('latin-1'))}) Tj"
    if t._curSubset != 0:
        t._curSubset = 0
        run = (f"{codes.font.getSubsetInternalName(0, codes.doc)} {fp_str(t._fontsize)} Tf "
               f"{fp_str(t._leading)} TL {run}")
    t._code.append(run)


def let_go(reader: ImageReader) -> None:
    """Drop now what ``reader`` holds once its image is stored in the document: the file's
    bytes, the decoded image and its pixels (75 MB each for a 25 MP JPEG). reportlab's reader of
    a JPEG refers to itself (its ``jpeg_fh`` is its own bound method), so it was freed only by
    the cycle collector, which large bytes do not wake: a 25 MP JPEG drawn by N components of one
    build kept about 210 MB per component alive (attack 10, F7)."""
    vars(reader).clear()


# The XObject names of the JPEG files drawn so far in this process, by a SHA-256 of the file's
# bytes (a name is an MD5 of the decoded pixels: the same bytes always give the same name), the
# least recently drawn dropped past JPEG_NAMES_MAX. A JPEG that several components draw is
# decoded by the first only; the others copy its bytes into their PDF without decoding it.
JPEG_NAMES_MAX = 256
_JPEG_NAMES: OrderedDict[bytes, str] = OrderedDict()
_JPEG_LOCK = threading.Lock()  # `pnp serve` draws in its request threads
HASH_BAND_BYTES = 4 << 20  # the pixels are hashed a band of rows of about this size at a time


def jpeg_name(reader: ImageReader) -> str | None:
    """The name drawImage gives the image XObject of a JPEG file's ``reader`` (an MD5 of its
    decoded pixels, then of its mask, "auto"), worked out without drawImage's two further copies
    of the pixels (``getRGBData``'s and the pixels joined to the mask), or remembered
    (``_JPEG_NAMES``). None for a JPEG whose pixels reportlab converts before naming it (a mode
    other than L, RGB and CMYK)."""
    im = reader._image
    if im.mode not in ("L", "RGB", "CMYK"):
        return None
    with reader.fp.getbuffer() as data:  # the file's bytes, as read by the reader
        key = hashlib.sha256(data).digest()
    with _JPEG_LOCK:
        name = _JPEG_NAMES.get(key)
        if name is not None:
            _JPEG_NAMES.move_to_end(key)
            return name
    im.load()
    digest = hashlib.md5(usedforsecurity=False)
    width, height = im.size
    rows = max(1, HASH_BAND_BYTES // (width * len(im.mode)))
    for top in range(0, height, rows):  # the rows of im.tobytes(), a band at a time
        digest.update(im.crop((0, top, width, min(height, top + rows))).tobytes())
    digest.update(b"auto")
    name = digest.hexdigest()
    with _JPEG_LOCK:
        _JPEG_NAMES[key] = name
        while len(_JPEG_NAMES) > JPEG_NAMES_MAX:
            _JPEG_NAMES.popitem(last=False)
    return name


def _store_image(c: Canvas, reader: ImageReader, name: str) -> None:
    """What drawImage does to store ``reader``'s image in the document as XObject ``name``
    (for a JPEG its file's bytes, read as they are), unless an image of that name is there."""
    doc = c._doc
    reg = doc.getXObjectName(name)
    if not doc.idToObject.get(reg):
        obj = PDFImageXObject(name, reader, mask="auto")
        obj.name = name
        c._setXObjects(obj)
        doc.Reference(obj, reg)
        doc.addForm(name, obj)


def _use_image(c: Canvas, name: str, x: float, y: float, w: float, h: float) -> None:
    """What drawImage emits to draw the stored image ``name`` into the box (x, y, w, h)."""
    c._currentPageHasImages = 1
    c.saveState()
    c.translate(x, y)
    c.scale(w, h)
    c._code.append(f"/{c._doc.getXObjectName(name)} Do")
    c.restoreState()
    c._formsinuse.append(name)


class _Drawer:
    """Draws primitives, emitting a colour, alpha, line width or dash only when it changes, and
    each run of consecutive texts as one text object (BT ... ET) rather than one per line.
    ``draw`` starts from an unknown graphics state: call it once per piece (inline, inside the
    piece's saveState/restoreState, or in a form)."""

    def __init__(self, c: Canvas, fonts: FontBook, cmyk: ink.Cmyk | None = None):
        assert c.bottomup, "text origins are written for a bottom-up canvas"
        self.c = c
        self.cmyk = cmyk  # converts images (colours are converted by the canvas)
        self.fonts = fonts
        self._codes: dict[str, _Codes | None] = {}  # by font name, for this canvas's document
        self._images: dict[str, str] = {}  # file path -> its XObject name
        self._vectors: dict[str, str] = {}  # SVG file path -> the name of the form that draws it
        self._reset()

    def image(self, src: str, x: float, y: float, w: float, h: float) -> None:
        """Draw the image file ``src`` into the box (x, y, w, h). Given a file name, reportlab
        names the image XObject by an MD5 of the name, so the PDF's bytes would depend on where
        the data root lies; given an ImageReader, by an MD5 of the decoded pixels, which it
        decodes again on every call. So the first draw of a file goes through drawImage with an
        ImageReader (converted to CMYK for a PDF/X file), which is then let go: an art-heavy deck
        does not keep every decoded image, only its compressed stream in the document. A JPEG
        (in RGB) is named by ``jpeg_name`` instead, decoded once per process, and stored as
        drawImage stores it. Later draws emit what drawImage emits for an image it has already
        stored."""
        c = self.c
        name = self._images.get(src)
        if name is None:
            reader = self.cmyk.image(src) if self.cmyk is not None else ImageReader(src)
            jpeg = self.cmyk is None and getattr(reader._image, "format", None) == "JPEG"
            name = jpeg_name(reader) if jpeg else None
            if name is None:
                c.drawImage(reader, x, y, w, h, mask="auto")
                name = c._formsinuse[-1]
            else:
                _store_image(c, reader, name)
                _use_image(c, name, x, y, w, h)
            let_go(reader)
            self._images[src] = name
            return
        _use_image(c, name, x, y, w, h)

    def _reset(self) -> None:
        self.fill: str | None = None  # hex as given
        self.fill_alpha: float | None = None
        self.stroke: str | None = None
        self.stroke_alpha: float | None = None
        self.width: float | None = None
        self.dash: tuple[float, ...] | None = None

    def _fill_alpha(self, a: float) -> None:
        if a != self.fill_alpha:
            self.c.setFillAlpha(a)
            self.fill_alpha = a

    def paint(self, p: Paint) -> tuple[bool, bool]:
        c = self.c
        fill = p.fill is not None
        stroke = p.stroke is not None and p.stroke_width > 0
        if fill:
            col = _color(p.fill)  # type: ignore[arg-type]
            if p.fill != self.fill:
                c.setFillColor(col)  # which sets the colour's alpha too
                self.fill, self.fill_alpha = p.fill, col.alpha
            self._fill_alpha(col.alpha * p.opacity)
        if stroke:
            col = _color(p.stroke)  # type: ignore[arg-type]
            if p.stroke != self.stroke:
                c.setStrokeColor(col)  # which sets the colour's alpha too
                self.stroke, self.stroke_alpha = p.stroke, col.alpha
            a = col.alpha * p.opacity
            if a != self.stroke_alpha:
                c.setStrokeAlpha(a)
                self.stroke_alpha = a
            if p.stroke_width != self.width:
                c.setLineWidth(p.stroke_width)
                self.width = p.stroke_width
            dash = tuple(p.dash) if p.dash else ()
            if dash != self.dash:
                c.setDash(list(dash), 0)
                self.dash = dash
        return fill, stroke

    def draw(self, prims: Sequence[Primitive]) -> None:
        c = self.c
        self._reset()
        t = None  # the open text object
        font: tuple[str, float] | None = None
        codes: _Codes | None = None
        for p in prims:
            if type(p) is Text:
                col = _color(p.color)
                if t is not None and col.alpha != self.fill_alpha:
                    c.drawText(t)  # alpha is set outside text objects: close this one first
                    t = None
                if t is None:
                    self._fill_alpha(col.alpha)
                    t = c.beginText()
                    font = None
                if (p.font, p.size) != font:
                    t.setFont(p.font, p.size)
                    font = (p.font, p.size)
                    if p.font not in self._codes:
                        self._codes[p.font] = _codes_for(c._doc, p.font)
                    codes = self._codes[p.font]
                if p.color != self.fill:
                    t.setFillColor(col)  # colour is graphics state: it holds after ET too
                    self.fill = p.color
                text = p.text
                if p.angle:  # a turned line: its own text matrix
                    t.setTextTransform(*text_matrix(p.angle, p.x, p.y))
                    t.setCharSpace(p.tracking)
                    _text_out(t, text, codes)
                    if p.tracking:
                        t.setCharSpace(0)
                elif p.tracking:
                    t.setTextOrigin(p.x, p.y)
                    t.setCharSpace(p.tracking)
                    _text_out(t, text, codes)
                    t.setCharSpace(0)  # Tc is graphics state: it would leak into later text
                elif codes is not None and text and t._curSubset == 0 and codes.known.issuperset(text):
                    # setTextOrigin and _text_out's fast path in one (the parts are joined by spaces)
                    t._code.append(f"1 0 0 1 {fp_str(p.x, p.y)} Tm "
                                   f"({escapePDF(text.translate(codes.table).encode('latin-1'))}) Tj")
                else:
                    t.setTextOrigin(p.x, p.y)
                    _text_out(t, text, codes)
                continue
            if t is not None:
                c.drawText(t)
                t = None
            if (type(p) is Image or type(p) is Vector) and p.matrix is not None:  # turned art
                c.saveState()
                c.transform(*p.matrix)
                self.draw([replace(p, matrix=None)])
                c.restoreState()
                self._reset()  # the state the drawer knew is back, but it is simpler not to trust it
                continue
            if type(p) is Vector:
                self.vector(p)
                continue
            if isinstance(p, Image):
                if p.clip:
                    c.saveState()
                    path = c.beginPath()
                    path.rect(*p.clip)
                    c.clipPath(path, stroke=0, fill=0)
                self.image(p.src, p.x, p.y, p.w, p.h)
                if p.clip:
                    c.restoreState()
                continue
            fill, stroke = self.paint(p.paint)
            if not fill and not stroke:
                continue
            if isinstance(p, Rect):
                if p.radius > 0:
                    c.roundRect(p.x, p.y, p.w, p.h, p.radius, stroke=int(stroke), fill=int(fill))
                else:
                    c.rect(p.x, p.y, p.w, p.h, stroke=int(stroke), fill=int(fill))
            elif isinstance(p, Ellipse):
                c.ellipse(p.x, p.y, p.x + p.w, p.y + p.h, stroke=int(stroke), fill=int(fill))
            elif isinstance(p, Line):
                c.line(p.x1, p.y1, p.x2, p.y2)
            elif isinstance(p, Path):
                c.drawPath(rl_path(c, p.ops), stroke=int(stroke), fill=int(fill),
                           fillMode=FILL_EVEN_ODD if p.paint.fill_rule == "evenodd" else FILL_NON_ZERO)
        if t is not None:
            c.drawText(t)

    def vector(self, p: Vector) -> None:
        """SVG art (pnp.layout.svg): its drawing scaled into (x, y, w, h), under its clip."""
        from reportlab.graphics import renderPDF  # only SVG art needs it

        c = self.c
        c.saveState()
        if p.clip:
            path = c.beginPath()
            path.rect(*p.clip)
            c.clipPath(path, stroke=0, fill=0)
        c.translate(p.x, p.y)
        c.scale(p.w / p.art_w, p.h / p.art_h)
        name = self._vectors.get(p.src)
        if name is None:
            # Drawn once per document, as a form XObject every use refers to: a deck of 54 cards
            # with one SVG emblem holds its drawing once, and svglib's drawing is walked once.
            name = self._vectors[p.src] = f"svg{len(self._vectors)}"
            drawing = svg_drawing(p.src)
            # The renderer starts by setting its default font (Helvetica, which would then sit in
            # the PDF unembedded): start it on the canvas's own font instead (the art has no text).
            drawing.initialFontName, drawing.initialFontSize = c._fontname, c._fontsize
            c.beginForm(name, upperx=p.art_w, uppery=p.art_h)
            renderPDF.draw(drawing, c, 0, 0)
            _end_form(c)
        c.doForm(name)
        c.restoreState()
        self._reset()


class BackCorrection(Struct, frozen=True):
    """Shift (pt) and scale applied to every back page, about the page centre, to cancel a
    printer's duplex misregistration (measured with ``pnp calibrate``)."""

    dx: float = 0.0
    dy: float = 0.0
    sx: float = 1.0
    sy: float = 1.0

    @property
    def identity(self) -> bool:
        return (self.dx, self.dy, self.sx, self.sy) == (0.0, 0.0, 1.0, 1.0)


def render(pages: Sequence[Page], paper: Paper, fronts: Sequence[PieceLayout],
           backs: Sequence[PieceLayout | None], fonts: FontBook, info: DocInfo,
           page_boxes: bool = False, back_correction: BackCorrection | None = None,
           die: DieLine | None = None) -> bytes:
    """Draw ``pages``; slot.piece indexes ``fronts``/``backs``. With ``page_boxes`` every page
    holding one piece gets TrimBox/BleedBox set to it. ``back_correction`` moves and scales the
    content of back pages. ``die``: a CutContour die line round every front piece."""
    buf = io.BytesIO()
    fonts.ensure(info.ui_font)
    source_date_epoch()  # reportlab's Canvas reads SOURCE_DATE_EPOCH and raised ValueError on a bad one
    cmyk = ink.cmyk() if info.color == "cmyk" else None
    c = Canvas(buf, pagesize=(paper.width, paper.height), invariant=1, initialFontName=info.ui_font,
               initialFontSize=8, pageCompression=1,
               **({"pdfVersion": ink.PDF_VERSION, "enforceColorSpace": cmyk.color} if cmyk else {}))
    if cmyk:
        ink.make_pdfx(c, cmyk)
    c.setTitle(info.title)
    c.setAuthor(info.author)
    c.setSubject(info.subject)
    c.setCreator("pnp")
    c.setProducer("pnp (reportlab)")
    # Pieces are exact sizes: ask viewers to print at 100 % ("actual size"), not fit to the paper.
    c.setViewerPreference("PrintScaling", "None")
    if info.duplex in VIEWER_DUPLEX:
        c.setViewerPreference("Duplex", VIEWER_DUPLEX[info.duplex])
    d = _Drawer(c, fonts, cmyk)
    # Art used more than once (copies, shared backs) is stored once as a form XObject; art
    # used once is drawn in place, which is smaller and faster than a one-use form. Laid-out
    # pieces are counted by content; pieces laid out on demand (LazyPieces: their ``key`` names
    # the item) are counted by item, so counting never lays anything out.
    front_key = getattr(fronts, "key", None)
    uses: dict[object, int] = {}
    for page in pages:
        for slot in page.slots:
            if slot.side == "front" and front_key is not None:
                k: object = ("item", front_key(slot.piece))
            else:
                lay = fronts[slot.piece] if slot.side == "front" else backs[slot.piece]
                if lay is None:
                    continue
                k = id(lay.primitives)
            uses[k] = uses.get(k, 0) + 1
    by_content: dict[object, int] = {}
    for lay in (list(fronts) if front_key is None else []) + list(backs):
        if lay is not None and id(lay.primitives) in uses:
            by_content[lay.primitives] = by_content.get(lay.primitives, 0) + uses.pop(id(lay.primitives))
    by_content.update(uses)  # the lazy fronts' counts, by item
    forms: dict[object, str] = {}  # by use key and by content: a form's name
    stored: list[str] = []  # the forms, in the order they were made
    # A sheet's cut lines, marks and scale marks repeat on every full sheet of a component: drawn
    # once as a form XObject where two or more pages share them (the sheet labels, which name
    # each sheet, stay on the page).
    sheet_ids: dict[tuple[object, ...], int] = {}  # distinct sheet marks, numbered in order of first use
    sheet_of = [sheet_ids.setdefault(_sheet_key(page, paper), len(sheet_ids)) for page in pages]
    sheet_keys = list(sheet_ids)  # by number
    sheet_uses = Counter(sheet_of)
    sheet_forms: dict[int, str] = {}

    def form_for(key: object, lay: PieceLayout) -> str:
        name = forms.get(key)
        if name is None:
            name = forms.get(lay.primitives)  # the same art stored for another use (a token's back)
            if name is not None:
                forms[key] = name
                return name
            name = f"piece{len(stored)}"
            stored.append(name)
            forms[key] = forms[lay.primitives] = name
            b = lay.bleed
            c.beginForm(name, lowerx=-b, lowery=-b, upperx=lay.width + b, uppery=lay.height + b)
            c.setLineCap(1)
            c.setLineJoin(1)
            d.draw(lay.primitives)
            _end_form(c)
        return name

    for page, sheet in zip(pages, sheet_of, strict=True):
        if page.paper is not None:
            c.setPageSize((page.paper.width, page.paper.height))
        corrected = page.side == "back" and back_correction is not None and not back_correction.identity
        if corrected:
            assert back_correction is not None
            pw, ph = (page.paper or paper).width, (page.paper or paper).height
            c.saveState()
            c.translate(pw / 2 + back_correction.dx, ph / 2 + back_correction.dy)
            c.scale(back_correction.sx, back_correction.sy)
            c.translate(-pw / 2, -ph / 2)
        for slot in page.slots:
            lay = fronts[slot.piece] if slot.side == "front" else backs[slot.piece]
            if lay is None:
                continue
            key = ("item", front_key(slot.piece)) if slot.side == "front" and front_key else lay.primitives
            if by_content.get(key, 0) > 1:
                name = form_for(key, lay)
                _place(c, slot, lambda name=name: c.doForm(name))
            else:
                _place(c, slot, lambda lay=lay: _inline(c, d, lay))
        if die is not None:
            _die_lines(c, page, die)
        # (on a corrected back page the marks and labels move with the pieces)
        key = sheet_keys[sheet]
        if sheet_uses[sheet] > 1 and (page.cuts or page.marks or key[3]):
            name = sheet_forms.get(sheet)
            if name is None:
                name = sheet_forms[sheet] = f"sheet{len(sheet_forms)}"
                c.beginForm(name, upperx=key[0][0], uppery=key[0][1])
                c.saveState()
                _cuts_and_marks(c, page, info, fonts, key[3])
                c.restoreState()
                _end_form(c)
            c.doForm(name)
        else:
            _cuts_and_marks(c, page, info, fonts, page.furniture)
        _labels(c, page, info, fonts)
        if corrected:
            c.restoreState()
        if page_boxes and len(page.slots) == 1:
            s = page.slots[0]
            c.setTrimBox((s.x, s.y, s.x + s.w, s.y + s.h))
            c.setBleedBox((s.x - s.bleed.left, s.y - s.bleed.bottom,
                           s.x + s.w + s.bleed.right, s.y + s.h + s.bleed.top))
        elif cmyk:  # PDF/X: every page has its boxes; a sheet is trimmed to itself
            box = (0, 0, *c._pagesize)
            c.setTrimBox(box)
            c.setBleedBox(box)
        c.showPage()
    c.save()
    return buf.getvalue()


CUT_CONTOUR = CMYKColorSep(0, 1, 0, 0, spotName=SPOT_NAME)  # 100 % magenta on screen and proofs


def _die_lines(c: Canvas, page: Page, die: DieLine) -> None:
    """The die line (pnp.impose.dieline) of every whole front piece on the page, stroked in the
    CutContour spot colour, overprinting (it must not knock a white line out of the art)."""
    slots = [s for s in page.slots if s.side == "front" and s.part is None]
    if not slots:
        return
    c.saveState()
    c.setStrokeColor(CUT_CONTOUR)
    c.setStrokeAlpha(1)
    c.setStrokeOverprint(True)
    c.setLineWidth(DIE_WIDTH)
    c.setDash([], 0)
    for s in slots:
        c.drawPath(rl_path(c, die_path(die, s.x, s.y, s.w, s.h)), stroke=1, fill=0)
    c.restoreState()


def _end_form(c: Canvas) -> None:
    """``endForm`` with complete resources. reportlab (5.1) leaves a form's ExtGState (opacity),
    images and shadings out of its /Resources, so transparency inside a form is lost in strict
    viewers and a gradient fills black; we hand it a resource dictionary holding fonts,
    procsets, graphics states, XObjects and shadings."""
    res = PDFResourceDictionary()
    res.basicFonts()
    res.allProcs()
    states = c._extgstate.getState()
    if states:
        res.ExtGState = states
    if c._formsinuse:
        res.XObject = c._doc.xobjDict(c._formsinuse)
    res.setColorSpace(c._colorsUsed)
    if c._shadingUsed:  # SVG gradients (svglib draws them as shadings): left out, they fill black
        res.setShading(c._shadingUsed)
    c.endForm(Resources=res)


def _inline(c: Canvas, d: _Drawer, lay: PieceLayout) -> None:
    c.setLineCap(1)
    c.setLineJoin(1)
    d.draw(lay.primitives)


def _place(c: Canvas, slot: Slot, paint: Callable[[], None]) -> None:
    c.saveState()
    b = slot.bleed
    clip = c.beginPath()
    if slot.clip is not None:  # hex tiles: the hexagon, grown by the bleed on its free edges
        clip.moveTo(*slot.clip[0])
        for p in slot.clip[1:]:
            clip.lineTo(*p)
        clip.close()
    else:
        clip.rect(slot.x - b.left, slot.y - b.bottom, slot.w + b.left + b.right, slot.h + b.bottom + b.top)
    c.clipPath(clip, stroke=0, fill=0)
    c.transform(*slot_matrix(slot))
    paint()
    c.restoreState()


def _sheet_key(page: Page, paper: Paper) -> tuple[object, ...]:
    """What a page's cut lines, marks and scale marks depend on: (page size, cuts, marks, the
    furniture other than labels)."""
    size = (page.paper or paper).width, (page.paper or paper).height
    return size, page.cuts, page.marks, tuple(f for f in page.furniture if f.kind != "label")


def _cuts_and_marks(c: Canvas, page: Page, info: DocInfo, fonts: FontBook, furniture: Sequence[Furniture]) -> None:
    """Cut lines, marks (glue, circles, punch guides, folds, alignment) and ``furniture`` (all but
    the sheet labels, which ``_labels`` draws)."""
    if page.cuts:
        c.setStrokeColor(_color(MARK_COLOR))
        c.setStrokeAlpha(1)
        c.setLineWidth(CUT_WIDTH)
        c.setDash([], 0)
        for cut in page.cuts:
            c.line(cut.x1, cut.y1, cut.x2, cut.y2)
    for m in page.marks:
        if m.kind == "glue":
            c.saveState()
            c.setFillColor(_color("#00000014"))
            c.setFillAlpha(0.08)
            c.setStrokeColor(_color("#808080"))
            c.setLineWidth(0.5)
            c.setDash([3, 2], 0)
            c.rect(m.x, m.y, m.w, m.h, stroke=1, fill=1)
            c.setFillColor(_color("#606060"))
            c.setFillAlpha(1)
            c.setFont(info.ui_font, 7)
            if m.w >= m.h:
                c.drawCentredString(m.x + m.w / 2, m.y + m.h / 2 - 2.5, "glue under the next part")
            else:
                c.translate(m.x + m.w / 2 + 2.5, m.y + m.h / 2)
                c.rotate(90)
                c.drawCentredString(0, 0, "glue under the next part")
            c.restoreState()
        elif m.kind == "circle":  # the trim of a round piece: cut along it, or punch it
            c.saveState()
            c.setStrokeColor(_color(MARK_COLOR))
            c.setLineWidth(CUT_WIDTH)
            c.setDash([], 0)
            c.ellipse(m.x, m.y, m.x + m.w, m.y + m.h, stroke=1, fill=0)
            c.restoreState()
        elif m.kind == "punch":  # guides for a punch or a circle cutter, outside the trim
            _punch_guide(c, m)
        elif m.kind == "fold":
            c.saveState()
            c.setStrokeColor(_color("#606060"))
            c.setLineWidth(0.5)
            c.setDash([4, 3], 0)
            c.line(m.x, m.y, m.x, m.y + m.h)
            c.setFillColor(_color(LABEL_COLOR))
            c.setFont(info.ui_font, 7)
            c.drawCentredString(m.x, m.y + m.h - 9, "fold")
            c.drawCentredString(m.x, m.y + 18, "fold")
            c.restoreState()
        elif m.kind == "align":
            c.saveState()
            c.setStrokeColor(_color(MARK_COLOR))
            c.setLineWidth(0.3)
            r = 4.0
            c.circle(m.x, m.y, r * 0.6, stroke=1, fill=0)
            c.line(m.x - r, m.y, m.x + r, m.y)
            c.line(m.x, m.y - r, m.x, m.y + r)
            c.restoreState()
    scales = [f for f in furniture if f.kind != "label"]
    if scales:
        _furniture(c, scales, fonts)


def _labels(c: Canvas, page: Page, info: DocInfo, fonts: FontBook) -> None:
    """The sheet labels (pnp.impose.marks), or a page's own label where it has no furniture."""
    if page.furniture:
        labels = [f for f in page.furniture if f.kind == "label"]
        if labels:
            _furniture(c, labels, fonts)
    elif page.label:
        # Centred under the pieces: cut lines only run from trim edges, never through here.
        under = [s for s in page.slots if s.side == page.side] if page.side == "front" else list(page.slots)
        if any(s.side == "back" for s in page.slots):  # gutterfold: keep clear of the fold line
            under = [s for s in page.slots if s.side == "back"]
        xs = [s.x for s in under] + [s.x + s.w for s in under]
        cx = (min(xs) + max(xs)) / 2 if xs else c._pagesize[0] / 2
        c.saveState()
        c.setFillColor(_color(LABEL_COLOR))
        c.setFont(info.ui_font, 8)
        folded = any(s.side == "back" for s in page.slots)  # half a page wide: the label alone
        c.drawCentredString(cx, 10, page.label if folded else f"{info.title} — {page.label}")
        c.restoreState()


GUIDE_WIDTH = 0.3  # pt: punch guides (not 0.25 pt, the width of cut lines)


def _punch_guide(c: Canvas, m: Mark) -> None:
    """Around a round piece whose box is (x, y, w, h), inside its own bleed box: a dashed ring
    half the bleed outside the trim (line a punch's edge up between it and the cut circle) and,
    in the four corners of the bleed box, ticks pointing at the centre (two rulers laid across
    opposite ticks cross at the centre, for a circle cutter's pin)."""
    cx, cy = m.x + m.w / 2, m.y + m.h / 2
    r = m.w / 2
    ring = r + m.bleed / 2
    c.saveState()
    c.setStrokeColor(_color(MARK_COLOR))
    c.setLineWidth(GUIDE_WIDTH)
    c.setDash([1.5, 1.5], 0)
    c.circle(cx, cy, ring, stroke=1, fill=0)
    c.setDash([], 0)
    corner = (r + m.bleed) * math.sqrt(2)  # centre to a corner of the bleed box
    outer = r + m.bleed
    if corner - outer > 2.0:
        for dx, dy in ((1, 1), (-1, 1), (-1, -1), (1, -1)):
            u = math.sqrt(0.5)
            c.line(cx + dx * u * (outer + 1.0), cy + dy * u * (outer + 1.0),
                   cx + dx * u * (outer + 1.0 + 0.6 * (corner - outer - 1.0)),
                   cy + dy * u * (outer + 1.0 + 0.6 * (corner - outer - 1.0)))
    c.restoreState()


def _furniture(c: Canvas, furniture: Sequence[Furniture], fonts: FontBook) -> None:
    """Sheet labels and scale marks (pnp.impose.marks), each in its own frame."""
    d = _Drawer(c, fonts)
    for f in furniture:
        if not f.prims:  # a sheet with room for none (pnp.impose.marks.UNLABELLED)
            continue
        x, y, w, _ = f.box
        c.saveState()
        if f.rotation == 90:
            c.translate(x + w, y)
            c.rotate(90)
        else:
            c.translate(x, y)
        c.setLineCap(0)
        c.setLineJoin(0)
        d.draw(f.prims)
        c.restoreState()

