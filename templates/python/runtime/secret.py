"""Secrets (an API key secret, a password, a token) that never show in ``repr``, ``str``,
f-strings, logs or pickles; only ``expose()`` gives the value."""

from __future__ import annotations

import hmac
from typing import Any, NoReturn

__all__ = ["Secret", "reveal"]

_REDACTED = "Secret(***)"


class Secret:
    """A secret string.

    A request body may hold ``Secret`` values (a password in a login body): the transport
    sends their real value on the wire and nowhere else.
    """

    __slots__ = ("_value",)

    _value: str

    def __init__(self, value: str | Secret) -> None:
        # A Secret is taken as is, so code may wrap a value without knowing which it has.
        if isinstance(value, Secret):
            value = value.expose()
        if not isinstance(value, str):
            raise TypeError(f"a Secret holds a str, not {type(value).__name__}")
        object.__setattr__(self, "_value", value)

    def expose(self) -> str:
        """The secret itself, for the one place that must send it."""
        return self._value

    def __repr__(self) -> str:
        return _REDACTED

    def __str__(self) -> str:
        return _REDACTED

    def __format__(self, spec: str) -> str:
        return format(_REDACTED, spec)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Secret):
            return NotImplemented
        # Constant time, so a comparison does not tell how much of a guess was right.
        return hmac.compare_digest(self._value.encode("utf-8"), other._value.encode("utf-8"))

    def __hash__(self) -> int:
        return hash((Secret, self._value))

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError("a Secret cannot be changed")

    def __reduce__(self) -> NoReturn:
        # Pickles end up in caches, queues and files: the value would leave the process.
        raise TypeError("a Secret cannot be pickled; pass the value explicitly with expose()")

    def __copy__(self) -> Secret:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Secret:
        return self


def reveal(value: str | Secret) -> str:
    """The text of a value that may be a secret."""
    return value.expose() if isinstance(value, Secret) else value
