"""`pnp fetch` (and `pnp build --refresh`): a published sheet's URL -> its cached copy in the game
folder, which every build reads (offline too). A fetch that fails (no network, an HTTP error,
an answer that is not a CSV sheet) leaves the cached copy as it was and says why."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from msgspec import Struct

from pnp.errors import DataError
from pnp.input.tables import MAX_SHEET_BYTES, cache_name, is_url, text_rows
from pnp.render.write import write_atomic

TIMEOUT_S = 30.0


class Fetched(Struct, frozen=True):
    """One published sheet's fetch: ``ok`` when the cached copy now holds what the URL serves;
    otherwise ``message`` says why and whether an older copy is kept."""

    component: str
    url: str
    path: Path
    ok: bool
    message: str
    changed: bool = False


def published(manifest: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The manifest's component entries whose data is a URL."""
    comps = manifest.get("components") if isinstance(manifest, Mapping) else None
    return [c for c in comps or [] if isinstance(c, Mapping) and isinstance(c.get("data"), str) and is_url(c["data"])
            and isinstance(c.get("id"), str)]


def fetch_entry(folder: Path, entry: Mapping[str, Any], timeout: float = TIMEOUT_S) -> Fetched:
    url, path = entry["data"], folder / cache_name(entry)
    try:
        body = _download(url, timeout)
        text_rows(body, url, None)  # a CSV that pnp can read, or a DataError saying why not
        if not body.strip():
            raise ValueError("the answer is empty")
    except (OSError, ValueError, DataError) as exc:
        reason = _reason(exc)
        kept = "kept the cached copy" if path.exists() else "no cached copy yet: builds fail until a fetch succeeds"
        return Fetched(entry["id"], url, path, False, f"fetch failed ({reason}); {kept}")
    old = path.read_bytes() if path.exists() else None
    if old != body:
        write_atomic(path, body)
    return Fetched(entry["id"], url, path, True, "updated" if old is not None and old != body
                   else "unchanged" if old == body else "fetched", changed=old != body)


def _download(url: str, timeout: float) -> bytes:
    import urllib.request  # only a fetch needs it (every pnp command imports this module)

    req = urllib.request.Request(url, headers={"User-Agent": "pnp (print-and-play generator)"})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        kind = resp.headers.get_content_type()
        body: bytes = resp.read(MAX_SHEET_BYTES + 1)
    if len(body) > MAX_SHEET_BYTES:
        raise ValueError(f"more than {MAX_SHEET_BYTES // 2**20} MiB")
    if kind == "text/html" or body.lstrip()[:1] == b"<":
        raise ValueError("the answer is a web page, not CSV: is the sheet published to the web as CSV?")
    return body


def _reason(exc: Exception) -> str:
    import urllib.error

    if isinstance(exc, urllib.error.HTTPError):
        return f"HTTP {exc.code} {exc.reason}"
    if isinstance(exc, urllib.error.URLError):
        return f"cannot reach the server: {exc.reason}"
    if isinstance(exc, DataError):
        return "; ".join(d.message for d in exc.diagnostics)
    return str(exc) or type(exc).__name__
