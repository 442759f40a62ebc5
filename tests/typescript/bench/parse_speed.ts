// Typed decoding of a page of 100 inspections against `JSON.parse` of the same bytes.
// `node bench/parse_speed.js PAGE.json` (after `tsc`); `cargo xtask bench` writes the page
// (the same bytes the Rust and Python benchmarks read) and runs this.
// Prints a line for people, then one JSON line for `cargo xtask bench`.

import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";

import { decode, type Desc } from "inspection-client";
import { SCHEMA } from "inspection-client/v3";

// The page descriptor the client's list operations decode with (their paging plan's
// `page`): the registry's `page<Inspection>`, read by its generated decoder.
const PAGE: Desc = { k: "ref", name: "page<Inspection>" };

/** The median of `samples`, in ms. */
function median(samples: number[]): number {
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)] ?? Number.NaN;
}

/** The time of one call of `run`, in ms, added to `samples`. */
function time(run: () => unknown, samples: number[]): void {
  const start = performance.now();
  run();
  samples.push(performance.now() - start);
}

const path = process.argv[2];
if (path === undefined) throw new Error("usage: node bench/parse_speed.js PAGE.json");
const text = readFileSync(path, "utf8");
const quick = process.argv.includes("--quick");
const plain = (): unknown => JSON.parse(text);
const typed = (): unknown => decode(SCHEMA, PAGE, JSON.parse(text));
const page = typed() as { data: unknown[] };
if (page.data.length !== 100) throw new Error(`expected 100 inspections, got ${page.data.length}`);
const rounds = quick ? 3 : 300;
for (let i = 0; i < (quick ? 1 : 50); i++) {
  plain();
  typed();
}
// The rounds of the two alternate, so that other work on the machine weighs on both alike.
const plainSamples: number[] = [];
const typedSamples: number[] = [];
for (let i = 0; i < rounds; i++) {
  time(plain, plainSamples);
  time(typed, typedSamples);
}
const plainMs = median(plainSamples);
const typedMs = median(typedSamples);
console.log(
  `page of 100 inspections (${Math.round(text.length / 1024)} KiB): typed (JSON.parse + decode) ` +
    `${typedMs.toFixed(2)} ms, JSON.parse ${plainMs.toFixed(2)} ms (typed/plain = ${(typedMs / plainMs).toFixed(2)})`,
);
console.log(JSON.stringify({ typed_ms: typedMs, plain_ms: plainMs }));
