"""The language-neutral conformance scenarios (tests/conformance/*.yaml, format in
tests/conformance/README.md) run with the generated Python client against the sandbox
binary: one pytest test per scenario and flavour (the blocking ``Client`` and the
``AsyncClient``). The Rust runner (tests/conformance.rs) is the reference and the
TypeScript one (tests/typescript/conformance.test.ts) its twin: the same defaults, the same
matching rules, the same error kinds. The runner itself is the package ``conformance``
beside this file; here is only the pytest glue.

    PYTHONPATH=generated/python/src pytest tests/python/test_conformance.py

``CONFORMANCE_ONLY=<part of a name>`` runs the scenarios whose name holds it;
``SANDBOX_BIN`` names another sandbox binary (default: target/debug/sandbox, under
``CARGO_TARGET_DIR`` when set).
"""

from __future__ import annotations

import asyncio
import os

import pytest

from conformance.driver import Flavour
from conformance.json_values import Json, RunnerError
from conformance.runner import ScenarioFailed, run_blocking, run_scenario
from conformance.sandbox import Sandboxes
from conformance.scenarios import Scenario, read_scenarios, scenarios_of


SCENARIOS = read_scenarios()
ONLY = os.environ.get("CONFORMANCE_ONLY", "")
FLAVOURS: tuple[Flavour, ...] = ("sync", "async")


@pytest.mark.parametrize(
    ("scenario", "flavour"),
    [
        pytest.param(scenario, flavour, id=f"{scenario.file}::{scenario.name}[{flavour}]")
        for scenario in SCENARIOS
        if ONLY in scenario.name
        for flavour in FLAVOURS
    ],
)
def test_scenario(sandboxes: Sandboxes, scenario: Scenario, flavour: Flavour) -> None:
    failure: str | None = None
    try:
        run = run_scenario(sandboxes.get(scenario.sandbox), scenario, flavour)
        if flavour == "sync":
            run_blocking(run)
        else:
            asyncio.run(run)
    except (RunnerError, ScenarioFailed) as e:
        failure = str(e)
    if failure is not None:
        pytest.fail(failure, pytrace=False)


def test_a_file_is_refused_for_a_key_or_mode_format_json_lacks_and_gets_its_defaults() -> None:
    def file(step: dict[str, Json], client: Json = None) -> list[Scenario]:
        doc: Json = {"scenarios": [{"name": "s", "interface": "v3", "client": client, "steps": [{"call": "list_units", **step}]}]}
        return scenarios_of("f", doc, set())

    with pytest.raises(RunnerError, match=r"^unknown key `oks` in scenarios\[0\]\.steps\[0\]\.expect$"):
        file({"expect": {"oks": 1}})
    with pytest.raises(RunnerError, match=r"^unknown key `header` in scenarios\[0\]\.steps\[0\]\.expect_requests\[0\]$"):
        file({"expect_requests": [{"method": "GET", "path": "/v3/units", "header": {}}]})
    with pytest.raises(RunnerError, match=r'^scenarios\[0\]\.steps\[0\]\.mode is one of send, pdf, .*, not "page"$'):
        file({"mode": "page"})
    [scenario] = file({}, {"timeout_ms": 50, "credentials": {"key_secret": "s3cr3t"}})
    assert scenario.client.timeout_ms == 50
    assert scenario.client.max_attempts == 4
    assert scenario.client.credentials == {"key_id": "demo-key", "key_secret": "s3cr3t"}
