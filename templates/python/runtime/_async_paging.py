"""Paged lists: every record, one page in memory at a time, until the service says there
is no next page.

One source for both clients: the blocking module is generated from the async one
by token replacement.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

import httpx

from .errors import ConfigError, InspectionError, PagingStalledError
from .operation import PagingPlan
from .options import CallOptions
from .paging import items_of, next_step
from .request import RequestSpec, describe

if TYPE_CHECKING:
    from ._async_core import AsyncCore

__all__ = ["AsyncPaged", "PagingPlan"]

T = TypeVar("T")
P = TypeVar("P")


@dataclass(frozen=True)
class _Step:
    """One fetched page, its records, and what went wrong working out the next one
    (raised after the records, so they are not lost)."""

    page: Any
    items: list[Any]
    error: InspectionError | None


class AsyncPaged(Generic[T, P]):
    """A paged list. ``async for record in paged`` walks every record of every page,
    fetching a page at a time; ``pages()`` gives the pages, ``first()`` the first page,
    and (links paging only) ``backward()`` / ``pages_backward()`` go through ``prev``
    links. Each walk starts again from the first request.
    """

    def __init__(
        self, core: AsyncCore, plan: PagingPlan, req: RequestSpec, call: CallOptions | None = None
    ) -> None:
        self._core = core
        self._plan = plan
        self._req = req
        self._call = call

    def __repr__(self) -> str:
        return f"{type(self).__name__}({describe(self._req)})"

    def __aiter__(self) -> AsyncIterator[T]:
        return self._items(self._walk(backward=False))

    def pages(self) -> AsyncIterator[P]:
        """Every page, in order."""
        return self._pages(self._walk(backward=False))

    async def first(self) -> P:
        """The first page only."""
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
                raise step.error

    async def _pages(self, steps: AsyncIterator[_Step]) -> AsyncIterator[P]:
        async for step in steps:
            yield cast(P, step.page)
            if step.error is not None:
                raise step.error

    async def _walk(self, backward: bool) -> AsyncIterator[_Step]:
        base = httpx.URL(self._core.base_url)
        # The links or cursors followed so far: a few bytes per page, and what stops A -> B -> A.
        seen: set[str] = set()
        req: RequestSpec | None = self._req
        while req is not None:
            page = await self._core.json(self._plan.page, req, self._call)
            items = items_of(self._plan, page)
            following: RequestSpec | None = None
            error: InspectionError | None = None
            # An empty page ends the walk (the service's last page may still carry a link).
            if items:
                try:
                    step = next_step(self._plan, base, req, page, backward)
                except InspectionError as e:
                    # Raised after this page's records.
                    error = e
                else:
                    if step is not None and step[1] in seen:
                        error = PagingStalledError(describe(req))
                    elif step is not None:
                        seen.add(step[1])
                        following = step[0]
            yield _Step(page, items, error)
            req = following
