"""The generated models as Python users hold them: what the shared conformance scenarios
cannot see (Python types, ``repr``, ``UNSET`` against ``None``, dates, ``Unknown``
members), read from the same fixtures the Rust tests use."""

from __future__ import annotations

import datetime as dt
import json
import pathlib
from typing import Any

import pytest

from inspection_client import UNSET, DecodeError, Secret, Unknown, legacy, v3
from inspection_client._runtime import codec
from inspection_client._runtime.errors import Violation

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "v3"


def fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text())


@pytest.mark.parametrize("interface", [v3, legacy], ids=["v3", "legacy"])
def test_the_interface_package_offers_every_model_and_its_client(interface: Any) -> None:
    models = interface.models
    assert {"Client", "AsyncClient"} <= set(interface.__all__)
    assert set(models.__all__) <= set(interface.__all__)
    assert len(interface.__all__) == len(set(interface.__all__))
    for name in interface.__all__:
        assert hasattr(interface, name), name


def test_an_inspection_round_trips_unchanged() -> None:
    raw = fixture("inspection.json")
    inspection = v3.Inspection.from_json(json.loads(json.dumps(raw)))
    assert isinstance(inspection.created_at, dt.datetime)
    assert inspection.created_at.tzinfo is not None
    back = json.loads(codec.dumps(inspection.to_json()))
    assert back == raw


@pytest.mark.parametrize(
    "name",
    [
        "inspection_unknown_field_type.json",
        "inspection_unknown_result.json",
        "inspection_unknown_signature.json",
        "inspection_unknown_type.json",
    ],
)
def test_unknown_members_and_values_are_kept_whole(name: str) -> None:
    raw = fixture(name)
    inspection = v3.Inspection.from_json(json.loads(json.dumps(raw)))
    assert json.loads(codec.dumps(inspection.to_json())) == raw


def test_an_unknown_union_member_is_its_own_class_holding_the_raw_object() -> None:
    raw = {"object": "video_result", "clips": [{"seconds": 3}], "reviewed": None}
    result = codec.decode(v3.models._w_InspectionResult, raw)
    assert isinstance(result, v3.UnknownInspectionResult) and isinstance(result, Unknown)
    assert result.tag == "video_result"
    assert result.raw == raw
    assert result.to_json() is raw


def test_a_known_member_is_its_dataclass_and_keeps_its_tag() -> None:
    raw = {"object": "checklist", "name": "Walkaround", "data": [{"type": "textbox", "label": "Hours", "value": 3}]}
    result = codec.decode(v3.models._w_InspectionResult, raw)
    assert isinstance(result, v3.ChecklistResult)
    field = result.data[0]
    assert isinstance(field, v3.ValueField) and field.type == "textbox"
    # One dataclass serves several tags: each keeps the one it was sent with.
    assert codec.encode(v3.models._w_InspectionResult, result) == {**raw, "data": [{"type": "textbox", "label": "Hours", "value": 3}]}


def test_open_enums_hold_members_or_the_new_value_as_str() -> None:
    known = v3.Task.from_json(fixture("task.json"))
    assert known.status is v3.TaskStatus.STARTED
    unknown = v3.Task.from_json(fixture("task_unknown_status.json"))
    assert isinstance(unknown.status, str) and not isinstance(unknown.status, v3.TaskStatus)
    assert unknown.to_json()["status"] == fixture("task_unknown_status.json")["status"]


def test_absent_and_null_stay_apart() -> None:
    base = fixture("task.json")
    absent = {k: v for k, v in base.items() if k != "completed_at"}
    task = v3.Task.from_json(absent)
    assert task.completed_at is UNSET and "completed_at" not in task.to_json()
    task = v3.Task.from_json({**absent, "completed_at": None})
    assert task.completed_at is None and task.to_json()["completed_at"] is None


def test_unknown_properties_are_kept_and_written_back() -> None:
    raw = fixture("unit_extra_properties.json")
    unit = v3.Unit.from_json(json.loads(json.dumps(raw)))
    assert unit.extra, "the fixture carries properties the spec does not list"
    assert unit.to_json() == raw


def test_responses_are_never_refused_for_a_documented_limit() -> None:
    raw = {**fixture("unit.json"), "vin": "not a vin at all", "year": 12}
    unit = v3.Unit.from_json(raw)
    assert unit.vin == "not a vin at all" and unit.year == 12


def test_ids_sent_as_numbers_become_text() -> None:
    unit = v3.Unit.from_json({**fixture("unit.json"), "id": 42})
    assert unit.id == "42"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-03-05T17:00:00Z", dt.datetime(2026, 3, 5, 17, tzinfo=dt.timezone.utc)),
        ("2026-03-05T17:00:00", dt.datetime(2026, 3, 5, 17, tzinfo=dt.timezone.utc)),
        ("2026-03-05T17:00:00.25+02:00", dt.datetime(2026, 3, 5, 17, 0, 0, 250_000, tzinfo=dt.timezone(dt.timedelta(hours=2)))),
        ("2026-03-05T17:00:00.123456789Z", dt.datetime(2026, 3, 5, 17, 0, 0, 123_456, tzinfo=dt.timezone.utc)),
    ],
)
def test_date_times_with_or_without_offset_and_fractions(text: str, expected: dt.datetime) -> None:
    assert codec.parse_datetime(text) == expected
    assert codec.parse_datetime(text).utcoffset() == expected.utcoffset()


def test_date_times_are_written_back_as_rfc3339() -> None:
    utc = dt.timezone.utc
    assert codec.format_datetime(dt.datetime(2026, 3, 4, 9, 41, 27, 913_000, tzinfo=utc)) == "2026-03-04T09:41:27.913Z"
    assert codec.format_datetime(dt.datetime(2026, 3, 4, 9, 41, tzinfo=dt.timezone(dt.timedelta(hours=-5)))) == "2026-03-04T09:41:00-05:00"


def test_due_by_keeps_a_date_a_date_and_a_date_time_a_date_time() -> None:
    wire = v3.models._w_TaskRequest
    base = {"name": "Dates", "reference_number": "EX-0117", "location_id": 101}
    as_date = codec.decode(wire, {**base, "due_by": "2027-01-31"})
    assert type(as_date.due_by) is dt.date
    assert codec.encode(wire, as_date)["due_by"] == "2027-01-31"
    as_time = codec.decode(wire, {**base, "due_by": "2027-01-31T21:30:00Z"})
    assert isinstance(as_time.due_by, dt.datetime)
    assert codec.encode(wire, as_time)["due_by"] == "2027-01-31T21:30:00Z"


def test_a_decode_error_names_the_json_path() -> None:
    raw = fixture("inspection.json")
    raw["results"][0]["name"] = 5
    with pytest.raises(DecodeError) as caught:
        v3.Inspection.from_json(raw)
    assert caught.value.path.startswith("results[0]")
    assert "name" in caught.value.path


def violations(desc: codec.Desc, value: object) -> list[Violation]:
    out: list[Violation] = []
    codec.validate(desc, codec.encode(desc, value), "", out)
    return out


def test_every_violation_is_reported_with_its_wire_path() -> None:
    unit = v3.NewUnit(reference_number="V-1", vin="SHORTO", year=1799, hours=-1)
    found = violations(v3.models._w_NewUnit, unit)
    assert sorted(v.path for v in found) == ["hours", "vin", "vin", "year"]
    assert any("found 'O' at position 3" in v.message for v in found)


def test_a_naive_date_time_is_refused_before_sending() -> None:
    task = v3.TaskRequest(name="x", reference_number="y", due_by=dt.datetime(2027, 1, 1), location_id=101)
    out = violations(v3.models._w_TaskRequest, task)
    assert [v.path for v in out] == ["due_by"]
    assert "offset" in out[0].message


def test_secrets_stay_out_of_repr() -> None:
    login_types = [
        t
        for t in vars(legacy.models).values()
        if isinstance(t, type) and issubclass(t, codec.Record) and "password" in getattr(t, "__dataclass_fields__", {})
    ]
    assert login_types, "the legacy spec has a login body with a password"
    body: Any = login_types[0].from_json({"username": "user@example.com", "password": "TOP-SECRET-1"})
    assert isinstance(body.password, Secret)
    assert "TOP-SECRET-1" not in repr(body) and "TOP-SECRET-1" not in str(body)
    assert b"TOP-SECRET-1" in codec.dumps(body.to_json())
