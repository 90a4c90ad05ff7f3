"""Count paragraphs that end in a one-word line, across the five bundled games (issue 23).
Renders every component in memory through pnp.preflight with the text fitter instrumented.
Usage: python scripts/count_widows.py [--greedy]   (--greedy: balancing switched off)"""
import sys
from collections import Counter

import pnp.layout.text as T
from pnp import api

if "--greedy" in sys.argv:
    T._balance = lambda *a: None
counts: Counter = Counter()
above: Counter = Counter()  # of those, where the line above has two words or more
texts: dict[str, set] = {}
game = ""
orig_place = T.TextLayout._place


def place(self, st, words, texts_, simple, wws, rws, icons, lines, paras, size, space, box):
    n_par = 0
    for i, (idxs, _) in enumerate(lines):
        last = i == len(lines) - 1 or not (isinstance(idxs, range) and isinstance(lines[i + 1][0], range)
                                          and lines[i + 1][0].start == idxs.stop)
        first_of_para = i == 0 or not (isinstance(idxs, range) and isinstance(lines[i - 1][0], range)
                                       and lines[i - 1][0].stop == idxs.start)
        if last and not first_of_para and len(idxs) == 1:
            n_par += 1
            if len(lines[i - 1][0]) >= 2:  # the line above had a word to give
                above[game] += 1
    if n_par:
        counts[game] += n_par
        key = " ".join(t if isinstance(t, str) else "".join(r[0] for r in t) for t in (texts_ or words))
        texts.setdefault(game, set()).add(key[:60])
    return orig_place(self, st, words, texts_, simple, wws, rws, icons, lines, paras, size, space, box)


T.TextLayout._place = place
orig_fit = T.TextLayout.fit


def fit(self, *a, **k):
    self._memo.clear()  # count every piece, not only the first of a repeated text
    return orig_fit(self, *a, **k)


T.TextLayout.fit = fit
for g in ("golems", "cyberiad", "capek-golems", "time-capsules", "cauldron"):
    game = g
    api.preflight([g])
    print(f"{g:15} {counts[g]:4} one-word last lines on printed pieces, {len(texts.get(g, ())):3} distinct texts;"
          f" {above[g]:4} with two or more words on the line above")
print(f"{'total':15} {sum(counts.values()):4}{'':47}{sum(above.values()):4}")
for g, ts in texts.items():
    for t in sorted(ts)[:3]:
        print("   e.g.", g, "|", t)
