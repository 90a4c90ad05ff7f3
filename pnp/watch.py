"""`pnp watch`: rebuild a game's PDFs when its data, templates or fonts change (the edit-look loop).

The loop polls files by (mtime, size); when something changed, the game is checked again (a
fresh Session: templates are re-read) and only the components whose fingerprint changed are
rendered. A component's fingerprint hashes its data file, its manifest entry (and the game's
title and errata), the files of its front and back templates' ``extends`` chains, the game
folder's images, the fonts and the build options. A rendered PDF whose bytes equal the file on
disk is not written. Errors are reported and the watcher carries on."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pnp.cache import FONT_SUFFIXES, component_fingerprints, tree_files
from pnp.errors import DataError
from pnp.pipeline import BuildOptions, Session, check, render_component, same_bytes
from pnp.project import DataRoot, check_game_id
from pnp.write import ensure_dir, write_atomic


@dataclass
class WatchState:
    """What one `pnp watch` remembers between polls."""

    root: DataRoot
    game: str
    out: Path
    opts: BuildOptions = field(default_factory=BuildOptions)
    stamps: dict[Path, tuple[int, int]] = field(default_factory=dict)  # file -> (mtime_ns, size)
    fingerprints: dict[str, str] = field(default_factory=dict)  # component id -> hash
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
    """One poll: if any watched file changed (or on the first call), check the game and rebuild
    the components whose fingerprint changed. Returns the lines to print (what was rebuilt,
    what is unchanged, errors, warnings, failing rules); never raises for bad input."""
    stamps = _stamps(watched_files(state))
    if state.polled and stamps == state.stamps:
        return []
    state.stamps, state.polled = stamps, True
    session = Session(state.root)
    try:
        check_game_id(state.root, state.game)
        gc = check(state.root, state.game, state.opts, session)
    except DataError as exc:
        n = len(exc.diagnostics)
        return [d.format() for d in exc.diagnostics] + [
            f"{state.game}: {n} input problem{'s' if n != 1 else ''}; nothing rebuilt (fix and save to retry)"]
    lines = [w.format() for w in gc.warnings]
    for o in gc.report.outcomes:
        if not o.passed:
            lines.append(f"FAIL {o.rule.id}: expected {o.expected}, actual {o.actual} "
                         f"(rulebook: \"{o.rule.quote}\")")
    new = component_fingerprints(session, gc)
    folder = state.out / gc.game.id
    ensure_dir(folder)
    changed, rendered = False, 0
    for plan in gc.plans:
        cid = plan.component.id
        if state.fingerprints.get(cid) == new[cid]:
            continue
        data, npages = render_component(session, gc.game, plan, gc.opts)
        rendered += 1
        path = folder / f"{cid}.pdf"
        if same_bytes(path, data):
            lines.append(f"{cid}: unchanged ({path})")
        else:
            write_atomic(path, data)
            changed = True
            lines.append(f"rebuilt {cid}: {path} ({len(plan.fronts)} pieces, {npages} pages)")
    state.fingerprints = new
    # The contents sheet (one page, quick) also lists the manifest's not-printed items: render it
    # on every change, write it only when its bytes differ.
    from pnp.export import render_contents  # late: pnp.export builds on the pipeline

    path = folder / f"{gc.game.id}-contents.pdf"
    data = render_contents(gc.game, gc.plans, gc.opts, fonts=session.fonts, session=session)
    if not same_bytes(path, data):
        write_atomic(path, data)
        changed = True
        lines.append(f"rebuilt contents: {path}")
    if not changed and not rendered:
        lines.append(f"{gc.game.id}: nothing to rebuild (no component's data, templates or fonts changed)")
    return lines
