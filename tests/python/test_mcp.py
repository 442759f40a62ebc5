"""`inspection mcp` driven by an independent MCP client: the official Python SDK (pinned in
requirements.in), over stdio as an assistant starts it and over streamable HTTP, against the
sandbox. Lists the read-only tools (each schema valid JSON Schema, each an operation of the
IR with its required inputs), pages through inspections, picks fields, reads a PDF as a
resource, is stopped by the validators (the sandbox counts no request) and by the write gate,
and never sees a secret; the legacy interface likewise. Needs the tool built with its `mcp`
feature (`cargo test` builds it; `INSPECTION_BIN` names another)."""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from conformance import ROOT
from conformance.sandbox import Sandbox, Sandboxes
from conformance.scenarios import SandboxSpec

SECRET = "demo-secret"
LEGACY_PASSWORD = "manager-pass"


def inspection_binary() -> Path:
    given = os.environ.get("INSPECTION_BIN", "")
    target = os.environ.get("CARGO_TARGET_DIR", "") or str(ROOT / "target")
    binary = Path(given) if given else Path(target) / "debug" / "inspection"
    if not binary.exists():
        pytest.fail(f"{binary} is missing: cargo build -p inspection-cli --features inspection-cli-runtime/mcp")
    return binary


def environment(sandbox: Sandbox) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "INSPECTION_CONFIG_DIR": "/nonexistent/inspection-tests",
        "INSPECTION_V3_BASE_URL": f"{sandbox.origin}/v3",
        "INSPECTION_V3_API_KEY_ID": "demo-key",
        "INSPECTION_V3_API_KEY_SECRET": SECRET,
        "INSPECTION_LEGACY_BASE_URL": sandbox.origin,
        "INSPECTION_LEGACY_USERNAME": "manager@example.com",
        "INSPECTION_LEGACY_PASSWORD": LEGACY_PASSWORD,
    }


class Transcript:
    """Every answer of a session and the server's standard error, for the secret check."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.errlog = tempfile.TemporaryFile(mode="w+")

    def add(self, value: Any) -> Any:
        self.parts.append(value.model_dump_json() if hasattr(value, "model_dump_json") else json.dumps(value))
        return value

    def check(self) -> None:
        self.errlog.seek(0)
        text = "".join(self.parts) + self.errlog.read()
        assert SECRET not in text and LEGACY_PASSWORD not in text, "a secret in the session"


@asynccontextmanager
async def stdio(sandbox: Sandbox, interface: str, *flags: str) -> AsyncIterator[tuple[ClientSession, Transcript]]:
    params = StdioServerParameters(command=str(inspection_binary()), args=["mcp", interface, *flags], env=environment(sandbox))
    transcript = Transcript()
    async with stdio_client(params, errlog=transcript.errlog) as (read, write):
        async with ClientSession(read, write) as session:
            transcript.add(await session.initialize())
            yield session, transcript
    transcript.check()


async def call(session: ClientSession, transcript: Transcript, name: str, arguments: dict[str, Any]) -> tuple[bool, Any]:
    """(is an error, the answer's JSON or the error's text)."""
    result = transcript.add(await session.call_tool(name, arguments))
    text = result.content[0].text if result.content else ""
    if result.is_error:
        return True, text
    return False, result.structured_content if result.structured_content is not None else json.loads(text)


def ir_operations(interface: str) -> dict[str, Any]:
    ir = json.loads((ROOT / "generated" / "ir.json").read_text())
    found = next(i for i in ir["interfaces"] if i["name"] == interface)
    return {op["name"]: op for op in found["operations"]}


def requests(sandbox: Sandbox) -> int:
    stats = sandbox.control("GET", "/_sandbox/stats")
    assert isinstance(stats, dict)
    count = stats["requests"]
    assert isinstance(count, int)
    return count


def check_tools(tools: list[Any], interface: str, writes: bool) -> None:
    operations = ir_operations(interface)
    assert tools, "no tool"
    for tool in tools:
        jsonschema.Draft202012Validator.check_schema(tool.input_schema)
        op = operations[tool.name]
        required = set(tool.input_schema.get("required", []))
        for param in op["path_params"]:
            assert param["name"] in required, f"{tool.name}: path parameter {param['name']} is not required"
        assert tool.annotations.read_only_hint == (op["method"] == "GET"), tool.name
        assert len(tool.name) <= 64
    assert any(not t.annotations.read_only_hint for t in tools) == writes


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    running = Sandboxes()
    try:
        yield running.get(SandboxSpec(args=("--inspections", "60")))
    finally:
        running.stop_all()


def test_v3_over_stdio_reads_pages_picks_fields_and_reads_a_pdf(sandbox: Sandbox) -> None:
    async def run() -> None:
        async with stdio(sandbox, "v3") as (session, transcript):
            tools = transcript.add(await session.list_tools()).tools
            check_tools(tools, "v3", writes=False)
            seen: list[str] = []
            cursor = None
            while True:
                arguments: dict[str, Any] = {"max_items": 25}
                if cursor:
                    arguments["cursor"] = cursor
                error, page = await call(session, transcript, "list_inspections", arguments)
                assert not error, page
                seen += [item["id"] for item in page["items"]]
                cursor = page["next_cursor"]
                if not cursor:
                    break
            assert len(seen) == len(set(seen)) == 63, len(seen)
            error, unit = await call(session, transcript, "get_unit", {"unit_id": "unt_001", "fields": ["id", "make"]})
            assert not error and set(unit) == {"id", "make"}, unit
            error, inspection = await call(session, transcript, "get_inspection", {"inspection_id": seen[0]})
            assert not error, inspection
            read = transcript.add(await session.read_resource(inspection["pdf_resource"]))
            blob = read.contents[0].blob
            assert base64.b64decode(blob).startswith(b"%PDF"), "a PDF"
            error, refused = await call(session, transcript, "create_task", {"body": {}})
            assert error and "--allow create_task" in refused, refused

    anyio.run(run)


def test_v3_writes_are_gated_and_checked_before_sending(sandbox: Sandbox) -> None:
    async def run() -> None:
        async with stdio(sandbox, "v3", "--allow-writes") as (session, transcript):
            check_tools(transcript.add(await session.list_tools()).tools, "v3", writes=True)
            before = requests(sandbox)
            body = {"name": "n" * 300, "reference_number": "EX-0117", "due_by": "2026-12-01", "assignee_username": "sam.lee@example.com"}
            error, refused = await call(session, transcript, "create_task", {"body": body})
            assert error and "name: must be at most 255 characters, got 300" in refused, refused
            assert requests(sandbox) == before, "nothing is sent"

    anyio.run(run)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_v3_over_streamable_http(sandbox: Sandbox) -> None:
    port = free_port()
    server = subprocess.Popen(
        [str(inspection_binary()), "mcp", "v3", "--listen", f"127.0.0.1:{port}"],
        env=environment(sandbox),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)

        async def run() -> None:
            transcript = Transcript()
            async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write, *_):
                async with ClientSession(read, write) as session:
                    transcript.add(await session.initialize())
                    check_tools(transcript.add(await session.list_tools()).tools, "v3", writes=False)
                    error, page = await call(session, transcript, "list_units", {"max_items": 2})
                    assert not error and len(page["items"]) == 2, page
            transcript.check()

        anyio.run(run)
    finally:
        server.terminate()
        _, err = server.communicate(timeout=20)
        assert SECRET not in err


def test_legacy_over_stdio_pages_and_gates_writes(sandbox: Sandbox) -> None:
    async def run() -> None:
        async with stdio(sandbox, "legacy") as (session, transcript):
            check_tools(transcript.add(await session.list_tools()).tools, "legacy", writes=False)
            error, page = await call(session, transcript, "list_transactions", {"max_items": 2})
            assert not error and len(page["items"]) == 2, page
            assert page["next_cursor"], "more pages"
            error, more = await call(session, transcript, "list_transactions", {"max_items": 2, "cursor": page["next_cursor"]})
            assert not error and {t["id"] for t in more["items"]}.isdisjoint({t["id"] for t in page["items"]})
            error, refused = await call(session, transcript, "create_transaction", {"body": {}})
            assert error and "--allow create_transaction" in refused, refused

    anyio.run(run)
