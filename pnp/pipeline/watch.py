"""`pnp watch`: rebuild a game's PDFs when its data, templates or fonts change (the edit-look loop).

The loop polls files by (mtime, size, inode, and where a link leads) and the watched folders by
their real paths; when something changed, the game is checked again (a
fresh Session: templates are re-read) and rendered the way ``pnp build`` renders it
(``pnp.pipeline.incremental.render_changed``, ``commit``), with the same options, so the files are the ones a build
would write: each component's PDF, with sheet labels, data versions and preflight figures, and
the contents sheet with its preflight summary. Only the components whose fingerprint
(``digest.component_fingerprints``: data file, manifest entry, templates' ``extends`` chains,
images, fonts, options) changed, or whose PDF is missing or altered, are rendered; a PDF whose
bytes did not change is not written. When the rules pass, the build record
(``.pnp-build.json``) is written too, so a ``pnp build`` with the same options afterwards finds
everything up to date; when they fail the record is removed (a build must check again and
refuse). Errors are reported and the watcher carries on."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from pnp.errors import DataError, Diagnostic, counted, shown_lines
from pnp.input.project import DataRoot, check_game_id
from pnp.layout.fonts import FONT_SUFFIXES
from pnp.pipeline.build import CACHE_NAME, commit, same_bytes
from pnp.pipeline.guard import check_output, output_lock
from pnp.pipeline.incremental import Record, dump, load, record_game, remove, render_changed
from pnp.plan.budget import run_pages_problem
from pnp.plan.digest import TEMPLATE_FILES, InputHasher, fonts_digest, tree_files
from pnp.plan.options import BuildOptions, output_folder
from pnp.plan.session import Session
from pnp.qa.check import GameCheck, check
from pnp.render.write import write_atomic

CHECK_JSON = "pnp check --format json"  # lists every problem where watch shows the first MAX_SHOWN


class Watch:
    """One `pnp watch`: what it watches, and what it remembers between polls."""

    def __init__(self, root: DataRoot, game: str, out: Path, opts: BuildOptions | None = None, jobs: int = 1):
        self.root, self.game, self.out = root, game, out
        self.opts = opts or BuildOptions()
        self.jobs = jobs  # worker processes for a poll that renders several components
        self.stamps: dict[Path, Stamp] = {}  # file -> (mtime_ns, size, inode, link target); folder -> its real path
        # What the files in the output folder were made from (the last poll's, or on the first
        # poll the last build's record): which components are current, their figures and warnings.
        self.record: Record | None = None
        self.polled = False
        # The last poll's checked game, kept while later polls fail (the last good one), and the
        # input problems of the last poll (none when it checked): what `pnp serve` shows.
        self.checked: GameCheck | None = None
        self.errors: tuple[Diagnostic, ...] = ()

    def files(self) -> list[Path]:
        """The game folder, every template folder and every font folder (a new template file that
        an `extends` now names is seen as well as an edited one)."""
        files: list[Path] = [*tree_files(self.root.card_data / self.game)]
        for d in self.root.template_dirs():
            files.extend(tree_files(d, TEMPLATE_FILES))
        for d in self.root.font_dirs():
            files.extend(tree_files(d, FONT_SUFFIXES))
        return sorted(set(files))

    def folders(self) -> list[Path]:
        """The folders ``files`` walks: one swapped for a link changes its real path."""
        return [self.root.card_data / self.game, *self.root.template_dirs(), *self.root.font_dirs()]

    def poll(self) -> list[str]:
        """If any watched file changed (or on the first call), check the game and render what
        changed. Returns the lines to print (what was rebuilt, what is unchanged, errors,
        warnings, failing rules); never raises for bad input."""
        stamps = _stamps(self.files(), self.folders())
        if self.polled and stamps == self.stamps:
            return []
        self.stamps, self.polled = stamps, True
        # Taken before the game is read: a file saved while this poll renders leaves the record
        # stale (the next build checks again), never wrong.
        inputs = InputHasher(self.root).game(self.game, self.opts)
        session = Session(self.root)
        try:
            check_game_id(self.root, self.game)
            gc = check(self.root, self.game, self.opts, session)
            # the game's PDFs are held until all are written, as in a build
            if (over := run_pages_problem([(gc.game.id, gc.plans, self.opts.gang)],
                                          self.root.display(self.root.card_data))) is not None:
                raise DataError([over])
        except DataError as exc:
            self.errors = tuple(exc.diagnostics)
            return _problems(self.game, exc)
        self.checked, self.errors = gc, ()
        lines = shown_lines(gc.warnings, CHECK_JSON)
        for o in gc.report.outcomes:
            if not o.passed:
                lines.append(f"FAIL {o.rule.id}: expected {o.expected}, actual {o.actual} "
                             f"(rulebook: \"{o.rule.quote}\")")
        folder = output_folder(self.out, gc.game.id, gc.opts)
        check_output(self.root, [folder])
        with output_lock(self.out):  # a build into the same folder waits, and it for the build
            return self._render(gc, session, inputs, folder, lines)

    def _render(self, gc: GameCheck, session: Session, inputs: str, folder: Path, lines: list[str]) -> list[str]:
        rec = self.record if self.record is not None else load(folder, self.root, gc.game.id)
        try:
            (g,), prints = render_changed(session, [gc], self.out, {gc.game.id: rec}, fonts_digest(self.root),
                                          self.jobs)
        except DataError as exc:
            self.errors = tuple(exc.diagnostics)
            return lines + _problems(self.game, exc)
        lines += shown_lines(g.warnings, CHECK_JSON)
        # The record goes before the first file changes (and comes back below once they are
        # written, if the rules pass); when no file changes, it stays.
        written = set(commit([g], before_writing=lambda g: remove(g.folder)))
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
        self.record = record_game(g, inputs, prints[gc.game.id], rec)
        record = dump(self.record, self.root)
        if not gc.report.ok:
            remove(folder)
        elif not same_bytes(folder / CACHE_NAME, record):
            write_atomic(folder / CACHE_NAME, record)
        if not written and all(f.data is None for f in g.files):
            lines.append(f"{gc.game.id}: nothing to rebuild (no component's data, templates or fonts changed)")
        return lines


Stamp = tuple[int, int, int, str]  # (mtime_ns, size, inode, where a link leads: "" for no link)


def _stamps(files: Iterable[Path], folders: Iterable[Path] = ()) -> dict[Path, Stamp]:
    """Each file's stamp, and each watched folder's real path: a file or a whole folder swapped
    for a link (even to a copy with the same times and sizes, or the same inodes moved elsewhere)
    is a change, so the next poll checks the game and reports a link out of the data root at once,
    as a build would."""
    out: dict[Path, Stamp] = {}
    for p in files:
        try:
            st = os.lstat(p)
            target = ""
            if stat.S_ISLNK(st.st_mode):
                target = os.path.realpath(p)
                st = os.stat(p)
        except (OSError, ValueError):
            continue
        out[p] = (st.st_mtime_ns, st.st_size, st.st_ino, target)
    for d in folders:
        out[d] = (0, 0, 0, os.path.realpath(d))
    return out


def _problems(game: str, exc: DataError) -> list[str]:
    n = len(exc.diagnostics)
    return shown_lines(exc.diagnostics, CHECK_JSON) + [
        f"{game}: {counted(n, 'input problem')}; nothing rebuilt (fix and save to retry)"]
