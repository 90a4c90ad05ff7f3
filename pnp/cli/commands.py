"""The ``pnp`` commands: argv -> calls into the library front door (``pnp.api``) -> printed
reports and an exit code. A thin click layer: parsing here, printing in ``pnp.cli.output``,
shared options in ``pnp.cli.options``; everything else is the library's.

Size: over 500 lines because most of it is the commands' declarations and help text (each with
examples), which click reads from here.

Exit codes: 0 all good; 1 rulebook violations; 2 invalid input (data, templates, fonts, images,
output folder) or, with --strict, warnings; 3 an internal error (a bug: please report it)."""

from __future__ import annotations

import gc
import json
import sys
from pathlib import Path
from typing import Any

import click
from msgspec.structs import asdict

from pnp import api
from pnp.cli.options import (
    PAPER_CHOICES,
    PAPER_HELP,
    Finite,
    Integer,
    again,
    apply_profile,
    build_options,
    color_option,
    complete_components,
    complete_games,
    complete_items,
    data_option,
    data_root,
    die_line_option,
    gang_option,
    max_megapixels_option,
    megapixels,
    out_option,
    paper_options,
    physical_out,
    print_options,
    root_line,
    shop_option,
    token_cut_option,
    variant_options,
)
from pnp.cli.output import (
    JSON_FORMAT_VERSION,
    build_text,
    diag_annotation,
    echo,
    fail_input,
    fetched_text,
    game_problems,
    guarded,
    internal_error,
    preflight_text,
    progress_bar,
    report_github,
    report_text,
    run_click,
    show_problems,
    stopped,
)
from pnp.cli.shop import shop_run
from pnp.errors import DataError, Diagnostic, OutputError, counted, one_line, terminate_as_interrupt
from pnp.impose.sheet import DEFAULT_BLEED_MM, DEFAULT_DUPLEX, DEFAULT_PAPER, DUPLEX_MODES, FLIP_EDGES, MAX_BLEED_MM
from pnp.input import kinds
from pnp.input.project import DataRoot, bundled_root, check_game_id, find_root, load_game, shown_path
from pnp.products.scaffold import scaffold
from pnp.qa.check import GameCheck
from pnp.version import __version__


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
    terminate_as_interrupt()  # a `kill` stops a command as a Ctrl-C does (before this: nothing written yet)
    try:
        run_click(main)
    finally:
        gc.freeze()  # so the interpreter skips its final full collection on the way out


@main.command("list")
@data_option
@guarded
def list_cmd(data: str | None) -> None:
    """List the games and, per game, each component with its kind, size and piece count.

    \b
    Example:
      pnp list
    """

    try:
        root = data_root(data)
        ids = api.game_ids(root)
    except DataError as exc:
        fail_input(exc.diagnostics)
    echo(root_line(root, data))
    problems: list[Diagnostic] = []
    for gid in ids:
        try:
            game = load_game(root, gid)
        except DataError as exc:
            n = len(exc.diagnostics)
            echo(f"{gid}: cannot be loaded ({counted(n, 'problem')}; see below)")
            show_problems(exc.diagnostics, "  ")
            problems.extend(exc.diagnostics)
            continue
        lo, hi = game.players
        players = counted(lo, "player") if hi == lo else f"{lo}-{hi} players" if hi else f"{lo}+ players"
        echo(f"{game.id}: {game.title} ({players}) — {counted(sum(c.pieces for c in game.components), 'piece')}")
        rows = [(c.id, c.kind + (f" {c.shape}" if c.shape != "rect" else ""), f"{c.size[0]:g} x {c.size[1]:g} mm",
                 counted(c.pieces, "piece"), f"({len(c.items)} distinct)") for c in game.components]
        w = [max((len(r[i]) for r in rows), default=0) for i in range(4)]
        for r in rows:  # each column as wide as its longest entry: a long id or size never shifts the rest
            echo(f"  {r[0]:<{w[0]}}  {r[1]:<{w[1]}}  {r[2]:<{w[2]}}  {r[3]:>{w[3]}}  {r[4]}")
        for n in game.not_printed:
            echo(f"  not printed: {n.name} ({n.quantity})")
    echo("\nkinds: " + ", ".join(f"{k.name} ({'/'.join(k.shapes)})" for k in kinds.KINDS.values()))
    if problems:
        sys.exit(2)


@main.command("check")
@click.argument("games", nargs=-1, shell_complete=complete_games)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "github"]), default="text", show_default=True,
              help="text: for people; json: the versioned pnp-check report on stdout (see docs/ci.md); "
              "github: errors, warnings and rule violations as GitHub Actions annotations.")
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
@click.option("--verbose", "-v", is_flag=True, help="Also list the rules that pass.")
@click.option("--strict", is_flag=True, help="Treat warnings (e.g. text below its minimum size) as errors.")
@click.option("--one-per-page", is_flag=True, help="Check for print-shop PDFs (each piece on its own page), as "
              "`pnp build --one-per-page` makes them.")
@click.option("--gang", is_flag=True, help="Count the ganged file `pnp build --gang` also writes in the page "
              "budget.")
@paper_options
@data_option
@guarded
def check_cmd(games: tuple[str, ...], fmt: str, as_json: bool, verbose: bool, strict: bool, one_per_page: bool,
              gang: bool, paper: str, duplex: str, bleed: float, token_cut: str, data: str | None) -> None:
    """Validate data and templates and verify each game's rulebook rules.

    Pieces are laid out on the sheets `pnp build` with the same --paper, --duplex, --bleed,
    --token-cut, --one-per-page and --gang would use, so what that build would refuse (a piece
    too big for --duplex fold, more pages than the page budget) is refused here too.

    Exit 0: all good; 1: rule violations; 2: invalid input.

    \b
    Examples:
      pnp check                 # every game
      pnp check golems -v       # list passing rules too
      pnp check --format json > report.json
      pnp check --format github --data .   # in a GitHub Actions workflow
    """
    as_json = as_json or fmt == "json"
    github = fmt == "github" and not as_json
    try:
        report = api.check(games or None, data=data_root(data), strict=strict, paper=paper, duplex=duplex,
                           bleed_mm=bleed, token_cut=token_cut, print_shop=one_per_page, gang=gang)
        errors = report.errors
    except DataError as exc:  # no data root, no games, an unknown game id: not one game's problem
        errors = exc.diagnostics
    if errors:  # the report a program reads says so too: JSON on stdout, annotations for GitHub
        if as_json:
            echo(_check_json([d.as_json() for d in errors], []))
        elif github:
            for d in errors:
                echo(diag_annotation(d))
        fail_input(errors)
    results: list[dict[str, Any]] = []
    for g in report.games:
        if g.checked is None:
            if as_json:
                results.append({"id": g.id, "ok": False, "errors": [d.as_json() for d in g.errors],
                                "warnings": [], "document": "", "rules": [], "provenance": []})
            elif github:
                for d in g.errors:
                    echo(diag_annotation(d))
                echo(f"{one_line(g.id)}: {counted(len(g.errors), 'input problem')}")
            else:
                game_problems(g.id, g.errors)
            continue
        gc = g.checked
        if as_json:
            results.append({
                "id": g.id, "ok": gc.report.ok and not (strict and gc.warnings), "errors": [],
                "warnings": [w.as_json() for w in gc.warnings], "document": gc.document,
                "rules": [o.as_json() for o in gc.report.outcomes],
                "provenance": [asdict(p) for p in gc.report.provenance],
            })
        elif github:
            report_github(gc, strict)
        else:
            report_text(gc, verbose)
    if as_json:
        echo(_check_json([], results))
    sys.exit(report.exit_code)


def _check_json(errors: list[dict[str, Any]], games: list[dict[str, Any]]) -> str:
    """The versioned `pnp check --format json` report (docs/ci.md)."""
    return json.dumps({"format": "pnp-check", "version": JSON_FORMAT_VERSION, "errors": errors, "games": games},
                      indent=2)


@main.command("build")
@click.argument("games", nargs=-1, shell_complete=complete_games)
@click.option("--out", "out", callback=physical_out, default="out", show_default=True, metavar="DIR",
              help="Output folder; PDFs go to DIR/<game>/<component>.pdf.")
@click.option("--paper", type=click.Choice(PAPER_CHOICES), default=DEFAULT_PAPER, show_default=True, help=PAPER_HELP)
@click.option("--duplex", type=click.Choice(DUPLEX_MODES), default=DEFAULT_DUPLEX, show_default=True,
              help="long/short: each front page is followed by its back page, mirrored for that flip edge; "
              "fold: fronts and backs side by side on one page for printers without duplex (print "
              "single-sided, fold, glue, cut); none: fronts only.")
@click.option("--bleed", "bleed", type=Finite(0, MAX_BLEED_MM, mm=True), default=DEFAULT_BLEED_MM, show_default=True,
              metavar="MM",
              help="Bleed around each piece's art, in mm.")
@click.option("--strict", is_flag=True, help="Treat warnings (e.g. text below its minimum size) as errors.")
@variant_options
@color_option
@die_line_option
@gang_option
@token_cut_option
@click.option("--force", is_flag=True,
              help="Render every component again, ignoring what the last build into --out recorded.")
@click.option("--verbose", "-v", is_flag=True,
              help="A line per file written (pieces, pages, grid, size), what else each game needs, and the "
              "preflight figures; without it, one line per game.")
@click.option("--refresh", is_flag=True, help="Fetch published sheets first (as `pnp fetch`); a failed fetch "
              "keeps the cached copy, which the build then uses.")
@shop_option("PDF shops: drivethrucards; the PNG shops (thegamecrafter, makeplayingcards, printerstudio) are "
             "`pnp export png --shop`")
@print_options
@data_option
@click.pass_context
@guarded
def build_cmd(ctx: click.Context, games: tuple[str, ...], out: str, paper: str, duplex: str, bleed: float,
              strict: bool, one_per_page: bool, ink_saver: bool, token_cut: str, jobs: int | None, force: bool,
              refresh: bool, back_offset: tuple[float, float] | None, back_scale: tuple[float, float] | None,
              printer: str | None, data: str | None, verbose: bool, color: str, die_line: bool, gang: bool,
              shop: str | None) -> None:
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
      pnp build golems --one-per-page --color cmyk       # PDF/X-4 in CMYK for a print shop
      pnp build golems --one-per-page --die-line         # with CutContour die lines
      pnp build golems --gang                            # also golems-ganged.pdf: fewer sheets
      pnp build mygame --shop drivethrucards             # out/mygame/shops/drivethrucards/
    """
    if shop is not None:
        root = data_root(data)
        click.echo(root_line(root, data))
        shop_run(ctx, "build", shop, api.game_ids(root, games or None), None, root, out, jobs)
        return
    opts = build_options(ctx, printer, paper, duplex, bleed, back_offset, back_scale, strict=strict,
                         print_shop=one_per_page, ink_saver=ink_saver, token_cut=token_cut, color=color,
                         die_line=die_line, gang=gang)
    root = data_root(data)
    echo(root_line(root, data))
    if refresh:
        fetched_text(api.fetch(games or None, data=root))
    with progress_bar("rendering") as progress:
        report = api.build(games or None, data=root, out=out, force=force, jobs=jobs, progress=progress,
                           **asdict(opts))
    if report.errors:
        fail_input(report.errors)
    if report.failed:
        for gc in report.failed:
            report_text(gc, False)
        ids = [gc.game.id for gc in report.failed]
        echo(f"pnp: rulebook violations; nothing was rendered (`{again('check', *ids)}` for details).", err=True)
        sys.exit(1)
    if opts.strict and report.warnings:
        fail_input(report.warnings)
    show_problems(report.warnings)
    build_text(report, verbose)


@main.command("preflight")
@click.argument("games", nargs=-1, shell_complete=complete_games)
@click.option("--json", "as_json", is_flag=True, help="The versioned pnp-preflight report on stdout (see docs/ci.md).")
@click.option("--ink-saver", is_flag=True,
              help="Check the low-ink variant (as `pnp build --ink-saver` makes it) and show its ink coverage "
              "against the normal build's.")
@click.option("--strict", is_flag=True, help="Treat preflight warnings as errors (exit 2).")
@paper_options
@max_megapixels_option
@data_option
@guarded
def preflight_cmd(games: tuple[str, ...], as_json: bool, ink_saver: bool, strict: bool, paper: str, duplex: str,
                  bleed: float, token_cut: str, max_megapixels: int | None, data: str | None) -> None:
    """Check each game (default: all) as a print shop would, per component and sheet: ink
    coverage (pages rasterised at 20 dpi), the smallest text and rules text, the thinnest
    stroke, image resolution, text or icons outside the 3 mm safe zone, cut lines that cross a
    piece, page margins, pieces per sheet, sheets and file size. Renders in memory; writes
    nothing.

    Thresholds (rules text 8 pt unless game.json says otherwise, strokes 0.25 pt, images
    200 ppi, margins 5 mm) give warnings; exit 0, or 2 for invalid input or, with --strict,
    any warning. The pages rasterised to measure are held to the exports' pixel budget
    (--max-megapixels): a component past it is reported unmeasured, with a warning.

    \b
    Examples:
      pnp preflight golems
      pnp preflight --ink-saver          # every game: the variant's saving
      pnp preflight golems --paper a4 --json > preflight.json
    """
    report = api.preflight(games or None, data=data_root(data), paper=paper, duplex=duplex, bleed_mm=bleed,
                           ink_saver=ink_saver, token_cut=token_cut, strict=strict,
                           max_pixels=megapixels(max_megapixels))
    if report.errors:
        fail_input(report.errors)
    results: list[dict[str, Any]] = []
    for g in report.games:
        if g.preflight is None:
            if as_json:
                results.append({"id": g.id, "ok": False, "errors": [d.as_json() for d in g.errors]})
            else:
                game_problems(g.id, g.errors)
            continue
        pre = g.preflight
        if as_json:
            results.append({"ok": not (strict and pre.findings), "errors": [], "paper": paper, "duplex": duplex,
                            "bleed_mm": bleed, **pre.as_json()})
        else:
            preflight_text(pre, report.opts)
    if as_json:
        echo(json.dumps({"format": "pnp-preflight", "version": JSON_FORMAT_VERSION, "games": results}, indent=2))
    sys.exit(report.exit_code)


@main.command("calibrate")
@click.option("--paper", type=click.Choice(PAPER_CHOICES), default=DEFAULT_PAPER, show_default=True, help=PAPER_HELP)
@click.option("--duplex", type=click.Choice(FLIP_EDGES), default=DEFAULT_DUPLEX, show_default=True,
              help="The flip edge you will print with.")
@click.option("--out", "out", callback=physical_out, default="out", show_default=True, metavar="DIR",
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
    v = apply_profile(ctx, printer, {"paper": paper, "duplex": duplex, "back_offset": back_offset,
                                     "back_scale": back_scale})
    if v["duplex"] not in FLIP_EDGES:
        raise click.BadParameter(f"the profile's duplex {v['duplex']!r} has no flip edge to calibrate")
    path = api.calibrate(v["paper"], v["duplex"], out=out, back_offset=v["back_offset"] or (0.0, 0.0),
                         back_scale=v["back_scale"] or (1.0, 1.0), data=data_root(None))
    echo(f"wrote {path}: print it double-sided ({v['duplex']} edge, 100 %), hold it to the light, "
               "read DX and DY, then build with --back-offset DX,DY")


# --------------------------------------------------------------------------- authoring


@main.command("schema")
@click.option("--out", "out", callback=physical_out, default="out/schemas", show_default=True, metavar="DIR",
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

    for path in api.write_schemas(out, data=data_root(None)):
        echo(str(path))


@main.command("fetch")
@click.argument("games", nargs=-1)
@data_option
@guarded
def fetch_cmd(games: tuple[str, ...], data: str | None) -> None:
    """Update the cached copy of each published sheet of GAMES (default: all): a component whose
    `data` is the http(s) URL of a published CSV. Builds read the cached copy, in the game folder,
    offline too. A failed fetch keeps the cached copy and says so (exit 1).

    \b
    Examples:
      pnp fetch mygame --data mygames
      pnp build mygame --data mygames --refresh      # fetch, then build
    """
    report = api.fetch(games or None, data=data_root(data))
    fetched_text(report)
    sys.exit(report.exit_code)


@main.command("new")
@click.argument("game")
@click.option("--path", "path", default=None, metavar="DIR",
              help="Data root to create the game in: DIR/card_data/GAME and DIR/templates/GAME "
              "[default: --data, else the data root found from the working folder, else the working folder].")
@click.option("--csv", "sheet", is_flag=True,
              help="Keep the deck's cards in a spreadsheet, deck.csv (one row per card), its fields in game.json.")
@data_option
@click.option("--size", default="poker", show_default=True, metavar="SIZE",
              help="Card size: poker, poker-us, bridge, mini, mini-us, tarot, square, or W,H in mm. "
              "The templates are relative to it: change the manifest's size alone later.")
@guarded
def new_cmd(game: str, path: str | None, sheet: bool, data: str | None, size: str) -> None:
    """Scaffold a minimal, valid game GAME: a manifest with one rulebook rule, a deck of three
    cards, a style, a card front and a back, plus schemas/ for editors. `pnp check` and
    `pnp build` accept it as it is. An existing game is never overwritten (exit 2).

    Without --path or --data the game goes into the data root pnp finds from the working folder
    (the nearest folder at or above it holding card_data/), else into the working folder. It
    prints the next commands as they work from where you are.

    \b
    Examples:
      pnp new mygame                     # ./card_data/mygame, ./templates/mygame
      pnp check mygame && pnp build mygame
      pnp new mygame --path mygames      # then: pnp check mygame --data mygames
      pnp new mygame --csv               # the cards in card_data/mygame/deck.csv
    """

    root = Path(path or data or find_root(Path.cwd()) or ".")
    files = scaffold(root, game, sheet=sheet, size=size)
    for f in files:
        echo(shown_path(f))
    # The next command, as it works from here: --data only when the new root is not the one
    # pnp finds from the working folder.
    here = find_root(Path.cwd())
    where = "" if here is not None and here.resolve() == root.resolve() else f" --data {shown_path(root)}"
    echo(f"pnp: created game {game!r} in {shown_path(root / 'card_data' / game)}; "
               f"next: pnp check {game}{where} && pnp build {game}{where}")
    bundled = DataRoot(bundled_root())
    if game in bundled.game_ids() and root.resolve() != bundled.path.resolve():
        echo(f"note: a bundled game is also called {game!r}; `pnp ... {game}` run in "
                   f"{shown_path(root)} (or with --data {shown_path(root)}) means yours, and the bundled one "
                   f"stays as it is (--data {shown_path(bundled.path)})")


@main.command("watch")
@click.argument("game", shell_complete=complete_games)
@click.option("--out", "out", callback=physical_out, default="out", show_default=True, metavar="DIR",
              help="Output folder; PDFs go to DIR/<game>/<component>.pdf.")
@click.option("--interval", type=Finite(0.05, 3600), default=1.0, show_default=True, metavar="S",
              help="Seconds between polls of the files.")
@paper_options
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
    on (rules do not stop a rebuild here, unlike `pnp build`). Ctrl-C stops it (exit 130).

    \b
    Examples:
      pnp watch golems
      pnp watch mygame --data mygames --out out --interval 0.5
      pnp watch golems --printer office          # the files `pnp build golems --printer office` writes
    """
    import os
    import time

    opts = build_options(ctx, printer, paper, duplex, bleed, back_offset, back_scale, print_shop=one_per_page,
                         ink_saver=ink_saver, token_cut=token_cut)
    try:
        watcher = api.watch(game, data=data_root(data), out=out, jobs=jobs, **asdict(opts))
    except DataError as exc:
        fail_input(exc.diagnostics)
    echo(root_line(watcher.root, data))
    echo(f"pnp: watching {game} (every {interval:g} s; Ctrl-C to stop)")
    try:
        while True:
            try:
                lines = watcher.poll()
            except OutputError as exc:
                lines = [f"pnp: {exc}"]
            except Exception as exc:
                if os.environ.get("PNP_DEBUG"):
                    raise
                lines = [internal_error(exc)]
            if lines:
                stamp = time.strftime("%H:%M:%S")
                for line in lines:
                    echo(f"[{stamp}] {line}")
            time.sleep(interval)
    except KeyboardInterrupt as exc:  # the one way it ends: exit 130 as for any command Ctrl-C stops
        stopped(exc, "pnp: stopped watching")  # (143: SIGTERM), so a script running it stops too



@main.command("serve")
@click.argument("games", nargs=-1, shell_complete=complete_games)
@click.option("--port", type=Integer(0, 65535), default=8000, show_default=True,
              help="TCP port (0: any free one).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; only this machine can see the page unless you name another.")
@click.option("--out", "out", callback=physical_out, default="out", show_default=True, metavar="DIR",
              help="Output folder; the PDFs are written to DIR/<game>/<component>.pdf as `pnp watch` writes them.")
@click.option("--interval", type=Finite(0.05, 3600), default=0.5, show_default=True, metavar="S",
              help="Seconds between polls of the files.")
@paper_options
@data_option
@guarded
def serve_cmd(games: tuple[str, ...], port: int, host: str, out: str, interval: float, paper: str, duplex: str,
              bleed: float, token_cut: str, data: str | None) -> None:
    """A live preview page of GAMES (default: every game): each component's pieces (front and
    back) and sheets as pnp renders them, its preflight figures, the errors and rule violations as
    `pnp check` words them, and per item its fields, source, file:line and the rules that name it.
    Saving a data, template, image or font file rebuilds what changed (the files `pnp watch`
    writes) and updates open pages. Ctrl-C stops it (exit 130).

    \b
    Examples:
      pnp serve golems                 # then open http://127.0.0.1:8000/
      pnp serve --data ~/my-games mygame --port 8080
    """
    from pnp.serve.gallery import GameView
    from pnp.serve.server import serve

    try:
        root = data_root(data)
        echo(root_line(root, data))
        for g in games:  # a mistyped id stops here (a watch would only report it on the page)
            check_game_id(root, g)
        views = [GameView(api.watch(g, data=root, out=out, jobs=1, paper=paper, duplex=duplex, bleed_mm=bleed,
                                         token_cut=token_cut))
                 for g in api.game_ids(root, list(games) or None)]
    except DataError as exc:
        fail_input(exc.diagnostics)
    server = None
    try:  # Ctrl-C at any moment, the first render included, stops it cleanly
        try:
            server = serve(views, host, port, interval, log=lambda line: echo(line, err=True))
        except OSError as exc:
            echo(f"pnp: cannot listen on {host}:{port}: {exc.strerror or exc}", err=True)
            sys.exit(2)
        echo(f"pnp: serving {', '.join(v.id for v in views)} at {server.url} (Ctrl-C to stop)")
        server.stopping.wait()
    except KeyboardInterrupt as exc:
        if server is not None:
            server.close()
        stopped(exc, "pnp: stopped serving")  # as `pnp watch`


# --------------------------------------------------------------------------- exports and previews


def checked_for_export(report: api.ExportReport | api.PreviewReport, allow_violations: bool = False) -> GameCheck:
    """Print what checking the game for an export found: its warnings, and rulebook violations,
    which stop an export (exit 1) unless ``allow_violations`` (a preview while editing); then its
    input errors (exit 2). Returns the checked game."""
    gc = report.checked
    if gc is None:
        fail_input(report.errors)
    show_problems(gc.warnings)
    if not gc.report.ok:
        report_text(gc, False)
        if not allow_violations:
            echo(f"pnp: rulebook violations; nothing was exported (`{again('check', gc.game.id)}` for details).",
                       err=True)
            sys.exit(1)
        echo(f"pnp: rulebook violations (previewing anyway; `{again('check', gc.game.id)}` for details).",
                   err=True)
    if report.errors:
        fail_input(report.errors)
    return gc


@main.group("export")
def export_group() -> None:
    """Export pieces as images, rasterised from pnp's own PDF: one PNG per piece and side for
    print-on-demand services, or Tabletop Simulator deck sheets; or a component's items as a
    spreadsheet (data). The images of one command hold at most 1,000 million pixels together,
    checked before anything is rendered (docs/performance.md, Pixel budget).

    \b
    Examples:
      pnp export png golems golem-deck
      pnp export tts golems --out tts
      pnp export data golems golem-deck --format xlsx
    """


@export_group.command("png")
@click.argument("game", shell_complete=complete_games)
@click.argument("component", required=False, shell_complete=complete_components)
@click.option("--dpi", type=Integer(36, 1200), default=300, show_default=True,
              help="Resolution; each side is round(mm / 25.4 * dpi) px.")
@click.option("--bleed", "bleed", type=Finite(0, MAX_BLEED_MM, mm=True), default=DEFAULT_BLEED_MM, show_default=True,
              metavar="MM",
              help="Bleed around each piece's art, in mm (a component's own bleed wins).")
@out_option("PNGs go to DIR/<game>/png/<component>/<item>-front.png and -back.png, with index.json")
@click.option("--jobs", "-j", type=Integer(1, 256), default=None, metavar="N",
              help="Render images in N processes [default: the number of cores]; same bytes for any N.")
@shop_option("PNG shops: thegamecrafter, makeplayingcards, printerstudio (each sets --dpi and --bleed); the PDF "
             "shop drivethrucards is `pnp build --shop`")
@max_megapixels_option
@data_option
@click.pass_context
@guarded
def export_png_cmd(ctx: click.Context, game: str, component: str | None, dpi: int, bleed: float, out: str,
                   jobs: int | None, data: str | None, shop: str | None, max_megapixels: int | None) -> None:
    """One PNG per distinct item and side (front, back) of every component of GAME (or of
    COMPONENT), with bleed, RGB, plus an index.json listing items, copies and file names.

    A poker card (63.5 x 88.9 mm) with --bleed 3.175 at 300 dpi is 825 x 1125 px, the size The
    Game Crafter asks for.

    \b
    Examples:
      pnp export png golems
      pnp export png golems golem-deck --dpi 600
      pnp export png mygame deck --bleed 3.175 --data ~/my-games
      pnp export png mygame --shop thegamecrafter     # out/mygame/shops/thegamecrafter/
    """
    if shop is not None:
        shop_run(ctx, "export png", shop, [game], component, data_root(data), out, jobs, megapixels(max_megapixels))
        return
    with progress_bar("exporting") as progress:
        report = api.export_png(game, component, data=data_root(data), out=out, dpi=dpi, bleed_mm=bleed,
                                jobs=jobs, progress=progress, max_pixels=megapixels(max_megapixels))
    gc = checked_for_export(report)
    echo(f"{gc.game.id}: {gc.game.title}")
    total = 0
    for e in report.exported:
        items = len(e.component.items)
        echo(f"  {shown_path(e.folder)}/  {counted(len(e.files), 'PNG')} ({counted(items, 'item')}), "
                   f"{e.size_px[0]} x {e.size_px[1]} px; {e.index.name}")
        total += len(e.files)
    echo(f"pnp: wrote {counted(total, 'PNG')} to {shown_path(Path(out) / gc.game.id / 'png')}/ ({dpi} dpi)")


@export_group.command("tts")
@click.argument("game", shell_complete=complete_games)
@click.argument("component", required=False, shell_complete=complete_components)
@click.option("--dpi", type=Integer(36, 1200), default=None, metavar="N",
              help="Resolution of the faces before a sheet is scaled down to fit 4096 x 4096 px "
              "[default: 165, TTS's usual 409 px across a card; the same for every deck].")
@click.option("--base-url", metavar="URL", default=None,
              help="Where the sheets will be hosted, an http(s) URL (DIR/<game>/tts/ uploaded as it is): the "
              "saved objects' "
              "image URLs become URL/<component>/<file> instead of local file:// URLs.")
@out_option("sheets go to DIR/<game>/tts/<component>/")
@max_megapixels_option
@data_option
@guarded
def export_tts_cmd(game: str, component: str | None, dpi: int | None, out: str, data: str | None,
                   base_url: str | None, max_megapixels: int | None) -> None:
    """Tabletop Simulator deck sheets for every component of GAME with a back (or COMPONENT):
    grids of up to 10 x 7 faces, the hidden-card face in the last slot, RGB, at most
    4096 x 4096 px, the back image, and <component>.json beside them with TTS CustomDeck
    entries and which sheet and slot holds which item (and how many copies). Each deck also
    gets a saved object, DIR/<game>/tts/saved-objects/<game>-<component>.json: copy it to
    Tabletop Simulator's Saves/Saved Objects/ folder and the deck is under Objects > Saved Objects.

    \b
    Examples:
      pnp export tts golems
      pnp export tts golems golem-deck --out tts
      pnp export tts golems --base-url https://example.org/golems-tts
    """
    report = api.export_tts(game, component, data=data_root(data), out=out, base_url=base_url,
                            max_pixels=megapixels(max_megapixels), **({"dpi": dpi} if dpi is not None else {}))
    gc = checked_for_export(report)
    echo(f"{gc.game.id}: {gc.game.title}")
    for e in report.exported:
        echo(f"  {shown_path(e.folder)}/  {counted(len(e.files), 'image')}, faces {e.size_px[0]} x {e.size_px[1]} px; "
                   f"{e.index.name}")
    if report.skipped:
        echo(f"  skipped (no back, not a deck): {', '.join(c.id for c in report.skipped)}")
    echo(f"pnp: wrote {counted(len(report.exported), 'Tabletop Simulator deck')} "
               f"to {shown_path(Path(out) / gc.game.id / 'tts')}/")
    if report.exported:
        echo(f"pnp: saved objects in {shown_path(Path(out) / gc.game.id / 'tts' / 'saved-objects')}/ "
                   "(copy them to Tabletop Simulator's Saves/Saved Objects/)")


@export_group.command("data")
@click.argument("game")
@click.argument("component")
@click.option("--format", "fmt", type=click.Choice(["csv", "xlsx"]), default="csv", show_default=True,
              help="csv: UTF-8 (with a byte order mark, for Excel); xlsx: one worksheet.")
@out_option("the sheet goes to DIR/<game>/data/<component>.csv or .xlsx")
@data_option
@guarded
def export_data_cmd(game: str, component: str, fmt: str, out: str, data: str | None) -> None:
    """COMPONENT's items as a sheet, one row per item (id, copies, the fields, source.* and
    series.* columns), which pnp reads back as the same items: point the component's `data` at
    it and move its `fields` into game.json (see docs/data-format.md).

    \b
    Examples:
      pnp export data golems golem-deck
      pnp export data golems golem-deck --format xlsx --out sheets
    """
    report = api.export_data(game, component, data=data_root(data), out=out, fmt=fmt)
    if report.errors:
        fail_input(report.errors)
    echo(f"pnp: wrote {shown_path(report.path)} ({counted(report.rows, 'row')}, "
               f"{counted(len(report.columns), 'column')})")


@main.command("preview")
@click.argument("game", shell_complete=complete_games)
@click.argument("component", shell_complete=complete_components)
@click.argument("item", required=False, shell_complete=complete_items)
@click.option("--dpi", type=Integer(36, 600), default=150, show_default=True)
@out_option("writes DIR/preview/<game>/<component>[/<item>].png")
@max_megapixels_option
@data_option
@guarded
def preview_cmd(game: str, component: str, item: str | None, dpi: int, out: str, max_megapixels: int | None,
                data: str | None) -> None:
    """A PNG of one ITEM of COMPONENT (front and back side by side) or, without ITEM, a contact
    sheet of every distinct item, for a designer iterating on data. Prints the file's path.
    Rulebook violations are reported but do not stop a preview.

    \b
    Examples:
      pnp preview golems golem-deck
      pnp preview golems golem-deck flesh --dpi 300
    """
    report = api.preview(game, component, item, data=data_root(data), out=out, dpi=dpi,
                         max_pixels=megapixels(max_megapixels))
    checked_for_export(report, allow_violations=True)
    echo(str(report.path))


if __name__ == "__main__":
    main()

