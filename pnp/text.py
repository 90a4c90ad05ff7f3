"""Text layout: markup -> runs -> lines -> positioned Text primitives (and inline icons), with
shrink-to-fit. Pure: uses font metrics only, never a canvas.

Rich-text markup: ``**bold**``, ``*italic*``, ``{icon:NAME}``, a line break for each newline and
a paragraph gap for a blank line. ``\\*`` is a literal asterisk."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from pnp.fonts import FontBook
from pnp.primitives import Primitive, Text


@dataclass(frozen=True)
class Style:
    font: str = "Lato-Regular"
    size: float = 9.0
    leading: float = 1.2
    color: str = "#000000"
    align: str = "left"
    valign: str = "top"
    case: str = "none"
    tracking: float = 0.0
    paragraph_space: float = 0.4
    bold_font: str | None = None
    italic_font: str | None = None


@dataclass(frozen=True)
class Run:
    """A piece of one word: text in one font, or an icon."""

    text: str
    bold: bool = False
    italic: bool = False
    icon: str | None = None


Token = list[Run]  # one unbreakable word
BREAK = "\n"
PARA = "\n\n"

# An icon callback: (name, size_pt) -> (advance width, draw(x, baseline_y) -> primitives)
IconFn = Callable[[str, float], tuple[float, Callable[[float, float], list[Primitive]]]]

_MARK = re.compile(r"(\\\*|\*\*|\*|\{icon:[a-z0-9_-]+\}|\n)")


def parse(text: str, markup: bool) -> list[Token | str]:
    """Split into words (lists of runs) and the line-break markers BREAK / PARA."""
    if not markup:
        parts = re.split(r"(\n)", text)
        chunks: list[tuple[str, bool, bool, str | None]] = [(p, False, False, None) for p in parts]
    else:
        chunks = []
        bold = italic = False
        for part in _MARK.split(text):
            if not part:
                continue
            if part == "**":
                bold = not bold
            elif part == "*":
                italic = not italic
            elif part == "\\*":
                chunks.append(("*", bold, italic, None))
            elif part.startswith("{icon:"):
                chunks.append(("", bold, italic, part[6:-1]))
            else:
                chunks.append((part, bold, italic, None))
    out: list[Token | str] = []
    word: Token = []
    newlines = 0

    def flush_word() -> None:
        nonlocal word
        if word:
            out.append(word)
            word = []

    for s, b, i, icon in chunks:
        if icon is not None:
            newlines = _emit_breaks(out, newlines)
            word.append(Run("", b, i, icon))
            continue
        if s == "\n":
            flush_word()
            newlines += 1
            continue
        pieces = re.split(r"([ \t]+)", s)
        for p in pieces:
            if not p:
                continue
            if p.isspace():
                flush_word()
                continue
            newlines = _emit_breaks(out, newlines)
            word.append(Run(p, b, i))
    flush_word()
    return out


def _emit_breaks(out: list[Token | str], newlines: int) -> int:
    if newlines and out:
        out.append(PARA if newlines >= 2 else BREAK)
    return 0


@dataclass(frozen=True)
class Fit:
    size: float  # the size used
    fits: bool
    lines: int
    wanted: float  # the style's size


class TextLayout:
    def __init__(self, fonts: FontBook, icon_fn: IconFn | None = None):
        self.fonts = fonts
        self.icon_fn = icon_fn

    def _font(self, st: Style, run: Run) -> str:
        if run.bold and run.italic:
            return self.fonts.variant(st.font, True, True)
        if run.bold:
            return st.bold_font or self.fonts.variant(st.font, True, False)
        if run.italic:
            return st.italic_font or self.fonts.variant(st.font, False, True)
        return st.font

    def _cased(self, st: Style, s: str) -> str:
        return s.upper() if st.case == "upper" else s.lower() if st.case == "lower" else s

    def _run_width(self, st: Style, run: Run, size: float) -> float:
        if run.icon is not None:
            if self.icon_fn is None:
                return 0.0
            return self.icon_fn(run.icon, size)[0]
        t = self._cased(st, run.text)
        return self.fonts.width(t, self._font(st, run), size) + st.tracking * len(t)

    def _word_width(self, st: Style, word: Token, size: float) -> float:
        return sum(self._run_width(st, r, size) for r in word)

    def _lines(self, st: Style, tokens: list[Token | str], size: float, width: float,
               wrap: bool) -> tuple[list[tuple[list[Token], bool]], bool]:
        """Greedy line breaking. Returns [(words, paragraph_starts_after)], all_words_fit."""
        space = self.fonts.width(" ", st.font, size) + st.tracking
        lines: list[tuple[list[Token], bool]] = []
        cur: list[Token] = []
        cur_w = 0.0
        ok = True
        for tok in tokens:
            if isinstance(tok, str):
                if wrap:
                    lines.append((cur, tok == PARA))
                    cur, cur_w = [], 0.0
                continue
            w = self._word_width(st, tok, size)
            if w > width + 1e-6:
                ok = False
            if cur and wrap and cur_w + space + w > width + 1e-6:
                lines.append((cur, False))
                cur, cur_w = [tok], w
            else:
                cur_w = cur_w + (space if cur else 0.0) + w
                cur.append(tok)
        lines.append((cur, False))
        if not wrap and cur_w > width + 1e-6:
            ok = False
        return lines, ok

    def _height(self, st: Style, lines: list[tuple[list[Token], bool]], size: float) -> float:
        """CSS-style line boxes: every line is size x leading tall, plus paragraph gaps."""
        paras = sum(1 for _, p in lines[:-1] if p)
        return size * st.leading * len(lines) + paras * size * st.paragraph_space

    def fit(self, text: str, st: Style, box: tuple[float, float, float, float], *, markup: bool,
            wrap: bool = True, min_size: float | None = None, step: float = 0.25
            ) -> tuple[list[Primitive], Fit]:
        """Lay out ``text`` in ``box`` (x, y, w, h in pt, y = bottom), shrinking from the style's
        size towards ``min_size`` until it fits. When it cannot fit, it is drawn at ``min_size``
        and ``Fit.fits`` is False (the caller reports it)."""
        tokens = parse(text, markup)
        w, h = box[2], box[3]
        floor = min(min_size if min_size is not None else st.size, st.size)
        size = st.size
        while True:
            lines, ok = self._lines(st, tokens, size, w, wrap)
            if ok and self._height(st, lines, size) <= h + 1e-6:
                fits = True
                break
            nxt = round(size - step, 4)
            if nxt < floor - 1e-9:
                fits = False
                break
            size = nxt
        prims = self._place(st, lines, size, box)
        return prims, Fit(size, fits, len([ln for ln in lines if ln[0]]), st.size)

    def _place(self, st: Style, lines: list[tuple[list[Token], bool]], size: float,
               box: tuple[float, float, float, float]) -> list[Primitive]:
        x, y, w, h = box
        total = self._height(st, lines, size)
        lh = size * st.leading
        if st.valign == "middle" and len(lines) == 1:
            # One line, centred optically: the middle of the capitals sits on the box's middle.
            baseline = y + h / 2 - self.fonts.cap_height(st.font, size) / 2
        else:
            if st.valign == "top":
                top = y + h
            elif st.valign == "bottom":
                top = y + total
            else:
                top = y + h / 2 + total / 2
            asc, desc = self.fonts.ascent(st.font, size), self.fonts.descent(st.font, size)
            baseline = top - (lh - size) / 2 - size * asc / (asc + desc)
        space = self.fonts.width(" ", st.font, size) + st.tracking
        out: list[Primitive] = []
        for words, para_after in lines:
            line_w = sum(self._word_width(st, wd, size) for wd in words) + space * max(0, len(words) - 1)
            if words:
                line_w -= st.tracking  # no letter follows the last one: its tracking is not ink
            if st.align == "center":
                cx = x + (w - line_w) / 2
            elif st.align == "right":
                cx = x + w - line_w
            else:
                cx = x
            last_end: float | None = None  # where the last Text of this line ends, for merging
            for wi, word in enumerate(words):
                gap = space if wi else 0.0
                cx += gap
                for ri, run in enumerate(word):
                    rw = self._run_width(st, run, size)
                    if run.icon is not None:
                        if self.icon_fn is not None:
                            out.extend(self.icon_fn(run.icon, size)[1](cx, baseline))
                        last_end = None
                    else:
                        text, font = self._cased(st, run.text), self._font(st, run)
                        prev = out[-1] if out and last_end is not None else None
                        # One Text per stretch of a line in one font: reportlab then places the
                        # glyphs itself, exactly where separate words would have gone (a space
                        # is that font's space when the font is the style's own).
                        joiner = " " if (wi and ri == 0) else ""
                        if (isinstance(prev, Text) and prev.font == font and st.tracking == 0
                                and (joiner == "" or font == st.font)):
                            out[-1] = Text(prev.x, prev.y, prev.text + joiner + text, font, size, st.color, 0.0)
                        else:
                            out.append(Text(cx, baseline, text, font, size, st.color, st.tracking))
                        last_end = cx + rw
                    cx += rw
            baseline -= lh + (size * st.paragraph_space if para_after else 0.0)
        return out
