"""`pnp fetch` (and `pnp build --refresh`): a published sheet's URL -> its cached copy in the game
folder, which every build reads (offline too). A fetch that fails (no network, an HTTP error,
an answer that is not valid HTTP or is cut off before the end its Content-Length or chunks
announce, one that is not a CSV sheet, one that takes more than DEADLINE_S in all or is larger
than MAX_SHEET_BYTES) leaves the cached copy as it was and says why, on one line (what the
server sent quoted, escaped and shortened).

A URL may carry a user name and password (``https://user:pw@host/...``): they are sent as HTTP
Basic authentication to that host only (never to where it redirects), and every message, report
and line printed shows the URL as ``https://***@host/...``."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from msgspec import Struct

from pnp.errors import DataError, Diagnostic, one_line, terminal_text
from pnp.input.load import NAME_MAX, Doc, file_kind, name_too_long, read_regular
from pnp.input.sheetfiles import MAX_SHEET_BYTES, text_rows
from pnp.input.tables import cache_name, is_url, shared_cache_message, shares_cache
from pnp.render.write import write_atomic

TIMEOUT_S = 30.0  # the longest wait for any one step: connecting, or the next bytes of the answer
DEADLINE_S = 30.0  # the longest a whole fetch may take (a server trickling bytes is stopped here)
_CHUNK = 64 * 1024


# scheme://userinfo@: the userinfo runs to the last '@' before the path, query or fragment
_USERINFO = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://)([^/?#]*)@")


def shown_url(url: str) -> str:
    """``url`` as pnp shows it: its user name and password, if any, replaced by ``***``."""
    return _USERINFO.sub(r"\1***@", url, count=1)


def _credentials(url: str) -> tuple[str, str | None]:
    """``url`` without its userinfo, and that userinfo (``user:pw``, percent-decoded) or None."""
    from urllib.parse import unquote

    m = _USERINFO.match(url)
    if m is None:
        return url, None
    user, colon, pw = m.group(2).partition(":")
    return m.group(1) + url[m.end():], unquote(user) + colon + unquote(pw)


class Fetched(Struct, frozen=True):
    """One published sheet's fetch: ``ok`` when the cached copy now holds what the URL serves;
    otherwise ``message`` says why and whether an older copy is kept. ``url`` is as shown
    (``shown_url``: no password)."""

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


def cache_problem(manifest: Doc, index: int, entry: Mapping[str, Any], folder: Path) -> Diagnostic | None:
    """Why the cached copy of the published sheet ``entry`` (component ``index`` of ``manifest``)
    cannot be written or compared, looked at without opening it (a named pipe would block the open
    forever): a file another component reads too, a name too long, or something other than a
    regular file, a link or nothing."""
    name = cache_name(entry)
    where = ("components", index, "cache" if "cache" in entry else "data")
    comps = manifest.data.get("components") if isinstance(manifest.data, Mapping) else None
    shared = shares_cache(entry, comps) if isinstance(comps, list) else None
    if shared is not None:
        message, expected = shared_cache_message(entry, shared)
        return manifest.diag(where, message, expected=expected)
    path = folder / name
    too_long = name_too_long(path)
    if too_long is not None:
        return manifest.diag(where, f"cached copy {name[:60]!r}: name too long: {too_long}",
                             expected=f"a file name of at most {NAME_MAX} bytes")
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        return manifest.diag(where, f"cached copy {name!r} cannot be looked at ({exc.strerror})",
                             expected="a regular file in the game folder, or none yet")
    if stat.S_ISREG(mode) or stat.S_ISLNK(mode):  # a link is replaced by a regular file, never written through
        return None
    return manifest.diag(where, f"cached copy {name!r} is not a regular file: it is {file_kind(path)}",
                         expected="a regular file in the game folder, or none yet",
                         hint="remove it; `pnp fetch` writes the sheet there")


def fetch_entry(folder: Path, entry: Mapping[str, Any], timeout: float = TIMEOUT_S) -> Fetched:
    """Download the published sheet of ``entry`` into its cached copy (``cache_problem`` first:
    a cached copy that is a named pipe, a folder or a device is refused before this is called;
    one swapped for such after that is read without blocking, and is a failed fetch)."""
    from http.client import HTTPException  # what a malformed answer raises (a bad status line, too many headers, ...)

    url, path = entry["data"], folder / cache_name(entry)
    shown = shown_url(url)
    try:
        body = _download(url, timeout)
        if not body.strip():
            raise ValueError("the answer is empty")
        _check_sheet(text_rows(body, shown, None), entry)  # a CSV sheet pnp can read, or why not
    except (OSError, ValueError, DataError, HTTPException) as exc:
        reason = _one_line(_scrub(_reason(exc, url), url), MAX_REASON)
        kept = "kept the cached copy" if path.exists() else "no cached copy yet: builds fail until a fetch succeeds"
        return Fetched(entry["id"], shown, path, False, f"fetch failed ({reason}); {kept}")
    try:  # never through a link: a link is replaced by a regular file
        old = None if path.is_symlink() or not path.exists() else read_regular(path, MAX_SHEET_BYTES)
    except OSError as exc:  # NotRegular: swapped for a pipe since cache_problem looked
        return Fetched(entry["id"], shown, path, False, f"fetch failed (the cached copy {exc.strerror}); "
                       "nothing written")
    if old != body:
        write_atomic(path, body)
    return Fetched(entry["id"], shown, path, True, "updated" if old is not None and old != body
                   else "unchanged" if old == body else "fetched", changed=old != body)


def _check_sheet(rows: Iterator[list[str]], entry: Mapping[str, Any]) -> None:
    """What a build needs of the sheet before it looks at cells: a header row naming the id
    column (or the entry's ``id_from``), a row below it, and CSV that reads to its end. Cell
    problems are left to the build, whose messages name the cached copy's cells."""
    header = [h.strip() for h in next(rows, [])]
    id_col = entry.get("id_from") if isinstance(entry.get("id_from"), str) else "id"
    if id_col not in header:
        raise ValueError(f"the answer is not a sheet with a header row naming {id_col!r}")
    if not any(any(c.strip() for c in r) for r in rows):
        raise ValueError("the sheet has no rows below its header")
    for _ in rows:  # the rest read through, a row at a time: a CSV pnp can read to its end
        pass


def _download(url: str, timeout: float) -> bytes:
    import base64
    import http.client
    import time
    import urllib.request  # only a fetch needs it (every pnp command imports this module)

    deadline = time.monotonic() + DEADLINE_S
    too_slow = f"no complete answer within {DEADLINE_S:g} s"
    url, userinfo = _credentials(url)  # urllib would take "user:pw@host" for the host (and echo it)
    req = urllib.request.Request(url, headers={"User-Agent": "pnp (print-and-play generator)"})
    if userinfo is not None:  # unredirected: a redirect to another host does not get the password
        req.add_unredirected_header("Authorization", "Basic " + base64.b64encode(userinfo.encode()).decode("ascii"))
    class HttpOnly(urllib.request.HTTPRedirectHandler):  # urllib follows a redirect to ftp:// too
        def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> Any:
            scheme = newurl.split(":", 1)[0] if ":" in newurl else ""
            if scheme.lower() not in ("http", "https"):
                fp.close()
                said = _server_text(scheme, url)
                raise ValueError(f"the server redirected to a URL that is not http(s) ('{said}:'); pnp fetches "
                                 "only http:// and https://")
            return super().redirect_request(req, fp, code, msg, headers, newurl)

    opener = urllib.request.build_opener(HttpOnly)
    with opener.open(req, timeout=min(timeout, DEADLINE_S)) as resp:
        lengths = list(dict.fromkeys(v.strip() for v in resp.headers.get_all("Content-Length") or ()))
        if len(lengths) > 1 or any(not re.fullmatch(r"[0-9]{1,18}", v) for v in lengths):  # http.client reads
            # the first, or none of a negative one (the body then ends when the server closes)
            said = ", ".join(f"'{_server_text(v, url)}'" for v in lengths)
            raise ValueError(f"the answer is not valid HTTP: its Content-Length is {said}")
        coding = (resp.headers.get("Content-Encoding") or "identity").strip().lower()
        if coding != "identity":  # never asked for (no Accept-Encoding), and its bytes are no CSV
            raise ValueError(f"the answer is compressed (Content-Encoding: {_server_text(coding, url)}); pnp reads "
                             "a published sheet's CSV uncompressed")
        kind = resp.headers.get_content_type()
        announced = resp.length  # Content-Length (None: a chunked body, or one that ends when the server closes)
        if announced is not None and announced > MAX_SHEET_BYTES:
            raise ValueError(f"more than {MAX_SHEET_BYTES // 2**20} MiB")
        parts: list[bytes] = []
        size = 0
        while size <= MAX_SHEET_BYTES:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ValueError(too_slow)
            sock = getattr(getattr(resp.fp, "raw", None), "_sock", None)  # http.client keeps no public handle
            if sock is not None:
                sock.settimeout(min(timeout, left))  # a wait for the next bytes ends at the deadline too
            try:
                part = resp.read1(_CHUNK)  # what has arrived: a trickle is seen at once, not per 64 KiB
            except TimeoutError:
                raise ValueError(too_slow if time.monotonic() >= deadline else
                                 f"the server sent nothing for {timeout:g} s") from None
            except http.client.IncompleteRead:  # read1 raises it only for a chunked body
                raise ValueError("the answer was cut off: its chunked body ends before the last chunk, "
                                 "or is malformed") from None
            if not part:
                break
            parts.append(part)
            size += len(part)
        body = b"".join(parts)
        missing = resp.length  # what Content-Length announced and the server did not send (read1 stops at it)
    if len(body) > MAX_SHEET_BYTES:
        raise ValueError(f"more than {MAX_SHEET_BYTES // 2**20} MiB")
    if missing:  # the server closed the connection early: the sheet would lose rows, or end mid-cell
        raise ValueError(f"the answer was cut off: {len(body)} of the {announced} bytes its Content-Length announced")
    if kind == "text/html" or body.lstrip()[:1] == b"<":
        raise ValueError("the answer is a web page, not CSV: is the sheet published to the web as CSV?")
    return body


def _scrub(text: str, url: str) -> str:
    """``text`` without the URL's user name and password, however an error quoted them."""
    m = _USERINFO.match(url)
    if m is None or not m.group(2):
        return text
    from urllib.parse import unquote

    text = text.replace(url, shown_url(url))
    pw = m.group(2).partition(":")[2]
    # the userinfo, and the password alone when it is long enough not to be a common word part
    secrets = {m.group(2), unquote(m.group(2)), *((pw, unquote(pw)) if len(pw) >= 4 else ())}
    for s in sorted(secrets, key=len, reverse=True):
        text = text.replace(s, "***")
    return text


def _reason(exc: Exception, url: str) -> str:
    """Why a fetch failed, in words: what the server said (its status line, its reason phrase)
    is quoted, escaped and shortened by ``_server_text`` (without the URL's password first: a cut
    must not leave part of it)."""
    import http.client
    import urllib.error
    import urllib.request

    if isinstance(exc, urllib.error.HTTPError):
        reason, loop = str(exc.reason), urllib.request.HTTPRedirectHandler.inf_msg
        if reason.startswith(loop):  # urllib's message here spans three lines
            return f"too many redirects, or a redirect loop (the last answer: HTTP {exc.code} " \
                   f"{_server_text(reason[len(loop):], url)})"
        return f"HTTP {exc.code} {_server_text(reason, url)}"
    if isinstance(exc, urllib.error.URLError):
        return f"cannot reach the server: {exc.reason}"
    if isinstance(exc, DataError):
        return "; ".join(d.message for d in exc.diagnostics)
    if isinstance(exc, http.client.RemoteDisconnected):  # a BadStatusLine (and an OSError) with no line
        return "the server closed the connection without an answer"
    if isinstance(exc, http.client.BadStatusLine):  # an HTTP/0.9 answer (a bare body) lands here too
        line = str(exc.args[0]).rstrip("\r\n") if exc.args else ""
        return ("the answer does not start with an HTTP status line: it starts "
                + (f"'{_server_text(line, url)}'" if line else "with an empty line"))
    if isinstance(exc, http.client.IncompleteRead):  # a redirect's body, read by urllib, cut off
        return "the answer was cut off" + (f": {len(exc.partial)} of {len(exc.partial) + exc.expected} bytes"
                                           if exc.expected is not None else "")
    if isinstance(exc, http.client.UnknownProtocol):
        return f"the answer is not HTTP/1.x: its status line names '{_server_text(str(exc.args[0]), url)}'"
    if isinstance(exc, http.client.InvalidURL):
        return f"invalid URL: {exc}"
    if isinstance(exc, http.client.HTTPException):  # too many headers, a header line too long, ...
        return f"the answer is not valid HTTP: {str(exc) or type(exc).__name__}"
    return str(exc) or type(exc).__name__


MAX_SERVER_TEXT = 80  # characters of what a server said (a reason phrase, a status line) quoted in a message
MAX_REASON = 300  # characters of a failed fetch's reason


def _server_text(text: str, url: str) -> str:
    """What a server said (http.client reads its status line and headers as Latin-1: a character
    is a byte), as shown in a message: no password of ``url``, one line, at most MAX_SERVER_TEXT
    characters, every byte outside printable ASCII escaped (``\\xff``)."""
    return _one_line(_scrub(text.strip(), url), MAX_SERVER_TEXT, ascii_only=True)


def _one_line(text: str, limit: int, ascii_only: bool = False) -> str:
    """``text`` on one line: line breaks, tabs and every character a terminal would act on
    escaped (``\\x0a``, ``\\x1b``: pnp.errors.one_line and terminal_text; with ``ascii_only`` every character
    outside printable ASCII), cut to its first ``limit`` characters (then ``...``) before
    escaping, so that no escape is cut in two."""
    cut = len(text) > limit
    text = one_line(terminal_text(text[:limit]))
    if ascii_only:
        text = "".join(ch if ch < "\x7f" else f"\\x{ord(ch):02x}" if ch <= "\xff" else f"\\u{ord(ch):04x}"
                       for ch in text)
    return text + "..." if cut else text
