"""Build options: how a game is put on paper (kept in a light module: the CLI and the build
cache read them without importing the rendering stages)."""

from __future__ import annotations

from pathlib import Path

from msgspec import Struct

from pnp.impose.marks import LABEL_ROOM
from pnp.impose.sheet import (
    DEFAULT_BLEED_MM,
    DEFAULT_DUPLEX,
    DEFAULT_PAPER,
    PAPER_MARGINS,
    UNIVERSAL_MIN_OUTER_BLEED,
    SheetOptions,
    paper_named,
)
from pnp.input import kinds
from pnp.input.model import Component
from pnp.layout.fields import DEFAULT_TOKEN_CUT
from pnp.units import MM


class BuildOptions(Struct, frozen=True):
    """The output options of a build (what changes the PDFs, and ``strict``)."""

    paper: str = DEFAULT_PAPER
    duplex: str = DEFAULT_DUPLEX
    bleed_mm: float = DEFAULT_BLEED_MM
    strict: bool = False
    print_shop: bool = False  # --one-per-page: print-shop pages: each piece alone, page = trim + bleed
    back_offset: tuple[float, float] = (0.0, 0.0)  # mm, moves back pages' content (right, up)
    back_scale: tuple[float, float] = (1.0, 1.0)  # scales back pages' content about the page centre
    token_cut: str = DEFAULT_TOKEN_CUT  # round tokens: "square" (abutting square cut boxes) | "circle" (cut circles)
    ink_saver: bool = False  # the low-ink variant (pnp.inksaver), written to out/<game>/ink-saver/
    color: str = "rgb"  # "cmyk": PDF/X-4 files in CMYK (pnp.render.ink)
    die_line: bool = False  # a CutContour spot-colour die line round every front piece (pnp.impose.dieline)
    gang: bool = False  # also out/<game>/<game>-ganged.pdf: mostly empty sheets share sheets (pnp.impose.gang)


    def __post_init__(self) -> None:
        if self.color not in COLOR_MODES:
            raise ValueError(f"color must be one of {', '.join(COLOR_MODES)}, not {self.color!r}")


COLOR_MODES = ("rgb", "cmyk")  # --color: the PDFs' colour space (cmyk: PDF/X-4, pnp.render.ink)


def output_folder(out: Path, gid: str, opts: BuildOptions) -> Path:
    """Where a build of game ``gid`` goes: out/<game>/, or out/<game>/ink-saver/ for the low-ink
    variant (so both can sit side by side, each with its own build record)."""
    return out / gid / "ink-saver" if opts.ink_saver else out / gid


def sheet_for(comp: Component, opts: BuildOptions) -> SheetOptions:
    kind = kinds.get(comp.kind)
    bleed = 0.0 if not kind.bleed else (comp.bleed if comp.bleed is not None else opts.bleed_mm)
    # Round pieces cut as circles need each its own bleed ring; cut square (the default) their
    # square cut boxes abut like tiles and straight cuts suffice.
    circle = comp.shape == "round" and opts.token_cut == "circle"
    margin = PAPER_MARGINS.get(opts.paper)
    return SheetOptions(paper=paper_named(opts.paper), duplex=opts.duplex, bleed=bleed * MM,
                        crop_marks=kind.placement == "grid" and kind.crop_marks,
                        abut=not circle,
                        cut_circles=circle and kind.crop_marks, label_room=LABEL_ROOM,
                        **({"margin": margin, "min_outer_bleed": UNIVERSAL_MIN_OUTER_BLEED}
                           if margin is not None else {}))

