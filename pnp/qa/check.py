"""Check a game: load it, plan every component (templates, layouts, sheets) and run the rulebook
rules; every input error at once, before anything is drawn."""

from __future__ import annotations

import os
from pathlib import Path

from msgspec import Struct, field

from pnp.errors import DataError, Diagnostic
from pnp.input.model import Game
from pnp.input.project import DataRoot, load_game_partial
from pnp.layout.fonts import UI_FONT, FontError
from pnp.plan.component import ComponentPlan, LazyPieces, plan_component
from pnp.plan.options import BuildOptions
from pnp.plan.session import Session
from pnp.qa.quotes import document_quotes, quote_warnings
from pnp.qa.rules import Report, check_game
from pnp.qa.vacuous import vacuous_rules


class GameCheck(Struct, frozen=True):
    """One checked game: the rules report, a plan per component and the warnings."""

    game: Game
    report: Report
    plans: tuple[ComponentPlan, ...]
    warnings: tuple[Diagnostic, ...]
    opts: BuildOptions = field(default_factory=BuildOptions)
    document: str = ""  # whether the game's document was found and how many quotes are in it


def check(root: DataRoot, gid: str, opts: BuildOptions | None = None, session: Session | None = None,
          layout: bool = True) -> GameCheck:
    """Load, validate, lay out every piece and run the rulebook rules. Raises DataError on bad input.

    ``layout=False`` (what a build uses) leaves the fronts to be laid out while they are drawn:
    their errors and warnings then come from ``render_game``."""
    opts = opts or BuildOptions()
    s = session or Session(root)
    # A game with bad parts is still checked as far as its good parts go (their templates and
    # layouts), so one run reports every problem; it is never built.
    game, errors = load_game_partial(root, gid)
    if game is None:
        raise DataError(errors)
    plans = []
    warnings: list[Diagnostic] = []
    for comp in game.components:
        try:
            plan, w = plan_component(s, game, comp, opts, lazy=not layout)
        except DataError as exc:
            errors.extend(exc.diagnostics)
            continue
        plans.append(plan)
        warnings.extend(w)
    try:
        s.fonts.ensure(UI_FONT)  # every sheet's labels use it: a broken fonts/ override fails here, not in draw
    except FontError as exc:
        where = s.fonts.files.get(UI_FONT)
        errors.append(Diagnostic(root.display(where) if where else UI_FONT, f"{exc} (pnp labels sheets with it)",
                                 expected=exc.expected, hint=exc.hint))
    if errors:
        raise DataError(errors)
    report = check_game(game, s.store)
    warnings.extend(rule_warnings(game))
    document = find_document(game)
    if document is None:
        status = (f"document {game.document['file']} not found (in the game folder or PNP_DOCUMENTS): "
                  "quotes not checked against it")
    else:
        text = document.read_text(encoding="utf-8", errors="replace")
        found = quote_warnings(game, text, root.display(document))
        warnings.extend(found)
        total = len(document_quotes(game))
        status = f"document {root.display(document)}: {total - len(found)} of {total} quotes found"
    return GameCheck(game, report, tuple(plans), tuple(warnings), opts, status)


def find_document(game: Game) -> Path | None:
    """The game's document text: ``document.file`` in the game folder, else in a folder of the
    ``PNP_DOCUMENTS`` environment variable (folders separated as in PATH); None when absent."""
    name = game.document["file"]
    dirs = [game.folder, *(Path(d) for d in os.environ.get("PNP_DOCUMENTS", "").split(os.pathsep) if d)]
    return next((d / name for d in dirs if (d / name).is_file()), None)


def rule_warnings(game: Game) -> list[Diagnostic]:
    """A warning for each rulebook rule that cannot fail (``pnp.qa.vacuous``), at the rule."""
    out = []
    for v in vacuous_rules(game):
        file, path = v.rule.origin
        line, col = game.manifest.locate(path) if game.manifest is not None else (None, None)
        what = "has parts that cannot fail" if v.part else "cannot fail"
        out.append(Diagnostic(file, f"rule {v.rule.id!r} {what}: {v.reason}", path, line, col,
                              hint="remove " + ("them" if v.part else "it") + ", or make "
                              + ("them" if v.part else "it") + " state what the schema and loader do not",
                              severity="warning"))
    return out

def layout_errors(gc: GameCheck) -> list[Diagnostic]:
    """Lay out every front a build would lay out while drawing (each item once, nothing kept) and
    return the input errors found, the first per component as ``check`` with layout finds them.
    A build whose rules fail never draws, so it asks this first: input errors come before rule
    violations, as in ``pnp check``."""
    return [d for plan in gc.plans if isinstance(plan.fronts, LazyPieces) for d in plan.fronts.errors()]
