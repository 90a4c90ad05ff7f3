"""Every bundled game, one suite: its rulebook rules pass (through the library and ``pnp check``),
a copy of its data alone passes, every piece lays out without warnings and prints with glyphs its
fonts have, every document quote is in the rulebook text, and the build writes a PDF per component
whose pages, page sizes, pieces, backs and fonts read back as the model has them (on sheets and
one piece per page). Mutated copies of the data: test_mutations.py.

The games come from ``DataRoot(bundled_root()).game_ids()``: a new bundled game is in every
generic test here at once. What is particular to one game lives in the table ``FACTS`` (its
components, how many rules and quotes at least, a font its PDF embeds); a game's other particular
assertions are in its own module (test_<game>.py)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from conftest import BUNDLED, GAMES, Bundled, assert_no_traceback, bundled_copy, game_json, rulebook_text, run_cli
from pypdf import PdfReader
from pypdf.generic import ContentStream
from reportlab.pdfbase.ttfonts import TTFontFile

from pnp.impose.sheet import Page
from pnp.layout.primitives import Text
from pnp.plan.component import ComponentPlan, pages_for
from pnp.plan.options import BuildOptions
from pnp.qa.rules import check_game
from pnp.units import MM


class Facts(NamedTuple):
    """What one game's own tests used to pin down, beyond what every game must do."""

    components: tuple[str, ...] = ()  # the component ids, in manifest order
    rules_at_least: int = 1  # rulebook rules
    quotes_more_than: int = 0  # document quotes (rules, bill of materials, items)
    verbatim: bool = False  # quotes are in the document byte for byte, not only up to white space
    fonts: Mapping[str, str] = {}  # component -> a font family its PDF embeds


FACTS: dict[str, Facts] = {
    "golems": Facts(components=("terrain", "golem-deck", "event-deck", "wizard", "board", "chits", "mana",
                                "counters", "status", "reference"), rules_at_least=34),
    "capek-golems": Facts(components=("golem-parts", "game-deck", "track", "summary"), rules_at_least=20,
                          fonts={"game-deck": "OldStandard"}),
    "cauldron": Facts(components=("omens", "basic-potions", "advanced-potions", "basic-spells", "advanced-spells",
                                  "cellars", "characters", "fields", "ingredients", "character-tokens",
                                  "magik-track", "used-tokens", "reference"), rules_at_least=50,
                      quotes_more_than=60),
    "cyberiad": Facts(components=("deck", "constructors", "reference", "fame", "trouble", "genius"), verbatim=True),
    "time-capsules": Facts(components=("artifacts", "bioobjects", "fluctuations", "batteries", "crystals", "breaks",
                                       "computers", "mats", "track", "score-markers", "capsules", "solo"),
                           rules_at_least=50,
                           quotes_more_than=60),
}


def facts(gid: str) -> Facts:
    return FACTS.get(gid, Facts())


# -- the rulebook -------------------------------------------------------------------------------

@pytest.mark.parametrize("gid", GAMES)
def test_every_rule_passes_once_in_manifest_order(bundled: Bundled, gid: str) -> None:
    report = check_game(bundled.game(gid))
    assert report.ok, [o.rule.id for o in report.violations]
    ids = [o.rule.id for o in report.outcomes if o.rule.check != "quoted"]  # the built-in ones come last
    assert ids == [r["id"] for r in game_json(gid, "game.json")["rulebook"]]
    assert len(ids) == len(set(ids)) >= facts(gid).rules_at_least


@pytest.mark.parametrize("strict", [False, True], ids=["plain", "strict"])
@pytest.mark.parametrize("gid", GAMES)
def test_pnp_check_exits_0(gid: str, strict: bool) -> None:
    result = run_cli("check", gid, *(["--strict"] if strict else []))
    assert_no_traceback(result)
    assert result.exit_code == 0, result.stdout + result.stderr


@pytest.mark.parametrize("gid", GAMES)
def test_a_copy_of_the_data_alone_passes(tmp_path: Path, gid: str) -> None:
    """A data root holding only card_data/<game>: templates and fonts fall back to the bundled ones."""
    result = bundled_copy(tmp_path, gid).check("--strict")
    assert_no_traceback(result)
    assert result.exit_code == 0, result.stdout + result.stderr


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", s.replace("**", "")).strip()


@pytest.mark.parametrize("gid", GAMES)
def test_every_document_quote_is_in_the_rulebook(gid: str) -> None:
    """Every quote (rules, bill of materials, items' sources) is in the document's text, up to
    white space and bold marks; a quote may leave words out at ' [...] ' or ' ... '."""
    text = rulebook_text(gid)
    if text is None:
        pytest.skip(f"the rulebook text of {gid} (shared/seeds) is not beside this repository")
    doc = _norm(text)
    manifest = game_json(gid, "game.json")
    quotes = [r["quote"] for r in manifest["rulebook"]]
    quotes += [b["source"]["document"] for b in manifest.get("not_printed", []) if "document" in b["source"]]
    for comp in manifest["components"]:
        quotes += [it["source"]["document"] for it in game_json(gid, comp["data"])["items"]
                   if "document" in it.get("source", {})]
    assert len(quotes) > facts(gid).quotes_more_than
    for q in quotes:
        if facts(gid).verbatim:
            assert q in text, q
        for part in re.split(r" \[\.\.\.\] | \.\.\. ", q):
            assert _norm(part) in doc, part


@cache
def font_file(font: str) -> TTFontFile:
    """A font of the bundled fonts folder, by the name layouts give it (``Lato-Bold``)."""
    return TTFontFile(str(BUNDLED.path / "fonts" / f"{font}.ttf"))


# -- the layout ---------------------------------------------------------------------------------

@pytest.mark.parametrize("gid", GAMES)
def test_every_component_lays_out_without_warnings(bundled: Bundled, gid: str) -> None:
    checked = bundled.checked(gid)
    assert not checked.warnings, [w.message for w in checked.warnings]
    assert [p.component.id for p in checked.plans] == [c.id for c in checked.game.components]
    if facts(gid).components:
        assert [c.id for c in checked.game.components] == list(facts(gid).components)


@pytest.mark.parametrize("gid", GAMES)
def test_every_printed_character_has_a_glyph(bundled: Bundled, gid: str) -> None:
    """A character a font lacks is dropped silently from the PDF (a star on a type line once was)."""
    s = bundled.checked(gid)
    fonts = set()
    missing = set()
    for p in s.plans:
        for piece in {id(x): x for x in (*p.fronts, *p.backs) if x is not None}.values():
            for t in piece.primitives:
                if isinstance(t, Text):
                    fonts.add(t.font)
                    cmap = font_file(t.font).charToGlyph
                    missing |= {(p.component.id, t.font, ch) for ch in t.text if ord(ch) not in cmap}
    assert fonts and not missing


# -- the build, read back -----------------------------------------------------------------------

@pytest.mark.parametrize("gid", GAMES)
def test_build_writes_a_pdf_per_component_and_the_contents(bundled: Bundled, gid: str) -> None:
    b = bundled.built(gid)
    components = [c.id for c in b.checked.game.components]
    assert list(b.written) == components
    for cid, w in b.written.items():
        assert w.path == b.folder / f"{cid}.pdf"
        data = w.path.read_bytes()
        assert data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF"), cid
        assert w.pieces == b.checked.game.component(cid).pieces, cid
    assert (b.folder / f"{gid}-contents.pdf").read_bytes().startswith(b"%PDF-")


Box = tuple[float, float, float, float]


class ReadPage(NamedTuple):
    """A PDF page read back: its media box's size and where it places pieces."""

    width: float
    height: float
    placements: list[Box]


@cache
def read_back(path: Path) -> list[ReadPage]:
    """A built PDF's pages, read once however many tests look at them."""
    reader = PdfReader(path)
    return [ReadPage(float(p.mediabox.width), float(p.mediabox.height), _placements(p, reader)) for p in reader.pages]


def _placements(page: Any, reader: PdfReader) -> list[Box]:
    """The clip boxes (x0, y0, x1, y1, pt) under which the page places its pieces, in drawing
    order: each piece is drawn inside its own top-level ``q ... Q``, clipped to its slot (a
    rectangle, or a hexagon's outline) before anything else; drawings inside a piece clip only
    one level deeper."""
    depth = 0
    pts: list[tuple[float, float]] = []
    out: list[Box] = []
    for operands, op in ContentStream(page.get_contents(), reader).operations:
        if op == b"q":
            depth, pts = depth + 1, []
        elif op == b"Q":
            depth -= 1
        elif depth == 1 and op == b"re":
            x, y, w, h = map(float, operands)
            pts += [(x, y), (x + w, y + h)]
        elif depth == 1 and op in (b"m", b"l"):
            pts.append((float(operands[0]), float(operands[1])))
        elif depth == 1 and op in (b"W", b"W*"):
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            out.append((min(xs), min(ys), max(xs), max(ys)))
            pts = []
    return out


def _slot_boxes(plan: ComponentPlan, page: Page) -> list[tuple[tuple[int, bool], Box]]:
    """The model's pieces on an imposed page: ((piece, a tile part?), its clip box), in drawing order."""
    out = []
    for sl in page.slots:
        if (plan.fronts[sl.piece] if sl.side == "front" else plan.backs[sl.piece]) is None:
            continue
        if sl.clip is not None:
            xs, ys = [p[0] for p in sl.clip], [p[1] for p in sl.clip]
            box = (min(xs), min(ys), max(xs), max(ys))
        else:
            x, y, w, h = sl.bleed_box
            box = (x, y, x + w, y + h)
        out.append(((sl.piece, sl.part is not None), box))
    return out


@pytest.mark.parametrize("gid", GAMES)
def test_sheets_read_back_as_imposed(bundled: Bundled, gid: str) -> None:
    """Each PDF has the imposed pages, each page the paper's size, and on it a piece clipped to
    every slot the model has there: every piece of the component is on a front, and every piece
    with a back on a back page."""
    b = bundled.built(gid)
    for plan in b.checked.plans:
        cid = plan.component.id
        pages = pages_for(plan)
        read = read_back(b.paths[cid])
        assert len(read) == len(pages) == b.written[cid].pages, cid
        on_fronts: set[int] = set()
        on_backs: set[int] = set()
        for pdf_page, page in zip(read, pages, strict=True):
            paper = page.paper or plan.sheet.paper
            assert pdf_page.width == pytest.approx(paper.width, abs=0.01), cid
            assert pdf_page.height == pytest.approx(paper.height, abs=0.01), cid
            want = _slot_boxes(plan, page)
            assert len(pdf_page.placements) == len(want), (cid, page.number)
            for g, (_, w) in zip(pdf_page.placements, want, strict=True):
                assert g == pytest.approx(w, abs=0.01), (cid, page.number)
            (on_fronts if page.side == "front" else on_backs).update(p for (p, _), _ in want)
        assert on_fronts == set(range(plan.component.pieces)), cid
        assert on_backs == {i for i, lay in enumerate(plan.backs) if lay is not None}, cid


@pytest.mark.parametrize("gid", GAMES)
def test_backs_land_behind_their_fronts(bundled: Bundled, gid: str) -> None:
    """Long-edge duplex (the default): each piece's back is placed at its front's place mirrored
    left to right, on the back page that follows."""
    b = bundled.built(gid)
    backs = 0
    for plan in b.checked.plans:
        front: dict[tuple[int, bool], Box] = {}
        for pdf_page, page in zip(read_back(b.paths[plan.component.id]), pages_for(plan), strict=True):
            placed = {key: box for (key, _), box in zip(_slot_boxes(plan, page), pdf_page.placements, strict=True)}
            if page.side == "front":
                front = placed
                continue
            for key, (x0, y0, x1, y1) in placed.items():
                w = pdf_page.width
                assert front[key] == pytest.approx((w - x1, y0, w - x0, y1), abs=0.01), (plan.component.id, key)
                backs += 1
    assert backs == sum(1 for p in b.checked.plans for lay in p.backs if lay is not None)


def _fonts(path: Any) -> dict[str, Any]:
    """Every font of a PDF (pages and the form XObjects they use), by BaseFont."""
    fonts: dict[str, Any] = {}
    seen: set[int] = set()

    def walk(res: Any) -> None:
        if res is None:
            return
        res = res.get_object()
        for f in (res.get("/Font") or {}).values():
            f = f.get_object()
            fonts[str(f["/BaseFont"])] = f
        for x in (res.get("/XObject") or {}).values():
            x = x.get_object()
            if id(x) not in seen:
                seen.add(id(x))
                walk(x.get("/Resources"))

    for page in PdfReader(path).pages:
        walk(page.get("/Resources"))
    return fonts


@pytest.mark.parametrize("gid", GAMES)
def test_every_font_is_embedded_and_no_helvetica(bundled: Bundled, gid: str) -> None:
    """Every font a PDF uses is embedded (a TrueType font file), none is a standard font, and the
    fonts the component's pieces print with are among them (by their PostScript names)."""
    b = bundled.built(gid)
    for plan in b.checked.plans:
        path = b.paths[plan.component.id]
        assert b"Helvetica" not in path.read_bytes(), path
        fonts = _fonts(path)
        assert fonts, path
        for name, f in fonts.items():
            desc = f["/DescendantFonts"][0].get_object()["/FontDescriptor"] if "/DescendantFonts" in f \
                else f["/FontDescriptor"]
            assert "/FontFile2" in desc.get_object(), (path, name)
        embedded = {name.lstrip("/").split("+")[-1] for name in fonts}
        pieces = {id(x): x for x in (*plan.fronts, *plan.backs) if x is not None}.values()
        printed = {font_file(t.font).name.decode() for lay in pieces for t in lay.primitives if isinstance(t, Text)}
        assert printed <= embedded, (path, printed - embedded)
        family = facts(gid).fonts.get(plan.component.id)
        if family:
            assert any(family in f for f in embedded), (path, embedded)


PRINT_SHOP = BuildOptions(print_shop=True)


@pytest.mark.slow
@pytest.mark.parametrize("gid", GAMES)
def test_one_piece_per_page_at_its_trim_size(bundled: Bundled, gid: str) -> None:
    """--one-per-page: a page per piece and side, its trim box the piece's size and its media box
    the trim grown by the piece's bleed."""
    b = bundled.built(gid, PRINT_SHOP)
    for plan in b.checked.plans:
        cid = plan.component.id
        sides = 2 if any(lay is not None for lay in plan.backs) else 1
        reader = PdfReader(b.paths[cid])
        assert len(reader.pages) == plan.component.pieces * sides, cid
        w, h = plan.component.size
        for i, page in enumerate(reader.pages):
            lay = plan.fronts[i // sides] if i % sides == 0 else plan.backs[i // sides]
            assert (float(page.trimbox.width) / MM, float(page.trimbox.height) / MM) == pytest.approx(
                (w, h), abs=0.01), (cid, i)
            grown = (float(page.mediabox.width) - float(page.trimbox.width),
                     float(page.mediabox.height) - float(page.trimbox.height))
            assert grown == pytest.approx((2 * lay.bleed, 2 * lay.bleed), abs=0.01), (cid, i)
