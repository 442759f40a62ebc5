"""The inspections of one sandbox (its rate limit off) loaded three ways, in alternated
rounds of one run, each a first load into a fresh destination: the generated dlt source
(``inspection_client.dlt``) and dlt's own ``rest_api`` source configured by hand for the
same list, both into DuckDB, and ``inspection sync v3 --only inspections`` into SQLite.
Records a second (the median round), and the number of columns each load ends with whose
type differs from the spec's (variant columns included).

    python tests/python/bench/dlt_load.py SANDBOX INSPECTION [--records N] [--rounds R] [--quick]

prints one JSON line (the last); the sandbox holds its demo fleet and N generated
inspections (2,000 unless given); ``--quick`` (CI) loads 100 once, for no figure.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("RUNTIME__DLTHUB_TELEMETRY", "false")
os.environ.setdefault("RUNTIME__LOG_LEVEL", "ERROR")  # rest_api warns of each column it could not type

import dlt  # noqa: E402
import duckdb  # noqa: E402
import httpx  # noqa: E402
from dlt.sources.rest_api import rest_api_source  # noqa: E402

from inspection_client import ClientOptions  # noqa: E402
from inspection_client.dlt import v3 as generated  # noqa: E402
from inspection_client.dlt import v3_source  # noqa: E402

KEY = {"api-key-id": "demo-key", "api-key-secret": "demo-secret"}


def start_sandbox(binary: str, records: int) -> tuple[subprocess.Popen[str], str]:
    child = subprocess.Popen(
        [binary, "--addr", "127.0.0.1:0", "--rate-limit", "off", "--inspections", str(records)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    assert child.stdout is not None
    first = child.stdout.readline()
    url = first.split()[-1]
    return child, url


def listed(url: str) -> int:
    """How many inspections the sandbox lists (its demo fleet's and the generated ones)."""
    total = 0
    next_url: str | None = f"{url}/inspections?per_page=100"
    with httpx.Client(headers=KEY, trust_env=False) as http:
        while next_url:
            page = http.get(next_url).raise_for_status().json()
            total += len(page["data"])
            next_url = page["paging"].get("next")
    return total


def with_generated(url: str, folder: Path) -> dlt.Pipeline:
    pipeline = dlt.pipeline("generated", destination=dlt.destinations.duckdb(str(folder / "g.duckdb")),
                            pipelines_dir=str(folder / "p"), dataset_name="fleet")
    source = v3_source(base_url=url, api_key_id="demo-key", api_key_secret="demo-secret",
                       options=ClientOptions(rate_limit=None)).with_resources("inspections")
    pipeline.run(source)
    return pipeline


def with_rest_api(url: str, folder: Path) -> dlt.Pipeline:
    """dlt's generic source as its docs show it for a cursor API: the list, its records
    under ``data``, the next page at ``paging.next``, merged by ``id``."""
    config: Any = {
        "client": {"base_url": f"{url}/", "headers": KEY,
                   "paginator": {"type": "json_link", "next_url_path": "paging.next"}},
        "resources": [{
            "name": "inspections",
            "primary_key": "id",
            "write_disposition": "merge",
            "endpoint": {"path": "inspections", "params": {"per_page": 100}, "data_selector": "data"},
        }],
    }
    pipeline = dlt.pipeline("rest_api", destination=dlt.destinations.duckdb(str(folder / "r.duckdb")),
                            pipelines_dir=str(folder / "p"), dataset_name="fleet")
    pipeline.run(rest_api_source(config))
    return pipeline


def with_sync(url: str, folder: Path, tool: str) -> Path:
    database = folder / "fleet.db"
    env = {**os.environ, "INSPECTION_V3_BASE_URL": url, "INSPECTION_V3_API_KEY_ID": "demo-key",
           "INSPECTION_V3_API_KEY_SECRET": "demo-secret", "INSPECTION_CONFIG_DIR": "/nonexistent"}
    subprocess.run([tool, "--quiet", "--rate-limit", "off", "sync", "v3", str(database), "--only", "inspections"],
                   env=env, check=True, capture_output=True)
    return database


def spec_types() -> dict[tuple[str, str], str]:
    """Each column the spec types in the inspections' tables, by dlt's names: its dlt type."""
    table = generated._INSPECTIONS
    out = {("inspections", str(c["name"])): str(c["data_type"]) for c in table.columns}
    for nested in table.nested:
        out.update({(nested.name, str(c["name"])): str(c["data_type"]) for c in nested.columns})
    return out


def dlt_missing(pipeline: dlt.Pipeline) -> list[str]:
    """The spec's columns a dlt load never made (a map flattened aside)."""
    made = {(str(t["name"]), c) for t in pipeline.default_schema.data_tables() for c in t["columns"]}
    flattened = {(t, c.split("__")[0]) for t, c in made if "__" in c}
    return [
        f"{t}.{c}"
        for (t, c), kind in spec_types().items()
        if (t, c) not in made and not (kind == "json" and (t, c.removesuffix("_json")) in flattened)
    ]


def sync_names() -> dict[tuple[str, str], str]:
    """The spec's columns by the sync's names (`_` joins; a map keeps its own name, which
    the dlt source's rows give `data_json` beside the nested table `data`)."""
    out = {}
    for (t, c), kind in spec_types().items():
        if kind == "json":
            c = c.removesuffix("_json")
        out[(t.replace("__", "_"), c.replace("__", "_"))] = kind
    return out


def sync_missing(database: Path) -> list[str]:
    with sqlite3.connect(database) as db:
        tables = [t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        made = {(t, c) for t in tables for _, c, *_ in db.execute(f'PRAGMA table_info("{t}")')}
    return [f"{t}.{c}" for (t, c) in sync_names() if (t, c) not in made]


def dlt_differing(pipeline: dlt.Pipeline) -> list[str]:
    """The columns of a dlt load whose type is not the spec's: of another type, a variant
    (``__v_``) of one, or a map the spec keeps as JSON flattened into columns of their own
    (``data__customer``: the form's map, which the generated source keeps in ``data_json``)."""
    want = spec_types()
    maps = {(t, c.removesuffix("_json")) for (t, c), k in want.items() if k == "json"}
    out = []
    for table in pipeline.default_schema.data_tables():
        name = str(table["name"])
        for column, schema in table["columns"].items():
            if column.startswith("_dlt_"):
                continue
            base = column.split("__v_")[0]
            kind = want.get((name, base))
            if kind is not None and (schema.get("data_type") != kind or "__v_" in column):
                out.append(f"{name}.{column}: {schema.get('data_type')}, not {kind}")
            elif kind is None and (name, column.split("__")[0]) in maps:
                out.append(f"{name}.{column}: {schema.get('data_type')}, a key of a map the spec keeps as json")
    return out


#: How `inspection sync` declares each of the spec's types in SQLite (docs/sync.md: an
#: instant as ISO 8601 text in UTC, JSON as its text).
SQLITE = {"text": "TEXT", "bigint": "INTEGER", "bool": "BOOLEAN", "timestamp": "TEXT", "date": "TEXT",
          "json": "TEXT", "double": "REAL"}


def sync_differing(database: Path) -> list[str]:
    """The sync's columns whose declared type is not the spec's (its names: `_` joins)."""
    want = sync_names()
    out = []
    with sqlite3.connect(database) as db:
        tables = [t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            for _, column, declared, *_ in db.execute(f'PRAGMA table_info("{table}")'):
                kind = want.get((table, column))
                if kind is not None and declared.upper() != SQLITE[kind]:
                    out.append(f"{table}.{column}: {declared}, not {kind}")
    return out


def timed(load: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    out = load()
    return time.perf_counter() - start, out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sandbox")
    parser.add_argument("tool")
    parser.add_argument("--records", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    generated_count, rounds = (100, 1) if args.quick else (args.records, args.rounds)
    child, url = start_sandbox(args.sandbox, generated_count)
    records = listed(url)
    work = Path(tempfile.mkdtemp(prefix="dlt-load-"))
    seconds: dict[str, list[float]] = {"generated": [], "rest_api": [], "sync": []}
    last: dict[str, Any] = {}
    try:
        loads: dict[str, Callable[[Path], Any]] = {
            "generated": lambda f: with_generated(url, f),
            "rest_api": lambda f: with_rest_api(url, f),
            "sync": lambda f: with_sync(url, f, args.tool),
        }
        order = list(loads)
        for n in range(rounds):
            # Alternated: each round starts with the next one.
            for name in order[n % 3:] + order[: n % 3]:
                folder = work / f"{name}-{n}"
                folder.mkdir()
                took, last[name] = timed(lambda: loads[name](folder))
                seconds[name].append(took)
        differing = {
            "generated": dlt_differing(last["generated"]),
            "rest_api": dlt_differing(last["rest_api"]),
            "sync": sync_differing(last["sync"]),
        }
        missing = {
            "generated": dlt_missing(last["generated"]),
            "rest_api": dlt_missing(last["rest_api"]),
            "sync": sync_missing(last["sync"]),
        }
        with duckdb.connect(str(work / f"rest_api-{rounds - 1}" / "r.duckdb"), read_only=True) as db:
            (loaded,) = db.execute("SELECT count(*) FROM fleet.inspections").fetchone() or (0,)
        assert loaded == records, f"rest_api loaded {loaded} of {records}"
    finally:
        child.terminate()
        child.wait()
        shutil.rmtree(work, ignore_errors=True)
    medians = {k: statistics.median(v) for k, v in seconds.items()}
    print(json.dumps({
        "records": records,
        "rounds": rounds,
        "seconds": seconds,
        "records_per_second": {k: records / v for k, v in medians.items()},
        "differing_columns": {k: len(v) for k, v in differing.items()},
        "differing": differing,
        "missing_columns": {k: len(v) for k, v in missing.items()},
        "missing": missing,
        "python": sys.version.split()[0],
        "dlt": dlt.__version__,
    }))


if __name__ == "__main__":
    main()
