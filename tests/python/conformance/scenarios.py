"""The scenario format of tests/conformance/README.md: every file read and checked (against
format.json) into `Scenario`s, a malformed one failing the whole run."""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Literal

import yaml

from conformance import ROOT
from conformance.format import read_format
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


#: A step's `mode` (format.json has the values every runner accepts).
Mode = Literal["send", "pdf", "pages", "items", "pages_backward", "items_backward", "items_resumed"]
Interface = Literal["v3", "legacy"]
_T = typing.TypeVar("_T")


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
    """Client settings: the scenario's, else the defaults of format.json."""

    #: The interface's credentials by their names in the file (`key_id`, `password`, ...).
    credentials: dict[str, str]
    rate_limit: RateLimitSpec | None
    max_attempts: float
    initial_backoff_ms: float
    max_backoff_ms: float
    timeout_ms: float
    validate: bool
    max_polls: float
    poll_interval_ms: float
    max_response_bytes: float
    max_error_bytes: float
    max_empty_pages: float


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
    m = mapping(value, what)
    args = m.get("args")
    args = [] if args is None else args
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise RunnerError(f"{what}.args is a list of strings, not {show(args)}")
    proxy = opt_bool(m, "proxy", what)
    return SandboxSpec(args=tuple(a for a in args if isinstance(a, str)), proxy=proxy is True)


def read_client(m: JsonObject, what: str) -> ClientSpec:
    """The client settings, the defaults already filled in (`Format.client`)."""

    def needed(v: _T | None, key: str, at: str) -> _T:
        if v is None:
            raise RunnerError(f"{at} needs {key}")
        return v

    def setting(key: str) -> float:
        return needed(opt_number(m, key, what), key, what)

    at = f"{what}.credentials"
    given = mapping(m.get("credentials"), at)
    credentials = {key: needed(opt_string(given, key, at), key, at) for key in given}
    rate_limit: RateLimitSpec | None = None
    if m.get("rate_limit") is not None:
        at = f"{what}.rate_limit"
        r = mapping(m["rate_limit"], at)
        rate_limit = RateLimitSpec(
            needed(opt_number(r, "requests", at), "requests", at), needed(opt_number(r, "window_ms", at), "window_ms", at)
        )
    return ClientSpec(
        credentials=credentials,
        rate_limit=rate_limit,
        max_attempts=setting("max_attempts"),
        initial_backoff_ms=setting("initial_backoff_ms"),
        max_backoff_ms=setting("max_backoff_ms"),
        timeout_ms=setting("timeout_ms"),
        validate=needed(opt_bool(m, "validate", what), "validate", what),
        max_polls=setting("max_polls"),
        poll_interval_ms=setting("poll_interval_ms"),
        max_response_bytes=setting("max_response_bytes"),
        max_error_bytes=setting("max_error_bytes"),
        max_empty_pages=setting("max_empty_pages"),
    )


def read_step(value: Json, what: str) -> Step:
    m = mapping(value, what)
    # format.json allows only the modes there are.
    mode = typing.cast(Mode, opt_string(m, "mode", what) or "send")
    call = opt_string(m, "call", what)
    control: str | None = None
    control_body: Json | _Absent = ABSENT
    given = m.get("sandbox")
    if isinstance(given, dict):
        c = mapping(given, f"{what}.sandbox")
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
        e = mapping(m["expect"], f"{what}.expect")
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
    names: set[str] = set()
    scenarios: list[Scenario] = []
    for path in files:
        try:
            scenarios += scenarios_of(path.stem, load_yaml(path), names)
        except (RunnerError, yaml.YAMLError) as e:
            raise RunnerError(f"{path.name}: {e}") from None
    return scenarios


def scenarios_of(file: str, doc: Json, names: set[str]) -> list[Scenario]:
    """The scenarios of the file ``file`` (its stem), ``doc`` as parsed, checked against
    format.json; ``names`` holds the names seen so far, across files, and gets these."""
    read_format().check(doc, "file", "")
    top = mapping(doc, "the file")
    file_sandbox = sandbox_spec(top.get("sandbox"), "sandbox")
    entries = top.get("scenarios")
    if not isinstance(entries, list):
        raise RunnerError("`scenarios` is a list")
    scenarios: list[Scenario] = []
    for i, entry in enumerate(entries):
        at = f"scenario {i + 1}"
        s = mapping(entry, at)
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
                file=file,
                name=name,
                interface=interface,
                sandbox=file_sandbox if s.get("sandbox") is None else sandbox_spec(s["sandbox"], f"{name}: sandbox"),
                client=read_client(read_format().client(interface, s.get("client")), f"{name}: client"),
                script=script,
                steps=[read_step(step, f"{name}: step {j + 1}") for j, step in enumerate(steps)],
            )
        )
    return scenarios
