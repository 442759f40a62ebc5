"""Pre-signed URLs (share links, upload and multipart part URLs): fetched and written with
no credential and no default header, whatever their origin, and shown in errors and logs
without their query (which holds the signature).

One source for both clients: the blocking module is generated from the async one
by token replacement.
"""

from __future__ import annotations

import functools
import logging
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import BinaryIO, Union

import httpx

from ._async_body import copy_to, read_limited, read_prefix
from ._async_pacing import AsyncPacer, pause
from ._twins import AsyncFileBody, AsyncSink, AsyncWorkers
from .errors import ApiError, ConfigError, DecodeError, InspectionError, RequestTimeoutError
from .errors import TransportError, error_message, kept_headers
from .origin import parse_secure_url, shown_url
from .presigned import hidden_query, scrub
from .retry import backoff, classify, phase_timeout, retry_after

__all__ = ["Transfers"]

_log = logging.getLogger("inspection_client")

MAX_REDIRECTS = 5

Content = Union[bytes, AsyncFileBody]


@dataclass(frozen=True)
class _Answer:
    """A success answer of a transfer: its headers, and its body (read, or written to a
    sink: how many bytes)."""

    headers: httpx.Headers
    content: bytes = b""
    written: int = 0


@dataclass(frozen=True)
class Transfers:
    """Transfers to and from pre-signed URLs with what they borrow from the core: its HTTP
    client, its pacer (share links are served by the service, so they count), its retry
    policy and the message member of error bodies."""

    http: httpx.AsyncClient
    pacer: AsyncPacer
    max_attempts: int
    initial_backoff: float
    max_backoff: float
    timeout: float
    error_field: str
    extra_headers: Mapping[str, str]
    max_response_bytes: int = 64 << 20
    max_error_bytes: int = 64 << 10

    async def fetch(self, url: str) -> bytes:
        """GETs a pre-signed URL; paced like every request to the service. A body over
        ``max_response_bytes`` is a TooLargeError."""
        parsed = parse_secure_url(url, "a pre-signed URL")
        answer = await self._transfer("GET", parsed, None, {}, paced=True, read=True)
        return answer.content

    async def fetch_to(self, url: str, sink: AsyncSink) -> int:
        """GETs a pre-signed URL like ``fetch``, writing the body to ``sink`` as it arrives
        (any size, in bounded memory); the number of bytes written. A body that breaks off
        is not asked again."""
        parsed = parse_secure_url(url, "a pre-signed URL")
        answer = await self._transfer("GET", parsed, None, {}, paced=True, sink=sink)
        return answer.written

    async def put(
        self, url: str, body: bytes | BinaryIO, content_type: str | None = None
    ) -> str | None:
        """PUTs ``body`` (bytes, or a seekable binary file streamed from its current
        position) to a pre-signed URL, retrying failures (a PUT of the same bytes is
        idempotent); returns the storage's ETag. Uploads go to storage, not the service,
        so they are not paced."""
        parsed = parse_secure_url(url, "a pre-signed URL")
        content, length = _content_of(body)
        answer = await self._transfer("PUT", parsed, content, _put_headers(length, content_type))
        etag: str | None = answer.headers.get("etag")
        return etag

    async def put_parts(
        self,
        urls: Sequence[str],
        parts: Sequence[bytes],
        content_type: str | None,
        concurrency: int,
    ) -> list[str]:
        """PUTs each part to its URL, at most ``concurrency`` at a time; the ETags in part
        order. The first failure stops the others and is raised."""
        if len(urls) != len(parts):
            raise ConfigError(f"{len(parts)} parts for {len(urls)} upload URLs")
        contents: list[tuple[Content, int]] = [(bytes(part), len(part)) for part in parts]
        return await self._put_all(urls, contents, content_type, concurrency)

    async def put_file_parts(
        self,
        urls: Sequence[str],
        path: str | os.PathLike[str],
        part_size: int,
        content_type: str | None,
        concurrency: int,
    ) -> list[str]:
        """PUTs the file at ``path`` in parts of ``part_size`` bytes (the last one
        shorter), one per URL, each read from the file as it is sent."""
        if isinstance(part_size, bool) or not isinstance(part_size, int) or part_size < 1:
            raise ConfigError(f"part_size must be a positive number of bytes, got {part_size!r}")
        size = os.stat(path).st_size
        count = max(1, math.ceil(size / part_size))
        if count != len(urls):
            raise ConfigError(
                f"a file of {size} bytes makes {count} parts of {part_size} bytes, "
                f"but {len(urls)} upload URLs were given"
            )
        contents: list[tuple[Content, int]] = []
        for index in range(count):
            offset = index * part_size
            length = min(part_size, size - offset)
            contents.append((AsyncFileBody(path, offset, length), length))
        return await self._put_all(urls, contents, content_type, concurrency)

    async def _put_all(
        self,
        urls: Sequence[str],
        contents: Sequence[tuple[Content, int]],
        content_type: str | None,
        concurrency: int,
    ) -> list[str]:
        if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
            raise ConfigError(f"concurrency must be a positive whole number, got {concurrency!r}")
        # Checked up front, so no part is sent when one URL is unusable.
        parsed = [parse_secure_url(url, "a pre-signed URL") for url in urls]
        jobs = [
            functools.partial(self._put_part, index, url, content, length, content_type)
            for index, (url, (content, length)) in enumerate(zip(parsed, contents))
        ]
        return await AsyncWorkers(concurrency).run(jobs)

    async def _put_part(
        self,
        index: int,
        url: httpx.URL,
        content: Content,
        length: int,
        content_type: str | None,
    ) -> str:
        answer = await self._transfer("PUT", url, content, _put_headers(length, content_type))
        etag: str | None = answer.headers.get("etag")
        if etag is None:
            raise DecodeError(f"part {index + 1}: ETag header", "the storage answered without an ETag")
        return etag

    async def _transfer(
        self,
        method: str,
        url: httpx.URL,
        content: Content | None,
        headers: dict[str, str],
        *,
        paced: bool = False,
        read: bool = False,
        sink: AsyncSink | None = None,
    ) -> _Answer:
        """Sends one idempotent request to a pre-signed URL, retrying 5xx, 429, timeouts and
        network failures up to the policy's attempts. A success body is read (``read``: up
        to ``max_response_bytes``), written to ``sink``, or left unread; an error body's
        first ``max_error_bytes`` only are read."""
        shown = shown_url(url)
        headers = {**{k.lower(): v for k, v in self.extra_headers.items()}, **headers}
        attempt = 1
        while True:
            if paced:
                await self.pacer.acquire()
            wait = backoff(attempt, self.initial_backoff, self.max_backoff)
            failure: InspectionError
            try:
                response = await self._exchange(method, url, content, headers)
                try:
                    status = response.status_code
                    _log.debug("%s %s -> %d (attempt %d)", method, shown, status, attempt)
                    if 200 <= status < 300:
                        return await self._success(method, url, response, read, sink)
                    body = await read_prefix(response, self.max_error_bytes) or b""
                finally:
                    await response.aclose()
            except httpx.RequestError as e:
                why = classify(e)
                _log.debug("%s %s failed: %s (attempt %d)", method, shown, why.kind, attempt)
                if why.kind == "timeout":
                    failure = RequestTimeoutError(method, shown, self.timeout)
                else:
                    failure = TransportError(method, shown, scrub(why.detail, url))
            else:
                delay = retry_after(response.headers)
                message = error_message(body, self.error_field)
                failure = ApiError(
                    status,
                    None if message is None else scrub(message, url),
                    delay,
                    method,
                    shown,
                    None,
                    kept_headers(response.headers),
                    scrub(body.decode("utf-8", errors="replace"), url),
                )
                if status < 500 and status != 429:
                    raise failure
                if status == 429 and delay is not None:
                    # Retrying before a longer wait would only meet another 429.
                    if delay > self.max_backoff:
                        raise failure
                    wait = delay
            if attempt >= self.max_attempts:
                raise failure
            await pause(wait)
            attempt += 1

    async def _success(
        self, method: str, url: httpx.URL, response: httpx.Response, read: bool, sink: AsyncSink | None
    ) -> _Answer:
        """A success answer's body as the transfer wants it. A download to ``sink`` that
        breaks off is a TransportError at once (``sink`` holds part of it: no retry)."""
        shown = shown_url(url)
        if sink is not None:
            try:
                written = await copy_to(response, sink)
            except httpx.RequestError as e:
                detail = scrub(classify(e).detail, url)
                raise TransportError(method, shown, f"the download broke off: {detail}") from None
            return _Answer(response.headers, written=written or 0)
        if read:
            content = await read_limited(response, self.max_response_bytes, f"{method} {shown}")
            return _Answer(response.headers, content=content or b"")
        return _Answer(response.headers)

    async def _exchange(
        self, method: str, url: httpx.URL, content: Content | None, headers: dict[str, str]
    ) -> httpx.Response:
        """One attempt, redirects (to any origin: no credential goes along) followed; the
        answer's body is left unread (the caller reads it and closes the answer)."""
        for _ in range(MAX_REDIRECTS + 1):
            request = self.http.build_request(
                method, url, headers=headers, content=content, timeout=phase_timeout(self.timeout)
            )
            with hidden_query(url):
                response = await self.http.send(request, stream=True)
            location = response.headers.get("location")
            if not (300 <= response.status_code < 400 and location is not None):
                return response
            try:
                target = url.join(location)
            except (httpx.InvalidURL, ValueError):
                # Reported as the error status it is.
                return response
            await response.aclose()
            url = target
            if response.status_code == 303:
                method, content = "GET", None
                headers = {k: v for k, v in headers.items() if k not in ("content-length", "content-type")}
        raise httpx.TooManyRedirects(f"more than {MAX_REDIRECTS} redirects")


def _put_headers(length: int, content_type: str | None) -> dict[str, str]:
    # An explicit length: storage refuses chunked uploads, and httpx sends none for b"".
    headers = {"content-length": str(length)}
    if content_type is not None:
        headers["content-type"] = content_type
    return headers


def _content_of(body: bytes | BinaryIO) -> tuple[Content, int]:
    if isinstance(body, (bytes, bytearray, memoryview)):
        data = bytes(body)
        return data, len(data)
    try:
        start = body.tell()
        end = body.seek(0, os.SEEK_END)
        body.seek(start)
    except (AttributeError, OSError, ValueError):
        raise ConfigError("a file to upload must be a seekable binary file opened with 'rb'") from None
    return AsyncFileBody(body, start, end - start), end - start
