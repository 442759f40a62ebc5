"""The one error hierarchy of the client.

No error ever carries a credential, a request header value or a request body: messages
name the operation by method and path template, and pre-signed URLs are shown by origin
and path only (their query is the signature).
"""

from __future__ import annotations

import builtins
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ApiError",
    "ConfigError",
    "WebhookError",
    "DecodeError",
    "ForeignOriginError",
    "InspectionError",
    "NotReadyError",
    "PagingStalledError",
    "RequestTimeoutError",
    "TransportError",
    "ValidationError",
    "Violation",
    "error_message",
    "kept_headers",
]

# How much of an error body an ApiError keeps: enough to debug, not a whole HTML page.
BODY_TEXT_LIMIT = 4096
# How much of a body that is not the documented error JSON becomes the message.
MESSAGE_LIMIT = 500


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


class ApiError(InspectionError):
    """The service answered with an error status.

    ``str(e)`` reads ``GET /units/{unit_id} answered 404: <the service's message>``.
    """

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
            text += f" (retry after {math.ceil(retry_after)} s)"
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

    violations: tuple[Violation, ...]
    """Every broken limit, in the order found."""

    def __init__(self, violations: Sequence[Violation]) -> None:
        self.violations = tuple(violations)
        super().__init__("invalid request: " + "; ".join(str(v) for v in self.violations))

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.violations,))


class TransportError(InspectionError):
    """The connection failed, or the response body could not be read."""

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
    """The service kept answering 202 (still preparing) past the polling limit."""

    operation: str
    """The polled operation, e.g. ``GET /inspections/{inspection_id}``."""
    attempts: int
    """How many requests were made (all answered 202)."""
    waited: float
    """Time spent waiting between polls, in seconds."""

    def __init__(self, operation: str, attempts: int, waited: float) -> None:
        super().__init__(
            f"{operation} was still not ready after {attempts} attempts ({waited:.1f} s of waiting)"
        )
        self.operation = operation
        self.attempts = attempts
        self.waited = waited

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.operation, self.attempts, self.waited))


class ForeignOriginError(InspectionError):
    """A redirect or a next-page link pointed at another origin than the base URL's.

    It was not followed, so no credential went there.
    """

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
    """Paging did not advance: a next link or cursor came back that was seen before."""

    operation: str
    """The paged operation, e.g. ``GET /units``."""

    def __init__(self, operation: str) -> None:
        super().__init__(
            f"paging did not advance at {operation} (a next page seen before came back)"
        )
        self.operation = operation

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.operation,))


class ConfigError(InspectionError, ValueError):
    """The client was set up or called wrongly (a plain-http base URL, a bad option)."""

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

    detail: str
    """What is wrong with the header, naming it but not its value."""

    def __init__(self, detail: str) -> None:
        super().__init__(f"webhook delivery refused: {detail}")
        self.detail = detail

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.detail,))


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
