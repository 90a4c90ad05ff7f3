"""cli: argv -> calls into the library (pnp.api), and its reports -> text, JSON or annotations; no logic of its own."""

from pnp.cli.commands import main, run

__all__ = ["main", "run"]
