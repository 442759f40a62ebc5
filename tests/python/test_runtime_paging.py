"""Paging by cursor and by links: forward and backward, ending (a null link or cursor,
fewer records than the page size), stalling (a page met twice, too many empty pages, a
full page with no way on), refusing a next-page link to another origin, and resuming a
walk that failed part-way."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from inspection_client._runtime import (
    UNSET,
    ApiError,
    ConfigError,
    ForeignOriginError,
    PagingInterruptedError,
    PagingPlan,
    PagingStalledError,
)
from inspection_client._runtime.codec import F, Int, Json, RecordDesc, Str

from runtime_support import KEY_SECRET, Recorder, Runner, fast, get


@dataclass
class Cursor:
    next: Any = UNSET
    cursor: Any = UNSET
    per_page: Any = UNSET
    extra: dict[str, Any] = field(default_factory=dict)


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
CURSOR_DESC.define(F("next", "next", Str(), nul=True), F("cursor", "cursor", Str(), nul=True), F("per_page", "per_page", Int()), extra="extra")
LINKS_DESC = RecordDesc(Links, register=False)
LINKS_DESC.define(F("next", "next", Str()), F("prev", "prev", Str()))
PAGE_DESC = RecordDesc(Page, register=False)
PAGE_DESC.define(F("data", "data", Json(), fill=list), F("paging", "paging", CURSOR_DESC), F("links", "links", LINKS_DESC))
CURSOR_PLAN = PagingPlan(
    style="cursor", page=PAGE_DESC, items_attr="data", paging_attr="paging",
    next_url_attr="next", cursor_attr="cursor", page_param="page", page_size_attr="per_page", per_page_param="per_page",
)
LINKS_PLAN = PagingPlan(style="links", page=PAGE_DESC, items_attr="data", links_attr="links")


def page(ids: list[str], **paging: str | int | None) -> httpx.Response:
    return httpx.Response(200, json={"data": [{"id": i} for i in ids], "paging": paging})


def test_cursor_paging_follows_the_next_link_before_the_cursor(runner: Runner) -> None:
    rec = Recorder(
        page(["a"], cursor="C1"),
        page(["b"], cursor="C2", next="/v3/units?page=L2&per_page=1"),
        page(["c"], next=None),
    )
    core = runner.core(rec)
    items = runner.collect(core.paged(CURSOR_PLAN, get("/units", "units", query=(("per_page", "1"), ("page", "old")))))
    assert [i["id"] for i in items] == ["a", "b", "c"]
    assert [dict(r.url.params) for r in rec.requests] == [
        {"per_page": "1", "page": "old"}, {"per_page": "1", "page": "C1"}, {"page": "L2", "per_page": "1"},
    ]
    assert rec.requests[2].headers["api-key-secret"] == KEY_SECRET


def links_page(ids: list[str], **links: str) -> httpx.Response:
    return httpx.Response(200, json={"data": [{"id": i} for i in ids], "links": links})


def test_cursor_paging_walks_through_an_empty_page_links_paging_ends_there(runner: Runner) -> None:
    rec = Recorder(page(["a"], cursor="C1"), page([], cursor="C2"), page(["b"], cursor=None))
    core = runner.core(rec)
    pages = runner.collect(core.paged(CURSOR_PLAN, get("/units", "units")).pages())
    assert [p.data for p in pages] == [[{"id": "a"}], [], [{"id": "b"}]] and len(rec.requests) == 3
    first = runner.run(core.paged(CURSOR_PLAN, get("/units", "units")).first)
    assert isinstance(first, Page)
    # The service's last links page may still carry a link: an empty one ends the walk.
    rec = Recorder(links_page(["a"], next="/v3/t?after=a"), links_page([], next="/v3/t?after=a2"))
    assert len(runner.collect(runner.core(rec).paged(LINKS_PLAN, get("/t", "t")).pages())) == 2
    assert len(rec.requests) == 2


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


# ---------------------------------------------------------------- a cursor page that leads nowhere


def test_a_full_page_with_no_way_on_fails_after_its_records(runner: Runner) -> None:
    # The page size echoed by the paging object, or else the one the request asked for.
    for answer, query in (
        (page(["a", "b"], per_page=2), ()),
        (httpx.Response(200, json={"data": [{"id": "a"}, {"id": "b"}]}), (("per_page", "2"),)),
        (page(["a", "b"]), ()),
    ):
        rec = Recorder(answer)
        items, error = runner.collect_until_error(runner.core(rec).paged(CURSOR_PLAN, get("/units", "units", query=query)))
        assert [i["id"] for i in items] == ["a", "b"] and len(rec.requests) == 1
        assert isinstance(error, PagingStalledError) and error.operation == "GET /units"
        last = error
    assert "the page held 2 records and an empty `paging` object" in last.reason
    rec = Recorder(page(["a", "b"], per_page=2, total=9))
    _, error = runner.collect_until_error(runner.core(rec).paged(CURSOR_PLAN, get("/units", "units")).pages())
    assert isinstance(error, PagingStalledError)
    assert "the page held 2 records and `paging` {per_page, total}" in str(error)
    rec = Recorder(httpx.Response(200, json={"data": [{"id": "a"}]}))
    _, error = runner.collect_until_error(runner.core(rec).paged(CURSOR_PLAN, get("/units", "units")))
    assert isinstance(error, PagingStalledError) and "1 record and no `paging` object" in error.reason


def test_a_short_page_or_a_null_link_or_cursor_ends_the_walk(runner: Runner) -> None:
    for answer, query in (
        (page(["a"], per_page=2), ()),
        (page(["a"]), (("per_page", "2"),)),
        # The paging object's echo wins over what was asked.
        (page(["a"], per_page=2), (("per_page", "1"),)),
        (page(["a", "b"], next=None), (("per_page", "2"),)),
        (page(["a", "b"], cursor=None, per_page=2), ()),
    ):
        rec = Recorder(answer)
        items = runner.collect(runner.core(rec).paged(CURSOR_PLAN, get("/units", "units", query=query)))
        assert len(items) == len(answer.json()["data"]) and len(rec.requests) == 1


def test_links_paging_goes_both_ways_and_cursor_paging_only_forward(runner: Runner) -> None:
    rec = Recorder(links_page(["5", "4"], next="/v3/t?after=5", prev="https://api.example.test/v3/t?before=4"), links_page(["3"]))
    core = runner.core(rec)
    items = runner.collect(core.paged(LINKS_PLAN, get("/t", "t")).backward())
    assert [i["id"] for i in items] == ["5", "4", "3"]
    assert rec.requests[1].url.params["before"] == "4"
    with pytest.raises(ConfigError):
        core.paged(CURSOR_PLAN, get("/t", "t")).backward()


# ---------------------------------------------------------------- walks that always end, and resume


def test_too_many_empty_pages_in_a_row_stall_the_walk(runner: Runner) -> None:
    rec = Recorder(*(page([], cursor=f"E{n}") for n in range(5)), page(["z"]))
    core = runner.core(rec, options=fast(max_empty_pages=2))
    pages, error = runner.collect_until_error(core.paged(CURSOR_PLAN, get("/units", "units")).pages())
    assert isinstance(error, PagingStalledError) and "3 empty pages in a row" in str(error)
    assert len(pages) == 3 and len(rec.requests) == 3
    # Fewer are walked through.
    rec = Recorder(page([], cursor="E1"), page([], cursor="E2"), page(["z"], next=None))
    items = runner.collect(runner.core(rec, options=fast(max_empty_pages=2)).paged(CURSOR_PLAN, get("/units", "units")))
    assert [i["id"] for i in items] == ["z"]


def test_a_walk_that_fails_past_its_start_names_where_to_resume(runner: Runner) -> None:
    failing = httpx.Response(500, json={"errors": "boom"})
    rec = Recorder(page(["a"], cursor="C1"), failing)
    core = runner.core(rec, options=fast(max_attempts=1))
    items, error = runner.collect_until_error(core.paged(CURSOR_PLAN, get("/units", "units", query=(("per_page", "1"),))))
    assert [i["id"] for i in items] == ["a"]
    assert isinstance(error, PagingInterruptedError) and error.resume == "cursor:C1"
    assert isinstance(error.error, ApiError) and error.__cause__ is error.error and error.status == 500
    assert str(error).endswith("(the walk can resume at this page: cursor:C1)") and "boom" in str(error)
    # The list given that point walks on from the page that failed, filters kept.
    rec = Recorder(page(["b"], cursor="C2"), page(["c"], cursor=None))
    core = runner.core(rec)
    resumed = core.paged(CURSOR_PLAN, get("/units", "units", query=(("per_page", "1"),)), None, error.resume)
    assert [i["id"] for i in runner.collect(resumed)] == ["b", "c"]
    assert [dict(r.url.params) for r in rec.requests] == [{"per_page": "1", "page": "C1"}, {"per_page": "1", "page": "C2"}]
    # A resumed start that fails again names the same point; the first request of a walk
    # from the start names none (start again).
    core = runner.core(Recorder(failing), options=fast(max_attempts=1))
    _, again = runner.collect_until_error(core.paged(CURSOR_PLAN, get("/units", "units"), None, "cursor:C1"))
    assert isinstance(again, PagingInterruptedError) and again.resume == "cursor:C1"
    _, plain = runner.collect_until_error(core.paged(CURSOR_PLAN, get("/units", "units")))
    assert isinstance(plain, ApiError)


def test_a_links_walk_resumes_at_its_link(runner: Runner) -> None:
    rec = Recorder(links_page(["5"], next="/v3/t?after=5"), httpx.Response(503))
    core = runner.core(rec, options=fast(max_attempts=1))
    items, error = runner.collect_until_error(core.paged(LINKS_PLAN, get("/t", "t")))
    assert [i["id"] for i in items] == ["5"]
    assert isinstance(error, PagingInterruptedError) and error.resume == "link:https://api.example.test/v3/t?after=5"
    rec = Recorder(links_page(["6"]))
    first = runner.run(runner.core(rec).paged(LINKS_PLAN, get("/t", "t"), None, error.resume).first)
    assert first.data == [{"id": "6"}] and str(rec.requests[0].url) == "https://api.example.test/v3/t?after=5"


def test_resume_points_are_checked(runner: Runner) -> None:
    core = runner.core(Recorder(page([])))
    for bad in ("nope", "cursor:", "page:C1"):
        with pytest.raises(ConfigError, match="not a resume point"):
            core.paged(CURSOR_PLAN, get("/units", "units"), None, bad)
    with pytest.raises(ConfigError, match="pages by links"):
        core.paged(LINKS_PLAN, get("/t", "t"), None, "cursor:C1")
    with pytest.raises(ForeignOriginError):
        core.paged(LINKS_PLAN, get("/t", "t"), None, "link:http://other.invalid/v3/t?after=5")


def test_each_page_of_a_resumable_walk_says_where_the_walk_goes_on(runner: Runner) -> None:
    rec = Recorder(page(["a"], cursor="C1"), page(["b"], next="/v3/units?page=L2"), page(["c"], cursor=None))
    core = runner.core(rec)
    pages = runner.collect(core.paged(CURSOR_PLAN, get("/units", "units", query=(("per_page", "1"),))).pages_resumable())
    assert [[i["id"] for i in p.items] for p in pages] == [["a"], ["b"], ["c"]]
    assert [p.resume for p in pages] == ["cursor:C1", "link:https://api.example.test/v3/units?page=L2", None]
    assert pages[0].page.data == [{"id": "a"}]
    # A walk started at a page's point fetches the pages after it, and nothing before.
    rec = Recorder(page(["c"], cursor=None))
    resumed = runner.core(rec).paged(CURSOR_PLAN, get("/units", "units"), None, pages[1].resume)
    assert [[i["id"] for i in p.items] for p in runner.collect(resumed.pages_resumable())] == [["c"]]
    assert str(rec.requests[0].url) == "https://api.example.test/v3/units?page=L2"
    # Links paging too; a walk that stalls gives its last page first, with no way on.
    rec = Recorder(links_page(["5"], next="/v3/t?after=5"), links_page(["6"], next="/v3/t?after=5"))
    pages, error = runner.collect_until_error(runner.core(rec).paged(LINKS_PLAN, get("/t", "t")).pages_resumable())
    assert [p.resume for p in pages] == ["link:https://api.example.test/v3/t?after=5", None]
    assert isinstance(error, PagingStalledError)
