// What the Node runners read from the repository: the scenario files and the specs' operations.

import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

import type { Format } from "./format.js";
import { Json } from "./json.js";
import { Operations, operationsOf } from "./operations.js";
import { Scenario, scenariosOf } from "./scenarios.js";

export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

const SCENARIO_DIR = join(ROOT, "tests", "conformance");

/** A YAML file of the repository as JSON (YAML 1.2 core schema: `yes`, `on` are strings). */
function readYaml(path: string): Json {
  return parse(readFileSync(path, "utf8"), { schema: "core" }) as Json;
}

/** The scenario format as data, tests/conformance/format.json. */
export function readFormat(): Format {
  return JSON.parse(readFileSync(join(SCENARIO_DIR, "format.json"), "utf8")) as Format;
}

/** Every scenario of every file, in file order; a malformed file fails the whole run. */
export function readScenarios(): Scenario[] {
  const files = readdirSync(SCENARIO_DIR)
    .filter((f) => f.endsWith(".yaml"))
    .sort();
  if (files.length === 0) throw new Error(`no scenario files in ${SCENARIO_DIR}`);
  const names = new Set<string>();
  const format = readFormat();
  return files.flatMap((file) => scenariosOf(file, readYaml(join(SCENARIO_DIR, file)), names, format));
}

/** The spec files as JSON, for a runner that cannot read files (the browser's). */
export function readSpecs(): Record<"v3" | "legacy", Json> {
  return { v3: readYaml(join(ROOT, "spec", "v3.yaml")), legacy: readYaml(join(ROOT, "spec", "legacy.yaml")) };
}

/** Each interface's operations, from spec/v3.yaml and spec/legacy.yaml. */
export function readOperations(specs: Record<"v3" | "legacy", Json> = readSpecs()): Operations {
  return { v3: operationsOf("v3", specs.v3), legacy: operationsOf("legacy", specs.legacy) };
}
