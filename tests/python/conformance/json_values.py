"""JSON values as the runner holds them (a scenario file once parsed, a result written
back), the marker of a key that is not there, the runner's own error and the readers of
optional keys."""

from __future__ import annotations

import enum
import json
import typing
from collections.abc import Callable, Sequence
from typing import Union


Json = Union[None, bool, int, float, str, list["Json"], dict[str, "Json"]]
JsonObject = dict[str, Json]


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


def mapping(value: Json | _Absent, what: str, allowed: Sequence[str] | None = None) -> JsonObject:
    """``value`` as a mapping, with only ``allowed`` keys when given (a scenario file's keys
    are format.json's, checked as the file is read), or a RunnerError."""
    if not isinstance(value, dict):
        raise RunnerError(f"{what} is a mapping, not {show(value)}")
    unknown = [k for k in value if allowed is not None and k not in allowed]
    if unknown:
        raise RunnerError(f"unknown key `{'`, `'.join(unknown)}` in {what}")
    return value


def is_number(value: object) -> typing.TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_T = typing.TypeVar("_T")


def _optional(
    m: JsonObject, key: str, what: str, fits: Callable[[object], typing.TypeGuard[_T]], kind: str
) -> _T | None:
    """``m[key]``, None when it is absent or null, a RunnerError when it is not ``kind``."""
    v = m.get(key)
    if v is None:
        return None
    if not fits(v):
        raise RunnerError(f"{what}.{key} is {kind}, not {show(v)}")
    return v


def _is_str(v: object) -> typing.TypeGuard[str]:
    return isinstance(v, str)


def _is_bool(v: object) -> typing.TypeGuard[bool]:
    return isinstance(v, bool)


def opt_string(m: JsonObject, key: str, what: str) -> str | None:
    return _optional(m, key, what, _is_str, "a string")


def opt_number(m: JsonObject, key: str, what: str) -> float | None:
    return _optional(m, key, what, is_number, "a number")


def opt_bool(m: JsonObject, key: str, what: str) -> bool | None:
    return _optional(m, key, what, _is_bool, "a boolean")


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
