"""Both flavours run through the same steps, written once as a coroutine: a blocking call
is taken as it is, an async one awaited; paged lists are walked with ``for`` or
``async for``. The async flavour runs in ``asyncio.run``; the blocking one with no event
loop at all (its coroutine never waits on anything, so it is stepped to its end
directly)."""

from __future__ import annotations

import inspect
import json
from collections.abc import AsyncIterable, Awaitable, Callable, Iterable
from typing import Literal

from inspection_client import AsyncPaged, Paged, PagingInterruptedError

from conformance.json_values import Json, RunnerError
from conformance.results import Outcome, written_back


Flavour = Literal["sync", "async"]


class Driver:
    """Where the blocking and the async client differ for the runner: a blocking call is
    taken as it is, an async one awaited; a paged list is walked with `for` or
    `async for`. Everything else is the same steps."""

    def __init__(self, flavour: Flavour) -> None:
        self.is_async = flavour == "async"

    async def value(self, answered: object) -> object:
        if self.is_async:
            if not inspect.isawaitable(answered):
                raise RunnerError(f"the async client gave a {type(answered).__name__}, not an awaitable")
            return await answered
        if inspect.isawaitable(answered):
            if inspect.iscoroutine(answered):
                answered.close()
            raise RunnerError("the blocking client gave an awaitable")
        return answered

    async def walk(self, iterable: object, into: list[Json]) -> None:
        """Adds every entry of `iterable` to `into`, written as JSON as it comes."""
        if self.is_async:
            if not isinstance(iterable, AsyncIterable):
                raise RunnerError(f"the async client's walk is a {type(iterable).__name__}, not async-iterable")
            async for entry in iterable:
                into.append(written_back(entry))
            return
        if isinstance(iterable, AsyncIterable) or not isinstance(iterable, Iterable):
            raise RunnerError(f"the blocking client's walk is a {type(iterable).__name__}, not iterable")
        for entry in iterable:
            into.append(written_back(entry))

    def check_list(self, listing: object) -> None:
        wanted = AsyncPaged if self.is_async else Paged
        if not isinstance(listing, wanted):
            which = "async" if self.is_async else "blocking"
            raise RunnerError(
                f"a paged list of the {which} client is a {type(listing).__name__}, not {wanted.__name__}"
            )


async def attempt(work: Callable[[], Awaitable[object]]) -> Outcome:
    """The outcome of `work`: its result written back as JSON, or the client's error."""
    try:
        result = await work()
    except RunnerError:
        raise
    except Exception as e:  # every failure of the client is an outcome
        return Outcome(error=e)
    return Outcome(result=written_back(result))


async def settle(driver: Driver, call: Callable[[], object]) -> Outcome:
    """The outcome of one call of the client."""

    async def work() -> object:
        return await driver.value(call())

    return await attempt(work)


async def walk_resumed(driver: Driver, start: Callable[[str | None], object]) -> Outcome:
    """Mode ``items_resumed``: every record; a walk that fails past its start is started
    again at its error's resume point, a fresh walk's failed first page from the start
    (each at most 500 times). The result: ``{records, distinct_ids, interruptions}``."""
    records, interruptions, restarts = 0, 0, 0
    ids: set[str] = set()
    resume: str | None = None
    while True:
        items: list[Json] = []
        failure: Exception | None = None
        try:
            await driver.walk(start(resume), items)
        except RunnerError:
            raise
        except Exception as e:
            failure = e
        resume = None
        records += len(items)
        ids.update(json.dumps(i.get("id") if isinstance(i, dict) else i) for i in items)
        result: Json = {"records": records, "distinct_ids": len(ids), "interruptions": interruptions}
        if failure is None:
            return Outcome(result=result)
        if isinstance(failure, PagingInterruptedError) and interruptions < 500:
            interruptions += 1
            resume = failure.resume
            continue
        if records == 0 and restarts < 500:
            restarts += 1
            continue
        return Outcome(result=result, error=failure)


async def collect(driver: Driver, walk: Callable[[], object]) -> Outcome:
    """Every page or item of a walk, and the error that ended it early, if any."""
    items: list[Json] = []
    try:
        await driver.walk(walk(), items)
    except RunnerError:
        raise
    except Exception as e:
        return Outcome(result=items, error=e)
    return Outcome(result=items)
