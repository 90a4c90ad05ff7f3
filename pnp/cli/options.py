"""The command-line options the commands share: paper and duplex, the low-ink and print-shop
variants, printer profiles and back corrections, the data root."""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from click.shell_completion import CompletionItem

from pnp import api
from pnp.impose.sheet import (
    DEFAULT_BLEED_MM,
    DEFAULT_DUPLEX,
    DEFAULT_PAPER,
    DUPLEX_MODES,
    MAX_BLEED_MM,
    PAPERS,
)
from pnp.input.load import read_regular
from pnp.input.project import GAME_ID, DataRoot, bundled_root, physical_path, shown_path
from pnp.layout.fields import DEFAULT_TOKEN_CUT, TOKEN_CUTS
from pnp.plan.options import BACK_OFFSET_MM, BACK_SCALE, COLOR_MODES, BuildOptions
from pnp.products.printers import load_profile
from pnp.render.pixels import MAX_COMMAND_PIXELS
from pnp.units import to_micrometre

# What a number option takes: plain ASCII decimal notation, an optional sign, digits, an optional
# fraction and an optional exponent (3, -1.2, .5, 2.5e-1). Python's float() and int() take more:
# underscores between digits (1_0 is 10), digits of any script (a fullwidth ５ is 5), surrounding
# whitespace, "nan" and "infinity"; none of that reaches a measurement here.
_PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
_PLAIN_INTEGER = re.compile(r"[+-]?[0-9]+", re.ASCII)
NUMBER_EXPECTED = "a plain decimal number like 3, 0.5 or -1.2 (ASCII digits, '.' as the decimal mark)"
INTEGER_EXPECTED = "a whole number in ASCII digits, like 4"


def plain_number(text: str) -> float | None:
    """``text`` as a float when it is a plain decimal number (see ``_PLAIN_NUMBER``), -0 read as
    0 (it printed "bleed -0 mm"), one too large for a float (1e400) as inf for the range check to
    refuse; None when it is not a plain number."""
    return float(text) + 0.0 if _PLAIN_NUMBER.fullmatch(text) else None


def _given(value: Any) -> bool:
    """Whether ``value`` is a number given in code (a default, a profile's value), not typed text."""
    return isinstance(value, int | float) and not isinstance(value, bool)


class Finite(click.FloatRange):
    """A number from ``lo`` to ``hi``, written as a plain decimal number: click's FloatRange lets
    ``nan`` through (every comparison with it is false) and would write it into a PDF's content
    stream, and float() reads ``1_0`` as 10 and a fullwidth ``５`` as 5. With ``mm``, a length
    read to the micrometre (``pnp.units.to_micrometre``)."""

    def __init__(self, lo: float, hi: float, mm: bool = False):
        super().__init__(lo, hi)
        self.mm = mm

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if not _given(value):
            num = plain_number(str(value))
            if num is None:
                self.fail(f"{value!r} is not {NUMBER_EXPECTED}", param, ctx)
            if not math.isfinite(num):  # 1e400: click would say "inf is not in the range"
                self.fail(f"{value!r} is out of range (expected a number from {self.min:g} to {self.max:g})",
                          param, ctx)
            value = num
        rv = super().convert(value, param, ctx)
        if not math.isfinite(rv):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return to_micrometre(rv) if self.mm else rv + 0.0


class Integer(click.IntRange):
    """A whole number from ``lo`` to ``hi`` in ASCII digits (int() reads ``1_0`` as 10 and
    fullwidth digits too)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if not _given(value) and not _PLAIN_INTEGER.fullmatch(str(value)):
            self.fail(f"{value!r} is not {INTEGER_EXPECTED}", param, ctx)
        return super().convert(value, param, ctx)


class NumberPair(click.ParamType):
    """``DX,DY`` (two numbers), or with ``single`` also one number used for both, each a plain
    decimal number (spaces around the comma allowed), finite and from ``lo`` to ``hi``."""

    name = "X,Y"

    def __init__(self, single: bool = False, lo: float = -math.inf, hi: float = math.inf, unit: str = "",
                 mm: bool = False):
        self.single = single
        self.lo, self.hi, self.unit, self.mm = lo, hi, unit, mm  # mm: as Finite's

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> tuple[float, float]:
        if isinstance(value, tuple):
            return value
        parts = [p.strip(" ") for p in str(value).split(",")]
        nums = [plain_number(p) for p in parts]
        if len(nums) == 1 and self.single:
            nums = [nums[0], nums[0]]
        if len(nums) != 2 or None in nums:
            what = "a number or two numbers like 1.002 or 1.01,0.99" if self.single else "two numbers like 0.8,-1.2"
            self.fail(f"{value!r} is not {what} (plain decimal numbers: ASCII digits, '.' as the decimal mark)",
                      param, ctx)
        x, y = (n for n in nums if n is not None)
        if not (self.lo <= x <= self.hi and self.lo <= y <= self.hi):
            self.fail(f"{value!r} is out of range (expected numbers from {self.lo:g} to {self.hi:g}{self.unit})",
                      param, ctx)
        if self.mm:
            x, y = to_micrometre(x), to_micrometre(y)
        return (x, y)


def max_megapixels_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """--max-megapixels: the pixel budget of a rasterising command, raised on purpose."""
    return click.option("--max-megapixels", type=Integer(1, 1_000_000), default=None, metavar="N",
                        help="The most pixels the images of this command may hold together, in millions, "
                        "checked before anything is rendered (about 25 s of CPU per 1,000); raise it for a "
                        f"large game you mean to export whole [default: {MAX_COMMAND_PIXELS // 1_000_000}].")(fn)


def megapixels(n: int | None) -> int | None:
    """--max-megapixels N as pixels (None: the default budget)."""
    return None if n is None else n * 1_000_000


def print_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Duplex corrections shared by build and calibrate."""
    fn = click.option("--printer", metavar="NAME", default=None,
                      help="Use the printer profile NAME from ./pnp.toml or ~/.config/pnp/config.toml "
                      "(its values fill in whatever the command line does not set).")(fn)
    fn = click.option("--back-scale", type=NumberPair(single=True, lo=BACK_SCALE[0], hi=BACK_SCALE[1]), default=None,
                      metavar="S|SX,SY",
                      help="Scale back pages about the page centre (e.g. 1.002) for a printer that shrinks "
                      "one side.")(fn)
    fn = click.option("--back-offset", type=NumberPair(lo=-BACK_OFFSET_MM, hi=BACK_OFFSET_MM, unit=" mm", mm=True),
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
    fn = click.option("--jobs", "-j", type=Integer(1, 256), default=None, metavar="N",
                      help="Render components in N processes [default: the number of cores].")(fn)
    fn = click.option("--ink-saver", is_flag=True,
                      help="The low-ink variant: each game's light colours, no full-bleed fills, backs as "
                      "outline patterns; written to DIR/<game>/ink-saver/ so both variants can coexist.")(fn)
    return click.option("--one-per-page", is_flag=True,
                        help="Print-shop PDFs: each piece on its own page of trim + bleed, TrimBox/BleedBox "
                        "set, front and back pages alternating.")(fn)


def color_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--color", type=click.Choice(COLOR_MODES), default="rgb", show_default=True,
                        help="cmyk: PDF/X-4 files for a print shop, every colour and image converted to CMYK "
                        "(FOGRA39 coated output intent), black and greys on the black plate alone.")(fn)


def gang_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--gang", is_flag=True,
                        help="Also DIR/<game>/<game>-ganged.pdf: every sheet-imposed component in one file, the "
                        "partial sheets (partial last sheets, small components, parts of a tiled board) sharing "
                        "sheets, of one stock unless mixing saves more.")(fn)


def die_line_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--die-line", is_flag=True,
                        help="A CutContour spot-colour die line along every front piece's trim (rounded by the "
                        "component's corner_radius), for cutting machines and print shops.")(fn)


SHOP_HELP = ("Write the files the print-on-demand shop NAME takes, in DIR/<game>/shops/<shop>/ with a "
             "shop-report.json: each component at the shop's card size (a 63 x 88 mm card whose templates adapt "
             "becomes 2.5 x 3.5 in), bleed, colour and page order; components that map to no product are named "
             "with the reason. {which} (docs/printing.md, Print-shop presets).")


def shop_option(which: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        return click.option("--shop", metavar="NAME", default=None, help=SHOP_HELP.format(which=which))(fn)
    return deco


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
    fn = click.option("--bleed", "bleed", type=Finite(0, MAX_BLEED_MM, mm=True), default=DEFAULT_BLEED_MM,
                      show_default=True, metavar="MM")(fn)
    fn = click.option("--duplex", type=click.Choice(DUPLEX_MODES), default=DEFAULT_DUPLEX,
                      show_default=True)(fn)
    return click.option("--paper", type=click.Choice(PAPER_CHOICES), default=DEFAULT_PAPER, show_default=True,
                        help=PAPER_HELP)(fn)


def data_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--data", "data", metavar="PATH", default=None, envvar="PNP_DATA",
                        help="Data root holding card_data/<game>/ and templates/ [default: the nearest folder at or "
                        "above the working folder that holds card_data/, else the bundled games; env PNP_DATA].")(fn)


def data_root(data: str | None) -> DataRoot:
    """The data root a command works on: --data (or PNP_DATA) when given, else the nearest folder
    at or above the working folder holding card_data/, else the bundled games. Raises DataError
    for a --data folder without card_data/."""
    return api.data_root(data) if data else api.find_data_root()


def again(*words: str) -> str:
    """A pnp command to suggest, as it works verbatim from here: with the --data the user gave
    (a root found from the working folder, or PNP_DATA, is found again)."""
    ctx = click.get_current_context(silent=True)
    data = ctx.params.get("data") if ctx is not None else None
    source = ctx.get_parameter_source("data") if ctx is not None and data else None
    given = data and source is not None and source.name == "COMMANDLINE"
    return " ".join(("pnp", *words, *(("--data", shown_path(data)) if given else ())))


def root_line(root: DataRoot, data: str | None) -> str:
    """The line that says which data root a command uses, and why."""
    where = shown_path(root.path)
    if data:
        ctx = click.get_current_context(silent=True)
        source = ctx.get_parameter_source("data") if ctx is not None else None
        env = source is not None and source.name == "ENVIRONMENT"
        return f"pnp: data root {where} ({'PNP_DATA' if env else '--data'})"
    if root.path == bundled_root():
        return f"pnp: data root {where}: the bundled games (no card_data/ at or above the working folder)"
    return f"pnp: data root {where} (found from the working folder)"


def physical_out(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """--out with its ``..`` parts read as the system reads them (``physical_path``), so the
    messages name the folder written, as the library does (attack 13, F1)."""
    return None if value is None else str(physical_path(value))


def out_option(what: str) -> Callable[..., Any]:
    return click.option("--out", "out", default="out", show_default=True, metavar="DIR", callback=physical_out,
                        help=f"Output folder; {what}.")


# --------------------------------------------------------------------------- shell completion
# Click completes commands and options itself; these complete the names a command takes, read
# straight from the data root's JSON (no validation: a half-edited game still completes).


def _completion_root(ctx: click.Context) -> DataRoot | None:
    try:
        return data_root(ctx.params.get("data") or os.environ.get("PNP_DATA") or None)
    except Exception:  # a completion never fails loudly: it offers nothing
        return None


def _json(path: Path) -> Any:
    try:  # a named pipe would block the shell's completion: read only a regular file, of sane size
        return json.loads(read_regular(path, 16 << 20).decode("utf-8"))
    except (OSError, ValueError):
        return None


def _entries(root: DataRoot, game: str) -> list[dict[str, Any]]:
    m = _json(root.card_data / game / "game.json") if GAME_ID.match(game or "") else None
    comps = m.get("components") if isinstance(m, dict) else None
    return [c for c in comps if isinstance(c, dict) and isinstance(c.get("id"), str)] if isinstance(comps, list) else []


def complete_games(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    root = _completion_root(ctx)
    return [CompletionItem(g) for g in (root.game_ids() if root else []) if g.startswith(incomplete)]


def complete_components(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    root = _completion_root(ctx)
    game = ctx.params.get("game")
    if root is None or not isinstance(game, str):
        return []
    return [CompletionItem(c["id"], help=c.get("title")) for c in _entries(root, game)
            if c["id"].startswith(incomplete)]


def complete_items(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    root = _completion_root(ctx)
    game, component = ctx.params.get("game"), ctx.params.get("component")
    if root is None or not isinstance(game, str) or not isinstance(component, str):
        return []
    entry = next((c for c in _entries(root, game) if c["id"] == component), None)
    data = _json(root.card_data / game / entry["data"]) if entry and isinstance(entry.get("data"), str) else None
    ids: list[str] = []
    for raw in (data.get("items") if isinstance(data, dict) else None) or []:
        if not isinstance(raw, dict) or not isinstance(raw.get("id"), str):
            continue
        s = raw.get("series")
        if isinstance(s, dict) and isinstance(s.get("from"), int) and isinstance(s.get("to"), int):
            ids += [f"{raw['id']}-{n}" for n in range(s["from"], min(s["to"], s["from"] + 999) + 1)]
        else:
            ids.append(raw["id"])
    return [CompletionItem(i) for i in ids if i.startswith(incomplete)]
