"""Build options: how a game is put on paper (kept in a light module: the CLI and the build
cache read them without importing the rendering stages)."""

from __future__ import annotations

from pathlib import Path

from msgspec import Struct


class BuildOptions(Struct, frozen=True):
    """The output options of a build (what changes the PDFs, and ``strict``)."""

    paper: str = "letter"
    duplex: str = "long"
    bleed_mm: float = 3.0
    strict: bool = False
    one_per_page: bool = False  # print-shop pages: each piece alone, page = trim + bleed
    back_offset: tuple[float, float] = (0.0, 0.0)  # mm, moves back pages' content (right, up)
    back_scale: tuple[float, float] = (1.0, 1.0)  # scales back pages' content about the page centre
    token_cut: str = "square"  # round tokens: "square" (abutting square cut boxes) | "circle" (cut circles)
    ink_saver: bool = False  # the low-ink variant (pnp.inksaver), written to out/<game>/ink-saver/



def output_folder(out: Path, gid: str, opts: BuildOptions) -> Path:
    """Where a build of game ``gid`` goes: out/<game>/, or out/<game>/ink-saver/ for the low-ink
    variant (so both can sit side by side, each with its own build record)."""
    return out / gid / "ink-saver" if opts.ink_saver else out / gid
