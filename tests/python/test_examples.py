"""The README's Python quick start (tests/python/examples/quickstart.py) runs, as written, against the sandbox."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_the_quickstart_runs_against_the_sandbox() -> None:
    binary = ROOT / "target" / "debug" / ("sandbox.exe" if os.name == "nt" else "sandbox")
    sandbox = subprocess.Popen([str(binary), "--addr", "127.0.0.1:0"], stdout=subprocess.PIPE, text=True)
    try:
        assert sandbox.stdout is not None
        first = sandbox.stdout.readline()
        url = first.rsplit(" ", 1)[-1].strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v3"), first
        env = {**os.environ, "INSPECTION_URL": url}
        run = subprocess.run(
            [sys.executable, str(ROOT / "tests/python/examples/quickstart.py")],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert run.returncode == 0, run.stderr
        out = run.stdout
        assert "created A-" in out
        assert "PDF bytes" in out and "fields" in out
        assert "vin: must be exactly 17 characters, got 9" in out
    finally:
        sandbox.terminate()
        sandbox.wait(timeout=10)
