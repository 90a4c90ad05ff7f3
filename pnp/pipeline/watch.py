"""`pnp watch`: rebuild a game's PDFs when its data, templates or fonts change (the edit-look loop).

The loop polls files by (mtime, size); when something changed, the game is checked again (a
fresh Session: templates are re-read) and rendered the way ``pnp build`` renders it
(``pipeline.render_games``, ``commit``), with the same options, so the files are the ones a build
would write: each component's PDF, with sheet labels, data versions and preflight figures, and
the contents sheet with its preflight summary. Only the components whose fingerprint
(``digest.component_fingerprints``: data file, manifest entry, templates' ``extends`` chains,
images, fonts, options) changed, or whose PDF is missing or altered, are rendered; a PDF whose
bytes did not change is not written. When the rules pass, the build record
(``.pnp-build.json``) is written too, so a ``pnp build`` with the same options afterwards finds
everything up to date; when they fail the record is removed (a build must check again and
refuse). Errors are reported and the watcher carries on."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pnp.errors import DataError, counted
from pnp.input.project import DataRoot, check_game_id
from pnp.pipeline import incremental
from pnp.pipeline.build import commit, render_games, same_bytes
from pnp.plan import digest
from pnp.plan.component import ComponentPlan
from pnp.plan.digest import FONT_SUFFIXES, tree_files
from pnp.plan.options import BuildOptions, output_folder
from pnp.plan.session import Session
from pnp.qa.check import GameCheck, check
from pnp.render.write import write_atomic


@dataclass
class WatchState:
    """What one `pnp watch` remembers between polls."""

    root: DataRoot
    game: str
    out: Path
    opts: BuildOptions = field(default_factory=BuildOptions)
    jobs: int = 1  # worker processes for a poll that renders several components
    stamps: dict[Path, tuple[int, int]] = field(default_factory=dict)  # file -> (mtime_ns, size)
    # What the files in the output folder were made from (the last poll's, or on the first poll
    # the last build's record): which components are current, their figures and warnings.
    record: incremental.Record | None = None
    polled: bool = False


def watched_files(state: WatchState) -> list[Path]:
    """The game folder, every template folder and every font folder (a new template file that an
    `extends` now names is seen as well as an edited one)."""
    files: list[Path] = [*tree_files(state.root.card_data / state.game)]
    for d in state.root.template_dirs():
        files.extend(tree_files(d, (".json",)))
    for d in state.root.font_dirs():
        files.extend(tree_files(d, FONT_SUFFIXES))
    return sorted(set(files))


def _stamps(files: Iterable[Path]) -> dict[Path, tuple[int, int]]:
    out = {}
    for p in files:
        try:
            st = p.stat()
        except OSError:
            continue
        out[p] = (st.st_mtime_ns, st.st_size)
    return out


def watch_once(state: WatchState) -> list[str]:
    """One poll: if any watched file changed (or on the first call), check the game and render
    what changed. Returns the lines to print (what was rebuilt, what is unchanged, errors,
    warnings, failing rules); never raises for bad input."""
    stamps = _stamps(watched_files(state))
    if state.polled and stamps == state.stamps:
        return []
    state.stamps, state.polled = stamps, True
    # Taken before the game is read: a file saved while this poll renders leaves the record
    # stale (the next build checks again), never wrong.
    inputs = digest.InputHasher(state.root).game(state.game, state.opts)
    session = Session(state.root)
    try:
        check_game_id(state.root, state.game)
        gc = check(state.root, state.game, state.opts, session)
    except DataError as exc:
        return _problems(state.game, exc)
    lines = [w.format() for w in gc.warnings]
    for o in gc.report.outcomes:
        if not o.passed:
            lines.append(f"FAIL {o.rule.id}: expected {o.expected}, actual {o.actual} "
                         f"(rulebook: \"{o.rule.quote}\")")
    folder = output_folder(state.out, gc.game.id, gc.opts)
    prints = digest.component_fingerprints(session, gc.game, gc.opts, gc.plans, digest.engine_digest(),
                                           digest.fonts_digest(state.root))
    rec = state.record if state.record is not None else incremental.load(folder)

    def reuse(_: GameCheck, plan: ComponentPlan) -> bool:
        cid = plan.component.id
        return rec is not None and rec.component_current(folder, cid, prints[cid])

    def recorded(_: GameCheck, plan: ComponentPlan) -> Any:
        return rec.figures(plan.component.id) if rec is not None else None

    try:
        (g,) = render_games(state.root, [gc], state.out, session, jobs=state.jobs, reuse=reuse,
                            reused_figures=recorded)
    except DataError as exc:
        return lines + _problems(state.game, exc)
    warnings = incremental.warning_text(g, rec)
    lines += [w.format() for w in g.warnings]
    # The record goes before the first file changes (and comes back below once they are written,
    # if the rules pass); when no file changes, it stays.
    written = set(commit([g], before_writing=lambda g: incremental.remove(g.folder)))
    for f in g.files:
        if f.data is None:
            continue
        if f.path in written:
            lines.append(f"rebuilt {f.plan.component.id}: {f.path} "
                         f"({counted(len(f.plan.fronts), 'piece')}, {counted(f.pages, 'page')})")
        else:
            lines.append(f"{f.plan.component.id}: unchanged ({f.path})")
    if g.contents_path in written:
        lines.append(f"rebuilt contents: {g.contents_path}")
    state.record = incremental.record_for(g, inputs, prints, warnings, rec)
    record = incremental.dump(state.record)
    if not gc.report.ok:
        incremental.remove(folder)
    elif not same_bytes(folder / incremental.CACHE_NAME, record):
        write_atomic(folder / incremental.CACHE_NAME, record)
    if not written and all(f.data is None for f in g.files):
        lines.append(f"{gc.game.id}: nothing to rebuild (no component's data, templates or fonts changed)")
    return lines


def _problems(game: str, exc: DataError) -> list[str]:
    n = len(exc.diagnostics)
    return [d.format() for d in exc.diagnostics] + [
        f"{game}: {counted(n, 'input problem')}; nothing rebuilt (fix and save to retry)"]

