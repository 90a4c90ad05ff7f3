"""How the commands print: input problems and internal errors (exit codes 2 and 3, no traceback),
rulebook reports as text or GitHub annotations, the preflight table."""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from functools import wraps
from typing import Any, NoReturn

import click
from msgspec.structs import replace

from pnp.api import FetchReport
from pnp.cli.options import again
from pnp.errors import (
    DataError,
    Diagnostic,
    OutputError,
    Terminated,
    WorkerDied,
    counted,
    one_line,
    shown_lines,
    terminal_text,
)
from pnp.input.project import shown_path
from pnp.layout.edges import MISCUT_MM
from pnp.plan.options import BuildOptions
from pnp.qa.check import GameCheck


def echo(message: Any = None, **kwargs: Any) -> None:
    """click.echo, with text made safe for a terminal (pnp.errors.terminal_text): every line
    pnp prints may hold data or build-record text."""
    click.echo(terminal_text(message) if isinstance(message, str) else message, **kwargs)


def show_problems(diags: Sequence[Diagnostic | str], indent: str = "",
                  full: tuple[str, ...] = ("check", "--format", "json")) -> None:
    """pnp.errors.shown_lines on stderr: the first MAX_SHOWN problems, then how many more and
    ``full``, the pnp command (words after "pnp") that lists them all."""
    for line in shown_lines(diags, again(*full)):
        echo(indent + line, err=True)


def fail_input(diags: list[Diagnostic] | tuple[Diagnostic, ...] | list[Diagnostic | str], code: int = 2) -> NoReturn:
    """Print the problems (a Diagnostic, or a message as printed before: the build cache keeps
    warnings as text; at most MAX_SHOWN of them) and exit."""
    show_problems(diags)
    n = sum(1 for d in diags if isinstance(d, str) or d.severity == "error") or len(diags)
    echo(f"pnp: {counted(n, 'problem')} in the input; nothing was written.", err=True)
    sys.exit(code)


def game_problems(gid: str, diags: tuple[Diagnostic, ...]) -> None:
    """One game's input problems (at most MAX_SHOWN), and their count, on stderr (the other games
    carry on)."""
    show_problems(diags)
    echo(f"{one_line(gid)}: {counted(len(diags), 'input problem')}", err=True)


OUT_OF_MEMORY = ("pnp: out of memory: this command needed more memory than the machine (or its limit) "
                 "gives it; nothing more was written. Build fewer games at a time (`pnp build GAME`), "
                 "or use fewer worker processes (--jobs 1)")


def internal_error(exc: Exception) -> str:
    """The one line a bug in pnp prints instead of a traceback (exit 3; `pnp watch` carries on).
    Running out of memory is no bug: it says so, and what to try."""
    if isinstance(exc, MemoryError) or (isinstance(exc, OSError) and exc.errno == errno.ENOMEM):
        return OUT_OF_MEMORY  # (ENOMEM: an import or a file opened when the memory was gone)
    return (f"pnp: internal error: {type(exc).__name__}: {exc} "
            "(this is a bug in pnp; set PNP_DEBUG=1 to see the traceback)")


INTERRUPTED = "pnp: interrupted; nothing more was written"  # as pnp/__main__.py says it too
TERMINATED = "pnp: terminated; nothing more was written"


def stopped(exc: BaseException, said: str | None = None) -> NoReturn:
    """End the command stopped by Ctrl-C (exit 130) or SIGTERM (``Terminated``: exit 143, 128 +
    the signal, as a shell reports a process killed by it), saying that nothing more was written
    on stderr (files are written all or none, so the old ones stand), or ``said`` on stdout."""
    term = isinstance(exc, Terminated) or isinstance(exc.__cause__, Terminated)  # click's Abort wraps it
    echo(said or (TERMINATED if term else INTERRUPTED), err=said is None)
    sys.exit(143 if term else 130)


def run_click(group: click.Group) -> NoReturn:
    """Run the command line through ``group`` and exit, as click's standalone mode does but for a
    Ctrl-C while click parses the command line (before the command's own handling, ``guarded``):
    the one line and exit 130, where click said "Aborted!" and exited 1."""
    try:
        code = group.main(standalone_mode=False)
        sys.exit(code if isinstance(code, int) else 0)  # an Exit's code (--help, --version), or 0
    except click.exceptions.Abort as exc:  # Ctrl-C (or end of input) while click itself ran
        stopped(exc)
    except click.ClickException as exc:  # a usage error: as click prints it, exit 2
        exc.message = terminal_text(exc.message)  # "unexpected extra argument" quoted it raw (attack 9)
        exc.show()
        sys.exit(exc.exit_code)
    except BrokenPipeError:  # stdout closed by the reader (`pnp list | head`), as click handles it
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)


def guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
    """No traceback for the user: input problems exit 2, bugs exit 3 with a short note."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except DataError as exc:
            fail_input(exc.diagnostics)
        except OutputError as exc:
            echo(f"pnp: {exc}", err=True)
            sys.exit(2)
        except (click.exceptions.Exit, click.ClickException, SystemExit):
            raise
        except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM
            stopped(exc)
        except WorkerDied as exc:  # killed from outside or out of memory: no traceback, not a bug
            echo(f"pnp: {exc}", err=True)
            sys.exit(3)
        except BrokenPipeError:
            # The reader went away (`pnp list | head -1`): not a bug; stop quietly.
            with contextlib.suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(1)
        except Exception as exc:
            if os.environ.get("PNP_DEBUG"):
                raise
            echo(internal_error(exc), err=True)
            sys.exit(3)

    return wrapper


def report_text(gc: GameCheck, verbose: bool) -> None:
    r = gc.report
    passed = sum(o.passed for o in r.outcomes)
    echo(f"{gc.game.id}: {counted(len(r.outcomes), 'rule')}, {passed} pass, {len(r.outcomes) - passed} fail")
    if gc.document:
        echo(f"  {gc.document}")
    for o in r.outcomes:
        if o.passed and not verbose and not o.oddities:
            continue
        mark = "PASS" if o.passed else "FAIL"
        echo(f"  {mark} {o.rule.id}: {o.rule.description}")
        if not o.passed:
            echo(f"       expected: {o.expected}")
            echo(f"       actual:   {o.actual}")
            for d in o.details[:20]:
                echo(f"         - {d}")
            echo(f"       rulebook: \"{o.rule.quote}\"")
        for odd in o.oddities:
            echo(f"       document oddity (excepted): {odd}")
    width = max((len(p.component) for p in r.provenance), default=0)
    for p in r.provenance:
        kinds = [f"{n} {k}" for n, k in ((p.document, "document"), (p.external, "external"),
                                         (p.designed, "designed"), (p.unstated, "no source")) if n]
        echo(f"  {p.component:<{width}}  {counted(p.pieces, 'piece'):>11}, {counted(p.items, 'item'):>9}: "
                   + (", ".join(kinds) or "none"))
    if r.provenance:
        echo("  (items' sources: document = quoted from the rulebook, external = a published fact from "
                   "elsewhere, designed = made to fill a gap" + (", no source = not stated"
                                                                  if any(p.unstated for p in r.provenance) else "")
                   + ")")
    show_problems(gc.warnings)


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


def diag_annotation(d: Diagnostic) -> str:
    text = d.format()
    text = text.removeprefix("warning: ").removeprefix(d.where + ": ")
    if d.cell:  # a sheet's column, by letter and header
        text = f"column {d.cell}: {text}"
    return github_annotation("warning" if d.severity == "warning" else "error", text, d.file, d.line, d.col)


def report_github(gc: GameCheck, strict: bool) -> None:
    r = gc.report
    for o in r.outcomes:
        if o.passed:
            continue
        file, path = o.rule.origin
        doc = gc.game.doc_for(file)
        line = doc.locate(path)[0] if doc is not None else None
        echo(github_annotation("error", f"rule {o.rule.id}: expected {o.expected}, actual {o.actual}"
                                     f" ({o.rule.description}; rulebook: \"{o.rule.quote}\")",
                                     file or gc.game.manifest_file, line))
    for w in gc.warnings:
        echo(diag_annotation(replace(w, severity="error") if strict else w))
    passed = sum(o.passed for o in r.outcomes)
    echo(f"{gc.game.id}: {counted(len(r.outcomes), 'rule')}, {passed} pass, {len(r.outcomes) - passed} fail, "
               f"{counted(len(gc.warnings), 'warning')}")


def preflight_text(pre: Any, opts: BuildOptions) -> None:
    t = pre.thresholds
    g = pre.game
    variant = ", ink saver" if pre.ink_saver else ""
    echo(f"{g.id}: {g.title} (paper {opts.paper}, duplex {opts.duplex}, bleed {opts.bleed_mm:g} mm{variant})")
    echo(f"  {'component':<18} {'pieces':>6} {'/sheet':>6} {'sheets':>6} {'pages':>5} {'KB':>6} {'ink':>5}"
               f" {'text':>7} {'rules':>7} {'stroke':>7} {'margin':>8}")

    def val(e: Any, fmt: str = "g") -> str:
        return "-" if e is None else f"{e.value:{fmt}}"

    for c in pre.components:
        ink = f"{c.mean_coverage * 100:.0f}%" if c.mean_coverage is not None else "-"
        kb = f"{c.bytes / 1024:.0f}" if c.bytes is not None else "-"
        per = f"1/{c.parts}" if c.parts > 1 else str(c.per_sheet)
        margin = f"{c.margin_mm:.1f} mm" if c.margin_mm is not None else "-"
        echo(f"  {c.component:<18} {c.pieces:>6} {per:>6} {c.sheets:>6} {c.pages:>5} {kb:>6} {ink:>5}"
                   f" {val(c.smallest_text):>7} {val(c.smallest_rules):>7} {val(c.thinnest_stroke, '.2f'):>7}"
                   f" {margin:>8}")
    pages = sum(len(c.coverage) for c in pre.components if c.coverage)  # the pages measured
    cov = pre.coverage
    line = f"  ink coverage: {cov * 100:.1f} % per page (mean of {counted(pages, 'page')})" if cov is not None else ""
    if cov is not None and pre.normal_coverage:
        ratio = cov / pre.normal_coverage
        line += f"; normal build {pre.normal_coverage * 100:.1f} %: {ratio:.2f}x, {(1 - ratio) * 100:.0f} % less ink"
    if line:
        echo(line)
    for name, label, minimum in (("smallest_text", "smallest text", None),
                                 ("smallest_rules", "smallest rules text", t.rules_text_pt),
                                 ("thinnest_stroke", "thinnest stroke", t.stroke_pt),
                                 ("lowest_ppi", "lowest image resolution", t.image_ppi)):
        e = pre.extreme(name)
        if e is None:
            echo("  images: none" if name == "lowest_ppi" else f"  {label}: none")
            continue
        unit = "ppi" if name == "lowest_ppi" else "pt"
        value = f"{e.value:.2f}" if name == "thinnest_stroke" else f"{e.value:.0f}" if unit == "ppi" else f"{e.value:g}"
        floor = f" (minimum {minimum:g})" if minimum is not None else ""
        echo(f"  {label}: {value} {unit}{floor}, {e.where.text()}")
    if t.reason:
        echo(f"  rules text minimum {t.rules_text_pt:g} pt for this game: {t.reason}")
    outside = sum(c.outside_safe for c in pre.components)
    echo(f"  safe zone ({t.safe_mm:g} mm inside the trim): "
               + (f"{counted(outside, 'text or icon element')} outside" if outside else "kept"))
    cuts = sum(c.cut_crossings for c in pre.components)
    echo("  cut lines: " + (f"{counted(cuts, 'cut line')} {'crosses' if cuts == 1 else 'cross'} a piece"
                                  if cuts else "none crosses a piece"))
    seams = [c.miscut_seams for c in pre.components if c.miscut_seams is not None]
    if seams:
        n = sum(seams)
        click.echo(f"  shared cut lines ({MISCUT_MM:g} mm miscut): "
                   + (f"{counted(n, 'cut line')} would show a neighbour's different colour" if n
                      else "none would show a neighbour's different colour"))
    if pre.margin_mm is not None:
        echo(f"  margins: {pre.margin_mm:.1f} mm or more from the paper's edge to a trim "
                   f"(minimum {t.margin_mm:g} mm)")
    if pre.waived:
        reasons: dict[tuple[str, str], list[str]] = {}
        for w in pre.waived:
            reasons.setdefault((w.check.replace("_", " "), w.reason), []).append(w.component)
        echo(f"  exempted by the data ({len(pre.waived)}):")
        for (what, why), comps in reasons.items():
            echo(f"    {what} ({len(comps)} x, {', '.join(dict.fromkeys(comps))}): {why}")
    show_problems(pre.findings, full=("preflight", "--json"))
    n = len(pre.findings)
    echo(f"  {counted(n, 'warning')}")


@contextlib.contextmanager
def progress_bar(label: str, after: float = 1.0) -> Iterator[Callable[[int, int], None] | None]:
    """A ``progress(done, total)`` callback that shows click's progress bar on stderr once the
    work has taken ``after`` seconds, only on a terminal (None when stderr is piped or a file)."""
    if not sys.stderr.isatty():
        yield None
        return
    start = time.monotonic()
    bar: Any = None

    def tick(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            if time.monotonic() - start < after or done >= total:
                return
            bar = click.progressbar(length=total, label=label, file=sys.stderr)
            bar.__enter__()
        bar.update(done - bar.pos)

    try:
        yield tick
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)


def build_text(report: Any, verbose: bool) -> None:
    """What a build wrote: one line per game (what was written, the preflight verdict) and a
    total; ``verbose`` adds a line per file, what else the game needs and the preflight figures."""
    opts = report.opts
    written = set(report.written)
    width = max((len(g.id) for g in report.games), default=0)
    total_written = total_files = 0
    for g in report.games:
        files = [f.path for f in g.files] + [g.contents]
        new = [f for f in files if f in written]
        total_written += len(new)
        total_files += len(files)
        folder = shown_path(g.folder) + "/"
        if g.up_to_date:
            what = f"up to date, {counted(len(files), 'PDF')} in {folder}"
        elif not new:
            what = f"checked again, {counted(len(files), 'PDF')} in {folder} unchanged"
        else:
            kept = f", {len(files) - len(new)} unchanged" if len(new) < len(files) else ""
            what = f"wrote {counted(len(new), 'PDF')} to {folder}{kept}"
        pages = sum(f.pages for f in g.files)
        line = f"{g.id + ':':<{width + 1}} {what} ({counted(pages, 'page')})"
        if g.preflight_warnings is not None:
            line += ("; preflight ok" if not g.preflight_warnings else
                     f"; preflight: {counted(g.preflight_warnings, 'warning')} ({again('preflight', g.id)})")
        echo(line)
        if g.ganged is not None:
            path, gang = g.ganged
            echo(f"  ganged: {shown_path(path)}: {counted(gang.before, 'sheet')} of {len(gang.components)} "
                       f"components on {gang.after} ({gang.saved} saved)")
        if verbose:
            for f in g.files:
                grid = f", {f.grid} per sheet" if f.grid else ""
                same = "" if f.rendered else " (unchanged)"
                echo(f"  {shown_path(f.path)}  {counted(f.pieces, 'piece')}, {counted(f.pages, 'page')}{grid}, "
                           f"{f.bytes / 1024:.0f} KB{same}")
            echo(f"  {shown_path(g.contents)}  what was printed and what else you need")
            for need in g.not_printed:
                echo(f"  also needed (not printed): {need}")
            if g.preflight:
                echo(f"  preflight: {g.preflight} (ink coverage: {again('preflight', g.id)})")
    kept = f"; {total_files - total_written} unchanged" if total_files > total_written else ""
    variant = ", ink saver" if opts.ink_saver else ""
    echo(f"pnp: wrote {counted(total_written, 'PDF')} to {shown_path(report.out)}/{kept} (paper {opts.paper}, "
               f"duplex {opts.duplex}, bleed {opts.bleed_mm:g} mm{variant})"
               + ("" if verbose else "; -v lists every file"))


JSON_FORMAT_VERSION = 1


def fetched_text(report: FetchReport) -> None:
    """Print a fetch's outcome per published sheet (failures on stderr); input errors exit 2."""
    if report.errors:
        fail_input(report.errors)
    for f in report.fetched:
        echo(f"{f.component}: {f.url} -> {shown_path(f.path)}: {f.message}", err=not f.ok)
    if not report.fetched:
        echo("pnp: no published sheets (no component's data is an http(s) URL)")
