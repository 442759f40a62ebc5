"""The values generated code holds besides its dataclasses: JSON, ``UNSET`` (absent, not
``None``) and the record references of paths."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Final, Union

#: Any JSON value.
JsonValue = Union[None, bool, int, float, str, "list[JsonValue]", "dict[str, JsonValue]"]


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
