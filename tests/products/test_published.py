"""A published sheet: a component whose ``data`` is a URL is read from its cached copy in the
game folder; `pnp fetch` and `pnp build --refresh` update it, and a failed fetch keeps it and
says so. The server is a local http.server on 127.0.0.1, stopped after each test."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import DataRootCopy, assert_no_traceback, run_cli

import pnp
from pnp.input.project import shown_path

SHEET = "id,name,suit,power,source.designed\nsun-1,Sun One,sun,1,d\nmoon-1,Moon One,moon,2,d\n"
FIELDS = {"name": {"type": "string", "required": True, "description": "Card name"},
          "suit": {"type": "string", "description": "Suit"},
          "power": {"type": "integer", "description": "Power"}}


class Server:
    """Serves ``pages`` (path -> (status, content type, body)) on 127.0.0.1; a subclass may
    answer otherwise (``answer``). ``raw`` (path -> bytes) is sent as it is, in place of an HTTP
    answer, and the connection closed: a malformed or cut-off answer."""

    def __init__(self) -> None:
        self.pages: dict[str, tuple[int, str, bytes]] = {}
        self.raw: dict[str, bytes] = {}
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path in server.raw:
                    self.wfile.write(server.raw[self.path])
                    return
                status, headers, body = server.answer(self.path, self.headers.get("Authorization"))
                self.send_response(status)
                for key, value in headers:
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def answer(self, path: str, auth: str | None) -> tuple[int, list[tuple[str, str]], bytes]:
        status, kind, body = self.pages.get(path, (404, "text/plain", b"not found"))
        return status, [("Content-Type", kind)], body

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)


@pytest.fixture
def server() -> Iterator[Server]:
    s = Server()
    try:
        yield s
    finally:
        s.close()


def published(mini: DataRootCopy, url: str) -> Path:
    def edit(m: dict[str, Any]) -> None:
        m["components"][0].update(data=url, fields=FIELDS)
        m["rulebook"] = [r for r in m["rulebook"] if r["id"] != "deck-5"]
    mini.edit("game.json", edit)
    mini.file("deck.json").unlink()
    return mini.file("deck.published.csv")


def test_fetch_then_build_offline(mini: DataRootCopy, server: Server, tmp_path: Path) -> None:
    server.pages["/sheet.csv"] = (200, "text/csv", SHEET.encode())
    cache = published(mini, server.url + "/sheet.csv")
    r = run_cli("build", "mini", "--data", mini.path, "--out", tmp_path / "out")
    assert_no_traceback(r)
    assert r.exit_code == 2 and not (tmp_path / "out").exists()
    assert ("no cached copy of the published sheet (deck.published.csv) (expected a copy fetched once while "
            "online); run `pnp fetch mini` (or `pnp build --refresh`)") in r.stderr
    r = run_cli("fetch", "mini", "--data", mini.path)
    assert r.exit_code == 0, r.stderr
    assert r.stdout == f"deck: {server.url}/sheet.csv -> {shown_path(cache)}: fetched\n"
    assert cache.read_text("utf-8") == SHEET
    server.close()  # offline from here on
    assert [i.id for i in mini.load().components[0].items] == ["sun-1", "moon-1"]
    assert pnp.build("mini", data=mini.path, out=tmp_path / "out").ok


UNCLOSED = "invalid CSV in the row that starts on line 2: unexpected end of data"


def test_refresh_updates_and_a_failed_fetch_keeps_the_cache(mini: DataRootCopy, server: Server,
                                                            tmp_path: Path) -> None:
    cache = published(mini, server.url + "/sheet.csv")
    cache.write_text(SHEET, encoding="utf-8")
    server.pages["/sheet.csv"] = (200, "text/csv; charset=utf-8", SHEET.replace("Moon One", "Moon Two").encode())
    r = run_cli("build", "mini", "--data", mini.path, "--out", tmp_path / "out", "--refresh")
    assert r.exit_code == 0, r.stderr
    assert f"\ndeck: {server.url}/sheet.csv -> {shown_path(cache)}: updated\n" in r.stdout
    assert "Moon Two" in cache.read_text("utf-8")
    before = cache.read_bytes()
    for status, kind, body, reason in [
            (500, "text/plain", b"oops", "HTTP 500 Internal Server Error"),
            (200, "text/html", b"<html>sign in</html>",
             "the answer is a web page, not CSV: is the sheet published to the web as CSV?"),
            (200, "text/csv", b'id,name\n"unclosed', UNCLOSED)]:
        server.pages["/sheet.csv"] = (status, kind, body)
        report = pnp.fetch("mini", data=mini.path)
        assert report.exit_code == 1
        (f,) = report.fetched
        assert (f.ok, f.message) == (False, f"fetch failed ({reason}); kept the cached copy")
        assert cache.read_bytes() == before
    r = run_cli("build", "mini", "--data", mini.path, "--out", tmp_path / "out", "--refresh")
    assert r.exit_code == 0  # the build goes on with the cached copy
    assert f"fetch failed ({UNCLOSED}); kept the cached copy" in r.stderr
    server.close()
    r = run_cli("fetch", "mini", "--data", mini.path)
    assert r.exit_code == 1
    assert "fetch failed (cannot reach the server: [Errno 111] Connection refused); kept the cached copy" in r.stderr


def test_no_published_sheets(mini: DataRootCopy) -> None:
    r = run_cli("fetch", "mini", "--data", mini.path)
    assert (r.exit_code, r.stdout) == (0, "pnp: no published sheets (no component's data is an http(s) URL)\n")


def test_a_trickling_server_is_stopped_at_the_deadline(mini: DataRootCopy, monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack F7: a server sending a byte a second held `pnp fetch` for 121 s, then its 120 bytes
    (no sheet) replaced the cached copy. Now a fetch has an overall deadline (DEADLINE_S, 1 s
    here) and what it got must be a sheet with the id column; either failure keeps the copy."""
    import time

    import pnp.products.published as published_mod

    class Trickle(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/csv")
            self.end_headers()
            try:
                for _ in range(100):  # 20 s unless the client goes away
                    self.wfile.write(b"a")
                    self.wfile.flush()
                    time.sleep(0.2)
            except OSError:
                pass

        def log_message(self, *args: Any) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Trickle)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/drip.csv"
        cache = published(mini, url)
        cache.write_text(SHEET, encoding="utf-8")
        monkeypatch.setattr(published_mod, "DEADLINE_S", 1.0)
        report = pnp.fetch("mini", data=mini.path)
        (f,) = report.fetched
        assert report.exit_code == 1
        assert (f.ok, f.message) == (False, "fetch failed (no complete answer within 1 s); kept the cached copy")
        assert cache.read_text("utf-8") == SHEET
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


def test_an_answer_that_is_no_sheet_keeps_the_cache(mini: DataRootCopy, server: Server) -> None:
    cache = published(mini, server.url + "/sheet.csv")
    cache.write_text(SHEET, encoding="utf-8")
    for body, reason in [(b"a" * 120, "the answer is not a sheet with a header row naming 'id'"),
                         (b"id,name\n\n", "the sheet has no rows below its header")]:
        server.pages["/sheet.csv"] = (200, "text/csv", body)
        report = pnp.fetch("mini", data=mini.path)
        (f,) = report.fetched
        assert (report.exit_code, f.message) == (1, f"fetch failed ({reason}); kept the cached copy")
        assert cache.read_text("utf-8") == SHEET


class AuthServer(Server):
    """Serves the sheet at /sheet.csv only to a request with Basic credentials ``user:s3cret-pw``;
    /moved redirects there. Records each request's path and Authorization header."""

    def __init__(self) -> None:
        import base64

        self.seen: list[tuple[str, str | None]] = []
        self.want = "Basic " + base64.b64encode(b"us@r:s3cret-pw").decode()
        super().__init__()

    def answer(self, path: str, auth: str | None) -> tuple[int, list[tuple[str, str]], bytes]:
        self.seen.append((path, auth))
        if path == "/moved":
            return 302, [("Location", "/sheet.csv"), ("Content-Type", "text/plain")], b""
        if auth != self.want:
            return 401, [("Content-Type", "text/plain")], b"who are you"
        return 200, [("Content-Type", "text/csv")], SHEET.encode()


def test_a_password_in_the_url_is_sent_and_never_shown(mini: DataRootCopy, tmp_path: Path) -> None:
    """``https://user:pw@host/...`` failed with 'nonnumeric port' or 'Name or service not known'
    and printed the password (third attack). The credentials now go as HTTP Basic authentication
    to that host alone (a redirect does not carry them), and every line shows ``***@``."""
    s = AuthServer()
    try:
        port = s.url.rsplit(":", 1)[1]
        secret = f"http://us%40r:s3cret-pw@127.0.0.1:{port}"
        shown = f"http://***@127.0.0.1:{port}"
        cache = published(mini, secret + "/sheet.csv")
        r = run_cli("fetch", "mini", "--data", mini.path)
        assert r.exit_code == 0, r.output
        assert f"deck: {shown}/sheet.csv -> {shown_path(cache)}: fetched" in r.stdout
        assert s.seen[-1][0] == "/sheet.csv" and s.seen[-1][1] is not None
        assert cache.read_text("utf-8") == SHEET
        for url, reason in [(f"http://us%40r:wrong-pw@127.0.0.1:{port}/sheet.csv", "HTTP 401 Unauthorized"),
                            (secret + "/moved", "HTTP 401 Unauthorized"),  # the redirect went without them
                            (f"http://us%40r:s3cret-pw@nonexistent.invalid:{port}/x.csv", "cannot reach the server"),
                            ("http://us%40r:s3cret-pw@127.0.0.1:99999/x.csv", "cannot reach the server"),
                            (f"http://us%40r:s3cret-pw@127.0.0.1:{port}/sheet.csv".replace("http:", "https:"), "")]:
            mini.edit("game.json", lambda m, url=url: m["components"][0].update(data=url))
            s.seen.clear()
            for r in (run_cli("fetch", "mini", "--data", mini.path),
                      run_cli("build", "mini", "--data", mini.path, "--out", tmp_path / "out", "--refresh")):
                said = r.stdout + r.stderr
                assert "fetch failed (" + reason in said and "***@" in said, (url, said)
                assert "s3cret" not in said and "wrong-pw" not in said and "us%40r" not in said, said
                assert_no_traceback(r)
            if url.endswith("/moved"):
                assert s.seen[:2] == [("/moved", s.seen[0][1]), ("/sheet.csv", None)] and s.seen[0][1], s.seen
    finally:
        s.close()


def test_a_cached_copy_that_is_a_named_pipe_is_refused_without_opening_it(mini: DataRootCopy, server: Server,
                                                                           tmp_path: Path) -> None:
    """`pnp fetch` and `build --refresh` compared the answer with the cached copy by reading it:
    a named pipe there blocked the open forever. It is looked at (lstat) first and refused, exit 2,
    at the manifest's ``data``; nothing is written. (SIGALRM turns a regression's hang into a failure.)"""
    import os
    import signal

    server.pages["/sheet.csv"] = (200, "text/csv", SHEET.encode())
    cache = published(mini, server.url + "/sheet.csv")
    os.mkfifo(cache)

    def hung(*_: Any) -> None:
        raise TimeoutError("pnp blocked on the named pipe")

    before = signal.signal(signal.SIGALRM, hung)
    signal.alarm(60)
    try:
        for args in (("fetch", "mini"), ("build", "mini", "--refresh", "--out", str(tmp_path / "out"))):
            r = run_cli(*args, "--data", mini.path)
            assert_no_traceback(r)
            assert r.exit_code == 2, (args, r.stderr)
            assert ("card_data/mini/game.json:18:15: $.components[0].data: cached copy 'deck.published.csv' is not a "
                    "regular file: it is a named pipe (FIFO)") in r.stderr
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, before)
    assert not (tmp_path / "out").exists()
    assert cache.is_fifo()
    # a link (to a file outside the game folder) is replaced by a regular file, never written through
    cache.unlink()
    outside = tmp_path / "outside.csv"
    outside.write_text("untouched", encoding="utf-8")
    cache.symlink_to(outside)
    r = run_cli("fetch", "mini", "--data", mini.path)
    assert r.exit_code == 0, r.stderr
    assert not cache.is_symlink() and cache.read_text(encoding="utf-8") == SHEET
    assert outside.read_text(encoding="utf-8") == "untouched"


CSV = "Content-Type: text/csv\r\n"
MALFORMED = [  # (raw answer, why the fetch failed): each form of the fifth attack's F3 and F4, and more
    (b"HTTP/1.1 200 OK\r\n" + b"".join(b"X-%d: y\r\n" % i for i in range(101)) + b"\r\n" + SHEET.encode(),
     "the answer is not valid HTTP: got more than 100 headers"),
    (b"HTTP/1.1 200 OK\r\nX: " + b"y" * 70_000 + b"\r\n\r\n" + SHEET.encode(),
     "the answer is not valid HTTP: got more than 65536 bytes when reading header line"),
    (b"HTTP/1.1 abc\r\n\r\n", "the answer does not start with an HTTP status line: it starts 'HTTP/1.1 abc'"),
    (SHEET.encode(),  # HTTP/0.9: a bare body (http.client reads its first line)
     "the answer does not start with an HTTP status line: it starts 'id,name,suit,power,source.designed'"),
    (b"\x1b]0;pwned\x07\xff" + b"z" * 200 + b"\r\n\r\n",
     "the answer does not start with an HTTP status line: it starts '\\x1b]0;pwned\\x07\\xff" + "z" * 69 + "...'"),
    (b"HTTP/2.0 200 OK\r\n\r\n", "the answer is not HTTP/1.x: its status line names 'HTTP/2.0'"),
    (b"HTTP/1.1 500 \x1b[2J\xe9vil\x07\r\nContent-Length: 0\r\n\r\n", "HTTP 500 \\x1b[2J\\xe9vil\\x07"),
    (b"", "the server closed the connection without an answer"),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n" + CSV.encode() + b"\r\nzz\r\nabc\r\n",
     "the answer was cut off: its chunked body ends before the last chunk, or is malformed"),
    # F4: a whole sheet's rows, but not the last chunk (or not the bytes Content-Length announced)
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n" + CSV.encode() + b"\r\n"
     + b"%x\r\n" % len(SHEET) + SHEET.encode() + b"\r\n",
     "the answer was cut off: its chunked body ends before the last chunk, or is malformed"),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n" + CSV.encode() + b"\r\n" + SHEET.encode()[:-9],
     f"the answer was cut off: {len(SHEET) - 9} of the 1000 bytes its Content-Length announced"),
    (b"HTTP/1.1 302 Found\r\nLocation: /loop\r\nContent-Length: 0\r\n\r\n",  # urllib's message spans lines
     "too many redirects, or a redirect loop (the last answer: HTTP 302 Found)"),
    (b"HTTP/1.1 302 Found\r\nLocation: /sheet.csv\r\nContent-Length: 50\r\n\r\nabc",
     "the answer was cut off: 3 of 50 bytes"),
    # attack 6, borderline: urllib followed a redirect to ftp://; a negative Content-Length was
    # read as none (the body to the close), and of two different ones the first was believed
    (b"HTTP/1.1 302 Found\r\nLocation: ftp://127.0.0.1/sheet.csv\r\nContent-Length: 0\r\n\r\n",
     "the server redirected to a URL that is not http(s) ('ftp:'); pnp fetches only http:// and https://"),
    (b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 3\r\n\r\n\x1f\x8b\x08",
     "the answer is compressed (Content-Encoding: gzip); pnp reads a published sheet's CSV uncompressed"),
    (b"HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\n" + SHEET.encode(),
     "the answer is not valid HTTP: its Content-Length is '-5'"),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: " + str(len(SHEET)).encode() + b"\r\n\r\n"
     + SHEET.encode(), f"the answer is not valid HTTP: its Content-Length is '3', '{len(SHEET)}'"),
]


def test_a_malformed_or_cut_off_answer_is_a_failed_fetch(mini: DataRootCopy, server: Server) -> None:
    """Attack 5, F3: a malformed HTTP answer (too many headers, a header line too long, a bad or
    missing status line, a broken chunked body) ended `pnp fetch` in exit 3, "internal error",
    echoing the server's bytes. F4: a body shorter than its Content-Length, or a chunked one
    without its last chunk, was cached as a complete sheet. Each is now a failed fetch (one
    line, the server's bytes escaped and shortened), the cached copy kept or none written."""
    server.pages["/sheet.csv"] = (200, "text/csv", SHEET.encode())
    cache = published(mini, server.url + "/loop")
    for raw, reason in MALFORMED:
        server.raw["/loop"] = raw
        for old in (None, "id,name\nold-1,Old\n"):
            cache.unlink(missing_ok=True)
            if old is not None:
                cache.write_text(old, encoding="utf-8")
            report = pnp.fetch("mini", data=mini.path)
            (f,) = report.fetched
            kept = "kept the cached copy" if old else "no cached copy yet: builds fail until a fetch succeeds"
            assert (report.exit_code, f.ok, f.message) == (1, False, f"fetch failed ({reason}); {kept}"), raw[:40]
            assert f.message.isprintable() and f.message.isascii()
            assert (cache.read_text("utf-8") if cache.exists() else None) == old  # nothing written
    server.raw["/loop"] = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + b"%x\r\n" % len(SHEET) \
        + SHEET.encode() + b"\r\n0\r\n\r\n"  # the same chunked body with its last chunk is a sheet
    assert pnp.fetch("mini", data=mini.path).ok and cache.read_text("utf-8") == SHEET


def test_a_malformed_answer_to_build_refresh_keeps_the_cached_copy(mini: DataRootCopy, server: Server,
                                                                  tmp_path: Path) -> None:
    """Attack 5, F3: `build --refresh` with a good cached copy stopped with exit 3 when the server
    sent more than 100 headers; the docs promise that a failed fetch keeps the copy and the build
    goes on with it."""
    cache = published(mini, server.url + "/sheet.csv")
    cache.write_text(SHEET, encoding="utf-8")
    server.raw["/sheet.csv"] = MALFORMED[0][0]
    line = (f"deck: {server.url}/sheet.csv -> {shown_path(cache)}: fetch failed (the answer is not valid HTTP: "
            "got more than 100 headers); kept the cached copy\n")
    r = run_cli("fetch", "mini", "--data", mini.path)
    assert_no_traceback(r)
    assert (r.exit_code, r.stdout, r.stderr) == (1, "", line)
    r = run_cli("build", "mini", "--data", mini.path, "--out", tmp_path / "out", "--refresh")
    assert_no_traceback(r)
    assert r.exit_code == 0, r.stderr
    assert r.stderr.startswith(line)
    assert (tmp_path / "out" / "mini").is_dir() and list((tmp_path / "out" / "mini").glob("*.pdf"))
    assert cache.read_text("utf-8") == SHEET


@pytest.mark.parametrize("first", [True, False])
def test_a_cache_that_is_another_component_s_file_is_refused(mini: DataRootCopy, server: Server, tmp_path: Path,
                                                             first: bool) -> None:
    """A published sheet's `cache` naming another component's hand-written data file passed
    check, and `pnp fetch` overwrote that file (attack 6, F8). check, fetch and build --refresh
    refuse it now, exit 2, whichever of the two comes first in the manifest; the file is intact."""
    server.pages["/sheet.csv"] = (200, "text/csv", SHEET.replace("Sun", "Star").encode())
    mini.file("deck.csv").write_text(SHEET, encoding="utf-8")  # the hand-written sheet
    hand = mini.file("deck.csv").read_bytes()

    def edit(m: dict[str, Any]) -> None:
        deck = {**m["components"][0], "data": "deck.csv", "fields": FIELDS}
        pub = {**deck, "id": "pub", "data": server.url + "/sheet.csv", "cache": "deck.csv"}
        m["components"] = [pub, deck] if first else [deck, pub]
        m["rulebook"] = []
    mini.edit("game.json", edit)
    for args in (("check", "mini"), ("fetch", "mini"), ("build", "mini", "--refresh", "--out", str(tmp_path / "o"))):
        r = run_cli(*args, "--data", mini.path)
        assert_no_traceback(r)
        assert r.exit_code == 2, (args, r.stdout, r.stderr)
        assert "'deck.csv' is also the data file of component 'deck': fetching one would overwrite the other" in \
            r.stderr or "'deck.csv' is also the cached copy of component 'pub'" in r.stderr, r.stderr
    assert mini.file("deck.csv").read_bytes() == hand and not (tmp_path / "o").exists()
