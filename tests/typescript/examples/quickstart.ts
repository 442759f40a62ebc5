import { v3 } from "inspection-client";

const url = process.env["INSPECTION_URL"] ?? "http://127.0.0.1:8080/v3";
const client = new v3.Client(url, new v3.ApiKey("demo-key", "demo-secret"));
const unit = await client.createUnit({ reference_number: `A-${Date.now()}`, make: "Cat" });
console.log(`created unit ${unit.id}`);
for await (const inspection of client.listInspections({ per_page: 100 })) {
  console.log(`${inspection.id}, results: ${inspection.results.length}`);
}
