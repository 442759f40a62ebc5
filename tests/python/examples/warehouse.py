"""The v3 interface's lists in DuckDB through dlt, then a question asked of them
(docs/warehouses.md). The base URL comes from dlt's config, the key from its secrets:
`.dlt/config.toml` and `.dlt/secrets.toml`, or the environment."""

import dlt

from inspection_client.dlt import v3_source

pipeline = dlt.pipeline(
    pipeline_name="inspection_v3",
    destination=dlt.destinations.duckdb("fleet_warehouse.duckdb"),
    dataset_name="inspection",
)
print(pipeline.run(v3_source()))

with pipeline.sql_client() as sql:
    damaged = sql.execute_sql(
        "SELECT unit__reference_number, count(*) FROM inspections "
        "WHERE damage_present GROUP BY 1 ORDER BY 1"
    )
for unit, inspections in damaged or []:
    print(f"{unit}: {inspections} inspections with damage")
