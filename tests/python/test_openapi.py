"""The OpenAPI export, checked by tools nobody here wrote: openapi-spec-validator accepts
both documents, and every payload fixture validates against the exported component schemas
with jsonschema (formats checked), unknown union members and enum values included."""

from __future__ import annotations

import functools
import json
import pathlib
from typing import Any

import jsonschema
import pytest
import yaml
from openapi_spec_validator import validate

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "v3"


@functools.cache
def document(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "generated" / "openapi" / f"{name}.yaml").read_text())
    return loaded


@pytest.mark.parametrize("name", ["v3", "legacy"])
def test_the_documents_are_valid_openapi(name: str) -> None:
    validate(document(name))


def check(doc: dict[str, Any], schema: dict[str, Any], value: Any) -> None:
    """Validates `value` against `schema`, whose refs point into `doc`'s components."""
    root = {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema, "components": doc["components"]}
    validator = jsonschema.Draft202012Validator(root, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(value), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])


def component(name: str) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{name}"}


def answer(doc: dict[str, Any], path: str) -> dict[str, Any]:
    """The JSON schema of the 200 answer of GET `path`."""
    schema: dict[str, Any] = doc["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    return schema


FIXTURE_SCHEMAS = {
    "inspection.json": component("Inspection"),
    "inspection_unknown_field_type.json": component("Inspection"),
    "inspection_unknown_result.json": component("Inspection"),
    "inspection_unknown_signature.json": component("Inspection"),
    "inspection_unknown_type.json": component("Inspection"),
    "share_url.json": component("ShareUrl"),
    "task.json": component("Task"),
    "task_completed.json": component("Task"),
    "task_unknown_status.json": component("Task"),
    "unit.json": component("Unit"),
    "unit_extra_properties.json": component("Unit"),
    "unit_minimal.json": component("Unit"),
}
PAGES = {"inspections_page.json": "/inspections", "units_page.json": "/units"}


def test_every_fixture_is_covered() -> None:
    on_disk = {p.name for p in FIXTURES.glob("*.json")}
    assert on_disk == set(FIXTURE_SCHEMAS) | set(PAGES)


@pytest.mark.parametrize("name", sorted(FIXTURE_SCHEMAS))
def test_a_fixture_validates_against_its_component(name: str) -> None:
    check(document("v3"), FIXTURE_SCHEMAS[name], json.loads((FIXTURES / name).read_text()))


@pytest.mark.parametrize("name", sorted(PAGES))
def test_a_page_fixture_validates_against_its_answer(name: str) -> None:
    doc = document("v3")
    check(doc, answer(doc, PAGES[name]), json.loads((FIXTURES / name).read_text()))


def test_the_conformance_records_validate_too() -> None:
    """The flows' hand-made records, unknown members and values included."""
    flows = yaml.safe_load((ROOT / "tests" / "conformance" / "v3_flows.yaml").read_text())
    definitions = flows["definitions"]
    doc = document("v3")
    check(doc, component("Inspection"), definitions["unknown_inspection"])
    check(doc, component("Task"), definitions["unknown_task"])
    check(doc, component("Task"), definitions["task_without_completed_at"])


def test_a_known_member_that_breaks_its_shape_is_refused() -> None:
    """The fallback for unknown members does not swallow a broken known one."""
    doc = document("v3")
    broken = json.loads((FIXTURES / "inspection.json").read_text())
    broken["results"][0]["name"] = 5
    with pytest.raises(AssertionError):
        check(doc, component("Inspection"), broken)
