"""The generated decoders (``_d_*`` in each models module) against the descriptors they
stand in for. ``decode`` reads an answer with the generated decoder first; when that
gives up, the descriptors read it again. So a generated decoder must never read a value the
descriptors refuse, and what it reads must be exactly what they read: the same classes,
values and property order. Checked here on the fixtures and on values made from every
record's and union's descriptor, then broken in the ways answers break (properties left
out, nulls, other kinds of value, unlisted properties, unknown tags and enum values, an
integer sent as ``3.0``, an id sent as a number, an envelope left out)."""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import enum
import json
import pathlib
import pickle
import random
import threading
from typing import Any, Callable

import pytest

from inspection_client import DecodeError, Secret, Unknown, legacy, v3
from inspection_client._runtime import codec
from inspection_client._runtime.descriptor import DecodeFailure, format_path

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "v3"


def descriptors(models: Any) -> list[tuple[str, codec.Desc]]:
    """Every record and union descriptor of a models module, and (v3) pages of records."""
    out: list[tuple[str, codec.Desc]] = []
    for name in sorted(vars(models)):
        desc = getattr(models, name)
        if name.startswith("_w_") and isinstance(desc, (codec.RecordDesc, codec.UnionDesc)):
            out.append((name, desc))
    if hasattr(models, "_page_wire"):
        for name in ("_w_Inspection", "_w_Unit", "_w_Task"):
            out.append((f"page of {name}", models._page_wire(getattr(models, name))))
    return out


ALL = [(f"{m.__name__.split('.')[-2]}.{name}", desc) for m in (v3.models, legacy.models) for name, desc in descriptors(m)]

# Values of any kind, for the places that take any JSON and for breaking the others.
ODD: list[object] = [None, 0, 3, 3.0, 2.5, -1, True, False, "", "x", "2026-03-04", "2026-03-04T16:05:12Z", [], [1, "a"], {}, {"a": None}]


def sample(desc: codec.Desc, rng: random.Random, depth: int, breaking: float) -> object:
    """A JSON value of ``desc``, broken here and there with probability ``breaking``."""
    if rng.random() < breaking:
        return copy.deepcopy(rng.choice(ODD))
    t = type(desc)
    if t is codec.RecordDesc:
        assert isinstance(desc, codec.RecordDesc)
        out: dict[str, object] = {}
        for f in desc.fields:
            if f.req or (depth < 4 and rng.random() < 0.8):
                out[f.wire] = sample(f.desc, rng, depth + 1, breaking)
            if rng.random() < breaking:
                out[f.wire] = None
        if rng.random() < breaking:
            out[rng.choice(["zz_new", "id", "type", "a b"])] = copy.deepcopy(rng.choice(ODD))
        if rng.random() < breaking and out:
            del out[rng.choice(sorted(out))]
        if desc.envelope is not None and rng.random() < 0.3:
            # The bare record, whose envelope the decoders infer.
            inner = out.get(desc.envelope)
            return inner if isinstance(inner, dict) else out
        return out
    if t is codec.UnionDesc:
        assert isinstance(desc, codec.UnionDesc)
        tag, member = rng.choice(sorted(desc.variants.items()))
        value = sample(member, rng, depth, breaking)
        if isinstance(value, dict):
            value[desc.tag] = tag if rng.random() >= breaking else rng.choice(["brand_new", 5, None])
        return value
    if t is codec.Array:
        assert isinstance(desc, codec.Array)
        return [sample(desc.of, rng, depth + 1, breaking) for _ in range(rng.randrange(4 if depth < 4 else 1))]
    if t is codec.Map:
        assert isinstance(desc, codec.Map)
        return {f"k{i}": sample(desc.of, rng, depth + 1, breaking) for i in range(rng.randrange(3))}
    if t is codec.Id:
        return rng.choice(["ins_0001", "u 2"]) if rng.random() >= breaking else 42
    if t is codec.Str:
        return rng.choice(["text", "", "Bucket – left"])
    if t is codec.Int:
        return rng.randrange(-3, 5000) if rng.random() >= breaking else 7.0
    if t is codec.Num:
        return rng.choice([1, 2.5, -0.25])
    if t is codec.Bool:
        return rng.random() < 0.5
    if t is codec.Enum:
        assert isinstance(desc, codec.Enum)
        return rng.choice(desc.values) if rng.random() >= breaking else "brand_new_value"
    if t is codec.Date:
        return rng.choice(["2026-03-04", "2026-13-40"]) if rng.random() >= breaking else "2026-03-04"
    if t in (codec.DateTime, codec.DateOrDateTime):
        return rng.choice(["2026-03-04T16:05:12.347Z", "2026-03-04T16:05:12+02:00", "2026-03-04 16:05", "2026-03-04"])
    if t is codec.DateTimeOrRange:
        return rng.choice(["2026-03-04T16:05:12Z", ["2026-03-04T16:05:12Z", "2026-03-05T00:00:00Z"]])
    if t is codec.Binary:
        return "bytes"
    # Json, Scalar, Dynamic: anything.
    return copy.deepcopy(rng.choice(ODD))


def same(a: object, b: object) -> bool:
    """Equal, of the same classes all the way down, and with properties in the same order."""
    if type(a) is not type(b):
        return False
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return all(same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple))
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        assert isinstance(b, dict)
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, Unknown):
        assert isinstance(b, Unknown)
        return same(a.raw, b.raw)
    if isinstance(a, Secret):
        assert isinstance(b, Secret)
        return a.expose() == b.expose()
    if isinstance(a, (dt.date, enum.Enum)):
        return a == b and repr(a) == repr(b)
    return a == b


def descriptors_read(desc: codec.Desc, value: object) -> tuple[bool, object]:
    """What the descriptors alone make of ``value``: (True, the value) or (False, the error text)."""
    try:
        return True, desc.decode(value)
    except DecodeFailure as e:
        return False, f"{format_path('', e.segments)}: {e.detail}"


def check(desc: codec.Desc, value: object) -> bool:
    """Holds the generated decoder of ``desc`` to the descriptors on ``value``; whether it read
    the value itself."""
    fast = desc.fast
    assert fast is not None
    ok, expected = descriptors_read(desc, copy.deepcopy(value))
    try:
        got = fast(copy.deepcopy(value))
    except Exception:
        read = False
    else:
        read = True
        assert ok, f"the generated decoder read what the descriptors refuse ({expected}): {value!r}"
        assert same(got, expected), f"{got!r} != {expected!r}"
        assert codec.dumps(codec.encode(desc, got)) == codec.dumps(codec.encode(desc, expected))
    # What callers see: the descriptors' value, or their error with its path.
    if ok:
        assert same(codec.decode(desc, copy.deepcopy(value)), expected)
    else:
        with pytest.raises(DecodeError) as caught:
            codec.decode(desc, copy.deepcopy(value))
        assert f"{caught.value.path}: {caught.value.detail}" == expected
    return read


@pytest.mark.parametrize(("name", "desc"), ALL, ids=[name for name, _ in ALL])
def test_a_generated_decoder_reads_what_its_descriptor_reads(name: str, desc: codec.Desc) -> None:
    rng = random.Random(name)
    # Well-formed values are all read by the generated decoder itself.
    for _ in range(25):
        value = sample(desc, rng, 0, 0.0)
        assert check(desc, value), f"the generated decoder gave up on {value!r}"
    for _ in range(150):
        check(desc, sample(desc, rng, 0, 0.08))


def without_descriptors(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: codec.Desc, v: Any) -> Any:
        raise AssertionError("read by the descriptors")

    for cls in (codec.RecordDesc, codec.UnionDesc):
        monkeypatch.setattr(cls, "decode", refuse)


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("*.json")))
def test_every_fixture_is_read_by_the_generated_decoders_alone(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    raw = json.loads((FIXTURES / name).read_text())
    models = v3.models
    record = {"inspection": models._w_Inspection, "share": models._w_ShareUrl, "task": models._w_Task, "unit": models._w_Unit}
    desc: codec.Desc = record[name.removesuffix(".json").split("_")[0].rstrip("s")]
    if name.endswith("_page.json"):
        desc = models._page_wire(desc)
    expected = desc.decode(copy.deepcopy(raw))
    without_descriptors(monkeypatch)
    got = codec.decode(desc, raw)
    assert same(got, expected)
    assert codec.dumps(codec.encode(desc, got)) == codec.dumps(codec.encode(desc, expected))


def test_objects_parsed_as_a_dict_subclass_read_as_plain_ones() -> None:
    # `json.loads(..., object_pairs_hook=OrderedDict)` gives every object as a subclass:
    # both walks read it (a map field's test gives the generated decoder up to the
    # descriptors), to what plain dicts give.
    from collections import OrderedDict

    text = (FIXTURES / "inspection.json").read_text()
    plain = v3.Inspection.from_json(json.loads(text))
    ordered = v3.Inspection.from_json(json.loads(text, object_pairs_hook=OrderedDict))
    # Equal (a JSON value passed through stays the caller's `OrderedDict`) and written alike.
    assert ordered == plain
    assert codec.dumps(ordered.to_json()) == codec.dumps(plain.to_json())


def test_a_failure_is_named_by_the_descriptors_with_its_path() -> None:
    raw = json.loads((FIXTURES / "inspection.json").read_text())
    raw["photos"][1]["tags"][0]["label"] = 7
    fast: Callable[[Any], Any] | None = v3.models._w_Inspection.fast
    assert fast is not None
    with pytest.raises(codec.Mismatch):
        fast(raw)
    with pytest.raises(DecodeError) as caught:
        v3.Inspection.from_json(raw)
    assert (caught.value.path, caught.value.detail) == ("photos[1].tags[0].label", "expected a string, got number 7")


def test_unlisted_properties_are_a_dict_of_each_record_made_when_first_read() -> None:
    raw = json.loads((FIXTURES / "inspection.json").read_text())
    first, second = (v3.Inspection.from_json(copy.deepcopy(raw)) for _ in range(2))
    assert first.extra == {} and first.extra is first.extra
    assert first.extra is not second.extra
    first.extra["reviewed_by"] = "ops"
    assert first.to_json()["reviewed_by"] == "ops" and "reviewed_by" not in second.to_json()
    assert first != second
    second.extra = {"reviewed_by": "ops"}
    assert first == second
    # Copies and pickles carry them, read or not.
    third = v3.Inspection.from_json(copy.deepcopy(raw))
    assert copy.deepcopy(third) == third and pickle.loads(pickle.dumps(third)) == third
    assert pickle.loads(pickle.dumps(first)).extra == {"reviewed_by": "ops"}
    # A record built by hand has its own from the start.
    assert v3.UnitRef().extra == {} and v3.UnitRef().extra is not v3.UnitRef().extra


def test_unlisted_reads_a_records_unlisted_properties_without_making_the_empty_dict() -> None:
    raw = json.loads((FIXTURES / "inspection.json").read_text())
    plain = v3.Inspection.from_json(copy.deepcopy(raw))
    assert codec.unlisted(plain) is None
    with pytest.raises(AttributeError):
        # The slot under `extra` is still unset: nothing was made.
        getattr(type(plain), codec.UNLISTED_SLOT).__get__(plain, None)
    raw["reviewed_by"] = "ops"
    kept = v3.Inspection.from_json(raw)
    assert codec.unlisted(kept) == {"reviewed_by": "ops"} and codec.unlisted(kept) is kept.extra
    # Read (made empty), set by hand, or not a record at all.
    assert plain.extra == {} and codec.unlisted(plain) is None
    assert codec.unlisted(v3.UnitRef(extra={"a": 1})) == {"a": 1} and codec.unlisted(v3.UnitRef()) is None
    assert codec.unlisted({"a": 1}) is None


def test_threads_reading_the_unlisted_properties_first_share_one_dict() -> None:
    raw = json.loads((FIXTURES / "inspection.json").read_text())
    records = [v3.Inspection.from_json(copy.deepcopy(raw)) for _ in range(200)]
    seen: list[list[int]] = [[], []]

    def read(out: list[int]) -> None:
        out.extend(id(r.extra) for r in records)

    workers = [threading.Thread(target=read, args=(out,)) for out in seen]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert seen[0] == seen[1] == [id(r.extra) for r in records]
