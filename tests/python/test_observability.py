"""What the clients report: the ``inspection_client`` logger's records against the sandbox
(an injected 503, a timeout, a token re-login: one DEBUG record per attempt answered, a
WARNING per retry, the path template, never a secret), and the hooks' events through the
cores (a hook that raises, nothing built when nothing listens, a 429's wait, a walk that
stalls, an answer too large)."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import httpx
import pytest

from inspection_client import (
    ApiError,
    ClientOptions,
    ConfigError,
    DecodeError,
    ErrorEvent,
    Event,
    Hooks,
    PageEvent,
    PagingInterruptedError,
    PagingStalledError,
    PauseEvent,
    RequestEvent,
    RequestTimeoutError,
    ResponseEvent,
    RetryEvent,
    Secret,
    TooLargeError,
    TransportError,
    error_type,
    legacy,
    v3,
)
from inspection_client import RateLimit
from inspection_client._runtime import AsyncCore
from inspection_client._runtime import events as events_module

from conformance.sandbox import Sandbox, Sandboxes
from conformance.scenarios import SandboxSpec
from runtime_support import BASE, INFO, JSON, KEYS, Recorder, Runner, fast, get, ok
from test_runtime_paging import CURSOR_PLAN, page

T = TypeVar("T")

FLAVOURS = ["sync", "async"]
KEY = ("demo-key", "demo-secret")
LOGIN = ("user@example.com", "user-pass")


def fresh(sandboxes: Sandboxes) -> Sandbox:
    """The session's sandbox without its rate limit, reset."""
    sandbox = sandboxes.get(SandboxSpec(args=("--rate-limit", "off")))
    sandbox.control("POST", "/_sandbox/reset")
    return sandbox


def sandbox_options(**kw: Any) -> ClientOptions:
    settings: dict[str, Any] = dict(rate_limit=None, initial_backoff=0.01, max_backoff=1.0, poll_interval=0.01)
    settings.update(kw)
    return ClientOptions(**settings)


def with_v3(flavour: str, origin: str, options: ClientOptions, work: Callable[[Any], Any]) -> Any:
    """`work(client)` with a blocking or an async v3 client (awaited for the latter)."""
    key = v3.ApiKey(*KEY)
    if flavour == "sync":
        with v3.Client(f"{origin}/v3", key, options=options) as client:
            return work(client)

    async def go() -> Any:
        async with v3.AsyncClient(f"{origin}/v3", key, options=options) as client:
            return await work(client)

    return asyncio.run(go())


def records_of(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "inspection_client"]


def extras(record: logging.LogRecord) -> dict[str, Any]:
    """The event's fields a record carries (`inspection_*`)."""
    return {k: v for k, v in record.__dict__.items() if k.startswith("inspection_")}


def assert_shows_none(records: list[logging.LogRecord], words: set[str]) -> None:
    assert records
    for record in records:
        shown = [record.getMessage(), *(str(v) for v in extras(record).values())]
        for word in words:
            assert all(word not in text for text in shown), (word, record.getMessage(), extras(record))


# ---------------------------------------------------------------- the logger, against the sandbox


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_the_logger_writes_a_record_per_attempt_and_warns_of_each_retry(
    sandboxes: Sandboxes, flavour: str, caplog: pytest.LogCaptureFixture
) -> None:
    sandbox = fresh(sandboxes)
    sandbox.control(
        "POST",
        "/_sandbox/script",
        {"method": "GET", "path": "/v3/units/unt_001", "status": 503, "times": 2, "headers": {"x-request-id": "req-7"}},
    )
    with caplog.at_level(logging.DEBUG, logger="inspection_client"):
        unit = with_v3(flavour, sandbox.origin, sandbox_options(), lambda c: c.get_unit(v3.UnitId("unt_001")))
    assert unit.id == "unt_001"
    records = records_of(caplog)
    answered = [r for r in records if r.levelno == logging.DEBUG]
    retries = [r for r in records if r.levelno == logging.WARNING]
    assert len(records) == 5 and len(answered) == 3 and len(retries) == 2
    assert [r.getMessage().split(" in ")[0] for r in answered] == [
        "GET /units/{unit_id} attempt 1: 503",
        "GET /units/{unit_id} attempt 2: 503",
        "GET /units/{unit_id} attempt 3: 200",
    ]
    assert all(re.fullmatch(r".*: [0-9]{3} in [0-9]+ ms", r.getMessage()) for r in answered)
    assert [extras(r)["inspection_event"] for r in answered] == ["response"] * 3
    assert [extras(r)["inspection_request_id"] for r in answered] == ["req-7", "req-7", None]
    assert all(extras(r)["inspection_url_template"] == "/units/{unit_id}" for r in answered)
    assert all(extras(r)["inspection_operation"] == "get_unit" for r in records)
    for i, r in enumerate(retries, start=1):
        assert extras(r)["inspection_event"] == "retry"
        assert extras(r)["inspection_attempt"] == i and extras(r)["inspection_reason"] == "status"
        assert extras(r)["inspection_status"] == 503 and extras(r)["inspection_retry_after"] is False
        assert f"GET /units/{{unit_id}} attempt {i} failed (status 503); retrying in " in r.getMessage()
    # The template, never the id; never the key.
    assert_shows_none(records, {"unt_001", KEY[0], KEY[1]})


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_timed_out_attempt_is_a_warning_naming_the_timeout(
    sandboxes: Sandboxes, flavour: str, caplog: pytest.LogCaptureFixture
) -> None:
    sandbox = fresh(sandboxes)
    sandbox.control("POST", "/_sandbox/script", {"method": "GET", "path": "/v3/units/unt_002", "delay_ms": 1000})
    with caplog.at_level(logging.DEBUG, logger="inspection_client"):
        unit = with_v3(flavour, sandbox.origin, sandbox_options(timeout=0.2), lambda c: c.get_unit(v3.UnitId("unt_002")))
    assert unit.id == "unt_002"
    records = records_of(caplog)
    (retry,) = [r for r in records if r.levelno == logging.WARNING]
    assert "GET /units/{unit_id} attempt 1 failed (timeout); retrying in " in retry.getMessage()
    assert extras(retry)["inspection_reason"] == "timeout" and extras(retry)["inspection_status"] is None
    # The timed-out attempt had no answer: one record for the second.
    assert [r.getMessage().split(" in ")[0] for r in records if r.levelno == logging.DEBUG] == [
        "GET /units/{unit_id} attempt 2: 200"
    ]
    assert_shows_none(records, {"unt_002", KEY[1]})


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_no_password_or_token_in_any_record_of_a_login_and_a_re_login(
    sandboxes: Sandboxes, flavour: str, caplog: pytest.LogCaptureFixture
) -> None:
    sandbox = fresh(sandboxes)
    credentials = legacy.AuthenticateRequest(user=legacy.Credentials(username=LOGIN[0], password=Secret(LOGIN[1])))
    options = sandbox_options()

    def blocking() -> None:
        with legacy.Client.login(sandbox.origin, credentials, options=options) as client:
            sandbox.control("POST", "/_sandbox/legacy/revoke_tokens")
            client.list_locations().first()

    async def in_a_loop() -> None:
        async with await legacy.AsyncClient.login(sandbox.origin, credentials, options=options) as client:
            sandbox.control("POST", "/_sandbox/legacy/revoke_tokens")
            await client.list_locations().first()

    with caplog.at_level(logging.DEBUG, logger="inspection_client"):
        if flavour == "sync":
            blocking()
        else:
            asyncio.run(in_a_loop())
    records = records_of(caplog)
    answered = [(extras(r)["inspection_operation"], extras(r)["inspection_attempt"], extras(r)["inspection_status"]) for r in records]
    # The 401 is answered, the login sent, and the request sent again as attempt 2.
    assert answered == [
        ("authenticate", 1, 200),
        ("list_locations", 1, 401),
        ("authenticate", 1, 200),
        ("list_locations", 2, 200),
    ]
    recorded = sandbox.control("GET", "/_sandbox/requests")
    assert isinstance(recorded, list)
    tokens = set()
    for request in recorded:
        assert isinstance(request, dict) and isinstance(request["headers"], dict)
        authorization = request["headers"].get("authorization")
        if isinstance(authorization, str):
            tokens.add(authorization.split(" ", 1)[1])
    assert len(tokens) == 2, recorded
    assert_shows_none(records, {LOGIN[1], *tokens})


# ---------------------------------------------------------------- the hooks, through the cores


class Collected:
    """Hooks that keep every event, in order."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def keep(self, event: Event) -> None:
        self.events.append(event)

    def hooks(self) -> Hooks:
        k = self.keep
        return Hooks(on_request=k, on_response=k, on_retry=k, on_pause=k, on_page=k, on_error=k)

    def kinds(self) -> list[str]:
        return [type(e).__name__.removesuffix("Event").lower() for e in self.events]


def test_the_events_of_an_attempt_hold_its_fields(runner: Runner) -> None:
    seen = Collected()
    rec = Recorder(httpx.Response(200, json={"id": "u1"}, headers={"x-request-id": "abc"}))
    core = runner.core(rec, options=fast(hooks=seen.hooks()))
    runner.run(core.json, JSON, get())
    request, response = seen.events
    assert request == RequestEvent(
        operation="op",
        method="GET",
        url_template="/units/{unit_id}",
        attempt=1,
        server_address="api.example.test",
        server_port=443,
    )
    assert isinstance(response, ResponseEvent)
    assert (response.operation, response.method, response.url_template) == ("op", "GET", "/units/{unit_id}")
    assert (response.attempt, response.status, response.request_id) == (1, 200, "abc")
    assert response.duration_ms >= 0
    with pytest.raises(AttributeError):
        response.status = 500  # type: ignore[misc]


def test_a_hook_that_raises_does_not_break_the_call(runner: Runner, caplog: pytest.LogCaptureFixture) -> None:
    def broken(event: object) -> None:
        raise RuntimeError("a bug in the hook")

    core = runner.core(Recorder(ok()), options=fast(hooks=Hooks(on_request=broken, on_response=broken)))
    with caplog.at_level(logging.DEBUG, logger="inspection_client"):
        assert runner.run(core.json, JSON, get()) == {"id": "u1"}
    failures = [r for r in records_of(caplog) if "hook raised" in r.getMessage()]
    assert len(failures) == 2 and all(r.levelno == logging.DEBUG and r.exc_info for r in failures)


def test_nothing_is_built_when_nothing_listens(
    runner: Runner, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    built: list[str] = []
    for name in ("RequestEvent", "ResponseEvent", "RetryEvent", "PauseEvent", "PageEvent", "ErrorEvent"):
        real = getattr(events_module, name)

        def counting(*args: Any, _real: Any = real, **kw: Any) -> Any:
            built.append(_real.__name__)
            return _real(*args, **kw)

        monkeypatch.setattr(events_module, name, counting)

    def calls() -> None:
        # A retry, a 202 polled, a walk of a page, a failure.
        rec = Recorder(ok(status=503), ok(), ok(status=202), ok(), page(["a"], next=None), ok(status=404))
        core = runner.core(rec, options=fast())
        runner.run(core.json, JSON, get())
        runner.run(core.json, JSON, get(poll=True))
        assert runner.collect(core.paged(CURSOR_PLAN, get())) == [{"id": "a"}]
        with pytest.raises(Exception):
            runner.run(core.json, JSON, get())

    caplog.set_level(logging.ERROR, logger="inspection_client")
    calls()
    assert built == []
    # The same calls with the logger at DEBUG build them (so the count above could fail).
    caplog.set_level(logging.DEBUG, logger="inspection_client")
    calls()
    assert set(built) == {"ResponseEvent", "RetryEvent", "PauseEvent", "PageEvent", "ErrorEvent"}


def test_a_429_wait_is_the_retry_s_not_a_pause(runner: Runner) -> None:
    seen = Collected()
    rec = Recorder(ok(status=429, **{"retry-after": "1"}), ok())
    core = runner.core(rec, options=fast(max_backoff=2.0, hooks=seen.hooks()))
    runner.run(core.json, JSON, get())
    assert seen.kinds() == ["request", "response", "retry", "request", "response"]
    retry = seen.events[2]
    assert retry == RetryEvent(operation="op", attempt=1, reason="status", status=429, wait_ms=1000.0, retry_after=True)


def test_the_client_s_own_pacing_is_a_pause_only_when_it_waits(runner: Runner) -> None:
    seen = Collected()
    core = runner.core(Recorder(ok()), options=fast(rate_limit=RateLimit(1, 0.2), hooks=seen.hooks()))
    runner.run(core.json, JSON, get())
    assert seen.kinds() == ["request", "response"]
    runner.run(core.json, JSON, get())
    assert seen.kinds() == ["request", "response", "pause", "request", "response"]
    pause = seen.events[2]
    # The window of 200 ms with its margin (0.2 % and 20 ms): 220.4 ms at most.
    assert isinstance(pause, PauseEvent) and pause.reason == "rate_limit" and 100 < pause.wait_ms <= 221


def test_a_walk_reports_its_pages_and_the_stall_that_ends_it(runner: Runner) -> None:
    seen = Collected()
    rec = Recorder(page(["a", "b"], cursor="C1"), page(["c"], cursor="C1"))
    core = runner.core(rec, options=fast(hooks=seen.hooks()))
    items, error = runner.collect_until_error(core.paged(CURSOR_PLAN, get("/units", "units")))
    assert items == [{"id": "a"}, {"id": "b"}, {"id": "c"}] and isinstance(error, PagingStalledError)
    assert seen.kinds() == ["request", "response", "page", "request", "response", "page", "error"]
    assert [e for e in seen.events if isinstance(e, PageEvent)] == [
        PageEvent(operation="op", page=1, items=2),
        PageEvent(operation="op", page=2, items=1),
    ]
    assert seen.events[-1] == ErrorEvent(operation="op", error_type="paging_stalled", status=None, attempt=1)


def test_an_answer_refused_by_the_client_is_answered_then_an_error(runner: Runner) -> None:
    seen = Collected()
    core = runner.core(Recorder(ok({"id": "x" * 100})), options=fast(max_response_bytes=10, hooks=seen.hooks()))
    with pytest.raises(TooLargeError):
        runner.run(core.json, JSON, get())
    assert seen.kinds() == ["request", "response", "error"]
    assert seen.events[-1] == ErrorEvent(operation="op", error_type="too_large", status=None, attempt=1)


def test_a_failure_for_good_names_its_kind_status_and_last_attempt(runner: Runner) -> None:
    seen = Collected()
    core = runner.core(Recorder(ok(status=503)), options=fast(max_attempts=3, hooks=seen.hooks()))
    with pytest.raises(Exception):
        runner.run(core.json, JSON, get())
    assert seen.events[-1] == ErrorEvent(operation="op", error_type="api", status=503, attempt=3)
    assert [e.attempt for e in seen.events if isinstance(e, RetryEvent)] == [1, 2]


def test_hooks_are_plain_callables() -> None:
    async def coroutine_hook(event: RequestEvent) -> None:
        pass

    with pytest.raises(ConfigError, match="plain callables"):
        # It type-checks (a coroutine is an object): the client refuses it when it is made.
        Hooks(on_request=coroutine_hook)
    with pytest.raises(ConfigError, match="callable"):
        Hooks(on_error=42)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="Hooks"):
        ClientOptions(hooks=object())  # type: ignore[arg-type]


def test_a_hook_that_returns_an_awaitable_is_logged_and_the_awaitable_closed(
    runner: Runner, caplog: pytest.LogCaptureFixture
) -> None:
    async def forgotten(event: Event) -> None:
        raise AssertionError("never run")

    made: list[Any] = []

    def hook(event: Event) -> Any:
        made.append(forgotten(event))
        return made[-1]

    core = runner.core(Recorder(ok()), options=fast(hooks=Hooks(on_response=hook)))
    with caplog.at_level(logging.DEBUG, logger="inspection_client"):
        assert runner.run(core.json, JSON, get()) == {"id": "u1"}
    assert len(made) == 1 and made[0].cr_frame is None  # closed, never run
    assert any("returned an awaitable" in r.getMessage() for r in records_of(caplog))


def test_error_type_names_each_kind() -> None:
    assert error_type(ApiError(503, None, None, "GET", "/units")) == "api"
    assert error_type(RequestTimeoutError("GET", "/units", 1.0)) == "timeout"
    assert error_type(TransportError("GET", "/units", "reset")) == "transport"
    assert error_type(PagingInterruptedError("cursor:x", DecodeError("data", "no"))) == "decode"
    assert error_type(OSError("disk full")) == "OSError"


def run_async(work: Callable[[], Awaitable[T]]) -> T:
    async def go() -> T:
        return await work()

    return asyncio.run(go())


def test_an_async_client_s_hooks_run_in_its_task() -> None:
    # Plain callables, called in the event loop: a hook sees the task that made the call.
    tasks: list[asyncio.Task[Any] | None] = []
    hooks = Hooks(on_request=lambda e: tasks.append(asyncio.current_task()))
    options = fast(transport=httpx.MockTransport(Recorder(ok())), hooks=hooks)

    async def call() -> Any:
        core = AsyncCore(BASE, INFO, KEYS, options)
        try:
            return await core.json(JSON, get()), asyncio.current_task()
        finally:
            await core.aclose()

    result, task = run_async(call)
    assert result == {"id": "u1"} and tasks == [task]
