"""Paged lists: every record, one page in memory at a time, until the service says there
is no next page. A walk always ends: a page met twice, or too many empty pages in a row,
is an error; and a walk that fails part-way names the page it can resume at.

One source for both clients: the blocking module is generated from the async one
by token replacement.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar, cast

import httpx

from .codec import Desc
from .errors import ConfigError, InspectionError, PagingInterruptedError, PagingStalledError
from .events import Reporter
from .operation import PagingPlan
from .options import CallOptions
from .paging import ResumablePage, items_of, next_step, resumed_at
from .request import RequestSpec, describe


class AsyncPageSource(Protocol):
    """What a walk needs of the core that drives it (the core itself; named here so that
    this module does not import it)."""

    base_url: str
    max_empty_pages: int
    reporter: Reporter

    async def json(self, desc: Desc, req: RequestSpec, call: CallOptions | None = None) -> Any: ...

    async def fetch_page(self, desc: Desc, req: RequestSpec, call: CallOptions | None = None) -> tuple[Any, int]: ...

__all__ = ["AsyncPaged", "PagingPlan", "ResumablePage"]

T = TypeVar("T")
P = TypeVar("P")


@dataclass(frozen=True)
class _Step:
    """One fetched page, its records, and what went wrong working out the next one
    (raised after the records, so they are not lost)."""

    page: Any
    items: list[Any]
    error: InspectionError | None
    #: The request that fetched the page, and the number of its attempt that did.
    req: RequestSpec
    attempt: int
    #: Where the walk resumes at the page after this one (``None``: there is none).
    resume: str | None


class AsyncPaged(Generic[T, P]):
    """A paged list. ``async for record in paged`` walks every record of every page,
    fetching a page at a time; ``pages()`` gives the pages, ``first()`` the first page,
    and (links paging only) ``backward()`` / ``pages_backward()`` go through ``prev``
    links. Each walk starts again from the first request (or the resume point the list
    was given).

    A page past the walk's start that cannot be fetched ends the walk with a
    ``PagingInterruptedError`` (the records before it were given): its ``resume`` is the
    list method's ``resume=`` argument that walks on from that page. More than
    ``max_empty_pages`` empty pages in a row that point onwards, a page met twice, or a
    cursor page with records but neither a way on nor a sign that it is the last (a
    ``null`` next link or cursor, fewer records than the page size) end it with a
    ``PagingStalledError``, after that page's records.
    """

    def __init__(
        self,
        core: AsyncPageSource,
        plan: PagingPlan,
        req: RequestSpec,
        call: CallOptions | None = None,
        resume: str | None = None,
    ) -> None:
        self._core = core
        self._plan = plan
        self._call = call
        # Where the walk starts, when not at the first page: then even its first request
        # is a page it can resume at.
        self._resume = resume
        self._req = req if resume is None else resumed_at(plan, httpx.URL(core.base_url), req, resume)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({describe(self._req)})"

    def __aiter__(self) -> AsyncIterator[T]:
        return self._items(self._walk(backward=False))

    def pages(self) -> AsyncIterator[P]:
        """Every page, in order."""
        return self._pages(self._walk(backward=False))

    def pages_resumable(self) -> AsyncIterator[ResumablePage[P, T]]:
        """Every page, in order, each with its records and the resume point of the page
        after it (see ``ResumablePage``)."""
        return self._resumable(self._walk(backward=False))

    async def first(self) -> P:
        """The first page only (the resume point's page, when the list was given one)."""
        return cast(P, await self._core.json(self._plan.page, self._req, self._call))

    def backward(self) -> AsyncIterator[T]:
        """Every record going back through ``prev`` links (links paging only).

        Raises ConfigError for a list paged by cursor, which only goes forward.
        """
        self._links_only()
        return self._items(self._walk(backward=True))

    def pages_backward(self) -> AsyncIterator[P]:
        """Every page going back through ``prev`` links (links paging only).

        Raises ConfigError for a list paged by cursor, which only goes forward.
        """
        self._links_only()
        return self._pages(self._walk(backward=True))

    def _links_only(self) -> None:
        if self._plan.style != "links":
            raise ConfigError(
                f"{describe(self._req)} pages by cursor, which only goes forward; "
                "iterate it or use pages()"
            )

    async def _items(self, steps: AsyncIterator[_Step]) -> AsyncIterator[T]:
        async for step in steps:
            for item in step.items:
                yield cast(T, item)
            if step.error is not None:
                raise self._failed(step, step.error)

    async def _pages(self, steps: AsyncIterator[_Step]) -> AsyncIterator[P]:
        async for step in steps:
            yield cast(P, step.page)
            if step.error is not None:
                raise self._failed(step, step.error)

    async def _resumable(self, steps: AsyncIterator[_Step]) -> AsyncIterator[ResumablePage[P, T]]:
        async for step in steps:
            yield ResumablePage(cast(P, step.page), cast("list[T]", step.items), step.resume)
            if step.error is not None:
                raise self._failed(step, step.error)

    def _failed(self, step: _Step, error: InspectionError) -> InspectionError:
        """``error``, which ends the walk after ``step``'s records, reported (the errors of
        fetching a page are reported by the core)."""
        req = step.req
        self._core.reporter.error(req.op, req.method, req.path, error, step.attempt)
        return error

    async def _walk(self, backward: bool) -> AsyncIterator[_Step]:
        base = httpx.URL(self._core.base_url)
        most_empty = self._core.max_empty_pages
        # The links or cursors followed so far: a few bytes per page, and what stops A -> B -> A.
        seen: set[str] = set()
        empty_in_a_row = 0
        req: RequestSpec | None = self._req
        # Where the page being fetched can be fetched again; None for the walk's start.
        resume = self._resume
        number = 0
        while req is not None:
            try:
                page, attempt = await self._core.fetch_page(self._plan.page, req, self._call)
            except InspectionError as e:
                if resume is None:
                    raise
                raise PagingInterruptedError(resume, e) from e
            items = items_of(self._plan, page)
            number += 1
            self._core.reporter.page(req.op, req.method, req.path, number, len(items))
            empty_in_a_row = 0 if items else empty_in_a_row + 1
            following: RequestSpec | None = None
            error: InspectionError | None = None
            # A links page that is empty ends the walk (the service's last page may still
            # carry a link); a cursor page leads on while it gives a cursor.
            if items or self._plan.style != "links":
                try:
                    step = next_step(self._plan, base, req, page, backward)
                except InspectionError as e:
                    # Raised after this page's records.
                    error = e
                else:
                    if step is not None and empty_in_a_row > most_empty:
                        error = PagingStalledError(
                            describe(req), f"{empty_in_a_row} empty pages in a row, each pointing to another"
                        )
                    elif step is not None and step[1] in seen:
                        error = PagingStalledError(describe(req))
                    elif step is not None:
                        seen.add(step[1])
                        following, resume = step
            yield _Step(page, items, error, req, attempt, resume if following is not None else None)
            req = following
