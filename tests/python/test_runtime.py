"""Behaviour of the hand-written Python runtime that the conformance scenarios cannot reach:
redaction, backoff and Retry-After arithmetic, pacing on a fake clock, origin and path
checks, lazy file uploads, and the retry, re-login, redirect and paging rules of both the
blocking ``Core`` and the ``AsyncCore``, against ``httpx.MockTransport``.

Plain pytest; async code runs through ``asyncio.run``.
"""

from __future__ import annotations

import asyncio
import copy
import datetime as dt
import enum
import io
import json
import logging
import pickle
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from inspection_client._runtime import (
    UNSET,
    ApiError,
    AsyncCore,
    CallOptions,
    ClientOptions,
    ConfigError,
    Core,
    DecodeError,
    ForeignOriginError,
    HeaderAuth,
    InterfaceInfo,
    NotReadyError,
    PagingPlan,
    PagingStalledError,
    RateLimit,
    RequestSpec,
    RequestTimeoutError,
    Secret,
    Segment,
    TokenAuth,
    TransportError,
    ValidationError,
    Violation,
)
from inspection_client._runtime.operation import Query, query_text
from inspection_client._runtime import _twins
from inspection_client._runtime._async_pacing import AsyncPacer
from inspection_client._runtime._sync_pacing import Pacer
from inspection_client._runtime.codec import F, Json, RecordDesc, Str
from inspection_client._runtime.errors import error_message
from inspection_client._runtime.origin import parse_secure_url, same_origin, shown_url
from inspection_client._runtime.request import request_url
from inspection_client._runtime.retry import backoff, retry_after

BASE = "https://api.example.test/v3"
KEY_SECRET = "TOP-SECRET-9f8e7d"
SIGNATURE = "SIG0123456789abcdef"
INFO = InterfaceInfo(name="v3")
KEYS = HeaderAuth((("api-key-id", "demo-key"), ("api-key-secret", Secret(KEY_SECRET))))
JSON = Json()

Handler = Callable[[httpx.Request], httpx.Response]


def get(path: str = "/units/{unit_id}", *segments: str | Segment, **kw: Any) -> RequestSpec:
    return RequestSpec(op="op", method="GET", path=path, segments=segments or ("units", Segment("u1")), **kw)


def post(body: Any = None, **kw: Any) -> RequestSpec:
    return RequestSpec(
        op="create_unit", method="POST", path="/units", segments=("units",), body=body or {"a": 1}, **kw
    )


def fast(**kw: Any) -> ClientOptions:
    """Options for tests: no pacing, millisecond backoff."""
    settings: dict[str, Any] = dict(rate_limit=None, initial_backoff=0.001, max_backoff=0.01, poll_interval=0.001)
    settings.update(kw)
    return ClientOptions(**settings)


class Recorder:
    """A MockTransport handler answering from a list (the last answer repeats) and keeping
    every request it saw."""

    def __init__(self, *answers: httpx.Response | Exception | Callable[[httpx.Request], httpx.Response]) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        request.read()
        self.requests.append(request)
        answer = self.answers[min(len(self.requests), len(self.answers)) - 1]
        if isinstance(answer, Exception):
            if isinstance(answer, httpx.RequestError):
                answer.request = request
            raise answer
        if callable(answer):
            return answer(request)
        return answer

    @property
    def methods(self) -> list[str]:
        return [r.method for r in self.requests]


def ok(body: Any = None, status: int = 200, **headers: str) -> httpx.Response:
    return httpx.Response(status, json={"id": "u1"} if body is None else body, headers=headers)


# ---------------------------------------------------------------- running both clients


class Runner:
    """Runs the same test through the blocking Core and the AsyncCore."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def core(self, handler: Handler, auth: Any = KEYS, options: ClientOptions | None = None, info: InterfaceInfo = INFO) -> Any:
        base = options if options is not None else fast()
        settings = {**base.__dict__, "transport": httpx.MockTransport(handler)}
        opts = ClientOptions(**settings)
        return (Core if self.kind == "sync" else AsyncCore)(BASE, info, auth, opts)

    def run(self, method: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if self.kind == "sync":
            return method(*args, **kwargs)
        return asyncio.run(method(*args, **kwargs))

    def collect(self, iterable: Any) -> list[Any]:
        if self.kind == "sync":
            return list(iterable)

        async def go() -> list[Any]:
            return [item async for item in iterable]

        return asyncio.run(go())

    def collect_until_error(self, iterable: Any) -> tuple[list[Any], BaseException | None]:
        out: list[Any] = []
        if self.kind == "sync":
            try:
                for item in iterable:
                    out.append(item)
            except Exception as e:
                return out, e
            return out, None

        async def go() -> BaseException | None:
            try:
                async for item in iterable:
                    out.append(item)
            except Exception as e:
                return e
            return None

        return out, asyncio.run(go())


@pytest.fixture(params=["sync", "async"])
def runner(request: pytest.FixtureRequest) -> Runner:
    return Runner(request.param)


# ---------------------------------------------------------------- secrets


def test_secret_never_shows_its_value(caplog: pytest.LogCaptureFixture) -> None:
    s = Secret(KEY_SECRET)
    assert s.expose() == KEY_SECRET
    for text in (repr(s), str(s), f"{s}", f"{s!r}", f"{s:>30}", repr([s]), repr({"k": s})):
        assert KEY_SECRET not in text
    assert str(s) == "Secret(***)"

    @dataclass
    class Login:
        user: str
        password: Secret

    assert KEY_SECRET not in repr(Login("u", s))
    with caplog.at_level(logging.DEBUG):
        logging.getLogger("test").info("login %s %r", s, Login("u", s))
    assert "Secret(***)" in caplog.text and KEY_SECRET not in caplog.text


def test_secret_cannot_be_pickled_or_changed_and_compares_by_value() -> None:
    s = Secret(KEY_SECRET)
    with pytest.raises(TypeError):
        pickle.dumps(s)
    with pytest.raises(TypeError):
        pickle.dumps({"nested": [s]})
    with pytest.raises(AttributeError):
        s._value = "other"
    assert copy.copy(s) is s and copy.deepcopy([s])[0] is s
    assert s == Secret(KEY_SECRET) and s != Secret("other") and s != KEY_SECRET
    assert hash(s) == hash(Secret(KEY_SECRET))
    assert Secret(s).expose() == KEY_SECRET
    with pytest.raises(TypeError):
        Secret(42)  # type: ignore[arg-type]


# ---------------------------------------------------------------- errors


def test_error_texts() -> None:
    e = ApiError(403, "forbidden", 2.5, "GET", "/users", "managers only")
    assert str(e) == "GET /users answered 403: forbidden (managers only) (retry after 3 s)"
    assert str(ApiError(404, None, None, "GET", "/u/{id}", "managers only")) == "GET /u/{id} answered 404"
    t = RequestTimeoutError("POST", "/units", 0.3)
    assert isinstance(t, TimeoutError) and isinstance(t, TransportError)
    assert str(t) == "POST /units timed out after 0.3 s"
    assert str(DecodeError("data[0].id", "expected a string", 200)) == (
        "cannot decode the 200 response at `data[0].id`: expected a string"
    )
    assert str(ValidationError([Violation("vin", "too short"), Violation("", "bad")])) == (
        "invalid request: vin: too short; bad"
    )
    assert ForeignOriginError("a redirect", "http://x").via == "redirect"
    assert ForeignOriginError("a next-page link", "http://x").via == "link"
    assert isinstance(ConfigError("x"), ValueError)


def test_errors_survive_pickling() -> None:
    errors: list[Exception] = [
        ApiError(429, "slow down", 1.0, "GET", "/units", None, {"retry-after": "1"}, "body"),
        RequestTimeoutError("GET", "/units", 1.5),
        ValidationError([Violation("vin", "too short")]),
        NotReadyError("GET /forms/{id}", 3, 0.5),
        ForeignOriginError("a redirect", "http://other.invalid"),
        ConfigError("bad"),
    ]
    for error in errors:
        back = pickle.loads(pickle.dumps(error))
        assert type(back) is type(error) and str(back) == str(error)


def test_error_bodies_are_read_tolerantly() -> None:
    assert error_message(b"", "errors") is None
    assert error_message(b'{"errors": "nope"}', "errors") == "nope"
    assert error_message(b'{"errors": ["a", {"b": 1}]}', "errors") == 'a; {"b":1}'
    assert error_message(b'{"errors": {"b": 1}}', "errors") == '{"b":1}'
    assert error_message(b'{"other": 1}', "errors") is None
    assert error_message(b'"plain"', "errors") == "plain"
    assert error_message(b"<h1>Bad</h1>", "errors") == "<h1>Bad</h1>"
    assert error_message(b"x" * 2000, "errors") == "x" * 500


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
    window = 10 * 1.02
    assert [pacer.reserve(100.0), pacer.reserve(101.0), pacer.reserve(102.0)] == [0, 0, 0]
    # The fourth waits for the first to leave the (2 % longer) window.
    assert pacer.reserve(103.0) == pytest.approx(100 + window - 103)
    assert pacer.reserve(100 + window - 0.001) == pytest.approx(0.001)
    assert pacer.reserve(100 + window) == 0
    # The window slides: the second send (101) still counts.
    assert pacer.reserve(100 + window) == pytest.approx(101 + window - (100 + window))
    assert pacer.reserve(102 + window) == 0


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


# ---------------------------------------------------------------- origins and paths


def test_only_https_or_loopback_http_urls_are_accepted() -> None:
    for good in ("https://api.example.test/v3", "http://localhost:8080", "http://127.0.0.1:9/v3", "http://[::1]:80/"):
        parse_secure_url(good, "the base URL")
    for bad in (
        "http://api.example.test/v3",
        "https://user:pw@api.example.test/",
        "ftp://api.example.test/",
        "/v3/units",
        "api.example.test",
    ):
        with pytest.raises(ConfigError):
            parse_secure_url(bad, "the base URL")
    with pytest.raises(ConfigError) as caught:
        parse_secure_url(f"http://storage.example.test/x?X-Amz-Signature={SIGNATURE}", "a pre-signed URL")
    assert SIGNATURE not in str(caught.value) and "http://storage.example.test" in str(caught.value)


def test_same_origin_and_shown_url() -> None:
    url = httpx.URL
    assert same_origin(url("https://a.test/x"), url("https://a.test:443/y"))
    assert not same_origin(url("https://a.test/"), url("http://a.test/"))
    assert not same_origin(url("https://a.test/"), url("https://a.test:8443/"))
    assert not same_origin(url("https://a.test/"), url("https://b.a.test/"))
    assert shown_url(url(f"https://s.test:8443/b/k?sig={SIGNATURE}#f")) == "https://s.test:8443/b/k"


def test_path_values_are_one_segment_each() -> None:
    base = httpx.URL(BASE)
    req = get("/units/{unit_id}", "units", Segment("u/1 2?x#y"), Segment("ü%"))
    assert request_url(base, req).raw_path == b"/v3/units/u%2F1%202%3Fx%23y/%C3%BC%25"
    req = get("/x", "x", query=(("q", "FL 42/ü&a=b"), ("n", "1")))
    assert request_url(base, req).raw_path == b"/v3/x?q=FL%2042%2F%C3%BC%26a%3Db&n=1"
    assert request_url(httpx.URL("http://127.0.0.1:9"), get("/api/x", "api", "x")).raw_path == b"/api/x"


@pytest.mark.parametrize("value", ["", ".", "..", "a\tb", "a\nb", "a\x00", "a\x7f", "\ud800"])
def test_path_values_that_cannot_be_one_segment_are_refused(value: str) -> None:
    with pytest.raises(ValidationError):
        request_url(httpx.URL(BASE), get("/units/{unit_id}", "units", Segment(value)))


def test_every_bad_path_value_is_reported_at_once() -> None:
    with pytest.raises(ValidationError) as caught:
        request_url(httpx.URL(BASE), get("/a/{x}/{y}", "a", Segment(".."), Segment("")))
    assert len(caught.value.violations) == 2


def test_query_text() -> None:
    assert [query_text(v) for v in (True, False, 3, 2.0, 2.5, "a b")] == ["true", "false", "3", "2.0", "2.5", "a b"]


def test_query_values_are_encoded_then_written_in_spec_order() -> None:
    from inspection_client._runtime.codec import DateTime, Int

    q = Query(F("b", "b", Int()), F("a", "a", DateTime()), F("f", "f", Json()), json=("f",))
    cet = dt.timezone(dt.timedelta(hours=1))
    encoded = q.encode_values({"a": dt.datetime(2026, 1, 31, 22, 30, tzinfo=cet), "f": {"x": [1, None]}, "b": None})
    assert q.pairs(encoded) == (("a", "2026-01-31T22:30:00+01:00"), ("f", '{"x":[1,null]}'))


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


def test_a_429_pauses_the_whole_core(runner: Runner) -> None:
    import time

    rec = Recorder(ok(status=429, **{"retry-after": "0"}), ok())
    core = runner.core(rec, options=fast(initial_backoff=0.2, max_backoff=0.2))
    # Without Retry-After the pause is the backoff (0.1 to 0.2 s), taken by the pacer.
    rec.answers[0] = ok(status=429)
    start = time.monotonic()
    runner.run(core.json, JSON, get())
    assert time.monotonic() - start >= 0.1


# ---------------------------------------------------------------- headers and credentials


def test_credentials_and_headers(runner: Runner, caplog: pytest.LogCaptureFixture) -> None:
    rec = Recorder(ok())
    info = InterfaceInfo(name="legacy", default_headers={"Accept": "application/json; version=1", "X-Lib": "1"})
    core = runner.core(rec, info=info)
    with caplog.at_level(logging.DEBUG, logger="inspection_client"):
        runner.run(core.json, JSON, get(), CallOptions(headers={"X-Request-Id": "r1"}))
        runner.run(core.json, JSON, post(anonymous=True, accept="application/pdf"))
    first, second = rec.requests
    assert first.headers["api-key-secret"] == KEY_SECRET and first.headers["api-key-id"] == "demo-key"
    assert first.headers["accept"] == "application/json; version=1" and first.headers["x-lib"] == "1"
    assert first.headers["x-request-id"] == "r1" and first.headers["user-agent"] == "inspection-client (python)"
    assert "api-key-secret" not in second.headers and second.headers["accept"] == "application/pdf"
    assert second.headers["content-type"] == "application/json" and json.loads(second.content) == {"a": 1}
    assert "GET /units/{unit_id} -> 200 (attempt 1)" in caplog.text
    assert KEY_SECRET not in caplog.text and "demo-key" not in caplog.text
    assert KEY_SECRET not in repr(core) and "api.example.test" in repr(core)
    with pytest.raises(ConfigError):
        runner.run(core.json, JSON, get(), CallOptions(headers={"API-Key-Secret": "forged"}))


def test_a_secret_in_a_body_is_sent_as_its_value(runner: Runner) -> None:
    rec = Recorder(ok(status=201))
    runner.run(runner.core(rec).json, JSON, post({"password": Secret("hunter2")}))
    assert json.loads(rec.requests[0].content) == {"password": "hunter2"}


def test_cookies_are_not_kept(runner: Runner) -> None:
    rec = Recorder(httpx.Response(200, json={}, headers={"set-cookie": "session=abc; Path=/"}))
    core = runner.core(rec)
    runner.run(core.json, JSON, get())
    runner.run(core.json, JSON, get())
    assert "cookie" not in rec.requests[1].headers


def test_a_transport_of_the_wrong_kind_is_refused() -> None:
    class SyncOnly(httpx.BaseTransport):
        pass

    with pytest.raises(ConfigError):
        AsyncCore(BASE, INFO, KEYS, ClientOptions(transport=SyncOnly()))
    with pytest.raises(ConfigError):
        Core("http://api.example.test", INFO, KEYS)


# ---------------------------------------------------------------- token login


@dataclass
class LoginAnswer:
    auth_token: str
    extra: dict[str, Any] = field(default_factory=dict)


LOGIN_DESC = RecordDesc(LoginAnswer, register=False)
LOGIN_DESC.define(F("auth_token", "auth_token", Str(), req=True), extra="extra")


def token_auth(password: str = "user-pass") -> TokenAuth:
    credentials = Secret(password)

    def login_request() -> RequestSpec:
        return RequestSpec(
            op="authenticate",
            method="POST",
            path="/api/users/authenticate",
            segments=("api", "users", "authenticate"),
            body={"user": {"username": "u@example.com", "password": credentials}},
            anonymous=True,
        )

    return TokenAuth(
        header="Authorization",
        scheme="Token",
        token_field="auth_token",
        token_attr="auth_token",
        login_request=login_request,
        login_desc=LOGIN_DESC,
    )


class TokenService:
    """Issues t1, t2, ...; only the latest token is accepted, until revoked."""

    def __init__(self, delay: float = 0.0) -> None:
        self.issued = 0
        self.valid: str | None = None
        self.delay = delay
        self.seen: list[tuple[str, str | None]] = []

    def answer(self, request: httpx.Request) -> httpx.Response:
        self.seen.append((request.url.path, request.headers.get("authorization")))
        if request.url.path.endswith("/authenticate"):
            assert "authorization" not in request.headers
            body = json.loads(request.content)
            if body["user"]["password"] != "user-pass":
                return httpx.Response(401, json={"errors": "Invalid username or password"})
            self.issued += 1
            self.valid = f"t{self.issued}"
            return httpx.Response(200, json={"auth_token": self.valid})
        if request.headers.get("authorization") != f"Token {self.valid}":
            return httpx.Response(401, json={"errors": "expired"})
        return httpx.Response(200, json={"ok": True})

    def __call__(self, request: httpx.Request) -> httpx.Response:
        return self.answer(request)


def test_a_token_is_renewed_once_on_a_401(runner: Runner) -> None:
    service = TokenService()
    core = runner.core(service, auth=token_auth())
    runner.run(core.login)
    assert runner.run(core.json, JSON, get()) == {"ok": True}
    service.valid = "revoked"
    assert runner.run(core.json, JSON, get()) == {"ok": True}
    assert service.issued == 2
    assert [auth for path, auth in service.seen if not path.endswith("/authenticate")] == [
        "Token t1", "Token t1", "Token t2",
    ]
    # A 401 that a fresh token does not cure is reported, after one more login only.
    service.answer = lambda request: httpx.Response(  # type: ignore[method-assign]
        200, json={"auth_token": "t9"}
    ) if request.url.path.endswith("/authenticate") else httpx.Response(401, json={"errors": "no"})
    with pytest.raises(ApiError) as caught:
        runner.run(core.json, JSON, get())
    assert caught.value.status == 401


def test_a_wrong_password_is_a_401_without_the_password(runner: Runner) -> None:
    service = TokenService()
    core = runner.core(service, auth=token_auth("hunter2-secret"))
    with pytest.raises(ApiError) as caught:
        runner.run(core.login)
    assert caught.value.status == 401 and "hunter2-secret" not in str(caught.value)
    assert "hunter2-secret" not in repr(core) and "hunter2-secret" not in repr(token_auth("hunter2-secret"))
    assert len(service.seen) == 1


def test_concurrent_401s_share_one_login() -> None:
    service = TokenService()

    async def handler(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(0.01)
        return service(request)

    async def go() -> None:
        core = AsyncCore(BASE, INFO, token_auth(), fast(transport=httpx.MockTransport(handler)))
        # First use logs in lazily, once for all.
        await asyncio.gather(*(core.json(JSON, get()) for _ in range(4)))
        assert service.issued == 1
        service.valid = "revoked"
        await asyncio.gather(*(core.json(JSON, get()) for _ in range(4)))
        assert service.issued == 2
        await core.aclose()

    asyncio.run(go())


def test_concurrent_401s_share_one_login_across_threads() -> None:
    import time
    from concurrent.futures import ThreadPoolExecutor

    service = TokenService()

    def handler(request: httpx.Request) -> httpx.Response:
        time.sleep(0.01)
        return service(request)

    core = Core(BASE, INFO, token_auth(), fast(transport=httpx.MockTransport(handler)))
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda _: core.json(JSON, get()), range(4)))
        assert service.issued == 1
        service.valid = "revoked"
        assert list(pool.map(lambda _: core.json(JSON, get()), range(4))) == [{"ok": True}] * 4
    assert service.issued == 2
    core.close()


# ---------------------------------------------------------------- redirects


def test_a_same_origin_redirect_is_followed_with_the_keys(runner: Runner) -> None:
    rec = Recorder(httpx.Response(307, headers={"location": "/v3/units/u2"}), ok({"id": "u2"}))
    response = runner.run(runner.core(rec).send, get())
    assert response.url == "https://api.example.test/v3/units/u2"
    assert rec.requests[1].headers["api-key-secret"] == KEY_SECRET


def test_a_redirect_to_another_origin_is_not_followed(runner: Runner) -> None:
    rec = Recorder(httpx.Response(302, headers={"location": "http://other.invalid/v3/units/u1?x=1"}), ok())
    with pytest.raises(ForeignOriginError) as caught:
        runner.run(runner.core(rec).json, JSON, get())
    assert caught.value.origin == "http://other.invalid" and caught.value.via == "redirect"
    assert len(rec.requests) == 1


def test_a_303_after_a_post_continues_as_a_get_without_body(runner: Runner) -> None:
    rec = Recorder(httpx.Response(303, headers={"location": "/v3/units/u9"}), ok())
    runner.run(runner.core(rec).json, JSON, post())
    assert rec.methods == ["POST", "GET"] and rec.requests[1].content == b""
    assert "content-type" not in rec.requests[1].headers


def test_redirect_loops_end(runner: Runner) -> None:
    rec = Recorder(httpx.Response(307, headers={"location": "/v3/units/u1"}))
    with pytest.raises(TransportError, match="redirects"):
        runner.run(runner.core(rec).json, JSON, get())
    assert len(rec.requests) == 6


# ---------------------------------------------------------------- answers


def test_polling_asks_a_202_again_then_gives_up(runner: Runner) -> None:
    rec = Recorder(ok(status=202), ok(status=202, **{"retry-after": "0"}), httpx.Response(200, content=b"%PDF-1.7"))
    core = runner.core(rec)
    assert runner.run(core.bytes, get(poll=True)) == b"%PDF-1.7"
    rec = Recorder(ok(status=202))
    with pytest.raises(NotReadyError) as caught:
        runner.run(runner.core(rec, options=fast(max_polls=2)).bytes, get(poll=True))
    assert caught.value.attempts == 3 and len(rec.requests) == 3


def test_decode_failures_name_status_and_path(runner: Runner) -> None:
    desc = RecordDesc(LoginAnswer, register=False)
    desc.define(F("auth_token", "auth_token", Str(), req=True))
    cases = [
        (httpx.Response(200, content=b""), ""),
        (httpx.Response(200, content=b"<html>", headers={"content-type": "text/html; charset=utf-8"}), ""),
        (httpx.Response(201, json={"auth_token": 5}), "auth_token"),
    ]
    texts = []
    for answer, path in cases:
        with pytest.raises(DecodeError) as caught:
            runner.run(runner.core(Recorder(answer)).json, desc, get())
        assert caught.value.path == path and caught.value.status == answer.status_code
        texts.append(str(caught.value))
    assert "empty" in texts[0] and "not JSON (Content-Type text/html)" in texts[1] and "<html>" not in texts[1]


def test_upsert_tells_created_from_replaced(runner: Runner) -> None:
    core = runner.core(Recorder(ok(status=201), ok(status=200)))
    put = RequestSpec(op="upsert", method="PUT", path="/x", segments=("x",), body={"a": 1})
    assert runner.run(core.upsert, JSON, put).created is True
    assert runner.run(core.upsert, JSON, put).created is False


def test_validation_is_all_at_once_and_switchable(runner: Runner) -> None:
    desc = RecordDesc(LoginAnswer, register=False)
    desc.define(F("a", "a", Str(), req=True), F("b", "b", Str(), req=True))
    core = runner.core(Recorder(ok()))
    with pytest.raises(ValidationError) as caught:
        core.check([("", desc, {})])
    assert [v.path for v in caught.value.violations] == ["a", "b"]
    runner.core(Recorder(ok()), options=fast(validate_requests=False)).check([("", desc, {})])


def test_options_are_checked() -> None:
    for bad in (dict(max_attempts=0), dict(timeout=0), dict(initial_backoff=-1), dict(max_polls=True)):
        with pytest.raises(ConfigError):
            ClientOptions(**bad)
    with pytest.raises(ConfigError):
        RateLimit(0, 10)
    with pytest.raises(ConfigError):
        CallOptions(timeout=-1)


# ---------------------------------------------------------------- paging


@dataclass
class Cursor:
    next: Any = UNSET
    cursor: Any = UNSET


@dataclass
class Links:
    next: Any = UNSET
    prev: Any = UNSET


@dataclass
class Page:
    data: list[Any]
    paging: Any = UNSET
    links: Any = UNSET


CURSOR_DESC = RecordDesc(Cursor, register=False)
CURSOR_DESC.define(F("next", "next", Str()), F("cursor", "cursor", Str()))
LINKS_DESC = RecordDesc(Links, register=False)
LINKS_DESC.define(F("next", "next", Str()), F("prev", "prev", Str()))
PAGE_DESC = RecordDesc(Page, register=False)
PAGE_DESC.define(F("data", "data", Json(), fill=list), F("paging", "paging", CURSOR_DESC), F("links", "links", LINKS_DESC))
CURSOR_PLAN = PagingPlan(
    style="cursor", page=PAGE_DESC, items_attr="data", paging_attr="paging",
    next_url_attr="next", cursor_attr="cursor", page_param="page",
)
LINKS_PLAN = PagingPlan(style="links", page=PAGE_DESC, items_attr="data", links_attr="links")


def page(ids: list[str], **paging: str) -> httpx.Response:
    return httpx.Response(200, json={"data": [{"id": i} for i in ids], "paging": paging})


def test_cursor_paging_follows_the_next_link_before_the_cursor(runner: Runner) -> None:
    rec = Recorder(
        page(["a"], cursor="C1"),
        page(["b"], cursor="C2", next="/v3/units?page=L2&per_page=1"),
        page(["c"]),
    )
    core = runner.core(rec)
    items = runner.collect(core.paged(CURSOR_PLAN, get("/units", "units", query=(("per_page", "1"), ("page", "old")))))
    assert [i["id"] for i in items] == ["a", "b", "c"]
    assert [dict(r.url.params) for r in rec.requests] == [
        {"per_page": "1", "page": "old"}, {"per_page": "1", "page": "C1"}, {"page": "L2", "per_page": "1"},
    ]
    assert rec.requests[2].headers["api-key-secret"] == KEY_SECRET


def test_paging_ends_at_an_empty_page_and_pages_can_be_walked(runner: Runner) -> None:
    rec = Recorder(page(["a"], cursor="C1"), page([], cursor="C2"))
    core = runner.core(rec)
    pages = runner.collect(core.paged(CURSOR_PLAN, get("/units", "units")).pages())
    assert [p.data for p in pages] == [[{"id": "a"}], []] and len(rec.requests) == 2
    first = runner.run(core.paged(CURSOR_PLAN, get("/units", "units")).first)
    assert isinstance(first, Page)


def test_a_foreign_next_link_is_refused_after_the_page_records(runner: Runner) -> None:
    rec = Recorder(page(["a"], next="http://other.invalid/v3/units?page=x"))
    items, error = runner.collect_until_error(runner.core(rec).paged(CURSOR_PLAN, get("/units", "units")))
    assert [i["id"] for i in items] == ["a"]
    assert isinstance(error, ForeignOriginError) and error.via == "link" and error.origin == "http://other.invalid"
    assert error.what == "a next-page link"
    assert len(rec.requests) == 1


def test_paging_that_comes_back_stalls(runner: Runner) -> None:
    rec = Recorder(page(["a"], next="/v3/units?p=B"), page(["b"], next="/v3/units?p=C"), page(["c"], next="/v3/units?p=B"))
    items, error = runner.collect_until_error(runner.core(rec).paged(CURSOR_PLAN, get("/units", "units")))
    assert isinstance(error, PagingStalledError) and len(items) == 3 and len(rec.requests) == 3


def test_links_paging_goes_both_ways_and_cursor_paging_only_forward(runner: Runner) -> None:
    def links_page(ids: list[str], **links: str) -> httpx.Response:
        return httpx.Response(200, json={"data": [{"id": i} for i in ids], "links": links})

    rec = Recorder(links_page(["5", "4"], next="/v3/t?after=5", prev="https://api.example.test/v3/t?before=4"), links_page(["3"]))
    core = runner.core(rec)
    items = runner.collect(core.paged(LINKS_PLAN, get("/t", "t")).backward())
    assert [i["id"] for i in items] == ["5", "4", "3"]
    assert rec.requests[1].url.params["before"] == "4"
    with pytest.raises(ConfigError):
        core.paged(CURSOR_PLAN, get("/t", "t")).backward()


# ---------------------------------------------------------------- pre-signed URLs

PRESIGNED = f"https://storage.example.test/bucket/key?X-Amz-Expires=900&X-Amz-Signature={SIGNATURE}"


def test_presigned_fetch_sends_no_credentials_and_hides_the_query(runner: Runner, caplog: pytest.LogCaptureFixture) -> None:
    info = InterfaceInfo(name="legacy", default_headers={"accept": "application/json; version=1"})
    rec = Recorder(httpx.Response(503), httpx.Response(200, content=b"%PDF-x"))
    core = runner.core(rec, info=info)
    with caplog.at_level(logging.DEBUG):
        assert runner.run(core.fetch_presigned, PRESIGNED) == b"%PDF-x"
    for request in rec.requests:
        assert "api-key-secret" not in request.headers and "api-key-id" not in request.headers
        assert request.headers["accept"] != "application/json; version=1"
        assert request.url.params["X-Amz-Signature"] == SIGNATURE
    assert "storage.example.test/bucket/key" in caplog.text
    assert SIGNATURE not in caplog.text


def test_presigned_errors_never_show_the_signature(runner: Runner) -> None:
    body = f"<Error><Code>SignatureDoesNotMatch</Code><SignatureProvided>{SIGNATURE}</SignatureProvided></Error>"
    rec = Recorder(httpx.Response(403, content=body.encode(), headers={"content-type": "application/xml"}))
    with pytest.raises(ApiError) as caught:
        runner.run(runner.core(rec).fetch_presigned, PRESIGNED)
    error = caught.value
    assert error.status == 403 and error.path == "https://storage.example.test/bucket/key"
    assert SIGNATURE not in str(error) and SIGNATURE not in error.body_text and "SignatureDoesNotMatch" in str(error)
    failing = httpx.ConnectError(f"cannot reach {PRESIGNED}")
    with pytest.raises(TransportError) as broken:
        runner.run(runner.core(Recorder(failing), options=fast(max_attempts=1)).fetch_presigned, PRESIGNED)
    assert SIGNATURE not in str(broken.value)


def test_put_presigned_streams_a_file_and_rewinds_it_for_a_retry(runner: Runner) -> None:
    rec = Recorder(httpx.Response(500), httpx.Response(200, headers={"etag": '"e1"'}))
    data = io.BytesIO(b"skip|payload")
    data.seek(5)
    etag = runner.run(runner.core(rec).put_presigned, PRESIGNED, data, "image/png")
    assert etag == '"e1"'
    for request in rec.requests:
        assert request.method == "PUT" and request.content == b"payload"
        assert request.headers["content-length"] == "7" and request.headers["content-type"] == "image/png"
        assert "transfer-encoding" not in request.headers and "api-key-secret" not in request.headers


def test_put_parts_returns_etags_in_part_order(runner: Runner) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"etag": f'"{request.content.decode()}"'})

    urls = [f"https://storage.example.test/up/{n}?partNumber={n}&sig={SIGNATURE}" for n in (1, 2, 3)]
    rec = Recorder(answer)
    etags = runner.run(runner.core(rec).put_parts, urls, [b"one", b"two", b""], "video/mp4", 2)
    assert etags == ['"one"', '"two"', '""']
    assert sorted(r.url.params["partNumber"] for r in rec.requests) == ["1", "2", "3"]
    assert {r.headers["content-length"] for r in rec.requests} == {"3", "0"}
    with pytest.raises(DecodeError, match="part 1"):
        runner.run(runner.core(Recorder(httpx.Response(200))).put_parts, urls[:1], [b"x"])
    with pytest.raises(ConfigError):
        runner.run(runner.core(rec).put_parts, urls, [b"x"])


class CountingFile(io.BufferedReader):
    """A file that records every read, for the test of lazy part reading."""

    reads: list[int] = []

    def read(self, size: int | None = -1) -> bytes:
        data = super().read(size)
        CountingFile.reads.append(len(data))
        return data


@pytest.fixture
def counted_open(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    CountingFile.reads = []

    def fake_open(path: Any, mode: str = "r") -> CountingFile:
        assert mode == "rb"
        return CountingFile(io.FileIO(path, "r"))

    monkeypatch.setattr(_twins, "open", fake_open, raising=False)
    yield CountingFile.reads


def test_put_file_parts_reads_each_part_while_sending_it(runner: Runner, tmp_path: Path, counted_open: list[int]) -> None:
    content = bytes(range(256)) * 1200  # 300 KiB
    path = tmp_path / "video.mp4"
    path.write_bytes(content)
    part_size = 128 * 1024
    read_before: list[int] = []

    def answer(request: httpx.Request) -> httpx.Response:
        read_before.append(sum(counted_open))
        return httpx.Response(200, headers={"etag": f'"{len(request.content)}"'})

    rec = Recorder(answer)
    urls = [f"https://storage.example.test/up/{n}" for n in (1, 2, 3)]
    etags = runner.run(runner.core(rec).put_file_parts, urls, path, part_size, "video/mp4", 1)
    assert etags == [f'"{part_size}"', f'"{part_size}"', f'"{len(content) - 2 * part_size}"']
    assert b"".join(r.content for r in rec.requests) == content
    # Never more than a chunk in memory, and no part read before its turn.
    assert max(counted_open) <= _twins.CHUNK_SIZE
    assert read_before == [part_size, 2 * part_size, len(content)]
    with pytest.raises(ConfigError):
        runner.run(runner.core(rec).put_file_parts, urls[:2], path, part_size)
    # Parts sent at once each read their own range.
    rec = Recorder(answer)
    runner.run(runner.core(rec).put_file_parts, urls, path, part_size, None, 3)
    by_url = sorted(rec.requests, key=lambda r: str(r.url))
    assert b"".join(r.content for r in by_url) == content


def test_a_failed_part_fails_the_upload(runner: Runner) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/2"):
            return httpx.Response(403, content=b"denied")
        return httpx.Response(200, headers={"etag": '"x"'})

    urls = [f"https://storage.example.test/up/{n}?sig={SIGNATURE}" for n in (1, 2, 3)]
    with pytest.raises(ApiError) as caught:
        runner.run(runner.core(Recorder(answer)).put_parts, urls, [b"a", b"b", b"c"], None, 3)
    assert caught.value.status == 403 and caught.value.path == "https://storage.example.test/up/2"
