"""pnp: print-and-play generator. Game data (JSON) and layout templates -> printable, imposed PDF
sheets, checked against each game's rulebook. The library's front door is ``pnp.api``, whose
functions are here too: ``pnp.check``, ``pnp.build``, ``pnp.preflight``, ``pnp.export_png``,
``pnp.export_tts``, ``pnp.export_shop``, ``pnp.export_data``, ``pnp.fetch``, ``pnp.preview``, ``pnp.calibrate``,
``pnp.watch`` (see docs/api.md)."""

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
from pnp.version import __version__

__all__ = ["BuildOptions", "BuildReport", "CheckReport", "DataExportReport", "DataRoot", "ExportReport",
           "FetchReport", "PreflightReport", "PreviewReport", "ShopExportReport", "__version__", "build", "calibrate",
           "check", "export_data", "export_png", "export_shop", "export_tts", "fetch", "find_data_root", "preflight",
           "preview", "watch"]
