"""Origins and paths: only secure base URLs, path values as one segment each, query text,
and redirects followed only within the origin."""

from __future__ import annotations

import datetime as dt

import httpx
import pytest

from inspection_client._runtime import ConfigError, ForeignOriginError, Segment, TransportError, ValidationError
from inspection_client._runtime.codec import F, Json
from inspection_client._runtime.operation import Query, query_text
from inspection_client._runtime.origin import parse_secure_url, same_origin, shown_url
from inspection_client._runtime.request import request_url

from runtime_support import BASE, JSON, KEY_SECRET, SIGNATURE, Recorder, Runner, get, ok, post


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
