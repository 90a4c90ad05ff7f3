"""Where games live: a data root holds ``card_data/<game>/``, ``templates/`` and optionally
``fonts/``. The bundled games form the default root; ``--data PATH`` names another.

``load_game`` runs the first three stages (load, validate, model) for one game and reports every
problem of every file at once."""

from __future__ import annotations

from pathlib import Path

from pnp import kinds
from pnp.errors import DataError, Diagnostic
from pnp.load import Doc, load_json
from pnp.model import Game, build_game
from pnp.roots import GAME_ID, DataRoot, bundled_root, check_game_id
from pnp.validate import item_validator, validate_doc, validate_value

__all__ = ["GAME_ID", "DataRoot", "bundled_root", "check_game_id", "load_game"]


def load_game(root: DataRoot, gid: str) -> Game:
    check_game_id(root, gid)
    folder = root.card_data / gid
    if not _inside(folder / "game.json", folder):
        raise DataError([Diagnostic(root.display(folder / "game.json"), "game.json is a link to a file outside "
                                    "the game folder", expected="a file inside " + root.display(folder),
                                    hint="copy the file into the game folder instead of linking to it")])
    manifest = load_json(folder / "game.json", root.display(folder / "game.json"))
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
