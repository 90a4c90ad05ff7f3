"""Ganged sheets: mostly empty sheets share one, each back still behind its front, cut ticks
and separation lines clear of every piece."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from pnp.impose.gang import Block, candidates, gang, height, line_sheets, low_sheet, segment_sheets
from pnp.impose.grid import impose
from pnp.impose.sheet import PAPERS, Page, PieceSpec, SheetOptions, Slot
from pnp.units import MM

Box = tuple[float, float, float, float]


def _blocks(duplex: str) -> tuple[list[Block], SheetOptions]:
    opts = SheetOptions(paper=PAPERS["letter"], duplex=duplex)
    specs = [(11, PieceSpec(63 * MM, 88 * MM)),  # a 3x3 deck: one full sheet, a last sheet of 2
             (2, PieceSpec(88 * MM, 63 * MM)),  # two sideways cards
             (5, PieceSpec(25 * MM, 25 * MM, has_back=False))]  # a few tokens, no backs
    blocks = []
    for owner, (n, spec) in enumerate(specs):
        pages = impose(n, spec, opts)
        for i, p in enumerate(pages):
            if p.side == "front":
                back = pages[i + 1] if i + 1 < len(pages) and pages[i + 1].side == "back" else None
                blocks.append(Block(owner, p, back))
    return blocks, opts


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[0] + b[2] - 1e-6 and b[0] < a[0] + a[2] - 1e-6 and a[1] < b[1] + b[3] - 1e-6 \
        and b[1] < a[1] + a[3] - 1e-6


def _crosses(cut: object, box: Box) -> bool:
    x1, y1, x2, y2 = cut.x1, cut.y1, cut.x2, cut.y2  # type: ignore[attr-defined]
    seg = (min(x1, x2), min(y1, y2), max(abs(x2 - x1), 1e-9), max(abs(y2 - y1), 1e-9))
    return _overlap(seg, box)


@pytest.mark.parametrize("duplex", ["long", "short", "none"])
def test_partial_sheets_share_a_sheet(duplex: str) -> None:
    blocks, opts = _blocks(duplex)
    full = blocks[0]
    cands = candidates(blocks, opts)
    assert full not in cands and len(cands) == 3  # the full deck sheet stays as it is
    sheets, alone = gang(cands, opts)
    assert len(sheets) == 1 and alone == []
    (sheet,) = sheets
    assert [p.side for p in sheet.pages] == (["front", "back"] if duplex != "none" else ["front"])
    front = sheet.pages[0]
    pw, ph = opts.paper.width, opts.paper.height
    assert len(front.slots) == 2 + 2 + 5
    boxes = [s.bleed_box for s in front.slots]
    for i, a in enumerate(boxes):  # nothing overlaps, everything within the margins
        assert a[0] >= opts.margin - 1e-6 and a[1] >= opts.margin - 1e-6
        assert a[0] + a[2] <= pw - opts.margin + 1e-6 and a[1] + a[3] <= ph - opts.margin + 1e-6
        assert not any(_overlap(a, b) for b in boxes[i + 1:])
    for page in sheet.pages:  # no cut line or tick runs through a piece
        for cut in page.cuts:
            assert not any(_crosses(cut, s.bleed_box) for s in page.slots), cut
    seps = [c for c in front.cuts if c.x1 == 0 and c.x2 == pw]
    assert len(seps) == 2  # three blocks, two separation lines across the sheet
    if duplex == "none":
        return
    back = sheet.pages[1]
    assert len(back.slots) == 2 + 2  # the tokens have no backs
    # every back is behind its front: mirrored about the flip edge
    fronts = [s for s in front.slots if s.w != 25 * MM]
    for f, b in zip(fronts, back.slots, strict=True):
        if duplex == "long":
            assert (b.x, b.y) == pytest.approx((pw - f.x - f.w, f.y))
        else:
            assert (b.x, b.y) == pytest.approx((f.x, ph - f.y - f.h))


def test_a_block_alone_keeps_its_sheet() -> None:
    blocks, opts = _blocks("long")
    sheets, alone = gang([blocks[1]], opts)
    assert sheets == [] and alone == [blocks[1]]


def test_pages_that_cannot_be_ganged() -> None:
    blocks, opts = _blocks("long")
    b = blocks[1]
    tiled = Block(0, Page(1, "front", b.front.slots, b.front.cuts, label="Part row 1"))
    assert candidates([tiled], opts) == []


@pytest.mark.parametrize("duplex", ["long", "short"])
def test_a_block_that_fits_nowhere_whole_is_split_over_the_room_left(duplex: str) -> None:
    """Two decks' last sheets of 2 rows leave room for 2 rows of tokens each; 4 rows of tokens
    fit on neither whole, so they are split (imposed again, 2 rows and 2 rows) over both sheets:
    two sheets, not three, each token once, each back behind its front."""
    opts = SheetOptions(paper=PAPERS["letter"], duplex=duplex)
    card, token = PieceSpec(63 * MM, 88 * MM), PieceSpec(25 * MM, 25 * MM)
    cards = [Block(k, impose(4, card, opts)[0], impose(4, card, opts)[1]) for k in (0, 1)]
    full = impose(100, token, opts)[0].slots
    per_row = sum(1 for s in full if abs(s.y - full[0].y) < 1e-6)
    tokens = impose(4 * per_row, token, opts)
    whole = Block(2, tokens[0], tokens[1])
    lo, hi = opts.margin, opts.paper.height - opts.margin
    assert height(cards[0], opts) + height(whole, opts) > hi - lo  # it fits beside neither deck whole

    def split(b: Block, room: float) -> tuple[Block, Block] | None:
        n = len(b.front.slots)
        for k in range(n - per_row, 0, -per_row):
            head = impose(k, token, opts)
            if height(Block(2, head[0], head[1]), opts) <= room:
                tail = impose(n - k, token, opts)
                renumber = {s.piece: s.piece + k for s in tail[0].slots}
                tail = tuple(replace(p, slots=tuple(replace(s, piece=renumber[s.piece]) for s in p.slots))
                             for p in tail)
                return Block(2, head[0], head[1]), Block(2, tail[0], tail[1])
        return None

    assert gang([*cards, whole], opts) == ([], [*cards, whole])  # unsplit: three sheets as they were
    sheets, alone = gang([*cards, whole], opts, split=split)
    assert len(sheets) == 2 and alone == []
    placed = sorted(s.piece for g in sheets for s in g.pages[0].slots if g.blocks and s.w == 25 * MM)
    assert placed == list(range(4 * per_row))
    pw, ph = opts.paper.width, opts.paper.height
    for g in sheets:
        front, back = g.pages
        boxes = [s.bleed_box for s in front.slots]
        assert not any(_overlap(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
        assert all(a[1] >= opts.margin - 1e-6 and a[1] + a[3] <= opts.paper.height - opts.margin + 1e-6 for a in boxes)
        by_piece = {(s.w, s.piece): s for s in front.slots}
        for b in back.slots:
            f = by_piece[(b.w, b.piece)]
            want = (pw - f.x - f.w, f.y) if duplex == "long" else (f.x, ph - f.y - f.h)
            assert (b.x, b.y) == pytest.approx(want)
        for cut in front.cuts:
            assert not any(_crosses(cut, s.bleed_box) for s in front.slots), cut


def test_a_tiled_part_may_take_company() -> None:
    """A part of a board tiled over pages (its label saying which) is a block like any other."""
    opts = SheetOptions(paper=PAPERS["letter"], duplex="long")
    parts = impose(1, PieceSpec(320 * MM, 320 * MM, has_back=False), opts)
    assert parts[0].label and parts[0].slots[0].part is not None
    block = Block(0, parts[0])
    assert candidates([block], opts) == [block]
    tokens = impose(10, PieceSpec(16 * MM, 16 * MM, has_back=False), opts)
    sheets, alone = gang([block, Block(1, tokens[0])], opts)
    assert len(sheets) == 1 and alone == []
    front = sheets[0].pages[0]
    assert {m.kind for m in front.marks} >= {"glue", "align"}
    for cut in front.cuts:
        assert not any(_crosses(cut, s.bleed_box) for s in front.slots), cut


@pytest.mark.parametrize("duplex", ["long", "short"])
def test_lines_of_one_class(duplex: str) -> None:
    """Poker cards of three colour classes on Letter, abutting top to bottom only: columns of one
    class (9 to a sheet, where gutters both ways fit 6), short runs sharing a column across an
    empty cell; no two cards of different classes share a cut line, and a card next to an empty
    cell has its bleed there; backs behind their fronts."""
    opts = SheetOptions(PAPERS["letter"], duplex=duplex, abut_lr=False, abut_tb=True)
    classes = [list(range(0, 7)), list(range(7, 11)), [11]]  # 7 + 4 + 1 cards
    pages = line_sheets(classes, [], PieceSpec(63 * MM, 88 * MM), opts)
    assert pages is not None
    fronts = [p for p in pages if p.side == "front"]
    assert [len(p.slots) for p in fronts] == [9, 3]
    assert sorted(sl.piece for p in fronts for sl in p.slots) == list(range(12))
    cls = {i: k for k, c in enumerate(classes) for i in c}
    b = opts.bleed
    for page in fronts:
        for s in page.slots:
            assert s.bleed.left == s.bleed.right == b  # gutters between columns
            for t in page.slots:
                if abs(s.x - t.x) < 1e-6 and abs(s.y - (t.y + t.h)) < 1e-6:  # t right below s: they abut
                    assert cls[s.piece] == cls[t.piece] and s.bleed.bottom == t.bleed.top == 0
            below = [t for t in page.slots if abs(s.x - t.x) < 1e-6 and t.y < s.y]
            if not any(abs(s.y - (t.y + t.h)) < 1e-6 for t in below) and s.y > min(t.y for t in page.slots) + 1:
                assert s.bleed.bottom == b  # the cell below is empty
    # 7 = 3 + 3 + 1, 4 = 3 + 1 and 1: two single cards of two classes share a column of three, an
    # empty cell apart; the third begins the next column
    cols: dict[float, list[Slot]] = {}
    for sl in fronts[1].slots:
        cols.setdefault(round(sl.x, 3), []).append(sl)
    two = next(c for c in cols.values() if len(c) == 2)
    assert len(cols) == 2 and cls[two[0].piece] != cls[two[1].piece]
    assert abs(two[0].y - two[1].y) == pytest.approx(2 * 88 * MM)
    for i, page in enumerate(pages):
        if page.side == "back":
            front = {sl.piece: sl for sl in pages[i - 1].slots}
            pw, ph = opts.paper.width, opts.paper.height
            for sl in page.slots:
                f = front[sl.piece]
                want = (pw - f.x - f.w, f.y) if duplex == "long" else (f.x, ph - f.y - f.h)
                assert (sl.x, sl.y) == pytest.approx(want)


def test_lines_need_one_abutting_axis() -> None:
    apart = SheetOptions(PAPERS["letter"], abut_lr=False, abut_tb=False)  # gutters both ways
    assert line_sheets([[0, 1]], [], PieceSpec(63 * MM, 88 * MM), apart) is None


@pytest.mark.parametrize("duplex", ["long", "short"])
def test_lines_in_segments(duplex: str) -> None:
    """40 mm tiles on universal paper abut top to bottom in columns of 6; a column has room for 4
    gutters of its own. 5 tiles of one class and a tile unlike even itself, 4 times over (24
    tiles), fill one sheet: the odd tile alone in a segment, the 5 abutting in the next; every
    column with the same segments (each cut line runs across the sheet); no two tiles of
    different classes or an odd tile share a cut line; backs behind fronts."""
    opts = SheetOptions(PAPERS["universal"], duplex=duplex, abut_lr=False, abut_tb=True, margin=5 * MM,
                        min_outer_bleed=2 * MM)
    classes = [list(range(k * 5, k * 5 + 5)) for k in range(4)]
    alone = list(range(20, 24))
    piece = PieceSpec(40 * MM, 40 * MM)
    lined = line_sheets(classes, alone, piece, opts)  # a line to each odd tile: more than a sheet
    assert lined is not None and len([p for p in lined if p.side == "front"]) > 1
    pages = segment_sheets(classes, alone, piece, opts)
    assert pages is not None
    fronts = [p for p in pages if p.side == "front"]
    assert [len(p.slots) for p in fronts] == [24]
    front = fronts[0]
    assert sorted(sl.piece for sl in front.slots) == list(range(24))
    cls = {i: k for k, c in enumerate(classes) for i in c}
    ys = {round(sl.y, 3) for sl in front.slots}
    assert len(ys) == 6  # the same segments in every column
    for s in front.slots:
        lo, hi = s.bleed_box[1], s.bleed_box[1] + s.bleed_box[3]
        assert opts.margin - 1e-6 <= lo and hi <= opts.paper.height - opts.margin + 1e-6
        for t in front.slots:
            if abs(s.x - t.x) < 1e-6 and abs(s.y - (t.y + t.h)) < 1e-6:  # t right below s: they abut
                assert s.piece not in alone and cls[s.piece] == cls[t.piece] == cls.get(t.piece)
                assert s.bleed.bottom == t.bleed.top == 0
    for cut in front.cuts:
        assert not any(_crosses(cut, s.bleed_box) for s in front.slots), cut
    back = pages[1]
    pw, ph = opts.paper.width, opts.paper.height
    where = {sl.piece: sl for sl in front.slots}
    for sl in back.slots:
        f = where[sl.piece]
        assert (sl.x, sl.y) == pytest.approx((pw - f.x - f.w, f.y) if duplex == "long" else (f.x, ph - f.y - f.h))


def test_segments_need_room_for_a_gutter() -> None:
    """Poker cards on Letter abut in columns of 3 (270 mm): no room for a gutter within one."""
    opts = SheetOptions(PAPERS["letter"], abut_lr=False, abut_tb=True)
    assert segment_sheets([[0, 1], [2]], [], PieceSpec(63 * MM, 88 * MM), opts) is None


def test_a_low_sheet_turns_a_wide_piece_flat() -> None:
    """A 120 x 70 mm card, which a grid turns on universal paper (4 to a sheet), lies flat when
    it is alone: its band is 70 mm and its bleed, not 120."""
    opts = SheetOptions(PAPERS["universal"], margin=5 * MM, min_outer_bleed=2 * MM)
    piece = PieceSpec(120 * MM, 70 * MM)
    assert impose(1, piece, opts)[0].slots[0].rotation == 90
    pages = low_sheet(1, piece, opts)
    assert pages is not None and [p.side for p in pages] == ["front", "back"]
    s = pages[0].slots[0]
    assert s.rotation == 0 and s.bleed_box[3] == pytest.approx((70 + 6) * MM)
    assert pages[1].slots[0].x == pytest.approx(opts.paper.width - s.x - s.w)


def test_the_emptiest_sheet_is_emptied_into_the_others() -> None:
    """Rows of 25 mm tokens (8 to a row) on Letter, tallest first: 8 rows, 8 rows, 5 rows, 3 rows
    (which may be split by rows) and 2 rows. First fit puts the 5 and 3 rows together and the 2
    rows on a fourth sheet; then the 5 rows move to that sheet and the 3 rows go in parts where
    there is room left (2 rows with them, 1 under the first 8 rows): three sheets, one of them
    the second 8 rows' own."""
    opts = SheetOptions(PAPERS["letter"])
    token = PieceSpec(25 * MM, 25 * MM, has_back=False)

    def rows(owner: int, n: int) -> Block:
        return Block(owner, impose(8 * n, token, opts)[0], None)

    blocks = [rows(0, 8), rows(1, 8), rows(2, 5), rows(3, 3), rows(4, 2)]

    def split(b: Block, free: float) -> tuple[Block, Block] | None:
        n = len(b.front.slots)
        for k in range(n - 8, 0, -8) if b.owner == 3 else ():
            head = rows(3, k // 8)
            if height(head, opts) <= free + 1e-6:
                return head, rows(3, (n - k) // 8)
        return None

    room = opts.paper.height - 2 * opts.margin
    assert 2 * height(blocks[0], opts) > room  # the 8 rows share with no other block of 3 rows or more
    sheets, alone = gang(blocks, opts, 0.0, split)
    assert [b.owner for b in alone] == [1] and len(sheets) == 2
    on = sorted(sorted(b.owner for b in g.blocks) for g in sheets)
    assert on == [[0, 3], [2, 3, 4]]
    assert sum(len(b.front.slots) for g in sheets for b in g.blocks if b.owner == 3) == 24
    for g in sheets:
        for cut in g.pages[0].cuts:
            assert not any(_crosses(cut, s.bleed_box) for s in g.pages[0].slots), cut


def test_many_blocks_that_share_no_sheet_cost_few_tries() -> None:
    """Attack 10 F1: 200 boards tiled over several pages leave hundreds of parts too tall to
    share a sheet, and every one was offered to every sheet begun, in parts and whole (200
    boards: over 9 minutes of CPU). A block whose first part fits not even on the emptiest sheet
    is now given up at once: the tries grow with the blocks, not with their square, and the
    answer is the one a try of every sheet gives (each block alone)."""
    opts = SheetOptions(PAPERS["letter"])
    token = PieceSpec(25 * MM, 25 * MM, has_back=False)
    blocks = [Block(k, impose(8 * 6, token, opts)[0], None) for k in range(300)]  # 6 rows: two fit no sheet
    room = opts.paper.height - 2 * opts.margin
    assert 2 * height(blocks[0], opts) > room
    tries = {"n": 0}

    def split(b: Block, free: float) -> tuple[Block, Block] | None:
        tries["n"] += 1
        return None  # as for a tiled part

    sheets, alone = gang(blocks, opts, 0.0, split)
    assert sheets == [] and alone == blocks
    assert tries["n"] <= 2 * len(blocks), tries  # was 300 * 299 / 2 and more
