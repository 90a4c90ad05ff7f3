"""Drive Debian's headless Chromium over the DevTools protocol, with the standard library only:
a minimal WebSocket client (RFC 6455: client frames masked, text messages, fragments joined)
and the handful of DevTools calls the browser tests use (navigate, evaluate, screenshot)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import socket
import struct
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--remote-debugging-port=0", "--remote-allow-origins=*"]
WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class WebSocket:
    def __init__(self, url: str, timeout: float = 60):
        u = urlsplit(url)
        assert u.hostname is not None and u.port is not None
        self.sock = socket.create_connection((u.hostname, u.port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(f"GET {u.path} HTTP/1.1\r\nHost: {u.hostname}:{u.port}\r\nUpgrade: websocket\r\n"
                          f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
                          .encode())
        self.buf = b""
        while b"\r\n\r\n" not in self.buf:
            self._fill()
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        accept = base64.b64encode(hashlib.sha1((key + WS_GUID).encode()).digest()).decode()
        assert head.startswith(b"HTTP/1.1 101") and accept.encode() in head, head

    def _fill(self) -> None:
        chunk = self.sock.recv(1 << 16)
        if not chunk:
            raise ConnectionError("the browser closed the DevTools connection")
        self.buf += chunk

    def _take(self, n: int) -> bytes:
        while len(self.buf) < n:
            self._fill()
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def send(self, text: str) -> None:
        payload = text.encode()
        n = len(payload)
        head = b"\x81" + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack(">H", n)
                          if n < 1 << 16 else bytes([0x80 | 127]) + struct.pack(">Q", n))
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(head + mask + masked)

    def recv(self) -> str:
        parts: list[bytes] = []
        while True:
            b0, b1 = self._take(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._take(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._take(8))[0]
            mask = self._take(4) if b1 & 0x80 else None
            data = self._take(n)
            if mask is not None:
                data = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
            opcode = b0 & 0x0F
            if opcode == 8:
                raise ConnectionError("the browser closed the DevTools connection")
            if opcode in (9, 10):  # ping, pong: the browser does not ping a client that is reading
                continue
            parts.append(data)
            if b0 & 0x80:
                return b"".join(parts).decode()

    def close(self) -> None:
        self.sock.close()


class Browser:
    """One headless Chromium with a fresh profile in ``profile``, and its first tab."""

    def __init__(self, profile: Path, width: int = 1280, height: int = 1600):
        exe = chromium()
        assert exe is not None
        profile.mkdir(parents=True, exist_ok=True)
        self.log = open(profile.parent / "chromium.log", "wb")  # noqa: SIM115 (closed in close())
        self.proc = subprocess.Popen([exe, *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                                      f"--window-size={width},{height}", "about:blank"],
                                     stdout=self.log, stderr=self.log)
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not (port_file.exists() and port_file.read_text().strip()):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError(f"Chromium did not start (see {self.log.name})")
            time.sleep(0.05)
        port = int(port_file.read_text().split()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=30) as r:
            targets = json.load(r)
        page = next(t for t in targets if t["type"] == "page")
        self.ws = WebSocket(page["webSocketDebuggerUrl"])
        self.next_id = 0

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg["result"]

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression (a promise is awaited)."""
        r = self.call("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expression[:80]}...: {r['exceptionDetails']}")
        return r["result"].get("value")

    def navigate(self, url: str) -> None:
        self.call("Page.navigate", url=url)
        self.wait_for("document.readyState === 'complete' && location.href === " + json.dumps(url))

    def wait_for(self, condition: str, timeout: float = 30) -> Any:
        """Poll a JavaScript condition in the page until it is truthy; its value."""
        return self.evaluate(f"""new Promise((resolve, reject) => {{
            const t0 = Date.now();
            const test = () => {{ let v; try {{ v = ({condition}); }} catch (e) {{ v = false; }}
                if (v) resolve(v); else if (Date.now() - t0 > {timeout * 1000}) reject(new Error('timed out'));
                else setTimeout(test, 50); }};
            test(); }})""")

    def screenshot(self, path: Path) -> None:
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        try:
            self.ws.close()
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.log.close()
