"""Fixtures shared by the runtime tests (test_runtime_*.py) and the tests against the
sandbox. pytest's default import mode puts this folder on sys.path, which is how
`runtime_support` and the `conformance` package are found."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance.sandbox import Sandboxes
from package_check import installed_problem, origin
from runtime_support import Runner


def pytest_report_header() -> str:
    return origin()


def pytest_sessionstart(session: pytest.Session) -> None:
    """With ``INSPECTION_CLIENT_INSTALLED_IN`` set (the wheel runs of ``cargo xtask ci``),
    no test runs unless the package comes from that environment's installed wheel."""
    expected = os.environ.get("INSPECTION_CLIENT_INSTALLED_IN")
    if not expected:
        return
    problem = installed_problem(Path(expected))
    if problem is not None:
        pytest.exit(problem, returncode=4)
    # Shown even under -q, which hides the header.
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(f"testing {origin()}")


@pytest.fixture(scope="session")
def sandboxes() -> Iterator[Sandboxes]:
    """The sandbox processes of the session, one per set of flags, started on first use."""
    running = Sandboxes()
    try:
        yield running
    finally:
        running.stop_all()


@pytest.fixture(params=["sync", "async"])
def runner(request: pytest.FixtureRequest) -> Runner:
    return Runner(request.param)
