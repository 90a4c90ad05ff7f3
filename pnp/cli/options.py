"""The command-line options the commands share: paper and duplex, the low-ink and print-shop
variants, printer profiles and back corrections, the data root."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import click

from pnp.impose.sheet import (
    DEFAULT_BLEED_MM,
    DEFAULT_DUPLEX,
    DEFAULT_PAPER,
    DUPLEX_MODES,
    MAX_BLEED_MM,
    PAPERS,
)
from pnp.layout.fields import DEFAULT_TOKEN_CUT, TOKEN_CUTS
from pnp.plan.options import BACK_OFFSET_MM, BACK_SCALE, BuildOptions
from pnp.products.printers import load_profile


class Finite(click.FloatRange):
    """A number from ``lo`` to ``hi``: click's FloatRange lets ``nan`` through (every comparison
    with it is false) and would write it into a PDF's content stream."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        rv = super().convert(value, param, ctx)
        if not math.isfinite(rv):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return rv


class NumberPair(click.ParamType):
    """``DX,DY`` (two numbers), or with ``single`` also one number used for both, each finite and
    from ``lo`` to ``hi``."""

    name = "X,Y"

    def __init__(self, single: bool = False, lo: float = -math.inf, hi: float = math.inf, unit: str = ""):
        self.single = single
        self.lo, self.hi, self.unit = lo, hi, unit

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> tuple[float, float]:
        if isinstance(value, tuple):
            return value
        parts = str(value).replace(" ", "").split(",")
        try:
            nums = [float(p) for p in parts]
        except ValueError:
            nums = []
        if len(nums) == 1 and self.single:
            nums = [nums[0], nums[0]]
        if len(nums) != 2:
            self.fail(f"{value!r} is not {'a number or ' if self.single else ''}two numbers like 0.8,-1.2", param, ctx)
        if not all(math.isfinite(n) and self.lo <= n <= self.hi for n in nums):
            self.fail(f"{value!r} is out of range (expected numbers from {self.lo:g} to {self.hi:g}{self.unit})",
                      param, ctx)
        return (nums[0], nums[1])


def print_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Duplex corrections shared by build and calibrate."""
    fn = click.option("--printer", metavar="NAME", default=None,
                      help="Use the printer profile NAME from ./pnp.toml or ~/.config/pnp/config.toml "
                      "(its values fill in whatever the command line does not set).")(fn)
    fn = click.option("--back-scale", type=NumberPair(single=True, lo=BACK_SCALE[0], hi=BACK_SCALE[1]), default=None,
                      metavar="S|SX,SY",
                      help="Scale back pages about the page centre (e.g. 1.002) for a printer that shrinks "
                      "one side.")(fn)
    fn = click.option("--back-offset", type=NumberPair(lo=-BACK_OFFSET_MM, hi=BACK_OFFSET_MM, unit=" mm"),
                      default=None, metavar="DX,DY",
                      help="Shift back pages by DX (right) and DY (up) mm, as read off `pnp calibrate`; "
                      "may be negative.")(fn)
    return fn


def apply_profile(ctx: click.Context, printer: str | None, values: dict[str, Any]) -> dict[str, Any]:
    """Fill options the user did not set on the command line from the printer profile."""
    if printer is None:
        return values
    prof = load_profile(printer)
    from_profile = {"paper": prof.paper, "duplex": prof.duplex, "bleed": prof.bleed,
                    "back_offset": prof.back_offset, "back_scale": prof.back_scale}
    out = dict(values)
    for key, val in from_profile.items():
        if val is None or key not in out:
            continue
        source = ctx.get_parameter_source(key)
        if source is None or source.name in ("DEFAULT", "DEFAULT_MAP"):
            out[key] = val
    return out


def build_options(ctx: click.Context, printer: str | None, paper: str, duplex: str, bleed: float,
                  back_offset: tuple[float, float] | None, back_scale: tuple[float, float] | None,
                  **rest: Any) -> BuildOptions:
    """The options of a build (or of a watch, which writes the same files): the printer profile
    fills in what the command line leaves at its defaults."""
    v = apply_profile(ctx, printer, {"paper": paper, "duplex": duplex, "bleed": bleed,
                                     "back_offset": back_offset, "back_scale": back_scale})
    return BuildOptions(paper=v["paper"], duplex=v["duplex"], bleed_mm=v["bleed"],
                        back_offset=v["back_offset"] or (0.0, 0.0), back_scale=v["back_scale"] or (1.0, 1.0),
                        **rest)


def variant_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """--one-per-page, --ink-saver and --jobs, as `build` and `watch` take them."""
    fn = click.option("--jobs", "-j", type=click.IntRange(1, 256), default=None, metavar="N",
                      help="Render components in N processes [default: the number of cores].")(fn)
    fn = click.option("--ink-saver", is_flag=True,
                      help="The low-ink variant: each game's light colours, no full-bleed fills, backs as "
                      "outline patterns; written to DIR/<game>/ink-saver/ so both variants can coexist.")(fn)
    return click.option("--one-per-page", is_flag=True,
                        help="Print-shop PDFs: each piece on its own page of trim + bleed, TrimBox/BleedBox "
                        "set, front and back pages alternating.")(fn)


PAPER_CHOICES = list(PAPERS)


PAPER_HELP = ("universal: a 210 x 279.4 mm page (the A4/Letter intersection, content 5 mm inside) that prints "
              "at actual size on both A4 and Letter.")


def token_cut_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--token-cut", type=click.Choice(TOKEN_CUTS), default=DEFAULT_TOKEN_CUT, show_default=True,
                        help="Round tokens: square: square cut boxes that abut like tiles, the token's background "
                        "filling the corners, so straight cuts suffice; circle: each with its own bleed ring, a "
                        "cut circle and guides for a punch or circle cutter.")(fn)


def paper_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """--paper, --duplex, --bleed and --token-cut as `preflight` and `watch` take them (`build`
    words its --duplex help at length)."""
    fn = token_cut_option(fn)
    fn = click.option("--bleed", "bleed", type=Finite(0, MAX_BLEED_MM), default=DEFAULT_BLEED_MM,
                      show_default=True, metavar="MM")(fn)
    fn = click.option("--duplex", type=click.Choice(DUPLEX_MODES), default=DEFAULT_DUPLEX,
                      show_default=True)(fn)
    return click.option("--paper", type=click.Choice(PAPER_CHOICES), default=DEFAULT_PAPER, show_default=True,
                        help=PAPER_HELP)(fn)


def data_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--data", "data", metavar="PATH", default=None,
                        help="Data root holding card_data/<game>/ and templates/ (default: the bundled games).")(fn)


def out_option(what: str) -> Callable[..., Any]:
    return click.option("--out", "out", default="out", show_default=True, metavar="DIR", help=f"Output folder; {what}.")
