import os

from inspection_client import v3

url = os.environ.get("INSPECTION_URL", "http://127.0.0.1:8080/v3")
with v3.Client(url, v3.ApiKey("demo-key", "demo-secret")) as client:
    unit = client.create_unit(v3.NewUnit(reference_number=f"A-{os.getpid()}", make="Cat"))
    print(f"created unit {unit.id}")
    for inspection in client.list_inspections(per_page=100):
        print(f"{inspection.id}, results: {len(inspection.results)}")
