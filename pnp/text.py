"""Text layout: markup -> words -> lines -> positioned Text primitives (and inline icons), with
shrink-to-fit. Pure: uses font metrics only, never a canvas.

Rich-text markup: ``**bold**``, ``*italic*``, ``{icon:NAME}``, a line break for each newline and
a paragraph gap for a blank line. ``\\*`` is a literal asterisk.

Speed (issue 8): a text is parsed once per ``fit`` into words whose runs already carry their
cased text and resolved font; each size tried measures every word once (FontBook caches the
width of each (text, font, size)), and ``_place`` reuses those widths. Every float is computed
with the same operations in the same order as the straightforward version, so the output is
byte-identical to it; results for texts without inline icons are memoised per ``TextLayout``."""

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


# A run is a piece of one word: (text, font) in one font, or (icon name, None) for an inline icon;
# the text is already cased by the style. A word is a tuple of runs that never breaks.
RunT = tuple[str, str | None]
Word = tuple[RunT, ...]
BREAK = "\n"
PARA = "\n\n"

# An icon callback: (name, size_pt) -> (advance width, draw(x, baseline_y) -> primitives)
IconFn = Callable[[str, float], tuple[float, Callable[[float, float], list[Primitive]]]]

_MARK = re.compile(r"(\\\*|\*\*|\*|\{icon:[a-z0-9_-]+\}|\n)")
_BLANKS = re.compile(r"([ \t]+)")  # what separates words inside a line
_SPLIT_BLANKS = re.compile(r"[ \t]+").split
_MEMO_MAX = 4096  # memoised fits per TextLayout (texts repeated across items, e.g. on backs)


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
        self._memo: dict[tuple, tuple[tuple[Primitive, ...], Fit]] = {}

    def _font(self, st: Style, bold: bool, italic: bool) -> str:
        if bold and italic:
            return self.fonts.variant(st.font, True, True)
        if bold:
            return st.bold_font or self.fonts.variant(st.font, True, False)
        if italic:
            return st.italic_font or self.fonts.variant(st.font, False, True)
        return st.font

    def parse(self, text: str, st: Style, markup: bool) -> list[Word | str]:
        """Split into words (tuples of runs) and the line-break markers BREAK / PARA."""
        case = st.case
        cased = str.upper if case == "upper" else str.lower if case == "lower" else None
        out: list[Word | str] = []
        if not markup:
            # Each word is one run: a blank or a newline ends it.
            font = st.font
            newlines = 0
            for n, line in enumerate(text.split("\n")):
                if n:
                    newlines += 1
                for p in _SPLIT_BLANKS(line):
                    if not p or p.isspace():
                        continue
                    if newlines:
                        if out:
                            out.append(PARA if newlines >= 2 else BREAK)
                        newlines = 0
                    out.append(((cased(p) if cased else p, font),))
            return out
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

    def _measure(self, st: Style, words: list[Word | str], size: float,
                 icons: dict[str, tuple[float, Callable[[float, float], list[Primitive]]]]
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

    def _measure_plain(self, st: Style, texts: list[str | None], size: float) -> list[float]:
        """``_measure`` for words that are one run each in the style's font (None: a marker)."""
        fonts, font, tracking = self.fonts, st.font, st.tracking
        table = fonts.widths(font, size)
        get = table.get
        wws = [0.0 if t is None else get(t) for t in texts]
        for k, w in enumerate(wws):
            if w is None:
                wws[k] = fonts.width(texts[k], font, size)  # type: ignore[arg-type]
        if tracking:  # (the sum of one run is the run: widths are never -0.0)
            return [w if t is None else w + tracking * len(t) for t, w in zip(texts, wws, strict=True)]
        return wws  # type: ignore[return-value]

    def _width_of(self, st: Style, word: Word | str, plain: bool, size: float) -> float:
        """One word's width at ``size``, exactly as ``_measure`` finds it."""
        if plain:
            return self._measure_plain(st, [word[0][0]], size)[0]  # type: ignore[index]
        return self._measure(st, [word], size, {})[0][0]

    def _lines(self, st: Style, words: list[Word | str], wws: list[float], size: float, width: float,
               wrap: bool, marked: bool) -> tuple[list[tuple[list[int], bool]], bool, int]:
        """Greedy line breaking. Returns [(word indices, paragraph_starts_after)], all_words_fit,
        and how many lines end a paragraph. ``marked``: ``words`` has break markers."""
        space = self.fonts.width(" ", st.font, size) + st.tracking
        limit = width + 1e-6
        lines: list[tuple[list[int], bool]] = []
        cur: list[int] = []
        cur_w = 0.0
        ok = True
        paras = 0
        for k, w in enumerate(wws):
            if marked and words[k].__class__ is str:
                if wrap:
                    para = words[k] == PARA
                    lines.append((cur, para))
                    paras += para
                    cur, cur_w = [], 0.0
                continue
            if w > limit:
                ok = False
            if not cur:
                cur_w = cur_w + 0.0 + w
                cur.append(k)
                continue
            t = cur_w + space + w
            if wrap and t > limit:
                lines.append((cur, False))
                cur, cur_w = [k], w
            else:
                cur_w = t
                cur.append(k)
        lines.append((cur, False))
        if not wrap and cur_w > limit:
            ok = False
        return lines, ok, paras

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
            key = (text, st, box, markup, wrap, min_size, step)
            hit = self._memo.get(key)
            if hit is not None:
                return list(hit[0]), hit[1]
        words = self.parse(text, st, markup)
        base = st.font
        # A word that is one run in the style's font joins its neighbours' Text with a space.
        simple = [w.__class__ is not str and len(w) == 1 and w[0][1] == base for w in words]  # type: ignore[index]
        marked = BREAK in words or PARA in words
        # Plain text (every word one run in the style's font) is measured as a list of strings.
        plain = all([s or w.__class__ is str for s, w in zip(simple, words, strict=True)])
        texts = [None if w.__class__ is str else w[0][0] for w in words] if plain else None  # type: ignore[index]
        w, h = box[2], box[3]
        floor = min(min_size if min_size is not None else st.size, st.size)
        size = st.size
        icons: dict[str, tuple[float, Callable[[float, float], list[Primitive]]]] = {}
        # Shrinking skips a size without measuring every word when it cannot fit for a reason
        # found cheaply and exactly: the hard line breaks alone are too tall (a line's height only
        # grows with the number of lines), or the word that was too wide at the last size tried
        # (measured again, the same way) is still too wide. The last size is always laid out.
        hard_lines = (sum(1 for t in words if t.__class__ is str) + 1) if wrap and marked else 1
        hard_paras = sum(1 for t in words if t == PARA) if wrap and marked else 0
        too_wide: int | None = None  # a word wider than the box at the last size measured
        while True:
            nxt = round(size - step, 4)
            last = nxt < floor - 1e-9
            if not last and (self._height(st, hard_lines, hard_paras, size) > h + 1e-6
                             or (too_wide is not None and self._width_of(st, words[too_wide], texts is not None,
                                                                          size) > w + 1e-6)):
                size = nxt
                continue
            if texts is not None:
                wws, rws = self._measure_plain(st, texts, size), None
            else:
                icons = {}
                wws, rws = self._measure(st, words, size, icons)
            lines, ok, paras = self._lines(st, words, wws, size, w, wrap, marked)
            if ok and self._height(st, len(lines), paras, size) <= h + 1e-6:
                fits = True
                break
            if last:
                fits = False
                break
            too_wide = max(range(len(wws)), key=wws.__getitem__) if not ok and wws else None
            if too_wide is not None and not wws[too_wide] > w + 1e-6:
                too_wide = None  # the text is too long, not a word too wide (or wrap is off)
            size = nxt
        prims = self._place(st, words, simple, wws, rws, icons, lines, paras, size, box)
        result = Fit(size, fits, len([ln for ln in lines if ln[0]]), st.size)
        if key is not None:
            if len(self._memo) >= _MEMO_MAX:
                self._memo.clear()
            self._memo[key] = (tuple(prims), result)
        return prims, result

    def _place(self, st: Style, words: list[Word | str], simple: list[bool], wws: list[float],
               rws: list[list[float] | None] | None,
               icons: dict[str, tuple[float, Callable[[float, float], list[Primitive]]]],
               lines: list[tuple[list[int], bool]], paras: int, size: float,
               box: tuple[float, float, float, float]) -> list[Primitive]:
        x, y, w, h = box
        total = self._height(st, len(lines), paras, size)
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
        tracking, color, base_font, align = st.tracking, st.color, st.font, st.align
        icon_fn = self.icon_fn
        out: list[Primitive] = []
        for idxs, para_after in lines:
            line_w = sum([wws[k] for k in idxs]) + space * max(0, len(idxs) - 1)
            if idxs:
                line_w -= tracking  # no letter follows the last one: its tracking is not ink
            if align == "center":
                cx = x + (w - line_w) / 2
            elif align == "right":
                cx = x + w - line_w
            else:
                cx = x
            # One Text per stretch of a line in one font: reportlab then places the glyphs itself,
            # exactly where separate words would have gone (a space is that font's space when the
            # font is the style's own). Tracking keeps every run apart.
            if not tracking and all([simple[k] for k in idxs]):
                if len(idxs) == 1:
                    out.append(Text(cx, baseline, words[idxs[0]][0][0], base_font, size, color, tracking))
                elif idxs:
                    out.append(Text(cx, baseline, " ".join([words[k][0][0] for k in idxs]), base_font, size,
                                    color, 0.0))
                baseline -= lh + (size * st.paragraph_space if para_after else 0.0)
                continue
            # ``seg`` collects the stretch being built: it starts at seg_x in seg_font.
            seg_x = 0.0
            seg_font: str | None = None
            seg: list[str] = []
            for wi, k in enumerate(idxs):
                if wi:
                    cx += space
                runs = rws[k] if rws is not None else None
                for ri, (t, font) in enumerate(words[k]):
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
            baseline -= lh + (size * st.paragraph_space if para_after else 0.0)
        return out


def _text(x: float, y: float, seg: list[str], font: str | None, size: float, color: str, tracking: float) -> Text:
    """A stretch of one line: a single run keeps the style's tracking; merged runs have none."""
    if len(seg) == 1:
        return Text(x, y, seg[0], font, size, color, tracking)  # type: ignore[arg-type]
    return Text(x, y, "".join(seg), font, size, color, 0.0)  # type: ignore[arg-type]
