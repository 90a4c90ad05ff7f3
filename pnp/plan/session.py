"""The shared state of one run: the data root, its template store and its font book."""

from __future__ import annotations

from pnp.input.project import DataRoot
from pnp.input.templates import TemplateStore
from pnp.layout.cost import Tally
from pnp.layout.fonts import FontBook


class Session:
    """Shared state for one run: the data root, its templates and fonts."""

    def __init__(self, root: DataRoot) -> None:
        self.root = root
        self.store = TemplateStore(root)
        self.fonts = FontBook(root.font_dirs())
        # per game id: its distinct raster image files laid out so far -> their pixels
        # (pnp.layout.piece.Context.images, held to a budget per game)
        self.images: dict[str, dict[str, int]] = {}
        # the shapes its pieces are charged, all games together, against the command's budget
        # (pnp.layout.cost)
        self.tally = Tally()

