"""What the runtime tests share: a fake service (`Recorder`) for ``httpx.MockTransport``,
request specs and fast options, and `Runner`, which runs one test through both the
blocking ``Core`` and the ``AsyncCore`` (the `runner` fixture in conftest.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from inspection_client._runtime import (
    AsyncCore,
    ClientOptions,
    Core,
    HeaderAuth,
    InterfaceInfo,
    RequestSpec,
    Secret,
    Segment,
)
from inspection_client._runtime.codec import Json


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


@dataclass
class LoginAnswer:
    auth_token: str
    extra: dict[str, Any] = field(default_factory=dict)
