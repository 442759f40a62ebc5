import datetime as dt
import os

from inspection_client import ValidationError, v3

client = v3.Client(
    os.environ.get("INSPECTION_URL", "http://127.0.0.1:8080/v3"),
    v3.ApiKey(os.environ.get("INSPECTION_KEY_ID", "demo-key"), os.environ.get("INSPECTION_KEY_SECRET", "demo-secret")),
)

# Checked against the documented limits before it is sent; all violations at once.
unit = client.create_unit(v3.NewUnit(reference_number=f"A-{dt.datetime.now():%H%M%S%f}", make="Cat", year=2021))
print(f"created {unit.reference_number} ({unit.id})")

# Every inspection since New Year, page after page, paced under the rate limit.
since = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
for inspection in client.list_inspections(created_after=since, per_page=100):
    for result in inspection.results:
        if isinstance(result, v3.UnknownInspectionResult):
            print(f"{inspection.id}: a new kind of result, {result.tag}")
        elif isinstance(result, v3.ChecklistResult):
            print(f"{inspection.id}: {len(result.data)} fields")
    pdf = client.get_inspection_pdf(inspection.id)  # Accept: application/pdf; 202 waited out
    print(f"{inspection.id}: {len(pdf)} PDF bytes")

try:
    client.create_unit(v3.NewUnit(reference_number="B-1", vin="TOO-SHORT"))
except ValidationError as e:
    print([f"{v.path}: {v.message}" for v in e.violations])

client.close()
