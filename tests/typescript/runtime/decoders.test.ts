// The generated decoders (`decoders.ts` of each interface), the fast path of `decode`: on
// the real registries they must read every answer exactly as the descriptors' walk does,
// and give up on whatever the walk refuses, so that the walk names it. Each case decodes
// the same JSON twice, with the generated registry and with a copy of it whose decoders are
// removed (the walk alone), and compares the two.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { DecodeError, decode, isUnknownMember, type Desc, type Registry } from "../../../generated/typescript/dist/runtime/index.js";
import { SCHEMA as LEGACY } from "../../../generated/typescript/dist/legacy/schema.js";
import { SCHEMA as V3 } from "../../../generated/typescript/dist/v3/schema.js";

/** `reg` without its generated decoders: what `decode` did before them. */
function walkOnly(reg: Registry): Registry {
  return Object.fromEntries(
    Object.entries(reg).map(([name, d]) => {
      if (d.k !== "object" && d.k !== "union") return [name, d];
      const { fast: _fast, ...rest } = d;
      return [name, rest];
    }),
  );
}

/** Every object of `value` that is marked as an unknown union member, by its place. */
function unknownMembers(value: unknown, at = "", out: string[] = []): string[] {
  if (typeof value !== "object" || value === null) return out;
  if (isUnknownMember(value)) out.push(at);
  for (const [k, v] of Object.entries(value)) unknownMembers(v, `${at}/${k}`, out);
  return out;
}

/**
 * `text` decoded as `name` of `reg` by the generated decoder, which must not give up,
 * and by `decode`, both compared with the walk's reading (properties, their order, and
 * the members marked unknown).
 */
function readAlike(reg: Registry, name: string, text: string): unknown {
  const d = reg[name];
  assert.ok(d !== undefined && (d.k === "object" || d.k === "union") && d.fast !== undefined, `${name} has a generated decoder`);
  const fast = d.fast(JSON.parse(text));
  const decoded = decode(reg, { k: "ref", name }, JSON.parse(text));
  const walked = decode(walkOnly(reg), { k: "ref", name }, JSON.parse(text));
  for (const value of [fast, decoded]) {
    assert.equal(JSON.stringify(value), JSON.stringify(walked));
    assert.deepEqual(unknownMembers(value), unknownMembers(walked));
  }
  return decoded;
}

/** The error `decode` gives for `text` as `name`, which must be the walk's own. */
function failsAlike(reg: Registry, name: string, text: string, path: string, detail: string): void {
  const d: Desc = { k: "ref", name };
  const failure = (r: Registry): DecodeError => {
    try {
      decode(r, d, JSON.parse(text));
    } catch (e) {
      if (e instanceof DecodeError) return e;
      throw e;
    }
    assert.fail(`${text} decoded as ${name}`);
  };
  const error = failure(reg);
  assert.equal(error.path, path);
  assert.equal(error.detail, detail);
  const walked = failure(walkOnly(reg));
  assert.equal(error.message, walked.message);
}

// Result members and their fields with the tag first and last, an unknown member and an
// unknown field type, an unknown enum value, an id sent as a number, `null`s documented
// and not, a collection left out, and properties the spec does not list.
const INSPECTION = JSON.stringify({
  id: 7,
  type: "reopened",
  later: { x: [1, null] },
  location: { id: 12, external_id: null, name: "Yard", extra: true },
  dashboard_url: null,
  results: [
    {
      object: "checklist",
      name: "Walkaround",
      data: [
        { type: "textbox", id: null, label: "Notes", value: "ok" },
        { label: "Hours", value: 4187, id: "f2", type: "textbox" },
        { type: "checkbox", items: [{ label: "a", value: true }], comment: "kept" },
        { label: "Sketch", strokes: [[0, 1]], type: "sketch_pad" },
        { label: "no tag" },
      ],
    },
    { name: "Form", data: { a: 1, b: null }, link: "https://x/y.pdf", object: "pdf_form" },
    { object: "video_walkaround", frames: [{ t: 0.5 }], nested: { object: "checklist", data: 5 } },
    { name: "Template", version: 3, errors: null, object: "data_template" },
  ],
  photos: null,
  signatures: [{ type: "esign", signed_at: "2026-01-01T00:00:00Z" }, { type: "wet_ink", by: "x" }],
  created_at: "2026-01-01T00:00:00Z",
});

describe("generated decoders", () => {
  test("read an inspection as the walk does: tags first or last, unknown members and values kept", () => {
    const value = readAlike(V3, "Inspection", INSPECTION) as Record<string, unknown> & {
      results: (Record<string, unknown> & { data: Record<string, unknown>[] })[];
    };
    assert.equal(value["id"], "7");
    assert.equal(value["type"], "reopened");
    assert.ok(!("dashboard_url" in value), "a null where none is documented reads as absent");
    assert.deepEqual(value["photos"], []);
    assert.deepEqual(value["videos"], []);
    assert.deepEqual(value["later"], { x: [1, null] });
    const [checklist, form, unknown, template] = value.results;
    assert.ok(checklist && form && unknown && template);
    assert.deepEqual(
      checklist.data.map((f) => isUnknownMember(f)),
      [false, false, false, true, true],
    );
    assert.equal(isUnknownMember(form), false);
    assert.equal(isUnknownMember(unknown), true);
    assert.deepEqual(template["errors"], []);
    // An unknown member is written back exactly as it came.
    const sent = JSON.parse(INSPECTION) as { results: unknown[] };
    assert.equal(JSON.stringify(unknown), JSON.stringify(sent.results[2]));
  });

  test("read a page, an event and a bare or wrapped envelope as the walk does", () => {
    readAlike(V3, "page<Inspection>", JSON.stringify({ data: [JSON.parse(INSPECTION), { id: "i2" }], paging: { next: null, per_page: 2 } }));
    readAlike(V3, "page<Inspection>", JSON.stringify({ paging: null, more: 1 }));
    readAlike(V3, "Event", JSON.stringify({ data: JSON.parse(INSPECTION), type: "inspection.created" }));
    readAlike(V3, "Event", JSON.stringify({ type: "unit.moved", data: { id: 1 } }));
    readAlike(LEGACY, "AssetResponse", JSON.stringify({ asset: { id: 43, fleet: "north" }, served_by: "b" }));
    const bare = readAlike(LEGACY, "AssetResponse", JSON.stringify({ id: 43, fleet: "north" })) as Record<string, Record<string, unknown>>;
    assert.deepEqual(Object.keys(bare), ["asset"]);
    assert.equal(bare["asset"]?.["id"], "43");
    assert.equal(bare["asset"]?.["fleet"], "north");
  });

  test("give up on what the walk refuses, which names the JSON path", () => {
    const page = (inspection: unknown): string => JSON.stringify({ data: [{ id: "i1" }, inspection] });
    failsAlike(
      V3,
      "page<Inspection>",
      page({ id: "i2", results: [{ data: [{ label: "x" }, { items: [{ label: 5 }], type: "checkbox" }], object: "checklist" }] }),
      "data[1].results[0].data[1].items[0].label",
      "object `checklist`: type `checkbox`: expected a string, got number 5",
    );
    failsAlike(V3, "page<Inspection>", page({ type: "open" }), "data[1].id", "is required, but absent");
    failsAlike(V3, "page<Inspection>", page({ id: 1.5 }), "data[1].id", "expected an id (a string), got number 1.5");
    failsAlike(V3, "page<Inspection>", page({ id: "i2", photos: {} }), "data[1].photos", "expected an array, got an object");
    failsAlike(V3, "page<Inspection>", JSON.stringify({ data: [], paging: { per_page: "2" } }), "paging.per_page", 'expected an integer, got string "2"');
    failsAlike(V3, "Event", JSON.stringify({ type: "task.completed", data: [] }), "data", "type `task.completed`: expected an object, got an array");
    failsAlike(LEGACY, "AssetResponse", JSON.stringify({ asset: null }), "asset", "is required, but null");
  });
});
