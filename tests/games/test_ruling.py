"""Ruling gaps on the reference sheets (issue 23): read back from the built PDFs (one piece a page,
no bleed, so the page is the trim), every ruled section ends the same distance above the next
heading (from the bottom of its last line to the top of the heading's letters), in every column and
on every face, and that gap also parts the last section from a legend box below it. Read the same
way, the sheets before this change had gaps of 15.1 and 19.4 mm (Golems, left column), 11.1, 13.9
and 12.8 (right), and 3.1 (Cauldron front) against 6.8 and 7.3 (back)."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path
from typing import Any

import pdfplumber
import pytest
from conftest import Bundled

from pnp.plan.options import BuildOptions
from pnp.units import MM

SHOP = BuildOptions(print_shop=True, bleed_mm=0)


def sections(page: Any, head_font: str, min_rule_mm: float, stop_mm: float) -> dict[int, list[tuple[float, float]]]:
    """Per column (its rules' left edge, mm): for each ruled section (a rule with a heading in
    ``head_font`` just above it), (top of the heading's letters, bottom of its last body line), in mm
    from the top of the page; the sections end at ``stop_mm`` (a legend box, the foot)."""
    stop = stop_mm * MM
    rules = [ln for ln in page.lines if abs(ln["top"] - ln["bottom"]) < 0.5 and ln["x1"] - ln["x0"] > min_rule_mm * MM]
    words = page.extract_words(extra_attrs=["fontname"])
    cols: dict[int, list[Any]] = {}
    for ln in rules:
        cols.setdefault(round(ln["x0"] / MM), []).append(ln)
    out = {}
    for x, lns in sorted(cols.items()):
        lns.sort(key=lambda ln: ln["top"])
        x0, x1 = lns[0]["x0"] - 1, lns[0]["x1"] + 1
        mine = [w for w in words if w["x0"] >= x0 and w["x1"] <= x1]
        rows = []
        for i, ln in enumerate(lns):
            below = lns[i + 1]["top"] if i + 1 < len(lns) else stop
            head = [w["top"] for w in mine
                    if head_font in w["fontname"] and ln["top"] - 5 * MM < w["bottom"] <= ln["top"]]
            body = [w["bottom"] for w in mine if head_font not in w["fontname"] and ln["top"] < w["top"] < below]
            if head:
                rows.append((min(head) / MM, max(body) / MM))
        if rows:
            out[x] = rows
    return out


def gaps(rows: list[tuple[float, float]]) -> list[float]:
    return [nxt[0] - cur[1] for cur, nxt in pairwise(rows)]


@pytest.fixture(scope="module")
def golems_ref(bundled: Bundled) -> Path:
    return bundled.built("golems", SHOP).paths["reference"]


@pytest.fixture(scope="module")
def cauldron_ref(bundled: Bundled) -> Path:
    return bundled.built("cauldron", SHOP).paths["reference"]


def test_golems_reference_gaps_are_even(golems_ref: Path) -> None:
    with pdfplumber.open(golems_ref) as pdf:
        page = pdf.pages[0]
        legend = [r for r in page.rects + page.curves if (r["x1"] - r["x0"]) / MM > 170 and r["top"] / MM > 150]
        assert len(legend) == 1  # the icon legend across the foot
        cols = sections(page, "Vollkorn-Bold", 30, legend[0]["top"] / MM)
    assert [len(rows) for rows in cols.values()] == [3, 4]  # setup, turn, costs | battle, movement, stacking, control
    all_gaps = [g for rows in cols.values() for g in gaps(rows)]
    assert len(all_gaps) == 5
    assert max(all_gaps) - min(all_gaps) < 0.3, all_gaps
    ends = [rows[-1][1] for rows in cols.values()]
    assert abs(ends[0] - ends[1]) < 0.3  # both columns end on one line
    assert legend[0]["top"] / MM - max(ends) == pytest.approx(sum(all_gaps) / len(all_gaps), abs=0.3)


def test_cauldron_reference_gaps_are_even_on_both_faces(cauldron_ref: Path) -> None:
    with pdfplumber.open(cauldron_ref) as pdf:
        box = [r for r in pdf.pages[1].rects + pdf.pages[1].curves
               if 50 < (r["x1"] - r["x0"]) / MM < 60 and r["top"] / MM > 90]
        assert len(box) == 1  # the LSP / HSP box on the back
        faces = [sections(p, "Berenika-Bold", 40, stop) for p, stop in zip(pdf.pages, [120, box[0]["top"] / MM],
                                                                               strict=True)]
    assert len(faces) == 2 and all(len(f) == 1 for f in faces)
    front, back = (next(iter(f.values())) for f in faces)
    assert len(front) == len(back) == 2  # Harvest Season, Your turn | Market Season, Winning the Game
    all_gaps = gaps(front) + gaps(back)
    assert max(all_gaps) - min(all_gaps) < 0.3, all_gaps
    assert box[0]["top"] / MM - back[-1][1] == pytest.approx(all_gaps[0], abs=0.3)



def test_time_capsules_mat_action_rows_are_evenly_spaced(bundled: Bundled) -> None:
    """The standard-action rows of both halves of a player mat (their formula boxes, 33 x 11.3 mm)
    stand at one pitch in each column: 4 rows on the active half, 3 on the inactive one."""
    with pdfplumber.open(bundled.built("time-capsules", SHOP).paths["mats"]) as pdf:
        page = pdf.pages[0]
        boxes = [r for r in page.rects + page.curves
                 if abs((r["x1"] - r["x0"]) / MM - 33) < 0.2 and abs((r["bottom"] - r["top"]) / MM - 11.3) < 0.2]
    cols: dict[int, list[float]] = {}
    for r in boxes:
        cols.setdefault(round(r["x0"] / MM), []).append(r["top"] / MM)
    tops = [sorted(ys) for _, ys in sorted(cols.items())]
    assert [len(t) for t in tops] == [4, 3]
    pitches = [b - a for t in tops for a, b in pairwise(t)]
    assert max(pitches) - min(pitches) < 0.05, pitches
