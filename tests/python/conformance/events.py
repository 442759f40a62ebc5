"""`expect_events`: what the client reported through its hooks during a step, written as
the README's JSON (the event's fields, snake_case as they are, plus `event`), matched in
order against the expected list, and checked to hold none of the scenario's secrets."""

from __future__ import annotations

import dataclasses
import json

from inspection_client import (
    ErrorEvent,
    Event,
    Hooks,
    PageEvent,
    PauseEvent,
    RequestEvent,
    ResponseEvent,
    RetryEvent,
)

from conformance.json_values import Json, JsonObject, RunnerError, show
from conformance.patterns import check


NAMES: dict[type[Event], str] = {
    RequestEvent: "request",
    ResponseEvent: "response",
    RetryEvent: "retry",
    PauseEvent: "pause",
    PageEvent: "page",
    ErrorEvent: "error",
}


def event_json(event: Event) -> JsonObject:
    """An event as the README writes it: `{event: request, operation: ..., ...}`."""
    name = NAMES.get(type(event))
    if name is None:
        raise RunnerError(f"a hook was given a {type(event).__name__}, which is no event")
    out: JsonObject = {"event": name}
    for field in dataclasses.fields(event):
        value = getattr(event, field.name)
        if value is not None and not isinstance(value, (bool, int, float, str)):
            raise RunnerError(f"the {name} event's `{field.name}` is a {type(value).__name__}, not JSON")
        out[field.name] = value
    return out


class EventLog:
    """The events every client of a scenario reports (the runner gives each client it
    makes these hooks), in the order reported."""

    def __init__(self) -> None:
        self.events: list[JsonObject] = []

    def hooks(self) -> Hooks:
        return Hooks(
            on_request=self._taker(RequestEvent),
            on_response=self._taker(ResponseEvent),
            on_retry=self._taker(RetryEvent),
            on_pause=self._taker(PauseEvent),
            on_page=self._taker(PageEvent),
            on_error=self._taker(ErrorEvent),
        )

    def _taker(self, kind: type[Event]) -> Taker:
        return Taker(self, kind)

    def take(self) -> list[JsonObject]:
        """The events reported since the last `take`."""
        out, self.events = self.events, []
        return out


class Taker:
    """One hook: records its events, and that no other kind came to it."""

    def __init__(self, log: EventLog, kind: type[Event]) -> None:
        self.log = log
        self.kind = kind

    def __call__(self, event: Event) -> None:
        if type(event) is not self.kind:
            # Recorded as it is, so the comparison names it.
            self.log.events.append({"event": "misrouted", "hook": NAMES[self.kind], "got": repr(event)})
            return
        self.log.events.append(event_json(event))


def check_no_secrets(events: list[JsonObject], secrets: set[str]) -> None:
    """No value of any event holds a secret (the v3 key secret, a legacy password)."""
    for i, event in enumerate(events):
        for key, value in event.items():
            text = value if isinstance(value, str) else json.dumps(value)
            for secret in secrets:
                if secret and secret in text:
                    raise RunnerError(f"event {i} ({show(event.get('event'))}) shows a secret in `{key}`")


def check_events(expected: list[Json], got: list[JsonObject]) -> None:
    """Exactly as many events as expected, each matching its pattern, in order."""

    def listing() -> str:
        return "\n".join(f"  {show(e)}" for e in got)

    if len(expected) != len(got):
        raise RunnerError(f"expected {len(expected)} events, the client reported {len(got)}:\n{listing()}")
    for i, (want, event) in enumerate(zip(expected, got)):
        if not isinstance(want, dict):
            raise RunnerError(f"an expected event is a mapping, not {show(want)}")
        try:
            check(want, event, f"event {i}")
        except RunnerError as e:
            raise RunnerError(f"{e}\nreported:\n{listing()}") from None
