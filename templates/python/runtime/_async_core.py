"""The core of a client: sends every generated operation's request with pacing,
credentials, retries, timeouts, redirects and 202 polling, and decodes the answers.
Everything that shares one core shares its pacing and its 429 pauses.

One source for both clients: the blocking module is generated from the async one
by token replacement.
"""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import dataclasses
import os
from collections.abc import Callable, Iterator, Sequence
from http.cookiejar import CookieJar, DefaultCookiePolicy
from time import monotonic
from typing import Any, BinaryIO, NamedTuple, Union

import httpx

from ._async_body import copy_to, read_limited, read_prefix
from ._async_pacing import AsyncPacer, pause
from ._async_paging import AsyncPaged
from ._async_presigned import Transfers
from ._twins import AsyncBinaryWriter, AsyncSink, BinaryWriter
from .auth import (
    Auth,
    TokenAuth,
    check_headers,
    credential_headers,
    fixed_secrets,
    header_names,
    login_token,
    token_header,
)
from .codec import Desc, Unset, decode_json, dumps, validate
from .errors import (
    ApiError,
    ConfigError,
    ForeignOriginError,
    InspectionError,
    NotReadyError,
    RequestTimeoutError,
    TooLargeError,
    TransportError,
    ValidationError,
    Violation,
    error_message,
    kept_headers,
    scrub_error,
)
from .events import Reporter, RetryReason
from .operation import PagingPlan
from .options import CallOptions, ClientOptions, InterfaceInfo, Upserted
from .origin import origin_of, parse_secure_url, same_origin
from .request import RawResponse, RequestSpec, describe, request_url
from .retry import Failure, backoff, classify, is_idempotent, phase_timeout, retry_after
from .secret import Secret
from .tls import tls_context

__all__ = ["AsyncCore"]

MAX_REDIRECTS = 5
_NO_CALL = CallOptions()

# Why an attempt did not succeed: an error status, a failure on the way, or an error
# that ends the call at once (a redirect elsewhere).
_Outcome = Union[RawResponse, ApiError, Failure, InspectionError]


class _Trace:
    """One call's attempts, for its events: the number of the last attempt sent (0 before
    the first), so a failure before sending reports nothing."""

    __slots__ = ("attempt",)

    def __init__(self) -> None:
        self.attempt = 0


class _Retry(NamedTuple):
    """How a failed attempt is retried: seconds to sleep here, the wait to report (a 429's
    is a pause of the pacer, not a sleep here) and whether it is the service's
    ``Retry-After``."""

    sleep: float
    wait: float
    retry_after: bool


class _InFlight(NamedTuple):
    """An attempt under way, as each of its requests needs it: its number (as events give
    it), when it started, and its time: the deadline, and the timeout an error names."""

    attempt: int
    started: float
    deadline: float
    timeout: float


class _Hop(NamedTuple):
    """The answer to one request of an attempt (its first, or one after a redirect): its
    status, its headers, and what of its body the client read (of a redirect's, nothing)."""

    status: int
    headers: httpx.Headers
    content: builtins.bytes


def _no_cookies() -> CookieJar:
    """A cookie jar that keeps nothing: a cookie is a credential, and would follow requests
    to pre-signed URLs on the same domain. (Given to httpx as a jar: wrapped in
    ``httpx.Cookies`` it would be copied into one with the default policy.)"""
    return CookieJar(policy=DefaultCookiePolicy(allowed_domains=[]))


class TokenState:
    """The token of a ``TokenAuth``: logs in lazily, and again on a 401, one login at a
    time (requests that wait meanwhile share it)."""

    def __init__(self, auth: TokenAuth) -> None:
        self.auth = auth
        self.token: Secret | None = None
        # Bumped at every login, so a request knows whether its token was replaced since.
        self.generation = 0
        self._lock = asyncio.Lock()

    async def ensure(self, core: AsyncCore) -> None:
        """Logs in unless a token is already there."""
        if self.token is None:
            await self.renew(self.generation, core)

    async def renew(self, seen: int, core: AsyncCore) -> None:
        """Logs in unless another request already did since generation ``seen``."""
        async with self._lock:
            if self.generation != seen and self.token is not None:
                return
            self.token = await core._log_in(self.auth)
            self.generation += 1


class AsyncCore:
    """The shared core of a generated client: one per client, shared by everything the
    client hands out. It knows no resource names; the generated code describes each call
    as a ``RequestSpec``.

    Raises ConfigError for a base URL that is not https (plain http is allowed for
    loopback hosts only), a credential a header cannot carry (naming the header, never its
    value) or a transport of the wrong kind.
    """

    def __init__(
        self,
        base_url: str,
        info: InterfaceInfo,
        auth: Auth,
        options: ClientOptions | None = None,
    ) -> None:
        self._base = parse_secure_url(base_url, "the base URL").copy_with(fragment=None)
        self.base_url = str(self._base)
        """The base URL all paths are relative to (``https://host/v3``)."""
        self.info = info
        """The interface this core talks to."""
        self._options = options if options is not None else ClientOptions()
        self.validate_requests = self._options.validate_requests
        """Whether documented limits are checked before sending."""
        self.max_empty_pages = self._options.max_empty_pages
        """Empty pages in a row a walk accepts while the service points onwards."""
        check_headers(auth)
        self._auth = auth
        # What errors never show: the key secret, or the login's password (the token is
        # added as it comes).
        self._fixed_secrets = fixed_secrets(auth)
        self._token = TokenState(auth) if isinstance(auth, TokenAuth) else None
        self._credential_names = header_names(auth)
        limit = info.rate_limit if self._options.rate_limit == "documented" else self._options.rate_limit
        self._pacer = AsyncPacer(limit)
        self.reporter = Reporter(self._options.hooks)
        """Hands the events of this core's calls to the hooks and the logger."""
        self._error_field = info.error_message_field or "errors"
        self._retry_after_header = info.retry_after_header.lower()
        transport = self._options.transport
        if transport is not None and not isinstance(transport, httpx.AsyncBaseTransport):
            raise ConfigError(
                f"the transport of this client must be an httpx.AsyncBaseTransport, "
                f"got {type(transport).__name__}"
            )
        self._http = httpx.AsyncClient(
            transport=transport,
            verify=tls_context(),
            proxy=self._options.proxy,
            follow_redirects=False,
            cookies=_no_cookies(),
            timeout=phase_timeout(self._options.timeout),
        )

    def __repr__(self) -> str:
        # No credential, no option: only what the core talks to.
        return f"{type(self).__name__}({self.info.name} at {origin_of(self._base)})"

    async def __aenter__(self) -> AsyncCore:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Closes the connections; the core cannot be used afterwards."""
        await self._http.aclose()

    # ------------------------------------------------------------ checks

    def check(self, items: Sequence[tuple[str, Desc, object]]) -> None:
        """Checks each ``(path, descriptor, encoded value)`` against its documented limits,
        unless validation is off.

        Raises ValidationError listing every violation at once.
        """
        if not self.validate_requests:
            return
        out: list[Violation] = []
        for path, desc, value in items:
            validate(desc, value, path, out)
        if out:
            raise ValidationError(out)

    # ------------------------------------------------------------ secrets

    def secrets(self) -> tuple[str, ...]:
        """Every secret this core holds now (the key secret, or the login's password and
        the current token): what ``scrubbing`` keeps out of errors."""
        token = self._token.token if self._token is not None else None
        if token is None:
            return self._fixed_secrets
        return (*self._fixed_secrets, token.expose())

    @contextlib.contextmanager
    def scrubbing(self) -> Iterator[None]:
        """Within it, an InspectionError raised has every secret of ``secrets()`` (four
        characters or more) replaced by ``<redacted>`` wherever the service echoed one (an
        error body's message, a value a decode error quotes, a transport text), in the
        error and the errors chained to it."""
        try:
            yield
        except InspectionError as e:
            scrub_error(e, self.secrets())
            raise

    # ------------------------------------------------------------ calls

    async def login(self) -> None:
        """Logs in now (token auth), replacing any token; other auth needs nothing."""
        if self._token is not None:
            with self.scrubbing():
                await self._token.renew(self._token.generation, self)

    async def send(
        self, req: RequestSpec, call: CallOptions | None = None, sink: AsyncSink | None = None
    ) -> RawResponse:
        """Sends ``req`` until it succeeds or fails for good.

        Returns the 2xx answer (with ``req.poll``, not a 202), its body read (at most
        ``max_response_bytes``), or with ``sink`` written there as it arrives
        (``RawResponse.written``). Raises ApiError for an error status, TooLargeError for
        a body over the limit; see the other InspectionError classes for the rest.
        """
        with self.scrubbing(), self._reporting(req) as trace:
            return await self._send(req, call if call is not None else _NO_CALL, sink, trace)

    @contextlib.contextmanager
    def _reporting(self, req: RequestSpec) -> Iterator[_Trace]:
        """One call: an error that ends it after at least one attempt is reported (an
        ``ErrorEvent``); one before sending (validation) is not."""
        trace = _Trace()
        try:
            yield trace
        except Exception as e:
            if trace.attempt > 0:
                self.reporter.error(req.op, req.method, req.path, e, trace.attempt)
            raise

    async def _send(
        self, req: RequestSpec, call: CallOptions, sink: AsyncSink | None, trace: _Trace
    ) -> RawResponse:
        if not req.poll:
            return await self._execute(req, call, sink, trace)
        options = self._options
        interval = options.poll_interval
        waited = 0.0
        polls = 1
        while True:
            response = await self._execute(req, call, sink, trace)
            if response.status != 202:
                return response
            asked = retry_after(response.headers, self._retry_after_header)
            # A longer wait than the client allows ends the polling: asking before it is
            # over would only get another 202.
            too_long = asked if asked is not None and asked > options.max_backoff else None
            if polls > options.max_polls or too_long is not None:
                raise NotReadyError(describe(req), polls, waited, too_long)
            wait = min(asked if asked is not None else interval, options.max_backoff)
            self.reporter.pause(req.op, req.method, req.path, "poll", wait)
            await pause(wait)
            waited += wait
            interval = min(interval * 2, options.max_backoff)
            polls += 1

    async def json(self, desc: Desc, req: RequestSpec, call: CallOptions | None = None) -> Any:
        """Sends ``req`` and decodes its JSON answer as ``desc``.

        Raises DecodeError with the status and JSON path for a body that is empty, not
        JSON, or not of the documented shape.
        """
        with self.scrubbing(), self._reporting(req) as trace:
            return _decode_body(desc, await self._send(req, call if call is not None else _NO_CALL, None, trace))

    async def fetch_page(self, desc: Desc, req: RequestSpec, call: CallOptions | None = None) -> tuple[Any, int]:
        """A page of a walk: ``json``, and the number of the attempt that fetched it (for
        an error the walk itself reports)."""
        with self.scrubbing(), self._reporting(req) as trace:
            response = await self._send(req, call if call is not None else _NO_CALL, None, trace)
            return _decode_body(desc, response), trace.attempt

    async def upsert(
        self, desc: Desc, req: RequestSpec, call: CallOptions | None = None
    ) -> Upserted[Any]:
        """Sends an upsert (PUT): ``created`` is true for a 201, false for a 200."""
        with self.scrubbing(), self._reporting(req) as trace:
            response = await self._send(req, call if call is not None else _NO_CALL, None, trace)
            return Upserted(created=response.status == 201, value=_decode_body(desc, response))

    async def bytes(self, req: RequestSpec, call: CallOptions | None = None) -> builtins.bytes:
        """Sends ``req`` and returns its body (a PDF), at most ``max_response_bytes``."""
        return (await self.send(req, call)).content

    async def download(
        self,
        req: RequestSpec,
        out: BinaryWriter | AsyncBinaryWriter,
        call: CallOptions | None = None,
    ) -> int:
        """Sends ``req`` and writes its body (a PDF) to ``out`` as it arrives, in bounded
        memory whatever its size (no ``max_response_bytes``); returns the number of bytes
        written. A body that breaks off is not asked again: ``out`` holds what came."""
        return (await self.send(req, call, AsyncSink(out))).written

    async def empty(self, req: RequestSpec, call: CallOptions | None = None) -> None:
        """Sends ``req``, whose answer has no body worth reading (a DELETE)."""
        await self.send(req, call)

    def paged(
        self,
        plan: PagingPlan,
        req: RequestSpec,
        call: CallOptions | None = None,
        resume: str | None = None,
    ) -> AsyncPaged[Any, Any]:
        """Every item (and page) of a paged list, a page at a time, from the first request,
        or from ``resume`` (a ``PagingInterruptedError.resume``).

        Raises ConfigError for a ``resume`` that is not a resume point of this list.
        """
        return AsyncPaged(self, plan, req, call, resume)

    # ------------------------------------------------------------ pre-signed URLs

    async def fetch_presigned(self, url: str, call: CallOptions | None = None) -> builtins.bytes:
        """GETs a pre-signed URL (a share link) with no credentials and no default headers;
        paced, retried; at most ``max_response_bytes``."""
        with self.scrubbing():
            return await self._transfers(call).fetch(url)

    async def fetch_presigned_to(
        self, url: str, out: BinaryWriter | AsyncBinaryWriter, call: CallOptions | None = None
    ) -> int:
        """GETs a pre-signed URL like ``fetch_presigned``, writing the body to ``out`` as it
        arrives, in bounded memory whatever its size; returns the number of bytes written."""
        with self.scrubbing():
            return await self._transfers(call).fetch_to(url, AsyncSink(out))

    async def put_presigned(
        self,
        url: str,
        body: builtins.bytes | BinaryIO,
        content_type: str | None = None,
        call: CallOptions | None = None,
    ) -> str | None:
        """PUTs ``body`` to a pre-signed upload URL with no credentials, retrying failures;
        returns the storage's ETag. A file object (opened ``rb``, seekable) is streamed from
        its current position, and read again from there for a retry."""
        with self.scrubbing():
            return await self._transfers(call).put(url, body, content_type)

    async def put_parts(
        self,
        urls: Sequence[str],
        parts: Sequence[builtins.bytes],
        content_type: str | None = None,
        concurrency: int = 4,
        call: CallOptions | None = None,
    ) -> list[str]:
        """PUTs each part to its pre-signed URL, at most ``concurrency`` at a time, each
        retried; returns the ETags in part order."""
        with self.scrubbing():
            return await self._transfers(call).put_parts(urls, parts, content_type, concurrency)

    async def put_file_parts(
        self,
        urls: Sequence[str],
        path: str | os.PathLike[str],
        part_size: int,
        content_type: str | None = None,
        concurrency: int = 4,
        call: CallOptions | None = None,
    ) -> list[str]:
        """PUTs the file at ``path`` in parts of ``part_size`` bytes, one per URL, at most
        ``concurrency`` at a time; each part is read from the file while it is sent, so
        the file is never in memory as a whole. Returns the ETags in part order."""
        with self.scrubbing():
            return await self._transfers(call).put_file_parts(
                urls, path, part_size, content_type, concurrency
            )

    def _transfers(self, call: CallOptions | None) -> Transfers:
        options = self._options
        call = call if call is not None else _NO_CALL
        return Transfers(
            http=self._http,
            pacer=self._pacer,
            max_attempts=call.max_attempts or options.max_attempts,
            initial_backoff=options.initial_backoff,
            max_backoff=options.max_backoff,
            timeout=call.timeout or options.timeout,
            error_field=self._error_field,
            extra_headers=call.headers or {},
            max_response_bytes=options.max_response_bytes,
            max_error_bytes=options.max_error_bytes,
        )

    # ------------------------------------------------------------ the machinery

    async def _log_in(self, auth: TokenAuth) -> Secret:
        """Sends the login request and takes the token from its answer."""
        req = dataclasses.replace(auth.login_request(), anonymous=True)
        with self.scrubbing(), self._reporting(req) as trace:
            response = await self._send(req, _NO_CALL, None, trace)
            return login_token(auth, _decode_body(auth.login_desc, response), response.status)

    async def _execute(
        self, req: RequestSpec, call: CallOptions, sink: AsyncSink | None, trace: _Trace
    ) -> RawResponse:
        """Sends ``req`` until it succeeds or fails for good; a 202 is a success here."""
        url = request_url(self._base, req)
        body: builtins.bytes | None = None
        if req.content_type is not None and not isinstance(req.body, Unset):
            # Sent as it is (a device log).
            if not isinstance(req.body, builtins.bytes):
                raise ConfigError(f"the body of {describe(req)} is sent as it is: give bytes, not {type(req.body).__name__}")
            body = req.body
        elif not isinstance(req.body, Unset):
            try:
                body = dumps(req.body)
            except (TypeError, ValueError) as e:
                # The message names a type, never a value.
                raise ConfigError(f"cannot serialise the body of {describe(req)}: {e}") from None
        token = None if req.anonymous else self._token
        timeout = call.timeout or self._options.timeout
        max_attempts = call.max_attempts or self._options.max_attempts
        renewed = False
        # Attempts as the retry policy counts them (a resend after a re-login is not one)...
        tries = 1
        # ... and as events number them (it is).
        attempt = 1
        # After a 429, the pacer's hold is the retry's wait, reported as such.
        held_by_retry = False
        while True:
            if token is not None:
                await token.ensure(self)
            seen = token.generation if token is not None else 0
            await self._pacer.acquire(self._on_wait(req, held_by_retry))
            outcome = await self._attempt(req, url, body, timeout, call, attempt, trace, sink)
            if isinstance(outcome, RawResponse):
                return outcome
            failed = attempt
            attempt += 1
            # A 401 with a token in use: log in again, once, and repeat the request (it was
            # refused, so it was not applied).
            if isinstance(outcome, ApiError) and outcome.status == 401 and token is not None and not renewed:
                await token.renew(seen, self)
                renewed = True
                held_by_retry = False
                continue
            retry = await self._retry_in(req, outcome, tries, tries < max_attempts, timeout)
            reason, status = _retry_reason(outcome)
            self.reporter.retry(
                req.op, req.method, req.path, failed, reason, status, retry.wait, retry.retry_after
            )
            held_by_retry = retry.sleep < retry.wait
            await pause(retry.sleep)
            tries += 1

    def _on_wait(self, req: RequestSpec, held_by_retry: bool) -> Callable[[float, bool], None] | None:
        """What the pacer tells of its waits before ``req`` is sent: a ``rate_limit`` pause
        (not the hold of a 429 this request is retrying after: its retry says that wait)."""
        if not self.reporter.pauses():
            return None

        def on_wait(seconds: float, held: bool) -> None:
            if not (held and held_by_retry):
                self.reporter.pause(req.op, req.method, req.path, "rate_limit", seconds)

        return on_wait

    async def _attempt(
        self,
        req: RequestSpec,
        url: httpx.URL,
        body: builtins.bytes | None,
        timeout: float,
        call: CallOptions,
        attempt: int,
        trace: _Trace,
        sink: AsyncSink | None = None,
    ) -> _Outcome:
        """One attempt, same-origin redirects included, within ``timeout`` seconds in all
        (a server that drips its answer cannot hold an attempt longer). A success body is
        read up to ``max_response_bytes`` (or with ``sink`` written there), an error body's
        first ``max_error_bytes`` only, a redirect's not at all.

        Reports the attempt (a ``RequestEvent``), and its answer once read (a
        ``ResponseEvent``; a redirect followed is part of the attempt, not an answer)."""
        started = monotonic()
        flight = _InFlight(attempt, started, started + timeout, timeout)
        trace.attempt = attempt
        self.reporter.request(req.op, req.method, req.path, attempt, url)
        method = req.method
        current = url
        hop = 0
        while True:
            # Each phase (connect, each read) gets what is left of the attempt's time.
            left = flight.deadline - monotonic()
            if left <= 0:
                return Failure("timeout", "no whole answer in time")
            request = self._http.build_request(
                method,
                current,
                headers=self._headers(req, call, has_body=body is not None),
                content=body,
                timeout=phase_timeout(left),
            )
            answer = await self._exchange(req, request, flight, sink)
            if not isinstance(answer, _Hop):
                return answer
            status, headers, content = answer
            location = headers.get("location")
            if location is None or not (300 <= status < 400):
                # Not a redirect: the answer the attempt ends with.
                self._answered(req, flight, status, headers)
                return self._outcome_of(req, current, answer)
            target = self._redirect_target(req, current, location, hop)
            if isinstance(target, InspectionError):
                self._answered(req, flight, status, headers)
                return target
            # As browsers do: 303 (and 301/302 after a POST) continue as a GET without the body.
            if status == 303 or (status in (301, 302) and method == "POST"):
                method = "GET"
                body = None
            current = target
            hop += 1
            await self._pacer.acquire(self._on_wait(req, False))

    async def _exchange(
        self, req: RequestSpec, request: httpx.Request, flight: _InFlight, sink: AsyncSink | None
    ) -> _Hop | _Outcome:
        """``request`` sent (one hop of an attempt) and its answer read as ``_attempt``
        says. A download written to ``sink``, or a failure on the way, is the attempt's
        outcome; any other answer is returned with what of its body was read."""
        try:
            response = await self._http.send(request, stream=True)
            try:
                status = response.status_code
                if 200 <= status < 300 and sink is not None and not (status == 202 and req.poll):
                    # The document itself: once bytes are written, a failure is final.
                    copied = await self._copy(req, request.url, response, sink, flight)
                    if isinstance(copied, RawResponse):
                        self._answered(req, flight, status, response.headers)
                    return copied
                content = await self._read_body(req, response, flight)
            finally:
                await response.aclose()
        except httpx.RequestError as e:
            return classify(e)
        if content is None:
            return Failure("timeout", "no whole answer in time")
        return _Hop(status, response.headers, content)

    async def _read_body(
        self, req: RequestSpec, response: httpx.Response, flight: _InFlight
    ) -> builtins.bytes | None:
        """What of an answer's body the client reads by ``flight.deadline`` (None: not all
        of it in time): a success's whole, up to ``max_response_bytes``; an error's first
        ``max_error_bytes``, enough for its message; a redirect's nothing.

        Raises TooLargeError for a success body over the limit (reported as answered)."""
        status = response.status_code
        if 200 <= status < 300:
            try:
                return await read_limited(response, self._options.max_response_bytes, describe(req), flight.deadline)
            except TooLargeError:
                # Answered, and refused by the client.
                self._answered(req, flight, status, response.headers)
                raise
        if 300 <= status < 400 and response.headers.get("location") is not None:
            return b""
        return await read_prefix(response, self._options.max_error_bytes, flight.deadline)

    def _redirect_target(
        self, req: RequestSpec, current: httpx.URL, location: str, hop: int
    ) -> httpx.URL | InspectionError:
        """Where a redirect from ``current`` leads, or the error refusing it: a Location
        that cannot be read, another origin than the base URL's (credentials go only
        there), or more than ``MAX_REDIRECTS`` in one attempt (``hop``: those followed)."""
        try:
            target = current.join(location)
        except (httpx.InvalidURL, ValueError):
            return ForeignOriginError("a redirect", "an unreadable Location")
        if not same_origin(target, self._base):
            return ForeignOriginError("a redirect", origin_of(target))
        if hop >= MAX_REDIRECTS:
            return TransportError(req.method, req.path, f"more than {MAX_REDIRECTS} redirects")
        return target

    def _outcome_of(self, req: RequestSpec, url: httpx.URL, answer: _Hop) -> RawResponse | ApiError:
        """An answer that ends the attempt (not a redirect) from ``url``: a success's
        response, or the error an error status makes."""
        status, headers, content = answer
        if 200 <= status < 300:
            return RawResponse(status, headers, content, str(url))
        return ApiError(
            status,
            error_message(content, self._error_field),
            retry_after(headers, self._retry_after_header),
            req.method,
            req.path,
            req.hint,
            kept_headers(headers),
            content.decode("utf-8", errors="replace"),
        )

    def _answered(self, req: RequestSpec, flight: _InFlight, status: int, headers: httpx.Headers) -> None:
        self.reporter.response(
            req.op, req.method, req.path, flight.attempt, status, monotonic() - flight.started, headers
        )

    async def _copy(
        self, req: RequestSpec, url: httpx.URL, response: httpx.Response, sink: AsyncSink, flight: _InFlight
    ) -> _Outcome:
        """A download's body written to ``sink``: the answer, or the error that ends the
        call (never retried, as ``sink`` may hold part of the body)."""
        try:
            written = await copy_to(response, sink, flight.deadline)
        except httpx.RequestError as e:
            return TransportError(req.method, req.path, f"the download broke off: {classify(e).detail}")
        if written is None:
            return RequestTimeoutError(req.method, req.path, flight.timeout)
        return RawResponse(response.status_code, response.headers, b"", str(url), written)

    def _headers(self, req: RequestSpec, call: CallOptions, *, has_body: bool) -> dict[str, str]:
        headers = {name.lower(): value for name, value in self.info.default_headers.items()}
        headers["accept"] = req.accept or headers.get("accept", "application/json")
        if has_body:
            headers["content-type"] = req.content_type or "application/json"
        headers["user-agent"] = self._options.user_agent
        for name, value in (call.headers or {}).items():
            if name.lower() in self._credential_names:
                raise ConfigError(f"the call header {name} would replace a credential")
            headers[name.lower()] = value
        if not req.anonymous:
            headers.update(credential_headers(self._auth))
            if self._token is not None and self._token.token is not None:
                name, value = token_header(self._token.auth, self._token.token)
                headers[name] = value
        return headers

    async def _retry_in(
        self,
        req: RequestSpec,
        outcome: ApiError | Failure | InspectionError,
        attempt: int,
        may_retry: bool,
        timeout: float,
    ) -> _Retry:
        """How to wait before the next attempt, or raises the error that ends the call.

        A 429 is retried for any method (it was refused, so not applied), after its
        Retry-After, and pauses every request of the core meanwhile; a 5xx, a timeout or
        a broken connection only for idempotent methods; a refused connection for any
        method (nothing reached the service). Never a POST or PATCH that may have been
        applied.
        """
        options = self._options
        wait = backoff(attempt, options.initial_backoff, options.max_backoff)
        idempotent = is_idempotent(req.method)
        if isinstance(outcome, ApiError):
            if outcome.status in (self.info.limit_status, 429):
                asked = outcome.retry_after
                # A longer wait than the client allows is reported, not cut short:
                # retrying early would only meet another 429.
                if asked is not None and asked > options.max_backoff:
                    raise outcome
                # Every request of this core waits, not only this one.
                hold = min(asked if asked is not None else wait, options.max_backoff)
                await self._pacer.pause_for(hold)
                if may_retry:
                    return _Retry(0.0, hold, asked is not None)
                raise outcome
            if outcome.status >= 500 and idempotent and may_retry:
                return _Retry(wait, wait, False)
            raise outcome
        if isinstance(outcome, Failure):
            if outcome.kind == "refused" and may_retry:
                return _Retry(wait, wait, False)
            if outcome.kind != "refused" and idempotent and may_retry:
                return _Retry(wait, wait, False)
            if outcome.kind == "timeout":
                raise RequestTimeoutError(req.method, req.path, timeout)
            raise TransportError(req.method, req.path, outcome.detail)
        raise outcome


def _retry_reason(outcome: ApiError | Failure | InspectionError) -> tuple[RetryReason, int | None]:
    """Why an attempt is retried, as a ``RetryEvent`` says it, and the status (or None)."""
    if isinstance(outcome, ApiError):
        return "status", outcome.status
    if isinstance(outcome, Failure) and outcome.kind == "timeout":
        return "timeout", None
    return "connection", None


def _decode_body(desc: Desc, response: RawResponse) -> Any:
    """A JSON answer read as ``desc``."""
    return decode_json(desc, response.content, response.status, response.headers.get("content-type"))



