"""Where games live, without loading anything: a data root holds ``card_data/<game>/``,
``templates/`` and optionally ``fonts/``; the bundled games form the default root. Kept free of
heavy imports (the incremental build's up-to-date path uses it)."""

from __future__ import annotations

import re
from pathlib import Path

from msgspec import Struct

from pnp.errors import DataError, Diagnostic
from pnp.input import kinds, tables
from pnp.input.load import Doc, load_json
from pnp.input.model import Game, build_game
from pnp.input.validate import item_validator, validate_doc, validate_value

GAME_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}\Z")  # \Z: "mini\n" is not a game id
MANIFEST = "game.json"  # a game's manifest, in its folder card_data/<game>/


def bundled_root() -> Path:
    """The bundled games: installed as ``pnp/bundled/``; in a source checkout, the repository."""
    pkg = Path(__file__).resolve().parents[1]  # the pnp package
    installed = pkg / "bundled"
    if DataRoot(installed).card_data.is_dir():
        return installed
    return pkg.parent


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
        # The path as written first: a link inside the root is shown where it is, not where it points.
        for path, root in ((p, self.path), (p.resolve(), self.path.resolve())):
            try:
                return str(path.relative_to(root))
            except ValueError:
                pass
        return str(p)

    def game_ids(self) -> list[str]:
        if not self.card_data.is_dir():
            return []
        return sorted(d.name for d in self.card_data.iterdir()
                      if (d / MANIFEST).is_file() and GAME_ID.match(d.name))


def check_game_id(root: DataRoot, gid: str) -> None:
    if not GAME_ID.match(gid):
        raise DataError([Diagnostic(gid, f"invalid game id {gid!r}",
                                    expected="lowercase letters, digits and hyphens, no path characters")])
    if not (root.card_data / gid / MANIFEST).is_file():
        known = ", ".join(root.game_ids()) or "none"
        raise DataError([Diagnostic(root.display(root.card_data / gid / MANIFEST),
                                    f"no game {gid!r} in {root.path}", expected=f"one of: {known}",
                                    hint="run `pnp list` to see the games")])


def load_game(root: DataRoot, gid: str) -> Game:
    check_game_id(root, gid)
    folder = root.card_data / gid
    if not _inside(folder / MANIFEST, folder):
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
    for ci, c in enumerate(components):
        if not isinstance(c, dict):
            continue
        diags.extend(kinds.check_component(manifest, ci, c))
        if tables.is_sheet(c["data"]):
            path = folder / tables.file_name(c)
            if not _inside(path, folder):
                diags.append(manifest.diag(("components", ci, "data"), f"data file {path.name!r} is a link to a "
                                           "file outside the game folder", expected="a file name in "
                                           + root.display(folder)))
                continue
            try:
                data_docs[c["id"]] = tables.load_sheet(folder, c, root.display(path), manifest, ("components", ci))
            except DataError as exc:
                diags.extend(exc.diagnostics)
            continue
        diags.extend(tables.check_fields_not_in_json(manifest, ("components", ci), c))
        path = folder / c["data"]
        if not _inside(path, folder):
            diags.append(manifest.diag(("components", ci, "data"), f"data file {c['data']!r} is a link to a file "
                                       "outside the game folder", expected="a file name in " + root.display(folder),
                                       hint="copy the file into the game folder instead of linking to it"))
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
        if not file_diags:
            v = item_validator(doc.data["fields"])
            for ii, item in enumerate(doc.data["items"]):
                series = item.get("series") if isinstance(item, dict) else None
                if isinstance(series, dict) and isinstance(series.get("field"), str) and series["field"] not in item:
                    # The series supplies this field to every item it makes.
                    item = {**item, series["field"]: series.get("from")}
                file_diags.extend(validate_value(doc, item, v, ("items", ii)))
        diags.extend(file_diags)
        data_docs[c["id"]] = doc
    if diags:
        raise DataError(diags)
    return build_game(manifest, data_docs, folder)


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
    except ValueError:
        return False
    return True

