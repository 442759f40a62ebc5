"""What a call gave, as the JSON the expectations are matched against: answers written
back, errors described by kind."""

from __future__ import annotations

import datetime as dt
import enum
import math
import traceback
from dataclasses import dataclass

from inspection_client import (
    ApiError,
    DecodeError,
    ForeignOriginError,
    InspectionError,
    NotReadyError,
    PagingInterruptedError,
    Secret,
    TooLargeError,
    Unknown,
    Upserted,
    ValidationError,
    error_type,
)
from inspection_client._runtime import codec

from conformance.json_values import ABSENT, Json, JsonObject, RunnerError, _Absent, is_number


@dataclass
class Outcome:
    """What a call gave: a result, an error, or for a paging walk both."""

    result: Json | _Absent = ABSENT
    error: Exception | None = None


# Whole seconds as the Rust runner gives a wait too long to count (u64::MAX).
LONGEST_SECONDS = 2**64 - 1


def whole_seconds(seconds: float | None) -> int | None:
    """A wait in whole seconds (rounded down), `LONGEST_SECONDS` at most."""
    if seconds is None:
        return None
    return LONGEST_SECONDS if not seconds < LONGEST_SECONDS else math.floor(seconds)


def describe_error(e: BaseException) -> JsonObject:
    """The error as the JSON the `error` expectation is matched against (as the Rust
    runner's call.rs): its kind as the client names it (``error_type``, also its events'),
    and what each kind carries."""
    if isinstance(e, PagingInterruptedError):
        # The page's error, and where the walk can start again.
        inner = describe_error(e.error)
        inner["resume"] = e.resume
        return inner
    if not isinstance(e, InspectionError):
        return {"kind": "unknown", "debug": repr(e)}
    described: JsonObject = {"kind": error_type(e)}
    if isinstance(e, ApiError):
        described.update(status=e.status, message=e.message, retry_after_s=whole_seconds(e.retry_after))
    elif isinstance(e, ValidationError):
        paths: list[Json] = []
        paths.extend(sorted(v.path for v in e.violations))
        described["paths"] = paths
    elif isinstance(e, DecodeError):
        described.update(status=e.status, path=e.path)
    elif isinstance(e, NotReadyError):
        described.update(attempts=e.attempts, retry_after_s=whole_seconds(e.retry_after))
    elif isinstance(e, TooLargeError):
        described["limit"] = e.limit
    elif isinstance(e, ForeignOriginError):
        described.update(origin=e.origin, via=e.via)
    return described


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
    # Plain JSON first, by exact type: a record writes itself back as such, so nearly all
    # of a large answer is these (the soak writes back 10,003 inspections a walk).
    if value is None or type(value) is str or type(value) is int or type(value) is float:
        return value
    if isinstance(value, bool):
        return value
    if type(value) is dict:
        return _object(value)
    if type(value) is list:
        return [to_json(v) for v in value]
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
        return _object(value)
    raise RunnerError(f"cannot write a {type(value).__name__} back as JSON: {value!r}")


def _object(value: dict[object, object]) -> JsonObject:
    out: JsonObject = {}
    for k, v in value.items():
        if not isinstance(k, str):
            raise RunnerError(f"cannot write a {type(k).__name__} key back as JSON: {k!r}")
        out[k] = to_json(v)
    return out
