"""The language-neutral conformance scenarios (tests/conformance/*.yaml, format in
tests/conformance/README.md) run with the generated Python client against the sandbox
binary: one pytest test per scenario and flavour (the blocking ``Client`` and the
``AsyncClient``). The Rust runner (tests/conformance.rs) is the reference and the
TypeScript one (tests/typescript/conformance.test.ts) its twin: the same defaults, the same
matching rules, the same error kinds.

    PYTHONPATH=generated/python/src pytest tests/python/test_conformance.py

``CONFORMANCE_ONLY=<part of a name>`` runs the scenarios whose name holds it;
``SANDBOX_BIN`` names another sandbox binary (default: target/debug/sandbox, under
``CARGO_TARGET_DIR`` when set).

Both flavours run through the same steps, written once as a coroutine: a blocking call is
taken as it is, an async one awaited; paged lists are walked with ``for`` or ``async for``.
The async flavour runs in ``asyncio.run``; the blocking one with no event loop at all (its
coroutine never waits on anything, so it is stepped to its end directly).

What an operation takes comes from the generated client module's constant for it
(``_GET_UNIT``: path parameters, query fields with their descriptors, the body's
descriptor); the scenario's JSON is read through those descriptors into the client's typed
inputs (a body into its dataclass, a date-time query value into a ``datetime``), and the
results are written back with the models' ``to_json()``.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import enum
import inspect
import json
import keyword
import math
import os
import queue
import re
import subprocess
import threading
import time
import traceback
import typing
from collections.abc import AsyncIterable, Awaitable, Callable, Coroutine, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Union

import httpx
import pytest
import yaml

import inspection_client.legacy.client as legacy_client
import inspection_client.v3.client as v3_client
from inspection_client import (
    SELF,
    ApiError,
    AsyncPaged,
    ClientOptions,
    ConfigError,
    DecodeError,
    ExternalId,
    ForeignOriginError,
    InspectionError,
    NotReadyError,
    Paged,
    PagingStalledError,
    RateLimit,
    RequestTimeoutError,
    Secret,
    TransportError,
    Unknown,
    Upserted,
    ValidationError,
    legacy,
    v3,
)
from inspection_client._runtime import codec
from inspection_client._runtime.operation import Operation, PagingPlan

# ---------------------------------------------------------------- JSON and the files

Json = Union[None, bool, int, float, str, list["Json"], dict[str, "Json"]]
JsonObject = dict[str, Json]

ROOT = Path(__file__).resolve().parents[2]
SCENARIO_DIR = ROOT / "tests" / "conformance"


class _Absent(enum.Enum):
    """A key that is not there (JSON's ``undefined``), as opposed to a ``null``."""

    ABSENT = 0


ABSENT = _Absent.ABSENT


class RunnerError(Exception):
    """A fault of the scenario or of the client's shape (not an outcome of a call): fails
    the step with its message."""


def show(value: Json | _Absent) -> str:
    if value is ABSENT:
        return "nothing"
    return json.dumps(value, ensure_ascii=False)


def mapping(value: Json | _Absent, what: str, allowed: Sequence[str]) -> JsonObject:
    """``value`` as a mapping with only ``allowed`` keys, or a RunnerError."""
    if not isinstance(value, dict):
        raise RunnerError(f"{what} is a mapping, not {show(value)}")
    unknown = [k for k in value if k not in allowed]
    if unknown:
        raise RunnerError(f"unknown key `{'`, `'.join(unknown)}` in {what}")
    return value


def is_number(value: object) -> typing.TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def opt_string(m: JsonObject, key: str, what: str) -> str | None:
    v = m.get(key)
    if v is None:
        return None
    if not isinstance(v, str):
        raise RunnerError(f"{what}.{key} is a string, not {show(v)}")
    return v


def opt_number(m: JsonObject, key: str, what: str) -> float | None:
    v = m.get(key)
    if v is None:
        return None
    if not is_number(v):
        raise RunnerError(f"{what}.{key} is a number, not {show(v)}")
    return v


def opt_bool(m: JsonObject, key: str, what: str) -> bool | None:
    v = m.get(key)
    if v is None:
        return None
    if not isinstance(v, bool):
        raise RunnerError(f"{what}.{key} is a boolean, not {show(v)}")
    return v


# -- YAML 1.2 core schema: `yes`, `on` are strings, dates stay strings, `0o17` is octal.


class CoreLoader(yaml.SafeLoader):
    """PyYAML's safe loader with the implicit types of the YAML 1.2 core schema only:
    null, true/false, integers and floats; everything else plain is a string."""

    yaml_implicit_resolvers: dict[typing.Any, typing.Any] = {}


_CORE_INT = re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
_CORE_FLOAT = re.compile(
    r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
CoreLoader.add_implicit_resolver("tag:yaml.org,2002:null", re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""])
CoreLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
CoreLoader.add_implicit_resolver("tag:yaml.org,2002:int", _CORE_INT, list("-+0123456789"))
CoreLoader.add_implicit_resolver("tag:yaml.org,2002:float", _CORE_FLOAT, list("-+0123456789."))


def _core_scalar(loader: yaml.SafeLoader, node: yaml.Node) -> str:
    if not isinstance(node, yaml.ScalarNode):
        raise yaml.constructor.ConstructorError(None, None, "expected a scalar", node.start_mark)
    return loader.construct_scalar(node)


def _core_null(loader: yaml.SafeLoader, node: yaml.Node) -> None:
    _core_scalar(loader, node)


def _core_bool(loader: yaml.SafeLoader, node: yaml.Node) -> bool:
    text = _core_scalar(loader, node)
    if text in ("true", "True", "TRUE"):
        return True
    if text in ("false", "False", "FALSE"):
        return False
    raise yaml.constructor.ConstructorError(None, None, f"not a boolean: {text!r}", node.start_mark)


def _core_int(loader: yaml.SafeLoader, node: yaml.Node) -> int:
    text = _core_scalar(loader, node)
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text, 10)


def _core_float(loader: yaml.SafeLoader, node: yaml.Node) -> float:
    text = _core_scalar(loader, node)
    value = float(text)
    if not math.isfinite(value):
        # Not JSON: a scenario file is a JSON document once parsed.
        raise yaml.constructor.ConstructorError(None, None, f"not a JSON number: {text}", node.start_mark)
    return value


CoreLoader.add_constructor("tag:yaml.org,2002:null", _core_null)
CoreLoader.add_constructor("tag:yaml.org,2002:bool", _core_bool)
CoreLoader.add_constructor("tag:yaml.org,2002:int", _core_int)
CoreLoader.add_constructor("tag:yaml.org,2002:float", _core_float)


def as_json(value: object, at: str = "") -> Json:
    """The parsed YAML as JSON, or a RunnerError naming what is not JSON."""
    if value is None or isinstance(value, (bool, str)) or is_number(value):
        return value
    if isinstance(value, list):
        return [as_json(v, f"{at}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, dict):
        out: JsonObject = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise RunnerError(f"{at or 'the file'}: the key {k!r} is not a string")
            out[k] = as_json(v, f"{at}.{k}" if at else k)
        return out
    raise RunnerError(f"{at or 'the file'}: {type(value).__name__} {value!r} is not JSON")


def load_yaml(path: Path) -> Json:
    with path.open(encoding="utf-8") as f:
        return as_json(yaml.load(f, Loader=CoreLoader))  # CoreLoader is a SafeLoader


# -- the scenarios

Mode = Literal["send", "pdf", "pages", "items", "pages_backward", "items_backward"]
MODES: tuple[Mode, ...] = ("send", "pdf", "pages", "items", "pages_backward", "items_backward")
Interface = Literal["v3", "legacy"]


@dataclass(frozen=True)
class Step:
    call: str | None
    control: str | None
    args: Json | _Absent
    mode: Mode
    save: str | None
    #: `ok`, `equals`, `count`, `error`: only the keys given (`equals: null` is given).
    expect: JsonObject
    expect_requests: list[Json] | None
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


@dataclass(frozen=True)
class Scenario:
    file: str
    name: str
    interface: Interface
    sandbox: tuple[str, ...]
    client: ClientSpec
    script: list[Json]
    steps: list[Step]


def sandbox_args(value: Json, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    args = mapping(value, what, ["args"]).get("args")
    if args is None:
        return ()
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise RunnerError(f"{what}.args is a list of strings, not {show(args)}")
    return tuple(a for a in args if isinstance(a, str))


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
    )


STEP_KEYS = ("call", "sandbox", "args", "mode", "save", "expect", "expect_requests", "min_ms", "max_ms")


def read_step(value: Json, what: str) -> Step:
    m = mapping(value, what, STEP_KEYS)
    mode = m.get("mode", "send")
    if mode not in MODES or not isinstance(mode, str):
        raise RunnerError(f"{what}.mode is one of {', '.join(MODES)}, not {show(mode)}")
    call = opt_string(m, "call", what)
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
    return Step(
        call=call,
        control=control,
        args=m["args"] if "args" in m else ABSENT,
        mode=mode,
        save=opt_string(m, "save", what),
        expect=expect,
        expect_requests=requests,
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
            file_sandbox = sandbox_args(top.get("sandbox"), "sandbox")
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
                        else sandbox_args(s["sandbox"], f"{name}: sandbox"),
                        client=read_client(s.get("client"), f"{name}: client"),
                        script=script,
                        steps=[read_step(step, f"{name}: step {j + 1}") for j, step in enumerate(steps)],
                    )
                )
        except (RunnerError, yaml.YAMLError) as e:
            raise RunnerError(f"{path.name}: {e}") from None
    return scenarios


# ---------------------------------------------------------------- the sandbox


def sandbox_binary() -> Path:
    given = os.environ.get("SANDBOX_BIN", "")
    if given:
        return Path(given)
    target = os.environ.get("CARGO_TARGET_DIR", "") or str(ROOT / "target")
    return Path(target) / "debug" / ("sandbox.exe" if os.name == "nt" else "sandbox")


_SERVING = re.compile(r"serving the v3 interface at (http://\S+?)/v3\s")


class Sandbox:
    """One sandbox process (`sandbox <args> --addr 127.0.0.1:0`) and its origin."""

    def __init__(self, args: tuple[str, ...]) -> None:
        binary = sandbox_binary()
        if not binary.exists():
            raise RunnerError(f"no sandbox binary at {binary}: run `cargo build -p sandbox` first")
        self.args = args
        self.process = subprocess.Popen(
            [str(binary), *args, "--addr", "127.0.0.1:0"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: list[str] = []
        # Both pipes are drained for the sandbox's whole life, so it never blocks on one.
        self._drains = [
            threading.Thread(target=self._drain_stdout, daemon=True),
            threading.Thread(target=self._drain_stderr, daemon=True),
        ]
        for drain in self._drains:
            drain.start()
        out = ""
        deadline = time.monotonic() + 20
        origin: str | None = None
        while origin is None:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self.stop()
                raise RunnerError(
                    f"the sandbox {list(args)} printed no URL within 20 s: {out}{self.stderr()}"
                ) from None
            if line is None:
                self.stop()
                raise RunnerError(f"the sandbox {list(args)} exited before serving: {out}{self.stderr()}")
            out += line
            found = _SERVING.search(out)
            if found is not None:
                origin = found[1]
        self.origin = origin
        self.http = httpx.Client(timeout=30, trust_env=False)

    def _drain_stdout(self) -> None:
        stream = self.process.stdout
        if stream is None:
            return
        for line in stream:
            self._lines.put(line)
        self._lines.put(None)

    def _drain_stderr(self) -> None:
        stream = self.process.stderr
        if stream is None:
            return
        for line in stream:
            self._stderr.append(line)
            del self._stderr[:-50]

    def stderr(self) -> str:
        return "".join(self._stderr)

    def control(self, method: str, path: str, body: Json | _Absent = ABSENT) -> Json:
        """`METHOD /_sandbox/...` with an optional JSON body: its JSON answer (null when
        empty); a RunnerError unless 2xx."""
        content = None if body is ABSENT else json.dumps(body).encode()
        headers = {} if body is ABSENT else {"content-type": "application/json"}
        response = self.http.request(method, f"{self.origin}{path}", content=content, headers=headers)
        if not response.is_success:
            raise RunnerError(f"{method} {path} answered {response.status_code}: {response.text}")
        if response.content == b"":
            return None
        return as_json(response.json())

    def stop(self) -> None:
        if hasattr(self, "http"):
            self.http.close()
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        # The pipes end with the process: read to their end, then closed.
        for drain in self._drains:
            drain.join(timeout=5)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


class Sandboxes:
    """One sandbox per set of flags, started on first use and reused."""

    def __init__(self) -> None:
        self._running: dict[tuple[str, ...], Sandbox] = {}

    def get(self, args: tuple[str, ...]) -> Sandbox:
        sandbox = self._running.get(args)
        if sandbox is None:
            sandbox = Sandbox(args)
            self._running[args] = sandbox
        return sandbox

    def stop_all(self) -> None:
        """Stops the sandboxes this run started (only those, by their process handles)."""
        for sandbox in self._running.values():
            sandbox.stop()
        self._running.clear()


@pytest.fixture(scope="session")
def sandboxes() -> Iterator[Sandboxes]:
    running = Sandboxes()
    try:
        yield running
    finally:
        running.stop_all()


# ---------------------------------------------------------------- ${...} references and patterns

Vars = dict[str, Json]


def lookup(reference: str, variables: Vars) -> Json:
    name, *parts = reference.split(".")
    if name not in variables:
        raise RunnerError(f"`${{{reference}}}`: nothing was saved as `{name}`")
    value = variables[name]
    for part in parts:
        found: Json | _Absent = ABSENT
        if isinstance(value, list):
            if re.fullmatch(r"[0-9]+", part) and int(part) < len(value):
                found = value[int(part)]
        elif isinstance(value, dict):
            found = value.get(part, ABSENT)
        if found is ABSENT:
            raise RunnerError(f"`${{{reference}}}`: `{part}` is not in {show(value)}")
        value = found
    return value


def fill_string(s: str, variables: Vars) -> Json:
    if s.startswith("${") and s.endswith("}") and "${" not in s[2:]:
        return lookup(s[2:-1], variables)
    out = ""
    rest = s
    start = rest.find("${")
    while start >= 0:
        out += rest[:start]
        after = rest[start + 2 :]
        end = after.find("}")
        if end < 0:
            raise RunnerError(f"`{s}`: `${{` without a closing `}}`")
        value = lookup(after[:end], variables)
        out += value if isinstance(value, str) else json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        rest = after[end + 1 :]
        start = rest.find("${")
    return out + rest


def fill(value: Json, variables: Vars) -> Json:
    """Replaces every `${name.path}` in the strings of `value` (a whole-string reference
    keeps its JSON type)."""
    if isinstance(value, str):
        return fill_string(value, variables)
    if isinstance(value, list):
        return [fill(v, variables) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, variables) for k, v in value.items()}
    return value


def same(a: Json, b: Json) -> bool:
    """Equality, numbers by value (a boolean is no number), objects with the same keys."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if is_number(a) or is_number(b):
        return is_number(a) and is_number(b) and a == b
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, str):
        return isinstance(b, str) and a == b
    return a is None and b is None


def matcher(pattern: Json) -> tuple[str, Json] | None:
    if isinstance(pattern, dict) and len(pattern) == 1:
        ((name, arg),) = pattern.items()
        if name.startswith("$"):
            return name, arg
    return None


def join_path(at: str, key: str) -> str:
    return key if at == "" else f"{at}.{key}"


def check(pattern: Json, actual: Json | _Absent, at: str) -> None:
    """Whether `actual` (ABSENT: not there) matches `pattern`, as the README's patterns say."""
    here = "the result" if at == "" else at
    m = matcher(pattern)
    if m is not None:
        name, arg = m
        if name == "$absent":
            matched = actual is ABSENT
        elif name == "$any":
            matched = actual is not ABSENT
        elif name == "$starts_with":
            matched = isinstance(actual, str) and isinstance(arg, str) and actual.startswith(arg)
        elif name == "$json":
            matched = False
            if isinstance(actual, str):
                try:
                    matched = same(arg, as_json(json.loads(actual)))
                except ValueError:
                    matched = False
        else:
            raise RunnerError(f"{here}: unknown matcher `{name}`")
        if not matched:
            raise RunnerError(f"{here}: expected {show(pattern)}, got {show(actual)}")
        return
    if actual is ABSENT:
        raise RunnerError(f"{here}: expected {show(pattern)}, got nothing")
    if isinstance(pattern, dict) and isinstance(actual, dict):
        for key, p in pattern.items():
            check(p, actual.get(key, ABSENT), join_path(at, key))
        return
    if isinstance(pattern, list) and isinstance(actual, list):
        if len(pattern) != len(actual):
            raise RunnerError(f"{here}: expected {len(pattern)} entries, got {len(actual)}: {show(actual)}")
        for i, (p, a) in enumerate(zip(pattern, actual)):
            check(p, a, f"{at}[{i}]")
        return
    if not same(pattern, actual):
        raise RunnerError(f"{here}: expected {show(pattern)}, got {show(actual)}")


# ---------------------------------------------------------------- expected requests

REQUEST_KEYS = (
    "method",
    "path",
    "query",
    "headers",
    "body",
    "body_text",
    "status",
    "min_gap_ms",
    "max_gap_ms",
    "ignore",
)


def text(record: JsonObject, key: str) -> str:
    v = record.get(key)
    return v if isinstance(v, str) else ""


def as_text(pattern: Json) -> Json:
    """Query values are text: numbers and booleans in a pattern stand for their JSON text."""
    if isinstance(pattern, bool) or is_number(pattern):
        return json.dumps(pattern)
    if isinstance(pattern, list):
        return [as_text(p) for p in pattern]
    return pattern


def check_query(want: Json | _Absent, pairs: Json | _Absent) -> None:
    got: dict[str, list[Json]] = {}
    for pair in pairs if isinstance(pairs, list) else []:
        if not isinstance(pair, list):
            continue
        name = pair[0] if pair and isinstance(pair[0], str) else ""
        got.setdefault(name, []).append(pair[1] if len(pair) > 1 else None)
    expected: JsonObject = {}
    if want is not ABSENT:
        if not isinstance(want, dict):
            raise RunnerError(f"`query` is a mapping, not {show(want)}")
        expected = want
    for name, values in got.items():
        if name not in expected:
            raise RunnerError(f"unexpected query parameter `{name}` ({show(values)})")
    for name, pattern in expected.items():
        found = got.get(name)
        actual: Json | _Absent = ABSENT
        if found is not None:
            actual = found[0] if len(found) == 1 and not isinstance(pattern, list) else list(found)
        check(as_text(pattern), actual, f"query {name}")


def received_ms(record: JsonObject) -> float:
    v = record.get("received_ms")
    return v if is_number(v) else 0.0


def check_request(want_json: Json, got: JsonObject, previous: JsonObject | None) -> None:
    if not isinstance(want_json, dict):
        raise RunnerError(f"an expected request is a mapping, not {show(want_json)}")
    want = want_json
    unknown = [k for k in want if k not in REQUEST_KEYS]
    if unknown:
        raise RunnerError(f"unknown key `{unknown[0]}` in an expected request")
    ignore = want.get("ignore")
    ignored = set(i for i in ignore if isinstance(i, str)) if isinstance(ignore, list) else set()
    method = want.get("method")
    if not isinstance(method, str):
        raise RunnerError("an expected request needs `method`")
    if method.upper() != text(got, "method").upper():
        raise RunnerError(f"expected method {method}, got {text(got, 'method')}")
    path = want.get("path")
    if not isinstance(path, str):
        raise RunnerError("an expected request needs `path`")
    got_path = text(got, "path")
    path_ok = got_path.startswith(path[:-1]) if path.endswith("*") else got_path == path
    if not path_ok:
        raise RunnerError(f"expected path {path}, got {got_path}")
    if "query" not in ignored:
        check_query(want.get("query", ABSENT), got.get("query_pairs", ABSENT))
    if "headers" in want:
        headers = want["headers"]
        if not isinstance(headers, dict):
            raise RunnerError("`headers` is a mapping of lowercase names")
        got_headers = got.get("headers")
        got_headers = got_headers if isinstance(got_headers, dict) else {}
        for name, value in headers.items():
            pattern: Json = {"$absent": True} if value is None else value
            check(pattern, got_headers.get(name, ABSENT), f"header {name}")
    if "body" not in ignored:
        body = text(got, "body")
        if "body" in want:
            try:
                parsed = as_json(json.loads(body))
            except ValueError as e:
                raise RunnerError(f"expected a JSON body, got {json.dumps(body)} ({e})") from None
            if not same(want["body"], parsed):
                raise RunnerError(f"expected the body {show(want['body'])}, got {show(parsed)}")
        elif "body_text" in want:
            if want["body_text"] != body:
                raise RunnerError(f"expected the body text {show(want['body_text'])}, got {json.dumps(body)}")
        elif body != "":
            raise RunnerError(f"expected no body, got {json.dumps(body)}")
    if "status" in want and not same(want["status"], got.get("status")):
        answered = show(got.get("status", ABSENT))
        raise RunnerError(f"expected the sandbox to answer {show(want['status'])}, it answered {answered}")
    for key, too_short in (("min_gap_ms", True), ("max_gap_ms", False)):
        limit = want.get(key)
        if not is_number(limit):
            continue
        if previous is None:
            raise RunnerError(f"`{key}` on the first request has nothing to measure from")
        gap = received_ms(got) - received_ms(previous)
        if (too_short and gap < limit) or (not too_short and gap > limit):
            raise RunnerError(f"came {gap:.0f} ms after the previous request ({key}: {limit})")


def check_requests(expected: list[Json], recorded: list[JsonObject]) -> None:
    def listing() -> str:
        lines = []
        for r in recorded:
            q = text(r, "query")
            target = f"{text(r, 'path') or '?'}{'' if q == '' else '?' + q}"
            lines.append(f"  {text(r, 'method') or '?'} {target} -> {show(r.get('status', ABSENT))}")
        return "\n".join(lines)

    if len(expected) != len(recorded):
        raise RunnerError(f"expected {len(expected)} requests, the sandbox received {len(recorded)}:\n{listing()}")
    for i, want in enumerate(expected):
        try:
            check_request(want, recorded[i], None if i == 0 else recorded[i - 1])
        except RunnerError as e:
            raise RunnerError(f"request {i}: {e}\nreceived:\n{listing()}") from None


# ---------------------------------------------------------------- calls and results


@dataclass
class Outcome:
    """What a call gave: a result, an error, or for a paging walk both."""

    result: Json | _Absent = ABSENT
    error: Exception | None = None


def describe_error(e: BaseException) -> JsonObject:
    """The error as the JSON the `error` expectation is matched against (as the Rust
    runner's call.rs)."""
    if isinstance(e, ApiError):
        return {
            "kind": "api",
            "status": e.status,
            "message": e.message,
            "retry_after_s": None if e.retry_after is None else math.floor(e.retry_after),
        }
    if isinstance(e, ValidationError):
        paths: list[Json] = []
        paths.extend(sorted(v.path for v in e.violations))
        return {"kind": "validation", "paths": paths}
    # A timeout is a transport error too: the narrower kind first.
    if isinstance(e, RequestTimeoutError):
        return {"kind": "timeout"}
    if isinstance(e, TransportError):
        return {"kind": "transport"}
    if isinstance(e, DecodeError):
        return {"kind": "decode", "status": e.status, "path": e.path}
    if isinstance(e, NotReadyError):
        return {"kind": "not_ready", "attempts": e.attempts}
    if isinstance(e, ForeignOriginError):
        return {"kind": "foreign_origin", "origin": e.origin, "via": e.via}
    if isinstance(e, PagingStalledError):
        return {"kind": "paging_stalled"}
    if isinstance(e, ConfigError):
        return {"kind": "config"}
    return {"kind": "unknown", "debug": repr(e)}


def traceback_of(e: BaseException) -> str:
    """Where an error that is not the client's own (a bug, not an outcome) came from."""
    if isinstance(e, InspectionError):
        return ""
    return "\n" + "".join(traceback.format_exception(e))


def error_text(e: BaseException) -> str:
    """What a user sees of an error: its text, its repr and its one-line description."""
    return f"{e} {e!r} {''.join(traceback.format_exception_only(e))}"


def written_back(value: object) -> Json:
    """`to_json(value)`; a failure to write the client's value back (its `to_json`
    raising) fails the step, never counting as the call's outcome."""
    try:
        return to_json(value)
    except RunnerError:
        raise
    except Exception as e:
        raise RunnerError(f"cannot write the result back as JSON: {e!r}{traceback_of(e)}") from None


def to_json(value: object) -> Json:
    """A call's answer as JSON: records written back, bytes as `{size, text}`, nothing as
    null, upserts as `{created, value}`."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, enum.Enum):
        return to_json(value.value)
    if isinstance(value, str) or is_number(value):
        return value
    if isinstance(value, Secret):
        return value.expose()
    if isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
        return {"size": len(data), "text": data.decode("utf-8", errors="replace")}
    if isinstance(value, dt.datetime):
        return codec.format_datetime(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, Upserted):
        return {"created": to_json(value.created), "value": to_json(value.value)}
    if isinstance(value, Unknown):
        return to_json(value.to_json())
    if isinstance(value, codec.Record):
        return to_json(value.to_json())
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        out: JsonObject = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise RunnerError(f"cannot write a {type(k).__name__} key back as JSON: {k!r}")
            out[k] = to_json(v)
        return out
    raise RunnerError(f"cannot write a {type(value).__name__} back as JSON: {value!r}")


Flavour = Literal["sync", "async"]


class Driver:
    """Where the blocking and the async client differ for the runner: a blocking call is
    taken as it is, an async one awaited; a paged list is walked with `for` or
    `async for`. Everything else is the same steps."""

    def __init__(self, flavour: Flavour) -> None:
        self.is_async = flavour == "async"

    async def value(self, answered: object) -> object:
        if self.is_async:
            if not inspect.isawaitable(answered):
                raise RunnerError(f"the async client gave a {type(answered).__name__}, not an awaitable")
            return await answered
        if inspect.isawaitable(answered):
            if inspect.iscoroutine(answered):
                answered.close()
            raise RunnerError("the blocking client gave an awaitable")
        return answered

    async def walk(self, iterable: object, into: list[Json]) -> None:
        """Adds every entry of `iterable` to `into`, written as JSON as it comes."""
        if self.is_async:
            if not isinstance(iterable, AsyncIterable):
                raise RunnerError(f"the async client's walk is a {type(iterable).__name__}, not async-iterable")
            async for entry in iterable:
                into.append(written_back(entry))
            return
        if isinstance(iterable, AsyncIterable) or not isinstance(iterable, Iterable):
            raise RunnerError(f"the blocking client's walk is a {type(iterable).__name__}, not iterable")
        for entry in iterable:
            into.append(written_back(entry))

    def check_list(self, listing: object) -> None:
        wanted = AsyncPaged if self.is_async else Paged
        if not isinstance(listing, wanted):
            which = "async" if self.is_async else "blocking"
            raise RunnerError(
                f"a paged list of the {which} client is a {type(listing).__name__}, not {wanted.__name__}"
            )


async def attempt(work: Callable[[], Awaitable[object]]) -> Outcome:
    """The outcome of `work`: its result written back as JSON, or the client's error."""
    try:
        result = await work()
    except RunnerError:
        raise
    except Exception as e:  # every failure of the client is an outcome
        return Outcome(error=e)
    return Outcome(result=written_back(result))


async def settle(driver: Driver, call: Callable[[], object]) -> Outcome:
    """The outcome of one call of the client."""

    async def work() -> object:
        return await driver.value(call())

    return await attempt(work)


async def collect(driver: Driver, walk: Callable[[], object]) -> Outcome:
    """Every page or item of a walk, and the error that ended it early, if any."""
    items: list[Json] = []
    try:
        await driver.walk(walk(), items)
    except RunnerError:
        raise
    except Exception as e:
        return Outcome(result=items, error=e)
    return Outcome(result=items)


class Args:
    """A step's `args`, taken key by key, so leftovers can be named."""

    def __init__(self, args: Json | _Absent) -> None:
        if args is ABSENT or args is None:
            rest: JsonObject = {}
        elif isinstance(args, dict):
            rest = dict(args)
        else:
            raise RunnerError(f"`args` is a mapping, not {show(args)}")
        self.path = self._section(rest, "path")
        self.query = self._section(rest, "query")
        self.body: Json | _Absent = rest.pop("body", ABSENT)
        self.other = rest

    @staticmethod
    def _section(rest: JsonObject, name: str) -> JsonObject:
        v = rest.pop(name, None)
        if v is None:
            return {}
        if not isinstance(v, dict):
            raise RunnerError(f"`args.{name}` is a mapping, not {show(v)}")
        return dict(v)

    def take(self, name: str) -> Json | _Absent:
        v = self.other.pop(name, ABSENT)
        return ABSENT if v is None else v

    def string(self, name: str) -> str:
        v = self.take(name)
        if v is ABSENT:
            raise RunnerError(f"`args.{name}` is required")
        if not isinstance(v, str):
            raise RunnerError(f"`args.{name}` is a string, not {show(v)}")
        return v

    def opt_string(self, name: str) -> str | None:
        v = self.take(name)
        if v is ABSENT:
            return None
        if not isinstance(v, str):
            raise RunnerError(f"`args.{name}` is a string, not {show(v)}")
        return v

    def strings(self, name: str) -> list[str]:
        v = self.take(name)
        if not isinstance(v, list) or not all(isinstance(s, str) for s in v):
            raise RunnerError(f"`args.{name}` is a list of strings, not {show(v)}")
        return [s for s in v if isinstance(s, str)]

    def finish(self) -> None:
        """Fails when an argument was given that the call does not take."""
        left = [f"path.{k}" for k in self.path] + [f"query.{k}" for k in self.query]
        left += [] if self.body is ABSENT else ["body"]
        left += list(self.other)
        if left:
            raise RunnerError(f"this call takes no `args.{'`, `args.'.join(left)}`")


AnyClient = Union[v3.Client, v3.AsyncClient, legacy.Client, legacy.AsyncClient]


async def presigned_action(driver: Driver, client: AnyClient, name: str, a: Args) -> Outcome | None:
    """The client actions both interfaces have; None for other names."""
    if name == "fetch_presigned":
        url = a.string("url")
        a.finish()
        return await settle(driver, lambda: client.fetch_presigned(url))
    if name == "put_presigned":
        url = a.string("url")
        body = a.string("body_text").encode()
        content_type = a.opt_string("content_type")
        a.finish()

        async def put() -> JsonObject:
            etag = await driver.value(client.put_presigned(url, body, content_type))
            if etag is not None and not isinstance(etag, str):
                raise RunnerError(f"put_presigned gave a {type(etag).__name__}, not an ETag")
            return {"etag": etag}

        return await attempt(put)
    if name == "put_parts":
        urls = a.strings("urls")
        parts = [p.encode() for p in a.strings("parts")]
        content_type = a.opt_string("content_type")
        concurrency = a.take("concurrency")
        concurrency = 1 if concurrency is ABSENT else concurrency
        if not isinstance(concurrency, int) or isinstance(concurrency, bool):
            raise RunnerError(f"`args.concurrency` is a whole number, not {show(concurrency)}")
        count = concurrency
        a.finish()

        async def put_all() -> list[Json]:
            etags = await driver.value(client.put_parts(urls, parts, content_type, concurrency=count))
            if not isinstance(etags, list):
                raise RunnerError(f"put_parts gave a {type(etags).__name__}, not a list")
            out: list[Json] = []
            for i, etag in enumerate(etags):
                if not isinstance(etag, str):
                    raise RunnerError(f"put_parts gave a {type(etag).__name__} as an ETag")
                out.append({"part_number": i + 1, "etag": etag})
            return out

        return await attempt(put_all)
    return None


def operation_of(iface: Interface, name: str) -> tuple[Operation, bool] | None:
    """The generated module constant describing the operation `name` (`_GET_UNIT`), and
    whether it is a paged list (it has a paging plan, `_LIST_UNITS_PAGES`)."""
    module = v3_client if iface == "v3" else legacy_client
    op = getattr(module, f"_{name.upper()}", None)
    if not isinstance(op, Operation) or op.name != name:
        return None
    paged = isinstance(getattr(module, f"_{name.upper()}_PAGES", None), PagingPlan)
    return op, paged


def python_name(name: str) -> str:
    """A spec or wire name as the generated code spells it: snake_case, `_` after a keyword."""
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()
    return f"{snake}_" if keyword.iskeyword(snake) else snake


def decode_input(desc: codec.Desc, value: Json, what: str) -> object:
    try:
        return codec.decode(desc, value)
    except DecodeError as e:
        raise RunnerError(f"`args.{what}` does not fit the client's type: {e}") from None


def path_value(op: Operation, index: int, value: Json | _Absent) -> object:
    """A path value: for a record reference an id as text, `ExternalId` or `SELF`; else
    the JSON read as the parameter's type."""
    param = op.path_params[index]
    name = param.wire
    if value is ABSENT:
        raise RunnerError(f"`args.path.{name}` is required")
    if param.desc is not None:
        return decode_input(param.desc, value, f"path.{name}")
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, dict) and len(value) == 1:
        if value.get("self") is True:
            return SELF
        external = value.get("external")
        if isinstance(external, str):
            return ExternalId(external)
    raise RunnerError(f"`args.path.{name}`: an id, {{external: ...}} or {{self: true}}, not {show(value)}")


def returns_bytes(method: Callable[..., object]) -> bool:
    """Whether the method's only answer is binary (`-> bytes`)."""
    annotation = inspect.signature(method).return_annotation
    return annotation is bytes or annotation == "bytes"


async def call_operation(
    driver: Driver, client: AnyClient, iface: Interface, name: str, a: Args, mode: Mode
) -> Outcome:
    """A step's call of an operation (or a client action) on the generated client."""
    found = operation_of(iface, name)
    if found is None:
        outcome = await presigned_action(driver, client, name, a)
        if outcome is None:
            raise RunnerError(f"`{name}` is no {iface} operation or client action")
        return outcome
    op, paged = found
    method_name = python_name(name)
    method = getattr(client, method_name, None)
    if not callable(method):
        raise RunnerError(f"the {iface} client has no method `{method_name}` for `{name}`")
    positional: list[object] = []
    for i, param in enumerate(op.path_params):
        positional.append(path_value(op, i, a.path.pop(param.wire, ABSENT)))
    if op.body is not None:
        if a.body is ABSENT:
            raise RunnerError("`args.body` is required")
        positional.append(decode_input(op.body, a.body, "body"))
        a.body = ABSENT
    keywords: dict[str, object] = {}
    if op.query is not None:
        for f in op.query.fields:
            if f.wire in a.query:
                keywords[python_name(f.wire)] = decode_input(f.desc, a.query.pop(f.wire), f"query.{f.wire}")
            elif f.req:
                raise RunnerError(f"`args.query.{f.wire}` is required")
    a.finish()
    try:
        inspect.signature(method).bind(*positional, **keywords)
    except TypeError as e:
        raise RunnerError(
            f"`{method_name}` does not take these arguments ({e}): {positional!r} {keywords!r}"
        ) from None

    def invoke(fn: Callable[..., object]) -> Callable[[], object]:
        return lambda: fn(*positional, **keywords)

    unsupported = RunnerError(f"`{name}` cannot be called in mode {mode}")
    if paged:
        # Validation happens when the method is called; a walk then has collected nothing.
        try:
            listing = method(*positional, **keywords)
        except Exception as e:
            return Outcome(error=e) if mode == "send" else Outcome(result=[], error=e)
        driver.check_list(listing)
        if mode == "send":
            return await settle(driver, lambda: listing.first())
        if mode == "pages":
            return await collect(driver, lambda: listing.pages())
        if mode == "items":
            return await collect(driver, lambda: listing)
        if mode == "pages_backward":
            return await collect(driver, lambda: listing.pages_backward())
        if mode == "items_backward":
            return await collect(driver, lambda: listing.backward())
        raise unsupported
    if mode == "send":
        return await settle(driver, invoke(method))
    if mode == "pdf":
        pdf = getattr(client, f"{method_name}_pdf", None)
        if callable(pdf):
            return await settle(driver, invoke(pdf))
        if returns_bytes(method):
            return await settle(driver, invoke(method))
    raise unsupported


# ---------------------------------------------------------------- running a scenario

V3_KEY = ("demo-key", "demo-secret")
LEGACY_LOGIN = ("user@example.com", "user-pass")


def options(spec: ClientSpec) -> ClientOptions:
    """The scenario's client settings over the defaults every runner uses."""

    def seconds(ms: float | None, default_ms: float) -> float:
        return (default_ms if ms is None else ms) / 1000

    def whole(v: float | None, default: int) -> int:
        if v is None:
            return default
        if not float(v).is_integer():
            raise RunnerError(f"{v} is not a whole number")
        return int(v)

    rate = spec.rate_limit
    return ClientOptions(
        rate_limit=None if rate is None else RateLimit(whole(rate.requests, 0), rate.window_ms / 1000),
        max_attempts=whole(spec.max_attempts, 4),
        initial_backoff=seconds(spec.initial_backoff_ms, 10),
        max_backoff=seconds(spec.max_backoff_ms, 5_000),
        timeout=seconds(spec.timeout_ms, 10_000),
        validate_requests=True if spec.validate is None else spec.validate,
        max_polls=whole(spec.max_polls, 10),
        poll_interval=seconds(spec.poll_interval_ms, 20),
    )


def login_body(username: str, password: str) -> object:
    """The login body, of the class `login` takes, read from its JSON (the password
    becomes a `Secret`)."""
    hints = typing.get_type_hints(legacy.Client.login)
    body_type = hints.get("credentials")
    if not isinstance(body_type, type) or not issubclass(body_type, codec.Record):
        raise RunnerError(f"legacy.Client.login takes credentials of type {body_type!r}, not a record")
    return body_type.from_json({"user": {"username": username, "password": password}})


async def login(driver: Driver, sandbox: Sandbox, spec: ClientSpec, username: str, password: str) -> AnyClient:
    body = login_body(username, password)
    opts = options(spec)
    if driver.is_async:
        made = await driver.value(legacy.AsyncClient.login(sandbox.origin, typing.cast(typing.Any, body), options=opts))
    else:
        made = await driver.value(legacy.Client.login(sandbox.origin, typing.cast(typing.Any, body), options=opts))
    wanted = legacy.AsyncClient if driver.is_async else legacy.Client
    if not isinstance(made, wanted):
        raise RunnerError(f"login gave a {type(made).__name__}, not a legacy.{wanted.__name__}")
    return made


async def make_client(driver: Driver, sandbox: Sandbox, scenario: Scenario) -> AnyClient:
    c = scenario.client.credentials
    if scenario.interface == "v3":
        key = v3.ApiKey(c.get("key_id", V3_KEY[0]), c.get("key_secret", V3_KEY[1]))
        try:
            if driver.is_async:
                return v3.AsyncClient(f"{sandbox.origin}/v3", key, options=options(scenario.client))
            return v3.Client(f"{sandbox.origin}/v3", key, options=options(scenario.client))
        except Exception as e:
            raise RunnerError(f"cannot make the v3 client: {e!r}") from e
    try:
        username = c.get("username", LEGACY_LOGIN[0])
        return await login(driver, sandbox, scenario.client, username, c.get("password", LEGACY_LOGIN[1]))
    except RunnerError:
        raise
    except Exception as e:
        raise RunnerError(f"cannot log in before the first step: {e!r}") from e


async def close_client(client: AnyClient) -> None:
    if isinstance(client, (v3.AsyncClient, legacy.AsyncClient)):
        await client.aclose()
    else:
        client.close()


def check_outcome(step: Step, outcome: Outcome, variables: Vars) -> None:
    expect = step.expect
    error = outcome.error
    if error is not None and "error" not in expect:
        raise RunnerError(f"failed: {error} ({show(describe_error(error))}){traceback_of(error)}")
    if error is None and "error" in expect:
        raise RunnerError(f"expected an error matching {show(expect['error'])}, got {show(outcome.result)}")
    if error is not None and "error" in expect:
        pattern = fill(expect["error"], variables)
        excluded: Json = None
        if isinstance(pattern, dict):
            excluded = pattern.pop("text_excludes", None)
        try:
            check(pattern, describe_error(error), "the error")
        except RunnerError as e:
            raise RunnerError(f"{e} (the error: {error!r}){traceback_of(error)}") from None
        shown = error_text(error)
        for word in excluded if isinstance(excluded, list) else []:
            if isinstance(word, str) and word in shown:
                raise RunnerError(f"the error's text shows `{word}`: {shown}")
    result = outcome.result
    if "ok" in expect:
        check(fill(expect["ok"], variables), result, "")
    if "equals" in expect:
        want = fill(expect["equals"], variables)
        if result is ABSENT or not same(want, result):
            raise RunnerError(f"expected exactly {show(want)}, got {show(result)}")
    if "count" in expect:
        if not isinstance(result, list) or not same(expect["count"], len(result)):
            raise RunnerError(f"expected {show(expect['count'])} entries, got {show(result)}")


@dataclass
class State:
    client: AnyClient
    variables: Vars


async def run_step(driver: Driver, sandbox: Sandbox, scenario: Scenario, step: Step, state: State) -> None:
    if step.control is not None:
        method, space, path = step.control.partition(" ")
        if not space:
            raise RunnerError("`sandbox` is `METHOD /_sandbox/...`")
        sandbox.control(method, path)
        return
    call = step.call or ""
    sandbox.control("DELETE", "/_sandbox/requests")
    args = Args(ABSENT if step.args is ABSENT else fill(step.args, state.variables))
    started = time.perf_counter()
    if call == "login" and scenario.interface == "legacy":
        username = args.string("username")
        password = args.string("password")
        args.finish()
        try:
            client = await login(driver, sandbox, scenario.client, username, password)
        except RunnerError:
            raise
        except Exception as e:
            outcome = Outcome(error=e)
        else:
            await close_client(state.client)
            state.client = client
            outcome = Outcome(result=None)
    else:
        outcome = await call_operation(driver, state.client, scenario.interface, call, args, step.mode)
    took = (time.perf_counter() - started) * 1000
    check_outcome(step, outcome, state.variables)
    if step.min_ms is not None and took < step.min_ms:
        raise RunnerError(f"took {took:.0f} ms, expected at least {step.min_ms:g} ms")
    if step.max_ms is not None and took > step.max_ms:
        raise RunnerError(f"took {took:.0f} ms, expected at most {step.max_ms:g} ms")
    if step.expect_requests is not None:
        expected = fill(step.expect_requests, state.variables)
        recorded = sandbox.control("GET", "/_sandbox/requests")
        if not isinstance(recorded, list) or not isinstance(expected, list):
            raise RunnerError(f"GET /_sandbox/requests gave {show(recorded)}")
        check_requests(expected, [r for r in recorded if isinstance(r, dict)])
    if step.save is not None and outcome.result is not ABSENT:
        state.variables[step.save] = outcome.result


class ScenarioFailed(Exception):
    """A scenario failed: its file, name and step are in the message."""


async def run_scenario(sandbox: Sandbox, scenario: Scenario, flavour: Flavour) -> None:
    """Runs `scenario`; a failure names the file, the scenario and the step (1-based)."""
    where = f"{scenario.file}: {scenario.name} [{flavour}]"
    driver = Driver(flavour)
    try:
        sandbox.control("POST", "/_sandbox/reset")
        if scenario.script:
            sandbox.control("POST", "/_sandbox/script", scenario.script)
        client = await make_client(driver, sandbox, scenario)
    except RunnerError as e:
        raise ScenarioFailed(f"{where}: {e}") from None
    state = State(client=client, variables={"origin": sandbox.origin})
    try:
        for i, step in enumerate(scenario.steps, start=1):
            label = f"call {step.call}" if step.call is not None else f"sandbox {step.control}"
            try:
                await run_step(driver, sandbox, scenario, step, state)
            except RunnerError as e:
                raise ScenarioFailed(f"{where}: step {i} ({label}): {e}") from None
        pending = sandbox.control("GET", "/_sandbox/script")
        if not isinstance(pending, dict) or not same(pending.get("pending"), 0):
            raise ScenarioFailed(f"{where}: canned answers were left unused at the end: {show(pending)}")
    finally:
        await close_client(state.client)


# ---------------------------------------------------------------- the tests

SCENARIOS = read_scenarios()
ONLY = os.environ.get("CONFORMANCE_ONLY", "")
FLAVOURS: tuple[Flavour, ...] = ("sync", "async")


def run_blocking(scenario: Coroutine[object, object, None]) -> None:
    """Runs the blocking flavour's steps without an event loop, as a blocking user's code
    runs: with a blocking client nothing in them awaits anything real, so the coroutine
    finishes at its first step."""
    try:
        scenario.send(None)
    except StopIteration:
        return
    scenario.close()
    raise RunnerError("the blocking flavour waited on an awaitable")


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
