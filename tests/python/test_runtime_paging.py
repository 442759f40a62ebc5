"""Paging by cursor and by links: forward and backward, ending, stalling, and refusing a
next-page link to another origin."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from inspection_client._runtime import UNSET, ConfigError, ForeignOriginError, PagingPlan, PagingStalledError
from inspection_client._runtime.codec import F, Json, RecordDesc, Str

from runtime_support import KEY_SECRET, Recorder, Runner, get


@dataclass
class Cursor:
    next: Any = UNSET
    cursor: Any = UNSET


@dataclass
class Links:
    next: Any = UNSET
    prev: Any = UNSET


@dataclass
class Page:
    data: list[Any]
    paging: Any = UNSET
    links: Any = UNSET


CURSOR_DESC = RecordDesc(Cursor, register=False)
CURSOR_DESC.define(F("next", "next", Str()), F("cursor", "cursor", Str()))
LINKS_DESC = RecordDesc(Links, register=False)
LINKS_DESC.define(F("next", "next", Str()), F("prev", "prev", Str()))
PAGE_DESC = RecordDesc(Page, register=False)
PAGE_DESC.define(F("data", "data", Json(), fill=list), F("paging", "paging", CURSOR_DESC), F("links", "links", LINKS_DESC))
CURSOR_PLAN = PagingPlan(
    style="cursor", page=PAGE_DESC, items_attr="data", paging_attr="paging",
    next_url_attr="next", cursor_attr="cursor", page_param="page",
)
LINKS_PLAN = PagingPlan(style="links", page=PAGE_DESC, items_attr="data", links_attr="links")


def page(ids: list[str], **paging: str) -> httpx.Response:
    return httpx.Response(200, json={"data": [{"id": i} for i in ids], "paging": paging})


def test_cursor_paging_follows_the_next_link_before_the_cursor(runner: Runner) -> None:
    rec = Recorder(
        page(["a"], cursor="C1"),
        page(["b"], cursor="C2", next="/v3/units?page=L2&per_page=1"),
        page(["c"]),
    )
    core = runner.core(rec)
    items = runner.collect(core.paged(CURSOR_PLAN, get("/units", "units", query=(("per_page", "1"), ("page", "old")))))
    assert [i["id"] for i in items] == ["a", "b", "c"]
    assert [dict(r.url.params) for r in rec.requests] == [
        {"per_page": "1", "page": "old"}, {"per_page": "1", "page": "C1"}, {"page": "L2", "per_page": "1"},
    ]
    assert rec.requests[2].headers["api-key-secret"] == KEY_SECRET


def test_paging_ends_at_an_empty_page_and_pages_can_be_walked(runner: Runner) -> None:
    rec = Recorder(page(["a"], cursor="C1"), page([], cursor="C2"))
    core = runner.core(rec)
    pages = runner.collect(core.paged(CURSOR_PLAN, get("/units", "units")).pages())
    assert [p.data for p in pages] == [[{"id": "a"}], []] and len(rec.requests) == 2
    first = runner.run(core.paged(CURSOR_PLAN, get("/units", "units")).first)
    assert isinstance(first, Page)


def test_a_foreign_next_link_is_refused_after_the_page_records(runner: Runner) -> None:
    rec = Recorder(page(["a"], next="http://other.invalid/v3/units?page=x"))
    items, error = runner.collect_until_error(runner.core(rec).paged(CURSOR_PLAN, get("/units", "units")))
    assert [i["id"] for i in items] == ["a"]
    assert isinstance(error, ForeignOriginError) and error.via == "link" and error.origin == "http://other.invalid"
    assert error.what == "a next-page link"
    assert len(rec.requests) == 1


def test_paging_that_comes_back_stalls(runner: Runner) -> None:
    rec = Recorder(page(["a"], next="/v3/units?p=B"), page(["b"], next="/v3/units?p=C"), page(["c"], next="/v3/units?p=B"))
    items, error = runner.collect_until_error(runner.core(rec).paged(CURSOR_PLAN, get("/units", "units")))
    assert isinstance(error, PagingStalledError) and len(items) == 3 and len(rec.requests) == 3


def test_links_paging_goes_both_ways_and_cursor_paging_only_forward(runner: Runner) -> None:
    def links_page(ids: list[str], **links: str) -> httpx.Response:
        return httpx.Response(200, json={"data": [{"id": i} for i in ids], "links": links})

    rec = Recorder(links_page(["5", "4"], next="/v3/t?after=5", prev="https://api.example.test/v3/t?before=4"), links_page(["3"]))
    core = runner.core(rec)
    items = runner.collect(core.paged(LINKS_PLAN, get("/t", "t")).backward())
    assert [i["id"] for i in items] == ["5", "4", "3"]
    assert rec.requests[1].url.params["before"] == "4"
    with pytest.raises(ConfigError):
        core.paged(CURSOR_PLAN, get("/t", "t")).backward()
