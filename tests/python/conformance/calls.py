"""A step's call on the generated client. What an operation takes comes from the generated
client module's constant for it (``_GET_UNIT``: path parameters, query fields with their
descriptors, the body's descriptor); the scenario's JSON is read through those descriptors
into the client's typed inputs (a body into its dataclass, a date-time query value into a
``datetime``)."""

from __future__ import annotations

import inspect
import keyword
import re
from collections.abc import Callable
from typing import Any, Union

import inspection_client.legacy.client as legacy_client
import inspection_client.v3.client as v3_client
from inspection_client import SELF, DecodeError, ExternalId, legacy, v3
from inspection_client._runtime import codec
from inspection_client._runtime.operation import Operation, PagingPlan

from conformance.driver import Driver, attempt, collect, settle, walk_resumed
from conformance.json_values import ABSENT, Json, JsonObject, RunnerError, _Absent, opt_string, show
from conformance.results import Outcome
from conformance.scenarios import Interface, Mode


class Args:
    """A step's `args`, taken key by key, so leftovers can be named."""

    def __init__(self, args: Json | _Absent) -> None:
        if args is ABSENT or args is None:
            rest: JsonObject = {}
        elif isinstance(args, dict):
            rest = dict(args)
        else:
            raise RunnerError(f"`args` is a mapping, not {show(args)}")
        self.path = self._section(rest, "path")
        self.query = self._section(rest, "query")
        self.body: Json | _Absent = rest.pop("body", ABSENT)
        self.other = rest

    @staticmethod
    def _section(rest: JsonObject, name: str) -> JsonObject:
        v = rest.pop(name, None)
        if v is None:
            return {}
        if not isinstance(v, dict):
            raise RunnerError(f"`args.{name}` is a mapping, not {show(v)}")
        return dict(v)

    def take(self, name: str) -> Json | _Absent:
        v = self.other.pop(name, ABSENT)
        return ABSENT if v is None else v

    def string(self, name: str) -> str:
        v = self.opt_string(name)
        if v is None:
            raise RunnerError(f"`args.{name}` is required")
        return v

    def opt_string(self, name: str) -> str | None:
        v = self.take(name)
        return None if v is ABSENT else opt_string({name: v}, name, "args")

    def strings(self, name: str) -> list[str]:
        v = self.take(name)
        if not isinstance(v, list) or not all(isinstance(s, str) for s in v):
            raise RunnerError(f"`args.{name}` is a list of strings, not {show(v)}")
        return [s for s in v if isinstance(s, str)]

    def finish(self) -> None:
        """Fails when an argument was given that the call does not take."""
        left = [f"path.{k}" for k in self.path] + [f"query.{k}" for k in self.query]
        left += [] if self.body is ABSENT else ["body"]
        left += list(self.other)
        if left:
            raise RunnerError(f"this call takes no `args.{'`, `args.'.join(left)}`")


AnyClient = Union[v3.Client, v3.AsyncClient, legacy.Client, legacy.AsyncClient]


async def presigned_action(driver: Driver, client: AnyClient, name: str, a: Args) -> Outcome | None:
    """The client actions both interfaces have; None for other names."""
    if name == "fetch_presigned":
        url = a.string("url")
        a.finish()
        return await settle(driver, lambda: client.fetch_presigned(url))
    if name == "put_presigned":
        url = a.string("url")
        body = a.string("body_text").encode()
        content_type = a.opt_string("content_type")
        a.finish()

        async def put() -> JsonObject:
            etag = await driver.value(client.put_presigned(url, body, content_type))
            if etag is not None and not isinstance(etag, str):
                raise RunnerError(f"put_presigned gave a {type(etag).__name__}, not an ETag")
            return {"etag": etag}

        return await attempt(put)
    if name == "put_parts":
        urls = a.strings("urls")
        parts = [p.encode() for p in a.strings("parts")]
        content_type = a.opt_string("content_type")
        concurrency = a.take("concurrency")
        concurrency = 1 if concurrency is ABSENT else concurrency
        if not isinstance(concurrency, int) or isinstance(concurrency, bool):
            raise RunnerError(f"`args.concurrency` is a whole number, not {show(concurrency)}")
        count = concurrency
        a.finish()

        async def put_all() -> list[Json]:
            etags = await driver.value(client.put_parts(urls, parts, content_type, concurrency=count))
            if not isinstance(etags, list):
                raise RunnerError(f"put_parts gave a {type(etags).__name__}, not a list")
            out: list[Json] = []
            for i, etag in enumerate(etags):
                if not isinstance(etag, str):
                    raise RunnerError(f"put_parts gave a {type(etag).__name__} as an ETag")
                out.append({"part_number": i + 1, "etag": etag})
            return out

        return await attempt(put_all)
    return None


def operation_of(iface: Interface, name: str) -> tuple[Operation, bool] | None:
    """The generated module constant describing the operation `name` (`_GET_UNIT`), and
    whether it is a paged list (it has a paging plan, `_LIST_UNITS_PAGES`)."""
    module = v3_client if iface == "v3" else legacy_client
    op = getattr(module, f"_{name.upper()}", None)
    if not isinstance(op, Operation) or op.name != name:
        return None
    paged = isinstance(getattr(module, f"_{name.upper()}_PAGES", None), PagingPlan)
    return op, paged


def body_is_optional(method: Callable[..., object]) -> bool:
    """Whether the client's method lets the body be left out (its `body` has a default)."""
    body = inspect.signature(method).parameters.get("body")
    return body is not None and body.default is not inspect.Parameter.empty


def python_name(name: str) -> str:
    """A spec or wire name as the generated code spells it: snake_case, `_` after a keyword."""
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()
    return f"{snake}_" if keyword.iskeyword(snake) else snake


def decode_input(desc: codec.Desc, value: Json, what: str) -> object:
    try:
        return codec.decode(desc, value)
    except DecodeError as e:
        raise RunnerError(f"`args.{what}` does not fit the client's type: {e}") from None


def path_value(op: Operation, index: int, value: Json | _Absent) -> object:
    """A path value: for a record reference an id as text, `ExternalId` or `SELF`; else
    the JSON read as the parameter's type."""
    param = op.path_params[index]
    name = param.wire
    if value is ABSENT:
        raise RunnerError(f"`args.path.{name}` is required")
    if param.desc is not None:
        return decode_input(param.desc, value, f"path.{name}")
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, dict) and len(value) == 1:
        if value.get("self") is True:
            return SELF
        external = value.get("external")
        if isinstance(external, str):
            return ExternalId(external)
    raise RunnerError(f"`args.path.{name}`: an id, {{external: ...}} or {{self: true}}, not {show(value)}")


def returns_bytes(method: Callable[..., object]) -> bool:
    """Whether the method's only answer is binary (`-> bytes`)."""
    annotation = inspect.signature(method).return_annotation
    return annotation is bytes or annotation == "bytes"


def arguments_of(
    op: Operation, paged: bool, method: Callable[..., object], a: Args
) -> tuple[list[object], dict[str, object]]:
    """The arguments of `op`'s client method, taken from a step's `args` (what is left
    there is what the call does not take): the path values and the body by position; the
    query fields, a binary body's media type and a paged list's resume point by name."""
    positional: list[object] = []
    for i, param in enumerate(op.path_params):
        positional.append(path_value(op, i, a.path.pop(param.wire, ABSENT)))
    keywords: dict[str, object] = {}
    if isinstance(op.body, codec.Binary):
        # A body sent as it is: its text, and the media type when not the spec's.
        positional.append(a.string("body_text").encode())
        content_type = a.opt_string("content_type")
        if content_type is not None:
            keywords["content_type"] = content_type
    elif op.body is not None:
        if a.body is not ABSENT:
            positional.append(decode_input(op.body, a.body, "body"))
        elif not body_is_optional(method):
            raise RunnerError("`args.body` is required")
        a.body = ABSENT
    if op.query is not None:
        for f in op.query.fields:
            if f.wire in a.query:
                keywords[python_name(f.wire)] = decode_input(f.desc, a.query.pop(f.wire), f"query.{f.wire}")
            elif f.req:
                raise RunnerError(f"`args.query.{f.wire}` is required")
    if paged:
        # A resume point, as an interrupted walk's error gave it: the list method's `resume`
        # (only a paged operation takes one: elsewhere `finish` refuses it).
        resume = a.take("resume")
        if resume is not ABSENT:
            if not isinstance(resume, str):
                raise RunnerError(f"`args.resume` is a resume point (text), not {show(resume)}")
            keywords["resume"] = resume
    return positional, keywords


async def call_paged(
    driver: Driver, start: Callable[[str | None], Any], mode: Mode, unsupported: RunnerError
) -> Outcome:
    """A paged list called in `mode`: its first page, or its walk of pages or items.
    `start` calls the list method, from a resume point when given one."""
    # Validation happens when the method is called; a walk then has collected nothing.
    try:
        listing = start(None)
    except Exception as e:
        return Outcome(error=e) if mode == "send" else Outcome(result=[], error=e)
    driver.check_list(listing)
    if mode == "send":
        return await settle(driver, lambda: listing.first())
    if mode == "pages":
        return await collect(driver, lambda: listing.pages())
    if mode == "items":
        return await collect(driver, lambda: listing)
    if mode == "pages_backward":
        return await collect(driver, lambda: listing.pages_backward())
    if mode == "items_backward":
        return await collect(driver, lambda: listing.backward())
    if mode == "items_resumed":
        return await walk_resumed(driver, start)
    raise unsupported


async def call_operation(
    driver: Driver, client: AnyClient, iface: Interface, name: str, a: Args, mode: Mode
) -> Outcome:
    """A step's call of an operation (or a client action) on the generated client."""
    found = operation_of(iface, name)
    if found is None:
        outcome = await presigned_action(driver, client, name, a)
        if outcome is None:
            raise RunnerError(f"`{name}` is no {iface} operation or client action")
        return outcome
    op, paged = found
    method_name = python_name(name)
    method = getattr(client, method_name, None)
    if not callable(method):
        raise RunnerError(f"the {iface} client has no method `{method_name}` for `{name}`")
    positional, keywords = arguments_of(op, paged, method, a)
    a.finish()
    try:
        inspect.signature(method).bind(*positional, **keywords)
    except TypeError as e:
        raise RunnerError(
            f"`{method_name}` does not take these arguments ({e}): {positional!r} {keywords!r}"
        ) from None

    def invoke(fn: Callable[..., object]) -> Callable[[], object]:
        return lambda: fn(*positional, **keywords)

    unsupported = RunnerError(f"`{name}` cannot be called in mode {mode}")
    if paged:

        def start(resume: str | None) -> Any:
            if resume is None:
                return method(*positional, **keywords)
            return method(*positional, **{**keywords, "resume": resume})

        return await call_paged(driver, start, mode, unsupported)
    if mode == "send":
        return await settle(driver, invoke(method))
    if mode == "pdf":
        pdf = getattr(client, f"{method_name}_pdf", None)
        if callable(pdf):
            return await settle(driver, invoke(pdf))
        if returns_bytes(method):
            return await settle(driver, invoke(method))
    raise unsupported
