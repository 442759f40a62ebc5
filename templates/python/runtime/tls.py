"""One TLS context for every client of the process: loading the certificate bundle takes
about 20 ms, too long to repeat for each client (a sync and an async client, a re-login)."""

from __future__ import annotations

import functools
import ssl

import httpx


@functools.lru_cache(maxsize=1)
def tls_context() -> ssl.SSLContext:
    """httpx's default context (the certifi bundle), built once; contexts are safe to share
    between clients and threads."""
    return httpx.create_ssl_context()
