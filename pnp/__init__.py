"""pnp: print-and-play generator."""

from pnp.version import __version__

__all__ = ["__version__"]
