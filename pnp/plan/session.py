"""The shared state of one run: the data root, its template store and its font book."""

from __future__ import annotations

from pnp.input.project import DataRoot
from pnp.input.templates import TemplateStore
from pnp.layout.cost import Tally
from pnp.layout.fields import LayoutError
from pnp.layout.fonts import FontBook
from pnp.layout.shapes import MAX_GAME_IMAGE_PIXELS

# Pixels of the distinct image files of every game one command lays out, together: the budget per
# game times four. Ten games of one 42 MP image each (1.5 MB of PNG input) took 20 s to build
# (attack 12); a command of many such games is built a few games at a time.
MAX_COMMAND_IMAGE_PIXELS = 4 * MAX_GAME_IMAGE_PIXELS


class _GameImages(dict[str, int]):
    """One game's image files and their pixels (``Session.images``), which refuses a file that
    takes the images of all the command's games past MAX_COMMAND_IMAGE_PIXELS."""

    def __init__(self, games: _Games) -> None:
        super().__init__()
        self.games = games

    def __setitem__(self, real: str, pixels: int) -> None:
        total = sum(sum(g.values()) for g in self.games.values()) + pixels
        if real not in self and total > MAX_COMMAND_IMAGE_PIXELS:
            raise LayoutError(f"image file {real.rsplit('/', 1)[-1]!r} ({pixels} pixels) brings the image files of "
                              f"the games this command lays out ({len(self.games)}) to {total} pixels together, more "
                              f"than pnp's budget of {MAX_COMMAND_IMAGE_PIXELS} a command", key="src",
                              expected=f"images of at most {MAX_COMMAND_IMAGE_PIXELS} pixels together in one command",
                              hint="check or build the games a few at a time (`pnp build GAME`)")
        super().__setitem__(real, pixels)


class _Games(dict[str, dict[str, int]]):
    """Game id -> its images (``_GameImages``), made on first use by ``setdefault``."""

    def setdefault(self, gid: str, default: dict[str, int] | None = None) -> dict[str, int]:
        if gid not in self:
            self[gid] = _GameImages(self)
        return self[gid]


class Session:
    """Shared state for one run: the data root, its templates and fonts."""

    def __init__(self, root: DataRoot) -> None:
        self.root = root
        self.store = TemplateStore(root)
        self.fonts = FontBook(root.font_dirs())
        # per game id: its distinct raster image files laid out so far -> their pixels
        # (pnp.layout.piece.Context.images, held to a budget per game, and all games together
        # to MAX_COMMAND_IMAGE_PIXELS: _GameImages)
        self.images: dict[str, dict[str, int]] = _Games()
        # the shapes its pieces are charged, all games together, against the command's budget
        # (pnp.layout.cost)
        self.tally = Tally()

