"""The library front door: check, build, preflight, export and preview games, and watch one, from
Python, a notebook or the ``pnp`` command (whose commands only call these and print the reports).

    import pnp
    report = pnp.build("golems", out="prints", paper="a4")
    print(report.ok, [f.path for g in report.games for f in g.files])

Every function takes ``data`` (a folder holding ``card_data/<game>/`` and ``templates/``, or a
``DataRoot``; None: the bundled games) and returns a report value; bad input never raises, it
is in the report's ``errors`` (``pnp.errors.Diagnostic``: file, line, column, JSON path,
message, expected), and nothing is written then. Options are ``BuildOptions`` fields: paper,
duplex, bleed_mm, strict, print_shop, back_offset, back_scale, token_cut, ink_saver, color, die_line, gang.

Size: a little over 500 lines because it holds one function and one report type per command
(check, build, preflight, the exports, the shop presets, preview, calibrate, watch, fetch), each
with the docstring a library user reads."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from msgspec import Struct
from msgspec.structs import fields, replace

from pnp.errors import DataError, Diagnostic
from pnp.impose.sheet import DEFAULT_BLEED_MM, DEFAULT_DUPLEX, DEFAULT_PAPER, paper_named
from pnp.input.load import load_json
from pnp.input.model import Component, run_pieces_problem
from pnp.input.project import (
    MANIFEST,
    DataRoot,
    bundled_root,
    check_game_id,
    find_root,
    load_game,
    physical_path,
)
from pnp.input.validate import schema_bytes, validate_doc
from pnp.layout.fonts import FontBook
from pnp.pipeline.build import default_jobs
from pnp.pipeline.guard import check_output, check_standalone_output, output_lock
from pnp.pipeline.incremental import BuildReport, build_games
from pnp.pipeline.watch import Watch
from pnp.plan.budget import run_pages_problem
from pnp.plan.options import BuildOptions, output_folder, source_date_epoch
from pnp.plan.session import Session
from pnp.products.calibrate import calibration_pdf
from pnp.products.exports import TTS_DPI, Exported
from pnp.products.exports import export_png as _export_png
from pnp.products.exports import export_tts as _export_tts
from pnp.products.images import select_plans
from pnp.products.preview import preview as _preview
from pnp.products.published import Fetched, cache_problem, fetch_entry, published
from pnp.products.shops import Shop, ShopReport, shop_named
from pnp.products.shops import export_shop as _export_shop
from pnp.products.tabular import FORMATS, component_data, csv_bytes, sheet_rows, xlsx_bytes
from pnp.products.tts_save import check_base_url
from pnp.qa.check import GameCheck
from pnp.qa.check import check as _check
from pnp.qa.preflight import GamePreflight, preflight_game
from pnp.qa.rasters import Budget
from pnp.render.draw import BackCorrection
from pnp.render.write import FileSet, write_all, write_atomic
from pnp.units import MM

__all__ = ["BuildOptions", "BuildReport", "CheckReport", "DataExportReport", "DataRoot", "ExportReport", "FetchReport",
           "GameChecked", "GamePreflighted", "PreflightReport", "PreviewReport", "ShopExportReport", "Watch", "build",
           "calibrate", "check", "data_root", "export_data", "export_png", "export_shop", "export_tts", "fetch",
           "find_data_root", "game_ids", "options", "preflight", "preview", "shop_preset", "watch", "write_schemas"]

Data = str | os.PathLike[str] | DataRoot | None
Games = str | Sequence[str] | None


def data_root(data: Data = None) -> DataRoot:
    """The data root ``data`` names (None: the bundled games). Raises DataError for a folder
    without ``card_data/``."""
    if isinstance(data, DataRoot):
        return data
    if data is None:
        return DataRoot(bundled_root())
    p = physical_path(data)
    if not DataRoot(p).card_data.is_dir():
        raise DataError([Diagnostic(str(p), "not a pnp data root: no card_data/ folder",
                                    expected="a folder holding card_data/<game>/game.json and templates/")])
    return DataRoot(p)


def find_data_root(start: str | os.PathLike[str] | None = None) -> DataRoot:
    """The data root a command run in ``start`` (default: the working folder) works on, found as
    git finds ``.git``: the nearest folder at or above it holding ``card_data/``; where there is
    none, the bundled games. (The ``pnp`` command uses this when ``--data`` is not given; the
    functions here take ``data=None`` to mean the bundled games, wherever they are called from.)"""
    found = find_root(Path(start) if start is not None else Path.cwd())
    return DataRoot(found if found is not None else bundled_root())


def game_ids(root: DataRoot, games: Games = None) -> list[str]:
    """The ids ``games`` names (one id, several, or None: every game of the root). Raises
    DataError when there are none, or, for every game, when a folder of ``card_data/`` holds a
    ``game.json`` and is no game (``DataRoot.stray_games``). A game named twice is one game
    (``build g1 g1`` built and wrote it twice; 5,000 times took two minutes: attack 13, F8)."""
    ids = [games] if isinstance(games, str) else list(dict.fromkeys(games or ()))
    if not ids:  # every game of the root: a folder that looks like a game and is none is an error
        stray = root.stray_games()
        if stray:
            raise DataError(stray)
        ids = root.game_ids()
    if not ids:
        raise DataError([Diagnostic(str(root.card_data), "no games found", expected="card_data/<game>/game.json")])
    return ids


def options(**given: Any) -> BuildOptions:
    """``BuildOptions`` from keyword arguments; an unknown name is a TypeError naming the known ones."""
    known = {f.name for f in fields(BuildOptions)}
    unknown = sorted(set(given) - known)
    if unknown:
        raise TypeError(f"unknown option(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    return BuildOptions(**given)


# --------------------------------------------------------------------------- check


class GameChecked(Struct, frozen=True):
    """One game of a check: the checked game (rules report, plans, layout warnings), or the input
    errors that stopped it."""

    id: str
    checked: GameCheck | None = None
    errors: tuple[Diagnostic, ...] = ()

    @property
    def warnings(self) -> tuple[Diagnostic, ...]:
        return self.checked.warnings if self.checked is not None else ()


class CheckReport(Struct, frozen=True):
    """What ``check`` found: per game, and ``errors`` that stopped it before any game (a bad data
    root, no games)."""

    games: tuple[GameChecked, ...] = ()
    errors: tuple[Diagnostic, ...] = ()
    strict: bool = False

    @property
    def exit_code(self) -> int:
        """0 all good; 1 rulebook violations; 2 invalid input, or warnings with ``strict``."""
        if self.errors or any(g.errors or (self.strict and g.warnings) for g in self.games):
            return 2
        return 1 if any(g.checked is not None and not g.checked.report.ok for g in self.games) else 0

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


def check(games: Games = None, *, data: Data = None, strict: bool = False, layout: bool = True,
          **opts: Any) -> CheckReport:
    """Validate data and templates, lay out every piece (unless ``layout`` is False) and run each
    game's rulebook rules. ``strict``: warnings count as errors."""
    try:
        root = data_root(data)
        ids = game_ids(root, games)
    except DataError as exc:
        return CheckReport(errors=tuple(exc.diagnostics), strict=strict)
    o = options(strict=strict, **opts)
    session = Session(root)
    out = []
    for gid in ids:
        try:
            out.append(GameChecked(gid, _check(root, gid, o, session, layout=layout)))
        except DataError as exc:
            out.append(GameChecked(gid, errors=tuple(exc.diagnostics)))
    done = [g.checked for g in out if g.checked is not None]
    where = root.display(root.card_data)
    too_many = run_pieces_problem([gc.game for gc in done], where) \
        or run_pages_problem([(gc.game.id, gc.plans, o.gang) for gc in done], where)
    if too_many is not None:  # what one build of these games would refuse
        return CheckReport(errors=(too_many,), strict=strict)
    return CheckReport(tuple(out), strict=strict)


# --------------------------------------------------------------------------- build


def build(games: Games = None, *, data: Data = None, out: str | os.PathLike[str] = "out", force: bool = False,
          jobs: int | None = None, progress: Callable[[int, int], None] | None = None, **opts: Any) -> BuildReport:
    """Check and render every component of each game to ``out/<game>/<component>.pdf``, with a
    contents sheet per game, incrementally: a game whose inputs did not change since the last
    build into ``out`` is not rendered again, and after an edit only the components it touches
    are (``force``: render everything). Rulebook violations stop a build before anything is
    rendered; any input problem (or, with ``strict``, any warning) before anything is written.
    ``jobs``: worker processes (None: one per core; the bytes are the same either way).
    ``progress(done, total)``: called as each component is rendered (for a progress bar)."""
    out = physical_path(out)
    o = options(**opts)
    try:
        source_date_epoch()
        root = data_root(data)
        ids = game_ids(root, games)
    except DataError as exc:
        return BuildReport(o, Path(out), errors=tuple(exc.diagnostics))
    return build_games(root, ids, Path(out), o, force=force, jobs=jobs, progress=progress)


# --------------------------------------------------------------------------- preflight


class GamePreflighted(Struct, frozen=True):
    """One game's preflight (``pnp.qa.preflight.GamePreflight``), or the input errors that stopped it."""

    id: str
    preflight: GamePreflight | None = None
    errors: tuple[Diagnostic, ...] = ()


class PreflightReport(Struct, frozen=True):
    """What ``preflight`` measured, per game."""

    opts: BuildOptions
    games: tuple[GamePreflighted, ...] = ()
    errors: tuple[Diagnostic, ...] = ()

    @property
    def exit_code(self) -> int:
        """0 clean; 2 invalid input or, with ``strict``, any preflight warning."""
        bad = self.errors or any(g.errors for g in self.games)
        strict = self.opts.strict and any(g.preflight is not None and g.preflight.findings for g in self.games)
        return 2 if bad or strict else 0

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


def preflight(games: Games = None, *, data: Data = None, max_pixels: int | None = None,
              **opts: Any) -> PreflightReport:
    """Check each game as a print shop would, rendering in memory (nothing is written): ink
    coverage, smallest text, thinnest stroke, image resolution, safe zone, cut lines, margins,
    sheets and sizes. With ``ink_saver`` the low-ink variant, with the normal build's coverage
    beside it. ``max_pixels``: the pixel budget of the renders that measure coverage and cut
    lines (None: the exports' default; a component past it is reported unmeasured)."""
    o = options(**opts)
    try:
        source_date_epoch()  # preflight renders PDFs in memory: reportlab reads the variable too
        root = data_root(data)
        ids = game_ids(root, games)
    except DataError as exc:
        return PreflightReport(o, errors=tuple(exc.diagnostics))
    session = Session(root)
    budget = Budget(max_pixels)
    out = []
    for gid in ids:
        try:
            check_game_id(root, gid)
            pre = preflight_game(session, _check(root, gid, o, session), budget=budget)
            if o.ink_saver:  # the saving: the normal build's coverage, measured alike
                normal = _check(root, gid, replace(o, ink_saver=False), session)
                base = preflight_game(session, normal, lines=False, budget=budget)
                whole = all(c.coverage is not None for c in (*pre.components, *base.components))
                pre = replace(pre, normal_coverage=base.coverage if whole else None)  # like for like only
            out.append(GamePreflighted(gid, pre))
        except DataError as exc:
            out.append(GamePreflighted(gid, errors=tuple(exc.diagnostics)))
    return PreflightReport(o, tuple(out))


# --------------------------------------------------------------------------- exports and previews


class ExportReport(Struct, frozen=True):
    """What an export wrote: per component, its folder, images and index file. ``checked`` is the
    game as checked for it (print-shop pieces: trim + bleed); when its rules fail nothing is
    exported. ``skipped``: components a Tabletop Simulator export leaves out (no back)."""

    checked: GameCheck | None = None
    exported: tuple[Exported, ...] = ()
    skipped: tuple[Component, ...] = ()
    errors: tuple[Diagnostic, ...] = ()

    @property
    def exit_code(self) -> int:
        """0 exported; 1 rulebook violations (nothing exported); 2 invalid input."""
        if self.errors:
            return 2
        return 1 if self.checked is not None and not self.checked.report.ok else 0

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


class PreviewReport(Struct, frozen=True):
    """The PNG a preview wrote. A preview is made even when the game's rules fail (``checked``
    says so)."""

    checked: GameCheck | None = None
    path: Path | None = None
    errors: tuple[Diagnostic, ...] = ()

    @property
    def exit_code(self) -> int:
        return 2 if self.errors else 0

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


def _for_export(data: Data, game: str, bleed_mm: float) -> tuple[Session, GameCheck]:
    source_date_epoch()
    root = data_root(data)
    session = Session(root)
    # PNGs and previews draw each distinct item once, not the pages: no page budget
    return session, _check(root, game, BuildOptions(bleed_mm=bleed_mm, print_shop=True), session, budget=False)


def export_png(game: str, component: str | None = None, *, data: Data = None, out: str | os.PathLike[str] = "out",
               dpi: float = 300, bleed_mm: float = DEFAULT_BLEED_MM, jobs: int | None = None,
               progress: Callable[[int, int], None] | None = None,
               max_pixels: int | None = None) -> ExportReport:
    """One PNG per distinct item and side of every component of ``game`` (or of ``component``),
    with bleed, RGB, in ``out/<game>/png/<component>/`` beside an ``index.json``.
    ``jobs``: worker processes (None: one per core; the bytes are the same either way).
    ``progress(done, total)``: called as each component is exported. ``max_pixels``: the pixels
    the images may hold together (an input error before anything is rendered, beyond it)."""
    out = physical_path(out)
    try:
        session, gc = _for_export(data, game, bleed_mm)
    except DataError as exc:
        return ExportReport(errors=tuple(exc.diagnostics))
    if not gc.report.ok:
        return ExportReport(gc)
    try:
        total = len(select_plans(gc, component))  # an unknown component: an input error before any output
        check_output(session.root, [Path(out) / gc.game.id], Path(out))  # never among the inputs
        done: list[Exported] = []
        with output_lock(Path(out)) as locked:  # a build or another export into `out` waits
            for e in _export_png(session, gc, Path(out), dpi, component, jobs=jobs or default_jobs(), locked=locked,
                                 max_pixels=max_pixels):
                done.append(e)
                if progress is not None:
                    progress(len(done), total)
        return ExportReport(gc, tuple(done))
    except DataError as exc:
        return ExportReport(gc, errors=tuple(exc.diagnostics))


def shop_preset(name: str, command: str | None = None) -> Shop:
    """The shop preset ``name`` (``pnp.products.shops``); DataError for an unknown name (with the
    nearest one) or, with ``command``, a shop another command serves."""
    return shop_named(name, command)


class ShopExportReport(ExportReport, frozen=True):
    """What ``export_shop`` wrote (exit codes as ``ExportReport``; 2 also for an unknown shop or
    no component that maps to its products): ``shop`` holds the components mapped to the
    shop's products, those that did not map (with the reason) and the files."""

    shop: ShopReport | None = None


def export_shop(game: str, shop: str, component: str | None = None, *, data: Data = None,
                out: str | os.PathLike[str] = "out", jobs: int | None = None,
                command: str | None = None, max_pixels: int | None = None) -> ShopExportReport:
    """The files the print shop ``shop`` (``drivethrucards``, ``thegamecrafter``,
    ``makeplayingcards``, ``printerstudio``; see ``pnp.products.shops``) takes for ``game`` (or
    its ``component``), in ``out/<game>/shops/<shop>/`` with a ``shop-report.json``: each
    component at the shop's product size (a 63 x 88 mm card whose templates adapt becomes a
    2.5 x 3.5 in one; one drawn for its own size is centred on it, its bleed reaching the
    product's bleed edge), with its bleed, colour and page order, as one PDF per component or one
    PNG per piece side. Components that map to no product are named in the report with the reason.
    ``command``: the command asking ("build" or "export png"); a shop the other command serves
    is then an error saying which. ``max_pixels``: a PNG shop's pixel budget, as ``export_png``'s."""
    out = physical_path(out)
    try:
        preset = shop_named(shop, command)
        source_date_epoch()
        root = data_root(data)
        session = Session(root)
        gc = _check(root, game, preset.options(), session)
    except DataError as exc:
        return ShopExportReport(errors=tuple(exc.diagnostics))
    if not gc.report.ok:
        return ShopExportReport(gc)
    try:
        select_plans(gc, component)  # an unknown component: an input error before any output
        check_output(session.root, [Path(out) / gc.game.id], Path(out))

        with output_lock(Path(out)) as locked:  # a build or another export into `out` waits

            def png(sub: GameCheck, folder: Path, dpi: float,
                    files: FileSet) -> list[tuple[str, tuple[Path, ...], tuple[int, int]]]:
                return [(e.component.id, (*e.files, e.index), e.size_px)
                        for e in _export_png(session, sub, Path(out), dpi, jobs=jobs or default_jobs(), root=folder,
                                             files=files, locked=locked, max_pixels=max_pixels)]

            return ShopExportReport(gc, shop=_export_shop(session, gc, Path(out), preset, component, png, locked))
    except DataError as exc:
        return ShopExportReport(gc, errors=tuple(exc.diagnostics))


def export_tts(game: str, component: str | None = None, *, data: Data = None, out: str | os.PathLike[str] = "out",
               dpi: float = TTS_DPI, base_url: str | None = None, max_pixels: int | None = None) -> ExportReport:
    """Tabletop Simulator deck sheets for every component of ``game`` with a back (or
    ``component``), in ``out/<game>/tts/<component>/`` with their JSON, and a saved object per
    deck in ``out/<game>/tts/saved-objects/`` whose image URLs are the sheets' ``file://`` URLs,
    or ``base_url`` + their path inside ``out/<game>/tts/`` where the sheets are hosted.
    ``max_pixels``: the sheets' pixel budget, as ``export_png``'s."""
    out = physical_path(out)
    try:
        check_base_url(base_url)
        session, gc = _for_export(data, game, 0.0)
    except DataError as exc:
        return ExportReport(errors=tuple(exc.diagnostics))
    if not gc.report.ok:
        return ExportReport(gc)
    try:
        check_output(session.root, [Path(out) / gc.game.id], Path(out))
        with output_lock(Path(out)) as locked:  # a build or another export into `out` waits
            done, skipped = _export_tts(session, gc, Path(out), dpi, component, base_url, locked, max_pixels)
        return ExportReport(gc, tuple(done), tuple(skipped))
    except DataError as exc:
        return ExportReport(gc, errors=tuple(exc.diagnostics))


def preview(game: str, component: str, item: str | None = None, *, data: Data = None,
            out: str | os.PathLike[str] = "out", dpi: float = 150, max_pixels: int | None = None) -> PreviewReport:
    """``out/preview/<game>/<component>/<item>.png``: one item, front and back side by side, or
    without ``item`` a contact sheet of every distinct item of ``component``, ``.../<component>.png``.
    ``max_pixels``: the picture's pixel budget, as ``export_png``'s."""
    out = physical_path(out)
    try:
        session, gc = _for_export(data, game, DEFAULT_BLEED_MM)
    except DataError as exc:
        return PreviewReport(errors=tuple(exc.diagnostics))
    try:
        check_output(session.root, [Path(out) / "preview"], Path(out))
        with output_lock(Path(out)):
            return PreviewReport(gc, _preview(session, gc, Path(out), component, item, dpi, max_pixels))
    except DataError as exc:
        return PreviewReport(gc, errors=tuple(exc.diagnostics))


def calibrate(paper: str = DEFAULT_PAPER, duplex: str = DEFAULT_DUPLEX, *, out: str | os.PathLike[str] = "out",
              back_offset: tuple[float, float] = (0.0, 0.0), back_scale: tuple[float, float] = (1.0, 1.0),
              data: Data = None) -> Path:
    """Write ``out/calibration-<paper>-<duplex>.pdf``, the two-page duplex calibration sheet, drawn
    with a back correction (mm offset, scale) to check one. Returns its path; DataError for a
    malformed SOURCE_DATE_EPOCH, OutputError for an ``out`` among the folders of the data root
    ``data`` (the bundled games when None) that pnp reads, as for every other output."""
    out = physical_path(out)
    source_date_epoch()
    check_standalone_output(data_root(data), Path(out))
    fonts = FontBook(DataRoot(bundled_root()).font_dirs())
    data = calibration_pdf(paper_named(paper), duplex, fonts,
                           BackCorrection(back_offset[0] * MM, back_offset[1] * MM, *back_scale))
    path = Path(out) / f"calibration-{paper}-{duplex}.pdf"
    write_atomic(path, data)
    return path


def write_schemas(out: str | os.PathLike[str] = "out/schemas", *, data: Data = None) -> list[Path]:
    """Write the JSON Schemas pnp checks data and templates against (game, component, template,
    condition ``.schema.json``) into ``out``, for editors. Returns the paths written; OutputError,
    before anything is written, for an ``out`` among the folders of the data root ``data`` (the
    bundled games when None) that pnp reads, as for every other output."""
    out = physical_path(out)
    check_standalone_output(data_root(data), Path(out))
    files = [(Path(out) / name, raw) for name, raw in schema_bytes().items()]
    write_all(files)  # all or none: a full disk left half the set (attack 13, F7)
    return [path for path, _ in files]


# --------------------------------------------------------------------------- watch


def watch(game: str, *, data: Data = None, out: str | os.PathLike[str] = "out", jobs: int | None = None,
          **opts: Any) -> Watch:
    """A watcher of ``game``: each ``poll()`` rebuilds what changed since the last one (as
    ``build`` with the same options would write it) and returns the lines to show. Raises
    DataError for a bad data root, a game it does not hold (a typo ends here, not in a watch of
    nothing) or SOURCE_DATE_EPOCH, OutputError for an output folder among the inputs."""
    out = physical_path(out)
    source_date_epoch()
    root, o = data_root(data), options(**opts)
    check_game_id(root, game)
    check_output(root, [output_folder(Path(out), game, o)])
    return Watch(root, game, Path(out), o, jobs=jobs or default_jobs())

# --------------------------------------------------------------------------- sheets


class DataExportReport(Struct, frozen=True):
    """What ``export_data`` wrote: the sheet's path, its columns and its number of item rows."""

    path: Path | None = None
    columns: tuple[str, ...] = ()
    rows: int = 0
    errors: tuple[Diagnostic, ...] = ()

    @property
    def exit_code(self) -> int:
        return 2 if self.errors else 0

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


def export_data(game: str, component: str, *, data: Data = None, out: str | os.PathLike[str] = "out",
                fmt: str = "csv") -> DataExportReport:
    """``out/<game>/data/<component>.csv`` (or ``.xlsx``): the component's items as a sheet that
    pnp reads back as the same items (see docs/data-format.md)."""
    out = physical_path(out)
    try:
        if fmt not in FORMATS:
            raise DataError([Diagnostic(fmt, f"unknown sheet format {fmt!r}", expected=" or ".join(FORMATS))])
        root = data_root(data)
        g = load_game(root, game)
        shown, fields_, items = component_data(g, component)
        rows = sheet_rows(shown, fields_, items)
        if fmt == "xlsx":
            source_date_epoch()  # its dates: a malformed SOURCE_DATE_EPOCH is an input error here
    except DataError as exc:
        return DataExportReport(errors=tuple(exc.diagnostics))
    path = Path(out) / game / "data" / f"{component}.{fmt}"
    check_output(root, [path.parent], Path(out))  # a sheet written among the inputs would be read as one
    write_atomic(path, csv_bytes(rows) if fmt == "csv" else xlsx_bytes(rows, component))
    return DataExportReport(path, tuple(rows[0]), len(rows) - 1)


class FetchReport(Struct, frozen=True):
    """Each published sheet's fetch (``pnp.products.published.Fetched``). ``exit_code`` 1 when
    one failed (its cached copy, if any, is kept and builds use it)."""

    fetched: tuple[Fetched, ...] = ()
    errors: tuple[Diagnostic, ...] = ()

    @property
    def exit_code(self) -> int:
        if self.errors:
            return 2
        return 1 if any(not f.ok for f in self.fetched) else 0

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


def fetch(games: Games = None, *, data: Data = None, timeout: float = 30.0) -> FetchReport:
    """Update the cached copy of every published sheet (a component whose ``data`` is an http(s)
    URL) of ``games`` (None: every game of the data root)."""
    try:
        root = data_root(data)
        done = []
        for gid in game_ids(root, games):
            check_game_id(root, gid)
            folder = root.card_data / gid
            doc = load_json(folder / MANIFEST, root.display(folder / MANIFEST))
            if errs := validate_doc(doc, "game"):
                raise DataError(errs)
            entries = published(doc.data)
            comps = doc.data["components"]
            bad = [d for e in entries if (d := cache_problem(doc, next(i for i, c in enumerate(comps) if c is e),
                                                            e, folder)) is not None]
            if bad:
                raise DataError(bad)
            done += [fetch_entry(folder, entry, timeout) for entry in entries]
    except DataError as exc:
        return FetchReport(errors=tuple(exc.diagnostics))
    return FetchReport(tuple(done))
