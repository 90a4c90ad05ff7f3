"""The contents PDF ``pnp build`` writes beside each game's PDFs: the contents sheet (what was
printed, the paper and cut settings, what else is needed) and the assembly page."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from msgspec.structs import replace

from pnp.errors import counted
from pnp.impose.marks import scale_square
from pnp.impose.sheet import DEFAULT_DUPLEX, DEFAULT_PAPER, PAPERS, Edges, Page, Paper, Slot, paper_named
from pnp.input import kinds
from pnp.input.model import Component, Game
from pnp.input.project import DataRoot, bundled_root
from pnp.layout.fonts import UI_BOLD, UI_FONT, FontBook
from pnp.layout.piece import PieceLayout
from pnp.layout.primitives import Line, Paint, Primitive, Rect, Text
from pnp.layout.text import Style, TextLayout
from pnp.plan.component import ComponentPlan, pages_for
from pnp.plan.digest import data_version
from pnp.plan.options import BuildOptions
from pnp.plan.session import Session
from pnp.products.assembly import sections
from pnp.products.images import _info
from pnp.render.draw import render
from pnp.units import INCH, MM
from pnp.version import __version__

if TYPE_CHECKING:  # PDFium and Pillow load only for exports: a build's contents sheet needs neither
    pass

# The contents and assembly pages are set in the UI font's family, which labels every sheet: they
# add no font to a build (each further TrueType font would be one more file to load and parse).


# --------------------------------------------------------------------------- contents sheet

INK = "#1f1c18"
MUTED = "#6e675d"
ACCENT = "#7a4a24"
HAIRLINE = "#c8c0b2"
SHADE = "#f2eee6"
DUPLEX_TEXT = {
    "long": "Double-sided, flipped on the long edge: each front page is followed by its back page",
    "short": "Double-sided, flipped on the short edge: each front page is followed by its back page",
    "none": "Single-sided: fronts only, no backs printed",
    "fold": "Gutterfold, single-sided: fronts and backs side by side on one page; fold on the fold line, "
            "glue, then cut",
}


# The contents table's columns: (header, share of the text width, align); the first holds the checkboxes.
TABLE_COLUMNS = (
    ("", 0.035, "left"), ("Component", 0.30, "left"), ("Kind", 0.14, "left"), ("Size", 0.13, "left"),
    ("Pieces", 0.13, "right"), ("Per sheet", 0.17, "right"), ("Pages", 0.095, "right"))
# The not-printed table's: the checkboxes, the name; the quantity takes the rest.
NOT_PRINTED_COLUMNS = (0.035, 0.33)
SETTINGS_LABEL = 0.16  # the print settings' labels: their share of the text width; the text takes the rest


def _paper_text(paper: Paper) -> str:
    w, h = paper.width / MM, paper.height / MM
    if paper.name == "letter":
        return f"Letter, 8.5 x 11 in ({w:.0f} x {h:.0f} mm)"
    if paper.name == "universal":
        return (f"Universal, {w:g} x {h:g} mm (the part of the page that A4 and Letter share): print it on A4 or "
                "Letter at actual size")
    return f"{paper.name.upper() if len(paper.name) <= 3 else paper.name.title()}, {w:.0f} x {h:.0f} mm"


def _per_sheet(plan: ComponentPlan) -> str:
    if plan.placement == "print-shop":
        return "1 per page"
    if plan.placement == "page":
        return "1 per page"
    if plan.grid is not None:
        g = plan.grid
        return f"{g.cols} x {g.rows} = {g.cols * g.rows}" + (", turned" if g.rotated else "")
    pages = pages_for(plan)
    part = pages[0].slots[0].part if pages and pages[0].slots else None
    if part is not None:
        return f"{part.rows} x {part.cols} parts, glued"
    return "1 per page"


def _correction_text(opts: BuildOptions) -> str:
    (dx, dy), (sx, sy) = getattr(opts, "back_offset", (0.0, 0.0)), getattr(opts, "back_scale", (1.0, 1.0))
    moves = [f"{abs(v):g} mm {pos if v > 0 else neg}" for v, pos, neg in ((dx, "right", "left"), (dy, "up", "down"))
             if v]
    parts = ["moved " + " and ".join(moves)] if moves else []
    if (sx, sy) != (1.0, 1.0):
        parts.append(f"scaled {sx:g} across, {sy:g} up" if sx != sy else f"scaled {sx:g}")
    if not parts or opts.print_shop:
        return ""
    return "Back pages " + " and ".join(parts) + " to match this printer's duplex (measured with pnp calibrate)"


def _kind_text(comp: Component) -> str:
    k = kinds.get(comp.kind)
    return comp.kind if len(k.shapes) == 1 else f"{comp.kind}, {comp.shape}"


Cell = tuple[float, float, bool, Sequence[tuple[str, Style]]]  # x, width, wrap, stacked lines


# The box a text too long for its column is laid out in, wrapped (``_Sheet.text``): this tall.
_TALL = 1e6


def _break_words(fonts: FontBook, text: str, st: Style, width: float) -> str:
    """``text`` with each word wider than ``width`` (at the style's size) cut between letters into
    pieces that are not, each followed by a space: wrapped, each piece then fills a line."""
    def cut(m: re.Match[str]) -> str:
        word = m.group(0)
        if fonts.width(word, st.font, st.size) + st.tracking * len(word) <= width:
            return word
        table = fonts.widths(st.font, st.size)
        pieces: list[str] = []
        start, used = 0, 0.0
        for i, ch in enumerate(word):
            w = (table.get(ch) or fonts.width(ch, st.font, st.size)) + st.tracking
            if used + w > width - 0.5 and i > start:  # 0.5 pt to spare: a sum of letters, not the word
                pieces.append(word[start:i])
                start, used = i, 0.0
            used += w
        pieces.append(word[start:])
        return " ".join(pieces)

    return re.sub(r"[^ \t\n]+", cut, text)  # a word as the wrapping sees one: a no-break space joins (attack 23)


class _Sheet:
    """A cursor from the top of the page down; every text goes through ``TextLayout``. ``paged``:
    a table row that would end below the bottom margin starts a new page (``pages``, the pages
    before this one; each begins with ``continued``), for a game whose rows do not fit one page
    even at half size; a row taller than a page is split between its lines. A text that does not
    fit its column even at 60 % of its size is wrapped at its size, its over-long words broken
    (:func:`_break_words`): no text reaches past its column or off the page."""

    def __init__(self, fonts: FontBook, width: float, height: float, margin: float, k: float,
                 paged: bool = False, continued: str = "Contents sheet, continued"):
        self.tl = TextLayout(fonts)
        self.w, self.h, self.m, self.k, self.paged = width, height, margin, k, paged
        self.continued = continued
        self.y = height - margin
        self.prims: list[Primitive] = []
        self.pages: list[list[Primitive]] = []
        self.page_start = 1  # the primitives a page has before its first row (page 1: at least its title)
        self.header: Sequence[Cell] | None = None  # the header row of the table being drawn, if any

    def style(self, font: str, size: float, color: str = INK, align: str = "left", **kw: Any) -> Style:
        return Style(font, size=size * self.k, color=color, align=align, valign="top", leading=1.25, **kw)

    def text(self, s: str, st: Style, x: float, w: float, top: float, wrap: bool = True) -> float:
        """Draw ``s`` from ``top`` down in a column (x, w); returns the height used."""
        prims, fit = self.tl.fit(s, st, (x, top - 2000, w, 2000), markup=False, wrap=wrap,
                                 min_size=st.size * 0.6)
        if not fit.fits:  # too wide for its column even at 60 % (or over 2,000 pt tall): wrapped at its size
            prims, fit = self.tl.fit(_break_words(self.tl.fonts, s, st, w), st, (x, top - _TALL, w, _TALL),
                                     markup=False, wrap=True)
        self.prims.extend(prims)
        return max(1, fit.lines) * fit.size * st.leading

    def gap(self, mm: float) -> None:
        self.y -= mm * MM * self.k

    def rule(self, color: str = HAIRLINE, width: float = 0.5) -> None:
        self.prims.append(Line(self.m, self.y, self.w - self.m, self.y, Paint(stroke=color, stroke_width=width)))

    def box(self, x: float, top: float, size: float) -> None:
        self.prims.append(Rect(x, top - size, size, size, Paint(stroke=INK, stroke_width=0.6), radius=1.0))

    def new_page(self) -> None:
        """On a ``paged`` sheet: the page so far is done; the cursor goes to the top of the next,
        under its ``continued`` line."""
        self.pages.append(self.prims)
        self.prims, self.y = [], self.h - self.m
        self.y -= self.text(self.continued, self.style(UI_FONT, 9, MUTED), self.m, self.w - 2 * self.m,
                            self.y) + 3 * self.k
        if self.header is not None:  # a table goes on: its header row again
            self._row(self.header, False, False, 2)
            self.rule()
        self.page_start = len(self.prims)

    def heading(self, s: str, note: str = "") -> None:
        st = self.style(UI_BOLD, 14, ACCENT)
        # On a paged sheet, a heading is kept with two lines of what follows it (9.5 pt, 6 pt of padding).
        need = (14 * 1.25 + 2 + 1.5 * MM + 2 * 9.5 * 1.25 + 6) * self.k
        if self.paged and len(self.prims) > self.page_start and self.y - need < self.m:
            self.new_page()
        h = self.text(s, st, self.m, self.w - 2 * self.m, self.y)
        if note:
            self.text(note, self.style(UI_FONT, 8.5, MUTED, align="right"), self.m, self.w - 2 * self.m,
                      self.y - (h - 8.5 * self.k * 1.25) / 2 - 2 * self.k)
        self.y -= h + 2 * self.k
        self.rule(ACCENT, 0.8)
        self.gap(1.5)

    def row(self, cells: Sequence[Cell], check: bool = False, shade: bool = False, pad: float = 3.0) -> None:
        """One table row of cells, each (x, width, wrap, [(text, style), ...] stacked); a checkbox
        at the left margin, level with the first line. On a ``paged`` sheet, a row that would end
        below the bottom margin goes to the top of a new page (unless it is the page's first, or
        taller than a page); one that still does not fit is split between its lines over pages."""
        start, y0 = len(self.prims), self.y
        self._row(cells, check, shade, pad)
        if not self.paged or self.y >= self.m:
            return
        room = self.h - 2 * self.m - (9 * 1.25 + 3) * self.k  # a page's height for rows
        if start > self.page_start and (y0 - self.y <= room or not self._first_line_fits(self.prims[start:])):
            del self.prims[start:]
            self.new_page()
            start, y0 = len(self.prims), self.y
            self._row(cells, check, shade, pad)
            if self.y >= self.m:
                return
        row = self.prims[start:]
        del self.prims[start:]
        self._split(row, y0, shade, pad)

    def _line_box(self, t: Text) -> tuple[float, float]:
        """The top and bottom of the line box a text line was placed in (as ``TextLayout`` places it)."""
        f = self.tl.fonts
        asc, desc = f.ascent(t.font, t.size), f.descent(t.font, t.size)
        lh = t.size * 1.25
        top = t.y + (lh - t.size) / 2 + t.size * asc / (asc + desc)
        return top, top - lh

    def _first_line_fits(self, row: Sequence[Primitive]) -> bool:
        texts = [p for p in row if isinstance(p, Text)]
        return not texts or self._line_box(max(texts, key=lambda t: t.y))[1] >= self.m - 1e-6

    def _split(self, row: Sequence[Primitive], top: float, shade: bool, pad: float) -> None:
        """A laid-out row that does not fit above the bottom margin, split between its lines: the
        lines that fit stay, the rest go on at the top of the next page (their places relative to
        each other kept), until all are placed; the shading is drawn behind each part."""
        texts = [p for p in row if isinstance(p, Text)]
        others = [p for p in row if not isinstance(p, Text) and not (shade and isinstance(p, Rect)
                                                                     and p.paint.fill == SHADE)]
        while True:
            bottoms = [self._line_box(t)[1] for t in texts]
            fits = [b >= self.m - 1e-6 for b in bottoms]
            if not any(fits):  # not even one line fits below the top of a page (not at these sizes)
                fits = [True] * len(texts)
            keep = [t for t, f in zip(texts, fits, strict=True) if f]
            move = [t for t, f in zip(texts, fits, strict=True) if not f]
            bottom = min(b for b, f in zip(bottoms, fits, strict=True) if f) - pad * self.k
            if shade:
                self.prims.append(Rect(self.m, bottom, self.w - 2 * self.m, top - bottom, Paint(fill=SHADE)))
            self.prims.extend(keep)
            self.prims.extend(others)  # the checkbox, beside the first line
            others = []
            if not move:
                self.y = bottom
                return
            self.new_page()
            top = self.y
            shift = top - pad * self.k - max(self._line_box(t)[0] for t in move)
            texts = [replace(t, y=t.y + shift) for t in move]

    def _row(self, cells: Sequence[Cell], check: bool, shade: bool, pad: float) -> None:
        top = self.y - pad * self.k
        start = len(self.prims)
        hgt = 0.0
        for x, w, wrap, parts in cells:
            y = top
            for text, st in parts:
                y -= self.text(text, st, x, w, y, wrap)
            hgt = max(hgt, top - y)
        hgt += 2 * pad * self.k
        if shade:
            self.prims.insert(start, Rect(self.m, self.y - hgt, self.w - 2 * self.m, hgt, Paint(fill=SHADE)))
        if check:
            size = 7.5 * self.k
            first = cells[0][3][0][1]
            self.box(self.m + 2 * self.k, top - (first.size * first.leading - size) / 2, size)
        self.y -= hgt


def _derived_options(plans: Sequence[ComponentPlan]) -> BuildOptions:
    bleeds = [p.sheet.bleed / MM for p in plans if kinds.get(p.component.kind).bleed]
    sheet = plans[0].sheet if plans else None
    paper = sheet.paper.name if sheet and sheet.paper.name in PAPERS else DEFAULT_PAPER
    return BuildOptions(paper=paper, duplex=sheet.duplex if sheet else DEFAULT_DUPLEX,
                        bleed_mm=max(set(bleeds), key=bleeds.count) if bleeds else 0.0,
                        print_shop=any(p.placement == "print-shop" for p in plans),
                        token_cut="circle" if any(p.component.shape == "round" and not p.sheet.abut for p in plans)
                        else "square")


def render_contents(game: Game, plans: Sequence[ComponentPlan], opts: BuildOptions | None = None,
                    pages_per_component: Mapping[str, int] | None = None, *,
                    fonts: FontBook | None = None, session: Session | None = None,
                    preflight: str | None = None) -> bytes:
    """The contents PDF: two pages on the build's paper (more when the contents sheet's rows do
    not fit one page even at half size: the sheet goes on over further pages). Page 1, the contents sheet: what was
    printed (per component: title, kind, size, pieces, pieces per sheet, pages, and with a
    ``session`` its data version), the paper, duplex and bleed settings, and what is needed but
    not printed (``game.not_printed``). Then the assembly page (:func:`assembly_pages`: one page, or
    more when its lists of components do not fit one at half size). Every text stays in its column
    and on its page: a row or paragraph that does not fit goes on over pages, a word too wide
    for its column is broken (``_Sheet``). Laid
    out with ``TextLayout`` into primitives and drawn by ``pnp.render.draw.render`` like any piece.
    ``opts`` and ``pages_per_component`` default to what the plans say. The low-ink variant
    (``--ink-saver``) says so in the settings; ``preflight`` (the build's one-line preflight
    summary) is printed there too."""
    opts = opts or _derived_options(plans)
    fonts = fonts or (session.fonts if session else FontBook(DataRoot(bundled_root()).font_dirs()))
    pages = {p.component.id: (pages_per_component or {}).get(p.component.id) or len(pages_for(p)) for p in plans}
    paper = plans[0].sheet.paper if plans and plans[0].sheet.paper.name == opts.paper else paper_named(opts.paper)
    versions = ({p.component.id: data_version(session.root, session.store, game, p.component) for p in plans}
                if session is not None else {})
    margin = 15 * MM
    for k in (1.0, 0.92, 0.85, 0.78, 0.72, 0.66, 0.6, 0.55, 0.5):
        sheet = _contents_page(game, plans, opts, pages, paper, margin, fonts, k, versions, preflight)
        if sheet.y >= margin:
            break
    else:  # not on one page even at half size (many components or not_printed entries): continued
        # on further pages at a legible size; their rows ran off the page before (attack 13)
        sheet = _contents_page(game, plans, opts, pages, paper, margin, fonts, 0.85, versions, preflight, paged=True)
    layouts = [PieceLayout(paper.width, paper.height, 0.0, tuple(p)) for p in (*sheet.pages, sheet.prims)]
    layouts.extend(PieceLayout(paper.width, paper.height, 0.0, tuple(p))
                   for p in assembly_pages(game, plans, opts, paper, fonts))
    info = _info(game, "contents and assembly", f"pnp contents sheet: {game.id}")
    full = Edges(0.0, 0.0, 0.0, 0.0)
    pages_out = [Page(i + 1, "front", (Slot(i, "front", 0.0, 0.0, paper.width, paper.height, full),), ())
                 for i in range(len(layouts))]
    return render(pages_out, paper, layouts, [None] * len(layouts), fonts,
                  replace(info, duplex="simplex", color=opts.color))


def assembly_pages(game: Game, plans: Sequence[ComponentPlan], opts: BuildOptions, paper: Paper,
                   fonts: FontBook) -> list[list[Primitive]]:
    """The assembly page (``pnp.products.assembly.sections``) with a 1 in and a 1 cm scale square at the
    top right, shrunk like the contents sheet until it fits; a game whose lists of components do
    not fit one page even at half size (many components, long titles) has it go on over further
    pages ("Printing and assembly, continued") at a legible size, split between lines."""
    secs = sections(game, plans, opts.duplex, paper, opts.print_shop, opts.token_cut)
    margin = 15 * MM
    s = None
    # (the sizes tried on one page; then, paged, at 0.85 as the contents sheet goes on)
    for k, paged in (*((k, False) for k in (1.0, 0.92, 0.85, 0.78, 0.72, 0.66, 0.6, 0.55, 0.5)), (0.85, True)):
        s = _Sheet(fonts, paper.width, paper.height, margin, k, paged, "Printing and assembly, continued")
        m, W = margin, paper.width - 2 * margin
        title_w = W - INCH - 10 * MM - 4 * MM  # the squares sit right of the title
        top = s.y
        s.y -= s.text(f"{game.title}: printing and assembly", s.style(UI_BOLD, 20), m, title_w, s.y)
        s.gap(1.5)
        s.y -= s.text("How to print, cut and put together every part of this build, in order.",
                      s.style(UI_FONT, 9, MUTED), m, title_w, s.y)
        s.y = min(s.y, top - INCH) - 5 * MM * k
        s.page_start = len(s.prims)
        body = s.style(UI_FONT, 9.5)
        for sec in secs:
            s.heading(sec.heading)
            for para in sec.paragraphs:
                if paged:
                    s.row([(m, W, True, [(para, body)])], pad=0.0)
                else:
                    s.y -= s.text(para, body, m, W, s.y)
                s.gap(2)
            s.gap(3)
        if paged or s.y >= margin:
            break
    assert s is not None
    first = s.pages[0] if s.pages else s.prims
    x_in = paper.width - margin - INCH
    for x, side, lines in ((x_in, INCH, ["1 in", "print at", "100 % /", "actual size"]),
                           (x_in - 3 * MM - 10 * MM, 10 * MM, ["1 cm"])):
        for p in scale_square(fonts, UI_FONT, side, lines):
            first.append(replace(p, x=p.x + x, y=p.y + top - side))
    return [*s.pages, s.prims]


def _contents_page(game: Game, plans: Sequence[ComponentPlan], opts: BuildOptions, pages: Mapping[str, int],
                   paper: Paper, margin: float, fonts: FontBook, k: float,
                   versions: Mapping[str, str] | None = None, preflight: str | None = None,
                   paged: bool = False) -> _Sheet:
    s = _Sheet(fonts, paper.width, paper.height, margin, k, paged)
    m, W = margin, paper.width - 2 * margin
    s.y -= s.text(game.title, s.style(UI_BOLD, 26), m, W, s.y)
    if game.subtitle:
        s.y -= s.text(game.subtitle, s.style(UI_FONT, 12, MUTED), m, W, s.y)
    lo, hi = game.players
    if hi is None:
        players = f"{lo}+ players"
    elif hi != lo:
        players = f"{lo}–{hi} players"
    else:
        players = counted(lo, "player")
    byline = " · ".join(x for x in (f"by {game.designer}" if game.designer else "", players) if x)
    s.gap(1)
    s.y -= s.text(byline, s.style(UI_FONT, 10.5, MUTED), m, W, s.y)
    s.gap(1.5)
    s.text("Contents sheet: check off each part as you print, cut and gather it.",
           s.style(UI_FONT, 9, MUTED), m, W, s.y)
    s.y -= 9 * k * 1.25
    s.gap(6)

    # -- printed
    total_pieces = sum(p.component.pieces for p in plans)
    total_pages = sum(pages.values())
    s.heading("Printed", f"{counted(len(plans), 'component')} · {counted(total_pieces, 'piece')} · "
              f"{counted(total_pages, 'page')}")  # "1 components" (attack 25, borderline)
    cols = TABLE_COLUMNS
    xs: list[tuple[float, float]] = []
    x = m
    pad = 4 * k
    for _, share, _ in cols:
        xs.append((x + pad / 2, W * share - pad))
        x += W * share
    head = s.style(UI_BOLD, 7.5, MUTED, tracking=0.4)
    header = [(*xs[i], False, [(h.upper(), replace(head, align=a))]) for i, (h, _, a) in enumerate(cols) if h]
    s.row(header, pad=2)
    s.rule()
    s.header = header  # repeated on the pages the table goes on over
    body = s.style(UI_FONT, 9.5)
    right = replace(body, align="right")
    small = s.style(UI_FONT, 7, MUTED)
    for i, p in enumerate(plans):
        c = p.component
        pieces = f"{c.pieces}" + (f" ({len(c.items)} distinct)" if len(c.items) != c.pieces else "")
        sides = ", fronts + backs" if any(pg.side == "back" for pg in pages_for(p)) else ""
        version = f" · data {versions[c.id]}" if versions and c.id in versions else ""
        s.row([
            (*xs[1], True, [(c.title, s.style(UI_BOLD, 9.5)), (f"{c.id}.pdf{sides}{version}", small)]),
            (*xs[2], True, [(_kind_text(c), body)]),
            (*xs[3], False, [(f"{c.size[0]:g} x {c.size[1]:g} mm", body)]),
            (*xs[4], False, [(pieces, right)]),
            (*xs[5], True, [(_per_sheet(p), right)]),
            (*xs[6], False, [(f"{pages[c.id]}", right)]),
        ], check=True, shade=i % 2 == 1)
    s.header = None
    s.rule()
    s.gap(6)

    # -- settings
    s.heading("Print settings")
    bleeds = {p.component.title: p.sheet.bleed / MM for p in plans}
    main = opts.bleed_mm
    others = [f"{t}: {'none' if b == 0 else f'{b:g} mm'}" for t, b in bleeds.items() if abs(b - main) > 1e-6]
    settings = [
        ("Paper", "Print-shop pages: each page is one piece, exactly trim + bleed, with TrimBox and BleedBox "
                  f"set (this sheet: {_paper_text(paper)})" if opts.print_shop else _paper_text(paper)),
        ("Printing", "A piece's front page is followed by its back page (when it has one); the print service "
                     "prints them as one double-sided piece" if opts.print_shop else
         DUPLEX_TEXT.get(opts.duplex, opts.duplex) + ". Print at 100 % (actual size), no scaling."),
        ("Bleed", (f"{main:g} mm of art beyond every cut edge" if main else "none")
         + (f" ({'; '.join(others)})" if others else "")),
        ("Cutting", "Print-shop pages: the service trims at the TrimBox" if opts.print_shop else
         "Cut along the lines in the margins; each line is one straight cut across the sheet. "
         "Boards larger than the paper come in parts with glue zones and alignment marks."),
        ("Files", "One PDF per component, named in the table above, in the folder of this sheet"),
    ]
    if preflight:
        settings.append(("Preflight", preflight.replace(">=", "\u2265")
                         + f" (thresholds and ink coverage: pnp preflight {game.id})"))
    correction = _correction_text(opts)
    if correction:
        settings.insert(2, ("Back pages", correction))
    if getattr(opts, "ink_saver", False):
        settings.insert(0, ("Variant", "Ink saver: the game's light colours, no full-bleed colour fills, backs as "
                                       "outline patterns; every colour-coded part keeps its symbol"))
    label_w = W * SETTINGS_LABEL
    for label, text in settings:
        s.row([(m, label_w - 4 * k, False, [(label, s.style(UI_BOLD, 9))]),
               (m + label_w, W - label_w, True, [(text, s.style(UI_FONT, 9))])], pad=2)
    s.gap(6)

    # -- not printed
    s.heading("Not printed — you also need")
    if not game.not_printed:
        none = "Nothing else: every part of the game is printed."
        s.row([(m, W, True, [(none, s.style(UI_FONT, 9.5, MUTED))])])
    name_x = m + W * NOT_PRINTED_COLUMNS[0] + pad / 2
    name_w = W * NOT_PRINTED_COLUMNS[1] - pad
    for i, n in enumerate(game.not_printed):
        qx = name_x + name_w + pad
        s.row([(name_x, name_w, True, [(n.name, s.style(UI_BOLD, 9.5))]),
               (qx, m + W - qx - pad / 2, True, [(n.quantity, s.style(UI_FONT, 9.5))])],
              check=True, shade=i % 2 == 1)
    s.rule()

    # -- footer
    src = game.document.get("title") if game.document else None
    foot = " · ".join(x for x in (f"Source: {src}" if src else "", f"made with pnp {__version__}") if x)
    fst = Style(UI_FONT, size=7 * k, color=MUTED, align="center", valign="bottom")
    box = (m, margin - 8 * MM, W, 6 * MM)
    prims, fit = s.tl.fit(foot, fst, box, markup=False, wrap=False, min_size=4)
    if not fit.fits:  # a long source title: wrapped over the footer's lines, its over-long words broken
        prims, _ = s.tl.fit(_break_words(s.tl.fonts, foot, replace(fst, size=4), W), fst, box, markup=False,
                            min_size=4)
    s.prims.extend(prims)
    return s

