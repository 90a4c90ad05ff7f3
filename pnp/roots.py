"""Where games live, without loading anything: a data root holds ``card_data/<game>/``,
``templates/`` and optionally ``fonts/``; the bundled games form the default root. Kept free of
heavy imports (the incremental build's up-to-date path uses it)."""

from __future__ import annotations

import re
from pathlib import Path

from msgspec import Struct

from pnp.errors import DataError, Diagnostic

GAME_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}\Z")  # \Z: "mini\n" is not a game id


def bundled_root() -> Path:
    """The bundled games: installed as ``pnp/bundled/``; in a source checkout, the repository."""
    pkg = Path(__file__).resolve().parent
    installed = pkg / "bundled"
    if (installed / "card_data").is_dir():
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

    def font_dirs(self) -> tuple[Path, ...]:
        dirs = [self.path / "fonts", bundled_root() / "fonts"]
        seen: list[Path] = []
        for d in dirs:
            if d.is_dir() and d.resolve() not in [s.resolve() for s in seen]:
                seen.append(d)
        return tuple(seen)

    def template_dirs(self) -> tuple[Path, ...]:
        """Templates are looked up in the root first, then in the bundled shared templates."""
        dirs = [self.templates]
        bundled = bundled_root() / "templates"
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
                      if (d / "game.json").is_file() and GAME_ID.match(d.name))


def check_game_id(root: DataRoot, gid: str) -> None:
    if not GAME_ID.match(gid):
        raise DataError([Diagnostic(gid, f"invalid game id {gid!r}",
                                    expected="lowercase letters, digits and hyphens, no path characters")])
    if not (root.card_data / gid / "game.json").is_file():
        known = ", ".join(root.game_ids()) or "none"
        raise DataError([Diagnostic(root.display(root.card_data / gid / "game.json"),
                                    f"no game {gid!r} in {root.path}", expected=f"one of: {known}",
                                    hint="run `pnp list` to see the games")])
