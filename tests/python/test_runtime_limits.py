"""Bounded reads and waits: a success body is read up to max_response_bytes and no
further, an error body's first max_error_bytes only, downloads go to a writer in bounded
memory whatever their size, and waits too long for the clock (a Retry-After of 400
digits, windows and timeouts of 1e300 s) end at once or wait without crashing."""

from __future__ import annotations

import asyncio
import http.server
import io
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest

from inspection_client._runtime import (
    ApiError,
    AsyncCore,
    ClientOptions,
    ConfigError,
    Core,
    NotReadyError,
    RateLimit,
    TooLargeError,
    TransportError,
)
from inspection_client._runtime import _async_pacing, _sync_pacing
from inspection_client._runtime.retry import FOREVER, retry_after

from runtime_support import INFO, JSON, KEYS, SIGNATURE, Recorder, Runner, fast, get

CHUNK = 1024
# Past this an "endless" body fails the test, so a client that reads on does not hang it.
CAP = 4 << 20
PRESIGNED = f"https://storage.example.test/bucket/form.pdf?X-Amz-Signature={SIGNATURE}"


class Body(httpx.SyncByteStream, httpx.AsyncByteStream):
    """A response body for both clients, a chunk at a time, counting what the client
    pulled: endless (``size=None``, up to ``CAP``) or ``size`` bytes; ``broken_after``
    bytes, then the connection breaks."""

    def __init__(self, size: int | None = None, fill: bytes = b"x", broken_after: int | None = None) -> None:
        self.size = size
        self.fill = fill
        self.broken_after = broken_after
        self.pulled = 0

    def _next(self) -> bytes | None:
        if self.broken_after is not None and self.pulled >= self.broken_after:
            raise httpx.ReadError("the connection broke")
        if self.pulled >= CAP:
            raise AssertionError(f"the client read {self.pulled} bytes of an endless body")
        left = CHUNK if self.size is None else min(CHUNK, self.size - self.pulled)
        if left <= 0:
            return None
        self.pulled += left
        return self.fill * left

    def __iter__(self) -> Iterator[bytes]:
        while (chunk := self._next()) is not None:
            yield chunk

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while (chunk := self._next()) is not None:
            yield chunk


def answer(body: Body, status: int = 200, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(status, stream=body, headers=headers)


def pdf() -> Any:
    return get("/inspections/{inspection_id}", "inspections", accept="application/pdf", poll=True)


# ---------------------------------------------------------------- success bodies


def test_an_endless_success_body_is_cut_at_the_limit(runner: Runner) -> None:
    body = Body()
    started = time.monotonic()
    with pytest.raises(TooLargeError) as caught:
        runner.run(runner.core(Recorder(answer(body)), options=fast(max_response_bytes=10 * CHUNK)).json, JSON, get())
    # Reading stopped at the first chunk past the limit; not retried.
    assert body.pulled == 11 * CHUNK and time.monotonic() - started < 2
    assert caught.value.limit == 10 * CHUNK and "10240 bytes" in str(caught.value)
    assert caught.value.operation == "GET /units/{unit_id}"


def test_an_announced_length_over_the_limit_is_refused_unread(runner: Runner) -> None:
    body = Body(size=4 * CHUNK)
    rec = Recorder(answer(body, headers={"content-length": str(4 * CHUNK)}))
    with pytest.raises(TooLargeError):
        runner.run(runner.core(rec, options=fast(max_response_bytes=CHUNK)).bytes, pdf())
    assert body.pulled == 0 and len(rec.requests) == 1
    # A length of more digits than any size has is refused the same way.
    huge = Body(size=CHUNK)
    with pytest.raises(TooLargeError):
        runner.run(runner.core(Recorder(answer(huge, headers={"content-length": "9" * 5000}))).bytes, pdf())
    assert huge.pulled == 0
    # Within the limit, the body is read whole.
    fits = runner.run(runner.core(Recorder(answer(Body(size=CHUNK)))).bytes, pdf())
    assert fits == b"x" * CHUNK


def test_an_endless_error_body_is_read_up_to_max_error_bytes(runner: Runner) -> None:
    body = Body(fill=b"e")
    rec = Recorder(answer(body, status=400, headers={"content-type": "text/plain"}))
    with pytest.raises(ApiError) as caught:
        runner.run(runner.core(rec, options=fast(max_error_bytes=3 * CHUNK)).json, JSON, get())
    assert body.pulled == 3 * CHUNK
    assert caught.value.status == 400 and caught.value.message is not None
    assert caught.value.message.startswith("eee")


def test_a_download_over_the_limit_goes_to_a_writer(runner: Runner) -> None:
    size = 50 * CHUNK + 7
    out = io.BytesIO()
    rec = Recorder(httpx.Response(202, headers={"retry-after": "0"}), answer(Body(size=size, fill=b"p")))
    written = runner.run(runner.core(rec, options=fast(max_response_bytes=CHUNK)).download, pdf(), out)
    assert written == size and out.getvalue() == b"p" * size
    assert [r.headers["accept"] for r in rec.requests] == ["application/pdf"] * 2
    # The same answer read into memory is over the limit.
    with pytest.raises(TooLargeError):
        runner.run(runner.core(Recorder(answer(Body(size=size))), options=fast(max_response_bytes=CHUNK)).bytes, pdf())


def test_a_download_that_breaks_off_is_not_asked_again(runner: Runner) -> None:
    out = io.BytesIO()
    rec = Recorder(answer(Body(size=10 * CHUNK, broken_after=2 * CHUNK)))
    with pytest.raises(TransportError, match="broke off"):
        runner.run(runner.core(rec).download, pdf(), out)
    assert len(rec.requests) == 1 and out.getvalue() == b"x" * (2 * CHUNK)


def test_the_async_client_awaits_an_async_writer_and_the_blocking_one_refuses_it() -> None:
    class AsyncWriter:
        def __init__(self) -> None:
            self.data = bytearray()

        async def write(self, data: bytes) -> int:
            await asyncio.sleep(0)
            self.data += data
            return len(data)

    size = 5 * CHUNK
    handler = Recorder(answer(Body(size=size)))
    out = AsyncWriter()

    async def go() -> int:
        async with AsyncCore("https://api.example.test/v3", INFO, KEYS, fast(transport=httpx.MockTransport(handler))) as core:
            return await core.download(pdf(), out)

    assert asyncio.run(go()) == size and bytes(out.data) == b"x" * size
    core = Core("https://api.example.test/v3", INFO, KEYS, fast(transport=httpx.MockTransport(handler)))
    with pytest.raises(ConfigError, match="coroutine"):
        core.download(pdf(), AsyncWriter())
    core.close()


def test_a_presigned_download_over_the_limit(runner: Runner) -> None:
    size = 20 * CHUNK
    core = runner.core(Recorder(answer(Body(size=size))), options=fast(max_response_bytes=CHUNK))
    with pytest.raises(TooLargeError) as caught:
        runner.run(core.fetch_presigned, PRESIGNED)
    assert SIGNATURE not in str(caught.value) and "storage.example.test/bucket/form.pdf" in str(caught.value)
    out = io.BytesIO()
    core = runner.core(Recorder(answer(Body(size=size))), options=fast(max_response_bytes=CHUNK))
    assert runner.run(core.fetch_presigned_to, PRESIGNED, out) == size and len(out.getvalue()) == size
    # An error body from the storage: its first max_error_bytes only.
    body = Body(fill=b"s")
    core = runner.core(Recorder(answer(body, status=403)), options=fast(max_error_bytes=CHUNK))
    with pytest.raises(ApiError):
        runner.run(core.fetch_presigned_to, PRESIGNED, io.BytesIO())
    assert body.pulled == CHUNK


# ---------------------------------------------------------------- waits


HUGE = "1" + "0" * 400
"""A Retry-After of 401 digits: float(int(...)) raises OverflowError."""


def test_retry_after_beyond_a_float_is_endless() -> None:
    assert retry_after(httpx.Headers({"retry-after": HUGE})) == float("inf")
    # More digits than int() reads (4,300).
    assert retry_after(httpx.Headers({"retry-after": "9" * 5000})) == float("inf")


@pytest.mark.parametrize("value", [HUGE, "9" * 5000, "99999999999999999999999"])
def test_a_202_asking_beyond_the_longest_wait_ends_polling_at_once(runner: Runner, value: str) -> None:
    rec = Recorder(httpx.Response(202, headers={"retry-after": value}), httpx.Response(200, content=b"%PDF"))
    started = time.monotonic()
    with pytest.raises(NotReadyError) as caught:
        runner.run(runner.core(rec).bytes, pdf())
    assert time.monotonic() - started < 1 and len(rec.requests) == 1
    error = caught.value
    assert error.attempts == 1 and error.retry_after is not None and error.retry_after > 1e22
    assert "longer than the client waits" in str(error) and repr(error)


def test_a_429_asking_beyond_a_float_fails_at_once(runner: Runner) -> None:
    rec = Recorder(httpx.Response(429, headers={"retry-after": HUGE}), httpx.Response(200, json={}))
    started = time.monotonic()
    with pytest.raises(ApiError) as caught:
        runner.run(runner.core(rec).json, JSON, get())
    assert time.monotonic() - started < 1 and len(rec.requests) == 1
    assert caught.value.retry_after == float("inf") and "retry after more than" in str(caught.value)


class _Json(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def local_server() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Json)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v3"
    finally:
        server.shutdown()
        server.server_close()


def test_huge_timeouts_windows_and_backoffs_do_not_raise(local_server: str, runner: Runner) -> None:
    # A socket timeout of 1e300 s raises OverflowError: it is taken as none.
    options = ClientOptions(
        timeout=1e300,
        max_backoff=1e300,
        initial_backoff=1e300,
        poll_interval=1e300,
        rate_limit=RateLimit(5, 1e308),
    )
    if runner.kind == "sync":
        with Core(local_server, INFO, KEYS, options) as core:
            assert core.json(JSON, get()) == {}
        return

    async def go() -> object:
        async with AsyncCore(local_server, INFO, KEYS, options) as core:
            return await core.json(JSON, get())

    assert asyncio.run(go()) == {}


def test_waits_too_long_for_the_clock_sleep_a_day_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []

    class Enough(Exception):
        pass

    def sleep(seconds: float) -> None:
        # time.sleep(1e10) raises OverflowError: nothing that long may reach it.
        assert seconds <= FOREVER
        slept.append(seconds)
        if len(slept) == 3:
            raise Enough

    monkeypatch.setattr(time, "sleep", sleep)
    with pytest.raises(Enough):
        _sync_pacing.pause(float("inf"))
    slept.clear()
    with pytest.raises(Enough):
        _sync_pacing.pause(1e300)

    async def asleep(seconds: float) -> None:
        sleep(seconds)

    monkeypatch.setattr(asyncio, "sleep", asleep)
    slept.clear()
    with pytest.raises(Enough):
        asyncio.run(_async_pacing.pause(1e300))
    # A pacer whose window is too long to end: the second request waits, without raising.
    pacer = _sync_pacing.Pacer(RateLimit(1, 1e308))
    pacer.acquire()
    slept.clear()
    with pytest.raises(Enough):
        pacer.acquire()
