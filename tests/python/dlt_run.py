"""A pipeline run in a process of its own, which a test kills (SIGKILL) part-way: the v3
source into DuckDB, step by step, saying on stdout which step starts (``extract``,
``normalize``, ``load``) so the test can choose when to kill it; or, with ``--run``, one
``pipeline.run`` (which first finishes what a killed run left, then loads anew).

    python dlt_run.py URL FOLDER [--pace N] [--run]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import dlt

from inspection_client import ClientOptions, RateLimit
from inspection_client.dlt import v3_source


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("folder", type=Path)
    parser.add_argument("--pace", type=int, help="pages a second (none: no pacing)")
    parser.add_argument("--run", action="store_true", help="one pipeline.run")
    args = parser.parse_args()
    pace = None if args.pace is None else RateLimit(args.pace, 1.0)
    source = v3_source(
        base_url=args.url,
        api_key_id="demo-key",
        api_key_secret="demo-secret",
        options=ClientOptions(rate_limit=pace),
    ).with_resources("units", "inspections", "tasks")
    pipeline = dlt.pipeline(
        "killed",
        destination=dlt.destinations.duckdb(str(args.folder / "warehouse.duckdb")),
        pipelines_dir=str(args.folder / "pipelines"),
        dataset_name="fleet",
    )
    if args.run:
        pipeline.run(source)
    else:
        for step, call in (
            ("extract", lambda: pipeline.extract(source)),
            ("normalize", pipeline.normalize),
            ("load", pipeline.load),
        ):
            print(step, flush=True)
            call()
    print("done", flush=True)


if __name__ == "__main__":
    main()
