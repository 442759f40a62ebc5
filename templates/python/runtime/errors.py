"""The one error hierarchy of the client.

No error ever carries a credential, a request header value or a request body: messages
name the operation by method and path template, and pre-signed URLs are shown by origin
and path only (their query is the signature). What the service itself puts in an error
(a message, a value a decode error quotes) may echo a credential: the core replaces every
configured secret there with ``<redacted>`` (``scrub_error``) before the error reaches
the caller.
"""

from __future__ import annotations

import builtins
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

__all__ = [
    "ApiError",
    "ConfigError",
    "WebhookError",
    "DecodeError",
    "ForeignOriginError",
    "InspectionError",
    "NotReadyError",
    "PagingInterruptedError",
    "PagingStalledError",
    "RequestTimeoutError",
    "TooLargeError",
    "TransportError",
    "ValidationError",
    "Violation",
    "error_message",
    "kept_headers",
    "scrub_error",
    "scrub_text",
    "seconds_text",
]

# How much of an error body an ApiError keeps: enough to debug, not a whole HTML page.
BODY_TEXT_LIMIT = 4096
# How much of a body that is not the documented error JSON becomes the message.
MESSAGE_LIMIT = 500
# What a secret the service echoed is replaced with.
REDACTED = "<redacted>"
# Shorter secrets are left alone: replacing them would garble ordinary words, and they
# reveal little.
MIN_SECRET_LENGTH = 4


@dataclass(frozen=True)
class Violation:
    """One broken limit of a request: where, and what the limit is."""

    path: str
    """The field path, e.g. ``vin`` or ``items[2].label`` (empty: the value itself)."""
    message: str
    """What the limit is and what was given: ``must be exactly 17 characters, got 16``."""

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class InspectionError(Exception):
    """The base of every error the client raises; ``except InspectionError`` catches them all."""

    kind: ClassVar[str] = ""
    """What kind of failure it is, in one word, as the events (``error_type``) and the other
    clients name it: ``api``, ``validation``, ``timeout``, ... (empty here: each error class
    says its own)."""


class ApiError(InspectionError):
    """The service answered with an error status.

    ``str(e)`` reads ``GET /units/{unit_id} answered 404: <the service's message>``.
    """

    kind: ClassVar[str] = "api"

    status: int
    """The HTTP status."""
    message: str | None
    """The service's own message (the error body's message field), when there is one."""
    retry_after: float | None
    """How long the service asked to wait (``Retry-After``), in seconds."""
    method: str
    """The request method."""
    path: str
    """The path template, e.g. ``/units/{unit_id}`` (a pre-signed URL: origin and path)."""
    hint: str | None
    """What a 403 most likely means for this operation (e.g. the role it needs)."""
    headers: Mapping[str, str]
    """The response headers (lower-case names; ``set-cookie`` left out)."""
    body_text: str
    """The start of the response body as text (at most 4 KiB)."""

    def __init__(
        self,
        status: int,
        message: str | None,
        retry_after: float | None,
        method: str,
        path: str,
        hint: str | None = None,
        headers: Mapping[str, str] | None = None,
        body_text: str = "",
    ) -> None:
        text = f"{method} {path} answered {status}"
        if message is not None:
            text += f": {message}"
        # A hint explains a refusal; on other statuses it would mislead.
        if status == 403 and hint is not None:
            text += f" ({hint})"
        if retry_after is not None:
            text += f" (retry after {seconds_text(retry_after)})"
        super().__init__(text)
        self.status = status
        self.message = message
        self.retry_after = retry_after
        self.method = method
        self.path = path
        self.hint = hint
        self.headers = dict(headers or {})
        self.body_text = body_text[:BODY_TEXT_LIMIT]

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            type(self),
            (
                self.status,
                self.message,
                self.retry_after,
                self.method,
                self.path,
                self.hint,
                self.headers,
                self.body_text,
            ),
        )


class ValidationError(InspectionError):
    """The request broke documented limits; nothing was sent. Lists every violation."""

    kind: ClassVar[str] = "validation"

    violations: tuple[Violation, ...]
    """Every broken limit, in the order found."""

    def __init__(self, violations: Sequence[Violation]) -> None:
        self.violations = tuple(violations)
        super().__init__("invalid request: " + "; ".join(str(v) for v in self.violations))

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.violations,))


class TransportError(InspectionError):
    """The connection failed, or the response body could not be read."""

    kind: ClassVar[str] = "transport"

    method: str
    """The request method."""
    path: str
    """The path template (a pre-signed URL: origin and path)."""
    detail: str
    """What failed."""

    def __init__(self, method: str, path: str, detail: str) -> None:
        super().__init__(f"transport error on {method} {path}: {detail}")
        self.method = method
        self.path = path
        self.detail = detail

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.method, self.path, self.detail))


class RequestTimeoutError(TransportError, builtins.TimeoutError):
    """No answer within the timeout of an attempt (and every retry timed out too).

    Also a built-in ``TimeoutError``, so ``except TimeoutError`` catches it.
    """

    kind: ClassVar[str] = "timeout"

    timeout: float
    """The timeout of one attempt, in seconds."""

    def __init__(self, method: str, path: str, timeout: float) -> None:
        super().__init__(method, path, f"no answer within {timeout:g} s")
        # The transport wording is replaced by a plainer one.
        self.args = (f"{method} {path} timed out after {timeout:g} s",)
        self.timeout = timeout

    def __str__(self) -> str:
        return str(self.args[0])

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.method, self.path, self.timeout))


class DecodeError(InspectionError):
    """A response body (or a value) did not match the documented shape."""

    kind: ClassVar[str] = "decode"

    path: str
    """The JSON path of the failure, e.g. ``data[0].results[1]`` (empty: the whole body)."""
    detail: str
    """What was wrong there."""
    status: int | None
    """The HTTP status of the response, when the error comes from a response."""

    def __init__(self, path: str, detail: str, status: int | None = None) -> None:
        what = "the value" if status is None else f"the {status} response"
        where = "" if path == "" else f" at `{path}`"
        super().__init__(f"cannot decode {what}{where}: {detail}")
        self.path = path
        self.detail = detail
        self.status = status

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.path, self.detail, self.status))


class NotReadyError(InspectionError):
    """The service kept answering 202 (still preparing) past the polling limit, or asked
    (``Retry-After``) to wait longer than the client's longest wait (``max_backoff``); then
    no more polls were made."""

    kind: ClassVar[str] = "not_ready"

    operation: str
    """The polled operation, e.g. ``GET /inspections/{inspection_id}``."""
    attempts: int
    """How many requests were made (all answered 202)."""
    waited: float
    """Time spent waiting between polls, in seconds."""
    retry_after: float | None
    """The wait the last 202 asked for (``Retry-After``, seconds; ``inf`` for one too long
    to count) when it was beyond ``max_backoff``, else ``None``."""

    def __init__(
        self, operation: str, attempts: int, waited: float, retry_after: float | None = None
    ) -> None:
        text = f"{operation} was still not ready after {attempts} attempts ({waited:.1f} s of waiting)"
        if retry_after is not None:
            text += (
                f"; the service asked to wait {seconds_text(retry_after)} more, longer than "
                "the client waits (max_backoff)"
            )
        super().__init__(text)
        self.operation = operation
        self.attempts = attempts
        self.waited = waited
        self.retry_after = retry_after

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.operation, self.attempts, self.waited, self.retry_after))


class TooLargeError(InspectionError):
    """A success body was larger than ``max_response_bytes``; no more than that was read
    (a ``Content-Length`` over it is refused before reading). Large downloads can be
    written to a file instead (the ``..._to`` methods), which has no limit."""

    kind: ClassVar[str] = "too_large"

    operation: str
    """The operation, e.g. ``GET /units`` (a pre-signed URL: origin and path)."""
    limit: int
    """The limit, in bytes."""

    def __init__(self, operation: str, limit: int) -> None:
        super().__init__(
            f"the answer to {operation} is larger than the client's limit of {limit} bytes "
            "(max_response_bytes; downloads can be written to a file instead)"
        )
        self.operation = operation
        self.limit = limit

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.operation, self.limit))


class ForeignOriginError(InspectionError):
    """A redirect or a next-page link pointed at another origin than the base URL's.

    It was not followed, so no credential went there.
    """

    kind: ClassVar[str] = "foreign_origin"

    what: str
    """What pointed away: ``a redirect``, ``a next-page link``, ``a link``."""
    origin: str
    """The origin it pointed at (``https://host:port``), never a path or query."""

    def __init__(self, what: str, origin: str) -> None:
        super().__init__(f"refused to follow {what} to another origin ({origin})")
        self.what = what
        self.origin = origin

    @property
    def via(self) -> str:
        """``redirect`` or ``link``."""
        return "redirect" if self.what == "a redirect" else "link"

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.what, self.origin))


class PagingStalledError(InspectionError):
    """Paging did not advance: a next link or cursor came back that was seen before, more
    empty pages in a row than ``max_empty_pages`` each pointed to another, or a page with
    records had neither a way on nor a sign that it is the last (``reason`` says what it
    held)."""

    kind: ClassVar[str] = "paging_stalled"

    operation: str
    """The paged operation, e.g. ``GET /units``."""
    reason: str
    """Why paging counts as stalled."""

    def __init__(self, operation: str, reason: str = "a next page seen before came back") -> None:
        super().__init__(f"paging did not advance at {operation} ({reason})")
        self.operation = operation
        self.reason = reason

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.operation, self.reason))


class PagingInterruptedError(InspectionError):
    """A walk could not fetch a page past its start. ``error`` (also ``__cause__``) says
    why; ``resume`` names the page, so the list can be walked again from there (its
    ``resume=`` argument) without fetching anything twice.

    ``str(e)`` reads ``<the page's error> (the walk can resume at this page: cursor:...)``.
    """

    resume: str
    """Where the walk can start again: ``cursor:<cursor>`` or ``link:<absolute URL>``. Text,
    so it can be stored and used in another process."""
    error: InspectionError
    """What went wrong fetching the page (an ``ApiError``, a ``RequestTimeoutError``, ...)."""

    def __init__(self, resume: str, error: InspectionError) -> None:
        super().__init__(f"{error} (the walk can resume at this page: {resume})")
        self.resume = resume
        self.error = error
        self.__cause__ = error

    @property
    def status(self) -> int | None:
        """The HTTP status of the page's error, when it has one."""
        status = getattr(self.error, "status", None)
        return status if isinstance(status, int) else None

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.resume, self.error))


class ConfigError(InspectionError, ValueError):
    """The client was set up or called wrongly (a plain-http base URL, a bad option)."""

    kind: ClassVar[str] = "config"

    detail: str
    """What is wrong and how to fix it."""

    def __init__(self, detail: str) -> None:
        super().__init__(f"configuration error: {detail}")
        self.detail = detail

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.detail,))


class WebhookError(InspectionError):
    """A webhook delivery's authentication header is missing or wrong (its value is never
    shown)."""

    kind: ClassVar[str] = "webhook"

    detail: str
    """What is wrong with the header, naming it but not its value."""

    def __init__(self, detail: str) -> None:
        super().__init__(f"webhook delivery refused: {detail}")
        self.detail = detail

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.detail,))


def seconds_text(seconds: float) -> str:
    """A wait as errors show it: whole seconds, rounded up (a wait too long to count as
    such: ``more than 10^15 s``)."""
    if not seconds < 1e15:
        return "more than 10^15 s"
    return f"{math.ceil(seconds)} s"


def scrub_text(text: str, secrets: Sequence[str]) -> str:
    """``text`` with every occurrence of each secret (of ``MIN_SECRET_LENGTH`` characters
    or more, longest first) replaced by ``<redacted>``."""
    for secret in secrets:
        if len(secret) >= MIN_SECRET_LENGTH and secret in text:
            text = text.replace(secret, REDACTED)
    return text


def _scrubbed_value(value: object, secrets: Sequence[str], seen: set[int]) -> object:
    if isinstance(value, str):
        return scrub_text(value, secrets)
    if isinstance(value, BaseException):
        _scrub_one(value, secrets, seen)
        return value
    if isinstance(value, tuple):
        return tuple(_scrubbed_value(v, secrets, seen) for v in value)
    if isinstance(value, list):
        return [_scrubbed_value(v, secrets, seen) for v in value]
    if isinstance(value, dict):
        return {k: _scrubbed_value(v, secrets, seen) for k, v in value.items()}
    return value


def _scrub_one(error: BaseException, secrets: Sequence[str], seen: set[int]) -> None:
    if id(error) in seen or vars(error).get(_SCRUBBED, False):
        return
    seen.add(id(error))
    error.args = tuple(_scrubbed_value(a, secrets, seen) for a in error.args)
    # Attributes (message, detail, body_text, headers, a wrapped error, __notes__).
    for name, value in list(vars(error).items()):
        scrubbed = _scrubbed_value(value, secrets, seen)
        if scrubbed is not value:
            setattr(error, name, scrubbed)
    for linked in (error.__cause__, error.__context__):
        if linked is not None:
            _scrub_one(linked, secrets, seen)
    vars(error)[_SCRUBBED] = True


def scrub_error(error: BaseException, secrets: Sequence[str]) -> None:
    """Replaces every secret (see ``scrub_text``) in ``error``, in place: its arguments
    (what ``str`` and ``repr`` show), its text attributes and headers, the error it wraps,
    and the errors chained to it (``__cause__``, ``__context__``), so neither the error
    nor a printed traceback shows one. An error is scrubbed once (later calls leave it
    alone, so a secret that is part of ``<redacted>`` cannot grow it)."""
    ordered = sorted((s for s in secrets if len(s) >= MIN_SECRET_LENGTH), key=len, reverse=True)
    if ordered:
        _scrub_one(error, ordered, set())


_SCRUBBED = "_inspection_scrubbed"


def _shorten(text: str) -> str:
    return text[:MESSAGE_LIMIT]


def error_message(body: bytes, field: str) -> str | None:
    """The message of an error body.

    The documented form is ``{"<field>": "message"}``; an array there is joined with
    ``"; "``, an object is shown as JSON text, a JSON string body is taken as is, and any
    other body (HTML, plain text) gives its first 500 characters, so no answer of the
    service breaks error reporting. ``None`` for an empty body or one without the field.
    """
    text = body.decode("utf-8", errors="replace").strip()
    if text == "":
        return None
    try:
        parsed: object = json.loads(text)
    except ValueError:
        return _shorten(text)
    if isinstance(parsed, str):
        return parsed
    if not isinstance(parsed, dict):
        return _shorten(text)
    value = parsed.get(field)
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "; ".join(item if isinstance(item, str) else _compact(item) for item in value)
    return _compact(value)


def _compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def kept_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """Response headers as an ApiError keeps them: lower-case names, cookies left out
    (they may be credentials)."""
    return {name.lower(): value for name, value in headers.items() if name.lower() != "set-cookie"}
