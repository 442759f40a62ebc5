"""Secrets stay out of repr, str, logs and pickles; the runtime's errors read well, survive
pickling, and error bodies are read tolerantly."""

from __future__ import annotations

import copy
import logging
import pickle
from dataclasses import dataclass

import pytest

from inspection_client._runtime import (
    ApiError,
    ConfigError,
    DecodeError,
    ForeignOriginError,
    NotReadyError,
    PagingInterruptedError,
    PagingStalledError,
    RequestTimeoutError,
    Secret,
    TooLargeError,
    TransportError,
    ValidationError,
    Violation,
)
from inspection_client._runtime.errors import error_message

from runtime_support import KEY_SECRET


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
        NotReadyError("GET /forms/{id}", 1, 0.0, float("inf")),
        TooLargeError("GET /units", 120),
        PagingStalledError("GET /units", "3 empty pages in a row, each pointing to another"),
        PagingInterruptedError("cursor:C1", ApiError(500, "boom", None, "GET", "/units")),
        ForeignOriginError("a redirect", "http://other.invalid"),
        ConfigError("bad"),
    ]
    for error in errors:
        back = pickle.loads(pickle.dumps(error))
        assert type(back) is type(error) and str(back) == str(error)
    interrupted = pickle.loads(pickle.dumps(errors[7]))
    assert isinstance(interrupted, PagingInterruptedError) and interrupted.resume == "cursor:C1"
    assert isinstance(interrupted.__cause__, ApiError) and interrupted.status == 500


def test_error_bodies_are_read_tolerantly() -> None:
    assert error_message(b"", "errors") is None
    assert error_message(b'{"errors": "nope"}', "errors") == "nope"
    assert error_message(b'{"errors": ["a", {"b": 1}]}', "errors") == 'a; {"b":1}'
    assert error_message(b'{"errors": {"b": 1}}', "errors") == '{"b":1}'
    assert error_message(b'{"other": 1}', "errors") is None
    assert error_message(b'"plain"', "errors") == "plain"
    assert error_message(b"<h1>Bad</h1>", "errors") == "<h1>Bad</h1>"
    assert error_message(b"x" * 2000, "errors") == "x" * 500
