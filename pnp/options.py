"""Build options: how a game is put on paper (kept in a light module: the CLI and the build
cache read them without importing the rendering stages)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BuildOptions:
    paper: str = "letter"
    duplex: str = "long"
    bleed_mm: float = 3.0
    strict: bool = False
    one_per_page: bool = False  # print-shop pages: each piece alone, page = trim + bleed
    back_offset: tuple[float, float] = (0.0, 0.0)  # mm, moves back pages' content (right, up)
    back_scale: tuple[float, float] = (1.0, 1.0)  # scales back pages' content about the page centre
    token_cut: str = "square"  # round tokens: "square" (abutting square cut boxes) | "circle" (cut circles)
