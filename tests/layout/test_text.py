"""Text layout keeps the results of the straightforward algorithm exactly.

``TextLayout.fit`` parses once, measures through FontBook's width tables, skips sizes that
cannot fit, merges runs without rebuilding Text objects and memoises whole results (issue 8).
Output must stay byte-identical, so the tests below compare it, float for float, with the
plain algorithm written out the simple way (``Reference``: one word at a time, every size
measured in full), on generated texts, styles and boxes. Both balance a paragraph's one-word
last line (issue 23), each its own way."""

from __future__ import annotations

import re
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pnp.input.project import bundled_root
from pnp.layout.fonts import FontBook
from pnp.layout.primitives import Paint, Rect, Text
from pnp.layout.text import Style, TextLayout

FONTS = FontBook((bundled_root() / "fonts",))


class Reference:
    """The layout algorithm without any shortcut: words are lists of (text, bold, italic, icon)
    runs, every run is measured where it is needed, every size is tried in full."""

    MARK = re.compile(r"(\\\*|\*\*|\*|\{icon:[a-z0-9_-]+\}|\n)")

    def __init__(self, fonts: FontBook, icon_fn) -> None:
        self.fonts = fonts
        self.icon_fn = icon_fn

    def parse(self, text: str, markup: bool) -> list:
        if not markup:
            chunks = [(p, False, False, None) for p in re.split(r"(\n)", text)]
        else:
            chunks = []
            bold = italic = False
            for part in self.MARK.split(text):
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
        out: list = []
        word: list = []
        newlines = 0

        def flush_word() -> None:
            nonlocal word
            if word:
                out.append(word)
                word = []

        def emit_breaks() -> None:
            nonlocal newlines
            if newlines and out:
                out.append("\n\n" if newlines >= 2 else "\n")
            newlines = 0

        for s, b, i, icon in chunks:
            if icon is not None:
                emit_breaks()
                word.append(("", b, i, icon))
                continue
            if s == "\n":
                flush_word()
                newlines += 1
                continue
            for p in re.split(r"([ \t]+)", s):
                if not p:
                    continue
                if p.isspace():
                    flush_word()
                    continue
                emit_breaks()
                word.append((p, b, i, None))
        flush_word()
        return out

    def font(self, st_: Style, bold: bool, italic: bool) -> str:
        if bold and italic:
            return self.fonts.variant(st_.font, True, True)
        if bold:
            return st_.bold_font or self.fonts.variant(st_.font, True, False)
        if italic:
            return st_.italic_font or self.fonts.variant(st_.font, False, True)
        return st_.font

    def cased(self, st_: Style, s: str) -> str:
        return s.upper() if st_.case == "upper" else s.lower() if st_.case == "lower" else s

    def run_width(self, st_: Style, run, size: float) -> float:
        text, bold, italic, icon = run
        if icon is not None:
            return self.icon_fn(icon, size)[0]
        t = self.cased(st_, text)
        return pdf_width(t, self.font(st_, bold, italic), size) + st_.tracking * len(t)

    def word_width(self, st_: Style, word, size: float) -> float:
        return sum(self.run_width(st_, r, size) for r in word)

    def lines(self, st_: Style, tokens, size: float, width: float, wrap: bool):
        space = pdf_width(" ", st_.font, size) + st_.tracking
        lines, cur, cur_w, ok = [], [], 0.0, True
        hard = set()
        for tok in tokens:
            if isinstance(tok, str):
                if wrap:
                    hard.add(len(lines))
                    lines.append((cur, tok == "\n\n"))
                    cur, cur_w = [], 0.0
                continue
            w = self.word_width(st_, tok, size)
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
        if wrap:
            self.balance(st_, lines, hard, size, width)
        return lines, ok

    def balance(self, st_: Style, lines, hard: set, size: float, width: float) -> None:
        """A paragraph's one-word last line takes the last word of the line above when both fit
        and that line keeps a word (``hard``: the lines a line break ended)."""
        space = pdf_width(" ", st_.font, size) + st_.tracking
        for i in range(1, len(lines)):
            last = i == len(lines) - 1 or i in hard
            above = lines[i - 1][0]
            if not last or len(lines[i][0]) != 1 or i - 1 in hard or len(above) < 2:
                continue
            moved, lone = above[-1], lines[i][0][0]
            if self.word_width(st_, moved, size) + space + self.word_width(st_, lone, size) <= width + 1e-6:
                lines[i - 1] = (above[:-1], lines[i - 1][1])
                lines[i] = ([moved, lone], lines[i][1])

    def height(self, st_: Style, lines, size: float) -> float:
        paras = sum(1 for _, p in lines[:-1] if p)
        return size * st_.leading * len(lines) + paras * size * st_.paragraph_space

    def fit(self, text: str, st_: Style, box, markup: bool, wrap: bool, min_size, step: float):
        tokens = self.parse(text, markup)
        floor = min(min_size if min_size is not None else st_.size, st_.size)
        size = st_.size
        while True:
            lines, ok = self.lines(st_, tokens, size, box[2], wrap)
            if ok and self.height(st_, lines, size) <= box[3] + 1e-6:
                fits = True
                break
            nxt = round(size - step, 4)
            if nxt < floor - 1e-9:
                fits = False
                break
            size = nxt
        return self.place(st_, lines, size, box), (size, fits, len([ln for ln in lines if ln[0]]))

    def place(self, st_: Style, lines, size: float, box) -> list:
        x, y, w, h = box
        total = self.height(st_, lines, size)
        lh = size * st_.leading
        if st_.valign == "middle" and len(lines) == 1:
            baseline = y + h / 2 - self.fonts.cap_height(st_.font, size) / 2
        else:
            top = y + h if st_.valign == "top" else y + total if st_.valign == "bottom" else y + h / 2 + total / 2
            asc, desc = self.fonts.ascent(st_.font, size), self.fonts.descent(st_.font, size)
            baseline = top - (lh - size) / 2 - size * asc / (asc + desc)
        space = pdf_width(" ", st_.font, size) + st_.tracking
        out: list = []
        for words, para_after in lines:
            line_w = sum(self.word_width(st_, wd, size) for wd in words) + space * max(0, len(words) - 1)
            if words:
                line_w -= st_.tracking
            cx = x + (w - line_w) / 2 if st_.align == "center" else x + w - line_w if st_.align == "right" else x
            last_end = None  # where the last Text of this line ends, for merging
            for wi, word in enumerate(words):
                cx += space if wi else 0.0
                for ri, run in enumerate(word):
                    rw = self.run_width(st_, run, size)
                    if run[3] is not None:
                        out.extend(self.icon_fn(run[3], size)[1](cx, baseline))
                        last_end = None
                    else:
                        text, font = self.cased(st_, run[0]), self.font(st_, run[1], run[2])
                        prev = out[-1] if out and last_end is not None else None
                        joiner = " " if (wi and ri == 0) else ""
                        if (isinstance(prev, Text) and prev.font == font and st_.tracking == 0
                                and (joiner == "" or font == st_.font)):
                            out[-1] = Text(prev.x, prev.y, prev.text + joiner + text, font, size, st_.color, 0.0)
                        else:
                            out.append(Text(cx, baseline, text, font, size, st_.color, st_.tracking))
                        last_end = cx + rw
                    cx += rw
            baseline -= lh + (size * st_.paragraph_space if para_after else 0.0)
        return out


def pdf_width(text: str, font: str, size: float) -> float:
    from reportlab.pdfbase import pdfmetrics

    FONTS.ensure(font)
    return pdfmetrics.stringWidth(text, font, size)


def icon_fn(name: str, size: float):
    """A stand-in for the template's inline icons: as wide as the name says, one square."""
    adv = size * (0.5 + 0.25 * len(name))

    def draw(x: float, baseline: float) -> list:
        return [Rect(x, baseline - size * 0.2, adv, size, Paint(fill="#000000"))]

    return adv, draw


WORDS = ["golem", "Stone", "rune", "a", "I", "x", "supercalifragilistic", "naïve", "Übergröße", "—", "+2",
         "−1", "½", "it's", "\u2605", "10\u00a0mm", "a\rb", "\u00a0"]
PIECES = st.one_of(
    st.sampled_from(WORDS),
    st.sampled_from(WORDS).map(lambda w: f"**{w}**"),
    st.sampled_from(WORDS).map(lambda w: f"*{w}*"),
    st.sampled_from(WORDS).map(lambda w: f"***{w}***"),
    st.sampled_from(["{icon:coin}", "{icon:ab}", "\\*", "**", "*", "\n", "\n\n", "\n\n\n", "  ", "\t", " \n "]),
    st.tuples(st.sampled_from(WORDS), st.sampled_from(["{icon:coin}", "**", "*"]), st.sampled_from(WORDS))
    .map("".join),
)
TEXTS = st.lists(PIECES, max_size=40).map(lambda ps: " ".join(ps))
FAMILY = ["Lato-Regular", "Vollkorn-Regular", "OldStandard-Regular", "Play-Regular", "Comfortaa-Bold"]
STYLES = st.builds(
    Style,
    font=st.sampled_from(FAMILY),
    size=st.sampled_from([6, 7.5, 8.5, 9, 10.3, 12.0, 14]),
    leading=st.sampled_from([1.0, 1.2, 1.5]),
    color=st.just("#112233"),
    align=st.sampled_from(["left", "center", "right"]),
    valign=st.sampled_from(["top", "middle", "bottom"]),
    case=st.sampled_from(["none", "upper", "lower"]),
    tracking=st.sampled_from([0, 0.0, 0.3, -0.2]),
    paragraph_space=st.sampled_from([0.0, 0.4, 0.8]),
    bold_font=st.sampled_from([None, "Play-Bold"]),
    italic_font=st.sampled_from([None, "Vollkorn-Italic"]),
)
BOXES = st.tuples(st.floats(0, 100), st.floats(0, 100), st.floats(5, 160), st.floats(3, 120))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS, style=STYLES, box=BOXES, markup=st.booleans(), wrap=st.booleans(),
       min_size=st.sampled_from([None, 3, 5, 7.5]), step=st.sampled_from([0.25, 0.5]))
def test_fit_equals_the_straightforward_algorithm(text: str, style: Style, box, markup: bool, wrap: bool,
                                                   min_size, step: float) -> None:
    layout = TextLayout(FONTS, icon_fn)
    want = Reference(FONTS, icon_fn).fit(text, style, box, markup, wrap, min_size, step)
    for _ in range(2):  # the second time from the memo (texts without inline icons)
        prims, fit = layout.fit(text, style, box, markup=markup, wrap=wrap, min_size=min_size, step=step)
        assert (fit.size, fit.fits, fit.lines) == want[1]
        assert [repr(p) for p in prims] == [repr(p) for p in want[0]]  # repr: 0 and 0.0 differ too


def test_a_memoised_result_is_not_shared_by_callers_who_change_their_list() -> None:
    layout = TextLayout(FONTS)
    box = (0.0, 0.0, 100.0, 50.0)
    first, _ = layout.fit("alpha beta", Style(), box, markup=False)
    first.append(Rect(0, 0, 1, 1, Paint()))
    again, _ = layout.fit("alpha beta", Style(), box, markup=False)
    assert [p.text for p in again] == ["alpha beta"]


def test_shrinking_skips_sizes_only_when_they_cannot_fit(tmp_path: Path) -> None:
    """A long word in a narrow box and many hard breaks in a short one: the size found is the
    first, going down in steps, at which the straightforward algorithm fits."""
    for text, box in (("extraordinarily long words", (0.0, 0.0, 40.0, 200.0)),
                      ("a\n\nb\n\nc\n\nd\n\ne\n\nf", (0.0, 0.0, 200.0, 60.0))):
        want = Reference(FONTS, icon_fn).fit(text, Style(size=14), box, False, True, 3, 0.25)
        prims, fit = TextLayout(FONTS).fit(text, Style(size=14), box, markup=False, min_size=3)
        assert want[1][1] and fit.size < 14
        assert (fit.size, fit.fits, fit.lines) == want[1]
        assert prims == want[0]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS, style=STYLES, box=BOXES, markup=st.booleans(), wrap=st.booleans())
def test_fit_right_is_where_the_lines_ink_ends(text: str, style: Style, box, markup: bool, wrap: bool) -> None:
    """``Fit.right`` (how far right the lines reach, as fitted) bounds the right end of every
    Text's ink as reportlab measures it (pnp.preflight skips measuring with it), and for text
    without tracking or inline icons it is that end, up to rounding."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    prims, fit = TextLayout(FONTS, icon_fn).fit(text, style, box, markup=markup, wrap=wrap, min_size=5)
    ends = [p.x + stringWidth(p.text, p.font, p.size) + p.tracking * max(len(p.text) - 1, 0)
            for p in prims if isinstance(p, Text)]
    if not ends:
        return
    if style.tracking >= 0:
        assert max(ends) <= fit.right + 1e-9 * max(1.0, abs(fit.right))
    if not style.tracking and "{icon:" not in text:
        assert max(ends) == pytest.approx(fit.right, rel=1e-12, abs=1e-9)


def test_a_paragraph_does_not_end_in_one_word_when_it_can_be_avoided() -> None:
    """Greedy wrapping would leave 'delta' alone on the last line of each paragraph: the fitter
    moves 'gamma' down instead, keeps the size and the number of lines. Where the word above
    cannot move (it is alone on its line, or the two do not fit side by side) the line stays."""
    st_ = Style(font="Lato-Regular", size=10)
    width = pdf_width("alpha beta gamma", "Lato-Regular", 10) + 1.0
    box = (0.0, 0.0, width, 100.0)
    layout = TextLayout(FONTS)

    def lines_of(text: str, box=box) -> list[str]:
        prims, fit = layout.fit(text, st_, box, markup=True)
        assert fit.size == 10 and fit.fits
        return [p.text for p in prims if isinstance(p, Text)]

    assert lines_of("alpha beta gamma delta") == ["alpha beta", "gamma delta"]
    assert lines_of("alpha beta gamma delta\n\nalpha beta gamma delta") == [
        "alpha beta", "gamma delta", "alpha beta", "gamma delta"]
    # a line break ends a paragraph: the line before it is balanced, the one after it not joined
    assert lines_of("alpha beta gamma delta\nepsilon") == ["alpha beta", "gamma delta", "epsilon"]
    # the word above is alone on its line: nothing can move
    narrow = (0.0, 0.0, pdf_width("alpha beta", "Lato-Regular", 10) - 1.0, 100.0)
    assert lines_of("alpha beta", narrow) == ["alpha", "beta"]
    # the two would not fit side by side
    assert lines_of("alpha beta gamma extraordinarily") == ["alpha beta gamma", "extraordinarily"]
    # the greedy layout alone, for comparison, ends in one word
    wws = [pdf_width(w, "Lato-Regular", 10) for w in ["alpha", "beta", "gamma", "delta"]]
    greedy, _, _ = layout._lines(wws, {}, pdf_width(" ", "Lato-Regular", 10), width, True)
    assert [len(ln) for ln, _ in greedy] == [3, 1]


# Shrinking searches the grid of sizes by galloping and bisection (issue 19, attack 4 F6: a 20,000
# character text shrinking from 400 pt by 0.05 pt was measured at up to 7,980 sizes, 5 s each
# item). The size found must stay the one stepping down one size at a time finds.

def stepping(layout: TextLayout, text: str, style: Style, box, markup: bool, wrap: bool, min_size, step: float):
    """The size stepping down one grid size at a time settles on, and whether it fits there:
    the shrinking loop as it was before bisection, each size laid out in full by
    ``TextLayout._laid`` (which the Reference test above holds to the straightforward algorithm)."""
    from pnp.layout.text import _grid

    if markup:
        words, texts = layout.parse(text, style), None
        marks = {k: w == "\n\n" for k, w in enumerate(words) if isinstance(w, str)}
    else:
        words, (texts, marks) = None, layout.parse_plain(text, style)
    floor = min(min_size if min_size is not None else style.size, style.size)
    grid = _grid(style.size, step, floor)
    for size in grid:
        if layout._laid(style, words, texts, marks, box[2], box[3], wrap, size)[1]:
            return size, True, grid
    return grid[-1], False, grid


LONG_TEXTS = st.lists(PIECES, min_size=1, max_size=120).map(lambda ps: " ".join(ps))
WIDE_STYLES = st.builds(
    Style,
    font=st.sampled_from(FAMILY),
    size=st.sampled_from([9, 24, 60, 144, 400]),
    leading=st.sampled_from([0.5, 1.2, 4.0]),
    align=st.sampled_from(["left", "center"]),
    case=st.sampled_from(["none", "upper"]),
    tracking=st.sampled_from([0, 0.5, 20, -0.1]),
    paragraph_space=st.sampled_from([0.0, 0.4, 5.0]),
)
SMALL_BOXES = st.tuples(st.just(0.0), st.just(0.0), st.floats(2, 200), st.floats(2, 200))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=LONG_TEXTS, style=WIDE_STYLES, box=SMALL_BOXES, markup=st.booleans(), wrap=st.booleans(),
       min_size=st.sampled_from([None, 1, 2.5, 7]), step=st.sampled_from([0.05, 0.1, 0.3, 1, 100]))
def test_bisection_finds_the_size_stepping_down_finds(text: str, style: Style, box, markup: bool, wrap: bool,
                                                      min_size, step: float) -> None:
    """Fine steps over wide ranges (up to 7,980 sizes): the size, whether it fits, the lines and
    every primitive are those of stepping down one size at a time; and the text was measured in
    full at no more than 2 x log2(sizes) of them (``Fit.work``)."""
    layout = TextLayout(FONTS, icon_fn)
    want_size, want_fits, grid = stepping(TextLayout(FONTS, icon_fn), text, style, box, markup, wrap, min_size, step)
    prims, fit = layout.fit(text, style, box, markup=markup, wrap=wrap, min_size=min_size, step=step)
    assert (fit.size, fit.fits) == (want_size, want_fits)
    at, at_fit = TextLayout(FONTS, icon_fn).fit(text, msgspec.structs.replace(style, size=want_size), box,
                                                markup=markup, wrap=wrap)
    assert [repr(p) for p in prims] == [repr(p) for p in at]  # laid out exactly as at that size alone
    assert (fit.lines, fit.right) == (at_fit.lines, at_fit.right)
    assert fit.work % len(text) == 0 and 1 <= fit.work // len(text) <= max(1, 2 * (len(grid) - 1).bit_length())


def test_a_long_text_with_a_fine_step_is_measured_at_few_sizes() -> None:
    """attack 4 F6's text (bold, italic and an inline icon, repeated) at 400 pt shrinking to 1 pt
    by 0.05 (7,981 sizes), in boxes that stop the search at every depth of the grid, from the
    first size to none at all: the size found is the one stepping down finds, and the text was
    measured in full at 26 sizes at most."""
    text = "**b** *i* {icon:coin} " * 20
    style = Style(font="Lato-Regular", size=400)
    found = []
    for side in (3.0, 10.0, 90.0, 600.0, 1500.0, 3000.0, 9000.0):
        box = (14.0, 14.0, side, side)
        want_size, want_fits, grid = stepping(TextLayout(FONTS, icon_fn), text, style, box, True, True, 1, 0.05)
        assert len(grid) == 7981
        _, fit = TextLayout(FONTS, icon_fn).fit(text, style, box, markup=True, min_size=1, step=0.05)
        assert (fit.size, fit.fits) == (want_size, want_fits), side
        assert fit.work // len(text) <= 26, (side, fit.work // len(text))
        found.append((fit.size, fit.fits))
    assert found[0] == (1.0, False) and found[-1] == (400, True)
    assert len({size for size, _ in found}) == len(found)  # each box stops the search somewhere else


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS, box=SMALL_BOXES, markup=st.booleans(), wrap=st.booleans(),
       tracking=st.sampled_from([-5, -2, -0.5]), step=st.sampled_from([0.05, 0.25]))
def test_with_letters_overlapping_the_size_found_fits_and_the_one_above_does_not(
        text: str, box, markup: bool, wrap: bool, tracking: float, step: float) -> None:
    """A negative tracking larger than the letters at small sizes makes widths negative, and
    fitting need not be monotone any more: the size found still fits (judged by the
    straightforward Reference) and the size one step above it does not, or it is the first."""
    from pnp.layout.text import _grid

    style = Style(font="Vollkorn-Regular", size=30, tracking=tracking)
    _, fit = TextLayout(FONTS, icon_fn).fit(text, style, box, markup=markup, wrap=wrap, min_size=1, step=step)
    grid = _grid(30, step, 1)

    def fits(size: float) -> bool:
        at = Style(font="Vollkorn-Regular", size=size, tracking=tracking)
        return Reference(FONTS, icon_fn).fit(text, at, box, markup, wrap, None, step)[1][1]

    k = grid.index(fit.size)
    if fit.fits:
        assert fits(fit.size)
        assert k == 0 or not fits(grid[k - 1])
    else:
        assert k == len(grid) - 1


def test_a_piece_s_texts_are_held_to_a_budget_of_characters_measured(tmp_path: Path) -> None:
    """A `repeat` of long fitted texts multiplies their fitting: `check` and `build` refuse a
    piece whose texts measure more than FIT_WORK characters, with exit 2 naming the file, the
    line, the element's JSON path and what is expected, and nothing written."""
    import json

    from conftest import assert_no_traceback, run_cli

    from pnp.layout.text import FIT_WORK

    text = " ".join(f"w{n % 500}ord" for n in range(2000))  # 15,559 characters
    game = tmp_path / "card_data" / "mini"
    game.mkdir(parents=True)
    (tmp_path / "templates" / "mini").mkdir(parents=True)
    (game / "game.json").write_text(json.dumps({
        "id": "mini", "title": "Mini", "players": {"min": 1}, "document": {"file": "none.txt"}, "rulebook": [],
        "components": [{"id": "deck", "title": "Deck", "kind": "card", "size": [63, 88], "data": "deck.json",
                        "template": "mini/front"}]}))
    (game / "deck.json").write_text(json.dumps({
        "component": "deck", "fields": {"text": {"type": "text", "description": "rules"}},
        "items": [{"id": "a", "source": {"designed": "test"}, "text": text}]}))

    def template(count: int) -> None:
        fitted = {"type": "text", "box": [5, 5, 50, 50], "text": "{text}", "size": 400,
                  "fit": {"min_size": 1, "step": 0.05}}
        (tmp_path / "templates" / "mini" / "front.json").write_text(json.dumps({"elements": [
            {"type": "repeat", "count": count, "step": [0.01, 0], "elements": [fitted]}]}, indent=1))

    template(3)  # about 3 x 12 x 15,559 characters: under the budget
    ok = run_cli("check", "--data", tmp_path, "mini", cwd=tmp_path)
    assert ok.exit_code == 0, ok.stderr
    template(200)
    r = run_cli("check", "--data", tmp_path, "mini", cwd=tmp_path)
    assert r.exit_code == 2
    assert_no_traceback(r)
    assert re.search(r"templates/mini/front\.json:\d+:\d+: \$\.elements\[0\]\.elements\[0\]\.fit: laying out "
                     rf"this piece's texts measures more than {FIT_WORK} characters \(each size tried measures "
                     r"a whole text: this one, 15559 characters, \d+ times\)", r.stderr), r.stderr
    assert "item a" in r.stderr and "expected fewer or shorter texts on a piece" in r.stderr
    b = run_cli("build", "--data", tmp_path, "mini", "--out", tmp_path / "out", "--jobs", "1", cwd=tmp_path)
    assert b.exit_code == 2 and f"more than {FIT_WORK} characters" in b.stderr and "nothing was written" in b.stderr
    assert not (tmp_path / "out").exists()
