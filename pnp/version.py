"""The version of pnp (printed by `pnp --version`, on contents sheets, in the package metadata)."""

__version__ = "0.1.0"
