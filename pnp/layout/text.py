"""Text layout: markup -> words -> lines -> positioned Text primitives (and inline icons), with
shrink-to-fit. Pure: uses font metrics only, never a canvas.

Rich-text markup: ``**bold**``, ``*italic*``, ``{icon:NAME}``, a line break for each newline and
a paragraph gap for a blank line. ``\\*`` is a literal asterisk.

Speed: ``fit`` parses a text once into words whose runs already carry their cased
text and resolved font (plain text: just the words' strings); each size tried measures every
word once through FontBook's width table for that (font, size), and ``_place`` reuses those
widths and builds one Text per stretch of a line. The sizes are searched by galloping and
bisection over the grid of steps (``_Shrink`` says why that finds the size stepping down finds),
and a size is skipped without measuring when it provably cannot fit. ``Fit.work`` counts the
characters measured, which a piece's texts are held to (FIT_WORK). Every float is computed with
the same operations in the same order as the straightforward algorithm, so the output is
byte-identical to it (tests/layout/test_text.py compares
the two); results for texts without inline icons are memoised per ``TextLayout``.

Balance: after greedy wrapping, a paragraph that would end in a one-word line takes the last word
of the line above down with it when the two fit (``_balance``; the line count never changes).

Size: over 500 lines because parsing, measuring, line breaking, balancing, the search for a size
(``_Shrink``, with why it is exact) and placing are one pipeline over the same word lists and
widths, kept in step float for float; apart, each would hand the others half a dozen lists."""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from msgspec import Struct

from pnp.layout.fields import LayoutError
from pnp.layout.fonts import UI_FONT, FontBook
from pnp.layout.primitives import INK, Primitive, Text


class Style(Struct, frozen=True):
    font: str = UI_FONT
    size: float = 9.0
    leading: float = 1.2
    color: str = INK
    align: str = "left"
    valign: str = "top"
    case: str = "none"
    tracking: float = 0.0
    paragraph_space: float = 0.4
    bold_font: str | None = None
    italic_font: str | None = None


# A run is a piece of one word: (text, font) in one font, or (icon name, None) for an inline icon;
# the text is already cased by the style. A word is a tuple of runs that never breaks.
RunT = tuple[str, str | None]
Word = tuple[RunT, ...]
BREAK = "\n"
PARA = "\n\n"
# Lines: (the indices of their words, whether a paragraph gap follows). A range when the words
# are consecutive, as they are unless wrapping is off and the text has line breaks.
Line = tuple[range | list[int], bool]
Icons = dict[str, tuple[float, Callable[[float, float], list[Primitive]]]]

# An icon callback: (name, size_pt) -> (advance width, draw(x, baseline_y) -> primitives)
IconFn = Callable[[str, float], tuple[float, Callable[[float, float], list[Primitive]]]]

_MARK = re.compile(r"(\\\*|\*\*|\*|\{icon:[a-z0-9_-]+\}|\n)")
_BLANKS = re.compile(r"([ \t]+)")  # what separates words inside a line
_SPLIT_BLANKS = re.compile(r"[ \t]+").split
_MEMO_MAX = 4096  # memoised fits per TextLayout (texts repeated across items, e.g. on backs)
# Characters measured (``Fit.work``) by the texts of one piece side together, at most. The longest
# text a piece takes (20,000 characters) shrinking from 400 pt to 1 pt by 0.05 is measured at 26
# sizes at most (520,000); a `repeat` of long fitted texts multiplies that. Measured: 7 to 17
# million characters a second (rich text with icons, plain text), so 0.06 to 0.15 s a piece at
# most; the bundled games' most expensive piece measures 3,476.
FIT_WORK = 1_000_000


class Fit(Struct, frozen=True):
    size: float  # the size used
    fits: bool
    lines: int
    wanted: float  # the style's size
    # How far right (pt) the lines reach, as the fitter measured them (word widths and spaces):
    # the same sums as reportlab's width of each Text's text, up to rounding (pnp.preflight
    # bounds the ink with it).
    right: float = -math.inf
    # The work the fitting took: the text's characters x the sizes it was measured at in full (the
    # same for a memoised result). pnp.layout.piece holds a piece's texts to FIT_WORK with it.
    work: int = 0


class TextLayout:
    def __init__(self, fonts: FontBook, icon_fn: IconFn | None = None):
        self.fonts = fonts
        self.icon_fn = icon_fn
        # (text, id(style), box, options) -> (style, primitives, Fit); the style is kept in the
        # value, so its id cannot be another style's while the entry exists.
        self._memo: dict[tuple, tuple[Style, tuple[Primitive, ...], Fit]] = {}
        self._vmetrics: dict[tuple[str, float], tuple[float, float, float]] = {}  # ascent, descent, cap height

    def _font(self, st: Style, bold: bool, italic: bool) -> str:
        if bold and italic:
            return self.fonts.variant(st.font, True, True)
        if bold:
            return st.bold_font or self.fonts.variant(st.font, True, False)
        if italic:
            return st.italic_font or self.fonts.variant(st.font, False, True)
        return st.font

    @staticmethod
    def _caser(st: Style) -> Callable[[str], str] | None:
        return str.upper if st.case == "upper" else str.lower if st.case == "lower" else None

    def parse_plain(self, text: str, st: Style) -> tuple[list[str], dict[int, bool]]:
        """Text without markup: its words (cased; "" where a line break stands) and the line
        breaks (index -> True for a paragraph gap). A blank or a newline ends a word."""
        cased = self._caser(st)
        if "\n" not in text:
            words = text.split()  # splits at any white space: right when blanks are the only white space
            if sum(map(len, words)) + text.count(" ") + text.count("\t") != len(text):
                words = [p for p in _SPLIT_BLANKS(text) if p and not p.isspace()]
            return ([cased(p) for p in words] if cased else words), {}
        words = []
        marks: dict[int, bool] = {}
        newlines = 0
        for n, line in enumerate(text.split("\n")):
            if n:
                newlines += 1
            for p in _SPLIT_BLANKS(line):
                if not p or p.isspace():
                    continue
                if newlines:
                    if words:
                        marks[len(words)] = newlines >= 2
                        words.append("")
                    newlines = 0
                words.append(cased(p) if cased else p)
        return words, marks

    def parse(self, text: str, st: Style) -> list[Word | str]:
        """Rich text: words (tuples of runs) and the line-break markers BREAK / PARA."""
        cased = self._caser(st)
        out: list[Word | str] = []
        fonts: dict[tuple[bool, bool], str] = {}
        word: list[RunT] = []
        newlines = 0
        bold = italic = False
        for part in _MARK.split(text):
            if not part:
                continue
            if part == "**":
                bold = not bold
                continue
            if part == "*":
                italic = not italic
                continue
            if part == "\n":
                if word:
                    out.append(tuple(word))
                    word = []
                newlines += 1
                continue
            if part.startswith("{icon:"):
                if newlines:
                    if out:
                        out.append(PARA if newlines >= 2 else BREAK)
                    newlines = 0
                word.append((part[6:-1], None))
                continue
            font = fonts.get((bold, italic))
            if font is None:
                font = fonts[(bold, italic)] = self._font(st, bold, italic)
            if part == "\\*":
                part = "*"
            for p in _BLANKS.split(part):
                if not p:
                    continue
                if p.isspace():
                    if word:
                        out.append(tuple(word))
                        word = []
                    continue
                if newlines:
                    if out:
                        out.append(PARA if newlines >= 2 else BREAK)
                    newlines = 0
                word.append((cased(p) if cased else p, font))
        if word:
            out.append(tuple(word))
        return out

    def _measure(self, st: Style, words: list[Word | str], size: float, icons: Icons
                 ) -> tuple[list[float], list[list[float] | None]]:
        """Every word's width at ``size`` (0.0 for a break marker), and the widths of the runs of
        words with more than one run (None for one-run words: their run is the word). A run is
        ``FontBook.width`` plus the tracking after each letter; a word is ``sum`` of its runs."""
        fonts = self.fonts
        tracking = st.tracking
        icon_fn = self.icon_fn
        tables: dict[str, dict[str, float]] = {}
        wws: list[float] = []
        rws: list[list[float] | None] = []
        for word in words:
            if word.__class__ is str:
                wws.append(0.0)
                rws.append(None)
                continue
            if len(word) == 1 and word[0][1] is not None:  # the common case, one text run
                t, font = word[0]
                table = tables.get(font)  # type: ignore[arg-type]
                if table is None:
                    table = tables[font] = fonts.widths(font, size)  # type: ignore[index, arg-type]
                rw = table.get(t)
                if rw is None:
                    rw = fonts.width(t, font, size)  # type: ignore[arg-type]
                wws.append(rw + tracking * len(t) if tracking else rw)  # (the sum of one run: never -0.0)
                rws.append(None)
                continue
            runs: list[float] = []
            for t, font in word:
                if font is None:
                    if icon_fn is None:
                        rw = 0.0
                    else:
                        got = icons.get(t)
                        if got is None:
                            got = icons[t] = icon_fn(t, size)
                        rw = got[0]
                else:
                    table = tables.get(font)
                    if table is None:
                        table = tables[font] = fonts.widths(font, size)
                    rw = table.get(t)
                    if rw is None:
                        rw = fonts.width(t, font, size)
                    if tracking:
                        rw = rw + tracking * len(t)
                runs.append(rw)
            wws.append(sum(runs))
            rws.append(runs if len(runs) > 1 else None)
        return wws, rws

    def _measure_plain(self, st: Style, texts: list[str], size: float) -> list[float]:
        """``_measure`` for words that are one run each in the style's font."""
        fonts, font, tracking = self.fonts, st.font, st.tracking
        wws = list(map(fonts.widths(font, size).get, texts))
        if None in wws:
            wws = [fonts.width(t, font, size) if w is None else w for t, w in zip(texts, wws, strict=True)]
        if tracking:  # (the sum of one run is the run: widths are never -0.0)
            return [w + tracking * len(t) for t, w in zip(texts, wws, strict=True)]  # type: ignore[operator]
        return wws  # type: ignore[return-value]

    def _lines(self, wws: list[float], marks: dict[int, bool], space: float, width: float,
               wrap: bool) -> tuple[list[Line], bool, int]:
        """Greedy line breaking. Returns the lines, all_words_fit, and how many lines end a
        paragraph. ``marks``: the line breaks among the words (index -> paragraph gap)."""
        limit = width + 1e-6
        if wrap and not marks and wws:
            return self._wrap(wws, space, limit), max(wws) <= limit, 0
        lines: list[Line] = []
        start = 0  # the current line's first word
        n = 0  # and how many words it has
        cur_w = 0.0
        ok = True
        paras = 0
        for k, w in enumerate(wws):
            if marks and k in marks:
                if wrap:
                    para = marks[k]
                    lines.append((range(start, k), para))
                    paras += para
                    start, n, cur_w = k + 1, 0, 0.0
                continue
            if w > limit:
                ok = False
            if not n:
                cur_w = cur_w + 0.0 + w
                n = 1
                continue
            t = cur_w + space + w
            if wrap and t > limit:
                lines.append((range(start, k), False))
                start, n, cur_w = k, 1, w
            else:
                cur_w = t
                n += 1
        if wrap or not marks:
            lines.append((range(start, len(wws)), False))
        else:
            lines.append(([k for k in range(len(wws)) if k not in marks], False))
        if not wrap and cur_w > limit:
            ok = False
        return lines, ok, paras

    @staticmethod
    def _wrap(wws: list[float], space: float, limit: float) -> list[Line]:
        """``_lines`` for wrapped words without line breaks (at least one): the same sums in the
        same order (a line's first word: 0.0 + 0.0 + w is w)."""
        lines: list[Line] = []
        start = 0
        cur_w = wws[0]
        for k, w in enumerate(wws[1:], 1):
            t = cur_w + space + w
            if t > limit:
                lines.append((range(start, k), False))
                start, cur_w = k, w
            else:
                cur_w = t
        lines.append((range(start, len(wws)), False))
        return lines

    def _height(self, st: Style, lines: int, paras: int, size: float) -> float:
        """CSS-style line boxes: every line is size x leading tall, plus paragraph gaps."""
        return size * st.leading * lines + paras * size * st.paragraph_space

    def fit(self, text: str, st: Style, box: tuple[float, float, float, float], *, markup: bool,
            wrap: bool = True, min_size: float | None = None, step: float = 0.25
            ) -> tuple[list[Primitive], Fit]:
        """Lay out ``text`` in ``box`` (x, y, w, h in pt, y = bottom), shrinking from the style's
        size towards ``min_size`` until it fits. When it cannot fit, it is drawn at ``min_size``
        and ``Fit.fits`` is False (the caller reports it)."""
        key = None
        if not (markup and "{icon:" in text):  # without inline icons the result depends on nothing else
            key = (text, id(st), box, markup, wrap, min_size, step)
            hit = self._memo.get(key)
            if hit is not None and hit[0] is st:
                return list(hit[1]), hit[2]
        words: list[Word | str] | None = None  # rich text's words (None: plain text, see texts)
        texts: list[str] | None = None  # words that are one run in the style's font, as strings
        simple: list[bool] | None = None  # rich text: which words are that
        if markup:
            words = self.parse(text, st)
            base = st.font
            simple = [w.__class__ is not str and len(w) == 1 and w[0][1] == base for w in words]  # type: ignore[index]
            marks = {k: w == PARA for k, w in enumerate(words) if w.__class__ is str}
            if len(marks) + sum(simple) == len(words):
                texts = ["" if w.__class__ is str else w[0][0] for w in words]  # type: ignore[index]
        else:
            texts, marks = self.parse_plain(text, st)
        w, h = box[2], box[3]
        floor = min(min_size if min_size is not None else st.size, st.size)
        # The sizes tried are the grid st.size, st.size - step, ... (each rounded to 4 places) down
        # to the floor, and the size used is the first of them that fits: found by galloping down
        # the grid (1, 2, 4, ... steps further each time) and then bisecting between the last size
        # that failed and the first that fit, so a fine step on a long text costs about
        # 2 x log2(sizes) layouts, not one per size (attack 4, F6). That is the size stepping down
        # one by one would find, because fitting is monotone: a smaller size never needs more
        # lines (the proof, and where it stops holding, in ``_Shrink``).
        size = st.size
        got, fits, ok = self._laid(st, words, texts, marks, w, h, wrap, size)  # the usual case: it fits
        layouts = 1
        if not fits and round(size - step, 4) >= floor - 1e-9:
            shrink = _Shrink(self, st, words, texts, marks, w, h, wrap, got[0], ok)
            grid = _grid(size, step, floor)
            top = len(grid) - 1
            lo, stride = 0, 1  # grid[lo] does not fit
            while True:
                k = min(lo + stride, top)
                if shrink.fits_at(grid[k], k == top):
                    fits, size, got = True, grid[k], shrink.got
                    break
                if k == top:  # nothing fits: drawn at the smallest size, laid out
                    size, got = grid[k], shrink.got
                    break
                lo, stride = k, stride * 2
            while fits and k - lo > 1:  # grid[lo] fails, grid[k] fits
                mid = (lo + k) // 2
                if shrink.fits_at(grid[mid], False):
                    k, size, got = mid, grid[mid], shrink.got
                else:
                    lo = mid
            layouts += shrink.layouts
        wws, rws, icons, lines, paras, space = got  # type: ignore[misc]
        prims, right = self._place(st, words, texts, simple, wws, rws, icons, lines, paras, size, space, box)
        result = Fit(size, fits, len([ln for ln in lines if ln[0]]), st.size, right, len(text) * layouts)
        if key is not None:
            if len(self._memo) >= _MEMO_MAX:
                self._memo.clear()
            self._memo[key] = (st, tuple(prims), result)
        return prims, result

    def _laid(self, st: Style, words: list[Word | str] | None, texts: list[str] | None, marks: dict[int, bool],
              w: float, h: float, wrap: bool, size: float) -> tuple[Laid, bool, bool]:
        """The text laid out at ``size``; whether it fits the box; whether every word fits its width."""
        icons: Icons = {}
        if texts is not None:
            wws, rws = self._measure_plain(st, texts, size), None
        else:
            wws, rws = self._measure(st, words, size, icons)  # type: ignore[arg-type]
        space = self.fonts.width(" ", st.font, size) + st.tracking
        lines, ok, paras = self._lines(wws, marks, space, w, wrap)
        if wrap and len(lines) > 1:
            _balance(lines, wws, space, w + 1e-6)
        return (wws, rws, icons, lines, paras, space), ok and self._height(st, len(lines), paras, size) <= h + 1e-6, ok

    def _width_of(self, st: Style, words: list[Word | str] | None, texts: list[str] | None, k: int,
                  size: float) -> float:
        """Word ``k``'s width at ``size``, exactly as ``_measure`` or ``_measure_plain`` finds it."""
        if texts is not None:
            return self._measure_plain(st, [texts[k]], size)[0]
        return self._measure(st, [words[k]], size, {})[0][0]  # type: ignore[index]

    def _place(self, st: Style, words: list[Word | str] | None, texts: list[str] | None,
               simple: list[bool] | None, wws: list[float], rws: list[list[float] | None] | None,
               icons: Icons, lines: list[Line], paras: int, size: float, space: float,
               box: tuple[float, float, float, float]) -> tuple[list[Primitive], float]:
        """The primitives, and how far right the lines reach (``Fit.right``)."""
        x, y, w, h = box
        total = self._height(st, len(lines), paras, size)
        lh = size * st.leading
        vm = self._vmetrics.get((st.font, size))
        if vm is None:
            f = self.fonts
            vm = self._vmetrics[(st.font, size)] = (f.ascent(st.font, size), f.descent(st.font, size),
                                                    f.cap_height(st.font, size))
        if st.valign == "middle" and len(lines) == 1:
            # One line, centred optically: the middle of the capitals sits on the box's middle.
            baseline = y + h / 2 - vm[2] / 2
        else:
            if st.valign == "top":
                top = y + h
            elif st.valign == "bottom":
                top = y + total
            else:
                top = y + h / 2 + total / 2
            asc, desc = vm[0], vm[1]
            baseline = top - (lh - size) / 2 - size * asc / (asc + desc)
        tracking, color, base_font, align = st.tracking, st.color, st.font, st.align
        gap = size * st.paragraph_space
        if words is None and tracking:  # plain text, placed run by run below
            words = [((t, base_font),) for t in texts]  # type: ignore[union-attr]
        icon_fn = self.icon_fn
        out: list[Primitive] = []
        right = -math.inf
        for idxs, para_after in lines:
            n = len(idxs)
            contiguous = idxs.__class__ is range
            ws = wws[idxs.start:idxs.stop] if contiguous else [wws[k] for k in idxs]  # type: ignore[union-attr]
            line_w = sum(ws) + space * max(0, n - 1)
            if n:
                line_w -= tracking  # no letter follows the last one: its tracking is not ink
            if align == "center":
                cx = x + (w - line_w) / 2
            elif align == "right":
                cx = x + w - line_w
            else:
                cx = x
            if cx + line_w > right:
                right = cx + line_w
            # One Text per stretch of a line in one font: reportlab then places the glyphs itself,
            # exactly where separate words would have gone (a space is that font's space when the
            # font is the style's own). Tracking keeps every run apart.
            if not tracking and (texts is not None or all([simple[k] for k in idxs])):  # type: ignore[index]
                if texts is not None:
                    ts = texts[idxs.start:idxs.stop] if contiguous else [texts[k] for k in idxs]  # type: ignore[union-attr]
                else:
                    ts = [words[k][0][0] for k in idxs]  # type: ignore[index, misc]
                if n == 1:
                    out.append(Text(cx, baseline, ts[0], base_font, size, color, tracking))
                elif n:
                    out.append(Text(cx, baseline, " ".join(ts), base_font, size, color, 0.0))
                baseline -= lh + (gap if para_after else 0.0)
                continue
            # ``seg`` collects the stretch being built: it starts at seg_x in seg_font.
            seg_x = 0.0
            seg_font: str | None = None
            seg: list[str] = []
            for wi, k in enumerate(idxs):
                if wi:
                    cx += space
                runs = rws[k] if rws is not None else None
                for ri, (t, font) in enumerate(words[k]):  # type: ignore[index, arg-type]
                    rw = wws[k] if runs is None else runs[ri]
                    if font is None:
                        if seg:
                            out.append(_text(seg_x, baseline, seg, seg_font, size, color, tracking))
                            seg = []
                        if icon_fn is not None:
                            out.extend(icons[t][1](cx, baseline))
                    elif seg and font == seg_font and not tracking and (ri or font == base_font):
                        if wi and ri == 0:
                            seg.append(" ")
                        seg.append(t)
                    else:
                        if seg:
                            out.append(_text(seg_x, baseline, seg, seg_font, size, color, tracking))
                        seg_x, seg_font, seg = cx, font, [t]
                    cx += rw
            if seg:
                out.append(_text(seg_x, baseline, seg, seg_font, size, color, tracking))
            baseline -= lh + (gap if para_after else 0.0)
        return out, right


def charge_fit(spent: int, fit: Fit, text: str, key: str) -> int:
    """``spent``, the characters a piece's texts have measured so far, plus what fitting ``text``
    measured (``fit.work``); a LayoutError at ``key`` (the element's `fit` or `text`) past FIT_WORK."""
    spent += fit.work
    if spent > FIT_WORK:
        raise LayoutError(f"laying out this piece's texts measures more than {FIT_WORK} characters (each "
                          f"size tried measures a whole text: this one, {len(text)} characters, "
                          f"{fit.work // len(text)} times)", key=key,
                          expected="fewer or shorter texts on a piece (`repeat` and `track` counts multiply them)")
    return spent


_GRIDS: dict[tuple[float, float, float], tuple[float, ...]] = {}


def _grid(size: float, step: float, floor: float) -> tuple[float, ...]:
    """The sizes shrinking tries, largest first: ``size``, then each one ``step`` below the last,
    rounded to 4 places, down to ``floor`` (the rounding of each from the one before, exactly as
    stepping down one by one computes them)."""
    key = (size, step, floor)
    got = _GRIDS.get(key)
    if got is None:
        out = [size]
        while True:
            nxt = round(out[-1] - step, 4)
            if nxt < floor - 1e-9 or nxt >= out[-1]:
                break
            out.append(nxt)
        if len(_GRIDS) >= 64:
            _GRIDS.clear()
        got = _GRIDS[key] = tuple(out)
    return got


# A layout at one size: word widths, run widths, inline icons, lines, paragraph gaps, space width.
Laid = tuple[list[float], list[list[float] | None] | None, Icons, list[Line], int, float]


class _Shrink:
    """One text's layout tried at the sizes ``TextLayout.fit`` asks for, in any order.

    Why the first size that fits can be found by bisection: every width is a sum and product of
    non-negative font metrics and the size, so it never grows when the size shrinks (IEEE rounding
    is monotone too, so this holds for the floats, not just on paper); greedy wrapping of narrower
    words never needs more lines (each line starts at or after the word it started at before);
    and the height, size x leading x lines plus the paragraph gaps, then shrinks too. So if a size
    fits, every smaller one does. That needs the widths to stay non-negative: a negative
    ``tracking`` larger than a letter's width at the smallest sizes breaks it (the letters then
    overlap), and there the size found is one that fits while the next size up does not.

    A size is rejected without measuring every word when it cannot fit for a reason found cheaply
    and exactly: the hard line breaks alone are too tall, or the word that was too wide at the last
    size measured (measured again at this size, the same way) is still too wide."""

    __slots__ = (
        "got",
        "h",
        "hard_lines",
        "hard_paras",
        "layouts",
        "marks",
        "st",
        "texts",
        "tl",
        "too_wide",
        "w",
        "words",
        "wrap",
    )

    def __init__(self, tl: TextLayout, st: Style, words: list[Word | str] | None, texts: list[str] | None,
                 marks: dict[int, bool], w: float, h: float, wrap: bool, wws: list[float], ok: bool):
        """``wws`` and ``ok``: the word widths measured at the first size, and whether every word
        fitted the box's width there."""
        self.tl, self.st, self.words, self.texts, self.marks = tl, st, words, texts, marks
        self.w, self.h, self.wrap = w, h, wrap
        self.hard_lines = len(marks) + 1 if wrap else 1
        self.hard_paras = sum(marks.values()) if wrap else 0
        self.too_wide = self._too_wide(wws, ok)  # a word wider than the box at the last size measured
        self.got: Laid | None = None  # the layout of the last size measured
        self.layouts = 0  # sizes measured in full here

    def _too_wide(self, wws: list[float], ok: bool) -> int | None:
        too_wide = max(range(len(wws)), key=wws.__getitem__) if not ok and wws else None
        if too_wide is not None and not wws[too_wide] > self.w + 1e-6:
            return None  # the text is too long, not a word too wide (or wrap is off)
        return too_wide

    def fits_at(self, size: float, last: bool) -> bool:
        """Whether the text fits at ``size``; its layout is then in ``got``. ``last``: lay it out
        even when it cannot fit (the size it is drawn at)."""
        tl, st = self.tl, self.st
        if not last and (tl._height(st, self.hard_lines, self.hard_paras, size) > self.h + 1e-6
                         or (self.too_wide is not None
                             and tl._width_of(st, self.words, self.texts, self.too_wide, size) > self.w + 1e-6)):
            return False
        self.layouts += 1
        self.got, fits, ok = tl._laid(st, self.words, self.texts, self.marks, self.w, self.h, self.wrap, size)
        if not fits:
            self.too_wide = self._too_wide(self.got[0], ok)
        return fits


def _balance(lines: list[Line], wws: list[float], space: float, limit: float) -> None:
    """No one-word last line where it can be avoided: where a paragraph (the lines between two
    line breaks) ends in a line of one word, the word before it moves down from the line above
    when the two fit side by side and that line keeps a word. The number of lines stays, so the
    height and the size found stay too. ``lines`` are ranges here (wrapping is on); two lines
    belong to one paragraph when the second starts where the first stops (a break's marker
    stands between them otherwise)."""
    for i in range(1, len(lines)):
        cur, para = lines[i]
        prev = lines[i - 1][0]
        if len(cur) != 1 or len(prev) < 2 or prev.stop != cur.start:  # type: ignore[union-attr]
            continue
        if i + 1 < len(lines) and lines[i + 1][0].start == cur.stop:  # type: ignore[union-attr]
            continue  # not the paragraph's last line
        k = cur.start  # type: ignore[union-attr]
        if wws[k - 1] + space + wws[k] <= limit:
            lines[i - 1] = (range(prev.start, k - 1), lines[i - 1][1])  # type: ignore[union-attr]
            lines[i] = (range(k - 1, k + 1), para)


def _text(x: float, y: float, seg: list[str], font: str | None, size: float, color: str, tracking: float) -> Text:
    """A stretch of one line: a single run keeps the style's tracking; merged runs have none."""
    if len(seg) == 1:
        return Text(x, y, seg[0], font, size, color, tracking)  # type: ignore[arg-type]
    return Text(x, y, "".join(seg), font, size, color, 0.0)  # type: ignore[arg-type]

