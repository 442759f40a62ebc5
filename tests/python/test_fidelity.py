"""Fidelity to the seeds (issue 12) as Python holds it: a request's `extra` may carry a
property the spec does not list yet but never one it lists; inferred record envelopes read
wrapped or bare; a bare date where a date-time is documented; union members without their
tag in `extra`; binary bodies sent as they are; the guest token out of `repr`. (The paging
rule is in test_runtime_paging.py; the wire forms are the scenarios of
tests/conformance/fidelity.yaml.)"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import httpx
import pytest

import inspection_client.legacy.client as legacy_client
from inspection_client import DecodeError, Secret, ValidationError, legacy, v3
from inspection_client._runtime import NoAuth, codec
from inspection_client._runtime.errors import ConfigError, Violation

from runtime_support import BASE, Recorder, Runner, fast, ok

UTC = dt.timezone.utc


def violations(desc: codec.Desc, value: object) -> list[Violation]:
    out: list[Violation] = []
    codec.validate(desc, codec.encode(desc, value), "", out)
    return out


# ---------------------------------------------------------------- extra in requests


def test_an_extra_property_the_spec_lists_is_refused_at_its_path() -> None:
    unit = v3.NewUnit(reference_number="R-1", vin="1HGCM82633A004352", extra={"vin": "other", "color": "teal"})
    found = violations(v3.models._w_NewUnit, unit)
    assert [v.path for v in found] == ["vin"]
    assert found[0].message.startswith("is a property the spec lists: set it with its own field")
    # Nested, and for a property of an exactly-one-of group.
    task = v3.TaskRequest(
        name="x", reference_number="y", due_by=dt.date(2027, 1, 1), location_id=101, extra={"location_id": 7}
    )
    assert [v.path for v in violations(v3.models._w_TaskRequest, task)] == ["location_id"]
    wrapped = legacy.AssetUpdateRequest(asset=legacy.AssetUpdate(extra={"external_id": "x", "paint": "red"}))
    assert [v.path for v in violations(legacy.models._w_AssetUpdateRequest, wrapped)] == ["asset.external_id"]
    # One the spec does not list travels as it is.
    fine = v3.NewUnit(reference_number="R-1", extra={"color": "teal"})
    assert violations(v3.models._w_NewUnit, fine) == []
    assert codec.encode(v3.models._w_NewUnit, fine) == {"reference_number": "R-1", "color": "teal"}


def clients(runner: Runner, rec: Recorder) -> Any:
    options = fast(transport=httpx.MockTransport(rec))
    key = v3.ApiKey("demo-key", "demo-secret")
    return (v3.Client if runner.kind == "sync" else v3.AsyncClient)(BASE, key, options=options)


def test_a_colliding_extra_is_never_sent(runner: Runner) -> None:
    rec = Recorder(ok({"id": "u1", "reference_number": "R-1"}, status=201))
    client = clients(runner, rec)
    with pytest.raises(ValidationError) as caught:
        runner.run(client.create_unit, v3.NewUnit(reference_number="R-1", extra={"reference_number": "R-2"}))
    assert [v.path for v in caught.value.violations] == ["reference_number"] and rec.requests == []
    runner.run(client.create_unit, v3.NewUnit(reference_number="R-1", extra={"color": "teal"}))
    assert json.loads(rec.requests[0].content) == {"reference_number": "R-1", "color": "teal"}


# ---------------------------------------------------------------- answers


def test_an_inferred_envelope_reads_wrapped_or_bare() -> None:
    bare = {"id": "43", "external_id": "WMW-1", "fleet": "north"}
    for raw in (bare, {"asset": bare}):
        answer = legacy.AssetResponse.from_json(raw)
        assert answer.asset.id == "43" and answer.asset.extra == {"fleet": "north"} and answer.extra == {}
        # Written back in the documented, wrapped form.
        back = answer.to_json()
        assert list(back) == ["asset"] and isinstance(back["asset"], dict) and back["asset"]["fleet"] == "north"
    wrapped = legacy.AssetResponse.from_json({"asset": bare, "served_by": "b"})
    assert wrapped.extra == {"served_by": "b"}
    # A bare record is still checked: its id is required.
    with pytest.raises(DecodeError) as caught:
        legacy.UserResponse.from_json({"username": "someone@example.com"})
    assert caught.value.path == "user.id"
    with pytest.raises(DecodeError):
        legacy.UserResponse.from_json([])


def test_a_bare_date_is_midnight_utc_in_answers_but_refused_in_requests() -> None:
    assert codec.parse_datetime("2020-12-21") == dt.datetime(2020, 12, 21, tzinfo=UTC)
    assert codec.parse_datetime("2016-05-23 22:16:43") == dt.datetime(2016, 5, 23, 22, 16, 43, tzinfo=UTC)
    for bad in ("2020-13-01", "2020-12-2x", "yesterday"):
        with pytest.raises(ValueError):
            codec.parse_datetime(bad)
    task = v3.Task.from_json({"id": "t", "created_at": "2020-12-21"})
    assert task.created_at == dt.datetime(2020, 12, 21, tzinfo=UTC)
    out: list[Violation] = []
    codec.validate(codec.DateTime(), "2020-12-21", "created_at", out)
    assert [v.path for v in out] == ["created_at"]


def test_a_union_member_keeps_its_tag_as_its_own_attribute_not_in_extra() -> None:
    raw = {"object": "checklist", "name": "C", "shiny": 2, "data": []}
    result = codec.decode(v3.models._w_InspectionResult, raw)
    assert isinstance(result, v3.ChecklistResult)
    assert result.object == "checklist" and result.extra == {"shiny": 2}
    assert codec.encode(v3.models._w_InspectionResult, result) == raw


# ---------------------------------------------------------------- inputs


def legacy_client_of(runner: Runner, rec: Recorder) -> Any:
    core = runner.core(rec, auth=NoAuth(), info=legacy_client.INFO)
    return (legacy.Client if runner.kind == "sync" else legacy.AsyncClient)(core)


def test_a_binary_body_is_sent_as_it_is_with_its_content_type(runner: Runner) -> None:
    rec = Recorder(httpx.Response(200))
    client = legacy_client_of(runner, rec)
    runner.run(client.upload_device_log, "d1", "boot ok\nréady\n")
    runner.run(client.upload_device_log, "d1", b"<log/>", content_type="application/xml")
    assert [r.content for r in rec.requests] == ["boot ok\nréady\n".encode(), b"<log/>"]
    assert [r.headers["content-type"] for r in rec.requests] == ["text/plain", "application/xml"]
    with pytest.raises(ConfigError, match="Content-Type"):
        runner.run(client.upload_device_log, "d1", b"x", content_type="text/plain\r\nx-evil: 1")
    with pytest.raises(ValidationError):
        runner.run(client.upload_device_log, "d1", 5)
    assert len(rec.requests) == 2


def test_the_guest_token_stays_out_of_repr() -> None:
    body = legacy.GuestTokenExchange(guest_token=Secret("guest-TOP-SECRET"))
    assert "guest-TOP-SECRET" not in repr(body) and "guest-TOP-SECRET" not in str(body)
    assert json.loads(codec.dumps(body.to_json())) == {"guest_token": "guest-TOP-SECRET"}
