"""``--shop NAME`` on ``pnp build`` and ``pnp export png``: a game's files for a print-on-demand
shop (``pnp.api.export_shop``), what mapped to the shop's products and what did not."""

from __future__ import annotations

import sys

import click

from pnp import api
from pnp.cli.options import again
from pnp.cli.output import fail_input, game_problems, report_text
from pnp.errors import DataError, counted
from pnp.input.project import DataRoot, shown_path
from pnp.products.shops import ShopReport

# options a shop preset decides; given with --shop they are ignored, and the command says so
SHOP_SETS = ("paper", "duplex", "bleed", "one_per_page", "color", "die_line", "gang", "ink_saver", "token_cut",
             "back_offset", "back_scale", "printer", "dpi")


def shop_run(ctx: click.Context, command: str, shop: str, games: list[str], component: str | None,
             root: DataRoot, out: str, jobs: int | None, max_pixels: int | None = None) -> None:
    """``--shop``: each game's files for the shop, what mapped and what did not; exit 2 when a
    game has an input problem or nothing of it maps (nothing is written for that game).
    ``max_pixels``: a PNG shop's pixel budget (``--max-megapixels``; None: the default)."""
    try:
        preset = api.shop_preset(shop, command)
    except DataError as exc:
        fail_input(exc.diagnostics)
    ignored = [f"--{k.replace('_', '-')}" for k in SHOP_SETS if k in ctx.params
               and (src := ctx.get_parameter_source(k)) is not None and src.name == "COMMANDLINE"]
    if ignored:
        click.echo(f"pnp: {preset.title}'s preset sets the size, bleed, colour and pages; ignoring "
                   f"{', '.join(ignored)}", err=True)
    failed: list[str] = []
    for gid in games:
        report = api.export_shop(gid, preset.id, component, data=root, out=out, jobs=jobs, command=command,
                                 max_pixels=max_pixels)
        if report.checked is not None and not report.checked.report.ok:
            report_text(report.checked, False)
            click.echo(f"pnp: rulebook violations; nothing was written (`{again('check', gid)}` for details).",
                       err=True)
            sys.exit(1)
        if report.errors:
            game_problems(gid, report.errors)
            failed.append(gid)
            continue
        assert report.shop is not None
        shop_text(gid, report.shop)
    if failed:
        click.echo(f"pnp: nothing written for {preset.title} of {', '.join(failed)}; see above.", err=True)
        sys.exit(2)


def shop_text(gid: str, r: ShopReport) -> None:
    """What ``--shop`` wrote for one game: per component the product it became (or why it did
    not map, on stderr), the files, the report."""
    shop = r.shop
    click.echo(f"{gid}: {shop.title} ({shown_path(r.folder)}/)")
    for m in r.mapped:
        w, h = m.component.size
        pw, ph = m.plan.component.size
        files = [f for f in r.files if f.component == m.component.id]
        if shop.output == "pdf":
            what = ", ".join(f"{f.path.name} ({counted(f.pages, 'page')})" for f in files)
        else:
            pngs = [f for f in files if f.path.suffix == ".png"]
            size = pngs[0].size_px if pngs and pngs[0].size_px else (0, 0)
            what = f"{m.component.id}/: {counted(len(pngs), 'PNG')}, {size[0]} x {size[1]} px"
        click.echo(f"  {m.component.id}: {w:g} x {h:g} mm -> {m.product.id} {m.product.size_text((pw, ph))} "
                   f"({m.how_text()}): {what}")
    for u in r.unmapped:
        c = u.component
        click.echo(f"  not mapped: {c.id} ({c.kind}, {c.size[0]:g} x {c.size[1]:g} mm): {u.reason}", err=True)
    n = sum(1 for f in r.files if f.path.suffix in (".pdf", ".png"))
    kind = "PDF" if shop.output == "pdf" else "PNG"
    tail = (f"; {counted(len(r.unmapped), 'component')} not mapped (listed above and in the report)"
            if r.unmapped else "")
    click.echo(f"pnp: wrote {counted(n, kind)} for {shop.title}{tail}; report {shown_path(r.report)}")
