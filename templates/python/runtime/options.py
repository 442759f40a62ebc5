"""Settings of a client and of one call, what the generated code says about its interface,
and the small result types shared by the sync and async clients."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Generic, Literal, TypeVar

from .errors import ConfigError
from .events import Hooks

__all__ = ["CallOptions", "ClientOptions", "InterfaceInfo", "RateLimit", "Upserted"]

T = TypeVar("T")


def _check_positive(value: float, what: str, *, allow_zero: bool = False) -> None:
    # bool is an int: `timeout=True` is a mistake, not one second.
    bad = isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value)
    if bad or value < 0 or (value == 0 and not allow_zero):
        kind = "a non-negative" if allow_zero else "a positive"
        raise ConfigError(f"{what} must be {kind} number, got {value!r}")


def _check_count(value: int, what: str, *, allow_zero: bool = False) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < (0 if allow_zero else 1):
        kind = "a non-negative" if allow_zero else "a positive"
        raise ConfigError(f"{what} must be {kind} whole number, got {value!r}")


@dataclass(frozen=True)
class RateLimit:
    """At most ``requests`` requests in any window of ``window_seconds``."""

    requests: int
    window_seconds: float

    def __post_init__(self) -> None:
        _check_count(self.requests, "rate_limit.requests")
        _check_positive(self.window_seconds, "rate_limit.window_seconds")


@dataclass(frozen=True, kw_only=True)
class ClientOptions:
    """How a client behaves; every field has a default."""

    rate_limit: RateLimit | None | Literal["documented"] = "documented"
    """Pacing: the documented limit (default), a raised quota (a margin of 0.2 % and 20 ms
    is added to the window), or ``None`` for none (a 429's ``Retry-After`` is still
    honoured)."""
    max_attempts: int = 4
    """Attempts in all, the first included (1 = never retry)."""
    initial_backoff: float = 0.25
    """Backoff before the first retry, in seconds; doubled for each further one."""
    max_backoff: float = 30.0
    """Longest backoff, and the longest ``Retry-After`` waited out, in seconds; a longer
    ``Retry-After`` fails at once."""
    timeout: float = 60.0
    """Time for one attempt, in seconds (connecting, and each read or write of it)."""
    validate_requests: bool = True
    """Check documented limits before sending; off for when the service relaxes a limit first."""
    max_polls: int = 10
    """How often a 202 (still preparing) is asked again."""
    poll_interval: float = 0.5
    """First wait between polls, doubled up to ``max_backoff``, unless ``Retry-After`` says."""
    max_response_bytes: int = 64 << 20
    """The largest success body read into memory (64 MiB): a ``Content-Length`` over it is
    refused at once, and a body that passes it while arriving is cut there; either is a
    ``TooLargeError``. Downloads written to a file (the ``..._to`` methods) have no limit."""
    max_error_bytes: int = 64 << 10
    """How much of an error body is read for its message (64 KiB); the rest is never read
    (the connection is closed instead)."""
    max_empty_pages: int = 10
    """Empty pages in a row a walk accepts while the service still points to a next one;
    one more ends the walk with ``PagingStalledError``."""
    user_agent: str = "inspection-client (python)"
    """``User-Agent`` of requests to the service."""
    transport: object | None = None
    """An ``httpx.BaseTransport`` (``Client``) or ``httpx.AsyncBaseTransport``
    (``AsyncClient``), for tests and special networks; checked when the client is made."""
    proxy: str | None = field(default=None, repr=False)
    """A proxy URL for every request (otherwise the ``HTTPS_PROXY`` environment is used);
    left out of ``repr``, as it may carry the proxy's password."""
    hooks: Hooks | None = None
    """Callables the client hands the events of its calls to (requests, responses,
    retries, pauses, pages, failures); see ``Hooks``. The ``inspection_client`` logger
    gets the same events as records, whether or not hooks are set."""

    def __post_init__(self) -> None:
        if not (self.rate_limit is None or self.rate_limit == "documented"):
            if not isinstance(self.rate_limit, RateLimit):
                raise ConfigError(
                    f'rate_limit must be a RateLimit, None or "documented", got {self.rate_limit!r}'
                )
        _check_count(self.max_attempts, "max_attempts")
        _check_positive(self.initial_backoff, "initial_backoff", allow_zero=True)
        _check_positive(self.max_backoff, "max_backoff", allow_zero=True)
        _check_positive(self.timeout, "timeout")
        _check_count(self.max_polls, "max_polls", allow_zero=True)
        _check_positive(self.poll_interval, "poll_interval", allow_zero=True)
        _check_count(self.max_response_bytes, "max_response_bytes", allow_zero=True)
        _check_count(self.max_error_bytes, "max_error_bytes", allow_zero=True)
        _check_count(self.max_empty_pages, "max_empty_pages", allow_zero=True)
        if self.hooks is not None and not isinstance(self.hooks, Hooks):
            raise ConfigError(f"hooks must be a Hooks or None, got {type(self.hooks).__name__}")
        if self.transport is not None and self.proxy is not None:
            raise ConfigError("give either a transport or a proxy, not both")


@dataclass(frozen=True, kw_only=True)
class CallOptions:
    """Settings of one call, replacing the client's."""

    timeout: float | None = None
    """Time for one attempt of this call, in seconds."""
    max_attempts: int | None = None
    """Attempts in all for this call."""
    headers: Mapping[str, str] | None = None
    """Extra headers; they may not replace the credential headers."""

    def __post_init__(self) -> None:
        if self.timeout is not None:
            _check_positive(self.timeout, "timeout")
        if self.max_attempts is not None:
            _check_count(self.max_attempts, "max_attempts")


@dataclass(frozen=True)
class Upserted(Generic[T]):
    """The answer of an upsert: whether the record was created (201) or replaced (200)."""

    created: bool
    value: T


@dataclass(frozen=True, kw_only=True)
class InterfaceInfo:
    """What the generated code says about its interface."""

    name: str
    """The interface's name: ``v3``, ``legacy``."""
    rate_limit: RateLimit | None = None
    """The documented rate limit: the client's default pacing."""
    limit_status: int = 429
    """The status the service answers when the rate limit is hit."""
    retry_after_header: str = "retry-after"
    """The header that says how long to wait."""
    error_message_field: str | None = None
    """The member of error bodies that holds the message (default ``errors``)."""
    default_headers: Mapping[str, str] = field(default_factory=dict)
    """Headers every request to the service carries, e.g. a versioned ``Accept``."""
