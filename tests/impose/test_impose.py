"""Tests for pnp.impose: exact coordinates for known sheets and invariants as properties."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pnp.impose.grid import impose, one_per_page, plan_grid
from pnp.impose.marks import LABEL_ROOM
from pnp.impose.sheet import (
    PAPERS,
    CutLine,
    Edges,
    Grid,
    Page,
    Paper,
    PieceSpec,
    SheetOptions,
    Slot,
    back_rotation,
    mm,
    piece_to_page,
    slot_matrix,
)
from pnp.units import MM

TOL = 1e-6
LETTER = PAPERS["letter"]
A4 = PAPERS["a4"]
POKER = PieceSpec(mm(63), mm(88))


def approx(value: float) -> pytest.approx:
    return pytest.approx(value, abs=TOL)


# ----------------------------------------------------------------------------- invariants


def boxes_overlap(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    return min(ax + aw, bx + bw) - max(ax, bx) > TOL and min(ay + ah, by + bh) - max(ay, by) > TOL


def segment_touches_box(cut: CutLine, box: tuple[float, ...], tol: float) -> bool:
    """True if the axis-aligned segment comes within tol of the closed box."""
    x, y, w, h = box
    sx1, sx2 = sorted((cut.x1, cut.x2))
    sy1, sy2 = sorted((cut.y1, cut.y2))
    return sx1 <= x + w + tol and sx2 >= x - tol and sy1 <= y + h + tol and sy2 >= y - tol


def has_vertical_cut(page: Page, x: float, paper: Paper) -> bool:
    """A vertical cut at x in the bottom margin (from y=0) and one in the top margin."""
    lines = [c for c in page.cuts if abs(c.x1 - x) < TOL and abs(c.x2 - x) < TOL]
    return any(min(c.y1, c.y2) < TOL for c in lines) and any(
        max(c.y1, c.y2) > paper.height - TOL for c in lines
    )


def has_horizontal_cut(page: Page, y: float, paper: Paper) -> bool:
    lines = [c for c in page.cuts if abs(c.y1 - y) < TOL and abs(c.y2 - y) < TOL]
    return any(min(c.x1, c.x2) < TOL for c in lines) and any(
        max(c.x1, c.x2) > paper.width - TOL for c in lines
    )


def mirrored(slot: Slot, duplex: str, paper: Paper) -> tuple[float, ...]:
    b = slot.bleed
    if duplex == "long":
        return (
            paper.width - slot.x - slot.w,
            slot.y,
            slot.w,
            slot.h,
            b.right,
            b.bottom,
            b.left,
            b.top,
        )
    return (
        slot.x,
        paper.height - slot.y - slot.h,
        slot.w,
        slot.h,
        b.left,
        b.top,
        b.right,
        b.bottom,
    )


def slot_geometry(slot: Slot) -> tuple[float, ...]:
    b = slot.bleed
    return (slot.x, slot.y, slot.w, slot.h, b.left, b.bottom, b.right, b.top)


def check_page_geometry(page: Page, options: SheetOptions) -> None:
    paper = options.paper
    m = options.margin
    boxes = [s.bleed_box for s in page.slots]
    for s, (x, y, w, h) in zip(page.slots, boxes, strict=True):
        assert s.side == page.side
        assert min(s.bleed.left, s.bleed.bottom, s.bleed.right, s.bleed.top) >= 0
        assert x >= m - TOL and y >= m - TOL
        assert x + w <= paper.width - m + TOL and y + h <= paper.height - m + TOL
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert not boxes_overlap(a, b), (a, b)
    for cut in page.cuts:
        assert cut.x1 == cut.x2 or cut.y1 == cut.y2  # axis-aligned
        assert math.hypot(cut.x2 - cut.x1, cut.y2 - cut.y1) > 0
        for v in (cut.x1, cut.x2):
            assert -TOL <= v <= paper.width + TOL
        for v in (cut.y1, cut.y2):
            assert -TOL <= v <= paper.height + TOL
        for box in boxes:
            # never touches a piece or its bleed: stays mark_gap away
            assert not segment_touches_box(cut, box, options.mark_gap - TOL), (cut, box)


def assert_back_upright_through_paper(front: Slot, back: Slot, duplex: str) -> None:
    """Seen through the paper (the back page flipped onto the front), the back's top points
    the same way as the front's top: the piece turned over like a book page reads upright."""
    def up(slot: Slot) -> tuple[float, float]:
        _, _, c, d, _, _ = slot_matrix(slot)
        return (c, d)  # the image of the piece's +y axis

    bx, by = up(back)
    through = (-bx, by) if duplex == "long" else (bx, -by)
    assert through == pytest.approx(up(front))


def check_backs(
    pages: tuple[Page, ...], piece: PieceSpec, options: SheetOptions, tiled: bool
) -> None:
    backs = piece.has_back and options.duplex != "none" and not tiled
    assert [p.number for p in pages] == list(range(1, len(pages) + 1))
    if not backs:
        assert all(p.side == "front" for p in pages)
        return
    assert [p.side for p in pages] == ["front", "back"] * (len(pages) // 2)
    for front, back in zip(pages[::2], pages[1::2], strict=True):
        assert back.cuts == () and back.marks == ()
        assert len(front.slots) == len(back.slots)
        for f, b in zip(front.slots, back.slots, strict=True):
            assert (b.piece, b.part) == (f.piece, f.part)
            assert b.rotation == back_rotation(f.rotation, options.duplex)
            assert_back_upright_through_paper(f, b, options.duplex)
            assert slot_geometry(b) == pytest.approx(
                mirrored(f, options.duplex, options.paper), abs=TOL
            )


def check_grid(
    pages: tuple[Page, ...], count: int, piece: PieceSpec, options: SheetOptions, grid: Grid
) -> None:
    paper = options.paper
    fronts = [p for p in pages if p.side == "front"]
    per_page = grid.cols * grid.rows
    assert len(fronts) == math.ceil(count / per_page)
    sides = ("front", "back") if piece.has_back and options.duplex != "none" else ("front",)
    for side in sides:  # every copy exactly once per side
        assert sorted(s.piece for p in pages if p.side == side for s in p.slots) == list(
            range(count)
        )
    w, h = (piece.height, piece.width) if grid.rotated else (piece.width, piece.height)
    for page in pages:
        check_page_geometry(page, options)
        for s in page.slots:
            assert s.part is None
            turned = 90 if grid.rotated else 0
            want = turned if s.side == "front" else back_rotation(turned, options.duplex)
            assert s.rotation == want
            assert (s.w, s.h) == (approx(w), approx(h))
        if page.side == "back":
            continue
        assert len(page.slots) <= per_page
        if not options.crop_marks:
            assert page.cuts == ()
            continue
        xs = {v for s in page.slots for v in (s.x, s.x + s.w)}
        ys = {v for s in page.slots for v in (s.y, s.y + s.h)}
        for x in xs:
            assert has_vertical_cut(page, x, paper), x
        for y in ys:
            assert has_horizontal_cut(page, y, paper), y
        for cut in page.cuts:  # no cut line other than at trim edges
            if cut.x1 == cut.x2:
                assert any(abs(cut.x1 - x) < TOL for x in xs)
            else:
                assert any(abs(cut.y1 - y) < TOL for y in ys)
        # deduplicated: no two identical segments
        keys = [tuple(round(v, 6) for v in (c.x1, c.y1, c.x2, c.y2)) for c in page.cuts]
        assert len(keys) == len(set(keys))


def check_tiled(
    pages: tuple[Page, ...], count: int, piece: PieceSpec, options: SheetOptions
) -> None:
    o = options.overlap
    paper = options.paper
    first = pages[0].slots[0].part
    assert first is not None
    rows, cols = first.rows, first.cols
    assert rows * cols > 1
    assert len(pages) == count * rows * cols
    for i, page in enumerate(pages):
        check_page_geometry(page, options)
        assert len(page.slots) == 1
        slot = page.slots[0]
        part = slot.part
        assert part is not None and slot.piece == i // (rows * cols)
        assert (part.row, part.col) == divmod(i % (rows * cols), cols)
        label = f"Part row {part.row + 1}, column {part.col + 1} of {rows} x {cols}"
        assert page.label is not None and page.label.startswith(label)
        rx, ry, rw, rh = part.region
        pw, ph = (rh, rw) if slot.rotation == 90 else (rw, rh)
        assert (slot.w, slot.h) == (approx(pw), approx(ph))
        # bleed only on the piece's outer edges, 0 on interior (overlap) sides
        outer = (part.col == 0, part.row == rows - 1, part.col == cols - 1, part.row == 0)
        page_outer = (outer[3], outer[0], outer[1], outer[2]) if slot.rotation else outer
        b = slot.bleed
        assert (b.left, b.bottom, b.right, b.top) == tuple(
            approx(options.bleed if flag else 0.0) for flag in page_outer
        )
        # glue zones: one for each later neighbour, exactly overlap deep
        glue = [m for m in page.marks if m.kind == "glue"]
        assert len(glue) == (part.col < cols - 1) + (part.row < rows - 1)
        for m in glue:
            assert min(m.w, m.h) == approx(o)
            sx, sy, sw, sh = slot.x, slot.y, slot.w, slot.h
            assert sx - TOL <= m.x and m.x + m.w <= sx + sw + TOL
            assert sy - TOL <= m.y and m.y + m.h <= sy + sh + TOL
        if part.col > 0 or part.row > 0 or glue:
            assert any(m.kind == "align" for m in page.marks)
        # cut lines only at the piece's outer trim edges present on this part
        if not options.crop_marks:
            assert page.cuts == ()
            continue
        expected_v, expected_h = [], []
        for flag, px, py, vertical_in_piece in (
            (part.col == 0, 0.0, ry, True),
            (part.col == cols - 1, piece.width, ry, True),
            (part.row == 0, rx, piece.height, False),
            (part.row == rows - 1, rx, 0.0, False),
        ):
            if not flag:
                continue
            x, y = piece_to_page(slot, px, py)
            if vertical_in_piece != (slot.rotation == 90):
                expected_v.append(x)
            else:
                expected_h.append(y)
        for x in expected_v:
            assert has_vertical_cut(page, x, paper)
        for y in expected_h:
            assert has_horizontal_cut(page, y, paper)
        assert len({round(c.x1, 6) for c in page.cuts if c.x1 == c.x2}) == len(expected_v)
        assert len({round(c.y1, 6) for c in page.cuts if c.y1 == c.y2}) == len(expected_h)

    # regions: a rows x cols grid of spans covering the piece, neighbours overlapping by o
    parts = [p.slots[0].part for p in pages[: rows * cols]]
    xspans = [parts[c].region[0::2] for c in range(cols)]
    yspans = [parts[r * cols].region[1::2] for r in range(rows)]
    for p in parts:
        assert p.region[0::2] == xspans[p.col] and p.region[1::2] == yspans[p.row]
    assert xspans[0][0] == approx(0)
    assert xspans[-1][0] + xspans[-1][1] == approx(piece.width)
    assert yspans[0][0] + yspans[0][1] == approx(piece.height)  # row 0 is the top
    assert yspans[-1][0] == approx(0)
    for (x0, w0), (x1, _) in itertools.pairwise(xspans):
        assert x0 + w0 - x1 == approx(o)
    for (y0, _), (y1, h1) in itertools.pairwise(yspans):
        assert y1 + h1 - y0 == approx(o)


def check_all(pages: tuple[Page, ...], count: int, piece: PieceSpec, options: SheetOptions) -> None:
    grid = plan_grid(piece, options)
    tiled = grid is None
    check_backs(pages, piece, options, tiled)
    if tiled:
        check_tiled(pages, count, piece, options)
    else:
        check_grid(pages, count, piece, options, grid)


# ----------------------------------------------------------------------------- grid choice


def test_paper_sizes() -> None:
    assert (LETTER.width, LETTER.height) == (612, 792)
    assert A4.width == pytest.approx(595.2756, abs=1e-4)
    assert A4.height == pytest.approx(841.8898, abs=1e-4)
    assert mm(25.4) == approx(72)
    assert approx(72 / 25.4) == MM


def test_poker_letter_grid_abuts_vertically() -> None:
    # Letter usable 207.9 x 271.4 mm. x: gutter 3 x 69 = 207 fits, abut also 3 -> gutter.
    # y: gutter 3 x 94 = 282 > 271.4 (only 2); abut 3 x 88 + 6 = 270 fits -> abut.
    assert plan_grid(POKER, SheetOptions(LETTER)) == Grid(3, 3, False, True, False)


def test_poker_a4_grid_abuts_horizontally() -> None:
    # A4 usable 202 x 289 mm. x: gutter 207 > 202 (2); abut 195 fits (3) -> abut.
    # y: gutter 282 fits (3) -> gutter.
    assert plan_grid(POKER, SheetOptions(A4)) == Grid(3, 3, False, False, True)


@pytest.mark.parametrize(
    ("size", "paper", "bleed", "expected"),
    [
        ((38, 38), LETTER, 3, Grid(5, 6, False, False, True)),
        ((38, 38), A4, 3, Grid(5, 7, False, False, False)),
        ((16, 16), LETTER, 3, Grid(12, 16, False, False, False)),
        ((16, 16), A4, 3, Grid(12, 17, False, False, False)),
        ((70, 120), LETTER, 3, Grid(2, 2, False, True, True)),
        # rotated, A4 would also give 1 x 4 = 4: not strictly more, so not rotated
        ((70, 120), A4, 3, Grid(2, 2, False, True, True)),
        ((63, 88), LETTER, 0, Grid(3, 3, False, True, True)),
        ((63, 88), A4, 0, Grid(3, 3, False, True, True)),
        # mini 44x63: upright 4 x 4 = 16, turned 3 x 6 = 18 -> rotated
        ((44, 63), LETTER, 3, Grid(3, 6, True, True, False)),
        ((44, 63), A4, 3, Grid(3, 6, True, False, False)),
        ((336, 336), LETTER, 3, None),
    ],
)
def test_grid_counts(size, paper, bleed, expected) -> None:
    piece = PieceSpec(mm(size[0]), mm(size[1]))
    assert plan_grid(piece, SheetOptions(paper, bleed=mm(bleed))) == expected


def test_exact_fit_counts() -> None:
    # exactly 2 x (50 + 2*5) = 120 mm of usable width: the fit tolerance must accept it
    paper = Paper("test", mm(128), mm(100))
    grid = plan_grid(PieceSpec(mm(50), mm(50)), SheetOptions(paper, bleed=mm(5)))
    assert grid is not None and grid.cols == 2 and grid.gutter_x


def test_nothing_fits_on_tiny_paper_and_tiling_refuses() -> None:
    paper = Paper("tiny", mm(20), mm(20))  # usable 12 mm, overlap 10 mm, bleed 3 mm
    options = SheetOptions(paper)
    assert plan_grid(PieceSpec(mm(63), mm(88)), options) is None
    with pytest.raises(ValueError):
        impose(1, PieceSpec(mm(63), mm(88)), options)


# ----------------------------------------------------------------------------- coordinates


def test_poker_letter_coordinates() -> None:
    options = SheetOptions(LETTER)
    pages = impose(9, POKER, options)
    assert [(p.number, p.side) for p in pages] == [(1, "front"), (2, "back")]
    front = pages[0]
    assert [s.piece for s in front.slots] == list(range(9))
    b = mm(3)
    # grid 207 x 270 mm centred on 215.9 x 279.4 mm: bleed starts at 4.45 / 4.7 mm
    s0 = front.slots[0]
    assert (s0.x, s0.y, s0.w, s0.h) == (
        approx(mm(7.45)),
        approx(mm(183.7)),
        approx(mm(63)),
        approx(mm(88)),
    )
    assert s0.x == approx(21.118110236) and s0.y == approx(520.724409449)
    assert s0.bleed == Edges(approx(b), approx(0), approx(b), approx(b))
    assert s0.rotation == 0
    s4 = front.slots[4]  # centre card: full bleed left/right, none top/bottom
    assert (s4.x, s4.y) == (approx(mm(7.45 + 69)), approx(mm(183.7 - 88)))
    assert s4.bleed == Edges(approx(b), approx(0), approx(b), approx(0))
    s8 = front.slots[8]
    assert (s8.x, s8.y) == (approx(mm(7.45 + 138)), approx(mm(7.7)))
    assert s8.bleed == Edges(approx(b), approx(b), approx(b), approx(0))
    # 6 distinct trim x (gutter) and 4 distinct trim y (abutting): two segments each
    vertical = [c for c in front.cuts if c.x1 == c.x2]
    horizontal = [c for c in front.cuts if c.y1 == c.y2]
    assert len(vertical) == 12 and len(horizontal) == 8
    assert sorted({round(c.x1 / MM, 6) for c in vertical}) == [
        7.45,
        70.45,
        76.45,
        139.45,
        145.45,
        208.45,
    ]
    assert sorted({round(c.y1 / MM, 6) for c in horizontal}) == [7.7, 95.7, 183.7, 271.7]
    low = [c for c in vertical if c.y1 == 0]
    assert len(low) == 6 and all(c.y2 == approx(mm(3.7)) for c in low)
    high = [c for c in vertical if c.y2 == 792]
    assert len(high) == 6 and all(c.y1 == approx(mm(279.4 - 3.7)) for c in high)
    left = [c for c in horizontal if c.x1 == 0]
    assert len(left) == 4 and all(c.x2 == approx(mm(3.45)) for c in left)
    # back: long-edge flip mirrors x
    back0 = pages[1].slots[0]
    assert (back0.piece, back0.side) == (0, "back")
    assert (back0.x, back0.y) == (approx(mm(215.9 - 7.45 - 63)), approx(mm(183.7)))
    assert back0.x == approx(412.299212598)
    assert pages[1].cuts == ()
    check_all(pages, 9, POKER, options)


def test_poker_a4_coordinates() -> None:
    options = SheetOptions(A4)
    pages = impose(9, POKER, options)
    front = pages[0]
    b = mm(3)
    # grid 195 x 282 mm centred on 210 x 297 mm: bleed starts at 7.5 / 7.5 mm
    s0 = front.slots[0]
    assert (s0.x, s0.y, s0.w, s0.h) == (
        approx(mm(10.5)),
        approx(mm(198.5)),
        approx(mm(63)),
        approx(mm(88)),
    )
    assert s0.x == approx(29.763779528) and s0.y == approx(562.677165354)
    assert s0.bleed == Edges(approx(b), approx(b), approx(0), approx(b))
    s5 = front.slots[5]
    assert (s5.x, s5.y) == (approx(mm(10.5 + 126)), approx(mm(198.5 - 94)))
    assert s5.bleed == Edges(approx(0), approx(b), approx(b), approx(b))
    vertical = [c for c in front.cuts if c.x1 == c.x2]
    horizontal = [c for c in front.cuts if c.y1 == c.y2]
    assert sorted({round(c.x1 / MM, 6) for c in vertical}) == [10.5, 73.5, 136.5, 199.5]
    assert sorted({round(c.y1 / MM, 6) for c in horizontal}) == [
        10.5,
        98.5,
        104.5,
        192.5,
        198.5,
        286.5,
    ]
    assert len(vertical) == 8 and len(horizontal) == 12
    back0 = pages[1].slots[0]
    assert (back0.x, back0.y) == (approx(mm(210 - 10.5 - 63)), approx(mm(198.5)))
    assert back0.bleed == Edges(approx(0), approx(b), approx(b), approx(b))
    check_all(pages, 9, POKER, options)


def test_short_edge_duplex_mirrors_vertically() -> None:
    options = SheetOptions(LETTER, duplex="short")
    pages = impose(9, POKER, options)
    f, b = pages[0].slots[0], pages[1].slots[0]
    assert (b.x, b.y) == (approx(f.x), approx(792 - f.y - f.h))
    assert b.bleed == Edges(f.bleed.left, f.bleed.top, f.bleed.right, f.bleed.bottom)
    check_all(pages, 9, POKER, options)


def test_no_backs_without_duplex_or_back() -> None:
    assert [p.side for p in impose(20, POKER, SheetOptions(LETTER, duplex="none"))] == ["front"] * 3
    no_back = PieceSpec(mm(63), mm(88), has_back=False)
    pages = impose(20, no_back, SheetOptions(LETTER))
    assert [(p.number, p.side) for p in pages] == [(1, "front"), (2, "front"), (3, "front")]


def test_partial_last_page() -> None:
    options = SheetOptions(LETTER)
    pages = impose(10, POKER, options)
    assert [(p.number, p.side, len(p.slots)) for p in pages] == [
        (1, "front", 9),
        (2, "back", 9),
        (3, "front", 1),
        (4, "back", 1),
    ]
    lone = pages[2].slots[0]
    first = pages[0].slots[0]
    assert (lone.piece, lone.x, lone.y, lone.bleed) == (9, first.x, first.y, first.bleed)
    # only the used row and column get cut lines: 2 x and 2 y, two segments each
    assert len(pages[2].cuts) == 8
    check_all(pages, 10, POKER, options)


def test_no_crop_marks() -> None:
    pages = impose(9, POKER, SheetOptions(LETTER, crop_marks=False))
    assert all(p.cuts == () for p in pages)


def test_zero_count() -> None:
    assert impose(0, POKER, SheetOptions(LETTER)) == ()
    with pytest.raises(ValueError):
        impose(-1, POKER, SheetOptions(LETTER))


def test_invalid_options() -> None:
    with pytest.raises(ValueError):
        SheetOptions(LETTER, duplex="sideways")
    with pytest.raises(ValueError):
        SheetOptions(LETTER, bleed=-1)
    with pytest.raises(ValueError):
        PieceSpec(0, 10)


def test_rotated_grid_and_piece_to_page() -> None:
    mini = PieceSpec(mm(44), mm(63))
    options = SheetOptions(LETTER)
    pages = impose(18, mini, options)
    assert len(pages) == 2
    s = pages[0].slots[0]
    assert (s.rotation, s.w, s.h) == (90, approx(mm(63)), approx(mm(44)))
    assert pages[1].slots[0].rotation == 270  # long-edge back of a turned piece: turned the other way
    # turned counter-clockwise: the piece's bottom-left lands at the slot's bottom-right,
    # its top-left at the slot's bottom-left
    assert piece_to_page(s, 0, 0) == (approx(s.x + s.w), approx(s.y))
    assert piece_to_page(s, 0, mini.height) == (approx(s.x), approx(s.y))
    assert piece_to_page(s, mini.width, mini.height) == (approx(s.x), approx(s.y + s.h))
    check_all(pages, 18, mini, options)


def test_one_per_page_centres() -> None:
    options = SheetOptions(A4, crop_marks=False)
    pages = one_per_page(3, POKER, options)
    assert [(p.number, p.side) for p in pages] == [
        (1, "front"),
        (2, "back"),
        (3, "front"),
        (4, "back"),
        (5, "front"),
        (6, "back"),
    ]
    for p in pages:
        (s,) = p.slots
        assert (s.x, s.y) == (approx(mm((210 - 63) / 2)), approx(mm((297 - 88) / 2)))
        assert s.bleed == Edges(*[approx(mm(3))] * 4)
        assert p.cuts == ()
    with_marks = one_per_page(1, POKER, SheetOptions(A4))
    assert len(with_marks[0].cuts) == 8


def test_one_per_page_rotates_only_when_needed() -> None:
    wide = PieceSpec(mm(250), mm(180))  # too wide for Letter upright, fits turned
    (page,) = one_per_page(1, PieceSpec(mm(250), mm(180), has_back=False), SheetOptions(LETTER))
    assert page.slots[0].rotation == 90
    assert one_per_page(1, POKER, SheetOptions(LETTER))[0].slots[0].rotation == 0
    assert plan_grid(wide, SheetOptions(LETTER)) == Grid(1, 1, True, True, True)


# ----------------------------------------------------------------------------- tiling


def test_tiled_board_letter() -> None:
    board = PieceSpec(mm(336), mm(336))
    options = SheetOptions(LETTER)
    pages = impose(1, board, options)
    # each axis: 2 parts with drawn extent (336 + 6 + 10) / 2 = 176 mm <= 207.9 mm
    assert [p.label for p in pages] == [
        "Part row 1, column 1 of 2 x 2",
        "Part row 1, column 2 of 2 x 2",
        "Part row 2, column 1 of 2 x 2",
        "Part row 2, column 2 of 2 x 2",
    ]
    assert all(p.side == "front" for p in pages)  # tiled pieces get no backs
    regions = [tuple(round(v / MM, 6) for v in p.slots[0].part.region) for p in pages]
    assert regions == [
        (0, 163, 173, 173),
        (163, 163, 173, 173),
        (0, 0, 173, 173),
        (163, 0, 173, 173),
    ]
    top_left = pages[0].slots[0]
    b = mm(3)
    assert top_left.bleed == Edges(approx(b), approx(0), approx(0), approx(b))
    # drawn extent 176 x 176 mm centred on the page
    assert top_left.x - b == approx((612 - mm(176)) / 2)
    assert top_left.y == approx((792 - mm(176)) / 2)
    glue = sorted((m.x, m.y, m.w, m.h) for m in pages[0].marks if m.kind == "glue")
    right = (top_left.x + mm(163), top_left.y, mm(10), mm(173))
    bottom = (top_left.x, top_left.y, mm(173), mm(10))
    assert glue == [pytest.approx(bottom, abs=TOL), pytest.approx(right, abs=TOL)]
    aligns = {(round(m.x, 6), round(m.y, 6)) for m in pages[0].marks if m.kind == "align"}
    # corners of both overlap zones, e.g. where the right zone meets the bottom zone
    for px, py in ((163, 163), (173, 163), (163, 336), (173, 336), (0, 173), (0, 163)):
        x, y = top_left.x + mm(px), top_left.y + mm(py - 163)
        assert (round(x, 6), round(y, 6)) in aligns
    # top-left part: cut lines at the piece's left and top edges only
    assert {round(c.x1, 6) for c in pages[0].cuts if c.x1 == c.x2} == {round(top_left.x, 6)}
    assert {round(c.y1, 6) for c in pages[0].cuts if c.y1 == c.y2} == {
        round(top_left.y + top_left.h, 6)
    }
    assert pages[3].marks and not [m for m in pages[3].marks if m.kind == "glue"]
    check_all(pages, 1, board, options)


def test_tiled_rotates_when_fewer_pages() -> None:
    board = PieceSpec(mm(450), mm(200), has_back=True)
    options = SheetOptions(LETTER)
    pages = impose(2, board, options)
    # upright: 3 x 1 parts; turned: 200 mm across (206 <= 207.9) and 2 parts along
    assert len(pages) == 4
    assert all(p.slots[0].rotation == 90 for p in pages)
    assert pages[0].label == "Part row 1, column 1 of 1 x 2 (copy 1 of 2)"
    assert [p.slots[0].piece for p in pages] == [0, 0, 1, 1]
    check_all(pages, 2, board, options)


def test_one_per_page_tiles_big_pieces() -> None:
    board = PieceSpec(mm(336), mm(336))
    options = SheetOptions(A4)
    assert one_per_page(1, board, options) == impose(1, board, options)


# ----------------------------------------------------------------------------- properties

papers = st.sampled_from([LETTER, A4])
sizes = st.floats(min_value=10, max_value=400).map(mm)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    width=sizes,
    height=sizes,
    count=st.integers(1, 40),
    paper=papers,
    bleed=st.floats(min_value=0, max_value=5).map(mm),
    duplex=st.sampled_from(["long", "short", "none"]),
    has_back=st.booleans(),
    crop_marks=st.booleans(),
)
def test_impose_invariants(
    width, height, count, paper, bleed, duplex, has_back, crop_marks
) -> None:
    piece = PieceSpec(width, height, has_back)
    options = SheetOptions(paper, duplex=duplex, bleed=bleed, crop_marks=crop_marks)
    pages = impose(count, piece, options)
    check_all(pages, count, piece, options)
    grid = plan_grid(piece, options)
    if grid is not None:
        # the grid is the best: no other gutter/abut choice or orientation holds more
        uw, uh = paper.width - 2 * options.margin, paper.height - 2 * options.margin
        for w, h in ((width, height), (height, width)):
            best = max(
                math.floor((uw + TOL) / (w + 2 * bleed)), math.floor((uw - 2 * bleed + TOL) / w)
            )
            best *= max(
                math.floor((uh + TOL) / (h + 2 * bleed)), math.floor((uh - 2 * bleed + TOL) / h)
            )
            assert grid.cols * grid.rows >= best
    else:
        # tiling uses the minimal number of parts: one fewer along an axis would not fit
        part = pages[0].slots[0].part
        slot = pages[0].slots[0]
        uw, uh = paper.width - 2 * options.margin, paper.height - 2 * options.margin
        along_w, along_h = (uh, uw) if slot.rotation == 90 else (uw, uh)
        o = options.overlap
        for n, size, avail in ((part.cols, width, along_w), (part.rows, height, along_h)):
            if n > 1:
                fewer = (size + 2 * bleed + (n - 2) * o) / (n - 1)
                assert fewer > avail - TOL


@settings(max_examples=100, deadline=None)
@given(
    width=sizes,
    height=sizes,
    count=st.integers(1, 10),
    paper=papers,
    duplex=st.sampled_from(["long", "short", "none"]),
)
def test_one_per_page_invariants(width, height, count, paper, duplex) -> None:
    piece = PieceSpec(width, height)
    options = SheetOptions(paper, duplex=duplex)
    pages = one_per_page(count, piece, options)
    if plan_grid(piece, options) is None:
        check_all(pages, count, piece, options)
        return
    check_backs(pages, piece, options, tiled=False)
    fronts = [p for p in pages if p.side == "front"]
    assert [p.slots[0].piece for p in fronts] == list(range(count))
    for page in pages:
        check_page_geometry(page, options)
        (s,) = page.slots
        x, y, w, h = s.bleed_box
        assert x + w / 2 == approx(paper.width / 2) and y + h / 2 == approx(paper.height / 2)
        if page.side == "front":
            assert len(page.cuts) == 8


def test_print_shop_pages_are_trim_plus_bleed_fronts_and_backs_alternate() -> None:
    from pnp.impose.grid import print_shop

    pages = print_shop(3, POKER, SheetOptions(LETTER, bleed=mm(3)))
    assert [(p.number, p.side, p.slots[0].piece) for p in pages] == [
        (1, "front", 0), (2, "back", 0), (3, "front", 1), (4, "back", 1), (5, "front", 2), (6, "back", 2)]
    for p in pages:
        assert p.paper is not None and p.cuts == ()
        assert (p.paper.width, p.paper.height) == (approx(mm(69)), approx(mm(94)))
        s = p.slots[0]
        assert (s.x, s.y, s.w, s.h) == (approx(mm(3)), approx(mm(3)), approx(mm(63)), approx(mm(88)))
        assert s.rotation == 0
    no_backs = print_shop(2, PieceSpec(mm(63), mm(88), has_back=False), SheetOptions(LETTER))
    assert [p.side for p in no_backs] == ["front", "front"]


@pytest.mark.parametrize("paper", ["letter", "a4"])
@pytest.mark.parametrize("size", [(63, 88), (38, 38), (70, 120), (16, 16)])
def test_gutterfold_backs_mirror_across_the_fold(paper: str, size: tuple[float, float]) -> None:
    from pnp.impose.grid import gutterfold

    options = SheetOptions(PAPERS[paper], duplex="fold")
    piece = PieceSpec(mm(size[0]), mm(size[1]))
    pages = impose(25, piece, options)
    assert pages == gutterfold(25, piece, options)
    fold_x = PAPERS[paper].width / 2
    seen: list[int] = []
    for page in pages:
        assert page.side == "front"
        assert [m.kind for m in page.marks] == ["fold"] and page.marks[0].x == approx(fold_x)
        fronts = [s for s in page.slots if s.side == "front"]
        backs = [s for s in page.slots if s.side == "back"]
        assert [s.piece for s in fronts] == [s.piece for s in backs]
        seen += [s.piece for s in fronts]
        for f, b in zip(fronts, backs, strict=True):
            fx0, _, fx1, _ = f.bleed_box[0], 0, f.bleed_box[0] + f.bleed_box[2], 0
            assert fx1 <= fold_x - mm(1) + 1e-6  # fronts stay left of the fold, clear of it
            assert b.x == approx(2 * fold_x - f.x - f.w) and b.y == approx(f.y)  # mirrored across it
            assert b.rotation == back_rotation(f.rotation, "long")
            assert_back_upright_through_paper(f, b, "long")
            assert fx0 >= options.margin - 1e-6
        for cut in page.cuts:  # cut lines are in the margins, left of the fold
            assert min(cut.x1, cut.x2) < fold_x
            for s in fronts:
                x, y, w, h = s.bleed_box
                assert (max(cut.x1, cut.x2) < x or min(cut.x1, cut.x2) > x + w
                        or max(cut.y1, cut.y2) < y or min(cut.y1, cut.y2) > y + h)
    assert sorted(seen) == list(range(25))


def test_gutterfold_refuses_a_piece_wider_than_half_the_page() -> None:
    from pnp.impose.grid import gutterfold

    assert gutterfold(1, PieceSpec(mm(150), mm(150)), SheetOptions(LETTER, duplex="fold")) is None
    with pytest.raises(ValueError, match="too large for a gutterfold"):
        impose(1, PieceSpec(mm(150), mm(150)), SheetOptions(LETTER, duplex="fold"))


def _area(poly: tuple) -> float:
    return abs(sum(poly[i][0] * poly[(i + 1) % len(poly)][1] - poly[(i + 1) % len(poly)][0] * poly[i][1]
                   for i in range(len(poly)))) / 2


def _sat_overlap(p: tuple, q: tuple, tol: float = 1e-6) -> bool:
    """Convex polygons overlap with positive area (separating-axis test)."""
    for poly in (p, q):
        for i in range(len(poly)):
            (ax, ay), (bx, by) = poly[i], poly[(i + 1) % len(poly)]
            nx, ny = by - ay, ax - bx
            pp = [nx * x + ny * y for x, y in p]
            qq = [nx * x + ny * y for x, y in q]
            if max(pp) <= min(qq) + tol * (abs(nx) + abs(ny)) or max(qq) <= min(pp) + tol * (abs(nx) + abs(ny)):
                return False
    return True


@pytest.mark.parametrize("flat", [False, True])
@pytest.mark.parametrize("paper", ["letter", "a4"])
def test_hex_honeycomb_shares_edges_and_bleeds_only_outside(flat: bool, paper: str) -> None:
    from pnp.impose.hex import hex_outline, impose_hex, plan_hex

    f2f = mm(30)  # flat-to-flat
    long = f2f * 2 / 3 ** 0.5
    piece = PieceSpec(long, f2f) if flat else PieceSpec(f2f, long)
    options = SheetOptions(PAPERS[paper])
    grid = plan_hex(piece, options)
    pages = impose_hex(44, piece, options)
    assert grid is not None and pages is not None
    fronts = [p for p in pages if p.side == "front"]
    assert sorted(s.piece for p in fronts for s in p.slots) == list(range(44))
    per_page = grid.cols * grid.rows
    assert len(fronts) == -(-44 // per_page) and per_page >= 20  # honeycomb packs more than a 4 x 5 grid
    ux0, uy0 = options.margin, options.margin
    ux1, uy1 = options.paper.width - options.margin, options.paper.height - options.margin
    for page in fronts:
        outlines = [hex_outline(s.x, s.y, s.w, s.h) for s in page.slots]
        for o in outlines:  # regular: six equal sides
            sides = [math.dist(o[i], o[(i + 1) % 6]) for i in range(6)]
            assert max(sides) - min(sides) < 1e-6
        for s, o in zip(page.slots, outlines, strict=True):
            assert s.clip is not None and len(s.clip) == 6
            assert all(ux0 - 1e-6 <= x <= ux1 + 1e-6 and uy0 - 1e-6 <= y <= uy1 + 1e-6 for x, y in s.clip)
            # the clip grows the hex: its area is at least the hex's, and larger where edges are free
            assert _area(s.clip) >= _area(o) - 1e-6
        for i, a in enumerate(page.slots):
            for b in page.slots[i + 1:]:
                assert not _sat_overlap(a.clip, b.clip), "bleeds overlap a neighbour"
        # every hex edge is a cut line, each shared edge once
        edges = {tuple(sorted((tuple(round(v, 6) for v in o[i]), tuple(round(v, 6) for v in o[(i + 1) % 6]))))
                 for o in outlines for i in range(6)}
        assert len(page.cuts) == len(edges)
        shared = 6 * len(outlines) - len(edges)
        assert shared > 0  # neighbours really share edges
    backs = [p for p in pages if p.side == "back"]
    assert len(backs) == len(fronts)
    for f, b in zip(fronts, backs, strict=True):
        for sf, sb in zip(f.slots, b.slots, strict=True):
            assert sb.x == approx(options.paper.width - sf.x - sf.w)
            want = sorted((round(options.paper.width - x, 6), round(y, 6)) for x, y in sf.clip)
            assert sorted((round(x, 6), round(y, 6)) for x, y in sb.clip) == want


def test_round_pieces_get_a_cut_circle_on_each_trim() -> None:
    token = PieceSpec(mm(16), mm(16))
    pages = impose(30, token, SheetOptions(LETTER, abut=False, cut_circles=True))
    for page in pages:
        circles = [m for m in page.marks if m.kind == "circle"]
        if page.side == "back":
            assert circles == []
            continue
        assert [(m.x, m.y, m.w, m.h) for m in circles] == [(s.x, s.y, s.w, s.h) for s in page.slots]
    assert all(m.kind != "circle" for p in impose(30, token, SheetOptions(LETTER)) for m in p.marks)


# --------------------------------------------------------------------------- edges that differ


def test_pieces_abut_only_along_the_edges_the_options_allow() -> None:
    """Letter poker cards abut 3 x 3 (left to right only for the label's room: 3 also fit with
    gutters); where their left and right edges differ in colour the columns get gutters, where top
    and bottom differ too the rows (2 fit)."""
    poker = PieceSpec(63 * MM, 88 * MM)
    g = plan_grid(poker, SheetOptions(PAPERS["letter"], label_room=LABEL_ROOM))
    assert (g.cols, g.rows, g.gutter_x, g.gutter_y) == (3, 3, False, False)
    g = plan_grid(poker, SheetOptions(PAPERS["letter"], label_room=LABEL_ROOM, abut_lr=False))
    assert (g.cols, g.rows, g.gutter_x, g.gutter_y) == (3, 3, True, False)
    g = plan_grid(poker, SheetOptions(PAPERS["letter"], label_room=LABEL_ROOM, abut_lr=False, abut_tb=False))
    assert (g.cols, g.rows, g.gutter_x, g.gutter_y) == (3, 2, True, True)
    pages = impose(6, poker, SheetOptions(PAPERS["letter"], abut_lr=False, abut_tb=False))
    for s in pages[0].slots:  # every piece keeps its own bleed on every side
        assert (s.bleed.left, s.bleed.bottom, s.bleed.right, s.bleed.top) == (3 * MM,) * 4


def test_a_turned_grid_shares_the_edges_that_meet_along_each_page_axis() -> None:
    """Turned 90 degrees, a piece's top and bottom edges meet along the page's x axis."""
    status = PieceSpec(88 * MM, 63 * MM)  # landscape cards go 3 x 3 turned on Letter
    g = plan_grid(status, SheetOptions(PAPERS["letter"]))
    assert (g.cols, g.rows, g.rotated) == (3, 3, True)
    g = plan_grid(status, SheetOptions(PAPERS["letter"], abut_tb=False))
    if g.rotated:
        assert g.gutter_x and not g.gutter_y  # columns apart (top against bottom), rows abut
    else:
        assert g.gutter_y and not g.gutter_x
