"""The core's requests and answers, blocking and async: credentials and headers, polling,
decode failures, upserts, validation and the checking of options."""

from __future__ import annotations

import json
import logging

import httpx
import pytest

from inspection_client._runtime import (
    AsyncCore,
    CallOptions,
    ClientOptions,
    ConfigError,
    Core,
    DecodeError,
    InterfaceInfo,
    NotReadyError,
    RateLimit,
    RequestSpec,
    Secret,
    ValidationError,
)
from inspection_client._runtime.codec import F, RecordDesc, Str

from runtime_support import BASE, INFO, JSON, KEY_SECRET, KEYS, LoginAnswer, Recorder, Runner, fast, get, ok, post


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
    assert "GET /units/{unit_id} attempt 1: 200 in " in caplog.text
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
