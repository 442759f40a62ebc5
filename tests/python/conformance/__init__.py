"""The Python runner of the conformance scenarios (tests/conformance/*.yaml), used by
tests/python/test_conformance.py:

* json_values: JSON as the runner holds it, the marker of an absent key, RunnerError;
* yaml_core: reading the files with the YAML 1.2 core schema;
* format: the scenario format as data (tests/conformance/format.json), every runner's;
* scenarios: the scenario files, read and checked against it;
* sandbox: the sandbox processes, the proxies in front of some, and the control endpoints;
* patterns: `${...}` references, expectation patterns and the expected requests;
* results: a call's outcome, its errors and answers as JSON;
* driver: where the blocking and the async client differ;
* calls: a step's arguments turned into a call of the generated client;
* webhooks: the `listen` and `deliveries` actions, with their HTTP listener;
* runner: a scenario run step by step.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]



