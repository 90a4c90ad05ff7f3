"""The assembly page's words: how to print, cut and put together a game's components, from
what the build made of them (kinds, shapes, backs, duplex mode, token cut, tiled parts).

Pure text: :func:`sections` returns headings and paragraphs; ``pnp.products.contents`` lays them out as
the second page of the contents PDF, under a 1 in and a 1 cm scale square. The advice is
generic print-and-play practice (pnp's, not the game's rulebook)."""

from __future__ import annotations

from collections.abc import Sequence

from msgspec import Struct

from pnp.impose.sheet import FLIP_EDGES, PAPERS, Paper
from pnp.input.model import Game
from pnp.layout.fields import DEFAULT_TOKEN_CUT
from pnp.plan.component import ComponentPlan, pages_for
from pnp.units import MM


class Section(Struct, frozen=True):
    """One heading of the assembly page and its paragraphs."""

    heading: str
    paragraphs: tuple[str, ...]


def _names(plans: Sequence[ComponentPlan]) -> str:
    return ", ".join(p.component.title for p in plans)


def _has_back(plan: ComponentPlan) -> bool:
    return any(b is not None for b in plan.backs)


def _tiled_parts(plan: ComponentPlan) -> tuple[int, int] | None:
    """(rows, cols) when the component's piece is split over several pages."""
    if plan.placement not in ("grid", "page") or plan.grid is not None:
        return None
    pages = pages_for(plan)
    part = pages[0].slots[0].part if pages and pages[0].slots else None
    return (part.rows, part.cols) if part is not None else None


def paper_advice(paper: Paper) -> str:
    if paper.name == "universal":
        a4, letter = PAPERS["a4"], PAPERS["letter"]
        top = (a4.height - paper.height) / 2 / MM
        side = (letter.width - paper.width) / 2 / MM
        return (f"Paper: universal. The page is {paper.width / MM:g} x {paper.height / MM:g} mm, the part that A4 "
                "and Letter share, with everything at least 5 mm inside it, so the same file prints on either. "
                f"Print it centred at actual size (what viewers do at 100 %): on A4 the page gets {top:.1f} mm of "
                f"extra paper at the top and bottom, on Letter {side:.1f} mm at each side. Because the page sits in "
                "the middle of the sheet, backs still land behind their fronts.")
    name = "Letter (8.5 x 11 in)" if paper.name == "letter" else f"{paper.name.upper()} ({paper.width / MM:.0f} x " \
        f"{paper.height / MM:.0f} mm)"
    return f"Paper: {name}. Use that paper size in the print dialog."


def sections(game: Game, plans: Sequence[ComponentPlan], duplex: str, paper: Paper, print_shop: bool = False,
             token_cut: str = DEFAULT_TOKEN_CUT) -> list[Section]:
    """What the assembly page says, section by section, for the components in ``plans``."""
    by_kind: dict[str, list[ComponentPlan]] = {}
    for p in plans:
        c = p.component
        key = "round" if c.kind == "token" and c.shape == "round" else "hex" if c.shape == "hex" else c.kind
        by_kind.setdefault(key, []).append(p)

    out: list[Section] = []
    # -- printing
    scale = ("Print at 100 % (\"actual size\"); turn off \"fit to page\" and \"shrink oversized pages\". "
             "The PDFs ask viewers for this, but check: the big square on this page must measure 1 in "
             "(25.4 mm), the small one 1 cm. Every sheet carries the same squares, or a bar 1 in long whose dark "
             "part is 1 cm, and a label outside the pieces: game, component, front or back, sheet i of n, and "
             "the data version, which the contents sheet lists per component; a sheet with another version was "
             "printed from other data.")
    stock = []
    cards = by_kind.get("card", []) + by_kind.get("track", [])
    if cards:
        stock.append(f"Cards ({_names(cards)}): 200-250 g/m² card (about 70-90 lb cover), or plain paper slid "
                     "into card sleeves in front of an old playing card.")
    chits = by_kind.get("tile", []) + by_kind.get("hex", []) + by_kind.get("round", []) + by_kind.get("token", [])
    if chits:
        stock.append(f"Tiles and tokens ({_names(chits)}): the heaviest card your printer feeds (250-300 g/m²), "
                     "or glue the printed sheet onto 1-1.5 mm greyboard before cutting.")
    boards = by_kind.get("board", []) + by_kind.get("mat", [])
    if boards:
        stock.append(f"Boards and mats ({_names(boards)}): 160-250 g/m² card; mount the joined board on "
                     "greyboard or foam board to keep it flat.")
    if "box" in by_kind:
        stock.append(f"Boxes ({_names(by_kind['box'])}): 160-220 g/m² card, so folds stay crisp.")
    if "sheet" in by_kind:
        stock.append(f"Reference sheets ({_names(by_kind['sheet'])}): plain paper.")
    out.append(Section("Print", (scale, paper_advice(paper), *stock)))

    # -- double-sided
    backed = [p for p in plans if _has_back(p)]
    if print_shop:
        sides = ("Print-shop pages: each page is one piece, front and back pages alternating; the service prints "
                 "and trims them.",)
    elif not backed:
        sides = ("Nothing here has a back: print single-sided.",)
    elif duplex in FLIP_EDGES:
        edge = "long" if duplex == "long" else "short"
        usual = " (the usual setting)" if duplex == "long" else ""
        sides = (f"Print double-sided, flipped on the {edge} edge{usual}: {_names(backed)}. Each front page "
                 "is followed by its back page; the PDFs preselect this in the print dialog.",
                 "Print one sheet first and hold it against a window: each back should sit behind its front. If "
                 "they are off by more than a millimetre, measure the printer with pnp calibrate and build with "
                 "--back-offset (or a printer profile). Backs carry bleed, so a small shift shows no white edge.")
    elif duplex == "fold":
        sides = (f"No duplex printer needed: gutterfold ({_names(backed)}); see Put together.",)
    else:
        sides = (f"Fronts only (--duplex none): the backs of {_names(backed)} are not printed.",)
    out.append(Section("Double-sided", sides))

    # -- cutting
    cut = ["Cut order: the cut lines run in the margins and each is one straight cut across the whole sheet. "
           "1. Cut off the margins along the outermost lines. 2. Cut across the sheet into strips. 3. Cut the "
           "strips into pieces. Pieces that touch share one cut. A guillotine, or a craft knife with a steel "
           "ruler on a cutting mat, cuts best. The pieces of a component sit at the same place on every sheet, "
           "so two to four sheets can be stacked (edges and lines aligned) and cut together."]
    if any(p.component.shape == "rounded" for p in cards):
        cut.append("Cards are cut square; round their corners with a 3 mm (1/8 in) corner punch if you like.")
    rounds = by_kind.get("round", [])
    if rounds:
        sizes = sorted({p.component.size[0] for p in rounds})
        size_text = ", ".join(f"{s:g} mm" for s in sizes)
        if token_cut == "circle":
            cut.append(f"Round tokens ({_names(rounds)}) each have a cut circle: cut along it with scissors, or "
                       f"punch them with a circle punch of their size ({size_text}). The dashed ring just outside "
                       "the cut circle helps centring a punch; the four corner ticks point at the centre for a "
                       "circle cutter's pin.")
        else:
            cut.append(f"Round tokens ({_names(rounds)}) are printed in square cut boxes that touch like tiles: "
                       "cut them with straight cuts like tiles; each token's colour fills its corners. (For round "
                       f"tokens, {size_text}, build with --token-cut circle.)")
    hexes = by_kind.get("hex", [])
    if hexes:
        cut.append(f"Hex tiles ({_names(hexes)}) interlock: neighbours share an edge, so each printed edge is one "
                   "cut. Cut the zigzag lines between rows first, then the short edges between neighbours, with a "
                   "craft knife and a steel ruler.")
    out.append(Section("Cut", tuple(cut)))

    # -- putting together
    build: list[str] = []
    if duplex == "fold" and backed and not print_shop:
        build.append(f"Gutterfold ({_names(backed)}): print single-sided. Fold each sheet on the dashed line, "
                     "printed side out, so each back lies behind its front. Glue the halves together with a glue "
                     "stick (thin, out to the edges), press under books until dry, then cut along the lines on "
                     "the front half.")
    for p in boards:
        parts = _tiled_parts(p)
        title = p.component.title
        if parts is None:
            build.append(f"{title}: one piece per sheet; cut along its lines.")
            continue
        rows, cols = parts
        each = "each piece in" if p.component.pieces > 1 else "in"
        build.append(f"{title}: {each} {rows} x {cols} parts, labelled \"Part row R, column C\". Cut each "
                     "part along its lines (outer edges only). The shaded \"glue under the next part\" strip goes "
                     "under its neighbour: spread glue on it, lay the next part over it so the crosshairs meet, "
                     "and press. Join each row left to right, then the rows from the top down.")
    if "box" in by_kind:
        build.append(f"Boxes ({_names(by_kind['box'])}): cut along the solid outline, score every dashed fold line "
                     "with a blunt knife against a ruler, fold, and glue the shaded tabs inside the walls; the "
                     "steps are printed beside each net.")
    if "sheet" in by_kind:
        build.append(f"Reference sheets ({_names(by_kind['sheet'])}): nothing to cut.")
    if not build:
        build.append("Nothing to glue or fold: every piece is ready once cut.")
    out.append(Section("Put together", tuple(build)))
    return out

