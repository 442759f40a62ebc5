"""Webhook deliveries as a Python listener reads them: the event union (an unknown type is
kept whole, never an error) and the header verifier."""

from __future__ import annotations

import json
import pathlib

import pytest

from inspection_client import DecodeError, Unknown, WebhookError, legacy, v3, verify_webhook

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "v3"


def test_a_known_event_is_its_dataclass_with_the_record() -> None:
    task = json.loads((FIXTURES / "task.json").read_text())
    event = v3.parse_event(json.dumps({"type": "task.completed", "data": task, "created_at": "2026-03-05T17:00:00Z"}))
    assert isinstance(event, v3.TaskCompletedEvent)
    # `data` is optional (the seeds do not promise it).
    assert isinstance(event.data, v3.Task) and event.data.id == task["id"]
    assert event.to_json()["data"] == task


def test_an_unknown_event_is_kept_whole_and_never_raises() -> None:
    for body in (b'{"type": "unit.archived", "data": {"id": "u1"}}', b'{"no": "type"}'):
        event = v3.parse_event(body)
        assert isinstance(event, Unknown)
        assert event.to_json() == json.loads(body)
    assert isinstance(legacy.parse_event(b'{"type": "asset.moved"}'), Unknown)


def test_a_broken_known_event_or_a_body_that_is_not_json_is_a_decode_error() -> None:
    with pytest.raises(DecodeError) as caught:
        v3.parse_event(b'{"type": "task.completed", "data": {"id": true}}')
    assert caught.value.path.startswith("data")
    with pytest.raises(DecodeError):
        v3.parse_event(b"<html>")


def test_the_verifier_wants_exactly_the_configured_header() -> None:
    verify_webhook({"X-Hook-Key": "s3cret"}, "x-hook-key", "s3cret")
    for headers in ({}, {"x-hook-key": "s3cres"}, {"x-hook-key": "s3cret", "X-HOOK-KEY": "s3cret"}):
        with pytest.raises(WebhookError) as caught:
            verify_webhook(headers, "x-hook-key", "s3cret")
        assert "s3cre" not in str(caught.value)
