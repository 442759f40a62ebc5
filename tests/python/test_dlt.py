"""The dlt sources (``inspection_client.dlt``) end to end against the sandbox: every list
loaded into DuckDB and into a local PostgreSQL with each column typed as the spec says,
every record once with its nested rows equal to its arrays; a second run bringing exactly
what changed (a result removed included); a run killed with SIGKILL and run again; a run
cut short on purpose and resumed; the documents; the schema contract; the credentials kept
out of dlt's trace; and the package without the extra."""

from __future__ import annotations

import datetime as dt
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dlt
import duckdb
import httpx
import psycopg2  # type: ignore[import-untyped]
import pytest

from inspection_client import ClientOptions, legacy, v3 as v3_models
from inspection_client.dlt import legacy_source, v3_source
from inspection_client.dlt import legacy as legacy_module
from inspection_client.dlt import v3 as v3_module

from conformance.json_values import as_json
from dlt_support import (
    KEY,
    Postgres,
    by_root,
    fresh,
    instant,
    nested_counts,
    quiet_dlt,
    rows,
    sandbox,
    walk,
)

#: Each dlt data type as DuckDB and PostgreSQL declare it (a 32-bit whole number apart).
DUCKDB_TYPES = {"text": "VARCHAR", "bigint": "BIGINT", "bigint:32": "INTEGER", "bool": "BOOLEAN",
                "timestamp": "TIMESTAMP WITH TIME ZONE", "date": "DATE", "json": "JSON", "double": "DOUBLE"}
POSTGRES_TYPES = {"text": "character varying", "bigint": "bigint", "bigint:32": "integer", "bool": "boolean",
                  "timestamp": "timestamp with time zone", "date": "date", "json": "jsonb",
                  "double": "double precision"}
V3_TABLES = {"units": v3_module._UNITS, "inspections": v3_module._INSPECTIONS, "tasks": v3_module._TASKS,
             "workflows": v3_module._WORKFLOWS, "locations": v3_module._LOCATIONS, "users": v3_module._USERS,
             "user_groups": v3_module._USER_GROUPS}

LEGACY_TABLES = {"assets": legacy_module._ASSETS, "transactions": legacy_module._TRANSACTIONS,
                 "tasks": legacy_module._TASKS, "locations": legacy_module._LOCATIONS, "users": legacy_module._USERS}


@pytest.fixture(scope="module", autouse=True)
def dlt_env() -> Iterator[None]:
    """dlt's telemetry off and its home under ``target/``, for every test here."""
    saved = {k: os.environ.get(k) for k in quiet_dlt()}
    os.environ.update(quiet_dlt())
    yield
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def duckdb_pipeline(folder: Path, name: str = "fleet") -> dlt.Pipeline:
    return dlt.pipeline(
        name,
        destination=dlt.destinations.duckdb(str(folder / "warehouse.duckdb")),
        pipelines_dir=str(folder / "pipelines"),
        dataset_name="fleet",
    )


def v3(origin: str, **more: Any) -> Any:
    return v3_source(
        base_url=f"{origin}/v3",
        api_key_id="demo-key",
        api_key_secret="demo-secret",
        options=ClientOptions(rate_limit=None),
        **more,
    )


def expected_types(tables: dict[str, Any]) -> dict[tuple[str, str], str]:
    """Every column the spec types, by (table, column): its dlt type (``bigint:32`` for a
    32-bit one)."""
    out: dict[tuple[str, str], str] = {}
    for name, table in tables.items():
        groups = [(name, table.columns)] + [(n.name, n.columns) for n in table.nested]
        for table_name, columns in groups:
            for c in columns:
                kind = c["data_type"] + (":32" if c.get("precision") == 32 else "")
                out[(table_name, c["name"])] = kind
    return out


def destination_types(cursor: Any, schema: str) -> dict[tuple[str, str], str]:
    sql = "SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = %s"
    sql = sql.replace("%s", "?") if isinstance(cursor, duckdb.DuckDBPyConnection) else sql
    return {(t, c): d for t, c, d in rows(cursor, sql, schema) if not t.startswith("_dlt")}


def assert_typed_as_the_spec_says(
    cursor: Any, names: dict[str, str], tables: dict[str, Any], unlisted: set[tuple[str, str]]
) -> None:
    """Every column of the load is one the spec types, of the spec's type, dlt's own, or
    one of ``unlisted`` (a property the sandbox sends that the spec does not list: let in,
    its type dlt's); none is a variant."""
    expected = expected_types(tables)
    found = destination_types(cursor, "fleet")
    assert found, "no table was loaded"
    for (table, column), declared in found.items():
        assert "__v_" not in column, f"{table}.{column} is a variant column"
        if column.startswith("_dlt_") or (table, column) in unlisted:
            continue
        assert (table, column) in expected, f"{table}.{column} ({declared}) was inferred, not from the spec"
        assert declared == names[expected[(table, column)]], f"{table}.{column}: {declared}"
    assert {k for k in expected if k[0] in {t for t, _ in found}} <= set(found), "a typed column is missing"


def unlisted_v3(origin: str) -> set[tuple[str, str]]:
    """The properties the sandbox's v3 records carry that the spec does not list, by table."""
    out: set[tuple[str, str]] = set()
    for table, path, record in (("workflows", "/workflows", v3_models.Workflow),
                                ("units", "/units", v3_models.Unit), ("tasks", "/tasks", v3_models.Task),
                                ("inspections", "/inspections", v3_models.Inspection)):
        known = record._wire.known
        out.update((table, key) for r in walk(origin, path) for key in r if key not in known)
    return out


def assert_v3_tables_hold_the_sandbox(cursor: Any, origin: str) -> None:
    """Each v3 list's table holds each record the sandbox lists, once; each inspection's
    nested tables hold its arrays' elements, no more, no fewer."""
    for table, path in (("units", "/units"), ("tasks", "/tasks"), ("workflows", "/workflows"),
                        ("locations", "/locations"), ("users", "/users"), ("user_groups", "/user_groups")):
        listed = sorted(r["id"] for r in walk(origin, path))
        assert sorted(i for (i,) in rows(cursor, f"SELECT id FROM fleet.{table}")) == listed, table
    inspections = walk(origin, "/inspections")
    loaded = [i for (i,) in rows(cursor, "SELECT id FROM fleet.inspections")]
    assert sorted(loaded) == sorted(i["id"] for i in inspections)
    for nested in v3_module._INSPECTIONS.nested:
        counts = by_root(cursor, "fleet", nested.name)
        for inspection in inspections:
            assert counts[inspection["id"]] == nested_counts(inspection, nested.path), (table, inspection["id"])


def test_a_first_load_into_duckdb_holds_every_record_once_typed_as_the_spec_says() -> None:
    folder = fresh("first-load")
    box = sandbox("--inspections", "120")
    try:
        pipeline = duckdb_pipeline(folder)
        info = pipeline.run(v3(box.origin))
        assert not info.has_failed_jobs
        with duckdb.connect(str(folder / "warehouse.duckdb"), read_only=True) as db:
            assert_v3_tables_hold_the_sandbox(db, box.origin)
            assert_typed_as_the_spec_says(db, DUCKDB_TYPES, V3_TABLES, unlisted_v3(box.origin))
            # Values as the spec types them: instants, booleans, whole numbers, JSON kept whole.
            sent = {i["id"]: i for i in walk(box.origin, "/inspections")}
            for key, created, damage in rows(db, "SELECT id, created_at, damage_present FROM fleet.inspections"):
                assert created == instant(sent[key]["created_at"]) and damage == sent[key].get("damage_present")
            forms = rows(db, "SELECT data_json FROM fleet.inspections__results WHERE object = 'pdf_form'")
            assert forms and all(isinstance(f, str) and f.startswith("{") for (f,) in forms)
            (hours,) = rows(db, "SELECT max(hours) FROM fleet.units")[0]
            assert isinstance(hours, int)
        # The schema dlt keeps says the same.
        schema = pipeline.default_schema
        for (table, column), kind in expected_types(V3_TABLES).items():
            declared = schema.tables[table]["columns"][column]
            assert declared["data_type"] == kind.split(":")[0], (table, column)
        assert schema.tables["inspections"]["columns"]["id"]["primary_key"] is True
    finally:
        box.stop()


def test_a_second_run_brings_exactly_what_changed() -> None:
    """New inspections, a result removed from a recent one, a task renamed, a unit taken
    off the list: the second run reads the inspections within the lookback and the tasks
    updated since (a second before), and the tables end as the sandbox's lists."""
    folder = fresh("second-run")
    box = sandbox("--inspections", "30")
    try:
        recent = new_inspection(box)
        pipeline = duckdb_pipeline(folder)
        pipeline.run(v3(box.origin))
        newest = max(instant(i["created_at"]) for i in walk(box.origin, "/inspections"))
        changed_since = max(instant(t["updated_at"]) for t in walk(box.origin, "/tasks"))
        box.control("POST", "/_sandbox/advance?seconds=5")
        added = [new_inspection(box) for _ in range(2)]
        box.control("DELETE", f"/_sandbox/v3/inspections/{recent['id']}/results/0")
        renamed = rename_a_task(box.origin)
        gone = walk(box.origin, "/units")[0]["id"]
        box.control("DELETE", f"/_sandbox/v3/units/{gone}")

        info = pipeline.run(v3(box.origin))
        second = info.loads_ids[-1]
        with duckdb.connect(str(folder / "warehouse.duckdb"), read_only=True) as db:
            assert_v3_tables_hold_the_sandbox(db, box.origin)
            # Exactly the inspections within the lookback of the first run's newest, and the
            # tasks updated since its newest update (less a second), were read again.
            lookback = newest - dt.timedelta(days=7)
            inspections = walk(box.origin, "/inspections")
            want = sorted(i["id"] for i in inspections if instant(i["created_at"]) >= lookback)
            got = rows(db, "SELECT id FROM fleet.inspections WHERE _dlt_load_id = ? ORDER BY id", second)
            assert [i for (i,) in got] == want and {a["id"] for a in added} <= set(want)
            assert len(want) < len(inspections), "every inspection was read again"
            tasks = walk(box.origin, "/tasks")
            want = sorted(t["id"] for t in tasks if instant(t["updated_at"]) >= changed_since - dt.timedelta(seconds=1))
            got = rows(db, "SELECT id FROM fleet.tasks WHERE _dlt_load_id = ? ORDER BY id", second)
            assert [i for (i,) in got] == want and renamed in want and len(want) < len(tasks)
            (name,) = rows(db, "SELECT name FROM fleet.tasks WHERE id = ?", renamed)[0]
            assert name == "Renamed by the office"
            assert rows(db, "SELECT count(*) FROM fleet.units WHERE id = ?", gone)[0][0] == 0
            # The removed result left no row, nor did its fields or their items.
            results = by_root(db, "fleet", "inspections__results")[recent["id"]]
            assert results == len(recent["results"]) - 1
    finally:
        box.stop()


def new_inspection(box: Any) -> dict[str, Any]:
    """A new inspection, created now by the sandbox's control: its JSON."""
    made = box.control("POST", "/_sandbox/v3/inspections")
    assert isinstance(made, dict)
    return made


def rename_a_task(origin: str) -> str:
    """Renames a task assigned to a user, through the API; its id."""
    task = next(t for t in walk(origin, "/tasks") if isinstance(t.get("assignee"), dict) and t["assignee"].get("username"))
    body = {"name": "Renamed by the office", "reference_number": task["unit"]["reference_number"],
            "due_by": task["due_by"], "assignee_username": task["assignee"]["username"]}
    with httpx.Client(headers=KEY, trust_env=False) as http:
        http.patch(f"{origin}/v3/tasks/{task['id']}", json=body).raise_for_status()
    key: str = task["id"]
    return key


def run_in_a_process(url: str, folder: Path, *flags: str, kill_after: tuple[str, float] | None = None) -> str:
    """``dlt_run.py`` in a process of its own: its output; with ``kill_after`` (a step's
    name and seconds), SIGKILLed that long after it says the step starts."""
    program = Path(__file__).with_name("dlt_run.py")
    env = {**os.environ, **quiet_dlt()}
    child = subprocess.Popen([sys.executable, str(program), url, str(folder), *flags],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    said: list[str] = []
    assert child.stdout is not None
    if kill_after is not None:
        step, seconds = kill_after
        for line in child.stdout:
            said.append(line)
            if line.strip() == step:
                break
        try:
            child.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            child.send_signal(signal.SIGKILL)
    out, err = child.communicate(timeout=120)
    said.append(out)
    text = "".join(said)
    if kill_after is None:
        assert child.returncode == 0, f"{text}{err}"
    return text


@pytest.mark.parametrize("seconds", [0.3])
def test_a_run_killed_with_sigkill_then_run_again_holds_every_record_once(seconds: float) -> None:
    """Killed while extracting (a first load: nothing kept yet) and again while loading
    (a package left to finish), then run again: the first run after a kill finishes the
    package (dlt's rule), the next loads anew: every record once, nested rows whole."""
    folder = fresh(f"killed-{seconds}")
    box = sandbox("--inspections", "400")
    try:
        url = f"{box.origin}/v3"
        first = run_in_a_process(url, folder, "--pace", "3", kill_after=("extract", 1.2))
        assert "done" not in first and "normalize" not in first, first
        second = run_in_a_process(url, folder, kill_after=("load", seconds))
        assert "load" in second and "done" not in second, second
        run_in_a_process(url, folder, "--run")
        run_in_a_process(url, folder, "--run")
        with duckdb.connect(str(folder / "warehouse.duckdb"), read_only=True) as db:
            for table in ("units", "inspections", "tasks"):
                (total, distinct), = rows(db, f"SELECT count(*), count(DISTINCT id) FROM fleet.{table}")
                assert total == distinct, table
            inspections = walk(box.origin, "/inspections")
            assert sorted(i for (i,) in rows(db, "SELECT id FROM fleet.inspections")) == sorted(i["id"] for i in inspections)
            for nested in v3_module._INSPECTIONS.nested:
                counts = by_root(db, "fleet", nested.name)
                assert all(counts[i["id"]] == nested_counts(i, nested.path) for i in inspections)
    finally:
        box.stop()


def test_a_run_cut_short_by_add_limit_goes_on_where_it_stopped_fetching_no_page_twice() -> None:
    """Two pages a run: each run loads its pages and keeps where the walk goes on; the
    walk's pages are each fetched once, and its watermark kept only once it ends."""
    folder = fresh("add-limit")
    box = sandbox("--inspections", "450")
    try:
        pipeline = duckdb_pipeline(folder)
        box.control("DELETE", "/_sandbox/requests")
        counts = []
        for _ in range(10):
            pipeline.run(v3(box.origin).with_resources("inspections").add_limit(2))
            with duckdb.connect(str(folder / "warehouse.duckdb"), read_only=True) as db:
                counts.append(rows(db, "SELECT count(*) FROM fleet.inspections")[0][0])
            state = pipeline.state["sources"]["inspection_client_v3"]["resources"]["inspections"]
            if "inspection_walk" not in state:
                break
            assert "last_value" not in state.get("incremental", {}).get("created_at", {}) or not \
                state["incremental"]["created_at"]["last_value"], "the watermark moved mid-walk"
        assert counts == [200, 400, 453], counts
        assert state["incremental"]["created_at"]["last_value"]
        asked = box.control("GET", "/_sandbox/requests")
        assert isinstance(asked, list)
        pages = [f"{r['path']}?{r.get('query', '')}" for r in asked if isinstance(r, dict) and r["path"] == "/v3/inspections"]
        assert len(pages) == 5 and len(set(pages)) == 5, pages
    finally:
        box.stop()


def test_rows_a_resumed_load_wrote_twice_are_removed_by_the_next_run() -> None:
    """A load resumed after a crash can write a merged table's rows twice (dlt's loader):
    the next run removes the copies, in records it does not read again too."""
    folder = fresh("copies")
    box = sandbox("--inspections", "60")
    try:
        pipeline = duckdb_pipeline(folder)
        pipeline.run(v3(box.origin))
        oldest = min(walk(box.origin, "/inspections"), key=lambda i: instant(i["created_at"]))["id"]
        with duckdb.connect(str(folder / "warehouse.duckdb")) as db:
            db.execute("INSERT INTO fleet.inspections SELECT * FROM fleet.inspections WHERE id = ?", [oldest])
            assert rows(db, "SELECT count(*) FROM fleet.inspections WHERE id = ?", oldest)[0][0] == 2
        pipeline.run(v3(box.origin))
        with duckdb.connect(str(folder / "warehouse.duckdb"), read_only=True) as db:
            (total, distinct), = rows(db, "SELECT count(*), count(DISTINCT id) FROM fleet.inspections")
            assert total == distinct
            (loaded,) = rows(db, "SELECT _dlt_load_id FROM fleet.inspections WHERE id = ?", oldest)[0]
            assert loaded == pipeline.list_completed_load_packages()[0], "the record was read again"
    finally:
        box.stop()


def test_the_legacy_source_logs_in_with_credentials_from_dlt_secrets_kept_out_of_its_trace(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    folder = fresh("legacy")
    box = sandbox("--legacy-transactions", "40")
    try:
        section = "SOURCES__INSPECTION_CLIENT_LEGACY__"
        monkeypatch.setenv(section + "BASE_URL", box.origin)
        monkeypatch.setenv(section + "USERNAME", "manager@example.com")
        monkeypatch.setenv(section + "PASSWORD", "manager-pass")
        pipeline = duckdb_pipeline(folder, "legacy")
        pipeline.run(legacy_source(options=ClientOptions(rate_limit=None)))
        client = legacy.Client.login(box.origin, legacy.AuthenticateRequest.from_json(
            {"user": {"username": "manager@example.com", "password": "manager-pass"}}))
        with client, duckdb.connect(str(folder / "warehouse.duckdb"), read_only=True) as db:
            for table, listed in (("assets", client.list_assets()), ("transactions", client.list_transactions()),
                                  ("tasks", client.list_tasks()), ("locations", client.list_locations()),
                                  ("users", client.list_users())):
                want = sorted(str(r.id) for r in listed)
                assert sorted(str(i) for (i,) in rows(db, f"SELECT id FROM fleet.{table}")) == want, table
            # Every column the spec types has its type, in the tables the spec makes (an array
            # below a nested record included: `assets__transaction__photos`), no variant.
            expected = expected_types(LEGACY_TABLES)
            found = destination_types(db, "fleet")
            assert {t for t, _ in found} <= {t for t, _ in expected}, sorted({t for t, _ in found})
            for (table, column), declared in found.items():
                assert "__v_" not in column
                if (table, column) in expected:
                    assert declared == DUCKDB_TYPES[expected[(table, column)]], (table, column)
            assert found[("transactions", "created_at")] == "TIMESTAMP WITH TIME ZONE"
        # dlt's trace names the secrets it resolved, never their values.
        trace = pipeline.last_trace
        assert trace is not None
        assert "manager-pass" not in f"{trace}{trace.asdict()}"
        resolved = {t.key: t for t in trace.resolved_config_values}
        assert resolved["password"].is_secret_hint and resolved["password"].value is None
        assert resolved["username"].is_secret_hint and resolved["base_url"].value == box.origin
    finally:
        box.stop()


@pytest.fixture(scope="module")
def postgres() -> Iterator[Postgres]:
    server = Postgres("dlt")
    try:
        yield server
    finally:
        server.stop()


def test_a_load_into_postgresql_is_typed_as_the_spec_says_and_merges_a_shorter_array(postgres: Postgres) -> None:
    folder = fresh("postgres")
    box = sandbox("--inspections", "40")
    admin = psycopg2.connect(postgres.url())
    admin.autocommit = True
    with admin.cursor() as c:
        c.execute("DROP DATABASE IF EXISTS fleet_dlt")
        c.execute("CREATE DATABASE fleet_dlt")
    admin.close()
    try:
        recent = new_inspection(box)
        pipeline = dlt.pipeline("pg", destination=dlt.destinations.postgres(postgres.url("fleet_dlt")),
                                pipelines_dir=str(folder / "pipelines"), dataset_name="fleet")
        pipeline.run(v3(box.origin))
        box.control("DELETE", f"/_sandbox/v3/inspections/{recent['id']}/results/1")
        pipeline.run(v3(box.origin))
        with psycopg2.connect(postgres.url("fleet_dlt")) as db, db.cursor() as c:
            assert_v3_tables_hold_the_sandbox(c, box.origin)
            assert_typed_as_the_spec_says(c, POSTGRES_TYPES, V3_TABLES, unlisted_v3(box.origin))
            assert by_root(c, "fleet", "inspections__results")[recent["id"]] == len(recent["results"]) - 1
            c.execute("SELECT count(*), count(DISTINCT id) FROM fleet.inspections")
            total, distinct = c.fetchone()
            assert total == distinct
    finally:
        box.stop()


def test_documents_are_saved_whole_from_their_links_then_kept() -> None:
    folder = fresh("documents")
    box = sandbox("--inspections", "12")
    try:
        pipeline = duckdb_pipeline(folder)
        saved = folder / "documents"
        source = v3(box.origin, documents=str(saved)).with_resources("inspections", "inspections_documents")
        pipeline.run(source)
        inspections = walk(box.origin, "/inspections")
        files = sorted(p.name for p in saved.iterdir())
        assert files == sorted(f"{i['id']}.pdf" for i in inspections)
        for path in saved.iterdir():
            data = path.read_bytes()
            assert data.startswith(b"%PDF-") and b"%%EOF" in data[-1024:]
        stats = box.control("GET", "/_sandbox/stats")
        assert isinstance(stats, dict) and stats["storage_requests"] == len(inspections)
        assert stats["storage_with_credentials"] == 0
        with duckdb.connect(str(folder / "warehouse.duckdb"), read_only=True) as db:
            got = rows(db, "SELECT id, fetched_from, bytes FROM fleet.inspections_documents ORDER BY id")
            assert [(i, how) for i, how, _ in got] == sorted((i["id"], "link") for i in inspections)
            assert all(size == (saved / f"{i}.pdf").stat().st_size for i, _, size in got)
        # The next run reads the newest again: a link that fails gives the API's PDF; a
        # document saved already is kept, not fetched.
        box.control("POST", "/_sandbox/links", {"mode": "html"})
        newest = max(inspections, key=lambda i: instant(i["created_at"]))["id"]
        (saved / f"{newest}.pdf").unlink()
        pipeline.run(v3(box.origin, documents=str(saved)).with_resources("inspections", "inspections_documents"))
        with duckdb.connect(str(folder / "warehouse.duckdb"), read_only=True) as db:
            how = dict(rows(db, "SELECT id, fetched_from FROM fleet.inspections_documents"))
        assert how[newest] == "api"
        assert (saved / f"{newest}.pdf").read_bytes().startswith(b"%PDF-")
        assert not list(saved.glob("*.part"))
        box.control("POST", "/_sandbox/links", {"mode": "ok"})
        pipeline.run(v3(box.origin, documents=str(saved)).with_resources("inspections", "inspections_documents"))
        with duckdb.connect(str(folder / "warehouse.duckdb"), read_only=True) as db:
            assert rows(db, "SELECT fetched_from FROM fleet.inspections_documents WHERE id = ?", newest) == [("kept",)]
        again = box.control("GET", "/_sandbox/stats")
        assert isinstance(again, dict) and again["storage_requests"] == stats["storage_requests"] + 1
    finally:
        box.stop()


def test_unknown_properties_come_in_as_columns_and_every_column_keeps_its_type() -> None:
    """The contract: new columns let in (a property, a union member the spec does not
    know, under its tag's name), each column's type kept: a value that changes type is
    left out of its row, never a variant column."""
    folder = fresh("contract")
    box = sandbox("--empty")
    try:
        unknown = {"id": "ins_x", "created_at": "2026-12-01T10:00:00Z", "reviewed_by": "ops", "score": 7,
                   "results": [{"object": "signature_pad", "name": "Pad", "version": "three"}]}
        answer(box, unknown)
        pipeline = duckdb_pipeline(folder)
        pipeline.run(v3(box.origin).with_resources("inspections"))
        with duckdb.connect(str(folder / "warehouse.duckdb"), read_only=True) as db:
            assert rows(db, "SELECT reviewed_by, score FROM fleet.inspections") == [("ops", 7)]
            got = rows(db, "SELECT object, name, version, signature_pad__name, signature_pad__version "
                           "FROM fleet.inspections__results")
            assert got == [("signature_pad", None, None, "Pad", "three")]
        # An unlisted property whose type changes: the value left out, the row loaded.
        answer(box, {**unknown, "id": "ins_y", "created_at": "2026-12-02T10:00:00Z", "score": "seven"})
        pipeline.run(v3(box.origin).with_resources("inspections"))
        with duckdb.connect(str(folder / "warehouse.duckdb"), read_only=True) as db:
            assert rows(db, "SELECT id, score FROM fleet.inspections ORDER BY id") == [("ins_x", 7), ("ins_y", None)]
        columns = [c for t in pipeline.default_schema.data_tables() for c in t["columns"]]
        assert not any("__v_" in c for c in columns)
        assert pipeline.default_schema.tables["inspections__results"]["columns"]["version"]["data_type"] == "bigint"
    finally:
        box.stop()


def answer(box: Any, inspection: dict[str, Any]) -> None:
    """The sandbox answers its next list of inspections with this one alone."""
    page = {"data": [inspection], "paging": {"next": None, "cursor": None}}
    box.control("POST", "/_sandbox/script", as_json({"method": "GET", "path": "/v3/inspections*", "body": page}))


def test_the_package_without_the_extra_imports_no_dlt_and_says_how_to_get_it() -> None:
    program = (
        "import sys, importlib.metadata as m\n"
        "import inspection_client, inspection_client.v3, inspection_client.legacy\n"
        "assert 'dlt' not in sys.modules, 'dlt imported'\n"
        "sys.modules['dlt'] = None\n"
        "try:\n"
        "    import inspection_client.dlt\n"
        "except ImportError as e:\n"
        "    print(e)\n"
        "print(sorted(m.requires('inspection-client')))\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    first, requires = done.stdout.splitlines()
    assert first == 'inspection_client.dlt needs dlt: pip install "inspection-client[dlt]"'
    assert requires == str(sorted(['dlt<2,>=1.31; extra == "dlt"', "httpx<1,>=0.27"]))


def test_the_documented_pipeline_runs_as_written() -> None:
    """docs/warehouses.md's pipeline (tests/python/examples/warehouse.py, quoted there
    word for word), its credentials from the environment as dlt reads them."""
    folder = fresh("example")
    box = sandbox()
    try:
        section = "SOURCES__INSPECTION_CLIENT_V3__"
        env = {**os.environ, **quiet_dlt(), "DLT_DATA_DIR": str(folder / "dlt"),
               section + "BASE_URL": f"{box.origin}/v3", section + "API_KEY_ID": "demo-key",
               section + "API_KEY_SECRET": "demo-secret"}
        example = Path(__file__).with_name("examples") / "warehouse.py"
        done = subprocess.run([sys.executable, str(example)], cwd=folder, env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert "is LOADED and contains no failed jobs" in done.stdout
        assert "EX-0117: 1 inspections with damage" in done.stdout, done.stdout
    finally:
        box.stop()


def test_each_nested_tables_hints_reach_the_table_dlt_makes_of_its_rows() -> None:
    """dlt reads a nested table's hint by its path, a table name per element (an array
    below a nested record is two): each hint must name the table and the parent dlt makes
    for the rows, or the rows' columns would be inferred in a table of their own."""
    naming = dlt.Schema("names").naming
    for source, tables in (
        (v3_source(base_url="https://api.example.test/v3", api_key_id="k", api_key_secret="s"), V3_TABLES),
        (legacy_source(base_url="https://api.example.test", username="u", password="p"), LEGACY_TABLES),
    ):
        for name, table in tables.items():
            made = source.resources[name].compute_nested_table_schemas(name, naming)
            assert sorted((t["name"], t.get("parent")) for t in made) == sorted((n.name, n.parent) for n in table.nested)
            for nested in table.nested:
                # The name the normalizer gives the rows: the parent's, then the path below it.
                below = nested.name.removeprefix(nested.parent + "__").split("__")
                assert naming.shorten_fragments(nested.parent, *below) == nested.name
    assert any(len(n.path) == 2 and n.parent == "assets" for n in LEGACY_TABLES["assets"].nested)


def test_two_interfaces_are_refused_one_dataset_where_their_tables_share_names() -> None:
    """v3 and legacy both have `tasks`, `locations` and `users`: loaded into one dataset,
    one would replace or merge into the other's. The second is refused before it sends a
    request, naming the tables; in a dataset of its own it loads."""
    folder = fresh("two-interfaces")
    box = sandbox()
    try:
        pipeline = duckdb_pipeline(folder)
        pipeline.run(v3(box.origin).with_resources("units", "tasks"))
        legacy = legacy_source(base_url=box.origin, username="manager@example.com", password="manager-pass",
                               options=ClientOptions(rate_limit=None))
        box.control("DELETE", "/_sandbox/requests")
        with pytest.raises(Exception, match="both make the tables tasks in the dataset fleet"):
            pipeline.run(legacy.with_resources("tasks"))
        asked = box.control("GET", "/_sandbox/requests")
        assert asked == [], "the refused source sent requests"
        apart = dlt.pipeline("legacy", destination=dlt.destinations.duckdb(str(folder / "legacy.duckdb")),
                             pipelines_dir=str(folder / "pipelines-legacy"), dataset_name="fleet_legacy")
        apart.run(legacy_source(base_url=box.origin, username="manager@example.com", password="manager-pass",
                                options=ClientOptions(rate_limit=None)).with_resources("tasks"))
    finally:
        box.stop()


def test_the_shared_client_is_made_on_first_use_once_and_closed_with_its_source() -> None:
    import gc

    from inspection_client._runtime.dlt_source import Shared

    class Client:
        made = 0
        closed = 0

        def __init__(self) -> None:
            Client.made += 1

        def close(self) -> None:
            Client.closed += 1

    shared = Shared(Client)
    assert Client.made == 0
    assert shared.client() is shared.client() and Client.made == 1
    del shared
    gc.collect()
    assert Client.closed == 1
