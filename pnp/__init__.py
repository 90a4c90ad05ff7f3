"""pnp: print-and-play generator."""

__version__ = "0.1.0"
