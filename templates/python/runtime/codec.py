"""How values travel: the container, record and union descriptors the generated models are
described with, and the three walks over them.

* ``decode`` reads a parsed JSON answer into the generated dataclasses, tolerantly: unknown
  properties are kept (``extra``), unknown enum values stay strings, unknown union members
  keep their whole object, limits are never checked, and a failure names its JSON path.
* ``encode`` turns dataclasses back into JSON values (``Secret`` values stay wrapped until
  ``dumps``); it never raises, so what does not fit is left for ``validate`` to report.
* ``validate`` checks an encoded request against the documented limits and collects every
  violation, with its path on the wire.

Descriptors are built once, when a models module is imported: every named type first, then
what each holds, so types may refer to each other in any order. The scalar descriptors live
in ``descriptor``, the date ones in ``dates``; this module re-exports them.
"""

from __future__ import annotations

import datetime as _dt
import enum
import json
import threading
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Final, NoReturn, TypeVar

from .dates import (
    Date,
    DateOrDateTime,
    DateTime,
    DateTimeOrRange,
    format_datetime,
    parse_date,
    parse_date_or_datetime,
    parse_datetime,
)
from .descriptor import (
    Binary,
    Bool,
    DecodeFailure,
    Desc,
    Enum,
    Id,
    Int,
    Json,
    Limits,
    Num,
    Scalar,
    Str,
    describe,
    format_path,
    key_path,
)
from .errors import DecodeError, Violation
from .secret import Secret
from .values import SELF, UNSET, ExternalId, JsonValue, SelfRef, Unset, ref_segment

__all__ = [
    "SELF",
    "UNSET",
    "Array",
    "Binary",
    "Bool",
    "Date",
    "DateOrDateTime",
    "DateTime",
    "DateTimeOrRange",
    "Desc",
    "Dynamic",
    "Enum",
    "ExternalId",
    "F",
    "Id",
    "Int",
    "Json",
    "JsonValue",
    "Limits",
    "Map",
    "Mismatch",
    "Num",
    "OneOf",
    "Record",
    "RecordDesc",
    "Scalar",
    "SelfRef",
    "Str",
    "UnionDesc",
    "Unknown",
    "Unset",
    "decode",
    "decode_json",
    "describe",
    "dumps",
    "encode",
    "encode_value",
    "format_datetime",
    "is_bare",
    "mismatch",
    "parse_date",
    "parse_date_or_datetime",
    "parse_datetime",
    "read_datetime_or_range",
    "refuse",
    "read_id",
    "read_int",
    "ref_segment",
    "validate",
]

R = TypeVar("R", bound="Record")


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
            raise DecodeFailure(f"expected an array, got {describe(v)}")
        of = self.of
        # Strings, numbers and other scalars come back as they are: one pass, no copy per item.
        if type(of) is Json or type(of) is Scalar:
            return v
        out = []
        for i, item in enumerate(v):
            try:
                out.append(of.decode(item))
            except DecodeFailure as e:
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
        # Any dict: `json.loads(..., object_pairs_hook=OrderedDict)` gives a subclass.
        if not isinstance(v, dict):
            raise DecodeFailure(f"expected an object (a map), got {describe(v)}")
        out = {}
        for key, item in v.items():
            try:
                out[key] = self.of.decode(item)
            except DecodeFailure as e:
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
    attribute named ``extra`` (when the class has one). A record envelope (``envelope``:
    the property holding the record, e.g. ``asset``) whose wrapping is inferred is also
    read from the bare record, as if it had been wrapped."""

    __slots__ = ("by_wire", "cls", "envelope", "extra", "fast", "fields", "fills", "known", "one_of", "required")

    def __init__(self, cls: type[Any], *, register: bool = True) -> None:
        self.cls = cls
        self.fast: Callable[[Any], Any] | None = None
        self.fields: tuple[F, ...] = ()
        self.known: frozenset[str] = frozenset()
        self.extra: str | None = None
        self.envelope: str | None = None
        self.one_of: OneOf | None = None
        self.by_wire: dict[str, tuple[F, type | None]] = {}
        self.fills: tuple[F, ...] = ()
        self.required: tuple[F, ...] = ()
        if register:
            cls._wire = self

    def define(
        self, *fields: F, extra: str | None = None, one_of: OneOf | None = None, envelope: str | None = None
    ) -> None:
        """Sets what the record holds (after every named type exists)."""
        self.fields = fields
        self.known = frozenset(f.wire for f in fields)
        self.extra = extra
        self.one_of = one_of
        self.envelope = envelope
        self.by_wire = {f.wire: (f, _fast_kind(f.desc)) for f in fields}
        self.fills = tuple(f for f in fields if f.fill is not None)
        self.required = tuple(f for f in fields if f.req and f.fill is None)
        if extra is not None:
            _lazy_extra(self.cls, extra)

    def decode(self, v: Any) -> Any:
        if not isinstance(v, dict):
            raise DecodeFailure(f"expected an object, got {describe(v)}")
        envelope = self.envelope
        if envelope is not None:
            inner = self.by_wire[envelope][0].desc
            if is_bare(v, envelope, inner.known if isinstance(inner, RecordDesc) else frozenset()):
                # The bare record: read as if it had come wrapped.
                v = {envelope: v}
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
                    raise _at(DecodeFailure("is required, but null"), key)
                # A `null` where none is documented reads as absent.
                continue
            # Plain strings, booleans and integers need no call.
            kind = type(x)
            if fast == kind:
                kw[f.attr] = x
                continue
            try:
                kw[f.attr] = f.desc.decode(x)
            except DecodeFailure as e:
                e.segments.append(key)
                raise
        if len(kw) < len(by_wire):
            for f in self.fills:
                if f.attr not in kw:
                    kw[f.attr] = f.fill() if f.fill is not None else None
            for f in self.required:
                if f.attr not in kw:
                    raise _at(DecodeFailure("is required, but absent"), f.wire)
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
            clashes: list[str] = []
            for key, x in getattr(v, self.extra).items():
                if key in self.known:
                    # Its own field wins; validation refuses the request.
                    clashes.append(key)
                out.setdefault(key, x)
            if clashes:
                return _Clashing(out, clashes, self.extra)
        return out

    def validate(self, v: Any, path: str, out: list[Violation]) -> None:
        if not isinstance(v, dict):
            out.append(Violation(path, f"expected an object, got {describe(v)}"))
            return
        one_of_violation: Violation | None = None
        if self.one_of is not None:
            present = [(name, keys) for name, keys in self.one_of.variants if any(v.get(k) is not None for k in keys)]
            if len(present) != 1:
                groups = ", ".join("+".join(f"`{k}`" for k in keys) for _, keys in self.one_of.variants)
                found = " and ".join("+".join(f"`{k}`" for k in keys) for _, keys in present) or "none"
                one_of_violation = Violation(key_path(path, self.one_of.name), f"expected exactly one of {groups}, found {found}")
        for f in self.fields:
            x = v.get(f.wire, _MISSING)
            p = key_path(path, f.wire)
            if x is _MISSING:
                if f.req:
                    out.append(Violation(p, "is required"))
            elif x is None:
                if not f.nul:
                    out.append(Violation(p, "must not be null" if f.req else "must not be null (leave it out instead)"))
            else:
                f.desc.validate(x, p, out)
        if one_of_violation is not None:
            out.append(one_of_violation)
        if isinstance(v, _Clashing):
            for key in v.clashes:
                out.append(
                    Violation(
                        key_path(path, key),
                        "is a property the spec lists: set it with its own field, "
                        f"not as an additional property (`{v.extra_attr}`)",
                    )
                )


_LAZY_LOCK: Final = threading.Lock()
#: The class attribute holding a record's slot of unlisted properties as it is (the
#: attribute `extra` is the property in front of it).
UNLISTED_SLOT: Final = "_unlisted_slot"


def unlisted(record: object) -> dict[str, JsonValue] | None:
    """The properties ``record`` holds that its spec does not list, or ``None`` when it
    holds none: read without making the empty dict that a first read of ``extra`` makes
    (for code that reads every record, such as the dlt source's rows)."""
    found: dict[str, JsonValue] | None = getattr(record, UNLISTED_SLOT, None)
    return found or None


def _lazy_extra(record: type[Any], attr: str) -> None:
    """Puts a property in front of ``record``'s slot ``attr`` (its unlisted properties, which
    a generated decoder leaves unset when there are none, as in most records): reading it
    unset makes the empty dict, once (under a lock, so that threads reading it first share
    it); setting and deleting are the slot's own (called from C, as before). An empty dict
    per record was a sixth of the time a page of records took to read."""
    slot = record.__dict__.get(attr)
    if slot is None or isinstance(slot, property):
        return
    read = slot.__get__
    # The slot itself under a second name, which `unlisted` reads with getattr's default
    # (no exception raised and caught in Python for the records that have none).
    setattr(record, UNLISTED_SLOT, slot)

    def get(obj: Any) -> Any:
        try:
            return read(obj, None)
        except AttributeError:
            with _LAZY_LOCK:
                try:
                    return read(obj, None)
                except AttributeError:
                    made: dict[str, JsonValue] = {}
                    slot.__set__(obj, made)
                    return made

    setattr(record, attr, property(get, slot.__set__, slot.__delete__, doc=slot.__doc__))


class _Clashing(dict):  # type: ignore[type-arg]
    """An encoded record whose ``extra`` named properties the spec lists (sent once, with
    the field's value): validation refuses each."""

    def __init__(self, encoded: dict[str, Any], clashes: list[str], extra_attr: str) -> None:
        super().__init__(encoded)
        self.clashes = clashes
        self.extra_attr = extra_attr


def _fast_kind(desc: Desc) -> type | None:
    """The JSON type a field's values are kept as they are for (no descriptor call)."""
    if type(desc) is Str and not desc.secret:
        return str
    if type(desc) is Bool:
        return bool
    if type(desc) is Int:
        return int
    return None


def _at(failure: DecodeFailure, wire: str) -> DecodeFailure:
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

    __slots__ = ("by_class", "fast", "tag", "unknown", "variants")

    def __init__(self, tag: str, unknown: type[Unknown] | None) -> None:
        self.tag = tag
        self.fast: Callable[[Any], Any] | None = None
        self.unknown = unknown
        self.variants: dict[str, RecordDesc] = {}
        self.by_class: dict[type[Any], RecordDesc] = {}

    def define(self, variants: dict[str, RecordDesc]) -> None:
        """Sets the members (after every named type exists)."""
        self.variants = variants
        self.by_class = {d.cls: d for d in variants.values()}

    def decode(self, v: Any) -> Any:
        if not isinstance(v, dict):
            raise DecodeFailure(f"expected an object, got {describe(v)}")
        tag = v.get(self.tag)
        shape = self.variants.get(tag) if type(tag) is str else None
        if shape is None:
            if self.unknown is None:
                known = ", ".join(f"`{t}`" for t in self.variants)
                raise _at(DecodeFailure(f"must be one of {known}, got {describe(tag)}"), self.tag)
            return self.unknown(v)
        try:
            return shape.decode(v)
        except DecodeFailure as e:
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


def is_bare(v: dict[str, Any], envelope: str, known: frozenset[str]) -> bool:
    """Whether ``v`` is the bare record rather than its inferred envelope: it lacks the
    envelope's property, or has another that the record lists (``known``), as a bare
    transaction holds its nested ``transaction``."""
    return envelope not in v or any(k != envelope and k in known for k in v)


class Mismatch(Exception):
    """Raised by a generated decoder on what it does not read itself: the descriptors then
    read the value again, and name what does not fit."""


def mismatch() -> NoReturn:
    """Gives up a generated decoder's reading (an expression, for items of arrays)."""
    raise Mismatch


def refuse(v: Any) -> NoReturn:
    """A closed union's reading of a member with a tag it does not know: it gives up, and
    the descriptors name the tag."""
    raise Mismatch


def read_int(v: Any) -> int:
    """An integer sent as a number with a fraction of zero (``3.0``), as ``Int`` reads it."""
    if type(v) is float and v.is_integer():
        return int(v)
    raise Mismatch


def read_id(v: Any) -> str:
    """An id sent as a number, kept as its decimal text, as ``Id`` reads it."""
    if type(v) is int:
        return str(v)
    raise Mismatch


_DATE_TIME_OR_RANGE: Final = DateTimeOrRange()


def read_datetime_or_range(v: Any) -> Any:
    """A date-time or a ``(from, to)`` pair, as ``DateTimeOrRange`` reads it."""
    return _DATE_TIME_OR_RANGE.decode(v)


def _read(desc: Desc, value: object) -> Any:
    """``value`` read by the generated decoder of ``desc`` if it has one, and again by the
    descriptors when that gives up (they raise ``DecodeFailure`` naming what does not fit,
    and read whatever the decoder leaves to them, such as an integer sent as ``3.0``)."""
    fast = desc.fast
    if fast is not None:
        try:
            return fast(value)
        except Exception:  # any failure: read again, and named, below
            pass
    return desc.decode(value)


def decode(desc: Desc, value: object, path: str = "") -> Any:
    """``value`` (parsed JSON) read as ``desc``.

    Raises ``DecodeError`` naming the JSON path, what was found, and the union members
    passed through (``results[0]: object `checklist`: data[0]: expected an object, ...``)."""
    try:
        return _read(desc, value)
    except DecodeFailure as e:
        raise DecodeError(format_path(path, e.segments), e.detail, None) from None
    except RecursionError:
        raise DecodeError(path, "nested too deeply", None) from None


def decode_json(
    desc: Desc, body: bytes | str, status: int | None = None, content_type: str | None = None
) -> Any:
    """A JSON body (an answer with its ``status``, or a webhook delivery) parsed and read as
    ``desc``; ``DecodeError`` names the status and the JSON path of a failure, and never
    quotes the body."""
    if not body.strip():
        raise DecodeError("", "the body is empty; JSON was expected", status)
    try:
        parsed = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        shown = "" if content_type is None else f" (Content-Type {content_type.split(';')[0].strip()})"
        raise DecodeError("", f"the body is not JSON{shown}", status) from None
    try:
        return _read(desc, parsed)
    except DecodeFailure as e:
        raise DecodeError(format_path("", e.segments), e.detail, status) from None
    except RecursionError:
        raise DecodeError("", "nested too deeply", status) from None


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

