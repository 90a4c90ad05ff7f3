"""Build options: how a game is put on paper (kept in a light module: the CLI and the build
cache read them without importing the rendering stages)."""

from __future__ import annotations

import os
from pathlib import Path

from msgspec import Struct

from pnp.errors import DataError, Diagnostic
from pnp.impose.marks import LABEL_ROOM
from pnp.impose.sheet import (
    DEFAULT_BLEED_MM,
    DEFAULT_DUPLEX,
    DEFAULT_PAPER,
    MAX_BLEED_MM,
    PAPER_MARGINS,
    UNIVERSAL_MIN_OUTER_BLEED,
    SheetOptions,
    paper_named,
)
from pnp.input import kinds
from pnp.input.model import Component
from pnp.layout.fields import DEFAULT_TOKEN_CUT
from pnp.units import MM

BACK_OFFSET_MM = 20.0  # the most a back page may be shifted, each way (printer profiles hold to it too)
BACK_SCALE = (0.9, 1.1)  # the range of a back page's scale: a printer's error, never a resize


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
        # Every number here ends up in a PDF content stream: nan, inf or 1e300 would write an
        # invalid or absurd PDF. The CLI and printer profiles say so in their own words first.
        if not (isinstance(self.bleed_mm, int | float) and 0 <= self.bleed_mm <= MAX_BLEED_MM):
            raise ValueError(f"bleed_mm {self.bleed_mm!r} is out of range (expected 0 to {MAX_BLEED_MM:g} mm)")
        if len(self.back_offset) != 2 or not all(-BACK_OFFSET_MM <= v <= BACK_OFFSET_MM for v in self.back_offset):
            raise ValueError(f"back_offset {self.back_offset!r} is out of range "
                             f"(expected two numbers from {-BACK_OFFSET_MM:g} to {BACK_OFFSET_MM:g} mm)")
        lo, hi = BACK_SCALE
        if len(self.back_scale) != 2 or not all(lo <= v <= hi for v in self.back_scale):
            raise ValueError(f"back_scale {self.back_scale!r} is out of range "
                             f"(expected two numbers from {lo:g} to {hi:g})")
        if self.color not in COLOR_MODES:
            raise ValueError(f"color must be one of {', '.join(COLOR_MODES)}, not {self.color!r}")


# reproducible-builds.org: "an ASCII representation of an integer with no fractional component,
# identical to the output format of date +%s"; a malformed value "SHOULD" fail the build. pnp also
# holds it to what a PDF date can say (years 1970 to 9999).
_EPOCH_MAX = 253402300799  # 9999-12-31T23:59:59Z


def source_date_epoch() -> int | None:
    """``SOURCE_DATE_EPOCH`` as the PDFs' creation date (reportlab reads the variable itself), or
    None when it is unset or empty: then every PDF says 2000-01-01, as reportlab's invariant mode
    does. A malformed value is a DataError, before anything is written."""
    raw = os.environ.get("SOURCE_DATE_EPOCH")
    if raw is None or raw == "":
        return None
    if not (raw.isascii() and raw.isdigit() and int(raw) <= _EPOCH_MAX):
        shown = raw if raw.isprintable() and len(raw) <= 40 else repr(raw[:40])
        raise DataError([Diagnostic("SOURCE_DATE_EPOCH", f"invalid SOURCE_DATE_EPOCH {shown}",
                                    expected=f"whole seconds since 1970 as `date +%s` prints them, "
                                    f"0 to {_EPOCH_MAX}",
                                    hint="unset it, or set it to the time of the last change of the sources")])
    return int(raw)


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

