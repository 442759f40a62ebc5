"""How values travel: the wire descriptors the generated models are described with, and the
three walks over them.

* ``decode`` reads a parsed JSON answer into the generated dataclasses, tolerantly: unknown
  properties are kept (``extra``), unknown enum values stay strings, unknown union members
  keep their whole object, limits are never checked, and a failure names its JSON path.
* ``encode`` turns dataclasses back into JSON values (``Secret`` values stay wrapped until
  ``dumps``); it never raises, so what does not fit is left for ``validate`` to report.
* ``validate`` checks an encoded request against the documented limits and collects every
  violation, with its path on the wire.

Descriptors are built once, when a models module is imported: every named type first, then
what each holds, so types may refer to each other in any order.
"""

from __future__ import annotations

import datetime as _dt
import enum
import json
import re
import sys
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Final, Mapping, Sequence, TypeVar, Union

from .errors import DecodeError, Violation
from .secret import Secret

#: Any JSON value.
JsonValue = Union[None, bool, int, float, str, "list[JsonValue]", "dict[str, JsonValue]"]

T = TypeVar("T")
R = TypeVar("R", bound="Record")


class Unset:
    """The type of ``UNSET``: a property that is absent, which is not the same as ``None``
    (a JSON ``null``)."""

    __slots__ = ()
    _instance: ClassVar[Unset | None] = None

    def __new__(cls) -> Unset:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return "UNSET"


#: An absent property (left out on the wire).
UNSET: Final = Unset()


@dataclass(frozen=True, slots=True)
class ExternalId:
    """A record named by its external id (sent as ``_<value>`` in a path)."""

    value: str


class SelfRef:
    """The caller's own record (sent as the interface's self keyword in a path)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "SELF"


#: The caller's own record, in a path.
SELF: Final = SelfRef()


def ref_segment(ref: object, self_keyword: str | None = None) -> str:
    """The path segment text of a record reference: an id as it is, ``_<external id>``, or
    the self keyword."""
    if isinstance(ref, ExternalId):
        return f"_{ref.value}"
    if isinstance(ref, SelfRef):
        return self_keyword if self_keyword is not None else "self"
    return str(ref)


# ---------------------------------------------------------------- failures and paths


class _Failure(Exception):
    """Raised inside a decode walk; path segments are added on the way up (innermost
    first), so a successful decode never builds a path."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail
        self.segments: list[str | int] = []


_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*\Z")


def key_path(path: str, key: str) -> str:
    """``a.key``, or ``a["weird key"]`` when the key is not an identifier."""
    if _IDENTIFIER.match(key):
        return f"{path}.{key}" if path else key
    return f"{path}[{json.dumps(key, ensure_ascii=False)}]"


def _format_path(prefix: str, reversed_segments: Sequence[str | int]) -> str:
    path = prefix
    for seg in reversed(reversed_segments):
        path = f"{path}[{seg}]" if isinstance(seg, int) else key_path(path, seg)
    return path


def describe(value: object) -> str:
    """How a value is named in a message: its kind, and its text when short and harmless."""
    if value is None:
        return "null"
    if isinstance(value, Secret):
        return "a secret"
    if isinstance(value, bool):
        return f"boolean {'true' if value else 'false'}"
    if isinstance(value, str):
        # A long string may be a token; a short one helps the reader more than it could leak.
        return f"string {json.dumps(value, ensure_ascii=False)}" if len(value) <= 40 else f"a string of {len(value)} characters"
    if isinstance(value, (int, float)):
        return f"number {value!r}"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


# ---------------------------------------------------------------- limits


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """Documented limits of a request value. Lengths count code points."""

    max_length: int | None = None
    length: int | None = None
    min: int | None = None
    max: int | None = None
    #: ``ascii_alphanumeric`` or ``ascii_digits``.
    allow: str | None = None
    forbid: str = ""
    min_items: int | None = None
    max_items: int | None = None


_CLASS_TEXT = {"ascii_alphanumeric": "ASCII letters and digits", "ascii_digits": "ASCII digits"}


def _allowed(cls: str, c: str) -> bool:
    if not c.isascii():
        return False
    return c.isalnum() if cls == "ascii_alphanumeric" else c.isdigit()


def _quote_char(c: str) -> str:
    """A character as Rust's ``{:?}`` shows it: ``'O'``, ``'\\n'``."""
    inner = json.dumps(c, ensure_ascii=False)[1:-1].replace('\\"', '"').replace("'", "\\'")
    return f"'{inner}'"


def _check_string(text: str, secret: bool, c: Limits | None, path: str, out: list[Violation]) -> None:
    if c is None:
        return
    n = len(text)
    if c.max_length is not None and n > c.max_length:
        out.append(Violation(path, f"must be at most {c.max_length} characters, got {n}"))
    if c.length is not None and n != c.length:
        out.append(Violation(path, f"must be exactly {c.length} characters, got {n}"))
    if c.allow is not None:
        for at, ch in enumerate(text):
            if not _allowed(c.allow, ch) or ch in c.forbid:
                never = f", never {', '.join(c.forbid)}" if c.forbid else ""
                # A secret's characters are not shown, not even one.
                found = "a character not allowed" if secret else _quote_char(ch)
                out.append(
                    Violation(path, f"must hold only {_CLASS_TEXT.get(c.allow, c.allow)}{never}; found {found} at position {at + 1}")
                )
                break


def _check_range(n: float, c: Limits | None, path: str, out: list[Violation]) -> None:
    if c is None:
        return
    if c.min is not None and n < c.min:
        out.append(Violation(path, f"must be at least {c.min}, got {n}"))
    if c.max is not None and n > c.max:
        out.append(Violation(path, f"must be at most {c.max}, got {n}"))


# ---------------------------------------------------------------- descriptors


class Desc:
    """Describes one type: how its values are read, written and checked."""

    __slots__ = ()

    def decode(self, v: Any) -> Any:
        """The typed value of the parsed JSON ``v`` (raises ``_Failure``)."""
        raise NotImplementedError

    def encode(self, v: Any) -> Any:
        """The JSON value of ``v``; what does not fit is returned as it is."""
        return v

    def validate(self, v: Any, path: str, out: list[Violation]) -> None:
        """Adds every violation of the encoded value ``v`` to ``out``."""


class Str(Desc):
    """A string (also a URL); ``secret``: decoded into a ``Secret``."""

    __slots__ = ("limits", "secret")

    def __init__(self, limits: Limits | None = None, *, secret: bool = False) -> None:
        self.limits = limits
        self.secret = secret

    def decode(self, v: Any) -> Any:
        if type(v) is not str:
            raise _Failure(f"expected a string, got {describe(v)}")
        return Secret(v) if self.secret else v

    def validate(self, v: Any, path: str, out: list[Violation]) -> None:
        if isinstance(v, Secret):
            _check_string(v.expose(), True, self.limits, path, out)
        elif isinstance(v, str):
            _check_string(v, self.secret, self.limits, path, out)
        else:
            out.append(Violation(path, f"expected a string, got {describe(v)}"))


class Id(Str):
    """An opaque id; a JSON number is accepted when decoding and kept as its decimal text."""

    __slots__ = ()

    def decode(self, v: Any) -> Any:
        if type(v) is str:
            return v
        if type(v) is int:
            return str(v)
        raise _Failure(f"expected an id (a string), got {describe(v)}")


_INT32 = (-(2**31), 2**31 - 1)
_INT64 = (-(2**63), 2**63 - 1)


class Int(Desc):
    """A JSON number that is an integer; 32- or 64-bit, range-checked on validation."""

    __slots__ = ("bits", "limits")

    def __init__(self, bits: int = 64, limits: Limits | None = None) -> None:
        self.bits = bits
        self.limits = limits

    def decode(self, v: Any) -> Any:
        if type(v) is int:
            return v
        if type(v) is float and v.is_integer():
            return int(v)
        raise _Failure(f"expected an integer, got {describe(v)}")

    def validate(self, v: Any, path: str, out: list[Violation]) -> None:
        if type(v) is not int:
            out.append(Violation(path, f"expected an integer, got {describe(v)}"))
            return
        low, high = _INT32 if self.bits == 32 else _INT64
        if not low <= v <= high:
            out.append(Violation(path, f"must be a {self.bits}-bit integer ({low} to {high}), got {v}"))
        _check_range(v, self.limits, path, out)


class Num(Desc):
    """Any JSON number."""

    __slots__ = ("limits",)

    def __init__(self, limits: Limits | None = None) -> None:
        self.limits = limits

    def decode(self, v: Any) -> Any:
        if type(v) is float or type(v) is int:
            return v
        raise _Failure(f"expected a number, got {describe(v)}")

    def validate(self, v: Any, path: str, out: list[Violation]) -> None:
        if type(v) not in (int, float) or v != v or v in (float("inf"), float("-inf")):
            out.append(Violation(path, f"expected a finite number, got {describe(v)}"))
            return
        _check_range(v, self.limits, path, out)


class Bool(Desc):
    """``true`` or ``false``."""

    __slots__ = ()

    def decode(self, v: Any) -> Any:
        if type(v) is not bool:
            raise _Failure(f"expected a boolean, got {describe(v)}")
        return v

    def validate(self, v: Any, path: str, out: list[Violation]) -> None:
        if type(v) is not bool:
            out.append(Violation(path, f"expected a boolean, got {describe(v)}"))


class Json(Desc):
    """Any JSON, kept as parsed."""

    __slots__ = ()

    def decode(self, v: Any) -> Any:
        return v


# -- dates

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
    are), with any number of fractional digits (kept to the microsecond). Raises
    ``ValueError``."""
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
        raise _Failure(f"expected an ISO 8601 date (YYYY-MM-DD), got {describe(v)}")

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
        raise _Failure(f"expected an ISO 8601 date-time, got {describe(v)}")

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
                return parse_date(v) if len(v) == 10 else parse_datetime(v)
            except ValueError:
                pass
        raise _Failure(f"expected an ISO 8601 date or date-time, got {describe(v)}")

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
        raise _Failure(f"expected a date-time or a [from, to] pair of them, got {describe(v)}")

    def encode(self, v: Any) -> Any:
        if isinstance(v, tuple):
            return [format_datetime(x) if isinstance(x, _dt.datetime) else x for x in v]
        return format_datetime(v) if isinstance(v, _dt.datetime) else v

    def validate(self, v: Any, path: str, out: list[Violation]) -> None:
        if isinstance(v, list) and len(v) == 2 and all(_is_wire_datetime(x) for x in v):
            return
        if not _is_wire_datetime(v):
            out.append(Violation(path, f"expected a date-time or a [from, to] pair of them, got {describe(v)}"))


# -- enums, scalars, collections


class Enum(Desc):
    """A string from a list, read into the generated ``enum.Enum``. Open: an unknown value
    stays a plain ``str``; closed: validation refuses it."""

    __slots__ = ("members", "open", "values")

    def __init__(self, cls: type[enum.Enum], *, open: bool) -> None:  # noqa: A002 - the spec's word
        self.members: Mapping[Any, enum.Enum] = cls._value2member_map_
        self.values = [str(m.value) for m in cls]
        self.open = open

    def decode(self, v: Any) -> Any:
        if type(v) is not str:
            raise _Failure(f"expected a string (an enum value), got {describe(v)}")
        return self.members.get(v, v)

    def encode(self, v: Any) -> Any:
        return v.value if isinstance(v, enum.Enum) else v

    def validate(self, v: Any, path: str, out: list[Violation]) -> None:
        if not isinstance(v, str):
            out.append(Violation(path, f"expected a string, got {describe(v)}"))
        elif not self.open and v not in self.members:
            listed = ", ".join(f"`{x}`" for x in self.values)
            out.append(Violation(path, f"must be one of {listed}, got {describe(v)}"))


_KIND_TEXT = {"string": "a string", "integer": "an integer", "number": "a number", "boolean": "a boolean", "null": "null"}


def _scalar_kind(v: object) -> str | None:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, str):
        return "string"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float) and v == v and v not in (float("inf"), float("-inf")):
        return "integer" if v.is_integer() else "number"
    return None


class Scalar(Desc):
    """A JSON scalar of one of the listed kinds; decoding passes any value through."""

    __slots__ = ("kinds",)

    def __init__(self, *kinds: str) -> None:
        self.kinds = kinds

    def decode(self, v: Any) -> Any:
        return v

    def validate(self, v: Any, path: str, out: list[Violation]) -> None:
        kind = _scalar_kind(v)
        if kind is not None and (kind in self.kinds or (kind == "integer" and "number" in self.kinds)):
            return
        texts = [_KIND_TEXT.get(k, k) for k in self.kinds]
        listed = texts[0] if len(texts) == 1 else f"{', '.join(texts[:-1])} or {texts[-1]}"
        out.append(Violation(path, f"expected {listed}, got {describe(v)}"))


def encode_value(v: Any) -> Any:
    """The JSON value of any decoded value, by its Python type (what a page's items are
    written back with, since ``Page`` is generic)."""
    if isinstance(v, Record):
        return v.to_json()
    if isinstance(v, Unknown):
        return v.raw
    if isinstance(v, list):
        return [encode_value(x) for x in v]
    if isinstance(v, dict):
        return {k: encode_value(x) for k, x in v.items()}
    if isinstance(v, enum.Enum):
        return v.value
    if isinstance(v, _dt.datetime):
        return format_datetime(v)
    if isinstance(v, _dt.date):
        return v.isoformat()
    return v


class Dynamic(Desc):
    """Any value: read as parsed JSON, written back by its Python type."""

    __slots__ = ()

    def decode(self, v: Any) -> Any:
        return v

    def encode(self, v: Any) -> Any:
        return encode_value(v)


class Array(Desc):
    """A JSON array of ``of``, read into a ``list``."""

    __slots__ = ("limits", "of")

    def __init__(self, of: Desc, limits: Limits | None = None) -> None:
        self.of = of
        self.limits = limits

    def decode(self, v: Any) -> Any:
        if type(v) is not list:
            raise _Failure(f"expected an array, got {describe(v)}")
        of = self.of
        # Strings, numbers and other scalars come back as they are: one pass, no copy per item.
        if type(of) is Json or type(of) is Scalar:
            return v
        out = []
        for i, item in enumerate(v):
            try:
                out.append(of.decode(item))
            except _Failure as e:
                e.segments.append(i)
                raise
        return out

    def encode(self, v: Any) -> Any:
        if isinstance(v, (list, tuple)):
            return [self.of.encode(x) for x in v]
        return v

    def validate(self, v: Any, path: str, out: list[Violation]) -> None:
        if not isinstance(v, list):
            out.append(Violation(path, f"expected an array, got {describe(v)}"))
            return
        c = self.limits
        if c is not None and c.min_items is not None and len(v) < c.min_items:
            out.append(Violation(path, f"must have at least {c.min_items} items, got {len(v)}"))
        if c is not None and c.max_items is not None and len(v) > c.max_items:
            out.append(Violation(path, f"must have at most {c.max_items} items, got {len(v)}"))
        for i, item in enumerate(v):
            self.of.validate(item, f"{path}[{i}]", out)


class Map(Desc):
    """A JSON object whose every property is an ``of``, read into a ``dict``."""

    __slots__ = ("of",)

    def __init__(self, of: Desc) -> None:
        self.of = of

    def decode(self, v: Any) -> Any:
        if type(v) is not dict:
            raise _Failure(f"expected an object (a map), got {describe(v)}")
        out = {}
        for key, item in v.items():
            try:
                out[key] = self.of.decode(item)
            except _Failure as e:
                e.segments.append(key)
                raise
        return out

    def encode(self, v: Any) -> Any:
        if isinstance(v, dict):
            return {k: self.of.encode(x) for k, x in v.items()}
        return v

    def validate(self, v: Any, path: str, out: list[Violation]) -> None:
        if not isinstance(v, dict):
            out.append(Violation(path, f"expected an object (a map), got {describe(v)}"))
            return
        for key, item in v.items():
            self.of.validate(item, key_path(path, str(key)), out)


# -- records


class Record:
    """Base of the generated dataclasses: ``from_json`` and ``to_json`` through the class's
    wire descriptor."""

    __slots__ = ()
    _wire: ClassVar[RecordDesc]

    @classmethod
    def from_json(cls: type[R], data: object) -> R:
        """Reads a parsed JSON value (tolerantly, as answers are read).

        Raises ``DecodeError`` naming the JSON path of what does not fit."""
        value: R = decode(cls._wire, data)
        return value

    def to_json(self) -> dict[str, JsonValue]:
        """The JSON object of this record, unknown properties included (``Secret`` values
        stay wrapped: ``dumps`` exposes them)."""
        value: dict[str, JsonValue] = self._wire.encode(self)
        return value


@dataclass(frozen=True, slots=True)
class F:
    """One property of a record: wire name, attribute name, descriptor, and how absence
    and ``null`` are read."""

    wire: str
    attr: str
    desc: Desc
    #: Required: absence is a decode error and a violation.
    req: bool = False
    #: Documented nullable: ``None`` is a value of its own.
    nul: bool = False
    #: A collection the service may leave out: decoding puts an empty one there.
    fill: Callable[[], Any] | None = None


@dataclass(frozen=True, slots=True)
class OneOf:
    """Exactly one of several field groups must be present (checked on requests only)."""

    name: str
    variants: tuple[tuple[str, tuple[str, ...]], ...]


_MISSING: Final = object()


class RecordDesc(Desc):
    """A generated dataclass: its fields by wire name; other properties kept in the
    attribute named ``extra`` (when the class has one)."""

    __slots__ = ("by_wire", "cls", "extra", "fields", "fills", "known", "one_of", "required")

    def __init__(self, cls: type[Any], *, register: bool = True) -> None:
        self.cls = cls
        self.fields: tuple[F, ...] = ()
        self.known: frozenset[str] = frozenset()
        self.extra: str | None = None
        self.one_of: OneOf | None = None
        self.by_wire: dict[str, tuple[F, type | None]] = {}
        self.fills: tuple[F, ...] = ()
        self.required: tuple[F, ...] = ()
        if register:
            cls._wire = self

    def define(self, *fields: F, extra: str | None = None, one_of: OneOf | None = None) -> None:
        """Sets what the record holds (after every named type exists)."""
        self.fields = fields
        self.known = frozenset(f.wire for f in fields)
        self.extra = extra
        self.one_of = one_of
        self.by_wire = {f.wire: (f, _fast_kind(f.desc)) for f in fields}
        self.fills = tuple(f for f in fields if f.fill is not None)
        self.required = tuple(f for f in fields if f.req and f.fill is None)

    def decode(self, v: Any) -> Any:
        if type(v) is not dict:
            raise _Failure(f"expected an object, got {describe(v)}")
        kw: dict[str, Any] = {}
        extra: dict[str, Any] | None = None
        by_wire = self.by_wire
        # One pass over what was sent (records leave most optional fields out), then the
        # few fields whose absence means something.
        for key, x in v.items():
            entry = by_wire.get(key)
            if entry is None:
                if extra is None:
                    extra = {}
                extra[key] = x
                continue
            f, fast = entry
            if x is None:
                if f.nul:
                    kw[f.attr] = None
                elif f.fill is not None:
                    kw[f.attr] = f.fill()
                elif f.req:
                    raise _at(_Failure("is required, but null"), key)
                # A `null` where none is documented reads as absent.
                continue
            # Plain strings, booleans and integers need no call.
            kind = type(x)
            if fast == kind:
                kw[f.attr] = x
                continue
            try:
                kw[f.attr] = f.desc.decode(x)
            except _Failure as e:
                e.segments.append(key)
                raise
        if len(kw) < len(by_wire):
            for f in self.fills:
                if f.attr not in kw:
                    kw[f.attr] = f.fill() if f.fill is not None else None
            for f in self.required:
                if f.attr not in kw:
                    raise _at(_Failure("is required, but absent"), f.wire)
        if extra is not None and self.extra is not None:
            kw[self.extra] = extra
        return self.cls(**kw)

    def encode(self, v: Any) -> Any:
        if not isinstance(v, self.cls):
            return v
        out: dict[str, Any] = {}
        for f in self.fields:
            x = getattr(v, f.attr)
            if x is UNSET:
                continue
            out[f.wire] = None if x is None else f.desc.encode(x)
        if self.extra is not None:
            for key, x in getattr(v, self.extra).items():
                out.setdefault(key, x)
        return out

    def validate(self, v: Any, path: str, out: list[Violation]) -> None:
        if not isinstance(v, dict):
            out.append(Violation(path, f"expected an object, got {describe(v)}"))
            return
        exempt: frozenset[str] = frozenset()
        one_of_violation: Violation | None = None
        if self.one_of is not None:
            present = [(name, keys) for name, keys in self.one_of.variants if any(v.get(k) is not None for k in keys)]
            chosen = present[0][0] if len(present) == 1 else None
            exempt = frozenset(k for name, keys in self.one_of.variants if name != chosen for k in keys)
            if chosen is None:
                groups = ", ".join("+".join(f"`{k}`" for k in keys) for _, keys in self.one_of.variants)
                found = " and ".join("+".join(f"`{k}`" for k in keys) for _, keys in present) or "none"
                one_of_violation = Violation(key_path(path, self.one_of.name), f"expected exactly one of {groups}, found {found}")
        for f in self.fields:
            x = v.get(f.wire, _MISSING)
            p = key_path(path, f.wire)
            if x is _MISSING:
                if f.req and f.wire not in exempt:
                    out.append(Violation(p, "is required"))
            elif x is None:
                if not f.nul:
                    out.append(Violation(p, "must not be null" if f.req else "must not be null (leave it out instead)"))
            else:
                f.desc.validate(x, p, out)
        if one_of_violation is not None:
            out.append(one_of_violation)


def _fast_kind(desc: Desc) -> type | None:
    """The JSON type a field's values are kept as they are for (no descriptor call)."""
    if type(desc) is Str and not desc.secret:
        return str
    if type(desc) is Bool:
        return bool
    if type(desc) is Int:
        return int
    return None


def _at(failure: _Failure, wire: str) -> _Failure:
    failure.segments.append(wire)
    return failure


# -- unions


class Unknown:
    """A union member whose tag this client does not know: the whole object, kept as the
    service sent it and written back unchanged."""

    __slots__ = ("raw",)
    #: The union's tag property.
    tag_name: ClassVar[str] = "type"

    def __init__(self, raw: dict[str, JsonValue]) -> None:
        self.raw = raw

    @property
    def tag(self) -> str | None:
        """The tag value as sent (``None`` when there was none or it was not a string)."""
        value = self.raw.get(self.tag_name)
        return value if isinstance(value, str) else None

    def to_json(self) -> dict[str, JsonValue]:
        """The object, unchanged."""
        return self.raw

    def __repr__(self) -> str:
        return f"{type(self).__name__}(tag={self.tag!r}, raw={self.raw!r})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and isinstance(other, Unknown) and other.raw == self.raw

    __hash__ = None  # type: ignore[assignment]


class _Kept(dict):  # type: ignore[type-arg]
    """An unknown member's object on its way back: validation lets it through unchecked."""


class UnionDesc(Desc):
    """A discriminated union: the ``tag`` property picks the member's dataclass (which holds
    the tag as an attribute of its own, since one dataclass may serve several tags)."""

    __slots__ = ("by_class", "tag", "unknown", "variants")

    def __init__(self, tag: str, unknown: type[Unknown] | None) -> None:
        self.tag = tag
        self.unknown = unknown
        self.variants: dict[str, RecordDesc] = {}
        self.by_class: dict[type[Any], RecordDesc] = {}

    def define(self, variants: dict[str, RecordDesc]) -> None:
        """Sets the members (after every named type exists)."""
        self.variants = variants
        self.by_class = {d.cls: d for d in variants.values()}

    def decode(self, v: Any) -> Any:
        if type(v) is not dict:
            raise _Failure(f"expected an object, got {describe(v)}")
        tag = v.get(self.tag)
        shape = self.variants.get(tag) if type(tag) is str else None
        if shape is None:
            if self.unknown is None:
                known = ", ".join(f"`{t}`" for t in self.variants)
                raise _at(_Failure(f"must be one of {known}, got {describe(tag)}"), self.tag)
            return self.unknown(v)
        try:
            return shape.decode(v)
        except _Failure as e:
            e.detail = f"{self.tag} `{tag}`: {e.detail}"
            raise

    def encode(self, v: Any) -> Any:
        if isinstance(v, Unknown):
            return _Kept(v.raw)
        shape = self.by_class.get(type(v))
        return v if shape is None else shape.encode(v)

    def validate(self, v: Any, path: str, out: list[Violation]) -> None:
        if isinstance(v, _Kept):
            # A member read from the service and sent back unchanged is the service's own.
            return
        if not isinstance(v, dict):
            out.append(Violation(path, f"expected an object, got {describe(v)}"))
            return
        tag = v.get(self.tag)
        shape = self.variants.get(tag) if isinstance(tag, str) else None
        if shape is None:
            known = ", ".join(f"`{t}`" for t in self.variants)
            out.append(Violation(key_path(path, self.tag), f"must be one of {known}, got {describe(tag)}"))
            return
        shape.validate(v, path, out)


# ---------------------------------------------------------------- entry points


def decode(desc: Desc, value: object, path: str = "") -> Any:
    """``value`` (parsed JSON) read as ``desc``.

    Raises ``DecodeError`` naming the JSON path, what was found, and the union members
    passed through (``results[0]: object `checklist`: data[0]: expected an object, ...``)."""
    try:
        return desc.decode(value)
    except _Failure as e:
        raise DecodeError(_format_path(path, e.segments), e.detail, None) from None
    except RecursionError:
        raise DecodeError(path, "nested too deeply", None) from None


def encode(desc: Desc, value: object) -> Any:
    """The JSON value of ``value`` (``Secret`` values still wrapped)."""
    return desc.encode(value)


def validate(desc: Desc, value: object, path: str, out: list[Violation]) -> None:
    """Adds every violation of the encoded ``value`` to ``out``."""
    desc.validate(value, path, out)


def _expose(value: object) -> object:
    if isinstance(value, Secret):
        return value.expose()
    if isinstance(value, _dt.datetime):
        return format_datetime(value)
    if isinstance(value, _dt.date):
        return value.isoformat()
    if isinstance(value, enum.Enum):
        return value.value
    raise TypeError(f"{type(value).__name__} is not JSON")


def dumps(value: object) -> bytes:
    """Compact JSON bytes of an encoded value; the one place a ``Secret`` is exposed."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False, default=_expose).encode()

