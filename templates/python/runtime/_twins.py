"""The pieces where the async and the sync client differ beyond the generator's token
replacements. Each comes as ``AsyncX`` (used by the ``_async_*`` sources) and ``X`` (what
the generated ``_sync_*`` twins use once the ``Async`` prefix is removed)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from typing import BinaryIO, Protocol, TypeVar, Union

from .errors import ConfigError

__all__ = [
    "AsyncBinaryWriter",
    "AsyncFileBody",
    "AsyncSink",
    "AsyncWorkers",
    "BinaryWriter",
    "FileBody",
    "Sink",
    "Workers",
]

T = TypeVar("T")

CHUNK_SIZE = 64 * 1024
"""How much of a file is read at a time when it is uploaded."""

FileSource = Union[BinaryIO, str, "os.PathLike[str]"]


class _FileRange:
    """``length`` bytes of a file from ``offset``, read a chunk at a time, again from the
    start at every iteration (each attempt of an upload reads it anew). A path is opened
    for each iteration, so parts uploaded at once never share a file position; an open
    file is only sought, and left open."""

    def __init__(self, source: FileSource, offset: int, length: int) -> None:
        self.source = source
        self.offset = offset
        self.length = length

    def _chunks(self) -> Iterator[bytes]:
        if isinstance(self.source, (str, os.PathLike)):
            with open(self.source, "rb") as f:
                yield from self._read(f)
        else:
            yield from self._read(self.source)

    def _read(self, f: BinaryIO) -> Iterator[bytes]:
        f.seek(self.offset)
        left = self.length
        while left > 0:
            chunk = f.read(min(CHUNK_SIZE, left))
            if not chunk:
                # The declared Content-Length can no longer be met.
                raise ConfigError("the file got shorter while it was being uploaded")
            left -= len(chunk)
            yield chunk


class FileBody(_FileRange):
    """A file range as a request body of the sync client."""

    def __iter__(self) -> Iterator[bytes]:
        return self._chunks()


class AsyncFileBody(_FileRange):
    """A file range as a request body of the async client. Chunks are read in the event
    loop: local files answer in microseconds, and a thread per chunk would cost more."""

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self._chunks():
            yield chunk


class BinaryWriter(Protocol):
    """Where a download goes: anything with a binary ``write``, e.g. a file opened
    ``"wb"`` or an ``io.BytesIO``. What ``write`` returns is ignored; the client does not
    close it."""

    def write(self, data: bytes, /) -> object: ...


class AsyncBinaryWriter(Protocol):
    """Where a download of the ``AsyncClient`` may also go: an object whose ``write`` is a
    coroutine (an ``aiofiles`` file, for one); it is awaited for each chunk."""

    def write(self, data: bytes, /) -> Awaitable[object]: ...


class Sink:
    """A download's writer as the sync client uses it: ``write`` is called for each
    chunk as it arrives."""

    def __init__(self, out: BinaryWriter | AsyncBinaryWriter) -> None:
        write = getattr(out, "write", None)
        if not callable(write):
            raise ConfigError(f"a download is written to an object with a write method, not a {type(out).__name__}")
        if inspect.iscoroutinefunction(write):
            raise ConfigError("the blocking client writes downloads with a plain write(); this one is a coroutine")
        self.out = out

    def write(self, data: bytes) -> None:
        written = self.out.write(data)
        if inspect.isawaitable(written):
            if inspect.iscoroutine(written):
                written.close()
            raise ConfigError("the blocking client writes downloads with a plain write(); this one is a coroutine")


class AsyncSink:
    """A download's writer as the async client uses it: a plain ``write`` is called, an
    async one awaited, for each chunk as it arrives."""

    def __init__(self, out: BinaryWriter | AsyncBinaryWriter) -> None:
        if not callable(getattr(out, "write", None)):
            raise ConfigError(f"a download is written to an object with a write method, not a {type(out).__name__}")
        self.out = out

    async def write(self, data: bytes) -> None:
        written = self.out.write(data)
        if inspect.isawaitable(written):
            await written


class Workers:
    """Runs jobs at most ``limit`` at a time on threads (one at a time: in this thread);
    results in job order. After the first failure no further job starts; the running ones
    finish, and the first failure is raised."""

    def __init__(self, limit: int) -> None:
        self.limit = max(1, limit)

    def run(self, jobs: Sequence[Callable[[], T]]) -> list[T]:
        if self.limit == 1 or len(jobs) <= 1:
            return [job() for job in jobs]
        with concurrent.futures.ThreadPoolExecutor(
            max_workers=min(self.limit, len(jobs)), thread_name_prefix="inspection-client"
        ) as pool:
            futures = [pool.submit(job) for job in jobs]
            concurrent.futures.wait(futures, return_when=concurrent.futures.FIRST_EXCEPTION)
            for future in futures:
                future.cancel()
        # Leaving the pool waited for the running jobs; a cancelled one never started.
        for future in futures:
            if not future.cancelled() and future.exception() is not None:
                raise _first_error(futures)
        return [future.result() for future in futures]


def _first_error(futures: Sequence[concurrent.futures.Future[T]]) -> BaseException:
    for future in futures:
        if not future.cancelled():
            error = future.exception()
            if error is not None:
                return error
    raise AssertionError("no failed job")  # pragma: no cover


class AsyncWorkers:
    """Runs jobs at most ``limit`` at a time as asyncio tasks; results in job order. The
    first failure cancels the other jobs and is raised."""

    def __init__(self, limit: int) -> None:
        self.limit = max(1, limit)

    async def run(self, jobs: Sequence[Callable[[], Awaitable[T]]]) -> list[T]:
        results: dict[int, T] = {}
        # Shared by the workers: each takes the next job that nobody has started.
        pending = iter(range(len(jobs)))

        async def worker() -> None:
            for index in pending:
                results[index] = await jobs[index]()

        tasks = [asyncio.ensure_future(worker()) for _ in range(min(self.limit, len(jobs)))]
        if not tasks:
            return []
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        finally:
            # On a failure, and when the caller is cancelled: stop the rest.
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        for task in tasks:
            if not task.cancelled() and task.exception() is not None:
                error = task.exception()
                assert error is not None
                raise error
        return [results[index] for index in range(len(jobs))]
