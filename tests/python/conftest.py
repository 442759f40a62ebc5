"""Fixtures shared by the runtime tests (test_runtime_*.py) and the tests against the
sandbox. pytest's default import mode puts this folder on sys.path, which is how
`runtime_support` and the `conformance` package are found."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from conformance.sandbox import Sandboxes
from runtime_support import Runner


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
