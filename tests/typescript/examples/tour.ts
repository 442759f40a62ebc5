import { v3, ValidationError } from "inspection-client";

const client = new v3.Client(
  process.env["INSPECTION_URL"] ?? "http://127.0.0.1:8080/v3",
  new v3.ApiKey(process.env["INSPECTION_KEY_ID"] ?? "demo-key", process.env["INSPECTION_KEY_SECRET"] ?? "demo-secret"),
);

// Checked against the documented limits before it is sent; all violations at once.
const unit = await client.createUnit({ reference_number: `A-${Date.now()}`, make: "Cat", year: 2021 });
console.log(`created ${unit.reference_number} (${unit.id})`);

// Every inspection of the last week, page after page, paced under the rate limit.
const since = new Date(Date.now() - 7 * 86_400_000).toISOString();
for await (const inspection of client.listInspections({ created_after: since, per_page: 100 })) {
  for (const result of inspection.results) {
    if (result.$unknown) console.log(`${inspection.id}: a new kind of result, ${result.object}`);
    else if (result.object === "checklist") console.log(`${inspection.id}: ${result.data.length} fields`);
  }
  const pdf = await client.getInspectionPdf(inspection.id); // Accept: application/pdf; 202 waited out
  console.log(`${inspection.id}: ${pdf.length} PDF bytes`);
}

try {
  await client.createUnit({ reference_number: "B-1", vin: "TOO-SHORT" });
} catch (e) {
  if (e instanceof ValidationError) console.log(e.violations.map((v) => `${v.path}: ${v.message}`));
}
