"""Keeping pre-signed URLs' queries (their signatures) out of errors and logs.

httpx logs every request's full URL at INFO level on the ``httpx`` logger; while a
pre-signed URL is in flight, a filter there shows it by origin and path only. Other URLs,
including those of other httpx users in the process, are left as they are.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final
from urllib.parse import parse_qsl

import httpx

from .origin import shown_url, strip_url_queries

__all__ = ["hidden_query", "scrub"]

_REDACTED: Final = "***"
# Shorter values ("1", "900") say nothing about the signature and are common words.
_MIN_SECRET_LENGTH: Final = 8


def scrub(text: str, url: httpx.URL) -> str:
    """``text`` with the query of ``url`` and its longer values taken out, and the query
    of any URL in it removed: for messages built from a storage's error body or an
    exception text, which may quote the signature."""
    query = url.query.decode("ascii", errors="replace")
    if query:
        text = text.replace(query, _REDACTED)
        for _, value in parse_qsl(query, keep_blank_values=False):
            if len(value) >= _MIN_SECRET_LENGTH:
                text = text.replace(value, _REDACTED)
        for raw in query.split("&"):
            value = raw.partition("=")[2]
            if len(value) >= _MIN_SECRET_LENGTH:
                text = text.replace(value, _REDACTED)
    return strip_url_queries(text)


class _HideQueries(logging.Filter):
    """Shows the URLs being transferred by origin and path in httpx's log records."""

    def __init__(self) -> None:
        super().__init__("httpx")
        self._lock = threading.Lock()
        self._active: Counter[str] = Counter()

    def add(self, url: str) -> None:
        with self._lock:
            self._active[url] += 1

    def remove(self, url: str) -> None:
        with self._lock:
            self._active[url] -= 1
            if self._active[url] <= 0:
                del self._active[url]

    def filter(self, record: logging.LogRecord) -> bool:
        if self._active and isinstance(record.args, tuple):
            record.args = tuple(self._shown(arg) for arg in record.args)
        return True

    def _shown(self, arg: object) -> object:
        if isinstance(arg, httpx.URL) and str(arg) in self._active:
            return shown_url(arg)
        return arg


_FILTER: Final = _HideQueries()
logging.getLogger("httpx").addFilter(_FILTER)


@contextmanager
def hidden_query(url: httpx.URL) -> Iterator[None]:
    """While inside, httpx's log lines show ``url`` without its query."""
    text = str(url)
    _FILTER.add(text)
    try:
        yield
    finally:
        _FILTER.remove(text)
