"""The shared cut lines of a page (pnp.qa.miscut.shared_lines) found through a grid of the slots'
neighbours are exactly those the comparison of every pair of slots found (attack 7, F9: a page of
2,000 small tokens is 2 million pairs): same pairs, same segments, same order."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pnp.impose.hex import hex_outline
from pnp.impose.sheet import Edges, Page, Slot
from pnp.input.project import DataRoot, bundled_root
from pnp.layout.edges import MISCUT_MM
from pnp.plan.options import BuildOptions
from pnp.plan.session import Session
from pnp.qa.check import check
from pnp.qa.miscut import TOUCH, _bleed_toward, _common, lines_of, shared_lines, touching
from pnp.units import MM


def pairwise_lines(page: Page) -> list[tuple[int, int, tuple[tuple[float, float], tuple[float, float]]]]:
    """shared_lines as it was before the grid: every pair of slots compared."""
    out = []
    slots = page.slots
    for i, a in enumerate(slots):
        for j in range(i + 1, len(slots)):
            b = slots[j]
            for seg in _common(a, b):
                if min(_bleed_toward(a, *seg), _bleed_toward(b, *seg)) < MISCUT_MM * MM - 1e-6:
                    out.append((i, j, seg))
    return out


def page_of(slots: list[Slot]) -> Page:
    return Page(1, "front", tuple(slots), ())


# offsets around TOUCH (0.01 pt), where a pair stops sharing a line
NUDGE = st.sampled_from([0.0, 0.0, 0.0, 0.004, -0.004, 0.009, -0.011, 0.02, -0.3, 1.5])
BLEED = st.sampled_from([0.0, 0.0, 0.5 * MM, 3 * MM])


@st.composite
def grids(draw: st.DrawFn) -> Page:
    """Rectangles in a grid, abutting or a gutter apart, each nudged; some with a clip."""
    cols, rows = draw(st.integers(1, 7)), draw(st.integers(1, 7))
    w, h = draw(st.sampled_from([14.17, 63 * MM, 5 * MM, 0.5])), draw(st.sampled_from([14.17, 88 * MM, 3.0]))
    gap = draw(st.sampled_from([0.0, 0.0, 0.005, 0.02, 6 * MM]))
    slots = []
    for r in range(rows):
        for c in range(cols):
            x = 20 + c * (w + gap) + draw(NUDGE)
            y = 30 + r * (h + gap) + draw(NUDGE)
            sw, sh = w + draw(NUDGE), h + draw(NUDGE)
            bleed = Edges(draw(BLEED), draw(BLEED), draw(BLEED), draw(BLEED))
            clip = hex_outline(x, y, sw, sh) if draw(st.booleans()) and draw(st.booleans()) else None
            slots.append(Slot(len(slots), "front", x, y, sw, sh, bleed, clip=clip))
    order = draw(st.permutations(range(len(slots))))
    return page_of([slots[k] for k in order])


@st.composite
def honeycombs(draw: st.DrawFn) -> Page:
    """Hex tiles in interlocking rows (pointy or flat), a few of them nudged."""
    w, h = draw(st.sampled_from([(50.0, 57.735), (57.735, 50.0), (20.0, 23.09)]))
    cols, rows = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    slots = []
    for r in range(rows):
        for c in range(cols):
            if h >= w:
                x, y = c * w + (w / 2 if r % 2 else 0), r * 0.75 * h
            else:
                x, y = c * 0.75 * w, r * h + (h / 2 if c % 2 else 0)
            x, y = x + draw(NUDGE) / 10, y + draw(NUDGE) / 10
            slots.append(Slot(len(slots), "front", x, y, w, h, Edges(0, 0, 0, 0), clip=hex_outline(x, y, w, h)))
    return page_of(slots)


@st.composite
def scattered(draw: st.DrawFn) -> Page:
    """Rectangles of mixed sizes placed side by side in rows (a gang sheet), some touching."""
    slots = []
    y = 0.0
    for _ in range(draw(st.integers(1, 4))):
        x, tallest = 0.0, 0.0
        for _ in range(draw(st.integers(1, 6))):
            w, h = draw(st.sampled_from([3.0, 14.17, 70.0, 180.0])), draw(st.sampled_from([3.0, 14.17, 99.0]))
            slots.append(Slot(len(slots), "front", x, y, w, h, Edges(0, 0, 0, 0)))
            x += w + draw(st.sampled_from([0.0, 0.0, 0.008, 9.0]))
            tallest = max(tallest, h)
        y += tallest + draw(st.sampled_from([0.0, 0.0, 0.008, 9.0]))
    return page_of(slots)


@settings(max_examples=200, deadline=None)
@given(st.one_of(grids(), honeycombs(), scattered()))
def test_shared_lines_equal_every_pair_compared(page: Page) -> None:
    assert shared_lines(page) == pairwise_lines(page)


@settings(max_examples=100, deadline=None)
@given(st.one_of(grids(), honeycombs(), scattered()))
def test_touching_holds_every_pair_that_shares_a_line(page: Page) -> None:
    pairs = touching(page.slots)
    assert pairs == sorted(set(pairs)) and all(i < j for i, j in pairs)
    near = set(pairs)
    for i, a in enumerate(page.slots):
        for j in range(i + 1, len(page.slots)):
            if _common(a, page.slots[j]):
                assert (i, j) in near


def test_a_page_of_small_tokens_compares_neighbours_only() -> None:
    """40 x 55 tokens of 5 mm abutting: each compared with its 8 neighbours at most, not all 2,199
    others, and every one of the 4,305 lines they share found."""
    w = 5 * MM
    slots = [Slot(k, "front", 20 + c * w, 20 + r * w, w, w, Edges(0, 0, 0, 0))
             for k, (r, c) in enumerate((r, c) for r in range(55) for c in range(40))]
    page = page_of(slots)
    assert len(touching(page.slots)) <= 4 * len(slots)
    found = shared_lines(page)
    assert len(found) == 39 * 55 + 40 * 54
    assert all(math.isclose(abs(q[0] - p[0]) + abs(q[1] - p[1]), w) for _, _, (p, q) in found)


def test_lines_of_pages_with_one_arrangement_are_found_once_and_equal() -> None:
    w = 5 * MM
    slots = tuple(Slot(k, "front", c * w, 0.0, w, w, Edges(0, 0, 0, 0)) for k, c in enumerate(range(6)))
    pages = [Page(n, "front", slots, ()) for n in (1, 2)] + [Page(3, "front", slots[:3], ())]
    lines = lines_of(pages)
    assert lines == [shared_lines(p) for p in pages]
    assert lines[0] is lines[1] and len(lines[0]) == 5 and len(lines[2]) == 2


@pytest.mark.slow
def test_the_bundled_games_pages_give_the_same_lines_as_every_pair() -> None:
    """Every page of every component of the bundled games, with their honeycombs and gang-free
    sheets, in the default build and with no bleed (more pieces abut)."""
    root = DataRoot(bundled_root())
    s = Session(root)
    total = 0
    for bleed in (None, 0.0):
        opts = BuildOptions() if bleed is None else BuildOptions(bleed_mm=bleed)
        for game in root.game_ids():
            gc = check(root, game, opts, s)
            for plan in gc.plans:
                for page in plan.pages:
                    found = shared_lines(page)
                    assert found == pairwise_lines(page)
                    total += len(found)
    assert total > 0
    assert TOUCH < 1.0  # touching's reach is far wider than the tolerance of a shared line
