"""The OpenTelemetry recipe of docs/python.md (tests/python/examples/otel_tracing.py, quoted
there word for word) through a real SDK against the sandbox: a client span per attempt,
named `{method} {url_template}`, with the HTTP client attributes, and no secret in any."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from inspection_client import ClientOptions, Secret, legacy, v3

from conformance.sandbox import Sandbox, Sandboxes
from conformance.scenarios import SandboxSpec
from examples.otel_tracing import tracing_hooks

ROOT = Path(__file__).resolve().parents[2]
FLAVOURS = ["sync", "async"]
SECRETS = ("demo-secret", "user-pass")


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    exported = InMemorySpanExporter()
    yield exported
    exported.shutdown()


def options(exporter: InMemorySpanExporter, **kw: Any) -> ClientOptions:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    hooks = tracing_hooks(provider.get_tracer("inspection-test"))
    return ClientOptions(rate_limit=None, initial_backoff=0.01, poll_interval=0.01, hooks=hooks, **kw)


def fresh(sandboxes: Sandboxes) -> Sandbox:
    sandbox = sandboxes.get(SandboxSpec(args=("--rate-limit", "off")))
    sandbox.control("POST", "/_sandbox/reset")
    return sandbox


def attributes(span: ReadableSpan) -> dict[str, Any]:
    return dict(span.attributes or {})


def assert_no_secret(spans: tuple[ReadableSpan, ...], words: set[str]) -> None:
    for span in spans:
        for value in [span.name, *(str(v) for v in attributes(span).values())]:
            assert all(word not in value for word in words), (span.name, attributes(span))


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_span_per_attempt_with_the_http_client_attributes(
    sandboxes: Sandboxes, exporter: InMemorySpanExporter, flavour: str
) -> None:
    sandbox = fresh(sandboxes)
    sandbox.control("POST", "/_sandbox/script", [
        {"method": "GET", "path": "/v3/units/unt_001", "status": 503},
        {"method": "GET", "path": "/v3/units/unt_002", "delay_ms": 2000},
    ])
    # The scripted delay outlasts the attempt's timeout by far; the retry is unscripted and
    # answers at once, with room for a loaded machine (0.2 s once timed a retry out too).
    opts = options(exporter, timeout=0.6)
    key = v3.ApiKey("demo-key", "demo-secret")
    if flavour == "sync":
        with v3.Client(f"{sandbox.origin}/v3", key, options=opts) as client:
            client.get_unit(v3.UnitId("unt_001"))
            client.get_unit(v3.UnitId("unt_002"))
    else:

        async def calls() -> None:
            async with v3.AsyncClient(f"{sandbox.origin}/v3", key, options=opts) as client:
                await client.get_unit(v3.UnitId("unt_001"))
                await client.get_unit(v3.UnitId("unt_002"))

        asyncio.run(calls())
    spans = exporter.get_finished_spans()
    assert [s.name for s in spans] == ["GET /units/{unit_id}"] * 4
    assert all(s.kind == SpanKind.CLIENT for s in spans)
    port = int(sandbox.origin.rsplit(":", 1)[1])
    common = {
        "http.request.method": "GET",
        "url.template": "/units/{unit_id}",
        "server.address": "127.0.0.1",
        "server.port": port,
    }
    assert [attributes(s) for s in spans] == [
        {**common, "http.response.status_code": 503, "error.type": "503"},
        {**common, "http.request.resend_count": 1, "http.response.status_code": 200},
        # A timed-out attempt has no status: its error says why.
        {**common, "error.type": "timeout"},
        {**common, "http.request.resend_count": 1, "http.response.status_code": 200},
    ]
    assert [s.status.status_code for s in spans] == [StatusCode.ERROR, StatusCode.UNSET, StatusCode.ERROR, StatusCode.UNSET]
    assert_no_secret(spans, {*SECRETS, "unt_001", "unt_002"})


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_re_login_is_a_span_of_its_own_and_the_resend_counts(
    sandboxes: Sandboxes, exporter: InMemorySpanExporter, flavour: str
) -> None:
    sandbox = fresh(sandboxes)
    opts = options(exporter)
    credentials = legacy.AuthenticateRequest(user=legacy.Credentials(username="user@example.com", password=Secret("user-pass")))
    if flavour == "sync":
        with legacy.Client.login(sandbox.origin, credentials, options=opts) as client:
            sandbox.control("POST", "/_sandbox/legacy/revoke_tokens")
            client.list_locations().first()
    else:

        async def calls() -> None:
            async with await legacy.AsyncClient.login(sandbox.origin, credentials, options=opts) as client:
                sandbox.control("POST", "/_sandbox/legacy/revoke_tokens")
                await client.list_locations().first()

        asyncio.run(calls())
    spans = exporter.get_finished_spans()
    assert [(s.name, attributes(s).get("http.response.status_code"), attributes(s).get("http.request.resend_count")) for s in spans] == [
        ("POST /api/users/authenticate", 200, None),
        ("GET /api/locations", 401, None),
        ("POST /api/users/authenticate", 200, None),
        ("GET /api/locations", 200, 1),
    ]
    assert attributes(spans[1])["error.type"] == "401"
    tokens = set()
    recorded = sandbox.control("GET", "/_sandbox/requests")
    assert isinstance(recorded, list)
    for request in recorded:
        assert isinstance(request, dict) and isinstance(request["headers"], dict)
        authorization = request["headers"].get("authorization")
        if isinstance(authorization, str):
            tokens.add(authorization.split(" ", 1)[1])
    assert len(tokens) == 2
    assert_no_secret(spans, {*SECRETS, *tokens})


def test_the_docs_quote_the_recipe_word_for_word() -> None:
    recipe = (ROOT / "tests/python/examples/otel_tracing.py").read_text()
    docs = (ROOT / "docs/python.md").read_text()
    assert f"```python\n{recipe}```" in docs
