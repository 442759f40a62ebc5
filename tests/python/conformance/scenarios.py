"""The scenario format of tests/conformance/README.md: every file read and checked into
`Scenario`s, a malformed one failing the whole run."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import yaml

from conformance import ROOT
from conformance.json_values import (
    ABSENT,
    Json,
    JsonObject,
    RunnerError,
    _Absent,
    mapping,
    opt_bool,
    opt_number,
    opt_string,
    show,
)
from conformance.yaml_core import load_yaml


SCENARIO_DIR = ROOT / "tests" / "conformance"


Mode = Literal["send", "pdf", "pages", "items", "pages_backward", "items_backward", "items_resumed"]
MODES: tuple[Mode, ...] = ("send", "pdf", "pages", "items", "pages_backward", "items_backward", "items_resumed")
Interface = Literal["v3", "legacy"]


@dataclass(frozen=True)
class Step:
    call: str | None
    #: `METHOD /_sandbox/...` of a `sandbox` step, and its JSON body when one is given.
    control: str | None
    control_body: Json | _Absent
    args: Json | _Absent
    mode: Mode
    save: str | None
    #: `ok`, `equals`, `count`, `error`: only the keys given (`equals: null` is given).
    expect: JsonObject
    expect_requests: list[Json] | None
    #: Every event the client reports during the step, when given.
    expect_events: list[Json] | None
    min_ms: float | None
    max_ms: float | None


@dataclass(frozen=True)
class RateLimitSpec:
    requests: float
    window_ms: float


@dataclass(frozen=True)
class ClientSpec:
    credentials: dict[str, str] = field(default_factory=dict)
    rate_limit: RateLimitSpec | None = None
    max_attempts: float | None = None
    initial_backoff_ms: float | None = None
    max_backoff_ms: float | None = None
    timeout_ms: float | None = None
    validate: bool | None = None
    max_polls: float | None = None
    poll_interval_ms: float | None = None
    max_response_bytes: float | None = None
    max_error_bytes: float | None = None
    max_empty_pages: float | None = None


@dataclass(frozen=True)
class SandboxSpec:
    """A file's or a scenario's `sandbox:`: the sandbox's flags, and whether a proxy
    (`sandbox forward`) is put in front of it. One sandbox runs per distinct spec."""

    args: tuple[str, ...] = ()
    proxy: bool = False


@dataclass(frozen=True)
class Scenario:
    file: str
    name: str
    interface: Interface
    sandbox: SandboxSpec
    client: ClientSpec
    script: list[Json]
    steps: list[Step]


def sandbox_spec(value: Json, what: str) -> SandboxSpec:
    if value is None:
        return SandboxSpec()
    m = mapping(value, what, ["args", "proxy"])
    args = m.get("args")
    args = [] if args is None else args
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise RunnerError(f"{what}.args is a list of strings, not {show(args)}")
    proxy = opt_bool(m, "proxy", what)
    return SandboxSpec(args=tuple(a for a in args if isinstance(a, str)), proxy=proxy is True)


CLIENT_KEYS = (
    "credentials",
    "rate_limit",
    "max_attempts",
    "initial_backoff_ms",
    "max_backoff_ms",
    "timeout_ms",
    "validate",
    "max_polls",
    "poll_interval_ms",
    "max_response_bytes",
    "max_error_bytes",
    "max_empty_pages",
)


def read_client(value: Json, what: str) -> ClientSpec:
    if value is None:
        return ClientSpec()
    m = mapping(value, what, CLIENT_KEYS)
    credentials: dict[str, str] = {}
    if m.get("credentials") is not None:
        at = f"{what}.credentials"
        c = mapping(m["credentials"], at, ["key_id", "key_secret", "username", "password"])
        for key in ("key_id", "key_secret", "username", "password"):
            v = opt_string(c, key, at)
            if v is not None:
                credentials[key] = v
    rate_limit: RateLimitSpec | None = None
    if m.get("rate_limit") is not None:
        at = f"{what}.rate_limit"
        r = mapping(m["rate_limit"], at, ["requests", "window_ms"])
        requests = opt_number(r, "requests", at)
        window_ms = opt_number(r, "window_ms", at)
        if requests is None or window_ms is None:
            raise RunnerError(f"{at} needs requests and window_ms")
        rate_limit = RateLimitSpec(requests, window_ms)
    return ClientSpec(
        credentials=credentials,
        rate_limit=rate_limit,
        max_attempts=opt_number(m, "max_attempts", what),
        initial_backoff_ms=opt_number(m, "initial_backoff_ms", what),
        max_backoff_ms=opt_number(m, "max_backoff_ms", what),
        timeout_ms=opt_number(m, "timeout_ms", what),
        validate=opt_bool(m, "validate", what),
        max_polls=opt_number(m, "max_polls", what),
        poll_interval_ms=opt_number(m, "poll_interval_ms", what),
        max_response_bytes=opt_number(m, "max_response_bytes", what),
        max_error_bytes=opt_number(m, "max_error_bytes", what),
        max_empty_pages=opt_number(m, "max_empty_pages", what),
    )


STEP_KEYS = (
    "call",
    "sandbox",
    "args",
    "mode",
    "save",
    "expect",
    "expect_requests",
    "expect_events",
    "min_ms",
    "max_ms",
)


def read_step(value: Json, what: str) -> Step:
    m = mapping(value, what, STEP_KEYS)
    mode = m.get("mode", "send")
    if mode not in MODES or not isinstance(mode, str):
        raise RunnerError(f"{what}.mode is one of {', '.join(MODES)}, not {show(mode)}")
    call = opt_string(m, "call", what)
    control: str | None = None
    control_body: Json | _Absent = ABSENT
    given = m.get("sandbox")
    if isinstance(given, dict):
        c = mapping(given, f"{what}.sandbox", ["request", "body"])
        control = opt_string(c, "request", f"{what}.sandbox")
        if control is None:
            raise RunnerError(f"{what}.sandbox needs `request`")
        control_body = c["body"] if "body" in c else ABSENT
    else:
        control = opt_string(m, "sandbox", what)
    if (call is None) == (control is None):
        raise RunnerError(f"{what} has exactly one of `call` and `sandbox`")
    expect: JsonObject = {}
    if m.get("expect") is not None:
        e = mapping(m["expect"], f"{what}.expect", ["ok", "equals", "count", "error"])
        # A key that is there counts, even with the value null (`equals: null`).
        for key in ("ok", "equals"):
            if key in e:
                expect[key] = e[key]
        count = opt_number(e, "count", f"{what}.expect")
        if count is not None:
            expect["count"] = count
        if e.get("error") is not None:
            expect["error"] = e["error"]
    requests = m.get("expect_requests")
    if requests is not None and not isinstance(requests, list):
        raise RunnerError(f"{what}.expect_requests is a list, not {show(requests)}")
    events: list[Json] | None = None
    if "expect_events" in m:
        given_events = m["expect_events"]
        if not isinstance(given_events, list):
            raise RunnerError(f"{what}.expect_events is a list, not {show(given_events)}")
        if call is None:
            raise RunnerError(f"{what}: `expect_events` goes with `call`")
        events = given_events
    return Step(
        call=call,
        control=control,
        control_body=control_body,
        args=m["args"] if "args" in m else ABSENT,
        mode=mode,
        save=opt_string(m, "save", what),
        expect=expect,
        expect_requests=requests,
        expect_events=events,
        min_ms=opt_number(m, "min_ms", what),
        max_ms=opt_number(m, "max_ms", what),
    )


def read_scenarios() -> list[Scenario]:
    """Every scenario of every file, in file order; a malformed file fails the whole run."""
    files = sorted(SCENARIO_DIR.glob("*.yaml"))
    assert files, f"no scenario files in {SCENARIO_DIR}"
    scenarios: list[Scenario] = []
    names: set[str] = set()
    for path in files:
        try:
            top = mapping(load_yaml(path), "the file", ["description", "sandbox", "definitions", "scenarios"])
            file_sandbox = sandbox_spec(top.get("sandbox"), "sandbox")
            entries = top.get("scenarios")
            if not isinstance(entries, list):
                raise RunnerError("`scenarios` is a list")
            for i, entry in enumerate(entries):
                at = f"scenario {i + 1}"
                s = mapping(entry, at, ["name", "interface", "sandbox", "client", "script", "steps"])
                name = opt_string(s, "name", at)
                if name is None:
                    raise RunnerError(f"{at} has no name")
                if name in names:
                    raise RunnerError(f"the scenario name `{name}` is used twice")
                names.add(name)
                iface = s.get("interface")
                if iface != "v3" and iface != "legacy":
                    raise RunnerError(f"{name}: interface is v3 or legacy, not {show(iface)}")
                interface: Interface = "v3" if iface == "v3" else "legacy"
                script = s.get("script")
                script = [] if script is None else script
                if not isinstance(script, list):
                    raise RunnerError(f"{name}: script is a list")
                steps = s.get("steps")
                if not isinstance(steps, list) or not steps:
                    raise RunnerError(f"{name}: has no steps")
                scenarios.append(
                    Scenario(
                        file=path.stem,
                        name=name,
                        interface=interface,
                        sandbox=file_sandbox
                        if s.get("sandbox") is None
                        else sandbox_spec(s["sandbox"], f"{name}: sandbox"),
                        client=read_client(s.get("client"), f"{name}: client"),
                        script=script,
                        steps=[read_step(step, f"{name}: step {j + 1}") for j, step in enumerate(steps)],
                    )
                )
        except (RunnerError, yaml.YAMLError) as e:
            raise RunnerError(f"{path.name}: {e}") from None
    return scenarios
