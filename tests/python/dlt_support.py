"""What the dlt sources' tests share: a sandbox of their own, pipelines under
``target/dlt-tests/``, a local PostgreSQL server, and the sandbox's records as the tables a
load must end with (read from its JSON, apart from the source's own converters)."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import socket
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

from conformance import ROOT
from conformance.sandbox import Sandbox
from conformance.scenarios import SandboxSpec

#: Where every pipeline, database and document folder of these tests goes.
WORK = ROOT / "target" / "dlt-tests"

KEY = {"api-key-id": "demo-key", "api-key-secret": "demo-secret"}


def quiet_dlt() -> dict[str, str]:
    """The environment dlt runs in here: telemetry off, its home under ``target/``."""
    return {
        "RUNTIME__DLTHUB_TELEMETRY": "false",
        "DLT_DATA_DIR": str(WORK / "dlt-home"),
        "RUNTIME__LOG_LEVEL": "WARNING",
    }


def fresh(name: str) -> Path:
    """An empty folder of ``WORK`` for one test."""
    folder = WORK / name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


def sandbox(*args: str) -> Sandbox:
    """A sandbox of the test's own (its records change), with no rate limit unless asked."""
    flags = args if "--rate-limit" in args else (*args, "--rate-limit", "off")
    return Sandbox(SandboxSpec(args=tuple(flags)))


def walk(origin: str, path: str, items: str = "data") -> list[dict[str, Any]]:
    """Every record of a v3 list as the sandbox sends it (its JSON), page after page."""
    out: list[dict[str, Any]] = []
    url: str | None = f"{origin}/v3{path}?per_page=100"
    with httpx.Client(headers=KEY, timeout=30, trust_env=False) as http:
        while url is not None:
            page = http.get(url).raise_for_status().json()
            out.extend(page[items])
            url = page.get("paging", {}).get("next")
    return out


def nested_counts(record: dict[str, Any], path: Sequence[str]) -> int:
    """How many elements a nested table holds for ``record``: the arrays at ``path``, each
    segment an array's property (``results``, then ``data`` in each result, ...); an
    element that is not an object (a map where another member has an array) holds none."""
    level: list[Any] = [record]
    for key in path:
        below: list[Any] = []
        for element in level:
            value = element.get(key) if isinstance(element, dict) else None
            if isinstance(value, list):
                below.extend(value)
        level = below
    return len(level)


def instant(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Postgres:
    """A PostgreSQL server for one test module: Debian's binaries, a data folder under
    ``target/postgres/`` (the temporary folder when the ``postgres`` user cannot reach the
    checkout), a free loopback port, a password for TCP logins; run as the ``postgres``
    user when the tests run as root (PostgreSQL refuses root). ``.ci/run`` installs it."""

    PASSWORD = "dlt-test-s3cret"

    def __init__(self, name: str) -> None:
        self.bin = _binaries()
        self.as_postgres = os.geteuid() == 0
        base = ROOT / "target" / "postgres"
        if self.as_postgres and not _reachable(ROOT / "target"):
            base = Path("/tmp/inspection-postgres")
        self.dir = base / f"{name}-{os.getpid()}"
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir.mkdir(parents=True)
        (self.dir / "pwfile").write_text(self.PASSWORD)
        if self.as_postgres:
            subprocess.run(["chown", "-R", "postgres:", str(self.dir)], check=True)
        self.port = free_port()
        data = str(self.dir / "data")
        self._run("initdb", "-D", data, "-U", "postgres", "--auth-local=trust", "--auth-host=scram-sha-256",
                  f"--pwfile={self.dir / 'pwfile'}", "-E", "UTF8", "--no-sync")
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run("pg_ctl", "-D", data, "-l", str(self.dir / "log"), "-o", options, "-w", "start")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres:{self.PASSWORD}@127.0.0.1:{self.port}/{database}"

    def stop(self) -> None:
        data = str(self.dir / "data")
        subprocess.run(self._tool("pg_ctl", "-D", data, "-m", "immediate", "-w", "stop"), capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)

    def _tool(self, tool: str, *args: str) -> list[str]:
        exe = [str(self.bin / tool), *args]
        return ["runuser", "-u", "postgres", "--", *exe] if self.as_postgres else exe

    def _run(self, tool: str, *args: str) -> None:
        done = subprocess.run(self._tool(tool, *args), capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{tool} failed: {done.stdout}{done.stderr}")


def _binaries() -> Path:
    """The newest PostgreSQL's ``bin`` folder (Debian keeps each version apart)."""
    found = sorted(
        (int(p.name), p / "bin")
        for p in Path("/usr/lib/postgresql").glob("*")
        if p.name.isdigit() and (p / "bin" / "initdb").exists()
    )
    if not found:
        raise RuntimeError(
            "no PostgreSQL server binaries in /usr/lib/postgresql/*/bin: install Debian's "
            "`postgresql` package (`.ci/run` does)"
        )
    return found[-1][1]


def _reachable(path: Path) -> bool:
    """Whether every folder above ``path`` lets others through (the ``postgres`` user)."""
    return all(os.stat(p).st_mode & 0o001 for p in [path.resolve(), *path.resolve().parents])


def rows(cursor: Any, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    """The rows of a query through a DB-API cursor (DuckDB's or psycopg2's)."""
    cursor.execute(sql, params or None)
    found: list[tuple[Any, ...]] = cursor.fetchall()
    return found


def by_root(cursor: Any, schema: str, table: str) -> dict[str, int]:
    """How many rows of a nested table each root record holds, by the root's id."""
    root = table.split("__")[0]
    sql = (
        f"SELECT r.id, count(n._dlt_id) FROM {schema}.{root} r "
        f"LEFT JOIN {schema}.{table} n ON n._dlt_root_id = r._dlt_id GROUP BY r.id"
    )
    return {key: int(count) for key, count in rows(cursor, sql)}
