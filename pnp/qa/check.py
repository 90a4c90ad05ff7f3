"""Check a game: load it, plan every component (templates, layouts, sheets) and run the rulebook
rules; every input error at once, before anything is drawn."""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

from msgspec import Struct, field

from pnp.errors import DataError, Diagnostic, counted
from pnp.input.load import NAME_MAX, PATH_MAX, NotRegular, file_kind, name_too_long, read_regular
from pnp.input.model import Game
from pnp.input.project import DataRoot, load_game_partial, shown_path
from pnp.layout.fonts import UI_BOLD, UI_FONT, FontBook, FontError
from pnp.plan.budget import component_pages_problems
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
          layout: bool = True, budget: bool = True) -> GameCheck:
    """Load, validate, lay out every piece and run the rulebook rules. Raises DataError on bad input.

    ``layout=False`` (what a build uses) leaves the fronts to be laid out while they are drawn:
    their errors and warnings then come from ``render_game``. ``budget``: a component over the
    page cap (pnp.plan.budget) is an error, as for anything that draws its PDF; the PNG exports,
    which draw each distinct item once, pass False."""
    opts = opts or BuildOptions()
    s = session or Session(root)
    s.tally.forget(gid)  # checked again in the same session: only the new layouts count
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
    if budget:
        errors.extend(component_pages_problems(game, plans))
    try:
        s.fonts.ensure(UI_FONT)  # every sheet's labels use it: a broken fonts/ override fails here, not in draw
    except FontError as exc:
        where = s.fonts.files.get(UI_FONT)
        errors.append(Diagnostic(root.display(where) if where else UI_FONT, f"{exc} (pnp labels sheets with it)",
                                 expected=exc.expected, hint=exc.hint))
    document, text = None, ""
    try:
        document = find_document(game)
        if document is not None:
            text = read_document(game, document, root.display(document))
    except DataError as exc:
        errors.extend(exc.diagnostics)
    if errors:
        raise DataError(errors)
    report = check_game(game, s.store, s.tally)
    warnings.extend(rule_warnings(game))
    warnings.extend(device_name_warnings(game))
    warnings.extend(label_glyph_warnings(game, s.fonts))
    if document is None:
        status = (f"document {game.document['file']} not found (in the game folder or PNP_DOCUMENTS): "
                  "quotes not checked against it")
    else:
        found = quote_warnings(game, text, root.display(document))
        warnings.extend(found)
        total = len(document_quotes(game))
        status = f"document {root.display(document)}: {total - len(found)} of {total} quotes found"
    return GameCheck(game, report, tuple(plans), tuple(warnings), opts, status)


# A game's document text: the five bundled rulebooks are 7 to 20 KB. At 4 MiB the worst case
# measured (docs/data-format.md: NFKC expands U+FDFA 18-fold) peaks at 351 MB; at 64 MiB, 1.8 GB.
MAX_DOCUMENT_BYTES = 4 << 20


def find_document(game: Game) -> Path | None:
    """The game's document text: ``document.file`` in the game folder, else in a folder of the
    ``PNP_DOCUMENTS`` environment variable (folders separated as in PATH); None when absent.
    What is there must be a regular file inside that folder, links followed: DataError (at the
    manifest's ``document.file``) for a link that leaves it, or a name that climbs out of it, and
    for a named pipe, a folder or a device."""
    name = game.document["file"]
    dirs = [game.folder, *(Path(d) for d in os.environ.get("PNP_DOCUMENTS", "").split(os.pathsep) if d)]
    for d in dirs:
        path = d / name
        too_long = name_too_long(path)
        if too_long is not None:
            raise DataError([_document_diag(game, f"document {name!r}: name too long: {too_long}",
                                            expected=f"a file name of at most {NAME_MAX} bytes ({PATH_MAX} in all)")])
        where = "the game folder" if d == game.folder else f"its PNP_DOCUMENTS folder {shown_path(d)}"
        named_inside = Path(os.path.normpath(path)).is_relative_to(os.path.normpath(d))
        if not named_inside:  # said whether or not something is there: "../../etc/passwd" is never looked for
            raise DataError([_document_diag(game, f"document {name!r} ({shown_path(path)}) names a file outside "
                                            f"{where}", expected="a file name inside " + where,
                                            hint="copy the document there and name it without folders that "
                                            "climb out ('..') or an absolute path")])
        if not os.path.lexists(path):
            continue
        try:
            inside = path.resolve().is_relative_to(d.resolve())
        except (OSError, RuntimeError):  # a loop of links
            inside = False
        if not inside:
            raise DataError([_document_diag(game, f"document {name!r} ({shown_path(path)}) is a link to a file "
                                            f"outside {where}",
                                            expected="a file inside " + where,
                                            hint="copy the document there instead of linking to it")])
        if not path.is_file():
            if not path.exists():
                continue  # a link to nothing (inside the folder): as if absent
            raise DataError([_document_diag(game, f"document {name!r} ({shown_path(path)}) is not a regular file: "
                                            f"it is {file_kind(path)}", expected="a text file",
                                            hint="replace it with the document's text")])
        return path
    return None


def read_document(game: Game, path: Path, shown: str) -> str:
    """The text of the document file ``path`` (read as a regular file, at most MAX_DOCUMENT_BYTES:
    a file swapped for a pipe after ``find_document`` cannot block the read)."""
    try:
        raw = read_regular(path, MAX_DOCUMENT_BYTES)
    except NotRegular as exc:
        raise DataError([_document_diag(game, f"document {shown} is {exc.strerror}",
                                        expected=f"a regular text file of at most {MAX_DOCUMENT_BYTES} bytes")]) \
            from None
    except OSError as exc:
        raise DataError([_document_diag(game, f"document {shown} cannot be read: {exc.strerror}",
                                        expected="a readable text file", hint="check the file's permissions")]) \
            from None
    return raw.decode("utf-8", errors="replace")


def _document_diag(game: Game, message: str, **kw: str) -> Diagnostic:
    """A problem with the game's document, at the manifest's ``document.file``."""
    if game.manifest is not None:
        return game.manifest.diag(("document", "file"), message, **kw)
    return Diagnostic(game.manifest_file, message, ("document", "file"), **kw)


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


# Names Windows keeps for devices, with or without an extension (`con.pdf` is the console): a
# game or component of such an id builds on Linux and macOS, but its files cannot be created on
# Windows, or copied there (a print shop's machine, a friend's).
WINDOWS_DEVICES = frozenset(["con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)),
                             *(f"lpt{i}" for i in range(1, 10))])


def device_name_warnings(game: Game) -> list[Diagnostic]:
    """A warning for a game id or component id that names a Windows device."""
    out = []
    for what, cid, component, files in [("game", game.id, None, f"out/{game.id}/"),
                                        *(("component", c.id, c.id, f"{c.id}.pdf") for c in game.components)]:
        if cid in WINDOWS_DEVICES:
            out.append(game.manifest_diag(f"{what} id {cid!r} is a device name on Windows: {files} cannot be "
                                          "created or copied there", component, ("id",),
                                          expected="an id Windows can use as a file name",
                                          hint="rename it if the files may go to Windows", severity="warning"))
    return out


def _invisible(ch: str) -> bool:
    """A character meant to print as nothing (a format character: zero-width space and joiners,
    word joiner, bidi marks; a variation selector): its missing glyph is no loss (attack 24
    warned of U+2060 and U+200B)."""
    return unicodedata.category(ch) == "Cf" or 0xFE00 <= ord(ch) <= 0xFE0F or 0xE0100 <= ord(ch) <= 0xE01EF


def label_glyph_warnings(game: Game, fonts: FontBook) -> list[Diagnostic]:
    """A warning for each text of the manifest that the contents sheet and the sheets' labels
    print in pnp's own fonts (UI_FONT, UI_BOLD) with characters those fonts lack: they would
    print as nothing (a title in Japanese left a blank row on the contents sheet, the checklist
    of the parts, with no word: attack 22, F3). The pieces' own texts are checked as they are
    laid out (``pnp.layout.piece``)."""
    texts: list[tuple[str, str | None, tuple[str | int, ...]]] = [
        (game.title, None, ("title",)), (game.subtitle, None, ("subtitle",)), (game.designer, None, ("designer",)),
        *((c.title, c.id, ("title",)) for c in game.components),
        *(t for i, n in enumerate(game.not_printed)
          for t in ((n.name, None, ("not_printed", i, "name")), (n.quantity, None, ("not_printed", i, "quantity")))),
        (str((game.document or {}).get("title") or ""), None, ("document", "title"))]
    out = []
    for text, component, path in texts:
        missing = sorted(ch for ch in fonts.missing(UI_FONT, text) | fonts.missing(UI_BOLD, text) if not _invisible(ch))
        if missing:
            shown = ", ".join(f"{ch!r} (U+{ord(ch):04X})" for ch in missing[:5])
            more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
            out.append(game.manifest_diag(
                f"this text has {counted(len(missing), 'character')} pnp's label fonts ({UI_FONT}, {UI_BOLD}) "
                f"lack ({shown}{more}): they would print as nothing on the contents sheet and the sheets' labels",
                component, path, expected=f"characters that {UI_FONT} and {UI_BOLD} have",
                hint=f"write it with other characters, or put fonts that have them in the data root's fonts/ "
                f"folder as {UI_FONT} and {UI_BOLD}", severity="warning"))
    return out
