"""Token login: lazy, renewed once on a 401, shared by concurrent callers (tasks and
threads), and never showing the password."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from inspection_client._runtime import ApiError, AsyncCore, Core, RequestSpec, Secret, TokenAuth
from inspection_client._runtime.codec import F, RecordDesc, Str

from runtime_support import BASE, INFO, JSON, LoginAnswer, Runner, fast, get


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
    paths: list[str] = []

    def refuse(request: httpx.Request) -> httpx.Response:
        paths.append(request.url.path)
        if request.url.path.endswith("/authenticate"):
            return httpx.Response(200, json={"auth_token": "t9"})
        return httpx.Response(401, json={"errors": "no"})

    service.answer = refuse  # type: ignore[method-assign]
    with pytest.raises(ApiError) as caught:
        runner.run(core.json, JSON, get())
    assert caught.value.status == 401
    assert [p.endswith("/authenticate") for p in paths] == [False, True, False]


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
