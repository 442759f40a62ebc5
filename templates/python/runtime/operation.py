"""What the generated code says about each operation, and how a call's arguments become a
checked ``RequestSpec``: one generic path instead of the same steps written out per
operation, shared by the sync and the async client."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Callable, Literal, Mapping, Sequence

from .codec import UNSET, Desc, F, RecordDesc, dumps, ref_segment
from .errors import ConfigError
from .request import RequestSpec, Segment


@dataclass(frozen=True, slots=True)
class PathParam:
    """A path parameter: its wire name and descriptor; ``desc`` is ``None`` for a record
    reference (an id, an ``ExternalId`` or ``SELF``), formatted with ``self_keyword``."""

    wire: str
    desc: Desc | None
    self_keyword: str | None = None


class Query(RecordDesc):
    """The query parameters of an operation, by wire name; ``json`` names the ones sent as
    JSON text (a legacy ``filter``)."""

    __slots__ = ("json",)

    def __init__(self, *fields: F, json: tuple[str, ...] = ()) -> None:
        super().__init__(dict, register=False)
        self.define(*fields)
        self.json = frozenset(json)

    def encode_values(self, values: Mapping[str, object]) -> dict[str, Any]:
        """The given values (``None``: not given) as JSON values, by wire name."""
        out: dict[str, Any] = {}
        for f in self.fields:
            value = values.get(f.wire)
            if value is not None and value is not UNSET:
                out[f.wire] = f.desc.encode(value)
        return out

    def pairs(self, encoded: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
        """The query pairs, in the spec's order."""
        out: list[tuple[str, str]] = []
        for f in self.fields:
            if f.wire not in encoded:
                continue
            value = encoded[f.wire]
            if f.wire in self.json:
                out.append((f.wire, dumps(value).decode()))
            elif isinstance(value, list):
                out.extend((f.wire, query_text(v)) for v in value)
            else:
                out.append((f.wire, query_text(value)))
        return tuple(out)


def query_text(value: object) -> str:
    """A JSON scalar as query text: ``true``/``false``, numbers in decimal, strings as they are."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return json.dumps(value)
    return dumps(value).decode()


@dataclass(frozen=True, slots=True)
class PagingPlan:
    """How a list operation pages, as the spec says, by attribute names of the decoded page.

    Cursor style: ``page.<items_attr>`` holds the records, ``page.<paging_attr>`` an object
    whose ``<next_url_attr>`` (followed when given, within the base URL's origin) or
    ``<cursor_attr>`` (sent back as the ``page_param`` query parameter) leads on; its
    ``<page_size_attr>`` echoes the page size (else the request's ``per_page_param`` says
    it), which tells a last page from one that cannot be read on. Links style:
    ``page.<links_attr>`` has ``<next_attr>`` and ``<prev_attr>`` URLs."""

    style: Literal["cursor", "links"]
    #: The page envelope's descriptor: pages are decoded through it.
    page: Desc
    items_attr: str
    paging_attr: str | None = None
    next_url_attr: str | None = None
    cursor_attr: str | None = None
    page_param: str | None = None
    page_size_attr: str | None = None
    per_page_param: str | None = None
    links_attr: str | None = None
    next_attr: str = "next"
    prev_attr: str = "prev"


@dataclass(frozen=True, slots=True, kw_only=True)
class Operation:
    """One operation of the spec."""

    #: The spec's name (``get_unit``), for errors and logs.
    name: str
    method: str
    #: The path template (``/units/{unit_id}``), what errors show instead of the URL.
    path: str
    #: Literal segments as text; an ``int`` is the index of a path parameter.
    segments: tuple[str | int, ...]
    path_params: tuple[PathParam, ...] = ()
    query: Query | None = None
    body: Desc | None = None
    #: A body sent as it is (``_rt.Binary``): its media type unless the call gives one.
    content_type: str | None = None
    accept: str | None = None
    #: Sent without credentials (a login).
    anonymous: bool = False
    #: Appended to a 403's message.
    hint: str | None = None
    #: A 202 is asked again until it is not.
    poll: bool = False


Check = Callable[[Sequence[tuple[str, Desc, object]]], None]


def prepare(
    check: Check,
    op: Operation,
    path: Sequence[object] = (),
    query: Mapping[str, object] | None = None,
    body: object = UNSET,
    *,
    accept: str | None = None,
    poll: bool | None = None,
    content_type: str | None = None,
) -> RequestSpec:
    """The request of one call: arguments encoded, every documented limit checked at once
    (``check`` raises ``ValidationError``), the path built from its segments. A body sent
    as it is goes as ``content_type`` (else the operation's).

    Raises ConfigError for a content type that cannot be a ``Content-Type`` header.
    """
    items: list[tuple[str, Desc, object]] = []
    texts: list[str] = []
    for param, value in zip(op.path_params, path):
        if param.desc is None:
            texts.append(ref_segment(value, param.self_keyword))
            continue
        encoded = param.desc.encode(value)
        items.append((param.wire, param.desc, encoded))
        texts.append(encoded if isinstance(encoded, str) else query_text(encoded))
    encoded_query: dict[str, Any] = {}
    if op.query is not None:
        encoded_query = op.query.encode_values(query or {})
        items.append(("", op.query, encoded_query))
    encoded_body: object = UNSET
    if op.body is not None:
        encoded_body = op.body.encode(body)
        items.append(("", op.body, encoded_body))
    check(items)
    media_type = content_type if content_type is not None else op.content_type
    if media_type is not None and not _HEADER_VALUE.match(media_type):
        raise ConfigError(f"the content type {media_type!r} cannot be sent as a Content-Type header")
    return RequestSpec(
        op=op.name,
        method=op.method,
        path=op.path,
        segments=tuple(Segment(texts[s]) if isinstance(s, int) else s for s in op.segments),
        query=op.query.pairs(encoded_query) if op.query is not None else (),
        body=encoded_body,
        accept=accept if accept is not None else op.accept,
        anonymous=op.anonymous,
        hint=op.hint,
        poll=op.poll if poll is None else poll,
        content_type=media_type,
    )


# A header value: visible ASCII, spaces and tabs inside.
_HEADER_VALUE = re.compile(r"[!-~](?:[ \t!-~]*[!-~])?\Z")


def no_check(items: Sequence[tuple[str, Desc, object]]) -> None:
    """A ``check`` that checks nothing (a login's credentials are the service's to judge)."""
