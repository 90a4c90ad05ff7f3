"""The contents PDF ``pnp build`` writes beside each game's PDFs: the contents sheet (what was
printed, the paper and cut settings, what else is needed) and the assembly page."""

from __future__ import annotations

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
from pnp.layout.primitives import Line, Paint, Primitive, Rect
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


class _Sheet:
    """A cursor from the top of the page down; every text goes through ``TextLayout``. ``paged``:
    a table row that would end below the bottom margin starts a new page (``pages``, the pages
    before this one), for a game whose rows do not fit one page even at half size."""

    def __init__(self, fonts: FontBook, width: float, height: float, margin: float, k: float,
                 paged: bool = False):
        self.tl = TextLayout(fonts)
        self.w, self.h, self.m, self.k, self.paged = width, height, margin, k, paged
        self.y = height - margin
        self.prims: list[Primitive] = []
        self.pages: list[list[Primitive]] = []

    def style(self, font: str, size: float, color: str = INK, align: str = "left", **kw: Any) -> Style:
        return Style(font, size=size * self.k, color=color, align=align, valign="top", leading=1.25, **kw)

    def text(self, s: str, st: Style, x: float, w: float, top: float, wrap: bool = True) -> float:
        """Draw ``s`` from ``top`` down in a column (x, w); returns the height used."""
        prims, fit = self.tl.fit(s, st, (x, top - 2000, w, 2000), markup=False, wrap=wrap,
                                 min_size=st.size * 0.6)
        self.prims.extend(prims)
        return max(1, fit.lines) * fit.size * st.leading

    def gap(self, mm: float) -> None:
        self.y -= mm * MM * self.k

    def rule(self, color: str = HAIRLINE, width: float = 0.5) -> None:
        self.prims.append(Line(self.m, self.y, self.w - self.m, self.y, Paint(stroke=color, stroke_width=width)))

    def box(self, x: float, top: float, size: float) -> None:
        self.prims.append(Rect(x, top - size, size, size, Paint(stroke=INK, stroke_width=0.6), radius=1.0))

    def heading(self, s: str, note: str = "") -> None:
        st = self.style(UI_BOLD, 14, ACCENT)
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
        below the bottom margin goes to the top of a new page (unless it is the page's first)."""
        start = len(self.prims)
        self._row(cells, check, shade, pad)
        if self.paged and self.y < self.m and start > 1:
            del self.prims[start:]
            self.pages.append(self.prims)
            self.prims, self.y = [], self.h - self.m
            self.y -= self.text("Contents sheet, continued", self.style(UI_FONT, 9, MUTED), self.m,
                                self.w - 2 * self.m, self.y) + 3 * self.k
            self._row(cells, check, shade, pad)

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
    not printed (``game.not_printed``). Page 2, the assembly page (:func:`assembly_page`). Laid
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
    layouts.append(PieceLayout(paper.width, paper.height, 0.0, tuple(assembly_page(game, plans, opts, paper, fonts))))
    info = _info(game, "contents and assembly", f"pnp contents sheet: {game.id}")
    full = Edges(0.0, 0.0, 0.0, 0.0)
    pages_out = [Page(i + 1, "front", (Slot(i, "front", 0.0, 0.0, paper.width, paper.height, full),), ())
                 for i in range(len(layouts))]
    return render(pages_out, paper, layouts, [None] * len(layouts), fonts,
                  replace(info, duplex="simplex", color=opts.color))


def assembly_page(game: Game, plans: Sequence[ComponentPlan], opts: BuildOptions, paper: Paper,
                  fonts: FontBook) -> list[Primitive]:
    """The assembly page (``pnp.products.assembly.sections``) with a 1 in and a 1 cm scale square at the
    top right, shrunk like the contents sheet until it fits."""
    secs = sections(game, plans, opts.duplex, paper, opts.print_shop, opts.token_cut)
    margin = 15 * MM
    s = None
    for k in (1.0, 0.92, 0.85, 0.78, 0.72, 0.66, 0.6, 0.55, 0.5):
        s = _Sheet(fonts, paper.width, paper.height, margin, k)
        m, W = margin, paper.width - 2 * margin
        title_w = W - INCH - 10 * MM - 4 * MM  # the squares sit right of the title
        top = s.y
        s.y -= s.text(f"{game.title}: printing and assembly", s.style(UI_BOLD, 20), m, title_w, s.y)
        s.gap(1.5)
        s.y -= s.text("How to print, cut and put together every part of this build, in order.",
                      s.style(UI_FONT, 9, MUTED), m, title_w, s.y)
        s.y = min(s.y, top - INCH) - 5 * MM * k
        body = s.style(UI_FONT, 9.5)
        for sec in secs:
            s.heading(sec.heading)
            for para in sec.paragraphs:
                s.y -= s.text(para, body, m, W, s.y)
                s.gap(2)
            s.gap(3)
        if s.y >= margin:
            break
    assert s is not None
    x_in = paper.width - margin - INCH
    for x, side, lines in ((x_in, INCH, ["1 in", "print at", "100 % /", "actual size"]),
                           (x_in - 3 * MM - 10 * MM, 10 * MM, ["1 cm"])):
        for p in scale_square(fonts, UI_FONT, side, lines):
            s.prims.append(replace(p, x=p.x + x, y=p.y + top - side))
    return s.prims


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
    s.heading("Printed", f"{len(plans)} components · {total_pieces} pieces · {total_pages} pages")
    cols = [  # (header, share of the width, align)
        ("", 0.035, "left"), ("Component", 0.30, "left"), ("Kind", 0.14, "left"), ("Size", 0.13, "left"),
        ("Pieces", 0.13, "right"), ("Per sheet", 0.17, "right"), ("Pages", 0.095, "right")]
    xs: list[tuple[float, float]] = []
    x = m
    pad = 4 * k
    for _, share, _ in cols:
        xs.append((x + pad / 2, W * share - pad))
        x += W * share
    head = s.style(UI_BOLD, 7.5, MUTED, tracking=0.4)
    s.row([(*xs[i], False, [(h.upper(), replace(head, align=a))]) for i, (h, _, a) in enumerate(cols) if h], pad=2)
    s.rule()
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
    label_w = W * 0.16
    for label, text in settings:
        s.row([(m, label_w - 4 * k, False, [(label, s.style(UI_BOLD, 9))]),
               (m + label_w, W - label_w, True, [(text, s.style(UI_FONT, 9))])], pad=2)
    s.gap(6)

    # -- not printed
    s.heading("Not printed — you also need")
    if not game.not_printed:
        none = "Nothing else: every part of the game is printed."
        s.row([(m, W, True, [(none, s.style(UI_FONT, 9.5, MUTED))])])
    name_x = m + W * 0.035 + pad / 2
    name_w = W * 0.33 - pad
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
    prims, _ = s.tl.fit(foot, fst, (m, margin - 8 * MM, W, 6 * MM), markup=False, wrap=False, min_size=4)
    s.prims.extend(prims)
    return s

