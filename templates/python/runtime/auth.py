"""How requests authenticate. Credentials are ``Secret`` values, sent only to the base
URL's origin and never to pre-signed URLs. Plain data: the core does the logging in."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Union

from .codec import Desc
from .request import RequestSpec
from .secret import Secret, reveal

__all__ = [
    "Auth",
    "HeaderAuth",
    "NoAuth",
    "TokenAuth",
    "credential_headers",
    "fixed_secrets",
    "header_names",
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
