"""Stage 9, cli: argv -> library calls. A thin click layer; all logic lives in the library.

Exit codes: 0 all good; 1 rulebook violations; 2 invalid input (data, templates, fonts, images,
output folder) or, with --strict, warnings; 3 an internal error (a bug: please report it)."""

from __future__ import annotations

import contextlib
import gc
import json
import os
import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click
from msgspec.structs import asdict, replace

from pnp.errors import DataError, Diagnostic, OutputError, counted
from pnp.input.project import DataRoot, bundled_root, check_game_id
from pnp.plan.options import BuildOptions
from pnp.version import __version__

if TYPE_CHECKING:
    from pnp.pipeline.build import RenderedGame
    from pnp.plan.session import Session
    from pnp.qa.check import GameCheck


# The stages are imported inside the commands that use them: an up-to-date `pnp build` must not
# pay for reportlab, jsonschema or the layout engine.

JSON_FORMAT_VERSION = 1


def _root(data: str | None) -> DataRoot:
    if data is None:
        return DataRoot(bundled_root())
    p = Path(data)
    if not (p / "card_data").is_dir():
        _fail_input([Diagnostic(str(p), "not a pnp data root: no card_data/ folder",
                                expected="a folder holding card_data/<game>/game.json and templates/")])
    return DataRoot(p)


def _fail_input(diags: list[Diagnostic] | tuple[Diagnostic, ...] | list[Diagnostic | str], code: int = 2) -> NoReturn:
    """Print every problem (a Diagnostic, or a message as printed before: the build cache keeps
    warnings as text) and exit."""
    for d in diags:
        click.echo(d if isinstance(d, str) else d.format(), err=True)
    n = sum(1 for d in diags if isinstance(d, str) or d.severity == "error") or len(diags)
    click.echo(f"pnp: {counted(n, 'problem')} in the input; nothing was written.", err=True)
    sys.exit(code)


class NumberPair(click.ParamType):
    """``DX,DY`` (two numbers), or with ``single`` also one number used for both."""

    name = "X,Y"

    def __init__(self, single: bool = False):
        self.single = single

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> tuple[float, float]:
        if isinstance(value, tuple):
            return value
        parts = str(value).replace(" ", "").split(",")
        try:
            nums = [float(p) for p in parts]
        except ValueError:
            nums = []
        if len(nums) == 1 and self.single:
            return (nums[0], nums[0])
        if len(nums) != 2:
            self.fail(f"{value!r} is not {'a number or ' if self.single else ''}two numbers like 0.8,-1.2", param, ctx)
        return (nums[0], nums[1])


def print_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Duplex corrections shared by build and calibrate."""
    fn = click.option("--printer", metavar="NAME", default=None,
                      help="Use the printer profile NAME from ./pnp.toml or ~/.config/pnp/config.toml "
                      "(its values fill in whatever the command line does not set).")(fn)
    fn = click.option("--back-scale", type=NumberPair(single=True), default=None, metavar="S|SX,SY",
                      help="Scale back pages about the page centre (e.g. 1.002) for a printer that shrinks "
                      "one side.")(fn)
    fn = click.option("--back-offset", type=NumberPair(), default=None, metavar="DX,DY",
                      help="Shift back pages by DX (right) and DY (up) mm, as read off `pnp calibrate`; "
                      "may be negative.")(fn)
    return fn


def apply_profile(ctx: click.Context, printer: str | None, values: dict[str, Any]) -> dict[str, Any]:
    """Fill options the user did not set on the command line from the printer profile."""
    if printer is None:
        return values
    from pnp.products.printers import load_profile

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


PAPER_CHOICES = ["letter", "a4", "universal"]
PAPER_HELP = ("universal: a 210 x 279.4 mm page (the A4/Letter intersection, content 5 mm inside) that prints "
              "at actual size on both A4 and Letter.")


def token_cut_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--token-cut", type=click.Choice(["square", "circle"]), default="square", show_default=True,
                        help="Round tokens: square: square cut boxes that abut like tiles, the token's background "
                        "filling the corners, so straight cuts suffice; circle: each with its own bleed ring, a "
                        "cut circle and guides for a punch or circle cutter.")(fn)


def sheet_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """--paper, --duplex, --bleed and --token-cut as `preflight` and `watch` take them (`build`
    words its --duplex help at length)."""
    fn = token_cut_option(fn)
    fn = click.option("--bleed", "bleed", type=click.FloatRange(0, 10), default=3.0, show_default=True,
                      metavar="MM")(fn)
    fn = click.option("--duplex", type=click.Choice(["long", "short", "none", "fold"]), default="long",
                      show_default=True)(fn)
    return click.option("--paper", type=click.Choice(PAPER_CHOICES), default="letter", show_default=True,
                        help=PAPER_HELP)(fn)


def data_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--data", "data", metavar="PATH", default=None,
                        help="Data root holding card_data/<game>/ and templates/ (default: the bundled games).")(fn)


def guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
    """No traceback for the user: input problems exit 2, bugs exit 3 with a short note."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except DataError as exc:
            _fail_input(exc.diagnostics)
        except OutputError as exc:
            click.echo(f"pnp: {exc}", err=True)
            sys.exit(2)
        except (click.exceptions.Exit, click.ClickException, SystemExit, KeyboardInterrupt):
            raise
        except BrokenPipeError:
            # The reader went away (`pnp list | head -1`): not a bug; stop quietly.
            with contextlib.suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(1)
        except Exception as exc:
            if os.environ.get("PNP_DEBUG"):
                raise
            click.echo(f"pnp: internal error: {type(exc).__name__}: {exc} "
                       "(this is a bug in pnp; set PNP_DEBUG=1 to see the traceback)", err=True)
            sys.exit(3)

    return wrapper


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pnp")
def main() -> None:
    """pnp: turn game data (JSON) and layout templates into printable, imposed PDF sheets,
    and check each game's components against its rulebook.

    \b
    Examples:
      pnp list
      pnp check golems
      pnp build golems --paper a4
      pnp build --data ~/my-games mygame --out prints
    """


def run() -> None:
    """The ``pnp`` command, as the console script and ``python -m pnp`` start it (tests call
    ``main`` itself), with the garbage collector set for a short-lived process (docs/performance.md)."""
    gc.set_threshold(10_000, 10, 10)  # the young generation collected every 10,000 allocations, not 700
    try:
        main()
    finally:
        gc.freeze()  # so the interpreter skips its final full collection on the way out


def _game_ids(root: DataRoot, games: tuple[str, ...]) -> list[str]:
    ids = list(games) or root.game_ids()
    if not ids:
        _fail_input([Diagnostic(str(root.card_data), "no games found", expected="card_data/<game>/game.json")])
    return ids


@main.command("list")
@data_option
@guarded
def list_cmd(data: str | None) -> None:
    """List the games and, per game, each component with its kind, size and piece count.

    \b
    Example:
      pnp list
    """
    from pnp.input import kinds
    from pnp.input.project import load_game

    root = _root(data)
    problems: list[Diagnostic] = []
    for gid in _game_ids(root, ()):
        try:
            game = load_game(root, gid)
        except DataError as exc:
            n = len(exc.diagnostics)
            click.echo(f"{gid}: cannot be loaded ({counted(n, 'problem')}; see below)")
            for d in exc.diagnostics:
                click.echo("  " + d.format(), err=True)
            problems.extend(exc.diagnostics)
            continue
        players = f"{game.players[0]}-{game.players[1]}" if game.players[1] else f"{game.players[0]}+"
        click.echo(f"{game.id}: {game.title} ({players} players) — {sum(c.pieces for c in game.components)} pieces")
        for c in game.components:
            shape = f" {c.shape}" if c.shape not in ("rect",) else ""
            click.echo(f"  {c.id:<16} {c.kind + shape:<14} {c.size[0]:g} x {c.size[1]:g} mm  "
                       f"{c.pieces:>4} pieces  ({len(c.items)} distinct)")
        for n in game.not_printed:
            click.echo(f"  not printed: {n.name} ({n.quantity})")
    click.echo("\nkinds: " + ", ".join(f"{k.name} ({'/'.join(k.shapes)})" for k in kinds.KINDS.values()))
    if problems:
        sys.exit(2)


def _report_text(gc: GameCheck, verbose: bool) -> None:
    r = gc.report
    passed = sum(o.passed for o in r.outcomes)
    click.echo(f"{gc.game.id}: {len(r.outcomes)} rules, {passed} pass, {len(r.outcomes) - passed} fail")
    for o in r.outcomes:
        if o.passed and not verbose and not o.oddities:
            continue
        mark = "PASS" if o.passed else "FAIL"
        click.echo(f"  {mark} {o.rule.id}: {o.rule.description}")
        if not o.passed:
            click.echo(f"       expected: {o.expected}")
            click.echo(f"       actual:   {o.actual}")
            for d in o.details[:20]:
                click.echo(f"         - {d}")
            click.echo(f"       rulebook: \"{o.rule.quote}\"")
        for odd in o.oddities:
            click.echo(f"       document oddity (excepted): {odd}")
    for p in r.provenance:
        click.echo(f"  {p.component:<16} {p.pieces:>4} pieces, {p.items:>3} items: "
                   f"{p.document} document, {p.external} external, {p.designed} designed")
    for w in gc.warnings:
        click.echo(w.format(), err=True)


def _gh_escape(text: str, prop: bool = False) -> str:
    """Escape a GitHub workflow command's message (or, with ``prop``, a property value)."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def github_annotation(level: str, message: str, file: str | None = None, line: int | None = None,
                      col: int | None = None) -> str:
    """``::error file=F,line=N,col=M::MESSAGE``: GitHub Actions shows it on that line of the file."""
    props = [f"{k}={_gh_escape(str(v), prop=True)}" for k, v in (("file", file), ("line", line), ("col", col))
             if v is not None]
    return f"::{level}{' ' + ','.join(props) if props else ''}::{_gh_escape(message)}"


def _diag_annotation(d: Diagnostic) -> str:
    text = d.format()
    where = d.file + (f":{d.line}" if d.line is not None else "") + (f":{d.col}" if d.line and d.col else "")
    text = text.removeprefix("warning: ").removeprefix(where + ": ")
    return github_annotation("warning" if d.severity == "warning" else "error", text, d.file, d.line, d.col)


def _report_github(gc: GameCheck, strict: bool) -> None:
    r = gc.report
    for o in r.outcomes:
        if o.passed:
            continue
        file, path = o.rule.origin
        line = gc.game.manifest.locate(path)[0] if gc.game.manifest is not None else None
        click.echo(github_annotation("error", f"rule {o.rule.id}: expected {o.expected}, actual {o.actual}"
                                     f" ({o.rule.description}; rulebook: \"{o.rule.quote}\")",
                                     file or gc.game.manifest_file, line))
    for w in gc.warnings:
        click.echo(_diag_annotation(replace(w, severity="error") if strict else w))
    passed = sum(o.passed for o in r.outcomes)
    click.echo(f"{gc.game.id}: {len(r.outcomes)} rules, {passed} pass, {len(r.outcomes) - passed} fail, "
               f"{counted(len(gc.warnings), 'warning')}")


@main.command("check")
@click.argument("games", nargs=-1)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "github"]), default="text", show_default=True,
              help="text: for people; json: the versioned pnp-check report on stdout (see the README); "
              "github: errors, warnings and rule violations as GitHub Actions annotations.")
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
@click.option("--verbose", "-v", is_flag=True, help="Also list the rules that pass.")
@click.option("--strict", is_flag=True, help="Treat warnings (e.g. text below its minimum size) as errors.")
@data_option
@guarded
def check_cmd(games: tuple[str, ...], fmt: str, as_json: bool, verbose: bool, strict: bool,
              data: str | None) -> None:
    """Validate data and templates and verify each game's rulebook rules.

    Exit 0: all good; 1: rule violations; 2: invalid input.

    \b
    Examples:
      pnp check                 # every game
      pnp check golems -v       # list passing rules too
      pnp check --format json > report.json
      pnp check --format github --data .   # in a GitHub Actions workflow
    """
    from pnp.plan.session import Session
    from pnp.qa.check import check

    as_json = as_json or fmt == "json"
    github = fmt == "github" and not as_json
    root = _root(data)

    session = Session(root)
    results: list[dict[str, Any]] = []
    worst = 0
    for gid in _game_ids(root, games):
        try:
            gc = check(root, gid, session=session)
        except DataError as exc:
            worst = 2
            if as_json:
                results.append({"id": gid, "ok": False, "errors": [d.as_json() for d in exc.diagnostics],
                                "warnings": [], "rules": [], "provenance": []})
            elif github:
                for d in exc.diagnostics:
                    click.echo(_diag_annotation(d))
                click.echo(f"{gid}: {len(exc.diagnostics)} input problems")
            else:
                for d in exc.diagnostics:
                    click.echo(d.format(), err=True)
                click.echo(f"{gid}: {len(exc.diagnostics)} input problems", err=True)
            continue
        bad_warn = strict and bool(gc.warnings)
        if not gc.report.ok:
            worst = max(worst, 1)
        if bad_warn:
            worst = 2
        if as_json:
            results.append({
                "id": gid, "ok": gc.report.ok and not bad_warn, "errors": [],
                "warnings": [w.as_json() for w in gc.warnings],
                "rules": [o.as_json() for o in gc.report.outcomes],
                "provenance": [asdict(p) for p in gc.report.provenance],
            })
        elif github:
            _report_github(gc, strict)
        else:
            _report_text(gc, verbose)
    if as_json:
        click.echo(json.dumps({"format": "pnp-check", "version": JSON_FORMAT_VERSION, "games": results}, indent=2))
    sys.exit(worst)


@main.command("build")
@click.argument("games", nargs=-1)
@click.option("--out", "out", default="out", show_default=True, metavar="DIR",
              help="Output folder; PDFs go to DIR/<game>/<component>.pdf.")
@click.option("--paper", type=click.Choice(PAPER_CHOICES), default="letter", show_default=True, help=PAPER_HELP)
@click.option("--duplex", type=click.Choice(["long", "short", "none", "fold"]), default="long", show_default=True,
              help="long/short: each front page is followed by its back page, mirrored for that flip edge; "
              "fold: fronts and backs side by side on one page for printers without duplex (print "
              "single-sided, fold, glue, cut); none: fronts only.")
@click.option("--bleed", "bleed", type=click.FloatRange(0, 10), default=3.0, show_default=True, metavar="MM",
              help="Bleed around each piece's art, in mm.")
@click.option("--strict", is_flag=True, help="Treat warnings (e.g. text below its minimum size) as errors.")
@variant_options
@token_cut_option
@click.option("--force", is_flag=True,
              help="Render every component again, ignoring what the last build into --out recorded.")
@print_options
@data_option
@click.pass_context
@guarded
def build_cmd(ctx: click.Context, games: tuple[str, ...], out: str, paper: str, duplex: str, bleed: float,
              strict: bool, one_per_page: bool, ink_saver: bool, token_cut: str, jobs: int | None, force: bool,
              back_offset: tuple[float, float] | None, back_scale: tuple[float, float] | None, printer: str | None,
              data: str | None) -> None:
    """Render every component of each game (default: all) to printable PDFs.

    The rulebook check runs first; invalid data is never rendered. Builds are incremental: a
    game whose data, templates, fonts and options are unchanged since the last build into the
    same --out is not rendered again, and after an edit only the components it touches are
    (out/<game>/.pnp-build.json records what each PDF was made from; --force ignores it).
    Each game ends with a one-line preflight summary (see `pnp preflight`); its warnings count
    like layout warnings (errors with --strict).

    \b
    Examples:
      pnp build                          # every bundled game into out/
      pnp build golems --paper a4 --duplex short
      pnp build golems --paper universal                 # one file for A4 and Letter
      pnp build golems --token-cut circle                # round tokens with cut circles
      pnp build golems --out prints --bleed 0 --strict
      pnp build golems --one-per-page --out print-shop   # DriveThruCards-style pages
      pnp build golems --back-offset 0.8,-1.2            # after `pnp calibrate`
      pnp build golems --printer office                  # a profile from pnp.toml
      pnp build --jobs 1 --force                         # everything again, in one process
      pnp build golems --ink-saver                       # the low-ink variant, out/golems/ink-saver/
    """
    from pnp.pipeline import incremental
    from pnp.plan import digest
    from pnp.plan.options import output_folder
    from pnp.qa.figures import summary

    root = _root(data)
    opts = build_options(ctx, printer, paper, duplex, bleed, back_offset, back_scale, strict=strict,
                         one_per_page=one_per_page, ink_saver=ink_saver, token_cut=token_cut)
    paper, duplex, bleed = opts.paper, opts.duplex, opts.bleed_mm
    outdir = Path(out)
    gids = _game_ids(root, games)
    folders = {gid: output_folder(outdir, gid, opts) for gid in gids}
    for gid in gids:
        check_game_id(root, gid)
    records = {gid: None if force else incremental.load(folders[gid]) for gid in gids}
    hashes = digest.Hashes(root, gids, opts)
    current = {gid for gid in gids if (r := records[gid]) is not None and r.inputs == hashes.inputs()[gid]
               and r.intact(folders[gid])}
    done: dict[str, RenderedGame] = {}
    if len(current) < len(gids):
        done = _render_changed(root, [g for g in gids if g not in current], opts, outdir, jobs, records, hashes,
                               cached_warnings=[w for g in gids if g in current for w in records[g].warnings])
    elif strict and any(records[g].warnings for g in gids):  # type: ignore[union-attr]
        _fail_input([w for g in gids for w in records[g].warnings])  # type: ignore[union-attr,misc]
    else:
        for g in gids:
            for w in records[g].warnings:  # type: ignore[union-attr]
                click.echo(w, err=True)
    total = unchanged = 0
    variant = " (ink saver)" if ink_saver else ""
    for gid in gids:
        rec = records[gid]
        folder = folders[gid]
        figures = []
        if gid in done:
            rendered = done[gid]
            click.echo(f"{gid}: {rendered.checked.game.title}{variant}")
            for f in rendered.files:
                if f.preflight is not None:  # rendered now, or (reused) as the record has them
                    figures.append(f.preflight)
                grid = f", {f.plan.grid.cols}x{f.plan.grid.rows} per sheet" if f.plan.grid else ""
                size = len(f.data) if f.data is not None else f.path.stat().st_size
                same = " (unchanged)" if f.data is None else ""
                click.echo(f"  {f.path}  {counted(len(f.plan.fronts), 'piece')}, {counted(f.pages, 'page')}{grid}, "
                           f"{size / 1024:.0f} KB{same}")
                total += f.data is not None
                unchanged += f.data is None
            for n in rendered.checked.game.not_printed:
                click.echo(f"  also needed (not printed): {n.name} ({n.quantity})")
        else:
            assert rec is not None
            click.echo(f"{gid}: up to date (nothing changed since the last build into {folder})")
            for cid, cf in rec.components.items():
                grid = f", {cf.grid} per sheet" if cf.grid else ""
                click.echo(f"  {folder / cf.file}  {counted(cf.pieces, 'piece')}, {counted(cf.pages, 'page')}{grid}, "
                           f"{cf.bytes / 1024:.0f} KB (unchanged)")
                unchanged += 1
                figures += [p] if (p := rec.figures(cid)) is not None else []
            for line in rec.not_printed:
                click.echo(f"  also needed (not printed): {line}")
        click.echo(f"  {folder / (gid + '-contents.pdf')}  what was printed and what else you need")
        if figures:
            click.echo(f"  preflight: {summary(figures)} (ink coverage: pnp preflight {gid})")
    kept = f", {unchanged} unchanged" if unchanged else ""
    click.echo(f"pnp: wrote {total} PDFs to {outdir}/{kept} (paper {paper}, duplex {duplex}, bleed {bleed:g} mm"
               f"{', ink saver' if ink_saver else ''})")


def _render_changed(root: DataRoot, gids: list[str], opts: BuildOptions, outdir: Path, jobs: int | None,
                    records: dict[str, Any], hashes: Any, cached_warnings: list[str]) -> dict[str, RenderedGame]:
    """Check the games whose inputs changed, render the components whose fingerprint changed,
    write them all (or, on any problem, nothing) and record what they were made from."""
    from pnp.pipeline import incremental
    from pnp.pipeline.build import commit, default_jobs, render_games
    from pnp.plan import digest
    from pnp.plan.options import output_folder
    from pnp.plan.session import Session
    from pnp.qa.check import check, layout_errors

    session = Session(root)
    checked: list[GameCheck] = []
    errors: list[Diagnostic] = []
    for gid in gids:
        try:
            gc = check(root, gid, opts, session, layout=False)
        except DataError as exc:
            errors.extend(exc.diagnostics)
            continue
        checked.append(gc)
    if errors:
        _fail_input(errors)
    if any(not gc.report.ok for gc in checked):
        # Nothing will be drawn, so the pieces' own errors would go unseen: they come first.
        late = [d for gc in checked for d in layout_errors(gc)]
        if late:
            _fail_input(late)
        for gc in checked:
            if not gc.report.ok:
                _report_text(gc, False)
        click.echo("pnp: rulebook violations; nothing was rendered (run `pnp check` for details).", err=True)
        sys.exit(1)
    prints: dict[str, dict[str, str]] = {}

    def fingerprints() -> dict[str, dict[str, str]]:
        if not prints:
            salt = digest.engine_digest()
            prints.update({gc.game.id: digest.component_fingerprints(
                session, gc.game, gc.opts, gc.plans, salt, hashes.fonts())
                           for gc in checked})
        return prints

    def reuse(gc: GameCheck, plan: Any) -> bool:
        rec = records.get(gc.game.id)
        return rec is not None and rec.component_current(output_folder(outdir, gc.game.id, opts), plan.component.id,
                                                         fingerprints()[gc.game.id][plan.component.id])

    jobs = jobs or default_jobs()
    def recorded(gc: GameCheck, plan: Any) -> Any:
        rec = records.get(gc.game.id)
        return rec.figures(plan.component.id) if rec is not None else None

    rendered = render_games(root, checked, outdir, session, jobs=jobs, reuse=reuse, reused_figures=recorded)
    fingerprints()
    warn_text = {g.checked.game.id: incremental.warning_text(g, records.get(g.checked.game.id)) for g in rendered}
    warnings: list[Diagnostic | str] = [w for gc in checked for w in gc.warnings]
    warnings += cached_warnings
    warnings += [w for g in rendered for w in g.warnings]
    warnings += [w for g in rendered for f in g.files if f.data is None
                 for w in warn_text[g.checked.game.id][f.plan.component.id]]
    if opts.strict and warnings:
        _fail_input(warnings)
    for w in warnings:
        click.echo(w if isinstance(w, str) else w.format(), err=True)
    for g in rendered:
        incremental.remove(g.folder)
    commit(rendered)
    from pnp.render.write import write_atomic

    for g in rendered:
        gid = g.checked.game.id
        record = incremental.record_for(g, hashes.inputs()[gid], prints[gid], warn_text[gid], records.get(gid))
        write_atomic(g.folder / incremental.CACHE_NAME, incremental.dump(record))
    return {g.checked.game.id: g for g in rendered}


@main.command("preflight")
@click.argument("games", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="The versioned pnp-preflight report on stdout (see the README).")
@click.option("--ink-saver", is_flag=True,
              help="Check the low-ink variant (as `pnp build --ink-saver` makes it) and show its ink coverage "
              "against the normal build's.")
@click.option("--strict", is_flag=True, help="Treat preflight warnings as errors (exit 2).")
@sheet_options
@data_option
@guarded
def preflight_cmd(games: tuple[str, ...], as_json: bool, ink_saver: bool, strict: bool, paper: str, duplex: str,
                  bleed: float, token_cut: str, data: str | None) -> None:
    """Check each game (default: all) as a print shop would, per component and sheet: ink
    coverage (pages rasterised at 20 dpi), the smallest text and rules text, the thinnest
    stroke, image resolution, text or icons outside the 3 mm safe zone, cut lines that cross a
    piece, page margins, pieces per sheet, sheets and file size. Renders in memory; writes
    nothing.

    Thresholds (rules text 8 pt unless game.json says otherwise, strokes 0.25 pt, images
    200 ppi, margins 5 mm) give warnings; exit 0, or 2 for invalid input or, with --strict,
    any warning.

    \b
    Examples:
      pnp preflight golems
      pnp preflight --ink-saver          # every game: the variant's saving
      pnp preflight golems --paper a4 --json > preflight.json
    """
    from pnp.plan.session import Session

    root = _root(data)
    session = Session(root)
    opts = BuildOptions(paper=paper, duplex=duplex, bleed_mm=bleed, ink_saver=ink_saver, token_cut=token_cut)
    results: list[dict[str, Any]] = []
    worst = 0
    for gid in _game_ids(root, games):
        try:
            pre = _preflight_game(root, gid, opts, session)
        except DataError as exc:
            worst = 2
            if as_json:
                results.append({"id": gid, "ok": False, "errors": [d.as_json() for d in exc.diagnostics]})
            else:
                for d in exc.diagnostics:
                    click.echo(d.format(), err=True)
                click.echo(f"{gid}: {len(exc.diagnostics)} input problems", err=True)
            continue
        if strict and pre.findings:
            worst = 2
        if as_json:
            results.append({"ok": not (strict and pre.findings), "errors": [], "paper": paper, "duplex": duplex,
                            "bleed_mm": bleed, **pre.as_json()})
        else:
            _preflight_text(pre, opts)
    if as_json:
        click.echo(json.dumps({"format": "pnp-preflight", "version": JSON_FORMAT_VERSION, "games": results}, indent=2))
    sys.exit(worst)


def _preflight_game(root: DataRoot, gid: str, opts: BuildOptions, session: Session) -> Any:
    from pnp.qa.check import check
    from pnp.qa.preflight import preflight_game

    check_game_id(root, gid)
    pre = preflight_game(session, check(root, gid, opts, session))
    if opts.ink_saver:  # the saving: the normal build's coverage, measured alike
        normal = check(root, gid, replace(opts, ink_saver=False), session)
        pre = replace(pre, normal_coverage=preflight_game(session, normal, lines=False).coverage)
    return pre


def _preflight_text(pre: Any, opts: BuildOptions) -> None:
    t = pre.thresholds
    g = pre.game
    variant = ", ink saver" if pre.ink_saver else ""
    click.echo(f"{g.id}: {g.title} (paper {opts.paper}, duplex {opts.duplex}, bleed {opts.bleed_mm:g} mm{variant})")
    click.echo(f"  {'component':<18} {'pieces':>6} {'/sheet':>6} {'sheets':>6} {'pages':>5} {'KB':>6} {'ink':>5}"
               f" {'text':>7} {'rules':>7} {'stroke':>7} {'margin':>8}")

    def val(e: Any, fmt: str = "g") -> str:
        return "-" if e is None else f"{e.value:{fmt}}"

    for c in pre.components:
        ink = f"{c.mean_coverage * 100:.0f}%" if c.mean_coverage is not None else "-"
        kb = f"{c.bytes / 1024:.0f}" if c.bytes is not None else "-"
        per = f"1/{c.parts}" if c.parts > 1 else str(c.per_sheet)
        margin = f"{c.margin_mm:.1f} mm" if c.margin_mm is not None else "-"
        click.echo(f"  {c.component:<18} {c.pieces:>6} {per:>6} {c.sheets:>6} {c.pages:>5} {kb:>6} {ink:>5}"
                   f" {val(c.smallest_text):>7} {val(c.smallest_rules):>7} {val(c.thinnest_stroke, '.2f'):>7}"
                   f" {margin:>8}")
    pages = sum(c.pages for c in pre.components)
    cov = pre.coverage
    line = f"  ink coverage: {cov * 100:.1f} % per page (mean of {pages} pages)" if cov is not None else ""
    if cov is not None and pre.normal_coverage:
        ratio = cov / pre.normal_coverage
        line += f"; normal build {pre.normal_coverage * 100:.1f} %: {ratio:.2f}x, {(1 - ratio) * 100:.0f} % less ink"
    if line:
        click.echo(line)
    for name, label, minimum in (("smallest_text", "smallest text", None),
                                 ("smallest_rules", "smallest rules text", t.rules_text_pt),
                                 ("thinnest_stroke", "thinnest stroke", t.stroke_pt),
                                 ("lowest_ppi", "lowest image resolution", t.image_ppi)):
        e = pre.extreme(name)
        if e is None:
            click.echo("  images: none" if name == "lowest_ppi" else f"  {label}: none")
            continue
        unit = "ppi" if name == "lowest_ppi" else "pt"
        value = f"{e.value:.2f}" if name == "thinnest_stroke" else f"{e.value:.0f}" if unit == "ppi" else f"{e.value:g}"
        floor = f" (minimum {minimum:g})" if minimum is not None else ""
        click.echo(f"  {label}: {value} {unit}{floor}, {e.where.text()}")
    if t.reason:
        click.echo(f"  rules text minimum {t.rules_text_pt:g} pt for this game: {t.reason}")
    outside = sum(c.outside_safe for c in pre.components)
    click.echo(f"  safe zone ({t.safe_mm:g} mm inside the trim): "
               + (f"{outside} text or icon elements outside" if outside else "kept"))
    cuts = sum(c.cut_crossings for c in pre.components)
    click.echo("  cut lines: " + (f"{cuts} cross a piece" if cuts else "none crosses a piece"))
    if pre.margin_mm is not None:
        click.echo(f"  margins: {pre.margin_mm:.1f} mm or more from the paper's edge to a trim "
                   f"(minimum {t.margin_mm:g} mm)")
    if pre.waived:
        reasons: dict[tuple[str, str], list[str]] = {}
        for w in pre.waived:
            reasons.setdefault((w.check.replace("_", " "), w.reason), []).append(w.component)
        click.echo(f"  exempted by the data ({len(pre.waived)}):")
        for (what, why), comps in reasons.items():
            click.echo(f"    {what} ({len(comps)} x, {', '.join(dict.fromkeys(comps))}): {why}")
    for d in pre.findings:
        click.echo(d.format(), err=True)
    n = len(pre.findings)
    click.echo(f"  {counted(n, 'warning')}")


@main.command("calibrate")
@click.option("--paper", type=click.Choice(PAPER_CHOICES), default="letter", show_default=True, help=PAPER_HELP)
@click.option("--duplex", type=click.Choice(["long", "short"]), default="long", show_default=True,
              help="The flip edge you will print with.")
@click.option("--out", "out", default="out", show_default=True, metavar="DIR",
              help="Output folder; writes DIR/calibration-<paper>-<duplex>.pdf.")
@print_options
@click.pass_context
@guarded
def calibrate_cmd(ctx: click.Context, paper: str, duplex: str, out: str, back_offset: tuple[float, float] | None,
                  back_scale: tuple[float, float] | None, printer: str | None) -> None:
    """Write a two-page duplex calibration sheet.

    Print it double-sided at 100 %, hold it to the light and read DX and DY where the back's
    lines cross the front's rulers; build with --back-offset DX,DY (and --back-scale when the
    left/right or top/bottom readings differ). Print it again with the same options (or
    --printer) to check: every line should then sit on 0.

    \b
    Examples:
      pnp calibrate --paper a4
      pnp calibrate --back-offset 0.8,-1.2     # check a correction
      pnp calibrate --printer office
    """
    from pnp.impose.sheet import PAPERS
    from pnp.layout.fonts import FontBook
    from pnp.products.calibrate import calibration_pdf
    from pnp.render.draw import BackCorrection
    from pnp.render.write import write_atomic
    from pnp.units import MM

    v = apply_profile(ctx, printer, {"paper": paper, "duplex": duplex, "back_offset": back_offset,
                                     "back_scale": back_scale})
    if v["duplex"] not in ("long", "short"):
        raise click.BadParameter(f"the profile's duplex {v['duplex']!r} has no flip edge to calibrate")
    (dx, dy), (sx, sy) = v["back_offset"] or (0.0, 0.0), v["back_scale"] or (1.0, 1.0)
    fonts = FontBook(DataRoot(bundled_root()).font_dirs())
    data = calibration_pdf(PAPERS[v["paper"]], v["duplex"], fonts, BackCorrection(dx * MM, dy * MM, sx, sy))
    path = Path(out) / f"calibration-{v['paper']}-{v['duplex']}.pdf"
    write_atomic(path, data)
    click.echo(f"wrote {path}: print it double-sided ({v['duplex']} edge, 100 %), hold it to the light, "
               "read DX and DY, then build with --back-offset DX,DY")


# --------------------------------------------------------------------------- authoring


@main.command("schema")
@click.option("--out", "out", default="out/schemas", show_default=True, metavar="DIR",
              help="Output folder for game, component, template and condition .schema.json.")
@guarded
def schema_cmd(out: str) -> None:
    """Write the JSON Schemas that pnp checks data and templates against, for editors
    (autocomplete, inline errors) and other tools.

    Point a file at its schema with a "$schema" key (a path relative to the file, or a URL),
    e.g. "$schema": "../../schemas/component.schema.json".

    \b
    Examples:
      pnp schema
      pnp schema --out schemas
    """
    from pnp.input.validate import schema_bytes
    from pnp.render.write import write_atomic

    folder = Path(out)
    for name, data in schema_bytes().items():
        write_atomic(folder / name, data)
        click.echo(str(folder / name))


@main.command("new")
@click.argument("game")
@click.option("--path", "path", default=None, metavar="DIR",
              help="Data root to create the game in: DIR/card_data/GAME and DIR/templates/GAME "
              "(default: the current folder, or --data).")
@data_option
@guarded
def new_cmd(game: str, path: str | None, data: str | None) -> None:
    """Scaffold a minimal, valid game GAME: a manifest with one rulebook rule, a deck of three
    cards, a style, a card front and a back, plus schemas/ for editors. `pnp check` and
    `pnp build` accept it as it is. An existing game is never overwritten (exit 2).

    \b
    Examples:
      pnp new mygame --path mygames
      pnp check mygame --data mygames && pnp build mygame --data mygames
    """
    from pnp.products.scaffold import scaffold

    root = Path(path or data or ".")
    files = scaffold(root, game)
    for f in files:
        click.echo(str(f))
    where = f" --data {root}" if str(root) != "." else ""
    click.echo(f"pnp: created game {game!r}; next: pnp check {game}{where} && pnp build {game}{where}")


@main.command("watch")
@click.argument("game")
@click.option("--out", "out", default="out", show_default=True, metavar="DIR",
              help="Output folder; PDFs go to DIR/<game>/<component>.pdf.")
@click.option("--interval", type=click.FloatRange(0.05, 3600), default=1.0, show_default=True, metavar="S",
              help="Seconds between polls of the files.")
@sheet_options
@variant_options
@print_options
@data_option
@click.pass_context
@guarded
def watch_cmd(ctx: click.Context, game: str, out: str, interval: float, paper: str, duplex: str, bleed: float,
              token_cut: str, one_per_page: bool, ink_saver: bool, jobs: int | None,
              back_offset: tuple[float, float] | None, back_scale: tuple[float, float] | None, printer: str | None,
              data: str | None) -> None:
    """Rebuild GAME's PDFs whenever its data, templates (the extends chains) or fonts change,
    for the edit-look loop. It writes what `pnp build` with the same options writes (the PDFs,
    the contents sheet, and the build record while the rules pass, so a later build finds them
    up to date); only the components whose files changed are rendered, and a PDF whose bytes
    did not change is not written. Errors and failing rules are printed and the watcher carries
    on (rules do not stop a rebuild here, unlike `pnp build`). Ctrl-C stops it.

    \b
    Examples:
      pnp watch golems
      pnp watch mygame --data mygames --out out --interval 0.5
      pnp watch golems --printer office          # the files `pnp build golems --printer office` writes
    """
    import time

    from pnp.pipeline.build import default_jobs
    from pnp.pipeline.watch import WatchState, watch_once

    root = _root(data)
    opts = build_options(ctx, printer, paper, duplex, bleed, back_offset, back_scale, one_per_page=one_per_page,
                         ink_saver=ink_saver, token_cut=token_cut)
    state = WatchState(root, game, Path(out), opts, jobs=jobs or default_jobs())
    click.echo(f"pnp: watching {game} in {root.path} (every {interval:g} s; Ctrl-C to stop)")
    try:
        while True:
            try:
                lines = watch_once(state)
            except OutputError as exc:
                lines = [f"pnp: {exc}"]
            except Exception as exc:
                if os.environ.get("PNP_DEBUG"):
                    raise
                lines = [f"pnp: internal error: {type(exc).__name__}: {exc} (this is a bug in pnp; "
                         "set PNP_DEBUG=1 to see the traceback)"]
            if lines:
                stamp = time.strftime("%H:%M:%S")
                for line in lines:
                    click.echo(f"[{stamp}] {line}")
            time.sleep(interval)
    except KeyboardInterrupt:
        click.echo("pnp: stopped watching")
        sys.exit(0)


# --------------------------------------------------------------------------- exports and previews (pnp.export)


def _checked_for_export(root: DataRoot, game: str, bleed: float, session: Session,
                        allow_violations: bool = False) -> GameCheck:
    """Check one game for an export (print-shop pieces: trim + bleed). Rulebook violations stop
    an export (exit 1) like a build, unless ``allow_violations`` (a preview while editing)."""
    from pnp.qa.check import check

    gc = check(root, game, BuildOptions(bleed_mm=bleed, one_per_page=True), session)
    for w in gc.warnings:
        click.echo(w.format(), err=True)
    if not gc.report.ok:
        _report_text(gc, False)
        if not allow_violations:
            click.echo("pnp: rulebook violations; nothing was exported (run `pnp check` for details).", err=True)
            sys.exit(1)
        click.echo("pnp: rulebook violations (previewing anyway; run `pnp check` for details).", err=True)
    return gc


def _out_option(what: str) -> Callable[..., Any]:
    return click.option("--out", "out", default="out", show_default=True, metavar="DIR", help=f"Output folder; {what}.")


@main.group("export")
def export_group() -> None:
    """Export pieces as images, rasterised from pnp's own PDF: one PNG per piece and side for
    print-on-demand services, or Tabletop Simulator deck sheets.

    \b
    Examples:
      pnp export png golems golem-deck
      pnp export tts golems --out tts
    """


@export_group.command("png")
@click.argument("game")
@click.argument("component", required=False)
@click.option("--dpi", type=click.IntRange(36, 1200), default=300, show_default=True,
              help="Resolution; each side is round(mm / 25.4 * dpi) px.")
@click.option("--bleed", "bleed", type=click.FloatRange(0, 10), default=3.0, show_default=True, metavar="MM",
              help="Bleed around each piece's art, in mm (a component's own bleed wins).")
@_out_option("PNGs go to DIR/<game>/png/<component>/<item>-front.png and -back.png, with index.json")
@data_option
@guarded
def export_png_cmd(game: str, component: str | None, dpi: int, bleed: float, out: str, data: str | None) -> None:
    """One PNG per distinct item and side (front, back) of every component of GAME (or of
    COMPONENT), with bleed, RGB, plus an index.json listing items, copies and file names.

    A poker card (63.5 x 88.9 mm) with --bleed 3.175 at 300 dpi is 825 x 1125 px, the size The
    Game Crafter asks for.

    \b
    Examples:
      pnp export png golems
      pnp export png golems golem-deck --dpi 600
      pnp export png mygame deck --bleed 3.175 --data ~/my-games
    """
    from pnp.products.exports import export_png
    from pnp.products.images import select_plans

    root = _root(data)
    from pnp.plan.session import Session

    session = Session(root)
    gc = _checked_for_export(root, game, bleed, session)
    select_plans(gc, component)  # an unknown component: exit 2 before any output
    click.echo(f"{gc.game.id}: {gc.game.title}")
    total = 0
    for e in export_png(session, gc, Path(out), dpi, component):
        items = len(e.component.items)
        click.echo(f"  {e.folder}/  {len(e.files)} PNGs ({counted(items, 'item')}), "
                   f"{e.size_px[0]} x {e.size_px[1]} px; {e.index.name}")
        total += len(e.files)
    click.echo(f"pnp: wrote {total} PNGs to {Path(out) / gc.game.id / 'png'}/ ({dpi} dpi)")


@export_group.command("tts")
@click.argument("game")
@click.argument("component", required=False)
@click.option("--dpi", type=click.IntRange(36, 1200), default=300, show_default=True,
              help="Resolution of the faces before a sheet is scaled down to fit 4096 x 4096 px.")
@_out_option("sheets go to DIR/<game>/tts/<component>/")
@data_option
@guarded
def export_tts_cmd(game: str, component: str | None, dpi: int, out: str, data: str | None) -> None:
    """Tabletop Simulator deck sheets for every component of GAME with a back (or COMPONENT):
    grids of up to 10 x 7 faces, the hidden-card face in the last slot, RGB, at most
    4096 x 4096 px, the back image, and <component>.json beside them with TTS CustomDeck
    entries and which sheet and slot holds which item (and how many copies).

    \b
    Examples:
      pnp export tts golems
      pnp export tts golems golem-deck --out tts
    """
    from pnp.products.exports import export_tts

    root = _root(data)
    from pnp.plan.session import Session

    session = Session(root)
    gc = _checked_for_export(root, game, 0.0, session)
    done, skipped = export_tts(session, gc, Path(out), dpi, component)
    click.echo(f"{gc.game.id}: {gc.game.title}")
    for e in done:
        click.echo(f"  {e.folder}/  {len(e.files)} images, faces {e.size_px[0]} x {e.size_px[1]} px; {e.index.name}")
    if skipped:
        click.echo(f"  skipped (no back, not a deck): {', '.join(c.id for c in skipped)}")
    click.echo(f"pnp: wrote {counted(len(done), 'Tabletop Simulator deck')} "
               f"to {Path(out) / gc.game.id / 'tts'}/")


@main.command("preview")
@click.argument("game")
@click.argument("component")
@click.argument("item", required=False)
@click.option("--dpi", type=click.IntRange(36, 600), default=150, show_default=True)
@_out_option("writes DIR/preview/<game>-<component>[-<item>].png")
@data_option
@guarded
def preview_cmd(game: str, component: str, item: str | None, dpi: int, out: str, data: str | None) -> None:
    """A PNG of one ITEM of COMPONENT (front and back side by side) or, without ITEM, a contact
    sheet of every distinct item, for a designer iterating on data. Prints the file's path.
    Rulebook violations are reported but do not stop a preview.

    \b
    Examples:
      pnp preview golems golem-deck
      pnp preview golems golem-deck flesh --dpi 300
    """
    from pnp.products.preview import preview

    root = _root(data)
    from pnp.plan.session import Session

    session = Session(root)
    gc = _checked_for_export(root, game, 3.0, session, allow_violations=True)
    click.echo(str(preview(session, gc, Path(out), component, item, dpi)))


if __name__ == "__main__":
    main()

