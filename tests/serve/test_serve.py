"""`pnp serve` over HTTP, without a browser: what the pages list, that every picture is a PNG
of the size the page says, 404s for everything else, live updates (the event stream, only the
changed piece re-rendered), errors in the words of `pnp check` beside the last good pictures."""

from __future__ import annotations

import html
import http.client
import io
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import DataRootCopy, assert_no_traceback, run_cli

from pnp import api
from pnp.serve.gallery import GameView
from pnp.serve.server import Server, serve

IMG = re.compile(r'<img src="(/png/[0-9a-f]{20}\.png)" width="(\d+)" height="(\d+)" alt="([^"]+)"')


def get(server: Server, path: str) -> tuple[int, str, bytes]:
    host, port = server.httpd.server_address[:2]
    conn = http.client.HTTPConnection(host, port, timeout=10)
    try:
        conn.request("GET", path)  # sent as given: no client-side normalising of ../
        r = conn.getresponse()
        return r.status, r.getheader("Content-Type") or "", r.read()
    finally:
        conn.close()


def text(server: Server, path: str) -> str:
    status, _, body = get(server, path)
    assert status == 200, (path, status)
    return body.decode()


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


@pytest.fixture
def served(mini: DataRootCopy, tmp_path: Path) -> Iterator[tuple[Server, DataRootCopy]]:
    view = GameView(api.watch("mini", data=mini.path, out=tmp_path / "out", jobs=1))
    server = serve([view], port=0, interval=3600, log=lambda line: None)  # the tests poll themselves
    try:
        yield server, mini
    finally:
        server.close()


def test_binds_loopback_by_default(served: tuple[Server, DataRootCopy]) -> None:
    server, _ = served
    assert server.httpd.server_address[0] == "127.0.0.1"
    assert server.url.startswith("http://127.0.0.1:")


def test_pages_list_components_and_every_piece_with_its_pictures(served: tuple[Server, DataRootCopy]) -> None:
    server, _ = served
    index = text(server, "/")
    assert '<a href="/game/mini">Mini (mini)</a> — checks' in index
    assert "(deck: 5 pieces, 3 distinct)" in index
    page = text(server, "/game/mini")
    imgs = IMG.findall(page)
    # three items, front and back each (the back is one picture shared by all three)
    assert [alt for *_, alt in imgs] == ["sun-1 (front)", "sun-1 (back)", "moon-1 (front)", "moon-1 (back)",
                                         "joker (front)", "joker (back)"]
    assert len({src for src, *_ in imgs}) == 4
    for src, w, h, _ in imgs:
        status, ctype, body = get(server, src)
        assert (status, ctype) == (200, "image/png")
        assert png_size(body) == (int(w), int(h)) == (191, 273)  # mini card 44 x 63 mm at 110 dpi: 190.6 x 272.8
    assert "Rulebook: mini: 2 rules, 2 pass, 0 fail" in page
    # the sheets as printed: one picture per page of the PDF the build wrote
    sheets = re.findall(r'src="(/sheet/mini/deck/(\d+)\.png\?v=[0-9a-f]{12})"', page)
    assert [n for _, n in sheets] == ["1", "2"]
    for src, _ in sheets:
        status, ctype, body = get(server, src)
        assert (status, ctype) == (200, "image/png")
        assert png_size(body) == (340, 440)  # US Letter (the default paper) at 40 dpi
    status, ctype, body = get(server, "/out/mini/deck.pdf")
    assert (status, ctype) == (200, "application/pdf") and body.startswith(b"%PDF")


def test_item_page_fields_source_place_and_rules(served: tuple[Server, DataRootCopy]) -> None:
    server, mini = served
    page = text(server, "/game/mini/deck/joker")
    line = mini.line_of("deck.json", '"id": "joker"') - 1  # the item's object opens a line above its id
    assert f'<code class="where">card_data/mini/deck.json:{line}:5</code>' in page
    assert "<tr><th>name</th><td>Joker</td></tr>" in page
    assert "<strong>designed</strong>: one joker so the deck has an odd count" in page
    assert re.findall(r"<strong>(PASS|FAIL) ([\w-]+)</strong>", page) == [("PASS", "deck-5"), ("PASS", "names-unique")]


NOT_SERVED = [
    "/nope", "/png/../../etc/passwd", "/../../../etc/passwd", "/png/0123456789abcdef0123.png",
    "/out/mini/.pnp-build.json", "/out/mini/../../mini-root/card_data/mini/game.json", "/out/mini/%2e%2e%2fgame.json",
    "/out/other/deck.pdf", "/out/mini/deck.json", "/sheet/mini/deck/3.png", "/sheet/mini/deck/0.png",
    "/sheet/mini/nope/1.png", "/game/mini/deck/nope", "/game/nope", "/game/mini/deck", "/game/mini/deck/joker/x",
    "/card_data/mini/deck.json", "/%00", "/game/mini/%ff%fe"]


def test_anything_else_is_a_404_page(served: tuple[Server, DataRootCopy]) -> None:
    server, _ = served
    for path in NOT_SERVED:
        status, ctype, body = get(server, path)
        assert (status, ctype) == (404, "text/html; charset=utf-8"), path
        assert b"<h1>Not found</h1>" in body and b"Traceback" not in body


def test_only_the_pdfs_the_build_wrote_are_served(served: tuple[Server, DataRootCopy], tmp_path: Path) -> None:
    """Attack 14, F5: a link planted in the output folder under a PDF's name was followed (the
    file it points to was served), and a FIFO there blocked a server thread for good."""
    server, _ = served
    deck = tmp_path / "out" / "mini" / "deck.pdf"
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET")
    assert get(server, "/out/mini/deck.pdf")[0] == 200
    saved = deck.read_bytes()
    deck.unlink()
    os.symlink(secret, deck)
    status, _, body = get(server, "/out/mini/deck.pdf")
    assert status == 404 and b"SECRET" not in body
    deck.unlink()
    os.mkfifo(deck)
    assert get(server, "/out/mini/deck.pdf")[0] == 404  # at once (get() gives up after 10 s)
    page = text(server, "/game/mini")
    (sheet,) = re.findall(r'src="(/sheet/mini/deck/1\.png\?v=[0-9a-f]{12})"', page)
    assert get(server, sheet)[0] == 404
    deck.unlink()
    deck.write_bytes(saved[:-1] + b"X")  # not what the build wrote
    assert get(server, "/out/mini/deck.pdf")[0] == 404
    deck.write_bytes(saved)
    assert get(server, "/out/mini/deck.pdf") == (200, "application/pdf", saved)


def _get_as(server: Server, host: str | None, version: str = "HTTP/1.1", extra: bytes = b"",
            target: str = "/") -> int:
    """The status of GET ``target`` sent with ``Host: host`` (None: no Host header at all)."""
    addr = server.httpd.server_address[:2]
    with socket.create_connection(addr, timeout=10) as sock:
        head = f"Host: {host}\r\n".encode() if host is not None else b""
        sock.sendall(f"GET {target} {version}\r\n".encode() + head + extra + b"Connection: close\r\n\r\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    return int(data.split(b" ", 2)[1])


def test_a_loopback_server_answers_only_to_local_host_names(served: tuple[Server, DataRootCopy]) -> None:
    """A page of another site that reaches 127.0.0.1 through DNS rebinding sends its own name as
    Host: it gets a 421, not the pages (attack 5, borderline 1)."""
    server, _ = served
    port = server.httpd.server_address[1]
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", "LOCALHOST", f"[::1]:{port}"):
        assert _get_as(server, host) == 200, host
    assert _get_as(server, None) == 400
    for host in (f"evil.example:{port}", "evil.example", f"127.0.0.1.evil.example:{port}", "[::2]:80", ""):
        assert _get_as(server, host) == 421, host
    # a name and a port, nothing after them (attack 12, borderline B1: all these got the pages)
    for host in (f"127.0.0.1:{port} evil", f"127.0.0.1:{port}.evil.example", f"localhost:{port}\x1b[2J",
                 "localhost:x", f"[::1]:{port}]", "localhost:123456"):
        assert _get_as(server, host) == 421, host
    # HTTP/1.1 asks for exactly one Host (attack 7, borderline: none, or a second, was served)
    assert _get_as(server, None, "HTTP/1.0") == 200
    assert _get_as(server, f"localhost:{port}", extra=b"Host: evil.example\r\n") == 400
    # a request in absolute form names its host before the Host header (attack 10, borderline)
    for target in ("http://evil.example/", f"http://evil.example:{port}/", "http://localhost@evil.example/"):
        assert _get_as(server, f"127.0.0.1:{port}", target=target) == 421, target
    assert _get_as(server, f"127.0.0.1:{port}", target=f"http://localhost:{port}/") == 200
    # a target that is no URL is the client's error, not an internal one (attack 20, F4: 500)
    for target in ("http://[/", "http://a]b/", "http://[::1/", "http://\x1b[31mevil/"):
        assert _get_as(server, f"127.0.0.1:{port}", target=target) == 400, target


def _capped(mini: DataRootCopy, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cap: int,
            **limits: float) -> Server:
    from pnp.serve import server as server_module

    monkeypatch.setattr(server_module, "MAX_CONNECTIONS", cap)
    for name, value in limits.items():
        monkeypatch.setattr(server_module, name, value)
    return serve([GameView(api.watch("mini", data=mini.path, out=tmp_path / "out", jobs=1))], port=0,
                 interval=3600, log=lambda line: None)


def _closed_by_server(sock: socket.socket, within: float) -> bool:
    """Whether the server ends ``sock`` within ``within`` seconds (its reads see the end)."""
    sock.settimeout(within)
    try:
        return sock.recv(1) == b""
    except TimeoutError:
        return False
    except OSError:
        return True


def test_a_fault_outside_a_request_goes_to_the_serve_log_not_stderr(mini: DataRootCopy, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """A handler that fails where no request catches it (socketserver's handle_error) is one line
    in the command's log, as every other line of serve is; a connection the client cut is none."""
    lines: list[str] = []
    view = GameView(api.watch("mini", data=mini.path, out=tmp_path / "out", jobs=1))
    server = serve([view], port=0, interval=3600, log=lines.append)
    try:
        for fault in (ValueError("odd"), ConnectionResetError("gone")):
            try:
                raise fault
            except Exception:
                server.httpd.handle_error(None, ("127.0.0.1", 1))
    finally:
        server.close()
    assert [line for line in lines if "error" in line] == [
        "pnp: internal error in a connection: ValueError: odd (this is a bug in pnp)"]
    assert capsys.readouterr().err == ""


def test_connections_beyond_the_cap_are_turned_away_not_threaded(mini: DataRootCopy, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Each connection is a thread: thousands of idle ones made thousands of threads (attack 5,
    borderline 1). Beyond MAX_CONNECTIONS a connection gets a 503 at once (while the others
    are within their grace to send a head); once they close, pages are served again."""
    server = _capped(mini, tmp_path, monkeypatch, 4, HEAD_GRACE_S=3600.0)
    try:
        addr = server.httpd.server_address[:2]
        idle = [socket.create_connection(addr, timeout=10) for _ in range(4)]  # each holds a thread, reading
        assert get(server, "/")[0] == 503  # the four hold every slot: their threads are running
        threads = threading.active_count()
        for _ in range(20):
            assert get(server, "/")[0] == 503
        assert threading.active_count() == threads  # no thread for those
        for sock in idle:
            sock.close()
        for _ in range(100):  # the handlers see the closed sockets and give their slots back
            if get(server, "/")[0] == 200:
                break
        else:
            raise AssertionError("no slot came back")
    finally:
        server.close()


def test_a_request_head_has_one_deadline_however_slowly_it_trickles(mini: DataRootCopy, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack 6, F9: a client sending one more header line every 5 s was never dropped (the
    socket timeout counts single reads), so 300 of them held every slot. The whole head has
    HEAD_S; a client that keeps trickling is cut when it has passed, one that sent its head
    in time is served."""
    server = _capped(mini, tmp_path, monkeypatch, 8, HEAD_S=1.0)
    try:
        addr = server.httpd.server_address[:2]
        slow = socket.create_connection(addr, timeout=10)
        slow.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        began = time.monotonic()
        cut = False
        while time.monotonic() - began < 8 and not cut:
            try:
                slow.sendall(b"X-a: b\r\n")  # a header line every 0.2 s: each read is quick
            except OSError:
                cut = True
                break
            cut = _closed_by_server(slow, 0.2)
        assert cut, "a trickling head was never cut"
        assert time.monotonic() - began < 4  # at HEAD_S (1 s), checked every 0.1 s
        assert get(server, "/")[0] == 200
    finally:
        server.close()


def test_a_new_connection_takes_the_slot_of_one_stuck_in_its_head(mini: DataRootCopy, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """When every slot is held by connections that have sent no complete head for
    HEAD_GRACE_S, a new one is served in the slot of the longest waiting; connections being
    served (open event streams) are never cut for it: with those in every slot, a 503."""
    server = _capped(mini, tmp_path, monkeypatch, 4, HEAD_GRACE_S=0.2)
    try:
        addr = server.httpd.server_address[:2]
        idle = [socket.create_connection(addr, timeout=10) for _ in range(4)]
        idle[0].sendall(b"GET / HTTP/1.1\r\n")  # a head begun and never ended
        time.sleep(0.5)
        assert get(server, "/")[0] == 200  # in the slot of a stuck one
        assert sum(_closed_by_server(sock, 0.5) for sock in idle) == 1
        for _ in range(6):  # a slot is free once a request's connection closes
            assert get(server, "/")[0] == 200
        for sock in idle:
            sock.close()
        for _ in range(500):  # their handlers (and the last request's) end and give the slots back
            if server.httpd.slots._value == 4:  # type: ignore[attr-defined]
                break
            time.sleep(0.01)
        streams = []
        for _ in range(4):
            sock = socket.create_connection(addr, timeout=10)
            sock.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert sock.recv(12) == b"HTTP/1.1 200"
            streams.append(sock)
        time.sleep(0.5)
        assert get(server, "/")[0] == 503  # no connection stuck in a head: nothing to cut
        for sock in streams:
            sock.close()
    finally:
        server.close()


def test_event_streams_beyond_their_cap_end_the_oldest(mini: DataRootCopy, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """An open page holds a connection for its event stream: streams alone could hold every slot
    (a page of them, or a script). Beyond MAX_STREAMS a new stream ends the oldest at once (a page
    reconnects on its own after `retry`), and pages are still served."""
    server = _capped(mini, tmp_path, monkeypatch, 4, MAX_STREAMS=2)
    try:
        addr = server.httpd.server_address[:2]
        streams = []
        for _ in range(3):
            sock = socket.create_connection(addr, timeout=10)
            sock.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            head = b""
            while b"retry: 1000" not in head:
                head += sock.recv(1000)
            streams.append(sock)
        assert _closed_by_server(streams[0], 5.0)  # ended for the third, well before its next ping
        assert not _closed_by_server(streams[1], 0.3) and not _closed_by_server(streams[2], 0.3)
        assert get(server, "/")[0] == 200
        for sock in streams:
            sock.close()
    finally:
        server.close()


def test_an_edit_rerenders_only_the_changed_piece_and_tells_the_open_pages(
        served: tuple[Server, DataRootCopy]) -> None:
    server, mini = served
    view = server.views["mini"]
    before = IMG.findall(text(server, "/game/mini"))
    events: list[str] = []
    host, port = server.httpd.server_address[:2]
    sock = socket.create_connection((host, port), timeout=10)
    sock.sendall(b"GET /events HTTP/1.1\r\nHost: localhost\r\n\r\n")
    got = threading.Event()

    def read() -> None:
        buf = b""
        while b"\ndata: " not in buf:
            chunk = sock.recv(4096)
            if not chunk:
                break
            buf += chunk
        events.append(buf.decode())
        got.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    mini.replace("deck.json", '"name": "Joker"', '"name": "Wild Joker"')
    assert server.poll()
    assert got.wait(10), "no event after the edit"
    sock.close()
    assert "text/event-stream" in events[0] and f"\ndata: {server.version}\n" in events[0]
    assert view.rendered == 1  # the joker's front; the other fronts and the shared back are reused
    after = IMG.findall(text(server, "/game/mini"))
    changed = [(b[3], b[0] != a[0]) for b, a in zip(before, after, strict=True)]
    assert changed == [("sun-1 (front)", False), ("sun-1 (back)", False), ("moon-1 (front)", False),
                       ("moon-1 (back)", False), ("joker (front)", True), ("joker (back)", False)]
    assert not server.poll()  # nothing changed since: no event, no work


def test_a_template_edit_rerenders_the_fronts_not_the_back(served: tuple[Server, DataRootCopy]) -> None:
    server, mini = served
    before = IMG.findall(text(server, "/game/mini"))
    mini.replace("templates/mini/card.json", '"box": [18, 20, 8, 8]', '"box": [18, 22, 8, 8]')
    assert server.poll()
    assert server.views["mini"].rendered == 2  # the two fronts with a suit mark; the joker has none
    after = IMG.findall(text(server, "/game/mini"))
    assert [(b[3], b[0] != a[0]) for b, a in zip(before, after, strict=True)] == [
        ("sun-1 (front)", True), ("sun-1 (back)", False), ("moon-1 (front)", True), ("moon-1 (back)", False),
        ("joker (front)", False), ("joker (back)", False)]


def test_an_image_edited_in_place_rerenders_the_pieces_that_show_it(mini: DataRootCopy, tmp_path: Path) -> None:
    from PIL import Image

    art = mini.game_dir / "art" / "sun.png"
    art.parent.mkdir()
    Image.new("RGB", (90, 50), (200, 30, 30)).save(art)
    mini.edit("templates/mini/card.json", lambda t: t["elements"].append(
        {"type": "image", "box": [4, 30, 36, 20], "src": "art/sun.png"}))
    server = serve([GameView(api.watch("mini", data=mini.path, out=tmp_path / "out", jobs=1))], port=0,
                   interval=3600, log=lambda line: None)
    try:
        before = IMG.findall(text(server, "/game/mini"))
        Image.new("RGB", (90, 50), (30, 30, 200)).save(art)  # same path: the primitives do not change
        assert server.poll()
        assert server.views["mini"].rendered == 3  # the three fronts show it; the back does not
        after = IMG.findall(text(server, "/game/mini"))
        assert [(b[3], b[0] != a[0]) for b, a in zip(before, after, strict=True)] == [
            ("sun-1 (front)", True), ("sun-1 (back)", False), ("moon-1 (front)", True), ("moon-1 (back)", False),
            ("joker (front)", True), ("joker (back)", False)]
        png = get(server, after[0][0])[2]
        with Image.open(io.BytesIO(png)) as img:
            # the middle of the image box (4 + 18 mm across, 30 + 10 mm down) at 110 dpi
            assert img.convert("RGB").getpixel((round(22 / 25.4 * 110), round(40 / 25.4 * 110))) == (30, 30, 200)
    finally:
        server.close()


def test_an_input_error_shows_check_text_beside_the_last_good_pictures(served: tuple[Server, DataRootCopy]) -> None:
    server, mini = served
    good = IMG.findall(text(server, "/game/mini"))
    moon = '\n      "source": {"document": "Moon'
    mini.replace("deck.json", '"power": 1,' + moon, '"power": 12,' + moon)
    assert server.poll()
    page = text(server, "/game/mini")
    result = run_cli("check", "--data", mini.path, "mini")
    assert result.exit_code == 2
    expected = result.stderr.strip().splitlines()
    assert len(expected) == 2 and expected[0].startswith("card_data/mini/deck.json:")
    shown = re.search(r'<section class="errors">.*?<pre>(.*?)</pre>', page, re.S)
    assert shown is not None and html.unescape(shown.group(1)).splitlines() == expected
    assert "The pictures below are from the last good version." in page
    assert IMG.findall(page) == good  # still shown, and still served
    for src, *_ in good:
        assert get(server, src)[0] == 200
    # fixed: the error goes
    mini.replace("deck.json", '"power": 12,', '"power": 1,')
    assert server.poll()
    assert 'class="errors"' not in text(server, "/game/mini")


def test_a_game_broken_from_the_start_shows_its_problems(mini: DataRootCopy, tmp_path: Path) -> None:
    mini.replace("deck.json", '"suit": "sun"', '"suit": "star"')
    server = serve([GameView(api.watch("mini", data=mini.path, out=tmp_path / "out", jobs=1))], port=0,
                   interval=3600, log=lambda line: None)
    try:
        assert "mini</a> — input problems" in text(server, "/")
        page = text(server, "/game/mini")
        assert "Nothing could be rendered yet." in page and "<figure" not in page
        assert "card_data/mini/deck.json:" in page and "$.items[0].suit" in page
        assert get(server, "/game/mini/deck/sun-1")[0] == 404
        mini.replace("deck.json", '"suit": "star"', '"suit": "sun"')
        assert server.poll()
        assert len(IMG.findall(text(server, "/game/mini"))) == 6
    finally:
        server.close()


def test_a_rule_violation_shows_check_text(served: tuple[Server, DataRootCopy]) -> None:
    server, mini = served
    mini.replace("deck.json", '"name": "Joker"', '"name": "Sun One"')
    assert server.poll()
    page = text(server, "/game/mini")
    result = run_cli("check", "--data", mini.path, "mini")
    assert result.exit_code == 1
    shown = re.search(r'<section class="rules-fail">.*?<pre>(.*?)</pre>', page, re.S)
    assert shown is not None
    check_lines = [ln for ln in result.stdout.splitlines()  # no provenance
                   if not re.match(r"  \S+ +\d+ pieces?,", ln) and not ln.startswith("  (items' sources")
                   and not ln.startswith("  document ")]
    assert html.unescape(shown.group(1)).splitlines() == check_lines
    assert "FAIL names-unique" in shown.group(1)
    item = text(server, "/game/mini/deck/joker")
    assert "<strong>FAIL names-unique</strong>" in item


def test_cli_refuses_a_bad_data_root_an_unknown_game_and_a_busy_port(tmp_path: Path, mini: DataRootCopy) -> None:
    result = run_cli("serve", "--data", tmp_path / "nowhere")
    assert_no_traceback(result)
    assert result.exit_code == 2 and "not a pnp data root" in result.stderr
    result = run_cli("serve", "--data", mini.path, "mini", "nope")
    assert_no_traceback(result)
    assert result.exit_code == 2 and "no game 'nope'" in result.stderr
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = run_cli("serve", "--data", mini.path, "--out", tmp_path / "out", "--port", port, "mini")
    assert_no_traceback(result)
    assert result.exit_code == 2 and f"pnp: cannot listen on 127.0.0.1:{port}" in result.stderr


def test_urllib_sees_the_page(served: tuple[Server, DataRootCopy]) -> None:
    server, _ = served
    with urllib.request.urlopen(server.url + "game/mini", timeout=10) as r:
        assert r.status == 200
    with pytest.raises(urllib.error.HTTPError) as exc:
        urllib.request.urlopen(server.url + "missing", timeout=10)
    assert exc.value.code == 404


@pytest.mark.slow
@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_the_command_serves_until_ctrl_c(mini: DataRootCopy, tmp_path: Path, sig: int, code: int) -> None:
    """Ctrl-C ends it with 130, as every command it stops; SIGTERM (a `kill`) with 143, the
    server closed alike."""
    proc = subprocess.Popen([sys.executable, "-m", "pnp", "serve", "mini", "--data", str(mini.path), "--port", "0",
                             "--out", str(tmp_path / "out")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "pnp: data root . (--data)\n"  # run in the root (the fixture's)
        line = proc.stdout.readline()
        m = re.fullmatch(r"pnp: serving mini at (http://127\.0\.0\.1:\d+/) \(Ctrl-C to stop\)\n", line)
        assert m is not None, line
        with urllib.request.urlopen(m.group(1) + "game/mini", timeout=10) as r:
            assert r.status == 200 and b'data-item="joker"' in r.read()
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode == code  # 128 + the signal, as every command it stops (it was 0)
    assert out == "pnp: stopped serving\n"
    assert err.splitlines() == [f"mini: rebuilt deck: {tmp_path / 'out'}/mini/deck.pdf (5 pieces, 2 pages)",
                                f"mini: rebuilt contents: {tmp_path / 'out'}/mini/mini-contents.pdf"]


def test_pieces_over_the_pixel_budget_show_the_message_not_pictures(mini: DataRootCopy, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The gallery rasterises new piece sides within the exports' budget (pnp.render.pixels):
    over it, the page shows why and nothing is rasterised; within it again, the pictures come."""
    from pnp.render import pixels

    monkeypatch.setattr(pixels, "MAX_COMMAND_PIXELS", 1000)
    server = serve([GameView(api.watch("mini", data=mini.path, out=tmp_path / "out", jobs=1))], port=0,
                   interval=3600, log=lambda line: None)
    try:
        page = html.unescape(text(server, "/game/mini"))
        assert "Nothing could be rendered yet." in page and "<figure" not in page
        said = re.search(r"`pnp serve` would render (\d+) images of (\d+) pixels together", page)
        assert said is not None and "more than pnp's limit of 1000 pixels" in page
        monkeypatch.setattr(pixels, "MAX_COMMAND_PIXELS", 1_000_000_000)
        mini.replace("deck.json", '"name": "Joker"', '"name": "Jester"')
        assert server.poll()
        page = text(server, "/game/mini")
        shown = IMG.findall(page)
        assert len(shown) == 6 and 'class="errors"' not in page
        # the count was of the distinct sides, at their pixel sizes
        distinct_sides = {src: int(w) * int(h) for src, w, h, _ in shown}
        assert int(said.group(1)) == len(distinct_sides)
        assert int(said.group(2)) == sum(png_size(get(server, src)[2])[0] * png_size(get(server, src)[2])[1]
                                         for src in distinct_sides)
    finally:
        server.close()


def test_pieces_and_sheets_past_the_shape_cap_are_not_rasterised(mini: DataRootCopy, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack 16, F5: PDFium holds every shape an image draws (SVG art's each time), ~500 bytes
    each. A piece side past MAX_IMAGE_SHAPES shows the message instead of pictures; a sheet
    picture past it is not rendered (404), and is once the sheet fits."""
    from pnp.render import pixels
    from pnp.serve.gallery import _sheet_held

    monkeypatch.setattr(pixels, "MAX_IMAGE_SHAPES", 0)
    view = GameView(api.watch("mini", data=mini.path, out=tmp_path / "out", jobs=1))
    server = serve([view], port=0, interval=3600, log=lambda line: None)
    try:
        page = html.unescape(text(server, "/game/mini"))
        assert "Nothing could be rendered yet." in page and "<figure" not in page
        assert re.search(r"card_data/mini/deck\.json:\d+:\d+: \$\.items\[0\]: the front of item 'sun-1' of component "
                         r"deck draws \d+ shapes, more than `pnp serve` may hold at once to render one image", page)
        monkeypatch.setattr(pixels, "MAX_IMAGE_SHAPES", 250_000)
        mini.replace("deck.json", '"name": "Joker"', '"name": "Jester"')
        assert server.poll()
        assert len(IMG.findall(text(server, "/game/mini"))) == 6
        deck = view.component("deck")
        assert deck is not None and deck.pages == 2
        sheet = _sheet_held(deck, 1).shapes
        assert sheet > max(_sheet_held(deck, 2).shapes, 0)  # the fronts' page holds more than the backs'
        monkeypatch.setattr(pixels, "MAX_IMAGE_SHAPES", sheet - 1)
        assert view.sheet_png("deck", 1) is None
        assert view.sheet_png("deck", 2) is not None
        monkeypatch.setattr(pixels, "MAX_IMAGE_SHAPES", sheet)
        assert view.sheet_png("deck", 1) is not None
    finally:
        server.close()
