"""Schemathesis, a contract tester nobody here wrote, against the sandbox from the exported
OpenAPI documents: a bounded run per interface (fixed seed, a few examples per operation) in
which no request may get a server error and no answer may break the export."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import urllib.request
from collections.abc import Iterator

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def sandbox_url() -> Iterator[str]:
    """The v3 URL of a sandbox without a rate limit, for this module's runs."""
    binary = ROOT / "target" / "debug" / ("sandbox.exe" if os.name == "nt" else "sandbox")
    sandbox = subprocess.Popen(
        [str(binary), "--addr", "127.0.0.1:0", "--rate-limit", "off"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert sandbox.stdout is not None
        url = sandbox.stdout.readline().rsplit(" ", 1)[-1].strip()
        assert url.endswith("/v3"), url
        yield url
    finally:
        sandbox.terminate()
        sandbox.wait(timeout=10)


def schemathesis(document: str, url: str, *headers: str) -> None:
    st = pathlib.Path(sys.executable).with_name("st")
    args = [str(st), "run", str(ROOT / "generated" / "openapi" / document), "--url", url]
    for header in headers:
        args += ["-H", header]
    args += [
        "--checks",
        "not_a_server_error,response_schema_conformance",
        "--max-examples",
        "5",
        "--seed",
        "1",
        "--no-color",
    ]
    # Its caches go under target/.
    run = subprocess.run(args, capture_output=True, text=True, timeout=300, cwd=ROOT / "target")
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    counts = [line.strip() for line in run.stdout.splitlines() if " generated, " in line]
    assert counts, run.stdout[-2000:]
    # `pytest -s` shows it: the figure the README quotes.
    print(f"schemathesis {document}: {counts[-1]}")


def test_the_v3_sandbox_keeps_the_contract_of_the_export(sandbox_url: str) -> None:
    schemathesis("v3.yaml", sandbox_url, "api-key-id: demo-key", "api-key-secret: demo-secret")


def test_the_legacy_sandbox_keeps_the_contract_of_the_export(sandbox_url: str) -> None:
    origin = sandbox_url.removesuffix("/v3")
    login = urllib.request.Request(
        f"{origin}/api/users/authenticate",
        data=json.dumps({"user": {"username": "manager@example.com", "password": "manager-pass"}}).encode(),
        headers={"content-type": "application/json", "accept": "application/json; version=1"},
        method="POST",
    )
    with urllib.request.urlopen(login, timeout=10) as answer:
        token = json.load(answer)["auth_token"]
    schemathesis(
        "legacy.yaml", origin, f"Authorization: Token {token}", "Accept: application/json; version=1"
    )
