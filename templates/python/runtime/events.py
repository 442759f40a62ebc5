"""What a client reports about its calls: the events given to the ``Hooks`` of its options,
and the records of the ``inspection_client`` logger.

The same events in both clients, and in every language of the project (the conformance
scenarios' ``expect_events``): a ``RequestEvent`` before each attempt, a ``ResponseEvent``
when it is answered, a ``RetryEvent`` when a failed attempt will be sent again, a
``PauseEvent`` when the client waits for another reason (its own pacing, a 202 asked again),
a ``PageEvent`` for each page of a walk, an ``ErrorEvent`` when a call fails for good after
at least one attempt. An event names the operation and its path template, never a concrete
id, and never holds a key, token, password, pre-signed signature or body.

Nothing is built when nothing listens: with no hook set and the logger not enabled for a
record's level, reporting costs a check or two.
"""

from __future__ import annotations

import dataclasses
import inspect
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypeVar, Union

import httpx

from .errors import ApiError, ConfigError, InspectionError, PagingInterruptedError

__all__ = [
    "ErrorEvent",
    "Event",
    "Hooks",
    "PageEvent",
    "PauseEvent",
    "RequestEvent",
    "ResponseEvent",
    "RetryEvent",
    "error_type",
]

logger = logging.getLogger("inspection_client")
"""The package's one logger."""

RetryReason = Literal["status", "timeout", "connection"]
PauseReason = Literal["rate_limit", "poll"]


@dataclass(frozen=True, slots=True, kw_only=True)
class RequestEvent:
    """An attempt is about to be sent."""

    operation: str
    """The spec's operation name (``get_unit``)."""
    method: str
    """The HTTP method."""
    url_template: str
    """The operation's path as the spec writes it (``/units/{unit_id}``), never a
    concrete id."""
    attempt: int
    """1 for the first attempt; a resend after a retry or a token re-login is the next
    one; each poll of a 202 is a new request, starting again at 1."""
    server_address: str
    """The host the request goes to."""
    server_port: int
    """Its port (443 or 80 when the URL names none)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ResponseEvent:
    """An attempt was answered (any status), its body read."""

    operation: str
    method: str
    url_template: str
    attempt: int
    status: int
    """The HTTP status."""
    duration_ms: float
    """From the attempt's start until its answer was read, in milliseconds."""
    request_id: str | None
    """The answer's ``x-request-id`` header, when it has one."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RetryEvent:
    """A failed attempt will be sent again."""

    operation: str
    attempt: int
    """The attempt that failed."""
    reason: RetryReason
    """``status`` (an error status: 429, 5xx), ``timeout`` or ``connection``."""
    status: int | None
    """The status, for ``reason == "status"``."""
    wait_ms: float
    """How long the client waits before the next attempt, in milliseconds."""
    retry_after: bool
    """Whether that wait is the service's ``Retry-After`` (else the client's backoff)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PauseEvent:
    """The client waits before an attempt for a reason other than a retry."""

    operation: str
    reason: PauseReason
    """``rate_limit``: the client's own pacing held the request (reported only when it
    actually waits); ``poll``: a 202 (not ready) is asked again after the wait."""
    wait_ms: float
    """How long it waits, in milliseconds."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PageEvent:
    """A page of a walk (iterating a paged list, ``pages()``, ``backward()``) was read."""

    operation: str
    page: int
    """1 for the walk's first page (a resumed walk counts from where it resumed)."""
    items: int
    """The records on it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorEvent:
    """A call failed for good after at least one attempt (a call refused before sending,
    by validation, reports nothing)."""

    operation: str
    error_type: str
    """The error's kind: ``api``, ``timeout``, ``transport``, ``decode``, ``too_large``,
    ``not_ready``, ``foreign_origin``, ``paging_stalled``, ``config``, ...; for an error
    that is not the client's own (a writer that raised), its class name."""
    status: int | None
    """The HTTP status of an ``api`` error, else ``None``."""
    attempt: int
    """The attempts the call made (the last one's number)."""


Event = Union[RequestEvent, ResponseEvent, RetryEvent, PauseEvent, PageEvent, ErrorEvent]
"""Any event."""

E = TypeVar("E", RequestEvent, ResponseEvent, RetryEvent, PauseEvent, PageEvent, ErrorEvent)


def _check_hook(hook: object, name: str) -> None:
    if hook is not None and not callable(hook):
        raise ConfigError(f"hooks.{name} must be a callable or None, got {type(hook).__name__}")
    if inspect.iscoroutinefunction(hook):
        raise ConfigError(
            f"hooks.{name} is a coroutine function; hooks are plain callables (for the "
            "AsyncClient too): hand the event to a queue or a task from a plain function"
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Hooks:
    """Callables the client hands its events to, each one event at a time, as it happens
    (for the ``AsyncClient`` too: plain functions, called in the event loop, so they
    should return quickly).

    A hook that raises does not break the call: its exception is logged at DEBUG on the
    ``inspection_client`` logger and the call goes on. Events never hold a credential, a
    body or a concrete path value (``url_template`` is the spec's path).
    """

    on_request: Callable[[RequestEvent], object] | None = None
    on_response: Callable[[ResponseEvent], object] | None = None
    on_retry: Callable[[RetryEvent], object] | None = None
    on_pause: Callable[[PauseEvent], object] | None = None
    on_page: Callable[[PageEvent], object] | None = None
    on_error: Callable[[ErrorEvent], object] | None = None

    def __post_init__(self) -> None:
        for name in ("on_request", "on_response", "on_retry", "on_pause", "on_page", "on_error"):
            _check_hook(getattr(self, name), name)


_NO_HOOKS = Hooks()


def error_type(error: BaseException) -> str:
    """The kind of an error as events (and the conformance scenarios) name it: the client's
    own errors say it (``kind``: ``api``, ``validation``, ``timeout``, ``transport``,
    ``decode``, ``not_ready``, ``too_large``, ``foreign_origin``, ``paging_stalled``,
    ``config``, ``webhook``); an interrupted walk has its page's error's kind; any other
    error its class name."""
    if isinstance(error, PagingInterruptedError):
        return error_type(error.error)
    if isinstance(error, InspectionError) and error.kind:
        return error.kind
    return type(error).__qualname__


def _port(url: httpx.URL) -> int:
    if url.port is not None:
        return url.port
    return 443 if url.scheme == "https" else 80


class Reporter:
    """Hands a core's events to its hooks and writes its log records. Each method returns
    at once, building nothing, when neither a hook nor the logger wants the event."""

    __slots__ = ("hooks",)

    def __init__(self, hooks: Hooks | None) -> None:
        self.hooks = hooks if hooks is not None else _NO_HOOKS

    def pauses(self) -> bool:
        """Whether pauses are wanted (so the pacer is asked to tell its waits)."""
        return self.hooks.on_pause is not None or logger.isEnabledFor(logging.DEBUG)

    def _call(self, hook: Callable[[E], object], event: E) -> None:
        try:
            result = hook(event)
        except Exception:
            logger.debug("an inspection_client hook raised; the call goes on", exc_info=True)
            return
        if inspect.isawaitable(result):
            # A lambda wrapping a coroutine function: it would never run.
            if inspect.iscoroutine(result):
                result.close()
            logger.debug("an inspection_client hook returned an awaitable; hooks are plain callables")

    def request(self, operation: str, method: str, template: str, attempt: int, url: httpx.URL) -> None:
        hook = self.hooks.on_request
        if hook is None:
            # Requests are not logged: the answer's record says the same and more.
            return
        event = RequestEvent(
            operation=operation,
            method=method,
            url_template=template,
            attempt=attempt,
            server_address=url.host,
            server_port=_port(url),
        )
        self._call(hook, event)

    def response(
        self,
        operation: str,
        method: str,
        template: str,
        attempt: int,
        status: int,
        duration: float,
        headers: httpx.Headers,
    ) -> None:
        hook = self.hooks.on_response
        logged = logger.isEnabledFor(logging.DEBUG)
        if hook is None and not logged:
            return
        event = ResponseEvent(
            operation=operation,
            method=method,
            url_template=template,
            attempt=attempt,
            status=status,
            duration_ms=duration * 1000,
            request_id=headers.get("x-request-id"),
        )
        if logged:
            logger.debug(
                "%s %s attempt %d: %d in %.0f ms",
                method,
                template,
                attempt,
                status,
                event.duration_ms,
                extra=_extra("response", event),
            )
        if hook is not None:
            self._call(hook, event)

    def retry(
        self,
        operation: str,
        method: str,
        template: str,
        attempt: int,
        reason: RetryReason,
        status: int | None,
        wait: float,
        retry_after: bool,
    ) -> None:
        hook = self.hooks.on_retry
        logged = logger.isEnabledFor(logging.WARNING)
        if hook is None and not logged:
            return
        event = RetryEvent(
            operation=operation,
            attempt=attempt,
            reason=reason,
            status=status,
            wait_ms=wait * 1000,
            retry_after=retry_after,
        )
        if logged:
            why = f"status {status}" if reason == "status" else reason
            source = "Retry-After" if retry_after else "backoff"
            logger.warning(
                "%s %s attempt %d failed (%s); retrying in %.0f ms (%s)",
                method,
                template,
                attempt,
                why,
                event.wait_ms,
                source,
                extra=_extra("retry", event),
            )
        if hook is not None:
            self._call(hook, event)

    def pause(self, operation: str, method: str, template: str, reason: PauseReason, wait: float) -> None:
        hook = self.hooks.on_pause
        logged = logger.isEnabledFor(logging.DEBUG)
        if hook is None and not logged:
            return
        event = PauseEvent(operation=operation, reason=reason, wait_ms=wait * 1000)
        if logged:
            why = "the client's rate limit" if reason == "rate_limit" else "not ready yet (202)"
            logger.debug(
                "%s %s waits %.0f ms: %s",
                method,
                template,
                event.wait_ms,
                why,
                extra=_extra("pause", event),
            )
        if hook is not None:
            self._call(hook, event)

    def page(self, operation: str, method: str, template: str, page: int, items: int) -> None:
        hook = self.hooks.on_page
        logged = logger.isEnabledFor(logging.DEBUG)
        if hook is None and not logged:
            return
        event = PageEvent(operation=operation, page=page, items=items)
        if logged:
            logger.debug(
                "%s %s page %d: %d items",
                method,
                template,
                page,
                items,
                extra=_extra("page", event),
            )
        if hook is not None:
            self._call(hook, event)

    def error(self, operation: str, method: str, template: str, error: BaseException, attempt: int) -> None:
        hook = self.hooks.on_error
        logged = logger.isEnabledFor(logging.DEBUG)
        if hook is None and not logged:
            return
        status = error.status if isinstance(error, ApiError) else None
        event = ErrorEvent(operation=operation, error_type=error_type(error), status=status, attempt=attempt)
        if logged:
            # The kind and status only: the error itself goes to the caller.
            logger.debug(
                "%s %s failed after attempt %d: %s%s",
                method,
                template,
                attempt,
                event.error_type,
                "" if status is None else f" {status}",
                extra=_extra("error", event),
            )
        if hook is not None:
            self._call(hook, event)


def _extra(name: str, event: Event) -> dict[str, object]:
    """A record's ``extra``: the event's fields, each prefixed ``inspection_`` (so none
    clashes with a ``LogRecord`` attribute), and ``inspection_event``."""
    out: dict[str, object] = {"inspection_event": name}
    for field in dataclasses.fields(event):
        out[f"inspection_{field.name}"] = getattr(event, field.name)
    return out
