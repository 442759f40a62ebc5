"""Client-side pacing under the service's rate limit, shared by every request of one
client, and the pause a 429 imposes on all of them.

One source for both clients: the blocking module is generated from the async one
by token replacement.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from time import monotonic

from .options import RateLimit
from .retry import FOREVER

__all__ = ["AsyncPacer", "WINDOW_MARGIN", "WINDOW_SLACK", "pause"]

_DAY = 86400.0


async def pause(seconds: float) -> None:
    """Sleeps ``seconds``. A wait longer than ``FOREVER`` (a window or backoff given as a
    huge number) sleeps a day at a time, without end, instead of raising as the clock
    would."""
    if seconds <= FOREVER:
        await asyncio.sleep(max(0.0, seconds))
        return
    while True:
        await asyncio.sleep(_DAY)

WINDOW_MARGIN = 1.002
"""The window is taken 0.2 % longer than documented, for the rates of the client's and the
service's clocks, and ``WINDOW_SLACK`` seconds longer, for network jitter."""

WINDOW_SLACK = 0.020


class AsyncPacer:
    """At most ``limit.requests`` sends in any window of ``limit.window_seconds`` (a
    sliding log, so no window of the service's, fixed or sliding, sees more), plus a pause
    after a 429 that holds every request of the client, not only the refused one.

    ``limit=None``: no pacing (only the pauses apply). ``clock`` is for tests.
    """

    def __init__(self, limit: RateLimit | None, clock: Callable[[], float] = monotonic) -> None:
        self._requests = limit.requests if limit is not None else 0
        self._window = (
            limit.window_seconds * WINDOW_MARGIN + WINDOW_SLACK if limit is not None else 0.0
        )
        self._clock = clock
        # Send times within the last window, oldest first.
        self._sent: deque[float] = deque()
        self._paused_until = float("-inf")
        # Guards the log and the pause; never held while sleeping.
        self._lock = asyncio.Lock()

    async def acquire(self, on_wait: Callable[[float, bool], None] | None = None) -> None:
        """Waits until a request may be sent, and records it as sent. Before each wait,
        ``on_wait(seconds, held)`` is told how long it is, and whether a 429's pause holds
        the request (``held``) rather than the window."""
        while True:
            async with self._lock:
                now = self._clock()
                wait = self.reserve(now)
                held = self._paused_until > now
            if wait <= 0:
                return
            if on_wait is not None:
                on_wait(wait, held)
            await pause(wait)

    def reserve(self, now: float) -> float:
        """Records a send at ``now`` and gives 0 when one may go now, or else how many
        seconds to wait before asking again (nothing is recorded then).

        The caller holds the lock (``acquire``); exposed for tests with a fake clock.
        """
        if self._paused_until > now:
            return self._paused_until - now
        if self._requests == 0:
            return 0.0
        while self._sent and now - self._sent[0] >= self._window:
            self._sent.popleft()
        if len(self._sent) < self._requests:
            self._sent.append(now)
            return 0.0
        # A floor, so rounding never turns this into a busy loop.
        return max(0.001, self._sent[0] + self._window - now)

    async def pause_for(self, seconds: float) -> None:
        """Holds every request until ``seconds`` from now (after a 429)."""
        async with self._lock:
            self._paused_until = max(self._paused_until, self._clock() + seconds)
