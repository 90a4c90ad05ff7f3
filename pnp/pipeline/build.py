"""Render checked games in memory (in worker processes when asked; the bytes are the same either
way), then commit them: every file written atomically, or none on bad input."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from msgspec import Struct

from pnp.errors import DataError, Diagnostic
from pnp.impose.sheet import Grid
from pnp.input.load import read_regular
from pnp.input.model import Component
from pnp.input.project import DataRoot
from pnp.plan.component import ComponentPlan, front_warnings, pages_for
from pnp.plan.options import output_folder
from pnp.plan.session import Session
from pnp.products.contents import render_contents
from pnp.products.workers import can_fork, image_jobs, run_pool
from pnp.products.workers import default_jobs as default_jobs  # where the api and benchmarks import it
from pnp.products.workers import worker_start as _worker_start  # noqa: F401  (tests import it here)
from pnp.qa.check import GameCheck
from pnp.qa.figures import summary
from pnp.qa.preflight import Collector
from pnp.render.component import render_component
from pnp.render.ganged import GangReport, render_ganged
from pnp.render.write import ensure_dir, remove_empty, remove_stale_temps, write_all

CACHE_NAME = ".pnp-build.json"  # the build record beside a game's PDFs (pnp.pipeline.incremental)


class Written(Struct, frozen=True):
    """One component PDF written by ``build`` (what the library API yields per file)."""

    component: Component
    path: Path
    pages: int
    pieces: int
    bytes: int
    grid: Grid | None


class RenderedFile(Struct, frozen=True):
    """One PDF of a build, rendered but not yet written (``data`` None: unchanged, not rendered)."""

    plan: ComponentPlan
    path: Path
    data: bytes | None
    pages: int
    warnings: tuple[Diagnostic, ...] = ()
    preflight: Any = None  # pnp.qa.figures.ComponentPreflight: rendered now, or recorded by the last build

    @property
    def size(self) -> int:
        """The PDF's bytes: rendered now, or the file on disk (reused)."""
        return len(self.data) if self.data is not None else self.path.stat().st_size

    @property
    def grid_text(self) -> str:
        """"3x3": the grid of a sheet, or "" when the component is not on a grid."""
        grid = self.plan.grid
        return f"{grid.cols}x{grid.rows}" if grid else ""


class RenderedGame(Struct, frozen=True):
    """One game's PDFs and contents sheet, rendered in memory and not yet written."""

    checked: GameCheck
    folder: Path
    files: tuple[RenderedFile, ...]
    contents: bytes  # the contents sheet, out/<game>/<game>-contents.pdf
    ganged: tuple[Path, bytes, GangReport] | None = None  # --gang: out/<game>/<game>-ganged.pdf

    @property
    def warnings(self) -> list[Diagnostic]:
        return [w for f in self.files for w in f.warnings]

    @property
    def contents_path(self) -> Path:
        return self.folder / f"{self.checked.game.id}-contents.pdf"

    @property
    def not_printed(self) -> tuple[str, ...]:
        """What else the game needs, one "name (quantity)" each."""
        return tuple(f"{n.name} ({n.quantity})" for n in self.checked.game.not_printed)


# Rendering in worker processes: the parent's checked games are inherited through fork, so a
# task is only a pair of indices and a result only bytes, a page count and diagnostics.
_TASKS: tuple[Session, list[tuple[GameCheck, ComponentPlan]]] | None = None


def _render_task(i: int) -> tuple[int, bytes | None, int, list[Diagnostic], Any]:
    assert _TASKS is not None
    s, tasks = _TASKS
    gc, plan = tasks[i]
    preflight = Collector(s, gc, plan)  # watches the pieces as they are drawn: no extra layout
    try:
        data, npages = render_component(s, gc.game, plan, gc.opts)
    except DataError as exc:
        return i, None, 0, list(exc.diagnostics), None
    figures, found = preflight.finish(data)
    return i, data, npages, front_warnings(gc.game, plan) + found, figures


def render_games(root: DataRoot, checked: Sequence[GameCheck], out: Path, session: Session | None = None,
                 jobs: int = 1, reuse: Callable[[GameCheck, ComponentPlan], bool] | None = None,
                 progress: Callable[[int, int], None] | None = None,
                 reused_figures: Callable[[GameCheck, ComponentPlan], Any] | None = None) -> list[RenderedGame]:
    """Render every component of already checked games, in memory: nothing is written (see
    ``commit``). Components for which ``reuse`` says yes are not rendered (their PDF on disk is
    current; ``reused_figures`` gives their recorded preflight figures). With ``jobs`` > 1
    components render in that many worker processes; the bytes are the same either way. The
    contents sheet carries the preflight summary when every component's figures are known.
    ``progress(done, total)`` is called after each component is rendered.
    Raises DataError with every component's layout errors."""
    global _TASKS
    s = session or Session(root)
    tasks = [(gc, plan) for gc in checked for plan in gc.plans if not (reuse and reuse(gc, plan))]
    if jobs > 1 and len(tasks) > 1:
        jobs = image_jobs(jobs, {gc.game.id: gc.game.folder for gc, _ in tasks}.values())
    results: dict[int, tuple[bytes | None, int, list[Diagnostic], Any]] = {}
    held = [0]  # bytes of the PDFs rendered so far, held until they are written

    def keep(i: int, data: bytes | None) -> None:
        held[0] += len(data or b"")
        if held[0] > MAX_HELD_BYTES:
            raise DataError([held_problem(tasks[i][0], tasks[i][1], held[0])])

    if jobs > 1 and len(tasks) > 1 and can_fork():
        # Biggest first, so the last worker is not left with the longest component.
        order = sorted(range(len(tasks)), key=lambda i: -len(tasks[i][1].fronts))
        _TASKS = (s, tasks)
        try:
            for i, data, npages, diags, figures in run_pool(min(jobs, len(tasks)), _render_task, order):
                keep(i, data)
                results[i] = (data, npages, diags, figures)
                if progress:
                    progress(len(results), len(tasks))
        finally:
            _TASKS = None
    else:
        _TASKS = (s, tasks)
        try:
            for i in range(len(tasks)):
                _, data, npages, diags, figures = _render_task(i)
                keep(i, data)
                results[i] = (data, npages, diags, figures)
                if progress:
                    progress(len(results), len(tasks))
        finally:
            _TASKS = None
    errors = [d for i in range(len(tasks)) if results[i][0] is None for d in results[i][2]]
    if errors:
        raise DataError(errors)
    done = {(id(gc), plan.component.id): results[i] for i, (gc, plan) in enumerate(tasks)}
    games = []
    for gc in checked:
        folder = output_folder(out, gc.game.id, gc.opts)
        files = []
        pages: dict[str, int] = {}
        for plan in gc.plans:
            path = folder / f"{plan.component.id}.pdf"
            r = done.get((id(gc), plan.component.id))
            if r is None:
                figures = reused_figures(gc, plan) if reused_figures else None
                files.append(RenderedFile(plan, path, None, len(pages_for(plan)), (), figures))
            else:
                files.append(RenderedFile(plan, path, r[0], r[1], tuple(r[2]), r[3]))
            pages[plan.component.id] = files[-1].pages
        known = [f.preflight for f in files]
        line = summary(known) if known and all(f is not None for f in known) else None  # type: ignore[arg-type]
        contents = render_contents(gc.game, gc.plans, gc.opts, fonts=s.fonts, pages_per_component=pages,
                                   session=s, preflight=line)
        ganged = None
        if gc.opts.gang and (made := render_ganged(s, gc.game, gc.plans, gc.opts)) is not None:
            ganged = (folder / f"{gc.game.id}-ganged.pdf", *made)
        games.append(RenderedGame(gc, folder, tuple(files), contents, ganged))
    return games


# A build renders every PDF it writes before it writes the first (all or nothing), so they are
# held in memory together: a 27 MB image drawn in 46 components made 1.2 GB of PDFs, and the build
# went past 1 GB and died (attack 7, F2). The five bundled games come to 4.4 MB together.
MAX_HELD_BYTES = 512 * 1024 * 1024


def held_problem(gc: GameCheck, plan: ComponentPlan, held: int) -> Diagnostic:
    """The input error for a build whose PDFs, rendered so far up to ``plan``'s, pass MAX_HELD_BYTES."""
    game, comp = gc.game, plan.component
    msg = (f"the PDFs this build renders come to more than {MAX_HELD_BYTES / 2**20:g} MB ({held / 2**20:.1f} MB "
           f"with component {comp.id} of game {game.id}), which pnp holds until all are written")
    expected = f"at most {MAX_HELD_BYTES / 2**20:g} MB of PDFs in one build"
    hint = ("scale the art to the resolution it prints at (each component's PDF embeds the images it draws), "
            "or build fewer games at a time")
    return game.manifest_diag(msg, comp.id, expected=expected, hint=hint)


def same_bytes(path: Path, data: bytes) -> bool:
    """The file at ``path`` holds exactly ``data`` (a missing or unreadable file, one that is not
    a regular file, or a link, even to the same bytes, does not: it is replaced by a file)."""
    try:
        return not path.is_symlink() and path.stat().st_size == len(data) and read_regular(path) == data
    except OSError:
        return False


def commit(games: Sequence[RenderedGame], before_writing: Callable[[RenderedGame], None] | None = None,
           last: Callable[[RenderedGame], tuple[Path, bytes]] | None = None) -> list[Path]:
    """Write rendered games, each all or nothing (``write_all``: a full disk leaves the game's old
    files as they were); a file whose bytes are already on disk is left alone. ``last(game)``, a
    further file (the build record), is written with the game's files and renamed after them.
    ``before_writing(game)`` runs once, after a game's files are staged and before the first is
    renamed into place (not at all when none is written). Returns the paths written (without
    ``last``'s)."""

    written: list[Path] = []
    for g in games:
        made = ensure_dir(g.folder)
        files = [(f.path, f.data) for f in g.files] + [(g.contents_path, g.contents)]
        if g.ganged is not None:
            files.append(g.ganged[:2])
        # what a killed build left half-written into this folder goes now
        remove_stale_temps(g.folder, [path.name for path, _ in files] + [CACHE_NAME])
        todo = [(path, data) for path, data in files if data is not None and not same_bytes(path, data)]
        extra = last(g) if last is not None else None
        if extra is not None and (todo or not same_bytes(*extra)):  # before_writing may remove it
            todo.append(extra)
        try:
            write_all(todo, (lambda g=g: before_writing(g)) if before_writing is not None else None)
        except BaseException:
            remove_empty(made)  # a game folder made for this build holds nothing
            raise
        written += [path for path, _ in todo if extra is None or path != extra[0]]
    return written


def build_checked(root: DataRoot, checked: GameCheck, out: Path, session: Session | None = None,
          progress: Callable[[int, int], None] | None = None, jobs: int = 1) -> Iterator[Written]:
    """Render every component of an already checked game, then write them all to
    out/<game>/<component>.pdf with the contents sheet (all or nothing on bad input). Not
    incremental and no build record: the step below ``pnp.api.build`` for a game checked with
    options of one's own (the tests use it)."""
    (game,) = render_games(root, [checked], out, session, jobs=jobs, progress=progress)
    commit([game])
    for f in game.files:
        size = f.size
        yield Written(f.plan.component, f.path, f.pages, len(f.plan.fronts), size, f.plan.grid)

