"""How requests authenticate. Credentials are ``Secret`` values, sent only to the base
URL's origin and never to pre-signed URLs. Plain data: the core does the logging in."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Union

from .codec import Desc
from .errors import ConfigError, DecodeError
from .request import RequestSpec
from .secret import Secret, reveal

__all__ = [
    "Auth",
    "HeaderAuth",
    "NoAuth",
    "TokenAuth",
    "check_headers",
    "credential_headers",
    "fixed_secrets",
    "header_names",
    "login_token",
]


@dataclass(frozen=True)
class NoAuth:
    """No credentials."""


@dataclass(frozen=True)
class HeaderAuth:
    """Fixed headers on every request (an API key id and secret); secret values as ``Secret``."""

    headers: tuple[tuple[str, str | Secret], ...]

    def __repr__(self) -> str:
        # Names only: a value given as plain text would otherwise show.
        return f"HeaderAuth({', '.join(name for name, _ in self.headers)})"


@dataclass(frozen=True, kw_only=True)
class TokenAuth:
    """A token from a login, sent as ``<header>: <scheme> <token>``.

    The core logs in on first use and once more when a request with a token is answered
    401: it sends ``login_request()`` without credentials, decodes the answer with
    ``login_desc`` and takes the token from the attribute ``token_attr`` (the wire member
    ``token_field``, named in errors).
    """

    header: str
    scheme: str
    token_field: str
    token_attr: str
    login_request: Callable[[], RequestSpec] = field(repr=False)
    login_desc: Desc = field(repr=False)


Auth = Union[NoAuth, HeaderAuth, TokenAuth]
"""How a core's requests carry credentials."""


def header_names(auth: Auth) -> frozenset[str]:
    """The lower-case names of the headers ``auth`` sets (which call headers may not replace)."""
    if isinstance(auth, HeaderAuth):
        return frozenset(name.lower() for name, _ in auth.headers)
    if isinstance(auth, TokenAuth):
        return frozenset([auth.header.lower()])
    return frozenset()


def _header_safe(value: str) -> bool:
    """Whether every client of the service can send ``value`` in a header as it is: visible
    ASCII, spaces and tabs (httpx would refuse anything else with a message quoting it)."""
    return all(c == "\t" or " " <= c <= "~" for c in value)


def check_headers(auth: Auth) -> None:
    """Refuses fixed credential headers a header cannot carry, when the client is made
    rather than at the first request: a ConfigError naming the header, never its value or
    a character of it."""
    if isinstance(auth, HeaderAuth):
        for name, value in auth.headers:
            if not _header_safe(reveal(value)):
                raise ConfigError(f"the `{name.lower()}` credential holds characters a header cannot carry")


def login_token(auth: TokenAuth, answer: object, status: int) -> Secret:
    """The token of a login's decoded ``answer`` (its ``token_attr``), refused when the
    login answers (rather than when a request would send it) if a header cannot carry it:
    a DecodeError at the wire member ``token_field``, quoting nothing of the token."""
    token = getattr(answer, auth.token_attr, None)
    text = token.expose() if isinstance(token, Secret) else token
    if not isinstance(text, str) or text == "":
        raise DecodeError(auth.token_field, "the login answer holds no token", status)
    if not _header_safe(text):
        raise DecodeError(auth.token_field, "the token holds characters a header cannot carry (it is not shown)", status)
    return Secret(text)


def credential_headers(auth: Auth) -> dict[str, str]:
    """The fixed credential headers of ``auth``, lower-case names, secrets exposed."""
    if isinstance(auth, HeaderAuth):
        return {name.lower(): reveal(value) for name, value in auth.headers}
    return {}


def fixed_secrets(auth: Auth) -> tuple[str, ...]:
    """The secrets ``auth`` holds from the start, to be kept out of errors: the ``Secret``
    header values (an API key secret), or every ``Secret`` in the login body (the fields
    the spec marks sensitive: a password). A login's token comes later; the core adds it."""
    if isinstance(auth, HeaderAuth):
        return tuple(value.expose() for _, value in auth.headers if isinstance(value, Secret))
    if isinstance(auth, TokenAuth):
        found: list[str] = []
        _secrets_in(auth.login_request().body, found, 0)
        return tuple(found)
    return ()


def _secrets_in(value: object, out: list[str], depth: int) -> None:
    """Adds the value of every ``Secret`` in an encoded JSON value to ``out``."""
    if isinstance(value, Secret):
        out.append(value.expose())
    elif depth > 32:
        return
    elif isinstance(value, dict):
        for item in value.values():
            _secrets_in(item, out, depth + 1)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _secrets_in(item, out, depth + 1)


def token_header(auth: TokenAuth, token: Secret) -> tuple[str, str]:
    """The header that carries ``token``."""
    return auth.header.lower(), f"{auth.scheme} {token.expose()}"
