"""Secrets the service echoes into an error never reach the caller: the key secret, the
legacy password and the current token are replaced by <redacted> in the error's message,
str, repr, attributes and in the errors chained to it (what a printed traceback shows)."""

from __future__ import annotations

import traceback

import httpx
import pytest

from inspection_client._runtime import (
    ApiError,
    DecodeError,
    HeaderAuth,
    InspectionError,
    PagingInterruptedError,
    Secret,
    TransportError,
)
from inspection_client._runtime.codec import F, Int, RecordDesc, Str
from inspection_client._runtime.errors import scrub_error

from runtime_support import JSON, KEY_SECRET, Recorder, Runner, fast, get
from test_runtime_paging import CURSOR_PLAN, page
from test_runtime_token_login import token_auth


def shown(error: BaseException) -> str:
    """Everything a user may see of an error: str, repr, the printed traceback with its
    chain, and its attributes."""
    return " ".join(
        [str(error), repr(error), "".join(traceback.format_exception(error)), repr(vars(error))]
    )


class Unit:
    def __init__(self, id: str = "", year: int = 0) -> None:
        self.id = id
        self.year = year


UNIT = RecordDesc(Unit, register=False)
UNIT.define(F("id", "id", Str()), F("year", "year", Int()))


def test_the_key_secret_is_scrubbed_from_api_decode_and_transport_errors(runner: Runner) -> None:
    echoed = httpx.Response(
        403,
        json={"errors": f"key demo-key/{KEY_SECRET} may not read units"},
        headers={"x-echo": KEY_SECRET},
    )
    with pytest.raises(ApiError) as api:
        runner.run(runner.core(Recorder(echoed)).json, JSON, get())
    assert api.value.message == "key demo-key/<redacted> may not read units"
    assert KEY_SECRET not in shown(api.value) and api.value.headers["x-echo"] == "<redacted>"
    assert KEY_SECRET not in api.value.body_text and "<redacted>" in str(api.value)

    with pytest.raises(DecodeError) as decode:
        runner.run(runner.core(Recorder(httpx.Response(200, json={"id": "u", "year": KEY_SECRET}))).json, UNIT, get())
    assert decode.value.path == "year" and KEY_SECRET not in shown(decode.value)

    broken = httpx.ReadError(f"the peer said {KEY_SECRET}")
    with pytest.raises(TransportError) as transport:
        runner.run(runner.core(Recorder(broken), options=fast(max_attempts=1)).json, JSON, get())
    assert KEY_SECRET not in shown(transport.value) and "<redacted>" in transport.value.detail


def test_the_legacy_token_and_password_are_scrubbed(runner: Runner) -> None:
    token = "tok-5e4f3a2b1c"

    def service(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/authenticate"):
            return httpx.Response(200, json={"auth_token": token})
        sent = request.headers["authorization"].removeprefix("Token ")
        return httpx.Response(403, json={"errors": f"token {sent} is read-only"})

    core = runner.core(service, auth=token_auth())
    runner.run(core.login)
    with pytest.raises(ApiError) as caught:
        runner.run(core.json, JSON, get())
    assert caught.value.message == "token <redacted> is read-only" and token not in shown(caught.value)

    # (Named, not written out: the printed traceback quotes the lines of this test.)
    password = "-".join(["hunter2", "secret"])

    def refuse(request: httpx.Request) -> httpx.Response:
        return httpx.Response(401, json={"errors": f"no user with the password {password}"})

    with pytest.raises(ApiError) as login:
        runner.run(runner.core(refuse, auth=token_auth(password)).login)
    assert login.value.message == "no user with the password <redacted>"
    assert password not in shown(login.value)


def test_an_interrupted_walk_shows_no_secret_in_its_chain(runner: Runner) -> None:
    rec = Recorder(page(["a"], cursor="C1"), httpx.Response(500, json={"errors": f"boom {KEY_SECRET}"}))
    _, error = runner.collect_until_error(
        runner.core(rec, options=fast(max_attempts=1)).paged(CURSOR_PLAN, get("/units", "units"))
    )
    assert isinstance(error, PagingInterruptedError) and isinstance(error.__cause__, ApiError)
    assert KEY_SECRET not in shown(error) and KEY_SECRET not in shown(error.error)
    assert "boom <redacted>" in "".join(traceback.format_exception(error))


def test_short_secrets_are_left_alone_and_an_error_is_scrubbed_once(runner: Runner) -> None:
    short = HeaderAuth((("api-key-secret", Secret("abc")),))
    with pytest.raises(ApiError) as caught:
        runner.run(runner.core(Recorder(httpx.Response(400, json={"errors": "abc abcd"})), auth=short).json, JSON, get())
    assert caught.value.message == "abc abcd"
    # A secret that is part of <redacted> cannot grow the text by being replaced again.
    error: InspectionError = ApiError(400, "key dact", None, "GET", "/u")
    for _ in range(3):
        scrub_error(error, ["dact"])
    assert str(error) == "GET /u answered 400: key <redacted>"
    inside = HeaderAuth((("api-key-secret", Secret("dact")),))
    with pytest.raises(ApiError) as nested:
        runner.run(runner.core(Recorder(httpx.Response(400, json={"errors": "key dact"})), auth=inside).json, JSON, get())
    assert nested.value.message == "key <redacted>"
