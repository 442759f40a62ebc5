/**
 * How generated operations put values on the wire: query text, JSON-encoded query values
 * and record references in paths. Kept here so the generated methods stay thin.
 *
 * @module
 */

import { serializeBody } from "./request.js";

/** How a query value is written: as plain text, or as the JSON text of the value. */
export type QueryForm = "text" | "json";

/**
 * The query pairs of `query` for the parameters `fields` (wire name and form), in the
 * spec's order; absent values are left out. JSON text is written like a body (a record's
 * additional properties included: a filter the spec does not list yet).
 */
export function queryEntries(
  query: object | undefined,
  fields: readonly (readonly [string, QueryForm])[],
): [string, string | undefined][] {
  const values = (query ?? {}) as Record<string, unknown>;
  return fields.map(([name, form]): [string, string | undefined] => {
    const value = values[name];
    if (value === undefined) {
      return [name, undefined];
    }
    return [name, form === "json" || typeof value === "object" ? serializeBody(value) : String(value)];
  });
}

/**
 * The path segment of a record reference: the id itself, `_<external id>`, or the self
 * keyword (`self`).
 */
export function refSegment(
  ref: string | { readonly external: string } | { readonly self: true },
  selfKeyword?: string,
): string {
  if (typeof ref === "string") {
    return ref;
  }
  if ("external" in ref) {
    return `_${ref.external}`;
  }
  return selfKeyword ?? "self";
}
