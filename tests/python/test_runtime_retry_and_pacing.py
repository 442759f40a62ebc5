"""Backoff and Retry-After arithmetic, pacing on a fake clock, and the retry rules of both
the blocking and the async core."""

from __future__ import annotations

import asyncio
import datetime as dt
from email.utils import format_datetime
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest

from inspection_client._runtime import ApiError, CallOptions, RateLimit, RequestTimeoutError, TransportError
from inspection_client._runtime._async_pacing import AsyncPacer
from inspection_client._runtime._sync_pacing import Pacer
from inspection_client._runtime.retry import backoff, retry_after

from runtime_support import JSON, Recorder, Runner, fast, get, ok, post


# ---------------------------------------------------------------- backoff and Retry-After


def test_backoff_is_half_a_step_plus_jitter_and_capped() -> None:
    assert backoff(1, 0.25, 30, rand=lambda: 0.0) == 0.125
    assert backoff(1, 0.25, 30, rand=lambda: 1.0) == 0.25
    assert backoff(3, 0.25, 30, rand=lambda: 0.0) == 0.5
    assert backoff(30, 0.25, 30, rand=lambda: 1.0) == 30
    assert backoff(10_000, 0.25, 30, rand=lambda: 0.0) == 15
    for retry in range(1, 12):
        step = min(0.25 * 2 ** (retry - 1), 30)
        for _ in range(50):
            assert step / 2 <= backoff(retry, 0.25, 30) <= step


def test_retry_after_reads_seconds_and_http_dates() -> None:
    now = 1_800_000_000.0
    headers = httpx.Headers
    assert retry_after(headers({"Retry-After": "120"})) == 120
    assert retry_after(headers({"retry-after": " 0 "})) == 0
    when = format_datetime(dt.datetime.fromtimestamp(now + 90, dt.timezone.utc), usegmt=True)
    assert retry_after(headers({"retry-after": when}), now=lambda: now) == pytest.approx(90)
    past = format_datetime(dt.datetime.fromtimestamp(now - 90, dt.timezone.utc), usegmt=True)
    assert retry_after(headers({"retry-after": past}), now=lambda: now) == 0
    assert retry_after(headers({"retry-after": "soon"})) is None
    assert retry_after(headers({"retry-after": "-5"})) is None
    assert retry_after(headers({})) is None
    assert retry_after(headers({"x-wait": "7"}), "x-wait") == 7


# ---------------------------------------------------------------- pacing


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize("pacer_class", [Pacer, AsyncPacer])
def test_pacing_is_a_sliding_window_with_margin(pacer_class: Any) -> None:
    clock = FakeClock()
    pacer = pacer_class(RateLimit(3, 10), clock=clock)
    window = 10 * 1.002 + 0.020
    assert [pacer.reserve(100.0), pacer.reserve(101.0), pacer.reserve(102.0)] == [0, 0, 0]
    # The fourth waits for the first to leave the (0.2 % and 20 ms longer) window.
    assert pacer.reserve(103.0) == pytest.approx(100 + window - 103)
    assert pacer.reserve(100 + window - 0.001) == pytest.approx(0.001)
    # (A nanosecond later: `100 + window - 100` need not be `window` in floating point.)
    assert pacer.reserve(100 + window + 1e-9) == 0
    # The window slides: the second send (101) still counts.
    assert pacer.reserve(100 + window) == pytest.approx(101 + window - (100 + window))
    assert pacer.reserve(102 + window + 1e-9) == 0


def test_pause_holds_every_request_and_only_grows() -> None:
    clock = FakeClock()
    pacer = Pacer(None, clock=clock)
    assert pacer.reserve(clock.now) == 0
    pacer.pause_for(5)
    pacer.pause_for(1)
    assert pacer.reserve(clock.now) == pytest.approx(5)
    assert pacer.reserve(clock.now + 4) == pytest.approx(1)
    assert pacer.reserve(clock.now + 5) == 0


def test_acquire_sleeps_until_the_window_frees() -> None:
    import time

    limit = RateLimit(2, 0.05)
    sync_pacer = Pacer(limit)
    start = time.monotonic()
    for _ in range(3):
        sync_pacer.acquire()
    assert time.monotonic() - start >= 0.05

    async def go() -> float:
        pacer = AsyncPacer(limit)
        begin = time.monotonic()
        await asyncio.gather(*(pacer.acquire() for _ in range(3)))
        await pacer.pause_for(0.03)
        await pacer.acquire()
        return time.monotonic() - begin

    assert asyncio.run(go()) >= 0.08


# ---------------------------------------------------------------- retry rules (both clients)


def test_a_get_is_retried_after_a_5xx(runner: Runner) -> None:
    rec = Recorder(ok(status=500), ok(status=503), ok())
    core = runner.core(rec)
    assert runner.run(core.json, JSON, get()) == {"id": "u1"}
    assert rec.methods == ["GET", "GET", "GET"]


def test_a_post_is_never_retried_after_a_5xx(runner: Runner) -> None:
    rec = Recorder(ok(status=500), ok(status=201))
    with pytest.raises(ApiError) as caught:
        runner.run(runner.core(rec).json, JSON, post())
    assert caught.value.status == 500 and len(rec.requests) == 1


def test_a_timed_out_post_is_not_retried_but_a_get_is(runner: Runner) -> None:
    rec = Recorder(httpx.ReadTimeout("slow"), ok())
    with pytest.raises(RequestTimeoutError):
        runner.run(runner.core(rec).json, JSON, post())
    assert len(rec.requests) == 1
    rec = Recorder(httpx.ReadTimeout("slow"), ok())
    assert runner.run(runner.core(rec).json, JSON, get()) == {"id": "u1"}
    assert len(rec.requests) == 2


def test_a_broken_connection_retries_a_post_only_when_refused(runner: Runner) -> None:
    refused = httpx.ConnectError("connect failed")
    refused.__cause__ = ConnectionRefusedError(111, "Connection refused")
    rec = Recorder(refused, ok(status=201))
    assert runner.run(runner.core(rec).json, JSON, post()) == {"id": "u1"}
    assert rec.methods == ["POST", "POST"]
    rec = Recorder(httpx.RemoteProtocolError("server disconnected"), ok(status=201))
    with pytest.raises(TransportError) as caught:
        runner.run(runner.core(rec).json, JSON, post())
    assert "server disconnected" in str(caught.value) and len(rec.requests) == 1


def test_a_429_is_retried_for_any_method(runner: Runner) -> None:
    rec = Recorder(ok({"errors": "slow"}, status=429, **{"retry-after": "0"}), ok(status=201))
    assert runner.run(runner.core(rec).json, JSON, post()) == {"id": "u1"}
    assert rec.methods == ["POST", "POST"]


def test_a_retry_after_beyond_the_longest_wait_fails_at_once(runner: Runner) -> None:
    rec = Recorder(ok({"errors": "slow"}, status=429, **{"retry-after": "120"}), ok())
    with pytest.raises(ApiError) as caught:
        runner.run(runner.core(rec, options=fast(max_backoff=5)).json, JSON, get())
    assert caught.value.retry_after == 120 and caught.value.message == "slow"
    assert len(rec.requests) == 1


def test_retries_stop_after_max_attempts_also_per_call(runner: Runner) -> None:
    rec = Recorder(ok(status=503))
    with pytest.raises(ApiError):
        runner.run(runner.core(rec, options=fast(max_attempts=3)).json, JSON, get())
    assert len(rec.requests) == 3
    rec = Recorder(ok(status=503))
    with pytest.raises(ApiError):
        runner.run(runner.core(rec).json, JSON, get(), CallOptions(max_attempts=1))
    assert len(rec.requests) == 1


def test_a_429_without_retry_after_waits_the_backoff(runner: Runner) -> None:
    import time

    rec = Recorder(ok(status=429), ok())
    core = runner.core(rec, options=fast(initial_backoff=0.2, max_backoff=0.2))
    # Without Retry-After the pause is the backoff (0.1 to 0.2 s with its jitter).
    start = time.monotonic()
    runner.run(core.json, JSON, get())
    assert time.monotonic() - start >= 0.1
    assert len(rec.requests) == 2


def test_one_blocking_pacer_paces_every_thread_together() -> None:
    import threading
    import time

    limit = RateLimit(4, 0.1)
    pacer = Pacer(limit)
    sent: list[float] = []
    guard = threading.Lock()

    def worker() -> None:
        for _ in range(3):
            pacer.acquire()
            with guard:
                sent.append(time.monotonic())

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    sent.sort()
    assert len(sent) == 12
    # No window of the documented length saw more than the limit, across all threads.
    for i in range(len(sent) - limit.requests):
        assert sent[i + limit.requests] - sent[i] >= limit.window_seconds * 0.99


def test_an_answer_that_drips_in_cannot_hold_an_attempt_past_its_timeout(runner: Runner) -> None:
    """Each read arrives within the timeout, but the whole answer would take 1 s: the
    attempt ends at its timeout (0.2 s), as in the other clients."""
    import time

    chunks = [b'{"id":', b' "u1"', b"}"] + [b" "] * 20

    class Drip(httpx.SyncByteStream):
        def __iter__(self) -> Iterator[bytes]:
            for c in chunks:
                time.sleep(0.05)
                yield c

    class AsyncDrip(httpx.AsyncByteStream):
        async def __aiter__(self) -> AsyncIterator[bytes]:
            for c in chunks:
                await asyncio.sleep(0.05)
                yield c

    def answer(request: httpx.Request) -> httpx.Response:
        stream: httpx.SyncByteStream | httpx.AsyncByteStream = Drip() if runner.kind == "sync" else AsyncDrip()
        return httpx.Response(200, stream=stream)

    core = runner.core(Recorder(answer), options=fast(timeout=0.2, max_attempts=1))
    start = time.monotonic()
    with pytest.raises(RequestTimeoutError):
        runner.run(core.json, JSON, get())
    assert time.monotonic() - start < 0.6
