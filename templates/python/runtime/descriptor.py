"""The descriptor base, the scalar descriptors (strings, ids, numbers, booleans, enums,
scalar unions), documented limits and how a value is named in messages."""

from __future__ import annotations

import enum
import json
import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from .errors import Violation
from .secret import Secret

# ---------------------------------------------------------------- failures and paths


class DecodeFailure(Exception):
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


def format_path(prefix: str, reversed_segments: Sequence[str | int]) -> str:
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


def check_string(text: str, secret: bool, c: Limits | None, path: str, out: list[Violation]) -> None:
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


def check_range(n: float, c: Limits | None, path: str, out: list[Violation]) -> None:
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
    #: The generated decoder that reads first (records and unions have one): straight-line
    #: code that gives up on anything unusual, which ``decode`` then reads again.
    fast: Callable[[Any], Any] | None = None

    def decode(self, v: Any) -> Any:
        """The typed value of the parsed JSON ``v`` (raises ``DecodeFailure``)."""
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
            raise DecodeFailure(f"expected a string, got {describe(v)}")
        return Secret(v) if self.secret else v

    def validate(self, v: Any, path: str, out: list[Violation]) -> None:
        if isinstance(v, Secret):
            check_string(v.expose(), True, self.limits, path, out)
        elif isinstance(v, str):
            check_string(v, self.secret, self.limits, path, out)
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
        raise DecodeFailure(f"expected an id (a string), got {describe(v)}")


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
        raise DecodeFailure(f"expected an integer, got {describe(v)}")

    def validate(self, v: Any, path: str, out: list[Violation]) -> None:
        if type(v) is not int:
            out.append(Violation(path, f"expected an integer, got {describe(v)}"))
            return
        low, high = _INT32 if self.bits == 32 else _INT64
        if not low <= v <= high:
            out.append(Violation(path, f"must be a {self.bits}-bit integer ({low} to {high}), got {v}"))
        check_range(v, self.limits, path, out)


class Num(Desc):
    """Any JSON number."""

    __slots__ = ("limits",)

    def __init__(self, limits: Limits | None = None) -> None:
        self.limits = limits

    def decode(self, v: Any) -> Any:
        if type(v) is float or type(v) is int:
            return v
        raise DecodeFailure(f"expected a number, got {describe(v)}")

    def validate(self, v: Any, path: str, out: list[Violation]) -> None:
        if type(v) not in (int, float) or v != v or v in (float("inf"), float("-inf")):
            out.append(Violation(path, f"expected a finite number, got {describe(v)}"))
            return
        check_range(v, self.limits, path, out)


class Bool(Desc):
    """``true`` or ``false``."""

    __slots__ = ()

    def decode(self, v: Any) -> Any:
        if type(v) is not bool:
            raise DecodeFailure(f"expected a boolean, got {describe(v)}")
        return v

    def validate(self, v: Any, path: str, out: list[Violation]) -> None:
        if type(v) is not bool:
            out.append(Violation(path, f"expected a boolean, got {describe(v)}"))


class Json(Desc):
    """Any JSON, kept as parsed."""

    __slots__ = ()

    def decode(self, v: Any) -> Any:
        return v


class Binary(Desc):
    """A body sent as it is (its format left open, such as a device log): ``bytes``, or
    text sent as its UTF-8 bytes. Never read from an answer."""

    __slots__ = ()

    def decode(self, v: Any) -> Any:
        raise DecodeFailure(f"expected bytes, got {describe(v)}")

    def encode(self, v: Any) -> Any:
        if isinstance(v, str):
            try:
                return v.encode("utf-8")
            except UnicodeEncodeError:
                # Left as text: validation refuses it.
                return v
        if isinstance(v, (bytearray, memoryview)):
            return bytes(v)
        return v

    def validate(self, v: Any, path: str, out: list[Violation]) -> None:
        if isinstance(v, str):
            out.append(Violation(path, "is text that is not well-formed Unicode (a lone surrogate): give bytes"))
        elif not isinstance(v, bytes):
            out.append(Violation(path, f"expected bytes (or text), got {describe(v)}"))


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
            raise DecodeFailure(f"expected a string (an enum value), got {describe(v)}")
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
