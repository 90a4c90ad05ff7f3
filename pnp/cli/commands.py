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
    apply_profile,
    build_options,
    data_option,
    out_option,
    paper_options,
    print_options,
    token_cut_option,
    variant_options,
)
from pnp.cli.output import (
    JSON_FORMAT_VERSION,
    diag_annotation,
    fail_input,
    game_problems,
    guarded,
    internal_error,
    preflight_text,
    report_github,
    report_text,
)
from pnp.errors import DataError, Diagnostic, OutputError, counted
from pnp.impose.sheet import DEFAULT_BLEED_MM, DEFAULT_DUPLEX, DEFAULT_PAPER, DUPLEX_MODES, FLIP_EDGES, MAX_BLEED_MM
from pnp.input import kinds
from pnp.input.project import load_game
from pnp.input.validate import schema_bytes
from pnp.products.scaffold import scaffold
from pnp.qa.check import GameCheck
from pnp.render.write import write_atomic
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
    try:
        main()
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
        root = api.data_root(data)
        ids = api.game_ids(root)
    except DataError as exc:
        fail_input(exc.diagnostics)
    problems: list[Diagnostic] = []
    for gid in ids:
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


@main.command("check")
@click.argument("games", nargs=-1)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "github"]), default="text", show_default=True,
              help="text: for people; json: the versioned pnp-check report on stdout (see docs/ci.md); "
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
    as_json = as_json or fmt == "json"
    github = fmt == "github" and not as_json
    report = api.check(games or None, data=data, strict=strict)
    if report.errors:
        fail_input(report.errors)
    results: list[dict[str, Any]] = []
    for g in report.games:
        if g.checked is None:
            if as_json:
                results.append({"id": g.id, "ok": False, "errors": [d.as_json() for d in g.errors],
                                "warnings": [], "rules": [], "provenance": []})
            elif github:
                for d in g.errors:
                    click.echo(diag_annotation(d))
                click.echo(f"{g.id}: {len(g.errors)} input problems")
            else:
                game_problems(g.id, g.errors)
            continue
        gc = g.checked
        if as_json:
            results.append({
                "id": g.id, "ok": gc.report.ok and not (strict and gc.warnings), "errors": [],
                "warnings": [w.as_json() for w in gc.warnings],
                "rules": [o.as_json() for o in gc.report.outcomes],
                "provenance": [asdict(p) for p in gc.report.provenance],
            })
        elif github:
            report_github(gc, strict)
        else:
            report_text(gc, verbose)
    if as_json:
        click.echo(json.dumps({"format": "pnp-check", "version": JSON_FORMAT_VERSION, "games": results}, indent=2))
    sys.exit(report.exit_code)


@main.command("build")
@click.argument("games", nargs=-1)
@click.option("--out", "out", default="out", show_default=True, metavar="DIR",
              help="Output folder; PDFs go to DIR/<game>/<component>.pdf.")
@click.option("--paper", type=click.Choice(PAPER_CHOICES), default=DEFAULT_PAPER, show_default=True, help=PAPER_HELP)
@click.option("--duplex", type=click.Choice(DUPLEX_MODES), default=DEFAULT_DUPLEX, show_default=True,
              help="long/short: each front page is followed by its back page, mirrored for that flip edge; "
              "fold: fronts and backs side by side on one page for printers without duplex (print "
              "single-sided, fold, glue, cut); none: fronts only.")
@click.option("--bleed", "bleed", type=Finite(0, MAX_BLEED_MM), default=DEFAULT_BLEED_MM, show_default=True,
              metavar="MM",
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
    opts = build_options(ctx, printer, paper, duplex, bleed, back_offset, back_scale, strict=strict,
                         print_shop=one_per_page, ink_saver=ink_saver, token_cut=token_cut)
    report = api.build(games or None, data=data, out=out, force=force, jobs=jobs, **asdict(opts))
    if report.errors:
        fail_input(report.errors)
    if report.failed:
        for gc in report.failed:
            report_text(gc, False)
        click.echo("pnp: rulebook violations; nothing was rendered (run `pnp check` for details).", err=True)
        sys.exit(1)
    if opts.strict and report.warnings:
        fail_input(report.warnings)
    for w in report.warnings:
        click.echo(w if isinstance(w, str) else w.format(), err=True)
    variant = " (ink saver)" if opts.ink_saver else ""
    for g in report.games:
        if g.up_to_date:
            click.echo(f"{g.id}: up to date (nothing changed since the last build into {g.folder})")
        else:
            click.echo(f"{g.id}: {g.title}{variant}")
        for f in g.files:
            grid = f", {f.grid} per sheet" if f.grid else ""
            same = "" if f.rendered else " (unchanged)"
            click.echo(f"  {f.path}  {counted(f.pieces, 'piece')}, {counted(f.pages, 'page')}{grid}, "
                       f"{f.bytes / 1024:.0f} KB{same}")
        for line in g.not_printed:
            click.echo(f"  also needed (not printed): {line}")
        click.echo(f"  {g.contents}  what was printed and what else you need")
        if g.preflight:
            click.echo(f"  preflight: {g.preflight} (ink coverage: pnp preflight {g.id})")
    files = [f for g in report.games for f in g.files]
    total = sum(f.rendered for f in files)
    kept = f", {len(files) - total} unchanged" if len(files) > total else ""
    click.echo(f"pnp: wrote {total} PDFs to {Path(out)}/{kept} (paper {opts.paper}, duplex {opts.duplex}, "
               f"bleed {opts.bleed_mm:g} mm{', ink saver' if opts.ink_saver else ''})")


@main.command("preflight")
@click.argument("games", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="The versioned pnp-preflight report on stdout (see docs/ci.md).")
@click.option("--ink-saver", is_flag=True,
              help="Check the low-ink variant (as `pnp build --ink-saver` makes it) and show its ink coverage "
              "against the normal build's.")
@click.option("--strict", is_flag=True, help="Treat preflight warnings as errors (exit 2).")
@paper_options
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
    report = api.preflight(games or None, data=data, paper=paper, duplex=duplex, bleed_mm=bleed, ink_saver=ink_saver,
                           token_cut=token_cut, strict=strict)
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
        click.echo(json.dumps({"format": "pnp-preflight", "version": JSON_FORMAT_VERSION, "games": results}, indent=2))
    sys.exit(report.exit_code)


@main.command("calibrate")
@click.option("--paper", type=click.Choice(PAPER_CHOICES), default=DEFAULT_PAPER, show_default=True, help=PAPER_HELP)
@click.option("--duplex", type=click.Choice(FLIP_EDGES), default=DEFAULT_DUPLEX, show_default=True,
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
    v = apply_profile(ctx, printer, {"paper": paper, "duplex": duplex, "back_offset": back_offset,
                                     "back_scale": back_scale})
    if v["duplex"] not in FLIP_EDGES:
        raise click.BadParameter(f"the profile's duplex {v['duplex']!r} has no flip edge to calibrate")
    path = api.calibrate(v["paper"], v["duplex"], out=out, back_offset=v["back_offset"] or (0.0, 0.0),
                         back_scale=v["back_scale"] or (1.0, 1.0))
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
    on (rules do not stop a rebuild here, unlike `pnp build`). Ctrl-C stops it.

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
        watcher = api.watch(game, data=data, out=out, jobs=jobs, **asdict(opts))
    except DataError as exc:
        fail_input(exc.diagnostics)
    click.echo(f"pnp: watching {game} in {watcher.root.path} (every {interval:g} s; Ctrl-C to stop)")
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
                    click.echo(f"[{stamp}] {line}")
            time.sleep(interval)
    except KeyboardInterrupt:
        click.echo("pnp: stopped watching")
        sys.exit(0)


# --------------------------------------------------------------------------- exports and previews


def checked_for_export(report: api.ExportReport | api.PreviewReport, allow_violations: bool = False) -> GameCheck:
    """Print what checking the game for an export found: its warnings, and rulebook violations,
    which stop an export (exit 1) unless ``allow_violations`` (a preview while editing); then its
    input errors (exit 2). Returns the checked game."""
    gc = report.checked
    if gc is None:
        fail_input(report.errors)
    for w in gc.warnings:
        click.echo(w.format(), err=True)
    if not gc.report.ok:
        report_text(gc, False)
        if not allow_violations:
            click.echo("pnp: rulebook violations; nothing was exported (run `pnp check` for details).", err=True)
            sys.exit(1)
        click.echo("pnp: rulebook violations (previewing anyway; run `pnp check` for details).", err=True)
    if report.errors:
        fail_input(report.errors)
    return gc


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
@click.option("--bleed", "bleed", type=Finite(0, MAX_BLEED_MM), default=DEFAULT_BLEED_MM, show_default=True,
              metavar="MM",
              help="Bleed around each piece's art, in mm (a component's own bleed wins).")
@out_option("PNGs go to DIR/<game>/png/<component>/<item>-front.png and -back.png, with index.json")
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
    report = api.export_png(game, component, data=data, out=out, dpi=dpi, bleed_mm=bleed)
    gc = checked_for_export(report)
    click.echo(f"{gc.game.id}: {gc.game.title}")
    total = 0
    for e in report.exported:
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
@out_option("sheets go to DIR/<game>/tts/<component>/")
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
    report = api.export_tts(game, component, data=data, out=out, dpi=dpi)
    gc = checked_for_export(report)
    click.echo(f"{gc.game.id}: {gc.game.title}")
    for e in report.exported:
        click.echo(f"  {e.folder}/  {len(e.files)} images, faces {e.size_px[0]} x {e.size_px[1]} px; {e.index.name}")
    if report.skipped:
        click.echo(f"  skipped (no back, not a deck): {', '.join(c.id for c in report.skipped)}")
    click.echo(f"pnp: wrote {counted(len(report.exported), 'Tabletop Simulator deck')} "
               f"to {Path(out) / gc.game.id / 'tts'}/")


@main.command("preview")
@click.argument("game")
@click.argument("component")
@click.argument("item", required=False)
@click.option("--dpi", type=click.IntRange(36, 600), default=150, show_default=True)
@out_option("writes DIR/preview/<game>-<component>[-<item>].png")
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
    report = api.preview(game, component, item, data=data, out=out, dpi=dpi)
    checked_for_export(report, allow_violations=True)
    click.echo(str(report.path))


if __name__ == "__main__":
    main()

