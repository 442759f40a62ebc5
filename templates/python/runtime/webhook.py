"""Webhook deliveries: reading one, and checking the authentication header that the
service's support configured for it."""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from typing import Any

from .codec import Desc, decode_json
from .errors import WebhookError


def parse_delivery(desc: Desc, body: bytes | str) -> Any:
    """A delivery's JSON body read as ``desc`` (an interface's open ``Event`` union: an event
    type the spec does not know is its ``Unknown`` member, never an error).

    Raises ``DecodeError`` for a body that is not JSON, or a known event whose payload does
    not fit (with its JSON path)."""
    return decode_json(desc, body)


def verify_webhook(headers: Mapping[str, str], name: str, expected: str) -> None:
    """Checks that a delivery carries header ``name`` (any case) with exactly ``expected``,
    compared in constant time.

    Raises ``WebhookError`` when it is missing, repeated or different; the error never holds
    either value."""
    wanted = name.lower()
    values = [v for k, v in headers.items() if k.lower() == wanted]
    if len(values) != 1:
        raise WebhookError(f"the delivery has no single `{name}` header")
    if not hmac.compare_digest(values[0].encode(), expected.encode()):
        raise WebhookError(f"the delivery's `{name}` header does not match")
