"""The client actions of webhook deliveries: ``listen`` starts an HTTP listener (a thread of
its own, so the blocking and the async flavour share it) and registers it with the
sandbox; ``deliveries`` waits for what it received, then verifies each delivery with
``inspection_client.verify_webhook`` and parses it with the interface's ``parse_event``."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from inspection_client import legacy, v3, verify_webhook

from conformance.calls import Args
from conformance.driver import Driver, attempt
from conformance.json_values import ABSENT, JsonObject, RunnerError, is_number, mapping, opt_string, show
from conformance.results import Outcome
from conformance.sandbox import Sandbox
from conformance.scenarios import Interface


@dataclass(frozen=True)
class Delivery:
    """One POST the listener received: its headers (lowercase names, a repeated one joined
    with ``, ``) and its raw body."""

    headers: dict[str, str]
    body: bytes


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, listener: Listener) -> None:
        self.listener = listener
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _Handler)

    def get_request(self) -> tuple[socket.socket, Any]:
        connection, address = super().get_request()
        with self.connections_lock:
            self.connections.add(connection)
        return connection, address

    def shutdown_request(self, request: socket.socket | tuple[bytes, socket.socket]) -> None:
        if isinstance(request, socket.socket):
            with self.connections_lock:
                self.connections.discard(request)
        super().shutdown_request(request)

    def drop_connections(self) -> None:
        """Ends the connections still open (the sandbox keeps them alive)."""
        with self.connections_lock:
            open_now = list(self.connections)
        for connection in open_now:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # An idle kept-alive connection ends after this long, whatever happens to the listener.
    timeout = 30

    def do_POST(self) -> None:
        server = self.server
        if not isinstance(server, _Server):
            raise RuntimeError("the handler runs in a listener's server")
        body = self._body()
        headers: dict[str, str] = {}
        for name, value in self.headers.items():
            key = name.lower()
            headers[key] = f"{headers[key]}, {value}" if key in headers else value
        server.listener.record(Delivery(headers=headers, body=body))
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def _refuse(self) -> None:
        self.send_response(405)
        self.send_header("allow", "POST")
        self.send_header("content-length", "0")
        self.end_headers()

    do_GET = do_PUT = do_PATCH = do_DELETE = _refuse

    def _body(self) -> bytes:
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            out = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    # The trailer, up to its empty line.
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return bytes(out)
                out += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length)

    def log_message(self, format: str, *args: object) -> None:
        pass


class Listener:
    """An HTTP listener on 127.0.0.1 (a free port) that answers every POST 200 and records
    it, serving from a thread until ``stop``."""

    def __init__(self) -> None:
        self._deliveries: list[Delivery] = []
        self._changed = threading.Condition()
        self._server = _Server(self)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/hook"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    def record(self, delivery: Delivery) -> None:
        with self._changed:
            self._deliveries.append(delivery)
            self._changed.notify_all()

    def received(self) -> list[Delivery]:
        with self._changed:
            return list(self._deliveries)

    async def wait_for(self, driver: Driver, count: int, timeout_s: float) -> list[Delivery]:
        """What came once `count` deliveries did, or when `timeout_s` passed: the blocking
        flavour waits on the thread's notice, the async one polls without blocking its loop."""
        if driver.is_async:
            deadline = time.monotonic() + timeout_s
            while len(self.received()) < count and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            return self.received()
        with self._changed:
            self._changed.wait_for(lambda: len(self._deliveries) >= count, timeout_s)
            return list(self._deliveries)

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._server.drop_connections()
        self._thread.join(timeout=5)


def header_arg(a: Args, key: str) -> tuple[str, str] | None:
    """`{name, value}` of `args.<key>` (a header), or None when not given."""
    v = a.take(key)
    if v is ABSENT:
        return None
    m = mapping(v, f"`args.{key}`", ["name", "value"])
    name = opt_string(m, "name", f"args.{key}")
    value = opt_string(m, "value", f"args.{key}")
    if name is None or value is None:
        raise RunnerError(f"`args.{key}` needs `name` and `value`")
    return name, value


def listen(sandbox: Sandbox, interface: Interface, a: Args) -> Listener:
    """`listen {header}`: a listener, registered with the sandbox for the interface. The
    caller keeps it (and stops it) before the registration, which may fail."""
    header = header_arg(a, "header")
    a.finish()
    listener = Listener()
    registration: JsonObject = {"interface": interface, "url": listener.url}
    if header is not None:
        registration["header"] = {"name": header[0], "value": header[1]}
    try:
        sandbox.control("POST", "/_sandbox/webhooks", registration)
    except BaseException:
        listener.stop()
        raise
    return listener


async def deliveries(driver: Driver, interface: Interface, listener: Listener | None, a: Args) -> Outcome:
    """`deliveries {count, timeout_ms, verify}`: waits for exactly `count` deliveries, then
    verifies and parses each in order; the events written back, or the first error."""
    count = a.take("count")
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        raise RunnerError(f"`args.count` is a whole number, not {show(count)}")
    given = a.take("timeout_ms")
    timeout_ms = 5_000 if given is ABSENT else given
    if not is_number(timeout_ms):
        raise RunnerError(f"`args.timeout_ms` is a number, not {show(timeout_ms)}")
    verify = header_arg(a, "verify")
    a.finish()
    if listener is None:
        raise RunnerError("`deliveries` needs a `listen` step before it")
    came = await listener.wait_for(driver, count, timeout_ms / 1000)
    if len(came) != count:
        raise RunnerError(
            f"expected {count} deliveries, the listener received {len(came)} within {timeout_ms:g} ms"
        )

    async def parse_all() -> list[object]:
        events: list[object] = []
        for delivery in came:
            if verify is not None:
                verify_webhook(delivery.headers, verify[0], verify[1])
            if interface == "v3":
                events.append(v3.parse_event(delivery.body))
            else:
                events.append(legacy.parse_event(delivery.body))
        return events

    return await attempt(parse_all)
