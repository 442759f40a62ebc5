"""Where credentials may go: https only (plain http for loopback hosts, for the sandbox),
and only to the base URL's own origin."""

from __future__ import annotations

import ipaddress
import re
from typing import Final

import httpx

from .errors import ConfigError

__all__ = [
    "is_loopback",
    "origin_of",
    "parse_secure_url",
    "same_origin",
    "shown_url",
    "strip_url_queries",
]

_URL_QUERY: Final = re.compile(r"""(https?://[^\s?#"'<>]*)[?#][^\s"'<>]*""")


def is_loopback(url: httpx.URL) -> bool:
    """Whether ``url``'s host is loopback: ``localhost``, ``127.0.0.0/8`` or ``::1``."""
    host = url.host
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def same_origin(a: httpx.URL, b: httpx.URL) -> bool:
    """Same scheme, host and port (httpx leaves a scheme's default port out of both)."""
    return (a.scheme, a.host, a.port) == (b.scheme, b.host, b.port)


def origin_of(url: httpx.URL) -> str:
    """``scheme://host[:port]``: how errors name where a URL points."""
    return f"{url.scheme}://{url.netloc.decode('ascii', errors='replace')}"


def shown_url(url: httpx.URL) -> str:
    """Origin and path of ``url``: how errors and logs show a pre-signed URL, whose query
    is its signature."""
    return origin_of(url) + url.raw_path.split(b"?", 1)[0].decode("ascii", errors="replace")


def parse_secure_url(text: str, what: str) -> httpx.URL:
    """Parses ``text`` as a URL that may carry credentials or be fetched: ``https://``, or
    ``http://`` on a loopback host, with no user name or password in it. ``what`` names it
    in the error ("the base URL", "a pre-signed URL"); the text itself is never shown, as
    it may hold a signature.
    """
    try:
        url = httpx.URL(text)
    except (httpx.InvalidURL, TypeError, ValueError):
        url = None
    if url is None or not url.is_absolute_url or url.host == "":
        raise ConfigError(f"{what} is not an absolute URL; expected https://host/...")
    if url.userinfo:
        raise ConfigError(
            f"{what} must not carry a user name or password ({origin_of(url)}); "
            "pass credentials as auth instead"
        )
    if url.scheme == "https":
        return url
    if url.scheme == "http":
        if is_loopback(url):
            return url
        raise ConfigError(
            f"{what} must use https (plain http is only allowed for loopback hosts): {origin_of(url)}"
        )
    raise ConfigError(f"{what} has unsupported scheme `{url.scheme}`; use https")


def strip_url_queries(text: str) -> str:
    """``text`` with the query and fragment of every URL in it removed: for texts of
    exceptions, which may quote a pre-signed URL and its signature."""
    return _URL_QUERY.sub(r"\1", text)
