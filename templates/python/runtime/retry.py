"""When to try again, and how long to wait."""

from __future__ import annotations

import datetime as dt
import email.utils
import errno
import random
import re
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Final, Literal

import httpx

from .origin import strip_url_queries

__all__ = ["FOREVER", "Failure", "backoff", "classify", "is_idempotent", "phase_timeout", "retry_after"]

_DIGITS: Final = re.compile(r"[0-9]+")
# Beyond this the doubling only overflows; every realistic max_backoff is reached first.
_MAX_EXPONENT: Final = 16

FOREVER: Final = 365 * 86400.0
"""Waits and timeouts longer than a year are taken as having no end: Python's clocks
cannot hold them (``time.sleep(1e10)`` and a socket timeout of that size raise
``OverflowError``), so sleeps go a day at a time and such a timeout becomes none."""


def phase_timeout(seconds: float) -> float | None:
    """A timeout as httpx is given it: ``None`` (none) for one beyond ``FOREVER``."""
    return None if seconds > FOREVER else seconds


def backoff(
    retry: int,
    initial: float,
    maximum: float,
    rand: Callable[[], float] = random.random,
) -> float:
    """Seconds to wait before retry number ``retry`` (1-based): half of the exponential
    step ``min(initial * 2**(retry-1), maximum)`` plus a random share of the other half,
    so clients that failed together spread out."""
    exponent = min(max(retry - 1, 0), _MAX_EXPONENT)
    half = min(initial * (1 << exponent), maximum) / 2
    return half + half * rand()


def retry_after(
    headers: Mapping[str, str],
    name: str = "retry-after",
    now: Callable[[], float] = time.time,
) -> float | None:
    """The wait a ``Retry-After`` header asks for, in seconds: delay-seconds or an HTTP
    date (a date in the past gives 0). ``None`` when absent or unreadable. Delay-seconds
    too large for a float are ``inf``: longer than any client waits.

    ``headers`` is looked up with ``name`` as given: pass ``httpx.Headers`` (case-blind).
    """
    value = headers.get(name)
    if value is None:
        return None
    value = value.strip()
    if _DIGITS.fullmatch(value):
        # float() of decimal text never raises: a value too large for it is inf (int()
        # would refuse over 4,300 digits, and float(int) raise OverflowError past 1e308).
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        # RFC 9110 dates are GMT; a zone-less one (`-0000`) is read as such.
        when = when.replace(tzinfo=dt.timezone.utc)
    return max(0.0, when.timestamp() - now())


def is_idempotent(method: str) -> bool:
    """Whether repeating a request with ``method`` cannot apply it twice (RFC 9110)."""
    return method.upper() in ("GET", "HEAD", "OPTIONS", "PUT", "DELETE")


@dataclass(frozen=True)
class Failure:
    """Why an exchange produced no response, sorted for the retry rules."""

    kind: Literal["timeout", "refused", "network"]
    """``timeout``: the attempt's time ran out; ``refused``: the connection was refused, so
    nothing reached the service (any method may be retried); ``network``: anything else on
    the way (reset, DNS, TLS, a broken body), after which the request may have been applied."""
    detail: str
    """What failed, from the exception's text (the caller removes URL queries)."""


def classify(error: httpx.RequestError) -> Failure:
    """Sorts an httpx failure for the retry rules."""
    if isinstance(error, httpx.TimeoutException):
        return Failure("timeout", "no answer in time")
    detail = _describe(error)
    if isinstance(error, httpx.ConnectError) and _refused(error):
        return Failure("refused", f"cannot connect: {detail}")
    return Failure("network", f"the request failed: {detail}")


def _chain(error: BaseException) -> Iterator[BaseException]:
    """The error and its causes, at most four deep."""
    current: BaseException | None = error
    for _ in range(4):
        if current is None:
            return
        yield current
        current = current.__cause__ or current.__context__


def _refused(error: BaseException) -> bool:
    for e in _chain(error):
        if isinstance(e, ConnectionRefusedError):
            return True
        if isinstance(e, OSError) and e.errno == errno.ECONNREFUSED:
            return True
    # httpcore keeps only the text of some platform errors.
    return "refused" in str(error).lower()


def _describe(error: BaseException) -> str:
    parts: list[str] = []
    for e in _chain(error):
        text = str(e) or type(e).__name__
        if text not in parts:
            parts.append(text)
    return strip_url_queries(": ".join(parts))
