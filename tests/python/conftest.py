"""Fixtures shared by the runtime tests (test_runtime_*.py). pytest's default import mode
puts this folder on sys.path, which is how `runtime_support` and the `conformance`
package are found."""

from __future__ import annotations

import pytest

from runtime_support import Runner


@pytest.fixture(params=["sync", "async"])
def runner(request: pytest.FixtureRequest) -> Runner:
    return Runner(request.param)
