"""Real servers for the tests: `sm serve` of this checkout on a temporary database and a free port
(one open on loopback, one that requires a token), and a few broken servers a client must
survive (HTML instead of JSON, a connection dropped mid-answer, no answer at all)."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "python-client-test-token-0123456789"


@dataclass
class Server:
    url: str
    process: subprocess.Popen[bytes]
    home: Path


def start_server(tmp: Path, token: str | None = None) -> Server:
    node = shutil.which("node")
    assert node, "node is not on PATH"
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp / "config"), "XDG_DATA_HOME": str(tmp / "data"), "XDG_CACHE_HOME": str(tmp / "cache")}
    env.pop("SM_API_TOKEN", None)
    if token:
        env["SM_API_TOKEN"] = token
    log = tmp / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [node, str(ROOT / "bin/sm.js"), "--db", str(tmp / "memory.db"), "serve", "--port", "0", "--no-scheduler"],
            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env,
        )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = re.search(r"Symbiosis Memory on (http://\S+/graphql)", log.read_text(errors="replace"))
        if found:
            return Server(found.group(1), process, tmp)
        if process.poll() is not None:
            break
        time.sleep(0.05)
    process.kill()
    raise RuntimeError(f"sm serve did not start:\n{log.read_text(errors='replace')}")


def stop(server: Server) -> None:
    server.process.terminate()
    try:
        server.process.wait(10)
    except subprocess.TimeoutExpired:
        server.process.kill()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    started = start_server(tmp_path_factory.mktemp("open"))
    yield started
    stop(started)


@pytest.fixture(scope="session")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server that requires a token (the admin token is TOKEN)."""
    started = start_server(tmp_path_factory.mktemp("guarded"), TOKEN)
    yield started
    stop(started)


@pytest.fixture
def closed_port() -> int:
    """A port nothing listens on: bound once, then closed."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RawServer:
    """A TCP server answering every request with `reply(request_bytes, connection)`; counts requests."""

    def __init__(self, reply) -> None:
        self.reply = reply
        self.requests = 0
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/graphql"
        self.open: list[socket.socket] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.sock.accept()
            except OSError:
                return
            self.open.append(connection)
            threading.Thread(target=self._handle, args=(connection,), daemon=True).start()

    def _handle(self, connection: socket.socket) -> None:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = connection.recv(65536)
            if not chunk:
                return
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        length = int(re.search(rb"content-length: *(\d+)", head, re.I).group(1)) if re.search(rb"content-length", head, re.I) else 0
        while len(body) < length:
            chunk = connection.recv(65536)
            if not chunk:
                return
            body += chunk
        self.requests += 1
        self.reply(head + b"\r\n\r\n" + body, connection)

    def close(self) -> None:
        self.sock.close()
        for connection in self.open:
            try:
                connection.close()
            except OSError:
                pass


def _html(request: bytes, connection: socket.socket) -> None:
    page = b"<!doctype html><html><body><h1>Welcome to nginx!</h1></body></html>"
    connection.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: %d\r\nconnection: close\r\n\r\n%s" % (len(page), page))
    connection.close()


def _dropped(request: bytes, connection: socket.socket) -> None:
    connection.sendall(b'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"data": {"stats": {')
    connection.shutdown(socket.SHUT_RDWR)
    connection.close()


def _silent(request: bytes, connection: socket.socket) -> None:
    """Reads the request and never answers (the connection stays open until the test ends)."""


@pytest.fixture
def html_server() -> Iterator[RawServer]:
    server = RawServer(_html)
    yield server
    server.close()


@pytest.fixture
def dropping_server() -> Iterator[RawServer]:
    server = RawServer(_dropped)
    yield server
    server.close()


@pytest.fixture
def silent_server() -> Iterator[RawServer]:
    server = RawServer(_silent)
    yield server
    server.close()


# Every operation the tests ran, per client kind; test_zz_every_operation.py checks none is left out.
CALLED: dict[str, set[str]] = {"sync": set(), "async": set()}


@pytest.fixture(scope="session", autouse=True)
def _record_operations() -> Iterator[None]:
    from symbiosis_memory import OPERATIONS, AsyncSymbiosisClient, SymbiosisClient

    names = {id(op): name for name, op in OPERATIONS.items()}
    sync_execute, async_execute = SymbiosisClient._execute, AsyncSymbiosisClient._execute

    def recording_sync(self, operation, variables):
        CALLED["sync"].add(names[id(operation)])
        return sync_execute(self, operation, variables)

    async def recording_async(self, operation, variables):
        CALLED["async"].add(names[id(operation)])
        return await async_execute(self, operation, variables)

    SymbiosisClient._execute = recording_sync  # the real call, noted
    AsyncSymbiosisClient._execute = recording_async
    yield
    SymbiosisClient._execute, AsyncSymbiosisClient._execute = sync_execute, async_execute


class Blocking:
    """An AsyncSymbiosisClient driven from a test's plain function: each coroutine runs to its end on
    one event loop of its own, so the same test body exercises both clients."""

    def __init__(self, client, loop) -> None:
        self._client, self._loop = client, loop

    def __getattr__(self, name: str):
        attribute = getattr(self._client, name)
        if name == "for_user":
            return lambda *args: Blocking(attribute(*args), self._loop)
        if not callable(attribute):
            return attribute
        return lambda *args, **kwargs: self._loop.run_until_complete(attribute(*args, **kwargs))

    def close(self) -> None:
        self._loop.run_until_complete(self._client.aclose())

    def __enter__(self):
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


@pytest.fixture(scope="module", params=["sync", "async"])
def kind(request) -> str:
    return request.param


@pytest.fixture(scope="module")
def connect(kind):
    """Makes a client of this run's kind (sync, or async driven to completion): connect(url, **options)."""
    import asyncio

    from symbiosis_memory import AsyncSymbiosisClient, SymbiosisClient

    loop = asyncio.new_event_loop() if kind == "async" else None

    def make(url: str, **options):
        return SymbiosisClient(url, **options) if kind == "sync" else Blocking(AsyncSymbiosisClient(url, **options), loop)

    yield make
    if loop:
        loop.close()
