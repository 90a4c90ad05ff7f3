"""The most shapes (pnp.render.pixels.held, MAX_IMAGE_SHAPES) any image of the bundled games holds:
a piece side (export png, serve), a print-shop page, a TTS sheet of fronts, a contact sheet
(preview), and a letter sheet page (preflight, serve's sheet pictures).

    python bench/held_bundled.py [DATA_ROOT]
"""

from __future__ import annotations

import sys

from pnp import api
from pnp.plan.component import pages_for
from pnp.plan.options import BuildOptions
from pnp.plan.session import Session
from pnp.products.images import distinct
from pnp.render.pixels import held


def main() -> None:
    data = sys.argv[1] if len(sys.argv) > 1 else "."
    root = api.data_root(data)
    for gid in api.game_ids(root):
        _, gc = api._for_export(data, gid, 3.0)
        side = shop = contact = tts = 0
        for plan in gc.plans:
            ds = distinct(plan)
            for d in ds:
                side = max(side, held([d.front]).shapes, held([d.back]).shapes)
            contact = max(contact, held([d.front for d in ds] + [d.back for d in ds]).shapes)
            for i in range(0, len(ds), 69):
                tts = max(tts, held([d.front for d in ds[i:i + 69]]).shapes)
            for p in pages_for(plan):
                shop = max(shop, held([plan.fronts[s.piece] if p.side == "front" else plan.backs[s.piece]
                                       for s in p.slots]).shapes)
        gc = api._check(root, gid, BuildOptions(), Session(root), budget=False)
        sheet = max(held([plan.fronts[s.piece] if p.side == "front" else plan.backs[s.piece] for s in p.slots]).shapes
                    for plan in gc.plans for p in pages_for(plan))
        print(f"{gid}: piece side {side}, print-shop page {shop}, letter sheet page {sheet}, "
              f"TTS sheet (fronts) {tts}, contact sheet {contact}")


if __name__ == "__main__":
    main()
