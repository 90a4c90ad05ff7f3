"""pnp: print-and-play generator. Game data (JSON) and layout templates -> printable, imposed PDF
sheets, checked against each game's rulebook. The library's front door is ``pnp.api``, whose
functions are here too: ``pnp.check``, ``pnp.build``, ``pnp.preflight``, ``pnp.export_png``,
``pnp.export_tts``, ``pnp.export_shop``, ``pnp.export_data``, ``pnp.fetch``, ``pnp.preview``, ``pnp.calibrate``,
``pnp.watch`` (see docs/api.md).

They are loaded on first use (``pnp.api`` imports PIL and reportlab): importing this package
imports nothing else, so the ``pnp`` command's entry (pnp/__main__.py) is in place, to answer a
Ctrl-C, before the heavy imports start."""

from __future__ import annotations

from pnp.version import __version__

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (type checkers know the idiom)
if TYPE_CHECKING:
    from typing import Any

    from pnp.api import (
        BuildOptions,
        BuildReport,
        CheckReport,
        DataExportReport,
        DataRoot,
        ExportReport,
        FetchReport,
        PreflightReport,
        PreviewReport,
        ShopExportReport,
        build,
        calibrate,
        check,
        export_data,
        export_png,
        export_shop,
        export_tts,
        fetch,
        find_data_root,
        preflight,
        preview,
        watch,
    )

__all__ = ["BuildOptions", "BuildReport", "CheckReport", "DataExportReport", "DataRoot", "ExportReport",
           "FetchReport", "PreflightReport", "PreviewReport", "ShopExportReport", "__version__", "build", "calibrate",
           "check", "export_data", "export_png", "export_shop", "export_tts", "fetch", "find_data_root", "preflight",
           "preview", "watch"]


def __getattr__(name: str) -> Any:
    """``pnp.check`` and the rest of ``__all__``: pnp.api's, imported on first use (PEP 562)."""
    if name in __all__:
        from pnp import api

        value = getattr(api, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'pnp' has no attribute {name!r}")
