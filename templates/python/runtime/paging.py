"""How a paged walk finds its next page: the rules both clients share (the walks
themselves are in ``_async_paging`` and its sync twin)."""

from __future__ import annotations

import dataclasses
from typing import Any

import httpx

from .codec import Unset
from .errors import ConfigError, ForeignOriginError
from .operation import PagingPlan
from .origin import origin_of, same_origin
from .request import RequestSpec, describe

__all__ = ["items_of", "next_step", "resumed_at"]


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

    Raises ForeignOriginError for a link to another origin.
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
    if cursor is None:
        return None
    return _with_cursor(plan, req, cursor), f"cursor:{cursor}"
