"""Reading answer bodies in bounded memory: a success body up to the client's limit, the
first bytes of an error body, or a download copied to a writer chunk by chunk.

One source for both clients: the blocking module is generated from the async one
by token replacement.
"""

from __future__ import annotations

from time import monotonic

import httpx

from ._twins import AsyncSink
from .errors import TooLargeError

__all__ = ["copy_to", "read_limited", "read_prefix"]


def _announced(response: httpx.Response) -> int | None:
    """The ``Content-Length`` the answer announced, when it is a plain number (one of more
    digits than any size has: 2**63)."""
    value = response.headers.get("content-length", "").strip()
    if not (value.isascii() and value.isdigit()):
        return None
    return int(value) if len(value) <= 18 else 2**63


def _late(deadline: float | None) -> bool:
    return deadline is not None and monotonic() > deadline


async def read_limited(
    response: httpx.Response, limit: int, operation: str, deadline: float | None = None
) -> bytes | None:
    """The whole body of ``response``, or ``None`` when it does not arrive before
    ``deadline``.

    Raises TooLargeError for a ``Content-Length`` over ``limit`` (nothing is read), or as
    soon as the bytes read pass it, so no more than ``limit`` bytes are ever held.
    """
    announced = _announced(response)
    if announced is not None and announced > limit:
        raise TooLargeError(operation, limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > limit:
            raise TooLargeError(operation, limit)
        chunks.append(chunk)
        if _late(deadline):
            return None
    return b"".join(chunks)


async def read_prefix(response: httpx.Response, limit: int, deadline: float | None = None) -> bytes | None:
    """The first ``limit`` bytes of the body (enough for an error's message), or ``None``
    when they do not arrive before ``deadline``. The rest is never read: the caller closes
    the response, which drops the connection instead of draining it."""
    chunks: list[bytes] = []
    size = 0
    if limit > 0:
        async for chunk in response.aiter_bytes():
            kept = chunk[: limit - size]
            chunks.append(kept)
            size += len(kept)
            if size >= limit:
                break
            if _late(deadline):
                return None
    return b"".join(chunks)


async def copy_to(response: httpx.Response, sink: AsyncSink, deadline: float | None = None) -> int | None:
    """Writes the body to ``sink`` as it arrives, one chunk in memory at a time; the
    number of bytes written, or ``None`` when the body was not over by ``deadline`` (what
    came is written)."""
    written = 0
    async for chunk in response.aiter_bytes():
        await sink.write(chunk)
        written += len(chunk)
        if _late(deadline):
            return None
    return written
