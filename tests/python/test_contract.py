"""Schemathesis, a contract tester nobody here wrote, against the sandbox from the exported
OpenAPI document: a bounded run (fixed seed, a few examples per operation) in which no
request may get a server error and no answer may break the export."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_the_v3_sandbox_keeps_the_contract_of_the_export() -> None:
    binary = ROOT / "target" / "debug" / ("sandbox.exe" if os.name == "nt" else "sandbox")
    sandbox = subprocess.Popen(
        [str(binary), "--addr", "127.0.0.1:0", "--rate-limit", "off"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert sandbox.stdout is not None
        url = sandbox.stdout.readline().rsplit(" ", 1)[-1].strip()
        assert url.endswith("/v3"), url
        st = pathlib.Path(sys.executable).with_name("st")
        run = subprocess.run(
            [
                str(st),
                "run",
                str(ROOT / "generated" / "openapi" / "v3.yaml"),
                "--url",
                url,
                "-H",
                "api-key-id: demo-key",
                "-H",
                "api-key-secret: demo-secret",
                "--checks",
                "not_a_server_error,response_schema_conformance",
                "--max-examples",
                "5",
                "--seed",
                "1",
                "--no-color",
            ],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=ROOT / "target",
        )
        assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
        assert "passed" in run.stdout
    finally:
        sandbox.terminate()
        sandbox.wait(timeout=10)
