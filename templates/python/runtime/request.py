"""A request as the generated code describes it, how it becomes a URL, and how values are
written into paths and queries."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final
from urllib.parse import quote

import httpx

from .codec import UNSET
from .errors import ConfigError, ForeignOriginError, ValidationError, Violation
from .origin import origin_of, same_origin

__all__ = [
    "RawResponse",
    "RequestSpec",
    "Segment",
    "describe",
    "encode_segment",
    "request_url",
]


@dataclass(frozen=True)
class Segment:
    """A path parameter's value: percent-encoded as ONE segment, so an id holding ``/``,
    ``?``, spaces or unicode stays one."""

    value: str


@dataclass(frozen=True, kw_only=True)
class RequestSpec:
    """One call: what a generated operation fills in, and the core sends."""

    op: str
    """The operation's name (``get_unit``)."""
    method: str
    """The HTTP method."""
    path: str
    """The path template (``/units/{unit_id}``): what errors and logs show."""
    segments: tuple[str | Segment, ...]
    """The path below the base URL: literal segments, and parameter values as ``Segment``.
    A value that cannot be one segment ("", ".", "..", control characters) is refused
    with a ValidationError, even with validation off."""
    query: tuple[tuple[str, str], ...] = ()
    """Query parameters as formatted text, in order."""
    body: object = UNSET
    """An encoded JSON body (``codec.encode``'s result), or ``UNSET`` for none. ``Secret``
    values in it are sent as their value, on the wire only. With ``content_type``: the
    ``bytes`` to send as they are."""
    content_type: str | None = None
    """The body's media type when it is sent as it is; ``None``: JSON
    (``application/json``)."""
    accept: str | None = None
    """``Accept``; otherwise the interface's default (``application/json``)."""
    anonymous: bool = False
    """Sent without credentials (a login)."""
    hint: str | None = None
    """Added to a 403's message, e.g. "only users with the manager role may call it"."""
    poll: bool = False
    """A 202 (still preparing) is asked again, up to ``max_polls``, then NotReadyError."""
    url: str | None = None
    """An absolute URL replacing base + segments + query (a next-page link); it must be on
    the base URL's origin."""


@dataclass(frozen=True)
class RawResponse:
    """A successful (2xx) answer, body read."""

    status: int
    headers: httpx.Headers
    content: bytes
    """The body (empty for a download written to a writer)."""
    url: str
    """The URL that answered (after same-origin redirects)."""
    written: int = 0
    """For a download written to a writer: how many bytes were written."""


def describe(req: RequestSpec) -> str:
    """``GET /units/{unit_id}``: how logs and errors name a request."""
    return f"{req.method} {req.path}"


_CONTROL: Final = re.compile(r"[\x00-\x1f\x7f]")


def _unsendable(value: str) -> str | None:
    """Why ``value`` cannot travel as one path segment, if it cannot."""
    # URL handling drops `.` and `..` segments, and an empty segment changes the path:
    # each would reach another endpoint.
    if value in ("", ".", ".."):
        return "it would reach another endpoint"
    if _CONTROL.search(value):
        return "it holds a control character"
    return None


def encode_segment(value: str) -> str:
    """Percent-encodes ``value`` as one path segment.

    Raises ValidationError for a value that cannot be one (see ``Segment``).
    """
    why = _unsendable(value)
    if why is None:
        try:
            return quote(value, safe="", encoding="utf-8", errors="strict")
        except UnicodeEncodeError:
            why = "it is not well-formed Unicode"
    raise ValidationError([_segment_violation(value, why)])


def _segment_violation(value: str, why: str) -> Violation:
    # ascii() escapes the control characters and lone surrogates it complains about.
    return Violation("", f"the path value {ascii(value)} cannot be sent as one segment ({why})")


def request_url(base: httpx.URL, req: RequestSpec) -> httpx.URL:
    """The URL ``req`` goes to under ``base``.

    Raises ValidationError for path values that cannot be one segment (all of them at
    once), ForeignOriginError for a ``req.url`` on another origin than ``base``'s.
    """
    if req.url is not None:
        try:
            url = base.join(req.url)
        except (httpx.InvalidURL, ValueError):
            raise ConfigError(f"the link given for {describe(req)} is not a URL") from None
        if not same_origin(url, base):
            raise ForeignOriginError("a link", origin_of(url))
        return url
    parts: list[str] = []
    bad: list[Violation] = []
    for segment in req.segments:
        if isinstance(segment, str):
            parts.append(segment)
            continue
        try:
            parts.append(encode_segment(segment.value))
        except ValidationError as e:
            bad.extend(Violation(req.path, v.message) for v in e.violations)
    if bad:
        raise ValidationError(bad)
    raw_path, _, base_query = base.raw_path.decode("ascii").partition("?")
    path = raw_path.rstrip("/") + "/" + "/".join(parts) if parts else raw_path
    pairs = [base_query] if base_query else []
    pairs.extend(f"{quote(name, safe='')}={quote(value, safe='')}" for name, value in req.query)
    query = "&".join(pairs)
    return httpx.URL(origin_of(base) + path + ("?" + query if query else ""))
