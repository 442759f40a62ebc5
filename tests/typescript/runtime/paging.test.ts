// Behaviour tests of the hand-written TypeScript runtime (templates/typescript/runtime/)
// against local node:http servers: paging in every style, and decoding answers. The runtime
// is imported from the generated package's build output, where the generator copies it
// verbatim.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import {
  ApiError,
  ConfigError,
  Core,
  DecodeError,
  ForeignOriginError,
  InspectionError,
  InterruptedError,
  PagingStalledError,
  Resume,
  decode,
  isUnknownMember,
  type Desc,
  type PagingPlan,
  type Registry,
} from "../../../generated/typescript/dist/runtime/index.js";

import { serve, json, V3, LEGACY, FAST, KEY_SECRET, keyAuth, get, NONE, collect, collectUntilError } from "./service.js";

// ---------------------------------------------------------------- paging

const UNITS: Registry = {
  Unit: {
    k: "object",
    fields: [
      { name: "id", d: { k: "id" }, req: true, nul: false },
      { name: "status", d: { k: "enum", values: ["active", "retired"], open: true }, req: false, nul: false },
    ],
  },
  UnitPage: {
    k: "object",
    fields: [
      { name: "data", d: { k: "array", of: { k: "ref", name: "Unit" } }, req: false, nul: false, fill: "array" },
      {
        name: "paging",
        d: {
          k: "object",
          fields: [
            { name: "next", d: { k: "string" }, req: false, nul: true },
            { name: "cursor", d: { k: "string" }, req: false, nul: true },
          ],
        },
        req: false,
        nul: true,
      },
    ],
  },
};

const CURSOR: PagingPlan = {
  style: "cursor",
  itemsField: "data",
  pagingField: "paging",
  nextUrlField: "next",
  cursorField: "cursor",
  pageParam: "page",
  page: { k: "ref", name: "UnitPage" },
};

const LINKS: PagingPlan = {
  style: "links",
  itemsField: "assets",
  linksField: "links",
  page: { k: "json" },
};

describe("paging", () => {
  test("cursor style follows next URLs over 3 pages", async () => {
    const svc = await serve((req, res) => {
      const url = new URL(req.url, "http://x");
      const page = url.searchParams.get("page") ?? "1";
      const next = page === "3" ? null : `http://127.0.0.1:${(res.socket?.localPort ?? 0).toString()}/v3/units?page=${Number(page) + 1}&per_page=2`;
      // Ids as numbers: decoded to strings through the envelope.
      return json(res, 200, { data: [{ id: Number(page) * 10 }, { id: `${page}b`, status: "new_status" }], paging: { next } });
    }, "/v3");
    try {
      const core = new Core(svc.base, V3, keyAuth(), FAST);
      const list = core.paged<{ id: string; status?: string }, unknown>(UNITS, CURSOR, get("/units", { query: [["per_page", "2"]] }));
      const items = await collect(list);
      assert.deepEqual(items.map((u) => u.id), ["10", "1b", "20", "2b", "30", "3b"]);
      assert.equal(items[1]?.status, "new_status", "unknown enum values are kept");
      assert.deepEqual(svc.seen.map((s) => s.url), ["/v3/units?per_page=2", "/v3/units?page=2&per_page=2", "/v3/units?page=3&per_page=2"]);
      assert.ok(svc.seen.every((s) => s.headers["api-key-secret"] === KEY_SECRET));
      assert.equal((await collect(list.pages())).length, 3);
      assert.deepEqual(await list.first(), { data: [{ id: "10" }, { id: "1b", status: "new_status" }], paging: { next: `${svc.origin}/v3/units?page=2&per_page=2` } });
      assert.throws(() => list.backward(), ConfigError);
    } finally {
      await svc.close();
    }
  });

  test("cursor style sends a raw cursor back as the page parameter, replacing the old one", async () => {
    const svc = await serve((req, res) => {
      const page = new URL(req.url, "http://x").searchParams.getAll("page");
      const at = page.at(-1) ?? "start";
      const cursor = { start: "c2", c2: "c3", c3: null }[at] ?? null;
      return json(res, 200, { data: [{ id: at }], paging: { cursor } });
    });
    try {
      const core = new Core(svc.base, V3, { kind: "none" }, FAST);
      const req = get("/units", { query: [["page", "start"], ["referenceNumber", "A 1"], ["skip", undefined]] });
      const items = await collect(core.paged<{ id: string }, unknown>(UNITS, CURSOR, req));
      assert.deepEqual(items.map((u) => u.id), ["start", "c2", "c3"]);
      assert.deepEqual(svc.seen.map((s) => s.url), [
        "/units?page=start&referenceNumber=A+1",
        "/units?referenceNumber=A+1&page=c2",
        "/units?referenceNumber=A+1&page=c3",
      ]);
    } finally {
      await svc.close();
    }
  });

  test("links style goes forward through next and back through prev (relative and absolute links)", async () => {
    const all = [1, 2, 3, 4, 5, 6];
    let origin = "";
    const svc = await serve((req, res) => {
      const url = new URL(req.url, "http://x");
      const after = url.searchParams.get("after_id");
      const before = url.searchParams.get("before_id");
      let page: number[];
      if (after !== null) page = all.filter((i) => i > Number(after)).slice(0, 2);
      else if (before !== null) page = all.filter((i) => i < Number(before)).slice(-2);
      else page = all.slice(0, 2);
      const first = page[0];
      const last = page.at(-1);
      const links = {
        next: last === undefined || last === 6 ? null : `/api/assets?after_id=${last}`,
        prev: first === undefined || first === 1 ? null : `${origin}/api/assets?before_id=${first}`,
      };
      return json(res, 200, { assets: page.map((id) => ({ id })), links });
    });
    origin = svc.origin;
    try {
      const core = new Core(svc.base, LEGACY, { kind: "none" }, FAST);
      const forward = await collect(core.paged<{ id: number }, unknown>(NONE, LINKS, get("/api/assets")));
      assert.deepEqual(forward.map((a) => a.id), [1, 2, 3, 4, 5, 6]);
      const back = core.paged<{ id: number }, { assets: unknown[] }>(NONE, LINKS, get("/api/assets", { query: [["before_id", "7"]] }));
      assert.deepEqual((await collect(back.backward())).map((a) => a.id), [5, 6, 3, 4, 1, 2]);
      assert.equal((await collect(back.pagesBackward())).length, 3);
      assert.ok(svc.seen.every((s) => s.headers["accept"] === "application/json; version=1"));
    } finally {
      await svc.close();
    }
  });

  test("a next link to another origin is refused after the page's items", async () => {
    const elsewhere = await serve((_req, res) => json(res, 200, { assets: [{ id: 99 }], links: {} }));
    const svc = await serve((_req, res) => json(res, 200, { assets: [{ id: 1 }, { id: 2 }], links: { next: `${elsewhere.origin}/api/assets?after_id=2` } }));
    try {
      const core = new Core(svc.base, LEGACY, keyAuth(), FAST);
      const { items, error } = await collectUntilError(core.paged<{ id: number }, unknown>(NONE, LINKS, get("/api/assets")));
      assert.deepEqual(items.map((a) => a.id), [1, 2]);
      assert.ok(error instanceof ForeignOriginError, String(error));
      assert.equal(error.what, "a next-page link");
      assert.equal(elsewhere.seen.length, 0);
    } finally {
      await svc.close();
      await elsewhere.close();
    }
  });

  test("a link seen before stops with PagingStalledError after that page's items", async () => {
    const svc = await serve((req, res) => {
      const second = req.url.includes("after_id");
      return json(res, 200, { assets: second ? [{ id: 3 }] : [{ id: 1 }, { id: 2 }], links: { next: "/api/assets?after_id=2" } });
    });
    try {
      const core = new Core(svc.base, LEGACY, { kind: "none" }, FAST);
      const { items, error } = await collectUntilError(core.paged<{ id: number }, unknown>(NONE, LINKS, get("/api/assets")));
      assert.deepEqual(items.map((a) => a.id), [1, 2, 3]);
      assert.ok(error instanceof PagingStalledError, String(error));
      assert.equal(svc.seen.length, 2);
    } finally {
      await svc.close();
    }
  });

  test("an empty page of links ends the walk even with a next link", async () => {
    const svc = await serve((req, res) =>
      json(res, 200, { assets: req.url.includes("after_id") ? [] : [{ id: 1 }], links: { next: "/api/assets?after_id=1" } }),
    );
    try {
      const core = new Core(svc.base, LEGACY, { kind: "none" }, FAST);
      const items = await collect(core.paged<{ id: number }, unknown>(NONE, LINKS, get("/api/assets")));
      assert.deepEqual(items.map((a) => a.id), [1]);
      assert.equal(svc.seen.length, 2);
    } finally {
      await svc.close();
    }
  });

  test("cursor paging goes on through empty pages, up to maxEmptyPages in a row, then stalls", async () => {
    let cursors = 0;
    const svc = await serve((req, res) => {
      const page = new URL(req.url, "http://x").searchParams.get("page");
      // Two empty pages, a full one, then empty pages that always point on.
      if (page === null) return json(res, 200, { data: [], paging: { cursor: "e1" } });
      if (page === "e1") return json(res, 200, { data: [], paging: { cursor: "e2" } });
      if (page === "e2") return json(res, 200, { data: [{ id: "a" }], paging: { cursor: "c0" } });
      cursors += 1;
      return json(res, 200, { data: [], paging: { cursor: `c${cursors}` } });
    });
    try {
      const core = new Core(svc.base, V3, { kind: "none" }, { ...FAST, maxEmptyPages: 3 });
      const { items, error } = await collectUntilError(core.paged<{ id: string }, unknown>(UNITS, CURSOR, get("/units")));
      assert.deepEqual(items.map((u) => u.id), ["a"]);
      assert.ok(error instanceof PagingStalledError, String(error));
      assert.match(error.message, /4 empty pages in a row/);
      // 3 pages up to the record, then 4 empty ones: the 4th is one too many.
      assert.equal(svc.seen.length, 7);
    } finally {
      await svc.close();
    }
  });

  test("a page past the start that fails names its resume point; the walk resumes there", async () => {
    let failing = true;
    const svc = await serve((req, res) => {
      const page = new URL(req.url, "http://x").searchParams.get("page");
      if (page === null) return json(res, 200, { data: [{ id: "a" }], paging: { cursor: "c2" } });
      if (page === "c2" && failing) return json(res, 503, { errors: "try later" });
      if (page === "c2") return json(res, 200, { data: [{ id: "b" }], paging: { next: `${svc.origin}/units?page=c3` } });
      if (page === "c3" && failing) return json(res, 503, { errors: "try later" });
      return json(res, 200, { data: [{ id: "c" }], paging: { next: null } });
    });
    try {
      const core = new Core(svc.base, V3, { kind: "none" }, { ...FAST, retry: { maxAttempts: 1 } });
      const req = get("/units", { query: [["per_page", "1"]] });
      const first = await collectUntilError(core.paged<{ id: string }, unknown>(UNITS, CURSOR, req));
      assert.deepEqual(first.items.map((u) => u.id), ["a"]);
      assert.ok(first.error instanceof InterruptedError, String(first.error));
      assert.ok(first.error.cause instanceof ApiError && first.error.cause.status === 503);
      assert.equal(String(first.error.resume), "cursor:c2");
      assert.match(first.error.message, /answered 503: try later \(the walk can resume at this page: cursor:c2\)$/);
      // Its first request fails alike, with the same resume point; a fresh walk's would not.
      const again = await core.paged(UNITS, CURSOR, req, { resume: first.error.resume }).first().catch((e: unknown) => e);
      assert.ok(again instanceof InterruptedError && String(again.resume) === "cursor:c2", String(again));
      failing = false;
      const seen = svc.seen.length;
      const rest = await collect(core.paged<{ id: string }, unknown>(UNITS, CURSOR, req, { resume: "cursor:c2" }));
      assert.deepEqual(rest.map((u) => u.id), ["b", "c"]);
      assert.deepEqual(svc.seen.slice(seen).map((s) => s.url), ["/units?per_page=1&page=c2", "/units?page=c3"]);
      // A link resumes as it is, on the base URL's origin only.
      const byLink = await collect(core.paged<{ id: string }, unknown>(UNITS, CURSOR, req, { resume: Resume.link(`${svc.origin}/units?page=c3`) }));
      assert.deepEqual(byLink.map((u) => u.id), ["c"]);
      assert.throws(() => core.paged(UNITS, CURSOR, req, { resume: "link:http://127.0.0.2:9/units?page=c3" }), ForeignOriginError);
      assert.throws(() => core.paged(UNITS, CURSOR, req, { resume: "page 3" }), ConfigError);
      assert.throws(() => core.paged(NONE, LINKS, get("/api/assets"), { resume: "cursor:c2" }), ConfigError);
    } finally {
      await svc.close();
    }
  });

  // The paging rule of a cursor page with records but neither a next link nor a cursor.
  const SIZED: PagingPlan = { ...CURSOR, pageSizeField: "per_page", perPageParam: "per_page" };

  /** A walk over `pages` (answered in turn) with `SIZED`, asking for `perPage` records a page. */
  async function walkOver(pages: unknown[], perPage?: string): Promise<{ items: string[]; error: unknown; requests: number }> {
    const svc = await serve((_req, res) => json(res, 200, pages.shift()));
    try {
      const core = new Core(svc.base, V3, { kind: "none" }, FAST);
      const req = get("/units", perPage === undefined ? {} : { query: [["per_page", perPage]] });
      const { items, error } = await collectUntilError(core.paged<{ id: string }, unknown>(UNITS, SIZED, req));
      return { items: items.map((u) => u.id), error, requests: svc.seen.length };
    } finally {
      await svc.close();
    }
  }

  test("a full cursor page with no way on fails after yielding its records, saying what it held", async () => {
    const full = await walkOver([{ data: [{ id: "a" }, { id: "b" }], paging: { per_page: 2, total: 9 } }], "2");
    assert.deepEqual(full.items, ["a", "b"]);
    assert.ok(full.error instanceof PagingStalledError, String(full.error));
    assert.equal(full.error.operation, "GET /units");
    assert.match(full.error.reason, /^the page held 2 records and `paging` \{per_page, total\}, but no next link, no cursor/);
    // No size anywhere: the page may be full, so the walk cannot end quietly either.
    const unsized = await walkOver([{ data: [{ id: "a" }] }]);
    assert.deepEqual(unsized.items, ["a"]);
    assert.ok(unsized.error instanceof PagingStalledError, String(unsized.error));
    assert.match(unsized.error.reason, /held 1 record and no `paging` object/);
    // As many as asked for, and an empty paging object.
    const asked = await walkOver([{ data: [{ id: "a" }, { id: "b" }], paging: {} }], "2");
    assert.match(String(asked.error), /held 2 records and an empty `paging` object/);
  });

  test("a cursor page with fewer records than the page size, or a null next link or cursor, is the last", async () => {
    // The echoed size wins over the one asked for.
    assert.deepEqual(await walkOver([{ data: [{ id: "a" }], paging: { per_page: 2 } }], "1"), { items: ["a"], error: undefined, requests: 1 });
    assert.deepEqual(await walkOver([{ data: [{ id: "a" }], paging: {} }], "5"), { items: ["a"], error: undefined, requests: 1 });
    const marked = [{ next: null }, { cursor: null }, { next: null, cursor: "", per_page: 1 }];
    for (const paging of marked) {
      const walk = await walkOver([{ data: [{ id: "a" }, { id: "b" }], paging }], "2");
      assert.deepEqual(walk, { items: ["a", "b"], error: undefined, requests: 1 }, JSON.stringify(paging));
    }
    // An empty page with no way on ends the walk as before.
    assert.deepEqual(await walkOver([{ data: [], paging: { per_page: 2 } }], "2"), { items: [], error: undefined, requests: 1 });
  });
});

// ---------------------------------------------------------------- decoding

const INSPECTIONS: Registry = {
  Inspection: {
    k: "object",
    fields: [
      { name: "id", d: { k: "id" }, req: true, nul: false },
      { name: "completed_at", d: { k: "datetime" }, req: false, nul: true },
      { name: "external_id", d: { k: "string" }, req: false, nul: false },
      { name: "results", d: { k: "array", of: { k: "ref", name: "InspectionResult" } }, req: false, nul: false, fill: "array" },
      { name: "extended", d: { k: "map", of: { k: "int", bits: 64 } }, req: false, nul: false, fill: "map" },
    ],
  },
  InspectionResult: { k: "union", tag: "object", common: [], variants: { checklist: "Checklist", pdf_form: "PdfForm" } },
  Checklist: {
    k: "object",
    fields: [{ name: "data", d: { k: "array", of: { k: "ref", name: "ResultField" } }, req: false, nul: false, fill: "array" }],
  },
  PdfForm: { k: "object", fields: [{ name: "url", d: { k: "string" }, req: true, nul: false }] },
  ResultField: {
    k: "union",
    tag: "type",
    common: [{ name: "label", d: { k: "string" }, req: false, nul: false }],
    variants: { textbox: "ValueField", radio: "ValueField", checkbox: "ItemsField" },
  },
  ValueField: {
    k: "object",
    fields: [{ name: "value", d: { k: "scalar", of: ["string", "integer"] }, req: false, nul: true }],
  },
  ItemsField: {
    k: "object",
    fields: [{ name: "items", d: { k: "array", of: { k: "ref", name: "Item" } }, req: true, nul: false }],
  },
  Item: { k: "object", fields: [{ name: "label", d: { k: "string" }, req: true, nul: false }] },
  InspectionPage: {
    k: "object",
    fields: [{ name: "data", d: { k: "array", of: { k: "ref", name: "Inspection" } }, req: true, nul: false }],
  },
};

describe("decoding", () => {
  test("a bad member names the JSON path and the union members passed through", async () => {
    const body = {
      data: [
        {
          id: "i1",
          results: [
            { object: "pdf_form", url: "https://x/y.pdf" },
            {
              object: "checklist",
              data: [
                { type: "textbox", value: "a" },
                { type: "radio", value: 3 },
                { type: "checkbox", items: [{ label: "ok" }, { label: 5 }] },
              ],
            },
          ],
        },
      ],
    };
    const page: Desc = { k: "ref", name: "InspectionPage" };
    assert.throws(
      () => decode(INSPECTIONS, page, structuredClone(body)),
      (e: unknown) => {
        assert.ok(e instanceof DecodeError && e instanceof InspectionError);
        assert.equal(e.path, "data[0].results[1].data[2].items[1].label");
        assert.equal(e.detail, "object `checklist`: type `checkbox`: expected a string, got number 5");
        assert.equal(
          e.message,
          "cannot decode the value at `data[0].results[1].data[2].items[1].label`: object `checklist`: type `checkbox`: expected a string, got number 5",
        );
        return true;
      },
    );
    const svc = await serve((_req, res) => json(res, 200, body));
    try {
      const core = new Core(svc.base, V3, { kind: "none" }, FAST);
      const error = await core.json(INSPECTIONS, page, get("/inspections")).catch((e: unknown) => e);
      assert.ok(error instanceof DecodeError);
      assert.equal(error.status, 200);
      assert.equal(error.path, "data[0].results[1].data[2].items[1].label");
    } finally {
      await svc.close();
    }
  });

  test("missing, null and wrongly typed properties", () => {
    const d: Desc = { k: "ref", name: "Inspection" };
    assert.throws(() => decode(INSPECTIONS, d, {}), (e: unknown) => e instanceof DecodeError && e.path === "id" && e.detail === "is required, but absent");
    assert.throws(() => decode(INSPECTIONS, d, { id: true }), (e: unknown) => e instanceof DecodeError && e.detail === "expected an id (a string), got boolean true");
    assert.throws(() => decode(INSPECTIONS, d, []), (e: unknown) => e instanceof DecodeError && e.path === "" && e.detail === "expected an object, got an array");
    assert.throws(
      () => decode(INSPECTIONS, d, { id: "x", extended: { "a b": 1.5 } }),
      (e: unknown) => e instanceof DecodeError && e.path === 'extended["a b"]' && e.detail === "expected an integer, got number 1.5",
    );
    assert.throws(
      () => decode(INSPECTIONS, d, { id: "x", results: [{ object: "pdf_form" }] }, "data[4]"),
      (e: unknown) => e instanceof DecodeError && e.path === "data[4].results[0].url" && e.detail === "object `pdf_form`: is required, but absent",
    );
    // Absent collections become empty; null where none is documented reads as absent;
    // documented nulls and unknown properties are kept; numeric ids become strings.
    assert.deepEqual(decode(INSPECTIONS, d, { id: 7, completed_at: null, external_id: null, later: { x: 1 } }), {
      id: "7",
      completed_at: null,
      results: [],
      extended: {},
      later: { x: 1 },
    });
    assert.throws(() => decode(INSPECTIONS, d, { id: "x", results: null, extended: null, external_id: 3 }), (e: unknown) => e instanceof DecodeError && e.path === "external_id");
  });

  test("an unknown union member is kept whole and re-serialised byte for byte", () => {
    const text =
      '{"id":"i9","results":[{"object":"video_walkaround","frames":[{"t":0.5,"tags":["a",null]}],"label":"new","nested":{"type":"x"}},' +
      '{"object":"checklist","data":[{"type":"signature_v2","value":{"png":"..."},"required":true},{"type":"textbox","value":"v","extra":[1,2]}]},{"no_tag":1}],"extended":{}}';
    const value = decode(INSPECTIONS, { k: "ref", name: "Inspection" }, JSON.parse(text)) as {
      results: [Record<string, unknown>, { data: Record<string, unknown>[] }, Record<string, unknown>];
    };
    assert.equal(JSON.stringify(value), text);
    assert.equal(isUnknownMember(value.results[0]), true);
    assert.equal(value.results[0]["object"], "video_walkaround");
    assert.equal(isUnknownMember(value.results[1]), false);
    assert.equal(isUnknownMember(value.results[1].data[0]), true);
    assert.equal(isUnknownMember(value.results[1].data[1]), false);
    assert.equal(isUnknownMember(value.results[2]), true, "a member without a tag is kept too");
    assert.deepEqual(Object.keys(value.results[0]), ["object", "frames", "label", "nested"]);
  });

  test("a record envelope reads wrapped or bare, keeping unknown properties either way", () => {
    const reg: Registry = {
      Asset: { k: "object", fields: [{ name: "id", d: { k: "id" }, req: true, nul: false }] },
      AssetResponse: { k: "object", fields: [{ name: "asset", d: { k: "ref", name: "Asset" }, req: true, nul: false }], envelope: "asset" },
    };
    const d: Desc = { k: "ref", name: "AssetResponse" };
    assert.deepEqual(decode(reg, d, { asset: { id: 43, fleet: "north" }, served_by: "b" }), { asset: { id: "43", fleet: "north" }, served_by: "b" });
    assert.deepEqual(decode(reg, d, { id: 43, fleet: "north" }), { asset: { id: "43", fleet: "north" } });
    // Bare, the record's own rules apply; wrapped, a null record is still refused.
    assert.throws(() => decode(reg, d, { name: "x" }), (e: unknown) => e instanceof DecodeError && e.path === "asset.id");
    assert.throws(() => decode(reg, d, { asset: null }), (e: unknown) => e instanceof DecodeError && e.detail === "is required, but null");
    // Without `envelope`, the property is simply required.
    const strict: Registry = { ...reg, AssetResponse: { k: "object", fields: [{ name: "asset", d: { k: "ref", name: "Asset" }, req: true, nul: false }] } };
    assert.throws(() => decode(strict, d, { id: 43 }), (e: unknown) => e instanceof DecodeError && e.path === "asset");
  });

  test("date-times are kept as sent: without an offset, with fractions, or a bare date", () => {
    const d: Desc = {
      k: "object",
      fields: ["a", "b", "c", "d"].map((name) => ({ name, d: { k: "datetime" } as Desc, req: false, nul: false })),
    };
    const sent = { a: "2016-05-23T22:16:43", b: "2016-05-23T22:16:43.123456+02:00", c: "2020-12-21", d: "2016-05-23 22:16:43" };
    assert.deepEqual(decode(NONE, d, { ...sent }), sent);
  });
});
