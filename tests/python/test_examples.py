"""The Python examples (tests/python/examples/: the README's quick start and docs/python.md's tour) run, as written, against the sandbox."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

from conformance.sandbox import sandbox_binary

ROOT = pathlib.Path(__file__).resolve().parents[2]


def run_example(name: str) -> str:
    """Runs `tests/python/examples/<name>` against a fresh sandbox; its standard output."""
    sandbox = subprocess.Popen([str(sandbox_binary()), "--addr", "127.0.0.1:0"], stdout=subprocess.PIPE, text=True)
    try:
        assert sandbox.stdout is not None
        first = sandbox.stdout.readline()
        url = first.rsplit(" ", 1)[-1].strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v3"), first
        env = {**os.environ, "INSPECTION_URL": url}
        run = subprocess.run(
            [sys.executable, str(ROOT / "tests/python/examples" / name)],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert run.returncode == 0, run.stderr
        return run.stdout
    finally:
        sandbox.terminate()
        sandbox.wait(timeout=10)


def test_the_quickstart_runs_against_the_sandbox() -> None:
    out = run_example("quickstart.py")
    assert "created unit " in out
    assert ", results: " in out


def test_the_tour_runs_against_the_sandbox() -> None:
    out = run_example("tour.py")
    assert "created A-" in out
    assert "PDF bytes" in out and "fields" in out
    assert "vin: must be exactly 17 characters, got 9" in out
