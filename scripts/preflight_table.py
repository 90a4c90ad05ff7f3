"""Preflight figures of every bundled game, normal and --ink-saver, as the Markdown table in
docs/printing.md (section Preflight figures of the bundled games). Fails (exit 1) if any game's
ink-saver coverage is more than half of its normal build's, or if any game has a preflight warning.

    python scripts/preflight_table.py [--paper letter|a4]
"""

from __future__ import annotations

import argparse
import sys

from pnp.input.project import DataRoot, bundled_root
from pnp.plan.options import BuildOptions
from pnp.plan.session import Session
from pnp.qa.check import check
from pnp.qa.preflight import preflight_game


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--paper", choices=["letter", "a4"], default="letter")
    args = ap.parse_args()
    root = DataRoot(bundled_root())
    s = Session(root)
    rows = []
    bad = []
    for gid in root.game_ids():
        figures = {}
        for ink in (False, True):
            gc = check(root, gid, BuildOptions(paper=args.paper, ink_saver=ink), s)
            figures[ink] = preflight_game(s, gc, lines=False)
        n, i = figures[False], figures[True]
        ratio = i.coverage / n.coverage  # type: ignore[operator]
        if ratio > 0.5 or n.findings or i.findings:
            bad.append(gid)
        t = n.thresholds
        rules = n.extreme("smallest_rules")
        rows.append([
            gid,
            str(sum(c.pages for c in n.components)),
            str(sum(c.sheets for c in n.components)),
            f"{sum(c.bytes or 0 for c in n.components) / 1024:.0f} KB",
            f"{n.extreme('smallest_text').value:g} pt",  # type: ignore[union-attr]
            f"{rules.value:g} pt (min {t.rules_text_pt:g})" if rules else "-",
            f"{n.extreme('thinnest_stroke').value:.2f} pt",  # type: ignore[union-attr]
            f"{n.margin_mm:.1f} mm",
            str(sum(c.miscut_seams or 0 for c in n.components)),
            str(len(n.findings)),
            str(len(n.waived)),
            f"{n.coverage * 100:.1f} %",  # type: ignore[operator]
            f"{i.coverage * 100:.1f} %",  # type: ignore[operator]
            f"{ratio:.2f}",
        ])
    head = ["game", "pages", "sheets", "PDFs", "smallest text", "smallest rules text", "thinnest stroke",
            "margin", "miscut seams", "warnings", "exempted", "ink", "ink, --ink-saver", "ratio"]
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("---" if k == 0 else "---:" for k in range(len(head))) + "|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    if bad:
        print(f"over budget or with warnings: {', '.join(bad)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
