"""Ganged sheets: mostly empty sheets share one, each back still behind its front, cut ticks
and separation lines clear of every piece."""

from __future__ import annotations

import pytest

from pnp.impose.gang import Block, candidates, gang
from pnp.impose.grid import impose
from pnp.impose.sheet import PAPERS, Page, PieceSpec, SheetOptions
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
