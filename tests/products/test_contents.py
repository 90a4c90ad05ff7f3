"""The contents PDF read back: with hostile but legal data (attack 20, F3: 200 components, long
titles, long not_printed entries) no text lies off the page or across a column of its table, and
the assembly page goes on over further pages with every section, "Put together" last."""

from __future__ import annotations

import bisect
from pathlib import Path
from typing import Any

import pdfplumber
import pytest
from msgspec.structs import replace

from pnp.impose.sheet import PAPERS
from pnp.input.project import DataRoot, bundled_root
from pnp.plan.options import BuildOptions
from pnp.plan.session import Session
from pnp.products.contents import NOT_PRINTED_COLUMNS, SETTINGS_LABEL, TABLE_COLUMNS, render_contents
from pnp.qa.check import check
from pnp.units import MM

ROOT = DataRoot(bundled_root())
MARGIN = 15 * MM
SECTIONS = ("Print", "Double-sided", "Cut", "Put together")


def _runs(page: Any) -> list[tuple[float, float, float, float, str]]:
    """The page's text runs: characters in drawing order that continue one another on one line
    (what pnp draws as one text), each as (x0, top, x1, bottom, text)."""
    out: list[list[dict]] = []
    for ch in page.chars:
        last = out[-1][-1] if out else None
        if last is None or abs(ch["top"] - last["top"]) > 0.01 or abs(ch["x0"] - last["x1"]) > 0.5:
            out.append([])
        out[-1].append(ch)
    return [(min(c["x0"] for c in r), min(c["top"] for c in r), max(c["x1"] for c in r),
             max(c["bottom"] for c in r), "".join(c["text"] for c in r)) for r in out]


def _contents(tmp_path: Path, title: Any, not_printed: int = 0, name: Any = None, copies: int = 20,
              bleed: Any = None) -> list[list[tuple]]:
    """The contents PDF of Golems' plans x ``copies`` (20: 200 components, the most a game has)
    titled ``title(i)``, with ``bleed(i)`` mm of bleed, and ``not_printed`` entries named
    ``name(i)``: each page's text runs."""
    gc = check(ROOT, "golems", BuildOptions(paper="letter"), Session(ROOT))
    plans = [replace(p, component=replace(p.component, title=title(i)),
                     sheet=p.sheet if bleed is None else replace(p.sheet, bleed=bleed(i) * MM))
             for i, p in enumerate(gc.plans * copies)]
    game = gc.game
    if not_printed:
        entry = game.not_printed[0]
        game = replace(game, not_printed=tuple(replace(entry, name=name(i), quantity=("Q" * 380 if i % 2 else
                                                                                       "two dice of wood " * 22))
                                               for i in range(not_printed)))
    path = tmp_path / "c.pdf"
    path.write_bytes(render_contents(game, plans, gc.opts))
    with pdfplumber.open(path) as pdf:
        assert all((p.width, p.height) == (PAPERS["letter"].width, PAPERS["letter"].height) for p in pdf.pages)
        return [_runs(p) for p in pdf.pages]


def _inside_the_page(pages: list[list[tuple]]) -> None:
    """Every text within the page's margins across, within the page up and down; no two overlap."""
    w, h = PAPERS["letter"].width, PAPERS["letter"].height
    for n, runs in enumerate(pages, 1):
        for x0, top, x1, bottom, text in runs:
            assert x0 >= MARGIN - 0.01 and x1 <= w - MARGIN + 0.01, (n, x0, x1, text[:40])
            assert top >= 0 and bottom <= h, (n, top, bottom, text[:40])
        boxes = sorted(runs)
        for i, a in enumerate(boxes):  # sorted by x0: only the runs starting left of a's end can meet it
            for b in boxes[i + 1:]:
                if b[0] >= a[2] - 0.3:
                    break
                assert not (a[1] < b[3] - 0.3 and b[1] < a[3] - 0.3), (n, a, b)


def _within_columns(pages: list[list[tuple]]) -> int:
    """Every text in the contents table lies in one of its columns, and every text in the
    not-printed table in one of its; returns how many texts were checked."""
    w, h = PAPERS["letter"].width, PAPERS["letter"].height
    width = w - 2 * MARGIN
    table = [MARGIN]
    for _, share, _ in TABLE_COLUMNS:
        table.append(table[-1] + width * share)
    not_printed = [MARGIN, MARGIN + width * NOT_PRINTED_COLUMNS[0], MARGIN + width * sum(NOT_PRINTED_COLUMNS),
                   w - MARGIN]
    settings = [MARGIN, MARGIN + width * SETTINGS_LABEL, w - MARGIN]
    cols: list[float] | None = None
    checked = 0
    for runs in pages:
        if any("printing and assembly" in r[4] for r in runs):
            break  # the assembly pages
        for x0, _, x1, bottom, text in sorted(runs, key=lambda r: (r[1], r[0])):
            if bottom > h - MARGIN or text.startswith("Contents sheet, continued"):
                continue  # the footer, a continued page's first line
            if text.startswith(("COMPONENT", "Print settings", "Not printed")):
                cols = {"C": table, "P": settings, "N": not_printed}[text[0]]
                continue
            if cols is None:
                continue  # page 1's title
            k = bisect.bisect_right(cols, x0 + 0.01) - 1
            assert 0 <= k < len(cols) - 1 and x1 <= cols[k + 1] + 0.01, (text[:40], x0, x1, cols)
            checked += 1
    return checked


def _printed(pages: list[list[tuple]]) -> str:
    """The contents pages' texts in drawing order (a cell's lines one after another), without
    blanks and the continued pages' first lines: a text wrapped, broken over lines or split over
    pages reads as it was given."""
    out = []
    for runs in pages:
        if any("printing and assembly" in r[4] for r in runs):
            break
        out.extend(r[4] for r in runs if r[4] != "Contents sheet, continued")
    return "".join("".join(out).split())


def test_the_assembly_page_goes_on_over_more_pages(tmp_path: Path) -> None:
    """200 components titled with 60 characters: the assembly page names them all under Print and
    Double-sided; it ran 15 lines off its page's bottom, "Put together" among them (F3). The
    settings' Bleed row names each component whose bleed is not the build's (here 190): a row
    taller than a page, split between its lines over pages."""
    pages = _contents(tmp_path, lambda i: (f"Component number {i} with a longer title " * 3)[:60],
                      bleed=lambda i: 3 if i < 10 else 0)
    _inside_the_page(pages)
    texts = ["\n".join(r[4] for r in runs) for runs in pages]
    first = next(n for n, t in enumerate(texts) if "Golems: printing and assembly" in t)
    assembly = texts[first:]
    assert len(assembly) >= 2 and all("Printing and assembly, continued" in t for t in assembly[1:])
    lines = [ln for t in assembly for ln in t.splitlines()]
    assert [ln for ln in lines if ln in SECTIONS] == list(SECTIONS)  # each heading once, in order
    # "Put together": how to join each copy of Golems' map, and the reference sheets, last of all
    assert lines.index("Put together") < next(n for n, ln in enumerate(lines) if "2 x 2 parts, labelled" in ln)
    assert lines[-1].endswith("nothing to cut.")
    said = " ".join(" ".join(assembly).split())
    assert all(f"Component number {i} with" in said for i in range(200))
    assert _within_columns(pages) >= 200
    for runs in pages:  # every page of the table starts with its header row
        rows = [r[1] for r in runs if ".pdf" in r[4]]
        if rows and not any("printing and assembly" in r[4] for r in runs):
            assert any(r[4] == "COMPONENT" and r[1] < min(rows) for r in runs)
    printed = _printed(pages)
    titles = [(f"Component number {i} with a longer title " * 3)[:60] for i in range(200)]
    assert all("".join(title.split()) in printed for title in titles)
    bleeds = "; ".join(f"{t}: none" for t in titles[10:])
    assert f"Bleed3mmofartbeyondeverycutedge({''.join(bleeds.split())})Cutting" in printed  # whole, in order


@pytest.mark.parametrize("word", ["one-word", "words", "no-break"])
def test_long_titles_stay_in_their_column(tmp_path: Path, word: str) -> None:
    """200-character titles on every other component, of one word or of many, and not_printed
    names and quantities of ~380 characters: a word too wide for its column shrank to 60 % and
    still ran over the next columns and off the page (x up to 1,119 pt). Now each text is wrapped
    in its column at its size, a word too long for it broken between letters; words joined by
    no-break spaces are one word to the wrapping, and broken as one (attack 23, F1)."""
    def title(i: int) -> str:
        if i % 2 == 0:
            return f"Card {i}"
        many = (f"Component {i} with a much longer title " * 6)[:200]
        return {"one-word": "W" * 200, "words": many, "no-break": many.replace(" ", "\u00a0")}[word]

    def name(i: int) -> str:
        return f"Thing{i} " + "M" * (300 if word == "one-word" else 10) + " x" * 30

    pages = _contents(tmp_path, title, 12, name, copies=4)
    _inside_the_page(pages)
    assert _within_columns(pages) >= 40 + 12
    printed = _printed(pages)
    assert all("".join(title(i).split()) in printed for i in range(40))  # every title whole, none cut
    assert all("".join(name(i).split()) in printed for i in range(12))
    assert any(r[4] == "Put together" for runs in pages for r in runs)
    assert any(r[4].endswith("): nothing to cut.") for r in pages[-1])  # its last words, on the last page
