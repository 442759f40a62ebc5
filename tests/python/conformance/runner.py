"""A scenario run step by step: the client made with the runners' common defaults, each
step called and checked, a failure naming the file, the scenario and the step."""

from __future__ import annotations

import time
import typing
from collections.abc import Coroutine
from dataclasses import dataclass

from inspection_client import ClientOptions, RateLimit, legacy, v3
from inspection_client._runtime import codec

from conformance.calls import AnyClient, Args, call_operation
from conformance.driver import Driver, Flavour
from conformance.events import EventLog, check_events, check_no_secrets
from conformance.json_values import ABSENT, RunnerError, show
from conformance.patterns import Vars, check, check_requests, fill, same
from conformance.results import Outcome, describe_error, error_text, traceback_of
from conformance.sandbox import Sandbox
from conformance.scenarios import ClientSpec, Scenario, Step
from conformance.webhooks import Listener, deliveries, listen


def options(spec: ClientSpec, log: EventLog) -> ClientOptions:
    """The scenario's client settings (format.json's defaults filled in), with hooks that
    report to `log`."""

    def whole(v: float) -> int:
        if not float(v).is_integer():
            raise RunnerError(f"{v} is not a whole number")
        return int(v)

    rate = spec.rate_limit
    return ClientOptions(
        rate_limit=None if rate is None else RateLimit(whole(rate.requests), rate.window_ms / 1000),
        max_attempts=whole(spec.max_attempts),
        initial_backoff=spec.initial_backoff_ms / 1000,
        max_backoff=spec.max_backoff_ms / 1000,
        timeout=spec.timeout_ms / 1000,
        validate_requests=spec.validate,
        max_polls=whole(spec.max_polls),
        poll_interval=spec.poll_interval_ms / 1000,
        max_response_bytes=whole(spec.max_response_bytes),
        max_error_bytes=whole(spec.max_error_bytes),
        max_empty_pages=whole(spec.max_empty_pages),
        hooks=log.hooks(),
    )


def login_body(username: str, password: str) -> object:
    """The login body, of the class `login` takes, read from its JSON (the password
    becomes a `Secret`)."""
    hints = typing.get_type_hints(legacy.Client.login)
    body_type = hints.get("credentials")
    if not isinstance(body_type, type) or not issubclass(body_type, codec.Record):
        raise RunnerError(f"legacy.Client.login takes credentials of type {body_type!r}, not a record")
    return body_type.from_json({"user": {"username": username, "password": password}})


async def login(
    driver: Driver, sandbox: Sandbox, spec: ClientSpec, log: EventLog, username: str, password: str
) -> AnyClient:
    body = login_body(username, password)
    opts = options(spec, log)
    if driver.is_async:
        made = await driver.value(legacy.AsyncClient.login(sandbox.origin, typing.cast(typing.Any, body), options=opts))
    else:
        made = await driver.value(legacy.Client.login(sandbox.origin, typing.cast(typing.Any, body), options=opts))
    wanted = legacy.AsyncClient if driver.is_async else legacy.Client
    if not isinstance(made, wanted):
        raise RunnerError(f"login gave a {type(made).__name__}, not a legacy.{wanted.__name__}")
    return made


def secrets_of(scenario: Scenario) -> set[str]:
    """What no event may show: the v3 key secret, or the legacy password (those of `login`
    steps are added as they come)."""
    c = scenario.client.credentials
    return {c[key] for key in ("key_secret", "password") if key in c}


async def new_client(
    driver: Driver, sandbox: Sandbox, scenario: Scenario, log: EventLog, credentials: dict[str, str]
) -> AnyClient:
    """A client of the scenario's interface with its settings and ``credentials``; a legacy
    one logs in. A client that cannot be made raises the client's own error."""
    c = credentials
    if scenario.interface == "v3":
        key = v3.ApiKey(c.get("key_id", ""), c.get("key_secret", ""))
        if driver.is_async:
            return v3.AsyncClient(f"{sandbox.origin}/v3", key, options=options(scenario.client, log))
        return v3.Client(f"{sandbox.origin}/v3", key, options=options(scenario.client, log))
    return await login(driver, sandbox, scenario.client, log, c.get("username", ""), c.get("password", ""))


async def make_client(driver: Driver, sandbox: Sandbox, scenario: Scenario, log: EventLog) -> AnyClient:
    try:
        return await new_client(driver, sandbox, scenario, log, scenario.client.credentials)
    except RunnerError:
        raise
    except Exception as e:
        raise RunnerError(f"cannot make the client before the first step: {e!r}") from e


def step_credentials(scenario: Scenario, call: str, args: Args) -> dict[str, str]:
    """The credentials of a `login` (legacy; `username` and `password` required) or
    `make_client` step: each the step's `args` give, else the scenario's."""
    credentials = dict(scenario.client.credentials)
    for key in credentials:
        given = args.string(key) if call == "login" else args.opt_string(key)
        if given is not None:
            credentials[key] = given
    args.finish()
    return credentials


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

        def words(key: str) -> list[str]:
            listed = pattern.pop(key, None) if isinstance(pattern, dict) else None
            listed = [] if listed is None else listed
            # A misspelt list must fail, not turn the check off.
            if not isinstance(listed, list) or not all(isinstance(w, str) for w in listed):
                raise RunnerError(f"`{key}` must be a list of strings, got {show(listed)}")
            return [w for w in listed if isinstance(w, str)]

        excluded, included = words("text_excludes"), words("text_includes")
        try:
            check(pattern, describe_error(error), "the error")
        except RunnerError as e:
            raise RunnerError(f"{e} (the error: {error!r}){traceback_of(error)}") from None
        shown = error_text(error)
        for word in excluded:
            if word in shown:
                raise RunnerError(f"the error's text shows `{word}`: {shown}")
        for word in included:
            if word not in shown:
                raise RunnerError(f"the error's text does not show `{word}`: {shown}")
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
    #: The events every client of the scenario reported, since the last step took them.
    log: EventLog
    #: What no event may show.
    secrets: set[str]
    #: The scenario's webhook listener, once a `listen` step made it.
    listener: Listener | None = None


async def run_step(driver: Driver, sandbox: Sandbox, scenario: Scenario, step: Step, state: State) -> None:
    # Whatever came before the step (the first login, a background request) holds no secret
    # either; the step's own events are those reported from here on.
    check_no_secrets(state.log.take(), state.secrets)
    if step.control is not None:
        method, space, path = step.control.partition(" ")
        if not space:
            raise RunnerError("`sandbox` is `METHOD /_sandbox/...`")
        body = step.control_body
        sandbox.control(method, path, body if body is ABSENT else fill(body, state.variables))
        return
    call = step.call or ""
    sandbox.control("DELETE", "/_sandbox/requests")
    args = Args(ABSENT if step.args is ABSENT else fill(step.args, state.variables))
    started = time.perf_counter()
    if call == "make_client" or (call == "login" and scenario.interface == "legacy"):
        credentials = step_credentials(scenario, call, args)
        state.secrets.update(credentials[key] for key in ("key_secret", "password") if key in credentials)
        try:
            client = await new_client(driver, sandbox, scenario, state.log, credentials)
        except RunnerError:
            raise
        except Exception as e:
            outcome = Outcome(error=e)
        else:
            await close_client(state.client)
            state.client = client
            outcome = Outcome(result=None)
    elif call == "listen":
        if state.listener is not None:
            raise RunnerError("a scenario has one listener: `listen` came twice")
        state.listener = listen(sandbox, scenario.interface, args)
        outcome = Outcome(result={"url": state.listener.url})
    elif call == "deliveries":
        outcome = await deliveries(driver, scenario.interface, state.listener, args)
    else:
        outcome = await call_operation(driver, state.client, scenario.interface, call, args, step.mode)
    took = (time.perf_counter() - started) * 1000
    events = state.log.take()
    check_no_secrets(events, state.secrets)
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
    if step.expect_events is not None:
        wanted = fill(step.expect_events, state.variables)
        if not isinstance(wanted, list):
            raise RunnerError(f"`expect_events` is a list, not {show(wanted)}")
        check_events(wanted, events)
    # A call that failed as expected saves its error's description (a walk's `resume`);
    # else its result.
    if step.save is not None:
        if outcome.error is not None:
            state.variables[step.save] = describe_error(outcome.error)
        elif outcome.result is not ABSENT:
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
        log = EventLog()
        client = await make_client(driver, sandbox, scenario, log)
    except RunnerError as e:
        raise ScenarioFailed(f"{where}: {e}") from None
    state = State(client=client, variables={"origin": sandbox.origin}, log=log, secrets=secrets_of(scenario))
    try:
        for i, step in enumerate(scenario.steps, start=1):
            label = f"call {step.call}" if step.call is not None else f"sandbox {step.control}"
            try:
                await run_step(driver, sandbox, scenario, step, state)
            except RunnerError as e:
                raise ScenarioFailed(f"{where}: step {i} ({label}): {e}") from None
        try:
            check_no_secrets(state.log.take(), state.secrets)
        except RunnerError as e:
            raise ScenarioFailed(f"{where}: after the last step: {e}") from None
        pending = sandbox.control("GET", "/_sandbox/script")
        if not isinstance(pending, dict) or not same(pending.get("pending"), 0):
            raise ScenarioFailed(f"{where}: canned answers were left unused at the end: {show(pending)}")
    finally:
        if state.listener is not None:
            state.listener.stop()
        await close_client(state.client)


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
