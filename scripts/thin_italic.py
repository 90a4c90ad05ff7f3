"""List every text element that prints in an italic face under 7 pt, per game (issue 23).
Usage: python scripts/thin_italic.py [GAME...]"""
import sys
from collections import defaultdict

import pnp.qa.preflight as P
from pnp import api
from pnp.layout.primitives import Text

found: dict = defaultdict(lambda: [99.0, set(), ""])
orig = P.Collector.walk


def walk(self, lay, item, side):
    spans = list(lay.sources)
    prims = lay.primitives
    if sum(n for _, n in spans) == len(prims):
        i = 0
        for el, n in spans:
            ps = prims[i:i + n]
            i += n
            if el is None or el.data.get("type") not in P.TEXT_TYPES:
                continue
            role = self.role(el)
            for p in ps:
                if type(p) is Text and p.text.strip() and ("Italic" in p.font and p.size < 7 - 1e-9):
                    k = (el.doc.display, el.data.get("id") or "/".join(map(str, el.path)), role)
                    f = found[k]
                    f[0] = min(f[0], p.size)
                    f[1].add(item)
                    f[2] = p.text[:30]
    return orig(self, lay, item, side)


P.Collector.walk = walk
games = sys.argv[1:] or ["golems", "cyberiad", "capek-golems", "time-capsules", "cauldron"]
api.preflight(games)
for (doc, el, role), (size, items, text) in sorted(found.items()):
    print(f"{size:5.2f} pt {role or '-':6} {doc} {el} ({len(items)} items, e.g. {sorted(items)[0]}: {text!r})")
print(len(found), "elements")
