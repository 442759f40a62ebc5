"""How a paged walk finds its next page: the rules both clients share (the walks
themselves are in ``_async_paging`` and its sync twin)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import httpx

from .codec import UNSET, RecordDesc, Unset
from .errors import ConfigError, ForeignOriginError, PagingStalledError
from .operation import PagingPlan
from .origin import origin_of, same_origin
from .request import RequestSpec, describe

__all__ = ["ResumablePage", "items_of", "next_step", "resumed_at"]

T = TypeVar("T")
P = TypeVar("P")


@dataclass(frozen=True)
class ResumablePage(Generic[P, T]):
    """A page of a walk (``pages_resumable()``), its records, and where the walk goes on
    after it: the list method's ``resume=`` argument that fetches the next page, or
    ``None`` after the last. A program that stores the records can store ``resume`` with
    them, and a later walk started there fetches none of them again."""

    page: P
    items: list[T]
    resume: str | None


def _attr(value: object, name: str | None) -> object:
    """``value.<name>``; absent, ``UNSET`` and ``None`` are all ``None``."""
    if name is None:
        return None
    found = getattr(value, name, None)
    return None if isinstance(found, Unset) else found


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value != "" else None


def items_of(plan: PagingPlan, page: object) -> list[Any]:
    """The records of a decoded page (none when the list is absent)."""
    found = _attr(page, plan.items_attr)
    return list(found) if isinstance(found, (list, tuple)) else []


def _on_origin(base: httpx.URL, req: RequestSpec, link: str, what: str) -> httpx.URL:
    """A link (absolute or base-relative) as a URL, refused off the base URL's origin."""
    try:
        url = base.join(link)
    except (httpx.InvalidURL, ValueError):
        raise ConfigError(f"the {what} of {describe(req)} is not a URL") from None
    if not same_origin(url, base):
        raise ForeignOriginError(f"a {what}", origin_of(url))
    return url


def _follow(base: httpx.URL, req: RequestSpec, link: str) -> tuple[RequestSpec, str]:
    """The request for a next-page link, and where a walk resumes at it."""
    url = _on_origin(base, req, link, "next-page link")
    return dataclasses.replace(req, url=str(url)), f"link:{url}"


def _with_cursor(plan: PagingPlan, req: RequestSpec, cursor: str) -> RequestSpec:
    if plan.page_param is None:
        raise ConfigError(f"{describe(req)} names no page parameter to send a cursor in")
    query = tuple(pair for pair in req.query if pair[0] != plan.page_param)
    return dataclasses.replace(req, url=None, query=(*query, (plan.page_param, cursor)))


def resumed_at(plan: PagingPlan, base: httpx.URL, req: RequestSpec, resume: str) -> RequestSpec:
    """``req`` (a list's first request) made to fetch the page ``resume`` names instead:
    ``cursor:<c>`` sends ``<c>`` as the page parameter (the other parameters kept),
    ``link:<url>`` calls the URL as it is.

    Raises ConfigError for text that is not a resume point, or a cursor for a list paged
    by links; ForeignOriginError for a link off the base URL's origin.
    """
    if not isinstance(resume, str):
        raise ConfigError(f"a resume point is text (`cursor:...` or `link:...`), not a {type(resume).__name__}")
    kind, _, point = resume.partition(":")
    if kind == "cursor" and point != "":
        if plan.style == "links":
            raise ConfigError(f"{describe(req)} pages by links: a cursor cannot resume it")
        return _with_cursor(plan, req, point)
    if kind == "link" and point != "":
        url = _on_origin(base, req, point, "resume link")
        return dataclasses.replace(req, url=str(url))
    shown = resume[:40] + ("..." if len(resume) > 40 else "")
    raise ConfigError(f"{shown!r} is not a resume point (`cursor:...` or `link:...`)")


def next_step(
    plan: PagingPlan, base: httpx.URL, req: RequestSpec, page: object, backward: bool
) -> tuple[RequestSpec, str] | None:
    """What comes after ``page`` (fetched with ``req``): the next request and where it
    resumes from (``cursor:<c>`` or ``link:<url>``, also the key that tells a page seen
    before: paging stalled), or ``None``.

    Raises ForeignOriginError for a link to another origin; PagingStalledError for a cursor
    page with records, no way on and nothing saying it is the last (see ``_check_last``).
    """
    if plan.style == "links":
        links = _attr(page, plan.links_attr)
        link = _text(_attr(links, plan.prev_attr if backward else plan.next_attr))
        return None if link is None else _follow(base, req, link)
    paging = _attr(page, plan.paging_attr)
    # The next URL carries the filters as the service means them, so it wins over the cursor.
    link = _text(_attr(paging, plan.next_url_attr))
    if link is not None:
        return _follow(base, req, link)
    cursor = _text(_attr(paging, plan.cursor_attr))
    if cursor is not None:
        return _with_cursor(plan, req, cursor), f"cursor:{cursor}"
    _check_last(plan, req, page, paging)
    return None


def _check_last(plan: PagingPlan, req: RequestSpec, page: object, paging: object) -> None:
    """A cursor page with neither a next link nor a cursor ends the walk only when it shows
    it is the last: it is empty, a property that leads on (the next link, the cursor) is
    there and ``null``, or it holds fewer records than the page size (the paging object's
    echo, else the request's page-size parameter).

    Raises PagingStalledError saying what the page held otherwise: the list may go on, so
    the walk stops rather than end as if it were complete.
    """
    count = len(items_of(plan, page))
    if count == 0:
        return
    for attr in (plan.next_url_attr, plan.cursor_attr):
        if attr is not None and getattr(paging, attr, UNSET) is None:
            return
    size = _page_size(plan, req, paging)
    if size is not None and count < size:
        return
    raise PagingStalledError(
        describe(req),
        f"the page held {_held(plan, page, count)}, but no next link, no cursor, and nothing "
        "saying it is the last (a null link, or fewer records than the page size); the list "
        "may go on, so the walk stops rather than end as if complete",
    )


def _page_size(plan: PagingPlan, req: RequestSpec, paging: object) -> int | None:
    """The page size the paging object echoes, else the one the request asked for."""
    echoed = _attr(paging, plan.page_size_attr)
    if isinstance(echoed, int) and not isinstance(echoed, bool) and echoed >= 0:
        return echoed
    for name, value in req.query:
        if name == plan.per_page_param and value.isdigit():
            return int(value)
    return None


def _held(plan: PagingPlan, page: object, count: int) -> str:
    """What a page held, for an error: its record count and the paging object's property
    names as sent (``2 records and `paging` {per_page, total}``)."""
    fields = plan.page.fields if isinstance(plan.page, RecordDesc) else ()
    field = next((f for f in fields if f.attr == plan.paging_attr), None)
    name = field.wire if field is not None else plan.paging_attr or "paging"
    paging = _attr(page, plan.paging_attr)
    # Written back, the paging object names its properties as they were sent.
    encoded = field.desc.encode(paging) if field is not None and paging is not None else None
    if isinstance(encoded, dict):
        keys = ", ".join(encoded)
        shown = f"`{name}` {{{keys}}}" if keys else f"an empty `{name}` object"
    else:
        shown = f"no `{name}` object"
    return f"{count} record{'' if count == 1 else 's'} and {shown}"
