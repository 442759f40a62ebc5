"""Dates and date-times: parsed without loss (a date stays a date; an offset is kept, none
is UTC; a bare date where a date-time is documented is midnight UTC), written back as
RFC 3339, and checked strictly on requests."""

from __future__ import annotations

import datetime as _dt
import re
import sys
from typing import Any

from .descriptor import Desc, DecodeFailure, describe
from .errors import Violation

_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})\Z")
_DATE_TIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?\Z"
)
# What a request may send: a full date-time with an offset.
_WIRE_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})\Z")
_UTC = _dt.timezone.utc
_FAST_ISO = sys.version_info >= (3, 11)


def parse_date(text: str) -> _dt.date:
    """A ``YYYY-MM-DD`` date (raises ``ValueError``)."""
    m = _DATE.match(text)
    if m is None:
        raise ValueError("not a date")
    return _dt.date(int(m[1]), int(m[2]), int(m[3]))


def parse_datetime(text: str) -> _dt.datetime:
    """An ISO 8601 date-time, with or without an offset (absent: UTC, as the service's times
    are), with any number of fractional digits (kept to the microsecond), ``T``, ``t`` or a
    space between date and time; or a bare date, read as midnight UTC (the service may send
    one where a date-time is documented). Raises ``ValueError``.

    Answers are read with it; a request's date-time must be RFC 3339 with an offset (see
    ``DateTime.validate``)."""
    if len(text) == 10:
        try:
            day = parse_date(text)
        except ValueError:
            raise ValueError("not a date-time") from None
        return _dt.datetime(day.year, day.month, day.day, tzinfo=_UTC)
    if _FAST_ISO and len(text) >= 16 and text[10] in "Tt":
        try:
            value = _dt.datetime.fromisoformat(text)
        except ValueError:
            pass
        else:
            return value if value.tzinfo is not None else value.replace(tzinfo=_UTC)
    m = _DATE_TIME.match(text)
    if m is None:
        raise ValueError("not a date-time")
    frac = (m[7] or "")[:6].ljust(6, "0")
    tz: _dt.tzinfo = _UTC
    offset = m[8]
    if offset is not None and offset not in ("Z", "z"):
        digits = offset[1:].replace(":", "")
        delta = _dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:4] or "0"))
        tz = _dt.timezone(-delta if offset[0] == "-" else delta)
    return _dt.datetime(
        int(m[1]), int(m[2]), int(m[3]), int(m[4]), int(m[5]), int(m[6] or "0"), int(frac), tzinfo=tz
    )


def parse_date_or_datetime(text: str) -> _dt.date:
    """A date when the text is one (``YYYY-MM-DD``), else a date-time (raises ``ValueError``)."""
    return parse_date(text) if len(text) == 10 else parse_datetime(text)


def format_datetime(v: _dt.datetime) -> str:
    """RFC 3339 text: ``Z`` for UTC, milliseconds or microseconds only when there are some;
    a naive value is written without an offset (and refused by validation)."""
    text = f"{v.year:04d}-{v.month:02d}-{v.day:02d}T{v.hour:02d}:{v.minute:02d}:{v.second:02d}"
    micro = v.microsecond
    if micro:
        text += f".{micro // 1000:03d}" if micro % 1000 == 0 else f".{micro:06d}"
    offset = v.utcoffset()
    if offset is None:
        return text
    if not offset:
        return text + "Z"
    minutes = int(offset.total_seconds()) // 60
    sign = "-" if minutes < 0 else "+"
    minutes = abs(minutes)
    return f"{text}{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def _is_wire_date(v: object) -> bool:
    if not isinstance(v, str) or _DATE.match(v) is None:
        return False
    try:
        parse_date(v)
    except ValueError:
        return False
    return True


def _is_wire_datetime(v: object) -> bool:
    if not isinstance(v, str) or _WIRE_DATE_TIME.match(v) is None:
        return False
    try:
        parse_datetime(v)
    except ValueError:
        return False
    return True


class Date(Desc):
    """A calendar date, ``datetime.date`` (never a date-time)."""

    __slots__ = ()

    def decode(self, v: Any) -> Any:
        if type(v) is str:
            try:
                return parse_date(v)
            except ValueError:
                pass
        raise DecodeFailure(f"expected an ISO 8601 date (YYYY-MM-DD), got {describe(v)}")

    def encode(self, v: Any) -> Any:
        if isinstance(v, _dt.date) and not isinstance(v, _dt.datetime):
            return v.isoformat()
        return v

    def validate(self, v: Any, path: str, out: list[Violation]) -> None:
        if not _is_wire_date(v):
            out.append(Violation(path, f"expected an ISO 8601 date (YYYY-MM-DD), got {describe(v)}"))


class DateTime(Desc):
    """A date-time, an aware ``datetime.datetime``."""

    __slots__ = ()

    def decode(self, v: Any) -> Any:
        if type(v) is str:
            try:
                return parse_datetime(v)
            except ValueError:
                pass
        raise DecodeFailure(f"expected an ISO 8601 date-time, got {describe(v)}")

    def encode(self, v: Any) -> Any:
        return format_datetime(v) if isinstance(v, _dt.datetime) else v

    def validate(self, v: Any, path: str, out: list[Violation]) -> None:
        if not _is_wire_datetime(v):
            out.append(Violation(path, f"expected an ISO 8601 date-time with an offset (2026-03-01T17:00:00Z), got {describe(v)}"))


class DateOrDateTime(Desc):
    """A ``datetime.date`` or a ``datetime.datetime``, whichever the text holds."""

    __slots__ = ()

    def decode(self, v: Any) -> Any:
        if type(v) is str:
            try:
                return parse_date_or_datetime(v)
            except ValueError:
                pass
        raise DecodeFailure(f"expected an ISO 8601 date or date-time, got {describe(v)}")

    def encode(self, v: Any) -> Any:
        if isinstance(v, _dt.datetime):
            return format_datetime(v)
        if isinstance(v, _dt.date):
            return v.isoformat()
        return v

    def validate(self, v: Any, path: str, out: list[Violation]) -> None:
        if not (_is_wire_date(v) or _is_wire_datetime(v)):
            out.append(Violation(path, f"expected an ISO 8601 date, or a date-time with an offset, got {describe(v)}"))


class DateTimeOrRange(Desc):
    """A ``datetime``, or a ``(from, to)`` pair of them (a JSON array of two)."""

    __slots__ = ()

    def decode(self, v: Any) -> Any:
        try:
            if type(v) is str:
                return parse_datetime(v)
            if type(v) is list and len(v) == 2 and all(type(x) is str for x in v):
                return (parse_datetime(v[0]), parse_datetime(v[1]))
        except ValueError:
            pass
        raise DecodeFailure(f"expected a date-time or a [from, to] pair of them, got {describe(v)}")

    def encode(self, v: Any) -> Any:
        if isinstance(v, tuple):
            return [format_datetime(x) if isinstance(x, _dt.datetime) else x for x in v]
        return format_datetime(v) if isinstance(v, _dt.datetime) else v

    def validate(self, v: Any, path: str, out: list[Violation]) -> None:
        if isinstance(v, list) and len(v) == 2 and all(_is_wire_datetime(x) for x in v):
            return
        if not _is_wire_datetime(v):
            out.append(Violation(path, f"expected a date-time or a [from, to] pair of them, got {describe(v)}"))
