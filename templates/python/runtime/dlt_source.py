"""What the generated dlt sources (``inspection_client.dlt``) share: the hints their
resources give dlt, the walks that feed them (whole, or incremental by the list's filter
and resumable from one run to the next), the values' conversions, and the documents
fetched beside a load.

Imported only by ``inspection_client.dlt``, which needs the ``dlt`` extra
(``pip install "inspection-client[dlt]"``); the rest of the package never imports dlt.
"""

from __future__ import annotations

import datetime as _dt
import json
import logging
import os
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Generic, Protocol, TypeVar, cast

import dlt
from dlt.common.schema.typing import TColumnSchema, TSchemaContract, TTableSchemaColumns
from dlt.common.schema.typing import TWriteDispositionConfig
from dlt.extract.hints import TResourceNestedHints
from dlt.extract.incremental import Incremental

from .codec import Desc, Unknown, unlisted
from .errors import InspectionError
from .paging import ResumablePage

__all__ = [
    "CONTRACT",
    "MERGE",
    "Col",
    "Documents",
    "Nested",
    "Shared",
    "Table",
    "filtered",
    "repair",
    "row_of_unknown",
    "scalar_text",
    "text",
    "unlisted",
    "whole",
    "wire_text",
]

T = TypeVar("T")
P = TypeVar("P")
Row = dict[str, Any]

CONTRACT: TSchemaContract = {"tables": "evolve", "columns": "evolve", "data_type": "discard_value"}
"""New tables and columns (properties the spec does not list yet) are let in, and every
column keeps its type: a value that does not fit it is left out of its row, never a variant
column beside it. The client's decode refuses a value of another type for a property the
spec lists, and a member the spec does not know has its own columns (``row_of_unknown``),
so only a property the spec does not list, whose type changes from the one dlt first saw,
can lose a value; ``freeze`` (stop the load) is dlt's other choice, and it stops every
later run on the package it could not normalize."""

MERGE: TWriteDispositionConfig = {"disposition": "merge", "strategy": "delete-insert"}
"""Merged by the primary key: a record's row and its nested rows are replaced whole (an
array that shrinks leaves no rows behind)."""

#: What a resource keeps in dlt's state between runs, beside its incremental: a walk of
#: the list that a run left part-way (``add_limit``), and where it goes on.
_WALK = "inspection_walk"
#: What a source keeps in dlt's state: the newest load package checked for the copies a
#: load resumed after a crash can leave (``repair``).
_CHECKED = "inspection_checked_load"

_log = logging.getLogger("inspection_client")

# -- hints


def Col(  # noqa: N802 (reads as the column it makes)
    name: str,
    data_type: str,
    description: str,
    *,
    nullable: bool = True,
    precision: int | None = None,
    primary_key: bool = False,
) -> TColumnSchema:
    """A column as dlt's hints take it."""
    column: TColumnSchema = {"name": name, "data_type": cast(Any, data_type), "nullable": nullable}
    if precision is not None:
        column["precision"] = precision
    if primary_key:
        column["primary_key"] = True
    if description:
        column["description"] = description
    return column


@dataclass(frozen=True)
class Nested:
    """A nested table's hints: its name, its path below the list's table (a table name
    per element, as dlt's ``nested_hints`` take it), its parent's name."""

    name: str
    path: tuple[str, ...]
    parent: str
    columns: Sequence[TColumnSchema]


@dataclass(frozen=True)
class Table:
    """A list's table and its nested tables, as the generator made them from the spec."""

    columns: Sequence[TColumnSchema]
    nested: Sequence[Nested] = ()

    @property
    def column_hints(self) -> TTableSchemaColumns:
        """The list's table's columns, as ``@dlt.resource(columns=...)`` takes them."""
        return _by_name(self.columns)

    @property
    def nested_hints(self) -> dict[str | Sequence[str], TResourceNestedHints]:
        """The nested tables' parents and columns, as ``@dlt.resource(nested_hints=...)``
        takes them."""
        return {n.path: {"parent_table_name": n.parent, "columns": _by_name(n.columns)} for n in self.nested}


def _by_name(columns: Sequence[TColumnSchema]) -> TTableSchemaColumns:
    return {str(c.get("name")): c for c in columns}


# -- values


#: An open enum's value (a member or a plain ``str``) as plain text (no call of Python's
#: own between: the rows read thousands of them a page).
text: Callable[[str], str] = str.__str__


def scalar_text(value: object) -> str:
    """A string, number or boolean (a scalar union) as its text (``true``, ``4``)."""
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value)


def wire_text(desc: Desc, value: object) -> str:
    """A value as the text the service sends it (a date or date-time, or a range as the
    JSON of its two ends)."""
    wire = desc.encode(value)
    return wire if isinstance(wire, str) else json.dumps(wire)


def row_of_unknown(member: object) -> Row:
    """A union member the spec does not know: its tag, and its other properties as they
    came under its tag's name (``signature_pad__strokes``): columns of their own, which no
    known member's column of another type can be."""
    if not isinstance(member, Unknown):
        return {}
    tag = member.tag_name
    name = member.tag or "unknown_member"
    return {tag: member.raw.get(tag), name: {k: v for k, v in member.raw.items() if k != tag}}


# -- the client


class _Closable(Protocol):
    def close(self) -> None: ...


K = TypeVar("K", bound=_Closable)


class Shared(Generic[K]):
    """One client for every resource of a source (so one pacer), made on first use: a
    source made and never run sends nothing, and a token interface logs in once. The
    client's connections are closed once the source is gone."""

    def __init__(self, make: Callable[[], K]) -> None:
        self._make = make
        self._client: K | None = None

    def client(self) -> K:
        if self._client is None:
            self._client = self._make()
            weakref.finalize(self, self._client.close)
        return self._client


# -- walks


def whole(walk: Callable[[], Iterable[ResumablePage[P, T]]], row: Callable[[T], Row]) -> Iterator[list[Row]]:
    """A list walked whole (a table replaced each run): a batch of rows per page."""
    _alone_in_dataset()
    for page in walk():
        if page.items:
            yield list(map(row, page.items))


def filtered(
    walk: Callable[[_dt.datetime | None, str | None], Iterable[ResumablePage[P, T]]],
    incremental: Incremental[_dt.datetime],
    row: Callable[[T], Row],
    watermark: Callable[[T], object],
) -> Iterator[list[Row]]:
    """A list read by its filter from the incremental's start (its last watermark less the
    lag: the lookback), a batch of rows per page.

    The list's filter applies the range, so dlt passes the rows as they are; the new
    watermark (the newest seen, never older than the last) is kept once the walk has read
    the last page. A run that stops part-way on purpose (``add_limit``) keeps where the walk
    goes on in the resource's state, and the next run goes on from that page with the same
    filter. With an ``end_value`` (a range loaded apart), dlt filters the end and keeps no
    state.
    """
    if incremental.end_value is not None:
        for page in walk(incremental.start_value, None):
            if page.items:
                yield list(map(row, page.items))
        return
    _alone_in_dataset()
    _heal()
    state = dlt.current.resource_state()
    kept = state.get(_WALK)
    if isinstance(kept, dict):
        since = _instant(kept.get("since"))
        resume = kept.get("resume") if isinstance(kept.get("resume"), str) else None
        top = _instant(kept.get("top"))
    else:
        since, resume, top = incremental.start_value, None, None
    last = _instant(incremental.get_state().get("last_value"))
    # No value: dlt's range stays as it is, and its filter passes every row.
    incremental.advance(cast(_dt.datetime, None))
    for page in walk(since, resume):
        for record in page.items:
            seen = watermark(record)
            if isinstance(seen, _dt.datetime) and (top is None or seen > top):
                top = seen
        rows = list(map(row, page.items))
        if page.resume is None:
            state.pop(_WALK, None)
            newest = top if last is None or (top is not None and top > last) else last
            if newest is not None:
                incremental.advance(newest)
        else:
            state[_WALK] = {"since": _iso(since), "resume": page.resume, "top": _iso(top)}
        if rows:
            yield rows


def _instant(value: object) -> _dt.datetime | None:
    """A watermark as kept in dlt's state (a datetime, or ISO 8601 text), aware."""
    if isinstance(value, str):
        value = _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    if not isinstance(value, _dt.datetime):
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=_dt.timezone.utc)


def _iso(value: _dt.datetime | None) -> str | None:
    return None if value is None else value.isoformat()


# -- a load resumed after a crash


def repair(pipeline: dlt.Pipeline, load_ids: Iterable[str] | None = None, schema: str | None = None) -> int:
    """Removes the second copies a crash can leave in the tables a source merges, in the
    rows of ``load_ids`` (every completed load package of the pipeline when ``None``) of
    the tables of ``schema`` (a source's name, ``inspection_client_v3``; every schema of
    the pipeline when ``None``); the number of copies removed.

    A load killed after it wrote a table's rows to dlt's staging dataset but before dlt
    noted that step done writes them again when it resumes; dlt's merge then copies both
    into a table that has nested tables (it deduplicates those, and a table without any),
    so such a record is there twice, with the same ``_dlt_id``. The sources call this
    themselves when a run begins extracting (on the packages loaded since they last
    checked); call it after a run that only finished a pending package, or on a
    destination's data loaded before. SQL destinations only (a no-op elsewhere).
    """
    try:
        client = pipeline.sql_client()
    except Exception:  # not a SQL destination, or nothing loaded yet
        return 0
    ids = list(load_ids) if load_ids is not None else list(pipeline.list_completed_load_packages())
    removed = 0
    schemas = [s for s in pipeline.schemas.values() if schema is None or s.name == schema]
    with client:
        for each in schemas:
            for table in _merged_with_nested(each):
                for load_id in ids:
                    removed += _remove_copies(client, each, table, load_id)
    return removed


def _merged_with_nested(schema: dlt.Schema) -> list[str]:
    tables = schema.tables
    parents = {t.get("parent") for t in tables.values()}
    return [
        name
        for name, t in tables.items()
        if t.get("parent") is None and t.get("write_disposition") == "merge" and name in parents
    ]


def _remove_copies(client: Any, schema: dlt.Schema, table: str, load_id: str) -> int:
    """Keeps one of each set of identical rows of ``table`` that ``load_id`` loaded."""
    naming = schema.naming
    row_key = client.escape_column_name(naming.normalize_identifier("_dlt_id"))
    load = client.escape_column_name(naming.normalize_identifier("_dlt_load_id"))
    qualified = client.make_qualified_table_name(table)
    copied = (
        f"SELECT {row_key} FROM {qualified} WHERE {load} = %s GROUP BY {row_key} HAVING count(*) > 1"
    )
    found = client.execute_sql(copied, load_id)
    if not found:
        return 0
    kept = f"inspection_kept_{abs(hash((table, load_id)))}"
    with client.begin_transaction():
        client.execute_sql(
            f"CREATE TEMPORARY TABLE {kept} AS SELECT DISTINCT * FROM {qualified} "
            f"WHERE {load} = %s AND {row_key} IN ({copied})",
            load_id,
            load_id,
        )
        (total,) = client.execute_sql(f"SELECT count(*) FROM {qualified} WHERE {row_key} IN (SELECT {row_key} FROM {kept})")[0]
        client.execute_sql(f"DELETE FROM {qualified} WHERE {row_key} IN (SELECT {row_key} FROM {kept})")
        client.execute_sql(f"INSERT INTO {qualified} SELECT * FROM {kept}")
        (distinct,) = client.execute_sql(f"SELECT count(*) FROM {kept}")[0]
        client.execute_sql(f"DROP TABLE {kept}")
    _log.warning(
        "removed %d copies of rows of %s that load %s wrote twice (a load resumed after a crash)",
        int(total) - int(distinct),
        table,
        load_id,
    )
    return int(total) - int(distinct)


def _alone_in_dataset() -> None:
    """Refuses a load into a dataset that another interface's source has loaded into when
    their tables share names (v3's and legacy's `tasks`, `locations`, `users`): one would
    replace or merge into the other's. Each interface goes into a dataset of its own."""
    try:
        pipeline = dlt.current.pipeline()
        own = dlt.current.source_schema()
        names = set(dlt.current.source().resources.keys())
    except Exception:  # extracted outside a pipeline
        return
    # The sources' schemas are named after the package and the interface.
    prefix = __name__.split(".")[0] + "_"
    for other in pipeline.schemas.values():
        if other.name == own.name or not other.name.startswith(prefix):
            continue
        shared = sorted(names & set(other.tables))
        if shared:
            raise ValueError(
                f"the sources {own.name} and {other.name} both make the tables "
                f"{', '.join(shared)} in the dataset {pipeline.dataset_name}: load each "
                "interface into a dataset of its own (dlt.pipeline(..., dataset_name=...))"
            )


def _heal() -> None:
    """``repair`` of this source's tables, in the packages loaded since it last checked."""
    try:
        pipeline = dlt.current.pipeline()
        state = dlt.current.source_state()
        own = dlt.current.source_schema().name
    except Exception:  # extracted outside a pipeline
        return
    done = state.get(_CHECKED)
    completed = sorted(pipeline.list_completed_load_packages())
    # The first check (a pipeline loaded before the sources checked) looks at the last few.
    fresh = [i for i in completed if i > done] if isinstance(done, str) else completed[-8:]
    if not fresh:
        return
    try:
        repair(pipeline, fresh, own)
    except Exception as e:  # never stop a run for this; the next one tries again
        _log.warning("could not check the last loads for rows written twice: %s", e)
        return
    state[_CHECKED] = fresh[-1]


# -- documents


@dataclass(frozen=True)
class Documents:
    """Each record's document saved as a file in ``folder`` (``<id>.<extension>``): from
    the record's pre-signed link (no credential, no request of the quota; checked to be a
    whole document), through the API when the link fails, written whole (a ``.part``
    file renamed). A file already there is kept, so a run fetches each document once."""

    folder: Path
    id_key: str
    link_key: str | None
    media: str
    extension: str

    def rows(
        self,
        records: Iterable[Row],
        presigned: Callable[[str, BinaryIO], int],
        api: Callable[[str, BinaryIO], int],
    ) -> list[Row]:
        """A row per record (its id, the file's path and size, and how it came)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        out: list[Row] = []
        for record in records:
            key = record.get(self.id_key)
            if not isinstance(key, str) or not key:
                continue
            path = self.folder / f"{_file_name(key)}.{self.extension}"
            if path.exists():
                out.append(self._row(key, path, "kept"))
                continue
            link = record.get(self.link_key) if self.link_key else None
            how = "link" if isinstance(link, str) and self._fetch(path, lambda f: presigned(link, f)) else "api"
            if how == "api":
                self._fetch(path, lambda f: api(key, f), check=False)
            out.append(self._row(key, path, how))
        return out

    def _row(self, key: str, path: Path, how: str) -> Row:
        return {"id": key, "path": str(path), "bytes": path.stat().st_size, "fetched_from": how}

    def _fetch(self, path: Path, write: Callable[[BinaryIO], int], *, check: bool = True) -> bool:
        """Writes the document to ``path`` whole; ``False`` (nothing left) when ``check``
        is on and the link failed or answered something else."""
        part = path.with_name(path.name + ".part")
        try:
            with open(part, "wb") as f:
                write(f)
                f.flush()
                os.fsync(f.fileno())
        except InspectionError:
            part.unlink(missing_ok=True)
            if check:
                return False
            raise
        if check and not self._whole(part):
            part.unlink(missing_ok=True)
            return False
        os.replace(part, path)
        return True

    def _whole(self, path: Path) -> bool:
        """A PDF starts as one and ends with its end marker (a login page or a body cut
        short is not one); other media are taken as they came."""
        if self.media != "application/pdf":
            return True
        with open(path, "rb") as f:
            head = f.read(8)
            f.seek(max(0, path.stat().st_size - 1024))
            tail = f.read()
        return head.startswith(b"%PDF-") and b"%%EOF" in tail


def _file_name(key: str) -> str:
    """An id as a file name: every character but letters, digits, ``-`` and ``_``
    written ``%XX`` (so an id cannot name another folder or a hidden file)."""
    safe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"
    return "".join(c if c in safe else "".join(f"%{b:02X}" for b in c.encode()) for c in key)
