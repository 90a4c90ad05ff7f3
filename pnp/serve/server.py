"""The HTTP side of `pnp serve`: a standard-library ``ThreadingHTTPServer`` bound to 127.0.0.1
unless asked otherwise, a poller thread that refreshes each game (``GameView.refresh``), and
server-sent events (``/events``) that tell open pages something changed.

What is served: the pages (``pnp.serve.pages``), piece PNGs by content name, sheet PNGs
rasterised from the PDFs in the output folder, and those PDFs themselves: only names the build
record lists, read from the game's output folder. No other file is ever opened for a request;
anything else is a 404 page. A failure inside a request is a 500 with one line, never a
traceback in the page."""

from __future__ import annotations

import contextlib
import re
import socket
import sys
import threading
import time
from collections.abc import Callable, Sequence
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import SplitResult, unquote, urlsplit

from pnp.serve import pages
from pnp.serve.gallery import GameView

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
PING_S = 15.0  # a comment on the event stream this often, so a closed page is noticed
# Connections served at once (a thread each; an open page holds one for its event stream): more
# are answered 503 at once and closed. Thousands of idle connections made thousands of threads.
MAX_CONNECTIONS = 64
IDLE_S = 60.0  # a connection that sends nothing (or reads nothing) this long is closed
# A request head (request line and headers, or the wait for them on a kept-alive connection)
# must be complete this long after it began: a socket timeout counts single reads only, so a
# client trickling one header line every few seconds held its slot for ever (attack 6, F9).
HEAD_S = 20.0
# When every slot is taken, a new connection takes the slot of the connection that has waited
# longest on its client (for its request head, or to take an answer it does not read), if that
# began at least this long ago: clients that send or read nothing cannot starve the ones that do.
HEAD_GRACE_S = 2.0
# Event streams (an open page's live updates) at most: a new one beyond ends the oldest (a page
# reconnects on its own), so streams cannot hold every slot either.
MAX_STREAMS = MAX_CONNECTIONS // 2
LOOPBACK = ("127.0.0.1", "::1", "localhost")
# The names a page served on a loopback address may be asked for by: any other Host header is a
# page of some other site reaching this one through DNS rebinding, and gets a 421, not the pages.
LOCAL_NAMES = frozenset(("localhost", "127.0.0.1", "[::1]"))
# A Host header's value (RFC 9110, 7.2): a name, or an IPv6 address in brackets, and a port, or none.
_HOST = re.compile(r"(\[[0-9a-f:.]*\]|[^\[\]:]*)(?::[0-9]{0,5})?", re.ASCII)
_BUSY_TEXT = b"pnp serve: too many connections; try again.\n"
_BUSY = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
         b"Content-Length: %d\r\nRetry-After: 1\r\nConnection: close\r\n\r\n%s" % (len(_BUSY_TEXT), _BUSY_TEXT))


class _HTTPServer(ThreadingHTTPServer):
    """A ThreadingHTTPServer serving at most MAX_CONNECTIONS connections at once, each given
    HEAD_S for a request head; when all are taken, one stuck on its client makes way."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler],
                 log: Callable[[str], None]):
        super().__init__(address, handler)
        self.log = log  # the serve command's log (the terminal)
        self.slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        # connection -> (since when it waits on its client, whether for its request head)
        self.waiting: dict[socket.socket, tuple[float, bool]] = {}
        self.lock = threading.Lock()
        self.streams: list[socket.socket] = []  # open event streams, oldest first
        self.ended: set[socket.socket] = set()  # streams cut for a newer one: their loops stop

    def wait_begins(self, conn: socket.socket, head: bool) -> None:
        with self.lock:
            self.waiting[conn] = (time.monotonic(), head)

    def wait_ends(self, conn: socket.socket) -> None:
        with self.lock:
            self.waiting.pop(conn, None)

    def cut(self, conn: socket.socket) -> None:
        """End a connection: its handler's read returns at once, as if the client had closed it,
        or its write fails, and the handler's thread gives the slot back."""
        self.wait_ends(conn)
        with contextlib.suppress(OSError):
            conn.shutdown(socket.SHUT_RDWR)

    def service_actions(self) -> None:  # serve_forever calls this between polls (every 0.1 s)
        now = time.monotonic()
        with self.lock:
            late = [c for c, (began, head) in self.waiting.items() if head and now - began > HEAD_S]
        for conn in late:
            self.cut(conn)

    def _make_way(self) -> bool:
        """Cut the connection waiting longest on its client (begun HEAD_GRACE_S ago at least) and
        take its slot, once its thread has let it go; False if there is none."""
        with self.lock:
            oldest = min(self.waiting.items(), key=lambda item: item[1][0], default=None)
        if oldest is None or time.monotonic() - oldest[1][0] < HEAD_GRACE_S:
            return False
        self.cut(oldest[0])
        return self.slots.acquire(timeout=1.0)

    def stream_begins(self, conn: socket.socket) -> socket.socket | None:
        """Count an event stream in; the oldest one it ends, if there are MAX_STREAMS already."""
        with self.lock:
            self.streams.append(conn)
            if len(self.streams) <= MAX_STREAMS:
                return None
            oldest = self.streams.pop(0)
            self.ended.add(oldest)
            return oldest

    def stream_ends(self, conn: socket.socket) -> None:
        with self.lock:
            if conn in self.streams:
                self.streams.remove(conn)
            self.ended.discard(conn)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A connection the client (or a deadline) cut is nothing to report; anything else is
        one line, not socketserver's traceback on stderr."""
        exc = sys.exc_info()[1]
        if not isinstance(exc, OSError):
            self.log(f"pnp: internal error in a connection: {type(exc).__name__}: {exc} (this is a bug in pnp)")

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.slots.acquire(blocking=False) and not self._make_way():
            with contextlib.suppress(OSError):
                request.sendall(_BUSY)  # a few bytes into an empty socket buffer: never blocks
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:  # no thread was started: it will not give the slot back
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.wait_ends(request)
            self.slots.release()

PNG_NAME = re.compile(r"/png/([0-9a-f]{20})\.png")
SHEET = re.compile(r"/sheet/([^/]+)/([^/]+)/([0-9]{1,5})\.png")


class Server:
    """A running `pnp serve`: ``start()`` refreshes every game once and serves in the
    background; ``close()`` stops it. ``url`` is where it listens."""

    def __init__(self, views: Sequence[GameView], host: str = DEFAULT_HOST, port: int = DEFAULT_PORT,
                 interval: float = 0.5, log: Callable[[str], None] | None = None):
        self.views = {v.id: v for v in views}
        self.interval = interval
        self.log = log or (lambda line: print(line, file=sys.stderr))
        self.version = 0  # bumped whenever any game's page changed
        self.changed = threading.Condition()
        self.stopping = threading.Event()
        self.httpd = _HTTPServer((host, port), _handler(self), self.log)
        self.loopback = host in LOOPBACK
        self._threads: list[threading.Thread] = []

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/"

    def poll(self) -> bool:
        """Refresh every game once; True (and the open pages told) when any changed. A bug in a
        refresh is logged in one line and the server carries on."""
        any_changed = False
        for v in self.views.values():
            try:
                changed = v.refresh()
            except Exception as exc:  # never let one poll stop the server
                self.log(f"pnp: internal error while refreshing {v.id}: {type(exc).__name__}: {exc} "
                         "(this is a bug in pnp)")
                continue
            if changed:
                any_changed = True
                for line in v.watch_lines():
                    self.log(f"{v.id}: {line}" if not line.startswith(v.id) else line)
        if any_changed:
            with self.changed:
                self.version += 1
                self.changed.notify_all()
        return any_changed

    def _poll_forever(self) -> None:
        while not self.stopping.wait(self.interval):
            self.poll()

    def start(self) -> Server:
        self.poll()
        for target in (self._poll_forever, lambda: self.httpd.serve_forever(poll_interval=0.1)):
            t = threading.Thread(target=target, daemon=True, name="pnp-serve")
            t.start()
            self._threads.append(t)
        return self

    def close(self) -> None:
        self.stopping.set()
        with self.changed:
            self.changed.notify_all()
        self.httpd.shutdown()
        self.httpd.server_close()
        for t in self._threads:
            t.join(timeout=5)

    def wait_for_change(self, seen: int, timeout: float, ended: Callable[[], bool] = lambda: False) -> int:
        with self.changed:
            self.changed.wait_for(lambda: self.version != seen or self.stopping.is_set() or ended(), timeout)
            return self.version


def _handler(server: Server) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "pnp-serve"
        timeout = IDLE_S  # the socket's: a client that stops sending or reading is let go

        def log_message(self, format: str, *args: Any) -> None:  # quiet: the terminal shows the builds
            pass

        def handle_one_request(self) -> None:
            server.httpd.wait_begins(self.connection, True)  # ended by parse_request, or by the thread's end
            super().handle_one_request()

        def parse_request(self) -> bool:
            ok = super().parse_request()  # reads the headers
            server.httpd.wait_ends(self.connection)
            return ok

        def do_HEAD(self) -> None:
            self.do_GET()

        def do_GET(self) -> None:
            try:
                hosts = self.headers.get_all("Host") or []
                if len(hosts) > 1 or (not hosts and self.request_version != "HTTP/1.0"):
                    # HTTP/1.1 asks for exactly one (RFC 9112, 3.2); HTTP/0.9 has none, and no browser speaks it
                    self._send(HTTPStatus.BAD_REQUEST, b"pnp serve: a request needs one Host header\n",
                               "text/plain; charset=utf-8")
                    return
                try:
                    target = urlsplit(self.path)
                except ValueError:  # unbalanced brackets in a host, `GET http://[/` (attack 20, F4)
                    self._send(HTTPStatus.BAD_REQUEST, b"pnp serve: the request's target is no URL\n",
                               "text/plain; charset=utf-8")
                    return
                if not self._host_ok(target):
                    self._send(HTTPStatus.MISDIRECTED_REQUEST, b"pnp serve answers to localhost only\n",
                               "text/plain; charset=utf-8")
                    return
                self._route(unquote(target.path))
            except (BrokenPipeError, ConnectionResetError):
                pass
            except Exception as exc:
                server.log(f"pnp: internal error serving {self.path!r}: {type(exc).__name__}: {exc} "
                           "(this is a bug in pnp)")
                with contextlib.suppress(OSError):
                    self._send(HTTPStatus.INTERNAL_SERVER_ERROR, b"internal error (see the terminal)\n",
                               "text/plain; charset=utf-8")

        def _host_ok(self, target: SplitResult) -> bool:
            """Whether the Host header names this machine, for a server on a loopback address
            (one on another address was asked to be seen by others; an HTTP/1.0 request without
            the header came from no browser)."""
            host = self.headers.get("Host")
            if not server.loopback:
                return True
            # a request in absolute form (GET http://name/...) names its host there (``target``),
            # before the Host header (RFC 9112, 3.2.2): that name must be this machine's too
            names = [h for h in (host, target.netloc if target.scheme else None) if h is not None]

            def local(h: str) -> bool:  # NAME or NAME:PORT, and nothing more (attack 12, B1: "NAME:1 evil")
                h = h.strip(" \t").lower().rsplit("@", 1)[-1]
                m = _HOST.fullmatch(h)
                return m is not None and m.group(1) in LOCAL_NAMES

            return all(local(h) for h in names)

        def _send(self, status: HTTPStatus, body: bytes, ctype: str, cache: str = "no-store") -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", cache)
            self.send_header("X-Content-Type-Options", "nosniff")
            self.end_headers()
            if self.command != "HEAD":
                server.httpd.wait_begins(self.connection, False)  # a client that does not read can make way
                try:
                    self.wfile.write(body)
                finally:
                    server.httpd.wait_ends(self.connection)

        def _html(self, body: bytes) -> None:
            self._send(HTTPStatus.OK, body, "text/html; charset=utf-8")

        def _not_found(self, path: str) -> None:
            self._send(HTTPStatus.NOT_FOUND, pages.not_found(path, str(server.version)), "text/html; charset=utf-8")

        def _route(self, path: str) -> None:
            parts = path.split("/")[1:]
            views = server.views
            if path == "/":
                with _locked(views.values()):
                    self._html(pages.index(list(views.values()), str(server.version)))
                return
            if path == "/events":
                self._events()
                return
            if m := PNG_NAME.fullmatch(path):
                for v in views.values():
                    data = v.pngs.get(m.group(1))
                    if data is not None:
                        self._send(HTTPStatus.OK, data, "image/png", "public, max-age=31536000, immutable")
                        return
            elif m := SHEET.fullmatch(path):
                v = views.get(m.group(1))
                data = v.sheet_png(m.group(2), int(m.group(3))) if v is not None else None
                if data is not None:
                    self._send(HTTPStatus.OK, data, "image/png", "public, max-age=3600")
                    return
            elif len(parts) == 3 and parts[0] == "out" and (v := views.get(parts[1])) is not None:
                data = v.output_pdf(parts[2])
                if data is not None:
                    self._send(HTTPStatus.OK, data, "application/pdf")
                    return
            elif len(parts) in (2, 4) and parts[0] == "game" and (v := views.get(parts[1])) is not None:
                with v.lock:
                    version = f"{server.version}.{v.version}"
                    if len(parts) == 2:
                        self._html(pages.game(v, version))
                        return
                    c = v.component(parts[2])
                    p = next((p for p in c.pieces if p.item.id == parts[3]), None) if c is not None else None
                    if c is not None and p is not None:
                        self._html(pages.item(v, c, p, version))
                        return
            self._not_found(path)

        def _events(self) -> None:
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            if self.command == "HEAD":
                return
            seen = server.version
            httpd, conn = server.httpd, self.connection
            oldest = httpd.stream_begins(conn)
            if oldest is not None:  # its loop stops at once, and its page reconnects in a second
                with server.changed:
                    server.changed.notify_all()
                httpd.cut(oldest)
            try:
                self.wfile.write(b"retry: 1000\n\n")
                self.wfile.flush()
                while not server.stopping.is_set():
                    now = server.wait_for_change(seen, PING_S, lambda: conn in httpd.ended)
                    if server.stopping.is_set() or conn in httpd.ended:
                        return
                    self.wfile.write(f"data: {now}\n\n".encode() if now != seen else b": ping\n\n")
                    self.wfile.flush()
                    seen = now
            finally:
                httpd.stream_ends(conn)

    return Handler


class _locked:
    """Hold several games' locks (in a fixed order) while a page reads them."""

    def __init__(self, views: Any):
        self.views = sorted(views, key=lambda v: v.id)

    def __enter__(self) -> None:
        for v in self.views:
            v.lock.acquire()

    def __exit__(self, *exc: object) -> None:
        for v in reversed(self.views):
            v.lock.release()


def serve(views: Sequence[GameView], host: str = DEFAULT_HOST, port: int = DEFAULT_PORT,
          interval: float = 0.5, log: Callable[[str], None] | None = None) -> Server:
    """Start serving ``views`` (each game's first render happens before this returns)."""
    return Server(views, host, port, interval, log).start()
