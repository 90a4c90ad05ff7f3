"""Where games live, without loading anything: a data root holds ``card_data/<game>/``,
``templates/`` and optionally ``fonts/``; the bundled games form the default root. Kept free of
heavy imports (the incremental build's up-to-date path uses it)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from msgspec import Struct

from pnp.errors import DataError, Diagnostic, did_you_mean, one_line
from pnp.input import kinds, tables
from pnp.input.load import NAME_MAX, PATH_MAX, Doc, file_kind, load_json, name_too_long, resolves_inside
from pnp.input.model import Game, build_game
from pnp.input.validate import item_validator, validate_doc, validate_items

GAME_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}\Z")  # \Z: "mini\n" is not a game id
# Game ids that name an output folder another command writes by default (``--out`` is shared):
# a game of that name would be built into that command's folder. Like the component ids
# ``<game>-contents`` and ``<game>-ganged`` (pnp.input.model), they are refused as game ids.
RESERVED_GAME_IDS = {
    "preview": "out/preview/ is where `pnp preview` writes its PNGs",
    "schemas": "out/schemas/ is where `pnp schema` writes the JSON Schemas",
}
MANIFEST = "game.json"  # a game's manifest, in its folder card_data/<game>/


def bundled_root() -> Path:
    """The bundled games: installed as ``pnp/bundled/``; in a source checkout, the repository."""
    pkg = Path(__file__).resolve().parents[1]  # the pnp package
    installed = pkg / "bundled"
    if DataRoot(installed).card_data.is_dir():
        return installed
    return pkg.parent


def find_root(start: Path) -> Path | None:
    """The data root a command run in ``start`` works on, found as git finds ``.git``: the
    nearest folder at or above ``start`` that holds ``card_data/`` (None: there is none)."""
    start = Path(os.path.abspath(start))
    for folder in (start, *start.parents):
        if (folder / "card_data").is_dir():
            return folder
    return None


class DataRoot(Struct, frozen=True):
    """A folder holding ``card_data/`` and ``templates/`` (a project, or the bundled games)."""

    path: Path

    @property
    def card_data(self) -> Path:
        return self.path / "card_data"

    @property
    def templates(self) -> Path:
        return self.path / "templates"

    @property
    def fonts(self) -> Path:
        return self.path / "fonts"

    def font_dirs(self) -> tuple[Path, ...]:
        dirs = [self.fonts, DataRoot(bundled_root()).fonts]
        seen: list[Path] = []
        for d in dirs:
            if d.is_dir() and d.resolve() not in [s.resolve() for s in seen]:
                seen.append(d)
        return tuple(seen)

    def template_dirs(self) -> tuple[Path, ...]:
        """Templates are looked up in the root first, then in the bundled shared templates."""
        dirs = [self.templates]
        bundled = DataRoot(bundled_root()).templates
        if bundled.resolve() != self.templates.resolve():
            dirs.append(bundled)
        return tuple(dirs)

    def display(self, p: Path) -> str:
        """``p`` as messages show it: relative to the working folder when inside it, else
        absolute, so terminals and editors can open it from where the command ran. The path as
        written, not resolved: a link is shown where it is, not where it points."""
        return shown_path(p)

    def game_ids(self) -> list[str]:
        if not self.card_data.is_dir():
            return []
        return sorted(d.name for d in self.card_data.iterdir()
                      if (d / MANIFEST).is_file() and GAME_ID.match(d.name))

    def stray_games(self) -> list[Diagnostic]:
        """The folders of ``card_data/`` that hold a ``game.json`` and yet are no game
        (``game_ids`` leaves them out): a folder whose name is not a valid game id, a manifest
        that is not a regular file (a named pipe, a folder, a link to nothing). A command run on
        every game reports them, instead of saying all is well without them. Folders with no
        ``game.json`` at all (notes, art, a ``.git``) are not games and stay unmentioned."""
        if not self.card_data.is_dir():
            return []
        out: list[Diagnostic] = []
        for d in sorted(self.card_data.iterdir(), key=lambda p: p.name):
            manifest = d / MANIFEST
            if not d.is_dir() or not os.path.lexists(manifest):
                continue
            if not GAME_ID.match(d.name):
                out.append(Diagnostic(self.display(d), f"folder name {d.name!r} is not a valid game id, so the "
                                      f"game in it is not checked or built", expected=ID_RULE,
                                      hint=_rename_hint(d)))
            elif not manifest.is_file():
                out.append(not_regular_manifest(self, manifest))
        return out


def physical_path(p: str | os.PathLike[str]) -> Path:
    """``p`` with its ``..`` parts taken as the system takes them: ``a/link/../b`` is ``b`` beside
    the folder ``link`` points to, where Python's ``abspath`` (and so ``tempfile``, and messages)
    read it as ``a/b``. One reading of --out for the checks, the writes and the messages: a
    build into ``root/link/../templates`` passed the check at the real folder and made its
    temporary files in ``root/templates``, among the inputs (attack 13, F1). A path without
    ``..`` is returned as it is (a link in it stays a link: ``--out`` may be one)."""
    parts = Path(p).parts
    if ".." not in parts:
        return Path(p)
    last = len(parts) - 1 - parts[::-1].index("..")
    return Path(os.path.realpath(Path(*parts[:last + 1]))).joinpath(*parts[last + 1:])


def shown_path(p: Path | str) -> str:
    """A path as a message shows it: relative to the working folder when inside it, else absolute,
    on one line (a line feed or tab in a name written as an escape, ``one_line``: `--out
    $'/tmp/n\\nl'` printed "wrote 2 PDFs to /tmp/n" and "l/g1/" on the next line, attack 13)."""
    return one_line(_shown(p))


def _shown(p: Path | str) -> str:
    full = os.path.abspath(p)
    try:
        cwd = os.getcwd()
    except OSError:  # the working folder was removed
        return full
    if full == cwd:
        return "."
    if os.path.dirname(cwd) == cwd:
        # The working folder is the file system's root ("/", or a drive on Windows): every path is
        # inside it, and shown whole it is the clearer (and the same to open from there).
        return full
    prefix = cwd if cwd.endswith(os.sep) else cwd + os.sep
    return full[len(prefix):] if full.startswith(prefix) else full


def reserved_game_id(gid: str, where: str | None = None) -> Diagnostic | None:
    """The problem with ``gid`` as a game id when it is reserved (``RESERVED_GAME_IDS``), else None
    (``where``: the file or folder the message names; the id itself by default)."""
    why = RESERVED_GAME_IDS.get(gid)
    if why is None:
        return None
    return Diagnostic(where or gid, f"game id {gid!r} is reserved: {why}, so the game's files and that command's "
                      "would share one folder", expected="another game id, not " + " or ".join(RESERVED_GAME_IDS),
                      hint=f"rename the game's folder and its manifest's id, e.g. to {gid}-game")


ID_RULE = ("a game id: lowercase letters, digits and hyphens, a letter or digit first, "
           "at most 64 characters")


def _rename_hint(folder: Path) -> str:
    """Advice for a game folder with an invalid name: the name made valid, unless that is taken."""
    slug = re.sub(r"[^a-z0-9]+", "-", folder.name.lower()).strip("-")[:64].rstrip("-")
    taken = not slug or not GAME_ID.match(slug) or os.path.lexists(folder.parent / slug)
    suggestion = "" if taken else f" to {slug!r}"
    return f"rename the folder{suggestion} (and set its manifest's id to match)"


def not_regular_manifest(root: DataRoot, manifest: Path) -> Diagnostic:
    return Diagnostic(root.display(manifest), f"{MANIFEST} is not a regular file: it is {file_kind(manifest)}",
                      expected="the game's manifest, a JSON file", hint="replace it with a JSON file")


def check_game_id(root: DataRoot, gid: str) -> None:
    """DataError unless ``gid`` is a valid, unreserved game id whose folder in ``root`` holds a
    manifest and lies inside the data root (a link to a folder elsewhere is refused, as a link
    out of a game folder is for the files in it)."""
    if not GAME_ID.match(gid):
        raise DataError([Diagnostic(gid, f"invalid game id {gid!r}",
                                    expected="lowercase letters, digits and hyphens, no path characters")])
    reserved = reserved_game_id(gid, root.display(root.card_data / gid))
    if reserved is not None:
        raise DataError([reserved])
    check_confined(root, root.card_data / gid)
    manifest = root.card_data / gid / MANIFEST
    if os.path.lexists(manifest) and not manifest.is_file():  # a named pipe would block the read
        raise DataError([not_regular_manifest(root, manifest)])
    if not manifest.is_file():
        ids = root.game_ids()
        hint = did_you_mean(gid, ids) or "`pnp list` lists the games"
        raise DataError([Diagnostic(root.display(root.card_data / gid / MANIFEST),
                                    f"no game {gid!r} in {root.display(root.card_data)}",
                                    expected=f"one of: {', '.join(ids) or 'none'}", hint=hint)])


def load_game(root: DataRoot, gid: str) -> Game:
    """The game ``gid`` of ``root``, loaded and validated. Raises DataError with every problem."""
    game, diags = load_game_partial(root, gid)
    if diags or game is None:
        raise DataError(diags)
    return game


def load_game_partial(root: DataRoot, gid: str) -> tuple[Game | None, list[Diagnostic]]:
    """The game and every problem of its files. Where there are problems, the game holds the
    parts that have none (components whose manifest entry and data file are valid, items that
    are valid), so a check can go on to their templates and report all problems in one run; it
    is None when what is wrong leaves no game to build (the manifest outside its components, a
    cross-file problem)."""
    check_game_id(root, gid)
    folder = root.card_data / gid
    if not resolves_inside(folder / MANIFEST, folder):
        raise DataError([Diagnostic(root.display(folder / MANIFEST), f"{MANIFEST} is a link to a file outside "
                                    "the game folder", expected="a file inside " + root.display(folder),
                                    hint="copy the file into the game folder instead of linking to it")])
    manifest = load_json(folder / MANIFEST, root.display(folder / MANIFEST))
    diags = validate_doc(manifest, "game")
    m = manifest.data
    components: list[object] = m["components"] if not diags else []
    if diags:
        # Still check the data files of the components whose manifest entries are valid, so one
        # run reports every problem.
        bad = {d.path[:2] for d in diags}
        comps = m.get("components") if isinstance(m, dict) else None
        if isinstance(comps, list) and ("components",) not in bad:
            components = [c if ("components", ci) not in bad else None for ci, c in enumerate(comps)]
    elif m["id"] != gid:
        diags.append(manifest.diag(("id",), f"game id {m['id']!r} differs from its folder name {gid!r}",
                                   expected=repr(gid)))
    data_docs: dict[str, Doc] = {}
    require_source = isinstance(m, dict) and m.get("provenance") == "required"
    skip: set[int] = set()  # components left out of a partial game
    bad_items: dict[int, set[int]] = {}  # component -> its items left out
    for ci, c in enumerate(components):
        if not isinstance(c, dict):
            skip.add(ci)
            continue
        before = len(diags)
        diags.extend(kinds.check_component(manifest, ci, c))
        other = tables.shares_cache(c, components[:ci])  # reported once, at the later of the two
        if other is not None:  # `pnp fetch` writes a published sheet's cache: no file another component reads
            message, expected = tables.shared_cache_message(c, other)
            diags.append(manifest.diag(("components", ci, "cache" if "cache" in c else "data"), message,
                                       expected=expected))
            skip.add(ci)
            continue
        too_long = name_too_long(folder / (tables.file_name(c) if tables.is_sheet(c["data"]) else c["data"]))
        if too_long is not None:
            diags.append(manifest.diag(("components", ci, "cache" if "cache" in c else "data"),
                                       f"data file name too long: {too_long}",
                                       expected=f"a file name of at most {NAME_MAX} bytes ({PATH_MAX} in all) in "
                                       + root.display(folder)))
            skip.add(ci)
            continue
        if tables.is_sheet(c["data"]):
            path = folder / tables.file_name(c)
            if not resolves_inside(path, folder):
                diags.append(manifest.diag(("components", ci, "data"), f"data file {path.name!r} is a link to a "
                                           "file outside the game folder", expected="a file name in "
                                           + root.display(folder)))
                skip.add(ci)
                continue
            try:
                data_docs[c["id"]] = tables.load_sheet(folder, c, root.display(path), manifest, ("components", ci),
                                                       require_source)
            except DataError as exc:
                diags.extend(exc.diagnostics)
            if len(diags) > before:  # a sheet with problems is left out whole (its rows are not told apart)
                skip.add(ci)
            continue
        diags.extend(tables.check_fields_not_in_json(manifest, ("components", ci), c))
        path = folder / c["data"]
        if not resolves_inside(path, folder):
            diags.append(manifest.diag(("components", ci, "data"), f"data file {c['data']!r} is a link to a file "
                                       "outside the game folder", expected="a file name in " + root.display(folder),
                                       hint="copy the file into the game folder instead of linking to it"))
            continue
        if file_kind(path) == "a loop of links":
            diags.append(manifest.diag(("components", ci, "data"), f"data file {c['data']!r} "
                                       f"({root.display(path)}) is not a regular file: it is a loop of links",
                                       expected="a .json file in " + root.display(folder),
                                       hint="replace the link with the file it should name"))
            continue
        try:
            doc = load_json(path, root.display(path))
        except DataError as exc:
            if not path.exists():
                diags.append(manifest.diag(("components", ci, "data"), f"data file {c['data']!r} not found",
                                           expected="a .json file in " + root.display(folder)))
            else:
                diags.extend(exc.diagnostics)
            continue
        file_diags = validate_doc(doc, "component")
        if all(len(d.path) > 1 and d.path[0] == "items" and isinstance(d.path[1], int) for d in file_diags):
            flagged = {d.path[1] for d in file_diags}
            # the file is sound but for some items (`null` among them): the others are still
            # checked against the fields, so an item without an id is never passed on
            v = item_validator(doc.data["fields"], require_source)
            todo = []
            for ii, item in enumerate(doc.data["items"]):
                if ii in flagged:
                    continue
                series = item.get("series") if isinstance(item, dict) else None
                if isinstance(series, dict) and isinstance(series.get("field"), str) and series["field"] not in item:
                    # The series supplies this field to every item it makes.
                    item = {**item, series["field"]: series.get("from")}
                todo.append((ii, item))
            file_diags.extend(validate_items(doc, todo, v))
        diags.extend(file_diags)
        data_docs[c["id"]] = doc
        if len(diags) > before:  # the manifest entry or the data file as a whole is wrong: left out
            if all(d.path[:1] == ("items",) and len(d.path) > 1 and isinstance(d.path[1], int) for d in file_diags) \
                    and len(diags) - before == len(file_diags):
                bad_items[ci] = {int(d.path[1]) for d in file_diags}
            else:
                skip.add(ci)
    # entries whose data file could not be read at all (no Doc): left out too
    skip.update(ci for ci, c in enumerate(components) if isinstance(c, dict) and c["id"] not in data_docs)
    if not diags:
        return build_game(manifest, data_docs, folder), []
    if not components or any(d.path[:1] != ("components",) or len(d.path) < 2
                             for d in diags if d.file == manifest.display):
        return None, diags  # the manifest itself is wrong beyond its component entries
    try:
        return build_game(manifest, data_docs, folder, frozenset(skip), bad_items), diags
    except DataError as exc:
        return None, diags + list(exc.diagnostics)


def check_confined(root: DataRoot, game_folder: Path | None = None) -> None:
    """DataError when a folder pnp reads in ``root`` (``game_folder``, ``templates/``, ``fonts/``)
    is, or lies behind, a link that leaves the data root: the checks that keep every file inside
    its game, templates or fonts folder compare against those folders as links resolve them, so
    a folder that leads elsewhere would carry everything in it out of the root. Links that stay
    inside the root are fine."""
    top = root.path.resolve()
    for folder, what in ((game_folder, "game folder"), (root.templates, "templates folder"),
                         (root.fonts, "fonts folder")):
        if folder is None or not os.path.lexists(folder):
            continue
        try:
            real = folder.resolve(strict=True)
        except (OSError, RuntimeError) as exc:  # a loop of links, a link to nothing
            raise DataError([Diagnostic(root.display(folder), f"the {what} cannot be followed to a folder "
                                        f"({exc.strerror if isinstance(exc, OSError) else exc})",
                                        expected="a folder inside the data root")]) from None
        if not real.is_relative_to(top):
            how = "is a link to a folder" if os.path.islink(folder) else "lies behind a link, in a folder"
            raise DataError([Diagnostic(root.display(folder), f"the {what} {how} outside the data root "
                                        f"({shown_path(real)})", expected="a folder inside the data root",
                                        hint="move or copy the folder into the data root "
                                        "instead of linking to it")])

